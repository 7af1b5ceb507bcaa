//! Resolution for protobuf: a plan by field number, run over the wire
//! bytes. Protobuf reads by number already, so a field both messages
//! declare keeps its bytes when the target's type reads them with the
//! same value (the same type, or a wire-compatible widening: `int32` to
//! `int64`, `uint32` to `uint64` or `int64`, `sint32` to `sint64`, `bool`
//! to any varint integer, an enum to an `int32`/`int64` and back, `string`
//! to `bytes`), and a message field is resolved recursively. Reading, a
//! narrowing pair (or another type) is refused when the plan is made;
//! writing back, a narrowing is checked per value (refused with its path
//! when the value does not fit), so the bytes stay the same. Enums resolve
//! by number (an open enum keeps a number it lacks, as protobuf does).
//! Fields the target does not declare are kept (as protobuf keeps unknown
//! fields) unless `PlanOptions::drop_unknown_fields`. A target's proto2
//! `required` field the source lacks makes the pair unresolvable.

use std::collections::HashMap;

use prost_reflect::{Cardinality, FieldDescriptor, Kind, MessageDescriptor};

use crate::resolution::{max_output, refused, too_large, Direction, PlanPath, Unresolvable};
use crate::violation::{Violation, ViolationKind};

/// What becomes of one source field.
#[derive(Debug, Clone)]
enum Act {
    /// Its bytes, as they are.
    Keep,
    /// Left out.
    Drop,
    /// Its bytes, once the value is checked to fit the target.
    Check(Fits),
    /// A message, resolved by this message plan.
    Nested(usize),
}

/// A value check written back (varints keep their bytes when they fit).
#[derive(Debug, Clone, Copy)]
enum Fits {
    /// An `int64` (or `uint64`) varint that must fit `int32`.
    Int32,
    /// A varint that must fit `uint32`.
    Uint32,
    /// A varint that must be 0 or 1.
    Bool,
    /// A zigzag varint that must fit `sint32`.
    Sint32,
    /// A varint that must not be negative as `int64` (read as `uint64`).
    NonNegative,
    /// Bytes that must be UTF-8.
    Utf8,
}

#[derive(Debug)]
struct MessagePlan {
    /// Source field number to what becomes of it, and the reader's name
    /// of the field (for paths).
    fields: HashMap<u32, (Act, String)>,
    /// Fields the source does not declare.
    unknown: Act,
    /// Every field keeps its bytes: the message is copied as it is.
    identity: bool,
}

/// One way of a protobuf pair's plan.
#[derive(Debug)]
pub(crate) struct ProtoWay {
    messages: Vec<MessagePlan>,
    root: usize,
}

struct Builder {
    direction: Direction,
    drop_unknown: bool,
    messages: Vec<MessagePlan>,
    memo: HashMap<(String, String), usize>,
    path: PlanPath,
}

fn kind_name(field: &FieldDescriptor) -> String {
    let base = match field.kind() {
        Kind::Message(m) => format!("message {}", m.full_name()),
        Kind::Enum(e) => format!("enum {}", e.full_name()),
        other => format!("{other:?}").to_lowercase(),
    };
    if field.is_list() {
        format!("repeated {base}")
    } else if field.is_map() {
        format!("map {base}")
    } else {
        base
    }
}

/// The varint integer kinds (an enum is an `int32` on the wire).
fn varint_class(kind: &Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Int32 | Kind::Enum(_) => "int32",
        Kind::Int64 => "int64",
        Kind::Uint32 => "uint32",
        Kind::Uint64 => "uint64",
        Kind::Bool => "bool",
        _ => return None,
    })
}

impl Builder {
    fn reading(&self) -> bool {
        self.direction == Direction::Read
    }

