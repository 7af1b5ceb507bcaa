//! Building protobuf descriptors by hand, for tests and examples that need
//! shapes `protox` would refuse to compile.
#![allow(dead_code)]

use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::FieldDescriptorProto;

/// A field; an empty `type_name` leaves it unset (scalar fields).
pub fn field(
    name: &str,
    number: i32,
    label: Label,
    ty: Type,
    type_name: &str,
) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(label as i32),
        r#type: Some(ty as i32),
        type_name: (!type_name.is_empty()).then(|| type_name.into()),
        ..Default::default()
    }
}
