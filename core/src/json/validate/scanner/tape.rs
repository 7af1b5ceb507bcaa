//! Reading an object again from its tape: recording one
//! ([`JsonPlan::tape_of`]), a probe's one member looked up on it, and the
//! key comparisons the tape answers without tokenizing (the last member of
//! a key, a later member with the same key, a key repeated).

use crate::json::validate::plan::{JsonPlan, Node, Probe};
use crate::json::validate::tokenizer::{enter, Cursor, Scan, Stop, Str};

use super::scratch::{Entry, Item, Scratch, Tape};

/// The text of the key `entry` records: its bytes when it holds no
/// escape, else decoded into [`Scratch::text`].
pub(super) fn key_text<'s>(bytes: &'s [u8], entry: &Entry, sc: &'s mut Scratch) -> &'s str {
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

/// What [`JsonPlan::record_tape`] read: the object's tape (its index in
/// [`Scratch::tapes`]), or where the named member's value starts.
pub(super) enum Recorded {
    Tape(usize),
    Member(usize),
}

/// The member of key `name` a parsed object keeps, on an object's tape.
pub(super) enum Last {
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
pub(super) fn last_member(bytes: &[u8], entries: &[Entry], name: &[u8]) -> Last {
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
pub(super) fn later_same_key(bytes: &[u8], later: &[Entry], key: &Str<'_>) -> Option<usize> {
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
pub(super) fn repeats_a_key(bytes: &[u8], tape: usize, sc: &mut Scratch) -> Scan<bool> {
    let entries = &sc.tapes[tape].entries;
    let key = |e: &Entry| e.key(bytes);
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

impl JsonPlan {
    /// A [`Probe`] node on the object at the cursor, read before (its tape
    /// `tape`): its one member looked up on the tape (the last of that
    /// key, the one a parsed object keeps) and its value checked alone.
    /// Leaves the cursor after the object.
    pub(super) fn probe(
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

    /// The tape of the object at `start` (read before): its own, or one
    /// recorded now when it has none (or it is past the searched ones).
    pub(super) fn tape_of(
        &self,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<usize> {
        if let Some(tape) = sc.tape(start) {
            return Ok(tape);
        }
        match self.record_tape(start, cur, sc, depth, None)? {
            Recorded::Tape(tape) => Ok(tape),
            // (Not reached: without a name, no member stops the read.)
            Recorded::Member(_) => Err(Stop::Unsure),
        }
    }

    /// Records the tape of the object at `start`, its members read one by
    /// one and their values skipped. With `stop`, the first member whose
    /// key is written as that name (without an escape) ends the read: its
    /// value's place is returned, and no tape kept.
    #[inline]
    pub(super) fn record_tape(
        &self,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        stop: Option<&[u8]>,
    ) -> Scan<Recorded> {
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
                if stop.is_some_and(|name| !key.escaped && key.body.as_bytes() == name) {
                    sc.give_back(entries, slot);
                    return Ok(Recorded::Member(value_at));
                }
                cur.skip(inner)?;
                entries.push(Entry::new(key_at, &key, value_at, cur.pos));
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
        Ok(Recorded::Tape(sc.tapes.len() - 1))
    }
}
