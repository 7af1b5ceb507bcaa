//! The guard against `serde_json` + `jsonschema` on a corpus of real
//! schemas this project did not choose: every SchemaStore schema with test
//! instances (`benches/schemastore_corpus.py` writes it, in the layout of
//! `tests/data/json_corpus`), schema by schema.
//!
//! ```text
//! python3 benches/schemastore_corpus.py <schemastore checkout> /tmp/schemastore
//! JSON_CORPUS_DIR=/tmp/schemastore cargo bench --bench json_schemastore
//! ```
//!
//! For each schema `jsonschema` compiles offline (with the guard's options:
//! `benches/support/corpus.rs` `try_bare`): whether the guard takes it and
//! which engine it picked (`Scanner`, `Mixed`, `Jsonschema`, or `refused`
//! with the reason), the instances on which the guard's verdict differs
//! from `jsonschema`'s (a message the guard fails open on counts as a
//! difference), and the guard's time over the bare path's
//! (`serde_json::from_slice::<Value>` + `Validator::is_valid`): the
//! instances repeated until a round of the bare path takes at least 2 ms,
//! rounds of the two interleaved (`JSON_SCHEMASTORE_ROUNDS`, default 5),
//! the fastest of each kept. Then the totals the issue's goals name: no
//! difference, no schema refused, none slower (guard/bare <= 1.0), the
//! share on the scanner alone and the geometric mean.
//! `JSON_CORPUS_ONLY=web-types,tsconfig` keeps only those schemas;
//! `JSON_SCHEMASTORE_TIME=0` skips the timing (verdicts and engines only);
//! `JSON_SCHEMASTORE_TIMES=1` also writes each side's time per pass over a
//! schema's instances to stderr (a ratio that moved: which side moved).

use std::hint::black_box;
use std::time::{Duration, Instant};

use dataschema::validate::json_plan::JsonPlan;
use dataschema::{Guard, Registry, Schema};
use serde_json::Value;

#[path = "support/corpus.rs"]
mod corpus;

fn run_bare(bare: &jsonschema::Validator, payloads: &[Vec<u8>], reps: usize) -> usize {
    let mut valid = 0;
    for _ in 0..reps {
        for payload in payloads {
            let value: Value = serde_json::from_slice(black_box(payload)).unwrap();
            valid += usize::from(bare.is_valid(&value));
        }
    }
    valid
}

fn run_guard(guard: &Guard, urn: &str, payloads: &[Vec<u8>], reps: usize) -> usize {
    let mut valid = 0;
    for _ in 0..reps {
        for payload in payloads {
            valid += usize::from(guard.validate(black_box(urn), black_box(payload)).is_ok());
        }
    }
    valid
}

fn timed(f: impl FnOnce() -> usize) -> Duration {
    let start = Instant::now();
    black_box(f());
    start.elapsed()
}

struct Row {
    name: String,
    engine: String,
    differences: usize,
    instances: usize,
    ratio: Option<f64>,
}

