//! The compiled plan of the JSON scanner: a JSON Schema turned into a flat
//! table of nodes, one per subschema, that the scanner ([`super::scanner`])
//! walks while it tokenizes the payload bytes.
//!
//! # What is covered
//!
//! Drafts 4, 6, 7, 2019-09 and 2020-12, detected from the root's `$schema`
//! exactly as `jsonschema` detects them (2020-12 when absent), and the
//! keywords event schemas use: boolean schemas, `type`, `properties`,
//! `patternProperties`, `additionalProperties`, `required`,
//! `dependentRequired`, `dependentSchemas`, `dependencies`, `propertyNames`,
//! `items`/`prefixItems`/`additionalItems`, `minItems`/`maxItems`,
//! `minLength`/`maxLength`, `pattern`, `format`, `contentMediaType`/
//! `contentEncoding` (drafts 6 and 7, which assert them), `enum`/`const`,
//! `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`,
//! `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`, and `$ref` to a JSON
//! pointer in the same document (`$defs`, `definitions`, or anywhere).
//!
//! Some keywords are left to `jsonschema` on their subvalue alone: the
//! scanner reads the value, parses just its bytes and asks a small
//! validator of those keywords (`uniqueItems` on arrays of two items or
//! more, `minProperties` of 2 or more and `maxProperties` on objects the
//! member count does not decide, `enum`/`const` holding arrays or objects
//! on arrays and objects); the rest of the payload stays on the scanner
//! A subschema below the root using `contains`, `minContains`,
//! `maxContains` or `unevaluated*` is left whole to `jsonschema` the same
//! way (a validator of the root document, entered at that subschema), unless
//! the document uses dynamic references or the subschema holds an `$id`.
//! ([`JsonPlan::fallback_subschemas`] counts such subschemas.)
//!
//! Anything else `jsonschema` would act on (those keywords at the root,
//! `$dynamicRef`, `$recursiveRef`, a `$ref` by URN or to an anchor, an
//! `$id` below the root, a custom `$schema`, an in-place `$ref` cycle)
//! makes [`JsonPlan::compile`] refuse: such a schema is validated by
//! `jsonschema` alone, as before. Keywords `jsonschema` ignores (annotations,
//! unknown keywords, a keyword of another draft) are ignored here too.
//!
//! # Borrowed semantics
//!
//! Where the exact answer is subtle (number bounds and `multipleOf` on
//! floats and large integers, `pattern` dialect, `format` checkers,
//! `enum`/`const` equality of `1` and `1.0`), a node holds a small
//! `jsonschema::Validator` built from just those keywords (with the root's
//! `$schema` and the guard's options) and asks it about one scalar
//! `serde_json::Value`, which the scanner fills without allocating. The
//! scanner decides structure, types, lengths, counts and the applicators
//! itself.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use super::PATTERN_SIZE_LIMIT;

/// Keys a node tracks the presence of (`required`, dependencies): at most
/// this many per subschema, one bit each.
const MAX_TRACKED: usize = 64;

/// The deepest subschemas are compiled nested in one another (following
/// `$ref`s too): compiling recurses, and a deeper schema is left to
/// `jsonschema`, whose depth the analysis bounds.
const MAX_COMPILE_DEPTH: usize = 64;

/// The most `patternProperties` one subschema may have (one bit each).
const MAX_PATTERNS: usize = 64;

/// A JSON Schema draft, as `jsonschema` reads `$schema`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Draft {
    D4,
    D6,
    D7,
    D2019,
    D2020,
}

/// Type bits of [`Node::types`].
pub(super) const NULL: u8 = 1;
pub(super) const BOOLEAN: u8 = 2;
pub(super) const INTEGER: u8 = 4;
pub(super) const NUMBER: u8 = 8;
pub(super) const STRING: u8 = 16;
pub(super) const ARRAY: u8 = 32;
pub(super) const OBJECT: u8 = 64;
const ALL_TYPES: u8 = 127;

/// A numeric bound [`Node::bounds`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

/// 2^53: integers up to it in magnitude are exactly `f64`s.
pub(super) const EXACT: u64 = 1 << 53;

/// `value` as an `f64` holding exactly the same number, if there is one
/// (floats as serde_json read them, integers up to 2^53).
pub(super) fn exact_f64(value: &serde_json::Number) -> Option<f64> {
    if let Some(n) = value.as_u64() {
        return (n <= EXACT).then_some(n as f64);
    }
    if let Some(n) = value.as_i64() {
        return (n.unsigned_abs() <= EXACT).then_some(n as f64);
    }
    value.as_f64()
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `true` or a schema without assertions: any JSON value.
    Any,
    /// `false`: no value.
    Never,
    /// Keywords to check.
    Check,
}

