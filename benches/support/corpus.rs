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

/// `tests/data/json_corpus`, or the corpus `JSON_CORPUS_DIR` names (one
/// `benches/schemastore_corpus.py` wrote, in the same layout).
pub fn dir() -> PathBuf {
    match std::env::var_os("JSON_CORPUS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/json_corpus"),
    }
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
            let text =
                std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            let instances: Value = serde_json::from_slice(&text).unwrap();
            let written = std::env::var("JSON_CORPUS_KEYS").as_deref() == Ok("written");
            let set = |kind: &str| -> Vec<Vec<u8>> {
                let values = instances[kind]
                    .as_array()
                    .unwrap_or_else(|| panic!("{name}: no {kind:?} instances"));
                if !written {
                    return values
                        .iter()
                        .map(|v| serde_json::to_vec(v).unwrap())
                        .collect();
                }
                let payloads = as_written(&text, kind);
                assert_eq!(payloads.len(), values.len(), "{name}: {kind} instances");
                for (payload, value) in payloads.iter().zip(values) {
                    let read: Value = serde_json::from_slice(payload).unwrap();
                    assert_eq!(&read, value, "{name}: an instance as written");
                }
                payloads
            };
            Entry {
                urn: format!("urn:corpus:schema:{}:1", urn_name(&name)),
                valid: set("valid"),
                invalid: set("invalid"),
                name,
                schema,
                schema_bytes,
            }
        })
        .collect()
}

/// `name` as a URN's name: lower case, and a `-` for any character the
/// grammar does not take (SchemaStore's names are free).
fn urn_name(name: &str) -> String {
    name.chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '.' | '-') => c,
            _ => '-',
        })
        .collect()
}

/// The instances of kind `kind` of an instance file (`{"valid": [...],
/// "invalid": [...]}`), compact, their members in the order the file
/// writes them. (By default the corpus writes each instance back from a
/// `Value`, whose map sorts the keys; `JSON_CORPUS_KEYS=written` takes
/// these instead, as producers write them.)
fn as_written(text: &[u8], kind: &str) -> Vec<Vec<u8>> {
    // Without the white space outside strings.
    let mut compact = Vec::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for &b in text {
        if in_string {
            (in_string, escaped) = string_byte(b, escaped);
        } else if b == b'"' {
            in_string = true;
        } else if b.is_ascii_whitespace() {
            continue;
        }
        compact.push(b);
    }
    let key = format!("\"{kind}\":[");
    let from = compact
        .windows(key.len())
        .position(|w| w == key.as_bytes())
        .unwrap_or_else(|| panic!("no {kind:?} array"))
        + key.len();
    // The array's items: split at its own commas.
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, from);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in compact.iter().enumerate().skip(from) {
        if in_string {
            (in_string, escaped) = string_byte(b, escaped);
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 0 => depth -= 1,
            b']' => {
                if i > start {
                    items.push(compact[start..i].to_vec());
                }
                break;
            }
            b',' if depth == 0 => {
                items.push(compact[start..i].to_vec());
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

/// A byte inside a string (`escaped`: the byte before was an escaping
/// backslash): whether the string goes on after it, and whether the next
/// byte is escaped.
fn string_byte(b: u8, escaped: bool) -> (bool, bool) {
    match (escaped, b) {
        (true, _) => (true, false),
        (false, b'\\') => (true, true),
        (false, b'"') => (false, false),
        _ => (true, false),
    }
}

/// `jsonschema` built as the guard builds it: formats asserted, the
/// `regex` engine with the guard's limits, or, for a schema with a pattern
/// that engine cannot run, `fancy-regex` with the guard's backtrack limit
/// (core/src/json/validate.rs).
pub fn bare(schema: &Value) -> jsonschema::Validator {
    try_bare(schema).unwrap()
}

/// [`bare`], or why `jsonschema` does not compile the schema offline.
pub fn try_bare(schema: &Value) -> Result<jsonschema::Validator, String> {
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
        .map_err(|err| err.to_string())
}

/// The corpus entries written for this project (not real-world schemas).
pub const OWN: [&str; 2] = ["order-event", "deploy-event"];
