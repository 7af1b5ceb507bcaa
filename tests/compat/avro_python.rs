//! Avro compatibility against PyPI `avro`'s
//! `ReaderWriterCompatibilityChecker` (the Python port of Java's
//! `SchemaCompatibility`, `tests/python/avro_compat.py`) on over 10,000
//! generated schema pairs: a random record, and a random evolution of it
//! (fields added and removed with and without defaults, renamed with and
//! without aliases, types promoted and narrowed, unions widened and
//! narrowed, enum symbols and defaults changed, fixed sizes, records
//! renamed, nesting), each pair checked both ways. Every verdict and the
//! set of incompatibility kinds agree.

use std::io::Write as _;
use std::process::{Command, Stdio};

use dataschema::compat::avro;
use serde_json::{json, Value};

use crate::common;

const PAIRS: usize = 10_400;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const PRIMITIVES: [&str; 7] = [
    "int", "long", "float", "double", "string", "bytes", "boolean",
];

/// A random type; named types get names from `names`.
fn random_type(rng: &mut Rng, depth: usize, names: &mut usize) -> Value {
    let mut name = |prefix: &str| {
        *names += 1;
        format!("{prefix}{names}")
    };
    let pick = if depth >= 2 {
        rng.below(10)
    } else {
        rng.below(15)
    };
    match pick {
        0..=6 => json!(PRIMITIVES[pick]),
        7 => {
            let n = 1 + rng.below(4);
            json!({"type": "enum", "name": name("E"),
                "symbols": (0..n).map(|i| format!("S{i}")).collect::<Vec<_>>()})
        }
        8 => json!({"type": "fixed", "name": name("F"), "size": 1 + rng.below(4)}),
        9 => {
            let mut branches = vec![json!("null")];
            for p in PRIMITIVES {
                if rng.chance(30) {
                    branches.push(json!(p));
                }
            }
            if branches.len() == 1 {
                branches.push(json!("string"));
            }
            Value::Array(branches)
        }
        10 | 11 => json!({"type": "array", "items": random_type(rng, depth + 1, names)}),
        12 => json!({"type": "map", "values": random_type(rng, depth + 1, names)}),
        _ => random_record(rng, depth + 1, names),
    }
}

fn random_record(rng: &mut Rng, depth: usize, names: &mut usize) -> Value {
    *names += 1;
    let name = format!("R{names}");
    let n = 1 + rng.below(4);
    let fields: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("f{i}"), "type": random_type(rng, depth, names)}))
        .collect();
    json!({"type": "record", "name": name, "fields": fields})
}

/// A default valid for `ty`, when there is a simple one.
fn default_of(ty: &Value) -> Option<Value> {
    Some(match ty {
        Value::String(p) => match p.as_str() {
            "int" | "long" => json!(0),
            "float" | "double" => json!(0.5),
            "string" | "bytes" => json!(""),
            "boolean" => json!(false),
            _ => return None,
        },
        Value::Array(branches) if branches.first() == Some(&json!("null")) => Value::Null,
        Value::Object(o) => match o["type"].as_str()? {
            "enum" => o["symbols"][0].clone(),
            "array" => json!([]),
            "map" => json!({}),
            _ => return None,
        },
        _ => return None,
    })
}

