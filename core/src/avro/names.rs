//! Named types across schemas: an Avro schema may use a record, enum or
//! fixed another schema defines, by full name, the other schema one of its
//! [`references`](crate::schema::Schema::references) (Confluent's Avro
//! references).
//!
//! As Java's `Schema.Parser` does when Confluent's `AvroSchema` parses the
//! referenced schemas first, the types the referenced schemas define
//! (transitively: a referenced schema's own references too) are known by
//! full name when the schema is read. A reference's `name` is a label here
//! (Confluent's clients send the full name of the type); what a reference
//! brings is every named type its schema defines.
//!
//! The schema's bytes stay as written. The model is read from the schema
//! with each type it uses from a reference written in, at its first use,
//! as a definition (its name made full): the *resolved* schema, whose
//! Parsing Canonical Form and fingerprint are Avro's for the schema as a
//! parser holding the references reads it. A JSON pointer into the schema
//! still points where it did (a name becomes the object defining it).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::model::{parse, parse_value, AvroSchema, SchemaError};
use crate::error::Error;
use crate::resolver::Resolver;
use crate::schema::{Language, Schema};
use crate::urn::Urn;

/// The most schemas a schema's references may reach, transitively.
pub(crate) const MAX_REFERENCED: usize = 256;

/// How deep the walks below go (a schema the model reads nests at most
/// [`super::model::MAX_SCHEMA_DEPTH`] types, each at most two JSON levels).
const MAX_WALK: usize = 4 * super::model::MAX_SCHEMA_DEPTH;

const PRIMITIVES: [&str; 8] = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

const NAMED: [&str; 4] = ["record", "error", "enum", "fixed"];

/// The named types a schema's references define, by full name.
#[derive(Debug, Default)]
pub(crate) struct Definitions {
    by_name: HashMap<String, Definition>,
}

/// One named type a reference defines.
#[derive(Debug)]
struct Definition {
    /// Its JSON, `name` made full and `namespace` dropped (the same type
    /// wherever it is written).
    json: Value,
    /// The URN of the schema defining it.
    urn: Urn,
}

impl Definitions {
    /// Whether no reference defines anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The full names defined, sorted.
    pub(crate) fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }
}

/// Why a schema's references give no definitions.
#[derive(Debug)]
pub(crate) enum DefinitionsError {
    /// A reference names a URN nobody holds.
    Missing(Urn),
    /// A reference's schema could not be fetched just now.
    Unreachable(Error),
    /// The references are not usable: why, in words.
    Unusable(String),
}

/// The named types `schema`'s references define, their own references
/// followed, each schema once; resolved through `refs`.
pub(crate) fn collect(
    schema: &Schema,
    refs: &dyn Resolver,
) -> Result<Definitions, DefinitionsError> {
    let mut definitions = Definitions::default();
    let mut pending: Vec<(String, Urn)> = schema
        .references()
        .iter()
        .rev()
        .map(|r| (r.name().to_owned(), r.urn().clone()))
        .collect();
    let mut visited: HashSet<Urn> = HashSet::new();
    visited.insert(schema.urn().clone());
    while let Some((name, urn)) = pending.pop() {
        if !visited.insert(urn.clone()) {
            continue;
        }
        if visited.len() > MAX_REFERENCED + 1 {
            return Err(DefinitionsError::Unusable(format!(
                "the schema's references reach more than {MAX_REFERENCED} schemas"
            )));
        }
        let referenced = match refs.resolve(&urn) {
            Ok(schema) => schema,
            Err(Error::NotFound { .. }) => return Err(DefinitionsError::Missing(urn)),
            Err(err) => return Err(DefinitionsError::Unreachable(err)),
        };
        let label = format!("reference {:?} ({urn})", crate::text::clip(&name, 100));
        if referenced.language() != Language::Avro {
            return Err(DefinitionsError::Unusable(format!(
                "{label} is a {} schema, not Avro",
                referenced.language()
            )));
        }
        let json: Value = serde_json::from_slice(referenced.bytes())
            .map_err(|err| DefinitionsError::Unusable(format!("{label} is not JSON: {err}")))?;
        let mut found = Vec::new();
        index(&json, "", &mut found, 0)
            .map_err(|why| DefinitionsError::Unusable(format!("{label}: {why}")))?;
        for (full, json) in found {
            if let Some(held) = definitions.by_name.get(&full) {
                return Err(DefinitionsError::Unusable(format!(
                    "{full:?} is defined twice among the references: by {} and by {urn}",
                    held.urn
                )));
            }
            definitions.by_name.insert(
                full,
                Definition {
                    json,
                    urn: urn.clone(),
                },
            );
        }
        for reference in referenced.references().iter().rev() {
            pending.push((reference.name().to_owned(), reference.urn().clone()));
        }
    }
    Ok(definitions)
}

