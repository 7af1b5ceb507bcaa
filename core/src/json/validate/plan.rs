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
//! `contains`/`minContains`/`maxContains`, `uniqueItems` and
//! `minProperties`/`maxProperties` (on the bytes: see below),
//! `minLength`/`maxLength`, `pattern` (matched on the text in the form
//! `jsonschema` gives it, lookaround and backreferences on a backtracking
//! engine within a budget, `plan/pattern.rs`), `format`,
//! `contentMediaType`/
//! `contentEncoding` (drafts 6 and 7, which assert them), `enum`/`const`,
//! `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`,
//! `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`,
//! `unevaluatedProperties`/`unevaluatedItems` (marked as `jsonschema` marks
//! them: see the scanner's `mark_members`), and `$ref` to a JSON pointer or
//! an anchor in the same document (`$defs`, `definitions`, or anywhere; the
//! root's own absolute `$id` too). `$recursiveRef` (2019-09) and
//! `$dynamicRef` (2020-12) are covered in a document that is one schema
//! resource (no `$id` below the root, no `$ref` to another document): its
//! dynamic scope then holds only the root, so `$recursiveRef: "#"` is the
//! root and a `$dynamicRef` the anchor it names, as a `$ref`.
//!
//! Some keywords are left to `jsonschema` on their subvalue alone: the
//! scanner reads the value, parses just its bytes and asks a small
//! validator of those keywords (`uniqueItems` on an array holding a
//! number that is not exactly an `f64`, an object
//! of more than 16 members or repeating a key, or two arrays or objects
//! whose hashes collide; `minProperties`/`maxProperties` on an object whose member count
//! does not decide and one of whose keys holds an escape; `enum`/`const`
//! holding arrays or objects on arrays and objects); the rest of the
//! payload stays on the scanner.
//! ([`JsonPlan::fallback_subschemas`] counts such subschemas.)
//!
//! Anything else `jsonschema` would act on (a `$ref` by URN or URL to
//! another resource, an `$id` below the root, a custom `$schema`, an
//! in-place cycle through anything but `$ref` and `allOf` (those are cut as
//! `jsonschema` cuts them: [`JsonPlan::condense_in_place_cycles`]), dynamic
//! references across resources) makes
//! [`JsonPlan::compile`] refuse: such a schema is validated by
//! `jsonschema` alone, as before. Keywords `jsonschema` ignores
//! (annotations, unknown keywords, a keyword of another draft) are ignored
//! here too.
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

mod branches;
mod build;
mod classes;
mod draft;
mod folded;
mod format;
mod indexing;
mod keywords;
mod lookaround;
mod merge;
mod node;
mod pattern;
mod refs;
mod resources;
mod spell;
mod strings;
mod switch;

pub(in crate::json) use self::pattern::KeyPattern;

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

pub(super) use self::branches::{keyed, texts_of, Branches, Keyed, Text, NO_BRANCH};
use self::build::{holds_key, Builder};
pub(super) use self::draft::Draft;
pub(super) use self::node::{
    exact_f64, Bound, Kind, Member, Node, Probe, ALL_TYPES, ARRAY, BOOLEAN, EXACT, INTEGER, NULL,
    NUMBER, OBJECT, STRING,
};
pub(super) use self::switch::{Switch, Switches};

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
    /// [`JsonPlan::fallback_subschemas`], counted over the nodes the root
    /// reaches.
    fallbacks: usize,
}

