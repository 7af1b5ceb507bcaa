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
//! * `rules/guard_matches`: the version carrying a format check instead,
//!   `message.customer_id.matches('^cus_[0-9]+$')` (the pattern compiled
//!   once with the rule: the `cel` crate's own `matches` compiles it on
//!   every call);
//! * `rules/cel_by_hand`: the baseline a user of the `cel` crate would
//!   write for the same rule: the payload parsed with `serde_json`,
//!   converted to the crate's value (`cel::to_value`), bound as `message`
//!   in a context of the crate's standard functions, and the same
//!   expression, compiled once, executed (no validation).
//!
//! The figures quoted in `BENCHMARKS.md` are `guard_cel / guard` and
//! `(guard_cel - guard) / cel_by_hand`: what the rule adds to a payload's
//! read against evaluating it by hand.
//!
//! On a loaded machine, count instructions instead (callgrind, set-up
//! excluded: each row runs at two iteration counts, the difference over
//! the difference):
//!
//! ```text
//! cargo bench --bench rules --features cel,jsonata -- --instructions
//! ```
//!
//! With `--features cel,jsonata`, the `migration` group reads a v1 payload
//! of Confluent's own migration test (`tests/data/migrations/`) as v2:
//!
//! * `migration/read_as_schemas`: `Guard::read_as`, the versions carrying
//!   no rules (the structural plan, over the bytes);
//! * `migration/read_as_jsonata`: the same with v2's `UPGRADE` rule
//!   (`$merge([$sift(..)], {'height': $.'size'}])`) run in its place;
//! * `migration/by_hand`: the baseline a user would write, `serde_json`
//!   `Value` parsed, the field renamed, written again (no validation);
//! * `migration/jsonata_evaluate`: the JSONata engine alone
//!   (`Jsonata::evaluate`) over the parsed payload.

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use dataschema::{Guard, Registry, RuleSet, Schema, Urn};

#[path = "support/callgrind.rs"]
mod callgrind;

const EXPR: &str = "message.items.all(i, i.quantity > 0)";
const MATCHES: &str = "message.customer_id.matches('^cus_[0-9]+$')";

/// The rule's rows: the guard without and with the rule, and the rule by
/// hand with the `cel` crate.
struct CelRows {
    bare: Guard,
    ruled: Guard,
    matching: Guard,
    urn: Urn,
    payload: Vec<u8>,
    program: cel::Program,
    env: std::sync::Arc<cel::Env>,
}

impl CelRows {
    fn new() -> CelRows {
        let root = env!("CARGO_MANIFEST_DIR");
        let schema = std::fs::read(format!("{root}/schemas/orders.created.v1.json")).unwrap();
        let payload =
            std::fs::read(format!("{root}/tests/data/payloads/order_valid.json")).unwrap();
        let urn: Urn = "urn:acme:schema:orders.created:1".parse().unwrap();
        let bare =
            Guard::new(Registry::embed([Schema::json(urn.clone(), schema.clone())]).unwrap());
        let guard_with = |name: &str, expr: &str| {
            let set = RuleSet::from_json(&serde_json::json!({"domainRules": [{
                "name": name, "kind": "CONDITION", "type": "CEL", "expr": expr
            }]}))
            .unwrap();
            Guard::new(
                Registry::embed([
                    Schema::json(urn.clone(), schema.clone()).with_rule_set(Some(set))
                ])
                .unwrap(),
            )
        };
        let ruled = guard_with("positiveQuantities", EXPR);
        let matching = guard_with("customerIdForm", MATCHES);
        // As the guard compiles it: the crate's standard environment.
        let env = std::sync::Arc::new(cel::Env::stdlib());
        let program = env.compile(EXPR).unwrap();
        let rows = CelRows {
            bare,
            ruled,
            matching,
            urn,
            payload,
            program,
            env,
        };
        for row in ["guard", "guard_cel", "guard_matches", "cel_by_hand"] {
            assert!(rows.run(row), "{row}: the payload passes");
        }
        rows
    }

