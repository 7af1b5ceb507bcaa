//! The schema resources of a document: each subschema with an `$id` (`id`
//! in draft 4) starts one, whose absolute URI is its `$id` resolved against
//! the enclosing resource's, and a `$ref` inside it resolves against that
//! base, as `jsonschema` (its `referencing` crate) resolves it: a relative
//! `$id` below the root, and `$ref`s between the resources of one
//! document, are then covered by the plan.

use serde_json::{Map, Value};

use super::{Built, Draft, PlanRefusal};
use crate::json::validate::analysis::{join, DEFAULT_BASE};

/// The resources of one document, by JSON pointer (escaped as the builder
/// keys nodes), the root's first.
pub(in crate::json::validate) struct Resources {
    list: Vec<(String, String)>,
}

impl Resources {
    /// The resources of `doc`, whose own URI is `uri` (the default base
    /// for the root document, its URN for a registry schema). Refuses a
    /// document with an `$id` where `referencing` may not read one (under
    /// a keyword it does not walk for this draft), or one that does not
    /// resolve.
    pub(super) fn of(doc: &Value, uri: &str, draft: Draft) -> Built<Resources> {
        let mut list = Vec::new();
        let mut visited = std::collections::HashSet::new();
        let mut open = vec![(String::new(), uri.to_owned())];
        while let Some((pointer, mut base)) = open.pop() {
            let Some(Value::Object(map)) = doc.pointer(&pointer) else {
                continue;
            };
            if let Some(id) = id_of(map, draft) {
                let (uri, _) = join(&base, id).map_err(|why| {
                    PlanRefusal::new(format!(
                        "{pointer:?}: the `$id` {id:?} does not resolve: {why}"
                    ))
                })?;
                base = uri;
                list.push((pointer.clone(), base.clone()));
            } else if pointer.is_empty() {
                list.push((String::new(), base.clone()));
            }
            for child in children(map, &pointer, draft) {
                open.push((child, base.clone()));
            }
            visited.insert(pointer);
        }
        // Any other `$id`: one `referencing` may or may not read.
        let key = id_key(draft);
        let mut open = vec![(doc, String::new())];
        while let Some((value, pointer)) = open.pop() {
            match value {
                Value::Object(map) => {
                    if matches!(map.get(key), Some(Value::String(id)) if !id.starts_with('#'))
                        && !visited.contains(&pointer)
                    {
                        return Err(PlanRefusal::new(format!(
                            "{pointer:?} has an `{key}` outside the subschemas"
                        )));
                    }
                    for (name, child) in map {
                        if matches!(name.as_str(), "enum" | "const" | "default" | "examples") {
                            continue;
                        }
                        open.push((child, format!("{pointer}/{}", escape(name))));
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        open.push((child, format!("{pointer}/{i}")));
                    }
                }
                _ => {}
            }
        }
        Ok(Resources { list })
    }

    /// The resource holding the subschema at `pointer` (the innermost):
    /// its pointer and its absolute URI.
    pub(super) fn holding(&self, pointer: &str) -> (&str, &str) {
        self.list
            .iter()
            .filter(|(root, _)| {
                pointer == root
                    || (pointer.starts_with(root.as_str())
                        && pointer.as_bytes().get(root.len()) == Some(&b'/'))
            })
            .max_by_key(|(root, _)| root.len())
            .map(|(root, uri)| (root.as_str(), uri.as_str()))
            .unwrap_or(("", DEFAULT_BASE))
    }

    /// The pointer of the resource whose absolute URI is `uri`.
    pub(super) fn named(&self, uri: &str) -> Option<&str> {
        let mut found = self.list.iter().filter(|(_, u)| u == uri);
        let first = found.next()?;
        // Two resources of one URI: which one `referencing` keeps is not
        // ours to guess.
        found.next().is_none().then_some(first.0.as_str())
    }

    /// Whether the document holds resources below its root.
    pub(super) fn nested(&self) -> bool {
        self.list.len() > 1
    }
}

fn id_key(draft: Draft) -> &'static str {
    if draft == Draft::D4 {
        "id"
    } else {
        "$id"
    }
}

/// The `$id` that starts a resource, as `referencing` reads it: in drafts
/// 4 to 7 not a plain name, and not beside a `$ref` (which hides it).
fn id_of(map: &Map<String, Value>, draft: Draft) -> Option<&str> {
    let id = map.get(id_key(draft))?.as_str()?;
    if draft <= Draft::D7 && (id.starts_with('#') || map.contains_key("$ref")) {
        return None;
    }
    Some(id)
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The subschemas below `map` that `referencing` walks for `draft`
/// (its `spec/draft*.rs`), by pointer.
fn children(map: &Map<String, Value>, pointer: &str, draft: Draft) -> Vec<String> {
    enum Shape {
        One,
        Many,
        Named,
        NamedObjects,
    }
    let shape = |key: &str, value: &Value| -> Option<Shape> {
        use Draft::*;
        Some(match (draft, key) {
            (D2020, "items") => Shape::One,
            (_, "items") if value.is_array() => Shape::Many,
            (_, "items") => Shape::One,
            (D4, "additionalItems" | "additionalProperties") if !value.is_object() => return None,
            (D2020, "additionalItems") => return None,
            (
                _,
                "additionalItems" | "additionalProperties" | "contains" | "not" | "propertyNames",
            ) => Shape::One,
            (D6, "if" | "then" | "else") => return None,
            (_, "if" | "then" | "else") => Shape::One,
            (
                D4 | D2019 | D2020,
                "contentSchema" | "unevaluatedItems" | "unevaluatedProperties",
            ) => Shape::One,
            (_, "allOf" | "anyOf" | "oneOf") => Shape::Many,
            (D4 | D2020, "prefixItems") => Shape::Many,
            (_, "definitions" | "patternProperties" | "properties") => Shape::Named,
            (D4 | D2019 | D2020, "$defs" | "dependentSchemas") => Shape::Named,
            (D4 | D6 | D7 | D2019, "dependencies") => Shape::NamedObjects,
            _ => return None,
        })
    };
    let mut out = Vec::new();
    for (key, value) in map {
        let Some(shape) = shape(key, value) else {
            continue;
        };
        let here = format!("{pointer}/{}", escape(key));
        match (shape, value) {
            (Shape::One, _) => out.push(here),
            (Shape::Many, Value::Array(items)) => {
                out.extend((0..items.len()).map(|i| format!("{here}/{i}")));
            }
            (Shape::Named, Value::Object(members)) => {
                out.extend(
                    members
                        .keys()
                        .map(|name| format!("{here}/{}", escape(name))),
                );
            }
            (Shape::NamedObjects, Value::Object(members)) => out.extend(
                members
                    .iter()
                    .filter(|(_, v)| v.is_object())
                    .map(|(name, _)| format!("{here}/{}", escape(name))),
            ),
            _ => {}
        }
    }
    out
}
