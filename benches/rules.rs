//! The cost of a data-contract rule in the guard, in one run.
//!
//! ```text
//! cargo bench --bench rules --features cel
//! ```
//!
//! On the sample `orders.created` v1 JSON Schema and its valid payload
//! (`tests/data/payloads/order_valid.json`):
//!
//! * `rules/guard`: `Guard::validate`, the version without rules;
//! * `rules/guard_cel`: the same version carrying one `CEL` condition
//!   over the message (`message.items.all(i, i.quantity > 0)`);
//!
//! The figure quoted in `BENCHMARKS.md` is `guard_cel / guard`.
//!
//! With `--features cel,jsonata`, the `migration` group reads a v1 payload
//! of Confluent's own migration test (`tests/data/migrations/`) as v2:
//!
//! * `migration/read_as_schemas`: `Guard::read_as`, the versions carrying
//!   no rules (the structural plan, over the bytes);
//! * `migration/read_as_jsonata`: the same with v2's `UPGRADE` rule
//!   (`$merge([$sift(..)], {'height': $.'size'}])`) run in its place;
//! * `migration/by_hand`: the baseline a user would write, `serde_json`
//!   `Value` parsed, the field renamed, written again (no validation).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use dataschema::{Guard, Registry, RuleSet, Schema, Urn};

const EXPR: &str = "message.items.all(i, i.quantity > 0)";

fn rules(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let schema = std::fs::read(format!("{root}/schemas/orders.created.v1.json")).unwrap();
    let payload = std::fs::read(format!("{root}/tests/data/payloads/order_valid.json")).unwrap();
    let urn: Urn = "urn:acme:schema:orders.created:1".parse().unwrap();
    let bare = Guard::new(Registry::embed([Schema::json(urn.clone(), schema.clone())]).unwrap());
    let set = RuleSet::from_json(&serde_json::json!({"domainRules": [{
        "name": "positiveQuantities", "kind": "CONDITION", "type": "CEL", "expr": EXPR
    }]}))
    .unwrap();
    let ruled = Guard::new(
        Registry::embed([Schema::json(urn.clone(), schema).with_rule_set(Some(set))]).unwrap(),
    );
    let dataschema = urn.as_str();
    assert!(bare.validate(dataschema, &payload).unwrap().is_validated());
    assert!(ruled.validate(dataschema, &payload).unwrap().is_validated());

    let mut group = c.benchmark_group("rules");
    group.bench_function("guard", |b| {
        b.iter(|| {
            black_box(
                bare.validate(black_box(dataschema), black_box(&payload))
                    .is_ok(),
            )
        })
    });
    group.bench_function("guard_cel", |b| {
        b.iter(|| {
            black_box(
                ruled
                    .validate(black_box(dataschema), black_box(&payload))
                    .is_ok(),
            )
        })
    });
    group.finish();
}

#[cfg(feature = "jsonata")]
fn migration(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |name: &str| std::fs::read(format!("{root}/tests/data/migrations/{name}")).unwrap();
    let v1: Urn = "urn:acme:schema:product:1".parse().unwrap();
    let v2: Urn = "urn:acme:schema:product:2".parse().unwrap();
    let rules: serde_json::Value = serde_json::from_slice(&read("product.v2.rules.json")).unwrap();
    let plain = Guard::new(
        Registry::embed([
            Schema::json(v1.clone(), read("product.v1.json")),
            Schema::json(v2.clone(), read("product.v2.json")),
        ])
        .unwrap(),
    );
    let migrated = Guard::new(
        Registry::embed([
            Schema::json(v1.clone(), read("product.v1.json")),
            Schema::json(v2.clone(), read("product.v2.json"))
                .with_rule_set(Some(RuleSet::from_json(&rules).unwrap())),
        ])
        .unwrap(),
    );
    let payload = br#"{"name": "alice", "size": 123, "version": 1}"#;
    let out = migrated.read_as(v1.as_str(), payload, &v2).unwrap();
    assert_eq!(out.bytes(), br#"{"height":123,"name":"alice","version":1}"#);
    assert!(plain.read_as(v1.as_str(), payload, &v2).unwrap().crossed());

    let mut group = c.benchmark_group("migration");
    group.bench_function("read_as_schemas", |b| {
        b.iter(|| {
            black_box(
                plain
                    .read_as(black_box(v1.as_str()), black_box(payload), &v2)
                    .map(|r| r.bytes().len()),
            )
        })
    });
    group.bench_function("read_as_jsonata", |b| {
        b.iter(|| {
            black_box(
                migrated
                    .read_as(black_box(v1.as_str()), black_box(payload), &v2)
                    .map(|r| r.bytes().len()),
            )
        })
    });
    group.bench_function("by_hand", |b| {
        b.iter(|| {
            let mut value: serde_json::Value = serde_json::from_slice(black_box(payload)).unwrap();
            let object = value.as_object_mut().unwrap();
            if let Some(size) = object.remove("size") {
                object.insert("height".to_owned(), size);
            }
            black_box(serde_json::to_vec(&value).unwrap())
        })
    });
    group.finish();
}

#[cfg(not(feature = "jsonata"))]
fn migration(_: &mut Criterion) {}

criterion_group!(benches, rules, migration);
criterion_main!(benches);
