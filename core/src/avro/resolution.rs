//! Reading one version's bytes as another's, and writing them back:
//! Avro's schema resolution run as a plan over the bytes, no value built.
//! A [`Transcoder`] is made once per (source, target) pair and direction;
//! it refuses a pair that cannot be resolved, with the reader's data path,
//! and turns each datum the source schema wrote into the bytes the target
//! schema would have written for the value read: fields matched by name
//! and by the reader's aliases, target-only fields at their defaults
//! (writing back, else null where the writer's field is a union with
//! null), source-only fields skipped, promotions widened (and, writing
//! back, narrowed when the value fits, else refused with its path), enums
//! by symbol (reading, a symbol the reader lacks takes the reader's
//! default; writing back, one the writer lacks is refused), union branches
//! matched, arrays and maps written as one block (as the Java, Python and
//! fastavro writers do).
//!
//! [`Transcoder::transcode`] checks the datum with the validating scanner
//! first, so a broken datum is refused with its violation, never half
//! transcoded; [`Transcoder::run_checked`] trusts a caller that has.
//! Output is bounded by [`max_output`]: an array declaring billions of
//! empty items is refused before it is written, not written.

use std::collections::HashMap;
use std::sync::Arc;

use super::model::{AvroSchema, Node, NodeId};
use super::scan::Plan;
use super::values::MAX_DEPTH;
use super::write::{self, zigzag, Branch};
pub use crate::resolution::Unresolvable;
use crate::resolution::{max_output, refused, too_large, Direction, PlanPath};
use crate::violation::{Violation, ViolationKind};

type StepId = usize;

/// A narrowing written back, checked per value.
#[derive(Debug, Clone, Copy)]
enum Narrow {
    /// `long` to `int`: must fit 32 bits.
    LongToInt,
    /// `float` to `int` or `long` (`bits`): integral, in range.
    FloatToInteger { long: bool },
    /// `double` to `int` or `long`.
    DoubleToInteger { long: bool },
    /// `double` to `float`: exactly representable.
    DoubleToFloat,
}

/// How one source value becomes one target value.
#[derive(Debug)]
enum Step {
    /// The encodings are the same: the source's bytes of this node, copied.
    Copy(NodeId),
    /// `int` or `long` to `float`.
    ToFloat,
    /// `int` or `long` to `double`.
    LongToDouble,
    /// `float` to `double`.
    FloatToDouble,
    /// `bytes` to `string`: the bytes must be UTF-8.
    BytesToString,
    /// Writing back a widened value.
    Narrow(Narrow),
    /// Source fields in the source's order, each read into a target field
    /// or skipped; then the target's fields written in its order, the
    /// missing ones at their defaults. `in_order`: the matched target
    /// fields come in the source's order, so each is written as it is
    /// read (defaults before it), with no buffer.
    Record {
        fields: Vec<(NodeId, Option<(usize, StepId)>)>,
        defaults: Vec<Option<Vec<u8>>>,
        /// Per target field, its name in the reader's data (for paths).
        names: Vec<String>,
        in_order: bool,
    },
    /// Source symbol index to target symbol index (`None`: refused).
    Enum(Vec<Option<u32>>),
    Array(StepId),
    Map(StepId),
    /// A source union: per branch, the target's union index to write (when
    /// the target is a union) and the branch's step; `None`: a branch the
    /// target cannot hold (writing back), refused when met.
    SourceUnion(Vec<Option<(Option<u32>, StepId)>>),
    /// A target union read from a source that is not one: the branch
    /// index, then the value.
    ToUnion(u32, StepId),
}

/// A resolution plan for one (source, target) pair, one way.
#[derive(Debug)]
pub struct Transcoder {
    source: Plan,
    steps: Vec<Step>,
    root: StepId,
    /// Per step: for an array or map step, the source node of its items.
    source_items: Vec<Option<NodeId>>,
}

