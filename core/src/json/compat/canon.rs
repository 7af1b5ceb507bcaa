//! Canonical ids: equal JSON values, and subschemas of the same structure,
//! get the same number, in both schemas of a diff.
//!
//! Ids come from one interner shared by the two models: a key is the
//! canonical encoding of a value or a node (its own fields, with its
//! children by their ids), so equal keys are equal structures, exactly (the
//! hash only finds the bucket; the key itself is compared). Everything is
//! computed once, in time linear in the size of the schemas, so that the
//! comparison can
//!
//! * take two subschemas of the same structure as unchanged without walking
//!   them ([`Canon::full`]),
//! * pair members of a combined schema that differ only in annotations
//!   (`title`, `description`, `default`, `$id`) without trying every pair
//!   ([`Canon::shape`]),
//! * compare `enum` values, `const`s and annotations as numbers, and
//!   de-duplicate members by their JSON, with hash sets.
//!
//! Nodes that reach a recursive cycle (`$ref`s back up the schema) get their
//! ids by partition refinement over both models, bounded in rounds and work;
//! where that does not settle they have none, and the comparison walks them.

use std::collections::HashMap;

use serde_json::Value;

use super::nodes::{Criterion, Id, Model, Node};

/// Interned keys: JSON values and node structures.
#[derive(Debug, Default)]
pub(super) struct Interner {
    ids: HashMap<Vec<u8>, u64>,
    /// The id of each JSON value seen, by address (values are borrowed from
    /// the two documents for the whole diff, so addresses are stable).
    values: HashMap<usize, u64>,
}

impl Interner {
    fn intern(&mut self, key: Vec<u8>) -> u64 {
        let next = self.ids.len() as u64;
        *self.ids.entry(key).or_insert(next)
    }

    /// The id of a JSON value: equal ids are equal JSON, where `1` and
    /// `1.0` are the same number and object keys are unordered.
    pub(super) fn value(&mut self, v: &Value) -> u64 {
        let addr = v as *const Value as usize;
        if let Some(&id) = self.values.get(&addr) {
            return id;
        }
        let mut key = Vec::new();
        match v {
            Value::Null => key.push(0),
            Value::Bool(b) => key.extend([1, u8::from(*b)]),
            Value::Number(n) => {
                key.push(2);
                match n.as_f64() {
                    // -0 and 0 are the same number.
                    Some(f) => {
                        key.extend((if f == 0.0 { 0.0f64 } else { f }).to_bits().to_le_bytes())
                    }
                    None => key.extend(n.to_string().as_bytes()),
                }
            }
            Value::String(s) => {
                key.push(3);
                key.extend(s.as_bytes());
            }
            Value::Array(items) => {
                key.push(4);
                for item in items {
                    key.extend(self.value(item).to_le_bytes());
                }
            }
            Value::Object(map) => {
                key.push(5);
                let mut entries: Vec<(&str, u64)> = map
                    .iter()
                    .map(|(k, x)| (k.as_str(), self.value(x)))
                    .collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for (k, id) in entries {
                    push_str(&mut key, k);
                    key.extend(id.to_le_bytes());
                }
            }
        }
        let id = self.intern(key);
        self.values.insert(addr, id);
        id
    }
}

/// The structural ids of one model's nodes.
#[derive(Debug)]
pub(super) struct Canon {
    full: Vec<Option<u64>>,
    shape: Vec<Option<u64>>,
    sketch: Vec<u64>,
}

/// Rounds of partition refinement tried on nodes that reach a cycle before
/// they are left without structural ids (compared in full instead).
const MAX_ROUNDS: usize = 64;

/// The most node visits the refinement makes in all its rounds.
const MAX_REFINE_WORK: usize = 4_000_000;

