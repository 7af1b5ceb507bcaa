//! Reading one version's bytes as another's: Avro's schema resolution run
//! as a plan over the bytes, no value built. A [`Transcoder`] is made once
//! per (writer, reader) pair; it refuses a pair that cannot be resolved,
//! with the reader's data path, and turns each datum the writer's schema
//! wrote into the bytes the reader's schema would have written for the
//! value read: fields matched by name and by the reader's aliases,
//! reader-only fields at their defaults, writer-only fields skipped,
//! promotions widened, enums by symbol (a symbol the reader lacks takes the
//! reader's default), union branches matched, arrays and maps written as
//! one block (as the Java, Python and fastavro writers do).
//!
//! The writer's datum is checked by the validating scanner first, so a
//! broken datum is refused with its violation, never half transcoded.
//!
//! The work is bounded by the bytes read and written: what the reader's
//! datum would hold past [`crate::limits::max_avro_transcode_bytes`] is
//! refused as it is reached, and the items of an array whose writer type
//! is encoded in no bytes (`null`, an empty record: all alike) are
//! transcoded once and repeated, not read one by one.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::model::{AvroSchema, Node, NodeId};
use super::scan::Plan;
use crate::validate::{Violation, ViolationKind};

/// Why a pair of schemas cannot be resolved: where in the reader's data
/// (`/amount`, `/items/*/price`; `*` any array item or map value) and
/// why (`cannot read long as int`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolvable {
    path: String,
    reason: String,
}

impl Unresolvable {
    /// Where in the reader's data; empty for the whole datum.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why, in words.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for Unresolvable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{} at {path}", self.reason)
    }
}

impl std::error::Error for Unresolvable {}

type StepId = usize;

/// How one writer value becomes one reader value.
#[derive(Debug)]
enum Step {
    /// The encodings are the same: the writer's bytes of this node, copied.
    Copy(NodeId),
    /// `int` or `long` to `float`.
    ToFloat,
    /// `int` or `long` to `double`.
    LongToDouble,
    /// `float` to `double`.
    FloatToDouble,
    /// `bytes` to `string`: the bytes must be UTF-8.
    BytesToString,
    /// Writer fields in the writer's order, each read into a reader field
    /// or skipped; then the reader's fields written in its order, the
    /// missing ones at their defaults.
    Record {
        fields: Vec<(NodeId, Option<(usize, StepId)>)>,
        defaults: Vec<Option<Vec<u8>>>,
    },
    /// Writer symbol index to reader symbol index.
    Enum(Vec<u32>),
    /// An array: the step of its items, and the writer's item type.
    Array(StepId, NodeId),
    Map(StepId),
    /// A writer union: per branch, the reader's union index to write (when
    /// the reader is a union) and the branch's step.
    WriterUnion(Vec<(Option<u32>, StepId)>),
    /// A reader union read from a writer that is not one: the branch index,
    /// then the value.
    ToUnion(u32, StepId),
}

/// A resolution plan for one (writer, reader) pair.
#[derive(Debug)]
pub struct Transcoder {
    writer: Plan,
    steps: Vec<Step>,
    root: StepId,
}

struct Builder<'a> {
    w: &'a AvroSchema,
    r: &'a AvroSchema,
    steps: Vec<Step>,
    memo: HashMap<(NodeId, NodeId), StepId>,
    path: Vec<String>,
}

fn short(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(_, s)| s)
}

