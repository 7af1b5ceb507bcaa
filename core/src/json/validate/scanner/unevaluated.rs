//! `unevaluatedProperties` and `unevaluatedItems`: the members or items
//! no keyword evaluated, marked as `jsonschema` marks them by a second
//! walk over the node's subschemas, mirroring the check's.

use crate::json::validate::plan::{JsonPlan, Kind, Node};
use crate::json::validate::tokenizer::{enter, Cursor, Scan, Stop};

use super::scratch::Scratch;
use super::tape::{key_text, repeats_a_key};
use super::{value_type, MAX_FRAMES};

/// Where [`JsonPlan::mark_members`] marks: the object at `start`, its
/// tape `tape`, one mark per member from `sc.marks[base]`.
#[derive(Clone, Copy)]
pub(super) struct Members {
    start: usize,
    tape: usize,
    base: usize,
}

/// Where [`JsonPlan::mark_items`] marks: the array at `start`, its `n`
/// items starting at `sc.spots[spots..]`, one mark per item from
/// `sc.marks[marks]`.
#[derive(Clone, Copy)]
pub(super) struct Items {
    start: usize,
    spots: usize,
    marks: usize,
    n: usize,
}

impl JsonPlan {
    /// `unevaluatedProperties` of node `id` on the object at `start`, every
    /// other keyword of the node passed: each member no keyword evaluated
    /// ([`JsonPlan::mark_members`]) must match its subschema. An object
    /// naming a key twice is left to `jsonschema` (which sees the last).
    pub(super) fn unevaluated_members(
        &self,
        id: u32,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let Some(schema) = self.nodes[id as usize].unevaluated_properties else {
            return Ok(true);
        };
        let tape = self.tape_of(start, cur, sc, depth)?;
        let n = sc.tapes[tape].entries.len();
        if n == 0 {
            return Ok(true);
        }
        if repeats_a_key(cur.bytes, tape, sc)? {
            return Err(Stop::Unsure);
        }
        let base = sc.marks.len();
        sc.marks.resize(base + n, false);
        let region = Members { start, tape, base };
        self.mark_members(id, false, region, cur, sc, depth)?;
        let inner = enter(depth)?;
        for i in 0..n {
            if sc.marks[base + i] {
                continue;
            }
            cur.pos = sc.tapes[tape].entries[i].value_at;
            if !self.check(schema, cur, sc, inner)? {
                sc.marks.truncate(base);
                return Ok(false);
            }
        }
        sc.marks.truncate(base);
        Ok(true)
    }

    /// Marks (in `sc.marks[base..]`, one per member of the object at
    /// `start`, its tape `tape`: the [`Members`] region) the members node
    /// `id` evaluates, as
    /// `jsonschema`'s `unevaluatedProperties` marks them, the value valid
    /// against the node: `properties` and `patternProperties` by key,
    /// every member for `additionalProperties` or an own
    /// `unevaluatedProperties` (a valid node's unevaluated members all
    /// match it), and through `$ref`, `allOf`, the valid `anyOf` branches,
    /// the one valid `oneOf` branch, `if` with `then` or `else`, and the
    /// `dependentSchemas` whose key is present. `own` counts the node's own
    /// `unevaluatedProperties` (not when it is the one being checked).
    pub(super) fn mark_members(
        &self,
        id: u32,
        own: bool,
        region: Members,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<()> {
        let Members { start, tape, base } = region;
        let node = &self.nodes[id as usize];
        if node.kind != Kind::Check {
            return Ok(());
        }
        if sc.frames >= MAX_FRAMES {
            return Err(Stop::Unsure);
        }
        sc.frames += 1;
        let n = sc.tapes[tape].entries.len();
        if (own && node.unevaluated_properties.is_some()) || node.additional.is_some() {
            sc.marks[base..base + n].fill(true);
            sc.frames -= 1;
            return Ok(());
        }
        let names = node.members.iter().any(|m| m.schema.is_some());
        if names || !node.patterns.is_empty() {
            for i in 0..n {
                if sc.marks[base + i] {
                    continue;
                }
                let entry = sc.tapes[tape].entries[i];
                let key = key_text(cur.bytes, &entry, sc);
                let mut hit = names && node.member_named(key).is_some_and(|m| m.schema.is_some());
                for (pattern, _) in &node.patterns {
                    if hit {
                        break;
                    }
                    hit = pattern.is_match(key).ok_or(Stop::Undecided)?;
                }
                sc.marks[base + i] = hit;
            }
        }
        for &(bit, dependent) in &node.evaluating_dependents {
            let Some(trigger) = node.members.iter().find(|m| m.bit == bit) else {
                continue;
            };
            let present = (0..n).any(|i| {
                let entry = sc.tapes[tape].entries[i];
                key_text(cur.bytes, &entry, sc) == &*trigger.name
            });
            if present {
                self.mark_members(dependent, true, region, cur, sc, depth)?;
            }
        }
        let mark = |this: &Self, branch, cur: &mut Cursor<'_>, sc: &mut Scratch| {
            this.mark_members(branch, true, region, cur, sc, depth)
        };
        self.mark_in_place(node, start, cur, sc, depth, mark)?;
        sc.frames -= 1;
        Ok(())
    }

