//! The protobuf schema model: a serialized `FileDescriptorSet` read into a
//! checked `prost_reflect::DescriptorPool`, which the validator
//! ([`super::validate`]) and the compatibility engine ([`super::compat`])
//! both start from; neither reads the bytes any other way.
//!
//! `DescriptorPool::decode` links a `FileDescriptorSet` (names resolve,
//! numbers are unique, defaults parse) but accepts shapes `protoc` never
//! writes, and some of them make later `prost-reflect` calls panic or
//! disagree with protobuf: a map entry without a `value` field panics in
//! `map_entry_value_field` and in `DynamicMessage::decode`, a `bytes` or
//! `double` map key panics in `MapKey::default_value`, a proto3 `required`
//! field has no presence, so a present zero reads as missing. This module
//! refuses every such shape, naming the message or field and the rule, so
//! that the schema is unusable (it fails open, counted) instead of crashing
//! the process. The rules are `protoc`'s own (`descriptor.cc`), for the
//! shapes that matter to decoding, the JSON mapping and compatibility.

use std::fmt;

use prost_reflect::{
    Cardinality, DescriptorPool, ExtensionDescriptor, FieldDescriptor, Kind, MessageDescriptor,
    Syntax,
};

/// A descriptor shape `protoc` never produces and `prost-reflect` cannot be
/// trusted with: the schema holding it is unusable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnusableDescriptor {
    /// The fully-qualified name of the message, field or extension.
    element: String,
    /// The rule it breaks.
    rule: String,
}

impl UnusableDescriptor {
    fn new(element: impl Into<String>, rule: impl Into<String>) -> UnusableDescriptor {
        UnusableDescriptor {
            element: element.into(),
            rule: rule.into(),
        }
    }

    /// The fully-qualified name of the offending message, field or extension.
    pub fn element(&self) -> &str {
        &self.element
    }

    /// The rule it breaks, in words.
    pub fn rule(&self) -> &str {
        &self.rule
    }
}

impl fmt::Display for UnusableDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.element, self.rule)
    }
}

impl std::error::Error for UnusableDescriptor {}

type Check = Result<(), UnusableDescriptor>;

/// Why bytes are not a usable descriptor set.
#[derive(Debug)]
pub(crate) enum DecodeError {
    /// The set holds a shape `protoc` never writes ([`check_descriptor_set`],
    /// [`check_descriptors`]).
    Unusable(UnusableDescriptor),
    /// The bytes are not a `FileDescriptorSet`, or the set does not link.
    NotADescriptorSet(prost_reflect::DescriptorError),
}

/// Reads a serialized `FileDescriptorSet` into a checked pool: the shape
/// check on the bytes ([`check_descriptor_set`]), the link
/// (`DescriptorPool::decode`), then the check of every element
/// ([`check_descriptors`]), in that order, so `prost-reflect` never sees a
/// shape it panics on.
pub(crate) fn decode(bytes: &[u8]) -> Result<DescriptorPool, DecodeError> {
    check_descriptor_set(bytes).map_err(DecodeError::Unusable)?;
    let pool = DescriptorPool::decode(bytes).map_err(DecodeError::NotADescriptorSet)?;
    check_descriptors(&pool).map_err(DecodeError::Unusable)?;
    Ok(pool)
}

