//! Reading one version's payloads as another's, and writing them back,
//! against decode-then-encode with each language's usual crate, on the
//! same payloads in the same run (issue 39):
//!
//! * JSON: `serde_json::Value` parsed, reshaped by hand (the same renames,
//!   defaults and drops), written again;
//! * Avro: `apache-avro`'s `GenericDatumReader` with the reader schema
//!   (its schema resolution, what `from_avro_datum(.., Some(reader))`
//!   does) into a `Value`, then `GenericDatumWriter` (`to_avro_datum`);
//!   written back: decoded with the reader schema, `Value::resolve`d to the
//!   writer's, encoded;
//! * protobuf: `prost-reflect`'s `DynamicMessage::decode` with the target's
//!   descriptor, then `encode_to_vec`.
//!
//! Ours in two rows each way: `plan` (`resolve::Plan::run`, the plan alone
//! over the bytes, which is what the baselines do: no validation), and
//! `checked` (`Resolution::transcode` / `write_back`: the input validated
//! against its schema first, the output too where the plan cannot prove it
//! conforms). Every output is checked against the baseline's before
//! anything is timed.
//!
//! ```sh
//! cargo bench --bench resolution
//! # with real version pairs (successive SchemaStore releases):
//! python3 benches/schemastore_pairs.py <schemastore checkout> /tmp/pairs
//! DATASCHEMA_RESOLVE_PAIRS=/tmp/pairs cargo bench --bench resolution
//! ```
//!
//! Criterion times the workloads' rows; the table printed at the end is
//! the ratios, best of several rounds per row back to back in this run
//! (baseline / ours: above 1 is ours ahead). The SchemaStore pairs are in
//! the table only (one line each, and their geometric mean).
//!
//! `DATASCHEMA_RESOLVE_BENCH_COUNT=CASE:SIDE:ROUNDS` runs one row
//! `ROUNDS` times and exits, for `benches/resolution_instructions.sh`
//! (callgrind).

#[path = "support/timing.rs"]
mod timing;

#[allow(dead_code)] // the scanner bench's order workload is not used here
#[path = "support/avro_datums.rs"]
mod avro_datums;

/// The tests' random numbers, which `scan` draws from.
#[path = "../tests/common"]
mod common {
    pub mod rng;
}

#[path = "../tests/common/scan.rs"]
mod scan;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dataschema::resolve::{Direction, Plan, PlanOptions};
use dataschema::{Registry, Resolution, Schema, Urn};
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};
use serde_json::Value;

const PROTO_MESSAGES: usize = 1_000;

type Baseline = Box<dyn Fn(&[u8]) -> Vec<u8>>;

/// One workload: a pair, the writer's payloads, and the baselines.
struct Case {
    name: String,
    resolution: Resolution,
    plan: Plan,
    /// In the writer's layout.
    payloads: Vec<Vec<u8>>,
    /// The same in the reader's layout (our reads of `payloads`).
    read: Vec<Vec<u8>>,
    read_baseline: Baseline,
    back_baseline: Baseline,
    /// Whether an output of ours and the baseline's are the same datum.
    same: fn(&Case, Direction, &[u8], &[u8]) -> bool,
    /// The writer's and reader's descriptors (protobuf: to compare outputs
    /// as messages).
    descriptors: Option<(MessageDescriptor, MessageDescriptor)>,
    /// The writer's and reader's schemas (Avro: to compare outputs as
    /// values).
    avro: Option<(&'static apache_avro::Schema, &'static apache_avro::Schema)>,
}

fn urn(text: &str) -> Urn {
    text.parse().expect("a URN")
}

/// The pair's registry, plan and resolution.
fn pair(writer: Schema, reader: Schema) -> (Resolution, Plan) {
    let (w, r) = (writer.urn().clone(), reader.urn().clone());
    let registry = Registry::embed([writer.clone(), reader.clone()]).expect("the pair embeds");
    let resolution = registry.resolution(&w, &r).expect("the pair resolves");
    let plan = dataschema::resolve::plan(
        &writer,
        &reader,
        Arc::new(registry),
        &PlanOptions::default(),
    )
    .expect("the plan");
    (resolution, plan)
}

