//! Large protobuf payloads whose nested messages lack a required field take
//! the scanner off its fast path; the work that settles them stays bounded:
//! the counting allocator (this thread's live bytes) measures what
//! `Guard::validate` holds at once, against the payload's size. The decoded
//! tree the scanner used to build took 30 to 180 times the payload.

use dataschema::{Guard, Registry, Schema};
use prost::Message as _;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, FileDescriptorProto, FileDescriptorSet, MessageOptions,
};

use crate::counting_alloc::peak_during;

use crate::descriptor;
use descriptor::field;

/// `Item { required int32 id = 1; optional string note = 2; }`,
/// `Batch { repeated Item items = 1; optional Item item = 2; map<int32, Item> index = 3; }`.
fn guard() -> Guard {
    let item = DescriptorProto {
        name: Some("Item".into()),
        field: vec![
            field("id", 1, Label::Required, Type::Int32, ""),
            field("note", 2, Label::Optional, Type::String, ""),
        ],
        ..Default::default()
    };
    let batch = DescriptorProto {
        name: Some("Batch".into()),
        field: vec![
            field("items", 1, Label::Repeated, Type::Message, ".m.Item"),
            field("item", 2, Label::Optional, Type::Message, ".m.Item"),
            field(
                "index",
                3,
                Label::Repeated,
                Type::Message,
                ".m.Batch.IndexEntry",
            ),
        ],
        nested_type: vec![DescriptorProto {
            name: Some("IndexEntry".into()),
            field: vec![
                field("key", 1, Label::Optional, Type::Int32, ""),
                field("value", 2, Label::Optional, Type::Message, ".m.Item"),
            ],
            options: Some(MessageOptions {
                map_entry: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    let file = FileDescriptorProto {
        name: Some("m.proto".into()),
        package: Some("m".into()),
        syntax: Some("proto2".into()),
        message_type: vec![item, batch],
        ..Default::default()
    };
    let bytes = FileDescriptorSet { file: vec![file] }.encode_to_vec();
    let schema = Schema::protobuf(URN.parse().unwrap(), bytes, "m.Batch");
    Guard::new(Registry::embed([schema]).unwrap())
}

const URN: &str = "urn:test:schema:batch:1";
const SIZE: usize = 2_000_000;

fn entry(key: u32, value: &[u8]) -> Vec<u8> {
    let mut body = vec![0x08];
    prost::encoding::encode_varint(u64::from(key), &mut body);
    body.push(0x12);
    prost::encoding::encode_varint(value.len() as u64, &mut body);
    body.extend_from_slice(value);
    let mut out = vec![0x1a];
    prost::encoding::encode_varint(body.len() as u64, &mut out);
    out.extend_from_slice(&body);
    out
}

#[test]
fn settling_incomplete_messages_holds_a_small_multiple_of_the_payload() {
    let guard = guard();
    // Warm the guard's cache: the compile is not what is measured.
    assert!(guard.validate(URN, &[]).is_ok());

    // 500,000 list elements, each without its id: invalid, 64 violations.
    let mut list = Vec::with_capacity(SIZE);
    while list.len() < SIZE {
        list.extend_from_slice(&[0x0a, 0x02, 0x12, 0x00]);
    }
    let (outcome, peak) = peak_during(|| guard.validate(URN, &list));
    let invalid = outcome.unwrap_err();
    assert_eq!(invalid.violations().len(), 64);
    assert_eq!(invalid.violations()[0].path(), "items[0].id");
    assert!(
        peak < list.len(),
        "list: {peak} bytes held for {}",
        list.len()
    );

    // A singular field sent 1,000,000 times: the occurrences merge, the
    // last one brings the id, so the payload conforms.
    let mut merged = vec![0x12, 0x02, 0x12, 0x00];
    while merged.len() < SIZE {
        merged.extend_from_slice(&[0x12, 0x00]);
    }
    merged.extend_from_slice(&[0x12, 0x02, 0x08, 0x01]);
    let (outcome, peak) = peak_during(|| guard.validate(URN, &merged));
    assert!(outcome.unwrap().is_validated());
    assert!(
        peak < merged.len(),
        "merge: {peak} bytes held for {}",
        merged.len()
    );

    // Map entries without an id, each replaced by a later entry with the
    // same key that has one: the payload conforms.
    let mut map = Vec::with_capacity(2 * SIZE);
    let keys = 100_000;
    for key in 0..keys {
        map.extend_from_slice(&entry(key, &[0x12, 0x00]));
    }
    for key in 0..keys {
        map.extend_from_slice(&entry(key, &[0x08, 0x01]));
    }
    let (outcome, peak) = peak_during(|| guard.validate(URN, &map));
    assert!(outcome.unwrap().is_validated());
    // One key and one span per distinct key.
    assert!(
        peak < 8 * map.len(),
        "map: {peak} bytes held for {}",
        map.len()
    );
    // And the other way round: invalid, every key's last entry incomplete.
    let mut backwards = Vec::with_capacity(map.len());
    for key in 0..keys {
        backwards.extend_from_slice(&entry(key, &[0x08, 0x01]));
    }
    for key in 0..keys {
        backwards.extend_from_slice(&entry(key, &[0x12, 0x00]));
    }
    let (outcome, peak) = peak_during(|| guard.validate(URN, &backwards));
    assert_eq!(outcome.unwrap_err().violations().len(), 64);
    assert!(
        peak < 8 * backwards.len(),
        "map: {peak} bytes held for {}",
        backwards.len()
    );
}
