//! `POST /subjects/{s}/versions/{v}/tags` (Confluent 7.4.2+,
//! `SubjectVersionsResource.modifyTags`): a new version of the subject,
//! the version named with schema tags added or removed at paths of the
//! schema, and the metadata and rule set the request gives.
//!
//! Read in Confluent's source (v8.2.0):
//! `AbstractSchemaRegistry.modifySchemaTags` (the tags edited, then the
//! metadata, the request's or the version's, with `confluent:version` set
//! to `newVersion`, then registered as a new version, `newVersion` the
//! version asked for); `maybeModifyPreviousRuleSet` (`rulesToMerge` merged
//! into and `rulesToRemove` removed from the rule set of version
//! `newVersion - 1`, else of the latest; `ruleSet` beside either is
//! 42210); the tags of an entity are the `confluent:tags` member of its
//! node (`AvroSchema.modifySchemaTags`, `JsonSchema.modifySchemaTags`),
//! found by `AvroSchemaUtils.findMatchingEntity` (a breadth-first search
//! for the record, or its field, by the path's namespace and names) and
//! `JsonSchemaUtils.findMatchingEntity` (the path read as `object`,
//! property names, `definitions` or `$defs`, `array`, `not`); a path found
//! nowhere is 42201 (`No matching path '..' found in the schema`).
//!
//! What this server does not take (42201, saying so): tags for a protobuf
//! schema (Confluent writes them as `confluent.field_meta` options into
//! the `.proto` text) and JSON Schema paths through `anyOf`, `allOf` or
//! `oneOf` branches (Confluent numbers the branches in the order its
//! schema comparator sorts them).

use std::collections::VecDeque;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::{invalid_schema, ApiError, ErrorCode, Reply};
use super::request::{json_body, subject_version};
use super::subjects::{find_version, register, Seen};
use crate::server::state::AppState;
use dataschema_core::contract::CONFLUENT_VERSION;
use dataschema_core::{Language, RuleSet};

/// The member of a record, field or schema node holding its tags.
const TAGS: &str = "confluent:tags";

/// Confluent's `TagSchemaRequest`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TagRequest {
    new_version: Option<i64>,
    tags_to_add: Option<Vec<SchemaTags>>,
    tags_to_remove: Option<Vec<SchemaTags>>,
    metadata: Option<Value>,
    rule_set: Option<Value>,
    rules_to_merge: Option<Value>,
    rules_to_remove: Option<Vec<String>>,
}

/// Confluent's `SchemaTags`: the tags of one entity.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemaTags {
    schema_entity: SchemaEntity,
    #[serde(default)]
    tags: Vec<String>,
}

/// Confluent's `SchemaEntity`: a path (a leading `.` dropped) and whether
/// it names a record (`SR_RECORD`) or a field (`SR_FIELD`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemaEntity {
    entity_path: String,
    entity_type: EntityType,
}

#[derive(Clone, Copy, Deserialize, PartialEq, Eq)]
enum EntityType {
    #[serde(rename = "sr_record", alias = "SR_RECORD")]
    Record,
    #[serde(rename = "sr_field", alias = "SR_FIELD")]
    Field,
}

impl SchemaEntity {
    fn path(&self) -> &str {
        self.entity_path
            .strip_prefix('.')
            .unwrap_or(&self.entity_path)
    }
}

