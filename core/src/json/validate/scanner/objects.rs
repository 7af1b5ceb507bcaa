//! An object's members against a node: read once from the bytes
//! ([`JsonPlan::object`]) or again from a tape, each member against the
//! subschemas its key selects, a failing member's later namesake looked
//! for, and the keywords of the whole object once its members passed.

use crate::json::validate::plan::{JsonPlan, Node, OBJECT};
use crate::json::validate::tokenizer::{enter, Cursor, Scan, Stop, Str};

use super::scratch::{Entry, Scratch, Tape};
use super::subvalue;
use super::tape::{last_member, later_same_key, Last};
use super::unique::distinct_keys;

/// One member as the object loops hand it to [`JsonPlan::member`]: its
/// key (`known`: where [`Cursor::known_key`] found it among the node's
/// names), where the key starts, and where its value ends when a tape
/// already knows (`None`: the value is read from the cursor).
#[derive(Clone, Copy)]
pub(super) struct MemberAt<'k> {
    pub(super) key: Str<'k>,
    pub(super) known: Option<usize>,
    pub(super) key_at: usize,
    pub(super) value_end: Option<usize>,
}

/// An object read to its end with every member passed, as
/// [`JsonPlan::object_end`] checks it: where it starts and ends, the
/// presence bits of the names it has, and its members as written (a
/// repeated key counted each time).
#[derive(Clone, Copy)]
pub(super) struct ObjectRead {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) present: u64,
    pub(super) members: u64,
}

/// The most names a subschema looks up on an object's tape
/// ([`JsonPlan::named_on_tape`]); past it, the tape is read member by
/// member.
pub(super) const NAMES_LOOKED_UP: usize = 8;

/// What [`JsonPlan::named_on_tape`] found.
pub(super) enum Named {
    /// Every named member passed; the names' presence bits.
    Passed(u64),
    /// A named member failed its subschema.
    Failed,
    /// A key holding an escape may be one of the names ([`Last::Escaped`]):
    /// read the tape member by member.
    Escaped,
}

impl JsonPlan {
    pub(super) fn object(
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
        let ok = node.types & OBJECT != 0 && (node.choice.is_none() || node.compound_choice);
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
                    MemberAt {
                        key,
                        known,
                        key_at,
                        value_end: None,
                    },
                    cur,
                    sc,
                    depth,
                    &mut present,
                )? {
                    // Fails, unless a later member with the same key wins.
                    if let Some((mut entries, slot)) = entries.take() {
                        // The rest is read for the tape anyway: a later
                        // member of that key is looked for on it.
                        entries.push(Entry::new(key_at, &key, value_at, cur.pos));
                        let taped = (start, entries, slot);
                        return self.failed_on_tape(node, taped, cur, sc, depth);
                    } else if let Some(end) = self.overridden(key, cur, sc, depth)? {
                        // The look-ahead read the rest of the object:
                        // nothing is left to do.
                        cur.pos = end;
                        return Ok(false);
                    }
                }
                if let Some((entries, _)) = &mut entries {
                    entries.push(Entry::new(key_at, &key, value_at, cur.pos));
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
        let read = ObjectRead {
            start,
            end,
            present,
            members,
        };
        self.object_end(node, read, cur, sc, depth)
    }

    /// [`JsonPlan::object`] recording the object's tape (`start`, its
    /// members so far, the pool's slot), once a member failed (the last of
    /// `entries`): the rest is read for the tape, and a later member of the
    /// failed one's key looked for on it. None: the object fails. Else that
    /// member counts instead, and the members after the failure were only
    /// skipped: the object is read again from the tape. Out of line: on
    /// invalid payloads only. (`depth` is the object's own, one past its
    /// reader's.)
    #[cold]
    #[inline(never)]
    fn failed_on_tape(
        &self,
        node: &Node,
        (start, mut entries, slot): (usize, Vec<Entry>, usize),
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let failed = entries.len() - 1;
        while cur.next_or_close(b'}')? {
            let key_at = cur.pos;
            let key = cur.key()?;
            let value_at = cur.pos;
            cur.skip(depth)?;
            entries.push(Entry::new(key_at, &key, value_at, cur.pos));
        }
        let bytes = cur.bytes;
        let key = entries[failed].key(bytes);
        let overridden = later_same_key(bytes, &entries[failed + 1..], &key).is_some();
        sc.tapes.push(Tape {
            start,
            end: cur.pos,
            entries,
            slot,
        });
        if !overridden {
            return Ok(false);
        }
        // Read again: charged to the budget, as the look-ahead it stands
        // for would be, so that objects nested in such objects are not
        // read again and again (`jsonschema` decides past it).
        sc.charge(cur.pos - start)?;
        self.object_on_tape(node, start, sc.tapes.len() - 1, cur, sc, depth - 1)
    }

    /// [`JsonPlan::object`] on an object read before, from its tape.
    pub(super) fn object_on_tape(
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
        // A member likely to fail (a tag of another branch) checked first,
        // its last occurrence being the one that counts.
        for &at in node.selective.iter() {
            let Some(member) = node.members.get(usize::from(at)) else {
                continue;
            };
            let Some(id) = member.schema else {
                continue;
            };
            let name = member.name.as_bytes();
            if let Last::Found(entry) = last_member(cur.bytes, &sc.tapes[tape].entries, name) {
                cur.pos = entry.value_at;
                if !self.check(id, cur, sc, depth)? {
                    cur.pos = end;
                    return Ok(false);
                }
            }
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
                    let read = ObjectRead {
                        start,
                        end,
                        present,
                        members: members as u64,
                    };
                    return self.object_end(node, read, cur, sc, depth);
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
            let member = MemberAt {
                key,
                known,
                key_at: at,
                value_end,
            };
            if !self.member(node, member, cur, sc, depth, &mut present)?
                && !self.overridden_on_tape(&key, tape, i, end, cur.bytes, sc)?
            {
                cur.pos = end;
                return Ok(false);
            }
        }
        cur.pos = end;
        let read = ObjectRead {
            start,
            end,
            present,
            members: members as u64,
        };
        self.object_end(node, read, cur, sc, depth)
    }

    /// The members of the object on `tape` that `node` names, on a node
    /// that takes any other key (no `additionalProperties`,
    /// `patternProperties` or `propertyNames`): for each name, the last
    /// member with that key (the one a parsed object keeps) checked
    /// against the name's subschema. Leaves the cursor anywhere.
    pub(super) fn named_on_tape(
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
    /// `required`, dependencies, the counts, `enum`. Always inlined: out
    /// of line (since the scanner split, #38) it cost the JSON guard 1.1%.
    #[inline(always)]
    pub(super) fn object_end(
        &self,
        node: &Node,
        read: ObjectRead,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let ObjectRead {
            start,
            end,
            present,
            members,
        } = read;
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
    #[inline(always)]
    pub(super) fn member(
        &self,
        node: &Node,
        member: MemberAt<'_>,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        present: &mut u64,
    ) -> Scan<bool> {
        if !node.patterns.is_empty() || node.names.is_some() {
            return self.member_by_key(node, member, cur, sc, depth, present);
        }
        let MemberAt {
            key,
            known,
            value_end,
            ..
        } = member;
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
    #[inline(never)]
    pub(super) fn member_by_key(
        &self,
        node: &Node,
        member: MemberAt<'_>,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        present: &mut u64,
    ) -> Scan<bool> {
        let MemberAt {
            key,
            known,
            key_at,
            value_end,
        } = member;
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
    pub(super) fn overridden_on_tape(
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
    pub(super) fn overridden(
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
