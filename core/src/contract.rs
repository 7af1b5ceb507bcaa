//! What a version carries beside its bytes: its references (a name its
//! schema uses for another schema, and the URN that name stands for), its
//! metadata and its rule set (Confluent's data contracts).
//!
//! All three are part of the version, immutable with it: a store keeps
//! them with the content ([`Schema::contract_json`] is what it writes, and
//! [`Schema::with_contract_json`] reads it back), and they are part of the
//! content's identity (two registrations that differ only in their
//! metadata are two contents with two ids, as in Confluent). Rules are
//! kept and answered, never executed.
//!
//! [`Schema::contract_json`]: crate::schema::Schema::contract_json
//! [`Schema::with_contract_json`]: crate::schema::Schema::with_contract_json

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::text::clip;
use crate::urn::Urn;

/// The metadata property Confluent sets to a version's number
/// (`confluent:version`).
pub const CONFLUENT_VERSION: &str = "confluent:version";

/// A name a schema uses for another schema, and the URN it stands for.
///
/// For JSON Schema, a `$ref` whose URI is the reference's name (or that
/// name followed by a `#` fragment) resolves to the schema held under the
/// URN, as a `$ref` to the URN itself would: in the registry at publish, in
/// the guard, in a bundle. The name is Confluent's reference `name`; the
/// URN is the subject and version the reference named, mapped to their
/// URN when the version was registered. Avro and protobuf references (a
/// named type, an `import`'s file name) are the same mapping.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reference {
    name: Box<str>,
    urn: Urn,
}

impl Reference {
    /// A reference: `name` stands for the schema under `urn`.
    pub fn new(name: impl Into<Box<str>>, urn: Urn) -> Reference {
        Reference {
            name: name.into(),
            urn,
        }
    }

    /// The name the schema uses (`other.json`, `com.acme.Address`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URN of the schema the name stands for.
    pub fn urn(&self) -> &Urn {
        &self.urn
    }
}

/// A version's metadata (Confluent's `metadata`): properties, tags by
/// path, and the names of sensitive properties. Ordered maps and sets, so
/// two equal metadata serialize alike.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Metadata {
    /// `properties`: name to value (`owner`, `confluent:version`, a
    /// compatibility group's property).
    pub properties: BTreeMap<String, String>,
    /// `tags`: a path in the schema to its tags.
    pub tags: BTreeMap<String, BTreeSet<String>>,
    /// `sensitive`: the names of properties whose values are secrets.
    pub sensitive: BTreeSet<String>,
}

impl Metadata {
    /// No property, tag or sensitive name.
    pub fn is_empty(&self) -> bool {
        self.properties.is_empty() && self.tags.is_empty() && self.sensitive.is_empty()
    }

    /// The value of property `name`.
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties.get(name).map(String::as_str)
    }

    /// Confluent's merge (`Metadata.mergeMetadata`): `newer`'s entries
    /// over `older`'s, map by map (a tag path's set is replaced, not
    /// united; the sensitive names are united).
    pub fn merge(older: Option<&Metadata>, newer: Option<&Metadata>) -> Option<Metadata> {
        match (older, newer) {
            (None, None) => None,
            (Some(one), None) | (None, Some(one)) => Some(one.clone()),
            (Some(older), Some(newer)) => {
                let mut merged = older.clone();
                merged
                    .properties
                    .extend(newer.properties.iter().map(|(k, v)| (k.clone(), v.clone())));
                merged
                    .tags
                    .extend(newer.tags.iter().map(|(k, v)| (k.clone(), v.clone())));
                merged.sensitive.extend(newer.sensitive.iter().cloned());
                Some(merged)
            }
        }
    }

    /// Reads Confluent's JSON form: `{"properties": {..}, "tags": {path:
    /// [..]}, "sensitive": [..]}`, each member optional (`null` is
    /// absent). Anything else is refused, naming what.
    pub fn from_json(value: &Value) -> Result<Metadata, String> {
        let object = value
            .as_object()
            .ok_or_else(|| format!("metadata is {}, not a JSON object", kind(value)))?;
        let mut metadata = Metadata::default();
        for (key, member) in object {
            if member.is_null() {
                continue;
            }
            match key.as_str() {
                "properties" => {
                    let map = member.as_object().ok_or_else(|| {
                        format!("metadata.properties is {}, not an object", kind(member))
                    })?;
                    for (name, value) in map {
                        let value = value.as_str().ok_or_else(|| {
                            format!(
                                "metadata.properties.{} is {}, not a string",
                                clip(name, 60),
                                kind(value)
                            )
                        })?;
                        metadata.properties.insert(name.clone(), value.to_owned());
                    }
                }
                "tags" => {
                    let map = member.as_object().ok_or_else(|| {
                        format!("metadata.tags is {}, not an object", kind(member))
                    })?;
                    for (path, tags) in map {
                        let set = strings(tags).ok_or_else(|| {
                            format!(
                                "metadata.tags.{} is not an array of strings",
                                clip(path, 60)
                            )
                        })?;
                        metadata.tags.insert(path.clone(), set);
                    }
                }
                "sensitive" => {
                    metadata.sensitive = strings(member).ok_or_else(|| {
                        "metadata.sensitive is not an array of strings".to_owned()
                    })?;
                }
                other => {
                    return Err(format!(
                        "metadata has an unknown member {:?} (expected properties, tags, \
                         sensitive)",
                        clip(other, 60)
                    ))
                }
            }
        }
        Ok(metadata)
    }

    /// Confluent's JSON form, empty members left out (as Confluent writes
    /// it: `{}` for empty metadata).
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        if !self.properties.is_empty() {
            let properties = self
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                .collect();
            object.insert("properties".into(), Value::Object(properties));
        }
        if !self.tags.is_empty() {
            let tags = self
                .tags
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        Value::from(v.iter().cloned().collect::<Vec<_>>()),
                    )
                })
                .collect();
            object.insert("tags".into(), Value::Object(tags));
        }
        if !self.sensitive.is_empty() {
            let sensitive: Vec<String> = self.sensitive.iter().cloned().collect();
            object.insert("sensitive".into(), Value::from(sensitive));
        }
        Value::Object(object)
    }
}