/// Why a schema could not be read over its references.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Its references give no definitions.
    Definitions(DefinitionsError),
    /// The schema (resolved) is not a usable Avro schema.
    Schema(super::model::SchemaError),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Definitions(DefinitionsError::Missing(urn)) => {
                write!(f, "its reference {urn} is not held by any resolver")
            }
            ReadError::Definitions(DefinitionsError::Unreachable(err)) => {
                write!(f, "its references could not be fetched: {}", err.chain())
            }
            ReadError::Definitions(DefinitionsError::Unusable(why)) => f.write_str(why),
            ReadError::Schema(err) => err.fmt(f),
        }
    }
}

/// Reads a schema's JSON text over the named types its references define
/// (this module): the model of the schema resolved, each type it
/// uses from a reference written in at its first use.
fn parse_over(bytes: &[u8], definitions: &Definitions) -> Result<AvroSchema, SchemaError> {
    if definitions.is_empty() {
        return parse(bytes);
    }
    let json: Value = serde_json::from_slice(bytes)
        .map_err(|err| SchemaError::new("", format!("the schema is not JSON: {err}")))?;
    redefinition(&json, definitions)?;
    parse_value(&inlined(&json, definitions))
}

/// Reads `schema` (Avro) into the model, over the named types its
/// references define, resolved through `refs`.
pub(crate) fn read(
    schema: &Schema,
    refs: &dyn Resolver,
) -> Result<super::model::AvroSchema, ReadError> {
    if schema.references().is_empty() {
        return super::model::parse(schema.bytes()).map_err(ReadError::Schema);
    }
    let definitions = collect(schema, refs).map_err(ReadError::Definitions)?;
    parse_over(schema.bytes(), &definitions).map_err(ReadError::Schema)
}

/// `name` in namespace `space` (a name with a dot is full already).
fn full_name(name: &str, space: &str) -> String {
    super::model::full_name(name, space)
}

fn namespace_of(full: &str) -> &str {
    full.rfind('.').map_or("", |dot| &full[..dot])
}

/// The full name of the named type `object` defines in the enclosing
/// namespace `space`, if it is one.
fn defined_name(object: &Map<String, Value>, space: &str) -> Option<String> {
    let kind = object.get("type").and_then(Value::as_str)?;
    if !NAMED.contains(&kind) {
        return None;
    }
    let name = object.get("name").and_then(Value::as_str)?;
    if name.contains('.') {
        return Some(name.to_owned());
    }
    let space = match object.get("namespace") {
        Some(Value::String(ns)) => ns.as_str(),
        Some(Value::Null) => "",
        _ => space,
    };
    Some(full_name(name, space))
}

