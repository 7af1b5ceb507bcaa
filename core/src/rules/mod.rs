//! Data contracts run: the domain rules a version carries (Confluent's
//! `ruleSet.domainRules`), compiled once per version and run on each
//! payload a consumer reads.
//!
//! What runs, as Confluent's clients run it
//! (`AbstractKafkaSchemaSerDe.executeRules` in Confluent's
//! schema-registry): on read, the rules of mode `READ` and `WRITEREAD`, in
//! reverse order; a `disabled` rule, or a rule set whose `enableAt` is
//! `NONE`, `SERVER` or `GATEWAY` (the guard is a client), is skipped.
//!
//! * `CEL` (`CelExecutor`): a condition over `message`, the payload; an
//!   expression `guard; body` runs the body only when the guard is `true`
//!   (a guard that errs is `false`, and the condition then holds), unless
//!   the rule's param `cel.ignore.guard.separator` is `true`.
//! * `CEL_FIELD` (`CelFieldExecutor`, `FieldRuleExecutor`): a condition
//!   run on each primitive field the rule's `tags` select (no tags: every
//!   field), with `value`, `name`, `fullName`, `typeName`, `tags` and
//!   `message` (the object holding the field) bound. JSON payloads are
//!   walked beside their schema (`field.rs`); Avro and protobuf payloads
//!   are read into the form Confluent's deserializers hand their rules
//!   ([`PayloadForm`], from `Compiled::payload_form`) and walked beside
//!   their schema (`avro/form.rs`, `protobuf/form.rs`).
//! * A condition fails when it gives `false` or cannot be evaluated on the
//!   payload (Confluent's `RuleConditionException` and `RuleException`):
//!   its `onFailure` action decides, `ERROR` when unset. Any other result
//!   passes, as `Boolean.FALSE.equals(output)` is Confluent's test.
//! * `TRANSFORM` rules rewrite a message: a guard's verdict does not run
//!   them (it judges the payload as written); [`ReadRules::transform_bytes`]
//!   does, as `Guard::read_as` hands a payload back: a `CEL` transform's
//!   result replaces the message, a `CEL_FIELD` one's each field it
//!   reaches (masking), and the payload is written back in its own
//!   encoding. Of two field transforms with the same tags, mode and type,
//!   only the first in the rule set runs, as Confluent's
//!   `FieldRuleExecutor.transform` keeps it.
//!
//! A rule that cannot run at all (a type with no executor here, an
//! expression that does not compile, a payload language no executor
//! binds) is reported as [`RuleOutcome::Unusable`]: the guard fails open,
//! counted, unless its `onFailure` is `ERROR` or `DLQ`.
//!
//! Rules are outside input: an expression is at most [`MAX_EXPR_BYTES`]
//! bytes and [`MAX_EXPR_DEPTH`] deep, and a comprehension inside another
//! must range over a part of the enclosing one's element. A CEL rule
//! that can cost more than a small multiple of what it reads (a
//! comprehension reading a value from outside its element) is bounded
//! on each payload before it runs, against `EVAL_BUDGET` (`cost.rs`, with
//! the `cel` feature).

#[cfg_attr(not(feature = "cel"), allow(dead_code))]
mod field;
pub mod form;
mod model;

#[cfg(feature = "cel")]
mod cel;
#[cfg(feature = "cel")]
mod cost;
#[cfg(feature = "cel")]
pub use self::cost::{
    EVAL_BUDGET, LINEAR_BODY, MATCH_STEPS, MAX_REGEX_BYTES, MAX_RULE_REGEX_BYTES, REGEX_STEPS,
};

#[cfg(feature = "jsonata")]
pub mod jsonata;
mod migrate;

pub use self::form::{FieldSite, PayloadForm, Reading};
pub use self::migrate::{chain as migration_chain, chain_with_forms, has_migration_rules, Chain};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;

pub use self::model::{Rule, RuleAction, RuleError, RuleKind, RuleMode, MAX_RULE_NAME};
use crate::schema::{Language, Schema};

/// The longest rule expression, in bytes.
pub const MAX_EXPR_BYTES: usize = 4096;

/// The deepest rule expression: nested calls, operators, selections.
pub const MAX_EXPR_DEPTH: usize = 48;

/// Every rule of a version's rule set, typed, in Confluent's order
/// (migration, domain, encoding), or the first that is malformed.
pub fn parse_rules(schema: &Schema) -> Result<Vec<Rule>, RuleError> {
    let Some(set) = schema.rule_set() else {
        return Ok(Vec::new());
    };
    set.migration_rules
        .iter()
        .chain(&set.domain_rules)
        .chain(&set.encoding_rules)
        .map(Rule::from_json)
        .collect()
}

/// Checks every rule of a version as a build does: each parses, and each
/// `CEL` or `CEL_FIELD` expression compiles within the bounds (with the
/// `cel` feature; without it, a CEL rule is refused saying so), and each
/// `JSONATA` one too (feature `jsonata`). Rules of
/// other types are parsed only. Every problem is returned, each naming
/// its rule.
pub fn check(schema: &Schema) -> Vec<RuleError> {
    let Some(set) = schema.rule_set() else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for value in set
        .migration_rules
        .iter()
        .chain(&set.domain_rules)
        .chain(&set.encoding_rules)
    {
        match Rule::from_json(value) {
            Ok(rule) => {
                if rule.rule_type().eq_ignore_ascii_case("JSONATA") {
                    let why = match rule.expr() {
                        None => Some("a JSONATA rule needs an expr".to_owned()),
                        Some(expr) => migrate::check_jsonata(expr),
                    };
                    if let Some(why) = why {
                        problems.push(RuleError::new(Some(rule.name()), why));
                    }
                    continue;
                }
                #[allow(irrefutable_let_patterns)] // without `cel`, nothing compiles
                if let Executor::Cannot(why) = Executor::compile(&rule) {
                    if matches!(rule.rule_type(), "CEL" | "CEL_FIELD") {
                        problems.push(RuleError::new(Some(rule.name()), why));
                    }
                }
            }
            Err(error) => problems.push(error),
        }
    }
    problems
}

