//! Settling required fields across merged occurrences, without building the
//! message.
//!
//! The fast scan checks each occurrence of a nested message on its own. The
//! decoded tree can differ: protobuf merges repeated occurrences of a
//! singular message field (in any occurrence of the parent), a later map
//! entry replaces an earlier one with the same key, and setting a oneof
//! member clears the member set before it. When some occurrence lacked a
//! required field, this walk computes the decoded tree's required fields
//! exactly, as `DynamicMessage::decode` would leave them, without decoding
//! a value: merging is reading occurrences one after the other, so each
//! occurrence of a singular message field is walked into one state per
//! merged message (required-field bits, its own children), a list element
//! is settled as it is read, and a map keeps each key's last entry, settled
//! at the end.
//!
//! Only structurally valid payloads reach it (the fast scan accepted the
//! framing), and it descends only into messages that can lack a required
//! field (`Message::can_fail`). Cost: time linear in the payload, one read
//! of each byte; memory, one state per merged message alive at once (bounded
//! by the nesting, not by the payload), one key and span per distinct map
//! key, and at most the report's limit of violations per list.

use std::collections::HashMap;

use super::explain::key_label;
use super::plan::{KeyKind, Message, Shape, Tables, NOT_REQUIRED, NO_ONEOF};
use super::reference::push_name;
use super::verdict::{skip, Budget, Fail};
use super::wire::{read_key, read_len, read_varint};
use super::{Violation, ViolationKind};

/// A byte range of the payload: a message body (a group's, without its
/// end-group tag).
type Span = (usize, usize);

/// Why the walk stopped early.
enum Stop {
    /// The verdict is settled (a required field is missing), or the report
    /// is full.
    Done,
    /// The bytes did not frame as the fast scan said they do. Cannot happen
    /// on a payload the fast scan accepted; treated as invalid all the same.
    Broken,
}

impl From<Fail> for Stop {
    fn from(_: Fail) -> Stop {
        Stop::Broken
    }
}

macro_rules! broken_from {
    ($($error:ty),*) => {$(
        impl From<$error> for Stop {
            fn from(_: $error) -> Stop {
                Stop::Broken
            }
        }
    )*};
}
broken_from!(
    super::wire::KeyError,
    super::wire::LenError,
    super::wire::VarintError
);

type Walk<T> = Result<T, Stop>;

/// A map key as the decoder compares it: the decoded integer (as bits), or
/// the string's bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Int(u64),
    Str(&'a [u8]),
}

/// Whether every message of the decoded tree has its required fields.
pub(super) fn is_complete(tables: &Tables, payload: &[u8]) -> bool {
    let mut walk = Settle {
        tables,
        buf: payload,
        report: None,
    };
    walk.root().is_ok()
}

/// The required fields missing from the decoded tree, with their paths, at
/// most `limit`, in the order the decoded tree lists them (a message's own
/// fields, then its fields' values in field-number order, extensions last).
pub(super) fn explain(tables: &Tables, payload: &[u8], limit: usize) -> Vec<Violation> {
    let mut walk = Settle {
        tables,
        buf: payload,
        report: Some(Report {
            path: String::new(),
            found: Vec::new(),
            limit,
        }),
    };
    let result = walk.root();
    let mut found = walk.report.map(|r| r.found).unwrap_or_default();
    if let Err(Stop::Broken) = result {
        found.push(Violation::new(
            String::new(),
            ViolationKind::Wire,
            "the payload does not decode".to_owned(),
        ));
    }
    found
}

struct Report {
    path: String,
    found: Vec<Violation>,
    limit: usize,
}

struct Settle<'a> {
    tables: &'a Tables,
    buf: &'a [u8],
    /// `None`: the verdict only.
    report: Option<Report>,
}

/// Required-field presence of one merged message.
struct Seen {
    small: u64,
    big: Vec<bool>,
}

impl Seen {
    fn new(count: u32) -> Seen {
        Seen {
            small: 0,
            big: if count > 64 {
                vec![false; count as usize]
            } else {
                Vec::new()
            },
        }
    }

    fn set(&mut self, index: u32) {
        if self.big.is_empty() {
            if index < 64 {
                self.small |= 1 << index;
            }
        } else if let Some(flag) = self.big.get_mut(index as usize) {
            *flag = true;
        }
    }

    fn has(&self, index: u32) -> bool {
        if self.big.is_empty() {
            index < 64 && self.small & (1 << index) != 0
        } else {
            self.big.get(index as usize).copied().unwrap_or(false)
        }
    }
}

