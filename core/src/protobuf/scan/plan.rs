//! Compiling a message descriptor into the compact tables the scanners walk.

use std::collections::HashMap;

use prost_reflect::{Cardinality, ExtensionDescriptor, FieldDescriptor, Kind, MessageDescriptor};

/// How a field's value sits on the wire, as far as validation cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// `int32`, `int64`, `uint32`, `uint64`, `sint32`, `sint64`, `bool`, enums: one varint.
    Varint,
    /// `fixed32`, `sfixed32`, `float`: four bytes.
    Fixed32,
    /// `fixed64`, `sfixed64`, `double`: eight bytes.
    Fixed64,
    /// `bytes`: length-delimited, any content.
    Bytes,
    /// `string`: length-delimited UTF-8.
    Str,
    /// A nested message: length-delimited, scanned recursively.
    Message,
    /// A proto2 group: start-group tag, fields, matching end-group tag.
    Group,
    /// A map field: a length-delimited entry message. prost-reflect reads
    /// a map entry whatever wire type its tag carries, and so do we.
    Map,
}

/// Marker for "this field is not required".
pub(super) const NOT_REQUIRED: u32 = u32::MAX;

/// One field of a message plan: the hot data the scanner needs per tag.
#[derive(Clone, Copy, Debug)]
pub(super) struct Field {
    /// Index of the nested message plan for `Message`, `Group` and `Map`.
    pub(super) target: u32,
    /// Index of this field among its message's required fields, or [`NOT_REQUIRED`].
    pub(super) required: u32,
    /// The wire shape of one value.
    pub(super) shape: Shape,
    /// A repeated scalar: a length-delimited tag carries a packed run.
    pub(super) packable: bool,
    /// A repeated field (list or map): paths carry an index or a key.
    pub(super) repeated: bool,
    /// Index of the oneof (real or synthetic) this field belongs to, or
    /// [`NO_ONEOF`]: setting it clears the oneof's other member.
    pub(super) oneof: u32,
}

/// Marker for "this field is in no oneof".
pub(super) const NO_ONEOF: u32 = u32::MAX;

/// Cold per-field data, used only to describe violations.
#[derive(Clone, Debug)]
pub(super) struct FieldInfo {
    /// The field's name as it appears in a path (`[pkg.ext]` for extensions).
    pub(super) name: Box<str>,
    /// The field's number.
    pub(super) number: u32,
    /// The field's declared type, as written in a `.proto` file.
    pub(super) type_name: &'static str,
    /// For map entries' key fields: how to print a key.
    pub(super) key: KeyKind,
}

/// How a map key is decoded to print it in a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyKind {
    /// Not a map key.
    None,
    /// `int32` (and enums, which cannot be keys but are harmless here).
    I32,
    /// `int64`.
    I64,
    /// `uint32`.
    U32,
    /// `uint64`.
    U64,
    /// `sint32`.
    S32,
    /// `sint64`.
    S64,
    /// `fixed32`.
    F32,
    /// `fixed64`.
    F64,
    /// `sfixed32`.
    SF32,
    /// `sfixed64`.
    SF64,
    /// `bool`.
    Bool,
    /// `string`.
    Str,
}

/// The plan of one message type.
#[derive(Clone, Debug)]
pub(super) struct Message {
    /// Field number -> index into `fields` plus one (0: no such field), for small numbers.
    dense: Box<[u32]>,
    /// `(number, index)` for numbers beyond `dense`, sorted by number.
    sparse: Box<[(u32, u32)]>,
    /// The fields, hot data.
    pub(super) fields: Box<[Field]>,
    /// The fields, cold data (same order as `fields`).
    pub(super) info: Box<[FieldInfo]>,
    /// Names of the required fields, by required index.
    pub(super) required_names: Box<[Box<str>]>,
    /// How many fields are `required`.
    pub(super) required_count: u32,
    /// For a map entry: its value is a message with required fields, so an
    /// entry without a value (which decodes as an empty message) is incomplete.
    pub(super) entry_value_needs_fields: bool,
    /// Some decoded instance of this message can lack a required field: it
    /// has required fields, or a field (list element, map value, group)
    /// whose message can. Merging only needs settling below such messages.
    pub(super) can_fail: bool,
}

