//! Settling required fields across merged occurrences, without building the
//! message.
//!
//! The fast scan checks each occurrence of a nested message on its own. The
//! decoded tree can differ: protobuf merges repeated occurrences of a
//! singular message field (in any occurrence of the parent), a later map
//! entry replaces an earlier one with the same key, and setting a oneof
//! member clears the member set before it. When some occurrence lacked a
//! required field, this walk computes the decoded tree's required fields
//! exactly, as `DynamicMessage::decode` would leave them, but over byte
//! spans of the payload: a merged message is the list of spans of its
//! occurrences, in order, and is walked once, one level at a time.
//!
//! Only structurally valid payloads reach it (the fast scan accepted the
//! framing), and it descends only into messages that can lack a required
//! field ([`Message::can_fail`]). Cost: time linear in the payload (a group
//! body is read once more to find its end); memory, one span per occurrence
//! of a singular message field below such messages and one key per map
//! entry, never a decoded value.

use std::collections::HashMap;

use super::detail::key_label;
use super::fast::{skip, Budget, Fail};
use super::plan::{KeyKind, Message, Shape, Tables, NOT_REQUIRED, NO_ONEOF};
use super::reference::push_name;
use super::wire::{read_key, read_len, read_varint};
use super::{ScanViolation, ViolationKind};

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
    match tables.messages.first() {
        Some(root) => walk.message(root, &[(0, payload.len())]).is_ok(),
        None => false,
    }
}

/// The required fields missing from the decoded tree, with their paths, at
/// most `limit`.
pub(super) fn explain(tables: &Tables, payload: &[u8], limit: usize) -> Vec<ScanViolation> {
    let mut walk = Settle {
        tables,
        buf: payload,
        report: Some(Report {
            path: String::new(),
            found: Vec::new(),
            limit,
        }),
    };
    let result = match tables.messages.first() {
        Some(root) => walk.message(root, &[(0, payload.len())]),
        None => Err(Stop::Broken),
    };
    let mut found = walk.report.map(|r| r.found).unwrap_or_default();
    if let Err(Stop::Broken) = result {
        found.push(ScanViolation::new(
            String::new(),
            ViolationKind::Malformed,
            "the payload does not decode".to_owned(),
        ));
    }
    found
}

struct Report {
    path: String,
    found: Vec<ScanViolation>,
    limit: usize,
}

struct Settle<'a> {
    tables: &'a Tables,
    buf: &'a [u8],
    /// `None`: the verdict only, stopping at the first missing field.
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

/// What one merged message's walk collects for later, per field index.
enum Child<'a> {
    /// A singular message (or group) field: the spans of its occurrences,
    /// which merge.
    Singular(Vec<Span>),
    /// A list of messages (or groups): one span per element.
    List(Vec<Span>),
    /// A map: each key's last entry (its body).
    Map(HashMap<Key<'a>, Span>),
}

#[derive(Default)]
struct Pending<'a> {
    children: HashMap<usize, Child<'a>>,
    /// Oneof index -> the field index set last.
    oneofs: HashMap<u32, usize>,
}

