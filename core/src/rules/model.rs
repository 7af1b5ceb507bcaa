//! A rule as Confluent writes it (`io.confluent.kafka.schemaregistry.
//! client.rest.entities.Rule`), read from the JSON a rule set keeps.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

use crate::text::clip;

/// Confluent's `Rule.NAME_MAX_LENGTH`.
pub const MAX_RULE_NAME: usize = 256;

/// Whether a rule judges (`CONDITION`) or rewrites (`TRANSFORM`) a
/// message. Confluent's default, when absent, is `TRANSFORM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// The rule's result is a verdict: `false` fails it.
    Condition,
    /// The rule's result replaces the message (or the field).
    Transform,
}

impl RuleKind {
    /// Confluent's spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            RuleKind::Condition => "CONDITION",
            RuleKind::Transform => "TRANSFORM",
        }
    }
}

/// When a rule runs. Confluent's default, when absent, is `WRITEREAD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleMode {
    /// Migration: reading an older version as a newer one.
    Upgrade,
    /// Migration: reading a newer version as an older one.
    Downgrade,
    /// Migration, both ways.
    UpDown,
    /// Domain: on write (the producer's serializer).
    Write,
    /// Domain: on read (the consumer: the guard).
    Read,
    /// Domain: on write and on read.
    WriteRead,
}

impl RuleMode {
    /// Confluent's spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            RuleMode::Upgrade => "UPGRADE",
            RuleMode::Downgrade => "DOWNGRADE",
            RuleMode::UpDown => "UPDOWN",
            RuleMode::Write => "WRITE",
            RuleMode::Read => "READ",
            RuleMode::WriteRead => "WRITEREAD",
        }
    }

    /// Whether a rule of this mode runs on read (`READ`, `WRITEREAD`).
    pub const fn runs_on_read(self) -> bool {
        matches!(self, RuleMode::Read | RuleMode::WriteRead)
    }

    /// Whether this is a migration mode.
    pub const fn is_migration(self) -> bool {
        matches!(
            self,
            RuleMode::Upgrade | RuleMode::Downgrade | RuleMode::UpDown
        )
    }
}

/// What happens after a rule ran: Confluent's `onSuccess` / `onFailure`
/// action names. `ERROR` and `NONE` are built into every Confluent
/// client; `DLQ` is its dead-letter action.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RuleAction {
    /// `ERROR`: the message is refused.
    Error,
    /// `NONE`: nothing happens, the message goes on.
    None,
    /// `DLQ`: the message is refused and routed to a dead-letter subject.
    Dlq,
    /// Any other name (a custom action of a Confluent client).
    Other(String),
}

impl RuleAction {
    fn parse(name: &str) -> RuleAction {
        match name.trim() {
            "ERROR" => RuleAction::Error,
            "NONE" => RuleAction::None,
            "DLQ" => RuleAction::Dlq,
            other => RuleAction::Other(other.to_owned()),
        }
    }

    /// Confluent's spelling.
    pub fn as_str(&self) -> &str {
        match self {
            RuleAction::Error => "ERROR",
            RuleAction::None => "NONE",
            RuleAction::Dlq => "DLQ",
            RuleAction::Other(name) => name,
        }
    }
}

/// A rule set member that is not a rule Confluent would accept: the
/// rule's name (when it has one) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    rule: Option<String>,
    message: String,
}

impl RuleError {
    pub(crate) fn new(rule: Option<&str>, message: impl Into<String>) -> RuleError {
        RuleError {
            rule: rule.map(|name| clip(name, 80)),
            message: message.into(),
        }
    }

    /// The rule's name, when it has one.
    pub fn rule(&self) -> Option<&str> {
        self.rule.as_deref()
    }