/// One merged message being settled: its occurrences are walked into it as
/// they come (merging is reading them one after the other), so it holds no
/// span of its own.
struct State<'a> {
    seen: Seen,
    /// By field index.
    children: HashMap<usize, Child<'a>>,
    /// Oneof index -> the field index set last.
    oneofs: HashMap<u32, usize>,
    /// Verdict mode: a list element below was incomplete. Remembered, not
    /// returned at once: a oneof member set later can clear this message.
    failed: bool,
}

enum Child<'a> {
    /// A singular message (or group) field: every occurrence merges into it.
    Singular(Box<State<'a>>),
    /// A list of messages: each element is settled when read. In report
    /// mode, the first violations of its elements, in order (at most the
    /// limit: later ones could never be reported).
    List { count: usize, found: Vec<Violation> },
    /// A map: each key's last entry (its body); a later entry replaces.
    Map(HashMap<Key<'a>, Span>),
}

impl<'a> State<'a> {
    fn new(msg: &Message) -> State<'a> {
        State {
            seen: Seen::new(msg.required_count),
            children: HashMap::new(),
            oneofs: HashMap::new(),
            failed: false,
        }
    }
}

impl<'a> Settle<'a> {
    fn message(&self, index: u32) -> Walk<&'a Message> {
        self.tables.messages.get(index as usize).ok_or(Stop::Broken)
    }

    fn root(&mut self) -> Walk<()> {
        let root = self.tables.messages.first().ok_or(Stop::Broken)?;
        let mut state = State::new(root);
        self.walk(root, &mut state, 0, self.buf.len(), 0)?;
        self.finish(root, state)
    }

    /// Runs `inner` one path segment down (in report mode).
    fn nested<T>(&mut self, segment: &str, inner: impl FnOnce(&mut Self) -> Walk<T>) -> Walk<T> {
        let at = match self.report.as_mut() {
            Some(report) => {
                let at = report.path.len();
                if segment.starts_with('[') {
                    report.path.push_str(segment);
                } else {
                    push_name(&mut report.path, segment);
                }
                Some(at)
            }
            None => None,
        };
        let result = inner(self);
        if let (Some(at), Some(report)) = (at, self.report.as_mut()) {
            report.path.truncate(at);
        }
        result
    }

    /// Records a violation; `Done` when that settles the verdict or fills
    /// the report.
    fn record(&mut self, violation: impl FnOnce(&str) -> Violation) -> Walk<()> {
        let Some(report) = self.report.as_mut() else {
            return Err(Stop::Done);
        };
        if report.found.len() >= report.limit {
            return Err(Stop::Done);
        }
        let violation = violation(&report.path);
        report.found.push(violation);
        if report.found.len() >= report.limit {
            return Err(Stop::Done);
        }
        Ok(())
    }

    /// Walks one occurrence of `msg` into `state`: from `pos` to `end`, or,
    /// for a group (`group` its field number), up to and including its
    /// end-group tag. Returns the position after it.
    fn walk(
        &mut self,
        msg: &'a Message,
        state: &mut State<'a>,
        mut pos: usize,
        end: usize,
        group: u32,
    ) -> Walk<usize> {
        let buf: &'a [u8] = self.buf.get(..end).ok_or(Stop::Broken)?;
        loop {
            if pos >= end {
                return if group == 0 {
                    Ok(pos)
                } else {
                    Err(Stop::Broken)
                };
            }
            let (number, wire_type, next) = read_key(buf, pos)?;
            pos = next;
            if wire_type == 4 {
                return if number == group {
                    Ok(pos)
                } else {
                    Err(Stop::Broken)
                };
            }
            let Some((index, field)) = msg.lookup(number) else {
                pos = skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?;
                continue;
            };
            let field = *field;
            if field.oneof != NO_ONEOF {
                // Setting a member clears the one set before it.
                match state.oneofs.insert(field.oneof, index) {
                    Some(previous) if previous != index => {
                        state.children.remove(&previous);
                    }
                    _ => {}
                }
            }
            if field.required != NOT_REQUIRED {
                state.seen.set(field.required);
            }
            match (field.shape, wire_type) {
                (Shape::Message, 2) | (Shape::Group, 3) => {
                    let target = self.message(field.target)?;
                    let (start, stop, inner_group) = if wire_type == 2 {
                        let (start, stop) = read_len(buf, pos)?;
                        (start, stop, 0)
                    } else {
                        (pos, end, number)
                    };
                    if !target.can_fail {
                        pos = if wire_type == 2 {
                            stop
                        } else {
                            // Framed by its plan (a map entry inside reads
                            // as length-delimited whatever its tag), into a
                            // state nobody looks at.
                            let mut ignored = State::new(target);
                            self.walk(target, &mut ignored, pos, end, number)?
                        };
                        continue;
                    }
                    let name = msg.info.get(index).map_or("", |info| &info.name);
                    pos = if field.repeated {
                        self.element(target, state, index, name, start, stop, inner_group)?
                    } else {
                        let child = state
                            .children
                            .entry(index)
                            .or_insert_with(|| Child::Singular(Box::new(State::new(target))));
                        let Child::Singular(child) = child else {
                            return Err(Stop::Broken);
                        };
                        self.nested(name, |walk| {
                            walk.walk(target, child, start, stop, inner_group)
                        })?
                    };
                    if wire_type == 2 {
                        pos = stop;
                    }
                }
                (Shape::Map, _) => {
                    // Any tag reads as a length-delimited entry.
                    let (start, stop) = read_len(buf, pos)?;
                    pos = stop;
                    let entry = self.message(field.target)?;
                    if entry.can_fail {
                        let key = self.entry_key(entry, start, stop)?;
                        let child = state
                            .children
                            .entry(index)
                            .or_insert_with(|| Child::Map(HashMap::new()));
                        if let Child::Map(entries) = child {
                            entries.insert(key, (start, stop));
                        }
                    }
                }
                _ => pos = skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?,
            }
        }
    }

    /// Settles one list element (a message of its own) as it is read;
    /// returns the position after it.
    #[allow(clippy::too_many_arguments)]
    fn element(
        &mut self,
        target: &'a Message,
        state: &mut State<'a>,
        index: usize,
        name: &str,
        start: usize,
        stop: usize,
        group: u32,
    ) -> Walk<usize> {
        let child = state.children.entry(index).or_insert_with(|| Child::List {
            count: 0,
            found: Vec::new(),
        });
        let Child::List { count, found } = child else {
            return Err(Stop::Broken);
        };
        let element = *count;
        *count += 1;
        if group == 0 {
            // Nothing this element holds can change the outcome any more.
            let settled = match self.report.as_ref() {
                None => state.failed,
                Some(report) => found.len() >= report.limit,
            };
            if settled {
                return Ok(stop);
            }
        }
        let mut inner = State::new(target);
        let Some(report) = self.report.as_mut() else {
            // Verdict mode.
            let after = self.walk(target, &mut inner, start, stop, group)?;
            match self.finish(target, inner) {
                Ok(()) => {}
                Err(Stop::Done) => state.failed = true,
                Err(Stop::Broken) => return Err(Stop::Broken),
            }
            return Ok(after);
        };
        // Report mode: the element reports into the list's own buffer.
        let full = found.len() >= report.limit;
        let mut path = report.path.clone();
        push_name(&mut path, &format!("{name}[{element}]"));
        let outer = std::mem::replace(
            report,
            Report {
                path,
                found: std::mem::take(found),
                limit: report.limit,
            },
        );
        let result = self
            .walk(target, &mut inner, start, stop, group)
            .and_then(|after| {
                if !full {
                    match self.finish(target, inner) {
                        Ok(()) | Err(Stop::Done) => {}
                        Err(Stop::Broken) => return Err(Stop::Broken),
                    }
                }
                Ok(after)
            });
        let report = self.report.as_mut().ok_or(Stop::Broken)?;
        let buffer = std::mem::replace(report, outer).found;
        if let Some(Child::List { found, .. }) = state.children.get_mut(&index) {
            *found = buffer;
        }
        result
    }

    /// Settles a merged message once all its occurrences are read: its
    /// required fields, then its children in field-number order.
    fn finish(&mut self, msg: &'a Message, state: State<'a>) -> Walk<()> {
        if state.failed {
            return Err(Stop::Done);
        }
        for (index, name) in msg.required_names.iter().enumerate() {
            let index = u32::try_from(index).unwrap_or(NOT_REQUIRED);
            if !state.seen.has(index) {
                self.record(|path| {
                    let mut path = path.to_owned();
                    push_name(&mut path, name);
                    Violation::new(
                        path,
                        ViolationKind::Required,
                        "required field missing".to_owned(),
                    )
                })?;
            }
        }
        let mut children: Vec<(usize, Child<'a>)> = state.children.into_iter().collect();
        children.sort_unstable_by_key(|(index, _)| {
            let info = msg.info.get(*index);
            let extension = info.is_some_and(|info| info.name.starts_with('['));
            (extension, info.map_or(0, |info| info.number))
        });
        for (index, child) in children {
            let (Some(field), Some(info)) = (msg.fields.get(index), msg.info.get(index)) else {
                return Err(Stop::Broken);
            };
            let target = self.message(field.target)?;
            match child {
                Child::Singular(child) => {
                    self.nested(&info.name, |walk| walk.finish(target, *child))?;
                }
                Child::List { found, .. } => {
                    for violation in found {
                        self.record(|_| violation)?;
                    }
                }
                Child::Map(entries) => {
                    // In payload order: the decoder's map has no order of its own.
                    let mut bodies: Vec<Span> = entries.into_values().collect();
                    bodies.sort_unstable();
                    for body in bodies {
                        self.nested(&info.name, |walk| walk.map_value(target, body))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The key of a map entry, as the decoder keeps it: its last key field,
    /// or the key type's default.
    fn entry_key(&self, entry: &Message, start: usize, end: usize) -> Walk<Key<'a>> {
        let buf: &'a [u8] = self.buf.get(..end).ok_or(Stop::Broken)?;
        let kind = entry
            .lookup(1)
            .and_then(|(index, _)| entry.info.get(index))
            .map_or(KeyKind::None, |info| info.key);
        let mut key = match kind {
            KeyKind::Str => Key::Str(&[]),
            _ => Key::Int(0),
        };
        let mut pos = start;
        while pos < end {
            let (number, wire_type, next) = read_key(buf, pos)?;
            pos = next;
            if number == 1 {
                key = match (kind, wire_type) {
                    (KeyKind::Str, 2) => {
                        let (s, e) = read_len(buf, pos)?;
                        Key::Str(buf.get(s..e).ok_or(Stop::Broken)?)
                    }
                    (KeyKind::I64 | KeyKind::U64 | KeyKind::S64, 0) => {
                        Key::Int(read_varint(buf, pos)?.0)
                    }
                    (KeyKind::I32 | KeyKind::U32 | KeyKind::S32, 0) => {
                        Key::Int(u64::from(read_varint(buf, pos)?.0 as u32))
                    }
                    (KeyKind::Bool, 0) => Key::Int(u64::from(read_varint(buf, pos)?.0 != 0)),
                    (KeyKind::F32 | KeyKind::SF32, 5) => Key::Int(fixed(buf, pos, 4)?),
                    (KeyKind::F64 | KeyKind::SF64, 1) => Key::Int(fixed(buf, pos, 8)?),
                    _ => return Err(Stop::Broken),
                };
            }
            pos = skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?;
        }
        Ok(key)
    }

    /// Settles the value of one map entry: the entry's value fields merge;
    /// an entry without one holds an empty message.
    fn map_value(&mut self, entry: &'a Message, (start, end): Span) -> Walk<()> {
        let Some((_, value_field)) = entry.lookup(2) else {
            return Ok(());
        };
        let value_field = *value_field;
        if value_field.shape != Shape::Message {
            return Ok(());
        }
        let value = self.message(value_field.target)?;
        let buf = self.buf.get(..end).ok_or(Stop::Broken)?;
        let label = if self.report.is_some() {
            key_label(entry, buf.get(start..end).ok_or(Stop::Broken)?)
        } else {
            String::new()
        };
        self.nested(&label, |walk| {
            let mut state = State::new(value);
            let mut pos = start;
            while pos < end {
                let (number, wire_type, next) = read_key(buf, pos)?;
                pos = next;
                if number == 2 && wire_type == 2 {
                    let (s, e) = read_len(buf, pos)?;
                    walk.walk(value, &mut state, s, e, 0)?;
                    pos = e;
                } else {
                    pos = skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?;
                }
            }
            walk.finish(value, state)
        })
    }
}

fn fixed(buf: &[u8], pos: usize, width: usize) -> Walk<u64> {
    let bytes = buf
        .get(pos..pos.checked_add(width).ok_or(Stop::Broken)?)
        .ok_or(Stop::Broken)?;
    Ok(bytes
        .iter()
        .enumerate()
        .fold(0u64, |value, (i, &b)| value | u64::from(b) << (8 * i)))
}
