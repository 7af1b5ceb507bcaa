//! Resolution for protobuf, the table row by row, both ways: by
//! field number, unknown fields kept (or dropped on request), enums by
//! number, wire-compatible scalars widened and narrowed back when they fit.

use dataschema::resolve::PlanOptions;
use dataschema::{Compatibility, Error, MemoryStore, Registry, Resolution, Schema, Urn};

/// A descriptor set of one `.proto` file, compiled from memory.
fn descriptor_set(text: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.proto"), text).unwrap();
    let mut compiler = protox::Compiler::new([dir.path()]).unwrap();
    compiler.include_imports(true).include_source_info(false);
    compiler.open_file("t.proto").unwrap();
    compiler.encode_file_descriptor_set()
}

fn resolution_with(
    name: &str,
    writer: &str,
    reader: &str,
    options: &PlanOptions,
) -> Result<Resolution, Error> {
    let registry = Registry::new(MemoryStore::new());
    let w: Urn = format!("urn:test:schema:{name}:1").parse().unwrap();
    let r: Urn = format!("urn:test:schema:{name}:2").parse().unwrap();
    for (urn, text) in [(&w, writer), (&r, reader)] {
        registry
            .publish(
                Schema::protobuf(urn.clone(), descriptor_set(text), "t.M"),
                Compatibility::None,
            )
            .unwrap();
    }
    registry.resolution_with(&w, &r, options)
}

fn resolution(name: &str, writer: &str, reader: &str) -> Result<Resolution, Error> {
    resolution_with(name, writer, reader, &PlanOptions::new())
}

fn proto(body: &str) -> String {
    format!("syntax = \"proto3\";\npackage t;\n{body}")
}

fn varint(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out
}

/// A varint field.
fn vfield(number: u32, value: u64) -> Vec<u8> {
    [varint(u64::from(number) << 3), varint(value)].concat()
}

/// A length-delimited field.
fn lfield(number: u32, body: &[u8]) -> Vec<u8> {
    [
        varint((u64::from(number) << 3) | 2),
        varint(body.len() as u64),
        body.to_vec(),
    ]
    .concat()
}

#[test]
fn fields_by_number_whatever_their_names() {
    let res = resolution(
        "names",
        &proto("message M { string full_name = 1; int32 id = 2; }"),
        &proto("message M { string name = 1; int32 id = 2; }"),
    )
    .unwrap();
    // The same layout: the identity, both ways.
    assert!(res.is_identity());
    let payload = [lfield(1, b"Ada"), vfield(2, 7)].concat();
    assert_eq!(res.transcode(&payload).unwrap(), payload);
    assert_eq!(res.write_back(&payload).unwrap(), payload);
}

#[test]
fn fields_only_one_side_has_are_kept_or_dropped() {
    let writer = proto("message M { int32 id = 1; string note = 2; }");
    let reader = proto("message M { int32 id = 1; string currency = 3; }");
    let payload = [vfield(1, 1), lfield(2, b"hi")].concat();
    // Kept by default, as protobuf keeps unknown fields.
    let res = resolution("keep", &writer, &reader).unwrap();
    assert_eq!(res.transcode(&payload).unwrap(), payload);
    // Dropped on request; the reader's own field is absent (its default).
    let res = resolution_with(
        "drop",
        &writer,
        &reader,
        &PlanOptions::new().with_drop_unknown_fields(true),
    )
    .unwrap();
    assert_eq!(res.transcode(&payload).unwrap(), vfield(1, 1));
    let back = [vfield(1, 1), lfield(3, b"EUR")].concat();
    assert_eq!(res.write_back(&back).unwrap(), vfield(1, 1));
}