/// One random change somewhere in `ty` (in place).
fn evolve(rng: &mut Rng, ty: &mut Value, names: &mut usize) {
    match ty {
        Value::String(p) => {
            let promoted: &[&str] = match p.as_str() {
                "int" => &["long", "float", "double", "string"],
                "long" => &["float", "double", "int"],
                "float" => &["double", "long"],
                "double" => &["float", "int"],
                "string" => &["bytes", "int"],
                "bytes" => &["string", "boolean"],
                _ => &["int", "string"],
            };
            if rng.chance(20) {
                *ty = json!(["null", p.clone()]);
            } else {
                *ty = json!(promoted[rng.below(promoted.len())]);
            }
        }
        Value::Array(branches) => {
            if branches.len() > 2 && rng.chance(50) {
                let at = 1 + rng.below(branches.len() - 1);
                branches.remove(at);
            } else if rng.chance(30) && branches.len() == 2 {
                *ty = branches[1].clone();
            } else {
                let p = json!(PRIMITIVES[rng.below(PRIMITIVES.len())]);
                if !branches.contains(&p) {
                    branches.push(p);
                }
            }
        }
        Value::Object(o) => match o["type"].as_str().unwrap_or("") {
            "enum" => {
                let symbols = o["symbols"].as_array_mut().unwrap();
                match rng.below(4) {
                    0 if symbols.len() > 1 => {
                        symbols.pop();
                    }
                    1 => {
                        let n = symbols.len();
                        symbols.push(json!(format!("S{n}")));
                    }
                    2 => {
                        let first = symbols[0].clone();
                        o.insert("default".into(), first);
                    }
                    _ => {
                        o.insert("name".into(), json!("Renamed"));
                    }
                }
            }
            "fixed" => {
                if rng.chance(50) {
                    let size = o["size"].as_u64().unwrap() + 1;
                    o.insert("size".into(), json!(size));
                } else {
                    let old = o["name"].clone();
                    o.insert("name".into(), json!("RenamedFixed"));
                    if rng.chance(50) {
                        o.insert("aliases".into(), json!([old]));
                    }
                }
            }
            "array" => evolve(rng, o.get_mut("items").unwrap(), names),
            "map" => evolve(rng, o.get_mut("values").unwrap(), names),
            "record" => evolve_record(rng, o, names),
            _ => {}
        },
        _ => {}
    }
}

fn evolve_record(rng: &mut Rng, o: &mut serde_json::Map<String, Value>, names: &mut usize) {
    let choice = rng.below(8);
    let fields = o.get_mut("fields").unwrap().as_array_mut().unwrap();
    match choice {
        0 => {
            // Add a field, with a default half the time.
            let ty = random_type(rng, 2, names);
            let mut field = json!({"name": format!("added{}", fields.len()), "type": ty.clone()});
            if rng.chance(50) {
                if let Some(d) = default_of(&ty) {
                    field["default"] = d;
                }
            }
            fields.push(field);
        }
        1 if fields.len() > 1 => {
            let at = rng.below(fields.len());
            fields.remove(at);
        }
        2 => {
            // Rename a field, with an alias half the time.
            let at = rng.below(fields.len());
            let old = fields[at]["name"].clone();
            fields[at]["name"] = json!(format!("renamed{at}"));
            if rng.chance(50) {
                fields[at]["aliases"] = json!([old]);
            }
        }
        3 => {
            // Give a field a default.
            let at = rng.below(fields.len());
            if let Some(d) = default_of(&fields[at]["type"]) {
                fields[at]["default"] = d;
            }
        }
        4 => {
            let old = o["name"].clone();
            o.insert("name".into(), json!("RenamedRecord"));
            if rng.chance(50) {
                o.insert("aliases".into(), json!([old]));
            }
        }
        _ => {
            let at = rng.below(fields.len());
            let field = fields[at].as_object_mut().unwrap();
            field.remove("default");
            evolve(rng, field.get_mut("type").unwrap(), names);
        }
    }
}

fn checked(writer: &Value, reader: &Value) -> Option<(bool, Vec<String>)> {
    let w = avro::parse("writer", writer.to_string().as_bytes()).ok()?;
    let r = avro::parse("reader", reader.to_string().as_bytes()).ok()?;
    let diff = avro::diff(&w, &r);
    let mut kinds: Vec<String> = diff
        .changes()
        .iter()
        .map(|c| c.kind().name().to_owned())
        .collect();
    kinds.sort();
    kinds.dedup();
    Some((diff.is_empty(), kinds))
}

