//! Reading one version's payloads as another's, and writing them back: the
//! language-agnostic half of resolution. A [`Plan`] is made once for a
//! (writer, reader) pair from the two schemas, refusing a pair that cannot
//! be resolved with the reader's path ([`Unresolvable`]), then runs over
//! payload bytes, both ways:
//!
//! * [`Direction::Read`]: the writer's payload in the reader's layout
//!   (`Resolution::transcode` in `dataschema`);
//! * [`Direction::WriteBack`]: a payload in the reader's layout written
//!   back in the writer's (`Resolution::write_back`).
//!
//! Each language's plan lives in its folder (`json/resolve.rs`,
//! `avro/resolve.rs`, `protobuf/resolve.rs`); this module dispatches. The
//! rules, row by row, are those of the table in `docs/resolution.md`.
//!
//! The plans assume their input conforms to its schema (the caller
//! validates it first: the guard does, `Resolution` does) but never panic
//! or loop without bound on input that does not: they refuse it. Output is
//! bounded: at most [`max_output`] bytes, whatever the payload declares.
//!
//! **The seam for migration rules.** Confluent's data contracts carry
//! JSONata `UPGRADE`/`DOWNGRADE` rules (`ruleSet.migrationRules`) that
//! rewrite a payload between versions. They plug in as a [`Migration`]
//! (one per pair and direction), which `dataschema`'s `Resolution` runs in
//! place of the structural plan; its output is validated against the
//! target schema, since nothing proves it conforms.

// Without a language's plan compiled in, every pair is refused and the
// plan-making helpers have nothing to do.
#![cfg_attr(
    not(any(feature = "json", feature = "avro", feature = "protobuf")),
    allow(unused_imports, unused_variables, dead_code, unreachable_code)
)]

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::error::Error;
use crate::resolver::Resolver;
use crate::schema::{Language, Schema};
use crate::violation::{Violation, ViolationKind};

/// The most bytes one run of a plan writes,
/// [`limits::max_avro_transcode_bytes`](crate::limits::max_avro_transcode_bytes)
/// (64 MiB unless set), whatever the language: a payload declaring more
/// (billions of empty items read as items that are not empty, defaults
/// repeated per item) is refused, never written.
pub fn max_output() -> usize {
    crate::limits::max_avro_transcode_bytes()
}

/// Which way a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The writer's payload, read in the reader's layout.
    Read,
    /// A payload in the reader's layout, written back in the writer's.
    WriteBack,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Read => "read",
            Direction::WriteBack => "write back",
        })
    }
}

/// Why a pair of schemas cannot be resolved (one way): where in the
/// reader's data (`/amount`, `/items/*/price`; `*` any array item or map
/// value) and why (`cannot read long as int`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolvable {
    path: String,
    reason: String,
}

impl Unresolvable {
    /// A refusal at `path` (a pointer into the reader's data, `""` for the
    /// whole datum), for `reason`.
    pub fn new(path: impl Into<String>, reason: impl Into<String>) -> Unresolvable {
        Unresolvable {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Where in the reader's data; empty for the whole datum.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why, in words.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for Unresolvable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{} at {path}", self.reason)
    }
}

impl std::error::Error for Unresolvable {}

/// A path in the reader's data built while a plan is made.
#[derive(Debug, Default, Clone)]
pub(crate) struct PlanPath(Vec<String>);

impl PlanPath {
    pub(crate) fn push(&mut self, segment: impl Into<String>) {
        self.0.push(segment.into());
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }

    pub(crate) fn depth(&self) -> usize {
        self.0.len()
    }