impl Builder<'_> {
    fn fail(&self, reason: String) -> Unresolvable {
        let mut path = String::new();
        for segment in &self.path {
            path.push('/');
            path.push_str(segment);
        }
        Unresolvable { path, reason }
    }

    fn push(&mut self, step: Step) -> StepId {
        self.steps.push(step);
        self.steps.len() - 1
    }

    fn names_match(&self, w: &Node, r: &Node) -> bool {
        match (w.name(), r.name()) {
            (Some(wn), Some(rn)) => short(wn) == short(rn) || r.aliases().iter().any(|a| a == wn),
            _ => false,
        }
    }

    /// The step reading writer node `w` as reader node `r` (memoized per
    /// pair, reserved before its parts so that recursion meets it).
    fn step(&mut self, w: NodeId, r: NodeId) -> Result<StepId, Unresolvable> {
        if let Some(&id) = self.memo.get(&(w, r)) {
            return Ok(id);
        }
        if self.path.len() > 256 {
            return Err(self.fail("the schemas nest deeper than 256 levels".into()));
        }
        let wn = self.w.node(w);
        let rn = self.r.node(r);
        let mismatch =
            |b: &Self| b.fail(format!("cannot read {} as {}", describe(wn), describe(rn)));
        let step = match (wn, rn) {
            (Node::Union(branches), _) => {
                // Reserved first: a branch may lead back here.
                let id = self.push(Step::WriterUnion(Vec::new()));
                self.memo.insert((w, r), id);
                let mut plan = Vec::with_capacity(branches.len());
                for &branch in branches.iter() {
                    plan.push(match rn {
                        Node::Union(_) => {
                            let (index, step) = self.union_branch(branch, r)?;
                            (Some(index), step)
                        }
                        _ => (None, self.step(branch, r)?),
                    });
                }
                self.steps[id] = Step::WriterUnion(plan);
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
            (Node::Fixed(wf), Node::Fixed(rf)) => {
                if !self.names_match(wn, rn) {
                    return Err(self.fail(format!(
                        "cannot read fixed {} as fixed {}",
                        wf.name, rf.name
                    )));
                }
                if wf.size != rf.size {
                    return Err(self.fail(format!(
                        "cannot read fixed {} of {} bytes as {} bytes",
                        wf.name, wf.size, rf.size
                    )));
                }
                Step::Copy(w)
            }
            (Node::Enum(we), Node::Enum(re)) => {
                if !self.names_match(wn, rn) {
                    return Err(
                        self.fail(format!("cannot read enum {} as enum {}", we.name, re.name))
                    );
                }
                let default = re
                    .default
                    .as_ref()
                    .and_then(|d| re.symbols.iter().position(|s| s == d));
                let mut map = Vec::with_capacity(we.symbols.len());
                for symbol in &we.symbols {
                    match re.symbols.iter().position(|s| s == symbol).or(default) {
                        Some(i) => map.push(i as u32),
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
                let id = self.push(Step::Array(0, *wi));
                self.memo.insert((w, r), id);
                self.path.push("*".into());
                let items = self.step(*wi, *ri);
                self.path.pop();
                self.steps[id] = Step::Array(items?, *wi);
                return Ok(id);
            }
            (Node::Map(wv), Node::Map(rv)) => {
                let id = self.push(Step::Map(0));
                self.memo.insert((w, r), id);
                self.path.push("*".into());
                let values = self.step(*wv, *rv);
                self.path.pop();
                self.steps[id] = Step::Map(values?);
                return Ok(id);
            }
            (Node::Record(wr), Node::Record(rr)) => {
                if !self.names_match(wn, rn) {
                    return Err(self.fail(format!(
                        "cannot read record {} as record {}",
                        wr.name, rr.name
                    )));
                }
                let id = self.push(Step::Record {
                    fields: Vec::new(),
                    defaults: Vec::new(),
                });
                self.memo.insert((w, r), id);
                let mut matched = vec![false; rr.fields.len()];
                let mut fields = Vec::with_capacity(wr.fields.len());
                for wf in &wr.fields {
                    let target = rr
                        .fields
                        .iter()
                        .position(|rf| rf.name == wf.name)
                        .or_else(|| {
                            rr.fields
                                .iter()
                                .position(|rf| rf.aliases.contains(&wf.name))
                        });
                    match target {
                        Some(i) if !matched[i] => {
                            matched[i] = true;
                            self.path.push(rr.fields[i].name.clone());
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
                    let Some(default) = &rf.default else {
                        self.path.push(rf.name.clone());
                        let err = self.fail(format!(
                            "the writer has no field {} and the reader's has no default",
                            rf.name
                        ));
                        self.path.pop();
                        return Err(err);
                    };
                    let mut bytes = Vec::new();
                    encode_default(self.r, rf.ty, default, &mut bytes, 0).map_err(|why| {
                        self.fail(format!(
                            "the default of {} cannot be written: {why}",
                            rf.name
                        ))
                    })?;
                    defaults.push(Some(bytes));
                }
                self.steps[id] = Step::Record { fields, defaults };
                return Ok(id);
            }
            _ => return Err(mismatch(self)),
        };
        let id = self.push(step);
        self.memo.insert((w, r), id);
        Ok(id)
    }

    /// The first branch of reader union `r` that reads `w` (a branch of the
    /// same kind and name first, as Avro's resolution picks it), with its
    /// index.
    fn union_branch(&mut self, w: NodeId, r: NodeId) -> Result<(u32, StepId), Unresolvable> {
        let Node::Union(branches) = self.r.node(r) else {
            unreachable!("union_branch is called with a reader union")
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
            let before = self.steps.len();
            let memo = self.memo.clone();
            match self.step(w, b) {
                Ok(step) => return Ok((i as u32, step)),
                Err(_) => {
                    self.steps.truncate(before);
                    self.memo = memo;
                }
            }
        }
        Err(self.fail(format!(
            "cannot read {} as any branch of the reader's union",
            describe(wn)
        )))
    }
}

fn describe(node: &Node) -> String {
    match node.name() {
        Some(name) => format!("{} {name}", node.kind_name()),
        None => node.kind_name().to_owned(),
    }
}

fn zigzag(value: i64, out: &mut Vec<u8>) {
    let mut n = ((value << 1) ^ (value >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A field's JSON default written in the binary encoding of type `id`.
fn encode_default(
    schema: &AvroSchema,
    id: NodeId,
    value: &Value,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), String> {
    if depth > 256 {
        return Err("it nests too deep".into());
    }
    let bad = || format!("{value} is not a {}", schema.node(id).kind_name());
    match (schema.node(id), value) {
        (Node::Null, Value::Null) => {}
        (Node::Boolean, Value::Bool(b)) => out.push(u8::from(*b)),
        (Node::Int(_) | Node::Long(_), Value::Number(n)) => {
            zigzag(n.as_i64().ok_or_else(bad)?, out)
        }
        (Node::Float, v) => {
            out.extend_from_slice(&(json_float(v).ok_or_else(bad)? as f32).to_le_bytes())
        }
        (Node::Double, v) => out.extend_from_slice(&json_float(v).ok_or_else(bad)?.to_le_bytes()),
        (Node::String(_), Value::String(s)) => {
            zigzag(s.len() as i64, out);
            out.extend_from_slice(s.as_bytes());
        }
        (Node::Bytes(_), Value::String(s)) => {
            let bytes = latin1(s).ok_or_else(bad)?;
            zigzag(bytes.len() as i64, out);
            out.extend_from_slice(&bytes);
        }
        (Node::Fixed(f), Value::String(s)) => {
            let bytes = latin1(s).ok_or_else(bad)?;
            if bytes.len() != f.size {
                return Err(format!("{value} is not {} bytes", f.size));
            }
            out.extend_from_slice(&bytes);
        }
        (Node::Enum(e), Value::String(s)) => {
            let i = e.symbols.iter().position(|x| x == s).ok_or_else(bad)?;
            zigzag(i as i64, out);
        }
        (Node::Array(items), Value::Array(values)) => {
            if !values.is_empty() {
                zigzag(values.len() as i64, out);
                for v in values {
                    encode_default(schema, *items, v, out, depth + 1)?;
                }
            }
            out.push(0);
        }
        (Node::Map(values), Value::Object(map)) => {
            if !map.is_empty() {
                zigzag(map.len() as i64, out);
                for (k, v) in map {
                    zigzag(k.len() as i64, out);
                    out.extend_from_slice(k.as_bytes());
                    encode_default(schema, *values, v, out, depth + 1)?;
                }
            }
            out.push(0);
        }
        (Node::Union(branches), v) => {
            let first = *branches.first().ok_or_else(bad)?;
            out.push(0);
            encode_default(schema, first, v, out, depth + 1)?;
        }
        (Node::Record(record), Value::Object(map)) => {
            for field in &record.fields {
                let v = map
                    .get(&field.name)
                    .or(field.default.as_ref())
                    .ok_or_else(bad)?;
                encode_default(schema, field.ty, v, out, depth + 1)?;
            }
        }
        _ => return Err(bad()),
    }
    Ok(())
}

fn json_float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// A `bytes` or `fixed` default: each code point of the string one byte
/// (the specification's ISO-8859-1 mapping).
fn latin1(text: &str) -> Option<Vec<u8>> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect()
}

/// A cursor over a datum the scanner has already accepted: reads cannot
/// fail but are bounds-checked all the same.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

#[derive(Debug)]
enum Broken {
    /// The datum is not what the scanner accepted (never, in practice).
    Datum,
    /// The output would pass its bound.
    TooLarge,
}

/// Where the reader's bytes go: `out`, charged against what the whole
/// transcode may still write (`left`). Bytes written once are charged
/// once: a body moved into its container is not charged again.
struct Budget {
    left: usize,
}

impl Budget {
    #[inline]
    fn charge(&mut self, n: usize) -> Result<(), Broken> {
        self.left = self.left.checked_sub(n).ok_or(Broken::TooLarge)?;
        Ok(())
    }

    #[inline]
    fn write(&mut self, out: &mut Vec<u8>, bytes: &[u8]) -> Result<(), Broken> {
        self.charge(bytes.len())?;
        out.extend_from_slice(bytes);
        Ok(())
    }

    #[inline]
    fn zigzag(&mut self, value: i64, out: &mut Vec<u8>) -> Result<(), Broken> {
        let before = out.len();
        zigzag(value, out);
        self.charge(out.len() - before)
    }
}

impl<'a> Cursor<'a> {
    fn varint(&mut self) -> Result<u64, Broken> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self.bytes.get(self.pos).ok_or(Broken::Datum)?;
            self.pos += 1;
            value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Broken::Datum)
    }

    fn long(&mut self) -> Result<i64, Broken> {
        let raw = self.varint()?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Broken> {
        let end = self.pos.checked_add(n).ok_or(Broken::Datum)?;
        let out = self.bytes.get(self.pos..end).ok_or(Broken::Datum)?;
        self.pos = end;
        Ok(out)
    }

    fn sized(&mut self) -> Result<&'a [u8], Broken> {
        let len = usize::try_from(self.long()?).map_err(|_| Broken::Datum)?;
        self.take(len)
    }

    /// Reads a block count (a negative one with its byte size).
    fn count(&mut self) -> Result<u64, Broken> {
        let count = self.long()?;
        if count < 0 {
            self.long()?;
        }
        Ok(count.unsigned_abs())
    }
}

impl Transcoder {
    /// The plan reading `writer`'s data as `reader`; refused, with the
    /// reader's data path, when some datum of the writer cannot be read.
    pub fn new(writer: Arc<AvroSchema>, reader: &AvroSchema) -> Result<Transcoder, Unresolvable> {
        let mut builder = Builder {
            w: &writer,
            r: reader,
            steps: Vec::new(),
            memo: HashMap::new(),
            path: Vec::new(),
        };
        let root = builder.step(writer.root, reader.root)?;
        let steps = builder.steps;
        Ok(Transcoder {
            writer: Plan::new(writer),
            steps,
            root,
        })
    }

    /// The bytes the reader's schema writes for the value the writer's
    /// `payload` holds; a payload that is not a datum of the writer's
    /// schema is refused with its violation.
    pub fn transcode(&self, payload: &[u8]) -> Result<Vec<u8>, Vec<Violation>> {
        if !self.writer.is_valid(payload) {
            return Err(self.writer.violations(payload));
        }
        let limit = crate::limits::max_avro_transcode_bytes();
        let mut out = Vec::with_capacity(payload.len().saturating_add(16).min(limit));
        let mut cursor = Cursor {
            bytes: payload,
            pos: 0,
        };
        let mut budget = Budget { left: limit };
        self.run(self.root, &mut cursor, &mut out, &mut budget)
            .map_err(|broken| {
                vec![match broken {
                    Broken::Datum => Violation::new(
                        "",
                        ViolationKind::Other,
                        "the datum could not be transcoded",
                    ),
                    Broken::TooLarge => Violation::new(
                        "",
                        ViolationKind::Bounds,
                        format!(
                            "the datum read as the reader's schema is larger than {limit} bytes \
                             (limits::max_avro_transcode_bytes)"
                        ),
                    ),
                }]
            })?;
        Ok(out)
    }

    /// Reads the writer's value of `node`; the bytes it spans are the
    /// encoding (the caller copies them).
    fn copy(&self, node: NodeId, c: &mut Cursor<'_>) -> Result<(), Broken> {
        match self.writer.schema().node(node) {
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
                for _ in 0..count {
                    self.copy(*items, c)?;
                }
            },
            Node::Map(values) => loop {
                let count = c.count()?;
                if count == 0 {
                    break;
                }
                for _ in 0..count {
                    c.sized()?;
                    self.copy(*values, c)?;
                }
            },
            Node::Union(branches) => {
                let i = usize::try_from(c.long()?).map_err(|_| Broken::Datum)?;
                self.copy(*branches.get(i).ok_or(Broken::Datum)?, c)?;
            }
            Node::Record(r) => {
                for f in &r.fields {
                    self.copy(f.ty, c)?;
                }
            }
        }
        Ok(())
    }

    /// Transcodes the writer's value at `c` by `step` into `out`.
    fn run(
        &self,
        step: StepId,
        c: &mut Cursor<'_>,
        out: &mut Vec<u8>,
        budget: &mut Budget,
    ) -> Result<(), Broken> {
        match &self.steps[step] {
            Step::Copy(node) => {
                let start = c.pos;
                self.copy(*node, c)?;
                budget.write(out, &c.bytes[start..c.pos])?;
            }
            Step::ToFloat => {
                let v = c.long()?;
                budget.write(out, &((v as f64) as f32).to_le_bytes())?;
            }
            Step::LongToDouble => {
                let v = c.long()?;
                budget.write(out, &(v as f64).to_le_bytes())?;
            }
            Step::FloatToDouble => {
                let b = c.take(4)?;
                let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                budget.write(out, &f64::from(v).to_le_bytes())?;
            }
            Step::BytesToString => {
                let start = c.pos;
                let bytes = c.sized()?;
                std::str::from_utf8(bytes).map_err(|_| Broken::Datum)?;
                budget.write(out, &c.bytes[start..c.pos])?;
            }
            Step::Enum(map) => {
                let i = usize::try_from(c.long()?).map_err(|_| Broken::Datum)?;
                budget.zigzag(i64::from(*map.get(i).ok_or(Broken::Datum)?), out)?;
            }
            Step::Array(items, writer_items) => {
                // Writer items encoded in no bytes are all alike: the
                // first one's bytes stand for every one.
                let empty = self.writer.min_size(*writer_items) == 0;
                let mut body = Vec::new();
                let mut total = 0u64;
                let mut alike: Option<Vec<u8>> = None;
                loop {
                    let count = c.count()?;
                    if count == 0 {
                        break;
                    }
                    if empty {
                        let mut more = count;
                        if alike.is_none() {
                            let mut item = Vec::new();
                            self.run(*items, c, &mut item, budget)?;
                            body.extend_from_slice(&item);
                            alike = Some(item);
                            more -= 1;
                        }
                        if let Some(item) = alike.as_ref().filter(|item| !item.is_empty()) {
                            let bytes = usize::try_from(more)
                                .ok()
                                .and_then(|more| more.checked_mul(item.len()))
                                .ok_or(Broken::TooLarge)?;
                            budget.charge(bytes)?;
                            body.reserve(bytes);
                            for _ in 0..more {
                                body.extend_from_slice(item);
                            }
                        }
                    } else {
                        for _ in 0..count {
                            self.run(*items, c, &mut body, budget)?;
                        }
                    }
                    total += count;
                }
                if total > 0 {
                    budget.zigzag(total as i64, out)?;
                    out.extend_from_slice(&body);
                }
                budget.write(out, &[0])?;
            }
            Step::Map(values) => {
                let mut body = Vec::new();
                let mut total = 0u64;
                loop {
                    let count = c.count()?;
                    if count == 0 {
                        break;
                    }
                    for _ in 0..count {
                        let start = c.pos;
                        c.sized()?;
                        budget.write(&mut body, &c.bytes[start..c.pos])?;
                        self.run(*values, c, &mut body, budget)?;
                    }
                    total += count;
                }
                if total > 0 {
                    budget.zigzag(total as i64, out)?;
                    out.extend_from_slice(&body);
                }
                budget.write(out, &[0])?;
            }
            Step::WriterUnion(branches) => {
                let i = usize::try_from(c.long()?).map_err(|_| Broken::Datum)?;
                let (index, step) = branches.get(i).ok_or(Broken::Datum)?;
                if let Some(index) = index {
                    budget.zigzag(i64::from(*index), out)?;
                }
                self.run(*step, c, out, budget)?;
            }
            Step::ToUnion(index, step) => {
                budget.zigzag(i64::from(*index), out)?;
                self.run(*step, c, out, budget)?;
            }
            Step::Record { fields, defaults } => {
                // Each reader field's bytes, then written in the reader's
                // order.
                let mut parts: Vec<Option<Vec<u8>>> = vec![None; defaults.len()];
                for (node, target) in fields {
                    match target {
                        Some((i, step)) => {
                            let mut part = Vec::new();
                            self.run(*step, c, &mut part, budget)?;
                            parts[*i] = Some(part);
                        }
                        None => self.copy(*node, c)?,
                    }
                }
                for (part, default) in parts.iter().zip(defaults) {
                    match (part, default) {
                        (Some(bytes), _) => out.extend_from_slice(bytes),
                        (None, Some(bytes)) => budget.write(out, bytes)?,
                        (None, None) => return Err(Broken::Datum),
                    }
                }
            }
        }
        Ok(())
    }
}