    /// One payload through `row`: whether it passed.
    fn run(&self, row: &str) -> bool {
        let payload = black_box(&self.payload[..]);
        match row {
            "guard" => self
                .bare
                .validate(black_box(self.urn.as_str()), payload)
                .is_ok(),
            "guard_cel" => self
                .ruled
                .validate(black_box(self.urn.as_str()), payload)
                .is_ok(),
            "guard_matches" => self
                .matching
                .validate(black_box(self.urn.as_str()), payload)
                .is_ok(),
            "cel_by_hand" => {
                let value: serde_json::Value = serde_json::from_slice(payload).unwrap();
                let mut context = cel::Context::with_env(std::sync::Arc::clone(&self.env));
                context.add_variable_from_value("message", cel::to_value(&value).unwrap());
                matches!(self.program.execute(&context), Ok(cel::Value::Bool(true)))
            }
            other => panic!("no row {other}"),
        }
    }
}

fn rules(c: &mut Criterion) {
    let rows = CelRows::new();
    let mut group = c.benchmark_group("rules");
    for row in ["guard", "guard_cel", "guard_matches", "cel_by_hand"] {
        group.bench_function(row, |b| b.iter(|| black_box(rows.run(row))));
    }
    group.finish();
}

/// The migration's rows: `Guard::read_as` without and with the rule, the
/// rename by hand, and the JSONata engine alone on the parsed payload.
#[cfg(feature = "jsonata")]
struct MigrationRows {
    plain: Guard,
    migrated: Guard,
    v1: Urn,
    v2: Urn,
    program: dataschema_core::rules::jsonata::Jsonata,
    input: serde_json::Value,
}

#[cfg(feature = "jsonata")]
const PAYLOAD: &[u8] = br#"{"name": "alice", "size": 123, "version": 1}"#;

