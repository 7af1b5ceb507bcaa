//! JSON Schemas from a generator, and payloads, through `Registry::embed`
//! and `Guard::validate`/`validate_json`: never panics, never aborts (a
//! stack overflow aborts the fuzzer too, so one is a finding), and an
//! `Invalid` always names a violation. A schema `embed` refuses is given to
//! a guard through an unchecked fallback, which must fail open (`unusable`).
//!
//! The input drives an `arbitrary` structure: a root schema and `$defs`
//! built from the keywords that recurse, refer, match and combine (`$ref`
//! chains of any length, `$dynamicRef`, refs by URN, patterns, formats,
//! `allOf`/`anyOf`/`oneOf`/`not`/`if`, `unevaluated*`), plus payloads.
//!
//! `cargo +nightly fuzz run json_schema`

use arbitrary::{Arbitrary, Unstructured};
use dataschema::{Error, Guard, Outcome, Reason, Registry, Resolver, Schema, Urn};
use serde_json::{json, Map, Value};

const URN: &str = "urn:acme:schema:fuzz:1";
const OTHER: &str = "urn:acme:schema:other:1";

const PATTERNS: &[&str] = &[
    "^(a+)+$",
    "^(a|aa)+\\1$",
    "(?=a)b",
    "(?<!a)b",
    "[",
    "^\\p{L}*$",
    "a{2,}",
    "^(a{1000}){1000}$",
    ".*",
    "^[a-z]{1,8}$",
];
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "regex",
    "uuid",
    "duration",
    "json-pointer",
    "relative-json-pointer",
    "nonsense",
];
const TYPES: &[&str] = &[
    "string", "integer", "number", "object", "array", "null", "boolean",
];
const KEYS: &[&str] = &["a", "b", "ab", "aaaa", "c", ""];

#[derive(Arbitrary, Debug)]
enum Node {
    Bool(bool),
    Type(u8),
    Pattern(u8),
    Format(u8),
    Ref(u8),
    RefRoot,
    RefOther,
    RefOtherPointer,
    RefNowhere,
    DynamicRef,
    Anchor(u8, Box<Node>),
    Enum(Vec<Leaf>),
    Bounds(u8),
    AllOf(Vec<Node>),
    AnyOf(Vec<Node>),
    OneOf(Vec<Node>),
    Not(Box<Node>),
    If(Box<Node>, Box<Node>, Box<Node>),
    Items(Box<Node>),
    PrefixItems(Vec<Node>),
    Properties(Vec<(u8, Node)>, bool),
    PatternProperties(u8, Box<Node>),
    Additional(Box<Node>),
    PropertyNames(Box<Node>),
    DependentSchemas(u8, Box<Node>),
    Contains(Box<Node>),
    UnevaluatedItems(Box<Node>),
    UnevaluatedProperties(Box<Node>),
    DynamicAnchor(Box<Node>),
}

#[derive(Arbitrary, Debug)]
enum Leaf {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(u8, u16),
    Array(Vec<Leaf>),
    Object(Vec<(u8, Leaf)>),
}

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list[usize::from(i) % list.len()]
}

impl Leaf {
    fn value(&self) -> Value {
        match self {
            Leaf::Null => Value::Null,
            Leaf::Bool(b) => json!(b),
            Leaf::Int(i) => json!(i),
            Leaf::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Leaf::Str(kind, len) => {
                let len = usize::from(*len);
                Value::String(match kind % 6 {
                    0 => "a".repeat(len),
                    1 => format!("{}!", "a".repeat(len)),
                    2 => "例え.テスト".to_owned(),
                    3 => "x@y.z".to_owned(),
                    4 => "2026-12-01T09:00:00Z".to_owned(),
                    _ => pick(KEYS, *kind).to_owned(),
                })
            }
            Leaf::Array(items) => Value::Array(items.iter().map(Leaf::value).collect()),
            Leaf::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (pick(KEYS, *k).to_owned(), v.value()))
                    .collect(),
            ),
        }
    }
}

