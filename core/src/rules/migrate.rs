//! Migration rules (`ruleSet.migrationRules`): a payload written with one
//! version read as another through the `UPGRADE`/`DOWNGRADE`/`UPDOWN`
//! rules of the versions between, as Confluent's deserializers run them
//! (confluent-kafka-python v2.15.0, unchanged in v2.16.1,
//! `src/confluent_kafka/schema_registry/_sync/serde.py`:
//! `_get_migrations`, `_get_schemas_between`, `_execute_migrations`,
//! `_execute_rules_with_phase`):
//!
//! * writer older than reader: `UPGRADE`. Every version `v` after the
//!   writer up to the reader whose rule set has a migration rule of mode
//!   `UPGRADE` or `UPDOWN` is a step from the version before it to `v`,
//!   running `v`'s migration rules of those modes in their order;
//! * writer newer than reader: `DOWNGRADE`. Each such `v` is a step from
//!   `v` to the version before it, running `v`'s rules of mode
//!   `DOWNGRADE` or `UPDOWN` in reverse order; the steps run newest first;
//! * a rule set whose `enableAt` is other than `ALL` or `CLIENT`, or a
//!   `disabled` rule, is skipped; versions without such rules are no step
//!   (their payloads are read as the next step's input as they are).
//!
//! A `TRANSFORM` rule's result replaces the message (an undefined result
//! fails the rule); a `CONDITION` rule fails on a result that is not
//! truthy. A failing rule's `onFailure` action (default `ERROR`) refuses
//! the payload, `NONE` passes it on unchanged. The chain exists when at
//! least one step does; the output is then validated against the reader
//! by whoever runs it (the guard, `Resolution`).
//!
//! `JSONATA` rules run (feature `jsonata`, [`super::jsonata`]) on the
//! JSON form of the payload: a JSON Schema payload as it is; an Avro or
//! protobuf payload ([`chain_with_forms`]) read with the writer's form
//! ([`Reading::Migration`]: what `fastavro` or `MessageToDict` gives
//! Confluent's deserializer), the rules run, and the result written with
//! the reader's form (`_sync/avro.py` hands the migrated dict on as the
//! reader's record; `_sync/protobuf.py` reads it with `ParseDict` into
//! the reader's message). A chain holding a rule this build cannot run
//! (another type, no `jsonata` feature, an expression that does not
//! compile, an Avro or protobuf payload without forms) is
//! [`Chain::Unusable`]: the caller fails open, counted.

use std::sync::Arc;

use serde_json::Value;

use super::form::{PayloadForm, Reading};
use super::model::{Rule, RuleAction, RuleKind, RuleMode};
use super::RuleFailure;
use crate::resolve::Migration;
use crate::schema::{Language, Schema};
use crate::violation::{Violation, ViolationKind};

/// The migration rules between two versions of a name.
#[derive(Debug)]
pub enum Chain {
    /// No version between carries migration rules for the way asked: the
    /// pair is read by the schemas alone.
    None,
    /// The rules to run, in order: a [`Migration`].
    Rules(Arc<dyn Migration>),
    /// A rule cannot run here, or the rule set is malformed.
    Unusable(RuleFailure),
}

/// Whether `schema` carries a migration rule that runs in `mode`
/// (`Upgrade` or `Downgrade`), as Confluent's `_has_rules` asks.
pub fn has_migration_rules(schema: &Schema, mode: RuleMode) -> bool {
    let Some(set) = schema.rule_set() else {
        return false;
    };
    set.migration_rules.iter().any(|value| {
        Rule::from_json(value)
            .is_ok_and(|rule| rule.mode() == mode || rule.mode() == RuleMode::UpDown)
    })
}

/// The migration chain reading a payload of `versions`' first (the
/// writer) as their last (the reader): `versions` are every version of
/// the name from the writer to the reader, in that order (ascending for
/// an upgrade, descending for a downgrade), as many as are held.
pub fn chain(versions: &[Schema]) -> Chain {
    chain_with_forms(versions, None)
}

