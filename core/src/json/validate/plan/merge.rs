//! Flattening in-place conjunctions at compile time: a `$ref` that is only
//! a `$ref` becomes its target, and an `allOf` member (or a `$ref` beside
//! other keywords) whose keywords can live in the same node as its
//! parent's is merged into the parent, so the scanner reads the value once
//! where it would read it once per member.
//!
//! A merged node accepts exactly the values both nodes accept: bounds take
//! the tighter value, types the values both allow, `required` and the
//! dependencies the union, and a property both name the conjunction of its
//! two subschemas (a node of its own, merged the same way). Keywords whose
//! conjunction one node cannot hold are not merged: a member holding a
//! keyword of such a kind its parent holds too (two `pattern`s, two `enum`s,
//! two `anyOf`s, ...) stays in `allOf`, read again as before. So does any
//! node with `unevaluatedItems` or a lone `if`, whose meaning depends on
//! which node evaluates what, and any node with `unevaluatedProperties`,
//! except as the node that absorbs a member evaluating members by nothing
//! but its own `properties` and `patternProperties` (no in-place
//! applicator, no `additionalProperties`, no `dependentSchemas`): the
//! merged node evaluates exactly the members the two evaluated.
//!
//! `additionalProperties` applies to the keys its own node does not name:
//! a node with it absorbs a member only when the member names no property
//! the node does not, and has no `patternProperties` (and the other way
//! round), so every key stays additional to exactly the nodes it was
//! additional to.

use std::collections::HashMap;

use super::folded::Folded;
use super::node::{
    Kind, Member, Node, ALL_TYPES, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING,
};
use super::pattern::Pattern;
use super::JsonPlan;

/// The most `allOf` members one node absorbs.
const MAX_ABSORBED: usize = 64;

/// How many nodes the merging may add (a property named by both sides
/// takes a node for the conjunction of its two subschemas), past the
/// plan's own: a node then merges nothing more that would need one.
const MAX_ADDED: usize = 4096;

impl JsonPlan {
    /// Collapses `$ref`-only nodes into their targets and merges `allOf`
    /// members into their parents where the node can hold both (see the
    /// module docs). In-place cycles are refused before this runs.
    pub(super) fn flatten(&mut self) {
        self.single_branches();
        self.collapse_aliases();
        self.typed_branches();
        let budget = self.nodes.len() + MAX_ADDED;
        let mut pairs = HashMap::new();
        let mut id = 0;
        while id < self.nodes.len() {
            self.absorb(id, budget, &mut pairs);
            id += 1;
        }
        // Branches that were a `$ref` beside annotations, or an `allOf`,
        // hold their keywords now: join those of one type family each, or
        // of patterns, and merge the joined node where it can go.
        let mut joined = self.typed_branches();
        joined.extend(self.pattern_branches());
        for id in joined {
            self.absorb(id, budget, &mut pairs);
        }
        // Merging changes what a node holds: what it asserts itself too.
        for node in &mut self.nodes {
            settle(node);
        }
    }

    /// An `anyOf`'s branches that are nothing but a folded `pattern`
    /// ([`Folded`], `^[Ee][Ss]2017(\\.[Ii][Nn][Tt][Ll])?$`, each of
    /// `tsconfig`'s 30-odd `lib` branches) and one `type`, the same for
    /// each, become one branch matching their words' union
    /// ([`Folded::union`]): a string matches some of them exactly when it
    /// matches the union, and any other value of their type passes every
    /// one of them and the union alike. The text is then lowered and
    /// looked up once instead of once per branch.
    ///
    /// A `oneOf` counts the branches that pass: its folded branches merge
    /// when no text matches two of them ([`Folded::disjoint`]: file
    /// suffixes, `^.*\\.[Cc][Ss]$` beside `^.*\\.[Pp][Yy]$`) and no value
    /// but a string reaches them (their type is `string`, or the node's
    /// own `type` is, which fails any other value before its `oneOf` is
    /// read): a string then passes one of them or none, as it passes the
    /// union or not.
    pub(super) fn merge_folded_branches(&mut self) {
        for id in 0..self.nodes.len() {
            let parent = &self.nodes[id];
            let strings_only = parent.kind == Kind::Check && parent.types & !STRING == 0;
            let any_of = std::mem::take(&mut self.nodes[id].any_of);
            let any_of = self.merge_folded(any_of, None);
            self.nodes[id].any_of = any_of;
            let one_of = std::mem::take(&mut self.nodes[id].one_of);
            let one_of = self.merge_folded(one_of, Some(strings_only));
            self.nodes[id].one_of = one_of;
        }
    }