/// `POST /subjects/{s}/versions/{v}/tags`: registers, as the subject's
/// next version (`newVersion`, when given, must be it), the version `v`
/// with the tags, metadata and rule set the request gives; answers as a
/// register does (`{"id": ..}` and the version's members).
pub(crate) async fn modify(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let request: TagRequest = json_body(body)?;
    if request.rule_set.is_some()
        && (request.rules_to_merge.is_some() || request.rules_to_remove.is_some())
    {
        return Err(ApiError::new(
            ErrorCode::InvalidRuleSet,
            "ruleSet should be omitted if specifying rulesToMerge or rulesToRemove",
        ));
    }
    let new_version = match request.new_version {
        None => 0,
        Some(v) => u32::try_from(v)
            .map_err(|_| invalid_schema(format!("newVersion {v} is not a version")))?,
    };
    let entry = find_version(&state, &subject, &version, Seen::Live).await?;
    let held: Value = serde_json::from_slice(&entry.version_json)
        .map_err(|err| invalid_schema(format!("the version's answer is no JSON: {err}")))?;

    let text = match entry.schema.language() {
        Language::Avro | Language::JsonSchema => {
            let text = std::str::from_utf8(entry.schema.bytes())
                .map_err(|_| invalid_schema("the version's schema is not UTF-8 text"))?;
            let edits = Edits::of(&request)?;
            edits.apply(text, entry.schema.language())?
        }
        _ if request.tags_to_add.is_none() && request.tags_to_remove.is_none() => held
            .get("schema")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        _ => {
            return Err(invalid_schema(
                "schema tags on a protobuf schema are not supported by this server (Confluent \
                 writes them into the .proto text as confluent.field_meta options); send the \
                 edited schema as a new version instead",
            ))
        }
    };

    // The metadata: the request's, else the version's, with
    // `confluent:version` set (register sets it to the version stored).
    let mut metadata = request
        .metadata
        .clone()
        .filter(|m| !m.is_null())
        .or_else(|| held.get("metadata").cloned())
        .unwrap_or_else(|| Value::Object(Map::new()));
    let object = metadata
        .as_object_mut()
        .ok_or_else(|| invalid_schema("Invalid metadata: not a JSON object"))?;
    let properties = object
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    properties
        .as_object_mut()
        .ok_or_else(|| invalid_schema("Invalid metadata: properties is not a JSON object"))?
        .insert(
            CONFLUENT_VERSION.to_owned(),
            Value::String(new_version.to_string()),
        );

    let rule_set = match (&request.rules_to_merge, &request.rules_to_remove) {
        (None, None) => request.rule_set.clone(),
        _ => {
            let base = if new_version > 1 {
                let older =
                    find_version(&state, &subject, &(new_version - 1).to_string(), Seen::Live)
                        .await
                        .ok();
                older.and_then(|e| serde_json::from_slice::<Value>(&e.version_json).ok())
            } else {
                let latest = find_version(&state, &subject, "latest", Seen::Live).await?;
                serde_json::from_slice::<Value>(&latest.version_json).ok()
            };
            merged_rules(
                base.as_ref().and_then(|v| v.get("ruleSet")),
                request.rules_to_merge.as_ref(),
                request.rules_to_remove.as_deref(),
            )?
        }
    };

    let mut registration = Map::new();
    registration.insert("schema".into(), Value::String(text));
    if let Some(kind) = held.get("schemaType") {
        registration.insert("schemaType".into(), kind.clone());
    }
    if let Some(references) = held.get("references") {
        registration.insert("references".into(), references.clone());
    }
    registration.insert("metadata".into(), metadata);
    if let Some(rule_set) = rule_set {
        registration.insert("ruleSet".into(), rule_set);
    }
    if new_version > 0 {
        registration.insert("version".into(), Value::from(new_version));
    }
    let body = Bytes::from(Value::Object(registration).to_string());
    register(
        State(state),
        Ok(Path(subject.text.clone())),
        RawQuery(raw_query),
        Ok(body),
    )
    .await
}

/// `base`'s rules with `merge`'s merged in and those named in `remove`
/// removed (Confluent's `maybeModifyPreviousRuleSet`).
fn merged_rules(
    base: Option<&Value>,
    merge: Option<&Value>,
    remove: Option<&[String]>,
) -> Result<Option<Value>, ApiError> {
    let read = |value: &Value| {
        RuleSet::from_json(value).map_err(|why| {
            ApiError::new(
                ErrorCode::InvalidRuleSet,
                format!("Invalid rule set: {why}"),
            )
        })
    };
    let base = base.filter(|v| !v.is_null()).map(read).transpose()?;
    let merge = merge.filter(|v| !v.is_null()).map(read).transpose()?;
    let mut rules = RuleSet::merge(base.as_ref(), merge.as_ref());
    if let (Some(rules), Some(remove)) = (rules.as_mut(), remove) {
        let kept = |list: &mut Vec<Value>| {
            list.retain(|rule| {
                rule.get("name")
                    .and_then(Value::as_str)
                    .is_none_or(|name| !remove.iter().any(|r| r == name))
            })
        };
        kept(&mut rules.migration_rules);
        kept(&mut rules.domain_rules);
        kept(&mut rules.encoding_rules);
    }
    Ok(rules.map(|rules| rules.to_json()))
}

/// The tags to add and to remove, by entity, in the order first named.
struct Edits<'a> {
    entities: Vec<(&'a SchemaEntity, Vec<&'a str>, Vec<&'a str>)>,
}

