//! The `.proto` printer (`dataschema::proto::print_file`): a descriptor
//! printed, then compiled with `protox` from memory, is the same
//! descriptor, source info aside. Over every `.proto` of the repository's
//! tests and samples, `protox`'s well-known files, the bundled Confluent
//! files, and generated descriptors.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use dataschema::proto::{print_file, PROTOBUF_WELL_KNOWN, WELL_KNOWN};
use proptest::prelude::*;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FileDescriptorProto, FileDescriptorSet, OneofDescriptorProto,
};
use prost_reflect::{DescriptorPool, FileDescriptor};
use protox::file::{File, FileResolver, GoogleFileResolver};

/// Files by import path: the printed one as text, the rest as encoded
/// descriptors (their extension options kept).
struct Memory {
    text: (String, String),
    others: HashMap<String, Vec<u8>>,
}

impl FileResolver for Memory {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        if name == self.text.0 {
            return File::from_source(name, &self.text.1);
        }
        if let Some(bytes) = self.others.get(name) {
            return File::decode_file_descriptor_proto(bytes.as_slice())
                .map_err(protox::Error::new);
        }
        GoogleFileResolver::new().open_file(name)
    }
}

/// Prints `file`, compiles the text with the other files of its pool as
/// its imports, and returns the compiled file and the text.
fn reprint(file: &FileDescriptor) -> Result<(FileDescriptor, String), String> {
    let text = print_file(file);
    let memory = Memory {
        text: (file.name().to_owned(), text.clone()),
        others: file
            .parent_pool()
            .files()
            .filter(|other| other.name() != file.name())
            .map(|other| (other.name().to_owned(), other.encode_to_vec()))
            .collect(),
    };
    let mut compiler = protox::Compiler::with_file_resolver(memory);
    compiler.include_imports(true).include_source_info(false);
    compiler
        .open_file(file.name())
        .map_err(|err| format!("{err}\n--- printed:\n{text}"))?;
    let pool = DescriptorPool::decode(compiler.encode_file_descriptor_set().as_slice())
        .map_err(|err| err.to_string())?;
    let compiled = pool
        .get_file_by_name(file.name())
        .ok_or("the printed file is not in the set")?;
    Ok((compiled, text))
}

/// The file as compared: its descriptor without source info, an empty
/// options message read as none (the same to every compiler), beside its
/// printed text (which prints every option, extensions included, so
/// options that differ print differently).
fn compared(file: &FileDescriptor) -> (FileDescriptorProto, String) {
    let mut proto = file.file_descriptor_proto().clone();
    proto.source_code_info = None;
    fn clear_message(message: &mut DescriptorProto) {
        for field in message.field.iter_mut().chain(message.extension.iter_mut()) {
            if field
                .options
                .as_ref()
                .is_some_and(|o| *o == Default::default())
            {
                field.options = None;
            }
        }
        if message
            .options
            .as_ref()
            .is_some_and(|o| *o == Default::default())
        {
            message.options = None;
        }
        message.nested_type.iter_mut().for_each(clear_message);
    }
    proto.message_type.iter_mut().for_each(clear_message);
    for field in &mut proto.extension {
        if field
            .options
            .as_ref()
            .is_some_and(|o| *o == Default::default())
        {
            field.options = None;
        }
    }
    (proto, print_file(file))
}

fn round_trip(file: &FileDescriptor) -> Result<(), String> {
    let (compiled, text) = reprint(file)?;
    let ((pa, ta), (pb, tb)) = (compared(&compiled), compared(file));
    let _ = &text;
    if pa != pb || ta != tb {
        let (da, db) = (format!("{pa:?}"), format!("{pb:?}"));
        let at = da
            .bytes()
            .zip(db.bytes())
            .take_while(|(x, y)| x == y)
            .count();
        let from = at.saturating_sub(300);
        return Err(format!(
            "{}: printed, compiled, not the same descriptor at byte {at}:\n compiled: ...{}\n \
             original: ...{}\nprinted:\n{text}\nprinted again:\n{ta}",
            file.name(),
            &da[from.min(da.len())..(at + 200).min(da.len())],
            &db[from.min(db.len())..(at + 200).min(db.len())],
        ));
    }
    Ok(())
}

fn assert_round_trip(file: &FileDescriptor) {
    if let Err(err) = round_trip(file) {
        panic!("{err}");
    }
}

fn proto_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            proto_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
}

