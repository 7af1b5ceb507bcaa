//! Comparing two JSON Schema models, after Confluent's rules: the engine
//! (its work budget, depth limit and memo of compared pairs) here, the rules
//! per node family in [`combined`] (`allOf`/`anyOf`/`oneOf` member
//! matching), [`objects`], [`arrays`] and [`scalars`] (strings, numbers).

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use serde_json::Value;

use super::canon::{Canon, Interner};
use super::kind::JsonChangeKind as K;
use super::nodes::{ArrayNode, Criterion, Id, Model, Node, NumberNode, ObjectNode, StringNode};
use crate::change::java_order::{map_order, union_order};
use regex_lite::Regex;

mod arrays;
mod combined;
mod objects;
mod scalars;

use self::scalars::{numbers, strings};

/// A change with a path relative to the pair of schemas compared
/// (`""` is the pair itself).
#[derive(Debug, Clone)]
pub(super) struct Rel {
    pub kind: K,
    pub path: String,
}

fn rel(kind: K, path: &str) -> Rel {
    Rel {
        kind,
        path: path.to_owned(),
    }
}

fn compatible(changes: &[Rel]) -> bool {
    changes.iter().all(|c| c.kind.is_backward_compatible())
}

/// Appends `changes` found under `segment` to `out`.
fn extend_under(out: &mut Vec<Rel>, segment: &str, changes: &[Rel]) {
    out.extend(changes.iter().map(|c| Rel {
        kind: c.kind,
        path: if c.path.is_empty() {
            segment.to_owned()
        } else if segment.is_empty() {
            c.path.clone()
        } else {
            format!("{segment}/{}", c.path)
        },
    }));
}

/// Which model plays the original: `Forward` compares old against new,
/// `Reversed` (inside `not`) new against old.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Forward,
    Reversed,
}

impl Side {
    fn flip(self) -> Side {
        match self {
            Side::Forward => Side::Reversed,
            Side::Reversed => Side::Forward,
        }
    }

    /// The indices (in `Comparer::models`) of the original and the update.
    fn indices(self) -> (usize, usize) {
        match self {
            Side::Forward => (0, 1),
            Side::Reversed => (1, 0),
        }
    }
}

pub(super) struct Comparer<'m, 'a> {
    models: [&'m Model<'a>; 2],
    memo: HashMap<(Side, Id, Id), Rc<[Rel]>>,
    in_progress: HashSet<(Side, Id, Id)>,
    regexes: HashMap<&'a str, Option<Regex>>,
    /// Ids of JSON values and node structures, shared by both models.
    interner: Interner,
    /// The structural ids of each model's nodes.
    canon: [Canon; 2],
    /// Each combined node's members without duplicates, per model.
    deduped: HashMap<(usize, Id), Rc<[Id]>>,
    /// How many comparisons are open on the stack.
    depth: usize,
    /// The work done so far, in steps (see [`MAX_WORK`]).
    work: usize,
    /// Whether the work ran past [`MAX_WORK`]: the diff is then only
    /// [`K::ComparisonTooLarge`].
    exhausted: bool,
}

/// The most work one diff does before it stops and reports only
/// [`K::ComparisonTooLarge`], in steps: comparing a pair of subschemas costs
/// [`COMPARISON_COST`] steps (so at most 100,000 comparisons), and every
/// value, member or name hashed, looked up or matched costs one.
/// Subschemas of the same structure compare as unchanged at no cost.
pub(super) const MAX_WORK: usize = 10_000_000;

/// The steps one comparison of a pair of subschemas costs.
pub(super) const COMPARISON_COST: usize = 100;

/// The deepest the comparison follows nested schemas (through `$ref`s,
/// which JSON's own nesting limit does not bound) before it reports
/// [`K::ComparisonTooDeep`] instead of overflowing the stack.
const MAX_DEPTH: usize = 128;

impl<'m, 'a> Comparer<'m, 'a> {
    pub(super) fn new(old: &'m Model<'a>, new: &'m Model<'a>) -> Self {
        let mut interner = Interner::default();
        let canon = Canon::pair(old, new, &mut interner);
        Comparer {
            models: [old, new],
            memo: HashMap::new(),
            in_progress: HashSet::new(),
            regexes: HashMap::new(),
            interner,
            canon,
            deduped: HashMap::new(),
            depth: 0,
            work: 0,
            exhausted: false,
        }
    }

    /// Counts `steps` of work; false (and the diff exhausted) once the
    /// budget is spent.
    fn charge(&mut self, steps: usize) -> bool {
        self.work = self.work.saturating_add(steps);
        if self.work > MAX_WORK {
            self.exhausted = true;
        }
        !self.exhausted
    }