    /// What is wrong, in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rule {
            Some(name) => write!(f, "rule {name:?}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for RuleError {}

/// One rule of a rule set, typed: Confluent's `Rule` entity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    name: String,
    doc: Option<String>,
    kind: RuleKind,
    mode: RuleMode,
    rule_type: String,
    tags: BTreeSet<String>,
    params: BTreeMap<String, String>,
    expr: Option<String>,
    on_success: Option<String>,
    on_failure: Option<String>,
    disabled: bool,
}

impl Rule {
    /// Reads a rule from Confluent's JSON form and checks it as
    /// Confluent's `Rule.validate` does: a name of at most 256 characters,
    /// a letter or `_` then letters, digits, `_` or `-`; a `type`;
    /// several actions (`"ERROR,NONE"`) only for `WRITEREAD` and `UPDOWN`.
    /// An unknown member, or a member of the wrong JSON type, is refused
    /// naming it.
    pub fn from_json(value: &Value) -> Result<Rule, RuleError> {
        let object = value
            .as_object()
            .ok_or_else(|| RuleError::new(None, "a rule is not a JSON object"))?;
        let name = match object.get("name") {
            Some(Value::String(name)) => name.as_str(),
            Some(_) => return Err(RuleError::new(None, "a rule's name is not a string")),
            None => return Err(RuleError::new(None, "Missing rule name")),
        };
        let err = |message: String| RuleError::new(Some(name), message);
        check_name(name).map_err(|m| err(m.to_owned()))?;
        let string = |key: &str| -> Result<Option<String>, RuleError> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(err(format!("{key} is not a string"))),
            }
        };
        let kind = match string("kind")?.as_deref() {
            None | Some("TRANSFORM") => RuleKind::Transform,
            Some("CONDITION") => RuleKind::Condition,
            Some(other) => {
                return Err(err(format!(
                    "kind {:?} is not CONDITION or TRANSFORM",
                    clip(other, 40)
                )))
            }
        };
        let mode = match string("mode")?.as_deref() {
            None | Some("WRITEREAD") => RuleMode::WriteRead,
            Some("WRITE") => RuleMode::Write,
            Some("READ") => RuleMode::Read,
            Some("UPGRADE") => RuleMode::Upgrade,
            Some("DOWNGRADE") => RuleMode::Downgrade,
            Some("UPDOWN") => RuleMode::UpDown,
            Some(other) => {
                return Err(err(format!(
                    "mode {:?} is not one of UPGRADE, DOWNGRADE, UPDOWN, WRITE, READ, WRITEREAD",
                    clip(other, 40)
                )))
            }
        };
        let rule_type = string("type")?.ok_or_else(|| err("Missing rule type".to_owned()))?;
        let tags = match object.get("tags") {
            None | Some(Value::Null) => BTreeSet::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|tag| tag.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| err("tags is not an array of strings".to_owned()))?,
            Some(_) => return Err(err("tags is not an array of strings".to_owned())),
        };
        let params = match object.get("params") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                .collect::<Option<_>>()
                .ok_or_else(|| err("params is not an object of strings".to_owned()))?,
            Some(_) => return Err(err("params is not an object of strings".to_owned())),
        };
        let disabled = match object.get("disabled") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(yes)) => *yes,
            Some(_) => return Err(err("disabled is not a boolean".to_owned())),
        };
        for key in object.keys() {
            if !matches!(
                key.as_str(),
                "name"
                    | "doc"
                    | "kind"
                    | "mode"
                    | "type"
                    | "tags"
                    | "params"
                    | "expr"
                    | "onSuccess"
                    | "onFailure"
                    | "disabled"
            ) {
                return Err(err(format!("unknown member {:?}", clip(key, 60))));
            }
        }
        let rule = Rule {
            name: name.to_owned(),
            doc: string("doc")?,
            kind,
            mode,
            rule_type,
            tags,
            params,
            expr: string("expr")?,
            on_success: string("onSuccess")?,
            on_failure: string("onFailure")?,
            disabled,
        };
        for action in [&rule.on_success, &rule.on_failure].into_iter().flatten() {
            if action.contains(',') && !matches!(mode, RuleMode::WriteRead | RuleMode::UpDown) {
                return Err(err(
                    "Multiple actions only valid with WRITEREAD and UPDOWN".to_owned()
                ));
            }
        }
        Ok(rule)
    }

    /// `name`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `doc`, if any.
    pub fn doc(&self) -> Option<&str> {
        self.doc.as_deref()
    }

    /// `kind` (default `TRANSFORM`).
    pub fn kind(&self) -> RuleKind {
        self.kind
    }

    /// `mode` (default `WRITEREAD`).
    pub fn mode(&self) -> RuleMode {
        self.mode
    }

    /// `type`: the executor's name (`CEL`, `CEL_FIELD`, `JSONATA`,
    /// `ENCRYPT`, ...).
    pub fn rule_type(&self) -> &str {
        &self.rule_type
    }

    /// `tags`: the field tags a field rule applies to (none: every field).
    pub fn tags(&self) -> &BTreeSet<String> {
        &self.tags
    }

    /// `params`.
    pub fn params(&self) -> &BTreeMap<String, String> {
        &self.params
    }

    /// `expr`, if any.
    pub fn expr(&self) -> Option<&str> {
        self.expr.as_deref()
    }

    /// `disabled`.
    pub fn disabled(&self) -> bool {
        self.disabled
    }

    /// The `onSuccess` action when the rule runs in `mode` (`"ERROR,NONE"`
    /// names the write action then the read one, as Confluent's
    /// `getRuleActionName` splits it); `None` when unset.
    pub fn on_success(&self, mode: RuleMode) -> Option<RuleAction> {
        self.action(self.on_success.as_deref(), mode)
    }

    /// The `onFailure` action when the rule runs in `mode` (see
    /// [`on_success`](Rule::on_success)); `None` when unset (Confluent's
    /// default is then `ERROR`).
    pub fn on_failure(&self, mode: RuleMode) -> Option<RuleAction> {
        self.action(self.on_failure.as_deref(), mode)
    }

    fn action(&self, action: Option<&str>, mode: RuleMode) -> Option<RuleAction> {
        let action = action?;
        if matches!(self.mode, RuleMode::WriteRead | RuleMode::UpDown) && action.contains(',') {
            let mut parts = action.split(',');
            let first = parts.next().unwrap_or_default();
            let second = parts.next().unwrap_or_default();
            let name = match mode {
                RuleMode::Write | RuleMode::Upgrade => first,
                _ => second,
            };
            return (!name.trim().is_empty()).then(|| RuleAction::parse(name));
        }
        Some(RuleAction::parse(action))
    }
}

