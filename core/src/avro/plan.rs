//! The scanner's fast path: a schema compiled into a flat program of
//! operations, run over a datum to answer only *whether* it is valid.
//!
//! The program is a table of sequences ([`Seq`]), one per type that starts a
//! value of its own (the root, an array's items, a map's values, each union
//! branch, and a record that is too large or recursive to be copied in
//! place); a sequence is a run of [`Op`]s over a slice of one vector.
//! Records are flattened into the sequence that holds them: a record of a
//! string, an int and a double is three operations, not a call. Arrays,
//! maps and unions name the sequence of their items by index.
//!
//! The run keeps nothing but the byte position: a failure is the unit
//! [`Bad`], with no message and no path. The report of an invalid datum
//! comes from a second, slower walk over the schema model
//! ([`super::scan::Plan::violations`]), which says where and why; the two
//! accept exactly the same datums (the differential tests hold them to
//! it).
//!
//! The nesting limit is checked once per sequence: a record, array, map or
//! union copied `o` levels deep into a sequence entered at depth `d` is at
//! depth `d + o`, and every one of them is reached when the sequence runs
//! to its end, so the sequence needs `d + need <= MAX_DEPTH` with `need`
//! one more than its deepest such offset.

use std::collections::HashMap;

use super::model::{AvroSchema, Logical, Node, NodeId};
use super::values::{decimal_fits, is_uuid, Counts, MAX_DEPTH};

/// A record copied into the sequence that holds it at most this many
/// operations large (counting each record as one); a larger one, or a
/// recursive one, gets a sequence of its own and a [`Op::Call`].
const INLINE_BUDGET: u64 = 256;

/// One step of a sequence.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// A boolean: the byte 0 or 1.
    Bool,
    /// An int: a zigzag varint of at most 5 bytes, within 32 bits.
    Int,
    /// A long: a zigzag varint of at most 10 bytes, within 64 bits.
    Long,
    /// This many bytes, whatever they hold (floats, doubles, fixeds;
    /// consecutive ones merged).
    Skip(u32),
    /// A length-prefixed `bytes`.
    Bytes,
    /// A length-prefixed UTF-8 `string`.
    Str,
    /// A `string` that is a UUID.
    Uuid,
    /// A `bytes` decimal of this precision.
    Decimal(u32),
    /// A `fixed` decimal: the index of its size and precision in
    /// [`Program::fixed_decimals`].
    FixedDecimal(u32),
    /// An enum index below this count.
    Enum(u32),
    /// A union index, then the branch's sequence; `at` is the offset of
    /// the union in the sequence's records, its branches
    /// `branches[first..first + count]`.
    Union { at: u32, first: u32, count: u32 },
    /// An array's blocks, each item the sequence `items`.
    Array { at: u32, items: u32 },
    /// A map's blocks, each entry a string key and the sequence `values`.
    Map { at: u32, values: u32 },
    /// The record of sequence `seq`, at depth offset `at`.
    Call { at: u32, seq: u32 },
}

/// A sequence: its operations `ops[start..end]`, the depth it needs
/// (`need`, see the module's note) and the smallest encoding of its type
/// (bytes), with which a block's count is checked against the bytes left.
#[derive(Debug, Clone, Copy)]
struct Seq {
    start: u32,
    end: u32,
    need: u32,
    min_size: u64,
}

/// Why a run stopped: the datum is not valid (the slow walk says why).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bad;

type Run = Result<(), Bad>;

/// A schema compiled into sequences of operations.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    ops: Vec<Op>,
    seqs: Vec<Seq>,
    branches: Vec<u32>,
    fixed_decimals: Vec<(usize, u32)>,
    root: u32,
    /// The items an array, the entries a map, may declare in all.
    counts: Counts,
}

struct Compiler<'a> {
    schema: &'a AvroSchema,
    min_size: &'a [u64],
    ops: Vec<Op>,
    seqs: Vec<Seq>,
    branches: Vec<u32>,
    fixed_decimals: Vec<(usize, u32)>,
    memo: HashMap<NodeId, u32>,
    queue: Vec<(u32, NodeId)>,
    sizes: HashMap<NodeId, u64>,
}