/// Checks a version's rules against its schema, as a build does, beyond
/// [`check`]: a `CEL` rule's selections below `message` name fields the
/// schema has, at every level (`message.customer.email`, and `i.sku` in
/// `message.items.all(i, ..)`; a JSON Schema's fields are the
/// `properties` it lists, and a schema listing none, or taking others
/// by `patternProperties` or `additionalProperties`, is not checked
/// below); a `CEL_FIELD` rule's tags are carried by some field (in the
/// schema, or by the version's `metadata.tags`); and each
/// `metadata.tags` path matches some field's full name (Avro and
/// protobuf: the record's or message's full name and the field's,
/// `acme.Order.email`; JSON Schema: the path from the root,
/// `$.customer.email`, `$.items[0].sku`). Each problem names its rule
/// (or path) and where in the expression.
pub fn check_against(schema: &Schema, form: Option<&dyn PayloadForm>) -> Vec<RuleError> {
    let mut problems = Vec::new();
    let metadata_tags = schema
        .metadata()
        .map(|m| m.tags.clone())
        .unwrap_or_default();
    let document: Option<Value> = match schema.language() {
        Language::JsonSchema => serde_json::from_slice(schema.bytes()).ok(),
        _ => None,
    };
    // Every field by its full name, with its tags; `None` when the
    // schema's fields cannot all be listed.
    let fields: Option<BTreeMap<String, Vec<String>>> = match (&document, form) {
        (Some(doc), _) => field::json_fields(doc),
        (None, Some(form)) => Some(form.fields()),
        (None, None) => None,
    };
    let mut carried: BTreeSet<&str> = fields
        .iter()
        .flat_map(|fields| fields.values().flatten())
        .map(String::as_str)
        .collect();
    for (pattern, tags) in &metadata_tags {
        let matched = match (&fields, &document) {
            (None, _) => true,
            (Some(fields), Some(_)) => field::json_pattern_matches(fields, pattern),
            (Some(fields), None) => fields
                .keys()
                .any(|name| field::wildcard_match(name, pattern)),
        };
        if let (false, Some(fields)) = (matched, &fields) {
            let naming = if document.is_some() {
                "by their path from the root"
            } else {
                "by their record's full name"
            };
            problems.push(RuleError::new(
                None,
                format!(
                    "metadata.tags path {:?} matches no field of {} (its fields are named \
                     {naming}: {})",
                    crate::text::clip(pattern, 120),
                    schema.urn(),
                    fields
                        .keys()
                        .take(6)
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if matched {
            carried.extend(tags.iter().map(String::as_str));
        }
    }
    let Some(set) = schema.rule_set() else {
        return problems;
    };
    for value in &set.domain_rules {
        let Ok(rule) = Rule::from_json(value) else {
            continue; // `check` reports it
        };
        match (rule.rule_type(), rule.expr()) {
            #[cfg(feature = "cel")]
            ("CEL", Some(expr)) => {
                problems.extend(unknown_fields(schema, &rule, expr, document.as_ref(), form));
            }
            ("CEL_FIELD", _)
                if !rule.tags().is_empty()
                    && fields.is_some()
                    && rule
                        .tags()
                        .iter()
                        .all(|tag| !carried.contains(tag.as_str())) =>
            {
                let tags: Vec<&str> = rule.tags().iter().map(String::as_str).collect();
                problems.push(RuleError::new(
                    Some(rule.name()),
                    format!(
                        "its tags {tags:?} are carried by no field of {} (neither in the \
                         schema nor in its metadata.tags): the rule would never run",
                        schema.urn()
                    ),
                ));
            }
            _ => {}
        }
    }
    problems
}

/// The selections of a `CEL` rule's `expr` below `message` that name a
/// field the schema does not have, one problem each.
#[cfg(feature = "cel")]
fn unknown_fields(
    schema: &Schema,
    rule: &Rule,
    expr: &str,
    document: Option<&Value>,
    form: Option<&dyn PayloadForm>,
) -> Vec<RuleError> {
    let split_guard = rule
        .params()
        .get("cel.ignore.guard.separator")
        .is_none_or(|yes| !yes.eq_ignore_ascii_case("true"));
    let Ok(paths) = cel::message_paths(expr, split_guard) else {
        return Vec::new(); // `check` reports it
    };
    let shown = |steps: &[&str]| {
        steps.iter().fold("message".to_owned(), |mut out, step| {
            if *step == form::ITEM {
                out.push_str("[]");
            } else {
                out.push('.');
                out.push_str(step);
            }
            out
        })
    };
    let mut reported = BTreeSet::new();
    let mut problems = Vec::new();
    for path in &paths {
        let steps: Vec<&str> = path.iter().map(String::as_str).collect();
        let missing = match (document, form) {
            (Some(doc), _) => field::json_missing_step(doc, &steps),
            (None, Some(form)) => form.missing_step(&steps),
            (None, None) => None,
        };
        let Some(at) = missing else {
            continue;
        };
        // A missing field is reported once, not once a path below it.
        if !reported.insert(steps[..=at].to_vec()) {
            continue;
        }
        let place = if at == 0 {
            "at its root".to_owned()
        } else {
            format!("in {}", shown(&steps[..at]))
        };
        problems.push(RuleError::new(
            Some(rule.name()),
            format!(
                "expr {:?} reads {}, and {} has no field {:?} {place}",
                crate::text::clip(expr, 120),
                shown(&steps[..=at]),
                schema.urn(),
                steps[at],
            ),
        ));
    }
    problems
}

/// The nodes of `value` (a string of `n` bytes weighs `1 + n / 64`),
/// counted until they pass `cap`: what JSONata's step budget and CEL's
/// cost bound ([`EVAL_BUDGET`]) count for a value.
#[cfg(any(feature = "cel", feature = "jsonata"))]
pub(crate) fn weight(value: &Value, cap: u64) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        total += match value {
            Value::String(s) => 1 + s.len() as u64 / 64,
            Value::Array(items) => {
                stack.extend(items);
                1
            }
            Value::Object(map) => {
                stack.extend(map.values());
                1
            }
            _ => 1,
        };
        if total > cap {
            break;
        }
    }
    total
}

/// A rule compiled for its executor.
enum Executor {
    #[cfg(feature = "cel")]
    Cel(cel::Cel),
    #[cfg(feature = "cel")]
    CelField(cel::Cel),
    /// Cannot run here, and why.
    Cannot(String),
}

impl Executor {
    fn compile(rule: &Rule) -> Executor {
        let split_guard = rule
            .params()
            .get("cel.ignore.guard.separator")
            .is_none_or(|yes| !yes.eq_ignore_ascii_case("true"));
        let _ = split_guard;
        match rule.rule_type() {
            #[cfg(feature = "cel")]
            kind @ ("CEL" | "CEL_FIELD") => {
                let Some(expr) = rule.expr() else {
                    return Executor::Cannot("a CEL rule needs an expr".to_owned());
                };
                match cel::Cel::compile(expr, split_guard, kind == "CEL_FIELD") {
                    Ok(program) if kind == "CEL" => Executor::Cel(program),
                    Ok(program) => Executor::CelField(program),
                    Err(why) => Executor::Cannot(format!(
                        "expr {:?} does not compile: {why}",
                        crate::text::clip(expr, 120)
                    )),
                }
            }
            #[cfg(not(feature = "cel"))]
            "CEL" | "CEL_FIELD" => Executor::Cannot(
                "CEL rules run with the `cel` feature, which this build does not have".to_owned(),
            ),
            other => Executor::Cannot(format!(
                "no executor for rules of type {:?} (this guard runs CEL and CEL_FIELD)",
                crate::text::clip(other, 40)
            )),
        }
    }
}

struct Prepared {
    rule: Rule,
    executor: Executor,
}

/// The domain rules of one version that run on read, compiled: what a
/// guard keeps beside the version's validator.
#[cfg_attr(not(feature = "cel"), allow(dead_code))]
pub struct ReadRules {
    /// The conditions (and the rules that cannot run), in the order they
    /// run.
    rules: Vec<Prepared>,
    /// The transforms that run when a payload is handed back, in order.
    transforms: Vec<Prepared>,
    language: Language,
    /// The JSON Schema document, for field rules.
    schema: Option<Value>,
    /// An Avro or protobuf payload's form.
    form: Option<Arc<dyn PayloadForm>>,
    metadata_tags: BTreeMap<String, BTreeSet<String>>,
}

impl std::fmt::Debug for ReadRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadRules")
            .field(
                "rules",
                &self.rules.iter().map(|p| p.rule.name()).collect::<Vec<_>>(),
            )
            .field(
                "transforms",
                &self
                    .transforms
                    .iter()
                    .map(|p| p.rule.name())
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// Why a rule failed, or could not run: enough to name it in a
/// violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleFailure {
    /// The rule's name.
    pub rule: String,
    /// Its kind.
    pub kind: RuleKind,
    /// Its type (`CEL`, `CEL_FIELD`, ...).
    pub rule_type: String,
    /// Its expression, clipped.
    pub expr: String,
    /// Where in the payload (a field rule's field, `$.a.b`); empty for the
    /// whole message.
    pub path: String,
    /// What happened, in words.
    pub message: String,
    /// The action that applies (`onFailure`, or `onSuccess` for a rule
    /// whose success action refuses): `None` when the rule leaves it
    /// unset.
    pub action: Option<RuleAction>,
}

/// What running a version's read rules on a payload gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleOutcome {
    /// No rule refused the payload; `ignored` rules failed with action
    /// `NONE`.
    Pass {
        /// Failures whose action is `NONE`.
        ignored: u32,
    },
    /// A rule refused the payload (`ERROR`, `DLQ`, or another action
    /// name, which a guard treats as `ERROR`).
    Refused(RuleFailure),
    /// A rule could not run (see the module docs).
    Unusable(RuleFailure),
}

impl ReadRules {
    /// The rules of `schema` that run on read, compiled; `Ok(None)` when
    /// there are none. `Err` when the rule set is malformed (a rule
    /// Confluent would refuse). Field rules reach JSON Schema payloads
    /// only: see [`compile_for`](ReadRules::compile_for).
    pub fn compile(schema: &Schema) -> Result<Option<ReadRules>, RuleError> {
        ReadRules::compile_for(schema, None)
    }

    /// [`compile`](ReadRules::compile), with the form an Avro or protobuf
    /// payload is read in (`Compiled::payload_form`), so that its rules
    /// reach its fields.
    pub fn compile_for(
        schema: &Schema,
        form: Option<Arc<dyn PayloadForm>>,
    ) -> Result<Option<ReadRules>, RuleError> {
        let Some(set) = schema.rule_set() else {
            return Ok(None);
        };
        if matches!(
            set.enable_at.as_deref(),
            Some("NONE" | "SERVER" | "GATEWAY")
        ) {
            return Ok(None);
        }
        // Encoding rules (`ENCRYPT_PAYLOAD`) run on the payload's bytes
        // before it is read (Confluent's `RulePhase.ENCODING`): none has
        // an executor here, so a payload of such a version is not the
        // schema's until a client decodes it. The version fails open.
        for value in &set.encoding_rules {
            let rule = Rule::from_json(value)?;
            if !rule.disabled() && rule.mode().runs_on_read() {
                return Err(RuleError::new(
                    Some(rule.name()),
                    format!(
                        "no executor for encoding rules of type {:?}: the payload is encoded \
                         before the schema reads it",
                        crate::text::clip(rule.rule_type(), 40)
                    ),
                ));
            }
        }
        let all = set
            .domain_rules
            .iter()
            .map(Rule::from_json)
            .collect::<Result<Vec<_>, _>>()?;
        let mut rules = Vec::new();
        let mut transforms = Vec::new();
        for (i, rule) in all.iter().enumerate().rev() {
            if rule.disabled() || !rule.mode().runs_on_read() {
                continue;
            }
            let executor = Executor::compile(rule);
            let cannot = matches!(executor, Executor::Cannot(_));
            let prepared = Prepared {
                rule: rule.clone(),
                executor,
            };
            if rule.kind() == RuleKind::Transform && !cannot {
                // Confluent's FieldRuleExecutor.transform: a field
                // transform is passed over when one before it in the rule
                // set (after it in the reversed order of a read) is a
                // transform with the same tags, mode and type.
                let shadowed = rule.rule_type() == "CEL_FIELD"
                    && all[..i]
                        .iter()
                        .any(|later| same_tagged_transform(rule, later));
                if !shadowed {
                    transforms.push(prepared);
                }
                continue;
            }
            rules.push(prepared);
        }
        if rules.is_empty() && transforms.is_empty() {
            return Ok(None);
        }
        let schema_json = match schema.language() {
            Language::JsonSchema => serde_json::from_slice(schema.bytes()).ok(),
            _ => None,
        };
        Ok(Some(ReadRules {
            rules,
            transforms,
            language: schema.language(),
            schema: schema_json,
            form,
            metadata_tags: schema
                .metadata()
                .map(|metadata| metadata.tags.clone())
                .unwrap_or_default(),
        }))
    }

    /// Whether the version has transforms that rewrite a payload handed
    /// back ([`transform_bytes`](ReadRules::transform_bytes)).
    pub fn has_transforms(&self) -> bool {
        !self.transforms.is_empty()
    }

    /// The transforms, in the order they run.
    pub fn transforms(&self) -> impl Iterator<Item = &Rule> {
        self.transforms.iter().map(|p| &p.rule)
    }

    /// The rules, in the order they run.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|p| &p.rule)
    }

    /// Runs the conditions on a payload's bytes (already validated): a
    /// JSON Schema payload's text, an Avro datum, a protobuf message
    /// body.
    pub fn run_bytes(&self, payload: &[u8]) -> RuleOutcome {
        if self.rules.is_empty() {
            return RuleOutcome::Pass { ignored: 0 };
        }
        match self.read(payload) {
            Ok(mut value) => self.run_mut(&mut value),
            Err(why) => self.unusable_all(&self.rules, &why),
        }
    }

    /// The payload as the rules see it.
    fn read(&self, payload: &[u8]) -> Result<Value, String> {
        match (&self.form, self.language) {
            (_, Language::JsonSchema) => serde_json::from_slice::<Value>(payload)
                .map_err(|error| format!("the payload does not read as JSON: {error}")),
            (Some(form), _) => form.decode(payload, Reading::Rules),
            (None, language) => Err(format!(
                "the rules of this {} schema have no form to read its payload in",
                language.as_str()
            )),
        }
    }

    /// Runs the transforms on a payload's bytes and writes the result back
    /// in the payload's encoding: `Ok(None)` when the version has none.
    /// `Err` holds the outcome of a transform that failed and whose
    /// action refuses the payload ([`RuleOutcome::Refused`]) or that
    /// could not run ([`RuleOutcome::Unusable`]).
    #[cfg_attr(
        not(feature = "cel"),
        allow(unreachable_code, unused_variables, unused_mut)
    )]
    pub fn transform_bytes(&self, payload: &[u8]) -> Result<Option<Vec<u8>>, Box<RuleOutcome>> {
        if self.transforms.is_empty() {
            return Ok(None);
        }
        let mut message = self
            .read(payload)
            .map_err(|why| Box::new(self.unusable_all(&self.transforms, &why)))?;
        for prepared in &self.transforms {
            let rule = &prepared.rule;
            let result: Result<(), (String, String)> = match &prepared.executor {
                Executor::Cannot(why) => Err((String::new(), why.clone())),
                #[cfg(feature = "cel")]
                Executor::Cel(program) => self.transform_cel(rule, program, &mut message),
                #[cfg(feature = "cel")]
                Executor::CelField(program) => {
                    self.transform_cel_field(rule, program, &mut message)
                }
            };
            if let Err((path, why)) = result {
                let action = rule.on_failure(RuleMode::Read).or(Some(RuleAction::Error));
                if action == Some(RuleAction::None) {
                    continue;
                }
                return Err(Box::new(RuleOutcome::Refused(
                    self.failure(rule, &path, why, action),
                )));
            }
        }
        let written = match (&self.form, self.language) {
            (_, Language::JsonSchema) => serde_json::to_vec(&message).map_err(|e| e.to_string()),
            (Some(form), _) => form.encode(&message),
            (None, _) => Err("no form to write the payload in".to_owned()),
        };
        match written {
            Ok(bytes) => Ok(Some(bytes)),
            Err(why) => {
                let prepared = &self.transforms[self.transforms.len() - 1];
                let message = format!("the transformed message does not write back: {why}");
                Err(Box::new(RuleOutcome::Refused(self.failure(
                    &prepared.rule,
                    "",
                    message,
                    Some(RuleAction::Error),
                ))))
            }
        }
    }

    /// Runs the rules on a payload read as JSON.
    // Without `cel`, every rule is `Cannot` and returns at once.
    #[cfg_attr(
        not(feature = "cel"),
        allow(unreachable_code, unused_variables, unused_mut, clippy::never_loop)
    )]
    pub fn run(&self, message: &Value) -> RuleOutcome {
        if self.language != Language::JsonSchema {
            return self.unusable_all(
                &self.rules,
                "a payload parsed as JSON is read by JSON Schema rules only",
            );
        }
        self.run_json(message, None)
    }

    /// Runs the conditions on a payload as the rules see it; a form's
    /// walk takes the value mutably (the same walk transforms use), and
    /// conditions leave it as it is.
    fn run_mut(&self, message: &mut Value) -> RuleOutcome {
        if self.form.is_some() && self.language != Language::JsonSchema {
            let frozen = message.clone();
            return self.run_json(&frozen, Some(message));
        }
        self.run_json(message, None)
    }

    #[cfg_attr(
        not(feature = "cel"),
        allow(unreachable_code, unused_variables, unused_mut, clippy::never_loop)
    )]
    fn run_json(&self, message: &Value, mut walked: Option<&mut Value>) -> RuleOutcome {
        let mut ignored = 0;
        for prepared in &self.rules {
            let rule = &prepared.rule;
            let result: Result<(), (String, String)> = match &prepared.executor {
                Executor::Cannot(why) => {
                    let failure =
                        self.failure(rule, "", why.clone(), rule.on_failure(RuleMode::Read));
                    match failure.action {
                        Some(RuleAction::Error | RuleAction::Dlq) => {
                            return RuleOutcome::Refused(failure)
                        }
                        _ => return RuleOutcome::Unusable(failure),
                    }
                }
                #[cfg(feature = "cel")]
                Executor::Cel(program) => self.run_cel(rule, program, message),
                #[cfg(feature = "cel")]
                Executor::CelField(program) => match walked.as_deref_mut() {
                    Some(value) => self.run_cel_field_form(rule, program, value, false),
                    None => self.run_cel_field(rule, program, message),
                },
            };
            let action = match &result {
                Ok(()) => rule.on_success(RuleMode::Read),
                Err(_) => rule.on_failure(RuleMode::Read).or(Some(RuleAction::Error)),
            };
            match (result, action) {
                (Ok(()), None | Some(RuleAction::None)) => {}
                (Ok(()), Some(action)) => {
                    return RuleOutcome::Refused(self.failure(
                        rule,
                        "",
                        format!(
                            "the rule held, and its onSuccess action is {}",
                            action.as_str()
                        ),
                        Some(action),
                    ))
                }
                (Err(_), Some(RuleAction::None)) => ignored += 1,
                (Err((path, why)), action) => {
                    return RuleOutcome::Refused(self.failure(rule, &path, why, action))
                }
            }
        }
        RuleOutcome::Pass { ignored }
    }

    fn unusable_all(&self, rules: &[Prepared], why: &str) -> RuleOutcome {
        let Some(first) = rules.first() else {
            return RuleOutcome::Pass { ignored: 0 };
        };
        let rule = &first.rule;
        let failure = self.failure(rule, "", why.to_owned(), rule.on_failure(RuleMode::Read));
        match failure.action {
            Some(RuleAction::Error | RuleAction::Dlq) => RuleOutcome::Refused(failure),
            _ => RuleOutcome::Unusable(failure),
        }
    }

    fn failure(
        &self,
        rule: &Rule,
        path: &str,
        message: String,
        action: Option<RuleAction>,
    ) -> RuleFailure {
        RuleFailure {
            rule: rule.name().to_owned(),
            kind: rule.kind(),
            rule_type: rule.rule_type().to_owned(),
            expr: crate::text::clip(rule.expr().unwrap_or_default(), 200),
            path: path.to_owned(),
            message,
            action,
        }
    }

    #[cfg(feature = "cel")]
    fn run_cel(
        &self,
        rule: &Rule,
        program: &cel::Cel,
        message: &Value,
    ) -> Result<(), (String, String)> {
        let value = ::cel::to_value(message).map_err(|e| (String::new(), e.to_string()))?;
        let outcome = program.eval(
            &mut cel::Budget::default(),
            |name| message_bound(name, message),
            |ctx| ctx.add_variable_from_value("message", value.clone()),
        );
        judge(rule, outcome).map_err(|why| (String::new(), why))
    }

    /// The tags of a field of an Avro or protobuf payload: its own, and
    /// the version's `metadata.tags` whose path matches its full name
    /// (Confluent's `RuleContext.enter_field`).
    #[cfg(feature = "cel")]
    fn site_tags(&self, site: &FieldSite<'_>) -> BTreeSet<String> {
        let mut tags: BTreeSet<String> = site.inline_tags.iter().cloned().collect();
        for (pattern, more) in &self.metadata_tags {
            if field::wildcard_match(site.full_name, pattern) {
                tags.extend(more.iter().cloned());
            }
        }
        tags
    }

    /// A `CEL_FIELD` rule over an Avro or protobuf payload's fields: a
    /// condition judges each, a transform replaces each by its result.
    #[cfg(feature = "cel")]
    fn run_cel_field_form(
        &self,
        rule: &Rule,
        program: &cel::Cel,
        message: &mut Value,
        transform: bool,
    ) -> Result<(), (String, String)> {
        let Some(form) = &self.form else {
            return Err((String::new(), "no form to read the payload in".to_owned()));
        };
        let mut holder: Option<(*const Value, ::cel::Value)> = None;
        let mut budget = cel::Budget::default();
        let mut visit = |site: &FieldSite<'_>, value: &mut Value| -> Result<(), (String, String)> {
            let tags = self.site_tags(site);
            if !rule.tags().is_empty() && rule.tags().is_disjoint(&tags) {
                return Ok(());
            }
            let key = site.message as *const Value;
            let holding = match &holder {
                Some((at, value)) if *at == key => value.clone(),
                _ => {
                    let converted = ::cel::to_value(site.message)
                        .map_err(|e| (site.path.to_owned(), e.to_string()))?;
                    holder = Some((key, converted.clone()));
                    converted
                }
            };
            let bound =
                ::cel::to_value(&*value).map_err(|e| (site.path.to_owned(), e.to_string()))?;
            let tags: Vec<::cel::Value> = tags.iter().map(|t| t.as_str().into()).collect();
            let sizes = |name: &str| {
                field_bound(
                    name,
                    &*value,
                    site.message,
                    site.name,
                    site.full_name,
                    site.type_name,
                    tags.len(),
                )
            };
            let outcome = program.eval(&mut budget, sizes, |ctx| {
                ctx.add_variable_from_value("value", bound.clone());
                ctx.add_variable_from_value("name", site.name);
                ctx.add_variable_from_value("fullName", site.full_name);
                ctx.add_variable_from_value("typeName", site.type_name);
                ctx.add_variable_from_value("tags", tags.clone());
                ctx.add_variable_from_value("message", holding.clone());
            });
            if !transform {
                return judge(rule, outcome).map_err(|why| (site.path.to_owned(), why));
            }
            match outcome {
                Ok(cel::Eval::Guarded) => Ok(()),
                Ok(cel::Eval::Value(result)) => {
                    *value = cel_to_json(&result).map_err(|why| {
                        (
                            site.path.to_owned(),
                            format!("{} rule {}: {why}", rule.rule_type(), rule.name()),
                        )
                    })?;
                    Ok(())
                }
                Err(why) => Err((
                    site.path.to_owned(),
                    format!(
                        "{} rule {} could not be evaluated: {}",
                        rule.rule_type(),
                        rule.name(),
                        crate::text::clip(&why, 200)
                    ),
                )),
            }
        };
        form.walk(message, &mut visit)
    }

    /// A `CEL` transform: its result replaces the message (a `null`
    /// result fails it, as Confluent's `_execute_rules` runs `onFailure`
    /// for a message that became `None`).
    #[cfg(feature = "cel")]
    fn transform_cel(
        &self,
        rule: &Rule,
        program: &cel::Cel,
        message: &mut Value,
    ) -> Result<(), (String, String)> {
        let bound = ::cel::to_value(&*message).map_err(|e| (String::new(), e.to_string()))?;
        let outcome = program.eval(
            &mut cel::Budget::default(),
            |name| message_bound(name, message),
            |ctx| ctx.add_variable_from_value("message", bound.clone()),
        );
        let failed = |why: String| {
            (
                String::new(),
                format!("{} rule {} {why}", rule.rule_type(), rule.name()),
            )
        };
        match outcome {
            Ok(cel::Eval::Guarded) => Ok(()),
            Ok(cel::Eval::Value(::cel::Value::Null)) => Err(failed("gives no message".to_owned())),
            Ok(cel::Eval::Value(result)) => {
                *message = cel_to_json(&result).map_err(failed)?;
                Ok(())
            }
            Err(why) => Err(failed(format!(
                "could not be evaluated: {}",
                crate::text::clip(&why, 200)
            ))),
        }
    }

    /// A `CEL_FIELD` transform over any payload's fields: a JSON
    /// payload's fields are walked beside its schema and replaced by
    /// their JSON pointers once the walk is done.
    #[cfg(feature = "cel")]
    fn transform_cel_field(
        &self,
        rule: &Rule,
        program: &cel::Cel,
        message: &mut Value,
    ) -> Result<(), (String, String)> {
        if self.language != Language::JsonSchema {
            return self.run_cel_field_form(rule, program, message, true);
        }
        let Some(root) = &self.schema else {
            return Err((String::new(), "the schema does not read as JSON".to_owned()));
        };
        let mut replaced: Vec<(String, Value)> = Vec::new();
        let mut holder = None;
        let mut budget = cel::Budget::default();
        let mut walk = field::Walk {
            root,
            metadata_tags: &self.metadata_tags,
            rule_tags: rule.tags(),
            _value: std::marker::PhantomData,
            visit: |field: field::Field<'_>| -> Result<(), (String, String)> {
                let at = || field.full_name.to_owned();
                let outcome = eval_json_field(program, &mut budget, &mut holder, &field)?;
                match outcome {
                    Ok(cel::Eval::Guarded) => Ok(()),
                    Ok(cel::Eval::Value(result)) => {
                        let value = cel_to_json(&result).map_err(|why| (at(), why))?;
                        replaced.push((field.pointer.to_owned(), value));
                        Ok(())
                    }
                    Err(why) => Err((
                        at(),
                        format!(
                            "{} rule {} could not be evaluated: {}",
                            rule.rule_type(),
                            rule.name(),
                            crate::text::clip(&why, 200)
                        ),
                    )),
                }
            },
        };
        walk.run(&*message)?;
        for (pointer, value) in replaced {
            if let Some(slot) = message.pointer_mut(&pointer) {
                *slot = value;
            }
        }
        Ok(())
    }

    #[cfg(feature = "cel")]
    fn run_cel_field(
        &self,
        rule: &Rule,
        program: &cel::Cel,
        message: &Value,
    ) -> Result<(), (String, String)> {
        let Some(root) = &self.schema else {
            return Err((String::new(), "the schema does not read as JSON".to_owned()));
        };
        let mut holder = None;
        let mut budget = cel::Budget::default();
        let mut walk = field::Walk {
            root,
            metadata_tags: &self.metadata_tags,
            rule_tags: rule.tags(),
            _value: std::marker::PhantomData,
            visit: |field: field::Field<'_>| -> Result<(), (String, String)> {
                let outcome = eval_json_field(program, &mut budget, &mut holder, &field)?;
                judge(rule, outcome).map_err(|why| (field.full_name.to_owned(), why))
            },
        };
        walk.run(message)
    }
}

