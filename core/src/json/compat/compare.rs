//! Comparing two JSON Schema models, after Confluent's rules.

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

use serde_json::Value;

use super::canon::{Canon, Interner};
use super::kind::JsonChangeKind as K;
use super::nodes::{ArrayNode, Criterion, Id, Model, Node, NumberNode, ObjectNode, StringNode};
use crate::compat::java_order::{map_order, union_order};
use regex_lite::Regex;

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

/// Past this many pairs of members left unpaired by structure, members of a
/// combined schema that look alike (the same sketch) pair first, when they
/// compare compatibly, instead of trying every pair.
const MAX_EXACT_PAIRS: usize = 2_500;

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
            (Some(o), Some(u)) => (om.resolve(o), um.resolve(u)),
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

    fn combined(
        &mut self,
        side: Side,
        out: &mut Vec<Rel>,
        (o, oc, osubs): (Id, Criterion, &[Id]),
        (u, uc, usubs): (Id, Criterion, &[Id]),
    ) {
        let criterion_change = if oc == uc {
            None
        } else if uc == Criterion::Any
            || (uc == Criterion::One && (oc == Criterion::All || osubs.len() == 1))
            || (uc == Criterion::All && osubs.len() == 1 && usubs.len() == 1)
        {
            Some(K::CombinedTypeExtended)
        } else {
            Some(K::CombinedTypeChanged)
        };
        if let Some(kind) = criterion_change {
            out.push(rel(kind, ""));
            if kind == K::CombinedTypeChanged {
                return;
            }
        }
        let (oi, ui) = side.indices();
        let osubs = self.dedup(oi, o, osubs);
        let usubs = self.dedup(ui, u, usubs);
        if self.exhausted {
            return;
        }
        if osubs.len() < usubs.len() {
            out.push(rel(
                if uc == Criterion::All {
                    K::ProductTypeExtended
                } else {
                    K::SumTypeExtended
                },
                "",
            ));
        } else if osubs.len() > usubs.len() {
            out.push(rel(
                if oc == Criterion::All {
                    K::ProductTypeNarrowed
                } else {
                    K::SumTypeNarrowed
                },
                "",
            ));
        }
        // Each original member's partner in the update, with its changes.
        let mut partner: Vec<Option<(usize, Rc<[Rel]>)>> = vec![None; osubs.len()];
        let mut taken = vec![false; usubs.len()];
        let (om, um) = self.pair(side);
        // Members of the same structure pair up, unchanged, uncompared.
        let full = |canon: &Canon, model: &Model<'a>, ids: &[Id]| -> Vec<Option<u64>> {
            ids.iter().map(|&id| canon.full(model, id)).collect()
        };
        let (okeys, ukeys) = (
            full(&self.canon[oi], om, &osubs),
            full(&self.canon[ui], um, &usubs),
        );
        for (i, j) in equal_pairs(&okeys, &ukeys, &partner, &taken) {
            partner[i] = Some((j, Rc::from([])));
            taken[j] = true;
        }
        // Members that differ only in annotations pair up next: their
        // changes are compatible, whatever else they could pair with.
        let shape = |canon: &Canon, model: &Model<'a>, ids: &[Id]| -> Vec<Option<u64>> {
            ids.iter().map(|&id| canon.shape(model, id)).collect()
        };
        let (okeys, ukeys) = (
            shape(&self.canon[oi], om, &osubs),
            shape(&self.canon[ui], um, &usubs),
        );
        for (i, j) in equal_pairs(&okeys, &ukeys, &partner, &taken) {
            let sub = self.compare(side, Some(osubs[i]), Some(usubs[j]));
            if compatible(&sub) {
                partner[i] = Some((j, sub));
                taken[j] = true;
            }
        }
        if !self.charge(osubs.len().saturating_add(usubs.len())) {
            return;
        }
        // Too many left to try every pair (members that reach a recursive
        // `$ref` have no structural id, and a change below one changes them
        // all): members with the same sketch pair up when they compare
        // compatibly.
        let unpaired =
            partner.iter().filter(|p| p.is_none()).count() * taken.iter().filter(|t| !**t).count();
        if unpaired > MAX_EXACT_PAIRS {
            let visits = Canon::sketch_pair(self.models, &mut self.canon, &mut self.interner);
            if !self.charge(visits) {
                return;
            }
            let (om, um) = self.pair(side);
            let sketch = |canon: &Canon, model: &Model<'a>, ids: &[Id]| -> Vec<Option<u64>> {
                ids.iter()
                    .map(|&id| Some(canon.sketch(model, id)))
                    .collect()
            };
            let (okeys, ukeys) = (
                sketch(&self.canon[oi], om, &osubs),
                sketch(&self.canon[ui], um, &usubs),
            );
            for (i, j) in equal_pairs(&okeys, &ukeys, &partner, &taken) {
                let sub = self.compare(side, Some(osubs[i]), Some(usubs[j]));
                if compatible(&sub) {
                    partner[i] = Some((j, sub));
                    taken[j] = true;
                }
            }
        }
        // The rest is matched: compatible pairs (original member, update
        // member) with their changes, and a maximum matching over them.
        let rest_o: Vec<usize> = (0..osubs.len()).filter(|&i| partner[i].is_none()).collect();
        let rest_u: Vec<usize> = (0..usubs.len()).filter(|&j| !taken[j]).collect();
        let mut edges: Vec<Vec<(usize, Rc<[Rel]>)>> = Vec::with_capacity(rest_o.len());
        for &i in &rest_o {
            let mut row = Vec::new();
            for (c, &j) in rest_u.iter().enumerate() {
                let sub = self.compare(side, Some(osubs[i]), Some(usubs[j]));
                if self.exhausted {
                    return;
                }
                if compatible(&sub) {
                    row.push((c, sub));
                }
            }
            edges.push(row);
        }
        let Some(matched) = self.maximum_matching(&edges, rest_u.len()) else {
            return;
        };
        for (r, c) in matched.into_iter().enumerate() {
            if let Some(c) = c {
                if let Some((_, sub)) = edges[r].iter().find(|(cc, _)| *cc == c) {
                    partner[rest_o[r]] = Some((rest_u[c], Rc::clone(sub)));
                }
            }
        }
        let mut count = 0;
        for (i, p) in partner.iter().enumerate() {
            if let Some((_, sub)) = p {
                count += 1;
                extend_under(out, &format!("{}/{i}", oc.keyword()), sub);
            }
        }
        if count < osubs.len().min(usubs.len()) {
            out.push(rel(K::CombinedTypeSubschemasChanged, ""));
        }
    }

    /// The members `subs` of combined node `node` in model `m`, members
    /// with the same JSON counted once (first occurrence kept), as
    /// Confluent's `LinkedHashSet` does.
    fn dedup(&mut self, m: usize, node: Id, subs: &[Id]) -> Rc<[Id]> {
        let model = self.models[m];
        let key = (m, node);
        if let Some(found) = self.deduped.get(&key) {
            return Rc::clone(found);
        }
        if !self.charge(subs.len()) {
            return Rc::from([]);
        }
        let mut seen = HashSet::with_capacity(subs.len());
        let kept: Rc<[Id]> = subs
            .iter()
            .copied()
            .filter(|&s| match model.nodes[s].source {
                Some(src) => seen.insert(self.interner.value(src)),
                None => true,
            })
            .collect();
        self.deduped.insert(key, Rc::clone(&kept));
        kept
    }

    /// A maximum matching of a bipartite graph (augmenting paths); `edges[i]`
    /// lists the right-hand nodes left node `i` may take. Returns each left
    /// node's partner, or `None` when the budget ran out.
    fn maximum_matching<T>(
        &mut self,
        edges: &[Vec<(usize, T)>],
        right: usize,
    ) -> Option<Vec<Option<usize>>> {
        /// Whether left node `i` finds a partner; `Err` once `steps` run out.
        fn augment<T>(
            i: usize,
            edges: &[Vec<(usize, T)>],
            seen: &mut [bool],
            owner: &mut [Option<usize>],
            steps: &mut usize,
        ) -> Result<bool, ()> {
            for (j, _) in &edges[i] {
                *steps = steps.checked_sub(1).ok_or(())?;
                if seen[*j] {
                    continue;
                }
                seen[*j] = true;
                let free = match owner[*j] {
                    None => true,
                    Some(k) => augment(k, edges, seen, owner, steps)?,
                };
                if free {
                    owner[*j] = Some(i);
                    return Ok(true);
                }
            }
            Ok(false)
        }
        let budget = MAX_WORK.saturating_sub(self.work);
        let mut steps = budget;
        let mut owner: Vec<Option<usize>> = vec![None; right];
        let mut seen = vec![false; right];
        let mut failed = false;
        for i in 0..edges.len() {
            seen.iter_mut().for_each(|s| *s = false);
            if augment(i, edges, &mut seen, &mut owner, &mut steps).is_err() {
                failed = true;
                break;
            }
        }
        // Clearing `seen` costs no more than building the rows did.
        if !self.charge(budget - steps) || failed {
            self.exhausted = true;
            return None;
        }
        let mut partner = vec![None; edges.len()];
        for (j, o) in owner.iter().enumerate() {
            if let Some(i) = o {
                partner[*i] = Some(j);
            }
        }
        Some(partner)
    }

    fn objects(&mut self, side: Side, out: &mut Vec<Rel>, o: &ObjectNode<'a>, u: &ObjectNode<'a>) {
        let (om, um) = self.pair(side);
        let okeys: Vec<&str> = o.properties.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.properties.iter().map(|(k, _)| *k).collect();
        let oprops: HashMap<&str, Id> = o.properties.iter().copied().collect();
        let uprops: HashMap<&str, Id> = u.properties.iter().copied().collect();
        let oprop = |k: &str| oprops.get(k).copied();
        let uprop = |k: &str| uprops.get(k).copied();
        let okeys_ordered = map_order(&okeys);
        let ukeys_ordered = map_order(&ukeys);
        let orequired: HashSet<&str> = o.required.iter().copied().collect();
        let urequired: HashSet<&str> = u.required.iter().copied().collect();
        let names = okeys.len() + ukeys.len() + o.required.len() + u.required.len();
        if !self.charge(names) {
            return;
        }

        // required
        for &key in &okeys_ordered {
            let Some(up) = uprop(key) else { continue };
            let was = orequired.contains(key);
            let is = urequired.contains(key);
            let path = format!("required/{key}");
            if was && !is {
                out.push(rel(K::RequiredAttributeRemoved, &path));
            } else if !was && is {
                out.push(rel(
                    if um.has_default(up) {
                        K::RequiredAttributeWithDefaultAdded
                    } else {
                        K::RequiredAttributeAdded
                    },
                    &path,
                ));
            }
        }

        // properties
        for key in union_order(&okeys_ordered, &ukeys_ordered) {
            let path = format!("properties/{key}");
            match (oprop(key), uprop(key)) {
                (Some(op), None) => {
                    if object_is_open(u) {
                        out.push(rel(K::PropertyRemovedFromOpenContentModel, &path));
                    } else if let Some(partial) = self.partial_schema(u, key) {
                        let sub = self.compare(side, Some(op), Some(partial));
                        extend_under(out, &path, &sub);
                        out.push(rel(
                            if compatible(&sub) {
                                K::PropertyRemovedIsCoveredByPartiallyOpenContentModel
                            } else {
                                K::PropertyRemovedNotCoveredByPartiallyOpenContentModel
                            },
                            &path,
                        ));
                    } else if matches!(om.schema(op).node, Node::False) {
                        out.push(rel(
                            K::PropertyWithFalseRemovedFromClosedContentModel,
                            &path,
                        ));
                    } else {
                        out.push(rel(K::PropertyRemovedFromClosedContentModel, &path));
                    }
                }
                (None, Some(up)) => {
                    let required = urequired.contains(key);
                    let with_default = um.has_default(up);
                    if object_is_open(o) {
                        let kind = if matches!(um.schema(up).node, Node::Empty) {
                            K::PropertyWithEmptySchemaAddedToOpenContentModel
                        } else if required && with_default {
                            K::RequiredPropertyWithDefaultAddedToOpenContentModel
                        } else if required {
                            K::RequiredPropertyAddedToOpenContentModel
                        } else {
                            K::OptionalPropertyAddedToOpenContentModel
                        };
                        out.push(rel(kind, &path));
                    } else {
                        if let Some(partial) = self.partial_schema(o, key) {
                            let sub = self.compare(side, Some(partial), Some(up));
                            extend_under(out, &path, &sub);
                            out.push(rel(
                                if compatible(&sub) {
                                    K::PropertyAddedIsCoveredByPartiallyOpenContentModel
                                } else {
                                    K::PropertyAddedNotCoveredByPartiallyOpenContentModel
                                },
                                &path,
                            ));
                        }
                        let kind = if required && with_default {
                            K::RequiredPropertyWithDefaultAddedToUnopenContentModel
                        } else if required {
                            K::RequiredPropertyAddedToUnopenContentModel
                        } else {
                            K::OptionalPropertyAddedToUnopenContentModel
                        };
                        out.push(rel(kind, &path));
                    }
                }
                (Some(op), Some(up)) => {
                    let sub = self.compare(side, Some(op), Some(up));
                    extend_under(out, &path, &sub);
                }
                (None, None) => {}
            }
        }

        // dependencies
        let okeys: Vec<&str> = o.property_dependencies.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.property_dependencies.iter().map(|(k, _)| *k).collect();
        let odeps = first_by_key(&o.property_dependencies);
        let udeps = first_by_key(&u.property_dependencies);
        let names = o
            .property_dependencies
            .iter()
            .chain(&u.property_dependencies);
        if !self.charge(names.map(|(_, n)| n.len() + 1).sum()) {
            return;
        }
        for key in union_order(&map_order(&okeys), &map_order(&ukeys)) {
            let path = format!("dependencies/{key}");
            match (odeps.get(key), udeps.get(key)) {
                (_, None) => out.push(rel(K::DependencyArrayRemoved, &path)),
                (None, Some(_)) => out.push(rel(K::DependencyArrayAdded, &path)),
                (Some(a), Some(b)) => {
                    if let Some(kind) = set_change(
                        a,
                        b,
                        K::DependencyArrayExtended,
                        K::DependencyArrayNarrowed,
                        K::DependencyArrayChanged,
                    ) {
                        out.push(rel(kind, &path));
                    }
                }
            }
        }
        let okeys: Vec<&str> = o.schema_dependencies.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.schema_dependencies.iter().map(|(k, _)| *k).collect();
        let odeps = first_by_key(&o.schema_dependencies);
        let udeps = first_by_key(&u.schema_dependencies);
        if !self.charge(okeys.len() + ukeys.len()) {
            return;
        }
        for key in union_order(&map_order(&okeys), &map_order(&ukeys)) {
            let path = format!("dependencies/{key}");
            match (odeps.get(key).map(|id| **id), udeps.get(key).map(|id| **id)) {
                (_, None) => out.push(rel(K::DependencySchemaRemoved, &path)),
                (None, Some(_)) => out.push(rel(K::DependencySchemaAdded, &path)),
                (Some(a), Some(b)) => {
                    let sub = self.compare(side, Some(a), Some(b));
                    extend_under(out, &path, &sub);
                }
            }
        }

        // additionalProperties
        let path = "additionalProperties";
        if o.permits_additional != u.permits_additional {
            out.push(rel(
                if u.permits_additional {
                    K::AdditionalPropertiesAdded
                } else {
                    K::AdditionalPropertiesRemoved
                },
                path,
            ));
        } else if o.additional.is_none() && u.additional.is_some() {
            out.push(rel(K::AdditionalPropertiesNarrowed, path));
        } else if u.additional.is_none() && o.additional.is_some() {
            out.push(rel(K::AdditionalPropertiesExtended, path));
        } else {
            let sub = self.compare(side, o.additional, u.additional);
            extend_under(out, path, &sub);
        }

        bound(
            out,
            "maxProperties",
            o.max_properties,
            u.max_properties,
            [
                K::MaxPropertiesAdded,
                K::MaxPropertiesRemoved,
                K::MaxPropertiesIncreased,
                K::MaxPropertiesDecreased,
            ],
        );
        bound(
            out,
            "minProperties",
            o.min_properties,
            u.min_properties,
            [
                K::MinPropertiesAdded,
                K::MinPropertiesRemoved,
                K::MinPropertiesIncreased,
                K::MinPropertiesDecreased,
            ],
        );
    }

    /// The schema a partially open object gives an undeclared property:
    /// the first matching `patternProperties` entry, else `additionalProperties`.
    fn partial_schema(&mut self, o: &ObjectNode<'a>, key: &str) -> Option<Id> {
        for &(pattern, id) in &o.pattern_properties {
            if !self.charge(1) {
                return None;
            }
            let regex = self
                .regexes
                .entry(pattern)
                .or_insert_with(|| Regex::new(pattern).ok());
            if regex.as_ref().is_some_and(|r| r.is_match(key)) {
                return Some(id);
            }
        }
        o.additional
    }

    fn arrays(&mut self, side: Side, out: &mut Vec<Rel>, o: &ArrayNode, u: &ArrayNode) {
        let (om, _) = self.pair(side);
        let sub = self.compare(side, o.all_items, u.all_items);
        extend_under(out, "items", &sub);

        let common = o.item_schemas.len().min(u.item_schemas.len());
        for i in 0..common {
            let sub = self.compare(side, Some(o.item_schemas[i]), Some(u.item_schemas[i]));
            extend_under(out, &format!("items/{i}"), &sub);
        }
        for (i, &oi) in o.item_schemas.iter().enumerate().skip(common) {
            let path = format!("items/{i}");
            if array_is_open(u) {
                out.push(rel(K::ItemRemovedFromOpenContentModel, &path));
            } else if let Some(partial) = u.additional {
                let sub = self.compare(side, Some(oi), Some(partial));
                extend_under(out, &path, &sub);
                out.push(rel(
                    if compatible(&sub) {
                        K::ItemRemovedIsCoveredByPartiallyOpenContentModel
                    } else {
                        K::ItemRemovedNotCoveredByPartiallyOpenContentModel
                    },
                    &path,
                ));
            } else if matches!(om.schema(oi).node, Node::False) {
                out.push(rel(K::ItemWithFalseRemovedFromClosedContentModel, &path));
            } else {
                out.push(rel(K::ItemRemovedFromClosedContentModel, &path));
            }
        }
        for (i, &ui) in u.item_schemas.iter().enumerate().skip(common) {
            let path = format!("items/{i}");
            let (_, um) = self.pair(side);
            if array_is_open(o) {
                out.push(rel(
                    if matches!(um.schema(ui).node, Node::Empty) {
                        K::ItemWithEmptySchemaAddedToOpenContentModel
                    } else {
                        K::ItemAddedToOpenContentModel
                    },
                    &path,
                ));
            } else if let Some(partial) = o.additional {
                let sub = self.compare(side, Some(partial), Some(ui));
                extend_under(out, &path, &sub);
                out.push(rel(
                    if compatible(&sub) {
                        K::ItemAddedIsCoveredByPartiallyOpenContentModel
                    } else {
                        K::ItemAddedNotCoveredByPartiallyOpenContentModel
                    },
                    &path,
                ));
            } else {
                out.push(rel(K::ItemAddedToClosedContentModel, &path));
            }
        }

        let path = "additionalItems";
        if o.permits_additional != u.permits_additional {
            out.push(rel(
                if o.permits_additional {
                    K::AdditionalItemsRemoved
                } else {
                    K::AdditionalItemsAdded
                },
                path,
            ));
        } else if o.additional.is_none() && u.additional.is_some() {
            out.push(rel(K::AdditionalItemsNarrowed, path));
        } else if u.additional.is_none() && o.additional.is_some() {
            out.push(rel(K::AdditionalItemsExtended, path));
        } else {
            let sub = self.compare(side, o.additional, u.additional);
            extend_under(out, path, &sub);
        }

        bound(
            out,
            "maxItems",
            o.max_items,
            u.max_items,
            [
                K::MaxItemsAdded,
                K::MaxItemsRemoved,
                K::MaxItemsIncreased,
                K::MaxItemsDecreased,
            ],
        );
        bound(
            out,
            "minItems",
            o.min_items,
            u.min_items,
            [
                K::MinItemsAdded,
                K::MinItemsRemoved,
                K::MinItemsIncreased,
                K::MinItemsDecreased,
            ],
        );
        if o.unique_items != u.unique_items {
            out.push(rel(
                if o.unique_items {
                    K::UniqueItemsRemoved
                } else {
                    K::UniqueItemsAdded
                },
                "uniqueItems",
            ));
        }
        bound(
            out,
            "maxContains",
            o.max_contains,
            u.max_contains,
            [
                K::MaxContainsAdded,
                K::MaxContainsRemoved,
                K::MaxContainsIncreased,
                K::MaxContainsDecreased,
            ],
        );
        bound(
            out,
            "minContains",
            o.min_contains,
            u.min_contains,
            [
                K::MinContainsAdded,
                K::MinContainsRemoved,
                K::MinContainsIncreased,
                K::MinContainsDecreased,
            ],
        );
    }
}

