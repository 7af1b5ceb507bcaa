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