/// A `CEL_FIELD` rule evaluated on one field of a JSON payload: `value`,
/// `name`, `fullName`, `typeName`, `tags` and `message` (the object
/// holding the field) bound as Confluent binds them, within what is left
/// of `budget`. `holder` keeps the last holding object converted, so that
/// each is converted once, not once a field. A value that does not
/// convert is an error at the field's name.
#[cfg(feature = "cel")]
fn eval_json_field(
    program: &cel::Cel,
    budget: &mut cel::Budget,
    holder: &mut Option<(*const Value, ::cel::Value)>,
    field: &field::Field<'_>,
) -> Result<Result<cel::Eval, String>, (String, String)> {
    let at = || field.full_name.to_owned();
    let key = field.message as *const Value;
    let message = match holder {
        Some((held, value)) if *held == key => value.clone(),
        _ => {
            let value = ::cel::to_value(field.message).map_err(|e| (at(), e.to_string()))?;
            *holder = Some((key, value.clone()));
            value
        }
    };
    let value = ::cel::to_value(field.value).map_err(|e| (at(), e.to_string()))?;
    let tags: Vec<::cel::Value> = field.tags.iter().map(|t| t.as_str().into()).collect();
    let sizes = |name: &str| {
        field_bound(
            name,
            field.value,
            field.message,
            field.name,
            field.full_name,
            field.type_name,
            tags.len(),
        )
    };
    Ok(program.eval(budget, sizes, |ctx| {
        ctx.add_variable_from_value("value", value.clone());
        ctx.add_variable_from_value("name", field.name);
        ctx.add_variable_from_value("fullName", field.full_name);
        ctx.add_variable_from_value("typeName", field.type_name);
        ctx.add_variable_from_value("tags", tags.clone());
        ctx.add_variable_from_value("message", message.clone());
    }))
}

