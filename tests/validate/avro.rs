//! Avro: the schema model (Parsing Canonical Form and Rabin fingerprint
//! against Avro's own test data, logical types, defaults, names, refusals
//! with their place), the validating scanner (Avro's must-reject vectors,
//! every check, allocation-free on valid datums) and a differential
//! property test against decoding with `apache-avro`.

use std::path::PathBuf;

use dataschema::validate::avro_scan::{parse_schema, rabin, Plan};
use dataschema::ViolationKind;
use proptest::prelude::*;

use crate::common;
use crate::counting_alloc::allocations_during;

fn test_data() -> Option<PathBuf> {
    common::external_dir(
        "DATASCHEMA_AVRO_TEST_DATA",
        "../shared/avro-test-data",
        "Apache Avro's shared test data",
    )
}

fn plan(schema: &str) -> Plan {
    let schema = parse_schema(schema.as_bytes()).unwrap_or_else(|err| panic!("{schema}: {err}"));
    Plan::new(std::sync::Arc::new(schema))
}

/// The cases of `schema-tests.txt`: input, canonical form, fingerprint.
fn schema_tests(text: &str) -> Vec<(String, String, Option<i64>)> {
    let mut cases = Vec::new();
    let mut lines = text.lines().peekable();
    let mut input: Option<String> = None;
    let mut canonical: Option<String> = None;
    let mut fingerprint: Option<i64> = None;
    let mut flush =
        |input: &mut Option<String>, canonical: &mut Option<String>, fp: &mut Option<i64>| {
            if let (Some(i), Some(c)) = (input.take(), canonical.take()) {
                cases.push((i, c, fp.take()));
            }
            *fp = None;
        };
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("<<INPUT") {
            flush(&mut input, &mut canonical, &mut fingerprint);
            if rest.trim().is_empty() {
                let mut text = String::new();
                for line in lines.by_ref() {
                    if line == "INPUT" {
                        break;
                    }
                    text.push_str(line);
                    text.push('\n');
                }
                input = Some(text);
            } else {
                input = Some(rest.trim().to_owned());
            }
        } else if let Some(rest) = line.strip_prefix("<<canonical ") {
            canonical = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("<<fingerprint ") {
            fingerprint = Some(rest.trim().parse().expect("a fingerprint"));
        }
    }
    flush(&mut input, &mut canonical, &mut fingerprint);
    cases
}

#[test]
fn canonical_form_and_fingerprint_equal_avros_on_every_case() {
    let Some(dir) = test_data() else { return };
    let text = std::fs::read_to_string(dir.join("schema-tests.txt")).expect("readable");
    let cases = schema_tests(&text);
    assert!(cases.len() >= 34, "{} cases", cases.len());
    let mut fingerprints = 0;
    for (input, canonical, fingerprint) in &cases {
        let schema = parse_schema(input.as_bytes()).unwrap_or_else(|err| panic!("{input}: {err}"));
        assert_eq!(schema.canonical_form(), canonical, "{input}");
        // Every case's fingerprint is its canonical form's.
        assert_eq!(schema.fingerprint(), rabin(canonical.as_bytes()));
        if let Some(expected) = fingerprint {
            assert_eq!(schema.fingerprint(), *expected, "{input}");
            fingerprints += 1;
        }
    }
    assert!(fingerprints >= 20, "{fingerprints} fingerprints checked");
}

#[test]
fn every_must_reject_vector_is_refused() {
    let Some(dir) = test_data() else { return };
    let text = std::fs::read(dir.join("binary-rejections.json")).expect("readable");
    let file: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
    let vectors = file["vectors"].as_array().expect("vectors");
    assert!(!vectors.is_empty());
    for vector in vectors {
        let name = vector["name"].as_str().unwrap();
        let schema = vector["schema"].as_str().unwrap();
        let hex = vector["bytesHex"].as_str().unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let plan = plan(schema);
        assert!(!plan.is_valid(&bytes), "{name}: accepted");
        let violations = plan.violations(&bytes);
        assert_eq!(violations.len(), 1, "{name}: {violations:?}");
    }
}

