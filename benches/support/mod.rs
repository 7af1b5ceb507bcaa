//! The guard-against-bare benchmark groups, shared by `benches/guard.rs`
//! (no metrics recorder) and `benches/metrics.rs` (a Prometheus recorder
//! installed).

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use dataschema::{Guard, Registry};
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, Value};

const ORDER: &str = "urn:acme:schema:orders.created:1";
const SHIPPED: &str = "urn:acme:schema:orders.shipped:1";

fn registry() -> Registry {
    Registry::from_bundle(dataschema::include_bundle!()).unwrap()
}

/// The JSON rows' parts: the bare validator (built with the guard's
/// options), a guard over the bundle, and the 1 KB order event.
pub fn json_parts() -> (jsonschema::Validator, Guard, Vec<u8>) {
    let registry = registry();
    let schema_bytes = registry
        .resolve(&ORDER.parse().unwrap())
        .unwrap()
        .shared_bytes();
    let schema: serde_json::Value = serde_json::from_slice(&schema_bytes).unwrap();
    // The same options as the guard's: formats asserted, patterns on the
    // linear-time `regex` engine with its limits.
    let bare = jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(2 << 20)
                .dfa_size_limit(2 << 20),
        )
        .build(&schema)
        .unwrap();
    let guard = Guard::new(registry);
    let payload = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/order_1k.json"
    ))
    .unwrap();
    assert!(guard.validate(ORDER, &payload).unwrap().is_validated());
    (bare, guard, payload)
}

/// One bare JSON validation: parse, then `is_valid`.
#[inline]
pub fn json_bare(bare: &jsonschema::Validator, payload: &[u8]) -> bool {
    let value: serde_json::Value = serde_json::from_slice(black_box(payload)).unwrap();
    black_box(bare.is_valid(&value))
}

/// One guarded JSON validation.
#[inline]
pub fn json_guard(guard: &Guard, payload: &[u8]) -> bool {
    black_box(guard.validate(black_box(ORDER), black_box(payload)).is_ok())
}

/// `<group>/bare` and `<group>/guard` on the 1 KB order event.
pub fn json(c: &mut Criterion, group: &str) {
    let (bare, guard, payload) = json_parts();
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes(payload.len() as u64));
    group.bench_function("bare", |b| b.iter(|| json_bare(&bare, &payload)));
    group.bench_function("guard", |b| b.iter(|| json_guard(&guard, &payload)));
    group.finish();
}

/// An `OrderShipped` with a destination and several parcels.
fn shipped_payload(pool: &DescriptorPool) -> Vec<u8> {
    let message = |name: &str| DynamicMessage::new(pool.get_message_by_name(name).unwrap());
    let mut address = message("acme.common.v1.Address");
    for (field, value) in [
        ("street", "1 Main Street"),
        ("city", "Utrecht"),
        ("postcode", "3511 AB"),
        ("country", "NL"),
    ] {
        address.set_field_by_name(field, Value::String(value.into()));
    }
    let parcels = (0..6)
        .map(|i| {
            let mut parcel = message("acme.orders.v1.Parcel");
            parcel.set_field_by_name(
                "tracking_number",
                Value::String(format!("JD01460000628{i}")),
            );
            parcel.set_field_by_name(
                "skus",
                Value::List(
                    (0..5)
                        .map(|j| Value::String(format!("SKU-{i}{j:03}-BLUE")))
                        .collect(),
                ),
            );
            parcel.set_field_by_name("weight_grams", Value::U32(1200 + i));
            Value::Message(parcel)
        })
        .collect();
    let mut shipped = message("acme.orders.v1.OrderShipped");
    shipped.set_field_by_name("order_id", Value::String("ord_a1b2c3d4".into()));
    shipped.set_field_by_name("destination", Value::Message(address));
    shipped.set_field_by_name("parcels", Value::List(parcels));
    shipped.set_field_by_name("carrier", Value::String("DHL Parcel".into()));
    shipped.encode_to_vec()
}

/// The protobuf rows' parts: the root message's descriptor, a guard over
/// the bundle, and a 641 B `OrderShipped`.
pub fn protobuf_parts() -> (MessageDescriptor, Guard, Vec<u8>) {
    let registry = registry();
    let schema = registry.resolve(&SHIPPED.parse().unwrap()).unwrap();
    let pool = DescriptorPool::decode(schema.bytes()).unwrap();
    let descriptor = pool
        .get_message_by_name("acme.orders.v1.OrderShipped")
        .unwrap();
    let payload = shipped_payload(&pool);
    let guard = Guard::new(registry);
    assert!(guard.validate(SHIPPED, &payload).unwrap().is_validated());
    (descriptor, guard, payload)
}

/// One bare protobuf validation: a full decode.
#[inline]
pub fn protobuf_bare(descriptor: &MessageDescriptor, payload: &[u8]) -> bool {
    black_box(DynamicMessage::decode(descriptor.clone(), black_box(payload)).is_ok())
}

/// One guarded protobuf validation.
#[inline]
pub fn protobuf_guard(guard: &Guard, payload: &[u8]) -> bool {
    black_box(
        guard
            .validate(black_box(SHIPPED), black_box(payload))
            .is_ok(),
    )
}

/// `<group>/bare` and `<group>/guard` on a 641 B `OrderShipped`.
pub fn protobuf(c: &mut Criterion, group: &str) {
    let (descriptor, guard, payload) = protobuf_parts();
    eprintln!("protobuf payload: {} bytes", payload.len());
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes(payload.len() as u64));
    group.bench_function("bare", |b| b.iter(|| protobuf_bare(&descriptor, &payload)));
    group.bench_function("guard", |b| b.iter(|| protobuf_guard(&guard, &payload)));
    group.finish();
}