/// Whether `later` is a field transform with `rule`'s tags, mode and type
/// (Confluent's `FieldRuleExecutor.are_transforms_with_same_tag`).
fn same_tagged_transform(rule: &Rule, later: &Rule) -> bool {
    !rule.tags().is_empty()
        && rule.kind() == RuleKind::Transform
        && later.kind() == RuleKind::Transform
        && rule.mode() == later.mode()
        && rule.rule_type() == later.rule_type()
        && rule.tags() == later.tags()
}

/// The largest result a `CEL` transform may give, in JSON nodes (a string
/// of `n` bytes weighs `1 + n / 64`): a list the crate shares between its
/// items (`message.items.map(i, message)`) is written out once per item.
pub const MAX_RESULT_NODES: u64 = 1 << 22;

/// A CEL value as JSON, for a transform's result, at most
/// [`MAX_RESULT_NODES`]. Bytes, functions and opaque values have no JSON
/// form here: the transform fails.
#[cfg(feature = "cel")]
fn cel_to_json(value: &::cel::Value) -> Result<Value, String> {
    let mut left = MAX_RESULT_NODES;
    cel_to_json_within(value, 0, &mut left)
}

#[cfg(feature = "cel")]
fn cel_to_json_within(value: &::cel::Value, depth: usize, left: &mut u64) -> Result<Value, String> {
    use ::cel::Value as C;
    if depth > MAX_EXPR_DEPTH * 4 {
        return Err("the result nests too deep".to_owned());
    }
    let weight = match value {
        C::String(s) => 1 + s.len() as u64 / 64,
        _ => 1,
    };
    *left = left.checked_sub(weight).ok_or_else(|| {
        format!("the result is larger than the {MAX_RESULT_NODES} nodes a transform may give")
    })?;
    Ok(match value {
        C::Null => Value::Null,
        C::Bool(b) => Value::Bool(*b),
        C::Int(i) => Value::from(*i),
        C::UInt(u) => Value::from(*u),
        C::Float(f) => serde_json::Number::from_f64(*f)
            .map(Value::Number)
            .ok_or_else(|| format!("the result {f} is not a finite number"))?,
        C::String(s) => Value::String(s.to_string()),
        C::List(items) => Value::Array(
            items
                .iter()
                .map(|item| cel_to_json_within(item, depth + 1, left))
                .collect::<Result<_, _>>()?,
        ),
        C::Map(map) => {
            let mut out = serde_json::Map::new();
            for (key, value) in map.map.iter() {
                let key = match key {
                    ::cel::objects::Key::String(s) => s.to_string(),
                    other => format!("{other:?}"),
                };
                out.insert(key, cel_to_json_within(value, depth + 1, left)?);
            }
            Value::Object(out)
        }
        other => {
            return Err(format!(
                "the result (a {}) has no JSON form",
                other.type_of()
            ))
        }
    })
}

