//! The applicators that read a value again in place (`allOf`, `anyOf`,
//! `oneOf`, `not`, `if`/`then`/`else`), and the branch indexes of an
//! `anyOf` or a `oneOf` read on the value: the branch an object's first
//! key points to, the candidates its keys or a scalar's value leave.

use crate::json::validate::plan::{
    keyed, texts_of, Branches, JsonPlan, Keyed, Node, Switch, Switches, Text, EXACT, NO_BRANCH,
    NUMBER, OBJECT, STRING,
};
use crate::json::validate::tokenizer::{Cursor, NotJson, Num, Scan, Stop};

use super::scratch::Scratch;
use super::tape::{last_member, Last, Recorded};
use super::value_type;

/// An indexed `anyOf` or `oneOf` as its reads take it: the index, the
/// keyword's branches (node ids, in the keyword's order), and the value at
/// `start`, of type `kind` (by its first byte).
#[derive(Clone, Copy)]
pub(super) struct Indexed<'p> {
    index: &'p Branches,
    branches: &'p [u32],
    start: usize,
    kind: u8,
}

impl<'p> Indexed<'p> {
    /// An indexed keyword's branches (`index` of `branches`) on the value
    /// at `start`, of type `kind` (the generated validators' way in).
    pub(super) fn new(index: &'p Branches, branches: &'p [u32], start: usize, kind: u8) -> Self {
        Indexed {
            index,
            branches,
            start,
            kind,
        }
    }
}

/// What an object's keys say of an index's branches: the names it has
/// ([`Branches::keys`] bits) and the branches among the first 64 that
/// take all of its keys.
#[derive(Clone, Copy)]
pub(super) struct Fits {
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
    pub(super) fn admits(self, index: &Branches, b: u32) -> bool {
        index.needs[b as usize] & !self.present == 0 && (b >= 64 || self.taking & (1 << b) != 0)
    }
}

/// The branches of a [`Keyed`] table a value is keyed to.
#[derive(Clone, Copy)]
pub(super) enum Picked<'p> {
    Strings(&'p [Text<u32>]),
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
            .map(|e| e.value)
            .chain(integers.iter().map(|e| e.1))
    }

    /// The branches a value of type `kind` passes for being keyed to them
    /// ([`Branches::sure`]): those of a string the value index picked.
    #[inline]
    fn sure(self, index: &Branches, kind: u8) -> u64 {
        match self {
            Picked::Strings(_) if kind == STRING => index.sure,
            _ => 0,
        }
    }
}

/// Whether branch `b` is among the `sure` bits ([`Picked::sure`]).
#[inline]
fn passes(sure: u64, b: u32) -> bool {
    b < 64 && sure & (1 << b) != 0
}

