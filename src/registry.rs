//! The [`Registry`]: publish, resolve, versions, list.

use std::collections::HashMap;

mod config;
mod readings;
mod settings;

pub use self::config::RegistryConfig;
pub use self::settings::Settings;

pub(crate) mod resolution;

pub use self::resolution::Resolution;

use std::sync::Arc;

use self::readings::{free_apart, Readings};

use crate::bundle::Bundle;
use crate::store::{
    content_digest, Association, AssociationChange, AssociationPlan, AssociationsOf, MemoryStore,
    Mode, SchemaId, Store, Stored, Version,
};
use dataschema_core::compat::{CompatError, Policy, Reading};
use dataschema_core::resolve::{Aliases, PlanOptions};
use dataschema_core::validate as core;
use dataschema_core::{compat, Compatibility, Error, ModeRefusal, Resolver, Schema, Urn};

/// Schemas under immutable URNs, over a [`Store`].
///
/// `Registry` is cheap to clone (an `Arc` inside) and safe to share across
/// threads. It never hands out a schema that cannot be used: `publish`
/// compiles a schema before storing it.
///
/// ```
/// use dataschema::{Compatibility, Error, MemoryStore, Registry, Schema, Urn};
///
/// let registry = Registry::new(MemoryStore::new());
/// let urn: Urn = "urn:acme:schema:greeting:1".parse()?;
/// let schema = Schema::json(urn.clone(), r#"{"type": "string"}"#);
/// registry.publish(schema.clone(), Compatibility::None)?;
/// registry.publish(schema, Compatibility::None)?; // same bytes again: fine
///
/// let changed = Schema::json(urn.clone(), r#"{"type": "integer"}"#);
/// assert!(matches!(
///     registry.publish(changed, Compatibility::None),
///     Err(Error::Immutable { .. })
/// ));
/// assert_eq!(registry.versions("greeting")?, vec![1]);
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn Store>,
    /// Where the registry ids come from, which framed payloads carry.
    ids: Ids,
    /// Schemas read for compatibility checks, by content.
    readings: Readings,
    /// The aliases a bundle's or folder's manifest gives versions read as
    /// (`Resolver::aliases`), by URN.
    aliases: HashMap<Urn, Aliases>,
}

/// Where a registry's ids come from.
#[derive(Clone)]
enum Ids {
    /// The store's ids are a registry's ids (`Registry::new`).
    Store,
    /// None: `embed` and `from_bundle` without recorded ids, whose memory
    /// store numbers contents in load order (numbers that name nothing
    /// outside the process).
    Unknown,
    /// The ids a lock recorded (`from_bundle`, `embed_with_ids`).
    Given(IdTable),
}

/// Registry ids given for held URNs, checked to agree with each other.
#[derive(Clone)]
struct IdTable {
    by_urn: HashMap<Urn, SchemaId>,
    /// Each id's URNs, ordered as `Registry::list`.
    by_id: HashMap<SchemaId, Vec<Urn>>,
}

impl IdTable {
    /// The table of `ids`, each for a URN `store` holds: one content has
    /// one id, one id names one content ([`Error::IdConflict`]).
    fn new(store: &dyn Store, ids: Vec<(Urn, SchemaId)>) -> Result<IdTable, Error> {
        let mut by_urn: HashMap<Urn, SchemaId> = HashMap::new();
        let mut by_id: HashMap<SchemaId, Vec<Urn>> = HashMap::new();
        let mut by_content: HashMap<String, (Urn, SchemaId)> = HashMap::new();
        for (urn, id) in ids {
            let schema = store
                .get(&urn)?
                .ok_or_else(|| Error::NotFound { urn: urn.clone() })?;
            if let Some(&given) = by_urn.get(&urn) {
                if given != id {
                    return Err(Error::IdConflict {
                        other: urn.clone(),
                        urn,
                        id,
                        other_id: given,
                    });
                }
                continue;
            }
            let content = content_digest(&schema);
            match by_content.get(&content) {
                Some((other, other_id)) if *other_id != id => {
                    return Err(Error::IdConflict {
                        urn,
                        id,
                        other: other.clone(),
                        other_id: *other_id,
                    })
                }
                Some(_) => {}
                None => {
                    // An id already given to another content.
                    if let Some(other) = by_id.get(&id).and_then(|urns| urns.first()) {
                        return Err(Error::IdConflict {
                            urn,
                            id,
                            other: other.clone(),
                            other_id: id,
                        });
                    }
                    by_content.insert(content, (urn.clone(), id));
                }
            }
            by_urn.insert(urn.clone(), id);
            by_id.entry(id).or_default().push(urn);
        }
        for urns in by_id.values_mut() {
            urns.sort();
        }
        Ok(IdTable { by_urn, by_id })
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}

impl Registry {
    /// A registry over `store`.
    pub fn new(store: impl Store + 'static) -> Registry {
        Registry::over(Arc::new(store), Ids::Store)
    }

    fn over(store: Arc<dyn Store>, ids: Ids) -> Registry {
        Registry::over_with(store, ids, HashMap::new())
    }