impl Message {
    /// The field with this number, if the message declares one (fields first, then extensions).
    #[inline(always)]
    pub(super) fn lookup(&self, number: u32) -> Option<(usize, &Field)> {
        let index = match self.dense.get(number as usize) {
            Some(&slot) => (slot as usize).checked_sub(1)?,
            None => {
                if self.sparse.is_empty() {
                    return None;
                }
                let at = self
                    .sparse
                    .binary_search_by_key(&number, |&(n, _)| n)
                    .ok()?;
                self.sparse.get(at)?.1 as usize
            }
        };
        self.fields.get(index).map(|field| (index, field))
    }
}

/// All message plans reachable from a root, indexed by `u32`.
#[derive(Clone, Debug)]
pub(super) struct Tables {
    pub(super) messages: Box<[Message]>,
}

/// Compiles every message reachable from `root`; the root is index 0.
pub(super) fn compile(root: &MessageDescriptor) -> Tables {
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut queue: Vec<MessageDescriptor> = Vec::new();
    index.insert(root.full_name().to_owned(), 0);
    queue.push(root.clone());
    let mut messages = Vec::new();
    let mut next = 0;
    while let Some(desc) = queue.get(next).cloned() {
        next += 1;
        let mut intern = |target: MessageDescriptor| -> u32 {
            if let Some(&at) = index.get(target.full_name()) {
                return at;
            }
            let at = u32::try_from(queue.len()).unwrap_or(u32::MAX);
            index.insert(target.full_name().to_owned(), at);
            queue.push(target);
            at
        };
        messages.push(compile_message(&desc, &mut intern));
    }
    mark_can_fail(&mut messages);
    Tables {
        messages: messages.into_boxed_slice(),
    }
}

/// Sets `can_fail` on every message with required fields and on every
/// message that reaches one through its fields: a walk over reversed edges,
/// linear in the number of fields.
fn mark_can_fail(messages: &mut [Message]) {
    let mut parents: Vec<Vec<u32>> = vec![Vec::new(); messages.len()];
    let mut queue: Vec<usize> = Vec::new();
    for (at, message) in messages.iter_mut().enumerate() {
        for field in message.fields.iter() {
            if matches!(field.shape, Shape::Message | Shape::Group | Shape::Map) {
                if let Some(list) = parents.get_mut(field.target as usize) {
                    list.push(u32::try_from(at).unwrap_or(u32::MAX));
                }
            }
        }
        if message.required_count > 0 {
            message.can_fail = true;
            queue.push(at);
        }
    }
    while let Some(at) = queue.pop() {
        let Some(list) = parents.get(at) else {
            continue;
        };
        for &parent in list {
            if let Some(message) = messages.get_mut(parent as usize) {
                if !message.can_fail {
                    message.can_fail = true;
                    queue.push(parent as usize);
                }
            }
        }
    }
}

/// A field or an extension, seen through what the plan needs.
struct Source {
    number: u32,
    oneof: u32,
    name: String,
    kind: Kind,
    cardinality: Cardinality,
    is_group: bool,
    is_map: bool,
    is_list: bool,
}

impl Source {
    fn field(field: &FieldDescriptor) -> Source {
        Source {
            number: field.number(),
            oneof: field
                .field_descriptor_proto()
                .oneof_index
                .and_then(|index| u32::try_from(index).ok())
                .unwrap_or(NO_ONEOF),
            name: field.name().to_owned(),
            kind: field.kind(),
            cardinality: field.cardinality(),
            is_group: field.is_group(),
            is_map: field.is_map(),
            is_list: field.is_list(),
        }
    }

    fn extension(ext: &ExtensionDescriptor) -> Source {
        Source {
            number: ext.number(),
            oneof: NO_ONEOF,
            name: format!("[{}]", ext.full_name()),
            kind: ext.kind(),
            cardinality: ext.cardinality(),
            is_group: ext.is_group(),
            is_map: ext.is_map(),
            is_list: ext.is_list(),
        }
    }
}