/// A property a node knows by name: its subschema (`properties`) and its
/// presence bit (`required`, dependencies), either or both.
pub(super) struct Member {
    pub(super) name: Box<str>,
    pub(super) schema: Option<u32>,
    pub(super) bit: u64,
    /// The name's first byte when a key written as the name's bytes, with
    /// no escape, can only be this member (the name is not empty and holds
    /// no quote, backslash or control character); 0 otherwise. The scanner
    /// then matches such a key on the payload bytes, before tokenizing it.
    pub(super) first: u8,
    /// The name's first eight bytes (fewer, zero-padded, for a shorter
    /// name) as a little-endian word, and the mask of the bytes it has.
    pub(super) prefix: u64,
    pub(super) prefix_mask: u64,
}

impl Member {
    fn new(name: &str) -> Member {
        let plain = name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
        let mut word = [0u8; 8];
        let head = &name.as_bytes()[..name.len().min(8)];
        word[..head.len()].copy_from_slice(head);
        Member {
            name: name.into(),
            schema: None,
            bit: 0,
            prefix: u64::from_le_bytes(word),
            prefix_mask: match head.len() {
                8 => u64::MAX,
                n => (1u64 << (8 * n)) - 1,
            },
            first: if plain {
                name.bytes().next().unwrap_or(0)
            } else {
                0
            },
        }
    }
}

/// One subschema.
pub(super) struct Node {
    pub(super) kind: Kind,
    /// Allowed JSON types ([`NULL`], ...; all when there is no `type`).
    pub(super) types: u8,
    /// Draft 4 decides `integer` by how the number is written.
    pub(super) draft4_integers: bool,
    /// `minimum`, `maximum`, `exclusive*`, `multipleOf`: asked about numbers.
    pub(super) numeric: Option<jsonschema::Validator>,
    /// The same bounds checked here, when they are only `minimum`,
    /// `maximum` and (drafts 6 on) numeric `exclusive*`, each exactly an
    /// `f64`: (kind, limit). Used for numbers exactly an `f64` too (any
    /// float serde_json reads, integers up to 2^53), where comparing `f64`s
    /// is comparing the values; other numbers ask [`Node::numeric`].
    pub(super) bounds: Option<Vec<(Bound, f64)>>,
    /// `pattern` and `format`: asked about strings.
    pub(super) text: Option<jsonschema::Validator>,
    /// `enum`/`const` (scalars only): asked about scalars; arrays and
    /// objects never match.
    pub(super) choice: Option<jsonschema::Validator>,
    /// The same, when it is an `enum` of strings alone or a string
    /// `const`: the strings, which a string must equal one of (`jsonschema`
    /// compares strings by their text). Strings are checked here; other
    /// values still ask [`Node::choice`].
    pub(super) strings: Option<Box<[Box<str>]>>,
    /// `enum`/`const` holds an array or an object: an array or object value
    /// is parsed from its bytes and asked about ([`Node::choice`]).
    pub(super) compound_choice: bool,
    /// The keywords the scanner leaves to `jsonschema` on the subvalue
    /// alone (`uniqueItems`, `minProperties`, `maxProperties`): asked about
    /// an array or object value parsed from its bytes, when the fast paths
    /// below do not decide.
    pub(super) extra: Option<jsonschema::Validator>,
    /// The whole subschema, left to `jsonschema` on the value parsed from
    /// its bytes (`contains`, `unevaluated*`): the node checks nothing else.
    pub(super) whole: Option<jsonschema::Validator>,
    /// `uniqueItems: true` (an array of fewer than two items is unique).
    pub(super) unique: bool,
    /// `minProperties` (an object with fewer members fails; at most one is
    /// decided here, as duplicate keys cannot make one member none).
    pub(super) min_properties: u64,
    /// `maxProperties` (an object with no more members, duplicates
    /// counted, passes).
    pub(super) max_properties: u64,
    /// Nothing but in-place applicators (a `$ref` alone, say): the value is
    /// read only by them, not first by this node.
    pub(super) only_in_place: bool,
    pub(super) min_length: u64,
    pub(super) max_length: u64,
    pub(super) min_items: u64,
    pub(super) max_items: u64,
    /// Tuple items (`prefixItems`, or `items` as an array).
    pub(super) prefix: Vec<u32>,
    /// The items past the tuple (`items`, or `additionalItems`).
    pub(super) rest: Option<u32>,
    pub(super) members: Vec<Member>,
    /// `patternProperties`: a `{"pattern": ..}` validator asked about the
    /// key, and the subschema of a matching member.
    pub(super) patterns: Vec<(jsonschema::Validator, u32)>,
    pub(super) additional: Option<u32>,
    pub(super) names: Option<u32>,
    /// Bits of the members that must be present.
    pub(super) required: u64,
    /// (trigger bit, bits then required).
    pub(super) dependent_required: Vec<(u64, u64)>,
    /// (trigger bit, subschema then applied to the object).
    pub(super) dependent_schemas: Vec<(u64, u32)>,
    /// In place: `$ref` targets and `allOf`.
    pub(super) all_of: Vec<u32>,
    pub(super) any_of: Vec<u32>,
    pub(super) one_of: Vec<u32>,
    pub(super) not: Option<u32>,
    /// `if`, `then`, `else`.
    pub(super) condition: Option<(u32, Option<u32>, Option<u32>)>,
}

