//! JSON Schema, with the `jsonschema` crate (its HTTP and file retrievers
//! compiled out): drafts 4, 6, 7, 2019-09 and 2020-12, detected from
//! `$schema` (2020-12 when absent).
//!
//! Hostile input is bounded here:
//!
//! * **Recursion.** Before `jsonschema` compiles a schema, [`analysis`]
//!   computes the deepest evaluation path through its subschemas and
//!   `$ref`s for every payload nesting, and refuses a schema whose in-place
//!   paths alone are deeper than [`analysis::MAX_DEPTH`] (unusable). A
//!   recursive schema deeper than that only on a deeply nested payload is
//!   used: such a payload is checked by `jsonschema` on a thread whose
//!   stack is sized from the path ([`analysis::Depths`]), and one nested
//!   past [`analysis::MAX_DEPTH_OWN_STACK`] subschemas is refused
//!   ([`ViolationKind::TooDeep`], saying so). Arrays and objects nested
//!   [`analysis::MAX_NESTING`] (128) deep or more are not JSON on both
//!   guard paths (`validate` through serde_json's recursion limit,
//!   `validate_json` by a check here).
//! * **Patterns.** `pattern` and `patternProperties` run on the `regex`
//!   crate's engine, linear in the subject, where it can run them. A schema
//!   with a pattern it cannot compile (backreferences, lookaround) is
//!   compiled again with `fancy-regex`, the backtracking ECMA-262 engine
//!   `jsonschema` offers, which hands the parts of a pattern without those
//!   features to the linear engine and stops a match after
//!   [`PATTERN_BACKTRACK_LIMIT`] backtracks. A match that stops so is
//!   unfinished: `jsonschema` then evaluates the payload under both of its
//!   outcomes, and a payload whose verdict depends on it is undecided
//!   ([`Report::undecided`]: the guard lets it through, counted as
//!   `pattern_budget`), never invalid. A pattern larger than
//!   [`PATTERN_SIZE_LIMIT`] still makes the schema unusable.
//! * **Reports.** A valid payload is checked with `is_valid`, which collects
//!   nothing. A payload the scanner refuses is reported when the report is
//!   first read (the checker is the report's `Reporter`), from a copy of the
//!   payload. For an invalid
//!   one, the full report (up to `MAX_VIOLATIONS`)
//!   is produced only when the analysis bounds the errors `jsonschema` would
//!   collect to [`ERROR_BUDGET`]; otherwise only the first violation, found
//!   without collecting the rest, or, when `anyOf`/`oneOf` (whose errors copy
//!   every branch's) make even that unbounded, a violation saying so.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use jsonschema::{Retrieve, Uri};
use parking_lot::Mutex;
use serde_json::Value;

mod analysis;
pub(crate) mod codegen;
pub(crate) mod plan;
mod references;
pub(crate) mod scanner;
pub(crate) mod tokenizer;

pub(crate) use self::analysis::MAX_NESTING;
use self::analysis::{Depths, Refusal};
use self::scanner::Scanned;
use crate::error::{BoxError, Error};
use crate::resolver::Resolver;
use crate::schema::Language;
use crate::urn::Urn;
use crate::violation::{
    JsonEngine, Options, Report, Reporter, Violation, ViolationKind, MAX_VIOLATIONS,
};

/// The largest compiled program one pattern may have (the `regex` crate's
/// size limit), and the largest lazy-DFA cache it may use while matching
/// (past it the engine falls back to a slower linear search, never an error).
pub(crate) const PATTERN_SIZE_LIMIT: usize = 2 << 20;

/// The most times one match of a backtracking pattern may backtrack
/// (`fancy-regex`'s backtrack limit, per match): well under a millisecond,
/// and far more than an ordinary string takes.
pub(crate) const PATTERN_BACKTRACK_LIMIT: usize = 10_000;

/// The linear engine's pattern options (the guard's default).
fn linear_patterns() -> jsonschema::PatternOptions<jsonschema::Regex> {
    jsonschema::PatternOptions::regex()
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
}