    /// [`JsonPlan::merge_folded_branches`] on one keyword's `branches`:
    /// `oneOf` when `one_of` is set, telling whether its node's own `type`
    /// fails every value but a string.
    fn merge_folded(&mut self, mut branches: Vec<u32>, one_of: Option<bool>) -> Vec<u32> {
        if branches.len() < 2 {
            return branches;
        }
        // Branches of one type and one anchor, by their positions.
        let mut groups: Vec<(u8, Vec<usize>)> = Vec::new();
        for (at, &b) in branches.iter().enumerate() {
            let Some((types, folded)) = folded_only(&self.nodes[b as usize]) else {
                continue;
            };
            let joins = |positions: &Vec<usize>| {
                folded_only(&self.nodes[branches[positions[0]] as usize])
                    .is_some_and(|(_, first)| first.joins(folded))
            };
            match groups
                .iter_mut()
                .find(|(t, positions)| *t == types && joins(positions))
            {
                Some((_, positions)) => positions.push(at),
                None => groups.push((types, vec![at])),
            }
        }
        let mut dropped = Vec::new();
        for (types, positions) in groups {
            if positions.len() < 2 {
                continue;
            }
            let folded: Vec<&Folded> = positions
                .iter()
                .filter_map(
                    |&at| match self.nodes[branches[at] as usize].pattern.as_deref() {
                        Some(Pattern::Folded(folded)) => Some(&**folded),
                        _ => None,
                    },
                )
                .collect();
            let Some(union) = Folded::union(&folded) else {
                continue;
            };
            if let Some(strings_only) = one_of {
                if !(strings_only || types & !STRING == 0) || !Folded::disjoint(&folded) {
                    continue;
                }
            }
            let mut merged = self.nodes[branches[positions[0]] as usize].clone();
            merged.pattern = Some(Box::new(Pattern::Folded(Box::new(union))));
            branches[positions[0]] = self.nodes.len() as u32;
            self.nodes.push(merged);
            dropped.extend_from_slice(&positions[1..]);
        }
        let mut at = 0;
        branches.retain(|_| {
            at += 1;
            !dropped.contains(&(at - 1))
        });
        branches
    }

    /// An `anyOf` or a `oneOf` of one branch becomes a member of its
    /// node's `allOf`: either holds exactly when the branch does, and the
    /// branch's annotations count alike (a passing branch's, for
    /// `unevaluated*`). The merging may then fold the branch into the node
    /// like any member, or drop it as a repeat: devinit's items, `allOf`
    /// and `anyOf` each of the one `$ref`, read every item twice.
    fn single_branches(&mut self) {
        for node in &mut self.nodes {
            if node.kind != Kind::Check {
                continue;
            }
            for branches in [&mut node.any_of, &mut node.one_of] {
                if let [branch] = branches[..] {
                    branches.clear();
                    if !node.all_of.contains(&branch) {
                        node.all_of.push(branch);
                    }
                }
            }
        }
    }

    /// An `anyOf` or a `oneOf` whose branches each allow values of one
    /// family of types (strings, numbers, booleans or null), a different
    /// one each, and assert nothing but keywords of that family (a
    /// `pattern`, bounds): venvironment's `{"oneOf": [{"type": "integer",
    /// "maximum": 65535}, {"type": "string", "pattern": "\\$\\{...\\}"}]}`.
    /// One branch may allow objects alone and one arrays alone, with any
    /// keywords of theirs but none that applies to another type or
    /// depends on the node evaluating it ([`compound_only`]): the
    /// string-or-object and string-or-list shorthands of many configs,
    /// `{"oneOf": [{"type": "string"}, {"type": "array", "items": ...}]}`.
    /// A value's type then leaves at most one branch, and the keywords of
    /// the others do not apply to it: both keywords hold exactly when one
    /// node of all the branches' keywords and the union of their types
    /// holds (a passing object evaluates the same members for
    /// `unevaluatedProperties` as an `allOf` member as it did as a
    /// branch). That node becomes a member of the node's `allOf` (so it may
    /// merge into the node), read once instead of through a branch.
    /// Keywords listing the same branches share the one node.
    fn typed_branches(&mut self) -> Vec<usize> {
        let mut joined = Vec::new();
        let mut made: HashMap<Vec<u32>, u32> = HashMap::new();
        for id in 0..self.nodes.len() {
            for one in [false, true] {
                let node = &self.nodes[id];
                let branches = if one { &node.one_of } else { &node.any_of };
                if branches.len() < 2 || node.kind != Kind::Check {
                    continue;
                }
                let merged = match made.get(branches) {
                    Some(&merged) => merged,
                    None => {
                        let Some(merged) = typed_union(&self.nodes, branches) else {
                            continue;
                        };
                        let at = self.nodes.len() as u32;
                        made.insert(branches.clone(), at);
                        self.nodes.push(merged);
                        at
                    }
                };
                let node = &mut self.nodes[id];
                if one {
                    node.one_of.clear();
                } else {
                    node.any_of.clear();
                }
                if !node.all_of.contains(&merged) {
                    node.all_of.push(merged);
                }
                joined.push(id);
            }
        }
        joined
    }