/// A version's rule set (Confluent's `ruleSet`): migration, domain and
/// encoding rules, kept as they were sent and never executed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// `migrationRules`, each a JSON object with a `name`.
    pub migration_rules: Vec<Value>,
    /// `domainRules`.
    pub domain_rules: Vec<Value>,
    /// `encodingRules`.
    pub encoding_rules: Vec<Value>,
    /// `enableAt` (`CLIENT`, `SERVER`, ...), if set.
    pub enable_at: Option<String>,
}

impl RuleSet {
    /// No rule.
    pub fn is_empty(&self) -> bool {
        self.migration_rules.is_empty()
            && self.domain_rules.is_empty()
            && self.encoding_rules.is_empty()
    }

    /// Confluent's merge (`RuleSet.mergeRuleSets`): per kind of rule,
    /// `older`'s rules without a name of `newer`'s, then `newer`'s;
    /// `enableAt` is `newer`'s if set.
    pub fn merge(older: Option<&RuleSet>, newer: Option<&RuleSet>) -> Option<RuleSet> {
        fn rules(older: &[Value], newer: &[Value]) -> Vec<Value> {
            if older.is_empty() {
                return newer.to_vec();
            }
            if newer.is_empty() {
                return older.to_vec();
            }
            let names: BTreeSet<Option<&str>> = newer.iter().map(rule_name).collect();
            older
                .iter()
                .filter(|rule| !names.contains(&rule_name(rule)))
                .chain(newer)
                .cloned()
                .collect()
        }
        match (older, newer) {
            (None, None) => None,
            (Some(one), None) | (None, Some(one)) => Some(one.clone()),
            (Some(older), Some(newer)) => Some(RuleSet {
                migration_rules: rules(&older.migration_rules, &newer.migration_rules),
                domain_rules: rules(&older.domain_rules, &newer.domain_rules),
                encoding_rules: rules(&older.encoding_rules, &newer.encoding_rules),
                enable_at: newer.enable_at.clone().or_else(|| older.enable_at.clone()),
            }),
        }
    }

    /// Reads Confluent's JSON form: `{"migrationRules": [..],
    /// "domainRules": [..], "encodingRules": [..], "enableAt": ..}`. Each
    /// rule must be an object with a string `name`, unique across the
    /// set (Confluent's `RuleSet.validate`); its other members are kept
    /// as sent.
    pub fn from_json(value: &Value) -> Result<RuleSet, String> {
        let object = value
            .as_object()
            .ok_or_else(|| format!("ruleSet is {}, not a JSON object", kind(value)))?;
        let mut set = RuleSet::default();
        let mut names = BTreeSet::new();
        for (key, member) in object {
            if member.is_null() {
                continue;
            }
            let target = match key.as_str() {
                "migrationRules" => &mut set.migration_rules,
                "domainRules" => &mut set.domain_rules,
                "encodingRules" => &mut set.encoding_rules,
                "enableAt" => {
                    let at = member.as_str().ok_or_else(|| {
                        format!("ruleSet.enableAt is {}, not a string", kind(member))
                    })?;
                    set.enable_at = Some(at.to_owned());
                    continue;
                }
                other => {
                    return Err(format!(
                        "ruleSet has an unknown member {:?} (expected migrationRules, \
                         domainRules, encodingRules, enableAt)",
                        clip(other, 60)
                    ))
                }
            };
            let rules = member
                .as_array()
                .ok_or_else(|| format!("ruleSet.{key} is {}, not an array", kind(member)))?;
            for rule in rules {
                let name = rule
                    .as_object()
                    .and_then(|rule| rule.get("name"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("a rule of ruleSet.{key} has no string name"))?;
                if !names.insert(name.to_owned()) {
                    return Err(format!(
                        "Found rule with duplicate name '{}'",
                        clip(name, 60)
                    ));
                }
                target.push(rule.clone());
            }
        }
        Ok(set)
    }

    /// Confluent's JSON form (every list written, as Confluent writes
    /// them; `enableAt` only when set).
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert(
            "migrationRules".into(),
            Value::from(self.migration_rules.clone()),
        );
        object.insert("domainRules".into(), Value::from(self.domain_rules.clone()));
        object.insert(
            "encodingRules".into(),
            Value::from(self.encoding_rules.clone()),
        );
        if let Some(at) = &self.enable_at {
            object.insert("enableAt".into(), Value::from(at.as_str()));
        }
        Value::Object(object)
    }
}

fn rule_name(rule: &Value) -> Option<&str> {
    rule.get("name").and_then(Value::as_str)
}

fn strings(value: &Value) -> Option<BTreeSet<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` as JSON text with every object's keys in order: the same value
/// always writes the same text, whatever order it was read in.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => {
            let _ = write!(out, "{scalar}");
        }
    }
}
