//! A JSON Schema read into typed nodes, the way Confluent's checker sees it.
//!
//! Confluent compares schemas after loading them into typed schema classes
//! (object, array, string, number, enum, combined, ...). The kinds of change,
//! and the paths they carry, follow from that model, so the engine reads a
//! schema the same way:
//!
//! * `true` and `{}` are the empty schema, `false` the false schema.
//! * An explicit `type` string gives one typed node; a `type` array gives an
//!   `anyOf` of typed nodes. Without `type`, each keyword family present
//!   (array, object, number, string) gives a typed node.
//! * `enum`, `const`, `allOf`, `anyOf`, `oneOf`, `not` each give a node.
//!   Several nodes from one schema object combine into a synthetic `allOf`.
//! * `$ref` replaces the schema (draft-07 rule). Local references (`#`,
//!   `#/definitions/..`, `#/$defs/..`, any JSON pointer) resolve into the
//!   same document, once each, so recursion is a cycle of node ids. Other
//!   references stay opaque and compare by their URI.
//! * Under 2020-12 (`$schema` naming 2019-09 or 2020-12): `prefixItems` is
//!   the tuple; `items` is the schema of additional items beside
//!   `prefixItems`, and a boolean `items` opens or closes the array;
//!   `unevaluatedItems`/`unevaluatedProperties` stand in for an absent
//!   `additionalItems`/`additionalProperties`; `dependentRequired` and
//!   `dependentSchemas` are the two halves of `dependencies`; `minContains`
//!   defaults to 1; `$id` is not compared; an empty `properties` alone does
//!   not make an object schema.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// Index of a node in a [`Model`].
pub(super) type Id = usize;

/// `allOf`, `anyOf` or `oneOf`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Criterion {
    All,
    Any,
    One,
}

impl Criterion {
    pub(super) fn keyword(self) -> &'static str {
        match self {
            Criterion::All => "allOf",
            Criterion::Any => "anyOf",
            Criterion::One => "oneOf",
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct ObjectNode<'a> {
    pub properties: Vec<(&'a str, Id)>,
    pub required: Vec<&'a str>,
    pub permits_additional: bool,
    pub additional: Option<Id>,
    pub pattern_properties: Vec<(&'a str, Id)>,
    pub max_properties: Option<f64>,
    pub min_properties: Option<f64>,
    pub property_dependencies: Vec<(&'a str, Vec<&'a str>)>,
    pub schema_dependencies: Vec<(&'a str, Id)>,
}

#[derive(Debug, Default)]
pub(super) struct ArrayNode {
    pub all_items: Option<Id>,
    pub item_schemas: Vec<Id>,
    pub permits_additional: bool,
    pub additional: Option<Id>,
    pub max_items: Option<f64>,
    pub min_items: Option<f64>,
    pub unique_items: bool,
    pub max_contains: Option<f64>,
    pub min_contains: Option<f64>,
}

#[derive(Debug, Default)]
pub(super) struct StringNode<'a> {
    pub max_length: Option<f64>,
    pub min_length: Option<f64>,
    pub pattern: Option<&'a str>,
}

#[derive(Debug, Default)]
pub(super) struct NumberNode {
    pub maximum: Option<f64>,
    pub minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub multiple_of: Option<f64>,
    pub integer: bool,
}

#[derive(Debug)]
pub(super) enum Node<'a> {
    Empty,
    False,
    Object(Box<ObjectNode<'a>>),
    Array(Box<ArrayNode>),
    String(StringNode<'a>),
    Number(NumberNode),
    Boolean,
    Null,
    Enum(Vec<&'a Value>),
    Const(&'a Value),
    Combined(Criterion, Vec<Id>),
    Not(Id),
    Conditional,
    Ref(Id),
    ExternalRef(&'a str),
}

/// Which node class a node belongs to: two nodes of different classes are a
/// type change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Empty,
    False,
    Object,
    Array,
    String,
    Number,
    Boolean,
    Null,
    Enum,
    Const,
    Combined,
    Not,
    Conditional,
    ExternalRef,
}

#[derive(Debug, Default)]
pub(super) struct Common<'a> {
    pub id: Option<&'a Value>,
    pub title: Option<&'a Value>,
    pub description: Option<&'a Value>,
    pub default: Option<&'a Value>,
}

#[derive(Debug)]
pub(super) struct Schema<'a> {
    pub node: Node<'a>,
    pub common: Common<'a>,
    /// The JSON the node was read from (`None` for nodes the loader made up,
    /// such as the typed parts of a synthetic `allOf`).
    pub source: Option<&'a Value>,
}

/// A schema document read into nodes; node 0 is the root.
#[derive(Debug)]
pub(super) struct Model<'a> {
    pub nodes: Vec<Schema<'a>>,
}

const ARRAY_KEYWORDS_07: &[&str] = &[
    "items",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
];
const ARRAY_KEYWORDS_2020: &[&str] = &[
    "items",
    "prefixItems",
    "unevaluatedItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
];
const OBJECT_KEYWORDS_07: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "dependencies",
    "patternProperties",
    "propertyNames",
];
const OBJECT_KEYWORDS_2020: &[&str] = &[
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "minProperties",
    "maxProperties",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
];
const NUMBER_KEYWORDS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];
const STRING_KEYWORDS: &[&str] = &["minLength", "maxLength", "pattern", "format"];

#[derive(Clone, Copy)]
enum Typed {
    Object,
    Array,
    String,
    Number,
    Integer,
    Boolean,
    Null,
}

struct Loader<'a> {
    root: &'a Value,
    modern: bool,
    nodes: Vec<Schema<'a>>,
    by_pointer: HashMap<String, Id>,
    pending: Vec<(Id, &'a Value)>,
}

impl<'a> Model<'a> {
    /// Reads `root` into nodes. Never fails: what is not a schema reads as
    /// the empty schema.
    pub(super) fn load(root: &'a Value) -> Model<'a> {
        let modern = root
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|s| s.contains("2020-12") || s.contains("2019-09"));
        let mut loader = Loader {
            root,
            modern,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
            pending: Vec::new(),
        };
        let root_id = loader.reserve();
        loader.by_pointer.insert(String::new(), root_id);
        loader.pending.push((root_id, root));
        while let Some((id, value)) = loader.pending.pop() {
            let schema = loader.read(value);
            loader.nodes[id] = schema;
        }
        let mut model = Model {
            nodes: loader.nodes,
        };
        model.collapse_refs();
        model
    }

