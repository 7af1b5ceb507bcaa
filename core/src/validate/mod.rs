//! Validation, the language-agnostic part: what a payload's check reports
//! ([`Violation`], [`ViolationKind`]) and the dispatch to each language's
//! validator (`json::validate`, `protobuf::validate`, each in its
//! language's folder behind its cargo feature).
//!
//! A schema is compiled once (`compile`) into a `Compiled` value the
//! guard caches for the life of the process (a URN's bytes never change).
//! Dispatch is a `match` on an enum, not a trait object: the hot path has
//! one predictable branch per message.

// Without a validator every schema fails open with `no_validator`, and the
// payload-checking half of this module has nothing to do.
#![cfg_attr(
    not(any(feature = "json", feature = "protobuf", feature = "avro")),
    allow(unused_imports, unused_variables, dead_code)
)]

#[cfg(feature = "avro")]
use crate::avro::validate as avro;
#[cfg(feature = "json")]
use crate::json::validate as json;
#[cfg(feature = "protobuf")]
use crate::protobuf::validate as protobuf;

/// Avro's schema resolution as a plan over the bytes (feature `avro`):
/// what `dataschema::Registry::resolution` builds. Use it through the
/// registry; the plan is public for those who hold two schemas outside one.
#[cfg(feature = "avro")]
pub mod avro_resolution {
    pub use crate::avro::model::AvroSchema;
    pub use crate::avro::resolve::Transcoder;
    pub use crate::resolve::Unresolvable;

    /// Reads an Avro schema's JSON text (the model the plan is made from).
    pub fn read(bytes: &[u8]) -> Result<AvroSchema, crate::avro::model::SchemaError> {
        crate::avro::model::parse(bytes)
    }

    /// Reads an Avro schema over the named types its references define,
    /// resolved through `refs` ([`Error::SchemaUnusable`](crate::Error::SchemaUnusable) naming the
    /// schema, with the reason, when it cannot be read).
    pub fn read_schema(
        schema: &crate::schema::Schema,
        refs: &dyn crate::resolver::Resolver,
    ) -> Result<AvroSchema, crate::error::Error> {
        crate::avro::names::read(schema, refs).map_err(|err| crate::error::Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source: err.to_string().into(),
        })
    }
}

/// The Avro validating scanner and schema model (features `avro` and
/// `unstable`): the guard's engine for Avro payloads, public for the
/// differential tests, the benches and the fuzz targets.
///
/// **Unstable**: behind the `unstable` feature, with no semver promise.
/// Validate through `dataschema::Guard`.
#[cfg(all(feature = "avro", feature = "unstable"))]
pub mod avro_scan {
    pub use crate::avro::model::{parse_schema, rabin, AvroSchema, SchemaError};
    pub use crate::avro::scan::{Plan, MAX_DEPTH};
}

/// The protobuf validating scanner (features `protobuf` and `unstable`):
/// the guard's engine for protobuf payloads, public for the differential
/// tests, the benches and the fuzz targets.
///
/// **Unstable**: behind the `unstable` feature, with no semver promise;
/// its items may change or go in any release. Validate through
/// `dataschema::Guard`.
#[cfg(all(feature = "protobuf", feature = "unstable"))]
pub use crate::protobuf::scan;

/// The JSON scanner's compiled plan: a JSON Schema checked on the payload
/// bytes without building a `serde_json::Value` (feature `json`). The guard
/// uses it on its own; it is public for the differential tests and for
/// those who want the verdict alone.
///
/// Covered: drafts 4 to 2020-12; boolean schemas, `type`, `properties`,
/// `patternProperties`, `additionalProperties`, `required`,
/// `dependentRequired`, `dependentSchemas`, `dependencies`,
/// `propertyNames`, `items`/`prefixItems`/`additionalItems`,
/// `minItems`/`maxItems`, `minLength`/`maxLength`, `pattern`, `format`,
/// scalar `enum`/`const`, numeric bounds, `multipleOf`,
/// `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`, and `$ref` to a JSON
/// pointer in the document or to a registry schema by URN. Anything else
/// `jsonschema` acts on makes [`JsonPlan::compile`](json_plan::JsonPlan::compile)
/// refuse the schema, which the guard then validates with `jsonschema`.
#[cfg(feature = "json")]
pub mod json_plan {
    pub use crate::json::validate::plan::{JsonPlan, PlanRefusal};
}

