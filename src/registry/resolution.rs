//! Reading one version's payloads as another's, and writing them back:
//! [`Registry::resolution`](crate::Registry::resolution) and the
//! [`Resolution`] it makes, for JSON Schema, Avro and protobuf.

use std::sync::Arc;

use dataschema_core::resolve::{Direction, Migration, Plan, PlanOptions};
use dataschema_core::validate::{compile, Compiled, Options};
use dataschema_core::{Error, Resolver, Schema, Unresolved, Urn, Violation, ViolationKind};

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
    plan: Plan,
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
    pub(crate) fn new(
        writer: &Schema,
        reader: &Schema,
        refs: Arc<dyn Resolver>,
        options: &PlanOptions,
    ) -> Result<Resolution, Error> {
        let plan = dataschema_core::resolve::plan(writer, reader, refs.clone(), options)?;
        let compiled = |schema: &Schema| {
            compile(schema, refs.clone(), Options::default())
                .map(Arc::new)
                .map_err(Error::from)
        };
        Ok(Resolution::from_parts(
            writer.urn().clone(),
            reader.urn().clone(),
            plan,
            compiled(writer)?,
            compiled(reader)?,
        ))
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

    /// A resolution from a plan and the two schemas' validators (the
    /// guard's, from its cache).
    pub(crate) fn from_parts(
        writer: Urn,
        reader: Urn,
        plan: Plan,
        writer_check: Arc<Compiled>,
        reader_check: Arc<Compiled>,
    ) -> Resolution {
        Resolution {
            writer,
            reader,
            plan,
            writer_check,
            reader_check,
            upgrade: None,
            downgrade: None,
        }
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
        self.upgrade.is_none() && self.plan.is_identity(Direction::Read)
    }

    /// Whether payloads of the reader's layout can be written back in the
    /// writer's; `Err` says where and why not (a field the writer requires
    /// that the reader does not hold, with no default and no null).
    pub fn can_write_back(&self) -> Result<(), Unresolved> {
        if self.downgrade.is_some() {
            return Ok(());
        }
        match self.plan.way_refusal(Direction::WriteBack) {
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
                .run(direction, payload)
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
        if migration.is_some() || self.plan.checks_output(direction) {
            check.validate(&out).map_err(refused)?;
        }
        Ok(out)
    }
}