/// The branches of `by` a string or an integer value (the cursor on it)
/// may pass, as (keyed, rest) (see `JsonPlan::candidates`), the cursor
/// left after a scalar; `None` when the value's kind or form does not
/// discriminate (an escaped string, a float, an integer past 2^53, any
/// other value).
#[inline]
pub(super) fn pick<'p>(
    by: &'p Keyed,
    cur: &mut Cursor<'_>,
) -> Scan<Option<(Picked<'p>, &'p [u32])>> {
    Ok(match cur.peek() {
        Some(b'"') => {
            let text = cur.string()?;
            if text.escaped {
                return Ok(None);
            }
            Some((
                Picked::Strings(texts_of(&by.strings, text.body)),
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

/// The branch an object's first key points to
/// ([`JsonPlan::first_key_branch`]), checked.
#[derive(Clone, Copy)]
pub(super) struct First {
    /// The branch (its place in the keyword's list).
    branch: u32,
    /// Its verdict.
    ok: bool,
    /// Whether the first key is the tag, whose value is keyed to this
    /// branch alone, every other branch allowing the tag only other
    /// values: unless a later member repeats the tag ([`tag_stands`]), no
    /// other branch can pass.
    alone: bool,
}

/// Whether the first member of the object at `start` (its tape
/// recorded) is the last of its key: no later key repeats it, written
/// alike or with an escape.
#[inline]
fn tag_stands(sc: &Scratch, start: usize, bytes: &[u8]) -> bool {
    let Some(tape) = sc.tape(start) else {
        return false;
    };
    let Some((first, later)) = sc.tapes[tape].entries.split_first() else {
        return false;
    };
    let Some(name) = bytes.get(first.key_at + 1..first.key_end) else {
        return false;
    };
    !first.escaped && matches!(last_member(bytes, later, name), Last::Absent)
}

/// For an indexed keyword ([`Indexed`]) on an object whose tape is
/// recorded, what its tag (the last member of that name) tells when no
/// branch is free of it: `Some(None)` when its value is keyed to no
/// branch, `Some(Some(b))` when to branch `b` alone (every other branch
/// fails the object), `None` when it cannot tell (no tag, no tape, the
/// tag absent or written with an escape, its value not such a string or
/// integer, or keyed to several branches).
#[inline]
fn tag_alone(at: Indexed<'_>, sc: &Scratch, bytes: &[u8]) -> Scan<Option<Option<u32>>> {
    let Indexed {
        index, start, kind, ..
    } = at;
    let Some(tag) = index.tag.as_deref() else {
        return Ok(None);
    };
    if kind != OBJECT {
        return Ok(None);
    }
    let Some(tape) = sc.tape(start) else {
        return Ok(None);
    };
    let Last::Found(entry) = last_member(bytes, &sc.tapes[tape].entries, tag.as_bytes()) else {
        return Ok(None);
    };
    let mut value = Cursor {
        bytes,
        pos: entry.value_at,
    };
    let Some((keyed, rest)) = pick(&index.by_tag, &mut value)? else {
        return Ok(None);
    };
    if !rest.is_empty() {
        return Ok(None);
    }
    let mut keyed = keyed.branches();
    Ok(match (keyed.next(), keyed.next()) {
        (None, _) => Some(None),
        (Some(b), None) => Some(Some(b)),
        (Some(_), Some(_)) => None,
    })
}

/// What a [`Switch`]'s member holds ([`JsonPlan::switch_on`]).
enum Case {
    /// No such member.
    Absent,
    /// A string without an escape: where its body lies, and its length.
    Value(usize, usize),
}

/// The `then`s `switch` applies for what its member holds (`None`: the
/// bytes cannot tell), or its members read one by one.
#[inline]
fn thens<'s>(
    told: Option<Case>,
    switch: &'s Switch,
    bytes: &'s [u8],
) -> impl Iterator<Item = u32> + 's {
    match told {
        Some(Case::Absent) => Either::Absent(switch.absent.iter().copied()),
        Some(Case::Value(at, len)) => {
            // SAFETY: `switch_on` and `switch_ahead` checked these bytes to
            // be a string token's body, which is UTF-8.
            let text = unsafe { std::str::from_utf8_unchecked(&bytes[at..at + len]) };
            Either::Value(switch.cases(text))
        }
        None => Either::Members(switch.members.iter().copied()),
    }
}

/// The `then`s a switch applies, or its members read one by one.
enum Either<A, V, M> {
    Absent(A),
    Value(V),
    Members(M),
}

impl<A, V, M> Iterator for Either<A, V, M>
where
    A: Iterator<Item = u32>,
    V: Iterator<Item = u32>,
    M: Iterator<Item = u32>,
{
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Either::Absent(a) => a.next(),
            Either::Value(v) => v.next(),
            Either::Members(m) => m.next(),
        }
    }
}

impl JsonPlan {
    /// The applicators that read the value at `start` again; the cursor
    /// left after the value.
    pub(super) fn in_place(
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

    pub(super) fn in_place_verdict(
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
        let again =
            |id: u32,
             cur: &mut Cursor<'_>,
             sc: &mut Scratch,
             end: &mut Option<usize>|
             -> Scan<bool> { self.read_again(id, (start, kind), cur, sc, depth, end) };
        match &node.all_switches {
            Some(switches) if kind == OBJECT => {
                if !self.switched(switches, start, cur, sc, depth, end)? {
                    return Ok(false);
                }
            }
            _ => {
                for &id in &node.all_of {
                    if !again(id, cur, sc, end)? {
                        return Ok(false);
                    }
                }
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
                    let at = Indexed {
                        index,
                        branches: &node.any_of,
                        start,
                        kind,
                    };
                    let first = self.first_key_branch(at, cur, sc, depth, end)?;
                    let alone = match first {
                        None => tag_alone(at, sc, cur.bytes)?,
                        Some(_) => None,
                    };
                    if let Some(First { ok: true, .. }) = first {
                        any = true;
                    } else if first.is_some_and(|f| f.alone && tag_stands(sc, start, cur.bytes)) {
                        // The tag leaves no other branch.
                    } else if let Some(alone) = alone {
                        // The tag leaves this branch at most.
                        if let Some(b) = alone {
                            any = again(node.any_of[b as usize], cur, sc, end)?;
                        }
                    } else {
                        let (tagged, rest, fits) = self.candidates(at, cur, sc, depth, end)?;
                        let sure = tagged.sure(index, kind);
                        let picked = tagged.branches().chain(rest.iter().copied());
                        for b in picked {
                            if !fits.admits(index, b) || first.is_some_and(|f| f.branch == b) {
                                continue;
                            }
                            if passes(sure, b) || again(node.any_of[b as usize], cur, sc, end)? {
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
                    let at = Indexed {
                        index,
                        branches: &node.one_of,
                        start,
                        kind,
                    };
                    let first = self.first_key_branch(at, cur, sc, depth, end)?;
                    let alone = match first {
                        None => tag_alone(at, sc, cur.bytes)?,
                        Some(_) => None,
                    };
                    match (first, alone) {
                        // The tag leaves no other branch: its verdict is
                        // the keyword's.
                        (Some(f), _) if f.alone && tag_stands(sc, start, cur.bytes) => {
                            valid = usize::from(f.ok);
                        }
                        (_, Some(None)) => {}
                        (_, Some(Some(b))) => {
                            valid = usize::from(again(node.one_of[b as usize], cur, sc, end)?);
                        }
                        _ => {
                            let (tagged, rest, fits) = self.candidates(at, cur, sc, depth, end)?;
                            let sure = tagged.sure(index, kind);
                            let picked = tagged.branches().chain(rest.iter().copied());
                            for b in picked {
                                if !fits.admits(index, b) {
                                    continue;
                                }
                                let ok = match first {
                                    Some(f) if f.branch == b => f.ok,
                                    _ if passes(sure, b) => true,
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

    /// An `allOf` read with its switches ([`Node::all_switches`]) on the
    /// object at `start`: its other members, then each switch's `then`s.
    /// Out of line: most nodes hold none.
    #[inline(never)]
    fn switched(
        &self,
        switches: &Switches,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<bool> {
        for &id in &switches.rest {
            if !self.read_again(id, (start, OBJECT), cur, sc, depth, end)? {
                return Ok(false);
            }
        }
        let bytes = cur.bytes;
        for switch in &switches.switches {
            // On an object no read has taped yet, the member's first
            // occurrence tells the `then`s, whose read records the
            // tape; the tape then shows whether a later member of
            // that name overrides it (read again from the tape).
            let ahead = match sc.tape(start) {
                None => self.switch_ahead(switch, start, cur, sc, depth)?,
                Some(_) => None,
            };
            if let Some((value_at, told)) = ahead {
                let mut ok = true;
                for id in thens(Some(told), switch, bytes) {
                    if !self.read_again(id, (start, OBJECT), cur, sc, depth, end)? {
                        ok = false;
                        break;
                    }
                }
                let tape = self.tape_of(start, cur, sc, depth)?;
                let tape = &sc.tapes[tape];
                *end = Some(tape.end);
                match last_member(bytes, &tape.entries, switch.name.as_bytes()) {
                    Last::Found(entry) if entry.value_at == value_at => {
                        if !ok {
                            return Ok(false);
                        }
                        continue;
                    }
                    _ => {}
                }
            }
            let told = self.switch_on(switch, start, cur, sc, depth, end)?;
            for id in thens(told, switch, bytes) {
                if !self.read_again(id, (start, OBJECT), cur, sc, depth, end)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The value at `start`, of type `kind` (by its first byte), read
    /// again against `id`, `end` set past it; a node accepting no value of
    /// that type fails without reading it.
    #[inline]
    fn read_again(
        &self,
        id: u32,
        (start, kind): (usize, u8),
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<bool> {
        if self.nodes[id as usize].accepts & kind == 0 {
            return Ok(false);
        }
        cur.pos = start;
        let ok = self.check(id, cur, sc, depth)?;
        *end = Some(cur.pos);
        Ok(ok)
    }

    /// What the object at `start` (not read yet) holds in a [`Switch`]'s
    /// member, by its first occurrence: where its value starts, and the
    /// string written there without an escape (a later member may override
    /// it: the caller asks the tape). Reads the object's members up to that
    /// one, their values skipped and nothing kept; `None` when the value is
    /// not such a string, or when the object holds no member written as
    /// the name, its members then all recorded as its tape
    /// ([`JsonPlan::switch_on`] reads it).
    fn switch_ahead(
        &self,
        switch: &Switch,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<Option<(usize, Case)>> {
        let Recorded::Member(value_at) =
            self.record_tape(start, cur, sc, depth, Some(switch.name.as_bytes()))?
        else {
            return Ok(None);
        };
        cur.pos = value_at;
        if cur.peek() != Some(b'"') {
            return Ok(None);
        }
        let text = cur.string()?;
        if text.escaped {
            return Ok(None);
        }
        Ok(Some((value_at, Case::Value(value_at + 1, text.body.len()))))
    }

    /// What the object at `start` holds in a [`Switch`]'s member: nothing
    /// (`Case::Absent`), a string written without an escape (its body's
    /// place in the payload), or `None` when the bytes cannot tell (an
    /// escaped key may be the name; a value of another kind, or escaped).
    /// Reads the object's tape (recording it if none); `end` is set past
    /// the object.
    fn switch_on(
        &self,
        switch: &Switch,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<Option<Case>> {
        let tape = self.tape_of(start, cur, sc, depth)?;
        let tape = &sc.tapes[tape];
        *end = Some(tape.end);
        let bytes = cur.bytes;
        let at = match last_member(bytes, &tape.entries, switch.name.as_bytes()) {
            Last::Escaped => return Ok(None),
            Last::Absent => return Ok(Some(Case::Absent)),
            Last::Found(entry) => entry.value_at,
        };
        if bytes.get(at) != Some(&b'"') {
            return Ok(None);
        }
        let mut value = Cursor { bytes, pos: at };
        let text = value.string()?;
        if text.escaped {
            return Ok(None);
        }
        Ok(Some(Case::Value(at + 1, text.body.len())))
    }

    /// For an indexed `anyOf`/`oneOf` ([`Indexed`]) on an
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
    #[inline]
    pub(super) fn first_key_branch(
        &self,
        at: Indexed<'_>,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<Option<First>> {
        // Told here, inlined: most indexes point nowhere.
        if at.kind != OBJECT || !at.index.points() {
            return Ok(None);
        }
        self.first_key_branch_read(at, cur, sc, depth, end)
    }

    /// [`JsonPlan::first_key_branch`] on an object whose index may point.
    #[inline(never)]
    pub(super) fn first_key_branch_read(
        &self,
        at: Indexed<'_>,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<Option<First>> {
        let Indexed {
            index,
            branches,
            start,
            ..
        } = at;
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
        let mut alone = false;
        if chosen.is_none() && known.tag {
            probe.ws();
            if probe.peek() == Some(b':') {
                probe.pos += 1;
                probe.ws();
                if let Ok(Some((keyed, rest))) = pick(&index.by_tag, &mut probe) {
                    let mut keyed = keyed.branches();
                    chosen = keyed.next().filter(|_| keyed.next().is_none());
                    alone = rest.is_empty();
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
        Ok(Some(First {
            branch: b,
            ok,
            alone,
        }))
    }

    /// The branches of an indexed `anyOf`/`oneOf` ([`Indexed`]) the value
    /// at `start` (of type `kind`) may pass, as (`keyed`, `rest`, `present`): the
    /// branches of `keyed`, then those of `rest`, each unless it needs a
    /// name `present` lacks (the bits of [`Branches::keys`]). Every other
    /// branch fails the value. Reads an object's keys once, into a tape
    /// its branches then reread; `end` is set past a value read.
    pub(super) fn candidates<'p>(
        &self,
        at: Indexed<'p>,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        end: &mut Option<usize>,
    ) -> Scan<(Picked<'p>, &'p [u32], Fits)> {
        let Indexed {
            index, start, kind, ..
        } = at;
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
}
