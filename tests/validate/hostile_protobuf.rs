//! Hostile protobuf schemas and payloads through the public API: descriptor
//! sets that link but hold shapes `protoc` never writes are refused as
//! unusable wherever they arrive (embed, publish, a fallback answer,
//! `validate_json`, the compatibility engine), never a panic; and a payload
//! of many incomplete nested messages is settled with bounded work.
//!
//! The "never panics" property runs a structure-aware generator: a small
//! descriptor set mutated (field types, labels, `type_name` pointing at the
//! wrong kind, `map_entry` flags, oneof indexes, extensions, groups, proto3
//! `optional`, `json_name`, defaults, syntax) and driven through every entry
//! point. Cases: 2,000 by default; set `DATASCHEMA_HOSTILE_CASES` for more.

use std::sync::Arc;

use dataschema::compat::protobuf as compat;
use dataschema::compat::CompatError;
use dataschema::validate::protobuf_scan::{
    check_descriptor_set, reference_is_valid, Plan, ScanOptions,
};
use dataschema::{Compatibility, Error, Guard, MemoryStore, Outcome, Reason, Registry};
use dataschema::{Schema, Urn};
use proptest::prelude::*;
use prost::Message as _;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FileDescriptorProto, FileDescriptorSet, MessageOptions, OneofDescriptorProto,
};
use prost_reflect::DescriptorPool;
use serde_json::json;

const URN: &str = "urn:acme:schema:hostile:1";
const ROOT: &str = "h.R";

use crate::common::Answers;
use crate::descriptor;
use descriptor::field;