impl Node {
    fn new(kind: Kind) -> Node {
        Node {
            kind,
            types: ALL_TYPES,
            draft4_integers: false,
            numeric: None,
            bounds: None,
            text: None,
            choice: None,
            strings: None,
            compound_choice: false,
            extra: None,
            whole: None,
            unique: false,
            min_properties: 0,
            max_properties: u64::MAX,
            only_in_place: false,
            min_length: 0,
            max_length: u64::MAX,
            min_items: 0,
            max_items: u64::MAX,
            prefix: Vec::new(),
            rest: None,
            members: Vec::new(),
            patterns: Vec::new(),
            additional: None,
            names: None,
            required: 0,
            dependent_required: Vec::new(),
            dependent_schemas: Vec::new(),
            all_of: Vec::new(),
            any_of: Vec::new(),
            one_of: Vec::new(),
            not: None,
            condition: None,
        }
    }

    /// Whether the node applies subschemas to the value itself.
    pub(super) fn in_place(&self) -> bool {
        !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some()
            || self.condition.is_some()
    }

    fn asserts_nothing(&self) -> bool {
        self.asserts_nothing_itself() && !self.in_place()
    }

    /// Whether the node's own keywords (its in-place applicators aside)
    /// accept any JSON value.
    fn asserts_nothing_itself(&self) -> bool {
        self.types == ALL_TYPES
            && self.numeric.is_none()
            && self.text.is_none()
            && self.choice.is_none()
            && self.extra.is_none()
            && self.whole.is_none()
            && self.min_length == 0
            && self.max_length == u64::MAX
            && self.min_items == 0
            && self.max_items == u64::MAX
            && self.prefix.is_empty()
            && self.rest.is_none()
            && self.members.iter().all(|m| m.schema.is_none())
            && self.patterns.is_empty()
            && self.additional.is_none()
            && self.names.is_none()
            && self.required == 0
            && self.dependent_required.is_empty()
            && self.dependent_schemas.is_empty()
    }

    fn in_place_edges(&self) -> impl Iterator<Item = u32> + '_ {
        let condition = self
            .condition
            .iter()
            .flat_map(|&(i, t, e)| std::iter::once(i).chain(t).chain(e));
        self.all_of
            .iter()
            .chain(&self.any_of)
            .chain(&self.one_of)
            .copied()
            .chain(self.not)
            .chain(condition)
            .chain(self.dependent_schemas.iter().map(|&(_, s)| s))
    }
}

/// A JSON Schema compiled for the scanner: checks payload bytes in one
/// pass without building a `serde_json::Value`, allocating nothing on a
/// valid payload (after a thread's first use).
///
/// Its verdict is `jsonschema`'s: [`JsonPlan::scan`] answers exactly what
/// `serde_json::from_slice` followed by `jsonschema::Validator::is_valid`
/// answers (with the same options), or that it cannot tell. The guard
/// builds one per JSON Schema when [`JsonPlan::compile`] accepts the
/// schema, and reports a payload it refuses through `jsonschema`.
///
/// ```
/// use dataschema::validate::json_plan::JsonPlan;
///
/// let schema = serde_json::json!({"type": "object", "required": ["id"]});
/// let plan = JsonPlan::compile(&schema, true).expect("covered keywords");
/// assert_eq!(plan.scan(br#"{"id": 7}"#), Some(true));
/// assert_eq!(plan.scan(br#"{"name": 7}"#), Some(false));
/// assert_eq!(plan.scan(br#"{"id": 7"#), Some(false)); // not JSON
/// ```
pub struct JsonPlan {
    pub(super) nodes: Vec<Node>,
    pub(super) root: u32,
}

impl JsonPlan {
    /// How many subschemas leave a keyword to `jsonschema` on their
    /// subvalue alone (`uniqueItems`, `minProperties`/`maxProperties` past
    /// their fast paths, `enum`/`const` of arrays or objects, a subschema
    /// with `contains` or `unevaluated*` left whole).
    pub fn fallback_subschemas(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| n.extra.is_some() || n.whole.is_some() || n.compound_choice)
            .count()
    }
}

