//! Bundles this repository's sample `schemas/` with the function users
//! call, for its tests, examples and benches (the internal `samples`
//! feature, which the self dev-dependency turns on). A dependent never
//! runs this: the feature is off there, and `schemas/` is not packaged.
//!
//! It also bundles `tests/data/bundle_ids/` (a folder whose lock records
//! registry ids) into `OUT_DIR/bundle_ids/`, which `tests/cli/bundle.rs`
//! includes: the build of a published folder, end to end; and
//! `tests/data/bundle_references/` (a version with references, given by
//! its manifest) into `OUT_DIR/bundle_references/`; and
//! `tests/data/bundle_avro/` (`.avsc` files using each other's named
//! types) into `OUT_DIR/bundle_avro/`; and `tests/data/bundle_aliases/`
//! (a manifest giving a version aliases by path) into
//! `OUT_DIR/bundle_aliases/`; and `tests/data/bundle_codegen/` (the
//! order event, `codegen = true`) into `OUT_DIR/bundle_codegen/`.
//!
//! With `json`, it also writes `OUT_DIR/codegen_differential.rs`, which
//! `tests/validate/json_codegen.rs` includes: the validators generated
//! from the plans of the JSON corpus' schemas and of the JSON Schema Test
//! Suite's groups (read in place, as `tests/validate/json_scan_suite.rs`
//! reads them), for each one the generator covers; the corpus' ones are
//! in `OUT_DIR/codegen_corpus.rs` too (which it includes), for
//! `benches/json_corpus.rs`.

fn main() {
    #[cfg(feature = "samples")]
    if std::path::Path::new("schemas").is_dir() {
        dataschema_build::bundle("schemas").unwrap();
        for name in [
            "bundle_ids",
            "bundle_references",
            "bundle_avro",
            "bundle_aliases",
            "bundle_codegen",
        ] {
            let fixture = std::path::Path::new("tests/data").join(name);
            if !fixture.is_dir() {
                continue;
            }
            // Two versions of an Avro schema are checked for compatibility:
            // with the `avro` feature only (its tests need it too).
            if name == "bundle_avro" && std::env::var_os("CARGO_FEATURE_AVRO").is_none() {
                continue;
            }
            // Resolution of JSON Schema versions: with the `json` feature.
            if (name == "bundle_aliases" || name == "bundle_codegen")
                && std::env::var_os("CARGO_FEATURE_JSON").is_none()
            {
                continue;
            }
            // `bundle` writes into OUT_DIR: point it at a folder of its own
            // for each further bundle (a build script runs on one thread).
            let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
            let target = std::path::Path::new(&out_dir).join(name);
            std::fs::create_dir_all(&target).unwrap();
            std::env::set_var("OUT_DIR", &target);
            dataschema_build::bundle(&fixture).unwrap();
            std::env::set_var("OUT_DIR", &out_dir);
        }
        // Compiled only with `json`: `generate_json` is dataschema-build's
        // `json` feature, which this package's `json` turns on.
        #[cfg(feature = "json")]
        differential::write();
    }
}

/// The generated validators `tests/validate/json_codegen.rs` holds to the
/// interpreter.
#[cfg(all(feature = "samples", feature = "json"))]
mod differential {
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};

    use dataschema_build::serde_json::{self, Value};

    pub(super) fn write() {
        let mut modules = String::new();
        let mut corpus = String::new();
        let mut suite = String::new();
        let mut count = 0usize;
        let mut module = |modules: &mut String, code: &str, hash: u64| {
            let name = format!("generated_{count}");
            count += 1;
            let _ = write!(
                modules,
                "#[allow(unused, unreachable_code, clippy::all)]\nmod {name} {{\n{code}\n\
                 pub static GENERATED: ::dataschema::validate::generated::Generated =\n    \
                 ::dataschema::validate::generated::Generated::new({hash:#x}, check);\n}}\n"
            );
            name
        };
        let schemas = Path::new("tests/data/json_corpus/schemas");
        println!("cargo:rerun-if-changed={}", schemas.display());
        for path in sorted(schemas) {
            let schema: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            if let Some(generated) = dataschema_build::generate_json(&schema) {
                let name = module(&mut modules, &generated.code, generated.hash);
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                let _ = writeln!(corpus, "    ({stem:?}, &{name}::GENERATED),");
            }
        }
        // The corpus apart, for `benches/json_corpus.rs` too.
        let code = format!(
            "{modules}\n\
             /// The corpus' schemas the generator covers, by file stem.\n\
             pub static CORPUS: &[(&str, &::dataschema::validate::generated::Generated)] = &[\n{corpus}];\n"
        );
        let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
        std::fs::write(out_dir.join("codegen_corpus.rs"), code).unwrap();
        modules.clear();
        println!("cargo:rerun-if-env-changed=DATASCHEMA_JSON_SCHEMA_TEST_SUITE");
        let root = std::env::var_os("DATASCHEMA_JSON_SCHEMA_TEST_SUITE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("../shared/json-schema-test-suite"));
        let tests = root.join("tests");
        if tests.is_dir() {
            println!("cargo:rerun-if-changed={}", tests.display());
            let mut files = Vec::new();
            walk(&tests, &mut files);
            for path in files {
                let name = path.strip_prefix(&root).unwrap().display().to_string();
                let Ok(Value::Array(groups)) =
                    serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap())
                else {
                    continue;
                };
                let draft = draft_of(&name);
                for (at, group) in groups.iter().enumerate() {
                    let mut schema = group["schema"].clone();
                    if let Value::Object(map) = &mut schema {
                        map.entry("$schema").or_insert_with(|| draft.into());
                    }
                    if let Some(generated) = dataschema_build::generate_json(&schema) {
                        let module = module(&mut modules, &generated.code, generated.hash);
                        let _ = writeln!(suite, "    ({name:?}, {at}, &{module}::GENERATED),");
                    }
                }
            }
        }
        let code = format!(
            "include!(concat!(env!(\"OUT_DIR\"), \"/codegen_corpus.rs\"));\n{modules}\n\
             /// The suite's groups the generator covers: file (under the suite's root), group index.\n\
             pub static SUITE: &[(&str, usize, &::dataschema::validate::generated::Generated)] = &[\n{suite}];\n"
        );
        std::fs::write(out_dir.join("codegen_differential.rs"), code).unwrap();
    }

    /// The draft a suite file's folder names, as `$schema` (what
    /// `tests/validate/json_scan_suite.rs` gives a schema without one).
    pub(super) fn draft_of(name: &str) -> &'static str {
        match name.split('/').find(|c| c.starts_with("draft")) {
            Some("draft4") => "http://json-schema.org/draft-04/schema#",
            Some("draft6") => "http://json-schema.org/draft-06/schema#",
            Some("draft7") => "http://json-schema.org/draft-07/schema#",
            Some("draft2019-09") => "https://json-schema.org/draft/2019-09/schema",
            _ => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    fn sorted(dir: &Path) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        paths
    }

    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for path in sorted(dir) {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
}
