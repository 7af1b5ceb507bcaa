//! `dataschema validate` and `dataschema resolve` run a version's data
//! contract (issue 40) and show it: the rules run on read, the rule that
//! refused a payload and its action (text and `--format json`), exit 1
//! as for any invalid payload; from a schemas folder (rules from its
//! manifest) and from `dataschema serve` through `--registry`.
#![cfg(all(feature = "cli", feature = "cel", feature = "jsonata"))]

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::run::{dataschema, s, text};

const MANIFEST: &str = r#"namespace = "acme"

[compatibility_overrides]
"payment" = "none"

[[rules."payment.v1".domainRules]]
name = "positiveAmount"
kind = "CONDITION"
type = "CEL"
mode = "WRITEREAD"
expr = "message.amount > 0"

[[rules."payment.v1".domainRules]]
name = "notBlocked"
kind = "CONDITION"
type = "CEL"
mode = "READ"
expr = "message.id != 'blocked'"
onFailure = "DLQ"

[[rules."payment.v1".domainRules]]
name = "writeOnly"
kind = "CONDITION"
type = "CEL"
mode = "WRITE"
expr = "false"

[[rules."payment.v2".migrationRules]]
name = "amountToTotal"
kind = "TRANSFORM"
type = "JSONATA"
mode = "UPGRADE"
expr = "$merge([$sift($, function($v, $k) {$k != 'amount'}), {'total': $.'amount'}])"
"#;

const V1: &str = r#"{"type": "object", "properties": {"id": {"type": "string"}, "amount": {"type": "number"}}, "required": ["id", "amount"]}"#;
const V2: &str = r#"{"type": "object", "properties": {"id": {"type": "string"}, "total": {"type": "number"}}, "required": ["id", "total"]}"#;

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("schemas")).unwrap();
    for (name, body) in [
        ("dataschema.toml", MANIFEST),
        ("payment.v1.json", V1),
        ("payment.v2.json", V2),
    ] {
        fs::write(dir.path().join("schemas").join(name), body).unwrap();
    }
    dir
}

fn payload(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, body).unwrap();
    s(&path).to_owned()
}

fn json(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{}", text(output)))
}

const V1_URN: &str = "urn:acme:schema:payment:1";
const V2_URN: &str = "urn:acme:schema:payment:2";