impl<'a> Settle<'a> {
    fn plan(&self, index: u32) -> Walk<&'a Message> {
        self.tables.messages.get(index as usize).ok_or(Stop::Broken)
    }

    /// Records a missing required field; `Done` when that settles it.
    fn missing(&mut self, name: &str) -> Walk<()> {
        let Some(report) = self.report.as_mut() else {
            return Err(Stop::Done);
        };
        let mut path = report.path.clone();
        push_name(&mut path, name);
        report.found.push(ScanViolation::new(
            path,
            ViolationKind::RequiredMissing,
            "required field missing".to_owned(),
        ));
        if report.found.len() >= report.limit {
            return Err(Stop::Done);
        }
        Ok(())
    }

    /// Runs `inner` one path segment down (in report mode).
    fn nested(&mut self, segment: &str, inner: impl FnOnce(&mut Self) -> Walk<()>) -> Walk<()> {
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

    /// Settles one merged message: the occurrences `spans`, in order.
    fn message(&mut self, msg: &'a Message, spans: &[Span]) -> Walk<()> {
        if !msg.can_fail {
            return Ok(());
        }
        let mut seen = Seen::new(msg.required_count);
        let mut pending = Pending::default();
        for &(start, end) in spans {
            self.occurrence(msg, start, end, &mut seen, &mut pending)?;
        }
        for (index, name) in msg.required_names.iter().enumerate() {
            let index = u32::try_from(index).unwrap_or(NOT_REQUIRED);
            if !seen.has(index) {
                self.missing(name)?;
            }
        }
        // Fields in number order, then extensions, as the decoded tree
        // lists its values.
        let mut children: Vec<(usize, Child<'a>)> = pending.children.into_iter().collect();
        children.sort_unstable_by_key(|(index, _)| {
            let number = msg.info.get(*index).map_or(0, |info| info.number);
            let extension = msg.info.get(*index).is_some_and(|info| info.name.starts_with('['));
            (extension, number)
        });
        for (index, child) in children {
            let (Some(field), Some(info)) = (msg.fields.get(index), msg.info.get(index)) else {
                return Err(Stop::Broken);
            };
            let target = self.plan(field.target)?;
            match child {
                Child::Singular(spans) => {
                    self.nested(&info.name, |walk| walk.message(target, &spans))?;
                }
                Child::List(spans) => {
                    for (element, span) in spans.into_iter().enumerate() {
                        let segment = if self.report.is_some() {
                            format!("{}[{element}]", info.name)
                        } else {
                            String::new()
                        };
                        self.nested(&segment, |walk| walk.message(target, &[span]))?;
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

    /// Walks one occurrence of `msg`: marks required fields, settles list
    /// elements, collects singular messages and map entries.
    fn occurrence(
        &mut self,
        msg: &'a Message,
        start: usize,
        end: usize,
        seen: &mut Seen,
        pending: &mut Pending<'a>,
    ) -> Walk<()> {
        let buf = self.buf.get(..end).ok_or(Stop::Broken)?;
        let mut pos = start;
        while pos < end {
            let (number, wire_type, next) = read_key(buf, pos)?;
            pos = next;
            let Some((index, field)) = msg.lookup(number) else {
                pos = skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?;
                continue;
            };
            let field = *field;
            if field.oneof != NO_ONEOF {
                // Setting a member clears the one set before it.
                match pending.oneofs.insert(field.oneof, index) {
                    Some(previous) if previous != index => {
                        pending.children.remove(&previous);
                    }
                    _ => {}
                }
            }
            if field.required != NOT_REQUIRED {
                seen.set(field.required);
            }
            let body = match (field.shape, wire_type) {
                (Shape::Message, 2) => {
                    let (body_start, body_end) = read_len(buf, pos)?;
                    pos = body_end;
                    Some((body_start, body_end))
                }
                (Shape::Group, 3) => {
                    let target = self.plan(field.target)?;
                    let (body_end, after) = self.group_end(target, buf, pos, number)?;
                    let body = (pos, body_end);
                    pos = after;
                    Some(body)
                }
                (Shape::Map, _) => {
                    // Any tag reads as a length-delimited entry.
                    let (body_start, body_end) = read_len(buf, pos)?;
                    pos = body_end;
                    let entry = self.plan(field.target)?;
                    if entry.can_fail {
                        let key = self.entry_key(entry, body_start, body_end)?;
                        let child = pending
                            .children
                            .entry(index)
                            .or_insert_with(|| Child::Map(HashMap::new()));
                        if let Child::Map(entries) = child {
                            entries.insert(key, (body_start, body_end));
                        }
                    }
                    None
                }
                _ => {
                    pos = skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?;
                    None
                }
            };
            let Some(body) = body else {
                continue;
            };
            let target = self.plan(field.target)?;
            if !target.can_fail {
                continue;
            }
            let child = pending.children.entry(index).or_insert_with(|| {
                if field.repeated {
                    Child::List(Vec::new())
                } else {
                    Child::Singular(Vec::new())
                }
            });
            match child {
                Child::Singular(spans) | Child::List(spans) => spans.push(body),
                Child::Map(_) => {}
            }
        }
        if pos != end {
            return Err(Stop::Broken);
        }
        Ok(())
    }

    /// Finds the end of a group body starting at `pos`: the position of its
    /// end-group tag and the position after it. Known fields are framed as
    /// the decoder frames them (a map entry is length-delimited whatever its
    /// tag; a known group by its own plan).
    fn group_end(
        &self,
        msg: &'a Message,
        buf: &[u8],
        mut pos: usize,
        group: u32,
    ) -> Walk<(usize, usize)> {
        loop {
            let at = pos;
            let (number, wire_type, next) = read_key(buf, pos)?;
            pos = next;
            if wire_type == 4 {
                if number == group {
                    return Ok((at, pos));
                }
                return Err(Stop::Broken);
            }
            pos = match msg.lookup(number) {
                Some((_, field)) if field.shape == Shape::Map => read_len(buf, pos)?.1,
                Some((_, field)) if field.shape == Shape::Group && wire_type == 3 => {
                    let target = self.plan(field.target)?;
                    self.group_end(target, buf, pos, number)?.1
                }
                _ => skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?,
            };
        }
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

    /// Settles the value of one map entry (the entry's value fields merge).
    fn map_value(&mut self, entry: &'a Message, (start, end): Span) -> Walk<()> {
        let Some((_, value_field)) = entry.lookup(2) else {
            return Ok(());
        };
        let value_field = *value_field;
        if value_field.shape != Shape::Message {
            return Ok(());
        }
        let value = self.plan(value_field.target)?;
        let buf = self.buf.get(..end).ok_or(Stop::Broken)?;
        let mut spans = Vec::new();
        let mut pos = start;
        while pos < end {
            let (number, wire_type, next) = read_key(buf, pos)?;
            pos = next;
            if number == 2 && wire_type == 2 {
                let (s, e) = read_len(buf, pos)?;
                spans.push((s, e));
                pos = e;
            } else {
                pos = skip(buf, pos, number, wire_type, 100, Budget::GroupsOnly)?;
            }
        }
        let label = if self.report.is_some() {
            key_label(entry, buf.get(start..end).ok_or(Stop::Broken)?)
        } else {
            String::new()
        };
        // An entry without a value holds an empty message.
        self.nested(&label, |walk| walk.message(value, &spans))
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