fn object_is_open(o: &ObjectNode<'_>) -> bool {
    o.pattern_properties.is_empty() && o.additional.is_none() && o.permits_additional
}

fn array_is_open(a: &ArrayNode) -> bool {
    a.permits_additional && a.additional.is_none()
}

/// `[added, removed, increased, decreased]` for a numeric keyword.
fn bound(out: &mut Vec<Rel>, keyword: &str, o: Option<f64>, u: Option<f64>, kinds: [K; 4]) {
    let kind = match (o, u) {
        (None, Some(_)) => kinds[0],
        (Some(_), None) => kinds[1],
        (Some(a), Some(b)) if a < b => kinds[2],
        (Some(a), Some(b)) if a > b => kinds[3],
        _ => return,
    };
    out.push(rel(kind, keyword));
}

fn strings(out: &mut Vec<Rel>, o: &StringNode<'_>, u: &StringNode<'_>) {
    bound(
        out,
        "maxLength",
        o.max_length,
        u.max_length,
        [
            K::MaxLengthAdded,
            K::MaxLengthRemoved,
            K::MaxLengthIncreased,
            K::MaxLengthDecreased,
        ],
    );
    bound(
        out,
        "minLength",
        o.min_length,
        u.min_length,
        [
            K::MinLengthAdded,
            K::MinLengthRemoved,
            K::MinLengthIncreased,
            K::MinLengthDecreased,
        ],
    );
    match (o.pattern, u.pattern) {
        (None, Some(_)) => out.push(rel(K::PatternAdded, "pattern")),
        (Some(_), None) => out.push(rel(K::PatternRemoved, "pattern")),
        (Some(a), Some(b)) if a != b => out.push(rel(K::PatternChanged, "pattern")),
        _ => {}
    }
}

