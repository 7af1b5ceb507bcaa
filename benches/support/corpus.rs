//! The real-schema corpus (`tests/data/json_corpus`, its README names the
//! sources and licences): each schema with the instances written for it,
//! shared by `tests/json_corpus.rs` and `benches/json_corpus.rs`.

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// One schema of the corpus and its instances, as payload bytes.
pub struct Entry {
    /// The file stem (`github-workflows`).
    pub name: String,
    /// The URN the corpus registers it under.
    pub urn: String,
    pub schema: Value,
    pub schema_bytes: Vec<u8>,
    /// Instances written to be valid (compact JSON).
    pub valid: Vec<Vec<u8>>,
    /// Instances written with one mistake each (compact JSON).
    pub invalid: Vec<Vec<u8>>,
}

impl Entry {
    /// Every instance, the valid ones first.
    pub fn payloads(&self) -> impl Iterator<Item = &Vec<u8>> {
        self.valid.iter().chain(&self.invalid)
    }
}

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/json_corpus")
}

/// The corpus, by name.
pub fn load() -> Vec<Entry> {
    let schemas = dir().join("schemas");
    let mut names: Vec<String> = std::fs::read_dir(&schemas)
        .unwrap_or_else(|err| panic!("{}: {err}", schemas.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let schema_bytes = std::fs::read(schemas.join(format!("{name}.json"))).unwrap();
            let schema = serde_json::from_slice(&schema_bytes).unwrap();
            let path = dir().join("instances").join(format!("{name}.json"));
            let instances: Value = serde_json::from_slice(
                &std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display())),
            )
            .unwrap();
            let set = |kind: &str| -> Vec<Vec<u8>> {
                instances[kind]
                    .as_array()
                    .unwrap_or_else(|| panic!("{name}: no {kind:?} instances"))
                    .iter()
                    .map(|v| serde_json::to_vec(v).unwrap())
                    .collect()
            };
            Entry {
                urn: format!("urn:corpus:schema:{name}:1"),
                valid: set("valid"),
                invalid: set("invalid"),
                name,
                schema,
                schema_bytes,
            }
        })
        .collect()
}

/// `jsonschema` built as the guard builds it: formats asserted, the
/// `regex` engine with the guard's limits, or, for a schema with a pattern
/// that engine cannot run, `fancy-regex` with the guard's backtrack limit
/// (core/src/json/validate.rs).
pub fn bare(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(2 << 20)
                .dfa_size_limit(2 << 20),
        )
        .build(schema)
        .or_else(|_| {
            jsonschema::options()
                .should_validate_formats(true)
                .with_pattern_options(
                    jsonschema::PatternOptions::fancy_regex()
                        .backtrack_limit(10_000)
                        .size_limit(2 << 20)
                        .dfa_size_limit(2 << 20),
                )
                .build(schema)
        })
        .unwrap()
}

/// The corpus entries written for this project (not real-world schemas).
pub const OWN: [&str; 2] = ["order-event", "deploy-event"];
