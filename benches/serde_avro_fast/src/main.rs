//! The Avro scanner (`Plan::is_valid`) against `serde_avro_fast`
//! deserializing each datum into a typed struct (strings borrowed from the
//! datum, as that crate's own benchmarks do), and `apache-avro`'s decode
//! to `Value` as the common baseline, over the datums `benches/avro_scan.rs`
//! wrote, in one run (best of 15 rounds each, interleaved).
//!
//! ```sh
//! cargo bench --bench avro_scan -- --warm-up-time 1 --measurement-time 3
//! cargo run --release --manifest-path benches/serde_avro_fast/Cargo.toml [DIR]
//! ```

use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use apache_avro::reader::datum::GenericDatumReader;
use dataschema::validate::avro_scan::{parse_schema, Plan};
use serde::Deserialize;

// ---- our order schema (benches/avro_scan.rs) ----

#[derive(Deserialize)]
#[allow(dead_code)]
struct Order<'a> {
    id: &'a str,
    placed_at: i64,
    #[serde(borrow)]
    customer: Customer<'a>,
    #[serde(borrow)]
    items: Vec<Item<'a>>,
    #[serde(borrow)]
    labels: HashMap<&'a str, &'a str>,
    gift: bool,
    note: Option<&'a str>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Customer<'a> {
    name: &'a str,
    email: Option<&'a str>,
    #[serde(borrow)]
    address: Address<'a>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Address<'a> {
    street: &'a str,
    city: &'a str,
    zip: &'a str,
    country: Country,
}

#[derive(Deserialize)]
#[allow(clippy::upper_case_acronyms, dead_code)]
enum Country {
    DE,
    FR,
    NL,
    US,
    GB,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Item<'a> {
    sku: &'a str,
    quantity: i32,
    price: f64,
    weight: f64,
}

// ---- Apache Avro's C# benchmark `big.avsc` ----

#[derive(Deserialize)]
#[allow(dead_code)]
struct UserInfo<'a> {
    username: &'a str,
    age: i32,
    phone: &'a str,
    housenum: &'a str,
    #[serde(borrow)]
    address: MailingAddress<'a>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct MailingAddress<'a> {
    street: &'a str,
    city: &'a str,
    state_prov: &'a str,
    country: &'a str,
    zip: &'a str,
}

// ---- Confluent Datagen `pizza_orders` ----

#[derive(Deserialize)]
#[allow(dead_code)]
struct PizzaOrder<'a> {
    store_id: i32,
    store_order_id: i32,
    coupon_code: i32,
    date: i32,
    status: &'a str,
    #[serde(borrow)]
    order_lines: Vec<OrderLine<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct OrderLine<'a> {
    product_id: i32,
    category: &'a str,
    quantity: i32,
    unit_price: f64,
    net_price: f64,
}

// ---- Confluent Datagen `syslog_logs` ----

#[derive(Deserialize)]
#[allow(non_snake_case, dead_code)]
struct SyslogLog<'a> {
    name: &'a str,
    r#type: &'a str,
    message: &'a str,
    host: &'a str,
    version: &'a str,
    tag: &'a str,
    level: i32,
    facility: &'a str,
    severity: i32,
    appName: &'a str,
    remoteAddress: &'a str,
    rawMessage: &'a str,
    processId: &'a str,
    messageId: &'a str,
    deviceVendor: &'a str,
    deviceProduct: &'a str,
    deviceVersion: &'a str,
    ts: i64,
}

// ---- Apache Avro's Dremel `Document` ----

#[derive(Deserialize)]
#[allow(non_snake_case, dead_code)]
struct Document<'a> {
    DocId: i64,
    Links: Option<Links>,
    #[serde(borrow)]
    Name: Vec<Name<'a>>,
}

#[derive(Deserialize)]
#[allow(non_snake_case, dead_code)]
struct Links {
    Backward: Vec<i64>,
    Forward: Vec<i64>,
}

#[derive(Deserialize)]
#[allow(non_snake_case, dead_code)]
struct Name<'a> {
    #[serde(borrow)]
    Language: Vec<Language<'a>>,
    Url: Option<&'a str>,
}

#[derive(Deserialize)]
#[allow(non_snake_case, dead_code)]
struct Language<'a> {
    Code: &'a str,
    Country: Option<&'a str>,
}

// ---- Apache Avro's `interop.avsc` ----

