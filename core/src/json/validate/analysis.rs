//! A static look at a JSON Schema before `jsonschema` compiles it: how deep
//! validating against it can recurse, and how many errors one payload value
//! can produce, over the graph of its subschemas and `$ref`s (local JSON
//! pointers, anchors, `$id`s, and other registry schemas by URN).
//!
//! # Why
//!
//! `jsonschema` validates by recursion: entering a subschema is a few Rust
//! stack frames. Keywords that descend into the payload (`properties`,
//! `items`, ...) recurse at most as deep as the payload nests, and a payload
//! nests at most [`MAX_NESTING`] deep (serde_json's limit, kept on both guard
//! paths). Keywords that apply in place (`$ref`, `allOf`, `anyOf`, `oneOf`,
//! `not`, `if`/`then`/`else`, `dependentSchemas`, `$dynamicRef`, ...) recurse
//! on the same value, as deep as the schema says: a chain of 50,000 `$ref`s
//! overflows any stack. So the longest evaluation path is computed here,
//! for every payload nesting: a schema whose in-place paths alone enter
//! more than [`MAX_DEPTH`] subschemas is refused (unusable: the guard fails
//! open), before `jsonschema` sees it. A recursive schema whose paths pass
//! the bound only on a deeply nested payload (`web-types`) is not: [`Depths`] says how deep a payload may nest for
//! `jsonschema` to run on the caller's stack, how deep on a thread of its
//! own whose stack is sized from the path ([`MAX_DEPTH_OWN_STACK`]
//! subschemas at most), and a payload nested past that is refused, itself.
//!
//! # The bound
//!
//! The depth of a path is the number of subschemas it enters, counting at
//! most [`MAX_NESTING`] descents into the payload. An in-place cycle
//! (`{"$ref": "#"}`) is cut by `jsonschema`'s cycle guard, which never enters
//! a subschema twice for one value, so a strongly connected set of in-place
//! edges counts as its size. Measured in a debug build (the costliest
//! frames), entering one subschema takes at most about 1.1 KiB of stack
//! (`oneOf` on the error path; `$ref` about 0.9 KiB, `not` 0.3 KiB), so
//! [`MAX_DEPTH`] = 1,000 keeps validation under about 1.1 MiB: within a
//! 2 MiB thread stack (tokio's default) with room for the caller's own
//! frames. Release builds use less.
//!
//! The analysis is linear in the size of the schemas (one pass over each
//! document, one over the graph per payload nesting level, stopping as soon
//! as the bound is passed), so a long chain is refused in linear time.

use std::collections::HashMap;

use serde_json::Value;

use crate::error::Error;
use crate::resolver::Resolver;
use crate::schema::Language;
use crate::urn::Urn;

/// The most subschemas one evaluation path may enter on the caller's
/// stack.
pub(crate) const MAX_DEPTH: u32 = 1_000;

/// The most subschemas one evaluation path may enter on a thread of its
/// own ([`Depths::stack_bytes`]): 32 MiB of stack reserved at
/// [`STACK_PER_SUBSCHEMA`].
pub(crate) const MAX_DEPTH_OWN_STACK: u32 = 16_000;

/// The stack a thread of its own reserves per subschema of the path: about
/// twice the costliest frame measured in a debug build (1.1 KiB).
const STACK_PER_SUBSCHEMA: usize = 2 << 10;

/// Where `jsonschema`'s recursion on a payload runs, by how deep the
/// payload's arrays and objects nest (the deepest value's depth, the root
/// at 0: `{"a": [1]}` nests 2 deep).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Depths {
    /// Nested at most this deep, on the caller's stack (within
    /// [`MAX_DEPTH`]); [`MAX_NESTING`] for most schemas.
    pub(crate) inline: usize,
    /// Deeper, up to this, on a thread whose stack is [`Self::stack_bytes`]
    /// (within [`MAX_DEPTH_OWN_STACK`]); deeper still, the payload is
    /// refused (too deep for this schema).
    pub(crate) own_stack: usize,
    /// The stack of that thread.
    pub(crate) stack_bytes: usize,
}