struct Builder<'a> {
    w: &'a AvroSchema,
    r: &'a AvroSchema,
    direction: Direction,
    steps: Vec<Step>,
    memo: HashMap<(NodeId, NodeId), StepId>,
    path: PlanPath,
}

fn short(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(_, s)| s)
}

fn same_name(a: &str, b: &str) -> bool {
    a == b || short(a) == short(b)
}

impl Builder<'_> {
    fn reading(&self) -> bool {
        self.direction == Direction::Read
    }

    fn fail(&self, reason: String) -> Unresolvable {
        self.path.fail(reason)
    }

    fn push(&mut self, step: Step) -> StepId {
        self.steps.push(step);
        self.steps.len() - 1
    }

    /// Whether named types match: by name, or by the reader's aliases
    /// (the target's reading, the source's writing back).
    fn names_match(&self, w: &Node, r: &Node) -> bool {
        match (w.name(), r.name()) {
            (Some(wn), Some(rn)) => {
                same_name(wn, rn)
                    || if self.reading() {
                        r.aliases().iter().any(|a| same_name(a, wn))
                    } else {
                        w.aliases().iter().any(|a| same_name(a, rn))
                    }
            }
            _ => false,
        }
    }

    /// The step reading source node `w` as target node `r` (memoized per
    /// pair, reserved before its parts so that recursion meets it).
    fn step(&mut self, w: NodeId, r: NodeId) -> Result<StepId, Unresolvable> {
        if let Some(&id) = self.memo.get(&(w, r)) {
            return Ok(id);
        }
        if self.path.depth() > 256 {
            return Err(self.fail("the schemas nest deeper than 256 levels".into()));
        }
        let wn = self.w.node(w);
        let rn = self.r.node(r);
        let verb = if self.reading() { "read" } else { "write back" };
        let mismatch = |b: &Self| {
            b.fail(format!(
                "cannot {verb} {} as {}",
                describe(wn),
                describe(rn)
            ))
        };
        let back = !self.reading();
        let step = match (wn, rn) {
            (Node::Union(branches), _) => {
                // Reserved first: a branch may lead back here.
                let id = self.push(Step::SourceUnion(Vec::new()));
                self.memo.insert((w, r), id);
                let mut plan = Vec::with_capacity(branches.len());
                for &branch in branches.iter() {
                    let one = match rn {
                        Node::Union(_) => self
                            .union_branch(branch, r)
                            .map(|(index, step)| (Some(index), step)),
                        _ => self.attempt(branch, r).map(|step| (None, step)),
                    };
                    match one {
                        Ok(pair) => plan.push(Some(pair)),
                        // Writing back, a reader branch the writer lacks is
                        // refused when a value takes it.
                        Err(_) if back => plan.push(None),
                        Err(err) => return Err(err),
                    }
                }
                if plan.iter().all(Option::is_none) {
                    return Err(mismatch(self));
                }
                self.steps[id] = Step::SourceUnion(plan);
                return Ok(id);
            }
            (_, Node::Union(_)) => {
                let (index, step) = self.union_branch(w, r)?;
                Step::ToUnion(index, step)
            }
            (Node::Null, Node::Null)
            | (Node::Boolean, Node::Boolean)
            | (Node::Int(_), Node::Int(_) | Node::Long(_))
            | (Node::Long(_), Node::Long(_))
            | (Node::Float, Node::Float)
            | (Node::Double, Node::Double)
            | (Node::Bytes(_) | Node::String(_), Node::Bytes(_))
            | (Node::String(_), Node::String(_)) => Step::Copy(w),
            (Node::Int(_) | Node::Long(_), Node::Float) => Step::ToFloat,
            (Node::Int(_) | Node::Long(_), Node::Double) => Step::LongToDouble,
            (Node::Float, Node::Double) => Step::FloatToDouble,
            (Node::Bytes(_), Node::String(_)) => Step::BytesToString,
            (Node::Long(_), Node::Int(_)) if back => Step::Narrow(Narrow::LongToInt),
            (Node::Float, Node::Int(_)) if back => {
                Step::Narrow(Narrow::FloatToInteger { long: false })
            }
            (Node::Float, Node::Long(_)) if back => {
                Step::Narrow(Narrow::FloatToInteger { long: true })
            }
            (Node::Double, Node::Int(_)) if back => {
                Step::Narrow(Narrow::DoubleToInteger { long: false })
            }
            (Node::Double, Node::Long(_)) if back => {
                Step::Narrow(Narrow::DoubleToInteger { long: true })
            }
            (Node::Double, Node::Float) if back => Step::Narrow(Narrow::DoubleToFloat),
            (Node::Fixed(wf), Node::Fixed(rf)) => {
                if !self.names_match(wn, rn) {
                    return Err(self.fail(format!(
                        "cannot {verb} fixed {} as fixed {}",
                        wf.name, rf.name
                    )));
                }
                if wf.size != rf.size {
                    return Err(self.fail(format!(
                        "cannot {verb} fixed {} of {} bytes as {} bytes",
                        wf.name, wf.size, rf.size
                    )));
                }
                Step::Copy(w)
            }
            (Node::Enum(we), Node::Enum(re)) => {
                if !self.names_match(wn, rn) {
                    return Err(self.fail(format!(
                        "cannot {verb} enum {} as enum {}",
                        we.name, re.name
                    )));
                }
                let default = re
                    .default
                    .as_ref()
                    .filter(|_| self.reading())
                    .and_then(|d| re.symbols.iter().position(|s| s == d));
                let mut map = Vec::with_capacity(we.symbols.len());
                for symbol in &we.symbols {
                    match re.symbols.iter().position(|s| s == symbol).or(default) {
                        Some(i) => map.push(Some(i as u32)),
                        None if back => map.push(None),
                        None => {
                            return Err(self.fail(format!(
                                "the reader's enum {} has no symbol {symbol} and no default",
                                re.name
                            )))
                        }
                    }
                }
                Step::Enum(map)
            }
            (Node::Array(wi), Node::Array(ri)) => {
                let id = self.push(Step::Array(0));
                self.memo.insert((w, r), id);
                self.path.push("*");
                let items = self.step(*wi, *ri);
                self.path.pop();
                self.steps[id] = Step::Array(items?);
                return Ok(id);
            }
            (Node::Map(wv), Node::Map(rv)) => {
                let id = self.push(Step::Map(0));
                self.memo.insert((w, r), id);
                self.path.push("*");
                let values = self.step(*wv, *rv);
                self.path.pop();
                self.steps[id] = Step::Map(values?);
                return Ok(id);
            }
            (Node::Record(wr), Node::Record(rr)) => {
                if !self.names_match(wn, rn) {
                    return Err(self.fail(format!(
                        "cannot {verb} record {} as record {}",
                        wr.name, rr.name
                    )));
                }
                let id = self.push(Step::Record {
                    fields: Vec::new(),
                    defaults: Vec::new(),
                    names: Vec::new(),
                    in_order: true,
                });
                self.memo.insert((w, r), id);
                let mut matched = vec![false; rr.fields.len()];
                let mut names: Vec<String> = rr.fields.iter().map(|f| f.name.clone()).collect();
                let mut fields = Vec::with_capacity(wr.fields.len());
                for wf in &wr.fields {
                    let target = rr
                        .fields
                        .iter()
                        .position(|rf| rf.name == wf.name)
                        .or_else(|| {
                            if self.reading() {
                                rr.fields
                                    .iter()
                                    .position(|rf| rf.aliases.contains(&wf.name))
                            } else {
                                rr.fields
                                    .iter()
                                    .position(|rf| wf.aliases.contains(&rf.name))
                            }
                        });
                    match target {
                        Some(i) if !matched[i] => {
                            matched[i] = true;
                            let reader_name = if self.reading() {
                                &rr.fields[i].name
                            } else {
                                &wf.name
                            };
                            names[i] = reader_name.clone();
                            self.path.push(reader_name.clone());
                            let step = self.step(wf.ty, rr.fields[i].ty);
                            self.path.pop();
                            fields.push((wf.ty, Some((i, step?))));
                        }
                        _ => fields.push((wf.ty, None)),
                    }
                }
                let mut defaults = Vec::with_capacity(rr.fields.len());
                for (i, rf) in rr.fields.iter().enumerate() {
                    if matched[i] {
                        defaults.push(None);
                        continue;
                    }
                    let mut bytes = Vec::new();
                    match &rf.default {
                        Some(default) => {
                            write::encode(self.r, rf.ty, default, &mut bytes, Branch::First)
                                .map_err(|why| {
                                    self.fail(format!(
                                        "the default of {} cannot be written: {why}",
                                        rf.name
                                    ))
                                })?;
                        }
                        None => match null_branch(self.r, rf.ty).filter(|_| back) {
                            Some(index) => zigzag(i64::from(index), &mut bytes),
                            None if back => {
                                return Err(self.fail(format!(
                                    "the writer's field {} is not the reader's, and has no \
                                     default and no null to write back",
                                    rf.name
                                )))
                            }
                            None => {
                                self.path.push(rf.name.clone());
                                let err = self.fail(format!(
                                    "the writer has no field {} and the reader's has no default",
                                    rf.name
                                ));
                                self.path.pop();
                                return Err(err);
                            }
                        },
                    }
                    defaults.push(Some(bytes));
                }
                let order: Vec<usize> = fields
                    .iter()
                    .filter_map(|(_, t)| t.map(|(i, _)| i))
                    .collect();
                let in_order = order.windows(2).all(|w| w[0] < w[1]);
                self.steps[id] = Step::Record {
                    fields,
                    defaults,
                    names,
                    in_order,
                };
                return Ok(id);
            }
            _ => return Err(mismatch(self)),
        };
        let id = self.push(step);
        self.memo.insert((w, r), id);
        Ok(id)
    }

    /// `step`, undone when refused (a candidate that may not be taken).
    fn attempt(&mut self, w: NodeId, r: NodeId) -> Result<StepId, Unresolvable> {
        let before = self.steps.len();
        let memo = self.memo.clone();
        let result = self.step(w, r);
        if result.is_err() {
            self.steps.truncate(before);
            self.memo = memo;
        }
        result
    }

    /// The first branch of target union `r` that reads `w` (a branch of the
    /// same kind and name first, as Avro's resolution picks it), with its
    /// index.
    fn union_branch(&mut self, w: NodeId, r: NodeId) -> Result<(u32, StepId), Unresolvable> {
        let Node::Union(branches) = self.r.node(r) else {
            unreachable!("union_branch is called with a target union")
        };
        let branches = branches.clone();
        let wn = self.w.node(w);
        // Same kind (and name, for named types) first, then any that reads.
        let exact = branches.iter().position(|&b| {
            let rn = self.r.node(b);
            std::mem::discriminant(rn) == std::mem::discriminant(wn)
                && (rn.name().is_none() || self.names_match(wn, rn))
        });
        if let Some(i) = exact {
            return Ok((i as u32, self.step(w, branches[i])?));
        }
        for (i, &b) in branches.iter().enumerate() {
            if let Ok(step) = self.attempt(w, b) {
                return Ok((i as u32, step));
            }
        }
        Err(self.fail(format!(
            "cannot read {} as any branch of the {} union",
            describe(wn),
            if self.reading() {
                "reader's"
            } else {
                "writer's"
            }
        )))
    }
}