/// Which engine checks the payload bytes of a JSON Schema
/// (`Guard::json_engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JsonEngine {
    /// The validating scanner (`json_plan::JsonPlan`): its verdict
    /// (held equal to `jsonschema`'s by the differential tests) is the
    /// guard's; a valid payload is accepted without building a
    /// `serde_json::Value`, and one it refuses is parsed and reported by
    /// `jsonschema` when its report is first read, so the violations are
    /// `jsonschema`'s.
    Scanner,
    /// The scanner, leaving a keyword of `fallback_subschemas` subschemas
    /// (`enum`/`const` of arrays or objects, `uniqueItems` whose items may
    /// be arrays or objects) to `jsonschema` on their subvalue alone,
    /// parsed from its bytes; the rest of the payload is scanned.
    Mixed {
        /// How many subschemas leave a keyword to `jsonschema`
        /// (`json_plan::JsonPlan::fallback_subschemas`).
        fallback_subschemas: usize,
    },
    /// `serde_json` and `jsonschema`, for a schema using something the
    /// scanner does not cover (or with duplicate keys refused).
    Jsonschema,
}

use std::fmt;
use std::sync::Arc;

use crate::error::Error;
use crate::resolver::Resolver;
use crate::schema::{Language, Schema};

/// How payloads are checked; set on `dataschema::GuardBuilder`.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Options {
    /// JSON Schema: assert `format` (dates, e-mail addresses, ...).
    pub assert_formats: bool,
    /// Protobuf: a field number the descriptor does not know is a violation.
    pub reject_unknown_fields: bool,
    /// JSON: an object naming a key twice makes the payload not JSON (by
    /// default the last value is kept, as serde_json does).
    pub reject_duplicate_keys: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            assert_formats: true,
            reject_unknown_fields: false,
            reject_duplicate_keys: false,
        }
    }
}

/// One way a payload fails its schema: where, what kind of problem, and
/// what was wrong in words. Both validators produce it: the JSON Schema
/// validator and the protobuf scanner (`scan::Plan::violations`) alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    path: String,
    kind: ViolationKind,
    message: String,
}

impl Violation {
    /// A violation at `path` (see [`path`](Violation::path) for its form),
    /// of `kind`, saying `message`: for checks made above the validators
    /// (`dataschema`'s Confluent frame checks report a bad frame so).
    pub fn new(
        path: impl Into<String>,
        kind: ViolationKind,
        message: impl Into<String>,
    ) -> Violation {
        Violation {
            path: path.into(),
            kind,
            message: message.into(),
        }
    }

    /// Where in the payload: a JSON pointer (`/items/3/sku`) for JSON; for
    /// protobuf, field names joined by `.`, a list index in brackets
    /// (`items[3].sku`), a map key in brackets, quoted when it is a string
    /// (`labels["env"]`, `counts[7]`), an extension by its full name in
    /// brackets (`[shop.note]`). Empty for the whole payload.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What kind of problem this is, to match on (the message is for people
    /// and may change).
    pub fn kind(&self) -> ViolationKind {
        self.kind
    }