    fn over_with(store: Arc<dyn Store>, ids: Ids, aliases: HashMap<Urn, Aliases>) -> Registry {
        Registry {
            inner: Arc::new(Inner {
                ids,
                store,
                readings: Readings::new(readings::DEFAULT_BYTES),
                aliases,
            }),
        }
    }

    /// An in-memory registry holding `schemas`, each checked as
    /// [`publish`](Registry::publish) checks it (with
    /// [`Compatibility::None`]). A schema may `$ref` another of the same
    /// batch by URN, whatever their order.
    ///
    /// It knows no registry ids: [`id_of`](Registry::id_of) answers
    /// [`Error::NoId`], and as a [`Resolver`] it answers no id
    /// ([`Resolver::resolve_id`]), so framed payloads are resolved by a
    /// registry's ids only. [`embed_with_ids`](Registry::embed_with_ids)
    /// takes the ids a lock recorded.
    pub fn embed(schemas: impl IntoIterator<Item = Schema>) -> Result<Registry, Error> {
        let registry = Registry::over(Arc::new(MemoryStore::new()), Ids::Unknown);
        registry.load_checked(schemas)?;
        Ok(registry)
    }

    /// [`embed`](Registry::embed), answering the registry ids `ids` gives
    /// (the `[ids]` a lock recorded, e.g. `dataschema_build::Source::id`)
    /// for those URNs, and only those: [`id_of`](Registry::id_of),
    /// [`schema_by_id`](Registry::schema_by_id),
    /// [`urns_of_id`](Registry::urns_of_id) and
    /// [`Resolver::resolve_id`], so `Guard::validate_framed` resolves
    /// their frames offline.
    ///
    /// Every URN of `ids` must be one of `schemas` ([`Error::NotFound`]),
    /// and the ids must agree the way a registry's do: URNs holding the
    /// same content (language, bytes, root) have the same id, and one id
    /// names one content ([`Error::IdConflict`]).
    pub fn embed_with_ids(
        schemas: impl IntoIterator<Item = Schema>,
        ids: impl IntoIterator<Item = (Urn, SchemaId)>,
    ) -> Result<Registry, Error> {
        let staging = Registry::over(Arc::new(MemoryStore::new()), Ids::Unknown);
        staging.load_checked(schemas)?;
        let ids: Vec<(Urn, SchemaId)> = ids.into_iter().collect();
        staging.with_id_table(ids)
    }

    /// A registry over the same store, answering `ids`.
    fn with_id_table(&self, ids: Vec<(Urn, SchemaId)>) -> Result<Registry, Error> {
        let table = IdTable::new(self.inner.store.as_ref(), ids)?;
        Ok(Registry::over_with(
            self.inner.store.clone(),
            Ids::Given(table),
            self.inner.aliases.clone(),
        ))
    }

    /// This registry (the same store and ids) honouring `aliases` when a
    /// version is read as another: for each URN, the aliases its manifest
    /// gives it outside its schema (`[aliases."<name>.v<version>"]`; see
    /// `docs/resolution.md`), which [`resolution`](Registry::resolution)
    /// and a guard's [`read_as`](crate::Guard::read_as) over this registry
    /// honour ([`Resolver::aliases`]). They replace any this registry gave
    /// the same URN. [`from_bundle`](Registry::from_bundle) takes them from
    /// the bundle. [`Error::NotFound`] for a URN this registry does not
    /// hold.
    pub fn with_aliases(
        &self,
        aliases: impl IntoIterator<Item = (Urn, Aliases)>,
    ) -> Result<Registry, Error> {
        let mut given = self.inner.aliases.clone();
        for (urn, aliases) in aliases {
            if self.inner.store.get(&urn)?.is_none() {
                return Err(Error::NotFound { urn });
            }
            given.insert(urn, aliases);
        }
        Ok(Registry::over_with(
            self.inner.store.clone(),
            self.inner.ids.clone(),
            given,
        ))
    }

    /// Stores `schemas`, then compiles each, as [`embed`](Registry::embed).
    fn load_checked(&self, schemas: impl IntoIterator<Item = Schema>) -> Result<(), Error> {
        let registry = self;
        let schemas: Vec<Schema> = schemas.into_iter().collect();
        // Store first, so `$ref`s between schemas of the batch resolve; then
        // compile each. On error the half-built registry is dropped.
        for schema in &schemas {
            schema.check_shape()?;
            registry.inner.store.put(schema)?;
        }
        for schema in &schemas {
            registry.check_compiles(schema)?;
        }
        Ok(())
    }

