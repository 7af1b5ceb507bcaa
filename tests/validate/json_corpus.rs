//! The real-schema corpus (`tests/data/json_corpus`: SchemaStore-style
//! schemas with instances written for them, and the order event): for
//! every schema, the guard's verdict on every instance (compact and
//! pretty-printed) equals `jsonschema`'s with the guard's options, the
//! instances written to be valid are valid and those written with a mistake
//! are not, and the engine the guard picked is printed.

use dataschema::validate::json_plan::JsonPlan;
use dataschema::{Guard, Registry, Schema};
use serde_json::Value;

use crate::corpus;

#[test]
fn corpus_verdicts_equal_jsonschema() {
    let entries = corpus::load();
    let real = entries
        .iter()
        .filter(|e| !corpus::OWN.contains(&e.name.as_str()))
        .count();
    assert!(
        real >= 20,
        "the corpus holds {real} real-world schemas, not 20"
    );
    let mut rows = Vec::new();
    for entry in &entries {
        let urn = entry.urn.parse().unwrap();
        let schema = Schema::json(urn, entry.schema_bytes.clone());
        let guard = Guard::new(Registry::embed([schema]).unwrap());
        let engine = guard
            .json_engine(&entry.urn.parse().unwrap())
            .unwrap_or_else(|| panic!("{}: the guard cannot use the schema", entry.name));
        let bare = corpus::bare(&entry.schema);
        for (written_valid, payloads) in [(true, &entry.valid), (false, &entry.invalid)] {
            for (i, payload) in payloads.iter().enumerate() {
                let value: Value = serde_json::from_slice(payload).unwrap();
                let expected = bare.is_valid(&value);
                assert_eq!(
                    expected,
                    written_valid,
                    "{} instance {i}: written {} but jsonschema says {}",
                    entry.name,
                    if written_valid { "valid" } else { "invalid" },
                    expected
                );
                let pretty = serde_json::to_vec_pretty(&value).unwrap();
                for bytes in [payload, &pretty] {
                    let got = guard.validate(&entry.urn, bytes);
                    assert_eq!(
                        got.as_ref().is_ok_and(|o| o.is_validated()),
                        expected,
                        "{} instance {i} ({} bytes): the guard says {got:?}, jsonschema {expected}",
                        entry.name,
                        bytes.len()
                    );
                }
            }
        }
        // Why the scanner left a schema whole to `jsonschema`, if it did.
        let refusal = JsonPlan::compile(&entry.schema, true)
            .err()
            .map(|why| format!(" (plan refused: {why})"))
            .unwrap_or_default();
        rows.push(format!(
            "{:<24} {:<40} {} valid, {} invalid{refusal}",
            entry.name,
            format!("{engine:?}"),
            entry.valid.len(),
            entry.invalid.len()
        ));
    }
    eprintln!("{}", rows.join("\n"));
}