impl Depths {
    /// Every payload on the caller's stack.
    pub(crate) const INLINE: Depths = Depths {
        inline: MAX_NESTING,
        own_stack: MAX_NESTING,
        stack_bytes: 0,
    };
}

/// How much more stack a subschema takes while `unevaluatedProperties` or
/// `unevaluatedItems` walks the subschemas applied in place beside it
/// (measured: about 4.9 KiB a `$ref` in a debug build, against 1 KiB).
const UNEVALUATED_COST: u32 = 5;

/// The deepest a payload nests (arrays and objects), on every guard path:
/// serde_json's own recursion limit.
pub(crate) const MAX_NESTING: usize = 128;

/// Why the analysis refused a schema.
pub(crate) enum Refusal {
    /// A property of the schema.
    Unusable(String),
    /// A `$ref`'s schema could not be fetched just now.
    Unreachable(String),
    /// A `$ref` names a URN nobody holds (yet).
    Missing(Urn),
}

/// What the analysis learnt.
pub(crate) struct Facts {
    /// The documents fetched by URN, for the retriever to reuse.
    pub(crate) fetched: HashMap<String, Value>,
    /// An upper bound on the errors one payload value can produce (the
    /// keywords of every subschema evaluated on it, with multiplicity);
    /// `u64::MAX` when unbounded (in-place cycles).
    pub(crate) errors_per_value: u64,
    /// Whether an `anyOf` or `oneOf` is reachable: their errors carry the
    /// errors of every branch, with copies of the value.
    pub(crate) has_context: bool,
    /// Where validation's recursion runs, by the payload's nesting.
    pub(crate) depths: Depths,
}

/// The default base URI `jsonschema` resolves against.
pub(in crate::json::validate) const DEFAULT_BASE: &str = "json-schema:///";

/// A subschema's place: a document and a JSON pointer into it.
type Loc = (usize, String);

#[derive(Default)]
struct Graph {
    docs: Vec<Value>,
    /// Absolute URI (no fragment) of each resource, to its root.
    resources: HashMap<String, Loc>,
    /// (resource URI, anchor name) to the anchored subschema.
    anchors: HashMap<(String, String), Loc>,
    dynamic_anchors: HashMap<String, Vec<Loc>>,
    recursive_anchors: Vec<Loc>,
    /// The base URI at every subschema location seen while scanning.
    bases: HashMap<Loc, String>,
    ids: HashMap<Loc, usize>,
    locs: Vec<Loc>,
    in_place: Vec<Vec<usize>>,
    descend: Vec<Vec<usize>>,
    /// Keywords at each node (an upper bound on its own errors).
    keys: Vec<u64>,
    /// Whether a node has `unevaluatedProperties`/`unevaluatedItems`.
    unevaluated: Vec<bool>,
    fetched: HashMap<String, Value>,
    has_context: bool,
}

/// Keywords whose value is one subschema applied to the same value.
const IN_PLACE_ONE: &[&str] = &["not", "if", "then", "else"];
/// Keywords whose value is an array of subschemas applied to the same value.
const IN_PLACE_MANY: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keywords whose value is a map of subschemas applied to the same value.
const IN_PLACE_MAP: &[&str] = &["dependentSchemas", "dependencies"];
/// Keywords whose value is one subschema applied to the value's members.
const DESCEND_ONE: &[&str] = &[
    "additionalProperties",
    "propertyNames",
    "items",
    "additionalItems",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas applied to members.
const DESCEND_MANY: &[&str] = &["items", "prefixItems"];
/// Keywords whose value is a map of subschemas applied to members.
const DESCEND_MAP: &[&str] = &["properties", "patternProperties"];
/// Keywords holding subschemas that apply only when referenced.
const CONTAINERS: &[&str] = &["$defs", "definitions"];

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", escape(key))
}

fn percent_decode(text: &str) -> String {
    String::from_utf8_lossy(&percent_decoded(text)).into_owned()
}

