//! Properties of the protobuf checker over generated descriptor sets: a
//! schema never differs from itself, every mode accepts it against itself,
//! and nothing panics on arbitrary pairs or arbitrary bytes.

use dataschema::compat::protobuf::{self, ProtoChangeKind};
use dataschema::compat::Compatibility;
use proptest::prelude::*;
use prost::Message as _;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
    OneofDescriptorProto,
};
use prost_reflect::DescriptorPool;

const SCALARS: [Type; 15] = [
    Type::Double,
    Type::Float,
    Type::Int64,
    Type::Uint64,
    Type::Int32,
    Type::Fixed64,
    Type::Fixed32,
    Type::Bool,
    Type::String,
    Type::Bytes,
    Type::Uint32,
    Type::Sfixed32,
    Type::Sfixed64,
    Type::Sint32,
    Type::Sint64,
];

/// (number, scalar type or message index, label, in the oneof)
type FieldSpec = (i32, Result<usize, usize>, u8, bool);

fn field() -> impl Strategy<Value = FieldSpec> {
    (
        1..24i32,
        prop_oneof![(0..SCALARS.len()).prop_map(Ok), (0..3usize).prop_map(Err)],
        0..3u8,
        any::<bool>(),
    )
}

fn file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(prop::collection::vec(field(), 0..7), 1..4),
        any::<bool>(),
    )
        .prop_map(|(messages, proto2)| {
            let count = messages.len();
            let message_type = messages
                .into_iter()
                .enumerate()
                .map(|(index, fields)| {
                    let mut seen = std::collections::HashSet::new();
                    let mut has_oneof = false;
                    let field = fields
                        .into_iter()
                        .filter(|(number, ..)| seen.insert(*number))
                        .map(|(number, ty, label, oneof)| {
                            let label = match label {
                                0 => Label::Optional,
                                1 => Label::Repeated,
                                _ if proto2 => Label::Required,
                                _ => Label::Optional,
                            };
                            let oneof = oneof && label == Label::Optional;
                            has_oneof |= oneof;
                            let (r#type, type_name) = match ty {
                                Ok(scalar) => (SCALARS[scalar], None),
                                Err(target) => {
                                    (Type::Message, Some(format!(".p.M{}", target % count)))
                                }
                            };
                            FieldDescriptorProto {
                                name: Some(format!("f{number}")),
                                number: Some(number),
                                label: Some(label as i32),
                                r#type: Some(r#type as i32),
                                type_name,
                                oneof_index: oneof.then_some(0),
                                ..Default::default()
                            }
                        })
                        .collect();
                    DescriptorProto {
                        name: Some(format!("M{index}")),
                        field,
                        oneof_decl: if has_oneof {
                            vec![OneofDescriptorProto {
                                name: Some("choice".into()),
                                ..Default::default()
                            }]
                        } else {
                            vec![]
                        },
                        ..Default::default()
                    }
                })
                .collect();
            let file = FileDescriptorProto {
                name: Some("p.proto".into()),
                package: Some("p".into()),
                syntax: Some(if proto2 { "proto2" } else { "proto3" }.into()),
                message_type,
                ..Default::default()
            };
            FileDescriptorSet { file: vec![file] }.encode_to_vec()
        })
}

fn links(bytes: &[u8]) -> bool {
    DescriptorPool::decode(bytes).is_ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_schema_never_differs_from_itself(set in file()) {
        prop_assume!(links(&set));
        let pool = DescriptorPool::decode(set.as_slice()).unwrap();
        prop_assert!(protobuf::diff(&pool, &pool).is_empty());
        for mode in Compatibility::ALL {
            let report = protobuf::check(mode, &set, &[(1, set.as_slice())]).unwrap();
            prop_assert!(report.is_compatible(), "{}", report);
        }
    }

    #[test]
    fn checking_any_pair_never_panics(old in file(), new in file()) {
        for mode in Compatibility::ALL {
            let _ = protobuf::check(mode, &new, &[(1, old.as_slice())]);
        }
    }

    #[test]
    fn arbitrary_bytes_are_an_error_not_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = protobuf::check(Compatibility::FullTransitive, &bytes, &[(1, bytes.as_slice())]);
        if let Ok(pool) = protobuf::decode("input", &bytes) {
            prop_assert!(protobuf::diff(&pool, &pool).is_empty());
        }
    }
}