impl fmt::Debug for JsonPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonPlan")
            .field("nodes", &self.nodes.len())
            .finish_non_exhaustive()
    }
}

/// Why [`JsonPlan::compile`] left a schema to `jsonschema`: a keyword or a
/// construct the scanner does not cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRefusal {
    why: String,
}

impl PlanRefusal {
    fn new(why: impl Into<String>) -> PlanRefusal {
        PlanRefusal { why: why.into() }
    }
}

impl fmt::Display for PlanRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.why)
    }
}

impl std::error::Error for PlanRefusal {}

type Built<T> = Result<T, PlanRefusal>;

impl JsonPlan {
    /// Compiles `schema` (a JSON Schema document, as `jsonschema` reads it)
    /// for the scanner, asserting `format` when `assert_formats` is set (the
    /// guard's `assert_formats`). Refuses a schema using anything the
    /// scanner does not cover (see `validate::json_plan`).
    ///
    /// The schema should be one `jsonschema` compiles: the guard asks only
    /// then, and a malformed keyword may be refused or read loosely here.
    pub fn compile(schema: &Value, assert_formats: bool) -> Result<JsonPlan, PlanRefusal> {
        JsonPlan::compile_with(schema, assert_formats, &HashMap::new())
    }

    /// [`JsonPlan::compile`], with the registry schemas `schema` may `$ref`
    /// by URN (as the analysis fetched them).
    pub(crate) fn compile_with(
        schema: &Value,
        assert_formats: bool,
        fetched: &HashMap<String, Value>,
    ) -> Result<JsonPlan, PlanRefusal> {
        let (draft, schema_uri) = match schema.get("$schema") {
            None => (Draft::D2020, None),
            Some(Value::String(uri)) => (draft_of(uri)?, Some(Value::String(uri.clone()))),
            Some(_) => return Err(PlanRefusal::new("`$schema` is not a string")),
        };
        let mut builder = Builder {
            docs: vec![schema],
            uris: Vec::new(),
            fetched,
            depth: 0,
            draft,
            schema_uri,
            assert_formats,
            nodes: Vec::new(),
            at: HashMap::new(),
            root_value: None,
            subtree_fallback: !holds_key(schema, &["$dynamicRef", "$recursiveRef"]),
        };
        let root = builder.node(0, String::new(), schema)?;
        let plan = JsonPlan {
            nodes: builder.nodes,
            root,
        };
        plan.refuse_in_place_cycles()?;
        Ok(plan)
    }

    /// An in-place cycle (`{"$ref": "#"}`, `allOf` back to an ancestor)
    /// would recurse without consuming the payload: refused.
    fn refuse_in_place_cycles(&self) -> Built<()> {
        // 0 unvisited, 1 on the stack, 2 done; iterative DFS.
        let mut state = vec![0u8; self.nodes.len()];
        for start in 0..self.nodes.len() {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(u32, Vec<u32>)> =
                vec![(start as u32, self.nodes[start].in_place_edges().collect())];
            state[start] = 1;
            while let Some((id, edges)) = stack.last_mut() {
                match edges.pop() {
                    Some(next) => match state[next as usize] {
                        1 => {
                            return Err(PlanRefusal::new(
                                "a subschema applies itself in place ($ref or allOf cycle)",
                            ))
                        }
                        0 => {
                            state[next as usize] = 1;
                            let edges = self.nodes[next as usize].in_place_edges().collect();
                            stack.push((next, edges));
                        }
                        _ => {}
                    },
                    None => {
                        state[*id as usize] = 2;
                        stack.pop();
                    }
                }
            }
        }
        Ok(())
    }
}

/// The draft of a `$schema` URI; any other URI (a custom metaschema with
/// its own vocabularies) is refused.
fn draft_of(uri: &str) -> Built<Draft> {
    let bare = uri.strip_suffix('#').unwrap_or(uri);
    match bare {
        "http://json-schema.org/draft-04/schema" => Ok(Draft::D4),
        "http://json-schema.org/draft-06/schema" => Ok(Draft::D6),
        "http://json-schema.org/draft-07/schema" => Ok(Draft::D7),
        "https://json-schema.org/draft/2019-09/schema" => Ok(Draft::D2019),
        "https://json-schema.org/draft/2020-12/schema" => Ok(Draft::D2020),
        _ => Err(PlanRefusal::new(format!(
            "`$schema` {uri:?} is not a known draft"
        ))),
    }
}

