//! The validating Avro binary scanner: a schema compiled once into a
//! [`Plan`], and a payload checked in one pass over its bytes without
//! decoding it into values. Nothing is allocated for a valid payload; the
//! path and message of a refusal are built only on the way out of a failing
//! walk.
//!
//! The checks, from the specification's binary encoding:
//!
//! * `int` and `long` are zigzag varints of at most 5 and 10 bytes whose
//!   value fits 32 and 64 bits (the bits above are refused, not dropped);
//! * a `boolean` is the byte 0 or 1; a `float` 4 bytes, a `double` 8;
//! * `bytes` and `string` lengths are not negative and within the payload;
//!   a `string` is UTF-8;
//! * array and map blocks: a count, then its items; a negative count is
//!   followed by the block's byte size, which must be exactly what the
//!   block's items take; a count of `i64::MIN` is refused (its magnitude does
//!   not exist); map keys are strings;
//! * an array or a map declares, across its blocks, at most the items
//!   `apache-avro`'s decoder would hold ([`Counts`], from
//!   [`crate::limits::max_avro_collection_bytes`]): items whose encoding
//!   is empty (`null`, an empty record) cost no bytes, and nothing else
//!   bounds their count;
//! * union and enum indexes are within the branches and the symbols;
//! * a `fixed` has its size;
//! * types nest at most [`MAX_DEPTH`] deep (a recursive schema's payload);
//! * nothing follows the datum;
//! * logical types: a decimal's unscaled value has at most its precision's
//!   digits; a `uuid` string is a UUID in its 8-4-4-4-12 hexadecimal form.

use std::sync::Arc;

use super::model::{AvroSchema, Logical, Node, NodeId};
use super::plan::Program;
pub use super::values::MAX_DEPTH;
use super::values::{decimal_fits, is_uuid, Counts};
use crate::violation::{Violation, ViolationKind};

/// A schema compiled for scanning: its types, each type's smallest
/// encoding (a type whose smallest encoding is 0 bytes is always 0 bytes:
/// `null`, a `fixed` of size 0, a record of such), and the flat program
/// (`avro::plan`) that answers [`Plan::is_valid`].
///
/// Two walks accept the same datums: the program, which says only whether
/// a datum is valid, and the walk over the schema's types here, which
/// says where and why one is not ([`Plan::violations`]); only a refused
/// datum is walked the second time.
#[derive(Debug, Clone)]
pub struct Plan {
    schema: Arc<AvroSchema>,
    min_size: Vec<u64>,
    counts: Counts,
    program: Program,
}

/// Why a walk stopped: the problem, and the path segments collected on the
/// way out (innermost first).
#[derive(Debug)]
struct Fail {
    kind: ViolationKind,
    message: String,
    segments: Vec<String>,
}

type Walk = Result<(), Box<Fail>>;

#[cold]
fn fail(kind: ViolationKind, message: impl Into<String>) -> Box<Fail> {
    Box::new(Fail {
        kind,
        message: message.into(),
        segments: Vec::new(),
    })
}

#[cold]
fn wire(message: impl Into<String>) -> Box<Fail> {
    fail(ViolationKind::Wire, message)
}

