//! Confluent's `normalize=true` for Avro (`dataschema::avsc::normalize`):
//! on every schema of Avro's `schema-tests.txt`, the normalized text is
//! the same schema (the same Parsing Canonical Form) and normalizing it
//! again changes nothing; and the form itself on the cases of Confluent's
//! own normalization tests (docs, properties on primitives and records,
//! a type met again).

use dataschema::compat::avro::parse;
use dataschema::{avsc, Error, Resolver, Schema, Urn};
use serde_json::Value;

use crate::common;

struct Nothing;

impl Resolver for Nothing {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        Err(Error::NotFound { urn: urn.clone() })
    }
}

fn normalized(text: &str) -> String {
    let urn: Urn = "urn:acme:schema:n:1".parse().unwrap();
    let schema = avsc::normalize(&Schema::avro(urn, text), &Nothing)
        .unwrap_or_else(|err| panic!("{text}: {}", err.chain()));
    String::from_utf8(schema.bytes().to_vec()).unwrap()
}

/// The `<<INPUT` schemas of `schema-tests.txt`.
fn inputs(text: &str) -> Vec<String> {
    let mut inputs = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("<<INPUT") else {
            continue;
        };
        if rest.trim().is_empty() {
            let mut input = String::new();
            for line in lines.by_ref() {
                if line == "INPUT" {
                    break;
                }
                input.push_str(line);
                input.push('\n');
            }
            inputs.push(input);
        } else {
            inputs.push(rest.trim().to_owned());
        }
    }
    inputs
}

fn has_namespace_member(value: &Value) -> bool {
    match value {
        Value::Object(object) => {
            object.contains_key("namespace") || object.values().any(has_namespace_member)
        }
        Value::Array(items) => items.iter().any(has_namespace_member),
        _ => false,
    }
}

#[test]
fn normalizing_keeps_the_schema_and_is_idempotent_on_avros_test_schemas() {
    let Some(dir) = common::external_dir(
        "DATASCHEMA_AVRO_TEST_DATA",
        "../shared/avro-test-data",
        "Apache Avro's shared test data",
    ) else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("schema-tests.txt")).expect("readable");
    let inputs = inputs(&text);
    assert!(inputs.len() >= 34, "{} inputs", inputs.len());
    let mut named = 0;
    for input in &inputs {
        let before = parse("the input", input.as_bytes()).unwrap();
        let once = normalized(input);
        let after = parse("the normalized", once.as_bytes())
            .unwrap_or_else(|err| panic!("{input} -> {once}: {err}"));
        assert_eq!(
            after.canonical_form(),
            before.canonical_form(),
            "{input} -> {once}"
        );
        assert_eq!(normalized(&once), once, "{input}");
        let value: Value = serde_json::from_str(&once).unwrap();
        // Full names, never a namespace member: the normalizer wrote it
        // (rather than answering the text as it was).
        assert!(!has_namespace_member(&value), "{input} -> {once}");
        assert!(!once.contains(": ") && !once.contains('\n'), "{once}");
        named += usize::from(before.named_types().next().is_some());
    }
    assert!(named >= 10, "{named} schemas with named types");
}

#[test]
fn the_form_is_confluents_on_its_own_cases() {
    // Confluent's testNormalization: members in the form's order.
    assert_eq!(
        normalized(
            r#"{"type":"record","name":"myrecord","doc":"hi\"there","fields":[{"type":"string","name":"f1","doc":"bye\"now"}]}"#
        ),
        r#"{"name":"myrecord","type":"record","fields":[{"name":"f1","type":"string","doc":"bye\"now"}],"doc":"hi\"there"}"#
    );
    // Confluent's testNormalizationPreservesMetadataForPrimitiveTypes:
    // properties kept, sorted, on records and primitives; a type met again
    // by its full name.
    let envelope = r#"{"connect.name": "some.scope.Envelope", "fields": [
        {"default": null, "name": "before", "type": ["null", {"connect.name": "some.scope.Value", "fields": [
            {"name": "created_at", "type": {"connect.version": 1, "connect.name": "io.debezium.time.Timestamp", "type": "long"}},
            {"name": "normal_long", "type": "long"}], "name": "Value", "type": "record"}]},
        {"default": null, "name": "after", "type": ["null", "Value"]}],
      "name": "Envelope", "namespace": "some.scope", "type": "record"}"#;
    assert_eq!(
        normalized(envelope),
        concat!(
            r#"{"name":"some.scope.Envelope","type":"record","fields":["#,
            r#"{"name":"before","type":["null",{"name":"some.scope.Value","type":"record","fields":["#,
            r#"{"name":"created_at","type":{"type":"long","connect.name":"io.debezium.time.Timestamp","connect.version":1}},"#,
            r#"{"name":"normal_long","type":"long"}],"connect.name":"some.scope.Value"}],"default":null},"#,
            r#"{"name":"after","type":["null","some.scope.Value"],"default":null}],"#,
            r#""connect.name":"some.scope.Envelope"}"#
        )
    );
    // Logical types: their members once, right after the type; an invalid
    // one (a decimal's scale above its precision) kept as properties.
    assert_eq!(
        normalized(r#"{"scale": 2, "logicalType": "decimal", "type": "bytes", "precision": 9}"#),
        r#"{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}"#
    );
    assert_eq!(
        normalized(r#"{"scale": 9, "logicalType": "decimal", "type": "bytes", "precision": 2}"#),
        r#"{"type":"bytes","logicalType":"decimal","precision":2,"scale":9}"#
    );
    // An enum's default and aliases (full names, sorted); a field's order
    // only when not ascending.
    assert_eq!(
        normalized(
            r#"{"type": "record", "name": "R", "namespace": "a", "fields": [
                {"name": "e", "order": "descending", "type": {"type": "enum", "name": "E", "default": "Y",
                  "aliases": ["b.Old", "Older"], "symbols": ["X", "Y"]}},
                {"name": "f", "order": "ascending", "type": "E"}]}"#
        ),
        concat!(
            r#"{"name":"a.R","type":"record","fields":["#,
            r#"{"name":"e","type":{"name":"a.E","type":"enum","symbols":["X","Y"],"aliases":["a.Older","b.Old"],"default":"Y"},"order":"descending"},"#,
            r#"{"name":"f","type":"a.E"}]}"#
        )
    );
}