impl Canon {
    /// Structural ids for every node of both models, from one `interner`.
    pub(super) fn pair(old: &Model<'_>, new: &Model<'_>, interner: &mut Interner) -> [Canon; 2] {
        let mut canon = [Canon::acyclic(old, interner), Canon::acyclic(new, interner)];
        let models = [old, new];
        for annotations in [true, false] {
            refine(models, &mut canon, annotations, interner);
        }
        canon
    }

    /// Computes both models' sketches, once; returns the node visits it took
    /// (0 when they were there already).
    pub(super) fn sketch_pair(
        models: [&Model<'_>; 2],
        canon: &mut [Canon; 2],
        interner: &mut Interner,
    ) -> usize {
        if !canon[0].sketch.is_empty() {
            return 0;
        }
        sketch(models, canon, interner);
        SKETCH_DEPTH * (models[0].nodes.len() + models[1].nodes.len())
    }

    /// Structural ids for the nodes of `model` that reach no cycle.
    fn acyclic(model: &Model<'_>, interner: &mut Interner) -> Canon {
        let n = model.nodes.len();
        let mut canon = Canon {
            full: vec![None; n],
            shape: vec![None; n],
            sketch: Vec::new(),
        };
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            New,
            Open,
            Done,
        }
        let mut state = vec![State::New; n];
        // Whether the node reaches a cycle (then it has no structural id).
        let mut cyclic = vec![false; n];
        // Iterative depth-first walk: `$ref`s chain nodes far deeper than
        // the stack allows.
        let mut stack: Vec<(Id, Vec<Id>, usize)> = Vec::new();
        for start in 0..n {
            let start = model.follow(start);
            if state[start] != State::New {
                continue;
            }
            state[start] = State::Open;
            stack.push((start, children(model, start), 0));
            while let Some((node, kids, next)) = stack.last_mut() {
                let node = *node;
                if let Some(&child) = kids.get(*next) {
                    *next += 1;
                    match state[child] {
                        State::New => {
                            state[child] = State::Open;
                            let grandchildren = children(model, child);
                            stack.push((child, grandchildren, 0));
                        }
                        State::Open => cyclic[node] = true,
                        State::Done => cyclic[node] |= cyclic[child],
                    }
                    continue;
                }
                stack.pop();
                state[node] = State::Done;
                if cyclic[node] {
                    if let Some((parent, _, _)) = stack.last() {
                        cyclic[*parent] = true;
                    }
                } else {
                    let full = label(model, node, &canon.full, true, interner);
                    let shape = label(model, node, &canon.shape, false, interner);
                    canon.full[node] = full.map(|k| interner.intern(k));
                    canon.shape[node] = shape.map(|k| interner.intern(k));
                }
            }
        }
        canon
    }

    /// The structural id of node `id` (through a reference), annotations
    /// included: equal ids compare with no change at all.
    pub(super) fn full(&self, model: &Model<'_>, id: Id) -> Option<u64> {
        self.full[model.follow(id)]
    }

    /// The structural id without annotations (`$id`, `title`,
    /// `description`, `default`, at any depth): equal ids compare with
    /// annotation changes only, all compatible.
    pub(super) fn shape(&self, model: &Model<'_>, id: Id) -> Option<u64> {
        self.shape[model.follow(id)]
    }

    /// The structure without annotations down to [`SKETCH_DEPTH`] levels
    /// (through cycles too): members of a large combined schema with the
    /// same sketch are likely the same member, changed. Only after
    /// [`Canon::sketch_pair`].
    pub(super) fn sketch(&self, model: &Model<'_>, id: Id) -> u64 {
        self.sketch.get(model.follow(id)).copied().unwrap_or(0)
    }
}