/// The backtracking engine's pattern options, for a schema with a pattern
/// the linear engine cannot run.
fn backtracking_patterns() -> jsonschema::PatternOptions<jsonschema::FancyRegex> {
    jsonschema::PatternOptions::fancy_regex()
        .backtrack_limit(PATTERN_BACKTRACK_LIMIT)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
}

/// The most errors `jsonschema` may collect for a full report.
const ERROR_BUDGET: u64 = 100_000;

/// The most bytes of payload copies `anyOf`/`oneOf` errors may hold for a
/// full report.
const COPY_BUDGET: u64 = 64 << 20;

/// The longest violation message kept (a message quotes the value, which may
/// be the whole payload).
const MAX_MESSAGE: usize = 1_000;

pub struct JsonValidator {
    /// The scanner's plan, when it covers the schema (and duplicate keys
    /// are not refused, which only the `Value` path checks).
    plan: Option<plan::JsonPlan>,
    /// The validator generated for the plan at `cargo build`
    /// ([`codegen`]), run in place of the plan: it gives the plan's
    /// verdict, or leaves the payload to the plan when it cannot tell.
    generated: Option<&'static scanner::generated::Generated>,
    checker: Arc<Checker>,
}

/// `jsonschema`'s side: the verdict where the scanner does not answer, and
/// every report. Shared with the deferred reports of refused payloads.
struct Checker {
    validator: jsonschema::Validator,
    /// Built with [`backtracking_patterns`]: a match may stop unfinished.
    backtracking: bool,
    reject_duplicate_keys: bool,
    errors_per_value: u64,
    has_context: bool,
    /// Where `jsonschema`'s recursion on a payload runs.
    depths: Depths,
}

/// A payload the scanner refused is kept (one allocation, an `Arc<[u8]>`,
/// shared by the report's clones) to be reported by `jsonschema` when its
/// report is first read (`Report::violations`).
impl Reporter for Checker {
    /// `jsonschema`'s report of the payload. The scanner's refusal is
    /// `jsonschema`'s verdict (the differential tests hold it to that); if
    /// they ever disagreed, the report says so rather than coming back
    /// empty.
    #[cold]
    fn violations(&self, payload: &[u8]) -> Vec<Violation> {
        match self.parse_and_check(payload) {
            Err(violations) => violations,
            Ok(()) => vec![Violation::new(
                "",
                ViolationKind::Other,
                "the JSON scanner refused this payload but jsonschema reports no violation: \
                 a disagreement the scanner's differential tests exist to rule out; please \
                 report it with the schema and the payload",
            )],
        }
    }
}

/// Resolves a `$ref` that names a schema URN from the registry; refuses
/// every other URI (no network, no filesystem, ever). Remembers whether a
/// resolution failed for a passing reason (a remote registry down), so the
/// compile failure is not taken for a property of the schema.
#[derive(Clone)]
struct UrnRetriever {
    resolver: Arc<dyn Resolver>,
    transient: Arc<Mutex<Option<Passing>>>,
    /// Documents the analysis already fetched, by URI.
    fetched: HashMap<String, Value>,
}

/// A `$ref` resolution that failed for a reason that may pass.
enum Passing {
    /// The registry could not be asked.
    Unreachable(String),
    /// Nobody holds the URN yet.
    Missing(Urn),
}

/// Why a JSON Schema did not compile (the dispatch sorts it into
/// [`CompileError`](crate::dispatch::compile::CompileError)).
pub(crate) enum JsonCompileError {
    /// The schema itself: not JSON, not a schema, a `$ref` nobody holds.
    Unusable(BoxError),
    /// A `$ref`'s schema could not be fetched just now: try again later.
    Unreachable(BoxError),
    /// A `$ref` names a URN nobody holds (yet): try again later.
    MissingRef(Urn),
}