    /// An `anyOf` whose branches assert nothing but a `pattern`, a
    /// `"type": "string"`, or both: venvironment's `{"type": "string",
    /// "anyOf": [{"pattern": "^.*\\.vmodule$"}, {"$ref": "#/definitions/
    /// var"}]}`, the reference a string of one `pattern`. A value other
    /// than a string passes a branch without `type` and fails the others;
    /// a string passes a branch without `pattern`, and the others as their
    /// patterns match it. The keyword then holds exactly when one node
    /// holds: `"type": "string"` when every branch has it, and a pattern
    /// matching when one of the branches' does ([`Pattern::AnyMatch`];
    /// none when a branch has none). That node becomes a member of the
    /// node's `allOf` (so it may merge into the node): the string is
    /// matched once, not read again by each branch. Folded branches are
    /// first joined as [`JsonPlan::merge_folded_branches`] joins them.
    fn pattern_branches(&mut self) -> Vec<usize> {
        let mut joined = Vec::new();
        let mut made: HashMap<Vec<u32>, u32> = HashMap::new();
        for id in 0..self.nodes.len() {
            let node = &self.nodes[id];
            if node.any_of.len() < 2 || node.kind != Kind::Check {
                continue;
            }
            let merged = match made.get(&node.any_of) {
                Some(&merged) => merged,
                None => {
                    let listed = node.any_of.clone();
                    if !listed
                        .iter()
                        .all(|&b| pattern_only(&self.nodes[b as usize]).is_some())
                    {
                        continue;
                    }
                    let branches = self.merge_folded(listed.clone(), None);
                    let Some(merged) = pattern_union(&self.nodes, &branches) else {
                        continue;
                    };
                    let at = self.nodes.len() as u32;
                    made.insert(listed, at);
                    self.nodes.push(merged);
                    at
                }
            };
            let node = &mut self.nodes[id];
            node.any_of.clear();
            if !node.all_of.contains(&merged) {
                node.all_of.push(merged);
            }
            joined.push(id);
        }
        joined
    }

    /// Every reference to a node that is nothing but one `$ref` (or a
    /// one-member `allOf`) points at its target instead.
    fn collapse_aliases(&mut self) {
        let n = self.nodes.len();
        let mut target: Vec<u32> = (0..n as u32).collect();
        for (id, node) in self.nodes.iter().enumerate() {
            if is_alias(node) {
                target[id] = node.all_of[0];
            }
        }
        // Chains end: in-place edges have no cycle, and each step follows one.
        for id in 0..n {
            let mut end = target[id];
            let mut steps = 0;
            while target[end as usize] != end && steps < n {
                end = target[end as usize];
                steps += 1;
            }
            target[id] = end;
        }
        for node in &mut self.nodes {
            node.for_each_child(|child| *child = target[*child as usize]);
        }
        self.root = target[self.root as usize];
    }

    /// Merges into node `id` the members of its `allOf` that it can hold.
    fn absorb(&mut self, id: usize, budget: usize, pairs: &mut HashMap<(u32, u32), u32>) {
        // A member listed twice (two `$ref`s to one target) is merged once.
        dedup_members(&mut self.nodes[id].all_of);
        let mut absorbed = 0;
        let mut at = 0;
        while at < self.nodes[id].all_of.len() && absorbed < MAX_ABSORBED {
            let member = self.nodes[id].all_of[at];
            if member as usize == id || !self.mergeable(id, member as usize, budget, pairs) {
                at += 1;
                continue;
            }
            let other = self.nodes[member as usize].clone();
            self.nodes[id].all_of.remove(at);
            self.merge(id, other, pairs);
            absorbed += 1;
        }
        dedup_members(&mut self.nodes[id].all_of);
    }

    /// Whether node `b` can be merged into node `a`.
    fn mergeable(
        &self,
        a: usize,
        b: usize,
        budget: usize,
        pairs: &HashMap<(u32, u32), u32>,
    ) -> bool {
        let (x, y) = (&self.nodes[a], &self.nodes[b]);
        if x.unevaluated_items.is_some()
            || x.lone_if.is_some()
            || y.unevaluated_properties.is_some()
            || y.unevaluated_items.is_some()
            || y.lone_if.is_some()
        {
            return false;
        }
        // `unevaluatedProperties` beside an `allOf` (compose-spec's
        // `service`: `allOf` of two `$ref`s, its own `properties`, and
        // `unevaluatedProperties: false`): a member that evaluates members
        // only by its own `properties` and `patternProperties` merges, as
        // the merged node then evaluates exactly the members the two did.
        if x.unevaluated_properties.is_some()
            && (y.in_place()
                || y.additional.is_some()
                || !y.dependent_schemas.is_empty()
                || !y.evaluating_dependents.is_empty())
        {
            return false;
        }
        if x.kind == Kind::Never || y.kind != Kind::Check {
            // `false` is read by its own node; `true` merges as nothing.
            return y.kind == Kind::Any;
        }
        let both = |f: fn(&Node) -> bool| f(x) && f(y);
        if both(|n| n.numeric.is_some())
            || both(has_text)
            || both(|n| n.choice.is_some())
            || both(|n| n.extra.is_some())
            || both(has_items)
            || both(|n| n.names.is_some())
            || both(|n| !n.any_of.is_empty())
            || both(|n| !n.one_of.is_empty())
            || both(|n| n.not.is_some())
            || both(|n| n.condition.is_some())
        {
            return false;
        }
        // `additionalProperties` and `patternProperties` (module docs).
        let closed = |n: &Node| n.additional.is_some();
        let patterned = |n: &Node| !n.patterns.is_empty();
        if (closed(x) && patterned(y)) || (closed(y) && patterned(x)) {
            return false;
        }
        if closed(x) && closed(y) && (patterned(x) || patterned(y)) {
            return false;
        }
        if x.patterns.len() + y.patterns.len() > 64 {
            return false;
        }
        fn names(n: &Node) -> Vec<&str> {
            n.members
                .iter()
                .filter(|m| m.schema.is_some())
                .map(|m| &*m.name)
                .collect()
        }
        if closed(x) && !names(y).iter().all(|name| names(x).contains(name)) {
            return false;
        }
        if closed(y) && !names(x).iter().all(|name| names(y).contains(name)) {
            return false;
        }
        // Presence bits: at most 64 tracked names in all.
        fn tracked(n: &Node) -> Vec<&str> {
            n.members
                .iter()
                .filter(|m| m.bit != 0)
                .map(|m| &*m.name)
                .collect()
        }
        let mut all = tracked(x);
        for name in tracked(y) {
            if !all.contains(&name) {
                all.push(name);
            }
        }
        if all.len() > 64 {
            return false;
        }
        // Conjunctions of subschemas need nodes: within the budget.
        let mut needed = 0;
        for m in &y.members {
            if let (Some(s), Some(t)) = (
                m.schema,
                x.members
                    .iter()
                    .find(|o| o.name == m.name)
                    .and_then(|o| o.schema),
            ) {
                if s != t && !pairs.contains_key(&key(s, t)) {
                    needed += 1;
                }
            }
        }
        if closed(x) && closed(y) {
            needed += 1;
        }
        self.nodes.len() + needed <= budget
    }