    fn message(
        &mut self,
        s: &MessageDescriptor,
        t: &MessageDescriptor,
    ) -> Result<usize, Unresolvable> {
        let key = (s.full_name().to_owned(), t.full_name().to_owned());
        if let Some(&id) = self.memo.get(&key) {
            return Ok(id);
        }
        if self.path.depth() > 100 {
            return Err(self.path.fail("the messages nest deeper than 100 levels"));
        }
        let id = self.messages.len();
        self.messages.push(MessagePlan {
            fields: HashMap::new(),
            unknown: Act::Keep,
            identity: false,
        });
        self.memo.insert(key, id);
        let unknown = if self.drop_unknown {
            Act::Drop
        } else {
            Act::Keep
        };
        let mut fields = HashMap::new();
        let mut identity = !self.drop_unknown;
        for sf in s.fields() {
            let tf = t.get_field(sf.number());
            let reader_name = match (&tf, self.reading()) {
                (Some(tf), true) => tf.name().to_owned(),
                _ => sf.name().to_owned(),
            };
            let act = match tf {
                None => unknown.clone(),
                Some(tf) => {
                    self.path.push(reader_name.clone());
                    let act = self.field(&sf, &tf);
                    self.path.pop();
                    act?
                }
            };
            identity &= match &act {
                Act::Keep | Act::Check(_) => true,
                Act::Nested(n) => *n != id && self.messages[*n].identity,
                Act::Drop => false,
            };
            fields.insert(sf.number(), (act, reader_name));
        }
        for tf in t.fields() {
            if tf.cardinality() == Cardinality::Required && s.get_field(tf.number()).is_none() {
                let name = tf.name().to_owned();
                if self.reading() {
                    self.path.push(name.clone());
                }
                let err = self.path.fail(format!(
                    "the {} has no field number {} and the {} requires it ({name})",
                    if self.reading() { "writer" } else { "reader" },
                    tf.number(),
                    if self.reading() { "reader" } else { "writer" },
                ));
                return Err(err);
            }
        }
        // Checks alone keep the bytes, but the run must see each value.
        let checks = fields.values().any(|(a, _)| matches!(a, Act::Check(_)));
        self.messages[id] = MessagePlan {
            fields,
            unknown,
            identity: identity && !checks,
        };
        Ok(id)
    }

    fn field(&mut self, s: &FieldDescriptor, t: &FieldDescriptor) -> Result<Act, Unresolvable> {
        let mismatch = |b: &Self| {
            b.path.fail(format!(
                "cannot {} {} as {}",
                if b.reading() { "read" } else { "write back" },
                kind_name(s),
                kind_name(t)
            ))
        };
        if s.is_list() != t.is_list() || s.is_map() != t.is_map() {
            return Err(mismatch(self));
        }
        if s.is_map() {
            // A map is a repeated entry message: keys and values alike.
            let (Kind::Message(se), Kind::Message(te)) = (s.kind(), t.kind()) else {
                return Err(mismatch(self));
            };
            let key = self.field(&se.map_entry_key_field(), &te.map_entry_key_field())?;
            if !matches!(key, Act::Keep) {
                return Err(mismatch(self));
            }
            self.path.push("*");
            let value = self.field(&se.map_entry_value_field(), &te.map_entry_value_field());
            self.path.pop();
            return Ok(match value? {
                Act::Keep => Act::Keep,
                _ => {
                    let id = self.message(&se, &te)?;
                    Act::Nested(id)
                }
            });
        }
        let (sk, tk) = (s.kind(), t.kind());
        let back = !self.reading();
        Ok(match (&sk, &tk) {
            (Kind::Message(sm), Kind::Message(tm)) => {
                let id = self.message(sm, tm)?;
                if self.messages[id].identity {
                    Act::Keep
                } else {
                    Act::Nested(id)
                }
            }
            (Kind::String, Kind::String)
            | (Kind::Bytes, Kind::Bytes)
            | (Kind::String, Kind::Bytes) => Act::Keep,
            (Kind::Bytes, Kind::String) => Act::Check(Fits::Utf8),
            (Kind::Sint32, Kind::Sint32)
            | (Kind::Sint64, Kind::Sint64)
            | (Kind::Sint32, Kind::Sint64) => Act::Keep,
            (Kind::Sint64, Kind::Sint32) if back => Act::Check(Fits::Sint32),
            (Kind::Float, Kind::Float)
            | (Kind::Double, Kind::Double)
            | (Kind::Fixed32, Kind::Fixed32)
            | (Kind::Fixed64, Kind::Fixed64)
            | (Kind::Sfixed32, Kind::Sfixed32)
            | (Kind::Sfixed64, Kind::Sfixed64) => Act::Keep,
            _ => match (varint_class(&sk), varint_class(&tk)) {
                (Some(sc), Some(tc)) => {
                    // Widening keeps every value; the rest is checked
                    // written back, refused read.
                    let widening = sc == tc
                        || matches!(
                            (sc, tc),
                            ("int32", "int64")
                                | ("uint32", "uint64")
                                | ("uint32", "int64")
                                | ("bool", _)
                        );
                    if widening {
                        Act::Keep
                    } else if back {
                        Act::Check(match tc {
                            "int32" => Fits::Int32,
                            "uint32" => Fits::Uint32,
                            "bool" => Fits::Bool,
                            "uint64" => Fits::NonNegative,
                            _ => Fits::NonNegative,
                        })
                    } else {
                        return Err(self.path.fail(format!(
                            "narrowing {} to {}",
                            kind_name(s),
                            kind_name(t)
                        )));
                    }
                }
                _ => return Err(mismatch(self)),
            },
        })
    }
}

