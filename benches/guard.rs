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

mod support;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use dataschema::{Guard, Registry, Schema, Urn};

fn json(c: &mut Criterion) {
    support::json(c, "json");
}

fn protobuf(c: &mut Criterion) {
    support::protobuf(c, "protobuf");
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