    /// Whether two optional JSON values are equal (`1` and `1.0` alike).
    fn same(&mut self, a: Option<&'a Value>, b: Option<&'a Value>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => self.interner.value(a) == self.interner.value(b),
            _ => false,
        }
    }

    /// The models playing original and update on `side`.
    fn pair(&self, side: Side) -> (&'m Model<'a>, &'m Model<'a>) {
        match side {
            Side::Forward => (self.models[0], self.models[1]),
            Side::Reversed => (self.models[1], self.models[0]),
        }
    }

    /// Compares the root schemas. A comparison that ran out of budget is
    /// only [`K::ComparisonTooLarge`]: what it found before cannot be told
    /// from what it did not get to.
    pub(super) fn root(&mut self) -> Vec<Rel> {
        let changes = self.compare(Side::Forward, Some(0), Some(0)).to_vec();
        if self.exhausted {
            return vec![rel(K::ComparisonTooLarge, "")];
        }
        changes
    }

    /// Compares an optional original against an optional update.
    fn compare(&mut self, side: Side, o: Option<Id>, u: Option<Id>) -> Rc<[Rel]> {
        let (om, um) = self.pair(side);
        let (o, u) = match (o, u) {
            (None, None) => return Rc::from([]),
            (None, Some(_)) => return Rc::from([rel(K::SchemaAdded, "")]),
            (Some(_), None) => return Rc::from([rel(K::SchemaRemoved, "")]),
            (Some(o), Some(u)) => (om.follow(o), um.follow(u)),
        };
        if self.exhausted {
            return Rc::from([rel(K::ComparisonTooLarge, "")]);
        }
        // The same structure (annotations included) has no change, whatever
        // its size.
        let (oi, ui) = side.indices();
        let (of, uf) = (self.canon[oi].full(om, o), self.canon[ui].full(um, u));
        if of.is_some() && of == uf {
            return Rc::from([]);
        }
        let key = (side, o, u);
        if let Some(found) = self.memo.get(&key) {
            return Rc::clone(found);
        }
        if !self.in_progress.insert(key) {
            // A recursive schema came back to a pair being compared: the
            // rest of the comparison decides, this visit adds nothing.
            return Rc::from([]);
        }
        if self.depth >= MAX_DEPTH {
            self.in_progress.remove(&key);
            return Rc::from([rel(K::ComparisonTooDeep, "")]);
        }
        if !self.charge(COMPARISON_COST) {
            self.in_progress.remove(&key);
            return Rc::from([rel(K::ComparisonTooLarge, "")]);
        }
        self.depth += 1;
        let result: Rc<[Rel]> = Rc::from(self.compare_resolved(side, o, u));
        self.depth -= 1;
        self.in_progress.remove(&key);
        self.memo.insert(key, Rc::clone(&result));
        result
    }

    fn compare_resolved(&mut self, side: Side, o: Id, u: Id) -> Vec<Rel> {
        let (om, um) = self.pair(side);
        let (os, us) = (om.schema(o), um.schema(u));
        match (&os.node, &us.node) {
            (node, Node::Combined(criterion, subs)) if !matches!(node, Node::Combined(..)) => {
                if subs.len() == 1 {
                    let sub = self.compare(side, Some(o), Some(subs[0]));
                    if compatible(&sub) {
                        return sub.to_vec();
                    }
                } else if *criterion != Criterion::All {
                    for &s in subs {
                        let sub = self.compare(side, Some(o), Some(s));
                        if compatible(&sub) {
                            let mut out = sub.to_vec();
                            out.push(rel(K::SumTypeExtended, ""));
                            return out;
                        }
                    }
                }
            }
            (Node::Combined(criterion, subs), node) if !matches!(node, Node::Combined(..)) => {
                if subs.len() == 1 {
                    let sub = self.compare(side, Some(subs[0]), Some(u));
                    if compatible(&sub) {
                        return sub.to_vec();
                    }
                } else if *criterion == Criterion::All {
                    // Dropping the other members of an allOf only relaxes it.
                    for &s in subs {
                        let sub = self.compare(side, Some(s), Some(u));
                        if compatible(&sub) {
                            let mut out = sub.to_vec();
                            out.push(rel(K::ProductTypeNarrowed, ""));
                            return out;
                        }
                    }
                }
            }
            _ => {}
        }
        let (oc, uc) = (om.class(o), um.class(u));
        if oc != uc {
            use super::nodes::Class;
            if oc == Class::False || uc == Class::Empty {
                return Vec::new();
            }
            return vec![rel(K::TypeChanged, "")];
        }
        let mut out = Vec::new();
        let (oc, uc) = (&os.common, &us.common);
        if !self.same(oc.id, uc.id) {
            out.push(rel(K::IdChanged, ""));
        }
        if !self.same(oc.title, uc.title) {
            out.push(rel(K::TitleChanged, ""));
        }
        if !self.same(oc.description, uc.description) {
            out.push(rel(K::DescriptionChanged, ""));
        }
        if !self.same(oc.default, uc.default) {
            out.push(rel(K::DefaultChanged, ""));
        }
        match (&os.node, &us.node) {
            (Node::String(a), Node::String(b)) => strings(&mut out, a, b),
            (Node::Number(a), Node::Number(b)) => numbers(&mut out, a, b),
            (Node::Enum(a), Node::Enum(b)) => {
                if !self.charge(a.len().saturating_add(b.len())) {
                    return out;
                }
                let interner = &mut self.interner;
                let a: Vec<u64> = a.iter().map(|v| interner.value(v)).collect();
                let b: Vec<u64> = b.iter().map(|v| interner.value(v)).collect();
                if let Some(kind) = set_change(
                    &a,
                    &b,
                    K::EnumArrayExtended,
                    K::EnumArrayNarrowed,
                    K::EnumArrayChanged,
                ) {
                    out.push(rel(kind, "enum"));
                }
            }
            (Node::Const(a), Node::Const(b)) if !self.same(Some(a), Some(b)) => {
                out.push(rel(K::EnumArrayChanged, "const"));
            }
            (Node::ExternalRef(a), Node::ExternalRef(b)) if a != b => {
                out.push(rel(K::TypeChanged, ""));
            }
            (Node::Combined(ac, asubs), Node::Combined(bc, bsubs)) => {
                self.combined(side, &mut out, (o, *ac, asubs), (u, *bc, bsubs));
            }
            (Node::Not(a), Node::Not(b)) => {
                // The negated schemas compare the other way round.
                let sub = self.compare(side.flip(), Some(*b), Some(*a));
                if !sub.is_empty() {
                    let kind = if compatible(&sub) {
                        K::NotTypeNarrowed
                    } else {
                        K::NotTypeExtended
                    };
                    out.push(rel(kind, "not"));
                }
            }
            (Node::Object(a), Node::Object(b)) => self.objects(side, &mut out, a, b),
            (Node::Array(a), Node::Array(b)) => self.arrays(side, &mut out, a, b),
            _ => {}
        }
        out
    }
}