/// The index of the `null` branch of `id`, when it is a union holding one.
fn null_branch(schema: &AvroSchema, id: NodeId) -> Option<u32> {
    match schema.node(id) {
        Node::Union(branches) => branches
            .iter()
            .position(|&b| matches!(schema.node(b), Node::Null))
            .map(|i| i as u32),
        _ => None,
    }
}

fn describe(node: &Node) -> String {
    match node.name() {
        Some(name) => format!("{} {name}", node.kind_name()),
        None => node.kind_name().to_owned(),
    }
}

/// A cursor over a datum the scanner has already accepted: reads cannot
/// fail but are bounds-checked all the same.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// Why a run stopped.
#[derive(Debug)]
enum Stop {
    /// The bytes are not a datum of the source schema.
    Broken,
    /// The value cannot be held by the target (writing back): where, why.
    Refused(Vec<String>, String),
    /// The output would pass [`max_output`].
    TooLarge,
}

use Stop::Broken;

impl Stop {
    fn at(mut self, segment: impl FnOnce() -> String) -> Stop {
        if let Stop::Refused(path, _) = &mut self {
            path.push(segment());
        }
        self
    }
}

fn refuse(why: String) -> Stop {
    Stop::Refused(Vec::new(), why)
}

impl<'a> Cursor<'a> {
    fn varint(&mut self) -> Result<u64, Stop> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self.bytes.get(self.pos).ok_or(Broken)?;
            self.pos += 1;
            value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Broken)
    }

    fn long(&mut self) -> Result<i64, Stop> {
        let raw = self.varint()?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Stop> {
        let end = self.pos.checked_add(n).ok_or(Broken)?;
        let out = self.bytes.get(self.pos..end).ok_or(Broken)?;
        self.pos = end;
        Ok(out)
    }

    fn sized(&mut self) -> Result<&'a [u8], Stop> {
        let len = usize::try_from(self.long()?).map_err(|_| Broken)?;
        self.take(len)
    }

    /// Reads a block count (a negative one with its byte size).
    fn count(&mut self) -> Result<u64, Stop> {
        let count = self.long()?;
        if count < 0 {
            self.long()?;
        }
        Ok(count.unsigned_abs())
    }
}

