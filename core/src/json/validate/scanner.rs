//! The JSON scanner: checks payload bytes against a [`JsonPlan`] while it
//! tokenizes them, without building a `serde_json::Value`.
//!
//! # JSON as serde_json reads it
//!
//! The bytes are accepted exactly when `serde_json::from_slice::<Value>`
//! accepts them: RFC 8259 syntax, whitespace around the root, UTF-8 in
//! strings, no control characters in strings, escapes with paired
//! surrogates, numbers in `f64` range (serde_json's own parser decides any
//! number with a fraction, an exponent or many digits), and arrays and
//! objects nested less than [`MAX_NESTING`] deep.
//!
//! # One pass, and where it is not
//!
//! A value is read once against its subschema; the applicators that apply
//! several subschemas to the same value (`allOf`, `anyOf`, `oneOf`, `not`,
//! `if`, `$ref`, dependent schemas) read it again for each, which is the
//! walk `jsonschema` makes over the `Value` tree, with two short cuts: a
//! branch that accepts no value of the value's type (`Node::accepts`) is
//! not read, and an object read more than once is reread from the tape its
//! first read records (where each member's key starts and value ends), so
//! that a branch tokenizes only the values it checks and stops at its
//! first failing member; a branch naming few of many members, and taking
//! any other key, looks its names up on the tape instead of reading each
//! member. A member that fails
//! its subschema fails its object only if no later member has the same key
//! (the last one wins, as in the `Value` serde_json builds); finding that out
//! reads ahead in the object (or compares the later keys on its tape),
//! within a budget proportional to the payload, past which the scanner
//! says it cannot tell and the guard asks `jsonschema`.

use std::cell::RefCell;

use jsonschema::json::JsonNumber as _;
use serde_json::{Number, Value};

use super::plan::{
    exact_f64, keyed, Bound, Branches, JsonPlan, Keyed, Kind, Node, Probe, ARRAY, BOOLEAN, EXACT,
    INTEGER, NO_BRANCH, NULL, NUMBER, OBJECT, STRING,
};
use super::tokenizer::{enter, Cursor, NotJson, Num, Scan, Stop, Str};
use super::MAX_NESTING;

/// The most subschemas one scan checks nested in one another that are not
/// `simple` (those read a value again in place); `simple` ones recurse
/// only into the payload's nesting, under [`MAX_NESTING`] (128). A debug
/// build takes at most about 1.5 KiB of stack a subschema (`check`, `own`,
/// `object`, `member`), so the two keep a scan under about 400 KiB; a
/// deeper path is answered by `jsonschema`, within the analysis' bound.
const MAX_FRAMES: usize = 128;

/// Buffers one thread reuses from payload to payload: after the first use
/// (and the longest escaped string), a scan allocates nothing.
struct Scratch {
    /// A `Value::String` the borrowed validators are asked about.
    text: Value,
    /// Bytes of look-ahead left for duplicate keys.
    budget: usize,
    /// Subschemas being checked, nested.
    frames: usize,
    /// The items of an array `uniqueItems` compares on the bytes.
    items: Vec<Item>,
    /// The text of those of its strings (and keys) that hold an escape,
    /// decoded: one after another, and the last one decoded.
    unescaped: String,
    decoding: String,
    /// Where an object starts that is about to be read more than once (by
    /// a node's own keywords and its in-place applicators, or by several
    /// branches): its first read records a [`Tape`].
    tape_at: usize,
    /// The tapes of this scan's objects read more than once.
    tapes: Vec<Tape>,
    /// Emptied member lists, reused: the `n`th object of a scan to record
    /// a tape takes slot `n`, and gives its list back there.
    pool: Vec<Vec<Entry>>,
    /// The pool's slots taken by this scan.
    taken: usize,
    /// Which members or items `unevaluated*` found evaluated, a region per
    /// check in progress (nested checks stack theirs above).
    marks: Vec<bool>,
    /// Where the items of the arrays `unevaluatedItems` checks start, a
    /// region per check in progress.
    spots: Vec<usize>,
}

/// One object's members, recorded by its first read: a later read finds
/// each key and value without tokenizing the values it does not check,
/// and stops at the first failing member.
struct Tape {
    start: usize,
    end: usize,
    entries: Vec<Entry>,
    /// The pool's slot its list came from.
    slot: usize,
}

/// One member of a [`Tape`]: where its key starts (its opening quote) and
/// ends (its closing quote), whether it holds an escape, and where its
/// value starts and ends.
#[derive(Clone, Copy)]
struct Entry {
    key_at: usize,
    key_end: usize,
    escaped: bool,
    value_at: usize,
    value_end: usize,
}

/// The most names a subschema looks up on an object's tape
/// ([`JsonPlan::named_on_tape`]); past it, the tape is read member by
/// member.
const NAMES_LOOKED_UP: usize = 8;

/// The most tapes a lookup searches, newest first (older objects are read
/// again without one).
const TAPES_SEARCHED: usize = 64;

impl Scratch {
    /// The tape of the object at `start`, if it has one.
    #[inline]
    fn tape(&self, start: usize) -> Option<usize> {
        let newest = self.tapes.len();
        (newest.saturating_sub(TAPES_SEARCHED)..newest)
            .rev()
            .find(|&t| self.tapes[t].start == start)
    }

    /// Back to no tapes, their lists kept for reuse.
    #[inline]
    fn forget_tapes(&mut self) {
        self.tape_at = usize::MAX;
        self.taken = 0;
        // Each list goes back to the slot it came from: the next payload
        // of the same shape gives each object (in the order objects start)
        // the list it had, its capacity, and allocates nothing.
        for tape in self.tapes.drain(..) {
            if let Some(slot) = self.pool.get_mut(tape.slot) {
                *slot = tape.entries;
            }
        }
    }

    /// `read` bytes of look-ahead taken from the budget; past it, the scan
    /// cannot tell (`jsonschema` decides).
    #[inline]
    fn charge(&mut self, read: usize) -> Scan<()> {
        self.budget = self.budget.checked_sub(read).ok_or(Stop::Unsure)?;
        Ok(())
    }

    /// An empty member list for the next tape, and its slot in the pool.
    #[inline]
    fn take_list(&mut self) -> (Vec<Entry>, usize) {
        let slot = self.taken;
        self.taken += 1;
        if slot >= self.pool.len() && slot < TAPES_SEARCHED {
            self.pool.resize_with(slot + 1, Vec::new);
        }
        let mut entries = self
            .pool
            .get_mut(slot)
            .map(std::mem::take)
            .unwrap_or_default();
        entries.clear();
        (entries, slot)
    }
}

/// One item of an array, as `uniqueItems` compares it: its kind, a
/// number's value (an exact `f64`, zero's sign dropped, as bits) or an
/// array's or object's hash ([`hash_value`]), and a string's unescaped body
/// (its place in the payload, or in [`Scratch::unescaped`] when `bits` is
/// 1: it held an escape).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Item {
    kind: u8,
    bits: u64,
    at: usize,
    len: usize,
}

impl Scratch {
    /// Puts the text of `token` in [`Scratch::text`], reusing its buffer.
    fn fill(&mut self, token: &Str<'_>) {
        let mut text = match std::mem::take(&mut self.text) {
            Value::String(text) => text,
            _ => String::new(),
        };
        token.decode_into(&mut text);
        self.text = Value::String(text);
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch {
            text: Value::Null,
            budget: 0,
            frames: 0,
            items: Vec::new(),
            unescaped: String::new(),
            decoding: String::new(),
            tape_at: usize::MAX,
            tapes: Vec::new(),
            pool: Vec::new(),
            taken: 0,
            marks: Vec::new(),
            spots: Vec::new(),
        })
    };
}

impl JsonPlan {
    /// Scans `payload` against the plan: `Some(true)` when
    /// `serde_json::from_slice` and `jsonschema`'s `is_valid` would accept
    /// it, `Some(false)` when they would not, `None` when the scanner cannot
    /// tell within its budget (many failing members with duplicate keys) and
    /// `jsonschema` must be asked. Allocates nothing on a thread's later
    /// calls, except to grow its buffer for a longer escaped string.
    pub fn scan(&self, payload: &[u8]) -> Option<bool> {
        match self.scan_outcome(payload) {
            Scanned::Valid => Some(true),
            Scanned::Invalid => Some(false),
            Scanned::Unsure => None,
        }
    }

