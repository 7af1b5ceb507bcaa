//! The data-contract rules `validate` and `resolve` show: the rules a
//! version runs on read (the guard runs them; this lists them), and the
//! rule that refused a payload, with its action.

use dataschema::{Registry, Resolver as _, RuleRefusal, Schema, Urn};
use dataschema_core::rules::{parse_rules, Rule, RuleMode};
use serde_json::{json, Value};

/// Where the version a payload names is: the folder's registry, then the
/// fallback (whose cache holds what the guard fetched: no second request).
pub struct Sources<'a> {
    pub primary: &'a Registry,
    pub fallback: Option<&'a dataschema::http::HttpResolver>,
}

impl Sources<'_> {
    /// The version `urn` names, when a source holds it.
    pub fn by_urn(&self, urn: &Urn) -> Option<Schema> {
        match (self.primary.resolve(urn), self.fallback) {
            (Ok(schema), _) => Some(schema),
            (Err(_), Some(fallback)) => fallback.resolve(urn).ok(),
            (Err(_), None) => None,
        }
    }

    /// The version registry id `id` names, when a source holds it.
    pub fn by_id(&self, id: u32) -> Option<Schema> {
        match (self.primary.resolve_id(id), self.fallback) {
            (Ok(schema), _) => Some(schema),
            (Err(_), Some(fallback)) => fallback.resolve_id(id).ok(),
            (Err(_), None) => None,
        }
    }
}

/// The domain rules `schema` runs on read (mode `READ` or `WRITEREAD`,
/// not `disabled`), in the rule set's order; a rule set that does not
/// parse has none here (the guard reports it as `rule_unusable`).
pub fn on_read(schema: &Schema) -> Vec<Rule> {
    parse_rules(schema)
        .unwrap_or_default()
        .into_iter()
        .filter(|rule| !rule.mode().is_migration() && rule.mode().runs_on_read())
        .filter(|rule| !rule.disabled())
        .collect()
}

/// The migration rules `versions` (the writer first, the reader last)
/// carry for that direction: what `read_as` runs between them.
pub fn migrations(versions: &[Schema]) -> Vec<Rule> {
    let (Some(first), Some(last)) = (versions.first(), versions.last()) else {
        return Vec::new();
    };
    let mode = if first.urn().version() < last.urn().version() {
        RuleMode::Upgrade
    } else {
        RuleMode::Downgrade
    };
    // The rules of a step are the newer version's: each but the oldest.
    let oldest = first.urn().version().min(last.urn().version());
    versions
        .iter()
        .filter(|version| version.urn().version() != oldest)
        .flat_map(|version| parse_rules(version).unwrap_or_default())
        .filter(|rule| (rule.mode() == mode || rule.mode() == RuleMode::UpDown) && !rule.disabled())
        .collect()
}

/// A rule as `--format json` shows it.
pub fn rule_json(rule: &Rule, mode: RuleMode) -> Value {
    json!({
        "name": rule.name(),
        "kind": rule.kind().as_str(),
        "type": rule.rule_type(),
        "mode": rule.mode().as_str(),
        "expr": rule.expr(),
        "on_success": rule.on_success(mode).as_ref().map(|a| a.as_str().to_owned()),
        "on_failure": rule.on_failure(mode).as_ref().map(|a| a.as_str().to_owned()),
    })
}

/// A rule as text shows it: `name (CONDITION CEL, onFailure ERROR)`.
pub fn rule_text(rule: &Rule, mode: RuleMode) -> String {
    let action = rule
        .on_failure(mode)
        .as_ref()
        .map_or("ERROR", |a| a.as_str())
        .to_owned();
    format!(
        "{} ({} {}, onFailure {action})",
        rule.name(),
        rule.kind().as_str(),
        rule.rule_type()
    )
}

/// The rule that refused a payload, as `--format json` shows it.
pub fn refusal_json(rule: &RuleRefusal) -> Value {
    json!({
        "name": rule.name(),
        "kind": rule.kind().as_str(),
        "type": rule.rule_type(),
        "action": rule.action().as_str(),
    })
}

/// The rule that refused a payload, as text shows it.
pub fn refusal_text(rule: &RuleRefusal, dead_letter: bool) -> String {
    format!(
        "refused by rule {} ({} {}), action {}{}",
        rule.name(),
        rule.kind().as_str(),
        rule.rule_type(),
        rule.action().as_str(),
        if dead_letter {
            ": route it to the dead-letter subject"
        } else {
            ""
        }
    )
}
