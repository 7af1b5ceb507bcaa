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
use dataschema::{BoxError, Guard, Registry};
use serde::de::IgnoredAny;
use serde_json::Value;

const V1: &str = "urn:acme:schema:orders.created:1";
const V2: &str = "urn:acme:schema:orders.created:2";
const ADDRESS: &str = "urn:acme:schema:common.address:1";

/// Serves the address schema to the bare validator, as the registry does
/// to the guard.
struct Address(Value);

impl jsonschema::Retrieve for Address {
    fn retrieve(&self, uri: &jsonschema::Uri<String>) -> Result<Value, BoxError> {
        if uri.as_str() == ADDRESS {
            Ok(self.0.clone())
        } else {
            Err(format!("{uri} is not served here").into())
        }
    }
}

fn bare(registry: &Registry, urn: &str) -> jsonschema::Validator {
    let json = |urn: &str| -> Value {
        let schema = registry.resolve(&urn.parse().unwrap()).unwrap();
        serde_json::from_slice(schema.bytes()).unwrap()
    };
    jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(2 << 20)
                .dfa_size_limit(2 << 20),
        )
        .with_retriever(Address(json(ADDRESS)))
        .build(&json(urn))
        .unwrap()
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An order event as a producer writes it; `broken` picks one way to be
/// invalid (0: valid).
fn event(rng: &mut Rng, broken: u64) -> Vec<u8> {
    let currencies = ["EUR", "USD", "GBP"];
    let items: Vec<Value> = (0..1 + rng.below(8))
        .map(|i| {
            serde_json::json!({
                "sku": (format!("SKU-{:04}-{}", rng.below(10_000), ["BLUE", "RED", "GRÜN"][i as usize % 3])),
                "quantity": 1 + rng.below(9),
                "unit_price": (1 + rng.below(99_999)) as f64 / 100.0,
            })
        })
        .collect();
    let mut order = serde_json::json!({
        "order_id": format!("ord_{:08x}", rng.next() as u32),
        "customer_id": format!("cus_{:06}", rng.below(1_000_000)),
        "placed_at": format!("2026-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            1 + rng.below(12), 1 + rng.below(28), rng.below(24), rng.below(60), rng.below(60)),
        "currency": currencies[rng.below(3) as usize],
        "items": items,
    });
    if rng.below(2) == 0 {
        order["shipping_address"] = serde_json::json!({
            "street": format!("{} Main Street", 1 + rng.below(300)),
            "city": (["Utrecht", "Zürich", "Lyon"][rng.below(3) as usize]),
            "postcode": "3511 AB",
            "country": (["NL", "CH", "FR"][rng.below(3) as usize]),
        });
    }
    if rng.below(3) == 0 {
        order["note"] = Value::String("Leave at the door, \"please\"\n— thanks".into());
    }
    match broken {
        1 => order["currency"] = "JPY".into(),
        2 => order["placed_at"] = "2026-02-30T10:00:00Z".into(),
        3 => order["items"][0]["quantity"] = 0.into(),
        4 => order["coupon"] = "FREE".into(),
        5 => {
            order["shipping_address"] =
                serde_json::json!({"street": "x", "city": "y", "country": "nl"})
        }
        6 => {
            order.as_object_mut().unwrap().remove("customer_id");
        }
        _ => {}
    }
    serde_json::to_vec(&order).unwrap()
}

fn events() -> Vec<Vec<u8>> {
    let mut rng = Rng(7);
    (0..1_200)
        .map(|i| {
            let broken = if i % 4 == 3 { 1 + rng.below(6) } else { 0 };
            event(&mut rng, broken)
        })
        .collect()
}

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
    let payload = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/order_1k.json"
    ))
    .unwrap();
    group(c, "order_1k", V1, &[payload]);
}

fn generated(c: &mut Criterion) {
    let events = events();
    group(c, "events", V2, &events);
    // The valid three in four alone: the path the scanner answers.
    let valid: Vec<Vec<u8>> = events
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 4 != 3)
        .map(|(_, e)| e.clone())
        .collect();
    group(c, "events_valid", V2, &valid);
}

criterion_group!(benches, order_1k, generated);
criterion_main!(benches);