    /// What was wrong, in words (`invalid UTF-8 in string field`).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// What kind of problem a [`Violation`] reports.
///
/// One set for both languages; each variant says which validator reports
/// it. New kinds may be added (a `match` needs a wildcard arm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ViolationKind {
    /// JSON: the payload is not JSON (a syntax error, invalid UTF-8, a
    /// truncated document).
    NotJson,
    /// JSON: an object names a key twice, with duplicate keys refused
    /// (`GuardBuilder::reject_duplicate_keys`).
    DuplicateKey,
    /// Arrays and objects nested 128 deep or more (JSON, serde_json's
    /// recursion limit), or messages nested deeper than 100 levels
    /// (protobuf, prost's limit), or types nested deeper than 128 levels
    /// (Avro, a datum of a recursive schema).
    TooDeep,
    /// JSON Schema `type`: a value of the wrong JSON type.
    Type,
    /// A required member is absent: a JSON Schema `required` property, or a
    /// proto2 `required` field (the path names the missing member).
    Required,
    /// JSON Schema `format`, `contentEncoding` or `contentMediaType`: a
    /// string that is not what its format says (a date, an e-mail address).
    /// Avro: a `uuid` string that is not a UUID.
    Format,
    /// JSON Schema `pattern`: a string the pattern does not match.
    Pattern,
    /// JSON Schema `enum` or `const`: a value not among those allowed.
    /// Avro: an enum index out of the symbols' range.
    Enum,
    /// A JSON Schema bound: `minimum`, `maximum`, `exclusiveMinimum`,
    /// `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`,
    /// `minItems`, `maxItems`, `minProperties`, `maxProperties`,
    /// `uniqueItems`, `contains`. Avro: a `decimal` whose unscaled value
    /// has more digits than its precision; an array or map declaring more
    /// items than a decoder holds (`limits::max_avro_collection_bytes`); a
    /// datum read as another version that would be larger than
    /// `limits::max_avro_transcode_bytes`.
    Bounds,
    /// JSON Schema `additionalProperties`, `unevaluatedProperties`,
    /// `additionalItems`, `unevaluatedItems` or `propertyNames`: a property
    /// or item the schema does not allow.
    Additional,
    /// JSON Schema `anyOf`, `oneOf`, `not` or a `false` subschema: the value
    /// fails a combination of subschemas.
    Composition,
    /// Avro: the bytes are not one datum of the schema's binary encoding
    /// (a bad varint, a boolean other than 0 or 1, a negative or overlong
    /// length, a block whose byte size disagrees with its items, a union
    /// index out of range, bytes after the datum).
    ///
    /// Protobuf: the bytes are not well-formed protobuf (a bad varint, tag
    /// or length, a truncated value, an unterminated group), or a known field
    /// arrived with a wire type its type cannot have.
    Wire,
    /// Protobuf: a `string` field holds bytes that are not UTF-8. Avro: a
    /// `string` or a map key does.
    Utf8,
    /// Protobuf: a field number the descriptor does not declare, refused by
    /// the options (`GuardBuilder::reject_unknown_fields`).
    UnknownField,
    /// Protobuf, JSON input (`Guard::validate_json`): the value is not the
    /// message in protobuf's JSON mapping (a wrong type, a bad enum name, an
    /// unknown field name with unknown fields refused).
    Mapping,
    /// Resolution (reading one version's payload as another's, or writing
    /// it back): a value the other version's schema cannot hold (a number
    /// that does not fit, an enum member or union branch it lacks, a
    /// required field left without a value).
    Unrepresentable,
    /// A data-contract rule (the version's `ruleSet.domainRules`) refused
    /// the payload: the message names the rule, its type and expression;
    /// the path is a field rule's field (`$.a.b`), empty for a message
    /// rule.
    Rule,
    /// Anything else: a JSON payload too large to say where it fails, a
    /// custom keyword, a `$ref` that could not be followed.
    Other,
}

/// At most this many violations are reported for one payload, by either
/// validator, so a hostile payload cannot make the report arbitrarily large.
pub const MAX_VIOLATIONS: usize = 64;

/// The cause of an [`Error::SchemaUnusable`] whose schema `$ref`s a URN
/// no resolver holds: a state that passes once that URN is published, so
/// a guard compiles such a schema again after a delay.
#[derive(Debug)]
#[cfg_attr(
    not(any(feature = "json", feature = "proto-text", feature = "avro")),
    allow(dead_code)
)]
pub(crate) struct MissingRef {
    target: crate::urn::Urn,
}