struct Builder<'s> {
    /// The documents: the root, then the registry schemas it `$ref`s.
    docs: Vec<&'s Value>,
    /// The URN of each document after the root.
    uris: Vec<String>,
    /// The registry schemas the analysis fetched, by URI.
    fetched: &'s HashMap<String, Value>,
    draft: Draft,
    schema_uri: Option<Value>,
    assert_formats: bool,
    nodes: Vec<Node>,
    /// Subschemas being compiled, nested.
    depth: usize,
    /// Node of each subschema compiled so far, by document and JSON pointer.
    at: HashMap<(usize, String), u32>,
    /// Whether a subschema may be left whole to `jsonschema` ([`Node::whole`]):
    /// not when the document uses dynamic references, whose scope starts at
    /// the root.
    subtree_fallback: bool,
    /// The root document, shared by the [`Node::whole`] validators.
    root_value: Option<std::sync::Arc<Value>>,
}

/// Keywords whose subschema the scanner leaves whole to `jsonschema` on
/// its subvalue ([`Node::whole`]), below the root.
fn subtree_keyword(draft: Draft, key: &str) -> bool {
    match key {
        "contains" => draft >= Draft::D6,
        "minContains" | "maxContains" | "unevaluatedItems" | "unevaluatedProperties" => {
            draft >= Draft::D2019
        }
        _ => false,
    }
}

/// Whether `value` holds any of `keys` as an object key, at any depth.
fn holds_key(value: &Value, keys: &[&str]) -> bool {
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

/// The URI the root document is served under to a [`Node::whole`]
/// validator (its `$ref` names the subschema by JSON pointer in it).
const ROOT_URI: &str = "urn:dataschema:json-plan:root";

/// Serves the root document to a [`Node::whole`] validator, and nothing else.
struct RootDocument(std::sync::Arc<Value>);

impl jsonschema::Retrieve for RootDocument {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.as_str() == ROOT_URI {
            Ok((*self.0).clone())
        } else {
            Err(format!("{uri} is not served to a subschema's validator").into())
        }
    }
}

/// Keywords `jsonschema` acts on that the scanner does not cover.
fn uncovered(draft: Draft, key: &str) -> bool {
    match key {
        "discriminator" => true,
        "contains" => draft >= Draft::D6,
        "minContains" | "maxContains" => draft >= Draft::D2019,
        "$recursiveRef" => draft == Draft::D2019,
        "$dynamicRef" => draft == Draft::D2020,
        "unevaluatedItems" | "unevaluatedProperties" => draft >= Draft::D2019,
        _ => false,
    }
}