fn numbers(out: &mut Vec<Rel>, o: &NumberNode, u: &NumberNode) {
    bound(
        out,
        "maximum",
        o.maximum,
        u.maximum,
        [
            K::MaximumAdded,
            K::MaximumRemoved,
            K::MaximumIncreased,
            K::MaximumDecreased,
        ],
    );
    bound(
        out,
        "minimum",
        o.minimum,
        u.minimum,
        [
            K::MinimumAdded,
            K::MinimumRemoved,
            K::MinimumIncreased,
            K::MinimumDecreased,
        ],
    );
    bound(
        out,
        "exclusiveMaximum",
        o.exclusive_maximum,
        u.exclusive_maximum,
        [
            K::ExclusiveMaximumAdded,
            K::ExclusiveMaximumRemoved,
            K::ExclusiveMaximumIncreased,
            K::ExclusiveMaximumDecreased,
        ],
    );
    bound(
        out,
        "exclusiveMinimum",
        o.exclusive_minimum,
        u.exclusive_minimum,
        [
            K::ExclusiveMinimumAdded,
            K::ExclusiveMinimumRemoved,
            K::ExclusiveMinimumIncreased,
            K::ExclusiveMinimumDecreased,
        ],
    );
    let multiple = match (o.multiple_of, u.multiple_of) {
        (None, Some(_)) => Some(K::MultipleOfAdded),
        (Some(_), None) => Some(K::MultipleOfRemoved),
        (Some(a), Some(b)) if a != b => Some(if is_multiple(b, a) {
            K::MultipleOfExpanded
        } else if is_multiple(a, b) {
            K::MultipleOfReduced
        } else {
            K::MultipleOfChanged
        }),
        _ => None,
    };
    if let Some(kind) = multiple {
        out.push(rel(kind, "multipleOf"));
    }
    if o.integer != u.integer {
        out.push(rel(
            if o.integer {
                K::TypeExtended
            } else {
                K::TypeNarrowed
            },
            "",
        ));
    }
}