impl fmt::Display for MissingRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "its reference {} is not held by any resolver",
            self.target
        )
    }
}

impl std::error::Error for MissingRef {}

/// Why a schema did not compile, sorted by what a guard does about it.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[derive(Debug)]
#[cfg_attr(not(feature = "json"), allow(dead_code))] // only `$ref`s pass
#[doc(hidden)]
pub enum CompileError {
    /// No validator for the language is compiled in: lasting.
    NoValidator(Error),
    /// The schema itself cannot be used: lasting.
    Unusable(Error),
    /// A `$ref` names a URN no resolver holds (yet): passes once it is
    /// published.
    MissingRef(Error),
    /// A `$ref`'s registry could not be asked: passes when it is back.
    Unreachable(Error),
}

impl From<CompileError> for Error {
    fn from(error: CompileError) -> Error {
        match error {
            CompileError::NoValidator(error)
            | CompileError::Unusable(error)
            | CompileError::MissingRef(error)
            | CompileError::Unreachable(error) => error,
        }
    }
}

/// A compiled schema, ready to check payloads.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[doc(hidden)]
pub enum Compiled {
    #[cfg(feature = "json")]
    Json(json::JsonValidator),
    #[cfg(feature = "protobuf")]
    Protobuf(protobuf::ProtobufValidator),
    #[cfg(feature = "avro")]
    Avro(avro::AvroValidator),
}

/// Why a payload does not conform: its violations, found when the payload
/// was checked, or (a JSON payload the scanner refused) found on first
/// read by `jsonschema` from a copy of the payload. Either way the verdict
/// was final when the payload was checked; reading the report cannot
/// change it. Held by the guard's `Invalid` itself (no allocation of its
/// own): a clone shares the payload's copy and carries the violations
/// found so far; a clone made before the first read finds the same
/// violations on its own first read.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[doc(hidden)]
#[derive(Clone)]
pub struct Report(Found);

/// A report's violations, and when they are found.
#[derive(Clone)]
enum Found {
    /// When the payload was checked.
    Checked(Vec<Violation>),
    /// On first read, from what `deferred` kept.
    #[cfg(feature = "json")]
    Deferred {
        deferred: json::Deferred,
        violations: std::sync::OnceLock<Vec<Violation>>,
    },
    /// No verdict: it depends on a `pattern` match that ran out of its
    /// backtracking budget. Its one violation says so.
    #[cfg(feature = "json")]
    Undecided(Vec<Violation>),
    /// No verdict: the schema names no message for a payload without
    /// message indexes (a protobuf descriptor set without a root). Its one
    /// violation says so.
    #[cfg(feature = "protobuf")]
    FramesOnly(Vec<Violation>),
}

impl Report {
    /// A report whose violations are known.
    pub fn found(violations: Vec<Violation>) -> Report {
        Report(Found::Checked(violations))
    }

    /// The violations: never empty, at most [`MAX_VIOLATIONS`]. A deferred
    /// report is produced by the first caller (others wait for it) and kept.
    pub fn violations(&self) -> &[Violation] {
        match &self.0 {
            Found::Checked(violations) => violations,
            #[cfg(feature = "json")]
            Found::Deferred {
                deferred,
                violations,
            } => violations.get_or_init(|| deferred.violations()),
            #[cfg(feature = "json")]
            Found::Undecided(why) => why,
            #[cfg(feature = "protobuf")]
            Found::FramesOnly(why) => why,
        }
    }

    /// Whether the payload has no verdict (a JSON Schema `pattern` match
    /// ran out of its backtracking budget and the verdict depends on its
    /// outcome), and why. Such a payload is not known to be invalid: the
    /// guard lets it through, counted as `pattern_budget`.
    pub fn undecided(&self) -> Option<&str> {
        match &self.0 {
            #[cfg(feature = "json")]
            Found::Undecided(why) => why.first().map(Violation::message),
            _ => None,
        }
    }

