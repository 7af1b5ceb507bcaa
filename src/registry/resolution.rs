//! Reading one version's payloads as another's, and writing them back:
//! [`Registry::resolution`](crate::Registry::resolution) and the
//! [`Resolution`] it makes, for JSON Schema, Avro and protobuf.

use std::sync::Arc;

use dataschema_core::resolve::{Direction, Migration, Plan, PlanOptions};
use dataschema_core::rules::{chain_with_forms, Chain};
use dataschema_core::validate::{compile, Compiled, Options};
use dataschema_core::{
    Error, Language, Resolver, Schema, Unresolved, Urn, Violation, ViolationKind,
};

use crate::guard::Invalid;

/// A consumer built against one version (the *reader*) reading payloads
/// written with another (the *writer*), and writing its own back in the
/// writer's layout: a plan made once for the pair, run over each
/// payload's bytes, no value tree built.
///
/// * [`transcode`](Resolution::transcode) reads the writer's payload in the
///   reader's layout: fields by name and by the reader's aliases,
///   reader-only fields at their defaults (absent when optional),
///   writer-only fields dropped, values widened (JSON integer to number;
///   Avro's promotions; protobuf's wire-compatible scalars), enums by value
///   (a member the reader dropped takes the reader's default), arrays,
///   maps, objects and unions element by element.
/// * [`write_back`](Resolution::write_back) writes a payload of the
///   reader's layout back in the writer's: writer-only fields at their
///   defaults (else null where the writer allows it), widened values
///   narrowed back when they fit, enum members and union branches the
///   writer lacks refused, with their path.
///
/// Each input is validated against its schema first, so a malformed one is
/// refused with its violations, never half transcoded. Identical schemas
/// resolve to the identity.
///
/// ```
/// use dataschema::{Compatibility, MemoryStore, Registry, Schema, Urn};
///
/// let registry = Registry::new(MemoryStore::new());
/// let v1: Urn = "urn:acme:schema:payment:1".parse()?;
/// let v2: Urn = "urn:acme:schema:payment:2".parse()?;
/// registry.publish(Schema::avro(v1.clone(),
///     r#"{"type":"record","name":"P","fields":[{"name":"amount","type":"int"}]}"#),
///     Compatibility::Backward)?;
/// registry.publish(Schema::avro(v2.clone(),
///     r#"{"type":"record","name":"P","fields":[{"name":"amount","type":"long"},
///        {"name":"currency","type":"string","default":"EUR"}]}"#),
///     Compatibility::Backward)?;
/// let resolution = registry.resolution(&v1, &v2)?;
/// // amount 21, as v2 writes it: 21, then "EUR".
/// assert_eq!(resolution.transcode(&[42]).unwrap(), [42, 6, b'E', b'U', b'R']);
/// // And back as v1 wrote it: the long narrowed to an int, the currency dropped.
/// assert_eq!(resolution.write_back(&[42, 6, b'E', b'U', b'R']).unwrap(), [42]);
/// // The other way, v1 cannot read v2's long amount as an int.
/// let refused = registry.resolution(&v2, &v1).unwrap_err();
/// assert_eq!(refused.to_string(),
///     "data of urn:acme:schema:payment:2 cannot be read as urn:acme:schema:payment:1: \
///      cannot read long as int at /amount");
/// # Ok::<(), dataschema::Error>(())
/// ```
#[derive(Clone)]
pub struct Resolution {
    writer: Urn,
    reader: Urn,
    /// The structural plan; `None` when only migration rules read the
    /// pair (the schemas alone do not resolve it: `unplanned` says why).
    plan: Option<Plan>,
    unplanned: Option<Arc<Error>>,
    writer_check: Arc<Compiled>,
    reader_check: Arc<Compiled>,
    upgrade: Option<Arc<dyn Migration>>,
    downgrade: Option<Arc<dyn Migration>>,
}

impl std::fmt::Debug for Resolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolution")
            .field("writer", &self.writer)
            .field("reader", &self.reader)
            .finish_non_exhaustive()
    }
}

