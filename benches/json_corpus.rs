//! The guard against the bare `serde_json` + `jsonschema` path on the
//! real-schema corpus (`tests/data/json_corpus`), schema by schema.
//!
//! ```text
//! cargo bench --bench json_corpus -- --warm-up-time 1 --measurement-time 2
//! ```
//!
//! First a summary table, timed here (interleaved rounds of both paths over
//! every instance of a schema, the fastest round of each kept): per schema
//! the engine the guard picked, the guard's time over the bare path's, and
//! the geometric mean of those ratios; and for the order event, valid
//! payload bytes per second on the guard, on the bare path and on
//! `serde_json::from_slice::<IgnoredAny>` (reading the bytes, building
//! nothing). Then criterion's groups, `corpus/<schema>` with rows `bare`
//! (`serde_json::from_slice::<Value>` + a pre-compiled
//! `jsonschema::Validator::is_valid`, the guard's options) and `guard`
//! (`Guard::validate`), each over all of the schema's instances (valid and
//! invalid). A criterion filter (`-- corpus/jasmine`) selects groups; the
//! summary always runs (`JSON_CORPUS_ROUNDS`, default 15, sets its rounds).
//! `JSON_CORPUS_ONLY=azure-pipelines,jasmine` keeps only those schemas.
//!
//! In instructions, which a loaded machine does not move:
//! `JSON_CORPUS_CALLS=N` skips the timing and runs each path `N` times over
//! the instances of each schema, in `instructions_bare` and
//! `instructions_guard`, whose inclusive counts callgrind reports, and two
//! floors over the same payloads: `instructions_floor`, the guard with the
//! schema `true` (the scanner reading the bytes and checking nothing, with
//! the guard's own per-call work), and `instructions_ignored`,
//! `serde_json::from_slice::<IgnoredAny>`
//! (`benches/json_corpus_instructions.sh` runs it schema by schema and
//! prints the guard/bare ratios and their geometric mean).
//!
//! Every schema whose plan compiles runs a third path beside them:
//! `generated`, the guard over the same schema with the validator
//! generated from its plan (`codegen = true`; here the ones this
//! repository's build script generates, `OUT_DIR/codegen_corpus.rs`), in
//! the summary (its time over the bare path's), in a table of valid
//! payload bytes per second (the interpreter, generated, the bare path and
//! `serde_json::from_slice::<IgnoredAny>`, and the generated time on the
//! invalid payloads over the interpreter's) and, with `JSON_CORPUS_CALLS`,
//! in `instructions_generated`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use dataschema::{Guard, Registry, Schema};
use serde::de::IgnoredAny;
use serde_json::Value;

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/timing.rs"]
mod timing;

/// The validators generated from the corpus' plans (`CORPUS`).
#[allow(dead_code)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/codegen_corpus.rs"));
}

struct Prepared {
    entry: corpus::Entry,
    guard: Guard,
    /// The guard over the schema with the validator generated from its
    /// plan (every schema whose plan compiles).
    generated: Option<Guard>,
    bare: jsonschema::Validator,
    /// The guard with the schema `true` under the same URN: reading the
    /// payload, checking nothing.
    floor: Guard,
}

fn prepare() -> Vec<Prepared> {
    let only = std::env::var("JSON_CORPUS_ONLY").ok();
    let only: Option<Vec<&str>> = only.as_deref().map(|names| names.split(',').collect());
    corpus::load()
        .into_iter()
        .filter(|entry| {
            only.as_ref()
                .is_none_or(|names| names.contains(&entry.name.as_str()))
        })
        .map(|entry| {
            let urn = entry.urn.parse().unwrap();
            let guard = Guard::new(
                Registry::embed([Schema::json(urn, entry.schema_bytes.clone())]).unwrap(),
            );
            let bare = corpus::bare(&entry.schema);
            // Verdicts identical, payload by payload.
            for payload in entry.payloads() {
                let value: Value = serde_json::from_slice(payload).unwrap();
                assert_eq!(
                    guard.validate(&entry.urn, payload).is_ok(),
                    bare.is_valid(&value),
                    "{}",
                    entry.name
                );
            }
            let floor = Guard::new(
                Registry::embed([Schema::json(entry.urn.parse().unwrap(), b"true".to_vec())])
                    .unwrap(),
            );
            let generated = generated::CORPUS
                .iter()
                .find(|(name, _)| *name == entry.name)
                .map(|(_, generated)| {
                    let schema =
                        Schema::json(entry.urn.parse().unwrap(), entry.schema_bytes.clone())
                            .with_generated(*generated);
                    let guard = Guard::new(Registry::embed([schema]).unwrap());
                    assert_eq!(
                        guard.json_engine(&entry.urn.parse().unwrap()),
                        Some(dataschema::validate::JsonEngine::Generated),
                        "{}",
                        entry.name
                    );
                    for payload in entry.payloads() {
                        assert_eq!(
                            guard.validate(&entry.urn, payload).is_ok(),
                            bare.is_valid(&serde_json::from_slice(payload).unwrap()),
                            "{}",
                            entry.name
                        );
                    }
                    guard
                });
            Prepared {
                entry,
                guard,
                generated,
                bare,
                floor,
            }
        })
        .collect()
}

