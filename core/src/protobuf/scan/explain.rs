//! The slow path: the same walk as the fast scan, naming every problem with
//! its path. It keeps going where the framing allows: a broken nested message
//! ends that message, and its parent carries on after it.

use super::plan::{Field, KeyKind, Message, Shape, Tables, NOT_REQUIRED};
use super::reference::push_name;
use super::verdict::Budget;
use super::wire::{
    read_key, read_len, read_varint, skip_varint, wire_type_name, KeyError, LenError, VarintError,
};
use super::{Violation, ViolationKind};

/// A problem found while skipping a value.
type Problem = (ViolationKind, String);

/// One detailed walk over one payload.
pub(super) struct Detail<'a> {
    tables: &'a Tables,
    reject_unknown: bool,
    path: String,
    /// The declared type of the field whose value is being read.
    type_name: &'static str,
    /// Problems that make the payload undecodable (or refused unknown fields).
    pub(super) structural: Vec<Violation>,
    /// Required fields missing from one occurrence of a message.
    pub(super) required: Vec<Violation>,
}

impl<'a> Detail<'a> {
    /// A walker over these tables.
    pub(super) fn new(tables: &'a Tables, reject_unknown: bool) -> Detail<'a> {
        Detail {
            tables,
            reject_unknown,
            path: String::new(),
            type_name: "",
            structural: Vec::new(),
            required: Vec::new(),
        }
    }

    fn push(&mut self, kind: ViolationKind, message: String) {
        // Bounded, so a hostile payload cannot make the report (and the
        // memory behind it) as large as itself.
        if self.structural.len() < super::MAX_VIOLATIONS {
            self.structural
                .push(Violation::new(self.path.clone(), kind, message));
        }
    }

    fn push_required(&mut self, violation: Violation) {
        if self.required.len() < super::MAX_VIOLATIONS {
            self.required.push(violation);
        }
    }

    fn message(&self, index: u32) -> Option<&'a Message> {
        self.tables.messages.get(index as usize)
    }

    /// Walks a top-level payload.
    pub(super) fn root(&mut self, buf: &[u8]) {
        if let Some(root) = self.message(0) {
            self.body(root, buf, 0, 100, 0);
        }
    }

    /// Mirrors `Fast::body`; `None` when the framing is lost (the caller
    /// cannot know where this body ends).
    fn body(
        &mut self,
        msg: &Message,
        buf: &[u8],
        start: usize,
        depth: u32,
        group: u32,
    ) -> Option<usize> {
        let mut pos = start;
        let mut counts = vec![0usize; msg.fields.len()];
        let mut seen = vec![false; msg.required_names.len()];
        loop {
            if pos >= buf.len() {
                if group != 0 {
                    self.push(
                        ViolationKind::Wire,
                        format!("group not terminated: no end-group tag for field {group}"),
                    );
                    return None;
                }
                break;
            }
            let (number, wire_type, next) = match read_key(buf, pos) {
                Ok(key) => key,
                Err(error) => {
                    self.push(ViolationKind::Wire, key_error_text(error));
                    return None;
                }
            };
            pos = next;
            if wire_type == 4 && group != 0 {
                if number == group {
                    break;
                }
                self.push(
                    ViolationKind::Wire,
                    format!("end-group tag for field {number} inside group field {group}"),
                );
                return None;
            }
            match msg.lookup(number) {
                Some((index, field)) => {
                    let field = *field;
                    let at = self.path.len();
                    let info = msg.info.get(index)?;
                    push_name(&mut self.path, &info.name);
                    self.type_name = info.type_name;
                    let count = counts.get_mut(index)?;
                    let result = self.field(&field, number, wire_type, buf, pos, depth, count);
                    self.path.truncate(at);
                    pos = result?;
                    if field.required != NOT_REQUIRED {
                        if let Some(flag) = seen.get_mut(field.required as usize) {
                            *flag = true;
                        }
                    }
                }
                None => {
                    if self.reject_unknown {
                        self.push(
                            ViolationKind::UnknownField,
                            format!(
                                "unknown field {number} ({} wire type) refused",
                                wire_type_name(wire_type)
                            ),
                        );
                    }
                    match skip(buf, pos, number, wire_type, depth, Budget::GroupsOnly) {
                        Ok(next) => pos = next,
                        Err((kind, message)) => {
                            self.push(kind, format!("in unknown field {number}: {message}"));
                            return None;
                        }
                    }
                }
            }
        }
        for (name, present) in msg.required_names.iter().zip(&seen) {
            if !present {
                let mut path = self.path.clone();
                push_name(&mut path, name);
                self.push_required(Violation::new(
                    path,
                    ViolationKind::Required,
                    "required field missing".to_owned(),
                ));
            }
        }
        Some(pos)
    }