/// The named types `json` defines (found under the enclosing namespace
/// `space`), each with its JSON made standalone.
fn index(
    json: &Value,
    space: &str,
    found: &mut Vec<(String, Value)>,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_WALK {
        return Err(format!("types nest deeper than {MAX_WALK} levels"));
    }
    match json {
        Value::Array(branches) => {
            for branch in branches {
                index(branch, space, found, depth + 1)?;
            }
        }
        Value::Object(object) => {
            if let Some(full) = defined_name(object, space) {
                let mut standalone = object.clone();
                standalone.insert("name".into(), Value::String(full.clone()));
                standalone.remove("namespace");
                found.push((full.clone(), Value::Object(standalone)));
                let inner = namespace_of(&full);
                for field in object
                    .get("fields")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(ty) = field.get("type") {
                        index(ty, inner, found, depth + 1)?;
                    }
                }
                return Ok(());
            }
            for key in ["items", "values"] {
                if let Some(inner) = object.get(key) {
                    index(inner, space, found, depth + 1)?;
                }
            }
            if let Some(inner @ (Value::Object(_) | Value::Array(_))) = object.get("type") {
                index(inner, space, found, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The full names of the named types `json` (a schema's JSON) defines, in
/// order, nested ones included: what a folder indexes to find the schema
/// defining a name.
pub fn defined_names(json: &Value) -> Vec<String> {
    let mut found = Vec::new();
    // A schema nested past the walk's bound is refused when it is read.
    let _ = index(json, "", &mut found, 0);
    found.into_iter().map(|(name, _)| name).collect()
}

/// The names `json` (a schema's JSON) uses that it does not define
/// before, each as the full name the enclosing namespace gives it, then
/// as written when that differs (a short name may be a type of the null
/// namespace): the names a folder looks for in its other schemas.
/// Sorted, without repeats.
pub fn used_names(json: &Value) -> Vec<Vec<String>> {
    let mut seen = HashSet::new();
    let mut used = Vec::new();
    walk_used(json, "", &mut seen, &mut used, 0);
    used.sort();
    used.dedup();
    used
}

fn walk_used(
    json: &Value,
    space: &str,
    seen: &mut HashSet<String>,
    used: &mut Vec<Vec<String>>,
    depth: usize,
) {
    if depth > MAX_WALK {
        return;
    }
    let mut reference = |name: &str, seen: &HashSet<String>| {
        if PRIMITIVES.contains(&name) {
            return;
        }
        let full = full_name(name, space);
        if seen.contains(&full) || (!name.contains('.') && seen.contains(name)) {
            return;
        }
        let mut forms = vec![full.clone()];
        if full != name {
            forms.push(name.to_owned());
        }
        used.push(forms);
    };
    match json {
        Value::String(name) => reference(name, seen),
        Value::Array(branches) => {
            for branch in branches {
                walk_used(branch, space, seen, used, depth + 1);
            }
        }
        Value::Object(object) => match object.get("type") {
            Some(Value::String(kind)) if NAMED.contains(&kind.as_str()) => {
                let Some(full) = defined_name(object, space) else {
                    return;
                };
                seen.insert(full.clone());
                let inner = namespace_of(&full).to_owned();
                for field in object
                    .get("fields")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(ty) = field.get("type") {
                        walk_used(ty, &inner, seen, used, depth + 1);
                    }
                }
            }
            Some(Value::String(kind)) if kind == "array" || kind == "map" => {
                let key = if kind == "array" { "items" } else { "values" };
                if let Some(inner) = object.get(key) {
                    walk_used(inner, space, seen, used, depth + 1);
                }
            }
            Some(Value::String(name)) => reference(name, seen),
            Some(inner) => walk_used(inner, space, seen, used, depth + 1),
            None => {}
        },
        _ => {}
    }
}

/// The first named type `json` (a schema's JSON) defines itself that a
/// reference defines too, as the error the model reports for it, at the
/// definition's `name`. Java's parser refuses to define a name it knows
/// already (`Schema.Names.put` in Avro 1.11, `ParseContext.put` in 1.12:
/// "Can't redefine"), and Confluent's `AvroSchema` parses the referenced
/// schemas first: so a schema defining a type its references bring is
/// refused in whichever order it defines and uses it.
pub(crate) fn redefinition(
    json: &Value,
    definitions: &Definitions,
) -> Result<(), super::model::SchemaError> {
    let mut at = String::new();
    own_definitions(
        json,
        "",
        &mut at,
        0,
        &mut |full, at| match definitions.by_name.get(full) {
            Some(held) => Err(super::model::SchemaError::new(
                &format!("{at}/name"),
                format!(
                    "{full:?} is defined twice: by the schema and by its reference {} (a \
                     named type is defined once)",
                    held.urn
                ),
            )),
            None => Ok(()),
        },
    )
}

/// Calls `found` with the full name and the JSON pointer of each named
/// type `json` defines (under the enclosing namespace `space`, at `at`).
fn own_definitions<E>(
    json: &Value,
    space: &str,
    at: &mut String,
    depth: usize,
    found: &mut impl FnMut(&str, &str) -> Result<(), E>,
) -> Result<(), E> {
    // Deeper than the model reads: refused there.
    if depth > MAX_WALK {
        return Ok(());
    }
    let within = |inner: &Value, segment: &str, space: &str, at: &mut String, found: &mut _| {
        let len = at.len();
        at.push('/');
        at.push_str(segment);
        let result = own_definitions(inner, space, at, depth + 1, found);
        at.truncate(len);
        result
    };
    match json {
        Value::Array(branches) => {
            for (i, branch) in branches.iter().enumerate() {
                within(branch, &i.to_string(), space, at, found)?;
            }
        }
        Value::Object(object) => {
            if let Some(full) = defined_name(object, space) {
                found(&full, at)?;
                let inner = namespace_of(&full);
                for (i, field) in object
                    .get("fields")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    if let Some(ty) = field.get("type") {
                        within(ty, &format!("fields/{i}/type"), inner, at, found)?;
                    }
                }
                return Ok(());
            }
            for key in ["items", "values"] {
                if let Some(inner) = object.get(key) {
                    within(inner, key, space, at, found)?;
                }
            }
            if let Some(inner @ (Value::Object(_) | Value::Array(_))) = object.get("type") {
                within(inner, "type", space, at, found)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `json` with `definitions` inlined: each name it uses that neither it
/// (so far) nor an earlier definition defines, and a reference defines,
/// replaced at its first use by the definition (the same lookup as the
/// model's: the full name in the enclosing namespace, then the name as
/// written). A definition brought in defines its nested types too; one of
/// them met again inside another definition is written as its name.
pub(crate) fn inlined(json: &Value, definitions: &Definitions) -> Value {
    let mut resolved = json.clone();
    let mut seen = HashSet::new();
    inline(&mut resolved, "", &mut seen, definitions, false, 0);
    resolved
}

/// The definition `name` (used in namespace `space`) brings in, if it
/// names a type not defined yet that a reference defines.
fn pick<'a>(
    name: &str,
    space: &str,
    seen: &HashSet<String>,
    definitions: &'a Definitions,
) -> Option<&'a Definition> {
    if PRIMITIVES.contains(&name) {
        return None;
    }
    let full = full_name(name, space);
    if seen.contains(&full) {
        return None;
    }
    if let Some(definition) = definitions.by_name.get(&full) {
        return Some(definition);
    }
    if name.contains('.') || seen.contains(name) {
        return None;
    }
    definitions.by_name.get(name)
}

fn inline(
    json: &mut Value,
    space: &str,
    seen: &mut HashSet<String>,
    definitions: &Definitions,
    inside: bool,
    depth: usize,
) {
    if depth > MAX_WALK {
        return;
    }
    match json {
        Value::String(name) => {
            if let Some(definition) = pick(name, space, seen, definitions) {
                *json = definition.json.clone();
                inline(json, space, seen, definitions, true, depth + 1);
            }
        }
        Value::Array(branches) => {
            for branch in branches {
                inline(branch, space, seen, definitions, inside, depth + 1);
            }
        }
        Value::Object(object) => {
            let kind = object.get("type").cloned();
            match kind {
                Some(Value::String(kind)) if NAMED.contains(&kind.as_str()) => {
                    let Some(full) = defined_name(object, space) else {
                        return;
                    };
                    if !seen.insert(full.clone()) {
                        if inside {
                            // Brought in already (a reference's nested
                            // type used before its container).
                            *json = Value::String(full);
                        }
                        return;
                    }
                    let inner = namespace_of(&full).to_owned();
                    if let Some(Value::Array(fields)) = object.get_mut("fields") {
                        for field in fields {
                            if let Some(ty) = field.get_mut("type") {
                                inline(ty, &inner, seen, definitions, inside, depth + 1);
                            }
                        }
                    }
                }
                Some(Value::String(kind)) if kind == "array" || kind == "map" => {
                    let key = if kind == "array" { "items" } else { "values" };
                    if let Some(inner) = object.get_mut(key) {
                        inline(inner, space, seen, definitions, inside, depth + 1);
                    }
                }
                Some(Value::String(name)) => {
                    if let Some(definition) = pick(&name, space, seen, definitions) {
                        *json = definition.json.clone();
                        inline(json, space, seen, definitions, true, depth + 1);
                    }
                }
                Some(_) => {
                    if let Some(inner) = object.get_mut("type") {
                        inline(inner, space, seen, definitions, inside, depth + 1);
                    }
                }
                None => {}
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn definitions(schemas: &[Value]) -> Definitions {
        let mut definitions = Definitions::default();
        for (i, schema) in schemas.iter().enumerate() {
            let mut found = Vec::new();
            index(schema, "", &mut found, 0).unwrap();
            for (full, json) in found {
                let urn: Urn = format!("urn:test:schema:d{i}:1").parse().unwrap();
                definitions.by_name.insert(full, Definition { json, urn });
            }
        }
        definitions
    }

    #[test]
    fn first_use_becomes_the_definition() {
        let money = json!({"type": "record", "name": "Money", "namespace": "acme",
            "fields": [{"name": "cents", "type": "long"}]});
        let defs = definitions(&[money]);
        let main = json!({"type": "record", "name": "Payment", "namespace": "acme",
            "fields": [{"name": "a", "type": "Money"}, {"name": "b", "type": "acme.Money"}]});
        let resolved = inlined(&main, &defs);
        assert_eq!(resolved["fields"][0]["type"]["name"], "acme.Money");
        assert_eq!(resolved["fields"][1]["type"], "acme.Money");
        assert_eq!(
            used_names(&main),
            vec![
                vec!["acme.Money".to_owned()],
                vec!["acme.Money".to_owned(), "Money".to_owned()]
            ]
        );
    }

    #[test]
    fn nested_definitions_are_not_defined_twice() {
        let outer = json!({"type": "record", "name": "a.Outer", "fields": [
            {"name": "i", "type": {"type": "enum", "name": "Inner", "symbols": ["X"]}}]});
        let defs = definitions(&[outer]);
        assert_eq!(defs.names(), vec!["a.Inner", "a.Outer"]);
        let main = json!(["a.Inner", "a.Outer"]);
        let resolved = inlined(&main, &defs);
        assert_eq!(resolved[0]["name"], "a.Inner");
        assert_eq!(resolved[1]["fields"][0]["type"], "a.Inner");
    }
}