impl Node {
    fn value(&self) -> Value {
        let many = |nodes: &[Node]| Value::Array(nodes.iter().map(Node::value).collect());
        match self {
            Node::Bool(b) => json!(b),
            Node::Type(t) => json!({ "type": pick(TYPES, *t) }),
            Node::Pattern(p) => json!({ "pattern": pick(PATTERNS, *p) }),
            Node::Format(f) => json!({ "format": pick(FORMATS, *f) }),
            Node::Ref(i) => json!({ "$ref": format!("#/$defs/d{}", i % 16) }),
            Node::RefRoot => json!({ "$ref": "#" }),
            Node::RefOther => json!({ "$ref": OTHER }),
            Node::RefOtherPointer => json!({ "$ref": format!("{OTHER}#/$defs/x") }),
            Node::RefNowhere => json!({ "$ref": "http://example.com/x" }),
            Node::DynamicRef => json!({ "$dynamicRef": "#meta" }),
            Node::Anchor(name, node) => {
                let mut value = node.value();
                if let Value::Object(map) = &mut value {
                    map.insert("$anchor".into(), json!(format!("a{}", name % 4)));
                }
                json!({ "allOf": [value, { "$ref": format!("#a{}", name % 4) }] })
            }
            Node::Enum(leaves) => {
                json!({ "enum": leaves.iter().map(Leaf::value).collect::<Vec<_>>() })
            }
            Node::Bounds(b) => {
                json!({ "minLength": b % 4, "maxItems": b % 3, "uniqueItems": b % 2 == 0, "required": [pick(KEYS, *b)] })
            }
            Node::AllOf(nodes) => json!({ "allOf": many(nodes) }),
            Node::AnyOf(nodes) => json!({ "anyOf": many(nodes) }),
            Node::OneOf(nodes) => json!({ "oneOf": many(nodes) }),
            Node::Not(node) => json!({ "not": node.value() }),
            Node::If(i, t, e) => json!({ "if": i.value(), "then": t.value(), "else": e.value() }),
            Node::Items(node) => json!({ "items": node.value() }),
            Node::PrefixItems(nodes) => json!({ "prefixItems": many(nodes) }),
            Node::Properties(members, additional) => {
                let props: Map<String, Value> = members
                    .iter()
                    .map(|(k, v)| (pick(KEYS, *k).to_owned(), v.value()))
                    .collect();
                json!({ "properties": props, "additionalProperties": additional })
            }
            Node::PatternProperties(p, node) => {
                json!({ "patternProperties": { pick(PATTERNS, *p): node.value() } })
            }
            Node::Additional(node) => json!({ "additionalProperties": node.value() }),
            Node::PropertyNames(node) => json!({ "propertyNames": node.value() }),
            Node::DependentSchemas(k, node) => {
                json!({ "dependentSchemas": { pick(KEYS, *k): node.value() } })
            }
            Node::Contains(node) => json!({ "contains": node.value() }),
            Node::UnevaluatedItems(node) => json!({ "unevaluatedItems": node.value() }),
            Node::UnevaluatedProperties(node) => json!({ "unevaluatedProperties": node.value() }),
            Node::DynamicAnchor(node) => {
                json!({ "$dynamicAnchor": "meta", "allOf": [node.value()] })
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    root: Node,
    defs: Vec<Node>,
    /// A `$ref` chain in front of `d0`, of up to 65,535 links.
    chain: u16,
    other: Node,
    payloads: Vec<Leaf>,
}

struct Unchecked(Vec<Schema>);

impl Resolver for Unchecked {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.0
            .iter()
            .find(|schema| schema.urn() == urn)
            .cloned()
            .ok_or_else(|| Error::NotFound { urn: urn.clone() })
    }
}

fn document(root: &Node, defs: &[Node], chain: usize) -> Value {
    let mut map = Map::new();
    for i in 0..chain {
        map.insert(
            format!("c{i}"),
            json!({ "$ref": format!("#/$defs/c{}", i + 1) }),
        );
    }
    map.insert(format!("c{chain}"), json!({ "$ref": "#/$defs/d0" }));
    for i in 0..16 {
        let def = defs.get(i).map_or(json!(true), Node::value);
        map.insert(format!("d{i}"), def);
    }
    map.insert("x".into(), json!({ "type": "string" }));
    json!({ "$defs": map, "allOf": [root.value()], "anyOf": [{ "$ref": "#/$defs/c0" }, true] })
}

/// The target.
pub fn run(data: &[u8]) {
    let mut input = Unstructured::new(data);
    let Ok(input) = Input::arbitrary(&mut input) else {
        return;
    };
    // On a 2 MiB stack, tokio's default: what the depth bound promises.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || check(input))
        .expect("a thread")
        .join()
        .expect("no panic");
}

fn check(input: Input) {
    let chain = usize::from(input.chain) % 4_096 * if input.chain > 60_000 { 16 } else { 1 };
    let schema = document(&input.root, &input.defs, chain).to_string();
    let other = json!({ "$defs": { "x": input.other.value() }, "$ref": "#/$defs/x" }).to_string();
    let schemas = [
        Schema::json(URN.parse::<Urn>().unwrap(), schema),
        Schema::json(OTHER.parse::<Urn>().unwrap(), other),
    ];
    let embedded = Registry::embed(schemas.clone());
    let guard = match &embedded {
        Ok(registry) => Guard::new(registry.clone()),
        Err(_) => Guard::builder(Registry::embed([]).unwrap())
            .fallback(Unchecked(schemas.to_vec()))
            .build(),
    };
    for payload in input.payloads.iter().take(4) {
        let value = payload.value();
        for outcome in [
            guard.validate(URN, value.to_string().as_bytes()),
            guard.validate_json(URN, &value),
        ] {
            match outcome {
                Ok(Outcome::Unvalidated(u)) => {
                    assert!(embedded.is_err(), "embedded, yet {u:?}");
                    assert_eq!(u.reason(), Reason::Unusable, "{u:?}");
                }
                Ok(_) => {}
                Err(invalid) => assert!(!invalid.violations().is_empty()),
            }
        }
    }
}