#[test]
fn real_schemas_are_accepted() {
    for file in ["logical.avsc", "recursive.avsc", "namespaces.avsc"] {
        let bytes = common::read(&format!("avro/{file}"));
        parse_schema(&bytes).unwrap_or_else(|err| panic!("{file}: {err}"));
    }
}

#[test]
fn refused_schemas_name_the_place_and_the_rule() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}"#,
            "/fields/0/default",
            "default",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"long","default":1.5}]}"#,
            "/fields/0/default",
            "default",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":1}]}"#,
            "/fields/0/default",
            "first branch",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]}"#,
            "/fields/0/type",
            "not a defined type",
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A","A"]}"#,
            "/symbols/1",
            "twice",
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A"],"default":"B"}"#,
            "/default",
            "symbols",
        ),
        (r#"{"type":"fixed","name":"F"}"#, "/size", "size"),
        (r#"["int",["long"]]"#, "/1", "union"),
        (r#"["string","string"]"#, "/1", "twice"),
        (
            r#"{"type":"record","name":"1R","fields":[]}"#,
            "/name",
            "valid name",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}"#,
            "/fields/1/name",
            "two fields",
        ),
        (r#"{"type":"array"}"#, "", "items"),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]}"#,
            "/fields/0/type/name",
            "defined twice",
        ),
        (
            r#"{"type":"record","name":"int","fields":[]}"#,
            "/name",
            "primitive",
        ),
        (r#"not json"#, "", "not JSON"),
    ];
    for (schema, location, words) in cases {
        let err = parse_schema(schema.as_bytes()).expect_err(schema);
        assert_eq!(err.location(), *location, "{schema}: {err}");
        assert!(err.reason().contains(words), "{schema}: {err}");
    }
}

#[test]
fn defaults_of_every_type_are_checked_and_accepted() {
    let schema = r#"{"type":"record","name":"D","namespace":"a.b","fields":[
        {"name":"n","type":"null","default":null},
        {"name":"b","type":"boolean","default":true},
        {"name":"i","type":"int","default":-5},
        {"name":"l","type":"long","default":9007199254740993},
        {"name":"f","type":"float","default":"NaN"},
        {"name":"d","type":"double","default":1.5},
        {"name":"s","type":"string","default":"x"},
        {"name":"y","type":"bytes","default":"\u00ff"},
        {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]},"default":"Y"},
        {"name":"x","type":{"type":"fixed","name":"F","size":2},"default":"ab"},
        {"name":"a","type":{"type":"array","items":"int"},"default":[1,2]},
        {"name":"m","type":{"type":"map","values":"E"},"default":{"k":"X"}},
        {"name":"u","type":["null","string"],"default":null},
        {"name":"r","type":{"type":"record","name":"In","fields":[
            {"name":"p","type":"int"},{"name":"q","type":"int","default":0}]},"default":{"p":1}}
    ]}"#;
    let schema = parse_schema(schema.as_bytes()).expect("every default fits its type");
    assert_eq!(
        schema.named_types().collect::<Vec<_>>(),
        ["a.b.D", "a.b.E", "a.b.F", "a.b.In"]
    );
    let bad = r#"{"type":"record","name":"D","fields":[
        {"name":"r","type":{"type":"record","name":"In","fields":[{"name":"p","type":"int"}]},"default":{}}]}"#;
    let err = parse_schema(bad.as_bytes()).expect_err("p is missing");
    assert!(err.reason().contains("\"p\""), "{err}");
    let big =
        r#"{"type":"record","name":"D","fields":[{"name":"i","type":"int","default":2147483648}]}"#;
    assert!(
        parse_schema(big.as_bytes()).is_err(),
        "an int default beyond 32 bits"
    );
}