    /// An in-memory registry holding the schemas `dataschema::build::bundle`
    /// packed at `cargo build` (see [`include_bundle!`](crate::include_bundle)).
    ///
    /// The build already compiled every schema, so they are not compiled
    /// again here: a binary built without a language's validator still
    /// loads its bundle, and its guard fails open (`no_validator`) on those
    /// schemas, as the outcome table says.
    ///
    /// Its registry ids are those the folder's lock recorded (`[ids]`,
    /// written by `dataschema publish`; see [`Bundle::ids`]): it answers
    /// them, and only them, in [`id_of`](Registry::id_of),
    /// [`schema_by_id`](Registry::schema_by_id) and
    /// [`Resolver::resolve_id`], so `Guard::validate_framed` validates
    /// frames of published schemas offline. A URN without a recorded id
    /// has none here ([`Error::NoId`]); a bundle with none answers no id,
    /// as [`embed`](Registry::embed). Ids that contradict each other (one
    /// content under two ids, one id for two contents) are
    /// [`Error::IdConflict`] (the build refuses such a lock already).
    pub fn from_bundle(bundle: Bundle) -> Result<Registry, Error> {
        let aliases = bundle
            .aliases()
            .map(|(urn, aliases)| Ok((urn.parse::<Urn>()?, aliases)))
            .collect::<Result<HashMap<_, _>, Error>>()?;
        let registry = Registry::over_with(Arc::new(MemoryStore::new()), Ids::Unknown, aliases);
        for schema in bundle.schemas() {
            let schema = schema?;
            schema.check_shape()?;
            registry.inner.store.put(&schema)?;
        }
        let ids = bundle
            .ids()
            .map(|(urn, id)| Ok((urn.parse::<Urn>()?, id)))
            .collect::<Result<Vec<_>, Error>>()?;
        if ids.is_empty() {
            return Ok(registry);
        }
        registry.with_id_table(ids)
    }

    /// Publishes `schema`, checked against the prior versions of its name
    /// (same namespace, lower versions) under `mode`; the first version of
    /// a name has nothing to check against and passes. Under any mode but
    /// [`Compatibility::None`], versions are published in order: a version
    /// below one already held is refused, since it was never checked
    /// against it. The check and the insert it allows run under the store's
    /// lock on the name, so concurrent publishers (threads, or replicas over
    /// one database) are each checked against every version stored before
    /// theirs.
    ///
    /// Publishing the same schema again succeeds (start-up and CI
    /// registration stay idempotent); different bytes under a URN already
    /// held is [`Error::Immutable`], except for a protobuf schema that is
    /// the held version in another form (the same files, the same message
    /// by URN, the same metadata and rule set: a Confluent client's text,
    /// then `dataschema publish`'s descriptor set), which answers that
    /// version, its stored bytes unchanged. A schema that cannot be compiled is
    /// refused ([`Error::SchemaUnusable`], or [`Error::NoValidator`] when its
    /// language's validator is not compiled in); one that breaks
    /// compatibility is [`Error::Incompatible`], with the full report.
    /// Version 4294967295, the largest a URN carries, is refused
    /// ([`Error::LastVersion`]): its name could take no next version.
    ///
    /// Answers where the schema is held, its content's id, and whether
    /// this publish stored it. The compatibility level set for a name is
    /// [`config().compatibility_in_effect`](RegistryConfig::compatibility_in_effect).
    ///
    /// The registry [`Mode`] of the name is met, as on every write
    /// ([`writable`](Registry::writable)): a read-only name takes nothing,
    /// an IMPORT name only [`import`](Registry::import)s
    /// ([`Error::ModeRefused`]).
    pub fn publish(&self, schema: Schema, mode: Compatibility) -> Result<Stored, Error> {
        self.store_checked(schema, mode, None, Version::Exact, None)
    }

    /// Publishes `schema` as a client of a registry writes it (the native
    /// API's publish, Confluent's register): under its URN's version
    /// ([`Version::Exact`]) or the next one ([`Version::Next`]), checked
    /// under the compatibility level in effect for its name
    /// ([`config().compatibility_in_effect`](RegistryConfig::compatibility_in_effect)) and, when `also` is
    /// given, under that mode too. A client may ask for more checking,
    /// never for less: `also` cannot lift the level (a request's
    /// `Dataschema-Mode: NONE` past a BACKWARD level is still checked
    /// under BACKWARD). Otherwise as [`publish`](Registry::publish), the
    /// name's registry [`Mode`] met.
    pub fn register(
        &self,
        schema: Schema,
        version: Version,
        also: Option<Compatibility>,
    ) -> Result<Stored, Error> {
        let level = self.config().compatibility_in_effect(schema.urn().name())?;
        self.store_checked(schema, level, also, version, None)
    }

    /// Whether the registry [`Mode`] in effect for `urn`'s name
    /// ([`config().mode_in_effect`](RegistryConfig::mode_in_effect)) takes a write of it, with an id given
    /// (`Some`) or not: the rules every write meets, in this one place
    /// (Confluent's `checkRegisterMode`, `AbstractSchemaRegistry.java`,
    /// v8.2.0). READONLY and READONLY_OVERRIDE take no write
    /// ([`ModeRefusal::ReadOnly`]); an id is given in IMPORT mode only
    /// ([`ModeRefusal::NotImport`]); IMPORT takes only writes giving one
    /// ([`ModeRefusal::NotReadWrite`]). [`Error::ModeRefused`] otherwise.
    pub fn writable(&self, urn: &Urn, id: Option<SchemaId>) -> Result<(), Error> {
        let mode = self.config().mode_in_effect(urn.name())?;
        let refusal = if mode.is_read_only() {
            ModeRefusal::ReadOnly
        } else {
            match id {
                Some(_) if mode != Mode::Import => ModeRefusal::NotImport,
                None if mode != Mode::ReadWrite => ModeRefusal::NotReadWrite,
                _ => return Ok(()),
            }
        };
        Err(Error::ModeRefused {
            urn: urn.clone(),
            refusal,
        })
    }