    /// Whether the schema could not be used for this payload, and why: a
    /// protobuf descriptor set without a root names no message for a
    /// payload without message indexes (one addressed by URN, or a JSON
    /// value), only for a Confluent frame's. The guard lets such a payload
    /// through, counted as `unusable`.
    pub fn unusable(&self) -> Option<&str> {
        match &self.0 {
            #[cfg(feature = "protobuf")]
            Found::FramesOnly(why) => why.first().map(Violation::message),
            _ => None,
        }
    }

    /// A payload the schema names no message for (see [`Report::unusable`]).
    #[cfg(feature = "protobuf")]
    pub(crate) fn frames_only() -> Report {
        Report(Found::FramesOnly(vec![Violation::new(
            "",
            ViolationKind::Other,
            "the schema is a protobuf descriptor set without a root message: only a Confluent \
             frame's message indexes name the message of a payload",
        )]))
    }

    /// A payload without a verdict, and why.
    #[cfg(feature = "json")]
    pub(crate) fn undecided_because(why: String) -> Report {
        Report(Found::Undecided(vec![Violation::new(
            "",
            ViolationKind::Other,
            why,
        )]))
    }

    /// A report `jsonschema` produces from `deferred` when first read.
    #[cfg(feature = "json")]
    pub(crate) fn deferred(deferred: json::Deferred) -> Report {
        Report(Found::Deferred {
            deferred,
            violations: std::sync::OnceLock::new(),
        })
    }
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.violations()).finish()
    }
}

impl From<Vec<Violation>> for Report {
    fn from(violations: Vec<Violation>) -> Report {
        Report::found(violations)
    }
}

impl Compiled {
    /// The schema read for compatibility checks, when compiling it read it
    /// already: a protobuf schema's descriptor pool (shared, not copied),
    /// so that a publish decodes its candidate once. `None` for JSON
    /// Schema, whose parse is cheap next to its comparison.
    #[doc(hidden)]
    pub fn reading(&self) -> Option<crate::compat::Reading> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => None,
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => Some(crate::compat::Reading::from_pool(v.pool())),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => Some(crate::compat::Reading::from_avro(v.schema())),
        }
    }

    /// Checks a payload's bytes.
    #[inline]
    pub fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        self.check(payload)
            .map_err(|report| report.violations().to_vec())
    }

    /// Checks a payload's bytes; the verdict is final, the report of a JSON
    /// payload the scanner refused is produced when first read
    /// ([`Report::violations`]).
    #[inline]
    pub fn check(&self, payload: &[u8]) -> Result<(), Report> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.check(payload),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) if v.frames_only() => Err(Report::frames_only()),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate(payload).map_err(Report::found),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => v.validate(payload).map_err(Report::found),
        }
    }

    /// Whether this is a protobuf validator (whose Confluent frames carry
    /// message indexes).
    pub fn is_protobuf(&self) -> bool {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => false,
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(_) => true,
            #[cfg(feature = "avro")]
            Compiled::Avro(_) => false,
        }
    }

    /// Protobuf: whether Confluent message indexes name a message of the
    /// schema's file (see `Guard::validate_framed`); `Err` says why not.
    /// `None` for a JSON Schema or Avro, which take no indexes.
    pub fn check_indexes(&self, indexes: &[u64]) -> Option<Result<(), String>> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => {
                let _ = indexes;
                None
            }
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => Some(v.check_indexes(indexes)),
            #[cfg(feature = "avro")]
            Compiled::Avro(_) => {
                let _ = indexes;
                None
            }
        }
    }

    /// What a producer writes between the schema id and the body of a
    /// Confluent frame: for protobuf, the message indexes of `message` (by
    /// full name; `None`: the root, or a rootless schema's first message),
    /// encoded as Confluent's serializers encode them; nothing for JSON
    /// Schema and Avro, which have no message to choose (`Err` when one is
    /// named). `Err` says why the message cannot be framed: one a consumer's
    /// [`validate_framed_body`](Self::validate_framed_body) would refuse.
    pub fn message_indexes(&self, message: Option<&str>) -> Result<Vec<u8>, String> {
        match *self {
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => {
                let indexes = v.indexes_for(message)?;
                let mut out = Vec::with_capacity(indexes.len() + 1);
                crate::protobuf::frame::write_indexes(&indexes, &mut out);
                Ok(out)
            }
            #[allow(unreachable_patterns)]
            _ => match message {
                None => Ok(Vec::new()),
                Some(name) => Err(format!(
                    "only a protobuf schema has messages to choose from (asked for {name})"
                )),
            },
        }
    }

    /// Checks what follows the schema id in a Confluent frame: for
    /// protobuf, the message indexes (which pick the message of the
    /// schema's file the body is: the root, or any other), then the body as
    /// that message; for JSON Schema and Avro, the body.
    pub fn validate_framed_body(&self, rest: &[u8]) -> Result<(), Report> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.check(rest),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate_framed(rest).map_err(Report::found),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => v.validate(rest).map_err(Report::found),
        }
    }

    /// For a JSON Schema, which engine checks payload bytes; `None` for
    /// another language.
    pub fn json_engine(&self) -> Option<JsonEngine> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => Some(v.engine()),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(_) => None,
            #[cfg(feature = "avro")]
            Compiled::Avro(_) => None,
        }
    }

    /// Checks a payload the caller has already parsed as JSON.
    #[inline]
    pub fn validate_json(&self, value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        self.check_json(value)
            .map_err(|report| report.violations().to_vec())
    }

    /// Checks a payload the caller has already parsed as JSON; a JSON
    /// Schema's report may be undecided ([`Report::undecided`]).
    #[inline]
    pub fn check_json(&self, value: &serde_json::Value) -> Result<(), Report> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.validate_value(value),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) if v.frames_only() => Err(Report::frames_only()),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate_json(value).map_err(Report::found),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => v.validate_json(value).map_err(Report::found),
        }
    }
}