#[cfg(feature = "jsonata")]
impl MigrationRows {
    fn new() -> MigrationRows {
        let root = env!("CARGO_MANIFEST_DIR");
        let read =
            |name: &str| std::fs::read(format!("{root}/tests/data/migrations/{name}")).unwrap();
        let v1: Urn = "urn:acme:schema:product:1".parse().unwrap();
        let v2: Urn = "urn:acme:schema:product:2".parse().unwrap();
        let rules: serde_json::Value =
            serde_json::from_slice(&read("product.v2.rules.json")).unwrap();
        let expr = rules["migrationRules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|rule| rule["mode"] == "UPGRADE" || rule["mode"] == "UPDOWN")
            .and_then(|rule| rule["expr"].as_str())
            .unwrap();
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
        let out = migrated.read_as(v1.as_str(), PAYLOAD, &v2).unwrap();
        assert_eq!(out.bytes(), br#"{"height":123,"name":"alice","version":1}"#);
        assert!(plain.read_as(v1.as_str(), PAYLOAD, &v2).unwrap().crossed());
        let rows = MigrationRows {
            plain,
            migrated,
            v1,
            v2,
            program: dataschema_core::rules::jsonata::Jsonata::compile(expr).unwrap(),
            input: serde_json::from_slice(PAYLOAD).unwrap(),
        };
        for row in MIGRATION_ROWS {
            assert!(rows.run(row) > 0, "{row}");
        }
        rows
    }

    /// One payload through `row`: the size of what it gave.
    fn run(&self, row: &str) -> usize {
        let payload = black_box(PAYLOAD);
        match row {
            "read_as_schemas" | "read_as_jsonata" => {
                let guard = if row == "read_as_schemas" {
                    &self.plain
                } else {
                    &self.migrated
                };
                guard
                    .read_as(black_box(self.v1.as_str()), payload, &self.v2)
                    .map_or(0, |r| r.bytes().len())
            }
            "by_hand" => {
                let mut value: serde_json::Value = serde_json::from_slice(payload).unwrap();
                let object = value.as_object_mut().unwrap();
                if let Some(size) = object.remove("size") {
                    object.insert("height".to_owned(), size);
                }
                serde_json::to_vec(&value).unwrap().len()
            }
            "jsonata_evaluate" => self
                .program
                .evaluate(black_box(&self.input))
                .unwrap()
                .map_or(0, |v| v.as_object().map_or(0, |o| o.len())),
            other => panic!("no row {other}"),
        }
    }
}

#[cfg(feature = "jsonata")]
const MIGRATION_ROWS: [&str; 4] = [
    "read_as_schemas",
    "read_as_jsonata",
    "by_hand",
    "jsonata_evaluate",
];

#[cfg(feature = "jsonata")]
fn migration(c: &mut Criterion) {
    let rows = MigrationRows::new();
    let mut group = c.benchmark_group("migration");
    for row in MIGRATION_ROWS {
        group.bench_function(row, |b| b.iter(|| black_box(rows.run(row))));
    }
    group.finish();
}

#[cfg(not(feature = "jsonata"))]
fn migration(_: &mut Criterion) {}

/// Runs `row` (`rules/..` or `migration/..`) `n` times: the child under
/// callgrind.
fn child(row: &str, n: usize) {
    let (group, name) = row.split_once('/').expect("group/row");
    match group {
        "rules" => {
            let rows = CelRows::new();
            assert_eq!(measured(n, || rows.run(name)), n, "{row}");
        }
        #[cfg(feature = "jsonata")]
        "migration" => {
            let rows = MigrationRows::new();
            assert_eq!(measured(n, || rows.run(name) > 0), n, "{row}");
        }
        other => panic!("no group {other}"),
    }
}

/// The loop callgrind counts (`--toggle-collect`): `n` runs of `one`,
/// how many passed.
#[inline(never)]
fn measured(n: usize, mut one: impl FnMut() -> bool) -> usize {
    (0..n).map(|_| usize::from(black_box(one()))).sum()
}

/// Every row in instructions per payload, and the ratios quoted.
fn instructions() {
    if !callgrind::available() {
        println!("rules: valgrind is not installed; nothing measured");
        return;
    }
    let mut rows = vec![
        "rules/guard",
        "rules/guard_cel",
        "rules/guard_matches",
        "rules/cel_by_hand",
    ];
    if cfg!(feature = "jsonata") {
        rows.extend([
            "migration/read_as_schemas",
            "migration/read_as_jsonata",
            "migration/by_hand",
            "migration/jsonata_evaluate",
        ]);
    }
    let (few, many) = (20, 120);
    let mut per = std::collections::HashMap::new();
    for row in rows {
        let count = |n| {
            callgrind::instructions(
                "DATASCHEMA_RULES_ROW",
                row,
                "DATASCHEMA_RULES_N",
                n,
                Some("*measured*"),
            )
        };
        let (Some(a), Some(b)) = (count(few), count(many)) else {
            println!("{row}: callgrind gave no count");
            return;
        };
        let each = b.saturating_sub(a) as f64 / (many - few) as f64;
        println!("{row:30} {each:>9.0} instructions per payload");
        per.insert(row, each);
    }
    let (bare, ruled, hand) = (
        per["rules/guard"],
        per["rules/guard_cel"],
        per["rules/cel_by_hand"],
    );
    println!("rules: guard_cel / guard = {:.1}", ruled / bare);
    println!(
        "rules: the format check adds (guard_matches - guard) {:.0} instructions",
        per["rules/guard_matches"] - bare
    );
    println!(
        "rules: the rule in the guard (guard_cel - guard) / cel_by_hand = {:.2}",
        (ruled - bare) / hand
    );
    println!("rules: guard_cel / cel_by_hand = {:.2}", ruled / hand);
    if let (Some(jsonata), Some(by_hand)) = (
        per.get("migration/read_as_jsonata"),
        per.get("migration/by_hand"),
    ) {
        println!(
            "migration: read_as_jsonata / by_hand = {:.1}",
            jsonata / by_hand
        );
    }
}

criterion_group!(benches, rules, migration);

fn main() {
    if let (Ok(row), Ok(n)) = (
        std::env::var("DATASCHEMA_RULES_ROW"),
        std::env::var("DATASCHEMA_RULES_N"),
    ) {
        return child(&row, n.parse().expect("an iteration count"));
    }
    if std::env::args().any(|arg| arg == "--instructions") {
        return instructions();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
