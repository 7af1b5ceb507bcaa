//! Runs every case of the shared conformance corpus through the checkers.
//!
//! The corpus lies in `$DATASCHEMA_CONFORMANCE_DIR`, or else in
//! `../shared/conformance` beside the repository. Where it is absent the
//! test fails under `CI` and says it skips elsewhere. Each case is read
//! into a struct that refuses unknown and missing keys, so a corpus change
//! cannot pass unnoticed. Agreement must be complete except for the cases
//! listed below, each documented in `docs/compatibility.md`; a listed case
//! that agrees fails the test too, so the list stays true.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use dataschema::compat::{json, Compatibility};
use serde::Deserialize;
use serde_json::Value;

/// One case of a `*-compat.json` file (see the corpus README).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // provenance fields are read by people, not the test
struct Case {
    id: String,
    source: String,
    description: String,
    #[serde(default)]
    also_in: Vec<String>,
    /// The old schema: JSON Schema as a value, protobuf as `.proto` text.
    writer: Value,
    /// The new schema.
    reader: Value,
    /// Confluent's `newSchema.isBackwardCompatible(oldSchema)`.
    backward: bool,
    /// Confluent's expected change list, where upstream gives one.
    changes: Option<Vec<String>>,
    /// The verdict under Confluent's LENIENT policy: not a mode here.
    backward_lenient: Option<bool>,
    /// A Karapace quirk (it types `true` and `{}` as object schemas).
    note: Option<String>,
    /// Confluent schema metadata: no bearing on compatibility.
    writer_metadata: Option<Value>,
    reader_metadata: Option<Value>,
    /// Confluent subject references; their texts are in `*_dependencies`.
    writer_references: Option<Vec<Value>>,
    reader_references: Option<Vec<Value>>,
    /// Imported `.proto` texts by name (`null`: a well-known type).
    writer_dependencies: Option<BTreeMap<String, Option<String>>>,
    reader_dependencies: Option<BTreeMap<String, Option<String>>>,
    /// Where upstream keeps the `.proto` files.
    writer_file: Option<String>,
    reader_file: Option<String>,
}

/// Cases where the checker deliberately disagrees with the corpus, each
/// with the rule (see `docs/compatibility.md`).
const EXPECTED_JSON_DISAGREEMENTS: &[&str] = &[
    // A `false` writer wrote no data: every reader reads it (Confluent).
    "karapace-json-4",
    "karapace-json-190",
    "karapace-json-192",
    "karapace-json-193",
    // `true` to `false` is a type change (Confluent).
    "karapace-json-2",
    // A property with the empty schema added to an open model is compatible (Confluent).
    "karapace-json-30",
    "karapace-json-40",
    // `patternProperties` match by search, as JSON Schema says: `^a*` covers `b`.
    "karapace-json-38",
];

/// Protobuf cases where the checker deliberately disagrees with the corpus.
#[cfg(feature = "protobuf")]
const EXPECTED_PROTO_DISAGREEMENTS: &[&str] = &[
    // Fields match by number: a renumbered field is a removal plus an
    // addition, both compatible (Confluent, confluent-proto-9).
    "karapace-proto-2",
    "karapace-proto-12",
    // Not valid protobuf (field number out of range): it does not compile.
    "karapace-proto-15",
    // A package change is breaking (Confluent, confluent-proto-1).
    "karapace-proto-16",
];

fn corpus_dir() -> Option<PathBuf> {
    common::external_dir(
        "DATASCHEMA_CONFORMANCE_DIR",
        "../shared/conformance",
        "the conformance corpus",
    )
}

fn load(dir: &std::path::Path, file: &str) -> Vec<Case> {
    let text = std::fs::read(dir.join(file)).expect("corpus file readable");
    serde_json::from_slice(&text).unwrap_or_else(|err| panic!("{file}: {err}"))
}

/// Tallies agreement and checks it against the expected disagreements.
struct Tally {
    file: &'static str,
    expected: &'static [&'static str],
    agreed: usize,
    skipped: usize,
    disagreements: Vec<(String, String)>,
}

