//! The [`Registry`]: publish, resolve, versions, list.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::bundle::Bundle;
use crate::store::{MemoryStore, Store};
use dataschema_core::__private::{self as core, clip};
use dataschema_core::{compat, Compatibility, Error, Resolver, Schema, Urn};

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
    store: Box<dyn Store>,
    /// Publishes run one at a time, so a compatibility check and the write
    /// it allows see the same versions.
    publishing: parking_lot::Mutex<()>,
    /// Per-name compatibility defaults.
    modes: RwLock<HashMap<String, Compatibility>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}

impl Registry {
    /// A registry over `store`.
    pub fn new(store: impl Store + 'static) -> Registry {
        Registry {
            inner: Arc::new(Inner {
                store: Box::new(store),
                publishing: parking_lot::Mutex::new(()),
                modes: RwLock::new(HashMap::new()),
            }),
        }
    }

    /// An in-memory registry holding `schemas`, each checked as
    /// [`publish`](Registry::publish) checks it (with
    /// [`Compatibility::None`]). A schema may `$ref` another of the same
    /// batch by URN, whatever their order.
    pub fn embed(schemas: impl IntoIterator<Item = Schema>) -> Result<Registry, Error> {
        let registry = Registry::new(MemoryStore::new());
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
        Ok(registry)
    }

    /// An in-memory registry holding the schemas `dataschema::build::bundle`
    /// packed at `cargo build` (see [`include_bundle!`](crate::include_bundle)).
    ///
    /// The build already compiled every schema, so they are not compiled
    /// again here: a binary built without a language's validator still
    /// loads its bundle, and its guard fails open (`no_validator`) on those
    /// schemas, as the outcome table says.
    pub fn from_bundle(bundle: Bundle) -> Result<Registry, Error> {
        let registry = Registry::new(MemoryStore::new());
        for schema in bundle.schemas() {
            let schema = schema?;
            schema.check_shape()?;
            registry.inner.store.put(&schema)?;
        }
        Ok(registry)
    }

    /// Publishes `schema`, checked against the prior versions of its name
    /// (same namespace, lower versions) under `mode`; the first version of
    /// a name has nothing to check against and passes. Under any mode but
    /// [`Compatibility::None`], versions are published in order: a version
    /// below one already held is refused, since it was never checked
    /// against it. Publishes through one registry run one at a time.
    ///
    /// Publishing the same schema again succeeds (start-up and CI
    /// registration stay idempotent); different bytes under a URN already
    /// held is [`Error::Immutable`]. A schema that cannot be compiled is
    /// refused ([`Error::SchemaUnusable`], or [`Error::NoValidator`] when its
    /// language's validator is not compiled in); one that breaks
    /// compatibility is [`Error::Incompatible`], with the full report.
    pub fn publish(&self, schema: Schema, mode: Compatibility) -> Result<(), Error> {
        schema.check_shape()?;
        match self.inner.store.get(schema.urn())? {
            Some(held) if held == schema => return Ok(()),
            Some(_) => {
                return Err(Error::Immutable {
                    urn: schema.urn().clone(),
                })
            }
            None => {}
        }
        let _one_at_a_time = self.inner.publishing.lock();
        // The candidate resolves as itself, as it will once stored (and as
        // it does in `embed`): a schema may `$ref` its own URN.
        let with_candidate = WithCandidate {
            candidate: schema.clone(),
            registry: self.clone(),
        };
        core::compile(&schema, Arc::new(with_candidate), core::Options::default())?;
        self.check_compatible(&schema, mode)?;
        self.inner.store.put(&schema)
    }

    /// Publishes `schema` under the mode set for its name (see
    /// [`set_compatibility`](Registry::set_compatibility)).
    pub fn publish_default(&self, schema: Schema) -> Result<(), Error> {
        let mode = self.compatibility(schema.urn().name());
        self.publish(schema, mode)
    }

    /// Sets the compatibility mode [`publish_default`](Registry::publish_default)
    /// uses for `name`.
    pub fn set_compatibility(&self, name: &str, mode: Compatibility) -> Result<(), Error> {
        core::check_name(name).map_err(|reason| Error::InvalidUrn {
            input: clip(name, 100),
            reason,
        })?;
        self.inner.modes.write().insert(name.to_owned(), mode);
        Ok(())
    }

    /// The compatibility mode for `name`: the one set, else
    /// [`Compatibility::Backward`] as in Confluent Schema Registry.
    pub fn compatibility(&self, name: &str) -> Compatibility {
        self.inner
            .modes
            .read()
            .get(name)
            .copied()
            .unwrap_or_default()
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

    /// The prior versions of `urn`'s name in its namespace, oldest first.
    pub fn priors(&self, urn: &Urn) -> Result<Vec<Schema>, Error> {
        let versions = self.inner.store.versions(urn.namespace(), urn.name())?;
        self.schemas_below(urn, &versions)
    }

    /// The schemas of `urn`'s name at `versions` (ascending) below its own.
    fn schemas_below(&self, urn: &Urn, versions: &[u32]) -> Result<Vec<Schema>, Error> {
        let mut priors = Vec::new();
        for &version in versions.iter().take_while(|&&v| v < urn.version()) {
            if let Some(prior) = self.inner.store.get(&urn.with_version(version)?)? {
                priors.push(prior);
            }
        }
        Ok(priors)
    }

    fn check_compatible(&self, schema: &Schema, mode: Compatibility) -> Result<(), Error> {
        if mode == Compatibility::None {
            return Ok(());
        }
        // Versions are checked in order: a version below one already
        // published would never be checked against it.
        let urn = schema.urn();
        let versions = self.inner.store.versions(urn.namespace(), urn.name())?;
        if let Some(&held) = versions.iter().find(|&&v| v > urn.version()) {
            return Err(Error::OutOfOrder {
                urn: urn.clone(),
                held,
                mode,
            });
        }
        let priors = self.schemas_below(urn, &versions)?;
        let report = compat::check(mode, schema, &priors)?;
        if report.is_compatible() {
            Ok(())
        } else {
            Err(Error::Incompatible {
                urn: schema.urn().clone(),
                report: Box::new(report),
            })
        }
    }

    pub(crate) fn check_compiles(&self, schema: &Schema) -> Result<(), Error> {
        core::compile(schema, Arc::new(self.clone()), core::Options::default())
            .map(drop)
            .map_err(Error::from)
    }
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
    fn list(&self) -> Result<Vec<Urn>, Error> {
        Registry::list(self)
    }
}