impl<'a> Edits<'a> {
    fn of(request: &'a TagRequest) -> Result<Edits<'a>, ApiError> {
        let mut entities: Vec<(&SchemaEntity, Vec<&str>, Vec<&str>)> = Vec::new();
        let lists = [
            (&request.tags_to_add, true),
            (&request.tags_to_remove, false),
        ];
        for (list, add) in lists {
            for tags in list.iter().flatten() {
                let entity = &tags.schema_entity;
                if entity.path().is_empty() {
                    return Err(invalid_schema("a schemaEntity's entityPath is empty"));
                }
                let at = match entities.iter().position(|(e, ..)| {
                    e.path() == entity.path() && e.entity_type == entity.entity_type
                }) {
                    Some(at) => at,
                    None => {
                        entities.push((entity, Vec::new(), Vec::new()));
                        entities.len() - 1
                    }
                };
                let (_, to_add, to_remove) = &mut entities[at];
                let into = if add { to_add } else { to_remove };
                into.extend(tags.tags.iter().map(String::as_str));
            }
        }
        Ok(Edits { entities })
    }

    /// Each entity's `confluent:tags`: its tags, those added appended
    /// (once each), those removed taken out; the member dropped when none
    /// is left. The text is edited in place (the member's value replaced,
    /// or the member added last, or removed), every other byte kept as
    /// written, key order and numbers included.
    fn apply(&self, text: &str, language: Language) -> Result<String, ApiError> {
        let mut text = text.to_owned();
        for (entity, add, remove) in &self.entities {
            let tree: Value = serde_json::from_str(&text)
                .map_err(|err| invalid_schema(format!("the schema is no JSON: {err}")))?;
            let pointer = match language {
                Language::Avro => avro_entity(&tree, entity),
                _ => json_entity(&tree, entity),
            }
            .ok_or_else(|| {
                invalid_schema(format!(
                    "No matching path '{}' found in the schema",
                    entity.entity_path
                ))
            })??;
            let node = tree
                .pointer(&pointer)
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    invalid_schema(format!(
                        "the path '{}' names no object of the schema",
                        entity.entity_path
                    ))
                })?;
            let mut tags: Vec<String> = match node.get(TAGS) {
                Some(Value::Array(held)) => held
                    .iter()
                    .map(|tag| match tag {
                        Value::String(tag) => tag.clone(),
                        other => other.to_string(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for tag in add {
                if !tags.iter().any(|t| t == tag) {
                    tags.push((*tag).to_owned());
                }
            }
            tags.retain(|tag| !remove.contains(&tag.as_str()));
            let tags = (!tags.is_empty()).then(|| Value::from(tags).to_string());
            text = splice::set_member(&text, &pointer, TAGS, tags.as_deref())
                .map_err(|why| invalid_schema(format!("the schema cannot be edited: {why}")))?;
        }
        Ok(text)
    }
}

/// A JSON pointer's token for `key`.
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The pointer of an Avro record or field `entity` names: Confluent's
/// breadth-first search (`AvroSchemaUtils.findMatchingEntity`): the
/// path's last name (a record's) or last two (a field's record, then the
/// field), the rest the namespace, which must be the schema's top-level
/// namespace when given; the search goes through unions, fields, array
/// items, map values and nested types, never into a record that matches.
fn avro_entity(tree: &Value, entity: &SchemaEntity) -> Option<Result<String, ApiError>> {
    let identifiers: Vec<&str> = entity.entity_path.split('.').collect();
    let (names, field) = match entity.entity_type {
        EntityType::Record => (&identifiers[..], None),
        EntityType::Field if identifiers.len() >= 2 => (
            &identifiers[..identifiers.len() - 1],
            identifiers.last().copied(),
        ),
        EntityType::Field => return None,
    };
    let (record, namespace) = names.split_last()?;
    let namespace = namespace.join(".");
    let top = tree.get("namespace").and_then(Value::as_str);
    let mut queue: VecDeque<String> = VecDeque::from([String::new()]);
    while let Some(pointer) = queue.pop_front() {
        let Some(node) = tree.pointer(&pointer) else {
            continue;
        };
        let Some(kind) = node.get("type") else {
            // A union (or a name): its branches.
            if let Value::Array(branches) = node {
                queue.extend((0..branches.len()).map(|i| format!("{pointer}/{i}")));
            }
            continue;
        };
        match kind.as_str() {
            Some("record") => {
                let matches = (namespace.is_empty() || Some(namespace.as_str()) == top)
                    && node.get("name").and_then(Value::as_str) == Some(record);
                let fields = node.get("fields").and_then(Value::as_array);
                if matches {
                    let Some(field) = field else {
                        return Some(Ok(pointer));
                    };
                    return fields?
                        .iter()
                        .position(|f| f.get("name").and_then(Value::as_str) == Some(field))
                        .map(|i| Ok(format!("{pointer}/fields/{i}")));
                }
                let count = fields.map_or(0, Vec::len);
                queue.extend((0..count).map(|i| format!("{pointer}/fields/{i}")));
            }
            Some("array") => queue.push_back(format!("{pointer}/items")),
            Some("map") => queue.push_back(format!("{pointer}/values")),
            _ => queue.push_back(format!("{pointer}/type")),
        }
    }
    None
}

/// The pointer of a JSON Schema entity: Confluent's
/// `JsonSchemaUtils.findMatchingEntity`, the path read word by word:
/// `object` then a property name (or `definitions`/`$defs` and a name;
/// a name may hold dots, the longest run of words that is a key), `array`
/// its `items`, `not` its `not`; `anyof` of a `type` list goes on in the
/// same node. A branch of `anyOf`, `allOf` or `oneOf` is refused.
fn json_entity(tree: &Value, entity: &SchemaEntity) -> Option<Result<String, ApiError>> {
    let mut words: VecDeque<&str> = entity.entity_path.split('.').collect();
    let mut pointer = String::new();
    loop {
        let node = tree.pointer(&pointer)?;
        let kind = words.pop_front()?;
        match kind {
            "object" => {
                if entity.entity_type == EntityType::Record && words.is_empty() {
                    return Some(Ok(pointer));
                }
                let container = match words.front() {
                    Some(&"definitions") | Some(&"$defs") => words.pop_front()?,
                    Some(_) => "properties",
                    None => return None,
                };
                let members = node.get(container)?.as_object()?;
                let mut name = words.pop_front()?.to_owned();
                while !members.contains_key(&name) {
                    name.push('.');
                    name.push_str(words.pop_front()?);
                }
                pointer = format!("{pointer}/{}/{}", token(container), token(&name));
                if words.is_empty() {
                    return Some(Ok(pointer));
                }
            }
            "array" => pointer.push_str("/items"),
            "not" => pointer.push_str("/not"),
            "anyof" | "allof" | "oneof"
                if ["anyOf", "allOf", "oneOf"]
                    .iter()
                    .any(|k| node.get(*k).is_some()) =>
            {
                return Some(Err(invalid_schema(format!(
                    "the path '{}' goes through an {kind} branch: tags inside anyOf, allOf or \
                     oneOf are not supported by this server",
                    entity.entity_path
                ))))
            }
            // `"type": ["null", "object"]`: the same node, read on.
            "anyof" | "allof" => {
                words.pop_front()?;
            }
            _ => return None,
        }
    }
}

/// Edits of a JSON text that keep every other byte as written.
mod splice {
    use serde::de::IgnoredAny;

    /// `text` with the member `key` of the object at `pointer` (a JSON
    /// pointer) set to `value` (JSON text; added last when absent), or
    /// removed (`None`).
    pub(super) fn set_member(
        text: &str,
        pointer: &str,
        key: &str,
        value: Option<&str>,
    ) -> Result<String, String> {
        let mut at = white(text, 0);
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match text.as_bytes().get(at) {
                Some(b'{') => {
                    let members = members(text, at)?;
                    members
                        .iter()
                        .find(|m| m.key == token)
                        .map(|m| m.value.0)
                        .ok_or_else(|| format!("no member {token:?}"))?
                }
                Some(b'[') => {
                    let index: usize = token.parse().map_err(|_| format!("no index {token:?}"))?;
                    *items(text, at)?
                        .get(index)
                        .ok_or_else(|| format!("no item {index}"))?
                }
                _ => return Err(format!("nothing to enter at {token:?}")),
            };
        }
        if text.as_bytes().get(at) != Some(&b'{') {
            return Err("the path names no object".into());
        }
        let members = members(text, at)?;
        let found = members.iter().position(|m| m.key == key);
        let mut out = String::with_capacity(text.len() + 64);
        match (found, value) {
            (Some(i), Some(value)) => {
                let (start, stop) = members[i].value;
                out.push_str(&text[..start]);
                out.push_str(value);
                out.push_str(&text[stop..]);
            }
            (None, Some(value)) => {
                let last = members.last().map_or(at + 1, |m| m.value.1);
                out.push_str(&text[..last]);
                if !members.is_empty() {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::from(key).to_string());
                out.push(':');
                out.push_str(value);
                out.push_str(&text[last..]);
            }
            (Some(i), None) => {
                // The member and one comma beside it.
                let (start, stop) = if i > 0 {
                    (members[i - 1].value.1, members[i].value.1)
                } else if let Some(next) = members.get(1) {
                    (members[i].start, next.start)
                } else {
                    (members[i].start, members[i].value.1)
                };
                out.push_str(&text[..start]);
                out.push_str(&text[stop..]);
            }
            (None, None) => out.push_str(text),
        }
        Ok(out)
    }

    /// A member of an object: where its key starts, the key, and its
    /// value's span.
    struct Member {
        start: usize,
        key: String,
        value: (usize, usize),
    }

    fn white(text: &str, mut at: usize) -> usize {
        while matches!(text.as_bytes().get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        at
    }

    /// The end of the JSON value starting at `at` (serde_json reads it,
    /// with its bound on nesting).
    fn end(text: &str, at: usize) -> Result<usize, String> {
        let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<IgnoredAny>();
        match values.next() {
            Some(Ok(_)) => Ok(at + values.byte_offset()),
            Some(Err(err)) => Err(err.to_string()),
            None => Err("a value expected".into()),
        }
    }

    fn members(text: &str, open: usize) -> Result<Vec<Member>, String> {
        let mut out = Vec::new();
        let mut at = white(text, open + 1);
        if text.as_bytes().get(at) == Some(&b'}') {
            return Ok(out);
        }
        loop {
            let start = at;
            let stop = end(text, at)?;
            let key: String =
                serde_json::from_str(&text[start..stop]).map_err(|e| e.to_string())?;
            at = white(text, stop);
            if text.as_bytes().get(at) != Some(&b':') {
                return Err("a ':' expected".into());
            }
            let value_start = white(text, at + 1);
            let value_end = end(text, value_start)?;
            out.push(Member {
                start,
                key,
                value: (value_start, value_end),
            });
            at = white(text, value_end);
            match text.as_bytes().get(at) {
                Some(b',') => at = white(text, at + 1),
                Some(b'}') => return Ok(out),
                _ => return Err("a ',' or '}' expected".into()),
            }
        }
    }

    fn items(text: &str, open: usize) -> Result<Vec<usize>, String> {
        let mut out = Vec::new();
        let mut at = white(text, open + 1);
        if text.as_bytes().get(at) == Some(&b']') {
            return Ok(out);
        }
        loop {
            out.push(at);
            at = white(text, end(text, at)?);
            match text.as_bytes().get(at) {
                Some(b',') => at = white(text, at + 1),
                Some(b']') => return Ok(out),
                _ => return Err("a ',' or ']' expected".into()),
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::set_member;

        #[test]
        fn members_are_set_added_and_removed_in_place() {
            let text = r#"{"type": "record", "fields": [{"name": "a", "n": 1.10}]}"#;
            let added = set_member(text, "", "t", Some(r#"["X"]"#)).unwrap();
            assert_eq!(
                added,
                r#"{"type": "record", "fields": [{"name": "a", "n": 1.10}],"t":["X"]}"#
            );
            let field = set_member(&added, "/fields/0", "t", Some("[1]")).unwrap();
            assert_eq!(
                field,
                r#"{"type": "record", "fields": [{"name": "a", "n": 1.10,"t":[1]}],"t":["X"]}"#
            );
            let replaced = set_member(&field, "", "t", Some("[]")).unwrap();
            assert!(replaced.ends_with(r#""t":[]}"#), "{replaced}");
            let removed = set_member(&field, "", "t", None).unwrap();
            assert_eq!(
                removed,
                r#"{"type": "record", "fields": [{"name": "a", "n": 1.10,"t":[1]}]}"#
            );
            let first = set_member(r#"{"t": 1, "u": 2}"#, "", "t", None).unwrap();
            assert_eq!(first, r#"{"u": 2}"#);
            let only = set_member(r#"{ "t": 1 }"#, "", "t", None).unwrap();
            assert_eq!(only, "{  }");
            let empty = set_member("{}", "", "t", Some("[2]")).unwrap();
            assert_eq!(empty, r#"{"t":[2]}"#);
            assert!(set_member("[1]", "", "t", None).is_err());
            assert!(set_member(r#"{"a": 1}"#, "/b", "t", None).is_err());
        }
    }
}
