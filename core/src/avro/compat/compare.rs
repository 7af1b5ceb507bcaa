//! The rules of Java's `SchemaCompatibility.ReaderWriterCompatibilityChecker`,
//! over two read schemas.

use std::collections::HashMap;

use super::kind::AvroChangeKind as K;
use crate::avro::model::{AvroSchema, Node, NodeId};
use crate::change::diff::Change;

/// How deep the comparison follows nested types.
const MAX_DEPTH: usize = 256;

/// A pair's state in the memo: being compared (a recursion meets it as
/// compatible), or compared, with the incompatibilities found.
enum Memo {
    InProgress,
    Done(Vec<Change<K>>),
}

struct Comparer<'a> {
    writer: &'a AvroSchema,
    reader: &'a AvroSchema,
    memo: HashMap<(NodeId, NodeId), Memo>,
    location: Vec<String>,
}

pub(super) fn compare(writer: &AvroSchema, reader: &AvroSchema) -> Vec<Change<K>> {
    let mut cmp = Comparer {
        writer,
        reader,
        memo: HashMap::new(),
        location: Vec::new(),
    };
    cmp.compatibility(reader.root, writer.root)
}

/// Whether a reader's type reads what a writer's type wrote, by Java's
/// rules, asked of many pairs of two schemas: the answers are kept, so
/// each pair is compared once.
pub(super) struct Reads<'a>(Comparer<'a>);

impl<'a> Reads<'a> {
    pub(super) fn new(writer: &'a AvroSchema, reader: &'a AvroSchema) -> Self {
        Reads(Comparer {
            writer,
            reader,
            memo: HashMap::new(),
            location: Vec::new(),
        })
    }

    /// Whether the reader's type `reader` reads what the writer's type
    /// `writer` wrote.
    pub(super) fn reads(&mut self, reader: NodeId, writer: NodeId) -> bool {
        self.0.compatibility(reader, writer).is_empty()
    }
}

/// Java's `Schema.Type` name, upper case (`LONG`), as its union message
/// writes it.
fn upper(node: &Node) -> String {
    node.kind_name().to_ascii_uppercase()
}

fn short(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(_, short)| short)
}