#[test]
fn a_required_field_the_writer_lacks_is_unresolvable() {
    let err = resolution(
        "required",
        "syntax = \"proto2\";\npackage t;\nmessage M { optional int32 id = 1; }",
        "syntax = \"proto2\";\npackage t;\nmessage M { optional int32 id = 1; required string sku = 2; }",
    )
    .unwrap_err();
    let Error::Unresolvable { refusal, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(refusal.path(), "/sku", "{err}");
}

#[test]
fn wire_compatible_scalars_widen_and_narrow_back_when_they_fit() {
    let res = resolution(
        "widen",
        &proto("message M { int32 n = 1; uint32 u = 2; sint32 s = 3; bool b = 4; }"),
        &proto("message M { int64 n = 1; uint64 u = 2; sint64 s = 3; int32 b = 4; }"),
    )
    .unwrap();
    let negative = (-5i64) as u64; // int32 -5 is written as ten bytes, as int64 is
    let payload = [
        vfield(1, negative),
        vfield(2, 9),
        vfield(3, 9),
        vfield(4, 1),
    ]
    .concat();
    assert_eq!(res.transcode(&payload).unwrap(), payload);
    assert_eq!(res.write_back(&payload).unwrap(), payload);
    for (bad, path) in [
        (vfield(1, 1 << 40), "n"),
        (vfield(2, 1 << 40), "u"),
        (vfield(3, 1 << 40), "s"),
        (vfield(4, 2), "b"),
    ] {
        let err = res.write_back(&bad).unwrap_err();
        assert_eq!(err.violations()[0].path(), path, "{err}");
    }
    // Narrowing, and another kind of type, are unresolvable read.
    let err = resolution(
        "narrow",
        &proto("message M { int64 n = 1; }"),
        &proto("message M { int32 n = 1; }"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("narrowing"), "{err}");
    let err = resolution(
        "kind",
        &proto("message M { string n = 1; }"),
        &proto("message M { int32 n = 1; }"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("at /n"), "{err}");
}

#[test]
fn enums_by_number_and_nested_messages_recursively() {
    let res = resolution_with(
        "nested",
        &proto(
            "enum S { S_NEW = 0; S_PAID = 1; }\n\
             message Item { int32 q = 1; string gone = 2; }\n\
             message M { repeated Item items = 1; S status = 2; map<string, Item> by = 3; }",
        ),
        &proto(
            "enum S { S_NEW = 0; S_PAID = 1; S_VOID = 2; }\n\
             message Item { int64 q = 1; }\n\
             message M { repeated Item items = 1; S status = 2; map<string, Item> by = 3; }",
        ),
        &PlanOptions::new().with_drop_unknown_fields(true),
    )
    .unwrap();
    let item = [vfield(1, 3), lfield(2, b"x")].concat();
    let entry = [lfield(1, b"k"), lfield(2, &item)].concat();
    let payload = [lfield(1, &item), vfield(2, 1), lfield(3, &entry)].concat();
    let item_read = vfield(1, 3);
    let entry_read = [lfield(1, b"k"), lfield(2, &item_read)].concat();
    let read = [lfield(1, &item_read), vfield(2, 1), lfield(3, &entry_read)].concat();
    assert_eq!(res.transcode(&payload).unwrap(), read);
    assert_eq!(res.write_back(&read).unwrap(), read);
    // A q past the writer's int32, written back: refused with its path.
    let bad = lfield(1, &vfield(1, 1 << 40));
    let err = res.write_back(&bad).unwrap_err();
    assert_eq!(err.violations()[0].path(), "items.q", "{err}");
}

/// A descriptor set of a `.proto` file on disk.
fn descriptor_set_of(path: &std::path::Path) -> Vec<u8> {
    let mut compiler = protox::Compiler::new([path.parent().unwrap()]).unwrap();
    compiler.include_imports(true).include_source_info(false);
    compiler.open_file(path.file_name().unwrap()).unwrap();
    compiler.encode_file_descriptor_set()
}

/// Differential: the scanner's order workload (`tests/data/scan/order.proto`)
/// read as a later version (`tests/data/resolve/order.v2.proto`: fields
/// widened, renamed, removed, added; an enum member added), on random and
/// realistic messages: what resolution writes is, decoded with the
/// reader's descriptor by `prost-reflect`, what `prost-reflect` decodes
/// from the writer's bytes with the reader's descriptor; and writing it
/// back gives the writer's bytes again, byte for byte.
#[test]
fn reads_agree_with_prost_reflect_and_round_trip() {
    use prost::Message as _;
    use prost_reflect::{DescriptorPool, DynamicMessage};

    const ROOT: &str = "shop.orders.Order";
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let writer_set = descriptor_set_of(&root.join("tests/data/scan/order.proto"));
    let reader_set = descriptor_set_of(&root.join("tests/data/resolve/order.v2.proto"));
    let descriptor = |set: &[u8]| {
        DescriptorPool::decode(set)
            .unwrap()
            .get_message_by_name(ROOT)
            .unwrap()
    };
    let (writer, reader) = (descriptor(&writer_set), descriptor(&reader_set));
    let registry = Registry::new(MemoryStore::new());
    let (w, r): (Urn, Urn) = (
        "urn:test:schema:order:1".parse().unwrap(),
        "urn:test:schema:order:2".parse().unwrap(),
    );
    for (urn, set) in [(&w, writer_set), (&r, reader_set)] {
        registry
            .publish(
                Schema::protobuf(urn.clone(), set, ROOT),
                Compatibility::None,
            )
            .unwrap();
    }
    let resolution = registry.resolution(&w, &r).unwrap();
    let pool = crate::scan::pool();
    let order = crate::scan::message(&pool, ROOT);
    let mut rng = crate::scan::Rng::new(39);
    let mut payloads = crate::scan::order_payloads(&pool, 200, 39);
    payloads
        .extend((0..300).map(|_| crate::scan::random_message(&order, &mut rng, 0).encode_to_vec()));
    for (i, payload) in payloads.iter().enumerate() {
        let read = resolution.transcode(payload).unwrap();
        let ours = DynamicMessage::decode(reader.clone(), read.as_slice()).unwrap();
        let theirs = DynamicMessage::decode(reader.clone(), payload.as_slice()).unwrap();
        assert_eq!(ours, theirs, "message {i}");
        let back = resolution.write_back(&read).unwrap();
        assert_eq!(&back, payload, "message {i} written back");
        assert_eq!(
            DynamicMessage::decode(writer.clone(), back.as_slice()).unwrap(),
            DynamicMessage::decode(writer.clone(), payload.as_slice()).unwrap()
        );
    }
}