    /// A refusal here.
    pub(crate) fn fail(&self, reason: impl Into<String>) -> Unresolvable {
        let mut path = String::new();
        for segment in &self.0 {
            path.push('/');
            path.push_str(&escape_pointer(segment));
        }
        Unresolvable::new(path, reason)
    }
}

/// A JSON pointer segment (`~` and `/` escaped).
pub(crate) fn escape_pointer(segment: &str) -> Cow<'_, str> {
    if segment.contains(['~', '/']) {
        Cow::Owned(segment.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(segment)
    }
}

/// A payload refused while a plan ran: one violation, of kind
/// [`ViolationKind::Unrepresentable`] unless the bytes were not what the
/// plan's input schema writes.
pub(crate) fn refused(path: impl Into<String>, message: impl Into<String>) -> Vec<Violation> {
    vec![Violation::new(
        path,
        ViolationKind::Unrepresentable,
        message,
    )]
}

/// The output of one run grew past [`max_output`].
pub(crate) fn too_large() -> Vec<Violation> {
    vec![Violation::new(
        "",
        ViolationKind::Bounds,
        format!(
            "the datum read as the other version would be larger than {} bytes \
             (limits::max_avro_transcode_bytes)",
            max_output()
        ),
    )]
}

/// A rewrite of payloads between two versions that the structural rules
/// cannot express: the seam where Confluent's data-contract migration rules
/// (JSONata `UPGRADE` and `DOWNGRADE`, `ruleSet.migrationRules`) plug in.
///
/// Given for one (writer, reader) pair and one [`Direction`], it replaces
/// the structural plan that way: `Read` receives the writer's payload (one
/// the writer's schema validated) and returns it in the reader's layout;
/// `WriteBack` the other way round. Its output is validated against the
/// target schema before anyone sees it, so a rule that produces a payload
/// the target does not accept is refused with the target's violations.
pub trait Migration: Send + Sync + fmt::Debug {
    /// The payload rewritten, or why not (the violations say where).
    fn migrate(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>>;
}

/// Names a reader field answers to beyond its own, given outside the
/// schema (the manifest's `[aliases."<name>.v<version>"]`, for schemas one
/// cannot edit): a reader path (`/customer/name`, JSON pointer, `*` for any
/// array item) to the writer names it reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases(Vec<(String, Vec<String>)>);

impl Aliases {
    /// No aliases.
    pub fn new() -> Aliases {
        Aliases::default()
    }

    /// Adds `names` as aliases of the reader's field at `path`.
    pub fn with(mut self, path: impl Into<String>, names: Vec<String>) -> Aliases {
        self.0.push((path.into(), names));
        self
    }

    /// The aliases given for the field at `path`.
    #[cfg_attr(not(feature = "json"), allow(dead_code))]
    pub(crate) fn at<'s>(&'s self, path: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.0
            .iter()
            .filter(move |(p, _)| p == path)
            .flat_map(|(_, names)| names.iter().map(String::as_str))
    }

    /// The paths aliases were given for.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(p, _)| p.as_str())
    }

    /// Whether none are given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One way of a pair's plan, in the pair's language.
#[derive(Debug)]
pub(crate) enum Way {
    /// The two layouts are the same: the payload as it is.
    Identity,
    #[cfg(feature = "json")]
    Json(crate::json::resolve::JsonWay),
    #[cfg(feature = "avro")]
    Avro(crate::avro::resolve::Transcoder),
    #[cfg(feature = "protobuf")]
    Protobuf(crate::protobuf::resolve::ProtoWay),
}

/// A resolution plan for one (writer, reader) pair, both ways: made once,
/// run over each payload's bytes.
///
/// A way may be refused on its own: a pair readable one way may not be
/// writable back (a writer field with neither default nor null to write),
/// and the plan keeps the refusal to give when that way is asked for.
#[derive(Debug, Clone)]
pub struct Plan {
    read: Arc<Result<Way, Unresolvable>>,
    back: Arc<Result<Way, Unresolvable>>,
}

impl Plan {
    /// The plan for `writer` read as `reader`, both given as schemas of one
    /// language. `Err` when neither way resolves, with the read way's
    /// refusal; [`Plan::way_refusal`] tells a way refused on its own.
    pub(crate) fn from_ways(
        read: Result<Way, Unresolvable>,
        back: Result<Way, Unresolvable>,
    ) -> Plan {
        Plan {
            read: Arc::new(read),
            back: Arc::new(back),
        }
    }