impl Comparer<'_> {
    fn here(&self) -> String {
        if self.location.is_empty() {
            "/".to_owned()
        } else {
            let mut out = String::new();
            for segment in &self.location {
                out.push('/');
                out.push_str(segment);
            }
            out
        }
    }

    fn incompatible(&self, kind: K, message: String) -> Change<K> {
        Change::new(kind, self.here()).with_label(message)
    }

    /// Java's `getCompatibility(reader, writer)`: memoized per pair.
    fn compatibility(&mut self, reader: NodeId, writer: NodeId) -> Vec<Change<K>> {
        match self.memo.get(&(reader, writer)) {
            Some(Memo::InProgress) => return Vec::new(),
            Some(Memo::Done(found)) => return found.clone(),
            None => {}
        }
        if self.location.len() > MAX_DEPTH {
            return vec![self.incompatible(
                K::ComparisonTooDeep,
                format!("the schemas nest deeper than {MAX_DEPTH} levels"),
            )];
        }
        self.memo.insert((reader, writer), Memo::InProgress);
        let found = self.calculate(reader, writer);
        self.memo
            .insert((reader, writer), Memo::Done(found.clone()));
        found
    }

    /// `getCompatibility(child, reader, writer)`: one level deeper.
    fn child(&mut self, segment: &str, reader: NodeId, writer: NodeId) -> Vec<Change<K>> {
        self.location.push(segment.to_owned());
        let found = self.compatibility(reader, writer);
        self.location.pop();
        found
    }

    fn mismatch(&self, r: &Node, w: &Node) -> Vec<Change<K>> {
        vec![self.incompatible(
            K::TypeMismatch,
            format!(
                "reader type: {} not compatible with writer type: {}",
                r.kind_name(),
                w.kind_name()
            ),
        )]
    }

    fn calculate(&mut self, reader: NodeId, writer: NodeId) -> Vec<Change<K>> {
        let r = self.reader.node(reader);
        let w = self.writer.node(writer);
        if std::mem::discriminant(r) == std::mem::discriminant(w) {
            return match (r, w) {
                (Node::Array(ri), Node::Array(wi)) => self.child("items", *ri, *wi),
                (Node::Map(rv), Node::Map(wv)) => self.child("values", *rv, *wv),
                (Node::Fixed(rf), Node::Fixed(wf)) => {
                    let mut found = self.names(r, w);
                    if rf.size != wf.size {
                        self.location.push("size".into());
                        found.push(self.incompatible(
                            K::FixedSizeMismatch,
                            format!("expected: {}, found: {}", wf.size, rf.size),
                        ));
                        self.location.pop();
                    }
                    found
                }
                (Node::Enum(re), Node::Enum(we)) => {
                    let mut found = self.names(r, w);
                    let mut missing: Vec<&str> = we
                        .symbols
                        .iter()
                        .filter(|s| !re.symbols.contains(s))
                        .map(String::as_str)
                        .collect();
                    if !missing.is_empty() && re.default.is_none() {
                        missing.sort_unstable();
                        self.location.push("symbols".into());
                        found.push(self.incompatible(
                            K::MissingEnumSymbols,
                            format!("[{}]", missing.join(", ")),
                        ));
                        self.location.pop();
                    }
                    found
                }
                (Node::Record(_), Node::Record(_)) => {
                    let mut found = self.names(r, w);
                    found.extend(self.fields(reader, writer));
                    found
                }
                (Node::Union(_), Node::Union(wb)) => {
                    let mut found = Vec::new();
                    for (i, &branch) in wb.iter().enumerate() {
                        self.location.push(i.to_string());
                        if !self.compatibility(reader, branch).is_empty() {
                            found.push(self.incompatible(
                                K::MissingUnionBranch,
                                format!(
                                    "reader union lacking writer type: {}",
                                    upper(self.writer.node(branch))
                                ),
                            ));
                        }
                        self.location.pop();
                    }
                    found
                }
                // Primitives of one type (logical types are not compared).
                _ => Vec::new(),
            };
        }
        if let Node::Union(wb) = w {
            let mut found = Vec::new();
            for &branch in wb.iter() {
                found.extend(self.compatibility(reader, branch));
            }
            return found;
        }
        match (r, w) {
            (Node::Long(_), Node::Int(_))
            | (Node::Float, Node::Int(_) | Node::Long(_))
            | (Node::Double, Node::Int(_) | Node::Long(_) | Node::Float)
            | (Node::Bytes(_), Node::String(_))
            | (Node::String(_), Node::Bytes(_)) => Vec::new(),
            (Node::Union(rb), _) => {
                for &branch in rb.iter() {
                    if self.compatibility(branch, writer).is_empty() {
                        return Vec::new();
                    }
                }
                vec![self.incompatible(
                    K::MissingUnionBranch,
                    format!("reader union lacking writer type: {}", upper(w)),
                )]
            }
            _ => self.mismatch(r, w),
        }
    }

    /// Java's `checkSchemaNames`: the unqualified names are equal, or a
    /// reader alias is the writer's full name.
    fn names(&mut self, r: &Node, w: &Node) -> Vec<Change<K>> {
        let (Some(rn), Some(wn)) = (r.name(), w.name()) else {
            return Vec::new();
        };
        if short(rn) == short(wn) || r.aliases().iter().any(|a| a == wn) {
            return Vec::new();
        }
        self.location.push("name".into());
        let change = self.incompatible(K::NameMismatch, format!("expected: {wn}"));
        self.location.pop();
        vec![change]
    }

    /// Java's `checkReaderWriterRecordFields`.
    fn fields(&mut self, reader: NodeId, writer: NodeId) -> Vec<Change<K>> {
        let (Node::Record(rr), Node::Record(wr)) =
            (self.reader.node(reader), self.writer.node(writer))
        else {
            return Vec::new();
        };
        let mut found = Vec::new();
        self.location.push("fields".into());
        for (pos, field) in rr.fields.iter().enumerate() {
            self.location.push(pos.to_string());
            let writer_field = wr.fields.iter().find(|f| f.name == field.name).or_else(|| {
                field
                    .aliases
                    .iter()
                    .find_map(|alias| wr.fields.iter().find(|f| &f.name == alias))
            });
            match writer_field {
                Some(wf) => found.extend(self.child("type", field.ty, wf.ty)),
                None if field.default.is_some() => {}
                None => {
                    let enum_default = matches!(
                        self.reader.node(field.ty),
                        Node::Enum(e) if e.default.is_some()
                    );
                    if enum_default {
                        found.extend(self.child("type", field.ty, writer));
                    } else {
                        found.push(
                            self.incompatible(
                                K::ReaderFieldMissingDefaultValue,
                                field.name.clone(),
                            ),
                        );
                    }
                }
            }
            self.location.pop();
        }
        self.location.pop();
        found
    }
}