    /// [`JsonPlan::scan`], telling apart a payload `jsonschema` must be
    /// asked about and one without a verdict.
    pub(super) fn scan_outcome(&self, payload: &[u8]) -> Scanned {
        let run = |scratch: &mut Scratch| {
            scratch.budget = payload.len().saturating_mul(4).saturating_add(4096);
            scratch.frames = 0;
            scratch.marks.clear();
            scratch.spots.clear();
            scratch.forget_tapes();
            let mut cur = Cursor {
                bytes: payload,
                pos: 0,
            };
            cur.ws();
            let verdict = self.check(self.root, &mut cur, scratch, 0);
            // The tapes' lists go back to the pool now, so that the next
            // payload of the same shape allocates nothing.
            scratch.forget_tapes();
            let verdict = verdict?;
            cur.ws();
            if cur.pos != payload.len() {
                return Err(Stop::NotJson);
            }
            Ok(verdict)
        };
        let result = SCRATCH
            .try_with(|cell| match cell.try_borrow_mut() {
                Ok(mut scratch) => run(&mut scratch),
                Err(_) => run(&mut new_scratch()),
            })
            .unwrap_or_else(|_| run(&mut new_scratch()));
        match result {
            Ok(true) => Scanned::Valid,
            Ok(false) | Err(Stop::NotJson) => Scanned::Invalid,
            Err(Stop::Unsure) => Scanned::Unsure,
            // Not JSON is invalid whatever the match. Else `jsonschema`
            // decides: the payload may be invalid, or valid, whatever the
            // unfinished match (another member fails, another branch
            // holds), and only it can tell, evaluating every keyword.
            Err(Stop::Undecided) if !is_json(payload) => Scanned::Invalid,
            Err(Stop::Undecided) => Scanned::Unsure,
        }
    }

    /// Reads one value (the cursor on its first byte) and says whether it
    /// conforms to node `id`.
    #[inline]
    fn check(&self, id: u32, cur: &mut Cursor<'_>, sc: &mut Scratch, depth: usize) -> Scan<bool> {
        let node = &self.nodes[id as usize];
        if let Some(types) = node.leaf {
            // Nothing but `type` (or nothing, or `false`): no recursion.
            return leaf(types, node.draft4_integers, cur, depth);
        }
        if node.simple {
            // Its own keywords only: it recurses into the value's members
            // and items alone, so the payload's nesting (under
            // `MAX_NESTING`) bounds these frames, uncounted.
            return self.own(node, cur, sc, depth);
        }
        // The stack the other subschemas may use (those that read a value
        // again in place): past it, `jsonschema` (whose depth the analysis
        // bounds) answers instead.
        if sc.frames >= MAX_FRAMES {
            return Err(Stop::Unsure);
        }
        sc.frames += 1;
        let verdict = self.check_node(id, cur, sc, depth);
        sc.frames -= 1;
        verdict
    }

    fn check_node(
        &self,
        id: u32,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let node = &self.nodes[id as usize];
        if node.simple {
            return self.own(node, cur, sc, depth);
        }
        if let Some(probe) = &node.probe {
            // Nothing but its own keywords too (not `simple`, to keep this
            // look off the common path).
            if cur.peek() == Some(b'{') {
                if let Some(tape) = sc.tape(cur.pos) {
                    return self.probe(node, probe, tape, cur, sc, depth);
                }
            }
            return self.own(node, cur, sc, depth);
        }
        match node.kind {
            Kind::Any => return cur.skip(depth).map(|()| true),
            Kind::Never => return cur.skip(depth).map(|()| false),
            Kind::Check => {}
        }
        let start = cur.pos;
        let first = cur.peek();
        let unevaluated = match first {
            Some(b'{') => node.unevaluated_properties.is_some(),
            Some(b'[') => node.unevaluated_items.is_some(),
            _ => false,
        };
        if (node.in_place() || unevaluated) && first == Some(b'{') {
            // Read more than once: the first read records a tape.
            sc.tape_at = start;
        }
        let mut ok = if node.only_in_place {
            // Each applicator reads the whole value (its syntax too), and
            // leaves the cursor after it.
            self.in_place(node, start, cur, sc, depth)?
        } else {
            let mut ok = self.own(node, cur, sc, depth)?;
            if ok && node.in_place() {
                let end = cur.pos;
                ok = self.in_place(node, start, cur, sc, depth)?;
                cur.pos = end;
            }
            ok
        };
        if ok && unevaluated {
            // Every other keyword passed: the value is valid against each
            // subschema the evaluation marks below assume valid.
            let end = cur.pos;
            ok = if first == Some(b'{') {
                self.unevaluated_members(id, start, cur, sc, depth)?
            } else {
                self.unevaluated_items(id, start, cur, sc, depth)?
            };
            cur.pos = end;
        }
        Ok(ok)
    }

    /// A [`Probe`] node on the object at the cursor, read before (its tape
    /// `tape`): its one member looked up on the tape (the last of that
    /// key, the one a parsed object keeps) and its value checked alone.
    /// Leaves the cursor after the object.
    fn probe(
        &self,
        node: &Node,
        probe: &Probe,
        tape: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let start = cur.pos;
        let end = sc.tapes[tape].end;
        let bytes = cur.bytes;
        let name = probe.name.as_bytes();
        // An escaped key may be the name: then the whole tape is read.
        let found = match last_member(bytes, &sc.tapes[tape].entries, name) {
            Last::Escaped => return self.object_on_tape(node, start, tape, cur, sc, depth),
            Last::Absent => None,
            Last::Found(entry) => Some(entry.value_at),
        };
        let inner = enter(depth)?;
        let ok = match (found, probe.schema) {
            (None, _) => !probe.required,
            (Some(_), None) => true,
            (Some(at), Some(id)) => {
                cur.pos = at;
                match &probe.values {
                    Some(values) if cur.peek() == Some(b'"') => match cur.string()? {
                        text if !text.escaped => values.contains(text.body),
                        _ => {
                            cur.pos = at;
                            self.check(id, cur, sc, inner)?
                        }
                    },
                    _ => self.check(id, cur, sc, inner)?,
                }
            }
        };
        cur.pos = end;
        Ok(ok)
    }