fn compile_message(
    desc: &MessageDescriptor,
    intern: &mut impl FnMut(MessageDescriptor) -> u32,
) -> Message {
    let mut sources: Vec<Source> = desc.fields().map(|f| Source::field(&f)).collect();
    for ext in desc.extensions() {
        // prost-reflect looks a number up among fields first, then takes the first extension.
        if !sources.iter().any(|s| s.number == ext.number()) {
            sources.push(Source::extension(&ext));
        }
    }

    let mut fields = Vec::with_capacity(sources.len());
    let mut info = Vec::with_capacity(sources.len());
    let mut required_names = Vec::new();
    for source in &sources {
        let (shape, type_name, key) = shape_of(source);
        let target = match &source.kind {
            Kind::Message(target)
                if matches!(shape, Shape::Message | Shape::Group | Shape::Map) =>
            {
                intern(target.clone())
            }
            _ => 0,
        };
        let required = if source.cardinality == Cardinality::Required {
            required_names.push(source.name.clone().into_boxed_str());
            u32::try_from(required_names.len() - 1).unwrap_or(NOT_REQUIRED)
        } else {
            NOT_REQUIRED
        };
        fields.push(Field {
            target,
            required,
            shape,
            packable: source.is_list
                && matches!(shape, Shape::Varint | Shape::Fixed32 | Shape::Fixed64),
            repeated: source.cardinality == Cardinality::Repeated,
            oneof: source.oneof,
        });
        info.push(FieldInfo {
            name: source.name.clone().into_boxed_str(),
            number: source.number,
            type_name,
            key,
        });
    }

    // Dense table for small numbers, sorted list for the rest.
    let dense_limit = (sources.len() * 4).max(64) as u64;
    let dense_len = sources
        .iter()
        .map(|s| u64::from(s.number))
        .filter(|&n| n < dense_limit)
        .max()
        .map_or(0, |n| n + 1) as usize;
    let mut dense = vec![0u32; dense_len];
    let mut sparse = Vec::new();
    for (at, source) in sources.iter().enumerate() {
        let slot = u32::try_from(at + 1).unwrap_or(u32::MAX);
        match dense.get_mut(source.number as usize) {
            Some(entry) => *entry = slot,
            None => sparse.push((source.number, slot - 1)),
        }
    }
    sparse.sort_unstable();

    // `get_field(2)`, not `map_entry_value_field()`, which panics on a
    // malformed entry (the plan is only built for checked descriptors, but
    // nothing here relies on it).
    let entry_value_needs_fields = desc.is_map_entry()
        && matches!(
            desc.get_field(2).map(|value| value.kind()),
            Some(Kind::Message(value)) if value.fields().any(|f| f.cardinality() == Cardinality::Required)
        );

    Message {
        dense: dense.into_boxed_slice(),
        sparse: sparse.into_boxed_slice(),
        fields: fields.into_boxed_slice(),
        info: info.into_boxed_slice(),
        required_count: u32::try_from(required_names.len()).unwrap_or(u32::MAX),
        required_names: required_names.into_boxed_slice(),
        entry_value_needs_fields,
        can_fail: false,
    }
}

fn shape_of(source: &Source) -> (Shape, &'static str, KeyKind) {
    match &source.kind {
        Kind::Double => (Shape::Fixed64, "double", KeyKind::None),
        Kind::Float => (Shape::Fixed32, "float", KeyKind::None),
        Kind::Int32 => (Shape::Varint, "int32", KeyKind::I32),
        Kind::Int64 => (Shape::Varint, "int64", KeyKind::I64),
        Kind::Uint32 => (Shape::Varint, "uint32", KeyKind::U32),
        Kind::Uint64 => (Shape::Varint, "uint64", KeyKind::U64),
        Kind::Sint32 => (Shape::Varint, "sint32", KeyKind::S32),
        Kind::Sint64 => (Shape::Varint, "sint64", KeyKind::S64),
        Kind::Fixed32 => (Shape::Fixed32, "fixed32", KeyKind::F32),
        Kind::Fixed64 => (Shape::Fixed64, "fixed64", KeyKind::F64),
        Kind::Sfixed32 => (Shape::Fixed32, "sfixed32", KeyKind::SF32),
        Kind::Sfixed64 => (Shape::Fixed64, "sfixed64", KeyKind::SF64),
        Kind::Bool => (Shape::Varint, "bool", KeyKind::Bool),
        Kind::String => (Shape::Str, "string", KeyKind::Str),
        Kind::Bytes => (Shape::Bytes, "bytes", KeyKind::None),
        Kind::Enum(_) => (Shape::Varint, "enum", KeyKind::I32),
        Kind::Message(_) if source.is_map => (Shape::Map, "map", KeyKind::None),
        Kind::Message(_) if source.is_group => (Shape::Group, "group", KeyKind::None),
        Kind::Message(_) => (Shape::Message, "message", KeyKind::None),
    }
}