    /// Points every reference at the first node that is not a reference; a
    /// cycle of references only reads as the empty schema. Each chain is
    /// walked once (its nodes then point at its end), so a long chain of
    /// `$ref`s costs linear time.
    fn collapse_refs(&mut self) {
        // The end of each node's chain, once known: `Some(Some(t))` a node
        // that is not a reference, `Some(None)` a cycle of references.
        let mut end: Vec<Option<Option<Id>>> = vec![None; self.nodes.len()];
        let mut on_path = vec![false; self.nodes.len()];
        let mut path = Vec::new();
        for id in 0..self.nodes.len() {
            let mut at = id;
            let found = loop {
                if let Some(known) = end[at] {
                    break known;
                }
                match self.nodes[at].node {
                    Node::Ref(_) if on_path[at] => break None,
                    Node::Ref(next) => {
                        on_path[at] = true;
                        path.push(at);
                        at = next;
                    }
                    _ => break Some(at),
                }
            };
            for node in path.drain(..) {
                on_path[node] = false;
                end[node] = Some(found);
            }
            if let Node::Ref(_) = self.nodes[id].node {
                self.nodes[id].node = match found {
                    Some(target) => Node::Ref(target),
                    None => Node::Empty,
                };
            }
        }
    }

    /// The node `id` stands for, through a reference.
    pub(super) fn follow(&self, id: Id) -> Id {
        match self.nodes[id].node {
            Node::Ref(target) => target,
            _ => id,
        }
    }

    pub(super) fn schema(&self, id: Id) -> &Schema<'a> {
        &self.nodes[self.follow(id)]
    }

    pub(super) fn class(&self, id: Id) -> Class {
        match self.schema(id).node {
            Node::Empty | Node::Ref(_) => Class::Empty,
            Node::False => Class::False,
            Node::Object(_) => Class::Object,
            Node::Array(_) => Class::Array,
            Node::String(_) => Class::String,
            Node::Number(_) => Class::Number,
            Node::Boolean => Class::Boolean,
            Node::Null => Class::Null,
            Node::Enum(_) => Class::Enum,
            Node::Const(_) => Class::Const,
            Node::Combined(..) => Class::Combined,
            Node::Not(_) => Class::Not,
            Node::Conditional => Class::Conditional,
            Node::ExternalRef(_) => Class::ExternalRef,
        }
    }

    /// Whether the schema has a `default`.
    pub(super) fn has_default(&self, id: Id) -> bool {
        self.schema(id).common.default.is_some()
    }
}

fn number(o: &Map<String, Value>, key: &str) -> Option<f64> {
    o.get(key).and_then(Value::as_f64)
}

impl<'a> Loader<'a> {
    fn reserve(&mut self) -> Id {
        self.nodes.push(Schema {
            node: Node::Empty,
            common: Common::default(),
            source: None,
        });
        self.nodes.len() - 1
    }

