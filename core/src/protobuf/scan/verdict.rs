//! The fast path: a yes/no scan that allocates nothing.
//!
//! Every check mirrors a check `DynamicMessage::decode` makes (prost-reflect
//! 0.16 over prost 0.14); the comments name the prost function mirrored.

use super::plan::{Field, Message, Shape, Tables, NOT_REQUIRED};
use super::wire::{
    packed_varints_ok, read_key, read_len, skip_varint, KeyError, LenError, VarintError,
};

/// A structural failure: the payload does not decode. No detail: the slow
/// path (`violations`) finds it again and describes it.
#[derive(Debug)]
pub(super) struct Fail;

type Scan<T> = Result<T, Fail>;

macro_rules! fail_from {
    ($($error:ty),*) => {$(
        impl From<$error> for Fail {
            #[inline(always)]
            fn from(_: $error) -> Fail {
                Fail
            }
        }
    )*};
}
fail_from!(VarintError, KeyError, LenError);

/// One fast scan over one payload.
pub(super) struct Fast<'a> {
    tables: &'a Tables,
    reject_unknown: bool,
    /// Some occurrence of a message lacked a required field. The payload may
    /// still be valid (a later occurrence of the same singular field merges
    /// into it, a later map entry with the same key replaces it, another
    /// member of a oneof clears it): the caller settles it exactly.
    pub(super) incomplete: bool,
}

impl<'a> Fast<'a> {
    /// A scanner over these tables.
    pub(super) fn new(tables: &'a Tables, reject_unknown: bool) -> Fast<'a> {
        Fast {
            tables,
            reject_unknown,
            incomplete: false,
        }
    }

    #[inline(always)]
    fn message(&self, index: u32) -> Scan<&'a Message> {
        self.tables.messages.get(index as usize).ok_or(Fail)
    }

    /// Scans a top-level message body: all of `buf`.
    pub(super) fn root(&mut self, buf: &[u8]) -> Scan<()> {
        let root = self.message(0)?;
        // prost's `Message::merge` starts with a budget of 100 nested levels.
        self.body(root, buf, 0, 100, 0, 0).map(|_| ())
    }

    /// Scans a message body starting at `pos`: to the end of `buf` when
    /// `group` is 0, else up to and including the end-group tag of field
    /// `group`. `depth` is prost's `recurse_count` for the fields read here.
    /// Tracks required fields with index in `64 * chunk .. 64 * chunk + 64`.
    /// Returns the position after the body.
    fn body(
        &mut self,
        msg: &Message,
        buf: &[u8],
        start: usize,
        depth: u32,
        group: u32,
        chunk: u32,
    ) -> Scan<usize> {
        let mut pos = start;
        let mut seen: u64 = 0;
        let base = chunk.saturating_mul(64);
        loop {
            if pos >= buf.len() {
                if group != 0 {
                    return Err(Fail);
                }
                break;
            }
            let (number, wire_type, next) = read_key(buf, pos)?;
            pos = next;
            if wire_type == 4 && group != 0 {
                // `group::merge`: an end-group tag ends the group if it is ours.
                if number == group {
                    break;
                }
                return Err(Fail);
            }
            match msg.lookup(number) {
                Some((_, field)) => {
                    pos = if chunk == 0 {
                        self.field(field, number, wire_type, buf, pos, depth)?
                    } else {
                        // A later pass only counts this body's required
                        // fields: the first pass checked every value, nested
                        // messages included, so skip them without descending
                        // (descending again would cost a pass per level).
                        skip_known(field, buf, pos, number, wire_type, depth)?
                    };
                    let bit = field.required.wrapping_sub(base);
                    if field.required != NOT_REQUIRED && bit < 64 {
                        seen |= 1u64 << bit;
                    }
                }
                None => {
                    if self.reject_unknown {
                        return Err(Fail);
                    }
                    pos = skip(buf, pos, number, wire_type, depth, Budget::GroupsOnly)?;
                }
            }
        }
        if msg.required_count > base {
            let want = msg.required_count - base;
            let full = if want >= 64 {
                u64::MAX
            } else {
                (1u64 << want) - 1
            };
            if seen != full {
                self.incomplete = true;
            }
            if chunk == 0 {
                // More than 64 required fields: one more pass per 64, allocating nothing.
                let chunks = msg.required_count.div_ceil(64);
                for next_chunk in 1..chunks {
                    if self.incomplete {
                        break;
                    }
                    self.body(msg, buf, start, depth, group, next_chunk)?;
                }
            }
        }
        Ok(pos)
    }