impl Compiler<'_> {
    /// The sequence of `node`, made (later) if it is new.
    fn seq(&mut self, node: NodeId) -> u32 {
        if let Some(&seq) = self.memo.get(&node) {
            return seq;
        }
        let seq = self.seqs.len() as u32;
        self.seqs.push(Seq {
            start: 0,
            end: 0,
            need: 0,
            min_size: self.min_size[node as usize],
        });
        self.memo.insert(node, seq);
        self.queue.push((seq, node));
        seq
    }

    /// How many operations `node` takes copied in place (a record counts
    /// one more than its fields); `u64::MAX` for a recursive record or one
    /// nested past the depth limit.
    fn flat_size(&mut self, node: NodeId, depth: u32) -> u64 {
        let Node::Record(record) = self.schema.node(node) else {
            return 1;
        };
        if let Some(&size) = self.sizes.get(&node) {
            return size;
        }
        if depth >= MAX_DEPTH {
            return u64::MAX;
        }
        // In progress: a record met again inside itself is recursive.
        self.sizes.insert(node, u64::MAX);
        let mut size: u64 = 1;
        for field in &record.fields {
            size = size.saturating_add(self.flat_size(field.ty, depth + 1));
            if size > INLINE_BUDGET {
                size = u64::MAX;
                break;
            }
        }
        self.sizes.insert(node, size);
        size
    }

    fn push_skip(&mut self, n: usize, from: usize) {
        let mut n = n;
        while n > 0 {
            if self.ops.len() > from {
                if let Some(Op::Skip(last)) = self.ops.last_mut() {
                    let room = (u32::MAX - *last) as usize;
                    let add = n.min(room);
                    *last += add as u32;
                    n -= add;
                    if n == 0 {
                        return;
                    }
                }
            }
            let add = n.min(u32::MAX as usize);
            self.ops.push(Op::Skip(add as u32));
            n -= add;
        }
    }

    /// Emits the operations of `node` at depth offset `at` into the sequence
    /// begun at `from`; `root` when `node` is the sequence's own type.
    fn emit(&mut self, node: NodeId, at: u32, need: &mut u32, from: usize, root: bool) {
        let schema = self.schema;
        match schema.node(node) {
            Node::Null => {}
            Node::Boolean => self.ops.push(Op::Bool),
            Node::Int(_) => self.ops.push(Op::Int),
            Node::Long(_) => self.ops.push(Op::Long),
            Node::Float => self.push_skip(4, from),
            Node::Double => self.push_skip(8, from),
            Node::Bytes(Logical::Decimal { precision, .. }) => {
                self.ops.push(Op::Decimal(*precision))
            }
            Node::Bytes(_) => self.ops.push(Op::Bytes),
            Node::String(Logical::Uuid) => self.ops.push(Op::Uuid),
            Node::String(_) => self.ops.push(Op::Str),
            Node::Fixed(fixed) => match fixed.logical {
                Logical::Decimal { precision, .. } => {
                    let index = self.fixed_decimals.len() as u32;
                    self.fixed_decimals.push((fixed.size, precision));
                    self.ops.push(Op::FixedDecimal(index));
                }
                _ => self.push_skip(fixed.size, from),
            },
            Node::Enum(e) => self
                .ops
                .push(Op::Enum(u32::try_from(e.symbols.len()).unwrap_or(u32::MAX))),
            Node::Union(branches) => {
                *need = (*need).max(at + 1);
                let seqs: Vec<u32> = branches.iter().map(|&b| self.seq(b)).collect();
                let first = self.branches.len() as u32;
                self.branches.extend_from_slice(&seqs);
                self.ops.push(Op::Union {
                    at,
                    first,
                    count: seqs.len() as u32,
                });
            }
            Node::Array(items) => {
                *need = (*need).max(at + 1);
                let items = self.seq(*items);
                self.ops.push(Op::Array { at, items });
            }
            Node::Map(values) => {
                *need = (*need).max(at + 1);
                let values = self.seq(*values);
                self.ops.push(Op::Map { at, values });
            }
            Node::Record(record) => {
                if !root && self.flat_size(node, at) > INLINE_BUDGET {
                    let seq = self.seq(node);
                    self.ops.push(Op::Call { at, seq });
                    return;
                }
                *need = (*need).max(at + 1);
                for field in &record.fields {
                    self.emit(field.ty, at + 1, need, from, false);
                }
            }
        }
    }
}

impl Program {
    /// Compiles `schema`, whose types' smallest encodings are `min_size`;
    /// a collection may declare at most `counts` items.
    pub(crate) fn new(schema: &AvroSchema, min_size: &[u64], counts: Counts) -> Program {
        let mut compiler = Compiler {
            schema,
            min_size,
            ops: Vec::new(),
            seqs: Vec::new(),
            branches: Vec::new(),
            fixed_decimals: Vec::new(),
            memo: HashMap::new(),
            queue: Vec::new(),
            sizes: HashMap::new(),
        };
        let root = compiler.seq(schema.root);
        while let Some((seq, node)) = compiler.queue.pop() {
            let start = compiler.ops.len();
            let mut need = 0;
            compiler.emit(node, 0, &mut need, start, true);
            let entry = &mut compiler.seqs[seq as usize];
            entry.start = start as u32;
            entry.end = compiler.ops.len() as u32;
            entry.need = need;
        }
        Program {
            ops: compiler.ops,
            seqs: compiler.seqs,
            branches: compiler.branches,
            fixed_decimals: compiler.fixed_decimals,
            root,
            counts,
        }
    }

