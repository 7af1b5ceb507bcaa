//! [`Settings`]: what a name's config holds beside its compatibility mode
//! (Confluent's config: `compatibilityGroup`, `compatibilityPolicy`,
//! `normalize`, default and override metadata and rule sets).

use serde_json::{Map, Value};

use dataschema_core::compat::Policy;
use dataschema_core::{clip, Metadata, RuleSet};

/// The settings of a name (or the store-wide default) beside its
/// compatibility mode, kept by the store ([`crate::Store::config`]) as
/// JSON text. A field not set falls back, field by field, to the
/// default's ([`RegistryConfig::settings_in_effect`](crate::RegistryConfig::settings_in_effect)).
///
/// Two of them change what a publish checks: `compatibility_group` (a
/// candidate is checked only against the versions whose metadata property
/// of that name has the candidate's value; a version without the property
/// is in the group of those without it) and `compatibility_policy`
/// (`LENIENT` for JSON Schema's open content models). The metadata and
/// rule sets are merged into a registration by the Confluent API; the
/// other fields Confluent knows (`validateFields`, `alias`, ...) are kept
/// and answered as they were sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// `compatibilityGroup`: the metadata property whose value groups
    /// versions for compatibility checks.
    pub compatibility_group: Option<String>,
    /// `compatibilityPolicy`.
    pub compatibility_policy: Option<Policy>,
    /// `normalize`.
    pub normalize: Option<bool>,
    /// `defaultMetadata`: under a registration's own (or inherited)
    /// metadata.
    pub default_metadata: Option<Metadata>,
    /// `overrideMetadata`: over it.
    pub override_metadata: Option<Metadata>,
    /// `defaultRuleSet`.
    pub default_rule_set: Option<RuleSet>,
    /// `overrideRuleSet`.
    pub override_rule_set: Option<RuleSet>,
    /// Every other member sent (except `compatibility` and
    /// `compatibilityLevel`, which are the mode), kept as sent.
    pub other: Map<String, Value>,
}

impl Settings {
    /// No field set.
    pub fn is_empty(&self) -> bool {
        *self == Settings::default()
    }

    /// `self`'s fields, each falling back to `default`'s.
    pub fn or(&self, default: &Settings) -> Settings {
        let mut other = default.other.clone();
        other.extend(self.other.clone());
        Settings {
            compatibility_group: self
                .compatibility_group
                .clone()
                .or_else(|| default.compatibility_group.clone()),
            compatibility_policy: self.compatibility_policy.or(default.compatibility_policy),
            normalize: self.normalize.or(default.normalize),
            default_metadata: self
                .default_metadata
                .clone()
                .or_else(|| default.default_metadata.clone()),
            override_metadata: self
                .override_metadata
                .clone()
                .or_else(|| default.override_metadata.clone()),
            default_rule_set: self
                .default_rule_set
                .clone()
                .or_else(|| default.default_rule_set.clone()),
            override_rule_set: self
                .override_rule_set
                .clone()
                .or_else(|| default.override_rule_set.clone()),
            other,
        }
    }

    /// Reads Confluent's JSON form of a config (its members other than
    /// the compatibility level; `null` members are not set). A member of
    /// the wrong shape is refused, naming it.
    pub fn from_json(value: &Value) -> Result<Settings, String> {
        let object = value
            .as_object()
            .ok_or_else(|| "a config is a JSON object".to_owned())?;
        let mut settings = Settings::default();
        for (key, member) in object {
            if member.is_null() {
                continue;
            }
            let text = || {
                member
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("config.{key} is not a string"))
            };
            match key.as_str() {
                "compatibility" | "compatibilityLevel" => {}
                "compatibilityGroup" => settings.compatibility_group = Some(text()?),
                "compatibilityPolicy" => {
                    settings.compatibility_policy =
                        Some(text()?.parse().map_err(|err| format!("{err}"))?)
                }
                "normalize" => {
                    settings.normalize = Some(
                        member
                            .as_bool()
                            .ok_or_else(|| "config.normalize is not a boolean".to_owned())?,
                    )
                }
                "defaultMetadata" => settings.default_metadata = Some(Metadata::from_json(member)?),
                "overrideMetadata" => {
                    settings.override_metadata = Some(Metadata::from_json(member)?)
                }
                "defaultRuleSet" => settings.default_rule_set = Some(RuleSet::from_json(member)?),
                "overrideRuleSet" => settings.override_rule_set = Some(RuleSet::from_json(member)?),
                other => {
                    if other.len() > 100 {
                        return Err(format!("config member {:?} is too long", clip(other, 40)));
                    }
                    settings.other.insert(other.to_owned(), member.clone());
                }
            }
        }
        Ok(settings)
    }

    /// Confluent's JSON form (members set only).
    pub fn to_json(&self) -> Value {
        let mut object = self.other.clone();
        if let Some(group) = &self.compatibility_group {
            object.insert("compatibilityGroup".into(), Value::from(group.as_str()));
        }
        if let Some(policy) = self.compatibility_policy {
            object.insert("compatibilityPolicy".into(), Value::from(policy.as_str()));
        }
        if let Some(normalize) = self.normalize {
            object.insert("normalize".into(), Value::from(normalize));
        }
        for (key, metadata) in [
            ("defaultMetadata", &self.default_metadata),
            ("overrideMetadata", &self.override_metadata),
        ] {
            if let Some(metadata) = metadata {
                object.insert(key.into(), metadata.to_json());
            }
        }
        for (key, rules) in [
            ("defaultRuleSet", &self.default_rule_set),
            ("overrideRuleSet", &self.override_rule_set),
        ] {
            if let Some(rules) = rules {
                object.insert(key.into(), rules.to_json());
            }
        }
        Value::Object(object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_round_trip_and_fall_back() {
        let sent = json!({
            "compatibility": "BACKWARD",
            "compatibilityGroup": "application.major.version",
            "compatibilityPolicy": "lenient",
            "normalize": true,
            "defaultMetadata": {"properties": {"owner": "team-a"}},
            "overrideRuleSet": {"domainRules": [{"name": "r", "kind": "CONDITION"}]},
            "validateFields": false
        });
        let settings = Settings::from_json(&sent).unwrap();
        assert_eq!(
            settings.compatibility_group.as_deref(),
            Some("application.major.version")
        );
        assert_eq!(settings.compatibility_policy, Some(Policy::Lenient));
        let written = settings.to_json();
        assert_eq!(written["compatibilityPolicy"], "LENIENT");
        assert_eq!(written["validateFields"], false);
        assert!(written.get("compatibility").is_none());
        assert_eq!(Settings::from_json(&written).unwrap(), settings);

        let own = Settings {
            normalize: Some(false),
            ..Settings::default()
        };
        let effective = own.or(&settings);
        assert_eq!(effective.normalize, Some(false));
        assert_eq!(effective.compatibility_policy, Some(Policy::Lenient));
        assert!(Settings::from_json(&json!({"compatibilityPolicy": "LOOSE"})).is_err());
        assert!(Settings::from_json(&json!({"defaultMetadata": []})).is_err());
    }
}