/// Whether `a` is a whole multiple of `b` (both positive in valid schemas).
fn is_multiple(a: f64, b: f64) -> bool {
    if b == 0.0 || !a.is_finite() || !b.is_finite() {
        return false;
    }
    let q = a / b;
    (q - q.round()).abs() < 1e-9 * q.abs().max(1.0)
}

/// Each key's first value: a later duplicate (`dependencies` and
/// `dependentRequired` naming the same property) does not count.
fn first_by_key<'a, 'b, T>(entries: &'b [(&'a str, T)]) -> HashMap<&'a str, &'b T> {
    let mut map = HashMap::with_capacity(entries.len());
    for (k, v) in entries {
        map.entry(*k).or_insert(v);
    }
    map
}

/// How a set changed: `None` when equal.
fn set_change<T: Copy + Eq + std::hash::Hash>(
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

/// Pairs of (original, update) indices with the same key, among those not
/// paired yet (`partner`, `taken`): each key's members pair in order.
fn equal_pairs<T>(
    okeys: &[Option<u64>],
    ukeys: &[Option<u64>],
    partner: &[Option<T>],
    taken: &[bool],
) -> Vec<(usize, usize)> {
    let mut by_key: HashMap<u64, VecDeque<usize>> = HashMap::new();
    for (j, key) in ukeys.iter().enumerate() {
        if let (Some(key), false) = (key, taken[j]) {
            by_key.entry(*key).or_default().push_back(j);
        }
    }
    let mut pairs = Vec::new();
    for (i, key) in okeys.iter().enumerate() {
        if partner[i].is_some() {
            continue;
        }
        if let Some(j) = key
            .and_then(|k| by_key.get_mut(&k))
            .and_then(VecDeque::pop_front)
        {
            pairs.push((i, j));
        }
    }
    pairs
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