#[test]
fn every_proto_of_the_tests_and_samples_prints_back_to_itself() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = Vec::new();
    let mut skipped = Vec::new();
    // The samples import each other from the folder's root.
    for folder in ["schemas", "tests/data"] {
        let mut files = Vec::new();
        proto_files(&root.join(folder), &mut files);
        for path in files {
            // A file's imports are named from its folder (tests) or the
            // samples' root.
            let include = if folder == "schemas" {
                root.join(folder)
            } else {
                path.parent().unwrap().to_owned()
            };
            let name = path.strip_prefix(&include).unwrap().to_str().unwrap();
            // A hostile fixture (`hostile/`), refused before any parser
            // reads it, as the registry refuses it.
            let text = std::fs::read_to_string(&path).unwrap();
            if let Err(err) = dataschema::limits::check_proto_nesting(&text) {
                skipped.push(format!("{name}: {err}"));
                continue;
            }
            let mut compiler = protox::Compiler::new([&include]).unwrap();
            compiler.include_imports(true).include_source_info(false);
            if let Err(err) = compiler.open_file(name) {
                // A fixture that does not compile on purpose (bundle errors).
                skipped.push(format!("{name}: {err}"));
                continue;
            }
            let pool =
                DescriptorPool::decode(compiler.encode_file_descriptor_set().as_slice()).unwrap();
            assert_round_trip(&pool.get_file_by_name(name).unwrap());
            checked.push(path.clone());
        }
    }
    assert!(
        checked.len() >= 12,
        "only {} .proto files checked",
        checked.len()
    );
    for fixture in ["proto/print/options.proto", "proto/print/legacy.proto"] {
        assert!(
            checked.contains(&root.join("tests/data").join(fixture)),
            "{fixture} does not compile: {skipped:?}"
        );
    }
}

#[test]
fn the_well_known_and_bundled_files_print_back_to_themselves() {
    let google = DescriptorPool::global();
    for name in PROTOBUF_WELL_KNOWN {
        assert_round_trip(&google.get_file_by_name(name).unwrap());
    }
    for (name, text) in WELL_KNOWN {
        let mut compiler = protox::Compiler::with_file_resolver(Memory {
            text: ((*name).to_owned(), (*text).to_owned()),
            others: HashMap::new(),
        });
        compiler.include_imports(true).include_source_info(false);
        compiler.open_file(name).unwrap();
        let pool =
            DescriptorPool::decode(compiler.encode_file_descriptor_set().as_slice()).unwrap();
        assert_round_trip(&pool.get_file_by_name(name).unwrap());
    }
}

// Generated descriptors: messages with scalar, message, enum, map, oneof
// and proto3-optional fields, nested messages and enums, reserved ranges,
// in proto2 and proto3; printed, compiled, the same.

const SCALARS: [(Type, &str); 6] = [
    (Type::Int32, ""),
    (Type::String, ""),
    (Type::Bytes, ""),
    (Type::Double, ""),
    (Type::Sint64, ""),
    (Type::Bool, ""),
];

#[derive(Clone, Debug)]
enum FieldShape {
    Scalar(usize, bool),
    Nested,
    Enum,
    Map,
    OneofPair,
    Optional3,
}

fn json_name(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn scalar_field(name: &str, number: i32, ty: Type, label: Label) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(label as i32),
        r#type: Some(ty as i32),
        json_name: Some(json_name(name)),
        ..Default::default()
    }
}

fn typed_field(
    name: &str,
    number: i32,
    ty: Type,
    type_name: &str,
    label: Label,
) -> FieldDescriptorProto {
    FieldDescriptorProto {
        type_name: Some(type_name.into()),
        ..scalar_field(name, number, ty, label)
    }
}

