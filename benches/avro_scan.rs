//! The Avro scanner against the bare baseline, `apache-avro`'s decoding of
//! a datum into a `Value` (`GenericDatumReader::read_value`, what
//! `from_avro_datum` does), on the same realistic orders in the same run.
//! The figure to quote is the ratio, printed at the end
//! (`scan is N.Nx decode`).
//!
//! `cargo bench --bench avro_scan`

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use apache_avro::reader::datum::GenericDatumReader;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dataschema::validate::avro_scan::{parse_schema, Plan};

const MESSAGES: usize = 1_000;

const SCHEMA: &str = r#"{
  "type": "record", "name": "Order", "namespace": "shop.orders",
  "fields": [
    {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "placed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
      {"name": "name", "type": "string"},
      {"name": "email", "type": ["null", "string"], "default": null},
      {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
        {"name": "street", "type": "string"},
        {"name": "city", "type": "string"},
        {"name": "zip", "type": "string"},
        {"name": "country", "type": {"type": "enum", "name": "Country", "symbols": ["DE", "FR", "NL", "US", "GB"]}}
      ]}}
    ]}},
    {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item", "fields": [
      {"name": "sku", "type": "string"},
      {"name": "quantity", "type": "int"},
      {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
      {"name": "weight", "type": "double"}
    ]}}},
    {"name": "labels", "type": {"type": "map", "values": "string"}},
    {"name": "gift", "type": "boolean"},
    {"name": "note", "type": ["null", "string"], "default": null}
  ]
}"#;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn zigzag(value: i64, out: &mut Vec<u8>) {
    let mut n = ((value << 1) ^ (value >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn string(rng: &mut Rng, min: usize, spread: u64, out: &mut Vec<u8>) {
    let len = min + (rng.next() % spread) as usize;
    zigzag(len as i64, out);
    for _ in 0..len {
        out.push(b'a' + (rng.next() % 26) as u8);
    }
}

fn order(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let uuid = format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        rng.next() as u32,
        rng.next() as u16,
        rng.next() as u16,
        rng.next() as u16,
        rng.next() & 0xffff_ffff_ffff
    );
    zigzag(36, &mut out);
    out.extend_from_slice(uuid.as_bytes());
    zigzag(
        1_764_000_000_000 + (rng.next() % 1_000_000) as i64,
        &mut out,
    );
    string(rng, 8, 12, &mut out); // name
    if rng.next() & 1 == 0 {
        zigzag(1, &mut out);
        string(rng, 10, 15, &mut out);
    } else {
        zigzag(0, &mut out);
    }
    string(rng, 10, 20, &mut out); // street
    string(rng, 4, 10, &mut out); // city
    string(rng, 5, 1, &mut out); // zip
    zigzag((rng.next() % 5) as i64, &mut out);
    let items = 1 + rng.next() % 6;
    zigzag(items as i64, &mut out);
    for _ in 0..items {
        string(rng, 6, 6, &mut out);
        zigzag(1 + (rng.next() % 9) as i64, &mut out);
        let cents = (rng.next() % 100_000) as u32;
        let bytes = cents.to_be_bytes();
        zigzag(4, &mut out);
        out.extend_from_slice(&bytes);
        out.extend_from_slice(&((rng.next() % 10_000) as f64 / 100.0).to_le_bytes());
    }
    zigzag(0, &mut out);
    let labels = rng.next() % 3;
    if labels > 0 {
        zigzag(labels as i64, &mut out);
        for _ in 0..labels {
            string(rng, 3, 5, &mut out);
            string(rng, 3, 8, &mut out);
        }
    }
    zigzag(0, &mut out);
    out.push((rng.next() % 2) as u8);
    zigzag(0, &mut out);
    out
}

fn bench(c: &mut Criterion) {
    let plan = Plan::new(Arc::new(
        parse_schema(SCHEMA.as_bytes()).expect("the schema"),
    ));
    let reference = apache_avro::Schema::parse_str(SCHEMA).expect("apache-avro reads it");
    let reader = GenericDatumReader::builder(&reference)
        .build()
        .expect("a reader");
    let mut rng = Rng(2024);
    let payloads: Vec<Vec<u8>> = (0..MESSAGES).map(|_| order(&mut rng)).collect();
    let bytes: usize = payloads.iter().map(Vec::len).sum();
    for payload in &payloads {
        assert!(plan.is_valid(payload));
        let mut slice = payload.as_slice();
        assert!(reader.read_value(&mut slice).is_ok() && slice.is_empty());
    }
    let decode = || {
        for payload in &payloads {
            let mut slice = black_box(payload.as_slice());
            black_box(reader.read_value(&mut slice).is_ok());
        }
    };
    let scan = || {
        for payload in &payloads {
            black_box(plan.is_valid(black_box(payload)));
        }
    };

    let mut group = c.benchmark_group("avro_order");
    group.throughput(Throughput::Elements(payloads.len() as u64));
    group.bench_function("decode (apache-avro read_value)", |b| b.iter(decode));
    group.bench_function("scan (Plan::is_valid)", |b| b.iter(scan));
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
    let decoded = time(&decode);
    let scanned = time(&scan);
    let per = |d: Duration| d.as_secs_f64() / MESSAGES as f64;
    println!(
        "\norders: {MESSAGES} datums, mean {} B\n\
         decode: {:.0} ns/datum ({:.0} k datums/s)\n\
         scan:   {:.0} ns/datum ({:.0} k datums/s)\n\
         scan is {:.1}x decode",
        bytes / MESSAGES,
        per(decoded) * 1e9,
        1e-3 / per(decoded),
        per(scanned) * 1e9,
        1e-3 / per(scanned),
        decoded.as_secs_f64() / scanned.as_secs_f64(),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
