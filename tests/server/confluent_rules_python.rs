//! Data contracts against Confluent's own Python client with rule
//! execution (`confluent-kafka[rules]`: its CEL, CEL_FIELD and JSONata
//! executors), through the real server (`tests/python/confluent_rules.py`),
//! issue 40's interoperability:
//!
//! * every payload Confluent's serializer refuses on write (a `WRITEREAD`
//!   condition), the guard refuses on read, naming the rule Confluent's
//!   deserializer names on read; every one it accepts, the guard accepts;
//! * a consumer pinned to major version 2 reads a version-1 frame through
//!   the JSONata migration rules exactly as Confluent's deserializer
//!   returns it (`Guard::read_framed_as`), version 2's `CEL_FIELD`
//!   masking transform (mode `READ`, the `PII`-tagged field) applied the
//!   same by both;
//!
//! each through a guard over the server's registry and through the HTTP
//! fallback (Confluent API and native API).
//!
//! `DATASCHEMA_PYTHON` missing or without `confluent-kafka[rules]`: under
//! `CI` the test fails saying so; elsewhere it prints that it skips.
#![cfg(all(
    feature = "http",
    feature = "server",
    feature = "json",
    feature = "cel",
    feature = "jsonata"
))]

use crate::common;
use crate::server;

use crate::rules_interop::{self, assert_refused_as_confluent, condition, guards, hex, run_script};

use dataschema::{Outcome, Urn};
use serde_json::{json, Value};

const SUBJECT: &str = "contracts-value";

/// The version-1 rules: name and expression (Confluent's refusal names
/// the expression: `Rule expr failed: EXPR`).
const V1_RULES: [(&str, &str); 4] = [
    ("positiveAmount", "message.amount > 0"),
    ("notBlocked", "message.id != 'blocked'"),
    ("piiNotEmpty", "value != ''"),
    ("softCheck", "message.id != 'soft'"),
];

/// Registers version 1 (major_version 1, conditions) and version 2
/// (major_version 2, a renamed field and the JSONata rules between) of
/// `contracts-value`, in the compatibility group `major_version`.
fn register(running: &server::Running) {
    let send =
        |method: &str, path: &str, body: Value| rules_interop::send(running, method, path, body);
    send(
        "PUT",
        &format!("/config/{SUBJECT}"),
        json!({"compatibility": "BACKWARD", "compatibilityGroup": "major_version"}),
    );
    let v1 = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "amount": {"type": "number"},
            "email": {"type": "string", "confluent:tags": ["PII"]},
        },
        "required": ["id", "amount"],
    });
    send(
        "POST",
        &format!("/subjects/{SUBJECT}/versions"),
        json!({
            "schema": v1.to_string(),
            "schemaType": "JSON",
            "metadata": {"properties": {"major_version": "1"}},
            "ruleSet": {"domainRules": [
                condition(V1_RULES[0].0, V1_RULES[0].1, "ERROR"),
                condition(V1_RULES[1].0, V1_RULES[1].1, "ERROR"),
                {"name": V1_RULES[2].0, "kind": "CONDITION", "type": "CEL_FIELD",
                 "mode": "WRITEREAD", "tags": ["PII"], "expr": V1_RULES[2].1},
                condition(V1_RULES[3].0, V1_RULES[3].1, "NONE"),
            ]},
        }),
    );
    let v2 = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "total": {"type": "number"},
            "email": {"type": "string", "confluent:tags": ["PII"]},
        },
        "required": ["id", "total"],
    });
    send(
        "POST",
        &format!("/subjects/{SUBJECT}/versions"),
        json!({
            "schema": v2.to_string(),
            "schemaType": "JSON",
            "metadata": {"properties": {"major_version": "2"}},
            "ruleSet": {
                "migrationRules": [
                    {"name": "amountToTotal", "kind": "TRANSFORM", "type": "JSONATA", "mode": "UPGRADE",
                     "expr": "$merge([$sift($, function($v, $k) {$k != 'amount'}), {'total': $.'amount'}])"},
                    {"name": "totalToAmount", "kind": "TRANSFORM", "type": "JSONATA", "mode": "DOWNGRADE",
                     "expr": "$merge([$sift($, function($v, $k) {$k != 'total'}), {'amount': $.'total'}])"},
                ],
                "domainRules": [
                    condition("positiveTotal", "message.total > 0", "ERROR"),
                    // Masking on read: Confluent's deserializer and the
                    // guard's read_framed_as both hand back the masked value.
                    {"name": "maskPii", "kind": "TRANSFORM", "type": "CEL_FIELD", "mode": "READ",
                     "tags": ["PII"], "expr": "typeName == 'STRING' ; 'XXX-' + value"},
                ],
            },
        }),
    );
}