impl Retrieve for UrnRetriever {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, BoxError> {
        let text = uri.as_str();
        if let Some(value) = self.fetched.get(text) {
            return Ok(value.clone());
        }
        let urn: Urn = text.parse().map_err(|_| {
            format!(
                "$ref {text:?} is not a schema URN, and dataschema never fetches references \
                 from the network or the filesystem"
            )
        })?;
        let schema = self.resolver.resolve(&urn).inspect_err(|err| {
            *self.transient.lock() = Some(match err {
                Error::NotFound { .. } => Passing::Missing(urn.clone()),
                _ => Passing::Unreachable(format!("resolving $ref {urn}: {}", err.chain())),
            });
        })?;
        if schema.language() != Language::JsonSchema {
            return Err(format!(
                "$ref {urn} names a {} schema, not a JSON Schema",
                schema.language()
            )
            .into());
        }
        let mut value: Value = serde_json::from_slice(schema.bytes())?;
        // The referenced version's own references apply inside it.
        references::apply(&mut value, schema.references());
        Ok(value)
    }
}

impl JsonValidator {
    /// Compiles `bytes`, a `$ref` to one of `references`' names
    /// following its URN.
    pub(crate) fn compile(
        bytes: &[u8],
        references: &[crate::contract::Reference],
        refs: Arc<dyn Resolver>,
        options: Options,
    ) -> Result<JsonValidator, JsonCompileError> {
        let mut schema: Value = serde_json::from_slice(bytes).map_err(|err| {
            JsonCompileError::Unusable(format!("the schema is not JSON: {err}").into())
        })?;
        references::apply(&mut schema, references);
        let facts = analysis::analyse(&schema, &*refs).map_err(|refusal| match refusal {
            Refusal::Unusable(why) => JsonCompileError::Unusable(why.into()),
            Refusal::Unreachable(why) => JsonCompileError::Unreachable(why.into()),
            Refusal::Missing(urn) => JsonCompileError::MissingRef(urn),
        })?;
        let plan = if options.reject_duplicate_keys {
            None
        } else {
            plan::JsonPlan::compile_with(&schema, options.assert_formats, &facts.fetched).ok()
        };
        let transient = Arc::new(Mutex::new(None));
        let retriever = UrnRetriever {
            resolver: refs,
            transient: Arc::clone(&transient),
            fetched: facts.fetched,
        };
        let mut backtracking = false;
        let mut built = jsonschema::options()
            .should_validate_formats(options.assert_formats)
            .with_pattern_options(linear_patterns())
            .with_retriever(retriever.clone())
            .build(&schema);
        if built.is_err() && transient.lock().is_none() {
            // A pattern the linear engine cannot run (or a schema that
            // does not compile either way, whose first error is reported).
            let again = jsonschema::options()
                .should_validate_formats(options.assert_formats)
                .with_pattern_options(backtracking_patterns())
                .with_retriever(retriever)
                .build(&schema);
            if again.is_ok() {
                backtracking = true;
                built = again;
            }
        }
        match built {
            Ok(validator) => Ok(JsonValidator {
                plan,
                generated: None,
                checker: Arc::new(Checker {
                    validator,
                    backtracking,
                    reject_duplicate_keys: options.reject_duplicate_keys,
                    errors_per_value: facts.errors_per_value,
                    has_context: facts.has_context,
                    depths: facts.depths,
                }),
            }),
            Err(err) => match transient.lock().take() {
                Some(Passing::Unreachable(cause)) => {
                    Err(JsonCompileError::Unreachable(cause.into()))
                }
                Some(Passing::Missing(urn)) => Err(JsonCompileError::MissingRef(urn)),
                None => Err(JsonCompileError::Unusable(
                    format!("the schema does not compile: {}", bounded(&err)).into(),
                )),
            },
        }
    }

    /// The same validator running `generated` (a validator bundled for
    /// the schema) before its plan, when it fits the plan: generated from
    /// a plan that generates the same code (another crate version, or
    /// other options, generate other code, and the plan runs alone).
    pub(crate) fn with_generated(mut self, generated: Option<crate::schema::Generated>) -> Self {
        let generated = generated.and_then(|g| {
            let g: &(dyn std::any::Any + Send + Sync) = g;
            g.downcast_ref::<scanner::generated::Generated>()
        });
        self.generated = match (&self.plan, generated) {
            (Some(plan), Some(generated)) if generated.fits(plan) => Some(generated),
            _ => None,
        };
        self
    }