    /// The identity both ways (identical schemas).
    pub fn identity() -> Plan {
        Plan::from_ways(Ok(Way::Identity), Ok(Way::Identity))
    }

    /// Why the plan cannot run `direction`, if it cannot.
    pub fn way_refusal(&self, direction: Direction) -> Option<&Unresolvable> {
        self.way(direction).as_ref().err()
    }

    /// Whether `direction` is the identity (no copy made).
    pub fn is_identity(&self, direction: Direction) -> bool {
        matches!(*self.way(direction), Ok(Way::Identity))
    }

    fn way(&self, direction: Direction) -> &Result<Way, Unresolvable> {
        match direction {
            Direction::Read => &self.read,
            Direction::WriteBack => &self.back,
        }
    }

    /// Whether the output of `direction` must be validated against its
    /// target schema before it is handed out: the plan could not prove it
    /// conforms (a write back narrowing a value, a union paired by the first
    /// branch that reads, constraints the plan does not compare).
    pub fn checks_output(&self, direction: Direction) -> bool {
        match self.way(direction) {
            Ok(Way::Identity) | Err(_) => false,
            #[cfg(feature = "json")]
            Ok(Way::Json(way)) => way.checks_output(),
            #[cfg(feature = "avro")]
            Ok(Way::Avro(way)) => way.checks_output(),
            #[cfg(feature = "protobuf")]
            Ok(Way::Protobuf(way)) => way.checks_output(),
        }
    }

    /// Runs `direction` over `payload`, which the input schema of that way
    /// validated (the writer's for `Read`, the reader's for `WriteBack`).
    /// Borrowed back for the identity.
    ///
    /// `Err(None)`: the way is refused ([`Plan::way_refusal`]);
    /// `Err(Some(violations))`: this payload cannot be resolved, each
    /// violation saying where in the input and why.
    pub fn run<'p>(
        &self,
        direction: Direction,
        payload: &'p [u8],
    ) -> Result<Cow<'p, [u8]>, Option<Vec<Violation>>> {
        match self.way(direction) {
            Err(_) => Err(None),
            Ok(Way::Identity) => Ok(Cow::Borrowed(payload)),
            #[cfg(feature = "json")]
            Ok(Way::Json(way)) => way.run(payload).map(Cow::Owned).map_err(Some),
            #[cfg(feature = "avro")]
            Ok(Way::Avro(way)) => way.run_checked(payload).map(Cow::Owned).map_err(Some),
            #[cfg(feature = "protobuf")]
            Ok(Way::Protobuf(way)) => way.run(payload).map(Cow::Owned).map_err(Some),
        }
    }
}

/// Options of a plan.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PlanOptions {
    /// Aliases given outside the reader's schema.
    pub aliases: Aliases,
    /// Protobuf: drop the fields the target does not declare (by default
    /// they are kept, as protobuf keeps unknown fields).
    pub drop_unknown_fields: bool,
}

impl PlanOptions {
    /// The defaults: no aliases beyond the schema's, unknown fields kept.
    pub fn new() -> PlanOptions {
        PlanOptions::default()
    }

    /// Aliases given outside the reader's schema.
    pub fn with_aliases(mut self, aliases: Aliases) -> PlanOptions {
        self.aliases = aliases;
        self
    }

    /// Protobuf: whether fields the target does not declare are dropped.
    pub fn with_drop_unknown_fields(mut self, drop: bool) -> PlanOptions {
        self.drop_unknown_fields = drop;
        self
    }
}