impl Tally {
    fn new(file: &'static str, expected: &'static [&'static str]) -> Self {
        Tally {
            file,
            expected,
            agreed: 0,
            skipped: 0,
            disagreements: Vec::new(),
        }
    }

    fn record(&mut self, id: &str, problem: Option<String>) {
        match problem {
            None => self.agreed += 1,
            Some(p) => self.disagreements.push((id.to_owned(), p)),
        }
    }

    fn finish(self) {
        let total = self.agreed + self.disagreements.len() + self.skipped;
        eprintln!(
            "{}: {} of {} cases agree, {} disagree, {} skipped (karapace `note` cases)",
            self.file,
            self.agreed,
            total,
            self.disagreements.len(),
            self.skipped
        );
        let mut failures = Vec::new();
        for (id, problem) in &self.disagreements {
            if !self.expected.contains(&id.as_str()) {
                failures.push(format!("unexpected disagreement {id}: {problem}"));
            }
        }
        for id in self.expected {
            if !self.disagreements.iter().any(|(d, _)| d == id) {
                failures.push(format!("{id} is listed as a disagreement but now agrees"));
            }
        }
        assert!(
            failures.is_empty(),
            "{}:\n{}",
            self.file,
            failures.join("\n")
        );
    }
}

#[test]
fn jsonschema_corpus() {
    let Some(dir) = corpus_dir() else { return };
    let mut tally = Tally::new("jsonschema-compat.json", EXPECTED_JSON_DISAGREEMENTS);
    for case in load(&dir, "jsonschema-compat.json") {
        let id = case.id.as_str();
        if id.starts_with("karapace-") && case.note.is_some() {
            tally.skipped += 1;
            continue;
        }
        let (writer, reader) = (&case.writer, &case.reader);
        let expected = case.backward;
        let report = json::check(Compatibility::Backward, reader, &[(1, writer)]);
        let problem = match report {
            Err(e) => Some(format!("error: {e}")),
            Ok(report) => {
                let diff = json::diff(writer, reader);
                let got: Vec<String> = diff
                    .changes()
                    .iter()
                    .map(|c| format!("{} {}", c.kind().name(), c.path()))
                    .collect();
                if report.is_compatible() != expected {
                    Some(format!(
                        "backward: expected {expected}, got {}; changes {got:?}",
                        report.is_compatible()
                    ))
                } else if id.starts_with("confluent-") {
                    match &case.changes {
                        Some(want) if *want != got => {
                            Some(format!("changes: expected {want:?}, got {got:?}"))
                        }
                        _ => None,
                    }
                } else {
                    None
                }
            }
        };
        tally.record(id, problem);
    }
    tally.finish();
}

#[cfg(feature = "protobuf")]
mod proto {
    use super::*;
    use dataschema::compat::protobuf;
    use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};
    use std::collections::HashMap;

    struct Memory(HashMap<String, String>);

    impl FileResolver for Memory {
        fn open_file(&self, name: &str) -> Result<File, protox::Error> {
            match self.0.get(name) {
                Some(source) => File::from_source(name, source),
                None => Err(protox::Error::file_not_found(name)),
            }
        }
    }

    /// Compiles the main `.proto` text with its dependencies into a
    /// serialized `FileDescriptorSet`, the form the registry stores.
    pub(super) fn compile(
        main: &Value,
        deps: Option<&BTreeMap<String, Option<String>>>,
    ) -> Result<Vec<u8>, String> {
        let main = main
            .as_str()
            .ok_or("a protobuf case's schema is .proto text")?;
        let mut files = HashMap::new();
        files.insert("main.proto".to_owned(), main.to_owned());
        for (name, text) in deps.into_iter().flatten() {
            // `null` marks a well-known type: protox's Google resolver has it.
            if let Some(text) = text {
                files.insert(name.clone(), text.clone());
            }
        }
        let mut chain = ChainFileResolver::new();
        chain.add(Memory(files));
        chain.add(GoogleFileResolver::new());
        let mut compiler = protox::Compiler::with_file_resolver(chain);
        compiler.include_imports(true);
        compiler
            .open_file("main.proto")
            .map_err(|e| e.to_string())?;
        Ok(compiler.encode_file_descriptor_set())
    }

    #[test]
    fn protobuf_corpus() {
        let Some(dir) = corpus_dir() else { return };
        let mut tally = Tally::new("protobuf-compat.json", EXPECTED_PROTO_DISAGREEMENTS);
        for case in load(&dir, "protobuf-compat.json") {
            let id = case.id.as_str();
            let expected = case.backward;
            let writer = compile(&case.writer, case.writer_dependencies.as_ref());
            let reader = compile(&case.reader, case.reader_dependencies.as_ref());
            let (writer, reader) = match (writer, reader) {
                (Ok(w), Ok(r)) => (w, r),
                (Err(e), _) | (_, Err(e)) => {
                    tally.record(id, Some(format!("does not compile: {e}")));
                    continue;
                }
            };
            let problem = match protobuf::check(Compatibility::Backward, &reader, &[(1, &writer)]) {
                Err(e) => Some(format!("error: {e}")),
                Ok(report) => {
                    let (Ok(w), Ok(r)) = (
                        protobuf::decode("writer", &writer),
                        protobuf::decode("reader", &reader),
                    ) else {
                        unreachable!("check decoded both")
                    };
                    let got: Vec<String> = protobuf::diff(&w, &r)
                        .changes()
                        .iter()
                        .map(|c| format!("{} {}", c.kind().name(), c.path()))
                        .collect();
                    if report.is_compatible() != expected {
                        Some(format!(
                            "backward: expected {expected}, got {}; changes {got:?}",
                            report.is_compatible()
                        ))
                    } else if id.starts_with("confluent-") {
                        match &case.changes {
                            Some(want) if *want != got => {
                                Some(format!("changes: expected {want:?}, got {got:?}"))
                            }
                            _ => None,
                        }
                    } else {
                        None
                    }
                }
            };
            tally.record(id, problem);
        }
        tally.finish();
    }
}
