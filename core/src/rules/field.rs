//! The fields of a JSON payload a field rule (`CEL_FIELD`) reaches,
//! walked beside its JSON Schema as Confluent's
//! `JsonSchema.toTransformedMessage` walks them: an object's `properties`
//! (each a field named `$.a.b`, `$.items[0].sku` in arrays), `allOf`
//! (every branch), `anyOf`/`oneOf` (the branches whose `type` takes the
//! value: Confluent validates each branch; here only its `type` is
//! asked), local `$ref`s; a field's tags are its `confluent:tags` and the
//! version's `metadata.tags` whose path pattern matches its name
//! (Confluent's `WildcardMatcher`). Only primitive fields (string,
//! number, integer, boolean, null) are handed to the rule, as
//! `CelFieldExecutor` runs on primitives only.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// How deep the walk goes (schemas and payload together, `$ref`s
/// included): a recursive schema cannot make it loop.
const MAX_WALK_DEPTH: usize = 64;

/// A field the rule applies to.
pub(crate) struct Field<'a> {
    pub(crate) full_name: &'a str,
    /// The field's JSON pointer in the payload (`/items/0/sku`).
    pub(crate) pointer: &'a str,
    pub(crate) name: &'a str,
    pub(crate) type_name: &'static str,
    pub(crate) tags: &'a BTreeSet<String>,
    pub(crate) value: &'a Value,
    /// The object holding the field.
    pub(crate) message: &'a Value,
}

struct Context<'s, 'v> {
    full_name: String,
    name: &'s str,
    tags: BTreeSet<String>,
    message: &'v Value,
}

pub(crate) struct Walk<'s, 'v, F> {
    pub(crate) root: &'s Value,
    pub(crate) metadata_tags: &'s BTreeMap<String, BTreeSet<String>>,
    pub(crate) rule_tags: &'s BTreeSet<String>,
    pub(crate) visit: F,
    pub(crate) _value: std::marker::PhantomData<&'v Value>,
}

impl<'s, 'v, F, E> Walk<'s, 'v, F>
where
    F: FnMut(Field<'_>) -> Result<(), E>,
{
    pub(crate) fn run(&mut self, value: &'v Value) -> Result<(), E> {
        let root = self.root;
        self.walk(root, "$", "", value, None, 0)
    }

    fn walk(
        &mut self,
        schema: &'s Value,
        path: &str,
        pointer: &str,
        value: &'v Value,
        field: Option<&Context<'s, 'v>>,
        depth: usize,
    ) -> Result<(), E> {
        if depth > MAX_WALK_DEPTH {
            return Ok(());
        }
        let Some(object) = schema.as_object() else {
            return Ok(());
        };
        if let Some(Value::String(target)) = object.get("$ref") {
            if let Some(pointer) = target.strip_prefix('#') {
                if let Some(target) = self.root.pointer(pointer) {
                    self.walk(target, path, pointer, value, field, depth + 1)?;
                }
            }
            return Ok(());
        }
        if let Some(Value::Array(all)) = object.get("allOf") {
            for branch in all {
                self.walk(branch, path, pointer, value, field, depth + 1)?;
            }
            return Ok(());
        }
        for (key, first_only) in [("anyOf", false), ("oneOf", true)] {
            if let Some(Value::Array(branches)) = object.get(key) {
                for branch in branches {
                    if takes(branch, value) {
                        self.walk(branch, path, pointer, value, field, depth + 1)?;
                        if first_only {
                            break;
                        }
                    }
                }
                return Ok(());
            }
        }
        if object.contains_key("enum") || object.contains_key("const") {
            // ENUM: not a primitive in Confluent's `RuleContext.Type`.
            return Ok(());
        }
        let Some(kind) = type_of(object, value) else {
            return Ok(());
        };
        match kind {
            "object" => {
                let (Some(Value::Object(properties)), Some(members)) =
                    (object.get("properties"), value.as_object())
                else {
                    return Ok(());
                };
                for (name, property) in properties {
                    let Some(member) = members.get(name) else {
                        continue;
                    };
                    let full_name = format!("{path}.{name}");
                    let mut tags = inline_tags(property);
                    for (pattern, more) in self.metadata_tags {
                        if wildcard_match(&full_name, pattern) {
                            tags.extend(more.iter().cloned());
                        }
                    }
                    let context = Context {
                        full_name,
                        name,
                        tags,
                        message: value,
                    };
                    let path = context.full_name.clone();
                    let escaped = name.replace('~', "~0").replace('/', "~1");
                    let pointer = format!("{pointer}/{escaped}");
                    self.walk(property, &path, &pointer, member, Some(&context), depth + 1)?;
                }
                Ok(())
            }
            "array" => {
                let (Some(items), Some(elements)) = (object.get("items"), value.as_array()) else {
                    return Ok(());
                };
                if !items.is_object() {
                    return Ok(());
                }
                for (i, element) in elements.iter().enumerate() {
                    let path = format!("{path}[{i}]");
                    let pointer = format!("{pointer}/{i}");
                    self.walk(items, &path, &pointer, element, field, depth + 1)?;
                }
                Ok(())
            }
            primitive => {
                let Some(field) = field else {
                    return Ok(());
                };
                if !self.rule_tags.is_empty() && self.rule_tags.is_disjoint(&field.tags) {
                    return Ok(());
                }
                let type_name = match primitive {
                    "string" => "STRING",
                    "integer" => "INT",
                    "number" => "DOUBLE",
                    "boolean" => "BOOLEAN",
                    _ => "NULL",
                };
                (self.visit)(Field {
                    full_name: &field.full_name,
                    pointer,
                    name: field.name,
                    type_name,
                    tags: &field.tags,
                    value,
                    message: field.message,
                })
            }
        }
    }
}

/// The schema's type for this value: its `type` (the member of a `type`
/// list the value has), else `object` when it has `properties`.
fn type_of<'a>(schema: &'a serde_json::Map<String, Value>, value: &Value) -> Option<&'a str> {
    match schema.get("type") {
        Some(Value::String(kind)) => Some(kind),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| json_type_takes(kind, value)),
        _ => schema.contains_key("properties").then_some("object"),
    }
}