fn check_name(name: &str) -> Result<(), &'static str> {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return Err("Empty rule name");
    };
    if name.chars().count() > MAX_RULE_NAME {
        return Err("Rule name too long");
    }
    if !(first.is_alphabetic() || first == '_') {
        return Err("Illegal initial character in rule name");
    }
    if !chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
        return Err("Illegal character in rule name");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_confluents() {
        let rule = Rule::from_json(&json!({"name": "r", "type": "CEL"})).unwrap();
        assert_eq!(rule.kind(), RuleKind::Transform);
        assert_eq!(rule.mode(), RuleMode::WriteRead);
        assert_eq!(rule.on_failure(RuleMode::Read), None);
    }

    #[test]
    fn split_actions_pick_the_mode() {
        let rule = Rule::from_json(&json!({
            "name": "r", "type": "CEL", "onFailure": "ERROR,DLQ"
        }))
        .unwrap();
        assert_eq!(rule.on_failure(RuleMode::Write), Some(RuleAction::Error));
        assert_eq!(rule.on_failure(RuleMode::Read), Some(RuleAction::Dlq));
        let refused = Rule::from_json(&json!({
            "name": "r", "type": "CEL", "mode": "READ", "onFailure": "ERROR,DLQ"
        }))
        .unwrap_err();
        assert!(
            refused.to_string().contains("Multiple actions"),
            "{refused}"
        );
    }

    #[test]
    fn malformed_rules_say_what() {
        for (rule, says) in [
            (json!({"type": "CEL"}), "Missing rule name"),
            (json!({"name": "9r", "type": "CEL"}), "Illegal initial"),
            (json!({"name": "r"}), "Missing rule type"),
            (json!({"name": "r", "type": "CEL", "kind": "MAYBE"}), "kind"),
            (json!({"name": "r", "type": "CEL", "tags": [1]}), "tags"),
            (
                json!({"name": "r", "type": "CEL", "when": 1}),
                "unknown member",
            ),
            (json!([]), "not a JSON object"),
        ] {
            let error = Rule::from_json(&rule).unwrap_err();
            assert!(error.to_string().contains(says), "{rule}: {error}");
        }
    }
}