impl Resolution {
    /// The plan for two schemas, with their validators compiled over
    /// `refs`; see [`Registry::resolution`](crate::Registry::resolution).
    ///
    /// Data contracts' migration rules run here as in
    /// [`Guard::read_as`](crate::Guard::read_as), through the same
    /// [`migration_chain`]: when the versions from the writer to the
    /// reader (of one name, as many as `refs` holds) carry `UPGRADE`
    /// rules, `transcode` runs them in place of the structural plan, and
    /// `DOWNGRADE` rules from the reader back to the writer likewise for
    /// `write_back` (Confluent's deserializers and serializers run them
    /// so); their output is validated against the target. A pair the
    /// schemas alone do not resolve is then read by its rules.
    pub(crate) fn new(
        writer: &Schema,
        reader: &Schema,
        refs: Arc<dyn Resolver>,
        options: &PlanOptions,
    ) -> Result<Resolution, Error> {
        let compiled = |schema: &Schema| {
            compile(schema, refs.clone(), Options::default())
                .map(Arc::new)
                .map_err(Error::from)
        };
        let (writer_check, reader_check) = (compiled(writer)?, compiled(reader)?);
        let forms =
            |from: &Arc<Compiled>, to: &Arc<Compiled>| (from.payload_form(), to.payload_form());
        let upgrade = migration_chain(
            &*refs,
            writer,
            reader,
            options.message.is_some(),
            forms(&writer_check, &reader_check),
        )?;
        let downgrade = migration_chain(
            &*refs,
            reader,
            writer,
            options.message.is_some(),
            forms(&reader_check, &writer_check),
        )?;
        let (plan, unplanned) =
            match dataschema_core::resolve::plan(writer, reader, refs.clone(), options) {
                Ok(plan) => (Some(plan), None),
                Err(error @ Error::Unresolvable { .. }) if upgrade.is_some() => {
                    (None, Some(Arc::new(error)))
                }
                Err(error) => return Err(error),
            };
        let mut resolution = Resolution {
            writer: writer.urn().clone(),
            reader: reader.urn().clone(),
            plan,
            unplanned,
            writer_check,
            reader_check,
            upgrade: None,
            downgrade: None,
        };
        if let Some(migration) = upgrade {
            resolution = resolution.with_migration(Direction::Read, migration);
        }
        if let Some(migration) = downgrade {
            resolution = resolution.with_migration(Direction::WriteBack, migration);
        }
        Ok(resolution)
    }

    /// The resolution of two schemas held outside one registry (each
    /// found anywhere: a folder, a fallback), their references resolved
    /// through `refs`; see [`Registry::resolution`](crate::Registry::resolution)
    /// for what it refuses.
    pub fn between(
        writer: &Schema,
        reader: &Schema,
        refs: Arc<dyn Resolver>,
    ) -> Result<Resolution, Error> {
        Resolution::new(writer, reader, refs, &PlanOptions::default())
    }

    /// The schema the payloads are written with.
    pub fn writer(&self) -> &Urn {
        &self.writer
    }

    /// The schema they are read as.
    pub fn reader(&self) -> &Urn {
        &self.reader
    }

    /// Whether reading is the identity (the two layouts are the same): the
    /// payload is handed back as it is.
    pub fn is_identity(&self) -> bool {
        self.upgrade.is_none()
            && self
                .plan
                .as_ref()
                .is_some_and(|plan| plan.is_identity(Direction::Read))
    }

    /// Whether payloads of the reader's layout can be written back in the
    /// writer's; `Err` says where and why not (a field the writer requires
    /// that the reader does not hold, with no default and no null).
    pub fn can_write_back(&self) -> Result<(), Unresolved> {
        if self.downgrade.is_some() {
            return Ok(());
        }
        let Some(plan) = &self.plan else {
            // Read by migration rules alone, with none to write back.
            let why = match self.unplanned.as_deref() {
                Some(Error::Unresolvable { refusal, .. }) => refusal.reason().to_owned(),
                _ => "the schemas alone do not resolve the pair".to_owned(),
            };
            return Err(Unresolved::new(
                self.writer.clone(),
                "/",
                format!("no DOWNGRADE migration rules, and {why}"),
            ));
        };
        match plan.way_refusal(Direction::WriteBack) {
            None => Ok(()),
            Some(refusal) => Err(Unresolved::new(
                self.writer.clone(),
                if refusal.path().is_empty() {
                    "/"
                } else {
                    refusal.path()
                },
                refusal.reason(),
            )),
        }
    }