#[test]
fn confluent_python_rule_verdicts_and_migrations_match_the_guard() {
    let Some(python) =
        common::python_importing("confluent_kafka.schema_registry.rules.cel.cel_executor, confluent_kafka.schema_registry.rules.jsonata.jsonata_executor")
    else {
        return;
    };
    let running = server::start();
    register(&running);
    let result = run_script(&python, "confluent_rules.py", &running, &[], &[]);
    let written = result["written"].as_array().unwrap();

    let v2: Urn = format!("urn:acme:schema:{SUBJECT}:2").parse().unwrap();
    let guards = guards(&running);
    let (mut refused, mut accepted, mut migrated, mut masked) = (0, 0, 0, 0);
    for entry in written {
        let payload = &entry["payload"];
        let frame = hex(entry["frame_hex"].as_str().unwrap());
        for (what, guard) in &guards {
            let verdict = guard.validate_framed(&frame);
            match entry["refused_on_write"].as_str() {
                Some(_) => {
                    assert_refused_as_confluent(what, entry, verdict, &V1_RULES);
                    refused += 1;
                }
                None => {
                    assert!(
                        entry["refused_on_read"].is_null(),
                        "{payload}: Confluent refused on read what it wrote"
                    );
                    assert!(
                        matches!(verdict, Ok(Outcome::Validated)),
                        "{what}: {payload}: Confluent accepted it, the guard says {verdict:?}"
                    );
                    // Read as version 2 through the JSONata rules: what
                    // Confluent's deserializer pinned to major_version 2
                    // returns.
                    let read = guard
                        .read_framed_as(&frame, &v2)
                        .unwrap_or_else(|invalid| panic!("{what}: {payload}: {invalid}"));
                    assert!(
                        matches!(read.outcome(), Outcome::Validated),
                        "{what}: {:?}",
                        read.outcome()
                    );
                    let ours: Value = serde_json::from_slice(read.bytes()).unwrap();
                    assert_eq!(
                        ours, entry["read_v2"],
                        "{what}: {payload} read as version 2"
                    );
                    assert!(
                        ours.get("total").is_some() && ours.get("amount").is_none(),
                        "{ours}"
                    );
                    if let Some(email) = payload.get("email") {
                        assert_eq!(
                            ours["email"],
                            format!("XXX-{}", email.as_str().unwrap()),
                            "{what}"
                        );
                        masked += 1;
                    }
                    accepted += 1;
                    migrated += 1;
                }
            }
        }
    }
    // Every verdict of Confluent's is met, both ways, by each guard; and
    // the payloads exercised both (the script's list).
    assert!(
        refused >= 3 * 4 && accepted >= 3 * 4,
        "refused {refused}, accepted {accepted}"
    );
    assert_eq!(migrated, accepted);
    assert!(masked >= 3 * 2, "masked {masked}");
    // The NONE rule's failure let `soft` through both sides.
    let soft = written
        .iter()
        .find(|entry| entry["payload"]["id"] == "soft")
        .unwrap();
    assert!(soft["refused_on_write"].is_null(), "{soft}");
}