/// The plan for data of `writer` read as `reader` (both ways), made from
/// the two schemas; references resolve through `refs`.
///
/// [`Error::Unresolvable`] when the writer's data cannot be read as the
/// reader (with the reader's path and why); a pair readable but not
/// writable back gives a plan whose write-back way is refused
/// ([`Plan::way_refusal`]). [`Error::SchemaUnusable`] for a schema that
/// does not read, [`Error::NoValidator`] for a language compiled out or
/// two languages.
pub fn plan(
    writer: &Schema,
    reader: &Schema,
    refs: Arc<dyn Resolver>,
    options: &PlanOptions,
) -> Result<Plan, Error> {
    let unresolvable = |err: Unresolvable| Error::Unresolvable {
        writer: writer.urn().clone(),
        refusal: Box::new(crate::error::Unresolved::new(
            reader.urn().clone(),
            if err.path().is_empty() {
                "/"
            } else {
                err.path()
            },
            err.reason(),
        )),
    };
    if writer.language() != reader.language() {
        return Err(unresolvable(Unresolvable::new(
            "",
            format!(
                "{} is a {} schema and {} a {} one",
                writer.urn(),
                writer.language(),
                reader.urn(),
                reader.language()
            ),
        )));
    }
    if writer.bytes() == reader.bytes()
        && writer.references() == reader.references()
        && options.aliases.is_empty()
    {
        return Ok(Plan::identity());
    }
    let _ = refs;
    #[allow(clippy::type_complexity)]
    let (read, back): (Result<Way, Unresolvable>, Result<Way, Unresolvable>) =
        match writer.language() {
            #[cfg(feature = "json")]
            Language::JsonSchema => {
                let doc = |schema: &Schema| {
                    crate::json::model::parse(schema.bytes()).map_err(|err| Error::SchemaUnusable {
                        urn: schema.urn().clone(),
                        source: format!("{err:?}").into(),
                    })
                };
                let (w, r) = (doc(writer)?, doc(reader)?);
                let way = |s, t, d| {
                    crate::json::resolve::JsonWay::new(s, t, d, &options.aliases).map(|way| {
                        if way.is_copy() {
                            Way::Identity
                        } else {
                            Way::Json(way)
                        }
                    })
                };
                (
                    way(&w, &r, Direction::Read),
                    way(&r, &w, Direction::WriteBack),
                )
            }
            #[cfg(feature = "avro")]
            Language::Avro => {
                let read_schema = |schema: &Schema| {
                    crate::avro::names::read(schema, &*refs).map_err(|err| Error::SchemaUnusable {
                        urn: schema.urn().clone(),
                        source: err.to_string().into(),
                    })
                };
                let w = Arc::new(read_schema(writer)?);
                let r = Arc::new(read_schema(reader)?);
                (
                    crate::avro::resolve::Transcoder::way(w.clone(), &r, Direction::Read)
                        .map(Way::Avro),
                    crate::avro::resolve::Transcoder::way(r, &w, Direction::WriteBack)
                        .map(Way::Avro),
                )
            }
            #[cfg(feature = "protobuf")]
            Language::Protobuf => {
                let message = |schema: &Schema| {
                    let compiled = crate::dispatch::compile::compile(
                        schema,
                        refs.clone(),
                        crate::violation::Options::default(),
                    )
                    .map_err(Error::from)?;
                    match compiled {
                        crate::dispatch::compile::Compiled::Protobuf(v) => {
                            v.message().ok_or_else(|| Error::SchemaUnusable {
                                urn: schema.urn().clone(),
                                source: "the schema declares no message to resolve".into(),
                            })
                        }
                        #[allow(unreachable_patterns)]
                        _ => Err(Error::SchemaUnusable {
                            urn: schema.urn().clone(),
                            source: "not a protobuf schema".into(),
                        }),
                    }
                };
                let (w, r) = (message(writer)?, message(reader)?);
                let way = |s, t, d| {
                    crate::protobuf::resolve::ProtoWay::new(s, t, d, options.drop_unknown_fields)
                        .map(|way| {
                            if way.is_identity() {
                                Way::Identity
                            } else {
                                Way::Protobuf(way)
                            }
                        })
                };
                (
                    way(&w, &r, Direction::Read),
                    way(&r, &w, Direction::WriteBack),
                )
            }
            #[allow(unreachable_patterns)]
            other => {
                return Err(Error::NoValidator {
                    urn: writer.urn().clone(),
                    language: other,
                })
            }
        };
    let read = read.map_err(unresolvable)?;
    Ok(Plan::from_ways(Ok(read), back))
}
