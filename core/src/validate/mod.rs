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
    not(any(feature = "json", feature = "protobuf")),
    allow(unused_imports, unused_variables, dead_code)
)]

#[cfg(feature = "json")]
use crate::json::validate as json;
#[cfg(feature = "protobuf")]
use crate::protobuf::validate as protobuf;

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
    /// The scanner, leaving some keywords (`uniqueItems`, `minProperties`,
    /// `maxProperties`, `enum` of arrays or objects) or whole subschemas
    /// (with `contains`, `unevaluated*`) of
    /// `fallback_subschemas` subschemas to `jsonschema` on their subvalue
    /// alone, parsed from its bytes; the rest of the payload is scanned.
    Mixed {
        /// How many subschemas leave a keyword to `jsonschema`.
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
    /// (protobuf, prost's limit).
    TooDeep,
    /// JSON Schema `type`: a value of the wrong JSON type.
    Type,
    /// A required member is absent: a JSON Schema `required` property, or a
    /// proto2 `required` field (the path names the missing member).
    Required,
    /// JSON Schema `format`, `contentEncoding` or `contentMediaType`: a
    /// string that is not what its format says (a date, an e-mail address).
    Format,
    /// JSON Schema `pattern`: a string the pattern does not match.
    Pattern,
    /// JSON Schema `enum` or `const`: a value not among those allowed.
    Enum,
    /// A JSON Schema bound: `minimum`, `maximum`, `exclusiveMinimum`,
    /// `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`,
    /// `minItems`, `maxItems`, `minProperties`, `maxProperties`,
    /// `uniqueItems`, `contains`.
    Bounds,
    /// JSON Schema `additionalProperties`, `unevaluatedProperties`,
    /// `additionalItems`, `unevaluatedItems` or `propertyNames`: a property
    /// or item the schema does not allow.
    Additional,
    /// JSON Schema `anyOf`, `oneOf`, `not` or a `false` subschema: the value
    /// fails a combination of subschemas.
    Composition,
    /// Protobuf: the bytes are not well-formed protobuf (a bad varint, tag
    /// or length, a truncated value, an unterminated group), or a known field
    /// arrived with a wire type its type cannot have.
    Wire,
    /// Protobuf: a `string` field holds bytes that are not UTF-8.
    Utf8,
    /// Protobuf: a field number the descriptor does not declare, refused by
    /// the options (`GuardBuilder::reject_unknown_fields`).
    UnknownField,
    /// Protobuf, JSON input (`Guard::validate_json`): the value is not the
    /// message in protobuf's JSON mapping (a wrong type, a bad enum name, an
    /// unknown field name with unknown fields refused).
    Mapping,
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
#[cfg_attr(not(feature = "json"), allow(dead_code))]
pub(crate) struct MissingRef {
    target: crate::urn::Urn,
}

impl fmt::Display for MissingRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "its $ref {} is not held by any resolver", self.target)
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
}

/// Why a payload does not conform: its violations, found when the payload
/// was checked, or (a JSON payload the scanner refused) found on first
/// read by `jsonschema` from a copy of the payload. Either way the verdict
/// was final when the payload was checked; reading the report cannot
/// change it. Shared (`Arc`) by the clones of the guard's `Invalid`.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[doc(hidden)]
pub struct Report(Found);

/// A report's violations, and when they are found.
enum Found {
    /// When the payload was checked.
    Checked(Vec<Violation>),
    /// On first read, from what `deferred` kept.
    #[cfg(feature = "json")]
    Deferred {
        deferred: json::Deferred,
        violations: std::sync::OnceLock<Vec<Violation>>,
    },
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
        }
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
            Compiled::Protobuf(ref v) => v.validate(payload).map_err(Report::found),
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
        }
    }

    /// Protobuf: whether Confluent message indexes name the root message
    /// (see `Guard::validate_framed`); `Err` says what they name. `None`
    /// for a JSON Schema, which takes no indexes.
    pub fn check_indexes(&self, indexes: &[u64]) -> Option<Result<(), String>> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => {
                let _ = indexes;
                None
            }
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => Some(v.check_indexes(indexes)),
        }
    }

    /// Checks what follows the schema id in a Confluent frame: for
    /// protobuf, the message indexes (which must name the root message),
    /// then the body; for JSON Schema, the body.
    pub fn validate_framed_body(&self, rest: &[u8]) -> Result<(), Report> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.check(rest),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate_framed(rest).map_err(Report::found),
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
        }
    }

    /// Checks a payload the caller has already parsed as JSON.
    #[inline]
    pub fn validate_json(&self, value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.validate_value(value),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate_json(value),
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
        Language::Protobuf => {
            let root = schema.root().unwrap_or_default();
            protobuf::ProtobufValidator::compile(schema.bytes(), root, options)
                .map(Compiled::Protobuf)
                .map_err(unusable)
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
