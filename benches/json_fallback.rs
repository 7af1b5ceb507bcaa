//! The guard's `jsonschema` path against `jsonschema` called by hand with
//! the same options (issue 19's 5% question).
//!
//! ```text
//! cargo bench --bench json_fallback
//! ```
//!
//! The schema is the 1 KB order event's (`schemas/orders.created.v1.json`)
//! with one unused property whose `$ref` lands on a subschema with an
//! `$id`: the scanner's plan refuses it, so the guard checks every payload
//! with `serde_json` + `jsonschema` (asserted below), while `jsonschema`'s
//! work on the payload is the order schema's. Rows, each over
//! `benches/data/order_1k.json`:
//!
//! - `bare`: `serde_json::from_slice` + `Validator::is_valid`, the validator
//!   built as the guard builds it (formats asserted, the linear-time
//!   `regex` engine with the guard's size limits);
//! - `bare-default-patterns`: the same with `jsonschema`'s default pattern
//!   engine (`fancy-regex`), what the 6-8% was measured against;
//! - `guard`: `Guard::validate`.
//!
//! First instructions per validation under `valgrind --tool=callgrind`
//! (the difference of 200 and 1,200 iterations, so set-up cancels out;
//! skipped without valgrind), then wall-clock time (the fastest of
//! interleaved rounds; `JSON_FALLBACK_ROUNDS`, default 30).

use std::hint::black_box;

use dataschema::{Guard, Registry, Schema};
use serde_json::Value;

#[path = "support/callgrind.rs"]
mod callgrind;
#[path = "support/timing.rs"]
mod timing;

const URN: &str = "urn:bench:schema:orders.fallback:1";
const ROWS: [&str; 3] = ["bare", "bare-default-patterns", "guard"];

struct Parts {
    bare: jsonschema::Validator,
    bare_default: jsonschema::Validator,
    guard: Guard,
    payload: Vec<u8>,
}

fn parts() -> Parts {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut schema: Value = serde_json::from_slice(
        &std::fs::read(format!("{root}/schemas/orders.created.v1.json")).unwrap(),
    )
    .unwrap();
    // Out of the plan's reach: an `$id` below the root, where a `$ref`
    // lands. No payload has the property, so `jsonschema`'s work is the
    // order schema's.
    schema["$defs"] = serde_json::json!({
        "opaque": {"$id": "urn:bench:opaque", "type": "string"}
    });
    schema["properties"]["_opaque"] = serde_json::json!({"$ref": "#/$defs/opaque"});
    let bytes = serde_json::to_vec(&schema).unwrap();
    let guard = Guard::new(Registry::embed([Schema::json(URN.parse().unwrap(), bytes)]).unwrap());
    assert_eq!(
        guard.json_engine(&URN.parse().unwrap()),
        Some(dataschema::validate::JsonEngine::Jsonschema),
        "the guard must check this schema with jsonschema alone"
    );
    let bare = jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(2 << 20)
                .dfa_size_limit(2 << 20),
        )
        .build(&schema)
        .unwrap();
    let bare_default = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let payload = std::fs::read(format!("{root}/benches/data/order_1k.json")).unwrap();
    assert!(guard.validate(URN, &payload).unwrap().is_validated());
    Parts {
        bare,
        bare_default,
        guard,
        payload,
    }
}

#[inline(never)]
fn one(parts: &Parts, row: &str) -> bool {
    match row {
        "bare" => {
            let value: Value = serde_json::from_slice(black_box(&parts.payload)).unwrap();
            parts.bare.is_valid(&value)
        }
        "bare-default-patterns" => {
            let value: Value = serde_json::from_slice(black_box(&parts.payload)).unwrap();
            parts.bare_default.is_valid(&value)
        }
        _ => parts
            .guard
            .validate(black_box(URN), black_box(&parts.payload))
            .is_ok(),
    }
}

/// The loop callgrind counts (`--toggle-collect`).
#[inline(never)]
fn measured(n: usize, parts: &Parts, row: &str) -> usize {
    (0..n)
        .map(|_| usize::from(black_box(one(parts, row))))
        .sum()
}

fn main() {
    if let (Ok(row), Ok(n)) = (
        std::env::var("JSON_FALLBACK_ROW"),
        std::env::var("JSON_FALLBACK_N"),
    ) {
        let parts = parts();
        let n: usize = n.parse().expect("an iteration count");
        assert_eq!(
            measured(n, &parts, &row),
            n,
            "{row}: every validation passes"
        );
        return;
    }
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let parts = parts();
    if callgrind::available() {
        let (few, many) = (200, 1_200);
        let mut per = Vec::new();
        for row in ROWS {
            let count = |n| {
                callgrind::instructions(
                    "JSON_FALLBACK_ROW",
                    row,
                    "JSON_FALLBACK_N",
                    n,
                    Some("*measured*"),
                )
            };
            let (Some(a), Some(b)) = (count(few), count(many)) else {
                println!("{row}: callgrind gave no count");
                return;
            };
            let each = b.saturating_sub(a) as f64 / (many - few) as f64;
            println!("{row:24} {each:>9.0} instructions per validation");
            per.push(each);
        }
        println!(
            "guard/bare {:.3}, bare-default-patterns/bare {:.3} (instructions)",
            per[2] / per[0],
            per[1] / per[0]
        );
    } else {
        println!("valgrind is not installed: no instruction counts");
    }
    let rounds: usize = std::env::var("JSON_FALLBACK_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(30);
    let mut best = [f64::MAX; 3];
    // Interleaved: drift on a loaded machine hits every row.
    for _ in 0..5 {
        for (slot, row) in best.iter_mut().zip(ROWS) {
            *slot = slot.min(timing::fastest_us(rounds.div_ceil(5), || one(&parts, row)));
        }
    }
    for (row, t) in ROWS.iter().zip(best) {
        println!("{row:24} {t:>9.2} µs (fastest round)");
    }
    println!(
        "guard/bare {:.3}, bare-default-patterns/bare {:.3} (wall clock)",
        best[2] / best[0],
        best[1] / best[0]
    );
}