/// The value bound as `message` in a message rule, for its cost bound.
#[cfg(feature = "cel")]
fn message_bound<'v>(name: &str, message: &'v Value) -> cost::Bound<'v> {
    match name {
        "message" => cost::Bound::Json(message),
        _ => cost::Bound::Unbound,
    }
}

/// The values bound in a field rule, for its cost bound.
#[cfg(feature = "cel")]
fn field_bound<'v>(
    name: &str,
    value: &'v Value,
    message: &'v Value,
    field: &str,
    full_name: &str,
    type_name: &str,
    tags: usize,
) -> cost::Bound<'v> {
    use cost::Bound;
    match name {
        "value" => Bound::Json(value),
        "message" => Bound::Json(message),
        "name" => Bound::Text(field.len()),
        "fullName" => Bound::Text(full_name.len()),
        "typeName" => Bound::Text(type_name.len()),
        "tags" => Bound::List(tags),
        _ => Bound::Unbound,
    }
}

/// A condition's verdict from its expression's result.
#[cfg(feature = "cel")]
fn judge(rule: &Rule, outcome: Result<cel::Eval, String>) -> Result<(), String> {
    match outcome {
        Ok(cel::Eval::Value(::cel::Value::Bool(false))) => Err(format!(
            "{} rule {} ({}) is false",
            rule.rule_type(),
            rule.name(),
            crate::text::clip(rule.expr().unwrap_or_default(), 200)
        )),
        Ok(_) => Ok(()),
        Err(why) => Err(format!(
            "{} rule {} could not be evaluated: {}",
            rule.rule_type(),
            rule.name(),
            crate::text::clip(&why, 200)
        )),
    }
}