    /// Publishes `schema` as the next version of its name in its namespace
    /// (one above the highest held, or 1), chosen under the store's lock:
    /// the version of `schema`'s URN is ignored. When a version of the name
    /// already holds the same content, that version is answered and nothing
    /// is stored (Confluent's register behaves so). Checked as
    /// [`publish`](Registry::publish) checks.
    pub fn publish_next(&self, schema: Schema, mode: Compatibility) -> Result<Stored, Error> {
        self.store_checked(schema, mode, None, Version::Next, None)
    }

    /// Stores `schema` with the content id `id` given (a schema imported
    /// from another registry, with the id its messages carry): under its
    /// URN's version ([`Version::Exact`]) or the next one
    /// ([`Version::Next`]). Compiled as [`publish`](Registry::publish)
    /// compiles, not checked for compatibility (Confluent's import mode
    /// checks none). The same schema under the same URN and id again is
    /// fine; an id held by other bytes, or the URN held under another id,
    /// is [`Error::IdConflict`]; a content held under another id is kept
    /// under this one too (see [`Store::publish_with_id`]). The name must be
    /// in IMPORT mode ([`writable`](Registry::writable)).
    pub fn import(&self, schema: Schema, version: Version, id: SchemaId) -> Result<Stored, Error> {
        self.store_checked(schema, Compatibility::None, None, version, Some(id))
    }

    fn store_checked(
        &self,
        schema: Schema,
        mode: Compatibility,
        also: Option<Compatibility>,
        version: Version,
        id: Option<SchemaId>,
    ) -> Result<Stored, Error> {
        schema.check_shape()?;
        self.writable(schema.urn(), id)?;
        let also = also.filter(|&also| also != mode && also != Compatibility::None);
        let publish = |schema: &Schema, check: crate::store::Check<'_>| match id {
            Some(id) => self.inner.store.publish_with_id(schema, version, id, check),
            None => self.inner.store.publish(schema, version, check),
        };
        let settings = self.config().settings_in_effect(schema.urn().name())?;
        let grouping = Grouping {
            group: settings.compatibility_group.clone(),
            policy: settings.compatibility_policy.unwrap_or_default(),
        };
        if version == Version::Exact {
            if let Some(held) = self.inner.store.get(schema.urn())? {
                if held != schema {
                    // The same protobuf files in another form (a Confluent
                    // client's text, then `dataschema publish`'s
                    // descriptor set): that version, its bytes unchanged.
                    if self.same_version(&held, &schema)? {
                        return publish(&held, &|_, _| Ok(()));
                    }
                    return Err(Error::Immutable {
                        urn: schema.urn().clone(),
                    });
                }
                // Held already: no compile, no check.
                return publish(&schema, &|_, _| Ok(()));
            }
        }
        // Compiled before the store's lock is taken: a schema's `$ref`s by
        // URN name other schemas, which never change. The candidate
        // resolves as itself, as it will once stored (and as it does in
        // `embed`): a schema may `$ref` its own URN.
        let with_candidate = WithCandidate {
            candidate: schema.clone(),
            registry: self.clone(),
        };
        let compiled = core::compile(&schema, Arc::new(with_candidate), core::Options::default())?;
        // A descriptor set's references are what Confluent's API answers
        // as its root file's imports: they must be those files.
        #[cfg(feature = "proto-text")]
        dataschema_core::proto::check_references(&schema, self)?;
        // The compile's reading of a protobuf schema is the one the check
        // needs: the candidate is decoded once.
        let candidate = compiled.reading().map(Arc::new);
        free_apart(compiled, schema.bytes().len());
        let readings = &self.inner.readings;
        let stored = publish(&schema, &|checked, held| {
            let mut read = |other: &Schema| match &candidate {
                Some(reading)
                    if other.language() == schema.language() && other.bytes() == schema.bytes() =>
                {
                    Ok(reading.clone())
                }
                _ => readings.read(other, self),
            };
            check_compatible(checked, mode, &grouping, held, &mut read)?;
            match also {
                Some(also) => check_compatible(checked, also, &grouping, held, &mut read),
                None => Ok(()),
            }
        });
        if let Some(reading) = candidate {
            match &stored {
                // Stored: the prior version of the name's next publish.
                Ok(_) => readings.keep(&schema, reading),
                Err(_) => free_apart(reading, schema.bytes().len()),
            }
        }
        stored
    }