/// The bytes of a JSON-pointer fragment with its `%XX` escapes decoded
/// (an escape that is not two hex digits is kept as written).
pub(super) fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Every subschema below `value` (at `pointer`), each with the keyword kind
/// that holds it: `(pointer, in_place, descends)`; containers give neither.
fn subschemas(value: &serde_json::Map<String, Value>, pointer: &str) -> Vec<(String, bool, bool)> {
    let mut out = Vec::new();
    let is_schema = |v: &Value| v.is_object() || v.is_boolean();
    for (key, v) in value {
        let k = key.as_str();
        let here = child(pointer, k);
        if IN_PLACE_ONE.contains(&k) && is_schema(v) {
            out.push((here.clone(), true, false));
        }
        if DESCEND_ONE.contains(&k) && is_schema(v) {
            out.push((here.clone(), false, true));
        }
        if let Value::Array(items) = v {
            let in_place = IN_PLACE_MANY.contains(&k);
            let descends = DESCEND_MANY.contains(&k);
            if in_place || descends {
                for (i, item) in items.iter().enumerate() {
                    if is_schema(item) {
                        out.push((format!("{here}/{i}"), in_place, descends));
                    }
                }
            }
        }
        if let Value::Object(map) = v {
            let in_place = IN_PLACE_MAP.contains(&k);
            let descends = DESCEND_MAP.contains(&k);
            if in_place || descends || CONTAINERS.contains(&k) {
                for (name, item) in map {
                    if is_schema(item) {
                        out.push((child(&here, name), in_place, descends));
                    }
                }
            }
        }
    }
    out
}

/// A `$ref` or `$id` joined to its base URI (RFC 3986): the absolute URI
/// without its fragment, and the fragment percent-decoded.
pub(in crate::json::validate) fn join(
    base: &str,
    reference: &str,
) -> Result<(String, String), String> {
    let base_uri = jsonschema::uri::from_str(base).map_err(|err| err.to_string())?;
    let target = jsonschema::uri::resolve_against(&base_uri.borrow(), reference)
        .map_err(|err| format!("$ref {reference:?} is not a valid URI reference: {err}"))?;
    let text = target.as_str();
    Ok(match text.split_once('#') {
        Some((uri, fragment)) => (uri.to_owned(), percent_decode(fragment)),
        None => (text.to_owned(), String::new()),
    })
}

