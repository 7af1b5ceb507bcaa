//! A message's fields as a `.proto` file declares them, indexed for the
//! comparison's lookups, and the small classifications the rules use
//! (scalar groups, field kinds, local names).

use std::collections::HashMap;

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};

use crate::change::java_order::java_order;

/// A message's fields the way a `.proto` file declares them: top-level
/// fields (proto3 `optional` included) and real oneofs, with the lookups the
/// comparison makes (by number, by oneof name) in sorted indexes searched by
/// bisection, so that a message of many fields or oneofs compares in time
/// near-linear in its size, and a message of a few fields allocates no hash
/// table.
pub(super) struct Shape {
    pub(super) top: Vec<FieldDescriptor>,
    pub(super) oneofs: Vec<(String, Vec<FieldDescriptor>)>,
    /// Field number -> index into `top` (the first field with the number).
    pub(super) top_by_tag: TagIndex<usize>,
    /// Field number -> (index into `oneofs`, index among its members) of
    /// the first oneof member with the number.
    pub(super) oneof_by_tag: TagIndex<(usize, usize)>,
    /// Indexes into `oneofs`, sorted by name, the first oneof of each name
    /// only.
    pub(super) oneof_by_name: Vec<usize>,
}

/// Field number -> a value, the first value given for each number, sorted
/// by number for bisection.
pub(super) struct TagIndex<V>(Vec<(u32, V)>);

impl<V: Copy> TagIndex<V> {
    pub(super) fn new(mut entries: Vec<(u32, V)>) -> Self {
        // Stable: among equal numbers the first given stays first.
        entries.sort_by_key(|(tag, _)| *tag);
        entries.dedup_by_key(|(tag, _)| *tag);
        TagIndex(entries)
    }

    pub(super) fn get(&self, tag: u32) -> Option<V> {
        self.0
            .binary_search_by_key(&tag, |(t, _)| *t)
            .ok()
            .map(|at| self.0[at].1)
    }
}

impl Shape {
    pub(super) fn of(message: &MessageDescriptor) -> Shape {
        let top: Vec<FieldDescriptor> = message
            .fields()
            .filter(|f| f.containing_oneof().is_none_or(|o| o.is_synthetic()))
            .collect();
        let oneofs: Vec<(String, Vec<FieldDescriptor>)> = message
            .oneofs()
            .filter(|o| !o.is_synthetic())
            .map(|o| (o.name().to_owned(), o.fields().collect()))
            .collect();
        let top_by_tag = TagIndex::new(
            top.iter()
                .enumerate()
                .map(|(at, f)| (f.number(), at))
                .collect(),
        );
        let oneof_by_tag = TagIndex::new(
            oneofs
                .iter()
                .enumerate()
                .flat_map(|(at, (_, fields))| {
                    fields
                        .iter()
                        .enumerate()
                        .map(move |(member, f)| (f.number(), (at, member)))
                })
                .collect(),
        );
        let mut oneof_by_name: Vec<usize> = (0..oneofs.len()).collect();
        oneof_by_name.sort_by(|&a, &b| oneofs[a].0.cmp(&oneofs[b].0));
        oneof_by_name.dedup_by(|a, b| oneofs[*a].0 == oneofs[*b].0);
        Shape {
            top,
            oneofs,
            top_by_tag,
            oneof_by_tag,
            oneof_by_name,
        }
    }

    pub(super) fn oneof_of(&self, tag: u32) -> Option<&str> {
        self.oneof_by_tag
            .get(tag)
            .and_then(|(at, _)| self.oneofs.get(at))
            .map(|(name, _)| name.as_str())
    }

    pub(super) fn top_field(&self, tag: u32) -> Option<&FieldDescriptor> {
        self.top_by_tag.get(tag).and_then(|at| self.top.get(at))
    }

    pub(super) fn any_field(&self, tag: u32) -> Option<&FieldDescriptor> {
        self.top_field(tag).or_else(|| {
            self.oneof_by_tag
                .get(tag)
                .and_then(|(at, member)| self.oneofs.get(at)?.1.get(member))
        })
    }

    pub(super) fn has(&self, tag: u32) -> bool {
        self.any_field(tag).is_some()
    }

    /// The members of the oneof named `name`.
    pub(super) fn oneof(&self, name: &str) -> Option<&[FieldDescriptor]> {
        self.oneof_by_name
            .binary_search_by(|&at| self.oneofs[at].0.as_str().cmp(name))
            .ok()
            .map(|found| self.oneofs[self.oneof_by_name[found]].1.as_slice())
    }
}

/// Fields by number (the first with each number).
pub(super) fn by_tag(fields: &[FieldDescriptor]) -> Members<'_> {
    Members {
        fields,
        index: TagIndex::new(
            fields
                .iter()
                .enumerate()
                .map(|(at, f)| (f.number(), at))
                .collect(),
        ),
    }
}

/// A list of fields with its index by number.
pub(super) struct Members<'a> {
    pub(super) fields: &'a [FieldDescriptor],
    pub(super) index: TagIndex<usize>,
}

impl<'a> Members<'a> {
    pub(super) fn get(&self, tag: &u32) -> Option<&'a FieldDescriptor> {
        self.index.get(*tag).map(|at| &self.fields[at])
    }
}

pub(super) fn tags(fields: &[FieldDescriptor]) -> Vec<i32> {
    let raw: Vec<i32> = fields.iter().map(|f| f.number() as i32).collect();
    java_order(raw, 16, |i| *i)
}

pub(super) fn nested_messages(m: &MessageDescriptor) -> Vec<MessageDescriptor> {
    m.child_messages().filter(|c| !c.is_map_entry()).collect()
}

/// The groups of scalar types that share a wire encoding.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ScalarGroup {
    Varint,
    ZigZag,
    LengthDelimited,
    Fixed32,
    Fixed64,
    Float,
    Double,
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum FieldKind {
    Scalar,
    Message,
    Map,
}

pub(super) fn field_kind(f: &FieldDescriptor) -> FieldKind {
    if f.is_map() {
        FieldKind::Map
    } else if matches!(f.kind(), Kind::Message(_)) {
        FieldKind::Message
    } else {
        FieldKind::Scalar
    }
}

pub(super) fn scalar_group(kind: &Kind) -> Option<ScalarGroup> {
    Some(match kind {
        Kind::Int32 | Kind::Int64 | Kind::Uint32 | Kind::Uint64 | Kind::Bool | Kind::Enum(_) => {
            ScalarGroup::Varint
        }
        Kind::Sint32 | Kind::Sint64 => ScalarGroup::ZigZag,
        Kind::String | Kind::Bytes => ScalarGroup::LengthDelimited,
        Kind::Fixed32 | Kind::Sfixed32 => ScalarGroup::Fixed32,
        Kind::Fixed64 | Kind::Sfixed64 => ScalarGroup::Fixed64,
        Kind::Float => ScalarGroup::Float,
        Kind::Double => ScalarGroup::Double,
        Kind::Message(_) => return None,
    })
}

/// A message's name without its file's package (`outer.Inner`).
pub(super) fn local_name(m: &MessageDescriptor) -> &str {
    let package = m.package_name();
    let full = m.full_name();
    if package.is_empty() {
        full
    } else {
        full.strip_prefix(package)
            .and_then(|s| s.strip_prefix('.'))
            .unwrap_or(full)
    }
}

/// Name -> index of its last occurrence.
pub(super) fn last_index<'a>(names: &[&'a str]) -> HashMap<&'a str, usize> {
    let mut map = HashMap::with_capacity(names.len());
    for (at, name) in names.iter().enumerate() {
        map.insert(*name, at);
    }
    map
}