    /// Scans one value of a known field whose tag has been read; returns the
    /// position after it.
    #[inline(always)]
    fn field(
        &mut self,
        field: &Field,
        number: u32,
        wire_type: u8,
        buf: &[u8],
        pos: usize,
        depth: u32,
    ) -> Scan<usize> {
        match (field.shape, wire_type) {
            // `int32::merge` and friends: `check_wire_type(Varint)`, `decode_varint`.
            (Shape::Varint, 0) => Ok(skip_varint(buf, pos)?),
            (Shape::Fixed32, 5) => fixed(buf, pos, 4),
            (Shape::Fixed64, 1) => fixed(buf, pos, 8),
            (Shape::Str, 2) => {
                let (start, end) = read_len(buf, pos)?;
                // `string::merge`: `str::from_utf8` (ASCII checked inline first).
                let body = buf.get(start..end).ok_or(Fail)?;
                if !body.is_ascii() && std::str::from_utf8(body).is_err() {
                    return Err(Fail);
                }
                Ok(end)
            }
            (Shape::Bytes, 2) => Ok(read_len(buf, pos)?.1),
            (Shape::Message, 2) => {
                // `message::merge`: `limit_reached`, then the body one level down.
                if depth == 0 {
                    return Err(Fail);
                }
                let (start, end) = read_len(buf, pos)?;
                let body = buf.get(start..end).ok_or(Fail)?;
                let msg = self.message(field.target)?;
                self.body(msg, body, 0, depth - 1, 0, 0)?;
                Ok(end)
            }
            (Shape::Group, 3) => {
                // `group::merge`: `limit_reached`, fields one level down.
                if depth == 0 {
                    return Err(Fail);
                }
                let msg = self.message(field.target)?;
                self.body(msg, buf, pos, depth - 1, number, 0)
            }
            // prost-reflect merges a map entry with `merge_loop` and never
            // checks the wire type: any tag reads as length-delimited.
            (Shape::Map, _) => {
                let (start, end) = read_len(buf, pos)?;
                let body = buf.get(start..end).ok_or(Fail)?;
                let entry = self.message(field.target)?;
                self.map_entry(entry, body, depth)?;
                Ok(end)
            }
            // A repeated scalar with a length-delimited tag: a packed run.
            (Shape::Varint, 2) if field.packable => {
                let (start, end) = read_len(buf, pos)?;
                let body = buf.get(start..end).ok_or(Fail)?;
                if !packed_varints_ok(body) {
                    return Err(Fail);
                }
                Ok(end)
            }
            (Shape::Fixed32, 2) if field.packable => packed_fixed(buf, pos, 4),
            (Shape::Fixed64, 2) if field.packable => packed_fixed(buf, pos, 8),
            // `check_wire_type` fails.
            _ => Err(Fail),
        }
    }

    /// Scans a map entry: fields 1 (key) and 2 (value), anything else skipped
    /// with prost's `skip_field` (or refused). The entry is no nesting level
    /// of its own.
    fn map_entry(&mut self, entry: &Message, buf: &[u8], depth: u32) -> Scan<()> {
        let mut pos = 0;
        let mut has_value = false;
        while pos < buf.len() {
            let (number, wire_type, next) = read_key(buf, pos)?;
            pos = next;
            match entry.lookup(number) {
                Some((_, field)) if number == 1 || number == 2 => {
                    pos = self.field(field, number, wire_type, buf, pos, depth)?;
                    has_value |= number == 2;
                }
                _ => {
                    if self.reject_unknown {
                        return Err(Fail);
                    }
                    pos = skip(buf, pos, number, wire_type, depth, Budget::EveryField)?;
                }
            }
        }
        if !has_value && entry.entry_value_needs_fields {
            // The value decodes as an empty message, lacking its required fields.
            self.incomplete = true;
        }
        Ok(())
    }
}

#[inline(always)]
fn fixed(buf: &[u8], pos: usize, width: usize) -> Scan<usize> {
    let end = pos.checked_add(width).ok_or(Fail)?;
    if end > buf.len() {
        return Err(Fail);
    }
    Ok(end)
}

#[inline]
fn packed_fixed(buf: &[u8], pos: usize, width: usize) -> Scan<usize> {
    let (start, end) = read_len(buf, pos)?;
    if (end - start) % width != 0 {
        return Err(Fail);
    }
    Ok(end)
}

/// How a skipped field spends the depth budget.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Budget {
    /// prost-reflect's `UnknownField::decode_value` (unknown fields of a
    /// message): scalars and length-delimited values need no budget; a
    /// group needs one and reads its fields one level down.
    GroupsOnly,
    /// prost's `encoding::skip_field` (unknown fields inside map entries):
    /// every field, even a varint, needs a budget.
    EveryField,
}

/// Skips an unknown field by its wire type, spending depth as `budget`
/// says.
pub(super) fn skip(
    buf: &[u8],
    pos: usize,
    number: u32,
    wire_type: u8,
    depth: u32,
    budget: Budget,
) -> Scan<usize> {
    if depth == 0 && (budget == Budget::EveryField || wire_type == 3) {
        return Err(Fail);
    }
    match wire_type {
        0 => Ok(skip_varint(buf, pos)?),
        1 => fixed(buf, pos, 8),
        2 => Ok(read_len(buf, pos)?.1),
        3 => {
            let mut pos = pos;
            loop {
                let (inner, inner_wire_type, next) = read_key(buf, pos)?;
                pos = next;
                if inner_wire_type == 4 {
                    if inner == number {
                        return Ok(pos);
                    }
                    return Err(Fail);
                }
                pos = skip(buf, pos, inner, inner_wire_type, depth - 1, budget)?;
            }
        }
        5 => fixed(buf, pos, 4),
        // A stray end-group tag.
        _ => Err(Fail),
    }
}

/// Skips a known field's value, already checked by an earlier pass: a map
/// entry is length-delimited whatever its tag says (as prost-reflect reads
/// it), anything else is skipped by its wire type.
fn skip_known(
    field: &Field,
    buf: &[u8],
    pos: usize,
    number: u32,
    wire_type: u8,
    depth: u32,
) -> Scan<usize> {
    match field.shape {
        Shape::Map => Ok(read_len(buf, pos)?.1),
        _ => skip(buf, pos, number, wire_type, depth, Budget::GroupsOnly),
    }
}
