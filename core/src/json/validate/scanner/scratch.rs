//! The buffers one thread reuses from payload to payload ([`Scratch`]),
//! the tapes of the objects a scan reads more than once ([`Tape`]), and
//! the look-ahead budget past which the scanner says it cannot tell.

use std::cell::RefCell;

use serde_json::Value;

use crate::json::validate::tokenizer::{Scan, Stop, Str};

/// Buffers one thread reuses from payload to payload: after the first use
/// (and the longest escaped string), a scan allocates nothing.
pub(super) struct Scratch {
    /// A `Value::String` the borrowed validators are asked about.
    pub(super) text: Value,
    /// Bytes of look-ahead left for duplicate keys.
    pub(super) budget: usize,
    /// Subschemas being checked, nested.
    pub(super) frames: usize,
    /// The items of an array `uniqueItems` compares on the bytes.
    pub(super) items: Vec<Item>,
    /// The text of those of its strings (and keys) that hold an escape,
    /// decoded: one after another, and the last one decoded.
    pub(super) unescaped: String,
    pub(super) decoding: String,
    /// Where an object starts that is about to be read more than once (by
    /// a node's own keywords and its in-place applicators, or by several
    /// branches): its first read records a [`Tape`].
    pub(super) tape_at: usize,
    /// The tapes of this scan's objects read more than once.
    pub(super) tapes: Vec<Tape>,
    /// Emptied member lists, reused: the `n`th object of a scan to record
    /// a tape takes slot `n`, and gives its list back there.
    pub(super) pool: Vec<Vec<Entry>>,
    /// The pool's slots taken by this scan.
    pub(super) taken: usize,
    /// Which members or items `unevaluated*` found evaluated, a region per
    /// check in progress (nested checks stack theirs above).
    pub(super) marks: Vec<bool>,
    /// Where the items of the arrays `unevaluatedItems` checks start, a
    /// region per check in progress.
    pub(super) spots: Vec<usize>,
}

/// One object's members, recorded by its first read: a later read finds
/// each key and value without tokenizing the values it does not check,
/// and stops at the first failing member.
pub(super) struct Tape {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) entries: Vec<Entry>,
    /// The pool's slot its list came from.
    pub(super) slot: usize,
}

/// One member of a [`Tape`]: where its key starts (its opening quote) and
/// ends (its closing quote), whether it holds an escape, and where its
/// value starts and ends.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) key_at: usize,
    pub(super) key_end: usize,
    pub(super) escaped: bool,
    pub(super) value_at: usize,
    pub(super) value_end: usize,
}

impl Entry {
    /// The member whose key (its opening quote at `key_at`) is `key`, its
    /// value from `value_at` to `value_end`.
    #[inline]
    pub(super) fn new(key_at: usize, key: &Str<'_>, value_at: usize, value_end: usize) -> Entry {
        Entry {
            key_at,
            key_end: key_at + 1 + key.body.len(),
            escaped: key.escaped,
            value_at,
            value_end,
        }
    }

    /// Its key, as read from `bytes` (the payload it was recorded on).
    #[inline]
    pub(super) fn key<'b>(&self, bytes: &'b [u8]) -> Str<'b> {
        let body = &bytes[self.key_at + 1..self.key_end];
        Str {
            // SAFETY: the key's read checked these bytes to be a string
            // token's body, which is UTF-8.
            body: unsafe { std::str::from_utf8_unchecked(body) },
            escaped: self.escaped,
        }
    }
}

/// The most tapes a lookup searches, newest first (older objects are read
/// again without one).
pub(super) const TAPES_SEARCHED: usize = 64;

impl Scratch {
    /// The tape of the object at `start`, if it has one.
    #[inline]
    pub(super) fn tape(&self, start: usize) -> Option<usize> {
        let newest = self.tapes.len();
        (newest.saturating_sub(TAPES_SEARCHED)..newest)
            .rev()
            .find(|&t| self.tapes[t].start == start)
    }

    /// Back to no tapes, their lists kept for reuse.
    #[inline]
    pub(super) fn forget_tapes(&mut self) {
        self.tape_at = usize::MAX;
        self.taken = 0;
        if self.tapes.is_empty() {
            // The common case (no object read twice): nothing to give back.
            return;
        }
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
    pub(super) fn charge(&mut self, read: usize) -> Scan<()> {
        self.budget = self.budget.checked_sub(read).ok_or(Stop::Unsure)?;
        Ok(())
    }

    /// A list [`Scratch::take_list`] gave, back unused (nothing taken
    /// since).
    #[inline]
    pub(super) fn give_back(&mut self, entries: Vec<Entry>, slot: usize) {
        debug_assert_eq!(slot + 1, self.taken);
        self.taken = slot;
        if let Some(pooled) = self.pool.get_mut(slot) {
            *pooled = entries;
        }
    }

    /// An empty member list for the next tape, and its slot in the pool.
    #[inline]
    pub(super) fn take_list(&mut self) -> (Vec<Entry>, usize) {
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
/// array's or object's hash ([`hash_value`](super::unique::hash_value)), and a string's unescaped body
/// (its place in the payload, or in [`Scratch::unescaped`] when `bits` is
/// 1: it held an escape).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Item {
    pub(super) kind: u8,
    pub(super) bits: u64,
    pub(super) at: usize,
    pub(super) len: usize,
}

impl Scratch {
    /// Puts the text of `token` in [`Scratch::text`], reusing its buffer.
    pub(super) fn fill(&mut self, token: &Str<'_>) {
        let mut text = match std::mem::take(&mut self.text) {
            Value::String(text) => text,
            _ => String::new(),
        };
        token.decode_into(&mut text);
        self.text = Value::String(text);
    }
}

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = const {
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

pub(super) fn new_scratch() -> Scratch {
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