/// Whether a branch's `type` (if any) takes the value.
fn takes(branch: &Value, value: &Value) -> bool {
    match branch.get("type") {
        Some(Value::String(kind)) => json_type_takes(kind, value),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .any(|kind| json_type_takes(kind, value)),
        _ => true,
    }
}

fn json_type_takes(kind: &str, value: &Value) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => false,
    }
}

fn inline_tags(schema: &Value) -> BTreeSet<String> {
    match schema.get("confluent:tags") {
        Some(Value::Array(tags)) => tags
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => BTreeSet::new(),
    }
}

/// Confluent's `WildcardMatcher.match`: names separated by `.`; `?` one
/// character within a name, `*` any characters within a name, `**` any
/// characters across names. Matched without building a regex, in time
/// bounded by the product of the two lengths.
pub(crate) fn wildcard_match(name: &str, pattern: &str) -> bool {
    let pattern = pattern.replace("**.*", "**");
    #[derive(Clone, Copy)]
    enum Token {
        Char(char),
        One,
        Within,
        Across,
    }
    let mut tokens = Vec::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                Token::Across
            }
            '*' => Token::Within,
            '?' => Token::One,
            '\\' => Token::Char(chars.next().unwrap_or('\\')),
            other => Token::Char(other),
        });
    }
    let name: Vec<char> = name.chars().collect();
    // matches[j]: the first i characters of the name match the first j tokens.
    let mut matches = vec![false; tokens.len() + 1];
    matches[0] = true;
    for (j, token) in tokens.iter().enumerate() {
        matches[j + 1] = matches[j] && matches!(token, Token::Within | Token::Across);
    }
    for &c in &name {
        let mut next = vec![false; tokens.len() + 1];
        for (j, token) in tokens.iter().enumerate() {
            let consume = match token {
                Token::Char(p) => matches[j] && *p == c,
                Token::One => matches[j] && c != '.',
                Token::Within => (matches[j + 1] || matches[j]) && c != '.',
                Token::Across => matches[j + 1] || matches[j],
            };
            let star = matches!(token, Token::Within | Token::Across);
            next[j + 1] = consume || (star && next[j]);
        }
        matches = next;
    }
    matches[tokens.len()]
}

/// The most schema nodes the build's walks of a JSON Schema visit (a
/// schema whose `$ref`s branch can name more fields than that: the
/// checks then say nothing rather than something wrong).
const MAX_SCHEMA_VISITS: usize = 10_000;

/// Every field of a JSON Schema document by its full name, as the walk
/// at run time names it (`$.customer.email`; an array's items as
/// `$.items[0].sku`), with its `confluent:tags`: for the checks at build.
/// `None` when the schema names more fields than the walk visits.
pub(crate) fn json_fields(root: &Value) -> Option<BTreeMap<String, Vec<String>>> {
    let mut out = BTreeMap::new();
    let mut visits = 0;
    json_fields_at(root, root, "$", &mut out, &mut visits, 0).then_some(out)
}