#[test]
fn verdicts_agree_with_pypi_avro_on_10000_pairs() {
    let Some(python) = common::python_importing("avro.compatibility") else {
        return;
    };
    let mut rng = Rng(0x5eed_a5a5_1234_9876);
    let mut pairs = Vec::with_capacity(PAIRS);
    while pairs.len() < PAIRS {
        let mut names = 0;
        let base = random_record(&mut rng, 0, &mut names);
        let mut evolved = base.clone();
        let steps = 1 + rng.below(3);
        for _ in 0..steps {
            evolve_record(&mut rng, evolved.as_object_mut().unwrap(), &mut names);
        }
        // Both orders: backward and forward of the same evolution.
        pairs.push((base.clone(), evolved.clone()));
        pairs.push((evolved, base));
    }
    let mut input = Vec::new();
    for (writer, reader) in &pairs {
        serde_json::to_writer(&mut input, &json!({"writer": writer, "reader": reader})).unwrap();
        input.push(b'\n');
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/avro_compat.py");
    let mut child = Command::new(&python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "the script failed");
    let answers: Vec<Value> = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(answers.len(), pairs.len());
    let (mut compared, mut compatible, mut refused) = (0, 0, 0);
    for ((writer, reader), answer) in pairs.iter().zip(&answers) {
        let ours = checked(writer, reader);
        match (ours, answer.get("error")) {
            (None, Some(_)) => refused += 1,
            (Some(_), Some(err)) => {
                panic!("avro refuses what we accept: {err}\n{writer}\n{reader}")
            }
            (None, None) => panic!("we refuse what avro accepts:\n{writer}\n{reader}"),
            (Some((verdict, kinds)), None) => {
                let theirs = answer["compatible"].as_bool().unwrap();
                let their_kinds: Vec<String> = answer["kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_str().unwrap().to_owned())
                    .collect();
                assert_eq!(
                    verdict, theirs,
                    "verdict\nwriter {writer}\nreader {reader}\nours {kinds:?}"
                );
                assert_eq!(
                    kinds, their_kinds,
                    "kinds\nwriter {writer}\nreader {reader}"
                );
                compared += 1;
                compatible += usize::from(verdict);
            }
        }
    }
    eprintln!("{compared} pairs compared ({compatible} compatible), {refused} refused by both");
    assert!(
        compared >= 10_000,
        "{compared} compared, {refused} refused by both"
    );
    // Both verdicts are well represented.
    assert!(
        compatible > compared / 10 && compatible < compared * 9 / 10,
        "{compatible} of {compared}"
    );
}

/// Reading across versions: on generated pairs and random datums (written
/// by fastavro from the writer's schema), `Transcoder::transcode` equals
/// fastavro's `schemaless_reader(writer, reader)` then
/// `schemaless_writer(reader)`, byte for byte; a pair is resolvable
/// exactly when it is compatible.
#[test]
fn transcoding_equals_fastavro_byte_for_byte() {
    use dataschema::validate::avro_resolution::{read, Transcoder};
    let Some(python) = common::python_importing("fastavro") else {
        return;
    };
    const CASES: usize = 12_000;
    let mut rng = Rng(0xfa57_a7a0_0dd5_eed5);
    let mut cases = Vec::with_capacity(CASES);
    while cases.len() < CASES {
        let mut names = 0;
        let base = random_record(&mut rng, 0, &mut names);
        let mut evolved = base.clone();
        for _ in 0..1 + rng.below(3) {
            evolve_record(&mut rng, evolved.as_object_mut().unwrap(), &mut names);
        }
        let seed = rng.next() >> 1;
        cases.push((base.clone(), evolved.clone(), seed));
        cases.push((evolved, base, seed));
    }
    let mut input = Vec::new();
    for (writer, reader, seed) in &cases {
        serde_json::to_writer(
            &mut input,
            &json!({"writer": writer, "reader": reader, "seed": seed}),
        )
        .unwrap();
        input.push(b'\n');
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/avro_transcode.py"
    );
    let mut child = Command::new(&python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python runs");
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(out.status.success(), "the script failed");
    let answers: Vec<Value> = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(answers.len(), cases.len());
    let hex = |text: &str| -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    };
    let (mut equal, mut refused, mut ambiguous, mut fastavro_fails) = (0, 0, 0, 0);
    let mut backs = 0;
    for ((writer, reader, _), answer) in cases.iter().zip(&answers) {
        let (Ok(w), Ok(r)) = (
            read(writer.to_string().as_bytes()),
            read(reader.to_string().as_bytes()),
        ) else {
            continue;
        };
        let compatible = avro::diff(&w, &r).is_empty();
        let plan = Transcoder::new(std::sync::Arc::new(w), &r);
        assert_eq!(
            plan.is_ok(),
            compatible,
            "resolvable iff compatible\nwriter {writer}\nreader {reader}\n{:?}",
            plan.as_ref().err()
        );
        let Some(input) = answer["input"].as_str() else {
            continue; // fastavro could not write the datum it drew
        };
        let Ok(plan) = plan else {
            refused += 1;
            continue;
        };
        if ambiguous_union(reader) {
            // fastavro's writer picks a union's branch by the Python value
            // (the first branch it validates against, `double` over
            // `float`), not by the type the value was read as: with two
            // numeric branches a value resolved as `long` may be written
            // as `int`, and `bytes` as `string`. Avro's resolution keeps the branch resolved (the
            // first reader branch of the writer's type, else the first
            // that reads it), so fastavro's bytes are not the reference
            // there.
            ambiguous += 1;
            continue;
        }
        let Some(expected) = answer["output"].as_str() else {
            let error = answer["error"].as_str().unwrap_or("");
            if error.contains("a bytes-like object is required") {
                // fastavro hands a `bytes` field's default on as the
                // JSON text and its writer then refuses it; the
                // specification reads the string's code points as bytes
                // (what the transcoder writes).
                fastavro_fails += 1;
                continue;
            }
            panic!(
                "fastavro cannot read what we resolve: {}\nwriter {writer}\nreader {reader}",
                answer["error"]
            );
        };
        let ours = plan
            .transcode(&hex(input))
            .expect("fastavro's datum is valid");
        assert_eq!(
            ours,
            hex(expected),
            "\nwriter {writer}\nreader {reader}\ninput {input}"
        );
        equal += 1;
        // Written back: where fastavro resolves the reader's datum as the
        // writer's schema (no narrowing) and no aliases are involved
        // (Avro reads them on the reader's schema, which writing back is
        // not), ours is fastavro's, byte for byte.
        let aliased =
            writer.to_string().contains("aliases") || reader.to_string().contains("aliases");
        if let (Some(expected_back), false) =
            (answer["back"].as_str(), aliased || ambiguous_union(writer))
        {
            let w = read(writer.to_string().as_bytes()).unwrap();
            let r = read(reader.to_string().as_bytes()).unwrap();
            let back = Transcoder::back(std::sync::Arc::new(r), &w).unwrap_or_else(|err| {
                panic!(
                    "fastavro writes back what we refuse: {err}\nwriter {writer}\nreader {reader}"
                )
            });
            let ours_back = back.transcode(&ours).expect("our output is valid");
            assert_eq!(
                ours_back,
                hex(expected_back),
                "written back\nwriter {writer}\nreader {reader}\ninput {input}"
            );
            backs += 1;
        }
    }
    eprintln!(
        "{equal} datums transcoded as fastavro does, {backs} written back as it does, \
         {refused} pairs unresolvable, {ambiguous} with an ambiguous union left out, \
         {fastavro_fails} fastavro fails on"
    );
    assert!(backs > 1_000, "only {backs} datums written back");
    assert!(equal >= 3_000, "{equal} compared");
}

/// Whether `schema` holds a union one Python value may fit two branches
/// of: two numeric branches, or `string` and `bytes`.
fn ambiguous_union(schema: &Value) -> bool {
    match schema {
        Value::Array(branches) => {
            let has = |name: &str| branches.iter().any(|b| b.as_str() == Some(name));
            branches
                .iter()
                .filter(|b| matches!(b.as_str(), Some("int" | "long" | "float" | "double")))
                .count()
                > 1
                || (has("string") && has("bytes"))
                || branches.iter().any(ambiguous_union)
        }
        Value::Object(o) => o.values().any(ambiguous_union),
        _ => false,
    }
}
