//! The scanner against the bare baseline, `DynamicMessage::decode`, on the
//! same realistic order messages in the same run. The figure to quote is the
//! ratio, printed at the end (`scan is N.N× decode`).
//!
//! `cargo bench --bench protobuf_scan`

/// The tests' random numbers, which `support` draws from (as
/// `crate::common::rng` in the tests).
#[path = "../tests/common"]
mod common {
    pub mod rng;
}

#[path = "../tests/common/scan.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dataschema::validate::protobuf_scan::{reference_is_valid, Plan, ScanOptions};
use prost_reflect::DynamicMessage;

const MESSAGES: usize = 1_000;

fn orders() -> (prost_reflect::MessageDescriptor, Vec<Vec<u8>>) {
    let pool = support::pool();
    let order = support::message(&pool, "shop.orders.Order");
    (order, support::order_payloads(&pool, MESSAGES, 2024))
}

fn bench(c: &mut Criterion) {
    let (order, payloads) = orders();
    let bytes: usize = payloads.iter().map(Vec::len).sum();
    let plan = Plan::compile(&order, ScanOptions::default()).expect("a usable descriptor");
    let strict = Plan::compile(
        &order,
        ScanOptions::default().with_reject_unknown_fields(true),
    )
    .expect("a usable descriptor");

    let mut group = c.benchmark_group("protobuf_order");
    group.throughput(Throughput::Elements(payloads.len() as u64));
    group.bench_function("decode (DynamicMessage::decode)", |b| {
        b.iter(|| {
            for payload in &payloads {
                black_box(
                    DynamicMessage::decode(order.clone(), black_box(payload.as_slice())).is_ok(),
                );
            }
        })
    });
    group.bench_function("reference (decode + required check)", |b| {
        b.iter(|| {
            for payload in &payloads {
                black_box(reference_is_valid(
                    &order,
                    black_box(payload),
                    ScanOptions::default(),
                ));
            }
        })
    });
    group.bench_function("scan (Plan::is_valid)", |b| {
        b.iter(|| {
            for payload in &payloads {
                black_box(plan.is_valid(black_box(payload)));
            }
        })
    });
    group.bench_function("scan, unknown fields refused", |b| {
        b.iter(|| {
            for payload in &payloads {
                black_box(strict.is_valid(black_box(payload)));
            }
        })
    });
    group.finish();

    // The ratio, measured back to back in this run (best of several rounds).
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
    let decode = time(&|| {
        for payload in &payloads {
            black_box(DynamicMessage::decode(order.clone(), black_box(payload.as_slice())).is_ok());
        }
    });
    let scan = time(&|| {
        for payload in &payloads {
            black_box(plan.is_valid(black_box(payload)));
        }
    });
    let per = |d: Duration| d.as_secs_f64() / MESSAGES as f64;
    println!(
        "\norders: {MESSAGES} messages, mean {} B\n\
         decode: {:.0} ns/message ({:.0} k messages/s)\n\
         scan:   {:.0} ns/message ({:.0} k messages/s)\n\
         scan is {:.1}x decode",
        bytes / MESSAGES,
        per(decode) * 1e9,
        1e-3 / per(decode),
        per(scan) * 1e9,
        1e-3 / per(scan),
        decode.as_secs_f64() / scan.as_secs_f64(),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