impl Graph {
    /// Registers the resources, anchors and bases of `docs[doc]` below
    /// `pointer` (iteratively: no recursion on outside input).
    fn scan(&mut self, doc: usize, pointer: String, base: String, legacy_id: bool) {
        let mut stack = vec![(pointer, base)];
        while let Some((pointer, mut base)) = stack.pop() {
            let loc = (doc, pointer);
            if self.bases.contains_key(&loc) {
                continue;
            }
            let Some(Value::Object(map)) = self.docs[doc].pointer(&loc.1) else {
                self.bases.insert(loc, base);
                continue;
            };
            let id_key = if legacy_id { "id" } else { "$id" };
            if let Some(Value::String(id)) = map.get(id_key) {
                if let Some(name) = id.strip_prefix('#') {
                    self.anchors
                        .insert((base.clone(), name.to_owned()), loc.clone());
                } else if let Ok((uri, _)) = join(&base, id) {
                    base = uri;
                    self.resources.entry(base.clone()).or_insert(loc.clone());
                }
            }
            for key in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(name)) = map.get(key) {
                    self.anchors
                        .insert((base.clone(), name.clone()), loc.clone());
                    if key == "$dynamicAnchor" {
                        self.dynamic_anchors
                            .entry(name.clone())
                            .or_default()
                            .push(loc.clone());
                    }
                }
            }
            if map.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                self.recursive_anchors.push(loc.clone());
            }
            for (sub, _, _) in subschemas(map, &loc.1) {
                stack.push((sub, base.clone()));
            }
            self.bases.insert(loc, base);
        }
    }

    fn add_doc(&mut self, value: Value, base: &str) -> usize {
        let legacy_id = value
            .get("$schema")
            .and_then(Value::as_str)
            .is_some_and(|s| s.contains("draft-04") || s.contains("draft-03"));
        self.docs.push(value);
        let doc = self.docs.len() - 1;
        self.resources
            .entry(base.to_owned())
            .or_insert((doc, String::new()));
        self.scan(doc, String::new(), base.to_owned(), legacy_id);
        doc
    }

    fn node(&mut self, loc: Loc, queue: &mut Vec<usize>) -> usize {
        if let Some(&id) = self.ids.get(&loc) {
            return id;
        }
        let id = self.locs.len();
        self.ids.insert(loc.clone(), id);
        self.locs.push(loc);
        self.in_place.push(Vec::new());
        self.descend.push(Vec::new());
        self.keys.push(1);
        self.unevaluated.push(false);
        queue.push(id);
        id
    }

    /// The subschema `reference` names from a subschema whose base is `base`.
    fn target(
        &mut self,
        base: &str,
        reference: &str,
        resolver: &dyn Resolver,
    ) -> Result<Loc, Refusal> {
        let (uri, fragment) = join(base, reference).map_err(Refusal::Unusable)?;
        let root = match self.resources.get(&uri) {
            Some(root) => root.clone(),
            None => {
                let value = self.fetch(&uri, resolver)?;
                let doc = self.add_doc(value, &uri);
                (doc, String::new())
            }
        };
        if fragment.is_empty() {
            return Ok(root);
        }
        if fragment.starts_with('/') {
            return Ok((root.0, format!("{}{fragment}", root.1)));
        }
        match self.anchors.get(&(uri.clone(), fragment.clone())) {
            Some(loc) => Ok(loc.clone()),
            None => Err(Refusal::Unusable(format!(
                "$ref {reference:?}: no anchor {fragment:?} in {uri}"
            ))),
        }
    }

    fn fetch(&mut self, uri: &str, resolver: &dyn Resolver) -> Result<Value, Refusal> {
        let urn: Urn = uri.parse().map_err(|_| {
            Refusal::Unusable(format!(
                "$ref {uri:?} is not a schema URN, and dataschema never fetches references \
                 from the network or the filesystem"
            ))
        })?;
        let schema = resolver.resolve(&urn).map_err(|err| match err {
            Error::NotFound { .. } => Refusal::Missing(urn.clone()),
            err => Refusal::Unreachable(format!("resolving $ref {urn}: {}", err.chain())),
        })?;
        if schema.language() != Language::JsonSchema {
            return Err(Refusal::Unusable(format!(
                "$ref {urn} names a {} schema, not a JSON Schema",
                schema.language()
            )));
        }
        let mut value: Value = serde_json::from_slice(schema.bytes())
            .map_err(|err| Refusal::Unusable(format!("$ref {urn} is not JSON: {err}")))?;
        // The referenced version's own references apply inside it.
        super::references::apply(&mut value, schema.references());
        self.fetched.insert(uri.to_owned(), value.clone());
        Ok(value)
    }

    /// Builds the nodes reachable from the root and their edges.
    fn build(&mut self, resolver: &dyn Resolver) -> Result<(), Refusal> {
        let mut queue = Vec::new();
        self.node((0, String::new()), &mut queue);
        let mut dynamic: Vec<(usize, String)> = Vec::new();
        let mut recursive: Vec<usize> = Vec::new();
        while let Some(id) = queue.pop() {
            let loc = self.locs[id].clone();
            if !self.bases.contains_key(&loc) {
                // Reached through a pointer into a place no keyword names:
                // scan it now, under its resource's base.
                let base = self
                    .resources
                    .iter()
                    .filter(|(_, root)| root.0 == loc.0 && loc.1.starts_with(&root.1))
                    .max_by_key(|(_, root)| root.1.len())
                    .map(|(uri, _)| uri.clone())
                    .unwrap_or_else(|| DEFAULT_BASE.to_owned());
                self.scan(loc.0, loc.1.clone(), base, false);
            }
            let base = self.bases.get(&loc).cloned().unwrap_or_default();
            let Some(Value::Object(map)) = self.docs[loc.0].pointer(&loc.1) else {
                continue;
            };
            self.keys[id] = map.len().max(1) as u64;
            self.unevaluated[id] =
                map.contains_key("unevaluatedProperties") || map.contains_key("unevaluatedItems");
            if map.contains_key("anyOf") || map.contains_key("oneOf") {
                self.has_context = true;
            }
            let subs = subschemas(map, &loc.1);
            let refs: Vec<(&'static str, String)> = ["$ref", "$dynamicRef", "$recursiveRef"]
                .into_iter()
                .filter_map(|key| Some((key, map.get(key)?.as_str()?.to_owned())))
                .collect();
            for (sub, in_place, descends) in subs {
                if !(in_place || descends) {
                    continue;
                }
                let child = self.node((loc.0, sub), &mut queue);
                if in_place {
                    self.in_place[id].push(child);
                } else {
                    self.descend[id].push(child);
                }
            }
            for (key, reference) in refs {
                let target = self.target(&base, &reference, resolver)?;
                let child = self.node(target, &mut queue);
                self.in_place[id].push(child);
                if key == "$dynamicRef" {
                    let name = reference.rsplit_once('#').map(|(_, n)| n).unwrap_or("");
                    dynamic.push((id, percent_decode(name)));
                }
                if key == "$recursiveRef" {
                    recursive.push(id);
                }
            }
            if queue.is_empty() {
                // Dynamic references may land on any anchor of their name
                // in the dynamic scope: count every one.
                for (id, name) in dynamic.drain(..) {
                    for loc in self.dynamic_anchors.get(&name).cloned().unwrap_or_default() {
                        let child = self.node(loc, &mut queue);
                        self.in_place[id].push(child);
                    }
                }
                for id in recursive.drain(..) {
                    for loc in self.recursive_anchors.clone() {
                        let child = self.node(loc, &mut queue);
                        self.in_place[id].push(child);
                    }
                }
            }
        }
        Ok(())
    }

    /// Strongly connected components of the in-place edges (iterative
    /// Tarjan), in reverse topological order (sinks first).
    fn components(&self) -> (Vec<usize>, Vec<Vec<usize>>) {
        let n = self.locs.len();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut component = vec![usize::MAX; n];
        let mut components = Vec::new();
        let mut next = 0;
        for start in 0..n {
            if index[start] != usize::MAX {
                continue;
            }
            let mut work = vec![(start, 0usize)];
            while let Some(&mut (v, ref mut edge)) = work.last_mut() {
                if *edge == 0 && index[v] == usize::MAX {
                    index[v] = next;
                    low[v] = next;
                    next += 1;
                    stack.push(v);
                    on_stack[v] = true;
                }
                if let Some(&w) = self.in_place[v].get(*edge) {
                    *edge += 1;
                    if index[w] == usize::MAX {
                        work.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut members = Vec::new();
                    // `v` is on the stack: the loop ends at it.
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component[w] = components.len();
                        members.push(w);
                        if w == v {
                            break;
                        }
                    }
                    components.push(members);
                }
            }
        }
        (component, components)
    }
}