fn json_fields_at(
    root: &Value,
    schema: &Value,
    path: &str,
    out: &mut BTreeMap<String, Vec<String>>,
    visits: &mut usize,
    depth: usize,
) -> bool {
    *visits += 1;
    if *visits > MAX_SCHEMA_VISITS {
        return false;
    }
    if depth > MAX_WALK_DEPTH {
        return true;
    }
    let Some(object) = schema.as_object() else {
        return true;
    };
    let mut complete = true;
    let mut go = |next: &Value, path: &str, out: &mut BTreeMap<String, Vec<String>>| {
        complete &= json_fields_at(root, next, path, out, visits, depth + 1);
    };
    if let Some(target) = local_ref(root, object) {
        go(target, path, out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(key) {
            for branch in branches {
                go(branch, path, out);
            }
        }
    }
    if let Some(Value::Object(properties)) = object.get("properties") {
        for (name, property) in properties {
            let full_name = format!("{path}.{name}");
            out.entry(full_name.clone())
                .or_default()
                .extend(inline_tags(property));
            go(property, &full_name, out);
        }
    }
    if let Some(items) = object.get("items").filter(|items| items.is_object()) {
        go(items, &format!("{path}[0]"), out);
    }
    complete
}

/// The target of a schema's local `$ref` (`#/...`).
fn local_ref<'a>(root: &'a Value, object: &serde_json::Map<String, Value>) -> Option<&'a Value> {
    let target = object.get("$ref")?.as_str()?.strip_prefix('#')?;
    root.pointer(target)
}

/// Whether a `metadata.tags` path pattern matches some field of
/// `fields` ([`json_fields`]): an index in the pattern (`[3]`) matches
/// the walk's `[0]`.
pub(crate) fn json_pattern_matches(fields: &BTreeMap<String, Vec<String>>, pattern: &str) -> bool {
    let mut normal = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(open) = rest.find('[') {
        normal.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(']') {
            normal.push('0');
            rest = &rest[digits..];
        }
    }
    normal.push_str(rest);
    fields
        .keys()
        .any(|name| wildcard_match(name, pattern) || wildcard_match(name, &normal))
}

/// The first step of `path` (see `PayloadForm::missing_step`) naming no
/// property of a JSON Schema document: a step below a schema that lists
/// `properties` must be one of them (or match its `patternProperties`, or
/// be taken by an `additionalProperties` schema); below one that lists
/// none, nothing is checked.
pub(crate) fn json_missing_step(root: &Value, path: &[&str]) -> Option<usize> {
    let mut at: Vec<&Value> = vec![root];
    for (i, step) in path.iter().enumerate() {
        let (mut next, mut listed, mut open) = (Vec::new(), false, false);
        let mut stack = at;
        let mut visits = 0;
        while let Some(schema) = stack.pop() {
            visits += 1;
            if visits > MAX_SCHEMA_VISITS {
                return None;
            }
            let Some(object) = schema.as_object() else {
                open |= schema != &Value::Bool(false);
                continue;
            };
            if let Some(target) = local_ref(root, object) {
                stack.push(target);
            }
            for key in ["allOf", "anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = object.get(key) {
                    stack.extend(branches);
                }
            }
            if *step == super::form::ITEM {
                match object.get("items") {
                    Some(items) if items.is_object() => next.push(items),
                    Some(_) => open = true,
                    None => {}
                }
                match object.get("additionalProperties") {
                    Some(values) if values.is_object() => next.push(values),
                    _ => open |= !object.contains_key("properties"),
                }
                continue;
            }
            if let Some(Value::Object(properties)) = object.get("properties") {
                listed = true;
                if let Some(property) = properties.get(*step) {
                    next.push(property);
                }
            }
            if object.contains_key("patternProperties")
                || object
                    .get("additionalProperties")
                    .is_some_and(|more| more.is_object() || *more == Value::Bool(true))
            {
                open = true;
            }
        }
        if next.is_empty() {
            return (listed && !open).then_some(i);
        }
        at = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::wildcard_match;

    #[test]
    fn confluents_wildcard_examples() {
        // WildcardMatcher's own javadoc examples.
        assert!(wildcard_match("eve", "eve*"));
        assert!(wildcard_match("alice.bob.eve", "a*.bob.eve"));
        assert!(wildcard_match("alice.bob.eve", "a*.bob.e*"));
        assert!(!wildcard_match("alice.bob.eve", "a*"));
        assert!(wildcard_match("alice.bob.eve", "a**"));
        assert!(!wildcard_match("alice.bob.eve", "alice.bob*"));
        assert!(wildcard_match("alice.bob.eve", "alice.bob**"));
        assert!(wildcard_match("$.ssn", "$.ssn"));
        assert!(!wildcard_match("$.ssn2", "$.ssn"));
    }
}