impl Builder<'_> {
    fn node(&mut self, doc: usize, pointer: String, value: &Value) -> Built<u32> {
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

    fn child(&mut self, doc: usize, pointer: &str, path: &[&str], value: &Value) -> Built<u32> {
        let mut at = pointer.to_owned();
        for token in path {
            at.push('/');
            at.push_str(&token.replace('~', "~0").replace('/', "~1"));
        }
        self.node(doc, at, value)
    }

    fn keywords(&mut self, doc: usize, pointer: &str, map: &Map<String, Value>) -> Built<Node> {
        let draft = self.draft;
        if !pointer.is_empty() {
            let id = if draft == Draft::D4 { "id" } else { "$id" };
            if matches!(map.get(id), Some(Value::String(_))) {
                return Err(PlanRefusal::new(format!("{pointer:?} has an `{id}`")));
            }
            if map.contains_key("$schema") {
                return Err(PlanRefusal::new(format!("{pointer:?} has a `$schema`")));
            }
        }
        let mut node = Node::new(Kind::Check);
        node.draft4_integers = draft == Draft::D4;
        // Drafts 4 to 7 ignore every sibling of `$ref`.
        if draft <= Draft::D7 {
            if let Some(reference) = map.get("$ref") {
                node.all_of.push(self.reference(doc, reference)?);
                return Ok(node);
            }
        }
        if doc == 0
            && !pointer.is_empty()
            && self.subtree_fallback
            && map.keys().any(|key| subtree_keyword(draft, key))
            && !map
                .keys()
                .any(|key| uncovered(draft, key) && !subtree_keyword(draft, key))
            && !holds_key(&Value::Object(map.clone()), &["$id", "id", "$anchor"])
        {
            node.whole = Some(self.whole(pointer)?);
            return Ok(node);
        }
        let mut numeric = Map::new();
        let mut text = Map::new();
        let mut choice = Map::new();
        let mut extra = Map::new();
        for (key, value) in map {
            if uncovered(draft, key) {
                return Err(PlanRefusal::new(format!("`{key}` is not covered")));
            }
            match key.as_str() {
                "$ref" => {
                    let target = self.reference(doc, value)?;
                    node.all_of.push(target);
                }
                "type" => node.types = types(value)?,
                "properties" => {
                    let Value::Object(properties) = value else {
                        return Err(PlanRefusal::new("`properties` is not an object"));
                    };
                    for (name, schema) in properties {
                        let id = self.child(doc, pointer, &["properties", name], schema)?;
                        member(&mut node, name).schema = Some(id);
                    }
                }
                "patternProperties" => {
                    let Value::Object(patterns) = value else {
                        return Err(PlanRefusal::new("`patternProperties` is not an object"));
                    };
                    if patterns.len() > MAX_PATTERNS {
                        return Err(PlanRefusal::new("too many `patternProperties`"));
                    }
                    for (pattern, schema) in patterns {
                        let id =
                            self.child(doc, pointer, &["patternProperties", pattern], schema)?;
                        let mut keywords = Map::new();
                        keywords.insert("pattern".into(), Value::String(pattern.clone()));
                        node.patterns.push((self.mini(keywords)?, id));
                    }
                }
                "additionalProperties" => {
                    node.additional = Some(self.child(doc, pointer, &[key], value)?);
                }
                "propertyNames" if draft >= Draft::D6 => {
                    node.names = Some(self.child(doc, pointer, &[key], value)?);
                }
                "required" => {
                    let Value::Array(names) = value else {
                        return Err(PlanRefusal::new("`required` is not an array"));
                    };
                    for (i, name) in names.iter().enumerate() {
                        let Value::String(name) = name else {
                            return Err(PlanRefusal::new("`required` holds a non-string"));
                        };
                        // `jsonschema` counts a repeated name twice (an
                        // object then needs as many members): its verdict,
                        // not the scanner's, for such a schema.
                        if names[..i].iter().any(|other| other.as_str() == Some(name)) {
                            return Err(PlanRefusal::new("`required` repeats a name"));
                        }
                        node.required |= tracked(&mut node, name)?;
                    }
                }
                "dependentRequired" if draft >= Draft::D2019 => {
                    let Value::Object(deps) = value else {
                        return Err(PlanRefusal::new("`dependentRequired` is not an object"));
                    };
                    for (trigger, names) in deps {
                        dependent_required(&mut node, trigger, names)?;
                    }
                }
                "dependentSchemas" if draft >= Draft::D2019 => {
                    let Value::Object(deps) = value else {
                        return Err(PlanRefusal::new("`dependentSchemas` is not an object"));
                    };
                    for (trigger, schema) in deps {
                        let id = self.child(doc, pointer, &[key, trigger], schema)?;
                        let bit = tracked(&mut node, trigger)?;
                        node.dependent_schemas.push((bit, id));
                    }
                }
                "dependencies" => {
                    let Value::Object(deps) = value else {
                        return Err(PlanRefusal::new("`dependencies` is not an object"));
                    };
                    for (trigger, dep) in deps {
                        if dep.is_array() {
                            dependent_required(&mut node, trigger, dep)?;
                        } else {
                            let id = self.child(doc, pointer, &[key, trigger], dep)?;
                            let bit = tracked(&mut node, trigger)?;
                            node.dependent_schemas.push((bit, id));
                        }
                    }
                }
                "minItems" => node.min_items = self.size(key, value)?,
                "maxItems" => node.max_items = self.size(key, value)?,
                "minLength" => node.min_length = self.size(key, value)?,
                "maxLength" => node.max_length = self.size(key, value)?,
                "minimum" | "maximum" | "multipleOf" => {
                    numeric.insert(key.clone(), value.clone());
                }
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    numeric.insert(key.clone(), value.clone());
                }
                "pattern" | "format" => {
                    text.insert(key.clone(), value.clone());
                }
                // Asserted on strings by drafts 6 and 7 (`jsonschema`
                // reads them as annotations in the others).
                "contentMediaType" | "contentEncoding"
                    if matches!(draft, Draft::D6 | Draft::D7) =>
                {
                    text.insert(key.clone(), value.clone());
                }
                "uniqueItems" => {
                    if value == &Value::Bool(true) {
                        node.unique = true;
                    }
                    extra.insert(key.clone(), value.clone());
                }
                "minProperties" => {
                    node.min_properties = self.size(key, value)?;
                    extra.insert(key.clone(), value.clone());
                }
                "maxProperties" => {
                    node.max_properties = self.size(key, value)?;
                    extra.insert(key.clone(), value.clone());
                }
                "enum" => {
                    let Value::Array(options) = value else {
                        return Err(PlanRefusal::new("`enum` is not an array"));
                    };
                    if options.iter().any(|v| v.is_array() || v.is_object()) {
                        node.compound_choice = true;
                    }
                    choice.insert(key.clone(), value.clone());
                }
                "const" if draft >= Draft::D6 => {
                    if value.is_array() || value.is_object() {
                        node.compound_choice = true;
                    }
                    choice.insert(key.clone(), value.clone());
                }
                "allOf" | "anyOf" | "oneOf" => {
                    let Value::Array(schemas) = value else {
                        return Err(PlanRefusal::new(format!("`{key}` is not an array")));
                    };
                    let mut ids = Vec::with_capacity(schemas.len());
                    for (i, schema) in schemas.iter().enumerate() {
                        ids.push(self.child(doc, pointer, &[key, &i.to_string()], schema)?);
                    }
                    match key.as_str() {
                        "allOf" => node.all_of.extend(ids),
                        "anyOf" => node.any_of = ids,
                        _ => node.one_of = ids,
                    }
                }
                "not" => node.not = Some(self.child(doc, pointer, &[key], value)?),
                "if" if draft >= Draft::D7 => {
                    let condition = self.child(doc, pointer, &[key], value)?;
                    let then = match map.get("then") {
                        Some(schema) => Some(self.child(doc, pointer, &["then"], schema)?),
                        None => None,
                    };
                    let otherwise = match map.get("else") {
                        Some(schema) => Some(self.child(doc, pointer, &["else"], schema)?),
                        None => None,
                    };
                    if then.is_some() || otherwise.is_some() {
                        node.condition = Some((condition, then, otherwise));
                    }
                }
                // Read with `items`, below.
                "items" | "prefixItems" | "additionalItems" => {}
                // Everything else `jsonschema` ignores: annotations,
                // `$defs`, unknown keywords, another draft's keywords.
                _ => {}
            }
        }
        self.items(doc, pointer, map, &mut node)?;
        if !numeric.is_empty() {
            node.bounds = self.bounds(&numeric);
            node.numeric = Some(self.mini(numeric)?);
        }
        if !text.is_empty() {
            node.text = Some(self.mini(text)?);
        }
        if !choice.is_empty() {
            node.strings = strings_only(&choice);
            node.choice = Some(self.mini(choice)?);
        }
        if node.unique || node.min_properties > 0 || node.max_properties < u64::MAX {
            node.extra = Some(self.mini(extra)?);
        }
        if node.asserts_nothing() {
            node.kind = Kind::Any;
        } else if node.asserts_nothing_itself() {
            node.only_in_place = true;
        }
        Ok(node)
    }

    /// `items`, `prefixItems`, `additionalItems`, as `jsonschema` reads
    /// them: an array `items` is a tuple followed by `additionalItems` (in
    /// every draft); otherwise `items` covers what `prefixItems` (2020-12)
    /// leaves.
    fn items(
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
    fn bounds(&self, numeric: &Map<String, Value>) -> Option<Vec<(Bound, f64)>> {
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
    fn size(&self, key: &str, value: &Value) -> Built<u64> {
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

    /// The node a `$ref` names: a JSON pointer into this document, or
    /// into a registry schema named by its URN (one the analysis fetched,
    /// of the same draft).
    fn reference(&mut self, doc: usize, reference: &Value) -> Built<u32> {
        let Value::String(reference) = reference else {
            return Err(PlanRefusal::new("`$ref` is not a string"));
        };
        let (uri, fragment) = match reference.split_once('#') {
            Some((uri, fragment)) => (uri, fragment),
            None => (reference.as_str(), ""),
        };
        let doc = if uri.is_empty() {
            doc
        } else {
            self.document(uri)
                .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} is not covered")))?
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return Err(PlanRefusal::new(format!(
                "`$ref` {reference:?} names an anchor"
            )));
        }
        let fragment = percent_decode(fragment)
            .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} is not UTF-8")))?;
        let mut target = self.docs[doc];
        let mut pointer = String::new();
        for token in fragment.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            target = match target {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            }
            .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} names nothing")))?;
            pointer.push('/');
            pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
        }
        self.node(doc, pointer, target)
    }

    /// The index of the registry document `uri` names, if the analysis
    /// fetched it and it has the root's `$schema`.
    fn document(&mut self, uri: &str) -> Option<usize> {
        if uri.parse::<crate::urn::Urn>().is_err() {
            return None;
        }
        if let Some(at) = self.uris.iter().position(|u| u == uri) {
            return Some(at + 1);
        }
        let value = self.fetched.get(uri)?;
        if value.get("$schema") != self.schema_uri.as_ref() {
            return None;
        }
        self.uris.push(uri.to_owned());
        self.docs.push(value);
        Some(self.docs.len() - 1)
    }

    /// A `jsonschema` validator of the whole subschema at `pointer` in the
    /// root document (the document served to it, the subschema named by
    /// `$ref`), with the root's `$schema` and the guard's options.
    fn whole(&mut self, pointer: &str) -> Built<jsonschema::Validator> {
        let root = match &self.root_value {
            Some(root) => std::sync::Arc::clone(root),
            None => {
                let root = std::sync::Arc::new(self.docs[0].clone());
                self.root_value = Some(std::sync::Arc::clone(&root));
                root
            }
        };
        let mut wrapper = Map::new();
        if let Some(uri) = &self.schema_uri {
            wrapper.insert("$schema".into(), uri.clone());
        }
        let mut reference = format!("{ROOT_URI}#");
        for c in pointer.chars() {
            // A URI fragment: the pointer percent-encoded where it must be.
            if c.is_ascii_alphanumeric() || "/~-._".contains(c) {
                reference.push(c);
            } else {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    reference.push_str(&format!("%{b:02X}"));
                }
            }
        }
        wrapper.insert("$ref".into(), Value::String(reference));
        let patterns = jsonschema::PatternOptions::regex()
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT);
        jsonschema::options()
            .should_validate_formats(self.assert_formats)
            .with_pattern_options(patterns)
            .with_retriever(RootDocument(root))
            .build(&Value::Object(wrapper))
            .map_err(|err| PlanRefusal::new(format!("a subschema does not compile: {err}")))
    }

    /// A `jsonschema` validator for a few keywords of one subschema, with
    /// the root's `$schema` and the guard's options.
    fn mini(&self, mut keywords: Map<String, Value>) -> Built<jsonschema::Validator> {
        if let Some(uri) = &self.schema_uri {
            keywords.insert("$schema".into(), uri.clone());
        }
        let patterns = jsonschema::PatternOptions::regex()
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT);
        jsonschema::options()
            .should_validate_formats(self.assert_formats)
            .with_pattern_options(patterns)
            .build(&Value::Object(keywords))
            .map_err(|err| PlanRefusal::new(format!("a keyword does not compile: {err}")))
    }
}

