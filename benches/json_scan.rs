//! The guard's JSON path (the validating scanner, `jsonschema` for what it
//! refuses) against the bare `jsonschema` bytes path, in one run, with the
//! costs of parsing alone beside them.
//!
//! ```text
//! cargo bench --bench json_scan -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! Rows of each group, on the same bytes:
//!
//! * `bare`: `serde_json::from_slice::<Value>` + a pre-compiled
//!   `jsonschema::Validator::is_valid` (same schema, the guard's options:
//!   formats asserted, the `regex` engine with the guard's limits);
//! * `guard`: `Guard::validate` (URN parse, cache lookup, scan, counter;
//!   for a payload the scanner refuses, the verdict and a copy of the
//!   payload, whose report is produced only when read);
//! * `guard+report`: the same, then `Invalid::violations()` read for each
//!   refused payload (`jsonschema` parses and reports it): the cost of the
//!   report, shown beside the verdict's;
//! * `parse`: `serde_json::from_slice::<Value>` alone;
//! * `ignored`: `serde_json::from_slice::<IgnoredAny>`, reading the bytes
//!   and building nothing: the ceiling to aim at.
//!
//! Groups: `order_1k` (benches/data/order_1k.json against
//! orders.created:1) and `events` (1,200 generated order events against
//! orders.created:2, whose address is a `$ref` by URN; one in four is
//! invalid; one iteration checks them all), and `events_valid` (the 900
//! valid ones alone).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dataschema::validate::JsonEngine;
use dataschema::{Guard, Registry};
use serde::de::IgnoredAny;
use serde_json::Value;

#[path = "support/events.rs"]
mod events;

use events::{bare, V1, V2};

fn group(c: &mut Criterion, name: &str, urn: &str, payloads: &[Vec<u8>]) {
    let registry = Registry::from_bundle(dataschema::include_bundle!()).unwrap();
    let bare = bare(&registry, urn);
    let guard = Guard::new(registry);
    assert_eq!(
        guard.json_engine(&urn.parse().unwrap()),
        Some(JsonEngine::Scanner)
    );
    // Verdicts identical, payload by payload.
    let mut valid = 0;
    for payload in payloads {
        let expected = bare.is_valid(&serde_json::from_slice(payload).unwrap());
        assert_eq!(guard.validate(urn, payload).is_ok(), expected);
        valid += usize::from(expected);
    }
    let bytes: usize = payloads.iter().map(Vec::len).sum();
    eprintln!(
        "{name}: {} payloads, {valid} valid, {} bytes on average",
        payloads.len(),
        bytes / payloads.len()
    );

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(payloads.len() as u64));
    group.bench_function("bare", |b| {
        b.iter(|| {
            payloads
                .iter()
                .filter(|p| {
                    let value: Value = serde_json::from_slice(black_box(p)).unwrap();
                    bare.is_valid(&value)
                })
                .count()
        })
    });
    group.bench_function("guard", |b| {
        b.iter(|| {
            payloads
                .iter()
                .filter(|p| guard.validate(black_box(urn), black_box(p)).is_ok())
                .count()
        })
    });
    group.bench_function("guard+report", |b| {
        b.iter(|| {
            payloads
                .iter()
                .filter(|p| match guard.validate(black_box(urn), black_box(p)) {
                    Ok(_) => true,
                    Err(invalid) => black_box(invalid.violations()).is_empty(),
                })
                .count()
        })
    });
    group.bench_function("parse", |b| {
        b.iter(|| {
            payloads
                .iter()
                .map(|p| serde_json::from_slice::<Value>(black_box(p)).is_ok() as usize)
                .sum::<usize>()
        })
    });
    group.bench_function("ignored", |b| {
        b.iter(|| {
            payloads
                .iter()
                .map(|p| serde_json::from_slice::<IgnoredAny>(black_box(p)).is_ok() as usize)
                .sum::<usize>()
        })
    });
    group.finish();
}

fn order_1k(c: &mut Criterion) {
    group(c, "order_1k", V1, &[events::order_1k()]);
}

fn generated(c: &mut Criterion) {
    group(c, "events", V2, &events::events());
    // The valid three in four alone: the path the scanner answers.
    group(c, "events_valid", V2, &events::valid_events());
}

criterion_group!(benches, order_1k, generated);
criterion_main!(benches);