    /// Whether `payload` is exactly one datum of the schema.
    #[inline]
    pub(crate) fn is_valid(&self, payload: &[u8]) -> bool {
        let mut cursor = Cursor {
            bytes: payload,
            pos: 0,
        };
        self.enter(self.root, &mut cursor, 0).is_ok() && cursor.pos == payload.len()
    }

    /// Runs sequence `seq` entered at depth `depth`.
    #[inline]
    fn enter(&self, seq: u32, cursor: &mut Cursor<'_>, depth: u32) -> Run {
        self.enter_seq(self.seqs[seq as usize], cursor, depth)
    }

    #[inline]
    fn enter_seq(&self, seq: Seq, cursor: &mut Cursor<'_>, depth: u32) -> Run {
        if depth + seq.need > MAX_DEPTH {
            return Err(Bad);
        }
        self.run(
            &self.ops[seq.start as usize..seq.end as usize],
            cursor,
            depth,
        )
    }

    fn run(&self, ops: &[Op], cursor: &mut Cursor<'_>, depth: u32) -> Run {
        for op in ops {
            match *op {
                Op::Union { at, first, count } => {
                    let index = cursor.long_value()?;
                    if index < 0 || index as u64 >= u64::from(count) {
                        return Err(Bad);
                    }
                    let branch = self.seqs[self.branches[(first + index as u32) as usize] as usize];
                    // A `null` branch has nothing to read; one of a single
                    // primitive is read here, without entering it.
                    match branch.end - branch.start {
                        0 => {}
                        1 if branch.need == 0 => {
                            self.leaf(self.ops[branch.start as usize], cursor)?
                        }
                        _ => self.enter_seq(branch, cursor, depth + at + 1)?,
                    }
                }
                Op::Array { at, items } => self.blocks(cursor, items, 0, depth + at + 1)?,
                Op::Map { at, values } => self.blocks(cursor, values, 1, depth + at + 1)?,
                Op::Call { at, seq } => self.enter(seq, cursor, depth + at)?,
                primitive => self.leaf(primitive, cursor)?,
            }
        }
        Ok(())
    }

    /// A primitive operation (one that holds no sequence).
    #[inline(always)]
    fn leaf(&self, op: Op, cursor: &mut Cursor<'_>) -> Run {
        match op {
            Op::Str => {
                let bytes = cursor.length_prefixed()?;
                if !bytes.is_ascii() && std::str::from_utf8(bytes).is_err() {
                    return Err(Bad);
                }
            }
            Op::Int => cursor.int()?,
            Op::Long => cursor.long()?,
            Op::Skip(n) => cursor.skip(n as usize)?,
            Op::Bool => {
                if cursor.byte()? > 1 {
                    return Err(Bad);
                }
            }
            Op::Bytes => {
                cursor.length_prefixed()?;
            }
            Op::Uuid => {
                if !is_uuid(cursor.length_prefixed()?) {
                    return Err(Bad);
                }
            }
            Op::Decimal(precision) => {
                if !fits(cursor.length_prefixed()?, precision) {
                    return Err(Bad);
                }
            }
            Op::FixedDecimal(index) => {
                let (size, precision) = self.fixed_decimals[index as usize];
                if !fits(cursor.take(size)?, precision) {
                    return Err(Bad);
                }
            }
            Op::Enum(count) => {
                let index = cursor.int_value()?;
                if index < 0 || index as u32 >= count {
                    return Err(Bad);
                }
            }
            // Never given one: these hold sequences.
            Op::Union { .. } | Op::Array { .. } | Op::Map { .. } | Op::Call { .. } => {
                return Err(Bad)
            }
        }
        Ok(())
    }