    /// Runs `migration` in place of the structural plan one way: `Read`
    /// (Confluent's `UPGRADE` rules) or `WriteBack` (`DOWNGRADE`). The seam
    /// where data contracts' migration rules plug in; the output of a
    /// migration is validated against its target schema.
    pub fn with_migration(mut self, direction: Direction, migration: Arc<dyn Migration>) -> Self {
        match direction {
            Direction::Read => self.upgrade = Some(migration),
            Direction::WriteBack => self.downgrade = Some(migration),
        }
        self
    }

    /// The reader's layout of the payload the writer's schema wrote. A
    /// payload the writer's schema refuses is [`Invalid`] under the
    /// writer's URN, with its violations; a value the reader cannot hold
    /// (a dropped enum member with no default) is [`Invalid`] under the
    /// reader's, with its path.
    pub fn transcode(&self, payload: &[u8]) -> Result<Vec<u8>, Invalid> {
        self.writer_check
            .validate(payload)
            .map_err(|violations| Invalid::new(self.writer.clone(), violations))?;
        self.read_checked(payload).map(|out| out.into_owned())
    }

    /// [`transcode`](Self::transcode) of a payload the writer's schema has
    /// validated (the guard has); the identity borrows it back.
    pub(crate) fn read_checked<'p>(
        &self,
        payload: &'p [u8],
    ) -> Result<std::borrow::Cow<'p, [u8]>, Invalid> {
        self.run(Direction::Read, payload)
    }

    /// The writer's layout of a payload of the reader's: what the writer's
    /// version would have written for it. A payload the reader's schema
    /// refuses is [`Invalid`] under the reader's URN; one the writer cannot
    /// hold (a value that does not fit its narrower type, a member it
    /// lacks) is [`Invalid`] under the writer's, with its path; a pair that
    /// cannot be written back at all ([`can_write_back`](Self::can_write_back))
    /// refuses every payload so.
    pub fn write_back(&self, payload: &[u8]) -> Result<Vec<u8>, Invalid> {
        self.reader_check
            .validate(payload)
            .map_err(|violations| Invalid::new(self.reader.clone(), violations))?;
        self.run(Direction::WriteBack, payload)
            .map(|out| out.into_owned())
    }

    fn run<'p>(
        &self,
        direction: Direction,
        payload: &'p [u8],
    ) -> Result<std::borrow::Cow<'p, [u8]>, Invalid> {
        let (target, check, migration) = match direction {
            Direction::Read => (&self.reader, &self.reader_check, &self.upgrade),
            Direction::WriteBack => (&self.writer, &self.writer_check, &self.downgrade),
        };
        let refused = |violations: Vec<Violation>| Invalid::new(target.clone(), violations);
        let out = match migration {
            Some(migration) => {
                std::borrow::Cow::Owned(migration.migrate(payload).map_err(refused)?)
            }
            None => self
                .plan
                .as_ref()
                .ok_or(None)
                .and_then(|plan| plan.run(direction, payload))
                .map_err(|found| match found {
                    Some(violations) => refused(violations),
                    None => refused(vec![Violation::new(
                        "",
                        ViolationKind::Unrepresentable,
                        match self.can_write_back() {
                            Err(why) => format!("the pair cannot be written back: {why}"),
                            Ok(()) => "the pair cannot be resolved this way".to_owned(),
                        },
                    )]),
                })?,
        };
        if migration.is_some()
            || self
                .plan
                .as_ref()
                .is_some_and(|plan| plan.checks_output(direction))
        {
            check.validate(&out).map_err(refused)?;
        }
        Ok(out)
    }
}

