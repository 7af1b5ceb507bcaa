//! Every change between two Avro schemas, the safe ones too: what
//! [`compat::diff`](crate::compat::diff()) shows a person. Java's checker
//! ([`compare`](super::compare)) finds why a reader cannot read a writer's
//! data, and nothing else; this walk finds what changed where the reader
//! still reads it (a field added with a default, a promotion, an enum
//! symbol added, ...), each at the reader's location as Java names it.

use std::collections::HashSet;

use super::compare::Reads;
use super::kind::AvroChangeKind as K;
use crate::avro::model::{AvroSchema, Logical, Node, NodeId};
use crate::change::diff::Change;

/// How deep the walk follows nested types (as the checker).
const MAX_DEPTH: usize = 256;

struct Walker<'a> {
    writer: &'a AvroSchema,
    reader: &'a AvroSchema,
    reads: Reads<'a>,
    seen: HashSet<(NodeId, NodeId)>,
    location: Vec<String>,
    found: Vec<Change<K>>,
}

/// Java's incompatibilities (`breaking`) and the safe changes the walk
/// finds, in the order of their locations (a location's incompatibilities
/// first).
pub(super) fn changes(
    writer: &AvroSchema,
    reader: &AvroSchema,
    breaking: Vec<Change<K>>,
) -> Vec<Change<K>> {
    let mut walker = Walker {
        writer,
        reader,
        reads: Reads::new(writer, reader),
        seen: HashSet::new(),
        location: Vec::new(),
        found: Vec::new(),
    };
    walker.walk(reader.root, writer.root);
    let mut all = breaking;
    all.append(&mut walker.found);
    // Stable: at one location, Java's incompatibilities stay first.
    all.sort_by(|a, b| segments(a.path()).cmp(segments(b.path())));
    all
}

/// A location's segments, numbers compared as numbers (`/fields/10`
/// after `/fields/9`).
fn segments(path: &str) -> impl Iterator<Item = (u64, &str)> + Clone {
    path.split('/').filter(|s| !s.is_empty()).map(|segment| {
        // Names sort after indexes (`u64::MAX`), indexes by value.
        (segment.parse::<u64>().unwrap_or(u64::MAX), segment)
    })
}

fn short(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(_, short)| short)
}

/// The logical type of a primitive or a fixed, if the node has one.
fn logical(node: &Node) -> Option<Logical> {
    match node {
        Node::Int(l) | Node::Long(l) | Node::Bytes(l) | Node::String(l) => Some(*l),
        Node::Fixed(f) => Some(f.logical),
        _ => None,
    }
}

/// Whether two branches of a union are the same branch: one kind, and for
/// a named type one name (or the reader's alias naming the writer's).
fn same_branch(r: &Node, w: &Node) -> bool {
    if std::mem::discriminant(r) != std::mem::discriminant(w) {
        return false;
    }
    match (r.name(), w.name()) {
        (Some(rn), Some(wn)) => short(rn) == short(wn) || r.aliases().iter().any(|a| a == wn),
        _ => true,
    }
}