fn map_entry(name: &str, fields: Vec<FieldDescriptorProto>) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.into()),
        field: fields,
        options: Some(MessageOptions {
            map_entry: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `message R { map<K, V> m = 1; required int32 req = 2; }` with the map
/// entry's fields as given (proto2, package `h`), plus an enum `E` and a
/// message `Other` for fields to point at.
fn with_entry(entry_fields: Vec<FieldDescriptorProto>) -> FileDescriptorProto {
    FileDescriptorProto {
        name: Some("hostile.proto".into()),
        package: Some("h".into()),
        syntax: Some("proto2".into()),
        message_type: vec![
            DescriptorProto {
                name: Some("R".into()),
                field: vec![
                    field("m", 1, Label::Repeated, Type::Message, ".h.R.MEntry"),
                    field("req", 2, Label::Required, Type::Int32, ""),
                ],
                nested_type: vec![map_entry("MEntry", entry_fields)],
                ..Default::default()
            },
            DescriptorProto {
                name: Some("Other".into()),
                field: vec![field("x", 1, Label::Optional, Type::Int32, "")],
                ..Default::default()
            },
        ],
        enum_type: vec![EnumDescriptorProto {
            name: Some("E".into()),
            value: vec![EnumValueDescriptorProto {
                name: Some("E0".into()),
                number: Some(0),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn set(file: FileDescriptorProto) -> Vec<u8> {
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

fn key(ty: Type, type_name: &str) -> FieldDescriptorProto {
    field("key", 1, Label::Optional, ty, type_name)
}

fn value(ty: Type, type_name: &str) -> FieldDescriptorProto {
    field("value", 2, Label::Optional, ty, type_name)
}

/// The malformed map entries of the issue and their siblings, each with a
/// name; every one links (`DescriptorPool::decode` accepts it).
fn malformed_entries() -> Vec<(&'static str, FileDescriptorProto)> {
    let string_key = || key(Type::String, "");
    let int_value = || value(Type::Int32, "");
    let mut cases = vec![
        ("no value field", with_entry(vec![string_key()])),
        ("no key field", with_entry(vec![int_value()])),
        ("no fields", with_entry(vec![])),
        (
            "bytes key",
            with_entry(vec![key(Type::Bytes, ""), int_value()]),
        ),
        (
            "double key",
            with_entry(vec![key(Type::Double, ""), int_value()]),
        ),
        (
            "float key",
            with_entry(vec![key(Type::Float, ""), int_value()]),
        ),
        (
            "message key",
            with_entry(vec![key(Type::Message, ".h.Other"), int_value()]),
        ),
        (
            "enum key",
            with_entry(vec![key(Type::Enum, ".h.E"), int_value()]),
        ),
        (
            "repeated value",
            with_entry(vec![
                string_key(),
                field("value", 2, Label::Repeated, Type::Int32, ""),
            ]),
        ),
        (
            "required key",
            with_entry(vec![
                field("key", 1, Label::Required, Type::String, ""),
                int_value(),
            ]),
        ),
        (
            "group value",
            with_entry(vec![string_key(), value(Type::Group, ".h.Other")]),
        ),
        (
            "a third field",
            with_entry(vec![
                string_key(),
                int_value(),
                field("extra", 3, Label::Optional, Type::Int32, ""),
            ]),
        ),
        (
            "key and value swapped",
            with_entry(vec![
                field("key", 2, Label::Optional, Type::String, ""),
                field("value", 1, Label::Optional, Type::Int32, ""),
            ]),
        ),
    ];
    // A map entry with a oneof around its value.
    let mut oneof = with_entry(vec![string_key(), int_value()]);
    let entry = &mut oneof.message_type[0].nested_type[0];
    entry.oneof_decl.push(OneofDescriptorProto {
        name: Some("o".into()),
        ..Default::default()
    });
    entry.field[1].oneof_index = Some(0);
    cases.push(("value in a oneof", oneof));
    cases
}

/// Other shapes that link but that `protoc` refuses, each of which makes
/// `prost-reflect` panic or disagree with protobuf.
fn other_unusable_shapes() -> Vec<(&'static str, FileDescriptorProto)> {
    let good = || with_entry(vec![key(Type::String, ""), value(Type::Int32, "")]);
    let mut cases = Vec::new();

    // A map-entry type used by a singular field.
    let mut singular = good();
    singular.message_type[0].field[0].label = Some(Label::Optional as i32);
    cases.push(("a singular field of map-entry type", singular));

    // A map-entry type used by a group field.
    let mut group = good();
    group.message_type[0].field[0].r#type = Some(Type::Group as i32);
    cases.push(("a group field of map-entry type", group));

    // proto3 `required`: no presence in proto3, so a present 0 reads as
    // missing to prost-reflect.
    let mut proto3 = good();
    proto3.syntax = Some("proto3".into());
    proto3.message_type[1].field[0].label = Some(Label::Required as i32);
    proto3.message_type[0].field.truncate(1);
    cases.push(("a required field in proto3", proto3));

    // A repeated member of a oneof.
    let mut oneof = good();
    oneof.message_type[1].oneof_decl.push(OneofDescriptorProto {
        name: Some("o".into()),
        ..Default::default()
    });
    let mut member = field("ys", 2, Label::Repeated, Type::Int32, "");
    member.oneof_index = Some(0);
    oneof.message_type[1].field.push(member);
    cases.push(("a repeated oneof member", oneof));

    // A required oneof member.
    let mut oneof = good();
    oneof.message_type[1].oneof_decl.push(OneofDescriptorProto {
        name: Some("o".into()),
        ..Default::default()
    });
    let mut member = field("y", 2, Label::Required, Type::Int32, "");
    member.oneof_index = Some(0);
    oneof.message_type[1].field.push(member);
    cases.push(("a required oneof member", oneof));

    // A required extension (the scanner's verdict would differ from decode's).
    let mut extension = good();
    extension.message_type[1].extension_range.push(
        prost_reflect::prost_types::descriptor_proto::ExtensionRange {
            start: Some(100),
            end: Some(200),
            options: None,
        },
    );
    let mut ext = field("ext", 100, Label::Required, Type::Int32, "");
    ext.extendee = Some(".h.Other".into());
    extension.extension.push(ext);
    cases.push(("a required extension", extension));
    cases
}

fn all_unusable() -> Vec<(&'static str, Vec<u8>)> {
    malformed_entries()
        .into_iter()
        .chain(other_unusable_shapes())
        .map(|(name, file)| (name, set(file)))
        .collect()
}

fn urn() -> Urn {
    URN.parse().unwrap()
}

fn schema(bytes: &[u8]) -> Schema {
    Schema::protobuf(urn(), bytes.to_vec(), ROOT)
}

fn guard_over(bytes: &[u8]) -> Guard {
    let empty = Registry::new(MemoryStore::new());
    Guard::builder(empty)
        .fallback(Arc::new(Answers(schema(bytes))))
        .build()
}

fn assert_unusable_outcome(outcome: Result<Outcome, dataschema::Invalid>, case: &str) {
    match outcome {
        Ok(Outcome::Unvalidated(unvalidated)) => {
            assert_eq!(unvalidated.reason(), Reason::Unusable, "{case}");
            assert!(
                matches!(unvalidated.error(), Error::SchemaUnusable { .. }),
                "{case}: {:?}",
                unvalidated.error()
            );
        }
        other => panic!("{case}: expected fail-open as unusable, got {other:?}"),
    }
}

#[test]
fn every_case_links() {
    // Otherwise the tests below would prove nothing beyond decode's checks.
    for (case, bytes) in all_unusable() {
        assert!(
            DescriptorPool::decode(bytes.as_slice()).is_ok(),
            "{case} does not even link"
        );
    }
}

/// A file whose `syntax` is neither proto2 nor proto3: `prost-reflect`'s
/// linker panics (an index out of bounds labelling its own error), so the
/// set is refused before it is linked. Found by the `descriptors` fuzz
/// target.
#[test]
fn an_unknown_syntax_is_refused_before_linking() {
    for syntax in ["prots2", "editions", "", "proto3 "] {
        let mut file = with_entry(vec![key(Type::String, ""), value(Type::Int32, "")]);
        file.syntax = Some(syntax.into());
        let bytes = set(file);
        let error = check_descriptor_set(&bytes).unwrap_err();
        assert!(error.rule().contains("syntax"), "{error}");
        assert!(
            matches!(
                Registry::embed([schema(&bytes)]),
                Err(Error::SchemaUnusable { .. })
            ),
            "{syntax:?}"
        );
        let registry = Registry::new(MemoryStore::new());
        assert!(matches!(
            registry.publish(schema(&bytes), Compatibility::None),
            Err(Error::SchemaUnusable { .. })
        ));
        let guard = guard_over(&bytes);
        assert_unusable_outcome(guard.validate(URN, &[0x10, 0x01]), syntax);
        assert_unusable_outcome(guard.validate_json(URN, &json!({"req": 1})), syntax);
        let result = compat::check(Compatibility::Full, &bytes, &[(1, &bytes)]);
        assert!(
            matches!(result, Err(CompatError::UnusableDescriptor { .. })),
            "{result:?}"
        );
    }
}

#[test]
fn embed_refuses_unusable_descriptors() {
    for (case, bytes) in all_unusable() {
        match Registry::embed([schema(&bytes)]) {
            Err(Error::SchemaUnusable { source, .. }) => {
                assert!(
                    source.to_string().contains("not usable"),
                    "{case}: {source}"
                );
            }
            other => panic!("{case}: expected SchemaUnusable, got {other:?}"),
        }
    }
}

#[test]
fn publish_refuses_unusable_descriptors() {
    for (case, bytes) in all_unusable() {
        let registry = Registry::new(MemoryStore::new());
        let result = registry.publish(schema(&bytes), Compatibility::Backward);
        assert!(
            matches!(result, Err(Error::SchemaUnusable { .. })),
            "{case}: {result:?}"
        );
    }
}

#[test]
fn a_fallback_answer_that_is_unusable_fails_open() {
    for (case, bytes) in all_unusable() {
        let guard = guard_over(&bytes);
        // Entry 1 holds only a value (5); `req` is missing: the payload
        // the issue saw panic in the reference decode.
        assert_unusable_outcome(guard.validate(URN, &[0x0a, 0x02, 0x10, 0x05]), case);
        assert_unusable_outcome(guard.validate(URN, &[0x10, 0x01]), case);
        assert_unusable_outcome(
            guard.validate_json(URN, &json!({"m": {"a": 1}, "req": 1})),
            case,
        );
        assert_eq!(guard.unvalidated(), 3, "{case}");
    }
}

#[test]
fn compat_refuses_unusable_descriptors() {
    let good = set(with_entry(vec![
        key(Type::String, ""),
        value(Type::Int32, ""),
    ]));
    for (case, bytes) in all_unusable() {
        for (candidate, prior) in [(&bytes, &bytes), (&bytes, &good), (&good, &bytes)] {
            let result = compat::check(Compatibility::Full, candidate, &[(1, prior)]);
            assert!(
                matches!(result, Err(CompatError::UnusableDescriptor { .. })),
                "{case}: {result:?}"
            );
        }
        let error = compat::decode("NEW", &bytes).unwrap_err();
        assert!(
            error.to_string().starts_with("NEW is not a usable"),
            "{error}"
        );
    }
}

#[test]
fn diff_of_pools_built_elsewhere_never_panics() {
    // `compat::protobuf::diff` takes pools its caller decoded, unchecked.
    let good = set(with_entry(vec![
        key(Type::String, ""),
        value(Type::Int32, ""),
    ]));
    let good = DescriptorPool::decode(good.as_slice()).unwrap();
    for (_, bytes) in all_unusable() {
        let bad = DescriptorPool::decode(bytes.as_slice()).unwrap();
        let _ = compat::diff(&bad, &good);
        let _ = compat::diff(&good, &bad);
        let _ = compat::diff(&bad, &bad.clone());
    }
}

#[test]
fn the_scan_plan_refuses_unusable_descriptors() {
    for (case, bytes) in all_unusable() {
        let pool = DescriptorPool::decode(bytes.as_slice()).unwrap();
        let root = pool.get_message_by_name(ROOT).unwrap();
        let error = Plan::compile(&root, ScanOptions::default()).unwrap_err();
        assert!(!error.rule().is_empty(), "{case}");
        // The reference is never handed an impossible descriptor either.
        assert!(!reference_is_valid(
            &root,
            &[0x0a, 0x02, 0x10, 0x05],
            ScanOptions::default()
        ));
    }
}

#[test]
fn well_formed_maps_still_validate() {
    for key_type in [
        Type::Int32,
        Type::Int64,
        Type::Uint32,
        Type::Uint64,
        Type::Sint32,
        Type::Sint64,
        Type::Fixed32,
        Type::Fixed64,
        Type::Sfixed32,
        Type::Sfixed64,
        Type::Bool,
        Type::String,
    ] {
        let bytes = set(with_entry(vec![key(key_type, ""), value(Type::Int32, "")]));
        let registry = Registry::embed([schema(&bytes)]).unwrap();
        let guard = Guard::new(registry);
        // A map entry with only a value, then req = 1.
        let outcome = guard.validate(URN, &[0x0a, 0x02, 0x10, 0x05, 0x10, 0x01]);
        assert!(outcome.unwrap().is_validated(), "{key_type:?}");
        assert!(guard.validate(URN, &[0x0a, 0x02, 0x10, 0x05]).is_err());
    }
}

// ---------------------------------------------------------------------------
// The generator.

/// One edit to a descriptor set; applied in sequence to a base file.
#[derive(Clone, Debug)]
enum Edit {
    FieldType {
        message: usize,
        field: usize,
        ty: i32,
    },
    TypeName {
        message: usize,
        field: usize,
        target: usize,
    },
    Label {
        message: usize,
        field: usize,
        label: i32,
    },
    MapEntry {
        message: usize,
        on: bool,
    },
    OneofIndex {
        message: usize,
        field: usize,
        index: i32,
    },
    AddOneof {
        message: usize,
    },
    AddField {
        message: usize,
        number: i32,
        ty: i32,
        label: i32,
        target: usize,
    },
    RemoveField {
        message: usize,
        field: usize,
    },
    Extension {
        extendee: usize,
        number: i32,
        ty: i32,
        label: i32,
        target: usize,
    },
    Proto3Optional {
        message: usize,
        field: usize,
    },
    JsonName {
        message: usize,
        field: usize,
        name: usize,
    },
    Default {
        message: usize,
        field: usize,
        value: usize,
    },
    Syntax {
        syntax: usize,
    },
}

const TARGETS: &[&str] = &[".h.R", ".h.R.MEntry", ".h.Other", ".h.E", ".h.R.Group", ""];
const JSON_NAMES: &[&str] = &["m", "req", "x", "value", "key", "X"];
const SYNTAXES: &[&str] = &["proto2", "proto3", "proto3", "editions", "", "proto4"];
const DEFAULTS: &[&str] = &[
    "", "1", "-1", "x", "true", "E0", "1.5", "nan", "-inf", "\\x00",
];

fn edit() -> impl Strategy<Value = Edit> {
    let m = 0usize..4;
    let f = 0usize..4;
    prop_oneof![
        (m.clone(), f.clone(), 1i32..=18).prop_map(|(message, field, ty)| Edit::FieldType {
            message,
            field,
            ty
        }),
        (m.clone(), f.clone(), 0..TARGETS.len()).prop_map(|(message, field, target)| {
            Edit::TypeName {
                message,
                field,
                target,
            }
        }),
        (m.clone(), f.clone(), 1i32..=3).prop_map(|(message, field, label)| Edit::Label {
            message,
            field,
            label
        }),
        (m.clone(), any::<bool>()).prop_map(|(message, on)| Edit::MapEntry { message, on }),
        (m.clone(), f.clone(), -1i32..3).prop_map(|(message, field, index)| Edit::OneofIndex {
            message,
            field,
            index
        }),
        m.clone().prop_map(|message| Edit::AddOneof { message }),
        (m.clone(), 1i32..8, 1i32..=18, 1i32..=3, 0..TARGETS.len()).prop_map(
            |(message, number, ty, label, target)| Edit::AddField {
                message,
                number,
                ty,
                label,
                target
            }
        ),
        (m.clone(), f.clone()).prop_map(|(message, field)| Edit::RemoveField { message, field }),
        (
            m.clone(),
            100i32..103,
            1i32..=18,
            1i32..=3,
            0..TARGETS.len()
        )
            .prop_map(|(extendee, number, ty, label, target)| Edit::Extension {
                extendee,
                number,
                ty,
                label,
                target
            }),
        (m.clone(), f.clone()).prop_map(|(message, field)| Edit::Proto3Optional { message, field }),
        (m.clone(), f.clone(), 0..JSON_NAMES.len()).prop_map(|(message, field, name)| {
            Edit::JsonName {
                message,
                field,
                name,
            }
        }),
        (m, f, 0..DEFAULTS.len()).prop_map(|(message, field, value)| Edit::Default {
            message,
            field,
            value
        }),
        (0..SYNTAXES.len()).prop_map(|syntax| Edit::Syntax { syntax }),
    ]
}

/// The base: `R { map<string, Other> m = 1; required int32 req = 2;
/// optional group Group = 3 { optional int32 g = 1; } }`, `Other`, `E`,
/// with extension ranges on `R` and `Other`.
fn base() -> FileDescriptorProto {
    let mut file = with_entry(vec![
        key(Type::String, ""),
        value(Type::Message, ".h.Other"),
    ]);
    let range = prost_reflect::prost_types::descriptor_proto::ExtensionRange {
        start: Some(100),
        end: Some(200),
        options: None,
    };
    let r = &mut file.message_type[0];
    r.field.push(field(
        "group",
        3,
        Label::Optional,
        Type::Group,
        ".h.R.Group",
    ));
    r.nested_type.push(DescriptorProto {
        name: Some("Group".into()),
        field: vec![field("g", 1, Label::Optional, Type::Int32, "")],
        ..Default::default()
    });
    r.extension_range.push(range.clone());
    file.message_type[1].extension_range.push(range);
    file
}

/// The messages an edit may touch, by index: R, R.MEntry, Other, R.Group.
fn message_mut(file: &mut FileDescriptorProto, index: usize) -> &mut DescriptorProto {
    match index {
        0 => &mut file.message_type[0],
        1 => &mut file.message_type[0].nested_type[0],
        2 => &mut file.message_type[1],
        _ => &mut file.message_type[0].nested_type[1],
    }
}

const EXTENDEES: &[&str] = &[".h.R", ".h.R.MEntry", ".h.Other", ".h.R.Group"];

fn field_mut(
    file: &mut FileDescriptorProto,
    message: usize,
    field: usize,
) -> Option<&mut FieldDescriptorProto> {
    let fields = &mut message_mut(file, message).field;
    let len = fields.len();
    if len == 0 {
        return None;
    }
    fields.get_mut(field % len)
}

fn apply(file: &mut FileDescriptorProto, edit: &Edit) {
    match *edit {
        Edit::FieldType { message, field, ty } => {
            if let Some(f) = field_mut(file, message, field) {
                f.r#type = Some(ty);
            }
        }
        Edit::TypeName {
            message,
            field,
            target,
        } => {
            if let Some(f) = field_mut(file, message, field) {
                f.type_name = (!TARGETS[target].is_empty()).then(|| TARGETS[target].into());
            }
        }
        Edit::Label {
            message,
            field,
            label,
        } => {
            if let Some(f) = field_mut(file, message, field) {
                f.label = Some(label);
            }
        }
        Edit::MapEntry { message, on } => {
            message_mut(file, message).options = Some(MessageOptions {
                map_entry: Some(on),
                ..Default::default()
            });
        }
        Edit::OneofIndex {
            message,
            field,
            index,
        } => {
            if let Some(f) = field_mut(file, message, field) {
                f.oneof_index = (index >= 0).then_some(index);
            }
        }
        Edit::AddOneof { message } => {
            let m = message_mut(file, message);
            let name = format!("o{}", m.oneof_decl.len());
            m.oneof_decl.push(OneofDescriptorProto {
                name: Some(name),
                ..Default::default()
            });
        }
        Edit::AddField {
            message,
            number,
            ty,
            label,
            target,
        } => {
            let m = message_mut(file, message);
            let mut f = field(
                &format!("f{number}"),
                number,
                Label::Optional,
                Type::Int32,
                TARGETS[target],
            );
            f.r#type = Some(ty);
            f.label = Some(label);
            m.field.push(f);
        }
        Edit::RemoveField { message, field } => {
            let fields = &mut message_mut(file, message).field;
            if !fields.is_empty() {
                let len = fields.len();
                fields.remove(field % len);
            }
        }
        Edit::Extension {
            extendee,
            number,
            ty,
            label,
            target,
        } => {
            let mut f = field(
                &format!("e{number}"),
                number,
                Label::Optional,
                Type::Int32,
                TARGETS[target],
            );
            f.r#type = Some(ty);
            f.label = Some(label);
            f.extendee = Some(EXTENDEES[extendee].into());
            file.extension.push(f);
        }
        Edit::Proto3Optional { message, field } => {
            if let Some(f) = field_mut(file, message, field) {
                f.proto3_optional = Some(true);
            }
        }
        Edit::JsonName {
            message,
            field,
            name,
        } => {
            if let Some(f) = field_mut(file, message, field) {
                f.json_name = Some(JSON_NAMES[name].into());
            }
        }
        Edit::Default {
            message,
            field,
            value,
        } => {
            if let Some(f) = field_mut(file, message, field) {
                f.default_value = Some(DEFAULTS[value].into());
            }
        }
        Edit::Syntax { syntax } => {
            file.syntax = Some(SYNTAXES[syntax].into());
        }
    }
}

fn mutated(edits: &[Edit]) -> Vec<u8> {
    let mut file = base();
    for edit in edits {
        apply(&mut file, edit);
    }
    set(file)
}

/// Payloads that exercise maps, missing required fields, groups,
/// extensions and merges.
const PAYLOADS: &[&[u8]] = &[
    &[],
    &[0x0a, 0x02, 0x10, 0x05],
    &[0x0a, 0x02, 0x10, 0x05, 0x10, 0x01],
    &[0x0a, 0x04, 0x0a, 0x00, 0x12, 0x00, 0x10, 0x00],
    &[0x0a, 0x03, 0x12, 0x01, 0x41],
    &[0x0a, 0x05, 0x0a, 0x01, 0x61, 0x12, 0x00],
    &[0x1b, 0x08, 0x01, 0x1c, 0x10, 0x02],
    &[0xa0, 0x06, 0x01, 0x10, 0x01],
    &[0xa2, 0x06, 0x02, 0x08, 0x01, 0x10, 0x01],
    &[0x08, 0x01, 0x10, 0x02, 0x18, 0x03, 0x22, 0x00],
];

fn json_values() -> Vec<serde_json::Value> {
    vec![
        json!({}),
        json!({"m": {"a": {"x": 1}}, "req": 1}),
        json!({"m": {"1": 2, "true": 3}, "req": "1"}),
        json!({"req": 1, "group": {"g": 1}, "x": 1, "X": 2}),
        json!({"m": [], "value": 1, "key": "k"}),
        json!({"[h.e100]": 1, "req": 0}),
    ]
}

/// Links a set the way the crate does: never handing `prost-reflect`'s
/// linker a set it panics on.
fn link(bytes: &[u8]) -> Option<DescriptorPool> {
    check_descriptor_set(bytes).ok()?;
    DescriptorPool::decode(bytes).ok()
}

/// Drives one descriptor set through every entry point; the assertion is
/// that nothing panics, plus agreement between the paths that must agree.
fn drive(bytes: &[u8], other: &[u8], payload: &[u8]) -> Result<(), TestCaseError> {
    let embedded = Registry::embed([schema(bytes)]);
    let guard = guard_over(bytes);
    for p in PAYLOADS.iter().copied().chain([payload]) {
        let outcome = guard.validate(URN, p);
        if embedded.is_err() {
            prop_assert!(
                matches!(&outcome, Ok(Outcome::Unvalidated(u)) if u.reason() == Reason::Unusable),
                "an unusable schema must fail open: {:?}",
                outcome
            );
        }
    }
    for value in json_values() {
        let _ = guard.validate_json(URN, &value);
    }
    // The scanner against the reference, on descriptors the checker accepts.
    if let Some(pool) = link(bytes) {
        for message in pool.all_messages() {
            if let Ok(plan) = Plan::compile(&message, ScanOptions::default()) {
                for p in PAYLOADS.iter().copied().chain([payload]) {
                    let verdict = plan.is_valid(p);
                    prop_assert_eq!(
                        verdict,
                        reference_is_valid(&message, p, ScanOptions::default()),
                        "scanner and reference differ for {} on {:02x?}",
                        message.full_name(),
                        p
                    );
                    prop_assert_eq!(verdict, plan.violations(p).is_empty());
                }
            }
        }
    }
    for (candidate, prior) in [(bytes, other), (other, bytes), (bytes, bytes)] {
        let _ = compat::check(Compatibility::FullTransitive, candidate, &[(1, prior)]);
    }
    if let (Some(a), Some(b)) = (link(bytes), link(other)) {
        let _ = compat::diff(&a, &b);
        let _ = compat::diff(&b, &a);
    }
    let registry = Registry::new(MemoryStore::new());
    let _ = registry.publish(schema(other), Compatibility::None);
    let next = Schema::protobuf(
        "urn:acme:schema:hostile:2".parse().unwrap(),
        bytes.to_vec(),
        ROOT,
    );
    let _ = registry.publish(next, Compatibility::Full);
    Ok(())
}

fn cases() -> u32 {
    std::env::var("DATASCHEMA_HOSTILE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn mutated_descriptor_sets_never_panic(
        edits in prop::collection::vec(edit(), 1..6),
        others in prop::collection::vec(edit(), 0..3),
        payload in prop::collection::vec(any::<u8>(), 0..24),
    ) {
        drive(&mutated(&edits), &mutated(&others), &payload)?;
    }
}

/// Writes the seed corpus of the `descriptors` fuzz target
/// (`fuzz/seeds/descriptors/`): the base set, its cases here, and the scan
/// fixtures, each followed by a payload. A tool, not a check.
#[test]
#[ignore = "writes fuzz/seeds/descriptors: run with --ignored to regenerate"]
fn write_fuzz_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/descriptors");
    std::fs::create_dir_all(&dir).unwrap();
    let good = set(with_entry(vec![
        key(Type::String, ""),
        value(Type::Int32, ""),
    ]));
    let fixtures = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/scan_descriptors.binpb"),
    )
    .unwrap();
    let mut sets = vec![
        ("base".to_owned(), set(base())),
        ("good".to_owned(), good),
        ("fixtures".to_owned(), fixtures),
    ];
    for (case, bytes) in all_unusable() {
        sets.push((case.replace(' ', "-"), bytes));
    }
    for (name, bytes) in sets {
        for (i, payload) in PAYLOADS.iter().enumerate().take(3) {
            let len = u16::try_from(bytes.len()).unwrap();
            let mut seed = len.to_le_bytes().to_vec();
            seed.extend_from_slice(&bytes);
            seed.extend_from_slice(payload);
            std::fs::write(dir.join(format!("{name}-{i}")), seed).unwrap();
        }
    }
}