impl ProtoWay {
    /// The plan reading `source`'s messages as `target`'s.
    pub(crate) fn new(
        source: &MessageDescriptor,
        target: &MessageDescriptor,
        direction: Direction,
        drop_unknown: bool,
    ) -> Result<ProtoWay, Unresolvable> {
        let mut builder = Builder {
            direction,
            drop_unknown,
            messages: Vec::new(),
            memo: HashMap::new(),
            path: PlanPath::default(),
        };
        let root = builder.message(source, target)?;
        Ok(ProtoWay {
            messages: builder.messages,
            root,
        })
    }

    /// Whether every message keeps its bytes (the way is the identity).
    pub(crate) fn is_identity(&self) -> bool {
        self.messages[self.root].identity
    }

    /// The output needs no check: values are checked as they are read.
    pub(crate) fn checks_output(&self) -> bool {
        false
    }

    /// Runs the plan over a message of the source.
    pub(crate) fn run(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>> {
        let mut out = Vec::with_capacity(payload.len());
        let limit = max_output();
        match self.message(self.root, payload, &mut out, 0, limit) {
            Ok(()) => Ok(out),
            Err(Stop::Wire) => Err(vec![Violation::new(
                "",
                ViolationKind::Wire,
                "the payload is not well-formed protobuf",
            )]),
            Err(Stop::TooLarge) => Err(too_large()),
            Err(Stop::Refused(path, why)) => {
                let path: Vec<&str> = path.iter().rev().map(String::as_str).collect();
                Err(refused(path.join("."), why))
            }
        }
    }

    fn message(
        &self,
        plan: usize,
        bytes: &[u8],
        out: &mut Vec<u8>,
        depth: usize,
        limit: usize,
    ) -> Result<(), Stop> {
        if depth > 100 {
            return Err(Stop::Wire);
        }
        let plan = &self.messages[plan];
        if plan.identity {
            return emit(out, bytes, limit);
        }
        let mut pos = 0;
        while pos < bytes.len() {
            let start = pos;
            let tag = varint(bytes, &mut pos)?;
            let number = u32::try_from(tag >> 3).map_err(|_| Stop::Wire)?;
            let wire = (tag & 7) as u8;
            let value_start = pos;
            skip(bytes, &mut pos, wire, number, depth)?;
            let (act, name) = match plan.fields.get(&number) {
                Some((act, name)) => (act, Some(name)),
                None => (&plan.unknown, None),
            };
            let at = |stop: Stop| stop.at(|| name.cloned().unwrap_or_else(|| number.to_string()));
            match act {
                Act::Keep => emit(out, &bytes[start..pos], limit)?,
                Act::Drop => {}
                Act::Check(fits) => {
                    check(*fits, wire, &bytes[value_start..pos]).map_err(at)?;
                    emit(out, &bytes[start..pos], limit)?;
                }
                Act::Nested(inner) => {
                    if wire != 2 {
                        return Err(Stop::Wire);
                    }
                    let mut p = value_start;
                    let len = varint(bytes, &mut p)? as usize;
                    let body = &bytes[p..p + len];
                    let mut sub = Vec::with_capacity(body.len());
                    self.message(*inner, body, &mut sub, depth + 1, limit)
                        .map_err(at)?;
                    emit(out, &bytes[start..value_start], limit)?;
                    let mut head = Vec::with_capacity(10);
                    put_varint(sub.len() as u64, &mut head);
                    emit(out, &head, limit)?;
                    emit(out, &sub, limit)?;
                }
            }
        }
        Ok(())
    }
}

enum Stop {
    Wire,
    TooLarge,
    Refused(Vec<String>, String),
}

impl Stop {
    fn at(mut self, segment: impl FnOnce() -> String) -> Stop {
        if let Stop::Refused(path, _) = &mut self {
            path.push(segment());
        }
        self
    }
}

fn emit(out: &mut Vec<u8>, bytes: &[u8], limit: usize) -> Result<(), Stop> {
    if out.len() + bytes.len() > limit {
        return Err(Stop::TooLarge);
    }
    out.extend_from_slice(bytes);
    Ok(())
}

fn varint(bytes: &[u8], pos: &mut usize) -> Result<u64, Stop> {
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        let byte = *bytes.get(*pos).ok_or(Stop::Wire)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Stop::Wire)
}