#[cfg(all(test, feature = "cel"))]
mod tests {
    use super::*;
    use crate::contract::RuleSet;
    use crate::Urn;

    fn transform(expr: &str) -> ReadRules {
        let rules = serde_json::json!({"domainRules": [{
            "name": "t", "kind": "TRANSFORM", "type": "CEL", "mode": "READ", "expr": expr
        }]});
        let urn: Urn = "urn:acme:schema:t:1".parse().unwrap();
        let schema = Schema::json(urn, r#"{"type": "object"}"#)
            .with_rule_set(Some(RuleSet::from_json(&rules).unwrap()));
        ReadRules::compile(&schema).unwrap().unwrap()
    }

    #[test]
    fn json_metadata_tag_paths_must_match_a_field() {
        let schema = r##"{"type": "object", "properties": {
            "customer": {"$ref": "#/$defs/c"},
            "items": {"type": "array", "items": {"properties": {"sku": {"type": "string"}}}}},
            "$defs": {"c": {"properties": {"email": {"type": "string"}}}}}"##;
        let check = |tags: Value| {
            let urn: Urn = "urn:acme:schema:t:1".parse().unwrap();
            let metadata = crate::contract::Metadata::from_json(&serde_json::json!({"tags": tags}));
            let schema = Schema::json(urn, schema).with_metadata(Some(metadata.unwrap()));
            check_against(&schema, None)
                .into_iter()
                .map(|problem| problem.to_string())
                .collect::<Vec<_>>()
        };
        for good in [
            "$.customer.email",
            "$.items[0].sku",
            "$.items[7].sku",
            "$.items[*].sku",
            "**.email",
            "$.customer",
        ] {
            assert_eq!(
                check(serde_json::json!({good: ["PII"]})),
                Vec::<String>::new(),
                "{good}"
            );
        }
        for bad in ["$.customer.emial", "$.items.sku", "email"] {
            let problems = check(serde_json::json!({bad: ["PII"]}));
            assert_eq!(problems.len(), 1, "{bad}: {problems:?}");
            assert!(
                problems[0].contains(bad) && problems[0].contains("urn:acme:schema:t:1"),
                "{problems:?}"
            );
            assert!(problems[0].contains("$.customer.email"), "{problems:?}");
        }
    }

    #[test]
    fn a_transforms_result_is_bounded_in_size() {
        // The crate shares `message` between the items of the list the
        // rule builds; written out, it is a copy per item.
        // 500 items of 22 nodes: 500 copies of the message pass the bound.
        let items: Vec<Value> = (0..500)
            .map(|i| serde_json::json!({"n": i, "a": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]}))
            .collect();
        let payload = serde_json::to_vec(&serde_json::json!({"items": items})).unwrap();
        let rules = transform("{'copies': message.items.map(i, message)}");
        let refused = rules.transform_bytes(&payload).unwrap_err();
        let RuleOutcome::Refused(failure) = *refused else {
            panic!("{refused:?}");
        };
        // Reading the whole message per item is bounded first, before
        // anything runs (`cost.rs`): the result bound stays behind it.
        assert!(
            failure.message.contains("evaluation budget")
                || failure.message.contains("larger than the"),
            "{}",
            failure.message
        );
        // A result of the payload's own size is written.
        let same = transform("{'items': message.items.map(i, i)}");
        let written = same.transform_bytes(&payload).unwrap().unwrap();
        assert_eq!(written, payload);
    }
}