/// Compiles `schema`. `refs` resolves the URNs a JSON Schema `$ref`
/// names; nothing is ever fetched from the network or the filesystem.
///
/// Errors, sorted as [`CompileError`]: [`Error::NoValidator`] when the
/// language's feature is off; [`Error::SchemaUnusable`] when the schema does
/// not compile, and the shape errors ([`Error::Empty`],
/// [`Error::MissingRoot`]); [`Error::SchemaUnusable`] naming a `$ref` nobody
/// holds yet; [`Error::Unreachable`] when a `$ref`'s schema could not be
/// fetched just now. The last two are not properties of the schema.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[doc(hidden)]
pub fn compile(
    schema: &Schema,
    refs: Arc<dyn Resolver>,
    options: Options,
) -> Result<Compiled, CompileError> {
    // Every reader below recurses as deep as the schema nests: on a stack
    // this crate sizes, never the caller's (a Tokio worker's 2 MiB).
    crate::limits::on_compile_stack(|| compile_here(schema, refs, options)).unwrap_or_else(|err| {
        match err {
            crate::limits::StackError::Spawn(_) => {
                Err(CompileError::Unreachable(Error::Unreachable {
                    urn: schema.urn().clone(),
                    source: Box::new(err),
                }))
            }
            crate::limits::StackError::Panicked => {
                Err(CompileError::Unusable(Error::SchemaUnusable {
                    urn: schema.urn().clone(),
                    source: Box::new(err),
                }))
            }
        }
    })
}

