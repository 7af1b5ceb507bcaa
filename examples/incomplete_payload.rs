//! Measures one hostile protobuf payload through `Guard::validate`: 10 MB of
//! nested messages that each lack a proto2 `required` field, which sends the
//! scanner off its fast path.
//!
//! `cargo run --release --example incomplete_payload -- list|map [MB]`,
//! under `/usr/bin/time -v` for the peak memory.
//!
//! * `list`: `Batch { repeated Item items = 1; }`, every `Item` without its
//!   `required int32 id = 1`;
//! * `map`: `Index { map<int32, Item> items = 1; }`, distinct keys, every
//!   value without its `id`.

use std::time::Instant;

use dataschema::{Guard, Registry, Schema};
use prost::Message as _;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, FileDescriptorProto, FileDescriptorSet, MessageOptions,
};

#[path = "../tests/common/descriptor.rs"]
mod descriptor;
use descriptor::field;

fn descriptors() -> Vec<u8> {
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
        field: vec![field("items", 1, Label::Repeated, Type::Message, ".m.Item")],
        ..Default::default()
    };
    let index = DescriptorProto {
        name: Some("Index".into()),
        field: vec![field(
            "items",
            1,
            Label::Repeated,
            Type::Message,
            ".m.Index.ItemsEntry",
        )],
        nested_type: vec![DescriptorProto {
            name: Some("ItemsEntry".into()),
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
        message_type: vec![item, batch, index],
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let shape = args.next().unwrap_or_else(|| "list".into());
    let megabytes: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let size = megabytes * 1_000_000;
    let mut payload = Vec::with_capacity(size + 16);
    let root = match shape.as_str() {
        "list" => {
            // items { note: "" }: 0a 02 12 00
            while payload.len() < size {
                payload.extend_from_slice(&[0x0a, 0x02, 0x12, 0x00]);
            }
            "m.Batch"
        }
        _ => {
            // items { key: k value { note: "" } }
            let mut key: u32 = 0;
            while payload.len() < size {
                let mut entry = vec![0x08];
                prost::encoding::encode_varint(u64::from(key), &mut entry);
                entry.extend_from_slice(&[0x12, 0x02, 0x12, 0x00]);
                payload.push(0x0a);
                prost::encoding::encode_varint(entry.len() as u64, &mut payload);
                payload.extend_from_slice(&entry);
                key += 1;
            }
            "m.Index"
        }
    };
    let urn = "urn:bench:schema:incomplete:1";
    let registry =
        Registry::embed([Schema::protobuf(urn.parse().unwrap(), descriptors(), root)]).unwrap();
    let guard = Guard::new(registry);
    let started = Instant::now();
    let outcome = guard.validate(urn, &payload);
    let elapsed = started.elapsed();
    let violations = outcome
        .as_ref()
        .err()
        .map_or(0, |invalid| invalid.violations().len());
    println!(
        "{shape}: {} bytes, valid: {}, {violations} violations reported, {:.3} s",
        payload.len(),
        outcome.is_ok(),
        elapsed.as_secs_f64()
    );
}