/// A set whose imported file `d.proto` chains `L0 .. Ln`, each naming the
/// next `width` times, and whose schema file names `L0`; `last` is the type
/// of the field in `Ln`.
fn import_chain(n: usize, width: i32, last: Type) -> Vec<u8> {
    let message_type = (0..=n)
        .map(|i| {
            let field = if i == n {
                vec![FieldDescriptorProto {
                    name: Some("x".into()),
                    number: Some(1),
                    label: Some(Label::Optional as i32),
                    r#type: Some(last as i32),
                    ..Default::default()
                }]
            } else {
                (1..=width)
                    .map(|k| FieldDescriptorProto {
                        name: Some(format!("f{k}")),
                        number: Some(k),
                        label: Some(Label::Optional as i32),
                        r#type: Some(Type::Message as i32),
                        type_name: Some(format!(".d.L{}", i + 1)),
                        ..Default::default()
                    })
                    .collect()
            };
            DescriptorProto {
                name: Some(format!("L{i}")),
                field,
                ..Default::default()
            }
        })
        .collect();
    let import = FileDescriptorProto {
        name: Some("d.proto".into()),
        package: Some("d".into()),
        syntax: Some("proto3".into()),
        message_type,
        ..Default::default()
    };
    let main = FileDescriptorProto {
        name: Some("m.proto".into()),
        package: Some("m".into()),
        syntax: Some("proto3".into()),
        dependency: vec!["d.proto".into()],
        message_type: vec![DescriptorProto {
            name: Some("Root".into()),
            field: vec![FieldDescriptorProto {
                name: Some("r".into()),
                number: Some(1),
                label: Some(Label::Optional as i32),
                r#type: Some(Type::Message as i32),
                type_name: Some(".d.L0".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    FileDescriptorSet {
        file: vec![import, main],
    }
    .encode_to_vec()
}

/// Imported messages that name the next one twice: each pair is compared
/// once (this was exponential), and the change deep inside is found.
#[test]
fn imported_messages_are_compared_once_per_pair() {
    let (done, verdict) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let old = import_chain(60, 2, Type::Int32);
        let new = import_chain(60, 2, Type::String);
        let same = protobuf::check(Compatibility::Backward, &old, &[(1, old.as_slice())]).unwrap();
        let changed =
            protobuf::check(Compatibility::Backward, &new, &[(1, old.as_slice())]).unwrap();
        done.send((
            same.is_compatible(),
            changed.is_compatible(),
            changed.breaking().count(),
        ))
        .unwrap();
    });
    // A deadline guards against a hang; it measures nothing.
    let (same, changed, lines) = verdict
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the comparison finishes");
    assert!(same);
    assert!(!changed);
    assert!(
        lines < 200,
        "{lines} report lines: each pair's changes are listed once"
    );
}

/// A chain of imported messages deeper than the comparison follows: it
/// reports so instead of overflowing the stack (a test thread's stack).
#[test]
fn a_very_deep_import_chain_is_reported_not_overflowed() {
    let old = import_chain(5_000, 1, Type::Int32);
    let new = import_chain(5_000, 1, Type::String);
    let report = protobuf::check(Compatibility::Backward, &new, &[(1, old.as_slice())]).unwrap();
    assert!(!report.is_compatible());
    assert!(
        report
            .breaking()
            .any(|c| c.kind() == ProtoChangeKind::ComparisonTooDeep),
        "{report}"
    );
}

/// A change in the schema's own file over an import that holds a chain
/// of 5,000 messages, unchanged: the imported file is the same on both
/// sides, so its messages are not compared again, and the change is
/// judged alone (it was `COMPARISON_TOO_DEEP` under each of 128 levels
/// of `FIELD_NAMED_TYPE_CHANGED`, none of them a change).
#[test]
fn a_change_over_an_unchanged_deep_import_is_judged_alone() {
    let old = import_chain(5_000, 1, Type::Int32);
    let mut set = FileDescriptorSet::decode(old.as_slice()).unwrap();
    let main = set.file.last_mut().unwrap();
    main.message_type[0].field.push(FieldDescriptorProto {
        name: Some("note".into()),
        number: Some(2),
        label: Some(Label::Optional as i32),
        r#type: Some(Type::String as i32),
        ..Default::default()
    });
    let new = set.encode_to_vec();
    let report = protobuf::check(Compatibility::Backward, &new, &[(1, old.as_slice())]).unwrap();
    assert!(report.is_compatible(), "{report}");
    let kinds: Vec<&str> = report.versions()[0]
        .changes()
        .iter()
        .map(|c| c.kind().name())
        .collect();
    assert_eq!(kinds, [ProtoChangeKind::FieldAdded.name()], "{report}");
    // A change inside the import is still found below it.
    let changed = import_chain(5_000, 1, Type::String);
    let report =
        protobuf::check(Compatibility::Backward, &changed, &[(1, old.as_slice())]).unwrap();
    assert!(!report.is_compatible(), "{report}");
}

#[test]
fn a_deep_schema_is_still_compatible_with_itself() {
    let set = import_chain(5_000, 1, Type::Int32);
    for mode in Compatibility::ALL {
        assert!(protobuf::check(mode, &set, &[(1, set.as_slice())])
            .unwrap()
            .is_compatible());
    }
}

/// The schema file is the one nothing imports, whatever order the set
/// lists its files in.
#[test]
fn the_schema_file_is_found_in_any_order() {
    let reorder = |bytes: &[u8]| {
        let mut set = FileDescriptorSet::decode(bytes).unwrap();
        set.file.reverse();
        set.encode_to_vec()
    };
    let old = import_chain(2, 1, Type::Int32);
    let new = reorder(&import_chain(2, 1, Type::String));
    let report = protobuf::check(Compatibility::Backward, &new, &[(1, old.as_slice())]).unwrap();
    assert!(!report.is_compatible(), "{report}");
    assert!(
        report
            .breaking()
            .any(|c| c.label().is_some_and(|l| l.contains("L2"))),
        "{report}"
    );
}
