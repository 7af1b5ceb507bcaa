//! What the two interop tests against Confluent's Python client with rule
//! execution share (`confluent_rules_python.rs` for JSON Schema,
//! `confluent_rules_formats_python.rs` for Avro and protobuf): the rules'
//! JSON, running the script that writes with Confluent's serializers, the
//! guards that read back (over the server's registry and through both
//! HTTP fallbacks), and the check of a refusal against Confluent's.

use crate::server;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dataschema::http::{Api, HttpResolver};
use dataschema::{Guard, Invalid, MemoryStore, Outcome, Registry};
use serde_json::{json, Value};

/// A message-level `CEL` condition, mode `WRITEREAD`.
pub fn condition(name: &str, expr: &str, on_failure: &str) -> Value {
    json!({"name": name, "kind": "CONDITION", "type": "CEL", "mode": "WRITEREAD",
           "expr": expr, "onFailure": on_failure})
}

/// Registers under Confluent's API (`PUT`/`POST` with the server's token),
/// asserting a 200; the answer's JSON.
pub fn send(running: &server::Running, method: &str, path: &str, body: Value) -> Value {
    let reply = server::confluent(method, &running.url(path), &body);
    assert_eq!(reply.status, 200, "{method} {path}: {}", reply.text());
    reply.json()
}

/// Runs `tests/python/<script>` with `args`, then the server's URL, its
/// token and the result file, and reads the JSON it wrote there; its
/// output is printed, and a failure fails the test with it.
pub fn run_script(
    python: &str,
    script: &str,
    running: &server::Running,
    args: &[&str],
    more: &[&Path],
) -> Value {
    let out = tempfile::tempdir().unwrap();
    let result = out.path().join("result.json");
    let output = Command::new(python)
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/python")
                .join(script),
        )
        .args(args)
        .arg(running.url(""))
        .arg(server::TOKEN)
        .arg(&result)
        .args(more)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{text}");
    assert!(output.status.success(), "{script}: {text}");
    serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap()
}

/// Guards reading what the script wrote: over the server's registry, and
/// with an empty registry falling back to the server by Confluent's API
/// (namespace `acme`) and by the native API.
pub fn guards(running: &server::Running) -> Vec<(&'static str, Guard)> {
    let fallback = |api: Api| {
        HttpResolver::builder(running.url(""))
            .api(api)
            .timeout(Duration::from_secs(5))
            .build()
            .unwrap()
    };
    vec![
        ("registry", Guard::new(running.registry.clone())),
        (
            "confluent fallback",
            Guard::builder(Registry::new(MemoryStore::new()))
                .fallback(fallback(Api::Confluent {
                    namespace: "acme".into(),
                }))
                .build(),
        ),
        (
            "native fallback",
            Guard::builder(Registry::new(MemoryStore::new()))
                .fallback(fallback(Api::Native))
                .build(),
        ),
    ]
}

/// The rule among `rules` (name, expression) whose expression Confluent's
/// refusal names (`Rule expr failed: EXPR`).
pub fn rule_named_by(refusal: &str, rules: &[(&'static str, &str)]) -> &'static str {
    rules
        .iter()
        .find(|(_, expr)| refusal.contains(&format!("Rule expr failed: {expr}")))
        .map(|(name, _)| *name)
        .unwrap_or_else(|| panic!("no rule of the version in Confluent's refusal: {refusal}"))
}

/// Asserts the guard refused, on read, a payload Confluent's serializer
/// refused on write (`entry["refused_on_write"]`), naming the rule
/// Confluent's deserializer names (`entry["refused_on_read"]`: rules run
/// in reverse order on read), with the action `ERROR`.
pub fn assert_refused_as_confluent(
    what: &str,
    entry: &Value,
    verdict: Result<Outcome, Invalid>,
    rules: &[(&'static str, &str)],
) {
    let payload = &entry["payload"];
    let on_write = &entry["refused_on_write"];
    let on_read = entry["refused_on_read"]
        .as_str()
        .unwrap_or_else(|| panic!("{payload}: Confluent reads back what it refused"));
    let expected = rule_named_by(on_read, rules);
    let invalid = match verdict {
        Err(invalid) => invalid,
        Ok(outcome) => panic!(
            "{what}: {payload}: Confluent refused it ({on_write}), the guard says {outcome:?}"
        ),
    };
    let rule = invalid
        .rule()
        .unwrap_or_else(|| panic!("{what}: {payload}: {invalid}"));
    assert_eq!(rule.name(), expected, "{what}: {payload}: {invalid}");
    assert_eq!(rule.action().as_str(), "ERROR", "{what}: {payload}");
    assert!(
        invalid.violations()[0]
            .message()
            .contains(&format!("rule {expected}")),
        "{what}: {invalid}"
    );
}

/// Bytes from the script's hex.
pub fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}
