//! Schemas that nest as deep as an attacker likes, through every reader
//! that recurses (protobuf text and descriptor sets, Avro, JSON Schema),
//! from a caller's thread of 512 KiB of stack: refused or read, never a
//! stack overflow. Compiles run on a stack of their own
//! (`dataschema::limits`); what reads outside a compile is bounded by the
//! format's own depth limit.

use crate::common::Answers;
use dataschema::{compat, Compatibility, Guard, Language, Outcome, Registry, Schema};

const URN: &str = "urn:acme:schema:deep:1";

/// Runs `work` on a thread of 512 KiB of stack (a quarter of a Tokio
/// worker's) and answers what it returned: an overflow aborts the test.
fn small_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(work)
        .unwrap()
        .join()
        .expect("the small thread survives")
}

/// Every entry point a schema from outside reaches, on a small stack:
/// `embed` (the registry's compile), `publish`, a fallback's answer to a
/// guard, and the compatibility engine's reading. Answers whether the
/// registry took it.
fn through_every_reader(schema: Schema) -> bool {
    small_stack(move || {
        let embedded = Registry::embed([schema.clone()]);
        let published = Registry::new(dataschema::MemoryStore::new())
            .publish(schema.clone(), Compatibility::None);
        assert_eq!(
            embedded.is_ok(),
            published.is_ok(),
            "{embedded:?} {published:?}"
        );
        let guard = Guard::builder(Registry::embed([]).unwrap())
            .fallback(Answers(schema.clone()))
            .build();
        let outcome = guard.validate(URN, b"");
        if embedded.is_err() {
            assert!(
                matches!(outcome, Ok(Outcome::Unvalidated(_))),
                "{outcome:?}"
            );
        }
        let _ = compat::diff(&schema, &schema);
        #[cfg(feature = "proto-text")]
        if let Ok(registry) = &embedded {
            if schema.language() == Language::Protobuf {
                let _ = dataschema::proto::text(&schema, registry);
            }
        }
        embedded.is_ok()
    })
}

fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn length_delimited(field: u64, body: &[u8], out: &mut Vec<u8>) {
    varint(field << 3 | 2, out);
    varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// A descriptor set whose file option `(o)`, of message `M { M m = 1; }`,
/// nests `levels` deep in its encoded bytes.
#[cfg(feature = "protobuf")]
fn deep_option_set(levels: usize) -> Vec<u8> {
    use prost::Message as _;
    use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
    use prost_reflect::prost_types::{
        DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
    };
    let message_field = |name: &str, number: i32| FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(Label::Optional as i32),
        r#type: Some(Type::Message as i32),
        type_name: Some(".d.M".into()),
        ..Default::default()
    };
    let file = FileDescriptorProto {
        name: Some("deep.proto".into()),
        package: Some("d".into()),
        dependency: vec!["google/protobuf/descriptor.proto".into()],
        message_type: vec![DescriptorProto {
            name: Some("M".into()),
            field: vec![message_field("m", 1)],
            ..Default::default()
        }],
        extension: vec![FieldDescriptorProto {
            extendee: Some(".google.protobuf.FileOptions".into()),
            ..message_field("o", 50000)
        }],
        syntax: Some("proto2".into()),
        ..Default::default()
    };
    let mut value = Vec::new();
    for _ in 0..levels {
        let mut outer = Vec::new();
        length_delimited(1, &value, &mut outer);
        value = outer;
    }
    let mut options = Vec::new();
    length_delimited(50000, &value, &mut options);
    let mut file_bytes = file.encode_to_vec();
    length_delimited(8, &options, &mut file_bytes);
    let descriptor = prost_reflect::DescriptorPool::global()
        .get_file_by_name("google/protobuf/descriptor.proto")
        .expect("prost-reflect holds descriptor.proto")
        .file_descriptor_proto()
        .clone();
    let mut set = FileDescriptorSet {
        file: vec![descriptor],
    }
    .encode_to_vec();
    length_delimited(1, &file_bytes, &mut set);
    set
}

