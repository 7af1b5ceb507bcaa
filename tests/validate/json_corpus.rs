//! The real-schema corpus (`tests/data/json_corpus`: SchemaStore-style
//! schemas with instances written for them, and the order event): for
//! every schema, the guard's verdict on every instance (compact and
//! pretty-printed) equals `jsonschema`'s with the guard's options, the
//! instances written to be valid are valid and those written with a mistake
//! are not, and the engine the guard picked is printed.

use dataschema::validate::json_plan::JsonPlan;
use dataschema::{Guard, Registry, Schema};
use serde_json::{json, Value};

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

/// Schema resources below the root (an `$id` there) and `$ref`s between
/// the resources of one document, resolved against the base of the
/// resource holding them: the scanner covers them (SchemaStore's
/// generated schemas bundle their parts so), with `jsonschema`'s verdict.
#[test]
fn resources_of_one_document_are_scanned_with_jsonschemas_verdict() {
    let cases = [
        (
            json!({
                "$id": "https://example.com/root.json",
                "type": "object",
                "properties": {
                    "a": {"$ref": "item.json"},
                    "b": {"$ref": "https://example.com/nested/other.json#/$defs/x"},
                    "c": {"$ref": "nested/other.json#num"}
                },
                "$defs": {
                    "n": {"type": "string"},
                    "item": {
                        "$id": "item.json",
                        "type": "object",
                        "properties": {"n": {"$ref": "#/$defs/n"}},
                        "$defs": {"n": {"type": "integer"}}
                    },
                    "other": {
                        "$id": "nested/other.json",
                        "$defs": {
                            "x": {"type": "string", "minLength": 2},
                            "y": {"$anchor": "num", "type": "number"}
                        }
                    }
                }
            }),
            vec![
                r#"{"a": {"n": 1}}"#,
                r#"{"a": {"n": "x"}}"#,
                r#"{"b": "xy"}"#,
                r#"{"b": "x"}"#,
                r#"{"c": 1.5}"#,
                r#"{"c": "s"}"#,
            ],
        ),
        (
            json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "$id": "http://example.com/r.json",
                "definitions": {
                    "v": {"type": "string"},
                    "A": {
                        "$id": "a.json",
                        "definitions": {"v": {"type": "integer"}},
                        "properties": {"v": {"$ref": "#/definitions/v"}}
                    },
                    "B": {
                        "$schema": "http://json-schema.org/draft-07/schema#",
                        "properties": {"w": {"$ref": "#/definitions/v"}}
                    }
                },
                "properties": {
                    "x": {"$ref": "a.json"},
                    "y": {"$ref": "http://example.com/a.json#/definitions/v"},
                    "z": {"$ref": "#/definitions/B"}
                }
            }),
            vec![
                r#"{"x": {"v": 1}}"#,
                r#"{"x": {"v": "1"}}"#,
                r#"{"y": 2}"#,
                r#"{"y": "2"}"#,
                r#"{"z": {"w": "s"}}"#,
                r#"{"z": {"w": 1}}"#,
            ],
        ),
    ];
    for (i, (schema, payloads)) in cases.into_iter().enumerate() {
        JsonPlan::compile(&schema, true).unwrap_or_else(|why| panic!("case {i}: {why}"));
        let urn = format!("urn:acme:schema:resources{i}:1");
        let guard = Guard::new(
            Registry::embed([Schema::json(urn.parse().unwrap(), schema.to_string())]).unwrap(),
        );
        assert_eq!(
            guard.json_engine(&urn.parse().unwrap()),
            Some(dataschema::validate::JsonEngine::Scanner),
            "case {i}"
        );
        let bare = corpus::bare(&schema);
        let mut verdicts = Vec::new();
        for payload in payloads {
            let expected = bare.is_valid(&serde_json::from_str(payload).unwrap());
            let got = guard.validate(&urn, payload.as_bytes()).is_ok();
            assert_eq!(got, expected, "case {i}: {payload}");
            verdicts.push(expected);
        }
        // Each pair is one valid payload and one invalid one.
        assert!(
            verdicts.chunks(2).all(|pair| pair == [true, false]),
            "case {i}: {verdicts:?}"
        );
    }
}