fn emit(out: &mut Vec<u8>, bytes: &[u8]) -> Result<(), Stop> {
    if out.len() + bytes.len() > max_output() {
        return Err(Stop::TooLarge);
    }
    out.extend_from_slice(bytes);
    Ok(())
}

impl Transcoder {
    /// The plan reading `writer`'s data as `reader`; refused, with the
    /// reader's data path, when some datum of the writer cannot be read.
    pub fn new(writer: Arc<AvroSchema>, reader: &AvroSchema) -> Result<Transcoder, Unresolvable> {
        Transcoder::way(writer, reader, Direction::Read)
    }

    /// The plan writing `reader`'s data back as `writer`'s: fields by name
    /// and the reader's aliases, values narrowed back when they fit (else
    /// refused, per datum), a writer-only field at its default, else null
    /// where its type is a union with null; refused when one has neither.
    pub fn back(reader: Arc<AvroSchema>, writer: &AvroSchema) -> Result<Transcoder, Unresolvable> {
        Transcoder::way(reader, writer, Direction::WriteBack)
    }

    /// The plan for `source`'s data in `target`'s layout, `direction`
    /// saying which of them is the writer.
    pub(crate) fn way(
        source: Arc<AvroSchema>,
        target: &AvroSchema,
        direction: Direction,
    ) -> Result<Transcoder, Unresolvable> {
        let mut builder = Builder {
            w: &source,
            r: target,
            direction,
            steps: Vec::new(),
            memo: HashMap::new(),
            path: PlanPath::default(),
        };
        let root = builder.step(source.root, target.root)?;
        let steps = builder.steps;
        let mut source_items = vec![None; steps.len()];
        for (&(w, _), &id) in &builder.memo {
            source_items[id] = match source.node(w) {
                Node::Array(items) | Node::Map(items) => Some(*items),
                _ => None,
            };
        }
        Ok(Transcoder {
            source: Plan::new(source),
            steps,
            root,
            source_items,
        })
    }