fn generated_file(proto3: bool, shapes: Vec<FieldShape>, reserved: bool) -> FileDescriptorProto {
    let package = "gen.v1";
    let mut message = DescriptorProto {
        name: Some("Root".into()),
        ..Default::default()
    };
    let nested = DescriptorProto {
        name: Some("Inner".into()),
        field: vec![scalar_field("value", 1, Type::String, Label::Optional)],
        ..Default::default()
    };
    message.nested_type.push(nested);
    message.enum_type.push(EnumDescriptorProto {
        name: Some("Kind".into()),
        value: vec![
            EnumValueDescriptorProto {
                name: Some("KIND_UNSPECIFIED".into()),
                number: Some(0),
                options: None,
            },
            EnumValueDescriptorProto {
                name: Some("KIND_A".into()),
                number: Some(1),
                options: None,
            },
        ],
        ..Default::default()
    });
    let mut number = 1;
    let mut oneofs = 0;
    let mut synthetic = Vec::new();
    for (i, shape) in shapes.into_iter().enumerate() {
        let name = format!("field{i}");
        match shape {
            FieldShape::Scalar(k, repeated) => {
                let label = if repeated {
                    Label::Repeated
                } else {
                    Label::Optional
                };
                message.field.push(scalar_field(
                    &name,
                    number,
                    SCALARS[k % SCALARS.len()].0,
                    label,
                ));
            }
            FieldShape::Nested => message.field.push(typed_field(
                &name,
                number,
                Type::Message,
                ".gen.v1.Root.Inner",
                Label::Optional,
            )),
            FieldShape::Enum => message.field.push(typed_field(
                &name,
                number,
                Type::Enum,
                ".gen.v1.Root.Kind",
                Label::Optional,
            )),
            FieldShape::Map => {
                let entry_name = format!("Field{i}Entry");
                let mut entry = DescriptorProto {
                    name: Some(entry_name.clone()),
                    field: vec![
                        scalar_field("key", 1, Type::String, Label::Optional),
                        scalar_field("value", 2, Type::Int64, Label::Optional),
                    ],
                    ..Default::default()
                };
                entry.options = Some(prost_reflect::prost_types::MessageOptions {
                    map_entry: Some(true),
                    ..Default::default()
                });
                message.nested_type.push(entry);
                message.field.push(typed_field(
                    &name,
                    number,
                    Type::Message,
                    &format!(".gen.v1.Root.{entry_name}"),
                    Label::Repeated,
                ));
            }
            FieldShape::OneofPair => {
                let index = oneofs;
                oneofs += 1;
                message.oneof_decl.push(OneofDescriptorProto {
                    name: Some(format!("choice_{i}")),
                    options: None,
                });
                for (j, ty) in [Type::String, Type::Int32].into_iter().enumerate() {
                    let mut field =
                        scalar_field(&format!("{name}o{j}"), number, ty, Label::Optional);
                    field.oneof_index = Some(index);
                    message.field.push(field);
                    number += 1;
                }
                continue;
            }
            FieldShape::Optional3 => {
                let mut field = scalar_field(&name, number, Type::Int32, Label::Optional);
                if proto3 {
                    field.proto3_optional = Some(true);
                    synthetic.push(message.field.len());
                }
                message.field.push(field);
            }
        }
        number += 1;
    }
    // Synthetic oneofs come after the real ones, as compilers add them.
    for at in synthetic {
        let name = format!("_{}", message.field[at].name());
        message.field[at].oneof_index = Some(message.oneof_decl.len() as i32);
        message.oneof_decl.push(OneofDescriptorProto {
            name: Some(name),
            options: None,
        });
    }
    if reserved {
        message.reserved_range.push(
            prost_reflect::prost_types::descriptor_proto::ReservedRange {
                start: Some(1000),
                end: Some(1010),
            },
        );
        message.reserved_name.push("gone".into());
    }
    FileDescriptorProto {
        name: Some("gen.proto".into()),
        package: Some(package.into()),
        message_type: vec![message],
        // A compiler writes no syntax for proto2.
        syntax: proto3.then(|| "proto3".into()),
        ..Default::default()
    }
}

fn shape() -> impl Strategy<Value = FieldShape> {
    prop_oneof![
        (0usize..6, any::<bool>()).prop_map(|(k, r)| FieldShape::Scalar(k, r)),
        Just(FieldShape::Nested),
        Just(FieldShape::Enum),
        Just(FieldShape::Map),
        Just(FieldShape::OneofPair),
        Just(FieldShape::Optional3),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_descriptors_print_back_to_themselves(
        proto3 in any::<bool>(),
        shapes in proptest::collection::vec(shape(), 0..12),
        reserved in any::<bool>(),
    ) {
        let file = generated_file(proto3, shapes, reserved);
        let pool = DescriptorPool::from_file_descriptor_set(FileDescriptorSet {
            file: vec![file.clone()],
        })
        .map_err(|err| TestCaseError::fail(err.to_string()))?;
        let descriptor = pool.get_file_by_name("gen.proto").unwrap();
        round_trip(&descriptor).map_err(TestCaseError::fail)?;
        // And the compiled file is the generated one.
        let (compiled, _) = reprint(&descriptor).map_err(TestCaseError::fail)?;
        prop_assert_eq!(compiled.file_descriptor_proto(), &file);
    }
}