    fn push(&mut self, node: Node<'a>, source: Option<&'a Value>) -> Id {
        self.nodes.push(Schema {
            node,
            common: Common::default(),
            source,
        });
        self.nodes.len() - 1
    }

    /// Reads a subschema and returns its node id.
    fn sub(&mut self, value: &'a Value) -> Id {
        let schema = self.read(value);
        self.nodes.push(schema);
        self.nodes.len() - 1
    }

    fn read(&mut self, value: &'a Value) -> Schema<'a> {
        let o = match value {
            Value::Bool(true) => return self.bare(Node::Empty, value),
            Value::Object(o) => o,
            Value::Bool(false) => return self.bare(Node::False, value),
            // Not a schema: read as the empty schema, leniently.
            _ => return self.bare(Node::Empty, value),
        };
        if let Some(reference) = o.get("$ref").and_then(Value::as_str) {
            let node = match self.target(reference) {
                Some(id) => Node::Ref(id),
                None => Node::ExternalRef(reference),
            };
            return self.bare(node, value);
        }
        let mut parts: Vec<Node<'a>> = Vec::new();
        if let Some(Value::Array(values)) = o.get("enum") {
            parts.push(Node::Enum(values.iter().collect()));
        }
        for criterion in [Criterion::All, Criterion::Any, Criterion::One] {
            if let Some(Value::Array(subs)) = o.get(criterion.keyword()) {
                let ids = subs.iter().map(|s| self.sub(s)).collect();
                parts.push(Node::Combined(criterion, ids));
            }
        }
        if let Some(not) = o.get("not") {
            parts.push(Node::Not(self.sub(not)));
        }
        if let Some(c) = o.get("const") {
            parts.push(Node::Const(c));
        }
        match o.get("type") {
            Some(Value::String(t)) => {
                if let Some(typed) = typed(t) {
                    parts.push(self.typed(o, typed));
                }
            }
            Some(Value::Array(types)) => {
                let mut ids = Vec::new();
                for t in types.iter().filter_map(Value::as_str).filter_map(typed) {
                    let node = self.typed(o, t);
                    ids.push(self.push(node, None));
                }
                if !ids.is_empty() {
                    parts.push(Node::Combined(Criterion::Any, ids));
                }
            }
            _ => {
                let (array_kw, object_kw) = if self.modern {
                    (ARRAY_KEYWORDS_2020, OBJECT_KEYWORDS_2020)
                } else {
                    (ARRAY_KEYWORDS_07, OBJECT_KEYWORDS_07)
                };
                let has = |kws: &[&str]| kws.iter().any(|k| o.contains_key(*k));
                if has(array_kw) {
                    parts.push(self.typed(o, Typed::Array));
                }
                let non_empty_properties = o
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
                if has(object_kw)
                    || (self.modern && non_empty_properties)
                    || (!self.modern && o.contains_key("properties"))
                {
                    parts.push(self.typed(o, Typed::Object));
                }
                if has(NUMBER_KEYWORDS) {
                    parts.push(self.typed(o, Typed::Number));
                }
                if has(STRING_KEYWORDS) {
                    parts.push(self.typed(o, Typed::String));
                }
            }
        }
        if o.contains_key("if") {
            parts.push(Node::Conditional);
        }
        let node = match parts.len() {
            0 => Node::Empty,
            1 => parts.pop().unwrap_or(Node::Empty),
            _ => {
                let ids = parts.into_iter().map(|n| self.push(n, None)).collect();
                Node::Combined(Criterion::All, ids)
            }
        };
        let id_key = if self.modern {
            None
        } else {
            o.get("$id").or_else(|| o.get("id"))
        };
        Schema {
            node,
            common: Common {
                id: id_key,
                title: o.get("title"),
                description: o.get("description"),
                default: o.get("default"),
            },
            source: Some(value),
        }
    }

    fn bare(&self, node: Node<'a>, value: &'a Value) -> Schema<'a> {
        Schema {
            node,
            common: Common::default(),
            source: Some(value),
        }
    }

    /// The node id of a local reference, reading its target once.
    fn target(&mut self, reference: &str) -> Option<Id> {
        let fragment = reference.strip_prefix('#')?;
        let pointer = percent_decode(fragment);
        if let Some(&id) = self.by_pointer.get(&pointer) {
            return Some(id);
        }
        let value = if pointer.is_empty() {
            self.root
        } else {
            self.root.pointer(&pointer)?
        };
        let id = self.reserve();
        self.by_pointer.insert(pointer, id);
        self.pending.push((id, value));
        Some(id)
    }