    /// Whether `sent`, under the URN of `held` with other bytes, is that
    /// version all the same: protobuf schemas compiling to the same files
    /// and naming the same message by URN
    /// ([`proto::same_version`](dataschema_core::proto::same_version)),
    /// with the same metadata and rule set. Other languages: never (their
    /// bytes are the schema). A schema that does not compile is not that
    /// version; a store or resolver that fails meanwhile is an error, not
    /// an answer (a passing failure must not read as "other files").
    fn same_version(&self, held: &Schema, sent: &Schema) -> Result<bool, Error> {
        #[cfg(feature = "proto-text")]
        {
            if held.language() != dataschema_core::Language::Protobuf
                || sent.language() != dataschema_core::Language::Protobuf
                || held.metadata() != sent.metadata()
                || held.rule_set() != sent.rule_set()
            {
                return Ok(false);
            }
            match dataschema_core::proto::same_version(held, sent, self) {
                Ok(same) => Ok(same),
                Err(err) if err.kind() == dataschema_core::ErrorKind::Infrastructure => Err(err),
                Err(_) => Ok(false),
            }
        }
        #[cfg(not(feature = "proto-text"))]
        {
            let _ = (held, sent);
            Ok(false)
        }
    }

    /// Sets how many bytes of schemas read for compatibility checks the
    /// registry keeps (64 MiB by default, counted by
    /// `limits::held_estimate`; 0 keeps none). A publish
    /// checks its candidate against the prior versions of its name, and
    /// reading a large protobuf schema (decoding its descriptor set) is a
    /// large part of that; a published schema's reading is kept, by
    /// content, so the next version's publish does not decode it again.
    /// The readings (a decoded descriptor pool, a parsed JSON value) take
    /// tens to hundreds of times the schema bytes in memory: each is
    /// counted by the estimate of what it holds, not by its bytes. Entries
    /// never go stale (a schema's bytes never change); the one used
    /// longest ago goes first.
    pub fn set_compat_cache_bytes(&self, bytes: usize) {
        self.inner.readings.set_max_bytes(bytes);
    }

    /// Former name of [`config().settings`](RegistryConfig::settings).
    #[deprecated(note = "use `config().settings`")]
    #[doc(hidden)]
    pub fn settings(&self, name: Option<&str>) -> Result<Option<Settings>, Error> {
        self.config().settings(name)
    }

    /// Former name of [`config().set_settings`](RegistryConfig::set_settings).
    #[deprecated(note = "use `config().set_settings`")]
    #[doc(hidden)]
    pub fn set_settings(
        &self,
        name: Option<&str>,
        settings: Option<&Settings>,
    ) -> Result<(), Error> {
        self.config().set_settings(name, settings)
    }

    /// Former name of
    /// [`config().settings_in_effect`](RegistryConfig::settings_in_effect).
    #[deprecated(note = "use `config().settings_in_effect`")]
    #[doc(hidden)]
    pub fn settings_in_effect(&self, name: &str) -> Result<Settings, Error> {
        self.config().settings_in_effect(name)
    }

    /// Former name of [`config().configurable`](RegistryConfig::configurable).
    #[deprecated(note = "use `config().configurable`")]
    #[doc(hidden)]
    pub fn configurable(&self, name: Option<&str>) -> Result<(), Error> {
        self.config().configurable(name)
    }

    /// Former name of `config().set_compatibility(Some(name), Some(level))`.
    #[deprecated(note = "use `config().set_compatibility(Some(name), Some(level))`")]
    #[doc(hidden)]
    pub fn set_compatibility(&self, name: &str, level: Compatibility) -> Result<(), Error> {
        self.config().set_compatibility(Some(name), Some(level))
    }

    /// Former name of `config().set_compatibility(Some(name), None)`.
    #[deprecated(note = "use `config().set_compatibility(Some(name), None)`")]
    #[doc(hidden)]
    pub fn clear_compatibility(&self, name: &str) -> Result<(), Error> {
        self.config().set_compatibility(Some(name), None)
    }

    /// Former name of `config().set_compatibility(None, Some(level))`.
    #[deprecated(note = "use `config().set_compatibility(None, Some(level))`")]
    #[doc(hidden)]
    pub fn set_default_compatibility(&self, level: Compatibility) -> Result<(), Error> {
        self.config().set_compatibility(None, Some(level))
    }

    /// Former name of `config().set_compatibility(None, None)`.
    #[deprecated(note = "use `config().set_compatibility(None, None)`")]
    #[doc(hidden)]
    pub fn clear_default_compatibility(&self) -> Result<(), Error> {
        self.config().set_compatibility(None, None)
    }

    /// Former name of [`config().compatibility`](RegistryConfig::compatibility).
    #[deprecated(note = "use `config().compatibility`")]
    #[doc(hidden)]
    pub fn compatibility_setting(
        &self,
        name: Option<&str>,
    ) -> Result<Option<Compatibility>, Error> {
        self.config().compatibility(name)
    }

    /// Former name of
    /// [`config().compatibility_in_effect`](RegistryConfig::compatibility_in_effect).
    #[deprecated(note = "use `config().compatibility_in_effect`")]
    #[doc(hidden)]
    pub fn compatibility(&self, name: &str) -> Result<Compatibility, Error> {
        self.config().compatibility_in_effect(name)
    }

    /// Former name of [`config().mode`](RegistryConfig::mode).
    #[deprecated(note = "use `config().mode`")]
    #[doc(hidden)]
    pub fn mode_setting(&self, name: Option<&str>) -> Result<Option<Mode>, Error> {
        self.config().mode(name)
    }

    /// Former name of [`config().mode_in_effect`](RegistryConfig::mode_in_effect).
    #[deprecated(note = "use `config().mode_in_effect`")]
    #[doc(hidden)]
    pub fn mode(&self, name: &str) -> Result<Mode, Error> {
        self.config().mode_in_effect(name)
    }

