//! The compiler from a schema document to the plan's nodes: the walk over
//! subschemas, `items`, the numeric and size keywords.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{exact_f64, Built};
use super::{Bound, Draft, Kind, Node, PlanRefusal};

/// The deepest subschemas are compiled nested in one another (following
/// `$ref`s too): compiling recurses, and a deeper schema is left to
/// `jsonschema`, whose depth the analysis bounds.
const MAX_COMPILE_DEPTH: usize = 64;

pub(super) struct Builder<'s> {
    /// The documents: the root, then the registry schemas it `$ref`s.
    pub(super) docs: Vec<&'s Value>,
    /// The URN of each document after the root.
    pub(super) uris: Vec<String>,
    /// The registry schemas the analysis fetched, by URI.
    pub(super) fetched: &'s HashMap<String, Value>,
    pub(super) draft: Draft,
    pub(super) schema_uri: Option<Value>,
    pub(super) assert_formats: bool,
    pub(super) nodes: Vec<Node>,
    /// Subschemas being compiled, nested.
    pub(super) depth: usize,
    /// Node of each subschema compiled so far, by document and JSON pointer.
    pub(super) at: HashMap<(usize, String), u32>,
    /// Whether the root document uses `$dynamicRef` or `$recursiveRef`:
    /// then it may not `$ref` another document (a second resource in the
    /// dynamic scope).
    pub(super) dynamic: bool,
    /// The schema resources of each document, read on first use.
    pub(super) resources: HashMap<usize, super::resources::Resources>,
}

/// Whether `value` holds any of `keys` as an object key, at any depth.
pub(super) fn holds_key(value: &Value, keys: &[&str]) -> bool {
    let mut open = vec![value];
    while let Some(value) = open.pop() {
        match value {
            Value::Object(map) => {
                if map.keys().any(|k| keys.contains(&k.as_str())) {
                    return true;
                }
                open.extend(map.values());
            }
            Value::Array(items) => open.extend(items),
            _ => {}
        }
    }
    false
}

/// Keywords `jsonschema` acts on that the scanner does not cover.
pub(super) fn uncovered(key: &str) -> bool {
    key == "discriminator"
}

impl Builder<'_> {
    pub(super) fn node(&mut self, doc: usize, pointer: String, value: &Value) -> Built<u32> {
        if let Some(&id) = self.at.get(&(doc, pointer.clone())) {
            return Ok(id);
        }
        if self.nodes.len() > u32::MAX as usize / 2 {
            return Err(PlanRefusal::new("too many subschemas"));
        }
        if self.depth >= MAX_COMPILE_DEPTH {
            return Err(PlanRefusal::new(
                "subschemas nested too deep for the scanner",
            ));
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(Node::new(Kind::Any));
        self.at.insert((doc, pointer.clone()), id);
        self.depth += 1;
        let node = self.compile_value(doc, &pointer, value);
        self.depth -= 1;
        self.nodes[id as usize] = node?;
        Ok(id)
    }

    fn compile_value(&mut self, doc: usize, pointer: &str, value: &Value) -> Built<Node> {
        Ok(match value {
            Value::Bool(true) => Node::new(Kind::Any),
            Value::Bool(false) => Node::new(Kind::Never),
            Value::Object(map) => self.keywords(doc, pointer, map)?,
            _ => return Err(PlanRefusal::new(format!("{pointer:?} is not a schema"))),
        })
    }

    pub(super) fn child(
        &mut self,
        doc: usize,
        pointer: &str,
        path: &[&str],
        value: &Value,
    ) -> Built<u32> {
        let mut at = pointer.to_owned();
        for token in path {
            at.push('/');
            at.push_str(&token.replace('~', "~0").replace('/', "~1"));
        }
        self.node(doc, at, value)
    }

    /// `items`, `prefixItems`, `additionalItems`, as `jsonschema` reads
    /// them: an array `items` is a tuple followed by `additionalItems` (in
    /// every draft); otherwise `items` covers what `prefixItems` (2020-12)
    /// leaves.
    pub(super) fn items(
        &mut self,
        doc: usize,
        pointer: &str,
        map: &Map<String, Value>,
        node: &mut Node,
    ) -> Built<()> {
        let prefix_items = match map.get("prefixItems") {
            Some(Value::Array(prefix)) if self.draft == Draft::D2020 => Some(prefix),
            Some(_) if self.draft == Draft::D2020 => {
                return Err(PlanRefusal::new("`prefixItems` is not an array"))
            }
            _ => None,
        };
        match map.get("items") {
            Some(Value::Array(tuple)) => {
                if prefix_items.is_some() {
                    return Err(PlanRefusal::new("both `prefixItems` and an array `items`"));
                }
                for (i, schema) in tuple.iter().enumerate() {
                    let id = self.child(doc, pointer, &["items", &i.to_string()], schema)?;
                    node.prefix.push(id);
                }
                if let Some(rest) = map.get("additionalItems") {
                    node.rest = Some(self.child(doc, pointer, &["additionalItems"], rest)?);
                }
            }
            Some(schema) => {
                if let Some(prefix) = prefix_items {
                    for (i, schema) in prefix.iter().enumerate() {
                        let id =
                            self.child(doc, pointer, &["prefixItems", &i.to_string()], schema)?;
                        node.prefix.push(id);
                    }
                }
                node.rest = Some(self.child(doc, pointer, &["items"], schema)?);
            }
            None => {
                if let Some(prefix) = prefix_items {
                    for (i, schema) in prefix.iter().enumerate() {
                        let id =
                            self.child(doc, pointer, &["prefixItems", &i.to_string()], schema)?;
                        node.prefix.push(id);
                    }
                }
            }
        }
        Ok(())
    }

    /// The numeric keywords as [`Node::bounds`], when they all can be.
    pub(super) fn bounds(&self, numeric: &Map<String, Value>) -> Option<Vec<(Bound, f64)>> {
        if self.draft == Draft::D4 {
            return None;
        }
        numeric
            .iter()
            .map(|(key, value)| {
                let kind = match key.as_str() {
                    "minimum" => Bound::Minimum,
                    "maximum" => Bound::Maximum,
                    "exclusiveMinimum" => Bound::ExclusiveMinimum,
                    "exclusiveMaximum" => Bound::ExclusiveMaximum,
                    _ => return None,
                };
                match value {
                    Value::Number(limit) => Some((kind, exact_f64(limit)?)),
                    _ => None,
                }
            })
            .collect()
    }

    /// A non-negative integer bound, read as `jsonschema` reads it (later
    /// drafts accept an integer-valued float).
    pub(super) fn size(&self, key: &str, value: &Value) -> Built<u64> {
        if let Some(limit) = value.as_u64() {
            return Ok(limit);
        }
        if self.draft != Draft::D4 {
            if let Some(limit) = value.as_f64() {
                if limit >= 0.0 && limit.trunc() == limit {
                    // Saturates past u64::MAX, as no payload is that long.
                    return Ok(limit as u64);
                }
            }
        }
        Err(PlanRefusal::new(format!("`{key}` is not a size")))
    }
}