impl Walker<'_> {
    fn here(&self) -> String {
        if self.location.is_empty() {
            return "/".to_owned();
        }
        let mut out = String::new();
        for segment in &self.location {
            out.push('/');
            out.push_str(segment);
        }
        out
    }

    fn found_at(&mut self, segment: Option<&str>, kind: K, label: String) {
        if let Some(segment) = segment {
            self.location.push(segment.to_owned());
        }
        let change = Change::new(kind, self.here()).with_label(label);
        if segment.is_some() {
            self.location.pop();
        }
        self.found.push(change);
    }

    fn child(&mut self, segment: &str, reader: NodeId, writer: NodeId) {
        self.location.push(segment.to_owned());
        self.walk(reader, writer);
        self.location.pop();
    }

    fn reads(&mut self, reader: NodeId, writer: NodeId) -> bool {
        self.reads.reads(reader, writer)
    }

    fn walk(&mut self, reader: NodeId, writer: NodeId) {
        // Deeper than the checker follows, or a pair met already (a
        // recursive type): nothing more to say.
        if self.location.len() > MAX_DEPTH || !self.seen.insert((reader, writer)) {
            return;
        }
        let (r, w) = (self.reader.node(reader), self.writer.node(writer));
        if std::mem::discriminant(r) == std::mem::discriminant(w) {
            match (r, w) {
                (Node::Array(ri), Node::Array(wi)) => self.child("items", *ri, *wi),
                (Node::Map(rv), Node::Map(wv)) => self.child("values", *rv, *wv),
                (Node::Record(_), Node::Record(_)) => {
                    self.names(r, w);
                    self.fields(reader, writer);
                }
                (Node::Enum(re), Node::Enum(we)) => {
                    self.names(r, w);
                    let added: Vec<&str> = re
                        .symbols
                        .iter()
                        .filter(|s| !we.symbols.contains(s))
                        .map(String::as_str)
                        .collect();
                    if !added.is_empty() {
                        self.found_at(Some("symbols"), K::EnumSymbolAdded, added.join(", "));
                    }
                    let removed: Vec<&str> = we
                        .symbols
                        .iter()
                        .filter(|s| !re.symbols.contains(s))
                        .map(String::as_str)
                        .collect();
                    // Without a reader default, Java's MISSING_ENUM_SYMBOLS.
                    if !removed.is_empty() && re.default.is_some() {
                        self.found_at(Some("symbols"), K::EnumSymbolRemoved, removed.join(", "));
                    }
                    if re.default != we.default {
                        let label = format!(
                            "{} to {}",
                            we.default.as_deref().unwrap_or("none"),
                            re.default.as_deref().unwrap_or("none")
                        );
                        self.found_at(Some("default"), K::EnumDefaultChanged, label);
                    }
                }
                (Node::Fixed(_), Node::Fixed(_)) => {
                    self.names(r, w);
                    self.logical(r, w);
                }
                (Node::Union(rb), Node::Union(wb)) => {
                    let (rb, wb) = (rb.clone(), wb.clone());
                    for (j, &branch) in rb.iter().enumerate() {
                        let rn = self.reader.node(branch);
                        let same = wb
                            .iter()
                            .find(|&&w| same_branch(rn, self.writer.node(w)))
                            .copied();
                        match same {
                            Some(wbranch) => self.child(&j.to_string(), branch, wbranch),
                            None => self.found_at(
                                Some(&j.to_string()),
                                K::UnionBranchAdded,
                                branch_name(rn),
                            ),
                        }
                    }
                    for (i, &branch) in wb.iter().enumerate() {
                        let wn = self.writer.node(branch);
                        let kept = rb.iter().any(|&r| same_branch(self.reader.node(r), wn));
                        // Unread, it is Java's MISSING_UNION_BRANCH.
                        if !kept && self.reads(reader, branch) {
                            self.found_at(
                                Some(&i.to_string()),
                                K::UnionBranchRemoved,
                                branch_name(wn),
                            );
                        }
                    }
                }
                _ => self.logical(r, w),
            }
            return;
        }
        match (r, w) {
            (_, Node::Union(wb)) => {
                if self.reads(reader, writer) {
                    let label = format!("{} to {}", kind_of(w, self.writer), branch_name(r));
                    self.found_at(None, K::TypeChangedFromUnion, label);
                }
                let wb = wb.clone();
                if let Some(&same) = wb.iter().find(|&&b| same_branch(r, self.writer.node(b))) {
                    self.walk(reader, same);
                }
            }
            (Node::Union(rb), _) => {
                if self.reads(reader, writer) {
                    let label = format!("{} to {}", branch_name(w), kind_of(r, self.reader));
                    self.found_at(None, K::TypeChangedToUnion, label);
                }
                let rb = rb.clone();
                if let Some((j, &same)) = rb
                    .iter()
                    .enumerate()
                    .find(|(_, b)| same_branch(self.reader.node(**b), w))
                {
                    self.child(&j.to_string(), same, writer);
                }
            }
            (Node::Long(_) | Node::Float | Node::Double | Node::Bytes(_) | Node::String(_), _)
                if self.reads(reader, writer) =>
            {
                let label = format!("{} to {}", w.kind_name(), r.kind_name());
                self.found_at(None, K::TypePromoted, label);
            }
            // Anything else is Java's TYPE_MISMATCH.
            _ => {}
        }
    }

    /// A named type renamed with an alias (without one, Java's
    /// NAME_MISMATCH).
    fn names(&mut self, r: &Node, w: &Node) {
        let (Some(rn), Some(wn)) = (r.name(), w.name()) else {
            return;
        };
        if short(rn) != short(wn) && r.aliases().iter().any(|a| a == wn) {
            self.found_at(Some("name"), K::NameChanged, format!("{wn} to {rn}"));
        }
    }

    fn logical(&mut self, r: &Node, w: &Node) {
        if let (Some(rl), Some(wl)) = (logical(r), logical(w)) {
            if rl != wl {
                let label = format!("{} to {}", logical_name(wl), logical_name(rl));
                self.found_at(Some("logicalType"), K::LogicalTypeChanged, label);
            }
        }
    }

    fn fields(&mut self, reader: NodeId, writer: NodeId) {
        let (Node::Record(rr), Node::Record(wr)) =
            (self.reader.node(reader), self.writer.node(writer))
        else {
            return;
        };
        let (rr, wr) = (rr.clone(), wr.clone());
        self.location.push("fields".into());
        let mut read = vec![false; wr.fields.len()];
        for (pos, field) in rr.fields.iter().enumerate() {
            self.location.push(pos.to_string());
            let by_name = wr.fields.iter().position(|f| f.name == field.name);
            let by_alias = by_name.is_none().then(|| {
                field
                    .aliases
                    .iter()
                    .find_map(|alias| wr.fields.iter().position(|f| &f.name == alias))
            });
            match by_name.or(by_alias.flatten()) {
                Some(at) => {
                    read[at] = true;
                    let wf = &wr.fields[at];
                    if by_name.is_none() {
                        let label = format!("{} to {}", wf.name, field.name);
                        self.found_at(None, K::FieldRenamed, label);
                    }
                    if wf.default != field.default {
                        self.found_at(None, K::FieldDefaultChanged, field.name.clone());
                    }
                    self.child("type", field.ty, wf.ty);
                }
                // Without a default, Java's READER_FIELD_MISSING_DEFAULT_VALUE.
                None if field.default.is_some() => {
                    self.found_at(None, K::FieldAdded, field.name.clone());
                }
                None => {}
            }
            self.location.pop();
        }
        for (at, field) in wr.fields.iter().enumerate() {
            if !read[at] {
                self.found_at(None, K::FieldRemoved, field.name.clone());
            }
        }
        self.location.pop();
    }
}