#[test]
fn validate_runs_the_rules_and_shows_them() {
    let dir = folder();
    let schemas = dir.path().join("schemas");
    let good = payload(dir.path(), "good.json", r#"{"id": "a", "amount": 3}"#);
    let negative = payload(dir.path(), "negative.json", r#"{"id": "a", "amount": -3}"#);
    let blocked = payload(
        dir.path(),
        "blocked.json",
        r#"{"id": "blocked", "amount": 3}"#,
    );

    // Valid: the read rules listed (not the WRITE one, which a reader
    // does not run: its `false` would refuse everything).
    let out = dataschema(&["validate", "--schemas", s(&schemas), V1_URN, &good]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains(
            "rules run on read: positiveAmount (CONDITION CEL, onFailure ERROR), \
             notBlocked (CONDITION CEL, onFailure DLQ)"
        ),
        "{shown}"
    );
    assert!(!shown.contains("writeOnly"), "{shown}");
    let out = dataschema(&[
        "validate",
        "--format",
        "json",
        "--schemas",
        s(&schemas),
        V1_URN,
        &good,
    ]);
    let doc = json(&out);
    assert_eq!(doc["outcome"], "valid");
    let names: Vec<&str> = doc["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["positiveAmount", "notBlocked"]);
    assert_eq!(doc["rules"][1]["on_failure"], "DLQ");
    assert_eq!(doc["rules"][0]["expr"], "message.amount > 0");

    // Refused by an ERROR rule: exit 1, the rule and its action.
    let out = dataschema(&["validate", "--schemas", s(&schemas), V1_URN, &negative]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("refused by rule positiveAmount (CONDITION CEL), action ERROR"),
        "{shown}"
    );
    let out = dataschema(&[
        "validate",
        "--format",
        "json",
        "--schemas",
        s(&schemas),
        V1_URN,
        &negative,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&out);
    assert_eq!(doc["outcome"], "invalid");
    assert_eq!(doc["rule"]["name"], "positiveAmount");
    assert_eq!(doc["rule"]["action"], "ERROR");
    assert_eq!(doc["rule"]["type"], "CEL");
    assert_eq!(doc["dead_letter"], false);
    assert_eq!(doc["violations"][0]["kind"], "rule");

    // Refused by a DLQ rule: exit 1, routed to the dead-letter subject.
    let out = dataschema(&["validate", "--schemas", s(&schemas), V1_URN, &blocked]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("refused by rule notBlocked (CONDITION CEL), action DLQ: route it to the dead-letter subject"),
        "{shown}"
    );
    let doc = json(&dataschema(&[
        "validate",
        "--format",
        "json",
        "--schemas",
        s(&schemas),
        V1_URN,
        &blocked,
    ]));
    assert_eq!(doc["rule"]["name"], "notBlocked");
    assert_eq!(doc["rule"]["action"], "DLQ");
    assert_eq!(doc["dead_letter"], true);

    // A payload failing the schema itself: no rule named.
    let broken = payload(dir.path(), "broken.json", r#"{"id": 1, "amount": 3}"#);
    let doc = json(&dataschema(&[
        "validate",
        "--format",
        "json",
        "--schemas",
        s(&schemas),
        V1_URN,
        &broken,
    ]));
    assert_eq!(doc["outcome"], "invalid");
    assert!(doc["rule"].is_null(), "{doc}");
}

#[test]
fn resolve_runs_the_migration_rules_and_the_writers_read_rules() {
    let dir = folder();
    let schemas = dir.path().join("schemas");
    let good = payload(dir.path(), "good.json", r#"{"id": "a", "amount": 3}"#);
    let out = dataschema(&["resolve", "--schemas", s(&schemas), V1_URN, V2_URN, &good]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let read: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read, serde_json::json!({"id": "a", "total": 3}));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("migration rules: amountToTotal"), "{said}");
    assert!(said.contains("rules run on read: positiveAmount"), "{said}");

    let doc = json(&dataschema(&[
        "resolve",
        "--format",
        "json",
        "--schemas",
        s(&schemas),
        V1_URN,
        V2_URN,
        &good,
    ]));
    assert_eq!(doc["outcome"], "resolved");
    assert_eq!(doc["migration_rules"][0]["name"], "amountToTotal");
    assert_eq!(doc["migration_rules"][0]["mode"], "UPGRADE");
    assert_eq!(doc["rules"][0]["name"], "positiveAmount");

    // The writer's rule refuses before any migration: exit 1, named.
    let negative = payload(dir.path(), "negative.json", r#"{"id": "a", "amount": -3}"#);
    let out = dataschema(&[
        "resolve",
        "--format",
        "json",
        "--schemas",
        s(&schemas),
        V1_URN,
        V2_URN,
        &negative,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = json(&out);
    assert_eq!(doc["outcome"], "invalid");
    assert_eq!(doc["rule"]["name"], "positiveAmount");
    assert_eq!(doc["rule"]["action"], "ERROR");
    let out = dataschema(&[
        "resolve",
        "--schemas",
        s(&schemas),
        V1_URN,
        V2_URN,
        &negative,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("refused by rule positiveAmount (CONDITION CEL), action ERROR"),
        "{said}"
    );
}

/// Through `--registry`: the rules `dataschema serve` holds (registered
/// through the Confluent API) reach `validate` over the native API's
/// `Dataschema-Contract` header, as they reach the guard's fallback.
#[cfg(feature = "server")]
#[test]
fn validate_through_a_registry_runs_the_rules_it_holds() {
    use crate::server::process::{token_file, Serve};
    let dir = tempfile::tempdir().unwrap();
    let token = token_file(dir.path());
    let serve = Serve::start(&["--store", "memory", "--token-file", &token]);
    let registered = crate::server::confluent(
        "POST",
        &serve.url("/subjects/payment/versions"),
        &serde_json::json!({
            "schema": V1,
            "schemaType": "JSON",
            "ruleSet": {"domainRules": [{"name": "positiveAmount", "kind": "CONDITION",
                "type": "CEL", "mode": "WRITEREAD", "expr": "message.amount > 0",
                "onFailure": "DLQ"}]},
        }),
    );
    assert_eq!(registered.status, 200, "{}", registered.text());
    let good = payload(dir.path(), "good.json", r#"{"id": "a", "amount": 3}"#);
    let negative = payload(dir.path(), "negative.json", r#"{"id": "a", "amount": -3}"#);
    let registry = serve.url("");
    let out = dataschema(&["validate", "--registry", &registry, V1_URN, &good]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("rules run on read: positiveAmount"),
        "{}",
        text(&out)
    );
    let out = dataschema(&[
        "validate",
        "--format",
        "json",
        "--registry",
        &registry,
        V1_URN,
        &negative,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = json(&out);
    assert_eq!(doc["rule"]["name"], "positiveAmount");
    assert_eq!(doc["rule"]["action"], "DLQ");
    assert_eq!(doc["dead_letter"], true);
}