    /// Merges `other` (a copy of a mergeable node) into node `id`.
    fn merge(&mut self, id: usize, other: Node, pairs: &mut HashMap<(u32, u32), u32>) {
        if other.kind == Kind::Any {
            return;
        }
        let (text, items) = (has_text(&other), has_items(&other));
        // Properties first: conjunctions may add nodes.
        let mut members: Vec<(Member, Option<u32>)> = Vec::new();
        for m in &other.members {
            let mine = self.nodes[id]
                .members
                .iter()
                .find(|o| o.name == m.name)
                .and_then(|o| o.schema);
            let schema = match (mine, m.schema) {
                (Some(s), Some(t)) => Some(self.pair(s, t, pairs)),
                (s, t) => s.or(t),
            };
            members.push((m.clone(), schema));
        }
        let additional = match (self.nodes[id].additional, other.additional) {
            (Some(s), Some(t)) => Some(self.pair(s, t, pairs)),
            (s, t) => s.or(t),
        };
        let node = &mut self.nodes[id];
        // The other node's presence bits, renumbered into this node's.
        let mut used = node.members.iter().filter(|m| m.bit != 0).count();
        let mut bits: Vec<(u64, u64)> = Vec::new();
        for (m, schema) in members {
            let at = match node.members.iter().position(|o| o.name == m.name) {
                Some(at) => at,
                None => {
                    node.members.push(Member::new(&m.name));
                    node.members.len() - 1
                }
            };
            let mine = &mut node.members[at];
            mine.schema = schema;
            if m.bit != 0 {
                if mine.bit == 0 {
                    mine.bit = 1 << used;
                    used += 1;
                }
                bits.push((m.bit, mine.bit));
            }
        }
        let renumber = |mask: u64| -> u64 {
            bits.iter()
                .filter(|(old, _)| mask & old != 0)
                .fold(0, |acc, (_, new)| acc | new)
        };
        node.required |= renumber(other.required);
        for &(trigger, needed) in &other.dependent_required {
            node.dependent_required
                .push((renumber(trigger), renumber(needed)));
        }
        for &(trigger, schema) in &other.dependent_schemas {
            node.dependent_schemas.push((renumber(trigger), schema));
        }
        for &(trigger, schema) in &other.evaluating_dependents {
            node.evaluating_dependents.push((renumber(trigger), schema));
        }
        node.additional = additional;
        node.patterns.extend(other.patterns);
        if node.kind == Kind::Any {
            node.kind = Kind::Check;
        }
        node.types = and_types(node.types, other.types);
        node.min_length = node.min_length.max(other.min_length);
        node.max_length = node.max_length.min(other.max_length);
        node.min_items = node.min_items.max(other.min_items);
        node.max_items = node.max_items.min(other.max_items);
        if other.numeric.is_some() {
            node.numeric = other.numeric;
            node.bounds = other.bounds;
        }
        if text {
            node.text = other.text;
            node.format = other.format;
            node.quick = other.quick;
            node.pattern = other.pattern;
            node.literal = other.literal;
        }
        if other.choice.is_some() {
            node.choice = other.choice;
            node.strings = other.strings;
            node.integers = other.integers;
            node.compound_choice = other.compound_choice;
        }
        if other.extra.is_some() {
            node.extra = other.extra;
            node.unique = other.unique;
            node.min_properties = other.min_properties;
            node.max_properties = other.max_properties;
        }
        if items {
            node.prefix = other.prefix;
            node.rest = other.rest;
            node.contains = other.contains;
            node.min_contains = other.min_contains;
            node.max_contains = other.max_contains;
        }
        node.evaluated_items = node.evaluated_items.max(other.evaluated_items);
        if other.names.is_some() {
            node.names = other.names;
        }
        node.all_of.extend(other.all_of);
        if !other.any_of.is_empty() {
            node.any_of = other.any_of;
        }
        if !other.one_of.is_empty() {
            node.one_of = other.one_of;
        }
        if other.not.is_some() {
            node.not = other.not;
        }
        if other.condition.is_some() {
            node.condition = other.condition;
        }
        if other.kind == Kind::Never {
            node.kind = Kind::Never;
        }
    }