fn main() {
    let only = std::env::var("JSON_CORPUS_ONLY").ok();
    let only: Option<Vec<&str>> = only.as_deref().map(|names| names.split(',').collect());
    let rounds: usize = std::env::var("JSON_SCHEMASTORE_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let time = std::env::var("JSON_SCHEMASTORE_TIME").as_deref() != Ok("0");
    let times = std::env::var_os("JSON_SCHEMASTORE_TIMES").is_some();
    let mut rows = Vec::new();
    let mut not_compiled = 0;
    for entry in corpus::load() {
        if only
            .as_ref()
            .is_some_and(|names| !names.contains(&entry.name.as_str()))
        {
            continue;
        }
        let bare = match corpus::try_bare(&entry.schema) {
            Ok(bare) => bare,
            Err(why) => {
                not_compiled += 1;
                let why = why.replace('\n', " ");
                println!(
                    "{:<40} jsonschema does not compile it: {}",
                    entry.name,
                    why.chars().take(160).collect::<String>()
                );
                continue;
            }
        };
        let payloads: Vec<Vec<u8>> = entry.payloads().cloned().collect();
        let urn = entry.urn.parse().unwrap();
        let guard = match Registry::embed([Schema::json(urn, entry.schema_bytes.clone())]) {
            Ok(registry) => Guard::new(registry),
            Err(err) => {
                let why = err.to_string().replace('\n', " ");
                rows.push(Row {
                    name: entry.name.clone(),
                    engine: format!("refused: {}", why.chars().take(160).collect::<String>()),
                    differences: payloads.len(),
                    instances: payloads.len(),
                    ratio: None,
                });
                continue;
            }
        };
        let engine = guard.json_engine(&entry.urn.parse().unwrap());
        let mut engine = format!("{engine:?}");
        if let Err(why) = JsonPlan::compile(&entry.schema, true) {
            let why = why.to_string().replace('\n', " ");
            engine = format!(
                "{engine} (plan: {})",
                why.chars().take(160).collect::<String>()
            );
        }
        let differences = payloads
            .iter()
            .filter(|payload| {
                let value: Value = serde_json::from_slice(payload).unwrap();
                let got = guard.validate(&entry.urn, payload);
                got.as_ref().is_ok_and(|o| o.is_validated()) != bare.is_valid(&value)
                    || matches!(&got, Ok(o) if !o.is_validated())
            })
            .count();
        let ratio = (time && !payloads.is_empty()).then(|| {
            // Repeated to at least 2 ms a round of the bare path.
            let one = timed(|| run_bare(&bare, &payloads, 1)).max(Duration::from_nanos(1));
            let reps = (Duration::from_millis(2).as_nanos() / one.as_nanos()).max(1) as usize + 1;
            black_box(run_guard(&guard, &entry.urn, &payloads, reps));
            let (mut b, mut g) = (Duration::MAX, Duration::MAX);
            for _ in 0..rounds {
                b = b.min(timed(|| run_bare(&bare, &payloads, reps)));
                g = g.min(timed(|| run_guard(&guard, &entry.urn, &payloads, reps)));
            }
            if times {
                // Each side's fastest round, per pass over the instances.
                let per = |d: Duration| d.as_nanos() / reps as u128;
                eprintln!(
                    "times {} guard {} ns bare {} ns",
                    entry.name,
                    per(g),
                    per(b)
                );
            }
            g.as_secs_f64() / b.as_secs_f64()
        });
        let row = Row {
            name: entry.name.clone(),
            engine,
            differences,
            instances: payloads.len(),
            ratio,
        };
        println!(
            "{:<40} {:>4}/{:<4} {:>7} {}",
            row.name,
            row.differences,
            row.instances,
            row.ratio.map_or("-".into(), |r| format!("{r:.3}")),
            row.engine
        );
        rows.push(row);
    }
    let refused: Vec<&Row> = rows
        .iter()
        .filter(|r| r.engine.starts_with("refused"))
        .collect();
    for r in &refused {
        println!("{:<40} {}", r.name, r.engine);
    }
    let differing = rows.iter().filter(|r| r.differences > 0).count();
    let scanner = rows
        .iter()
        .filter(|r| r.engine.starts_with("Some(Scanner)"))
        .count();
    let mixed = rows
        .iter()
        .filter(|r| r.engine.starts_with("Some(Mixed"))
        .count();
    let whole = rows
        .iter()
        .filter(|r| r.engine.starts_with("Some(Jsonschema)"))
        .count();
    let ratios: Vec<(&str, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.name.as_str(), r.ratio?)))
        .collect();
    let slower: Vec<String> = ratios
        .iter()
        .filter(|(_, r)| *r > 1.0)
        .map(|(n, r)| format!("{n} {r:.3}"))
        .collect();
    println!(
        "{} schemas jsonschema compiles ({not_compiled} it does not): {} refused by the guard, \
         {differing} with a verdict difference; engines: {scanner} scanner ({:.1}%), {mixed} mixed, \
         {whole} jsonschema",
        rows.len(),
        refused.len(),
        100.0 * scanner as f64 / rows.len().max(1) as f64,
    );
    if !ratios.is_empty() {
        let mean = (ratios.iter().map(|(_, r)| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        println!(
            "geometric mean guard/bare over {} schemas: {mean:.3}; slower than jsonschema: {} [{}]",
            ratios.len(),
            slower.len(),
            slower.join(", ")
        );
    }
}