/// Gives ids to the nodes that reach a cycle (recursive `$ref`s), in both
/// models at once, by partition refinement: every such node starts in one
/// class, and each round splits classes by the nodes' own keys with their
/// children's classes of the round before, until a round splits nothing.
/// Then nodes of one class are bisimilar (same keys, children pairwise in
/// one class), which is what comparing them sees: no change. A refinement
/// that does not settle within its rounds leaves those nodes without ids.
fn refine(
    models: [&Model<'_>; 2],
    canon: &mut [Canon; 2],
    annotations: bool,
    interner: &mut Interner,
) {
    let pick = |c: &Canon| -> Vec<Option<u64>> {
        if annotations {
            c.full.clone()
        } else {
            c.shape.clone()
        }
    };
    // The nodes without an id (not references, which take their target's).
    let open: [Vec<Id>; 2] = [0, 1].map(|m| {
        let model = models[m];
        let current = if annotations {
            &canon[m].full
        } else {
            &canon[m].shape
        };
        (0..model.nodes.len())
            .filter(|&id| model.follow(id) == id && current[id].is_none())
            .collect()
    });
    let size = open[0].len() + open[1].len();
    if size == 0 {
        return;
    }
    // Round 0: one class for all. Class numbers have the top bit set, apart
    // from the interner's ids (which count from 0) that children without a
    // cycle carry.
    const CLASS: u64 = 1 << 63;
    let mut current = [pick(&canon[0]), pick(&canon[1])];
    for m in 0..2 {
        for &id in &open[m] {
            current[m][id] = Some(CLASS);
        }
    }
    let mut classes = 1;
    let mut work = 0usize;
    for _ in 0..MAX_ROUNDS {
        let mut round: HashMap<Vec<u8>, u64> = HashMap::new();
        let mut next = [current[0].clone(), current[1].clone()];
        for m in 0..2 {
            for &id in &open[m] {
                let key = label(models[m], id, &current[m], annotations, interner);
                let Some(key) = key else { return };
                let fresh = CLASS | round.len() as u64;
                next[m][id] = Some(*round.entry(key).or_insert(fresh));
            }
        }
        work = work.saturating_add(size + current[0].len() + current[1].len());
        let settled = round.len() == classes;
        classes = round.len();
        current = next;
        if settled {
            // Ids of this diff's classes, apart from every other id.
            for m in 0..2 {
                let target = if annotations {
                    &mut canon[m].full
                } else {
                    &mut canon[m].shape
                };
                for &id in &open[m] {
                    if let Some(class) = current[m][id] {
                        let mut key = vec![if annotations { 0xF1 } else { 0xE1 }];
                        key.extend(class.to_le_bytes());
                        target[id] = Some(interner.intern(key));
                    }
                }
            }
            return;
        }
        if work > MAX_REFINE_WORK {
            return;
        }
    }
}

/// How many levels of nodes a sketch holds.
pub(super) const SKETCH_DEPTH: usize = 3;

/// Sketches of every node of both models: [`SKETCH_DEPTH`] rounds of keys
/// without annotations, each with its children's keys of the round before.
fn sketch(models: [&Model<'_>; 2], canon: &mut [Canon; 2], interner: &mut Interner) {
    const CLASS: u64 = 1 << 63;
    let mut current: [Vec<Option<u64>>; 2] =
        [0, 1].map(|m| vec![Some(CLASS); models[m].nodes.len()]);
    for _ in 0..SKETCH_DEPTH {
        let mut round: HashMap<Vec<u8>, u64> = HashMap::new();
        let mut next = [current[0].clone(), current[1].clone()];
        for (m, next) in next.iter_mut().enumerate() {
            let model = models[m];
            for (id, slot) in next.iter_mut().enumerate() {
                if model.follow(id) != id {
                    continue;
                }
                if let Some(key) = label(model, id, &current[m], false, interner) {
                    let fresh = CLASS | round.len() as u64;
                    *slot = Some(*round.entry(key).or_insert(fresh));
                }
            }
        }
        current = next;
    }
    for m in 0..2 {
        canon[m].sketch = current[m].iter().map(|c| c.unwrap_or(CLASS)).collect();
    }
}

/// The nodes `id` points to, through references.
fn children(model: &Model<'_>, id: Id) -> Vec<Id> {
    let mut out = Vec::new();
    match &model.nodes[id].node {
        Node::Object(o) => {
            out.extend(o.properties.iter().map(|(_, c)| *c));
            out.extend(o.additional);
            out.extend(o.pattern_properties.iter().map(|(_, c)| *c));
            out.extend(o.schema_dependencies.iter().map(|(_, c)| *c));
        }
        Node::Array(a) => {
            out.extend(a.all_items);
            out.extend(a.item_schemas.iter().copied());
            out.extend(a.additional);
        }
        Node::Combined(_, subs) => out.extend(subs.iter().copied()),
        Node::Not(c) => out.push(*c),
        Node::Ref(c) => out.push(*c),
        _ => {}
    }
    for c in &mut out {
        *c = model.follow(*c);
    }
    out
}

fn push_str(key: &mut Vec<u8>, s: &str) {
    key.extend((s.len() as u64).to_le_bytes());
    key.extend(s.as_bytes());
}

fn push_num(key: &mut Vec<u8>, n: Option<f64>) {
    match n {
        None => key.push(0),
        Some(f) => {
            key.push(1);
            key.extend(f.to_bits().to_le_bytes());
        }
    }
}

fn push_opt(key: &mut Vec<u8>, id: Option<u64>) {
    match id {
        None => key.push(0),
        Some(id) => {
            key.push(1);
            key.extend(id.to_le_bytes());
        }
    }
}

/// The key of node `id` (not a reference), with its children by their ids
/// in `ids`; `None` when a child has none. `annotations` says whether the
/// key holds `$id`, `title`, `description` and `default`.
fn label(
    model: &Model<'_>,
    id: Id,
    ids: &[Option<u64>],
    annotations: bool,
    interner: &mut Interner,
) -> Option<Vec<u8>> {
    let schema = &model.nodes[id];
    let child = |c: Id| ids[model.follow(c)];
    let mut key = vec![if annotations { 0xF0 } else { 0xE0 }];
    match &schema.node {
        Node::Empty => key.push(0),
        Node::False => key.push(1),
        Node::Boolean => key.push(2),
        Node::Null => key.push(3),
        Node::Conditional => key.push(4),
        Node::String(s) => {
            key.push(5);
            push_num(&mut key, s.max_length);
            push_num(&mut key, s.min_length);
            match s.pattern {
                None => key.push(0),
                Some(p) => {
                    key.push(1);
                    push_str(&mut key, p);
                }
            }
        }
        Node::Number(n) => {
            key.push(6);
            for bound in [
                n.maximum,
                n.minimum,
                n.exclusive_maximum,
                n.exclusive_minimum,
                n.multiple_of,
            ] {
                push_num(&mut key, bound);
            }
            key.push(u8::from(n.integer));
        }
        Node::Enum(values) => {
            key.push(7);
            key.extend((values.len() as u64).to_le_bytes());
            for v in values {
                key.extend(interner.value(v).to_le_bytes());
            }
        }
        Node::Const(v) => {
            key.push(8);
            key.extend(interner.value(v).to_le_bytes());
        }
        Node::Combined(criterion, subs) => {
            key.push(9);
            key.push(match criterion {
                Criterion::All => 0,
                Criterion::Any => 1,
                Criterion::One => 2,
            });
            key.extend((subs.len() as u64).to_le_bytes());
            for &s in subs {
                key.extend(child(s)?.to_le_bytes());
            }
        }
        Node::Not(c) => {
            key.push(10);
            key.extend(child(*c)?.to_le_bytes());
        }
        Node::ExternalRef(uri) => {
            key.push(11);
            push_str(&mut key, uri);
        }
        // References are resolved before a node is keyed; a reference cycle
        // reads as the empty schema.
        Node::Ref(c) => return child(*c).map(|c| c.to_le_bytes().to_vec()),
        Node::Object(o) => {
            key.push(12);
            key.extend((o.properties.len() as u64).to_le_bytes());
            for (name, c) in &o.properties {
                push_str(&mut key, name);
                key.extend(child(*c)?.to_le_bytes());
            }
            key.extend((o.required.len() as u64).to_le_bytes());
            for name in &o.required {
                push_str(&mut key, name);
            }
            key.push(u8::from(o.permits_additional));
            push_opt(
                &mut key,
                match o.additional {
                    None => None,
                    Some(c) => Some(child(c)?),
                },
            );
            key.extend((o.pattern_properties.len() as u64).to_le_bytes());
            for (pattern, c) in &o.pattern_properties {
                push_str(&mut key, pattern);
                key.extend(child(*c)?.to_le_bytes());
            }
            push_num(&mut key, o.max_properties);
            push_num(&mut key, o.min_properties);
            key.extend((o.property_dependencies.len() as u64).to_le_bytes());
            for (name, names) in &o.property_dependencies {
                push_str(&mut key, name);
                key.extend((names.len() as u64).to_le_bytes());
                for n in names {
                    push_str(&mut key, n);
                }
            }
            key.extend((o.schema_dependencies.len() as u64).to_le_bytes());
            for (name, c) in &o.schema_dependencies {
                push_str(&mut key, name);
                key.extend(child(*c)?.to_le_bytes());
            }
        }
        Node::Array(a) => {
            key.push(13);
            push_opt(
                &mut key,
                match a.all_items {
                    None => None,
                    Some(c) => Some(child(c)?),
                },
            );
            key.extend((a.item_schemas.len() as u64).to_le_bytes());
            for &c in &a.item_schemas {
                key.extend(child(c)?.to_le_bytes());
            }
            key.push(u8::from(a.permits_additional));
            push_opt(
                &mut key,
                match a.additional {
                    None => None,
                    Some(c) => Some(child(c)?),
                },
            );
            for bound in [a.max_items, a.min_items, a.max_contains, a.min_contains] {
                push_num(&mut key, bound);
            }
            key.push(u8::from(a.unique_items));
        }
    }
    if annotations {
        let common = &schema.common;
        for v in [common.id, common.title, common.description, common.default] {
            push_opt(&mut key, v.map(|v| interner.value(v)));
        }
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_json_has_one_id() {
        let mut interner = Interner::default();
        let (a, b) = (
            json!({"x": [1, "s"], "y": null}),
            json!({"y": null, "x": [1.0, "s"]}),
        );
        assert_eq!(interner.value(&a), interner.value(&b));
        assert_ne!(
            interner.value(&a),
            interner.value(&json!({"x": [2, "s"], "y": null}))
        );
        assert_eq!(interner.value(&json!(0.0)), interner.value(&json!(-0.0)));
    }

    #[test]
    fn recursive_schemas_of_one_structure_have_one_id() {
        let tree = |title: &str, max: u32| {
            json!({"title": title, "anyOf": [
                {"type": "string", "maxLength": max},
                {"type": "array", "items": {"$ref": "#"}}
            ]})
        };
        let ids = |a: &Value, b: &Value| {
            let (a, b) = (Model::load(a), Model::load(b));
            let mut interner = Interner::default();
            let [ca, cb] = Canon::pair(&a, &b, &mut interner);
            (
                (ca.full(&a, 0), cb.full(&b, 0)),
                (ca.shape(&a, 0), cb.shape(&b, 0)),
            )
        };
        let ((fa, fb), (sa, sb)) = ids(&tree("t", 5), &tree("t", 5));
        assert!(fa.is_some());
        assert_eq!((fa, sa), (fb, sb));
        // A title: another structure, the same shape.
        let ((fa, fb), (sa, sb)) = ids(&tree("t", 5), &tree("u", 5));
        assert_ne!(fa, fb);
        assert!(sa.is_some());
        assert_eq!(sa, sb);
        // A bound: another shape.
        let (_, (sa, sb)) = ids(&tree("t", 5), &tree("t", 6));
        assert_ne!(sa, sb);
    }
}
