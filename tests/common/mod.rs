//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use dataschema::{Registry, Schema, Urn};

/// A file under tests/data.
pub fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// The bytes of a file under tests/data.
pub fn read(path: &str) -> Vec<u8> {
    std::fs::read(data(path)).unwrap_or_else(|err| panic!("tests/data/{path}: {err}"))
}

pub fn urn(text: &str) -> Urn {
    text.parse().unwrap_or_else(|err| panic!("{text}: {err}"))
}

/// The registry of the crate's sample schemas, bundled at build.
pub fn samples() -> Registry {
    Registry::from_bundle(dataschema::include_bundle!()).expect("the bundle loads")
}

/// A JSON Schema from tests/data/schemas under the given URN.
pub fn json_schema(urn_text: &str, file: &str) -> Schema {
    Schema::json(urn(urn_text), read(&format!("schemas/{file}")))
}

/// A folder of test input kept outside the repository (the shared
/// conformance corpus, the JSON Schema Test Suite): `$var`, or else
/// `fallback` relative to the crate's root. Under `CI` its absence fails
/// the test with a message; elsewhere the test says it skips.
pub fn external_dir(var: &str, fallback: &str, what: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os(var) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(fallback),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    let message = format!(
        "{what} not found at {} (set {var}, or place it at {fallback} beside the repository)",
        dir.display()
    );
    if std::env::var_os("CI").is_some() {
        panic!("{message}: under CI every test input must be present");
    }
    eprintln!("SKIPPED: {message}");
    None
}