/// [`chain`] for payloads that are not JSON: `forms` are the writer's and
/// the reader's (`Compiled::payload_form`), which read the payload into
/// the JSON form the rules run on and write the result as the reader's.
pub fn chain_with_forms(
    versions: &[Schema],
    forms: Option<(Arc<dyn PayloadForm>, Arc<dyn PayloadForm>)>,
) -> Chain {
    let (Some(first), Some(last)) = (versions.first(), versions.last()) else {
        return Chain::None;
    };
    let (writer, reader) = (first.urn().version(), last.urn().version());
    if writer == reader {
        return Chain::None;
    }
    let mode = if writer < reader {
        RuleMode::Upgrade
    } else {
        RuleMode::Downgrade
    };
    // Confluent walks the versions ascending: the one holding the rules
    // of a step is the newer of its two.
    let mut ascending: Vec<&Schema> = versions.iter().collect();
    if mode == RuleMode::Downgrade {
        ascending.reverse();
    }
    let mut steps = Vec::new();
    for pair in ascending.windows(2) {
        let (older, newer) = (pair[0], pair[1]);
        if !has_migration_rules(newer, mode) {
            continue;
        }
        let Some(set) = newer.rule_set() else {
            continue;
        };
        let mut rules = Vec::new();
        if !matches!(set.enable_at.as_deref(), None | Some("ALL" | "CLIENT")) {
            continue;
        }
        for value in &set.migration_rules {
            let rule = match Rule::from_json(value) {
                Ok(rule) => rule,
                Err(error) => {
                    return Chain::Unusable(RuleFailure {
                        rule: error.rule().unwrap_or("?").to_owned(),
                        kind: RuleKind::Transform,
                        rule_type: String::new(),
                        expr: String::new(),
                        path: String::new(),
                        message: format!("a malformed migration rule of {}: {error}", newer.urn()),
                        action: None,
                    })
                }
            };
            if rule.disabled() || !(rule.mode() == mode || rule.mode() == RuleMode::UpDown) {
                continue;
            }
            match Step::compile(rule, newer.language(), forms.is_some()) {
                Ok(step) => rules.push(step),
                Err(failure) => return Chain::Unusable(*failure),
            }
        }
        if mode == RuleMode::Downgrade {
            rules.reverse();
        }
        steps.push(Steps {
            from: if mode == RuleMode::Upgrade {
                older
            } else {
                newer
            }
            .urn()
            .to_string(),
            rules,
        });
    }
    if steps.is_empty() {
        return Chain::None;
    }
    if mode == RuleMode::Downgrade {
        steps.reverse();
    }
    Chain::Rules(Arc::new(Migrations { mode, steps, forms }))
}

/// The rules of one step.
#[derive(Debug)]
struct Steps {
    /// The version the step reads (for messages).
    from: String,
    rules: Vec<Step>,
}

/// One rule, compiled.
#[derive(Debug)]
struct Step {
    rule: Rule,
    #[cfg(feature = "jsonata")]
    program: super::jsonata::Jsonata,
}

impl Step {
    fn compile(rule: Rule, language: Language, formed: bool) -> Result<Step, Box<RuleFailure>> {
        let failure = |rule: &Rule, message: String| {
            Box::new(RuleFailure {
                rule: rule.name().to_owned(),
                kind: rule.kind(),
                rule_type: rule.rule_type().to_owned(),
                expr: crate::text::clip(rule.expr().unwrap_or_default(), 200),
                path: String::new(),
                message,
                action: rule.on_failure(RuleMode::Upgrade),
            })
        };
        if !rule.rule_type().eq_ignore_ascii_case("JSONATA") {
            let message = format!(
                "no executor for migration rules of type {:?} (this guard runs JSONATA)",
                crate::text::clip(rule.rule_type(), 40)
            );
            return Err(failure(&rule, message));
        }
        if language != Language::JsonSchema && !formed {
            let message = format!(
                "JSONATA migration rules of {} payloads need the payload's form here",
                language.as_str()
            );
            return Err(failure(&rule, message));
        }
        compile_jsonata(rule, failure)
    }
}

#[cfg(feature = "jsonata")]
fn compile_jsonata(
    rule: Rule,
    failure: impl Fn(&Rule, String) -> Box<RuleFailure>,
) -> Result<Step, Box<RuleFailure>> {
    let Some(expr) = rule.expr() else {
        return Err(failure(&rule, "a JSONATA rule needs an expr".to_owned()));
    };
    match super::jsonata::Jsonata::compile(expr) {
        Ok(program) => Ok(Step { rule, program }),
        Err(why) => {
            let message = format!(
                "expr {:?} does not compile: {why}",
                crate::text::clip(expr, 120)
            );
            Err(failure(&rule, message))
        }
    }
}