#[cold]
fn within(mut failure: Box<Fail>, segment: impl FnOnce() -> String) -> Box<Fail> {
    failure.segments.push(segment());
    failure
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    #[inline]
    fn varint(&mut self, max_bytes: usize, what: &str) -> Result<u64, Box<Fail>> {
        let mut value: u64 = 0;
        for i in 0..max_bytes {
            let Some(&byte) = self.bytes.get(self.pos) else {
                return Err(wire(format!("the payload ends inside {what}")));
            };
            self.pos += 1;
            let low = u64::from(byte & 0x7f);
            let shift = 7 * i as u32;
            if shift == 63 && low > 1 {
                return Err(wire(format!("{what} does not fit 64 bits")));
            }
            value |= low << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(wire(format!("{what} is longer than {max_bytes} bytes")))
    }

    #[inline]
    fn long(&mut self, what: &str) -> Result<i64, Box<Fail>> {
        let raw = self.varint(10, what)?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    #[inline]
    fn int(&mut self, what: &str) -> Result<i32, Box<Fail>> {
        let raw = self.varint(5, what)?;
        if raw > u64::from(u32::MAX) {
            return Err(wire(format!("{what} does not fit 32 bits")));
        }
        let raw = raw as u32;
        Ok(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    }

    #[inline]
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Box<Fail>> {
        if n > self.remaining() {
            return Err(wire(format!(
                "{what} of {n} bytes runs past the end of the payload"
            )));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// A length-prefixed `bytes` or `string` value.
    #[inline]
    fn length_prefixed(&mut self, what: &str) -> Result<&'a [u8], Box<Fail>> {
        let len = self.long(what)?;
        if len < 0 {
            return Err(wire(format!("{what} has a negative length ({len})")));
        }
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        self.take(len, what)
    }
}

impl Plan {
    /// Compiles `schema` for scanning.
    pub fn new(schema: Arc<AvroSchema>) -> Plan {
        let mut min_size = vec![u64::MAX; schema.nodes.len()];
        // Sizes settle in a few rounds (records are the only sums, and a
        // record that holds itself holds it behind an array, a map or a
        // union, whose smallest encoding is one byte).
        for _ in 0..=schema.nodes.len() {
            let mut changed = false;
            for (i, node) in schema.nodes.iter().enumerate() {
                let size = match node {
                    Node::Null => 0,
                    Node::Float => 4,
                    Node::Double => 8,
                    Node::Fixed(f) => f.size as u64,
                    Node::Record(r) => r
                        .fields
                        .iter()
                        .map(|f| min_size[f.ty as usize])
                        .fold(0u64, u64::saturating_add),
                    _ => 1,
                };
                if size != min_size[i] {
                    min_size[i] = size;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let counts = Counts::from_limit();
        let program = Program::new(&schema, &min_size, counts);
        Plan {
            schema,
            min_size,
            counts,
            program,
        }
    }

    /// The schema read.
    #[allow(dead_code)] // used by the `unstable` re-export's users
    pub fn schema(&self) -> &AvroSchema {
        &self.schema
    }

    /// The smallest encoding of type `id`, in bytes (0: the type is always
    /// encoded in no bytes).
    pub(crate) fn min_size(&self, id: NodeId) -> u64 {
        self.min_size[id as usize]
    }

    /// The schema read, shared.
    pub fn shared_schema(&self) -> Arc<AvroSchema> {
        Arc::clone(&self.schema)
    }

    /// Whether `payload` is exactly one datum of the schema.
    #[inline]
    pub fn is_valid(&self, payload: &[u8]) -> bool {
        self.program.is_valid(payload)
    }

    fn check(&self, payload: &[u8]) -> Walk {
        let mut cursor = Cursor {
            bytes: payload,
            pos: 0,
        };
        self.walk(self.schema.root, &mut cursor, 0)?;
        if cursor.remaining() != 0 {
            return Err(wire(format!(
                "{} bytes follow the datum",
                cursor.remaining()
            )));
        }
        Ok(())
    }

    /// The violation of a payload (one: the walk stops at the first problem,
    /// after which nothing of the bytes can be read reliably); empty when it
    /// is valid.
    pub fn violations(&self, payload: &[u8]) -> Vec<Violation> {
        match self.check(payload) {
            Ok(()) => Vec::new(),
            Err(failure) => {
                let mut path = String::new();
                for segment in failure.segments.iter().rev() {
                    path.push('/');
                    path.push_str(segment);
                }
                vec![Violation::new(path, failure.kind, failure.message)]
            }
        }
    }

    fn walk(&self, id: NodeId, cursor: &mut Cursor<'_>, depth: u32) -> Walk {
        match self.schema.node(id) {
            Node::Null => Ok(()),
            Node::Boolean => match cursor.take(1, "a boolean")?[0] {
                0 | 1 => Ok(()),
                other => Err(wire(format!("a boolean is the byte 0 or 1, found {other}"))),
            },
            Node::Int(_) => cursor.int("an int").map(drop),
            Node::Long(_) => cursor.long("a long").map(drop),
            Node::Float => cursor.take(4, "a float").map(drop),
            Node::Double => cursor.take(8, "a double").map(drop),
            Node::Bytes(logical) => {
                let bytes = cursor.length_prefixed("a bytes value")?;
                check_decimal(*logical, bytes)
            }
            Node::String(logical) => {
                let bytes = cursor.length_prefixed("a string")?;
                let text = std::str::from_utf8(bytes).map_err(|_| {
                    fail(
                        ViolationKind::Utf8,
                        "a string holds bytes that are not UTF-8",
                    )
                })?;
                if *logical == Logical::Uuid && !is_uuid(text.as_bytes()) {
                    return Err(fail(
                        ViolationKind::Format,
                        format!("{:?} is not a UUID", crate::text::clip(text, 60)),
                    ));
                }
                Ok(())
            }
            Node::Fixed(fixed) => {
                let bytes = cursor.take(fixed.size, "a fixed")?;
                check_decimal(fixed.logical, bytes)
            }
            Node::Enum(e) => {
                let index = cursor.int("an enum index")?;
                if index < 0 || index as usize >= e.symbols.len() {
                    return Err(fail(
                        ViolationKind::Enum,
                        format!(
                            "enum index {index} is out of range: {} has {} symbols",
                            e.name,
                            e.symbols.len()
                        ),
                    ));
                }
                Ok(())
            }
            Node::Union(branches) => {
                let depth = self.deeper(depth)?;
                let index = cursor.long("a union index")?;
                let Some(&branch) = usize::try_from(index).ok().and_then(|i| branches.get(i))
                else {
                    return Err(wire(format!(
                        "union index {index} is out of range: the union has {} branches",
                        branches.len()
                    )));
                };
                self.walk(branch, cursor, depth)
            }
            Node::Record(record) => {
                let depth = self.deeper(depth)?;
                for field in &record.fields {
                    self.walk(field.ty, cursor, depth)
                        .map_err(|f| within(f, || field.name.clone()))?;
                }
                Ok(())
            }
            Node::Array(items) => {
                let depth = self.deeper(depth)?;
                let mut index: u64 = 0;
                let per_item = self.min_size[*items as usize];
                let most = (self.counts.array, "an array", "items");
                self.blocks(cursor, per_item, most, |plan, cursor| {
                    let at = index;
                    index += 1;
                    plan.walk(*items, cursor, depth)
                        .map_err(|f| within(f, || at.to_string()))
                })
            }
            Node::Map(values) => {
                let depth = self.deeper(depth)?;
                // An entry has a key: at least one byte.
                let per_item = self.min_size[*values as usize].saturating_add(1);
                let most = (self.counts.map, "a map", "entries");
                self.blocks(cursor, per_item, most, |plan, cursor| {
                    let key = cursor.length_prefixed("a map key")?;
                    let key = std::str::from_utf8(key).map_err(|_| {
                        fail(
                            ViolationKind::Utf8,
                            "a map key holds bytes that are not UTF-8",
                        )
                    })?;
                    plan.walk(*values, cursor, depth)
                        .map_err(|f| within(f, || token(key)))
                })
            }
        }
    }

    #[inline]
    fn deeper(&self, depth: u32) -> Result<u32, Box<Fail>> {
        if depth >= MAX_DEPTH {
            return Err(fail(
                ViolationKind::TooDeep,
                format!("the datum nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(depth + 1)
    }

    /// The blocks of an array or a map, each item read by `item`; `most`
    /// the items they may declare in all, with the words for the
    /// collection and its items.
    #[inline]
    fn blocks(
        &self,
        cursor: &mut Cursor<'_>,
        per_item: u64,
        most: (u64, &str, &str),
        mut item: impl FnMut(&Plan, &mut Cursor<'_>) -> Walk,
    ) -> Walk {
        let mut total: u64 = 0;
        loop {
            let count = cursor.long("a block count")?;
            if count == 0 {
                return Ok(());
            }
            let (count, end) = if count < 0 {
                if count == i64::MIN {
                    return Err(wire("a block count of -2^63 has no magnitude"));
                }
                let size = cursor.long("a block's byte size")?;
                if size < 0 {
                    return Err(wire(format!("a block's byte size is negative ({size})")));
                }
                let size = usize::try_from(size).unwrap_or(usize::MAX);
                if size > cursor.remaining() {
                    return Err(wire(format!(
                        "a block of {size} bytes runs past the end of the payload"
                    )));
                }
                (count.unsigned_abs(), Some(cursor.pos + size))
            } else {
                (count as u64, None)
            };
            total = total.saturating_add(count);
            if total > most.0 {
                let (limit, what, items) = most;
                return Err(fail(
                    ViolationKind::Bounds,
                    format!(
                        "{what} declares {total} {items} or more, past the {limit} a decoder \
                         holds (apache-avro's bound; limits::max_avro_collection_bytes)"
                    ),
                ));
            }
            if per_item == 0 {
                // Items of a type whose encoding is always empty (`null`,
                // a fixed of size 0, a record of such): nothing to read.
                if let Some(end) = end {
                    if end != cursor.pos {
                        return Err(wire(format!(
                            "a block's byte size says it ends at byte {end}, its items end at byte {}",
                            cursor.pos
                        )));
                    }
                }
                continue;
            }
            if count > (cursor.remaining() as u64) / per_item {
                return Err(wire(format!(
                    "a block of {count} items cannot fit in the {} bytes left",
                    cursor.remaining()
                )));
            }
            for _ in 0..count {
                item(self, cursor)?;
            }
            if let Some(end) = end {
                if cursor.pos != end {
                    return Err(wire(format!(
                        "a block's byte size says it ends at byte {end}, its items end at byte {}",
                        cursor.pos
                    )));
                }
            }
        }
    }
}

/// A map key as a path segment (`/` and `~` escaped as in a JSON pointer).
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A decimal's two's-complement unscaled value has at most `precision`
/// decimal digits.
#[inline]
fn check_decimal(logical: Logical, bytes: &[u8]) -> Walk {
    let Logical::Decimal { precision, .. } = logical else {
        return Ok(());
    };
    if decimal_fits(bytes, precision) {
        Ok(())
    } else {
        Err(fail(
            ViolationKind::Bounds,
            format!("the decimal's unscaled value has more than {precision} digits"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits() {
        assert!(decimal_fits(&[0x03, 0xe7], 3)); // 999
        assert!(!decimal_fits(&[0x03, 0xe8], 3)); // 1000
        assert!(decimal_fits(&[0xfc, 0x19], 3)); // -999
        assert!(!decimal_fits(&[0xfc, 0x18], 3)); // -1000
        assert!(decimal_fits(&[0xff, 0xff, 0xff], 1)); // -1
                                                       // 10^40 (133 bits) on 20 bytes
        let mut big = [0u8; 20];
        let mut v: Vec<u32> = vec![1];
        for _ in 0..40 {
            let mut carry = 0u64;
            for limb in &mut v {
                let x = u64::from(*limb) * 10 + carry;
                *limb = x as u32;
                carry = x >> 32;
            }
            if carry > 0 {
                v.push(carry as u32);
            }
        }
        for (i, limb) in v.iter().enumerate() {
            for j in 0..4 {
                let at = 19 - (i * 4 + j);
                big[at] = (limb >> (8 * j)) as u8;
            }
        }
        assert!(!decimal_fits(&big, 40));
        assert!(decimal_fits(&big, 41));
        // 10^40 - 1: 40 digits.
        let mut less = big;
        let mut i = 19;
        loop {
            if less[i] == 0 {
                less[i] = 0xff;
                i -= 1;
            } else {
                less[i] -= 1;
                break;
            }
        }
        assert!(decimal_fits(&less, 40));
        assert!(!decimal_fits(&less, 39));
        // -10^40, two's complement.
        let mut negative = big.map(|b| !b);
        for b in negative.iter_mut().rev() {
            let (v, carry) = b.overflowing_add(1);
            *b = v;
            if !carry {
                break;
            }
        }
        assert!(!decimal_fits(&negative, 40));
        assert!(decimal_fits(&negative, 41));
    }

    #[test]
    fn the_collection_bound_is_apache_avros() {
        assert_eq!(
            crate::limits::DEFAULT_MAX_AVRO_COLLECTION_BYTES,
            apache_avro::util::DEFAULT_MAX_ALLOCATION_BYTES
        );
        // The figures `limits::max_avro_collection_bytes` documents.
        let counts = Counts::from_limit();
        assert_eq!((counts.array, counts.map), (9_586_980, 6_710_886));
    }

    #[test]
    fn uuids() {
        assert!(is_uuid(b"123e4567-e89b-12d3-a456-426614174000"));
        assert!(is_uuid(b"123E4567-E89B-12D3-A456-426614174000"));
        assert!(!is_uuid(b"123e4567e89b12d3a456426614174000"));
        assert!(!is_uuid(b"123e4567-e89b-12d3-a456-42661417400g"));
        assert!(!is_uuid(b"123e4567-e89b-12d3-a456_426614174000"));
        assert!(!is_uuid(b"123e4567-e89b-12d3-a456-4266141740000"));
    }
}