fn put_varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Skips one value of wire type `wire` (a group through its end tag).
fn skip(bytes: &[u8], pos: &mut usize, wire: u8, number: u32, depth: usize) -> Result<(), Stop> {
    match wire {
        0 => {
            varint(bytes, pos)?;
        }
        1 | 5 => {
            let n = if wire == 1 { 8 } else { 4 };
            if bytes.len() - *pos < n {
                return Err(Stop::Wire);
            }
            *pos += n;
        }
        2 => {
            let len = usize::try_from(varint(bytes, pos)?).map_err(|_| Stop::Wire)?;
            if bytes.len() - *pos < len {
                return Err(Stop::Wire);
            }
            *pos += len;
        }
        3 => {
            if depth > 100 {
                return Err(Stop::Wire);
            }
            loop {
                let tag = varint(bytes, pos)?;
                let (n, w) = ((tag >> 3) as u32, (tag & 7) as u8);
                if w == 4 {
                    if n != number {
                        return Err(Stop::Wire);
                    }
                    break;
                }
                skip(bytes, pos, w, n, depth + 1)?;
            }
        }
        _ => return Err(Stop::Wire),
    }
    Ok(())
}

/// Whether the value (one varint, or a packed run of them, or bytes)
/// fits the target.
fn check(fits: Fits, wire: u8, value: &[u8]) -> Result<(), Stop> {
    let one = |v: u64| -> Result<(), Stop> {
        let ok = match fits {
            Fits::Int32 => i32::try_from(v as i64).is_ok(),
            Fits::Uint32 => v <= u64::from(u32::MAX),
            Fits::Bool => v <= 1,
            Fits::Sint32 => {
                let n = ((v >> 1) as i64) ^ -((v & 1) as i64);
                i32::try_from(n).is_ok()
            }
            Fits::NonNegative => (v as i64) >= 0,
            Fits::Utf8 => true,
        };
        if ok {
            Ok(())
        } else {
            Err(Stop::Refused(
                Vec::new(),
                format!("{v} does not fit the other version's type"),
            ))
        }
    };
    let mut pos = 0;
    match (fits, wire) {
        (Fits::Utf8, 2) => {
            let len = varint(value, &mut pos)? as usize;
            let body = value.get(pos..pos + len).ok_or(Stop::Wire)?;
            std::str::from_utf8(body).map_err(|_| {
                Stop::Refused(
                    Vec::new(),
                    "the bytes are not UTF-8, as a string must be".into(),
                )
            })?;
            Ok(())
        }
        (_, 0) => one(varint(value, &mut pos)?),
        (_, 2) => {
            // Packed.
            let len = varint(value, &mut pos)? as usize;
            let end = pos + len;
            while pos < end {
                one(varint(value, &mut pos)?)?;
            }
            Ok(())
        }
        _ => Err(Stop::Wire),
    }
}
