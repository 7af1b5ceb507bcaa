//! The guard's validated path against the bare validator, in one run.
//!
//! ```text
//! cargo bench --bench guard && python3 benches/ratios.py
//! ```
//!
//! * `json/bare`: `serde_json::from_slice` + a pre-compiled
//!   `jsonschema::Validator::is_valid` (same schema, same options);
//!   `json/guard`: `Guard::validate` on the same bytes.
//! * `protobuf/bare`: `DynamicMessage::decode`; `protobuf/guard`:
//!   `Guard::validate` on the same bytes.
//! * `lookup/guard`: `Guard::validate` of the payload `0` against the
//!   schema `{}`: URN parse, cache lookup, a trivial check, the counter.
//!   `lookup/parse` is the URN parse alone.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dataschema::{Guard, Registry, Schema, Urn};
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, Value};

const ORDER: &str = "urn:acme:schema:orders.created:1";
const SHIPPED: &str = "urn:acme:schema:orders.shipped:1";

fn registry() -> Registry {
    Registry::from_bundle(dataschema::include_bundle!()).unwrap()
}

fn json(c: &mut Criterion) {
    let registry = registry();
    let schema_bytes = registry.resolve(&ORDER.parse().unwrap()).unwrap().bytes;
    let schema: serde_json::Value = serde_json::from_slice(&schema_bytes).unwrap();
    let bare = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let guard = Guard::new(registry);
    let payload = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/order_1k.json"
    ))
    .unwrap();
    assert!(guard.validate(ORDER, &payload).unwrap().is_validated());

    let mut group = c.benchmark_group("json");
    group.throughput(Throughput::Bytes(payload.len() as u64));
    group.bench_function("bare", |b| {
        b.iter(|| {
            let value: serde_json::Value = serde_json::from_slice(black_box(&payload)).unwrap();
            black_box(bare.is_valid(&value))
        })
    });
    group.bench_function("guard", |b| {
        b.iter(|| {
            black_box(
                guard
                    .validate(black_box(ORDER), black_box(&payload))
                    .is_ok(),
            )
        })
    });
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

fn protobuf(c: &mut Criterion) {
    let registry = registry();
    let schema = registry.resolve(&SHIPPED.parse().unwrap()).unwrap();
    let pool = DescriptorPool::decode(schema.bytes.as_slice()).unwrap();
    let descriptor = pool
        .get_message_by_name("acme.orders.v1.OrderShipped")
        .unwrap();
    let payload = shipped_payload(&pool);
    eprintln!("protobuf payload: {} bytes", payload.len());
    let guard = Guard::new(registry);
    assert!(guard.validate(SHIPPED, &payload).unwrap().is_validated());

    let mut group = c.benchmark_group("protobuf");
    group.throughput(Throughput::Bytes(payload.len() as u64));
    group.bench_function("bare", |b| {
        b.iter(|| {
            black_box(
                DynamicMessage::decode(descriptor.clone(), black_box(payload.as_slice())).is_ok(),
            )
        })
    });
    group.bench_function("guard", |b| {
        b.iter(|| {
            black_box(
                guard
                    .validate(black_box(SHIPPED), black_box(&payload))
                    .is_ok(),
            )
        })
    });
    group.finish();
}

fn lookup(c: &mut Criterion) {
    let urn: Urn = "urn:acme:schema:anything:1".parse().unwrap();
    let guard = Guard::new(Registry::embed([Schema::json(urn, "{}")]).unwrap());
    assert!(guard
        .validate("urn:acme:schema:anything:1", b"0")
        .unwrap()
        .is_validated());
    let mut group = c.benchmark_group("lookup");
    group.bench_function("parse", |b| {
        b.iter(|| {
            black_box(
                black_box("urn:acme:schema:orders.created:12")
                    .parse::<Urn>()
                    .is_ok(),
            )
        })
    });
    group.bench_function("guard", |b| {
        b.iter(|| {
            black_box(
                guard
                    .validate(black_box("urn:acme:schema:anything:1"), black_box(b"0"))
                    .is_ok(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, json, protobuf, lookup);
criterion_main!(benches);