    /// Whether the output must be validated against the target schema: no,
    /// the plan writes the target's encoding of a value it holds.
    pub(crate) fn checks_output(&self) -> bool {
        false
    }

    /// The bytes the target schema writes for the value the source's
    /// `payload` holds; a payload that is not a datum of the source's
    /// schema is refused with its violation.
    pub fn transcode(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>> {
        if !self.source.is_valid(payload) {
            return Err(self.source.violations(payload));
        }
        self.run_checked(payload)
    }

    /// [`transcode`](Self::transcode) for a payload the caller has checked
    /// against the source schema (the guard has). One that is not a datum
    /// is still refused, never read out of bounds.
    pub fn run_checked(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>> {
        let mut out = Vec::with_capacity(payload.len() + 16);
        let mut cursor = Cursor {
            bytes: payload,
            pos: 0,
        };
        match self.run(self.root, &mut cursor, &mut out, 0) {
            Ok(()) if cursor.pos == payload.len() => Ok(out),
            Ok(()) | Err(Broken) => Err(vec![Violation::new(
                "",
                ViolationKind::Wire,
                "the datum is not one of the schema's binary encoding",
            )]),
            Err(Stop::Refused(path, why)) => {
                let mut at = String::new();
                for segment in path.iter().rev() {
                    at.push('/');
                    at.push_str(&crate::resolution::escape_pointer(segment));
                }
                Err(refused(at, why))
            }
            Err(Stop::TooLarge) => Err(too_large()),
        }
    }

    /// Reads the source's value of `node`; the bytes it spans are the
    /// encoding (the caller copies them).
    fn copy(&self, node: NodeId, c: &mut Cursor<'_>, depth: u32) -> Result<(), Stop> {
        if depth > MAX_DEPTH {
            return Err(Broken);
        }
        match self.source.schema().node(node) {
            Node::Null => {}
            Node::Boolean => {
                c.take(1)?;
            }
            Node::Int(_) | Node::Long(_) | Node::Enum(_) => {
                c.long()?;
            }
            Node::Float => {
                c.take(4)?;
            }
            Node::Double => {
                c.take(8)?;
            }
            Node::Bytes(_) | Node::String(_) => {
                c.sized()?;
            }
            Node::Fixed(f) => {
                c.take(f.size)?;
            }
            Node::Array(items) => loop {
                let count = c.count()?;
                if count == 0 {
                    break;
                }
                if self.source.min_size(*items) == 0 {
                    continue;
                }
                if count > c.bytes.len() as u64 {
                    return Err(Broken);
                }
                for _ in 0..count {
                    self.copy(*items, c, depth + 1)?;
                }
            },
            Node::Map(values) => loop {
                let count = c.count()?;
                if count == 0 {
                    break;
                }
                if count > c.bytes.len() as u64 {
                    return Err(Broken);
                }
                for _ in 0..count {
                    c.sized()?;
                    self.copy(*values, c, depth + 1)?;
                }
            },
            Node::Union(branches) => {
                let i = usize::try_from(c.long()?).map_err(|_| Broken)?;
                self.copy(*branches.get(i).ok_or(Broken)?, c, depth + 1)?;
            }
            Node::Record(r) => {
                for f in &r.fields {
                    self.copy(f.ty, c, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    /// The items of an array block of `count` (or all blocks), into `body`.
    fn items(
        &self,
        items: StepId,
        source_item: Option<NodeId>,
        c: &mut Cursor<'_>,
        body: &mut Vec<u8>,
        depth: u32,
        map: bool,
    ) -> Result<u64, Stop> {
        let mut total = 0u64;
        loop {
            let count = c.count()?;
            if count == 0 {
                return Ok(total);
            }
            let empty_items = !map && source_item.is_some_and(|n| self.source.min_size(n) == 0);
            if empty_items {
                // Items that take no bytes: their target encoding is the
                // same for each, made once and repeated, within bounds.
                let mut one = Vec::new();
                self.run(items, c, &mut one, depth + 1)?;
                let size = (one.len() as u64).saturating_mul(count);
                if size.saturating_add(body.len() as u64) > max_output() as u64 {
                    return Err(Stop::TooLarge);
                }
                for _ in 0..count {
                    body.extend_from_slice(&one);
                }
            } else {
                if count > c.bytes.len() as u64 {
                    return Err(Broken);
                }
                for i in 0..count {
                    if map {
                        let start = c.pos;
                        c.sized()?;
                        let key = &c.bytes[start..c.pos];
                        emit(body, key)?;
                        self.run(items, c, body, depth + 1).map_err(|e| {
                            e.at(|| {
                                let mut k = Cursor { bytes: key, pos: 0 };
                                k.sized()
                                    .map(|s| String::from_utf8_lossy(s).into_owned())
                                    .unwrap_or_default()
                            })
                        })?;
                    } else {
                        let at = total + i;
                        self.run(items, c, body, depth + 1)
                            .map_err(|e| e.at(|| at.to_string()))?;
                    }
                }
            }
            total = total.saturating_add(count);
        }
    }

    fn run(
        &self,
        step: StepId,
        c: &mut Cursor<'_>,
        out: &mut Vec<u8>,
        depth: u32,
    ) -> Result<(), Stop> {
        if depth > MAX_DEPTH {
            return Err(Broken);
        }
        match &self.steps[step] {
            Step::Copy(node) => {
                let start = c.pos;
                self.copy(*node, c, depth)?;
                emit(out, &c.bytes[start..c.pos])?;
            }
            Step::ToFloat => {
                let v = c.long()?;
                emit(out, &((v as f64) as f32).to_le_bytes())?;
            }
            Step::LongToDouble => {
                let v = c.long()?;
                emit(out, &(v as f64).to_le_bytes())?;
            }
            Step::FloatToDouble => {
                let b = c.take(4)?;
                let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                emit(out, &f64::from(v).to_le_bytes())?;
            }
            Step::BytesToString => {
                let start = c.pos;
                let bytes = c.sized()?;
                if std::str::from_utf8(bytes).is_err() {
                    return Err(refuse(
                        "the bytes are not UTF-8, as a string must be".into(),
                    ));
                }
                emit(out, &c.bytes[start..c.pos])?;
            }
            Step::Narrow(narrow) => {
                let mut buf = Vec::with_capacity(10);
                narrow_value(*narrow, c, &mut buf)?;
                emit(out, &buf)?;
            }
            Step::Enum(map) => {
                let i = usize::try_from(c.long()?).map_err(|_| Broken)?;
                match map.get(i).ok_or(Broken)? {
                    Some(to) => {
                        let mut buf = Vec::with_capacity(5);
                        zigzag(i64::from(*to), &mut buf);
                        emit(out, &buf)?;
                    }
                    None => {
                        return Err(refuse(format!(
                            "the symbol at index {i} is not one the other version has"
                        )))
                    }
                }
            }
            Step::Array(items) | Step::Map(items) => {
                let map = matches!(self.steps[step], Step::Map(_));
                let source_item = self.source_items[step];
                let mut body = Vec::new();
                let total = self.items(*items, source_item, c, &mut body, depth, map)?;
                let mut head = Vec::with_capacity(10);
                if total > 0 {
                    zigzag(i64::try_from(total).map_err(|_| Stop::TooLarge)?, &mut head);
                }
                emit(out, &head)?;
                emit(out, &body)?;
                emit(out, &[0])?;
            }
            Step::SourceUnion(branches) => {
                let i = usize::try_from(c.long()?).map_err(|_| Broken)?;
                match branches.get(i).ok_or(Broken)? {
                    Some((index, step)) => {
                        if let Some(index) = index {
                            let mut buf = Vec::with_capacity(5);
                            zigzag(i64::from(*index), &mut buf);
                            emit(out, &buf)?;
                        }
                        self.run(*step, c, out, depth + 1)?;
                    }
                    None => {
                        return Err(refuse(format!(
                            "the value takes branch {i} of the union, which the other version \
                             cannot hold"
                        )))
                    }
                }
            }
            Step::ToUnion(index, step) => {
                let mut buf = Vec::with_capacity(5);
                zigzag(i64::from(*index), &mut buf);
                emit(out, &buf)?;
                self.run(*step, c, out, depth + 1)?;
            }
            Step::Record {
                fields,
                defaults,
                names,
                in_order,
            } => {
                let name = |i: usize| -> String { names[i].clone() };
                if *in_order {
                    // Written as read: the defaults before each field.
                    let mut next = 0usize;
                    for (node, target) in fields {
                        match target {
                            Some((i, field)) => {
                                while next < *i {
                                    emit(out, defaults[next].as_deref().ok_or(Broken)?)?;
                                    next += 1;
                                }
                                self.run(*field, c, out, depth + 1)
                                    .map_err(|e| e.at(|| name(*i)))?;
                                next = i + 1;
                            }
                            None => self.copy(*node, c, depth + 1)?,
                        }
                    }
                    while next < defaults.len() {
                        emit(out, defaults[next].as_deref().ok_or(Broken)?)?;
                        next += 1;
                    }
                } else {
                    // Each target field's bytes, then written in the
                    // target's order.
                    let mut parts: Vec<Option<Vec<u8>>> = vec![None; defaults.len()];
                    for (node, target) in fields {
                        match target {
                            Some((i, field)) => {
                                let mut part = Vec::new();
                                self.run(*field, c, &mut part, depth + 1)
                                    .map_err(|e| e.at(|| name(*i)))?;
                                parts[*i] = Some(part);
                            }
                            None => self.copy(*node, c, depth + 1)?,
                        }
                    }
                    for (part, default) in parts.iter().zip(defaults) {
                        match (part, default) {
                            (Some(bytes), _) | (None, Some(bytes)) => emit(out, bytes)?,
                            (None, None) => return Err(Broken),
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// A widened value written back in the narrower type, when it fits.
fn narrow_value(narrow: Narrow, c: &mut Cursor<'_>, out: &mut Vec<u8>) -> Result<(), Stop> {
    let integral = |x: f64, long: bool, out: &mut Vec<u8>| -> Result<(), Stop> {
        let (lo, hi) = if long {
            (-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0)
        } else {
            (-2_147_483_648.0, 2_147_483_648.0)
        };
        if x.fract() != 0.0 || !(lo..hi).contains(&x) {
            return Err(refuse(format!(
                "{x} does not fit the other version's {}",
                if long { "long" } else { "int" }
            )));
        }
        zigzag(x as i64, out);
        Ok(())
    };
    match narrow {
        Narrow::LongToInt => {
            let v = c.long()?;
            if i32::try_from(v).is_err() {
                return Err(refuse(format!("{v} does not fit the other version's int")));
            }
            zigzag(v, out);
        }
        Narrow::FloatToInteger { long } => {
            let b = c.take(4)?;
            integral(
                f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                long,
                out,
            )?;
        }
        Narrow::DoubleToInteger { long } => {
            let b = c.take(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            integral(f64::from_le_bytes(a), long, out)?;
        }
        Narrow::DoubleToFloat => {
            let b = c.take(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            let x = f64::from_le_bytes(a);
            let y = x as f32;
            if f64::from(y) != x && !x.is_nan() {
                return Err(refuse(format!(
                    "{x} is not exactly a float, as the other version holds it"
                )));
            }
            out.extend_from_slice(&y.to_le_bytes());
        }
    }
    Ok(())
}