    /// Former name of [`config().set_mode`](RegistryConfig::set_mode).
    #[deprecated(note = "use `config().set_mode`")]
    #[doc(hidden)]
    pub fn set_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        self.config().set_mode(name, mode)
    }

    /// Former name of [`config().force_mode`](RegistryConfig::force_mode).
    #[deprecated(note = "use `config().force_mode`")]
    #[doc(hidden)]
    pub fn force_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        self.config().force_mode(name, mode)
    }

    /// Whether a version not soft-deleted is held under `name` (in any
    /// namespace: a name's mode is the same in all), or (`None`) under
    /// any name.
    fn holds_live(&self, name: Option<&str>) -> Result<bool, Error> {
        let mut deleted: std::collections::HashMap<(String, String), Vec<u32>> =
            std::collections::HashMap::new();
        for urn in self.inner.store.list()? {
            if name.is_some_and(|name| urn.name() != name) {
                continue;
            }
            let key = (urn.namespace().to_owned(), urn.name().to_owned());
            let hidden = match deleted.entry(key) {
                std::collections::hash_map::Entry::Occupied(held) => held.into_mut(),
                std::collections::hash_map::Entry::Vacant(new) => {
                    new.insert(self.inner.store.deleted(urn.namespace(), urn.name())?)
                }
            };
            if !hidden.contains(&urn.version()) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The associations `of` names (Confluent's Associations API; see
    /// [`Store::associations`]), in [`Association::order`].
    pub fn associations(&self, of: AssociationsOf<'_>) -> Result<Vec<Association>, Error> {
        self.inner.store.associations(of)
    }

    /// Changes associations atomically under the store's associations
    /// lock (see [`Store::change_associations`]): `plan` sees the
    /// associations of `resource_id` and of `subjects`, and answers the
    /// changes to make. `plan` must not call the registry.
    pub fn change_associations(
        &self,
        resource_id: &str,
        subjects: &[&str],
        plan: AssociationPlan<'_>,
    ) -> Result<Vec<AssociationChange>, Error> {
        self.inner
            .store
            .change_associations(resource_id, subjects, plan)
    }

    /// The soft-deleted versions of `name` in `namespace`, ascending (see
    /// [`Store::deleted`]): held and resolvable, out of a subject's
    /// listing.
    pub fn deleted_versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        self.inner.store.deleted(namespace, name)
    }

    /// Soft-deletes every URN of `urns` (see [`Store::delete_versions`]):
    /// nothing is removed, every URN and id still resolves.
    ///
    /// Refused ([`Error::Referenced`], nothing marked) when a version that
    /// stays live (not soft-deleted, and not one of `urns`) carries a
    /// reference to one of `urns`: its content is live when any URN holding
    /// it is. Confluent refuses the same deletes with `42206`
    /// (`KafkaSchemaRegistry.deleteSchemaVersion` and `deleteSubject`,
    /// v8.2.0: `getReferencedBy(key, false)`, and a subject's own versions
    /// set aside).
    ///
    /// A read-only name deletes nothing ([`Error::ModeRefused`], as
    /// [`writable`](Registry::writable) says).
    pub fn delete_versions(&self, urns: &[Urn]) -> Result<(), Error> {
        for urn in urns {
            if self.config().mode_in_effect(urn.name())?.is_read_only() {
                return Err(Error::ModeRefused {
                    urn: urn.clone(),
                    refusal: ModeRefusal::ReadOnly,
                });
            }
        }
        for urn in urns {
            for by in self.inner.store.referrers(urn)? {
                if !urns.contains(&by) && self.live_beside(&by, urns)? {
                    return Err(Error::Referenced {
                        urn: urn.clone(),
                        by,
                    });
                }
            }
        }
        self.inner.store.delete_versions(urns)
    }

    /// Whether the content held under `urn` is held live (not soft-deleted)
    /// under some URN other than those of `except`.
    pub(crate) fn live_beside(&self, urn: &Urn, except: &[Urn]) -> Result<bool, Error> {
        let holders = match self.inner.store.id_of(urn)? {
            Some(id) => self.inner.store.urns_of(id)?,
            None => vec![urn.clone()],
        };
        for holder in holders {
            if except.contains(&holder) {
                continue;
            }
            let deleted = self
                .inner
                .store
                .deleted(holder.namespace(), holder.name())?;
            if !deleted.contains(&holder.version()) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The id of the schema content held under `urn`: a small positive
    /// integer the store assigned when the content was first stored,
    /// shared by every URN holding the same content (language, bytes and
    /// root), and stable forever (for the persistent stores, across
    /// restarts and replicas). It is the id Confluent-framed payloads
    /// carry. [`Error::NotFound`] for a URN not held.
    ///
    /// An embedded registry (`embed`, `from_bundle`) answers only the ids
    /// it was given (a lock's), and [`Error::NoId`] for a URN it holds
    /// without one.
    pub fn id_of(&self, urn: &Urn) -> Result<SchemaId, Error> {
        let given = match &self.inner.ids {
            Ids::Store => {
                return self
                    .inner
                    .store
                    .id_of(urn)?
                    .ok_or_else(|| Error::NotFound { urn: urn.clone() })
            }
            Ids::Unknown => None,
            Ids::Given(table) => table.by_urn.get(urn).copied(),
        };
        match given {
            Some(id) => Ok(id),
            None if self.inner.store.get(urn)?.is_some() => Err(Error::NoId { urn: urn.clone() }),
            None => Err(Error::NotFound { urn: urn.clone() }),
        }
    }

    /// The schema whose content has id `id` (see
    /// [`id_of`](Registry::id_of)), under the first URN holding it
    /// (ordered as [`list`](Registry::list)): names may differ from the
    /// URN it was published under first. [`Error::IdNotFound`] for an id
    /// no schema has.
    pub fn schema_by_id(&self, id: SchemaId) -> Result<Schema, Error> {
        match &self.inner.ids {
            Ids::Store => self.inner.store.by_id(id)?.ok_or(Error::IdNotFound { id }),
            Ids::Unknown => Err(Error::IdNotFound { id }),
            Ids::Given(table) => match table.by_id.get(&id).and_then(|urns| urns.first()) {
                Some(urn) => self.resolve(urn),
                None => Err(Error::IdNotFound { id }),
            },
        }
    }

    /// Every URN holding the content `id` names, ordered as
    /// [`list`](Registry::list); empty for an unknown id (and, for an
    /// embedded registry, for an id it was not given).
    pub fn urns_of_id(&self, id: SchemaId) -> Result<Vec<Urn>, Error> {
        match &self.inner.ids {
            Ids::Store => self.inner.store.urns_of(id),
            Ids::Unknown => Ok(Vec::new()),
            Ids::Given(table) => Ok(table.by_id.get(&id).cloned().unwrap_or_default()),
        }
    }

    /// The report of checking `candidate` against `priors` (ascending)
    /// under `mode`, as a publish of it would check: only the priors of
    /// its compatibility group, under its name's policy
    /// ([`config().settings_in_effect`](RegistryConfig::settings_in_effect)). Nothing is
    /// stored.
    pub fn check_compatibility(
        &self,
        mode: Compatibility,
        candidate: &Schema,
        priors: &[Schema],
    ) -> Result<compat::CompatReport, Error> {
        let settings = self.config().settings_in_effect(candidate.urn().name())?;
        let priors: Vec<Schema> = match settings.compatibility_group.as_deref() {
            Some(group) => {
                let value = group_value(candidate, group);
                priors
                    .iter()
                    .filter(|prior| group_value(prior, group) == value)
                    .cloned()
                    .collect()
            }
            None => priors.to_vec(),
        };
        // A schema's references (a protobuf import) resolve through the
        // registry.
        let mut read = |schema: &Schema| compat::Reading::read_with(schema, self).map(Arc::new);
        Ok(compat::check_readings(mode, candidate, &priors, &mut read)?
            .under(settings.compatibility_policy.unwrap_or_default()))
    }

    /// Every URN whose version carries a reference to `urn`
    /// ([`Schema::references`]), ordered as [`list`](Registry::list).
    pub fn referrers(&self, urn: &Urn) -> Result<Vec<Urn>, Error> {
        self.inner.store.referrers(urn)
    }

    /// The id of the content whose `guid` (Confluent's, see
    /// [`crate::store::content_guid`]) is `guid`, if one is held. An
    /// embedded registry answers none, as it answers no store id.
    pub fn id_of_guid(&self, guid: &str) -> Result<Option<SchemaId>, Error> {
        let Some(prefix) = crate::store::guid_digest_prefix(guid) else {
            return Ok(None);
        };
        match &self.inner.ids {
            Ids::Store => self.inner.store.id_of_digest_prefix(&prefix),
            Ids::Unknown | Ids::Given(_) => Ok(None),
        }
    }

    /// Every id of the content whose `guid` is `guid`, ascending (one,
    /// unless imports gave the content more than one); empty for a guid
    /// no content has, and for an embedded registry.
    pub fn ids_of_guid(&self, guid: &str) -> Result<Vec<SchemaId>, Error> {
        let Some(prefix) = crate::store::guid_digest_prefix(guid) else {
            return Ok(Vec::new());
        };
        match &self.inner.ids {
            Ids::Store => self.inner.store.ids_of_digest_prefix(&prefix),
            Ids::Unknown | Ids::Given(_) => Ok(Vec::new()),
        }
    }

    /// Reading `writer`'s data as `reader`, and writing the reader's back
    /// as the writer's (two schemas of one language this registry holds:
    /// JSON Schema, Avro or protobuf): the [`Resolution`] plan, made once
    /// for the pair. A pair whose data cannot be read is refused here, never
    /// per message: [`Error::Unresolvable`] with the reader's data path
    /// (`cannot read long as int at /amount`). Also [`Error::NotFound`]
    /// for a URN not held, [`Error::SchemaUnusable`] for a schema that
    /// does not read, [`Error::NoValidator`] for a language compiled out.
    pub fn resolution(&self, writer: &Urn, reader: &Urn) -> Result<Resolution, Error> {
        self.resolution_with(writer, reader, &PlanOptions::default())
    }

    /// [`resolution`](Registry::resolution) with options: aliases given
    /// outside the reader's schema, protobuf's unknown fields dropped.
    pub fn resolution_with(
        &self,
        writer: &Urn,
        reader: &Urn,
        options: &PlanOptions,
    ) -> Result<Resolution, Error> {
        let writer = self.resolve(writer)?;
        let reader = self.resolve(reader)?;
        Resolution::new(&writer, &reader, Arc::new(self.clone()), options)
    }

    /// The schema held under `urn`, or [`Error::NotFound`].
    pub fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.inner
            .store
            .get(urn)?
            .ok_or_else(|| Error::NotFound { urn: urn.clone() })
    }

    /// The versions held for `name` in any namespace, ascending; empty for
    /// an unknown name. [`versions_in`](Registry::versions_in) keeps to one
    /// namespace, as compatibility checks do.
    pub fn versions(&self, name: &str) -> Result<Vec<u32>, Error> {
        let mut versions: Vec<u32> = self
            .inner
            .store
            .list()?
            .iter()
            .filter(|urn| urn.name() == name)
            .map(Urn::version)
            .collect();
        versions.sort_unstable();
        versions.dedup();
        Ok(versions)
    }

    /// The versions held for `name` in `namespace`, ascending.
    pub fn versions_in(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        self.inner.store.versions(namespace, name)
    }

    /// Every URN held, ordered by namespace, name, then version.
    pub fn list(&self) -> Result<Vec<Urn>, Error> {
        self.inner.store.list()
    }

    /// Whether the store answers and its tables are at the layout this
    /// version reads ([`Store::ready`]): what a server's `/readyz` asks.
    pub fn ready(&self) -> Result<(), Error> {
        self.inner.store.ready()
    }

    pub(crate) fn check_compiles(&self, schema: &Schema) -> Result<(), Error> {
        core::compile(schema, Arc::new(self.clone()), core::Options::default())
            .map(drop)
            .map_err(Error::from)
    }
}

/// What a publish's check reads from the name's settings.
struct Grouping {
    /// The metadata property that groups versions.
    group: Option<String>,
    /// How strictly changes are read.
    policy: Policy,
}

/// The value of the group property `group` in `schema`'s metadata.
fn group_value<'a>(schema: &'a Schema, group: &str) -> Option<&'a str> {
    schema.metadata()?.property(group)
}