#[cfg(not(feature = "jsonata"))]
fn compile_jsonata(
    rule: Rule,
    failure: impl Fn(&Rule, String) -> Box<RuleFailure>,
) -> Result<Step, Box<RuleFailure>> {
    Err(failure(
        &rule,
        "JSONATA rules run with the `jsonata` feature, which this build does not have".to_owned(),
    ))
}

/// Checks a `JSONATA` expression as a build does; `None` when it
/// compiles.
pub(crate) fn check_jsonata(expr: &str) -> Option<String> {
    #[cfg(feature = "jsonata")]
    {
        super::jsonata::Jsonata::compile(expr).err().map(|why| {
            format!(
                "expr {:?} does not compile: {why}",
                crate::text::clip(expr, 120)
            )
        })
    }
    #[cfg(not(feature = "jsonata"))]
    {
        let _ = expr;
        Some(
            "JSONATA rules run with the `jsonata` feature, which this build does not have"
                .to_owned(),
        )
    }
}

/// A chain of steps: the [`Migration`] a guard or a `Resolution` runs.
#[derive(Debug)]
struct Migrations {
    mode: RuleMode,
    steps: Vec<Steps>,
    /// The writer's and the reader's forms, for a payload not JSON.
    forms: Option<(Arc<dyn PayloadForm>, Arc<dyn PayloadForm>)>,
}

impl Migrations {
    #[cfg(feature = "jsonata")]
    fn run_rule(&self, step: &Step, message: &Value) -> Result<Option<Value>, String> {
        let out = step.program.evaluate(message)?;
        Ok(match step.rule.kind() {
            RuleKind::Transform => out,
            RuleKind::Condition => match out {
                Some(value) if truthy(&value) => Some(message.clone()),
                _ => None,
            },
        })
    }

    /// Without `jsonata` no step is ever made: [`chain`] refuses them.
    #[cfg(not(feature = "jsonata"))]
    fn run_rule(&self, _step: &Step, _message: &Value) -> Result<Option<Value>, String> {
        Err("JSONATA rules run with the `jsonata` feature".to_owned())
    }
}

#[cfg(feature = "jsonata")]
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => items.iter().any(truthy),
        Value::Object(map) => !map.is_empty(),
    }
}

impl Migration for Migrations {
    fn migrate(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>> {
        let mut message: Value = match &self.forms {
            None => serde_json::from_slice(payload).map_err(|error| {
                vec![Violation::new(
                    "",
                    ViolationKind::NotJson,
                    format!("the payload does not read as JSON: {error}"),
                )]
            })?,
            Some((writer, _)) => writer.decode(payload, Reading::Migration).map_err(|why| {
                vec![Violation::new(
                    "",
                    ViolationKind::Other,
                    format!("the payload does not read as the writer's: {why}"),
                )]
            })?,
        };
        for steps in &self.steps {
            for step in &steps.rules {
                let rule = &step.rule;
                let failed = match self.run_rule(step, &message) {
                    Ok(Some(value)) => {
                        message = value;
                        continue;
                    }
                    Ok(None) => match rule.kind() {
                        RuleKind::Transform => "gives no value".to_owned(),
                        RuleKind::Condition => "is false".to_owned(),
                    },
                    Err(why) => format!("could not be evaluated: {}", crate::text::clip(&why, 200)),
                };
                let action = rule.on_failure(self.mode).unwrap_or(RuleAction::Error);
                if action == RuleAction::None {
                    continue;
                }
                return Err(vec![Violation::new(
                    "",
                    ViolationKind::Rule,
                    format!(
                        "{} migration rule {} of the step from {} ({}) {failed} \
                         (rule {}, {} {}, action {})",
                        self.mode.as_str(),
                        rule.name(),
                        steps.from,
                        crate::text::clip(rule.expr().unwrap_or_default(), 200),
                        rule.name(),
                        rule.kind().as_str(),
                        rule.rule_type(),
                        action.as_str()
                    ),
                )]);
            }
        }
        let written = match &self.forms {
            None => serde_json::to_vec(&message).map_err(|error| error.to_string()),
            Some((_, reader)) => reader.encode(&message),
        };
        written.map_err(|why| {
            vec![Violation::new(
                "",
                ViolationKind::Rule,
                format!("the migrated message does not write as the reader's: {why}"),
            )]
        })
    }
}