    /// The blocks of an array (`key` 0) or a map (`key` 1: each entry a
    /// string key, then the value), each item the sequence `items` entered
    /// at `depth`.
    fn blocks(&self, cursor: &mut Cursor<'_>, items: u32, key: u64, depth: u32) -> Run {
        let seq = self.seqs[items as usize];
        let ops = &self.ops[seq.start as usize..seq.end as usize];
        let per_item = seq.min_size.saturating_add(key);
        let most = if key == 0 {
            self.counts.array
        } else {
            self.counts.map
        };
        let mut total: u64 = 0;
        loop {
            let count = cursor.long_value()?;
            if count == 0 {
                return Ok(());
            }
            let (count, end) = if count < 0 {
                if count == i64::MIN {
                    return Err(Bad);
                }
                let size = cursor.long_value()?;
                if size < 0 {
                    return Err(Bad);
                }
                let size = usize::try_from(size).unwrap_or(usize::MAX);
                if size > cursor.remaining() {
                    return Err(Bad);
                }
                (count.unsigned_abs(), Some(cursor.pos + size))
            } else {
                (count as u64, None)
            };
            total = total.saturating_add(count);
            if total > most {
                return Err(Bad);
            }
            if per_item == 0 {
                // Items whose encoding is always empty: nothing to read.
                if end.is_some_and(|end| end != cursor.pos) {
                    return Err(Bad);
                }
                continue;
            }
            if count > (cursor.remaining() as u64) / per_item {
                return Err(Bad);
            }
            if depth + seq.need > MAX_DEPTH {
                return Err(Bad);
            }
            if key == 0 && seq.need == 0 && ops.len() == 1 {
                // Items of one primitive (an array of longs): read here.
                let op = ops[0];
                for _ in 0..count {
                    self.leaf(op, cursor)?;
                }
            } else {
                for _ in 0..count {
                    if key == 1 {
                        let key = cursor.length_prefixed()?;
                        if !key.is_ascii() && std::str::from_utf8(key).is_err() {
                            return Err(Bad);
                        }
                    }
                    self.run(ops, cursor, depth)?;
                }
            }
            if end.is_some_and(|end| end != cursor.pos) {
                return Err(Bad);
            }
        }
    }
}

/// Whether a decimal's unscaled value, big-endian two's complement, has
/// at most `precision` digits (8 bytes or fewer here, the rest by
/// [`decimal_fits`]).
#[inline]
fn fits(bytes: &[u8], precision: u32) -> bool {
    if bytes.len() > 8 {
        return decimal_fits(bytes, precision);
    }
    if bytes.is_empty() {
        return true;
    }
    let mut value: i64 = if bytes[0] & 0x80 != 0 { -1 } else { 0 };
    for &b in bytes {
        value = (value << 8) | i64::from(b);
    }
    match 10u64.checked_pow(precision) {
        Some(limit) => value.unsigned_abs() < limit,
        None => true,
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    #[inline(always)]
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    #[inline(always)]
    fn byte(&mut self) -> Result<u8, Bad> {
        let byte = *self.bytes.get(self.pos).ok_or(Bad)?;
        self.pos += 1;
        Ok(byte)
    }

    /// A varint's raw bits: one byte inline, longer ones out of line.
    #[inline(always)]
    fn varint(&mut self, max_bytes: usize) -> Result<u64, Bad> {
        let byte = *self.bytes.get(self.pos).ok_or(Bad)?;
        if byte < 0x80 {
            self.pos += 1;
            return Ok(u64::from(byte));
        }
        self.varint_long(max_bytes)
    }

    #[inline(never)]
    fn varint_long(&mut self, max_bytes: usize) -> Result<u64, Bad> {
        let mut value: u64 = 0;
        for i in 0..max_bytes {
            let byte = *self.bytes.get(self.pos).ok_or(Bad)?;
            self.pos += 1;
            let low = u64::from(byte & 0x7f);
            let shift = 7 * i as u32;
            if shift == 63 && low > 1 {
                return Err(Bad);
            }
            value |= low << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Bad)
    }

    #[inline(always)]
    fn long(&mut self) -> Run {
        self.varint(10).map(drop)
    }

    #[inline(always)]
    fn long_value(&mut self) -> Result<i64, Bad> {
        let raw = self.varint(10)?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    #[inline(always)]
    fn int(&mut self) -> Run {
        self.int_value().map(drop)
    }

    #[inline(always)]
    fn int_value(&mut self) -> Result<i32, Bad> {
        let raw = self.varint(5)?;
        if raw > u64::from(u32::MAX) {
            return Err(Bad);
        }
        let raw = raw as u32;
        Ok(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    }

    #[inline(always)]
    fn skip(&mut self, n: usize) -> Run {
        if n > self.remaining() {
            return Err(Bad);
        }
        self.pos += n;
        Ok(())
    }

    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<&'a [u8], Bad> {
        if n > self.remaining() {
            return Err(Bad);
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    #[inline(always)]
    fn length_prefixed(&mut self) -> Result<&'a [u8], Bad> {
        let len = self.long_value()?;
        if len < 0 {
            return Err(Bad);
        }
        self.take(usize::try_from(len).unwrap_or(usize::MAX))
    }
}