    fn typed(&mut self, o: &'a Map<String, Value>, typed: Typed) -> Node<'a> {
        match typed {
            Typed::Boolean => Node::Boolean,
            Typed::Null => Node::Null,
            Typed::String => Node::String(StringNode {
                max_length: number(o, "maxLength"),
                min_length: number(o, "minLength"),
                pattern: o.get("pattern").and_then(Value::as_str),
            }),
            Typed::Number | Typed::Integer => Node::Number(NumberNode {
                maximum: number(o, "maximum"),
                minimum: number(o, "minimum"),
                exclusive_maximum: number(o, "exclusiveMaximum"),
                exclusive_minimum: number(o, "exclusiveMinimum"),
                multiple_of: number(o, "multipleOf"),
                integer: matches!(typed, Typed::Integer),
            }),
            Typed::Object => Node::Object(Box::new(self.object(o))),
            Typed::Array => Node::Array(Box::new(self.array(o))),
        }
    }

    fn object(&mut self, o: &'a Map<String, Value>) -> ObjectNode<'a> {
        let mut node = ObjectNode {
            permits_additional: true,
            max_properties: number(o, "maxProperties"),
            min_properties: number(o, "minProperties"),
            ..ObjectNode::default()
        };
        if let Some(Value::Object(props)) = o.get("properties") {
            node.properties = props
                .iter()
                .map(|(k, v)| (k.as_str(), self.sub(v)))
                .collect();
        }
        if let Some(Value::Array(req)) = o.get("required") {
            node.required = req.iter().filter_map(Value::as_str).collect();
        }
        let additional = o.get("additionalProperties").or_else(|| {
            if self.modern {
                o.get("unevaluatedProperties")
            } else {
                None
            }
        });
        match additional {
            Some(Value::Bool(b)) => node.permits_additional = *b,
            Some(v @ Value::Object(_)) => node.additional = Some(self.sub(v)),
            _ => {}
        }
        if let Some(Value::Object(pp)) = o.get("patternProperties") {
            node.pattern_properties = pp.iter().map(|(k, v)| (k.as_str(), self.sub(v))).collect();
        }
        let mut dependency_maps = vec![o.get("dependencies")];
        if self.modern {
            dependency_maps.push(o.get("dependentRequired"));
            dependency_maps.push(o.get("dependentSchemas"));
        }
        for deps in dependency_maps.into_iter().flatten() {
            let Value::Object(deps) = deps else { continue };
            for (key, dep) in deps {
                match dep {
                    Value::Array(names) => node.property_dependencies.push((
                        key.as_str(),
                        names.iter().filter_map(Value::as_str).collect(),
                    )),
                    Value::Object(_) | Value::Bool(_) => {
                        let id = self.sub(dep);
                        node.schema_dependencies.push((key.as_str(), id));
                    }
                    _ => {}
                }
            }
        }
        node
    }

    fn array(&mut self, o: &'a Map<String, Value>) -> ArrayNode {
        let mut node = ArrayNode {
            permits_additional: true,
            max_items: number(o, "maxItems"),
            min_items: number(o, "minItems"),
            unique_items: o.get("uniqueItems") == Some(&Value::Bool(true)),
            max_contains: number(o, "maxContains"),
            min_contains: number(o, "minContains"),
            ..ArrayNode::default()
        };
        // The value that says what may follow the tuple, if any.
        let mut additional: Option<&'a Value> = None;
        if self.modern {
            if let Some(Value::Array(prefix)) = o.get("prefixItems") {
                node.item_schemas = prefix.iter().map(|s| self.sub(s)).collect();
                additional = o.get("items");
            } else {
                match o.get("items") {
                    Some(b @ Value::Bool(_)) => additional = Some(b),
                    Some(items) => node.all_items = Some(self.sub(items)),
                    None => {}
                }
            }
            if additional.is_none() {
                additional = o.get("unevaluatedItems");
            }
            if o.contains_key("contains") && node.min_contains.is_none() {
                node.min_contains = Some(1.0);
            }
        } else {
            match o.get("items") {
                Some(Value::Array(items)) => {
                    node.item_schemas = items.iter().map(|s| self.sub(s)).collect()
                }
                Some(items) => node.all_items = Some(self.sub(items)),
                None => {}
            }
            additional = o.get("additionalItems");
        }
        match additional {
            Some(Value::Bool(b)) => node.permits_additional = *b,
            Some(v @ Value::Object(_)) => node.additional = Some(self.sub(v)),
            _ => {}
        }
        node
    }
}

fn typed(name: &str) -> Option<Typed> {
    Some(match name {
        "object" => Typed::Object,
        "array" => Typed::Array,
        "string" => Typed::String,
        "number" => Typed::Number,
        "integer" => Typed::Integer,
        "boolean" => Typed::Boolean,
        "null" => Typed::Null,
        _ => return None,
    })
}

/// Decodes `%XX` escapes of a URI fragment; invalid escapes stay as they are.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
