//! The Avro scanner against the bare baseline, `apache-avro`'s decoding of
//! a datum into a `Value` (`GenericDatumReader::read_value`, what
//! `from_avro_datum` does), on the same datums in the same run: realistic
//! orders (our schema) and datums generated from public schemas nobody
//! here wrote (`benches/data/avro/`, their sources in the README there).
//! The figures to quote are the ratios, printed at the end as a table.
//!
//! `cargo bench --bench avro_scan`
//!
//! The datums and the timings are also written to a folder
//! (`$DATASCHEMA_AVRO_BENCH_OUT`, else `dataschema-avro-bench` in the
//! system's temporary folder), from which `benches/avro_fastavro.py` times
//! Python `fastavro`'s `schemaless_reader` over the same datums and prints
//! the table with its column added.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use apache_avro::reader::datum::GenericDatumReader;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dataschema::validate::avro_scan::{parse_schema, Plan};

#[path = "support/avro_datums.rs"]
mod avro_datums;

use avro_datums::{order, public_cases, Case, Rng, MESSAGES, SCHEMA};

/// Where the datums and timings go for `benches/avro_fastavro.py`.
fn out_dir() -> PathBuf {
    std::env::var_os("DATASCHEMA_AVRO_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("dataschema-avro-bench"))
}

/// Every schema of the table, ours first.
fn cases() -> Vec<Case> {
    let mut rng = Rng(2024);
    let mut cases = vec![Case {
        name: "order (ours)".to_owned(),
        schema: SCHEMA.to_owned(),
        payloads: (0..MESSAGES).map(|_| order(&mut rng)).collect(),
    }];
    cases.extend(public_cases());
    cases
}

/// For counting instructions: with `DATASCHEMA_AVRO_BENCH_COUNT` set to
/// `CASE:decode:ROUNDS` or `CASE:scan:ROUNDS` (`CASE` the row's index), the
/// bench only runs that side over that schema's datums `ROUNDS` times and
/// exits; run under `valgrind --tool=callgrind` at two round counts, the
/// difference is the instructions of the extra rounds (set-up cancels out).
/// `benches/avro_instructions.sh` does it for every row.
fn count_only() -> bool {
    let Ok(spec) = std::env::var("DATASCHEMA_AVRO_BENCH_COUNT") else {
        return false;
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let [case, side, rounds] = parts[..] else {
        panic!("DATASCHEMA_AVRO_BENCH_COUNT is CASE:decode|scan:ROUNDS, not {spec}");
    };
    let case = &cases()[case.parse::<usize>().expect("a row's index")];
    let rounds: usize = rounds.parse().expect("a count of rounds");
    let plan = Plan::new(Arc::new(
        parse_schema(case.schema.as_bytes()).expect("the schema"),
    ));
    let reference = apache_avro::Schema::parse_str(&case.schema).expect("apache-avro reads it");
    let reader = GenericDatumReader::builder(&reference)
        .build()
        .expect("a reader");
    for _ in 0..rounds {
        for payload in &case.payloads {
            match side {
                "decode" => {
                    let mut slice = black_box(payload.as_slice());
                    black_box(reader.read_value(&mut slice).is_ok());
                }
                "scan" => {
                    black_box(plan.is_valid(black_box(payload)));
                }
                other => panic!("decode or scan, not {other}"),
            }
        }
    }
    println!("{} {side} {rounds}", case.name);
    true
}

fn bench(c: &mut Criterion) {
    if count_only() {
        return;
    }
    let cases = cases();
    let out = out_dir();
    std::fs::create_dir_all(&out).expect("the output folder");
    let mut rows = Vec::new();
    let mut results = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let plan = Plan::new(Arc::new(
            parse_schema(case.schema.as_bytes()).expect("the schema"),
        ));
        let reference = apache_avro::Schema::parse_str(&case.schema).expect("apache-avro reads it");
        let reader = GenericDatumReader::builder(&reference)
            .build()
            .expect("a reader");
        let payloads = &case.payloads;
        let bytes: usize = payloads.iter().map(Vec::len).sum();
        for payload in payloads {
            assert!(
                plan.is_valid(payload),
                "{}: {:?}",
                case.name,
                plan.violations(payload)
            );
            let mut slice = payload.as_slice();
            assert!(
                reader.read_value(&mut slice).is_ok() && slice.is_empty(),
                "{}: apache-avro refuses a datum",
                case.name
            );
        }
        let decode = || {
            for payload in payloads {
                let mut slice = black_box(payload.as_slice());
                black_box(reader.read_value(&mut slice).is_ok());
            }
        };
        let scan = || {
            for payload in payloads {
                black_box(plan.is_valid(black_box(payload)));
            }
        };

        let mut group =
            c.benchmark_group(format!("avro_{}", case.name.replace([' ', '(', ')'], "")));
        group.throughput(Throughput::Elements(payloads.len() as u64));
        group.bench_function("decode (apache-avro read_value)", |b| b.iter(decode));
        group.bench_function("scan (Plan::is_valid)", |b| b.iter(scan));
        group.finish();

        // The ratio, measured back to back in this run (best of several
        // rounds).
        let time = |f: &dyn Fn()| -> Duration {
            (0..15)
                .map(|_| {
                    let start = Instant::now();
                    f();
                    start.elapsed()
                })
                .min()
                .unwrap_or_default()
        };
        let decoded = time(&decode);
        let scanned = time(&scan);
        let per = |d: Duration| d.as_secs_f64() * 1e9 / payloads.len() as f64;
        rows.push(format!(
            "| {} | {} B | {:.0} ns | {:.0} ns | **{:.1}x** |",
            case.name,
            bytes / payloads.len(),
            per(decoded),
            per(scanned),
            decoded.as_secs_f64() / scanned.as_secs_f64(),
        ));
        // For the fastavro script: the schema, the datums (each after its
        // length, 4 bytes little-endian) and the two timings.
        let stem = format!("{index}");
        std::fs::write(out.join(format!("{stem}.avsc")), &case.schema).expect("written");
        let mut blob = Vec::with_capacity(bytes + 4 * payloads.len());
        for payload in payloads {
            blob.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            blob.extend_from_slice(payload);
        }
        std::fs::write(out.join(format!("{stem}.bin")), blob).expect("written");
        results.push(serde_json::json!({
            "name": case.name,
            "file": stem,
            "mean_bytes": bytes / payloads.len(),
            "decode_ns": per(decoded),
            "scan_ns": per(scanned),
        }));
    }
    std::fs::write(
        out.join("results.json"),
        serde_json::to_vec_pretty(&results).expect("JSON"),
    )
    .expect("written");
    println!(
        "\n{MESSAGES} datums per schema; per datum, best of 15 rounds in this run\n\
         | schema | mean size | apache-avro decode | scan | scan vs decode |\n\
         |---|---|---|---|---|"
    );
    for row in rows {
        println!("{row}");
    }
    println!("(datums and timings written to {})", out.display());
}

criterion_group!(benches, bench);
criterion_main!(benches);