/// The check a publish runs under the store's lock: not the largest
/// version, versions in order (under a checked mode), then compatibility
/// with the priors of the candidate's compatibility group (all of them
/// without a group), under the name's policy.
fn check_compatible(
    schema: &Schema,
    mode: Compatibility,
    grouping: &Grouping,
    held: &[Schema],
    read: &mut dyn FnMut(&Schema) -> Result<Arc<Reading>, CompatError>,
) -> Result<(), Error> {
    // The largest version would leave the name no next version.
    if schema.urn().version() == u32::MAX {
        return Err(Error::LastVersion {
            urn: schema.urn().clone(),
        });
    }
    if mode == Compatibility::None {
        return Ok(());
    }
    // Versions are checked in order: a version below one already
    // published would never be checked against it.
    let urn = schema.urn();
    if let Some(later) = held.iter().find(|h| h.urn().version() > urn.version()) {
        return Err(Error::OutOfOrder {
            urn: urn.clone(),
            held: later.urn().version(),
            mode,
        });
    }
    let group = grouping
        .group
        .as_deref()
        .map(|group| (group, group_value(schema, group)));
    let priors: Vec<Schema> = held
        .iter()
        .filter(|h| h.urn().version() < urn.version())
        .filter(|h| group.is_none_or(|(group, value)| group_value(h, group) == value))
        .cloned()
        .collect();
    let report = compat::check_readings(mode, schema, &priors, read)?.under(grouping.policy);
    if report.is_compatible() {
        Ok(())
    } else {
        Err(Error::Incompatible {
            urn: urn.clone(),
            report: Box::new(report),
        })
    }
}

fn check_name(name: &str) -> Result<(), Error> {
    Urn::check_name(name).map_err(|reason| Error::invalid_urn(name, reason))
}

/// A registry, plus the schema being published under its own URN.
struct WithCandidate {
    candidate: Schema,
    registry: Registry,
}

impl Resolver for WithCandidate {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if urn == self.candidate.urn() {
            return Ok(self.candidate.clone());
        }
        self.registry.resolve(urn)
    }
}

impl Resolver for Registry {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        Registry::resolve(self, urn)
    }
    /// A registry holds what it was given or what its store holds: a
    /// guard keeps what it compiles from it for good.
    fn is_bounded(&self) -> bool {
        true
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        Registry::list(self)
    }
    fn resolve_id(&self, id: u32) -> Result<Schema, Error> {
        self.schema_by_id(id)
    }
    fn id_of(&self, urn: &Urn) -> Result<u32, Error> {
        Registry::id_of(self, urn)
    }
    fn aliases(&self, urn: &Urn) -> Aliases {
        self.inner.aliases.get(urn).cloned().unwrap_or_default()
    }
}