/// The member named `name`, added if new.
fn member<'n>(node: &'n mut Node, name: &str) -> &'n mut Member {
    let at = match node.members.iter().position(|m| &*m.name == name) {
        Some(at) => at,
        None => {
            node.members.push(Member::new(name));
            node.members.len() - 1
        }
    };
    &mut node.members[at]
}

/// The presence bit of `name`, assigned if new.
fn tracked(node: &mut Node, name: &str) -> Built<u64> {
    let used = node.members.iter().filter(|m| m.bit != 0).count();
    let entry = member(node, name);
    if entry.bit == 0 {
        if used >= MAX_TRACKED {
            return Err(PlanRefusal::new("more than 64 required or dependent keys"));
        }
        entry.bit = 1 << used;
    }
    Ok(entry.bit)
}

/// The strings of an `enum` holding only strings, or of a string `const`
/// (the only keyword of `choice`).
fn strings_only(choice: &Map<String, Value>) -> Option<Box<[Box<str>]>> {
    if choice.len() != 1 {
        return None;
    }
    let options = match choice.iter().next()? {
        (key, Value::Array(options)) if key == "enum" => options.as_slice(),
        (key, value @ Value::String(_)) if key == "const" => std::slice::from_ref(value),
        _ => return None,
    };
    options
        .iter()
        .map(|option| option.as_str().map(Box::from))
        .collect()
}