/// Analyses `schema`; refuses it when validation could recurse deeper than
/// [`MAX_DEPTH`] on any payload (in place alone), or when a `$ref` cannot
/// be followed; otherwise says how deep a payload may nest for each stack
/// ([`Depths`]).
pub(crate) fn analyse(schema: &Value, resolver: &dyn Resolver) -> Result<Facts, Refusal> {
    let mut graph = Graph::default();
    graph.add_doc(schema.clone(), DEFAULT_BASE);
    graph.build(resolver)?;
    let (component, components) = graph.components();
    let cap = MAX_DEPTH_OWN_STACK + 1;
    let mut depths = Depths::INLINE;
    // The deepest path within the own-stack bound, once past the inline one.
    let mut deepest = 0u32;
    // depth[c]: the deepest path from component c with k descents left,
    // one row per k (rolling); each component counts its size.
    let mut below = vec![0u32; components.len()];
    let mut row = vec![0u32; components.len()];
    let root = component[0];
    let unevaluated: Vec<bool> = components
        .iter()
        .map(|members| members.iter().any(|&v| graph.unevaluated[v]))
        .collect();
    let mut in_place_only = Vec::new();
    for k in 0..=MAX_NESTING {
        for (c, members) in components.iter().enumerate() {
            let mut best = 0u32;
            for &v in members {
                for &w in &graph.in_place[v] {
                    if component[w] != c {
                        best = best.max(row[component[w]]);
                    }
                }
                if k > 0 {
                    for &w in &graph.descend[v] {
                        best = best.max(below[component[w]]);
                    }
                }
            }
            if k > 0 && unevaluated[c] {
                // `unevaluated*` walks the subschemas applied in place to
                // find what they evaluated, at about UNEVALUATED_COST
                // times the stack per subschema.
                best = best.max(in_place_only[c] * (UNEVALUATED_COST - 1));
            }
            row[c] = (members.len() as u32).saturating_add(best).min(cap);
        }
        if k == 0 {
            in_place_only = row.clone();
            for (c, &yes) in unevaluated.iter().enumerate() {
                if yes {
                    let walk = in_place_only[c].saturating_mul(UNEVALUATED_COST).min(cap);
                    row[c] = row[c].max(walk);
                }
            }
        }
        if row[root] > MAX_DEPTH && k == 0 {
            return Err(Refusal::Unusable(format!(
                "validating against this schema could recurse more than {MAX_DEPTH} subschemas \
                 deep on any payload (through $ref and in-place applicators such as \
                 allOf/anyOf/not); dataschema refuses such schemas so that validation fits a \
                 2 MiB thread stack"
            )));
        }
        if row[root] > MAX_DEPTH && depths.inline == MAX_NESTING {
            // Payloads nested `k` deep or more recurse on a stack of their own.
            depths.inline = k - 1;
        }
        if row[root] > MAX_DEPTH_OWN_STACK {
            depths.own_stack = k - 1;
            break;
        }
        deepest = row[root];
        std::mem::swap(&mut below, &mut row);
    }
    if depths.inline < MAX_NESTING {
        depths.stack_bytes = (1 << 20) + deepest as usize * STACK_PER_SUBSCHEMA;
    }
    let errors_per_value = errors_per_value(&graph, &component, &components);
    Ok(Facts {
        fetched: graph.fetched,
        errors_per_value,
        has_context: graph.has_context,
        depths,
    })
}