fn same_json(_: &Case, _: Direction, ours: &[u8], theirs: &[u8]) -> bool {
    let parse = |b: &[u8]| serde_json::from_slice::<Value>(b).expect("JSON out");
    parse(ours) == parse(theirs)
}

/// The same datum: decoded by apache-avro with the output's schema, equal
/// values (apache-avro writes a decimal in its fewest bytes, so the bytes
/// may differ).
fn same_datum(case: &Case, direction: Direction, ours: &[u8], theirs: &[u8]) -> bool {
    let (writer, reader) = case.avro.expect("the Avro schemas");
    let schema = match direction {
        Direction::Read => reader,
        Direction::WriteBack => writer,
    };
    let decode = |bytes: &[u8]| {
        let mut slice = bytes;
        let value = GenericDatumReader::builder(schema)
            .build()
            .expect("a reader")
            .read_value(&mut slice)
            .expect("apache-avro reads the output");
        assert!(slice.is_empty(), "{}: bytes left over", case.name);
        value
    };
    ours == theirs || decode(ours) == decode(theirs)
}

fn same_message(case: &Case, direction: Direction, ours: &[u8], theirs: &[u8]) -> bool {
    let (writer, reader) = case.descriptors.clone().expect("descriptors");
    let descriptor = match direction {
        Direction::Read => reader,
        Direction::WriteBack => writer,
    };
    let decode = |b: &[u8]| DynamicMessage::decode(descriptor.clone(), b).expect("protobuf out");
    decode(ours) == decode(theirs)
}

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `orders.created` v1 (the guard bench's 1 KB order) read as a v3 that
/// renames `customer_id` by alias, widens `quantity`, adds `channel`.
fn json_order() -> Case {
    let (w, r) = (
        urn("urn:acme:schema:orders.created:1"),
        urn("urn:acme:schema:orders.created:3"),
    );
    let (resolution, plan) = pair(
        Schema::json(
            w,
            std::fs::read(data("schemas/orders.created.v1.json")).expect("v1"),
        ),
        Schema::json(
            r,
            std::fs::read(data("benches/data/resolution/orders.created.v3.json")).expect("v3"),
        ),
    );
    let payload = std::fs::read(data("benches/data/order_1k.json")).expect("the order");
    let read_baseline: Baseline = Box::new(|bytes| {
        let mut value: Value = serde_json::from_slice(bytes).expect("JSON");
        let object = value.as_object_mut().expect("an object");
        let customer = object.remove("customer_id").expect("customer_id");
        object.insert("customer".into(), customer);
        object
            .entry("channel")
            .or_insert_with(|| Value::String("web".into()));
        serde_json::to_vec(&value).expect("written")
    });
    let back_baseline: Baseline = Box::new(|bytes| {
        let mut value: Value = serde_json::from_slice(bytes).expect("JSON");
        let object = value.as_object_mut().expect("an object");
        let customer = object.remove("customer").expect("customer");
        object.insert("customer_id".into(), customer);
        object.remove("channel");
        for item in object["items"].as_array_mut().expect("items") {
            // Narrowed back: an integral number is an integer again.
            let quantity = &mut item["quantity"];
            if let Some(n) = quantity.as_f64().filter(|n| n.fract() == 0.0) {
                *quantity = Value::from(n as i64);
            }
        }
        serde_json::to_vec(&value).expect("written")
    });
    Case {
        name: "json/orders.created v1 as v3".into(),
        resolution,
        plan,
        payloads: vec![payload],
        read: Vec::new(),
        read_baseline,
        back_baseline,
        same: same_json,
        descriptors: None,
        avro: None,
    }
}

/// A reader version of an Avro schema made from the writer's JSON: `int`
/// promoted to `long`, `float` to `double`, a string field with a default
/// added to every record, a symbol to every enum.
fn evolve(schema: &mut Value) {
    match schema {
        Value::String(name) if name.as_str() == "int" => *name = "long".into(),
        Value::String(name) if name.as_str() == "float" => *name = "double".into(),
        Value::Array(branches) => branches.iter_mut().for_each(evolve),
        Value::Object(def) => {
            if def.contains_key("logicalType") {
                return;
            }
            if let Some(Value::Array(fields)) = def.get_mut("fields") {
                for field in fields.iter_mut() {
                    evolve(&mut field["type"]);
                    // A default written for an int stays valid for a long.
                }
                fields.push(serde_json::json!({
                    "name": "added_by_the_reader", "type": "string", "default": "none"
                }));
            }
            if let Some(Value::Array(symbols)) = def.get_mut("symbols") {
                symbols.push(Value::String("ADDED_BY_THE_READER".into()));
            }
            for key in ["items", "values"] {
                if let Some(inner) = def.get_mut(key) {
                    evolve(inner);
                }
            }
            // `{"type": "int"}`, or a type written inside an object.
            if let Some(inner) = def.get_mut("type") {
                evolve(inner);
            }
        }
        _ => {}
    }
}

fn avro_case(name: &str, index: usize, writer_text: &str, payloads: Vec<Vec<u8>>) -> Case {
    let mut json: Value = serde_json::from_str(writer_text).expect("Avro JSON");
    evolve(&mut json);
    let reader_text = serde_json::to_string(&json).expect("JSON");
    let (w, r) = (
        urn(&format!("urn:bench:schema:avro{index}:1")),
        urn(&format!("urn:bench:schema:avro{index}:2")),
    );
    let (resolution, plan) = pair(
        Schema::avro(w, writer_text.to_owned()),
        Schema::avro(r, reader_text.clone()),
    );
    let writer = apache_avro::Schema::parse_str(writer_text).expect("apache-avro reads it");
    let reader = apache_avro::Schema::parse_str(&reader_text).expect("apache-avro reads it");
    // Leaked: the baselines borrow the schemas for the bench's life.
    let writer: &'static apache_avro::Schema = Box::leak(Box::new(writer));
    let reader: &'static apache_avro::Schema = Box::leak(Box::new(reader));
    let resolving = GenericDatumReader::builder(writer)
        .reader_schema(reader)
        .build()
        .expect("apache-avro resolves the pair");
    let reader_writes = GenericDatumWriter::builder(reader)
        .build()
        .expect("a writer");
    let read_baseline: Baseline = Box::new(move |bytes| {
        let mut slice = bytes;
        let value = resolving.read_value(&mut slice).expect("apache-avro reads");
        reader_writes
            .write_value_to_vec(value)
            .expect("apache-avro writes")
    });
    let plain = GenericDatumReader::builder(reader)
        .build()
        .expect("a reader");
    let writer_writes = GenericDatumWriter::builder(writer)
        .build()
        .expect("a writer");
    let back_baseline: Baseline = Box::new(move |bytes| {
        let mut slice = bytes;
        let value = plain.read_value(&mut slice).expect("apache-avro reads");
        let value = value.resolve(writer).expect("apache-avro resolves back");
        writer_writes
            .write_value_to_vec(value)
            .expect("apache-avro writes")
    });
    Case {
        name: format!("avro/{name}"),
        resolution,
        plan,
        payloads,
        read: Vec::new(),
        read_baseline,
        back_baseline,
        same: same_datum,
        descriptors: None,
        avro: Some((writer, reader)),
    }
}

fn avro_cases() -> Vec<Case> {
    let mut rng = avro_datums::Rng(2024);
    // apache-avro's resolution refuses a `bytes` decimal shorter than its
    // precision needs (`max_prec_for_len`: 4 bytes hold 9 digits), which
    // the order's 4-byte prices with precision 12 are: precision 9 here,
    // the same datums.
    let order = avro_datums::SCHEMA.replace("\"precision\": 12", "\"precision\": 9");
    assert_ne!(order, avro_datums::SCHEMA);
    let mut cases = vec![avro_case(
        "order (ours)",
        0,
        &order,
        (0..avro_datums::MESSAGES)
            .map(|_| avro_datums::order(&mut rng))
            .collect(),
    )];
    for (index, public) in avro_datums::public_cases().into_iter().enumerate() {
        cases.push(avro_case(
            &public.name,
            index + 1,
            &public.schema,
            public.payloads,
        ));
    }
    cases
}

/// A descriptor set of one `.proto` file.
fn descriptor_set(path: &Path) -> Vec<u8> {
    let mut compiler = protox::Compiler::new([path.parent().expect("a folder")]).expect("include");
    compiler.include_imports(true).include_source_info(false);
    compiler
        .open_file(path.file_name().expect("a file"))
        .expect("it compiles");
    compiler.encode_file_descriptor_set()
}

/// The protobuf scanner bench's orders read as a later version.
fn protobuf_order() -> Case {
    const ROOT: &str = "shop.orders.Order";
    let writer_set = descriptor_set(&data("tests/data/scan/order.proto"));
    let reader_set = descriptor_set(&data("tests/data/resolve/order.v2.proto"));
    let descriptor = |set: &[u8]| {
        DescriptorPool::decode(set)
            .expect("a pool")
            .get_message_by_name(ROOT)
            .expect("the root")
    };
    let (writer, reader) = (descriptor(&writer_set), descriptor(&reader_set));
    let (resolution, plan) = pair(
        Schema::protobuf(urn("urn:bench:schema:order:1"), writer_set, ROOT),
        Schema::protobuf(urn("urn:bench:schema:order:2"), reader_set, ROOT),
    );
    let payloads = scan::order_payloads(&scan::pool(), PROTO_MESSAGES, 2024);
    let to_reader = reader.clone();
    let read_baseline: Baseline = Box::new(move |bytes| {
        DynamicMessage::decode(to_reader.clone(), bytes)
            .expect("prost-reflect decodes")
            .encode_to_vec()
    });
    let to_writer = writer.clone();
    let back_baseline: Baseline = Box::new(move |bytes| {
        DynamicMessage::decode(to_writer.clone(), bytes)
            .expect("prost-reflect decodes")
            .encode_to_vec()
    });
    Case {
        name: "protobuf/order v1 as v2".into(),
        resolution,
        plan,
        payloads,
        read: Vec::new(),
        read_baseline,
        back_baseline,
        same: same_message,
        descriptors: Some((writer, reader)),
        avro: None,
    }
}

/// Successive SchemaStore releases (`benches/schemastore_pairs.py`), each
/// with its writer's test instances; the pairs the plan refuses, and those
/// with instances not read, are returned by name and why, with the count
/// of pairs.
fn schemastore_cases() -> (Vec<Case>, Vec<String>, usize) {
    let Some(dir) = std::env::var_os("DATASCHEMA_RESOLVE_PAIRS") else {
        return (Vec::new(), Vec::new(), 0);
    };
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("DATASCHEMA_RESOLVE_PAIRS is a folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let (mut cases, mut refused) = (Vec::new(), Vec::new());
    for (index, folder) in folders.iter().enumerate() {
        let name = folder
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let read = |file: &str| std::fs::read(folder.join(file)).expect("the pair's files");
        let (w, r) = (
            urn(&format!("urn:bench:schema:pair{index}:1")),
            urn(&format!("urn:bench:schema:pair{index}:2")),
        );
        let (writer, reader) = (
            Schema::json(w.clone(), read("writer.json")),
            Schema::json(r.clone(), read("reader.json")),
        );
        let registry = match Registry::embed([writer.clone(), reader.clone()]) {
            Ok(registry) => registry,
            Err(err) => {
                refused.push(format!("{name}: not embedded: {err}"));
                continue;
            }
        };
        let resolution = match registry.resolution(&w, &r) {
            Ok(resolution) => resolution,
            Err(err) => {
                refused.push(format!("{name}: {err}"));
                continue;
            }
        };
        let plan = dataschema::resolve::plan(
            &writer,
            &reader,
            Arc::new(registry),
            &PlanOptions::default(),
        )
        .expect("the plan, as the resolution made it");
        let instances: Vec<Value> =
            serde_json::from_slice(&read("instances.json")).expect("instances");
        let mut payloads = Vec::new();
        let mut first_refusal = None;
        for instance in &instances {
            let payload = serde_json::to_vec(instance).expect("JSON");
            match resolution.transcode(&payload) {
                Ok(_) => payloads.push(payload),
                Err(invalid) => {
                    first_refusal.get_or_insert_with(|| invalid.to_string());
                }
            }
        }
        if let Some(why) = first_refusal {
            // Said, not hidden: an instance the writer's schema refuses (a
            // test file SchemaStore's own runner reads otherwise), or a
            // value the reader cannot hold.
            refused.push(format!(
                "{name}: {} of {} instances not read (the first: {why})",
                instances.len() - payloads.len(),
                instances.len()
            ));
        }
        if payloads.is_empty() {
            continue;
        }
        let round: Baseline = Box::new(|bytes| {
            let value: Value = serde_json::from_slice(bytes).expect("JSON");
            serde_json::to_vec(&value).expect("written")
        });
        let back: Baseline = Box::new(|bytes| {
            let value: Value = serde_json::from_slice(bytes).expect("JSON");
            serde_json::to_vec(&value).expect("written")
        });
        cases.push(Case {
            name: format!("schemastore/{name}"),
            resolution,
            plan,
            payloads,
            read: Vec::new(),
            read_baseline: round,
            back_baseline: back,
            // The baseline reshapes nothing (parse and write only, a floor
            // under any decode-then-encode): no output to compare.
            same: |_, _, _, _| true,
            descriptors: None,
            avro: None,
        });
    }
    (cases, refused, folders.len())
}

impl Case {
    /// Our reads made, checked against the baseline's (and the writes
    /// back), before anything is timed. `false` when the pair cannot be
    /// written back (the table then has no write-back row).
    fn prepare(&mut self) -> bool {
        let mut read = Vec::with_capacity(self.payloads.len());
        for payload in &self.payloads {
            let ours = self
                .resolution
                .transcode(payload)
                .unwrap_or_else(|invalid| panic!("{}: {invalid}", self.name));
            let planned = self
                .plan
                .run(Direction::Read, payload)
                .unwrap_or_else(|err| panic!("{}: {err:?}", self.name));
            assert_eq!(ours, &*planned, "{}", self.name);
            let theirs = (self.read_baseline)(payload);
            assert!(
                (self.same)(self, Direction::Read, &ours, &theirs),
                "{}: ours and the baseline's read differ",
                self.name
            );
            read.push(ours);
        }
        self.read = read;
        if self.resolution.can_write_back().is_err() {
            return false;
        }
        for read in &self.read {
            let Ok(ours) = self.resolution.write_back(read) else {
                return false;
            };
            let theirs = (self.back_baseline)(read);
            assert!(
                (self.same)(self, Direction::WriteBack, &ours, &theirs),
                "{}: ours and the baseline's write back differ",
                self.name
            );
        }
        true
    }

    fn inputs(&self, direction: Direction) -> &[Vec<u8>] {
        match direction {
            Direction::Read => &self.payloads,
            Direction::WriteBack => &self.read,
        }
    }

    /// One pass of a row over the case's inputs.
    fn run(&self, direction: Direction, side: &str) {
        let inputs = self.inputs(direction);
        match side {
            "baseline" => {
                let f = match direction {
                    Direction::Read => &self.read_baseline,
                    Direction::WriteBack => &self.back_baseline,
                };
                for input in inputs {
                    black_box(f(black_box(input)));
                }
            }
            "plan" => {
                for input in inputs {
                    black_box(self.plan.run(direction, black_box(input)).is_ok());
                }
            }
            "checked" => {
                for input in inputs {
                    black_box(match direction {
                        Direction::Read => self.resolution.transcode(black_box(input)).is_ok(),
                        Direction::WriteBack => {
                            self.resolution.write_back(black_box(input)).is_ok()
                        }
                    });
                }
            }
            other => panic!("baseline, plan or checked, not {other}"),
        }
    }
}

const SIDES: [&str; 3] = ["baseline", "plan", "checked"];

fn direction_of(text: &str) -> Direction {
    match text {
        "read" => Direction::Read,
        "back" => Direction::WriteBack,
        other => panic!("read or back, not {other}"),
    }
}

/// Every workload of the table, the bench's own first.
fn workloads() -> Vec<Case> {
    let mut cases = vec![json_order()];
    cases.extend(avro_cases());
    cases.push(protobuf_order());
    cases
}

/// For callgrind: `CASE:read|back:baseline|plan|checked:ROUNDS`.
fn count_only() -> bool {
    let Ok(spec) = std::env::var("DATASCHEMA_RESOLVE_BENCH_COUNT") else {
        return false;
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let [case, direction, side, rounds] = parts[..] else {
        panic!("DATASCHEMA_RESOLVE_BENCH_COUNT is CASE:read|back:SIDE:ROUNDS, not {spec}");
    };
    let index: usize = case.parse().expect("a row's index");
    // Only the row's workload is made (callgrind counts set-up too).
    let mut case = match index {
        0 => json_order(),
        1..=6 => avro_cases().swap_remove(index - 1),
        7 => protobuf_order(),
        other => panic!("rows 0 to 7, not {other}"),
    };
    let case = &mut case;
    assert!(case.prepare(), "{}: no write back", case.name);
    let rounds: usize = rounds.parse().expect("a count of rounds");
    for _ in 0..rounds {
        case.run(direction_of(direction), side);
    }
    println!(
        "{} {} {}",
        case.name,
        case.inputs(direction_of(direction)).len(),
        rounds
    );
    true
}

fn bench(c: &mut Criterion) {
    if count_only() {
        return;
    }
    let mut cases = workloads();
    let mut rows = Vec::new();
    let mut geo = [(0.0f64, 0usize); 4];
    for case in &mut cases {
        let writes_back = case.prepare();
        let mut group = c.benchmark_group(case.name.replace([' ', '(', ')'], "_"));
        group.throughput(Throughput::Elements(case.payloads.len() as u64));
        for (direction, label) in [(Direction::Read, "read"), (Direction::WriteBack, "back")] {
            if direction == Direction::WriteBack && !writes_back {
                continue;
            }
            for side in SIDES {
                group.bench_function(format!("{label}/{side}"), |b| {
                    b.iter(|| case.run(direction, side))
                });
            }
        }
        group.finish();
        rows.push(table_row(case, writes_back, None));
    }
    let (pairs, refused, total) = schemastore_cases();
    let timed = pairs.len();
    for mut case in pairs {
        let writes_back = case.prepare();
        rows.push(table_row(&case, writes_back, Some(&mut geo)));
    }
    println!(
        "\nper payload, best of 9 rounds per row in this run; ratio = baseline / ours \
         (above 1: ours ahead)\n\
         | workload | payloads | read: baseline | plan | checked | plan ratio | checked ratio \
         | back: baseline | plan | checked | plan ratio | checked ratio |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for row in rows {
        println!("{row}");
    }
    if total > 0 {
        let mean = |(sum, n): (f64, usize)| {
            if n == 0 {
                f64::NAN
            } else {
                (sum / n as f64).exp()
            }
        };
        println!(
            "\nSchemaStore pairs: {timed} of {total} timed; geometric mean of the ratios: \
             read plan {:.2}x, read checked {:.2}x, back plan {:.2}x ({} pairs), \
             back checked {:.2}x",
            mean(geo[0]),
            mean(geo[1]),
            mean(geo[2]),
            geo[2].1,
            mean(geo[3]),
        );
        println!("not timed, or not every instance read:");
        for line in refused {
            println!("  {line}");
        }
    } else {
        println!(
            "\n(no SchemaStore pairs: set DATASCHEMA_RESOLVE_PAIRS, see benches/schemastore_pairs.py)"
        );
    }
}

/// A line of the table: each row's best time per payload and the ratios.
fn table_row(case: &Case, writes_back: bool, mut geo: Option<&mut [(f64, usize); 4]>) -> String {
    let per = |direction: Direction, side: &str| {
        let n = case.inputs(direction).len() as f64;
        timing::fastest(9, || case.run(direction, side)).as_secs_f64() * 1e9 / n
    };
    let mut line = format!("| {} | {} |", case.name, case.payloads.len());
    for (k, direction) in [Direction::Read, Direction::WriteBack]
        .into_iter()
        .enumerate()
    {
        if direction == Direction::WriteBack && !writes_back {
            line.push_str(" - | - | - | - | - |");
            continue;
        }
        let (base, plan, checked) = (
            per(direction, "baseline"),
            per(direction, "plan"),
            per(direction, "checked"),
        );
        if let Some(geo) = geo.as_deref_mut() {
            for (j, ours) in [plan, checked].into_iter().enumerate() {
                geo[2 * k + j].0 += (base / ours).ln();
                geo[2 * k + j].1 += 1;
            }
        }
        line.push_str(&format!(
            " {} | {} | {} | **{:.2}x** | **{:.2}x** |",
            ns(base),
            ns(plan),
            ns(checked),
            base / plan,
            base / checked
        ));
    }
    line
}

fn ns(value: f64) -> String {
    if value >= 10_000.0 {
        format!("{:.1} us", value / 1000.0)
    } else {
        format!("{value:.0} ns")
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
