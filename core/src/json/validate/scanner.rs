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
//! objects nested less than [`MAX_NESTING`](super::MAX_NESTING) deep.
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
//!
//! # Where each concern lives
//!
//! This file holds the walk: a value checked against its node
//! ([`JsonPlan::check`]) by its own keywords, for its type. Beside it:
//! `scratch.rs` (the buffers a thread reuses, the tapes, the budget),
//! `objects.rs` (members against a node), `tape.rs` (an object read
//! again from its tape), `applicators.rs` (in-place applicators and the
//! branch indexes), `unevaluated.rs` (the marking walk of
//! `unevaluatedProperties`/`unevaluatedItems`), `unique.rs` (values
//! compared on the bytes).

mod applicators;
pub(crate) mod generated;
mod objects;
mod scratch;
mod tape;
mod unevaluated;
mod unique;

use jsonschema::json::JsonNumber as _;
use serde_json::{Number, Value};

use self::scratch::{new_scratch, Scratch, SCRATCH};
use self::unique::unique_items;
use super::plan::{
    exact_f64, Bound, JsonPlan, Kind, Node, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING,
};
use super::tokenizer::{enter, Cursor, NotJson, Scan, Stop, Str};

/// The most subschemas one scan checks nested in one another that are not
/// `simple` (those read a value again in place); `simple` ones recurse
/// only into the payload's nesting, under [`MAX_NESTING`](super::MAX_NESTING) (128). A debug
/// build takes at most about 1.5 KiB of stack a subschema (`check`, `own`,
/// `object`, `member`), so the two keep a scan under about 400 KiB; a
/// deeper path is answered by `jsonschema`, within the analysis' bound.
const MAX_FRAMES: usize = 128;

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
        } else if node.type_only {
            // The same, once the first byte shows the type.
            if node.types & value_type(first) == 0 {
                cur.skip(depth)?;
                return Ok(false);
            }
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
                if node.numeric.is_none()
                    && node.choice.is_none()
                    && (node.types & NUMBER != 0 || node.types & INTEGER == 0)
                {
                    // The type alone decides: the value is not needed.
                    cur.skip_number().map_err(|NotJson| Stop::NotJson)?;
                    return Ok(node.types & NUMBER != 0);
                }
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
                Ok(number_keywords(node, n))
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
}

/// A value against a node that asserts nothing but its `type` (`types`:
/// all of them for `true`, none for `false`), read once.
#[inline]
fn leaf(types: u8, draft4_integers: bool, cur: &mut Cursor<'_>, depth: usize) -> Scan<bool> {
    match cur.peek() {
        Some(b'"') => cur.string().map(|_| types & STRING != 0),
        Some(b'-' | b'0'..=b'9') => {
            if types & NUMBER != 0 || types & INTEGER == 0 {
                // The type alone decides: the value is not needed.
                cur.skip_number().map_err(|NotJson| Stop::NotJson)?;
                return Ok(types & NUMBER != 0);
            }
            let n = cur.number().map_err(|NotJson| Stop::NotJson)?;
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

/// A number of the node's type against its bounds, `multipleOf` and
/// `enum`/`const`.
#[inline]
fn number_keywords(node: &Node, n: Number) -> bool {
    if node.numeric.is_none() && node.choice.is_none() {
        return true;
    }
    let bounded = match (&node.bounds, exact_f64(&n)) {
        (Some(bounds), Some(x)) => within(bounds, x),
        _ => {
            let value = Value::Number(n.clone());
            node.numeric.as_ref().is_none_or(|v| v.is_valid(&value))
        }
    };
    bounded
        && node
            .choice
            .as_ref()
            .is_none_or(|v| v.is_valid(&Value::Number(n)))
}

/// A null or a boolean against `type` and `enum`/`const`.
#[inline]
fn scalar(node: &Node, bit: u8, value: impl FnOnce() -> Value) -> bool {
    node.types & bit != 0 && node.choice.as_ref().is_none_or(|v| v.is_valid(&value()))
}