    /// The plan as Rust code ([`codegen`]), when the generator covers it.
    pub(crate) fn generate(&self) -> Option<codegen::GeneratedSource> {
        self.plan.as_ref()?.generate()
    }

    /// Whether a generated validator runs before the plan.
    pub(crate) fn runs_generated(&self) -> bool {
        self.generated.is_some()
    }

    /// Which engine checks payload bytes.
    pub(crate) fn engine(&self) -> JsonEngine {
        match &self.plan {
            Some(_) if self.generated.is_some() => JsonEngine::Generated,
            Some(plan) => match plan.fallback_subschemas() {
                0 => JsonEngine::Scanner,
                fallback_subschemas => JsonEngine::Mixed {
                    fallback_subschemas,
                },
            },
            None => JsonEngine::Jsonschema,
        }
    }

    /// Checks payload bytes. With a plan, the scanner's verdict stands
    /// (it is `jsonschema`'s): a valid payload is accepted without building
    /// a `Value`. Without a plan, or when the scanner cannot tell, the
    /// payload is parsed and checked by `jsonschema`'s `is_valid`. Either
    /// way a refused payload is copied for `jsonschema` to report when the
    /// report is first read, so the verdict costs no report.
    #[inline]
    pub(crate) fn check(&self, payload: &[u8]) -> Result<(), Report> {
        if let Some(plan) = &self.plan {
            if let Some(generated) = self.generated {
                // The interpreter's verdict, in one scan; the interpreter
                // scans again only when the generated code cannot tell.
                match generated.verdict(plan, payload) {
                    Some(true) => return Ok(()),
                    Some(false) => return Err(self.defer(payload)),
                    None => {}
                }
            }
            match plan.scan_outcome(payload) {
                Scanned::Valid => return Ok(()),
                Scanned::Invalid => return Err(self.defer(payload)),
                Scanned::Unsure => {}
            }
        }
        match self.checker.verdict(payload) {
            Verdict::Valid => Ok(()),
            Verdict::Invalid => Err(self.defer(payload)),
            Verdict::Undecided(why) => Err(Report::undecided_because(why)),
        }
    }

    #[cold]
    #[inline(never)]
    fn defer(&self, payload: &[u8]) -> Report {
        Report::deferred(
            Arc::clone(&self.checker) as Arc<dyn Reporter>,
            Arc::from(payload),
        )
    }

    /// A value the caller parsed: nested less than [`MAX_NESTING`] deep, as
    /// on the bytes path (checked without recursion).
    #[inline]
    pub(crate) fn validate_value(&self, value: &Value) -> Result<(), Report> {
        self.checker.validate_value(value)
    }
}

/// `jsonschema`'s verdict on a payload.
enum Verdict {
    Valid,
    Invalid,
    /// It depends on a pattern match that ran out of its backtracking
    /// budget: why.
    Undecided(String),
}

impl Checker {
    /// Whether the payload parses and `is_valid` accepts it (no report),
    /// or that this depends on an unfinished pattern match.
    #[inline]
    fn verdict(&self, payload: &[u8]) -> Verdict {
        let parsed = if self.reject_duplicate_keys {
            parse_strict(payload)
        } else {
            serde_json::from_slice::<Value>(payload)
        };
        let Ok(value) = parsed else {
            return Verdict::Invalid;
        };
        let verdict = self.on_stack(&value, |value| {
            if self.validator.is_valid(value) {
                return Verdict::Valid;
            }
            match self.unfinished(value) {
                Some(why) => Verdict::Undecided(why),
                None => Verdict::Invalid,
            }
        });
        // Too deep for this schema: refused, and its report says why.
        verdict.unwrap_or(Verdict::Invalid)
    }