    /// `unevaluatedProperties` of node `id` on the object at `start`, every
    /// other keyword of the node passed: each member no keyword evaluated
    /// ([`JsonPlan::mark_members`]) must match its subschema. An object
    /// naming a key twice is left to `jsonschema` (which sees the last).
    fn unevaluated_members(
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
        self.mark_members(id, false, start, tape, base, cur, sc, depth)?;
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

    /// The tape of the object at `start` (read before): its own, or one
    /// recorded now when it has none (or it is past the searched ones).
    fn tape_of(
        &self,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<usize> {
        if let Some(tape) = sc.tape(start) {
            return Ok(tape);
        }
        let inner = enter(depth)?;
        let (mut entries, slot) = sc.take_list();
        cur.pos = start + 1;
        cur.ws();
        if cur.peek() == Some(b'}') {
            cur.pos += 1;
        } else {
            loop {
                let key_at = cur.pos;
                let key = cur.key()?;
                let value_at = cur.pos;
                cur.skip(inner)?;
                entries.push(Entry {
                    key_at,
                    key_end: key_at + 1 + key.body.len(),
                    escaped: key.escaped,
                    value_at,
                    value_end: cur.pos,
                });
                if !cur.next_or_close(b'}')? {
                    break;
                }
            }
        }
        sc.tapes.push(Tape {
            start,
            end: cur.pos,
            entries,
            slot,
        });
        Ok(sc.tapes.len() - 1)
    }

    /// Marks (in `sc.marks[base..]`, one per member of the object at
    /// `start`, its tape `tape`) the members node `id` evaluates, as
    /// `jsonschema`'s `unevaluatedProperties` marks them, the value valid
    /// against the node: `properties` and `patternProperties` by key,
    /// every member for `additionalProperties` or an own
    /// `unevaluatedProperties` (a valid node's unevaluated members all
    /// match it), and through `$ref`, `allOf`, the valid `anyOf` branches,
    /// the one valid `oneOf` branch, `if` with `then` or `else`, and the
    /// `dependentSchemas` whose key is present. `own` counts the node's own
    /// `unevaluatedProperties` (not when it is the one being checked).
    #[allow(clippy::too_many_arguments)]
    fn mark_members(
        &self,
        id: u32,
        own: bool,
        start: usize,
        tape: usize,
        base: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<()> {
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
                self.mark_members(dependent, true, start, tape, base, cur, sc, depth)?;
            }
        }
        let mark = |this: &Self, branch, cur: &mut Cursor<'_>, sc: &mut Scratch| {
            this.mark_members(branch, true, start, tape, base, cur, sc, depth)
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
    fn mark_in_place(
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
    fn unevaluated_items(
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
        self.mark_items(id, false, start, base, marks, n, cur, sc, depth)?;
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
    /// `start` (their starts in `sc.spots[spots..]`) node `id` evaluates, as
    /// `jsonschema`'s `unevaluatedItems` marks them, the value valid against
    /// the node: the leading items `items`/`prefixItems` cover
    /// ([`Node::evaluated_items`]), every item for an own
    /// `unevaluatedItems`, the items matching `contains`, and through the
    /// in-place applicators as for members. `own` as for members.
    #[allow(clippy::too_many_arguments)]
    fn mark_items(
        &self,
        id: u32,
        own: bool,
        start: usize,
        spots: usize,
        marks: usize,
        n: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<()> {
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
                this.mark_items(branch, true, start, spots, marks, n, cur, sc, depth)
            };
            self.mark_in_place(node, start, cur, sc, depth, mark)?;
        }
        sc.frames -= 1;
        Ok(())
    }

    /// The applicators that read the value at `start` again; the cursor
    /// left after the value.
    fn in_place(
        &self,
        node: &Node,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let mut end = None;
        let verdict = self.in_place_verdict(node, start, cur, sc, depth, &mut end);
        match end {
            Some(end) => cur.pos = end,
            // No branch read the value (a value of a type none accepts): it
            // is read once here, for its syntax.
            None => {
                cur.pos = start;
                cur.skip(depth)?;
            }
        }
        verdict
    }

    fn in_place_verdict(
        &self,
        node: &Node,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<bool> {
        // The value's type by its first byte: a branch that accepts no
        // value of that type fails without reading it.
        let kind = value_type(cur.bytes.get(start).copied());
        let again = |id: u32,
                     cur: &mut Cursor<'_>,
                     sc: &mut Scratch,
                     end: &mut Option<usize>|
         -> Scan<bool> {
            if self.nodes[id as usize].accepts & kind == 0 {
                return Ok(false);
            }
            cur.pos = start;
            let ok = self.check(id, cur, sc, depth)?;
            *end = Some(cur.pos);
            Ok(ok)
        };
        for &id in &node.all_of {
            if !again(id, cur, sc, end)? {
                return Ok(false);
            }
        }
        if !node.any_of.is_empty() {
            let mut any = false;
            match &node.any_index {
                None => {
                    for &id in &node.any_of {
                        if again(id, cur, sc, end)? {
                            any = true;
                            break;
                        }
                    }
                }
                Some(index) => {
                    let first = self.first_key_branch(
                        index,
                        &node.any_of,
                        start,
                        kind,
                        cur,
                        sc,
                        depth,
                        end,
                    )?;
                    if let Some((_, true)) = first {
                        any = true;
                    } else {
                        let (tagged, rest, fits) =
                            self.candidates(index, start, kind, cur, sc, depth, end)?;
                        let picked = tagged.branches().chain(rest.iter().copied());
                        for b in picked {
                            if !fits.admits(index, b) || first.is_some_and(|(f, _)| f == b) {
                                continue;
                            }
                            if again(node.any_of[b as usize], cur, sc, end)? {
                                any = true;
                                break;
                            }
                        }
                    }
                }
            }
            if !any {
                return Ok(false);
            }
        }
        if !node.one_of.is_empty() {
            let mut valid = 0;
            match &node.one_index {
                None => {
                    for &id in &node.one_of {
                        if again(id, cur, sc, end)? {
                            valid += 1;
                            if valid > 1 {
                                return Ok(false);
                            }
                        }
                    }
                }
                Some(index) => {
                    let first = self.first_key_branch(
                        index,
                        &node.one_of,
                        start,
                        kind,
                        cur,
                        sc,
                        depth,
                        end,
                    )?;
                    let (tagged, rest, fits) =
                        self.candidates(index, start, kind, cur, sc, depth, end)?;
                    let picked = tagged.branches().chain(rest.iter().copied());
                    for b in picked {
                        if !fits.admits(index, b) {
                            continue;
                        }
                        let ok = match first {
                            Some((f, ok)) if f == b => ok,
                            _ => again(node.one_of[b as usize], cur, sc, end)?,
                        };
                        if ok {
                            valid += 1;
                            if valid > 1 {
                                return Ok(false);
                            }
                        }
                    }
                }
            }
            if valid != 1 {
                return Ok(false);
            }
        }
        if let Some(id) = node.not {
            if again(id, cur, sc, end)? {
                return Ok(false);
            }
        }
        if let Some((condition, then, otherwise)) = node.condition {
            let branch = if again(condition, cur, sc, end)? {
                then
            } else {
                otherwise
            };
            if let Some(id) = branch {
                if !again(id, cur, sc, end)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// For an indexed `anyOf`/`oneOf` (its branches `branches`) on an
    /// object not read yet: the branch its first key points to, checked
    /// straight on the bytes, and its verdict. That read records the
    /// object's tape, which [`JsonPlan::candidates`] then reads for any
    /// other branch, so the object is not first read only to find its
    /// keys. The branch: the one the tag's value picks when the first key
    /// is the tag, else the first that requires the key, else the only one
    /// that takes it. Any branch's verdict is its verdict: an `anyOf` holds
    /// when it passes, and a `oneOf` reuses it among the candidates (a
    /// branch the index then leaves out fails the object anyway). `None`
    /// otherwise, and nothing read.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn first_key_branch(
        &self,
        index: &Branches,
        branches: &[u32],
        start: usize,
        kind: u8,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<Option<(u32, bool)>> {
        // Told here, inlined: most indexes point nowhere.
        if kind != OBJECT || !index.points() {
            return Ok(None);
        }
        self.first_key_branch_read(index, branches, start, cur, sc, depth, end)
    }

    /// [`JsonPlan::first_key_branch`] on an object whose index may point.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn first_key_branch_read(
        &self,
        index: &Branches,
        branches: &[u32],
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<Option<(u32, bool)>> {
        let mut probe = Cursor {
            bytes: cur.bytes,
            pos: start + 1,
        };
        probe.ws();
        if probe.peek() != Some(b'"') {
            return Ok(None);
        }
        if sc.tape(start).is_some() {
            return Ok(None);
        }
        // Anything that is no JSON is left for the reads that follow.
        let Ok(key) = probe.string() else {
            return Ok(None);
        };
        if key.escaped {
            return Ok(None);
        }
        let Some(known) = index.pointed(key.body) else {
            return Ok(None);
        };
        let mut chosen = (known.first != NO_BRANCH).then_some(known.first);
        if chosen.is_none() && known.tag {
            probe.ws();
            if probe.peek() == Some(b':') {
                probe.pos += 1;
                probe.ws();
                if let Ok(Some((keyed, _))) = pick(&index.by_tag, &mut probe) {
                    let mut keyed = keyed.branches();
                    chosen = keyed.next().filter(|_| keyed.next().is_none());
                }
            }
        }
        let Some(b) = chosen else {
            return Ok(None);
        };
        let id = branches[b as usize];
        if (b < 64 && known.taking & (1 << b) == 0) || self.nodes[id as usize].accepts & OBJECT == 0
        {
            return Ok(None);
        }
        sc.tape_at = start;
        cur.pos = start;
        let ok = self.check(id, cur, sc, depth)?;
        *end = Some(cur.pos);
        Ok(Some((b, ok)))
    }

    /// The branches of an indexed `anyOf`/`oneOf` the value at `start`
    /// (of type `kind`) may pass, as (`keyed`, `rest`, `present`): the
    /// branches of `keyed`, then those of `rest`, each unless it needs a
    /// name `present` lacks (the bits of [`Branches::keys`]). Every other
    /// branch fails the value. Reads an object's keys once, into a tape
    /// its branches then reread; `end` is set past a value read.
    #[allow(clippy::too_many_arguments)]
    fn candidates<'p>(
        &self,
        index: &'p Branches,
        start: usize,
        kind: u8,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<(Picked<'p>, &'p [u32], Fits)> {
        let everything = (Picked::Nothing, &index.all[..], Fits::ANY);
        if kind & (STRING | NUMBER) != 0 {
            let by = &index.by_value;
            let free = if kind == STRING {
                by.any_string.len()
            } else {
                by.any_integer.len()
            };
            if free == index.all.len() {
                return Ok(everything);
            }
            cur.pos = start;
            let picked = pick(&index.by_value, cur)?;
            *end = Some(cur.pos);
            return Ok(match picked {
                Some((keyed, rest)) => (keyed, rest, Fits::ANY),
                None => everything,
            });
        }
        if kind != OBJECT || !index.reads_keys() {
            return Ok(everything);
        }
        let tape = self.tape_of(start, cur, sc, depth)?;
        let tape = &sc.tapes[tape];
        *end = Some(tape.end);
        let bytes = cur.bytes;
        let mut present = 0;
        let mut taking = u64::MAX;
        let mut tag_at = None;
        for entry in &tape.entries {
            if entry.escaped {
                return Ok(everything);
            }
            // SAFETY: the tape's read checked these bytes to be a string
            // token's body, which is UTF-8.
            let key =
                unsafe { std::str::from_utf8_unchecked(&bytes[entry.key_at + 1..entry.key_end]) };
            let known = index.key(key);
            present |= known.present;
            taking &= known.taking;
            if known.tag {
                // The last member of a repeated key is the one that counts.
                tag_at = Some(entry.value_at);
            }
        }
        let picked = match tag_at {
            Some(at) => {
                let mut value = Cursor { bytes, pos: at };
                pick(&index.by_tag, &mut value)?
            }
            None => None,
        };
        let fits = Fits { present, taking };
        Ok(match picked {
            Some((keyed, rest)) => (keyed, rest, fits),
            None => (Picked::Nothing, &index.all[..], fits),
        })
    }

    /// The node's own keywords, for the value's type.
    fn own(&self, node: &Node, cur: &mut Cursor<'_>, sc: &mut Scratch, depth: usize) -> Scan<bool> {
        match cur.peek() {
            Some(b'"') => {
                let text = cur.string()?;
                if node.types & STRING == 0 {
                    return Ok(false);
                }
                self.string(node, text, sc)
            }
            Some(b'-' | b'0'..=b'9') => {
                let n = Number::from(cur.number().map_err(|NotJson| Stop::NotJson)?);
                let typed = node.types & NUMBER != 0
                    || (node.types & INTEGER != 0
                        && if node.draft4_integers {
                            n.is_written_as_integer()
                        } else {
                            n.is_integer()
                        });
                if !typed {
                    return Ok(false);
                }
                if node.numeric.is_none() && node.choice.is_none() {
                    return Ok(true);
                }
                let bounded = match (&node.bounds, exact_f64(&n)) {
                    (Some(bounds), Some(x)) => within(bounds, x),
                    _ => {
                        let value = Value::Number(n.clone());
                        node.numeric.as_ref().is_none_or(|v| v.is_valid(&value))
                    }
                };
                if !bounded {
                    return Ok(false);
                }
                Ok(node
                    .choice
                    .as_ref()
                    .is_none_or(|v| v.is_valid(&Value::Number(n))))
            }
            Some(b't') => {
                cur.literal(b"true")?;
                Ok(scalar(node, BOOLEAN, || Value::Bool(true)))
            }
            Some(b'f') => {
                cur.literal(b"false")?;
                Ok(scalar(node, BOOLEAN, || Value::Bool(false)))
            }
            Some(b'n') => {
                cur.literal(b"null")?;
                Ok(scalar(node, NULL, || Value::Null))
            }
            Some(b'[') => self.array(node, cur, sc, depth),
            Some(b'{') => self.object(node, cur, sc, depth),
            _ => Err(Stop::NotJson),
        }
    }

    #[inline(always)]
    fn string(&self, node: &Node, text: Str<'_>, sc: &mut Scratch) -> Scan<bool> {
        if node.min_length > 0 || node.max_length < u64::MAX {
            // A code point takes 1 to 4 bytes of UTF-8, and 1 to 12 of
            // escapes (a surrogate pair): the byte length often decides.
            let bytes = text.body.len() as u64;
            let least = if text.escaped {
                bytes / 12
            } else {
                bytes.div_ceil(4)
            };
            if bytes < node.min_length {
                return Ok(false);
            }
            if bytes > node.max_length || least < node.min_length {
                let length = text.chars();
                if length < node.min_length || length > node.max_length {
                    return Ok(false);
                }
            }
        }
        // Whether a borrowed validator is asked about the string: then it
        // is filled into a `Value`.
        let mut asks_text = node.text.is_some();
        let asks_choice = node.strings.is_none() && node.choice.is_some();
        if !text.escaped {
            // The body is the string's text: formats, string options and
            // the pattern are decided on it.
            let body = text.body;
            if node.format.is_some_and(|f| !f.accepts(body.as_bytes())) {
                return Ok(false);
            }
            if node.strings.as_ref().is_some_and(|o| !o.contains(body)) {
                return Ok(false);
            }
            if let Some(pattern) = &node.pattern {
                if !pattern.is_match(body).ok_or(Stop::Undecided)? {
                    return Ok(false);
                }
            }
            // A string the quick check accepts, `jsonschema`'s format
            // (all the text validator holds) accepts too.
            if asks_text
                && node
                    .quick
                    .is_some_and(|q| q.surely_accepts(body.as_bytes()))
            {
                asks_text = false;
            }
            if !asks_text && !asks_choice {
                return Ok(true);
            }
        } else if !asks_text
            && !asks_choice
            && node.strings.is_none()
            && node.format.is_none()
            && node.pattern.is_none()
        {
            return Ok(true);
        }
        sc.fill(&text);
        let decoded = sc.text.as_str().unwrap_or_default();
        if text.escaped {
            if node.format.is_some_and(|f| !f.accepts(decoded.as_bytes())) {
                return Ok(false);
            }
            if node.strings.as_ref().is_some_and(|o| !o.contains(decoded)) {
                return Ok(false);
            }
            if let Some(pattern) = &node.pattern {
                if !pattern.is_match(decoded).ok_or(Stop::Undecided)? {
                    return Ok(false);
                }
            }
        }
        let chosen =
            node.strings.is_some() || node.choice.as_ref().is_none_or(|v| v.is_valid(&sc.text));
        Ok(chosen && (!asks_text || node.text.as_ref().is_none_or(|v| v.is_valid(&sc.text))))
    }

    fn array(
        &self,
        node: &Node,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let start = cur.pos;
        let depth = enter(depth)?;
        cur.pos += 1;
        cur.ws();
        let mut ok = node.types & ARRAY != 0 && (node.choice.is_none() || node.compound_choice);
        let mut count: usize = 0;
        // Items matching `contains`.
        let mut contained: u64 = 0;
        if cur.peek() == Some(b']') {
            cur.pos += 1;
        } else {
            loop {
                if ok {
                    let schema = match node.prefix.get(count) {
                        Some(&id) => Some(id),
                        None => node.rest,
                    };
                    let item_at = cur.pos;
                    match schema {
                        Some(id) => ok = self.check(id, cur, sc, depth)?,
                        None if node.contains.is_none() => cur.skip(depth)?,
                        // Read by `contains` below.
                        None => {}
                    }
                    if let (true, Some(id)) = (ok, node.contains) {
                        let end = (cur.pos != item_at).then_some(cur.pos);
                        cur.pos = item_at;
                        if self.check(id, cur, sc, depth)? {
                            contained += 1;
                            // More than `maxContains`: the array fails.
                            ok = contained <= node.max_contains;
                        }
                        if let Some(end) = end {
                            cur.pos = end;
                        }
                    } else if cur.pos == item_at {
                        // Not read yet (the array failed at this item).
                        cur.skip(depth)?;
                    }
                } else {
                    cur.skip(depth)?;
                }
                count += 1;
                if !cur.next_or_close(b']')? {
                    break;
                }
            }
        }
        let count = count as u64;
        if !(ok && count >= node.min_items && count <= node.max_items) {
            return Ok(false);
        }
        if node.contains.is_some() && contained < node.min_contains {
            return Ok(false);
        }
        let unique = node.unique && count > 1;
        if unique && !node.compound_choice {
            if let Some(distinct) = unique_items(&cur.bytes[start..cur.pos], sc) {
                return Ok(distinct);
            }
        }
        if unique || node.compound_choice {
            return subvalue(node, &cur.bytes[start..cur.pos], unique);
        }
        Ok(true)
    }

    fn object(
        &self,
        node: &Node,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let start = cur.pos;
        if let Some(tape) = sc.tape(start) {
            return self.object_on_tape(node, start, tape, cur, sc, depth);
        }
        let mut entries = (sc.tape_at == start).then(|| sc.take_list());
        let depth = enter(depth)?;
        cur.pos += 1;
        cur.ws();
        let mut ok = node.types & OBJECT != 0 && (node.choice.is_none() || node.compound_choice);
        let mut present: u64 = 0;
        // Members as written, a repeated key counted each time.
        let mut members: u64 = 0;
        if cur.peek() == Some(b'}') {
            cur.pos += 1;
        } else {
            loop {
                let key_at = cur.pos;
                let (key, known) = match cur.known_key(node) {
                    Some((key, at)) => (key, Some(at)),
                    None => (cur.key()?, None),
                };
                let value_at = cur.pos;
                if !ok {
                    cur.skip(depth)?;
                } else if !self.member(
                    node,
                    key,
                    known,
                    key_at,
                    None,
                    cur,
                    sc,
                    depth,
                    &mut present,
                )? {
                    // Fails, unless a later member with the same key wins.
                    if let Some(end) = self.overridden(key, cur, sc, depth)? {
                        ok = false;
                        if entries.is_none() {
                            // No tape to record: the look-ahead read the
                            // rest of the object, nothing is left to do.
                            cur.pos = end;
                            return Ok(false);
                        }
                    }
                }
                if let Some((entries, _)) = &mut entries {
                    entries.push(Entry {
                        key_at,
                        key_end: key_at + 1 + key.body.len(),
                        escaped: key.escaped,
                        value_at,
                        value_end: cur.pos,
                    });
                }
                members += 1;
                if !cur.next_or_close(b'}')? {
                    break;
                }
            }
        }
        let end = cur.pos;
        if let Some((entries, slot)) = entries {
            sc.tapes.push(Tape {
                start,
                end,
                entries,
                slot,
            });
        }
        if !ok {
            return Ok(false);
        }
        self.object_end(node, start, end, present, members, cur, sc, depth)
    }

    /// [`JsonPlan::object`] on an object read before, from its tape.
    fn object_on_tape(
        &self,
        node: &Node,
        start: usize,
        tape: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let depth = enter(depth)?;
        let end = sc.tapes[tape].end;
        if !(node.types & OBJECT != 0 && (node.choice.is_none() || node.compound_choice)) {
            cur.pos = end;
            return Ok(false);
        }
        let members = sc.tapes[tape].entries.len();
        if node.additional.is_none()
            && node.patterns.is_empty()
            && node.names.is_none()
            && node.members.len() <= members.min(NAMES_LOOKED_UP)
        {
            // Few names against as many members or more (a branch's
            // `properties` or `required` on the whole object): each name
            // looked up among the members, not each member among the
            // names. Few: each absent name reads every key, so the work
            // is at most `NAMES_LOOKED_UP` passes over the keys, about
            // what one probe per key costs.
            match self.named_on_tape(node, tape, cur, sc, depth)? {
                Named::Passed(present) => {
                    cur.pos = end;
                    return self.object_end(
                        node,
                        start,
                        end,
                        present,
                        members as u64,
                        cur,
                        sc,
                        depth,
                    );
                }
                Named::Failed => {
                    cur.pos = end;
                    return Ok(false);
                }
                Named::Escaped => {}
            }
        }
        let mut present: u64 = 0;
        for i in 0..members {
            // (Tapes are only added to during a scan: `tape` stays.)
            let entry = sc.tapes[tape].entries[i];
            cur.pos = entry.key_at;
            let (key, known) = match cur.known_key(node) {
                Some((key, at)) => (key, Some(at)),
                None => {
                    // The key as its first read found it, not tokenized
                    // again.
                    let body = cur.bytes.get(entry.key_at + 1..entry.key_end);
                    let body = body.ok_or(Stop::NotJson)?;
                    // SAFETY: the first read checked these bytes to be a
                    // string token's body, which is UTF-8.
                    let body = unsafe { std::str::from_utf8_unchecked(body) };
                    cur.pos = entry.value_at;
                    let key = Str {
                        body,
                        escaped: entry.escaped,
                    };
                    (key, None)
                }
            };
            let at = entry.key_at;
            let value_end = Some(entry.value_end);
            // A failing member fails the object, unless a later member
            // has its key: its look-ahead is on the tape.
            if !self.member(
                node,
                key,
                known,
                at,
                value_end,
                cur,
                sc,
                depth,
                &mut present,
            )? && !self.overridden_on_tape(&key, tape, i, end, cur.bytes, sc)?
            {
                cur.pos = end;
                return Ok(false);
            }
        }
        cur.pos = end;
        self.object_end(node, start, end, present, members as u64, cur, sc, depth)
    }

    /// The members of the object on `tape` that `node` names, on a node
    /// that takes any other key (no `additionalProperties`,
    /// `patternProperties` or `propertyNames`): for each name, the last
    /// member with that key (the one a parsed object keeps) checked
    /// against the name's subschema. Leaves the cursor anywhere.
    fn named_on_tape(
        &self,
        node: &Node,
        tape: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<Named> {
        let bytes = cur.bytes;
        let mut present: u64 = 0;
        for member in &node.members {
            let name = member.name.as_bytes();
            let entry = match last_member(bytes, &sc.tapes[tape].entries, name) {
                Last::Escaped => return Ok(Named::Escaped),
                Last::Absent => continue,
                Last::Found(entry) => entry,
            };
            present |= member.bit;
            if let Some(id) = member.schema {
                cur.pos = entry.value_at;
                if !self.check(id, cur, sc, depth)? {
                    return Ok(Named::Failed);
                }
            }
        }
        Ok(Named::Passed(present))
    }

    /// The keywords of an object read to `end` whose members all passed:
    /// `required`, dependencies, the counts, `enum`.
    #[allow(clippy::too_many_arguments)]
    fn object_end(
        &self,
        node: &Node,
        start: usize,
        end: usize,
        present: u64,
        members: u64,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        if members < node.min_properties {
            return Ok(false);
        }
        if present & node.required != node.required {
            return Ok(false);
        }
        for &(trigger, needed) in &node.dependent_required {
            if present & trigger != 0 && present & needed != needed {
                return Ok(false);
            }
        }
        if !node.dependent_schemas.is_empty() {
            for &(trigger, id) in &node.dependent_schemas {
                if present & trigger != 0 {
                    cur.pos = start;
                    if !self.check(id, cur, sc, depth - 1)? {
                        cur.pos = end;
                        return Ok(false);
                    }
                }
            }
            cur.pos = end;
        }
        // Distinct keys may be fewer than the members: past one member,
        // `minProperties` asks the parsed object, as does `maxProperties`
        // when the members alone exceed it.
        let counts = (node.min_properties > 1) || members > node.max_properties;
        if counts && !node.compound_choice {
            if let Some(distinct) = distinct_keys(&cur.bytes[start..end], sc) {
                return Ok(distinct >= node.min_properties && distinct <= node.max_properties);
            }
        }
        if counts || node.compound_choice {
            return subvalue(node, &cur.bytes[start..end], counts);
        }
        Ok(true)
    }

    /// One member: its key (at `key_at`) and its value (at the cursor),
    /// against the subschemas its key selects. The common shape (no
    /// `patternProperties`, no `propertyNames`) is inlined into the object
    /// loops; the rest is [`JsonPlan::member_by_key`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn member(
        &self,
        node: &Node,
        key: Str<'_>,
        known: Option<usize>,
        key_at: usize,
        value_end: Option<usize>,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        present: &mut u64,
    ) -> Scan<bool> {
        if !node.patterns.is_empty() || node.names.is_some() {
            return self
                .member_by_key(node, key, known, key_at, value_end, cur, sc, depth, present);
        }
        // The common shape: at most one subschema applies, by name.
        let found = match node.matched(known, key.escaped) {
            Some(found) => found,
            None if !key.escaped => node.member_named(key.body),
            None => {
                sc.fill(&key);
                node.member_named(sc.text.as_str().unwrap_or_default())
            }
        };
        let mut schema = node.additional;
        if let Some(m) = found {
            *present |= m.bit;
            // A name only `required` knows is still additional.
            if m.schema.is_some() {
                schema = m.schema;
            }
        }
        match schema {
            Some(id) => self.check(id, cur, sc, depth),
            None => {
                match value_end {
                    Some(end) => cur.pos = end,
                    None => cur.skip(depth)?,
                }
                Ok(true)
            }
        }
    }

    /// [`JsonPlan::member`] on a node with `patternProperties` or
    /// `propertyNames`: a key may select several subschemas, and is itself
    /// checked.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn member_by_key(
        &self,
        node: &Node,
        key: Str<'_>,
        known: Option<usize>,
        key_at: usize,
        value_end: Option<usize>,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        present: &mut u64,
    ) -> Scan<bool> {
        // Which subschemas apply, decided before any value check reuses
        // the scratch text.
        let name: &str = if key.escaped {
            sc.fill(&key);
            sc.text.as_str().unwrap_or_default()
        } else {
            key.body
        };
        let mut property = None;
        let found = node
            .matched(known, key.escaped)
            .unwrap_or_else(|| node.member_named(name));
        if let Some(m) = found {
            *present |= m.bit;
            property = m.schema;
        }
        let mut matched: u64 = 0;
        for (i, (pattern, _)) in node.patterns.iter().enumerate() {
            if pattern.is_match(name).ok_or(Stop::Undecided)? {
                matched |= 1 << i;
            }
        }
        let mut ok = true;
        if let Some(names) = node.names {
            let mut at = Cursor {
                bytes: cur.bytes,
                pos: key_at,
            };
            ok = self.check(names, &mut at, sc, depth)?;
        }
        let value_at = cur.pos;
        let mut end = None;
        let mut apply = |id: u32, cur: &mut Cursor<'_>, sc: &mut Scratch| -> Scan<bool> {
            cur.pos = value_at;
            let ok = self.check(id, cur, sc, depth)?;
            end = Some(cur.pos);
            Ok(ok)
        };
        if ok {
            if let Some(id) = property {
                ok = apply(id, cur, sc)?;
            }
        }
        for (i, &(_, id)) in node.patterns.iter().enumerate() {
            if ok && matched & (1 << i) != 0 {
                ok = apply(id, cur, sc)?;
            }
        }
        if ok && property.is_none() && matched == 0 {
            if let Some(id) = node.additional {
                ok = apply(id, cur, sc)?;
            }
        }
        match (end, value_end) {
            (Some(end), _) | (None, Some(end)) => cur.pos = end,
            (None, None) => {
                cur.pos = value_at;
                cur.skip(depth)?;
            }
        }
        Ok(ok)
    }

    /// [`JsonPlan::overridden`] for member `i` of the object on `tape`
    /// (ending at `end`), its key `key`: whether a later member has that
    /// key, compared on the tape, nothing reread. Charged to the same
    /// budget as the bytes from the member's value to where the search
    /// stopped, so that many failing members each repeated at the end
    /// cost what reading ahead would (`jsonschema` decides past it).
    fn overridden_on_tape(
        &self,
        key: &Str<'_>,
        tape: usize,
        i: usize,
        end: usize,
        bytes: &[u8],
        sc: &mut Scratch,
    ) -> Scan<bool> {
        let entries = &sc.tapes[tape].entries;
        let from = entries[i].value_end;
        let found = later_same_key(bytes, &entries[i + 1..], key);
        let to = found.map_or(end, |j| entries[i + 1 + j].key_end);
        sc.charge(to.saturating_sub(from))?;
        Ok(found.is_some())
    }

    /// Whether a later member of the object (the cursor after the current
    /// member's value) has the key `key`: the current one then does not
    /// count (`None`). Else `Some` of where the object ends (past its
    /// closing brace), the rest of it read to get there (its syntax
    /// checked). Reads ahead within the scratch budget.
    fn overridden(
        &self,
        key: Str<'_>,
        cur: &Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<Option<usize>> {
        let mut ahead = cur.clone();
        let found = loop {
            if !ahead.next_or_close(b'}')? {
                break false;
            }
            let other = ahead.key()?;
            if other.same_text(&key) {
                break true;
            }
            ahead.skip(depth)?;
        };
        sc.charge(ahead.pos - cur.pos)?;
        Ok((!found).then_some(ahead.pos))
    }
}

/// A value against a node that asserts nothing but its `type` (`types`:
/// all of them for `true`, none for `false`), read once.
#[inline]
fn leaf(types: u8, draft4_integers: bool, cur: &mut Cursor<'_>, depth: usize) -> Scan<bool> {
    match cur.peek() {
        Some(b'"') => cur.string().map(|_| types & STRING != 0),
        Some(b'-' | b'0'..=b'9') => {
            let n = cur.number().map_err(|NotJson| Stop::NotJson)?;
            if types & NUMBER != 0 {
                return Ok(true);
            }
            if types & INTEGER == 0 {
                return Ok(false);
            }
            let n = Number::from(n);
            Ok(if draft4_integers {
                n.is_written_as_integer()
            } else {
                n.is_integer()
            })
        }
        Some(b't') => cur.literal(b"true").map(|()| types & BOOLEAN != 0),
        Some(b'f') => cur.literal(b"false").map(|()| types & BOOLEAN != 0),
        Some(b'n') => cur.literal(b"null").map(|()| types & NULL != 0),
        Some(b'[') => cur.skip(depth).map(|()| types & ARRAY != 0),
        Some(b'{') => cur.skip(depth).map(|()| types & OBJECT != 0),
        _ => Err(Stop::NotJson),
    }
}

/// The keywords left to `jsonschema` on one array or object (its bytes,
/// already checked to be JSON): `enum`/`const` of arrays or objects, and
/// when `extra`, [`Node::extra`]. Parsed apart from the payload, the
/// subvalue is the `Value` serde_json would have built for it there.
#[cold]
#[inline(never)]
fn subvalue(node: &Node, bytes: &[u8], extra: bool) -> Scan<bool> {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        // Not expected (the scanner read it as JSON): `jsonschema` decides.
        return Err(Stop::Unsure);
    };
    if node.compound_choice && !node.choice.as_ref().is_none_or(|v| v.is_valid(&value)) {
        return Ok(false);
    }
    Ok(!extra || node.extra.as_ref().is_none_or(|v| v.is_valid(&value)))
}

/// What an object's keys say of an index's branches: the names it has
/// ([`Branches::keys`] bits) and the branches among the first 64 that
/// take all of its keys.
#[derive(Clone, Copy)]
struct Fits {
    present: u64,
    taking: u64,
}

impl Fits {
    /// Nothing known: every branch may pass.
    const ANY: Fits = Fits {
        present: u64::MAX,
        taking: u64::MAX,
    };

    /// Whether branch `b` may pass.
    #[inline]
    fn admits(self, index: &Branches, b: u32) -> bool {
        index.needs[b as usize] & !self.present == 0 && (b >= 64 || self.taking & (1 << b) != 0)
    }
}

/// The text of the key `entry` records: its bytes when it holds no
/// escape, else decoded into [`Scratch::text`].
fn key_text<'s>(bytes: &'s [u8], entry: &Entry, sc: &'s mut Scratch) -> &'s str {
    let body = &bytes[entry.key_at + 1..entry.key_end];
    // SAFETY: the tape's read checked these bytes to be a string token's
    // body, which is UTF-8.
    let body = unsafe { std::str::from_utf8_unchecked(body) };
    if !entry.escaped {
        return body;
    }
    sc.fill(&Str {
        body,
        escaped: true,
    });
    sc.text.as_str().unwrap_or_default()
}

/// The member of key `name` a parsed object keeps, on an object's tape.
enum Last {
    /// The last entry with that key.
    Found(Entry),
    /// No entry has it.
    Absent,
    /// A key holding an escape comes after any entry written as the name:
    /// it may be the name, and bytes cannot tell.
    Escaped,
}

/// [`Last`] of `name` among `entries`, from the last back (an unescaped
/// key's body is its text: equal bytes, equal keys).
fn last_member(bytes: &[u8], entries: &[Entry], name: &[u8]) -> Last {
    for entry in entries.iter().rev() {
        if entry.escaped {
            return Last::Escaped;
        }
        if bytes.get(entry.key_at + 1..entry.key_end) == Some(name) {
            return Last::Found(*entry);
        }
    }
    Last::Absent
}

/// The first member among `later` (of an object's tape) with the key
/// `key`, if any: the member of that key read before them then does not
/// count. Their keys are on the tape, their values are not read again.
fn later_same_key(bytes: &[u8], later: &[Entry], key: &Str<'_>) -> Option<usize> {
    later.iter().position(|entry| {
        let body = &bytes[entry.key_at + 1..entry.key_end];
        if !entry.escaped && !key.escaped {
            return body == key.body.as_bytes();
        }
        // (The tape's read checked the body to be UTF-8.)
        std::str::from_utf8(body).is_ok_and(|body| {
            Str {
                body,
                escaped: entry.escaped,
            }
            .same_text(key)
        })
    })
}

/// Whether two members of an object (of tape `tape`) have the same key.
/// Compared pairwise up to 16 members; past that sorted by their bytes, or,
/// when a key holds an escape, `Stop::Unsure` (`jsonschema` decides).
fn repeats_a_key(bytes: &[u8], tape: usize, sc: &mut Scratch) -> Scan<bool> {
    let entries = &sc.tapes[tape].entries;
    let key = |e: &Entry| {
        let body = &bytes[e.key_at + 1..e.key_end];
        // SAFETY: as in `key_text`.
        Str {
            body: unsafe { std::str::from_utf8_unchecked(body) },
            escaped: e.escaped,
        }
    };
    if entries.len() <= 16 {
        for (i, a) in entries.iter().enumerate() {
            let a = key(a);
            if entries[..i].iter().any(|b| key(b).same_text(&a)) {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    if entries.iter().any(|e| e.escaped) {
        return Err(Stop::Unsure);
    }
    let mut keys = std::mem::take(&mut sc.items);
    keys.clear();
    keys.extend(entries.iter().map(|e| Item {
        kind: 0,
        bits: 0,
        at: e.key_at + 1,
        len: e.key_end - e.key_at - 1,
    }));
    let text = |item: &Item| &bytes[item.at..item.at + item.len];
    keys.sort_unstable_by(|a, b| text(a).cmp(text(b)));
    let repeated = keys.windows(2).any(|p| text(&p[0]) == text(&p[1]));
    sc.items = keys;
    Ok(repeated)
}

/// What [`JsonPlan::named_on_tape`] found.
enum Named {
    /// Every named member passed; the names' presence bits.
    Passed(u64),
    /// A named member failed its subschema.
    Failed,
    /// A key holding an escape may be one of the names ([`Last::Escaped`]):
    /// read the tape member by member.
    Escaped,
}

/// The branches of a [`Keyed`] table a value is keyed to.
#[derive(Clone, Copy)]
enum Picked<'p> {
    Strings(&'p [(Box<str>, u32)]),
    Integers(&'p [(i128, u32)]),
    Nothing,
}

impl<'p> Picked<'p> {
    #[inline]
    #[allow(clippy::type_complexity)]
    fn branches(self) -> impl Iterator<Item = u32> + 'p {
        let (strings, integers) = match self {
            Picked::Strings(s) => (s, &[][..]),
            Picked::Integers(i) => (&[][..], i),
            Picked::Nothing => (&[][..], &[][..]),
        };
        strings
            .iter()
            .map(|e| e.1)
            .chain(integers.iter().map(|e| e.1))
    }
}

/// The branches of `by` a string or an integer value (the cursor on it)
/// may pass, as (keyed, rest) (see `JsonPlan::candidates`), the cursor
/// left after a scalar; `None` when the value's kind or form does not
/// discriminate (an escaped string, a float, an integer past 2^53, any
/// other value).
#[inline]
fn pick<'p>(by: &'p Keyed, cur: &mut Cursor<'_>) -> Scan<Option<(Picked<'p>, &'p [u32])>> {
    Ok(match cur.peek() {
        Some(b'"') => {
            let text = cur.string()?;
            if text.escaped {
                return Ok(None);
            }
            Some((
                Picked::Strings(keyed(&by.strings, text.body)),
                &by.any_string[..],
            ))
        }
        Some(b'-' | b'0'..=b'9') => {
            let n = match cur.number().map_err(|NotJson| Stop::NotJson)? {
                Num::Unsigned(n) if n <= EXACT => i128::from(n),
                Num::Signed(n) if n.unsigned_abs() <= EXACT => i128::from(n),
                _ => return Ok(None),
            };
            Some((
                Picked::Integers(keyed(&by.integers, &n)),
                &by.any_integer[..],
            ))
        }
        _ => None,
    })
}

/// The type bits ([`STRING`], ...) a value starting with `first` may have:
/// none for a byte no JSON value starts with.
#[inline]
fn value_type(first: Option<u8>) -> u8 {
    match first {
        Some(b'"') => STRING,
        Some(b'-' | b'0'..=b'9') => NUMBER | INTEGER,
        Some(b't' | b'f') => BOOLEAN,
        Some(b'n') => NULL,
        Some(b'[') => ARRAY,
        Some(b'{') => OBJECT,
        _ => 0,
    }
}

/// What [`JsonPlan::scan_outcome`] found.
pub(super) enum Scanned {
    Valid,
    Invalid,
    /// Ask `jsonschema` (the scanner could not tell within its budget, or
    /// a backtracking match ran out of its own).
    Unsure,
}

/// Whether `payload` is JSON as serde_json reads it.
#[cold]
fn is_json(payload: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(payload).is_ok()
}

/// `uniqueItems` on the bytes of an array (checked to be JSON): `None` when
/// a number is not exactly an `f64`, or two arrays or objects hash alike
/// ([`hash_value`]; the parsed array is asked then). Numbers are equal by
/// value (`1` and `1.0`, `0` and `-0.0`), strings by their text (decoded
/// when they hold an escape: linutil's scripts), arrays and objects by a
/// hash equal values share, as `jsonschema` compares them: items of
/// different hashes differ.
fn unique_items(bytes: &[u8], sc: &mut Scratch) -> Option<bool> {
    const NUM: u8 = 0;
    const STR: u8 = 1;
    const TRUE: u8 = 2;
    const FALSE: u8 = 3;
    const NIL: u8 = 4;
    const COMPOUND: u8 = 5;
    let items = &mut sc.items;
    items.clear();
    let unescaped = &mut sc.unescaped;
    unescaped.clear();
    let decoding = &mut sc.decoding;
    let mut cur = Cursor { bytes, pos: 1 };
    cur.ws();
    if cur.peek() == Some(b']') {
        return Some(true);
    }
    loop {
        let at = cur.pos;
        let item = match cur.peek()? {
            b'"' => {
                let text = cur.string().ok()?;
                if text.escaped {
                    text.decode_into(decoding);
                    let at = unescaped.len();
                    unescaped.push_str(decoding);
                    Item {
                        kind: STR,
                        bits: 1,
                        at,
                        len: decoding.len(),
                    }
                } else {
                    Item {
                        kind: STR,
                        bits: 0,
                        at: at + 1,
                        len: text.body.len(),
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let n = Number::from(cur.number().ok()?);
                let x = exact_f64(&n)?;
                // `0.0 == -0.0`: one key for both.
                let x = if x == 0.0 { 0.0 } else { x };
                Item {
                    kind: NUM,
                    bits: x.to_bits(),
                    at: 0,
                    len: 0,
                }
            }
            b't' => {
                cur.literal(b"true").ok()?;
                Item {
                    kind: TRUE,
                    bits: 0,
                    at: 0,
                    len: 0,
                }
            }
            b'f' => {
                cur.literal(b"false").ok()?;
                Item {
                    kind: FALSE,
                    bits: 0,
                    at: 0,
                    len: 0,
                }
            }
            b'n' => {
                cur.literal(b"null").ok()?;
                Item {
                    kind: NIL,
                    bits: 0,
                    at: 0,
                    len: 0,
                }
            }
            b'[' | b'{' => Item {
                kind: COMPOUND,
                bits: hash_value(&mut cur, 0, decoding)?,
                at: 0,
                len: 0,
            },
            _ => return None,
        };
        items.push(item);
        if !cur.next_or_close(b']').ok()? {
            break;
        }
    }
    let unescaped = unescaped.as_bytes();
    let text = |item: &Item| match (item.kind, item.bits) {
        (STR, 1) => &unescaped[item.at..item.at + item.len],
        _ => &bytes[item.at..item.at + item.len],
    };
    // A string's `bits` only says where its text is.
    let bits = |item: &Item| if item.kind == STR { 0 } else { item.bits };
    let same = |a: &Item, b: &Item| a.kind == b.kind && bits(a) == bits(b) && text(a) == text(b);
    // Two arrays or objects of one hash may be equal or collide: only
    // `jsonschema` can tell.
    let verdict = |a: &Item| {
        if a.kind == COMPOUND {
            None
        } else {
            Some(false)
        }
    };
    if items.len() <= 16 {
        for (i, a) in items.iter().enumerate() {
            if items[..i].iter().any(|b| same(a, b)) {
                return verdict(a);
            }
        }
        return Some(true);
    }
    items.sort_unstable_by(|a, b| (a.kind, bits(a), text(a)).cmp(&(b.kind, bits(b), text(b))));
    match items.windows(2).find(|pair| same(&pair[0], &pair[1])) {
        Some(pair) => verdict(&pair[0]),
        None => Some(true),
    }
}

/// A hash of the value at the cursor (checked to be JSON) that values
/// equal as JSON Schema defines it share (`1` and `1.0`, members in any
/// order), so that values of different hashes differ; `None` for a value
/// the bytes cannot hash so (a number not exactly an `f64`, an object
/// repeating a key or of more than 16 members, more than [`MAX_NESTING`]
/// deep). A string or key with an escape is hashed decoded (`decoding`
/// its buffer).
fn hash_value(cur: &mut Cursor<'_>, depth: usize, decoding: &mut String) -> Option<u64> {
    if depth >= MAX_NESTING {
        return None;
    }
    Some(match cur.peek()? {
        b'"' => {
            let text = cur.string().ok()?;
            if text.escaped {
                text.decode_into(decoding);
                hash_bytes(1, decoding.as_bytes())
            } else {
                hash_bytes(1, text.body.as_bytes())
            }
        }
        b'-' | b'0'..=b'9' => {
            let n = Number::from(cur.number().ok()?);
            let x = exact_f64(&n)?;
            let x = if x == 0.0 { 0.0 } else { x };
            finish(mix(2, x.to_bits()))
        }
        b't' => {
            cur.literal(b"true").ok()?;
            3
        }
        b'f' => {
            cur.literal(b"false").ok()?;
            4
        }
        b'n' => {
            cur.literal(b"null").ok()?;
            5
        }
        b'[' => {
            cur.pos += 1;
            cur.ws();
            let mut h = 6;
            if cur.peek() == Some(b']') {
                cur.pos += 1;
            } else {
                loop {
                    h = mix(h, hash_value(cur, depth + 1, decoding)?);
                    if !cur.next_or_close(b']').ok()? {
                        break;
                    }
                }
            }
            finish(h)
        }
        b'{' => {
            cur.pos += 1;
            cur.ws();
            // Members in any order: their hashes are added.
            let mut keys = [0u64; 16];
            let mut n = 0;
            let mut sum = 0u64;
            if cur.peek() == Some(b'}') {
                cur.pos += 1;
            } else {
                loop {
                    let key = cur.key().ok()?;
                    if n == keys.len() {
                        return None;
                    }
                    let k = if key.escaped {
                        key.decode_into(decoding);
                        hash_bytes(7, decoding.as_bytes())
                    } else {
                        hash_bytes(7, key.body.as_bytes())
                    };
                    // A repeated key (or two of one hash): the parsed
                    // object keeps the last, which the sum cannot.
                    if keys[..n].contains(&k) {
                        return None;
                    }
                    keys[n] = k;
                    n += 1;
                    sum = sum.wrapping_add(finish(mix(k, hash_value(cur, depth + 1, decoding)?)));
                    if !cur.next_or_close(b'}').ok()? {
                        break;
                    }
                }
            }
            finish(mix(8 ^ ((n as u64) << 8), sum))
        }
        _ => return None,
    })
}

#[inline]
fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(31)
}

/// splitmix64's finalizer.
#[inline]
fn finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn hash_bytes(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = mix(seed, bytes.len() as u64);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        h = mix(h, u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    finish(mix(h, u64::from_le_bytes(last)))
}

/// How many distinct keys the object at the start of `bytes` (checked to
/// be JSON) has, as its parsed `Value` would: `None` when a key holds an
/// escape (the parsed object is asked then). Reads keys, skips values.
fn distinct_keys(bytes: &[u8], sc: &mut Scratch) -> Option<u64> {
    let keys = &mut sc.items;
    keys.clear();
    let mut cur = Cursor { bytes, pos: 1 };
    cur.ws();
    if cur.peek() == Some(b'}') {
        return Some(0);
    }
    loop {
        let key = cur.key().ok()?;
        if key.escaped {
            return None;
        }
        let body_at = key.body.as_ptr() as usize - bytes.as_ptr() as usize;
        keys.push(Item {
            kind: 0,
            bits: 0,
            at: body_at,
            len: key.body.len(),
        });
        cur.skip(0).ok()?;
        if !cur.next_or_close(b'}').ok()? {
            break;
        }
    }
    let text = |item: &Item| &bytes[item.at..item.at + item.len];
    let n = keys.len();
    if n <= 16 {
        let repeated = (0..n)
            .filter(|&i| keys[..i].iter().any(|k| text(k) == text(&keys[i])))
            .count();
        return Some((n - repeated) as u64);
    }
    keys.sort_unstable_by(|a, b| text(a).cmp(text(b)));
    let repeated = keys
        .windows(2)
        .filter(|p| text(&p[0]) == text(&p[1]))
        .count();
    Some((n - repeated) as u64)
}

/// `x` within exact bounds.
#[inline]
fn within(bounds: &[(Bound, f64)], x: f64) -> bool {
    bounds.iter().all(|&(kind, limit)| match kind {
        Bound::Minimum => x >= limit,
        Bound::Maximum => x <= limit,
        Bound::ExclusiveMinimum => x > limit,
        Bound::ExclusiveMaximum => x < limit,
    })
}

/// A null or a boolean against `type` and `enum`/`const`.
#[inline]
fn scalar(node: &Node, bit: u8, value: impl FnOnce() -> Value) -> bool {
    node.types & bit != 0 && node.choice.as_ref().is_none_or(|v| v.is_valid(&value()))
}

fn new_scratch() -> Scratch {
    Scratch {
        text: Value::String(String::new()),
        budget: 0,
        frames: 0,
        items: Vec::new(),
        unescaped: String::new(),
        decoding: String::new(),
        tape_at: usize::MAX,
        tapes: Vec::new(),
        pool: Vec::new(),
        taken: 0,
        marks: Vec::new(),
        spots: Vec::new(),
    }
}