/// The most versions between a writer and a reader whose migration rules
/// are looked at (Confluent's deserializers walk every one); past it the
/// pair is read by its schemas alone.
pub(crate) const MAX_CHAIN: u32 = 1024;

/// The versions a migration from `from` to `to` walks: every version of
/// their name between them that `resolver` holds (one it does not hold
/// is passed over), `from` first and `to` last; `None` when they are not
/// two versions of one name (or more than [`MAX_CHAIN`] apart). Where
/// [`Guard::read_as`](crate::Guard::read_as) and
/// [`Registry::resolution`](crate::Registry::resolution) meet.
pub(crate) fn chain_versions(
    resolver: &dyn Resolver,
    from: &Schema,
    to: &Schema,
) -> Result<Option<Vec<Schema>>, Error> {
    let (f, t) = (from.urn(), to.urn());
    if f.namespace() != t.namespace()
        || f.name() != t.name()
        || f.version().abs_diff(t.version()) > MAX_CHAIN
    {
        return Ok(None);
    }
    let (low, high) = (f.version().min(t.version()), f.version().max(t.version()));
    let mut versions = vec![from.clone()];
    let between: Box<dyn Iterator<Item = u32>> = if f.version() < t.version() {
        Box::new(low + 1..high)
    } else {
        Box::new((low + 1..high).rev())
    };
    for version in between {
        let Ok(urn) = f.with_version(version) else {
            continue;
        };
        match resolver.resolve(&urn) {
            Ok(schema) => versions.push(schema),
            Err(Error::NotFound { .. }) => {}
            Err(error) => return Err(error),
        }
    }
    versions.push(to.clone());
    Ok(Some(versions))
}

/// Whether any of `versions` carries migration rules.
pub(crate) fn ruled(versions: &[Schema]) -> bool {
    versions
        .iter()
        .any(|v| v.rule_set().is_some_and(|s| !s.migration_rules.is_empty()))
}

/// The payload forms of a migration's source and target schemas
/// (`Compiled::payload_form`).
type Forms = (
    Option<Arc<dyn dataschema_core::rules::PayloadForm>>,
    Option<Arc<dyn dataschema_core::rules::PayloadForm>>,
);

/// The migration from `from` to `to` by the rules of the versions
/// between (`forms`: the two compiled schemas' payload forms, for Avro
/// and protobuf payloads), or `None` when no version has rules for that
/// way; a rule that cannot run is [`Error::SchemaUnusable`].
/// `other_message`: a protobuf message other than the root is resolved,
/// which the forms do not read.
pub(crate) fn migration_chain(
    resolver: &dyn Resolver,
    from: &Schema,
    to: &Schema,
    other_message: bool,
    forms: Forms,
) -> Result<Option<Arc<dyn Migration>>, Error> {
    let Some(versions) = chain_versions(resolver, from, to)? else {
        return Ok(None);
    };
    if !ruled(&versions) {
        return Ok(None);
    }
    let unusable = |urn: &Urn, why: &str| Error::SchemaUnusable {
        urn: urn.clone(),
        source: why.to_owned().into(),
    };
    let forms = if from.language() == Language::JsonSchema {
        None
    } else if other_message {
        return Err(unusable(
            from.urn(),
            "migration rules run on the schema's root message only",
        ));
    } else {
        match forms {
            (Some(a), Some(b)) => Some((a, b)),
            (None, _) => {
                return Err(unusable(
                    from.urn(),
                    "its payloads have no form for migration rules",
                ))
            }
            (_, None) => {
                return Err(unusable(
                    to.urn(),
                    "its payloads have no form for migration rules",
                ))
            }
        }
    };
    match chain_with_forms(&versions, forms) {
        Chain::None => Ok(None),
        Chain::Rules(migration) => Ok(Some(migration)),
        Chain::Unusable(failure) => Err(Error::SchemaUnusable {
            urn: to.urn().clone(),
            source: format!(
                "reading {} as {}: rule {}: {}",
                from.urn(),
                to.urn(),
                failure.rule,
                failure.message
            )
            .into(),
        }),
    }
}