impl JsonPlan {
    /// How many subschemas leave a keyword to `jsonschema` on their
    /// subvalue alone, on payloads of any shape: `enum`/`const` of arrays
    /// or objects. (`uniqueItems` and `minProperties`/`maxProperties` are
    /// decided on the bytes; a string or key with an escape, a number that
    /// is not exactly an `f64`, or two arrays or objects of one hash, sends
    /// them to `jsonschema` too, and is not counted.)
    pub fn fallback_subschemas(&self) -> usize {
        self.fallbacks
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
            dynamic: holds_key(schema, &["$dynamicRef", "$recursiveRef"]),
            resources: HashMap::new(),
        };
        let root = builder.node(0, String::new(), schema)?;
        let plan = JsonPlan {
            nodes: builder.nodes,
            root,
            fallbacks: 0,
        };
        let mut plan = plan;
        plan.condense_in_place_cycles()?;
        plan.flatten();
        plan.merge_folded_branches();
        plan.fallbacks = plan.count_fallbacks();
        for node in &mut plan.nodes {
            node.finish();
        }
        for id in 0..plan.nodes.len() {
            let values = match plan.nodes[id].probe.as_deref() {
                Some(Probe {
                    schema: Some(schema),
                    ..
                }) => plan.nodes[*schema as usize].string_set().cloned(),
                _ => None,
            };
            if let Some(probe) = &mut plan.nodes[id].probe {
                probe.values = values;
            }
        }
        let mut memo = vec![None; plan.nodes.len()];
        for id in 0..plan.nodes.len() {
            let accepts = plan.accepts(id as u32, &mut memo);
            plan.nodes[id].accepts = accepts;
        }
        for id in 0..plan.nodes.len() {
            let node = &plan.nodes[id];
            let any = indexing::index(&plan.nodes, &node.any_of).map(Box::new);
            let one = indexing::index(&plan.nodes, &node.one_of).map(Box::new);
            plan.nodes[id].any_index = any;
            plan.nodes[id].one_index = one;
        }
        // Only on the branches of an `anyOf`/`oneOf` (where a tag is likely
        // to fail: elsewhere the check would be spent twice on a passing
        // member), at most two members a node: by strings on the branches
        // of a keyword without an index, by pattern on any (an index reads
        // strings, not patterns). A branch's `$ref`s and `allOf`s, read in
        // place on the same object, are branches too.
        let mut branch: Vec<Option<bool>> = vec![None; plan.nodes.len()];
        let mut open: Vec<(u32, bool)> = Vec::new();
        for node in &plan.nodes {
            open.extend(node.any_of.iter().map(|&b| (b, node.any_index.is_none())));
            open.extend(node.one_of.iter().map(|&b| (b, node.one_index.is_none())));
        }
        while let Some((b, unindexed)) = open.pop() {
            let seen = &mut branch[b as usize];
            if seen.is_some_and(|was| was || !unindexed) {
                continue;
            }
            *seen = Some(unindexed);
            open.extend(
                plan.nodes[b as usize]
                    .all_of
                    .iter()
                    .map(|&m| (m, unindexed)),
            );
        }
        for (id, by_strings) in branch.into_iter().enumerate() {
            let node = &plan.nodes[id];
            let Some(by_strings) = by_strings else {
                continue;
            };
            if node.members.len() < 2 {
                continue;
            }
            let nodes = &plan.nodes;
            // Members asking for one of a few strings first (a lookup),
            // those asking for a pattern (a match) only when there are none.
            let of = |strings: bool| {
                node.members
                    .iter()
                    .enumerate()
                    .filter(move |(_, m)| {
                        m.schema
                            .is_some_and(|s| nodes[s as usize].selects_by() == Some(strings))
                    })
                    .filter_map(|(at, _)| u16::try_from(at).ok())
                    .take(2)
                    .collect::<Box<[u16]>>()
            };
            let mut selective = if by_strings { of(true) } else { Box::default() };
            if selective.is_empty() {
                selective = of(false);
            }
            plan.nodes[id].selective = selective;
        }
        for id in 0..plan.nodes.len() {
            let switches = switch::switches(&plan.nodes, &plan.nodes[id].all_of).map(Box::new);
            plan.nodes[id].all_switches = switches;
        }
        Ok(plan)
    }

    /// How many nodes the root reaches leave a keyword to `jsonschema`.
    fn count_fallbacks(&mut self) -> usize {
        let mut seen = vec![false; self.nodes.len()];
        let mut open = vec![self.root];
        let mut children = Vec::new();
        while let Some(id) = open.pop() {
            if std::mem::replace(&mut seen[id as usize], true) {
                continue;
            }
            self.nodes[id as usize].for_each_child(|child| children.push(*child));
            open.append(&mut children);
        }
        // `uniqueItems` and `minProperties`/`maxProperties` are decided on
        // the bytes (unless a string or key holds an escape, or two
        // arrays or objects hash alike): only `enum`/`const` of arrays or
        // objects leaves every such value to `jsonschema`.
        (0..self.nodes.len())
            .filter(|&id| seen[id] && self.nodes[id].compound_choice)
            .count()
    }

    /// The types of value node `id` may accept: its `type`, narrowed by
    /// each `allOf` member (`$ref`s too) and by the union of its `anyOf`
    /// and of its `oneOf` branches. Recurses over in-place edges, which
    /// have no cycle ([`JsonPlan::condense_in_place_cycles`]) and nest no
    /// deeper than the compile depth.
    fn accepts(&self, id: u32, memo: &mut Vec<Option<u8>>) -> u8 {
        if let Some(known) = memo[id as usize] {
            return known;
        }
        let node = &self.nodes[id as usize];
        let mut bits = match node.kind {
            Kind::Any => ALL_TYPES,
            Kind::Never => 0,
            Kind::Check => node.types,
        };
        // `integer` accepts a number token too (its first byte cannot tell).
        if bits & INTEGER != 0 {
            bits |= NUMBER;
        }
        if node.kind == Kind::Check {
            for &member in &node.all_of {
                bits &= self.accepts(member, memo);
            }
            for branches in [&node.any_of, &node.one_of] {
                if !branches.is_empty() {
                    let mut any = 0;
                    for &branch in branches {
                        any |= self.accepts(branch, memo);
                    }
                    bits &= any;
                }
            }
        }
        memo[id as usize] = Some(bits);
        bits
    }

    /// An in-place cycle (`{"$ref": "#"}`, `allOf` back to an ancestor)
    /// would recurse without consuming the payload. `jsonschema` cuts it:
    /// a `$ref` entered again for the value it is already validating
    /// holds (`PendingSchemaNode::is_valid` in `jsonschema` 0.61, node.rs).
    /// Where every edge of the cycle is `$ref` or `allOf`, a node of it
    /// then holds exactly when its own keywords and those of every other
    /// node of the cycle hold (each is entered once before the cut, and
    /// the cut adds `true` to a conjunction), wherever the walk entered
    /// the cycle. So each node of such a cycle takes, in place of its
    /// edges into the cycle, one `allOf` member for each other node of it:
    /// a copy of that node without its edges into the cycle. The graph
    /// is then acyclic. A cycle through `anyOf`, `oneOf`, `not`,
    /// `if`/`then`/`else` or `dependentSchemas` (where the cut
    /// falls changes the answer), a cycle of more than [`MAX_CYCLE`]
    /// nodes, or one in a plan with `unevaluated*` (whose marking walks
    /// the in-place subschemas) is refused, as before.
    fn condense_in_place_cycles(&mut self) -> Built<()> {
        let cycles = self.in_place_cycles();
        if cycles.is_empty() {
            return Ok(());
        }
        let refused = || {
            Err(PlanRefusal::new(
                "a subschema applies itself in place ($ref or allOf cycle)",
            ))
        };
        let unevaluated = self
            .nodes
            .iter()
            .any(|n| n.unevaluated_properties.is_some() || n.unevaluated_items.is_some());
        if unevaluated {
            return refused();
        }
        let mut member = vec![false; self.nodes.len()];
        for cycle in &cycles {
            if cycle.len() > MAX_CYCLE {
                return refused();
            }
            for &id in cycle {
                member[id as usize] = true;
            }
            for &id in cycle {
                let node = &self.nodes[id as usize];
                // `in_place_edges` lists `allOf` (and `$ref`) first.
                let others = node.in_place_edges().skip(node.all_of.len());
                if others.into_iter().any(|e| member[e as usize]) {
                    return refused();
                }
            }
            // The copies: each node's own keywords, its edges out of the cycle.
            let mut copies = Vec::with_capacity(cycle.len());
            for &id in cycle {
                let mut copy = self.nodes[id as usize].clone();
                copy.all_of.retain(|m| !member[*m as usize]);
                copies.push(self.nodes.len() as u32);
                self.nodes.push(copy);
            }
            for (i, &id) in cycle.iter().enumerate() {
                let node = &mut self.nodes[id as usize];
                node.all_of.retain(|m| !member[*m as usize]);
                node.all_of.extend(
                    copies
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, &c)| c),
                );
            }
            for &id in cycle {
                member[id as usize] = false;
            }
        }
        Ok(())
    }

    /// The strongly connected sets of nodes over in-place edges that hold
    /// a cycle (more than one node, or a node applying itself): Tarjan's
    /// algorithm, iterative.
    fn in_place_cycles(&self) -> Vec<Vec<u32>> {
        const NONE: u32 = u32::MAX;
        let n = self.nodes.len();
        let mut index = vec![NONE; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<u32> = Vec::new();
        let mut next = 0u32;
        let mut found = Vec::new();
        let edges = |id: u32| -> Vec<u32> { self.nodes[id as usize].in_place_edges().collect() };
        for start in 0..n as u32 {
            if index[start as usize] != NONE {
                continue;
            }
            let mut work: Vec<(u32, Vec<u32>)> = Vec::new();
            let mut enter = Some(start);
            loop {
                if let Some(id) = enter.take() {
                    index[id as usize] = next;
                    low[id as usize] = next;
                    next += 1;
                    stack.push(id);
                    on_stack[id as usize] = true;
                    work.push((id, edges(id)));
                }
                let Some((v, pending)) = work.last_mut() else {
                    break;
                };
                let v = *v;
                if let Some(w) = pending.pop() {
                    if index[w as usize] == NONE {
                        enter = Some(w);
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                    continue;
                }
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent as usize] = low[parent as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    let mut set = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        set.push(w);
                        if w == v {
                            break;
                        }
                    }
                    let applies_itself = || self.nodes[v as usize].in_place_edges().any(|e| e == v);
                    if set.len() > 1 || applies_itself() {
                        found.push(set);
                    }
                }
            }
        }
        found
    }
}

/// The most nodes of one in-place cycle [`JsonPlan::condense_in_place_cycles`]
/// unrolls (each takes a member per other node).
const MAX_CYCLE: usize = 32;

/// The draft of a `$schema` URI, read as `jsonschema` reads it (either
/// scheme, any trailing `#`s, the version-less URI for the current draft);
/// any other URI (a custom metaschema with its own vocabularies) is
/// refused.
fn draft_of(uri: &str) -> Built<Draft> {
    let bare = uri.trim_end_matches('#');
    let path = bare
        .strip_prefix("https://json-schema.org/")
        .or_else(|| bare.strip_prefix("http://json-schema.org/"));
    match path {
        Some("draft-04/schema") => Ok(Draft::D4),
        Some("draft-06/schema") => Ok(Draft::D6),
        Some("draft-07/schema") => Ok(Draft::D7),
        Some("draft/2019-09/schema") => Ok(Draft::D2019),
        Some("draft/2020-12/schema" | "schema") => Ok(Draft::D2020),
        _ => Err(PlanRefusal::new(format!(
            "`$schema` {uri:?} is not a known draft"
        ))),
    }
}