/// An upper bound on the errors one payload value can produce: for each
/// payload depth, how many times each subschema can be evaluated on one
/// value at that depth (in place from the root, then through every
/// descending keyword as if it applied), times its keywords. `u64::MAX`
/// when an in-place cycle makes it unbounded.
fn errors_per_value(graph: &Graph, component: &[usize], components: &[Vec<usize>]) -> u64 {
    let cyclic = components.iter().enumerate().any(|(c, members)| {
        members.len() > 1
            || graph.in_place[members[0]]
                .iter()
                .any(|&w| component[w] == c)
    });
    if cyclic {
        return u64::MAX;
    }
    // Components are single nodes, sinks first: sources first is the reverse.
    let order: Vec<usize> = components.iter().rev().map(|members| members[0]).collect();
    let n = graph.locs.len();
    let mut count = vec![0u64; n];
    count[0] = 1;
    let mut worst = 0u64;
    for depth in 0..=MAX_NESTING {
        for &v in &order {
            if count[v] == 0 {
                continue;
            }
            for &w in &graph.in_place[v] {
                count[w] = count[w].saturating_add(count[v]);
            }
        }
        let errors = (0..n).fold(0u64, |sum, v| {
            sum.saturating_add(count[v].saturating_mul(graph.keys[v]))
        });
        worst = worst.max(errors);
        if depth == MAX_NESTING {
            break;
        }
        let mut next = vec![0u64; n];
        for (&times, targets) in count.iter().zip(&graph.descend) {
            if times == 0 {
                continue;
            }
            for &w in targets {
                next[w] = next[w].saturating_add(times);
            }
        }
        if next.iter().all(|&c| c == 0) {
            break;
        }
        count = next;
    }
    worst
}