    /// Runs `work` (`jsonschema` on `value`) where its recursion fits: on
    /// the caller's stack when the value nests within
    /// [`Depths::inline`] (every value, for most schemas), else on a
    /// thread of its own whose stack is [`Depths::stack_bytes`]; a value
    /// nested deeper than [`Depths::own_stack`] is not run, and the
    /// violation says why.
    #[inline]
    fn on_stack<T: Send>(
        &self,
        value: &Value,
        work: impl FnOnce(&Value) -> T + Send,
    ) -> Result<T, Violation> {
        if self.depths.inline >= MAX_NESTING {
            return Ok(work(value));
        }
        self.on_own_stack(value, work)
    }

    #[cold]
    #[inline(never)]
    fn on_own_stack<T: Send>(
        &self,
        value: &Value,
        work: impl FnOnce(&Value) -> T + Send,
    ) -> Result<T, Violation> {
        let nesting = nesting(value);
        if nesting <= self.depths.inline {
            return Ok(work(value));
        }
        let too_deep = |why: String| {
            Violation::new(
                "",
                ViolationKind::TooDeep,
                format!(
                    "the payload nests {nesting} deep, and validating it against this recursive \
                     schema could recurse more than {} subschemas deep; {why}",
                    analysis::MAX_DEPTH_OWN_STACK
                ),
            )
        };
        if nesting > self.depths.own_stack {
            return Err(too_deep(format!(
                "payloads nested more than {} deep are refused for this schema",
                self.depths.own_stack
            )));
        }
        std::thread::scope(|scope| {
            let handle = std::thread::Builder::new()
                .name("dataschema-validate".into())
                .stack_size(self.depths.stack_bytes)
                .spawn_scoped(scope, || work(value))
                .map_err(|err| {
                    too_deep(format!(
                        "no thread with a stack of {} bytes could be started to validate it: {err}",
                        self.depths.stack_bytes
                    ))
                })?;
            Ok(handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    }

    /// For a value `is_valid` refused: whether that is only because a
    /// pattern match stopped unfinished, whose outcomes disagree (then
    /// `jsonschema` reports the engine's failure, not a violation). A value
    /// invalid under every outcome is invalid.
    #[cold]
    fn unfinished(&self, value: &Value) -> Option<String> {
        if !self.backtracking {
            return None;
        }
        self.validator.iter_errors(value).find_map(|err| {
            use jsonschema::error::ValidationErrorKind as K;
            match err.kind() {
                K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } => Some(format!(
                    "a pattern match at \"{}\" ran out of its budget of {PATTERN_BACKTRACK_LIMIT} \
                     backtracks, and the verdict depends on its outcome: {}",
                    err.instance_path(),
                    bounded(&err)
                )),
                _ => None,
            }
        })
    }

    fn parse_and_check(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        let parsed = if self.reject_duplicate_keys {
            parse_strict(payload)
        } else {
            serde_json::from_slice::<Value>(payload)
        };
        match parsed {
            Ok(value) => self.check(&value),
            Err(err) => Err(vec![Violation::new(
                "",
                parse_error_kind(&err),
                format!("the payload is not JSON: {err}"),
            )]),
        }
    }

    #[inline]
    fn validate_value(&self, value: &Value) -> Result<(), Report> {
        if nests_too_deep(value, 0) {
            return Err(Report::found(vec![Violation::new(
                "",
                ViolationKind::TooDeep,
                format!(
                    "the payload is not JSON: arrays and objects nested {MAX_NESTING} deep \
                     or more (serde_json's recursion limit, kept on both guard paths)"
                ),
            )]));
        }
        let checked = self.on_stack(value, |value| {
            if self.validator.is_valid(value) {
                return Ok(());
            }
            if let Some(why) = self.unfinished(value) {
                return Err(Report::undecided_because(why));
            }
            Err(Report::found(self.report(value, &Shape::of(value))))
        });
        checked.unwrap_or_else(|too_deep| Err(Report::found(vec![too_deep])))
    }

    #[inline]
    fn check(&self, value: &Value) -> Result<(), Vec<Violation>> {
        let checked = self.on_stack(value, |value| {
            if self.validator.is_valid(value) {
                return Ok(());
            }
            Err(self.report(value, &Shape::of(value)))
        });
        checked.unwrap_or_else(|too_deep| Err(vec![too_deep]))
    }

    /// The violations of a value `is_valid` refused, within bounded memory.
    #[cold]
    fn report(&self, value: &Value, shape: &Shape) -> Vec<Violation> {
        let errors = shape.values.saturating_mul(self.errors_per_value);
        let copies = self
            .errors_per_value
            .saturating_mul(shape.bytes)
            .saturating_mul(shape.depth as u64);
        if errors <= ERROR_BUDGET && (!self.has_context || copies <= COPY_BUDGET) {
            return self
                .validator
                .iter_errors(value)
                .take(MAX_VIOLATIONS)
                .map(|err| {
                    Violation::new(err.instance_path().as_str(), kind_of(&err), bounded(&err))
                })
                .collect();
        }
        if !self.has_context {
            // `validate` stops at the first error and, without anyOf/oneOf,
            // collects nothing on the way.
            if let Err(err) = self.validator.validate(value) {
                return vec![Violation::new(
                    err.instance_path().as_str(),
                    kind_of(&err),
                    format!(
                        "{} (only the first violation is reported for a payload this large)",
                        bounded(&err)
                    ),
                )];
            }
        }
        vec![Violation::new(
            "",
            ViolationKind::Other,
            "the payload does not conform to the schema (where is not reported: for a payload \
             this large against a schema with anyOf/oneOf, the report would cost memory \
             out of proportion to the payload)",
        )]
    }
}

/// The kind of a payload that did not parse. serde_json reports a
/// duplicate key (the only error [`Strict`] raises itself) as a data error,
/// and its recursion limit as a syntax error of its own wording; everything
/// else is a syntax, end-of-input or I/O error.
fn parse_error_kind(err: &serde_json::Error) -> ViolationKind {
    if err.is_data() {
        ViolationKind::DuplicateKey
    } else if err.is_syntax() && err.to_string().starts_with("recursion limit exceeded") {
        ViolationKind::TooDeep
    } else {
        ViolationKind::NotJson
    }
}

/// The kind of one `jsonschema` error.
fn kind_of(err: &jsonschema::ValidationError<'_>) -> ViolationKind {
    use jsonschema::error::ValidationErrorKind as K;
    match err.kind() {
        K::Type { .. } => ViolationKind::Type,
        K::Required { .. } => ViolationKind::Required,
        K::Format { .. }
        | K::ContentEncoding { .. }
        | K::ContentMediaType { .. }
        | K::FromUtf8 { .. } => ViolationKind::Format,
        K::Pattern { .. } | K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } => {
            ViolationKind::Pattern
        }
        K::Enum { .. } | K::Constant { .. } => ViolationKind::Enum,
        K::Minimum { .. }
        | K::Maximum { .. }
        | K::ExclusiveMinimum { .. }
        | K::ExclusiveMaximum { .. }
        | K::MultipleOf { .. }
        | K::MinLength { .. }
        | K::MaxLength { .. }
        | K::MinItems { .. }
        | K::MaxItems { .. }
        | K::MinProperties { .. }
        | K::MaxProperties { .. }
        | K::UniqueItems
        | K::Contains => ViolationKind::Bounds,
        K::AdditionalProperties { .. }
        | K::UnevaluatedProperties { .. }
        | K::AdditionalItems { .. }
        | K::UnevaluatedItems { .. }
        | K::PropertyNames { .. } => ViolationKind::Additional,
        K::AnyOf { .. }
        | K::OneOfNotValid { .. }
        | K::OneOfMultipleValid { .. }
        | K::Not { .. }
        | K::FalseSchema => ViolationKind::Composition,
        K::Custom { .. } | K::Referencing(_) => ViolationKind::Other,
    }
}

/// The size of a payload value, measured without recursion.
/// Whether arrays and objects nest [`MAX_NESTING`] deep or more below
/// `value` (at `depth`). Recursive, but never deeper than the limit, and
/// allocation-free: the valid path of `validate_value` allocates nothing.
fn nests_too_deep(value: &Value, depth: usize) -> bool {
    let below = |child: &Value| nests_too_deep(child, depth + 1);
    match value {
        Value::Array(_) | Value::Object(_) if depth + 1 >= MAX_NESTING => true,
        Value::Array(items) => items.iter().any(below),
        Value::Object(map) => map.values().any(below),
        _ => false,
    }
}

/// How deep `value`'s arrays and objects nest: the depth of its deepest
/// value, the root at 0 (`{"a": [1]}` nests 2 deep). Without recursion.
fn nesting(value: &Value) -> usize {
    let mut deepest = 0;
    let mut open: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, depth)) = open.pop() {
        deepest = deepest.max(depth);
        match value {
            Value::Array(items) => open.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(map) => open.extend(map.values().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    deepest
}

struct Shape {
    /// Values (scalars, arrays, objects), the root included.
    values: u64,
    /// How deep arrays and objects nest (a scalar is 0).
    depth: usize,
    /// About how many bytes the value takes as JSON.
    bytes: u64,
}

impl Shape {
    /// Walks `value` with one iterator per open array or object (memory
    /// in proportion to the depth, stopping once it reaches the limit).
    fn of(value: &Value) -> Shape {
        enum Members<'a> {
            Array(std::slice::Iter<'a, Value>),
            Object(serde_json::map::Iter<'a>),
        }
        let mut shape = Shape {
            values: 0,
            depth: 0,
            bytes: 0,
        };
        let mut open: Vec<Members<'_>> = Vec::new();
        let mut next = Some(value);
        loop {
            if let Some(value) = next.take() {
                shape.values += 1;
                shape.bytes += 4;
                match value {
                    Value::Array(items) => open.push(Members::Array(items.iter())),
                    Value::Object(map) => open.push(Members::Object(map.iter())),
                    Value::String(text) => shape.bytes += text.len() as u64,
                    _ => shape.bytes += 8,
                }
                shape.depth = shape.depth.max(open.len());
                if shape.depth >= MAX_NESTING {
                    // Deep enough to refuse; the rest need not be measured.
                    return shape;
                }
            }
            let Some(members) = open.last_mut() else {
                return shape;
            };
            next = match members {
                Members::Array(items) => items.next(),
                Members::Object(map) => map.next().map(|(key, item)| {
                    shape.bytes += key.len() as u64 + 3;
                    item
                }),
            };
            if next.is_none() {
                open.pop();
            }
        }
    }
}

/// `err`'s message, cut at [`MAX_MESSAGE`] bytes without formatting the rest.
fn bounded(err: &dyn fmt::Display) -> String {
    struct Cut {
        text: String,
        full: bool,
    }
    impl fmt::Write for Cut {
        fn write_str(&mut self, text: &str) -> fmt::Result {
            if self.full {
                return Err(fmt::Error);
            }
            let room = MAX_MESSAGE.saturating_sub(self.text.len());
            if text.len() <= room {
                self.text.push_str(text);
                return Ok(());
            }
            let mut end = room;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&text[..end]);
            self.text.push('…');
            self.full = true;
            Err(fmt::Error)
        }
    }
    let mut cut = Cut {
        text: String::new(),
        full: false,
    };
    let _ = write!(cut, "{err}");
    cut.text
}

/// A JSON value parsed as `serde_json::Value` is, refusing an object that
/// names a key twice (`GuardBuilder::reject_duplicate_keys`).
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value()?;
            match object.entry(key) {
                serde_json::map::Entry::Vacant(entry) => {
                    entry.insert(value);
                }
                serde_json::map::Entry::Occupied(entry) => {
                    return Err(serde::de::Error::custom(format_args!(
                        "duplicate key {:?} (this guard refuses payloads naming a key twice)",
                        crate::text::clip(entry.key(), 100)
                    )));
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// The payload parsed refusing duplicate keys: out of line, so the default
/// path's parse stays as the bare `serde_json::from_slice` compiles it.
#[cold]
#[inline(never)]
fn parse_strict(payload: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice::<Strict>(payload).map(|strict| strict.0)
}