    /// The in-place part of [`JsonPlan::mark_members`] and
    /// [`JsonPlan::mark_items`]: `mark` on `$ref` targets and `allOf`
    /// members (valid, as the node is), on `if` and `then` when `if` holds
    /// or on `else`, on each valid `anyOf` branch, and on the `oneOf`
    /// branch when exactly one holds.
    pub(super) fn mark_in_place(
        &self,
        node: &Node,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        mut mark: impl FnMut(&Self, u32, &mut Cursor<'_>, &mut Scratch) -> Scan<()>,
    ) -> Scan<()> {
        let kind = value_type(cur.bytes.get(start).copied());
        let holds = |this: &Self, branch: u32, cur: &mut Cursor<'_>, sc: &mut Scratch| {
            if this.nodes[branch as usize].accepts & kind == 0 {
                return Ok(false);
            }
            cur.pos = start;
            this.check(branch, cur, sc, depth)
        };
        if let Some(condition) = node.lone_if {
            if holds(self, condition, cur, sc)? {
                mark(self, condition, cur, sc)?;
            }
        }
        if let Some((condition, then, otherwise)) = node.condition {
            if holds(self, condition, cur, sc)? {
                mark(self, condition, cur, sc)?;
                if let Some(then) = then {
                    mark(self, then, cur, sc)?;
                }
            } else if let Some(otherwise) = otherwise {
                mark(self, otherwise, cur, sc)?;
            }
        }
        for &member in &node.all_of {
            mark(self, member, cur, sc)?;
        }
        for &branch in &node.any_of {
            if holds(self, branch, cur, sc)? {
                mark(self, branch, cur, sc)?;
            }
        }
        let mut valid = None;
        for &branch in &node.one_of {
            if holds(self, branch, cur, sc)? {
                if valid.is_some() {
                    valid = None;
                    break;
                }
                valid = Some(branch);
            }
        }
        if let Some(branch) = valid {
            mark(self, branch, cur, sc)?;
        }
        Ok(())
    }

    /// `unevaluatedItems` of node `id` on the array at `start`, every other
    /// keyword of the node passed: each item no keyword evaluated
    /// ([`JsonPlan::mark_items`]) must match its subschema.
    pub(super) fn unevaluated_items(
        &self,
        id: u32,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let Some(schema) = self.nodes[id as usize].unevaluated_items else {
            return Ok(true);
        };
        let inner = enter(depth)?;
        let base = sc.spots.len();
        cur.pos = start + 1;
        cur.ws();
        if cur.peek() != Some(b']') {
            loop {
                sc.spots.push(cur.pos);
                cur.skip(inner)?;
                if !cur.next_or_close(b']')? {
                    break;
                }
            }
        }
        let n = sc.spots.len() - base;
        let marks = sc.marks.len();
        sc.marks.resize(marks + n, false);
        let region = Items {
            start,
            spots: base,
            marks,
            n,
        };
        self.mark_items(id, false, region, cur, sc, depth)?;
        let mut ok = true;
        for i in 0..n {
            if sc.marks[marks + i] {
                continue;
            }
            cur.pos = sc.spots[base + i];
            if !self.check(schema, cur, sc, inner)? {
                ok = false;
                break;
            }
        }
        sc.marks.truncate(marks);
        sc.spots.truncate(base);
        Ok(ok)
    }

    /// Marks (in `sc.marks[marks..marks + n]`) the items of the array at
    /// `start` (their starts in `sc.spots[spots..]`: the [`Items`] region)
    /// node `id` evaluates, as
    /// `jsonschema`'s `unevaluatedItems` marks them, the value valid against
    /// the node: the leading items `items`/`prefixItems` cover
    /// ([`Node::evaluated_items`]), every item for an own
    /// `unevaluatedItems`, the items matching `contains`, and through the
    /// in-place applicators as for members. `own` as for members.
    pub(super) fn mark_items(
        &self,
        id: u32,
        own: bool,
        items: Items,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<()> {
        let Items {
            start,
            spots,
            marks,
            n,
        } = items;
        let node = &self.nodes[id as usize];
        if node.kind != Kind::Check {
            return Ok(());
        }
        if sc.frames >= MAX_FRAMES {
            return Err(Stop::Unsure);
        }
        sc.frames += 1;
        let region = marks..marks + n;
        if own && node.unevaluated_items.is_some() {
            sc.marks[region].fill(true);
            sc.frames -= 1;
            return Ok(());
        }
        let leading = usize::try_from(node.evaluated_items)
            .unwrap_or(usize::MAX)
            .min(n);
        sc.marks[marks..marks + leading].fill(true);
        if let Some(contains) = node.contains {
            let inner = enter(depth)?;
            for i in 0..n {
                if sc.marks[marks + i] {
                    continue;
                }
                cur.pos = sc.spots[spots + i];
                if self.check(contains, cur, sc, inner)? {
                    sc.marks[marks + i] = true;
                }
            }
        }
        if !sc.marks[region].iter().all(|&m| m) {
            let mark = |this: &Self, branch, cur: &mut Cursor<'_>, sc: &mut Scratch| {
                this.mark_items(branch, true, items, cur, sc, depth)
            };
            self.mark_in_place(node, start, cur, sc, depth, mark)?;
        }
        sc.frames -= 1;
        Ok(())
    }
}