/// [`compile`] on the calling thread.
fn compile_here(
    schema: &Schema,
    refs: Arc<dyn Resolver>,
    options: Options,
) -> Result<Compiled, CompileError> {
    schema.check_shape().map_err(CompileError::Unusable)?;
    let unusable = |source| {
        CompileError::Unusable(Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source,
        })
    };
    match schema.language() {
        #[cfg(feature = "json")]
        Language::JsonSchema => {
            json::JsonValidator::compile(schema.bytes(), schema.references(), refs, options)
                .map(Compiled::Json)
                .map_err(|err| match err {
                    json::CompileError::Unusable(source) => unusable(source),
                    json::CompileError::Unreachable(source) => {
                        CompileError::Unreachable(Error::Unreachable {
                            urn: schema.urn().clone(),
                            source,
                        })
                    }
                    json::CompileError::MissingRef(target) => {
                        CompileError::MissingRef(Error::SchemaUnusable {
                            urn: schema.urn().clone(),
                            source: Box::new(MissingRef { target }),
                        })
                    }
                })
        }
        #[cfg(feature = "protobuf")]
        Language::Protobuf => match schema.root() {
            Some(root) => protobuf::ProtobufValidator::compile(schema.bytes(), root, options)
                .map(Compiled::Protobuf)
                .map_err(unusable),
            // A descriptor set without a root: frames only.
            // Not exactly one own file: it must name its root.
            None if crate::protobuf::source::is_rootless_set(schema) => {
                protobuf::ProtobufValidator::rootless_set(schema.bytes(), options)
                    .map(Compiled::Protobuf)
                    .map_err(|err| match err {
                        Some(err) => unusable(err),
                        None => CompileError::Unusable(Error::MissingRoot {
                            urn: schema.urn().clone(),
                        }),
                    })
            }
            // No root: a Confluent registration, `.proto` text or a
            // descriptor with references (`protobuf/source.rs`).
            None => compile_rootless(schema, refs.as_ref(), options),
        },
        #[cfg(feature = "avro")]
        Language::Avro => {
            // Avro payloads have no options: the encoding has no unknown
            // fields and no duplicate keys.
            let _ = options;
            use crate::avro::names::{DefinitionsError, ReadError};
            avro::AvroValidator::compile(schema, refs.as_ref())
                .map(Compiled::Avro)
                .map_err(|err| match err {
                    ReadError::Definitions(DefinitionsError::Missing(target)) => {
                        CompileError::MissingRef(Error::SchemaUnusable {
                            urn: schema.urn().clone(),
                            source: Box::new(MissingRef { target }),
                        })
                    }
                    ReadError::Definitions(DefinitionsError::Unreachable(source)) => {
                        CompileError::Unreachable(Error::Unreachable {
                            urn: schema.urn().clone(),
                            source: Box::new(source),
                        })
                    }
                    err => unusable(format!("not a usable Avro schema: {err}").into()),
                })
        }
        #[allow(unreachable_patterns)]
        language => {
            let _ = (refs, unusable);
            Err(CompileError::NoValidator(Error::NoValidator {
                urn: schema.urn().clone(),
                language,
            }))
        }
    }
}

/// A protobuf schema without a root (a Confluent registration): its text
/// compiled with its references (feature `proto-text`).
#[cfg(feature = "protobuf")]
fn compile_rootless(
    schema: &Schema,
    refs: &dyn Resolver,
    options: Options,
) -> Result<Compiled, CompileError> {
    let unusable = |message: String| {
        CompileError::Unusable(Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source: message.into(),
        })
    };
    #[cfg(feature = "proto-text")]
    {
        use crate::protobuf::source::{self, CompileError as SourceError};
        let compiled = source::compile(schema, refs).map_err(|err| match err {
            SourceError::Unusable(message) => unusable(message),
            SourceError::MissingRef(target) => CompileError::MissingRef(Error::SchemaUnusable {
                urn: schema.urn().clone(),
                source: Box::new(MissingRef { target }),
            }),
            SourceError::Unreachable(source) => CompileError::Unreachable(Error::Unreachable {
                urn: schema.urn().clone(),
                source: Box::new(source),
            }),
        })?;
        protobuf::ProtobufValidator::rootless(&compiled.pool, &compiled.main, options)
            .map(Compiled::Protobuf)
            .map_err(|err| unusable(err.to_string()))
    }
    #[cfg(not(feature = "proto-text"))]
    {
        let _ = (refs, options);
        Err(unusable(
            "a protobuf schema without a root is .proto text (a Confluent registration), and \
             this build compiles no .proto text: enable the `proto-text` feature"
                .into(),
        ))
    }
}