#[derive(Deserialize)]
#[allow(non_snake_case, dead_code)]
struct Interop<'a> {
    intField: i32,
    longField: i64,
    stringField: &'a str,
    boolField: bool,
    floatField: f32,
    doubleField: f64,
    bytesField: &'a [u8],
    nullField: (),
    arrayField: Vec<f64>,
    #[serde(borrow)]
    mapField: HashMap<&'a str, Foo<'a>>,
    #[serde(borrow)]
    unionField: InteropUnion<'a>,
    enumField: Kind,
    fixedField: &'a [u8],
    #[serde(borrow)]
    recordField: Node<'a>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Foo<'a> {
    label: &'a str,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum InteropUnion<'a> {
    Boolean(bool),
    Double(f64),
    #[serde(borrow)]
    Array(Vec<&'a [u8]>),
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Kind {
    A,
    B,
    C,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Node<'a> {
    label: &'a str,
    #[serde(borrow)]
    children: Vec<Node<'a>>,
}

/// Deserializes every datum into `T`, saying whether all succeeded.
fn typed<'a, T: Deserialize<'a>>(
    payloads: &'a [Vec<u8>],
    schema: &serde_avro_fast::Schema,
) -> Result<(), String> {
    for payload in payloads {
        black_box(
            serde_avro_fast::from_datum_slice::<T>(black_box(payload), schema)
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(())
}

type Typed = fn(&[Vec<u8>], &serde_avro_fast::Schema) -> Result<(), String>;

fn reader_for(name: &str) -> Option<Typed> {
    Some(match name {
        "order (ours)" => |p, s| typed::<Order>(p, s),
        "csharp-benchmark-big" => |p, s| typed::<UserInfo>(p, s),
        "datagen-pizza-orders" => |p, s| typed::<PizzaOrder>(p, s),
        "datagen-syslog-logs" => |p, s| typed::<SyslogLog>(p, s),
        "dremel-document" => |p, s| typed::<Document>(p, s),
        "interop" => |p, s| typed::<Interop>(p, s),
        _ => return None,
    })
}

fn datums(blob: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < blob.len() {
        let len = u32::from_le_bytes(blob[at..at + 4].try_into().expect("4 bytes")) as usize;
        at += 4;
        out.push(blob[at..at + len].to_vec());
        at += len;
    }
    out
}

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("DATASCHEMA_AVRO_BENCH_OUT").map(PathBuf::from))
        .unwrap_or_else(|| std::env::temp_dir().join("dataschema-avro-bench"));
    let results: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(dir.join("results.json")).expect("run benches/avro_scan.rs first"),
    )
    .expect("JSON");
    println!(
        "| schema | mean size | apache-avro decode | serde_avro_fast typed | scan | scan vs decode | scan vs serde_avro_fast |"
    );
    println!("|---|---|---|---|---|---|---|");
    for case in &results {
        let name = case["name"].as_str().expect("a name");
        let file = case["file"].as_str().expect("a file");
        let text = std::fs::read_to_string(dir.join(format!("{file}.avsc"))).expect("a schema");
        let payloads = datums(&std::fs::read(dir.join(format!("{file}.bin"))).expect("datums"));
        let Some(typed) = reader_for(name) else {
            println!("| {name} | (no typed struct written for it) |");
            continue;
        };
        let plan = Plan::new(Arc::new(parse_schema(text.as_bytes()).expect("our model")));
        let reference = apache_avro::Schema::parse_str(&text).expect("apache-avro");
        let reader = GenericDatumReader::builder(&reference)
            .build()
            .expect("a reader");
        let fast: serde_avro_fast::Schema = text.parse().expect("serde_avro_fast reads it");
        typed(&payloads, &fast).unwrap_or_else(|e| panic!("{name}: serde_avro_fast: {e}"));
        assert!(payloads.iter().all(|p| plan.is_valid(p)));

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
        let deserialize = || {
            black_box(typed(&payloads, &fast).is_ok());
        };
        let mut best = [Duration::MAX; 3];
        for _ in 0..15 {
            for (i, f) in [&decode as &dyn Fn(), &deserialize, &scan]
                .iter()
                .enumerate()
            {
                let start = Instant::now();
                f();
                best[i] = best[i].min(start.elapsed());
            }
        }
        let per = |d: Duration| d.as_secs_f64() * 1e9 / payloads.len() as f64;
        let bytes: usize = payloads.iter().map(Vec::len).sum();
        println!(
            "| {name} | {} B | {:.0} ns | {:.0} ns | {:.0} ns | **{:.1}x** | **{:.1}x** |",
            bytes / payloads.len(),
            per(best[0]),
            per(best[1]),
            per(best[2]),
            best[0].as_secs_f64() / best[2].as_secs_f64(),
            best[1].as_secs_f64() / best[2].as_secs_f64(),
        );
    }
}