/// A branch's name in a label: a named type's full name, else its kind.
fn branch_name(node: &Node) -> String {
    node.name()
        .map_or_else(|| node.kind_name().to_owned(), str::to_owned)
}

/// A union's branches in a label (`[null, string]`), another type's name.
fn kind_of(node: &Node, schema: &AvroSchema) -> String {
    match node {
        Node::Union(branches) => {
            let names: Vec<String> = branches
                .iter()
                .map(|&b| branch_name(schema.node(b)))
                .collect();
            format!("[{}]", names.join(", "))
        }
        other => branch_name(other),
    }
}

fn logical_name(logical: Logical) -> &'static str {
    match logical {
        Logical::None => "none",
        Logical::Decimal { .. } => "decimal",
        Logical::Uuid => "uuid",
        Logical::Date => "date",
        Logical::TimeMillis => "time-millis",
        Logical::TimeMicros => "time-micros",
        Logical::TimestampMillis => "timestamp-millis",
        Logical::TimestampMicros => "timestamp-micros",
        Logical::TimestampNanos => "timestamp-nanos",
        Logical::LocalTimestampMillis => "local-timestamp-millis",
        Logical::LocalTimestampMicros => "local-timestamp-micros",
        Logical::LocalTimestampNanos => "local-timestamp-nanos",
        Logical::Duration => "duration",
    }
}