/// `[added, removed, increased, decreased]` for a numeric keyword.
pub(super) fn bound(
    out: &mut Vec<Rel>,
    keyword: &str,
    o: Option<f64>,
    u: Option<f64>,
    kinds: [K; 4],
) {
    let kind = match (o, u) {
        (None, Some(_)) => kinds[0],
        (Some(_), None) => kinds[1],
        (Some(a), Some(b)) if a < b => kinds[2],
        (Some(a), Some(b)) if a > b => kinds[3],
        _ => return,
    };
    out.push(rel(kind, keyword));
}

/// Each key's first value: a later duplicate (`dependencies` and
/// `dependentRequired` naming the same property) does not count.
pub(super) fn first_by_key<'a, 'b, T>(entries: &'b [(&'a str, T)]) -> HashMap<&'a str, &'b T> {
    let mut map = HashMap::with_capacity(entries.len());
    for (k, v) in entries {
        map.entry(*k).or_insert(v);
    }
    map
}

/// How a set changed: `None` when equal.
pub(super) fn set_change<T: Copy + Eq + std::hash::Hash>(
    a: &[T],
    b: &[T],
    extended: K,
    narrowed: K,
    changed: K,
) -> Option<K> {
    let (sa, sb): (HashSet<T>, HashSet<T>) =
        (a.iter().copied().collect(), b.iter().copied().collect());
    let a_in_b = sa.iter().all(|x| sb.contains(x));
    let b_in_a = sb.iter().all(|y| sa.contains(y));
    match (a_in_b, b_in_a) {
        (true, true) => None,
        (true, false) => Some(extended),
        (false, true) => Some(narrowed),
        (false, false) => Some(changed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_work_budget_stops_a_combinatorial_comparison() {
        let nested = |base: i64| {
            let outer: Vec<serde_json::Value> = (0..60)
                .map(|i| {
                    let inner: Vec<serde_json::Value> = (0..60)
                        .map(|k| json!({"type": "integer", "minimum": base + i * 100 + k}))
                        .collect();
                    json!({ "anyOf": inner })
                })
                .collect();
            json!({ "anyOf": outer })
        };
        let (old, new) = (nested(0), nested(1));
        let (old, new) = (Model::load(&old), Model::load(&new));
        let mut comparer = Comparer::new(&old, &new);
        let changes = comparer.root();
        assert!(comparer.exhausted);
        assert!(comparer.work > MAX_WORK);
        // The work stops within one charge of the budget.
        assert!(comparer.work <= MAX_WORK + COMPARISON_COST);
        let kinds: Vec<K> = changes.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [K::ComparisonTooLarge]);
    }
}