/// Checks the serialized set before `DescriptorPool::decode` links it:
/// `prost-reflect` 0.16's linker itself panics (an index out of bounds
/// while labelling its own error) on a file whose `syntax` is neither
/// `proto2` nor `proto3`, so such a set is refused here, unlinked. Bytes
/// that do not decode as a `FileDescriptorSet` at all are left for the
/// linker to report: its decoder reads the same message definitions
/// (`descriptor.proto`) and refuses the same bytes.
///
/// Call it before every `DescriptorPool::decode` of outside bytes, then
/// [`check_descriptors`] on the pool.
pub fn check_descriptor_set(bytes: &[u8]) -> Check {
    use prost::Message as _;
    let Ok(set) = prost_reflect::prost_types::FileDescriptorSet::decode(bytes) else {
        return Ok(());
    };
    for file in &set.file {
        match file.syntax.as_deref() {
            None | Some("proto2" | "proto3") => {}
            Some(other) => {
                return Err(UnusableDescriptor::new(
                    file.name(),
                    format!(
                        "syntax {:?} is not supported (proto2 and proto3 are)",
                        crate::text::clip(other, 40)
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// Checks every message, field and extension of `pool` (not only those a
/// root reaches: the compatibility engine compares whole files).
pub fn check_descriptors(pool: &DescriptorPool) -> Check {
    for message in pool.all_messages() {
        check_message(&message)?;
    }
    for extension in pool.all_extensions() {
        check_extension(&extension)?;
    }
    Ok(())
}

fn check_message(message: &MessageDescriptor) -> Check {
    if message.is_map_entry() {
        check_map_entry(message)?;
    }
    for field in message.fields() {
        check_field(&field)?;
    }
    Ok(())
}

/// A map entry is what `map<K, V> m = n;` compiles to: exactly `K key = 1;`
/// and `V value = 2;`, both singular, `K` integral, `bool` or `string`, `V`
/// not a group; nothing else (no oneof, no nested type, no extension).
fn check_map_entry(entry: &MessageDescriptor) -> Check {
    let refuse = |rule: &str| Err(UnusableDescriptor::new(entry.full_name(), rule));
    if entry.fields().len() != 2 {
        return refuse(
            "a map entry (options.map_entry) has exactly two fields, key = 1 and value = 2",
        );
    }
    let (Some(key), Some(value)) = (entry.get_field(1), entry.get_field(2)) else {
        return refuse(
            "a map entry (options.map_entry) has exactly two fields, key = 1 and value = 2",
        );
    };
    if entry.oneofs().len() != 0 {
        return refuse("a map entry has no oneof (nor proto3 optional fields)");
    }
    if entry.child_messages().len() != 0 || entry.child_enums().len() != 0 {
        return refuse("a map entry declares no nested message or enum");
    }
    if entry.extensions().len() != 0 {
        return refuse("a map entry declares no extension");
    }
    if key.name() != "key" || value.name() != "value" {
        return refuse("a map entry's fields are named key (1) and value (2)");
    }
    for field in [&key, &value] {
        if field.cardinality() != Cardinality::Optional {
            return Err(UnusableDescriptor::new(
                field.full_name(),
                "a map entry's key and value are singular (label optional)",
            ));
        }
    }
    if !is_map_key(&key.kind()) {
        return Err(UnusableDescriptor::new(
            key.full_name(),
            format!(
                "a map key is an integral type, bool or string, not {:?}",
                key.kind()
            ),
        ));
    }
    if value.is_group() {
        return Err(UnusableDescriptor::new(
            value.full_name(),
            "a map value is not a group",
        ));
    }
    Ok(())
}

fn is_map_key(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Int32
            | Kind::Int64
            | Kind::Uint32
            | Kind::Uint64
            | Kind::Sint32
            | Kind::Sint64
            | Kind::Fixed32
            | Kind::Fixed64
            | Kind::Sfixed32
            | Kind::Sfixed64
            | Kind::Bool
            | Kind::String
    )
}

fn names_map_entry(kind: &Kind) -> bool {
    matches!(kind, Kind::Message(target) if target.is_map_entry())
}

fn check_field(field: &FieldDescriptor) -> Check {
    let refuse = |rule: &str| Err(UnusableDescriptor::new(field.full_name(), rule));
    let kind = field.kind();
    if names_map_entry(&kind) && (field.cardinality() != Cardinality::Repeated || field.is_group())
    {
        return refuse("a field whose type is a map entry is a map: repeated, of type message");
    }
    if field.containing_oneof().is_some() && field.cardinality() != Cardinality::Optional {
        return refuse("a oneof member is neither required nor repeated");
    }
    if field.parent_file().syntax() == Syntax::Proto3 {
        if field.cardinality() == Cardinality::Required {
            return refuse("proto3 has no required fields");
        }
        if field.is_group() {
            return refuse("proto3 has no groups");
        }
        if field.field_descriptor_proto().default_value.is_some() {
            return refuse("proto3 fields have no explicit default value");
        }
    }
    Ok(())
}

fn check_extension(extension: &ExtensionDescriptor) -> Check {
    let refuse = |rule: &str| Err(UnusableDescriptor::new(extension.full_name(), rule));
    if extension.cardinality() == Cardinality::Required {
        return refuse("an extension cannot be required");
    }
    if names_map_entry(&extension.kind()) {
        return refuse("an extension cannot be a map (its type is a map entry)");
    }
    if extension.containing_message().is_map_entry() {
        return refuse("a map entry cannot be extended");
    }
    if extension.parent_file().syntax() == Syntax::Proto3
        && (extension.is_group() || extension.field_descriptor_proto().default_value.is_some())
    {
        return refuse("proto3 has no groups and no explicit default values");
    }
    Ok(())
}