fn zigzag(value: i64, out: &mut Vec<u8>) {
    let mut n = ((value << 1) ^ (value >> 63)) as u64;
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[test]
fn each_check_refuses_with_its_kind_and_path() {
    let order = plan(
        r#"{"type":"record","name":"Order","fields":[
            {"name":"id","type":"string"},
            {"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
                {"name":"sku","type":"string"},
                {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}}]}}},
            {"name":"tags","type":{"type":"map","values":"boolean"}},
            {"name":"ref","type":{"type":"string","logicalType":"uuid"}},
            {"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","PAID"]}},
            {"name":"note","type":["null","string"]}]}"#,
    );
    let datum = |price: &[u8], tag: u8, uuid: &str, state: i64, note_index: i64| {
        let mut out = Vec::new();
        zigzag(2, &mut out);
        out.extend_from_slice(b"o1");
        zigzag(4, &mut out); // four items
        for _ in 0..4 {
            zigzag(1, &mut out);
            out.push(b's');
            zigzag(price.len() as i64, &mut out);
            out.extend_from_slice(price);
        }
        zigzag(0, &mut out);
        zigzag(1, &mut out);
        zigzag(3, &mut out);
        out.extend_from_slice(b"a/b");
        out.push(tag);
        zigzag(0, &mut out);
        zigzag(uuid.len() as i64, &mut out);
        out.extend_from_slice(uuid.as_bytes());
        zigzag(state, &mut out);
        zigzag(note_index, &mut out);
        out
    };
    let uuid = "123e4567-e89b-12d3-a456-426614174000";
    let good = datum(&[0x27, 0x0f], 1, uuid, 1, 0); // 9999: 4 digits
    assert!(order.is_valid(&good));
    let allocations = allocations_during(|| assert!(order.is_valid(&good)));
    assert_eq!(allocations, 0);

    let check = |payload: &[u8], path: &str, kind: ViolationKind| {
        assert!(!order.is_valid(payload));
        let violations = order.violations(payload);
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].path(), path, "{violations:?}");
        assert_eq!(violations[0].kind(), kind, "{violations:?}");
    };
    check(
        &datum(&[0x27, 0x10], 1, uuid, 1, 0),
        "/items/0/price",
        ViolationKind::Bounds,
    );
    check(
        &datum(&[0x01], 2, uuid, 1, 0),
        "/tags/a~1b",
        ViolationKind::Wire,
    );
    check(
        &datum(&[0x01], 1, "not-a-uuid", 1, 0),
        "/ref",
        ViolationKind::Format,
    );
    check(
        &datum(&[0x01], 1, uuid, 2, 0),
        "/state",
        ViolationKind::Enum,
    );
    check(
        &datum(&[0x01], 1, uuid, -1, 0),
        "/state",
        ViolationKind::Enum,
    );
    check(&datum(&[0x01], 1, uuid, 1, 2), "/note", ViolationKind::Wire);
    let mut trailing = good.clone();
    trailing.push(0);
    check(&trailing, "", ViolationKind::Wire);
    check(&good[..good.len() - 1], "/note", ViolationKind::Wire);
    let mut bad_utf8 = good.clone();
    bad_utf8[1] = 0xff;
    check(&bad_utf8, "/id", ViolationKind::Utf8);

    // Blocks with a byte size: it must be what the items take.
    let ints = plan(r#"{"type":"array","items":"int"}"#);
    let mut sized = Vec::new();
    zigzag(-2, &mut sized);
    zigzag(2, &mut sized);
    zigzag(5, &mut sized);
    zigzag(-5, &mut sized);
    zigzag(0, &mut sized);
    assert!(ints.is_valid(&sized));
    sized[1] = 6; // byte size 3
    assert!(!ints.is_valid(&sized));
    // An int of 5 bytes beyond 32 bits; a long of 10 beyond 64.
    assert!(!plan(r#""int""#).is_valid(&[0xff, 0xff, 0xff, 0xff, 0x1f]));
    assert!(plan(r#""int""#).is_valid(&[0xff, 0xff, 0xff, 0xff, 0x0f]));
    assert!(
        !plan(r#""long""#).is_valid(&[0xff; 9].iter().copied().chain([0x02]).collect::<Vec<_>>())
    );
    assert!(
        plan(r#""long""#).is_valid(&[0xff; 9].iter().copied().chain([0x01]).collect::<Vec<_>>())
    );
    // Booleans, floats, fixed sizes.
    assert!(!plan(r#""boolean""#).is_valid(&[2]));
    assert!(!plan(r#""double""#).is_valid(&[0; 7]));
    let fixed = plan(r#"{"type":"fixed","name":"F","size":3}"#);
    assert!(fixed.is_valid(&[1, 2, 3]));
    assert!(!fixed.is_valid(&[1, 2]));
}

#[test]
fn a_recursive_schema_nests_to_the_limit() {
    let list = plan(
        r#"{"type":"record","name":"List","fields":[
            {"name":"value","type":"int"},{"name":"next","type":["null","List"]}]}"#,
    );
    let nested = |levels: usize| {
        let mut out = Vec::new();
        for _ in 0..levels {
            out.push(0); // value 0
            out.push(2); // branch 1: List
        }
        out.push(0);
        out.push(0); // null
        out
    };
    assert!(list.is_valid(&nested(10)));
    let deep = nested(200);
    assert!(!list.is_valid(&deep));
    let violations = list.violations(&deep);
    assert_eq!(violations[0].kind(), ViolationKind::TooDeep);
    assert!(
        violations[0].path().starts_with("/next/next/"),
        "{}",
        violations[0].path()
    );
}

#[test]
fn arrays_of_empty_items_cost_nothing_per_item_and_declare_at_most_the_bound() {
    let nulls = plan(r#"{"type":"array","items":"null"}"#);
    // As many as apache-avro's decoder holds: valid, and read without a
    // step per item (the block is its count).
    let bound = (apache_avro::util::DEFAULT_MAX_ALLOCATION_BYTES
        / std::mem::size_of::<apache_avro::types::Value>()) as i64;
    let mut payload = Vec::new();
    zigzag(bound, &mut payload);
    zigzag(0, &mut payload);
    assert!(nulls.is_valid(&payload));
    // i64::MAX of them: refused, as apache-avro refuses it
    // (tests/validate/hostile_avro.rs).
    let mut payload = Vec::new();
    zigzag(i64::MAX, &mut payload);
    zigzag(0, &mut payload);
    assert!(!nulls.is_valid(&payload));
    assert_eq!(nulls.violations(&payload)[0].kind(), ViolationKind::Bounds);
}

// ---- the differential property test against apache-avro ----

/// A generated schema.
#[derive(Debug, Clone)]
enum Gen {
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Enum(usize),
    Fixed(usize),
    Array(Box<Gen>),
    Map(Box<Gen>),
    /// `["null", inner]`, or `[inner, "null"]`.
    Optional(Box<Gen>, bool),
    Record(Vec<Gen>),
}

fn gen_schema() -> impl Strategy<Value = Gen> {
    let leaf = prop_oneof![
        Just(Gen::Boolean),
        Just(Gen::Int),
        Just(Gen::Long),
        Just(Gen::Float),
        Just(Gen::Double),
        Just(Gen::Bytes),
        Just(Gen::String),
        (1usize..5).prop_map(Gen::Enum),
        (1usize..5).prop_map(Gen::Fixed),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|g| Gen::Array(Box::new(g))),
            inner.clone().prop_map(|g| Gen::Map(Box::new(g))),
            (inner.clone(), any::<bool>()).prop_filter_map("no nested union", |(g, first)| {
                (!matches!(g, Gen::Optional(..))).then(|| Gen::Optional(Box::new(g), first))
            }),
            prop::collection::vec(inner, 1..4).prop_map(Gen::Record),
        ]
    })
}

impl Gen {
    fn json(&self, names: &mut usize) -> serde_json::Value {
        use serde_json::json;
        let mut name = || {
            *names += 1;
            format!("T{names}")
        };
        match self {
            Gen::Boolean => json!("boolean"),
            Gen::Int => json!("int"),
            Gen::Long => json!("long"),
            Gen::Float => json!("float"),
            Gen::Double => json!("double"),
            Gen::Bytes => json!("bytes"),
            Gen::String => json!("string"),
            Gen::Enum(n) => json!({"type": "enum", "name": name(),
                "symbols": (0..*n).map(|i| format!("S{i}")).collect::<Vec<_>>()}),
            Gen::Fixed(n) => json!({"type": "fixed", "name": name(), "size": n}),
            Gen::Array(g) => json!({"type": "array", "items": g.json(names)}),
            Gen::Map(g) => json!({"type": "map", "values": g.json(names)}),
            Gen::Optional(g, first) => {
                if *first {
                    json!(["null", g.json(names)])
                } else {
                    json!([g.json(names), "null"])
                }
            }
            Gen::Record(fields) => {
                let name = name();
                let fields: Vec<_> = fields
                    .iter()
                    .enumerate()
                    .map(|(i, g)| json!({"name": format!("f{i}"), "type": g.json(names)}))
                    .collect();
                json!({"type": "record", "name": name, "fields": fields})
            }
        }
    }

    /// A random datum of the schema, drawn from `rng`.
    fn datum(&self, rng: &mut u64, out: &mut Vec<u8>) {
        fn step(rng: &mut u64) -> u64 {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            *rng
        }
        match self {
            Gen::Boolean => out.push((step(rng) & 1) as u8),
            Gen::Int => zigzag(i64::from(step(rng) as i32) >> (step(rng) % 32), out),
            Gen::Long => zigzag((step(rng) as i64) >> (step(rng) % 64), out),
            Gen::Float => out.extend_from_slice(&(step(rng) as u32).to_le_bytes()),
            Gen::Double => out.extend_from_slice(&step(rng).to_le_bytes()),
            Gen::Bytes | Gen::String => {
                let len = (step(rng) % 5) as usize;
                zigzag(len as i64, out);
                for _ in 0..len {
                    out.push(b'a' + (step(rng) % 26) as u8);
                }
            }
            Gen::Enum(n) => zigzag((step(rng) % *n as u64) as i64, out),
            Gen::Fixed(n) => {
                for _ in 0..*n {
                    out.push(step(rng) as u8);
                }
            }
            Gen::Array(g) | Gen::Map(g) => {
                let blocks = step(rng) % 3;
                for _ in 0..blocks {
                    let count = 1 + step(rng) % 3;
                    let sized = step(rng) & 1 == 1;
                    let mut block = Vec::new();
                    for i in 0..count {
                        if matches!(self, Gen::Map(_)) {
                            zigzag(2, &mut block);
                            block.extend_from_slice(format!("k{}", i % 10).as_bytes());
                        }
                        g.datum(rng, &mut block);
                    }
                    if sized {
                        zigzag(-(count as i64), out);
                        zigzag(block.len() as i64, out);
                    } else {
                        zigzag(count as i64, out);
                    }
                    out.extend_from_slice(&block);
                }
                zigzag(0, out);
            }
            Gen::Optional(g, first) => {
                let some = step(rng) & 1 == 1;
                let index = if some == *first { 1 } else { 0 };
                zigzag(index, out);
                if some {
                    g.datum(rng, out);
                }
            }
            Gen::Record(fields) => {
                for g in fields {
                    g.datum(rng, out);
                }
            }
        }
    }
}

/// The refusals where the specification decides against `apache-avro`,
/// which accepts them: a block whose byte size is not what its items take
/// (the size is "the number of bytes in the block"; apache-avro reads and
/// ignores it, so also one that is negative or runs past the payload), varints whose last
/// byte carries bits beyond 32 or 64 (they are not in range), and a datum
/// that ends where a union index is due (apache-avro reads the end of its
/// input there as the union's `null`; the encoding has no such shortcut:
/// every union value starts with its index).
fn stricter_by_the_spec(message: &str) -> bool {
    message.contains("byte size says")
        || message.contains("byte size is negative")
        || (message.starts_with("a block of") && message.contains("bytes runs past"))
        || message.contains("does not fit")
        || message.contains("ends inside a union index")
}

fn reference_accepts(schema: &apache_avro::Schema, payload: &[u8]) -> bool {
    let mut reader = payload;
    let Ok(datum_reader) = apache_avro::reader::datum::GenericDatumReader::builder(schema).build()
    else {
        return false;
    };
    // apache-avro answers a `null` value for a boolean at the end of its
    // input (a truncated datum): the value must also be one of the schema.
    datum_reader
        .read_value(&mut reader)
        .is_ok_and(|value| value.validate(schema))
        && reader.is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::Direct(
            "tests/validate/avro.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_scanner_agrees_with_apache_avro(
        generated in gen_schema(),
        seed in 1u64..,
        mutations in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 0..3),
    ) {
        let json = generated.json(&mut 0).to_string();
        let plan = plan(&json);
        let reference = apache_avro::Schema::parse_str(&json).expect("apache-avro reads it");
        let mut rng = seed;
        let mut payload = Vec::new();
        generated.datum(&mut rng, &mut payload);
        prop_assert!(plan.is_valid(&payload), "{json}: {payload:02x?} {:?}", plan.violations(&payload));
        prop_assert!(reference_accepts(&reference, &payload));
        for (at, byte, how) in mutations {
            if payload.is_empty() {
                break;
            }
            let i = at.index(payload.len());
            match how {
                0 => payload[i] = byte,
                1 => payload.truncate(i),
                _ => payload.insert(i, byte),
            }
        }
        let ours = plan.is_valid(&payload);
        let violations = plan.violations(&payload);
        prop_assert_eq!(ours, violations.is_empty());
        if !ours && violations[0].message().contains("cannot fit") {
            // A count beyond the bytes left: apache-avro would allocate
            // for it before running out of bytes; it refuses too.
            return Ok(());
        }
        let theirs = reference_accepts(&reference, &payload);
        if ours != theirs {
            prop_assert!(
                !ours && stricter_by_the_spec(violations[0].message()),
                "{json}: {payload:02x?}: ours {ours}, apache-avro {theirs}: {violations:?}"
            );
        }
    }
}

// ---- the fast path (`is_valid`, a compiled program) and the report (a walk
// over the schema's types) accept the same datums ----

/// Schemas the generated ones above do not reach, each with a valid datum:
/// logical types, recursion through a union and through an array, records
/// too large to be flattened into the record that holds them (a call), a
/// large record that holds itself, and empty records.
fn fast_path_cases() -> Vec<(Plan, Vec<u8>)> {
    let mut cases = Vec::new();
    // Logical types: decimals on bytes and fixed, short and long; a uuid.
    let logical = plan(
        r#"{"type":"record","name":"L","fields":[
            {"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}},
            {"name":"f","type":{"type":"fixed","name":"F3","size":3,"logicalType":"decimal","precision":5}},
            {"name":"u","type":{"type":"string","logicalType":"uuid"}},
            {"name":"big","type":{"type":"bytes","logicalType":"decimal","precision":30}},
            {"name":"fd","type":{"type":"fixed","name":"F20","size":20,"logicalType":"decimal","precision":40}},
            {"name":"e","type":{"type":"record","name":"Empty","fields":[]}},
            {"name":"nulls","type":{"type":"array","items":"Empty"}}]}"#,
    );
    let mut datum = Vec::new();
    zigzag(2, &mut datum);
    datum.extend_from_slice(&[0x27, 0x0f]); // 9999
    datum.extend_from_slice(&[0x00, 0x30, 0x39]); // 12345
    let uuid = "123e4567-e89b-12d3-a456-426614174000";
    zigzag(36, &mut datum);
    datum.extend_from_slice(uuid.as_bytes());
    zigzag(12, &mut datum);
    datum.extend_from_slice(&[
        0x0c, 0x9f, 0x2c, 0x9c, 0xd0, 0x46, 0x74, 0xed, 0xea, 0x3f, 0xff, 0xff,
    ]);
    datum.extend_from_slice(&[0x00; 19]);
    datum.push(0x07);
    zigzag(3, &mut datum); // three empty records
    zigzag(0, &mut datum);
    cases.push((logical, datum));

    // A list through a union, 60 levels deep (63 is the deepest: each
    // level is a record and a union).
    let list = plan(
        r#"{"type":"record","name":"List","fields":[
            {"name":"value","type":"int"},{"name":"next","type":["null","List"]}]}"#,
    );
    let mut datum = Vec::new();
    for _ in 0..60 {
        datum.extend_from_slice(&[0, 2]);
    }
    datum.extend_from_slice(&[0, 0]);
    cases.push((list, datum));

    // A tree through an array.
    let tree = plan(
        r#"{"type":"record","name":"Node","fields":[
            {"name":"label","type":"string"},
            {"name":"kids","type":{"type":"array","items":"Node"}}]}"#,
    );
    let mut datum = Vec::new();
    for _ in 0..40 {
        datum.extend_from_slice(&[2, b'n', 2]); // "n", one kid
    }
    datum.extend_from_slice(&[2, b'n', 0]);
    datum.extend_from_slice(&[0; 40]);
    cases.push((tree, datum));

    // A record of 300 fields, twice in place and once in a union, and a
    // large record that holds itself.
    let fields: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"name":"f{i}","type":"int"}}"#))
        .collect();
    let wide = plan(&format!(
        r#"{{"type":"record","name":"Outer","fields":[
            {{"name":"a","type":{{"type":"record","name":"Wide","fields":[{}]}}}},
            {{"name":"b","type":"Wide"}},
            {{"name":"c","type":["null","Wide"]}},
            {{"name":"d","type":{{"type":"record","name":"WideList","fields":[{},
                {{"name":"next","type":["null","WideList"]}}]}}}}]}}"#,
        fields.join(","),
        fields.join(",")
    ));
    let mut datum = vec![0u8; 600];
    datum.push(2);
    datum.extend_from_slice(&[0u8; 300]);
    for _ in 0..3 {
        datum.extend_from_slice(&[0u8; 300]);
        datum.push(2);
    }
    datum.extend_from_slice(&[0u8; 300]);
    datum.push(0);
    cases.push((wide, datum));
    cases
}

