//! Validation's vocabulary, below every language: what a payload's check
//! reports ([`Violation`], [`ViolationKind`], [`Report`]) and how payloads
//! are checked ([`Options`], [`JsonEngine`]). Each language's validator
//! (`json::validate`, `protobuf::validate`, `avro::validate`) produces
//! these; the dispatch over the languages (`dispatch::compile`) sits
//! above them all.

use std::fmt;
#[cfg(feature = "json")]
use std::sync::Arc;

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
    /// A validator generated from the scanner's plan at `cargo build`
    /// (`codegen = true` in the bundled folder's manifest), then the
    /// scanner: the generated code accepts the payloads it proves valid,
    /// the scanner decides (and `jsonschema` reports) the rest.
    Generated,
}

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

/// What reports a refused payload's violations when its [`Report`] is
/// first read: JSON Schema's `jsonschema` side, which the scanner's refusal
/// leaves the report to (`json::validate`).
#[cfg(feature = "json")]
pub(crate) trait Reporter: Send + Sync {
    /// The violations of `payload`, a payload already refused.
    fn violations(&self, payload: &[u8]) -> Vec<Violation>;
}

/// A report's violations, and when they are found.
#[derive(Clone)]
enum Found {
    /// When the payload was checked.
    Checked(Vec<Violation>),
    /// On first read, by `reporter` from its copy of the payload.
    #[cfg(feature = "json")]
    Deferred {
        reporter: Arc<dyn Reporter>,
        payload: Arc<[u8]>,
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
                reporter,
                payload,
                violations,
            } => violations.get_or_init(|| reporter.violations(payload)),
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

    /// A report `reporter` produces from `payload` (a copy of the payload
    /// refused) when first read.
    #[cfg(feature = "json")]
    pub(crate) fn deferred(reporter: Arc<dyn Reporter>, payload: Arc<[u8]>) -> Report {
        Report(Found::Deferred {
            reporter,
            payload,
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