fn dependent_required(node: &mut Node, trigger: &str, names: &Value) -> Built<()> {
    let Value::Array(names) = names else {
        return Err(PlanRefusal::new("a dependency is not an array"));
    };
    let bit = tracked(node, trigger)?;
    let mut mask = 0;
    for (i, name) in names.iter().enumerate() {
        let Value::String(name) = name else {
            return Err(PlanRefusal::new("a dependency holds a non-string"));
        };
        if names[..i].iter().any(|other| other.as_str() == Some(name)) {
            return Err(PlanRefusal::new("a dependency repeats a name"));
        }
        mask |= tracked(node, name)?;
    }
    node.dependent_required.push((bit, mask));
    Ok(())
}

fn types(value: &Value) -> Built<u8> {
    fn one(name: &Value) -> Built<u8> {
        Ok(match name.as_str() {
            Some("null") => NULL,
            Some("boolean") => BOOLEAN,
            Some("integer") => INTEGER,
            Some("number") => NUMBER,
            Some("string") => STRING,
            Some("array") => ARRAY,
            Some("object") => OBJECT,
            _ => return Err(PlanRefusal::new("`type` names no JSON type")),
        })
    }
    match value {
        Value::Array(names) => names.iter().try_fold(0, |bits, name| Ok(bits | one(name)?)),
        name => one(name),
    }
}

fn percent_decode(text: &str) -> Option<String> {
    String::from_utf8(super::analysis::percent_decoded(text)).ok()
}
