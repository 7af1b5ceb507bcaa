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

criterion_group!(benches, rules);
criterion_main!(benches);
