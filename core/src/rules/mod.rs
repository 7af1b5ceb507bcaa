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
//!   `message` (the object holding the field) bound. JSON payloads.
//! * A condition fails when it gives `false` or cannot be evaluated on the
//!   payload (Confluent's `RuleConditionException` and `RuleException`):
//!   its `onFailure` action decides, `ERROR` when unset. Any other result
//!   passes, as `Boolean.FALSE.equals(output)` is Confluent's test.
//! * `TRANSFORM` rules rewrite a message: a guard judges and does not
//!   rewrite, so they are compiled (a broken one is reported) but not run.
//!
//! A rule that cannot run at all (a type with no executor here, an
//! expression that does not compile, a payload language no executor
//! binds) is reported as [`RuleOutcome::Unusable`]: the guard fails open,
//! counted, unless its `onFailure` is `ERROR` or `DLQ`.
//!
//! Rules are outside input: an expression is at most [`MAX_EXPR_BYTES`]
//! bytes and [`MAX_EXPR_DEPTH`] deep, and a comprehension inside another
//! must range over a part of the enclosing one's element, so evaluating
//! a rule costs at most a small multiple of the payload's size.

#[cfg_attr(not(feature = "cel"), allow(dead_code))]
mod field;
mod model;

#[cfg(feature = "cel")]
mod cel;

#[cfg(feature = "jsonata")]
pub mod jsonata;
mod migrate;

pub use self::migrate::{chain as migration_chain, has_migration_rules, Chain};

use std::collections::{BTreeMap, BTreeSet};

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
                match cel::Cel::compile(expr, split_guard) {
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
    rules: Vec<Prepared>,
    language: Language,
    /// The JSON Schema document, for field rules.
    schema: Option<Value>,
    metadata_tags: BTreeMap<String, BTreeSet<String>>,
}

impl std::fmt::Debug for ReadRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadRules")
            .field(
                "rules",
                &self.rules.iter().map(|p| p.rule.name()).collect::<Vec<_>>(),
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
    /// Confluent would refuse).
    pub fn compile(schema: &Schema) -> Result<Option<ReadRules>, RuleError> {
        let Some(set) = schema.rule_set() else {
            return Ok(None);
        };
        if matches!(
            set.enable_at.as_deref(),
            Some("NONE" | "SERVER" | "GATEWAY")
        ) {
            return Ok(None);
        }
        let mut rules = Vec::new();
        for value in set.domain_rules.iter().rev() {
            let rule = Rule::from_json(value)?;
            if rule.disabled() || !rule.mode().runs_on_read() {
                continue;
            }
            let executor = Executor::compile(&rule);
            if rule.kind() == RuleKind::Transform && !matches!(executor, Executor::Cannot(_)) {
                continue;
            }
            rules.push(Prepared { rule, executor });
        }
        if rules.is_empty() {
            return Ok(None);
        }
        let schema_json = match schema.language() {
            Language::JsonSchema => serde_json::from_slice(schema.bytes()).ok(),
            _ => None,
        };
        Ok(Some(ReadRules {
            rules,
            language: schema.language(),
            schema: schema_json,
            metadata_tags: schema
                .metadata()
                .map(|metadata| metadata.tags.clone())
                .unwrap_or_default(),
        }))
    }

    /// The rules, in the order they run.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|p| &p.rule)
    }

    /// Runs the rules on a JSON Schema payload's bytes (already validated).
    pub fn run_bytes(&self, payload: &[u8]) -> RuleOutcome {
        if self.language != Language::JsonSchema {
            return self
                .unusable_all("the guard binds JSON payloads only, not this schema's language");
        }
        match serde_json::from_slice::<Value>(payload) {
            Ok(value) => self.run(&value),
            Err(error) => self.unusable_all(&format!("the payload does not read as JSON: {error}")),
        }
    }

    /// Runs the rules on a payload read as JSON.
    // Without `cel`, every rule is `Cannot` and returns at once.
    #[cfg_attr(
        not(feature = "cel"),
        allow(unreachable_code, unused_variables, unused_mut, clippy::never_loop)
    )]
    pub fn run(&self, message: &Value) -> RuleOutcome {
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
                Executor::CelField(program) => self.run_cel_field(rule, program, message),
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

    fn unusable_all(&self, why: &str) -> RuleOutcome {
        let rule = &self.rules[0].rule;
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
        let outcome = program.eval(|ctx| ctx.add_variable_from_value("message", value.clone()));
        judge(rule, outcome).map_err(|why| (String::new(), why))
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
        // One conversion of each object holding fields, not one a field.
        let mut holder: Option<(*const Value, ::cel::Value)> = None;
        let mut walk = field::Walk {
            root,
            metadata_tags: &self.metadata_tags,
            rule_tags: rule.tags(),
            _value: std::marker::PhantomData,
            visit: |field: field::Field<'_>| -> Result<(), (String, String)> {
                let key = field.message as *const Value;
                let message = match &holder {
                    Some((at, value)) if *at == key => value.clone(),
                    _ => {
                        let value = ::cel::to_value(field.message)
                            .map_err(|e| (field.full_name.to_owned(), e.to_string()))?;
                        holder = Some((key, value.clone()));
                        value
                    }
                };
                let value = ::cel::to_value(field.value)
                    .map_err(|e| (field.full_name.to_owned(), e.to_string()))?;
                let tags: Vec<::cel::Value> =
                    field.tags.iter().map(|t| t.as_str().into()).collect();
                let outcome = program.eval(|ctx| {
                    ctx.add_variable_from_value("value", value.clone());
                    ctx.add_variable_from_value("name", field.name);
                    ctx.add_variable_from_value("fullName", field.full_name);
                    ctx.add_variable_from_value("typeName", field.type_name);
                    ctx.add_variable_from_value("tags", tags.clone());
                    ctx.add_variable_from_value("message", message.clone());
                });
                judge(rule, outcome).map_err(|why| (field.full_name.to_owned(), why))
            },
        };
        walk.run(message)
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