/// A descriptor set with an option nested 1,200 deep in its bytes, or
/// 1,200 nested message declarations: refused or read, on a small stack.
#[test]
#[cfg(feature = "protobuf")]
fn deep_descriptor_sets_are_read_or_refused_on_a_small_stack() {
    for levels in [50, 1_200] {
        let schema = Schema::new(
            URN.parse().unwrap(),
            Language::Protobuf,
            deep_option_set(levels),
            Some("d.M"),
        );
        through_every_reader(schema);
    }
    let mut nested = prost_reflect::prost_types::DescriptorProto {
        name: Some("N".into()),
        ..Default::default()
    };
    for _ in 0..1_200 {
        nested = prost_reflect::prost_types::DescriptorProto {
            name: Some("N".into()),
            nested_type: vec![nested],
            ..Default::default()
        };
    }
    use prost::Message as _;
    let set = prost_reflect::prost_types::FileDescriptorSet {
        file: vec![prost_reflect::prost_types::FileDescriptorProto {
            name: Some("nested.proto".into()),
            message_type: vec![nested],
            ..Default::default()
        }],
    };
    let schema = Schema::new(
        URN.parse().unwrap(),
        Language::Protobuf,
        set.encode_to_vec(),
        Some("N"),
    );
    assert!(!through_every_reader(schema));
}

/// `.proto` text nested past the bound, in an option, in messages, in a
/// field's options and in a map's type: refused before the parser reads
/// it, naming the line; at the bound, read.
#[test]
#[cfg(feature = "proto-text")]
fn deep_proto_text_is_refused_unread() {
    let bound = dataschema::limits::max_proto_nesting();
    let option = |levels: usize| {
        format!(
            "syntax = \"proto2\";\nimport \"google/protobuf/descriptor.proto\";\npackage d;\n\
             message M {{ optional M m = 1; }}\nextend google.protobuf.FileOptions {{ optional M \
             o = 50000; }}\noption (o) = {}{{}}{};\n",
            "{m: ".repeat(levels),
            "}".repeat(levels)
        )
    };
    let text = |text: String| Schema::new(URN.parse().unwrap(), Language::Protobuf, text, None);
    assert!(through_every_reader(text(option(bound - 1))));
    for hostile in [
        option(bound),
        option(5_000),
        format!("syntax = \"proto3\";\n{}", "message A { ".repeat(3_000)),
        format!(
            "syntax = \"proto3\";\nmessage A {{ int32 a = 1 {} ; }}",
            "[".repeat(3_000)
        ),
        format!(
            "syntax = \"proto3\";\nmessage A {{ map{} a = 1; }}",
            "<".repeat(3_000)
        ),
    ] {
        let schema = text(hostile);
        let refused = small_stack({
            let schema = schema.clone();
            move || Registry::embed([schema]).unwrap_err()
        });
        assert!(
            refused.to_string().contains("levels deep")
                || format!("{:?}", std::error::Error::source(&refused)).contains("levels deep"),
            "{refused}"
        );
        assert!(!through_every_reader(schema));
    }
}

/// An Avro schema and a JSON Schema nested thousands deep: refused
/// (nesting past the model's 64 levels, past `serde_json`'s 128) on a
/// small stack.
#[test]
fn deep_avro_and_json_schemas_are_refused_on_a_small_stack() {
    #[cfg(feature = "avro")]
    {
        let avro = format!(
            "{}\"long\"{}",
            "{\"type\": \"array\", \"items\": ".repeat(3_000),
            "}".repeat(3_000)
        );
        let schema = Schema::new(URN.parse().unwrap(), Language::Avro, avro, None);
        assert!(!through_every_reader(schema));
    }
    #[cfg(feature = "json")]
    {
        let json = format!("{}{}", "{\"not\": ".repeat(3_000), "}".repeat(3_000));
        let schema = Schema::new(URN.parse().unwrap(), Language::JsonSchema, json, None);
        assert!(!through_every_reader(schema));
    }
}

/// A `schemas/` folder holding the 6 kB `.proto` of an option nested
/// 1,200 deep: the build's check names the file and the nesting.
#[test]
#[cfg(all(feature = "build", feature = "protobuf"))]
fn a_deep_proto_in_a_schemas_folder_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("dataschema.toml"),
        "namespace = \"acme\"\n[roots]\n\"deep.v1\" = \"M\"\n",
    )
    .unwrap();
    std::fs::copy(
        crate::common::data("hostile/deep_option.proto"),
        dir.path().join("deep.v1.proto"),
    )
    .unwrap();
    let refused = small_stack(move || dataschema::build::check(dir.path()).map(drop))
        .expect_err("the folder is refused");
    let text = refused.to_string();
    assert!(
        text.contains("deep.v1.proto") && text.contains("levels deep (line 7"),
        "{text}"
    );
}
