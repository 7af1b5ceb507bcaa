//! Every fuzz target's body over its committed seeds
//! (`fuzz/seeds/<target>/`), as an ordinary test on stable: the targets
//! stay compiled and their assertions keep holding between fuzzing
//! sessions. `cargo +nightly fuzz run <target>` (from `fuzz/`) explores
//! further; a crash it finds belongs in the corpus once fixed.
#![cfg(all(feature = "json", feature = "protobuf"))]

#[path = "../../fuzz/bodies/mod.rs"]
#[allow(dead_code, clippy::all)]
mod bodies;

use std::path::PathBuf;

/// The seeds of one target; fails when there are none, so a target cannot
/// silently lose its corpus.
fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                bytes,
            )
        })
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

fn run_all(target: &str, run: fn(&[u8])) {
    for (name, bytes) in seeds(target) {
        let outcome = std::panic::catch_unwind(|| run(&bytes));
        assert!(outcome.is_ok(), "fuzz/seeds/{target}/{name} fails");
    }
}

#[test]
fn urn_corpus() {
    run_all("urn", bodies::urn::run);
}

#[test]
fn guard_corpus() {
    run_all("guard", bodies::guard::run);
}

#[test]
fn scan_corpus() {
    run_all("scan", bodies::scan::run);
}

#[cfg(feature = "avro")]
#[test]
fn avro_corpus() {
    run_all("avro", bodies::avro::run);
}

#[test]
fn compat_json_corpus() {
    run_all("compat_json", bodies::compat_json::run);
}

#[test]
fn descriptors_corpus() {
    run_all("descriptors", bodies::descriptors::run);
}

#[test]
fn json_schema_corpus() {
    // The target checks on a 2 MiB stack, as tokio's workers have.
    run_all("json_schema", bodies::json_schema::run);
}

#[test]
fn json_scan_corpus() {
    run_all("json_scan", bodies::json_scan::run);
}

/// A JSON text drawn for the `json_scan` body: written out by hand, so an
/// object may repeat a key, and a leaf may be near-JSON.
#[derive(Clone, Debug)]
enum Drawn {
    Leaf(&'static str),
    Array(Vec<Drawn>),
    Object(Vec<(&'static str, Drawn)>),
}

impl Drawn {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Drawn::Leaf(text) => out.extend_from_slice(text.as_bytes()),
            Drawn::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write(out);
                }
                out.push(b']');
            }
            Drawn::Object(members) => {
                out.push(b'{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(key.as_bytes());
                    out.push(b':');
                    value.write(out);
                }
                out.push(b'}');
            }
        }
    }
}

fn drawn() -> impl proptest::strategy::Strategy<Value = Drawn> {
    use proptest::prelude::*;
    const LEAVES: &[&str] = &[
        "\"a\"",
        "\"b\"",
        "\"c.d\"",
        "\"cxd\"",
        "\"x\"",
        "\"y\"",
        "\"\\u0061\"",
        "\"é\"",
        "\"ord_abc123\"",
        "\"EUR\"",
        "\"2024-01-02\"",
        "1",
        "2",
        "3",
        "7",
        "2.0",
        "3.0",
        "-0",
        "1e0",
        "9007199254740993",
        "-5",
        "0.5",
        "true",
        "false",
        "null",
        "\"",
        "01",
    ];
    const KEYS: &[&str] = &[
        "\"k\"",
        "\"v\"",
        "\"w\"",
        "\"\\u006b\"",
        "\"order_id\"",
        "\"items\"",
        "\"sku\"",
        "\"quantity\"",
        "\"unit_price\"",
        "\"currency\"",
        "\"id\"",
        "\"n\"",
        "\"s\"",
        "\"t\"",
        "\"a\"",
        "\"b\"",
        "\"x1\"",
        "\"r\"",
        "\"l\"",
    ];
    let leaf = proptest::sample::select(LEAVES).prop_map(Drawn::Leaf);
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Drawn::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..6)
                .prop_map(Drawn::Object),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        ..Default::default()
    })]

    /// The `json_scan` fuzz target's body over generated inputs, for where
    /// `cargo fuzz` does not run: a schema byte, then a JSON text of the
    /// schemas' own keys and tags (repeated keys, escapes, integers written
    /// as floats, near-JSON leaves), cut short at a drawn point or not.
    #[test]
    fn json_scan_body_over_generated_inputs(
        pick in proptest::prelude::any::<u8>(),
        value in drawn(),
        cut in proptest::option::weighted(0.1, proptest::prelude::any::<proptest::sample::Index>()),
    ) {
        let mut data = vec![pick];
        value.write(&mut data);
        if let Some(cut) = cut {
            let at = 1 + cut.index(data.len());
            data.truncate(at);
        }
        bodies::json_scan::run(&data);
    }
}