#[test]
fn the_fast_path_and_the_report_agree_at_the_nesting_limit() {
    let cases = fast_path_cases();
    for (plan, datum) in &cases {
        assert!(plan.is_valid(datum), "{:?}", plan.violations(datum));
        assert!(plan.violations(datum).is_empty());
        assert_eq!(allocations_during(|| assert!(plan.is_valid(datum))), 0);
    }
    // Lists and trees of every depth around the limit: both refuse from
    // the same depth on, with TooDeep.
    let (list, _) = &cases[1];
    let (tree, _) = &cases[2];
    for levels in 0..=140usize {
        let mut datum = Vec::new();
        for _ in 0..levels {
            datum.extend_from_slice(&[0, 2]);
        }
        datum.extend_from_slice(&[0, 0]);
        let violations = list.violations(&datum);
        assert_eq!(
            list.is_valid(&datum),
            violations.is_empty(),
            "list of {levels}"
        );
        if let Some(v) = violations.first() {
            assert_eq!(v.kind(), ViolationKind::TooDeep, "list of {levels}");
        }
        assert_eq!(list.is_valid(&datum), levels < 64, "list of {levels}");

        let mut datum = Vec::new();
        for _ in 0..levels {
            datum.extend_from_slice(&[2, b'n', 2]);
        }
        datum.extend_from_slice(&[2, b'n', 0]);
        datum.extend(std::iter::repeat_n(0, levels));
        let violations = tree.violations(&datum);
        assert_eq!(
            tree.is_valid(&datum),
            violations.is_empty(),
            "tree of {levels}"
        );
        if let Some(v) = violations.first() {
            assert_eq!(v.kind(), ViolationKind::TooDeep, "tree of {levels}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_fast_path_and_the_report_agree_on_mutated_datums(
        case in 0usize..4,
        mutations in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        static CASES: std::sync::OnceLock<Vec<(Plan, Vec<u8>)>> = std::sync::OnceLock::new();
        let (plan, payload) = &CASES.get_or_init(fast_path_cases)[case];
        let mut payload = payload.clone();
        for (at, byte, how) in mutations {
            if payload.is_empty() {
                break;
            }
            let i = at.index(payload.len());
            match how {
                0 => payload[i] = byte,
                1 => payload.truncate(i),
                _ => payload.insert(i, byte),
            }
        }
        let violations = plan.violations(&payload);
        prop_assert_eq!(plan.is_valid(&payload), violations.is_empty(), "{:?}", violations);
    }
}