fn run_bare(p: &Prepared, payloads: &[Vec<u8>]) -> usize {
    payloads
        .iter()
        .filter(|payload| {
            let value: Value = serde_json::from_slice(black_box(payload)).unwrap();
            p.bare.is_valid(&value)
        })
        .count()
}

fn run_guard(p: &Prepared, payloads: &[Vec<u8>]) -> usize {
    payloads
        .iter()
        .filter(|payload| {
            p.guard
                .validate(black_box(&p.entry.urn), black_box(payload))
                .is_ok()
        })
        .count()
}

fn run_generated(p: &Prepared, guard: &Guard, payloads: &[Vec<u8>]) -> usize {
    payloads
        .iter()
        .filter(|payload| {
            guard
                .validate(black_box(&p.entry.urn), black_box(payload))
                .is_ok()
        })
        .count()
}

fn run_ignored(payloads: &[Vec<u8>]) -> usize {
    payloads
        .iter()
        .filter(|payload| serde_json::from_slice::<IgnoredAny>(black_box(payload)).is_ok())
        .count()
}

fn summary(prepared: &[Prepared]) {
    let rounds: usize = std::env::var("JSON_CORPUS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let mut log_sum = 0.0;
    println!(
        "{:<24} {:<34} {:>6} {:>10} {:>10} {:>7} {:>10} {:>7}",
        "schema", "engine", "n", "bare µs", "guard µs", "g/b", "gen µs", "gen/b"
    );
    let mut gen_log_sum = 0.0;
    for p in prepared {
        let payloads: Vec<Vec<u8>> = p.entry.payloads().cloned().collect();
        // Interleaved: a round of each, so drift hits both.
        let mut bare = Duration::MAX;
        let mut guard = Duration::MAX;
        let mut generated = Duration::MAX;
        for _ in 0..3 {
            bare = bare.min(timing::fastest(rounds.div_ceil(3), || {
                run_bare(p, &payloads)
            }));
            guard = guard.min(timing::fastest(rounds.div_ceil(3), || {
                run_guard(p, &payloads)
            }));
            if let Some(g) = &p.generated {
                generated = generated.min(timing::fastest(rounds.div_ceil(3), || {
                    run_generated(p, g, &payloads)
                }));
            }
        }
        let ratio = guard.as_secs_f64() / bare.as_secs_f64();
        log_sum += ratio.ln();
        let gen_ratio = generated.as_secs_f64() / bare.as_secs_f64();
        if p.generated.is_some() {
            gen_log_sum += gen_ratio.ln();
        }
        let engine = p.guard.json_engine(&p.entry.urn.parse().unwrap());
        println!(
            "{:<24} {:<34} {:>6} {:>10.2} {:>10.2} {:>7.3} {:>10.2} {:>7.3}",
            p.entry.name,
            format!("{engine:?}"),
            payloads.len(),
            bare.as_secs_f64() * 1e6,
            guard.as_secs_f64() * 1e6,
            ratio,
            generated.as_secs_f64() * 1e6,
            gen_ratio
        );
    }
    let generated = prepared.iter().filter(|p| p.generated.is_some()).count();
    println!(
        "geometric mean guard/bare over {} schemas: {:.3}; generated/bare over {generated}: {:.3}",
        prepared.len(),
        (log_sum / prepared.len() as f64).exp(),
        (gen_log_sum / generated.max(1) as f64).exp()
    );
    valid_rates(prepared, rounds);
}

/// Valid payload bytes per second, schema by schema: the interpreter
/// (the guard), the generated validator, the bare path and
/// `from_slice::<IgnoredAny>`; and on the invalid payloads, the generated
/// path's time over the interpreter's (one scan against two).
fn valid_rates(prepared: &[Prepared], rounds: usize) {
    println!(
        "{:<24} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9}",
        "valid MB/s", "bytes", "interp", "gen", "bare", "ignored", "gen/int", "inv g/i"
    );
    let (mut log_gain, mut log_invalid, mut n) = (0.0, 0.0, 0);
    for p in prepared {
        let Some(generated) = &p.generated else {
            continue;
        };
        let valid = &p.entry.valid;
        let invalid = &p.entry.invalid;
        let bytes: usize = valid.iter().map(Vec::len).sum();
        let rate = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e6;
        // Interleaved rounds, so that drift hits every path.
        let mut t = [Duration::MAX; 6];
        for _ in 0..3 {
            let k = rounds.div_ceil(3);
            t[0] = t[0].min(timing::fastest(k, || run_guard(p, valid)));
            t[1] = t[1].min(timing::fastest(k, || run_generated(p, generated, valid)));
            t[2] = t[2].min(timing::fastest(k, || run_bare(p, valid)));
            t[3] = t[3].min(timing::fastest(k, || run_ignored(valid)));
            if !invalid.is_empty() {
                t[4] = t[4].min(timing::fastest(k, || run_guard(p, invalid)));
                t[5] = t[5].min(timing::fastest(k, || run_generated(p, generated, invalid)));
            }
        }
        let gain = t[0].as_secs_f64() / t[1].as_secs_f64();
        let on_invalid = t[5].as_secs_f64() / t[4].as_secs_f64();
        log_gain += gain.ln();
        n += 1;
        if !invalid.is_empty() {
            log_invalid += on_invalid.ln();
        }
        println!(
            "{:<24} {:>7} {:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>8.2} {:>9}",
            p.entry.name,
            bytes / valid.len().max(1),
            rate(t[0]),
            rate(t[1]),
            rate(t[2]),
            rate(t[3]),
            gain,
            if invalid.is_empty() {
                "-".to_owned()
            } else {
                format!("{on_invalid:.2}")
            }
        );
    }
    let with_invalid = prepared
        .iter()
        .filter(|p| p.generated.is_some() && !p.entry.invalid.is_empty())
        .count();
    println!(
        "geometric mean over {n} schemas: generated {:.2}x the interpreter's valid MB/s; \
         on invalid payloads ({with_invalid} schemas) generated/interpreter time {:.2}",
        (log_gain / n.max(1) as f64).exp(),
        (log_invalid / with_invalid.max(1) as f64).exp()
    );
}

/// The bare path `calls` times over `payloads`, for callgrind.
#[inline(never)]
fn instructions_bare(p: &Prepared, payloads: &[Vec<u8>], calls: usize) -> usize {
    (0..calls).map(|_| run_bare(p, payloads)).sum()
}

/// The guard `calls` times over `payloads`, for callgrind.
#[inline(never)]
fn instructions_guard(p: &Prepared, payloads: &[Vec<u8>], calls: usize) -> usize {
    (0..calls).map(|_| run_guard(p, payloads)).sum()
}

/// The guard with the generated validator `calls` times over
/// `payloads`, for callgrind.
#[inline(never)]
fn instructions_generated(
    p: &Prepared,
    guard: &Guard,
    payloads: &[Vec<u8>],
    calls: usize,
) -> usize {
    (0..calls).map(|_| run_generated(p, guard, payloads)).sum()
}

/// The guard on the schema `true` `calls` times over `payloads`, for
/// callgrind: the scanner's floor.
#[inline(never)]
fn instructions_floor(p: &Prepared, payloads: &[Vec<u8>], calls: usize) -> usize {
    (0..calls)
        .map(|_| {
            payloads
                .iter()
                .filter(|payload| {
                    p.floor
                        .validate(black_box(&p.entry.urn), black_box(payload))
                        .is_ok()
                })
                .count()
        })
        .sum()
}

/// `serde_json::from_slice::<IgnoredAny>` `calls` times over `payloads`,
/// for callgrind: reading the bytes, building nothing.
#[inline(never)]
fn instructions_ignored(payloads: &[Vec<u8>], calls: usize) -> usize {
    (0..calls).map(|_| run_ignored(payloads)).sum()
}

fn main() {
    let prepared = prepare();
    if let Some(calls) = std::env::var("JSON_CORPUS_CALLS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        for p in &prepared {
            let payloads: Vec<Vec<u8>> = p.entry.payloads().cloned().collect();
            // One call of each first, so that both count warm.
            black_box(run_bare(p, &payloads) + run_guard(p, &payloads));
            for payload in &payloads {
                black_box(p.floor.validate(&p.entry.urn, payload).is_ok());
            }
            let bare = instructions_bare(p, &payloads, calls);
            let guard = instructions_guard(p, &payloads, calls);
            assert_eq!(bare, guard, "{}", p.entry.name);
            if let Some(generated) = &p.generated {
                black_box(run_generated(p, generated, &payloads));
                assert_eq!(
                    instructions_generated(p, generated, &payloads, calls),
                    guard
                );
            }
            let floor = instructions_floor(p, &payloads, calls);
            let ignored = instructions_ignored(&payloads, calls);
            // Every payload is JSON: both floors accept all of them.
            assert_eq!(floor, payloads.len() * calls, "{}", p.entry.name);
            assert_eq!(ignored, floor, "{}", p.entry.name);
            let engine = p.guard.json_engine(&p.entry.urn.parse().unwrap());
            println!("{} {engine:?}", p.entry.name);
        }
        return;
    }
    summary(&prepared);
    let mut c = Criterion::default().configure_from_args();
    for p in &prepared {
        let payloads: Vec<Vec<u8>> = p.entry.payloads().cloned().collect();
        let mut group = c.benchmark_group(format!("corpus/{}", p.entry.name));
        group.throughput(Throughput::Elements(payloads.len() as u64));
        group.bench_function("bare", |b| b.iter(|| run_bare(p, &payloads)));
        group.bench_function("guard", |b| b.iter(|| run_guard(p, &payloads)));
        group.finish();
    }
    c.final_summary();
}