    /// The node of the conjunction of nodes `a` and `b` (an `allOf` of
    /// both, merged in its turn when its turn comes).
    fn pair(&mut self, a: u32, b: u32, pairs: &mut HashMap<(u32, u32), u32>) -> u32 {
        if a == b {
            return a;
        }
        if let Some(&id) = pairs.get(&key(a, b)) {
            return id;
        }
        let id = self.nodes.len() as u32;
        let mut node = Node::new(Kind::Check);
        node.draft4_integers = self.nodes[a as usize].draft4_integers;
        node.all_of = vec![a, b];
        node.only_in_place = true;
        self.nodes.push(node);
        pairs.insert(key(a, b), id);
        id
    }
}

/// `all_of` with each member once, in the order of first listing.
fn dedup_members(all_of: &mut Vec<u32>) {
    let mut seen = Vec::with_capacity(all_of.len());
    all_of.retain(|m| {
        let new = !seen.contains(m);
        seen.push(*m);
        new
    });
}

fn key(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// A node that is one `$ref` (or a one-member `allOf`) and nothing else.
fn is_alias(node: &Node) -> bool {
    node.kind == Kind::Check
        && node.only_in_place
        && node.all_of.len() == 1
        && node.any_of.is_empty()
        && node.one_of.is_empty()
        && node.not.is_none()
        && node.condition.is_none()
        && node.lone_if.is_none()
}

fn has_text(node: &Node) -> bool {
    node.text.is_some() || node.format.is_some() || node.pattern.is_some() || node.literal.is_some()
}

fn has_items(node: &Node) -> bool {
    !node.prefix.is_empty() || node.rest.is_some() || node.contains.is_some()
}

/// The types both `a` and `b` allow: `number` on both sides stays
/// `number`; `integer` on one side and `integer` or `number` on the other
/// is `integer`.
fn and_types(a: u8, b: u8) -> u8 {
    let numbers = INTEGER | NUMBER;
    let mut types = a & b;
    if types & numbers == 0 && a & numbers != 0 && b & numbers != 0 {
        types |= INTEGER;
    }
    types & ALL_TYPES
}

/// The families of JSON types whose keywords apply only to them
/// ([`JsonPlan::typed_branches`]): strings, numbers, booleans, null.
const FAMILIES: [u8; 4] = [STRING, INTEGER | NUMBER, BOOLEAN, NULL];

/// The node of `branches`' keywords and the union of their types, when
/// each branch allows the types of one family alone ([`FAMILIES`]), a
/// different family each, and asserts nothing but keywords of its family.
fn typed_union(nodes: &[Node], branches: &[u32]) -> Option<Node> {
    let mut scalars: Vec<(&Node, u8)> = Vec::with_capacity(branches.len());
    let (mut object, mut array): (Option<&Node>, Option<&Node>) = (None, None);
    let mut seen = 0u8;
    for &b in branches {
        let branch = &nodes[b as usize];
        if branch.kind != Kind::Check || branch.types == 0 {
            return None;
        }
        if branch.types == OBJECT || branch.types == ARRAY {
            // One branch of objects, one of arrays, each asserting
            // nothing of the other types.
            let slot = if branch.types == OBJECT {
                &mut object
            } else {
                &mut array
            };
            if slot.is_some() || !compound_only(branch) {
                return None;
            }
            *slot = Some(branch);
            continue;
        }
        let family = FAMILIES.into_iter().find(|&f| branch.types & !f == 0)?;
        if seen & family != 0 {
            return None;
        }
        seen |= family;
        // Nothing but the family's keywords.
        let mut rest = branch.clone();
        rest.types = ALL_TYPES;
        take_family(&mut rest, family);
        if !plain(&rest) {
            return None;
        }
        scalars.push((branch, family));
    }
    let mut scalars = scalars.into_iter();
    let mut merged = match (object, array) {
        (Some(object), Some(array)) => {
            // Each holds its own type's keywords alone, and at most one
            // of them the keywords left to `jsonschema` (`extra`, which
            // passes values of the other type).
            if has_array_keywords(object)
                || has_object_keywords(array)
                || (object.extra.is_some() && array.extra.is_some())
            {
                return None;
            }
            let mut merged = object.clone();
            give_array_keywords(&mut merged, array);
            merged
        }
        (Some(compound), None) | (None, Some(compound)) => compound.clone(),
        (None, None) => scalars.next()?.0.clone(),
    };
    for (branch, family) in scalars {
        let mut own = branch.clone();
        let keywords = take_family(&mut own, family);
        give_family(&mut merged, keywords);
        merged.types |= branch.types;
    }
    Some(merged)
}

/// Whether `node` holds a keyword of arrays.
fn has_array_keywords(node: &Node) -> bool {
    !node.prefix.is_empty()
        || node.rest.is_some()
        || node.contains.is_some()
        || node.min_items != 0
        || node.max_items != u64::MAX
        || node.min_contains != 1
        || node.max_contains != u64::MAX
        || node.unique
        || node.evaluated_items != 0
}

/// Whether `node` holds a keyword of objects.
fn has_object_keywords(node: &Node) -> bool {
    !node.members.is_empty()
        || node.additional.is_some()
        || node.names.is_some()
        || node.required != 0
        || node.min_properties != 0
        || node.max_properties != u64::MAX
        || !node.dependent_required.is_empty()
        || !node.dependent_schemas.is_empty()
        || !node.evaluating_dependents.is_empty()
        || !node.patterns.is_empty()
}

/// Puts the array keywords of `array` into `node`, which holds none.
fn give_array_keywords(node: &mut Node, array: &Node) {
    node.prefix = array.prefix.clone();
    node.rest = array.rest;
    node.contains = array.contains;
    node.min_items = array.min_items;
    node.max_items = array.max_items;
    node.min_contains = array.min_contains;
    node.max_contains = array.max_contains;
    node.unique = array.unique;
    node.evaluated_items = array.evaluated_items;
    if node.extra.is_none() {
        node.extra = array.extra.clone();
    }
    node.types |= array.types;
}

/// Whether a branch of objects alone or of arrays alone asserts nothing
/// that applies to a value of another type, or depends on the node that
/// evaluates it: no keyword of strings or numbers, no `enum`/`const`,
/// no in-place applicator, no `unevaluated*` ([`typed_union`] gives it
/// the other branches' types and keywords).
fn compound_only(node: &Node) -> bool {
    node.numeric.is_none()
        && node.bounds.is_none()
        && node.choice.is_none()
        && !node.compound_choice
        && node.strings.is_none()
        && node.integers.is_none()
        && node.literal.is_none()
        && node.text.is_none()
        && node.format.is_none()
        && node.quick.is_none()
        && node.pattern.is_none()
        && node.min_length == 0
        && node.max_length == u64::MAX
        && !node.in_place()
        && node.lone_if.is_none()
        && node.unevaluated_properties.is_none()
        && node.unevaluated_items.is_none()
}

/// Whether `rest`, a node whose keywords of interest were taken out,
/// asserts nothing more.
fn plain(rest: &Node) -> bool {
    rest.asserts_nothing()
        && !rest.unique
        && rest.min_properties == 0
        && rest.max_properties == u64::MAX
        && rest.strings.is_none()
        && rest.integers.is_none()
        && rest.literal.is_none()
        && rest.unevaluated_properties.is_none()
        && rest.unevaluated_items.is_none()
}

/// The types of a branch [`JsonPlan::pattern_branches`] joins (all, or
/// strings alone) and its `pattern`, if any; `None` for a branch asserting
/// anything else.
fn pattern_only(node: &Node) -> Option<(u8, Option<&Pattern>)> {
    if node.kind == Kind::Any {
        return Some((ALL_TYPES, None));
    }
    if node.kind != Kind::Check || (node.types != ALL_TYPES && node.types != STRING) {
        return None;
    }
    let mut rest = node.clone();
    rest.types = ALL_TYPES;
    rest.pattern = None;
    // (Read off the pattern, for the branch indexes.)
    rest.literal = None;
    plain(&rest).then_some((node.types, node.pattern.as_deref()))
}

/// The one node an `anyOf` of `branches` [`pattern_only`] each holds
/// exactly when ([`JsonPlan::pattern_branches`]).
fn pattern_union(nodes: &[Node], branches: &[u32]) -> Option<Node> {
    let mut strings_only = true;
    let mut every_string = false;
    let mut patterns = Vec::new();
    for &b in branches {
        let (types, pattern) = pattern_only(&nodes[b as usize])?;
        strings_only &= types == STRING;
        match pattern {
            Some(pattern) => patterns.push(pattern.clone()),
            None => every_string = true,
        }
    }
    let mut node = Node::new(Kind::Check);
    if strings_only {
        node.types = STRING;
    }
    if !every_string {
        let pattern = match patterns.len() {
            1 => patterns.pop()?,
            _ => Pattern::AnyMatch(patterns.into()),
        };
        node.pattern = Some(Box::new(pattern));
    }
    Some(node)
}

/// The keywords of a family of types ([`FAMILIES`]) a node holds.
#[derive(Default)]
struct FamilyKeywords {
    text: Option<Box<jsonschema::Validator>>,
    format: Option<super::format::Format>,
    quick: Option<super::format::Quick>,
    pattern: Option<Box<Pattern>>,
    literal: Option<Box<super::strings::Strings>>,
    lengths: Option<(u64, u64)>,
    numeric: Option<Box<jsonschema::Validator>>,
    bounds: Option<Vec<(super::node::Bound, f64)>>,
    draft4_integers: bool,
}

/// Takes the keywords of `family` out of `node`.
fn take_family(node: &mut Node, family: u8) -> FamilyKeywords {
    let mut taken = FamilyKeywords::default();
    if family == STRING {
        taken.text = node.text.take();
        taken.format = node.format.take();
        taken.quick = node.quick.take();
        taken.pattern = node.pattern.take();
        taken.literal = node.literal.take();
        taken.lengths = Some((node.min_length, node.max_length));
        (node.min_length, node.max_length) = (0, u64::MAX);
    } else if family == INTEGER | NUMBER {
        taken.numeric = node.numeric.take();
        taken.bounds = node.bounds.take();
        taken.draft4_integers = node.draft4_integers;
    }
    taken
}

/// Puts keywords [`take_family`] took into `node` (which holds none of
/// their family).
fn give_family(node: &mut Node, keywords: FamilyKeywords) {
    node.text = node.text.take().or(keywords.text);
    node.format = node.format.take().or(keywords.format);
    node.quick = node.quick.take().or(keywords.quick);
    node.pattern = node.pattern.take().or(keywords.pattern);
    node.literal = node.literal.take().or(keywords.literal);
    if let Some((min, max)) = keywords.lengths {
        (node.min_length, node.max_length) = (min, max);
    }
    node.numeric = node.numeric.take().or(keywords.numeric);
    node.bounds = node.bounds.take().or(keywords.bounds);
    node.draft4_integers |= keywords.draft4_integers;
}

/// The types and the pattern of a node that asserts nothing but them, the
/// pattern folded ([`Folded`]); `None` for any other node.
fn folded_only(node: &Node) -> Option<(u8, &Folded)> {
    let Some(Pattern::Folded(folded)) = node.pattern.as_deref() else {
        return None;
    };
    if node.kind != Kind::Check {
        return None;
    }
    let mut rest = node.clone();
    rest.pattern = None;
    rest.types = ALL_TYPES;
    rest.asserts_nothing().then_some((node.types, &**folded))
}

/// A node's kind and `only_in_place` from what it now holds.
fn settle(node: &mut Node) {
    if node.kind != Kind::Check {
        return;
    }
    if node.asserts_nothing() {
        node.kind = Kind::Any;
        node.only_in_place = false;
    } else {
        node.only_in_place = node.asserts_nothing_itself();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::validate::plan::{ARRAY, INTEGER, OBJECT, STRING};

    #[test]
    fn a_one_branch_any_of_is_read_as_an_all_of_member() {
        // devinit's items: `allOf` and `anyOf` each of the one `$ref`.
        let schema = serde_json::json!({
            "definitions": {"run": {"type": "object", "required": ["tool"],
                "properties": {"tool": {"type": "string"}}}},
            "items": {
                "allOf": [{"$ref": "#/definitions/run"}],
                "anyOf": [{"$ref": "#/definitions/run"}]
            }
        });
        let plan = JsonPlan::compile(&schema, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        let items = &plan.nodes[root.rest.expect("items") as usize];
        assert!(items.any_of.is_empty() && items.one_of.is_empty());
        assert!(items.all_of.len() <= 1, "{:?}", items.all_of);
        // `oneOf` of one branch alike; two branches stay.
        let one = serde_json::json!({"oneOf": [{"type": "string"}]});
        let plan = JsonPlan::compile(&one, true).unwrap();
        assert!(plan.nodes[plan.root as usize].one_of.is_empty());
        let two = serde_json::json!({"oneOf": [{"type": "string"}, {"minLength": 2}]});
        let plan = JsonPlan::compile(&two, true).unwrap();
        assert_eq!(plan.nodes[plan.root as usize].one_of.len(), 2);
    }

    #[test]
    fn branches_of_one_type_family_each_become_one_node() {
        // venvironment's ports: an integer in range, or a `${var}` string.
        let schema = serde_json::json!({"properties": {"port": {"oneOf": [
            {"type": "integer", "minimum": 0, "maximum": 65535},
            {"$ref": "#/definitions/var"}]}},
            "definitions": {"var": {"type": "string", "pattern": "\\$\\{[a-z]+\\}"}}});
        let plan = JsonPlan::compile(&schema, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        let port = &plan.nodes[root.members[0].schema.expect("port") as usize];
        assert!(port.one_of.is_empty() && port.all_of.is_empty());
        assert_eq!(port.types, INTEGER | STRING);
        assert!(port.pattern.is_some() && port.numeric.is_some());
        // The string-or-list shorthand: one node of strings and arrays.
        let list = serde_json::json!({"oneOf": [{"type": "string"},
            {"type": "array", "items": {"type": "string"}, "maxItems": 2}]});
        let plan = JsonPlan::compile(&list, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        assert!(root.one_of.is_empty() && root.all_of.is_empty());
        assert_eq!(root.types, STRING | ARRAY);
        assert!(root.rest.is_some() && root.max_items == 2);
        // And with a branch of objects beside: one node of the three.
        let three = serde_json::json!({"anyOf": [{"type": "string"},
            {"type": "array", "items": {"type": "string"}},
            {"type": "object", "required": ["a"]}]});
        let plan = JsonPlan::compile(&three, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        assert!(root.any_of.is_empty() && root.all_of.is_empty());
        assert_eq!(root.types, STRING | ARRAY | OBJECT);
        assert!(root.rest.is_some() && root.required != 0);
        // Two numeric branches overlap; a string branch with a bound of
        // numbers asserts beyond its family, an object branch an `enum`
        // or an applicator that would reach strings: all stay apart.
        for apart in [
            serde_json::json!({"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 2}]}),
            serde_json::json!({"anyOf": [{"type": "boolean"}, {"type": "string", "maximum": 2}]}),
            serde_json::json!({"oneOf": [{"type": "null"}, {"type": "string", "enum": ["a"]}]}),
            serde_json::json!({"oneOf": [{"type": "string"}, {"type": "object", "enum": [{}]}]}),
            serde_json::json!({"oneOf": [{"type": "string"}, {"type": "object", "not": {}}]}),
            serde_json::json!({"oneOf": [{"type": "object"}, {"type": "object", "required": ["a"]}]}),
        ] {
            let plan = JsonPlan::compile(&apart, true).unwrap();
            let root = &plan.nodes[plan.root as usize];
            assert_eq!(root.one_of.len() + root.any_of.len(), 2, "{apart}");
        }
    }

    #[test]
    fn branches_of_patterns_become_one_pattern() {
        // venvironment's file names: a suffix, or a `${var}` string.
        let schema = serde_json::json!({"properties": {"file": {"type": "string", "anyOf": [
            {"pattern": "^.*\\.vmodule$"},
            {"$ref": "#/definitions/var"}]}},
            "definitions": {"var": {"type": "string", "pattern": "\\$\\{[a-z]+\\}"}}});
        let plan = JsonPlan::compile(&schema, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        let file = &plan.nodes[root.members[0].schema.expect("file") as usize];
        assert!(file.any_of.is_empty() && file.all_of.is_empty());
        assert_eq!(file.types, STRING);
        let Some(Pattern::AnyMatch(parts)) = file.pattern.as_deref() else {
            panic!("one pattern of the two");
        };
        assert_eq!(parts.len(), 2);
        for (text, matches) in [("a.vmodule", true), ("${ab}", true), ("a.x", false)] {
            assert_eq!(file.pattern.as_ref().unwrap().is_match(text), Some(matches));
        }
        // A branch of every string leaves no pattern; folded ones join
        // into one before.
        let every = serde_json::json!({"anyOf": [{"type": "string"}, {"pattern": "^a"}]});
        let plan = JsonPlan::compile(&every, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        assert!(root.any_of.is_empty() && root.pattern.is_none() && root.types == ALL_TYPES);
        let folded = serde_json::json!({"type": "string", "anyOf": [
            {"pattern": "^[Ee][Ss]5$"}, {"pattern": "^[Ee][Ss]6$"}, {"pattern": "^a"}]});
        let plan = JsonPlan::compile(&folded, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        let Some(Pattern::AnyMatch(parts)) = root.pattern.as_deref() else {
            panic!("one pattern of the three");
        };
        assert!(matches!(parts[0], Pattern::Folded(_)) && parts.len() == 2);
        // A branch asserting beyond a string's pattern stays apart.
        for apart in [
            serde_json::json!({"anyOf": [{"pattern": "^a"}, {"pattern": "b", "maxLength": 2}]}),
            serde_json::json!({"anyOf": [{"pattern": "^a"}, {"type": "integer"}]}),
            serde_json::json!({"anyOf": [{"pattern": "^a"}, {"enum": ["b"]}]}),
            serde_json::json!({"anyOf": [{"pattern": "^a"}, {"type": ["string", "null"]}]}),
        ] {
            let plan = JsonPlan::compile(&apart, true).unwrap();
            let root = &plan.nodes[plan.root as usize];
            assert_eq!(root.any_of.len(), 2, "{apart}");
        }
    }

    #[test]
    fn folded_branches_merge_where_a_lookup_keeps_the_verdict() {
        let branches = |schema: serde_json::Value| {
            let plan = JsonPlan::compile(&schema, true).unwrap();
            let root = &plan.nodes[plan.root as usize];
            (root.any_of.len(), root.one_of.len())
        };
        let any = serde_json::json!({"type": "string", "anyOf": [
            {"enum": ["ES5"]}, {"pattern": "^[Ee][Ss][567]$"},
            {"pattern": "^[Ee][Ss]2015(\\.[Cc][Oo][Rr][Ee])?$"}, {"pattern": "^[Dd][Oo][Mm]$"}
        ]});
        assert_eq!(branches(any), (2, 0));
        // Another type, another anchor: apart (an `enum` keeps the
        // branches from becoming one pattern, `pattern_branches`).
        let mixed = serde_json::json!({"anyOf": [
            {"type": "string", "pattern": "^[Aa]$"}, {"pattern": "^[Bb]$"},
            {"pattern": "^[Cc]$"}, {"pattern": "^[Dd]"}, {"enum": ["x"]}
        ]});
        assert_eq!(branches(mixed), (4, 0));
        let suffixes = serde_json::json!({"type": "string", "oneOf": [
            {"pattern": "^.*\\.[Cc][Ss]$"}, {"pattern": "^.*\\.[Pp][Yy]$"},
            {"pattern": "^.*\\.vtesttree.[yY][aA][mM][lL]$"}
        ]});
        assert_eq!(branches(suffixes), (0, 2));
        // A text may end with both; a number passes both untyped branches.
        let overlapping = serde_json::json!({"type": "string", "oneOf": [
            {"pattern": "[Ss]$"}, {"pattern": "\\.[Cc][Ss]$"}
        ]});
        assert_eq!(branches(overlapping), (0, 2));
        let untyped = serde_json::json!({"oneOf": [{"pattern": "^[Aa]$"}, {"pattern": "^[Bb]$"}]});
        assert_eq!(branches(untyped), (0, 2));
    }

    #[test]
    fn types_intersect_with_integer_inside_number() {
        assert_eq!(and_types(NUMBER, INTEGER), INTEGER);
        assert_eq!(and_types(INTEGER, NUMBER), INTEGER);
        assert_eq!(and_types(NUMBER, NUMBER), NUMBER);
        assert_eq!(and_types(NUMBER | STRING, STRING), STRING);
        assert_eq!(and_types(OBJECT, ARRAY), 0);
        assert_eq!(and_types(ALL_TYPES, OBJECT), OBJECT);
    }
}