    /// Mirrors `Fast::field`. The path already names the field; `count` is
    /// the number of elements a repeated field has had so far.
    #[allow(clippy::too_many_arguments)]
    fn field(
        &mut self,
        field: &Field,
        number: u32,
        wire_type: u8,
        buf: &[u8],
        pos: usize,
        depth: u32,
        count: &mut usize,
    ) -> Option<usize> {
        let at = self.path.len();
        if field.repeated && field.shape != Shape::Map {
            self.path.push_str(&format!("[{count}]"));
        }
        let result = self.value(field, number, wire_type, buf, pos, depth, count);
        self.path.truncate(at);
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn value(
        &mut self,
        field: &Field,
        number: u32,
        wire_type: u8,
        buf: &[u8],
        pos: usize,
        depth: u32,
        count: &mut usize,
    ) -> Option<usize> {
        match (field.shape, wire_type) {
            (Shape::Varint, 0) => {
                *count += 1;
                self.varint(buf, pos)
            }
            (Shape::Fixed32, 5) => {
                *count += 1;
                self.fixed(buf, pos, 4)
            }
            (Shape::Fixed64, 1) => {
                *count += 1;
                self.fixed(buf, pos, 8)
            }
            (Shape::Str, 2) => {
                *count += 1;
                let (start, end) = self.len(buf, pos)?;
                if std::str::from_utf8(buf.get(start..end)?).is_err() {
                    self.push(
                        ViolationKind::Utf8,
                        "invalid UTF-8 in string field".to_owned(),
                    );
                }
                Some(end)
            }
            (Shape::Bytes, 2) => {
                *count += 1;
                Some(self.len(buf, pos)?.1)
            }
            (Shape::Message, 2) => {
                *count += 1;
                if depth == 0 {
                    self.push(ViolationKind::TooDeep, "nesting deeper than 100".to_owned());
                    return Some(self.len(buf, pos)?.1);
                }
                let (start, end) = self.len(buf, pos)?;
                let body = buf.get(start..end)?;
                if let Some(msg) = self.message(field.target) {
                    self.body(msg, body, 0, depth - 1, 0);
                }
                Some(end)
            }
            (Shape::Group, 3) => {
                *count += 1;
                if depth == 0 {
                    self.push(ViolationKind::TooDeep, "nesting deeper than 100".to_owned());
                    return None;
                }
                let msg = self.message(field.target)?;
                self.body(msg, buf, pos, depth - 1, number)
            }
            (Shape::Map, _) => {
                let (start, end) = self.len(buf, pos)?;
                let body = buf.get(start..end)?;
                let entry = self.message(field.target)?;
                let at = self.path.len();
                self.path.push_str(&key_label(entry, body));
                self.map_entry(entry, body, depth);
                self.path.truncate(at);
                Some(end)
            }
            (Shape::Varint, 2) if field.packable => {
                let (start, end) = self.len(buf, pos)?;
                let body = buf.get(start..end)?;
                let mut at = 0;
                while at < body.len() {
                    match skip_varint(body, at) {
                        Ok(next) => at = next,
                        Err(error) => {
                            self.push(
                                ViolationKind::Wire,
                                format!("{} in packed field (element {count})", varint_text(error)),
                            );
                            return Some(end);
                        }
                    }
                    *count += 1;
                }
                Some(end)
            }
            (Shape::Fixed32 | Shape::Fixed64, 2) if field.packable => {
                let width = if field.shape == Shape::Fixed32 { 4 } else { 8 };
                let (start, end) = self.len(buf, pos)?;
                let len = end - start;
                if len % width != 0 {
                    self.push(
                        ViolationKind::Wire,
                        format!("packed field length {len} is not a multiple of {width} bytes"),
                    );
                }
                *count += len / width;
                Some(end)
            }
            _ => {
                let type_name = self.type_name;
                self.push(
                    ViolationKind::Wire,
                    format!("wire type {wire_type} does not match field type {type_name}"),
                );
                skip(buf, pos, number, wire_type, depth, Budget::GroupsOnly).ok()
            }
        }
    }

    /// Mirrors `Fast::map_entry`; the path already carries the key.
    fn map_entry(&mut self, entry: &Message, buf: &[u8], depth: u32) {
        let mut pos = 0;
        let mut has_value = false;
        let mut count = 0;
        while pos < buf.len() {
            let (number, wire_type, next) = match read_key(buf, pos) {
                Ok(key) => key,
                Err(error) => {
                    self.push(
                        ViolationKind::Wire,
                        format!("in map entry: {}", key_error_text(error)),
                    );
                    return;
                }
            };
            pos = next;
            let known = match entry.lookup(number) {
                Some((index, field)) if number == 1 || number == 2 => {
                    self.type_name = entry.info.get(index).map_or("", |i| i.type_name);
                    Some(*field)
                }
                _ => None,
            };
            let result = match known {
                Some(field) => {
                    has_value |= number == 2;
                    let at = self.path.len();
                    if number == 1 {
                        self.path.push_str(".<key>");
                    }
                    let result = self.value(&field, number, wire_type, buf, pos, depth, &mut count);
                    self.path.truncate(at);
                    result
                }
                None => {
                    if self.reject_unknown {
                        self.push(
                            ViolationKind::UnknownField,
                            format!(
                                "unknown field {number} ({} wire type) in map entry refused",
                                wire_type_name(wire_type)
                            ),
                        );
                    }
                    match skip(buf, pos, number, wire_type, depth, Budget::EveryField) {
                        Ok(next) => Some(next),
                        Err((kind, message)) => {
                            self.push(
                                kind,
                                format!("in unknown field {number} of map entry: {message}"),
                            );
                            None
                        }
                    }
                }
            };
            match result {
                Some(next) => pos = next,
                None => return,
            }
        }
        if !has_value && entry.entry_value_needs_fields {
            let value_plan = entry
                .lookup(2)
                .and_then(|(_, field)| self.message(field.target));
            if let Some(value_plan) = value_plan {
                for name in value_plan.required_names.iter() {
                    let mut path = self.path.clone();
                    push_name(&mut path, name);
                    self.push_required(Violation::new(
                        path,
                        ViolationKind::Required,
                        "required field missing".to_owned(),
                    ));
                }
            }
        }
    }

    fn varint(&mut self, buf: &[u8], pos: usize) -> Option<usize> {
        match skip_varint(buf, pos) {
            Ok(next) => Some(next),
            Err(error) => {
                self.push(ViolationKind::Wire, varint_text(error).to_owned());
                None
            }
        }
    }

    fn fixed(&mut self, buf: &[u8], pos: usize, width: usize) -> Option<usize> {
        let left = buf.len().saturating_sub(pos);
        if left < width {
            self.push(
                ViolationKind::Wire,
                format!("truncated {}-bit value: {left} of {width} bytes", width * 8),
            );
            return None;
        }
        Some(pos + width)
    }

    fn len(&mut self, buf: &[u8], pos: usize) -> Option<(usize, usize)> {
        match read_len(buf, pos) {
            Ok(span) => Some(span),
            Err(error) => {
                self.push(ViolationKind::Wire, len_error_text(error));
                None
            }
        }
    }
}

/// `["key"]` or `[key]` for a map entry, from its last well-formed key
/// (the key prost keeps); the key type's default when there is none.
pub(super) fn key_label(entry: &Message, body: &[u8]) -> String {
    let kind = entry
        .lookup(1)
        .and_then(|(index, _)| entry.info.get(index))
        .map_or(KeyKind::None, |info| info.key);
    let mut label = match kind {
        KeyKind::Str => "[\"\"]".to_owned(),
        KeyKind::Bool => "[false]".to_owned(),
        _ => "[0]".to_owned(),
    };
    let mut pos = 0;
    while pos < body.len() {
        let Ok((number, wire_type, next)) = read_key(body, pos) else {
            break;
        };
        pos = next;
        if number == 1 {
            if let Some(found) = decode_key(kind, wire_type, body, pos) {
                label = found;
            }
        }
        match skip(body, pos, number, wire_type, 100, Budget::GroupsOnly) {
            Ok(next) => pos = next,
            Err(_) => break,
        }
    }
    label
}

/// Decodes a map key for a path; `None` if the wire type does not fit.
fn decode_key(kind: KeyKind, wire_type: u8, buf: &[u8], pos: usize) -> Option<String> {
    let fixed = |width: usize| -> Option<u64> {
        let bytes = buf.get(pos..pos.checked_add(width)?)?;
        let mut value = 0u64;
        for (i, &b) in bytes.iter().enumerate() {
            value |= u64::from(b) << (8 * i);
        }
        Some(value)
    };
    let text = match (kind, wire_type) {
        (KeyKind::Str, 2) => {
            let (start, end) = read_len(buf, pos).ok()?;
            let bytes = buf.get(start..end)?;
            return Some(format!("[{:?}]", String::from_utf8_lossy(bytes)));
        }
        (KeyKind::Bool, 0) => (read_varint(buf, pos).ok()?.0 != 0).to_string(),
        (KeyKind::I32, 0) => (read_varint(buf, pos).ok()?.0 as i32).to_string(),
        (KeyKind::I64, 0) => (read_varint(buf, pos).ok()?.0 as i64).to_string(),
        (KeyKind::U32, 0) => (read_varint(buf, pos).ok()?.0 as u32).to_string(),
        (KeyKind::U64, 0) => read_varint(buf, pos).ok()?.0.to_string(),
        (KeyKind::S32, 0) => {
            let raw = read_varint(buf, pos).ok()?.0 as u32;
            (((raw >> 1) as i32) ^ -((raw & 1) as i32)).to_string()
        }
        (KeyKind::S64, 0) => {
            let raw = read_varint(buf, pos).ok()?.0;
            (((raw >> 1) as i64) ^ -((raw & 1) as i64)).to_string()
        }
        (KeyKind::F32, 5) => (fixed(4)? as u32).to_string(),
        (KeyKind::SF32, 5) => (fixed(4)? as u32 as i32).to_string(),
        (KeyKind::F64, 1) => fixed(8)?.to_string(),
        (KeyKind::SF64, 1) => (fixed(8)? as i64).to_string(),
        _ => return None,
    };
    Some(format!("[{text}]"))
}

/// Skips a value by wire type with the fast path's rules ([`Budget`]),
/// saying what was wrong when it cannot.
fn skip(
    buf: &[u8],
    pos: usize,
    number: u32,
    wire_type: u8,
    depth: u32,
    budget: Budget,
) -> Result<usize, Problem> {
    let too_deep = || (ViolationKind::TooDeep, "nesting deeper than 100".to_owned());
    if budget == Budget::EveryField && depth == 0 {
        return Err(too_deep());
    }
    let malformed = |message: String| (ViolationKind::Wire, message);
    match wire_type {
        0 => skip_varint(buf, pos).map_err(|e| malformed(varint_text(e).to_owned())),
        1 | 5 => {
            let width = if wire_type == 1 { 8 } else { 4 };
            let left = buf.len().saturating_sub(pos);
            if left < width {
                return Err(malformed(format!(
                    "truncated {}-bit value: {left} of {width} bytes",
                    width * 8
                )));
            }
            Ok(pos + width)
        }
        2 => read_len(buf, pos)
            .map(|(_, end)| end)
            .map_err(|e| malformed(len_error_text(e))),
        3 => {
            if depth == 0 {
                return Err(too_deep());
            }
            let mut pos = pos;
            loop {
                if pos >= buf.len() {
                    return Err(malformed(format!(
                        "group not terminated: no end-group tag for field {number}"
                    )));
                }
                let (inner, inner_wire_type, next) =
                    read_key(buf, pos).map_err(|e| malformed(key_error_text(e)))?;
                pos = next;
                if inner_wire_type == 4 {
                    if inner == number {
                        return Ok(pos);
                    }
                    return Err(malformed(format!(
                        "end-group tag for field {inner} inside group field {number}"
                    )));
                }
                pos = skip(buf, pos, inner, inner_wire_type, depth - 1, budget)?;
            }
        }
        _ => Err(malformed(format!(
            "end-group tag for field {number} outside any group"
        ))),
    }
}

fn varint_text(error: VarintError) -> &'static str {
    match error {
        VarintError::Truncated => "truncated varint",
        VarintError::Overlong => "varint longer than 10 bytes or overflowing 64 bits",
    }
}

fn key_error_text(error: KeyError) -> String {
    match error {
        KeyError::Varint(e) => format!("{} in tag", varint_text(e)),
        KeyError::TooLarge => "tag does not fit in 32 bits".to_owned(),
        KeyError::WireType(w) => format!("invalid wire type {w}"),
        KeyError::FieldZero => "invalid field number 0".to_owned(),
    }
}

fn len_error_text(error: LenError) -> String {
    match error {
        LenError::Varint(e) => format!("{} in length", varint_text(e)),
        LenError::OutOfBounds { len, remaining } => {
            format!("length {len} exceeds the {remaining} bytes remaining")
        }
    }
}
