//! One `#[jsonschema::validator]` struct per corpus schema, written to
//! `$OUT_DIR/validators.rs`, with the guard's options: formats asserted,
//! the `regex` engine with the guard's size limits, or `fancy-regex` with
//! its backtrack limit for a schema with lookaround or a backreference (as
//! `benches/support/corpus.rs` builds `jsonschema` at run time).
//! `MACRO_PEER_SKIP=a,b` leaves schemas out (ones the macro refuses).

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/data/json_corpus");
    let schemas = corpus
        .join("schemas")
        .canonicalize()
        .expect("the corpus' schemas");
    println!("cargo::rerun-if-changed={}", schemas.display());
    println!("cargo::rerun-if-env-changed=MACRO_PEER_SKIP");
    let skip = std::env::var("MACRO_PEER_SKIP").unwrap_or_default();
    let skip: Vec<&str> = skip.split(',').filter(|s| !s.is_empty()).collect();
    let mut names: Vec<String> = std::fs::read_dir(&schemas)
        .expect("read the schemas")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| !skip.contains(&name.as_str()))
        .collect();
    names.sort();
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        let path = schemas.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).expect("read a schema");
        let backtracking = ["(?=", "(?!", "(?<=", "(?<!", "\\\\1"]
            .iter()
            .any(|form| text.contains(form));
        let patterns = if backtracking {
            "engine = fancy_regex, backtrack_limit = 10000, size_limit = 2097152, dfa_size_limit = 2097152"
        } else {
            "engine = regex, size_limit = 2097152, dfa_size_limit = 2097152"
        };
        writeln!(
            out,
            "#[jsonschema::validator(path = {:?}, validate_formats = true, \
             pattern_options = {{ {patterns} }}, \
             methods = {{ is_valid = true, validate = false, iter_errors = false }})]\n\
             struct V{i};",
            path.display().to_string()
        )
        .unwrap();
    }
    out.push_str("/// Each schema's name and its generated `is_valid`.\n");
    out.push_str("pub static VALIDATORS: &[(&str, fn(&serde_json::Value) -> bool)] = &[\n");
    for (i, name) in names.iter().enumerate() {
        writeln!(out, "    ({name:?}, V{i}::is_valid),").unwrap();
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("validators.rs");
    std::fs::write(dest, out).expect("write validators.rs");
}
