//! Data contracts through the HTTP fallback (issue 40): a version's
//! `ruleSet`, as `dataschema serve` holds it after merging the subject's
//! `defaultRuleSet` and `overrideRuleSet`, reaches a guard whose schema
//! comes from the registry (the Confluent API's `metadata`/`ruleSet`
//! members, the native API's `Dataschema-Contract` header), and the guard
//! enforces it as it enforces a bundled version's rules: by URN and by a
//! frame's id, each refusal naming its rule and action.
#![cfg(all(
    feature = "http",
    feature = "server",
    feature = "json",
    feature = "cel"
))]

use crate::server;

use std::time::Duration;

use dataschema::http::{Api, HttpResolver};
use dataschema::{Guard, MemoryStore, Outcome, Registry, Resolver};
use serde_json::json;

const URN: &str = "urn:acme:schema:payments:1";

fn rule(name: &str, expr: &str, on_failure: &str) -> serde_json::Value {
    json!({"name": name, "kind": "CONDITION", "type": "CEL", "mode": "WRITEREAD",
           "expr": expr, "onFailure": on_failure})
}

/// The server with the subject `payments`: its config's default and
/// override rule sets, then version 1 registered with a rule of its own.
fn registry_with_rules() -> (server::Running, u32) {
    let running = server::start();
    let config = server::confluent(
        "PUT",
        &running.url("/config/payments"),
        &json!({
            "defaultRuleSet": {"domainRules": [rule("idNotEmpty", "message.id != ''", "ERROR")]},
            "overrideRuleSet": {"domainRules": [rule("notBlocked", "message.id != 'blocked'", "DLQ")]},
        }),
    );
    assert_eq!(config.status, 200, "{}", config.text());
    let registered = server::confluent(
        "POST",
        &running.url("/subjects/payments/versions"),
        &json!({
            "schema": r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#,
            "schemaType": "JSON",
            "ruleSet": {"domainRules": [rule("notBad", "message.id != 'bad'", "ERROR")]},
        }),
    );
    assert_eq!(registered.status, 200, "{}", registered.text());
    let id = u32::try_from(registered.json()["id"].as_u64().unwrap()).unwrap();
    // The registry merged the three (default, the version's, override),
    // as Confluent's `AbstractSchemaRegistry.register` does.
    let held = server::get(&running.url("/subjects/payments/versions/1")).json();
    let names: Vec<&str> = held["ruleSet"]["domainRules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["idNotEmpty", "notBad", "notBlocked"], "{held}");
    (running, id)
}

fn fallback(running: &server::Running, api: Api) -> HttpResolver {
    HttpResolver::builder(running.url(""))
        .api(api)
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

fn framed(id: u32, body: &[u8]) -> Vec<u8> {
    let mut frame = vec![0];
    frame.extend_from_slice(&id.to_be_bytes());
    frame.extend_from_slice(body);
    frame
}

/// The rule that refused `outcome`, its message, and whether the payload
/// goes to the dead-letter subject.
fn refusal(outcome: Result<Outcome, dataschema::Invalid>) -> (String, bool) {
    match outcome {
        Err(invalid) => {
            let message = invalid.violations()[0].message().to_owned();
            (message, invalid.dead_letter())
        }
        Ok(outcome) => panic!("accepted: {outcome:?}"),
    }
}

#[test]
fn a_guard_over_either_api_enforces_the_merged_rules_the_registry_holds() {
    let (running, id) = registry_with_rules();
    for api in [
        Api::Native,
        Api::Confluent {
            namespace: "acme".into(),
        },
    ] {
        let resolver = fallback(&running, api.clone());
        // The schema the fallback fetched carries the three rules.
        let fetched = resolver.resolve(&URN.parse().unwrap()).unwrap();
        let rules = fetched
            .rule_set()
            .expect("the fetched version has its rules");
        assert_eq!(rules.domain_rules.len(), 3, "{api:?}");

        let guard = Guard::builder(Registry::new(MemoryStore::new()))
            .fallback(resolver)
            .build();
        for by_id in [false, true] {
            let validate = |body: &[u8]| {
                if by_id {
                    guard.validate_framed(&framed(id, body))
                } else {
                    guard.validate(URN, body)
                }
            };
            assert!(
                matches!(validate(br#"{"id": "a"}"#), Ok(Outcome::Validated)),
                "{api:?} {by_id}"
            );
            // The version's own rule.
            let (message, dead_letter) = refusal(validate(br#"{"id": "bad"}"#));
            assert!(
                message.contains("rule notBad, CONDITION CEL, action ERROR"),
                "{api:?}: {message}"
            );
            assert!(!dead_letter);
            // The config's default rule set.
            let (message, _) = refusal(validate(br#"{"id": ""}"#));
            assert!(message.contains("rule idNotEmpty"), "{api:?}: {message}");
            // The config's override rule set, with its DLQ action.
            let (message, dead_letter) = refusal(validate(br#"{"id": "blocked"}"#));
            assert!(
                message.contains("rule notBlocked, CONDITION CEL, action DLQ"),
                "{api:?}: {message}"
            );
            assert!(dead_letter, "{api:?}");
            // A payload that fails the schema itself is refused before any rule.
            assert!(validate(br#"{"id": 7}"#).is_err());
        }
    }
}

/// The native header round-trips a contract in printable ASCII (a
/// header value's alphabet), and a value that is not a contract is
/// refused, never read as "no rules": a registry's answer is input.
#[test]
fn the_contract_header_round_trips_and_refuses_what_is_not_one() {
    use dataschema::protocol::{contract_header, parse_contract};
    let rules = json!({"domainRules": [rule("r\u{e9}gle", "message.name != 'caf\u{e9} \u{1f600}'", "ERROR")]});
    let schema = dataschema::Schema::json(URN.parse().unwrap(), "{}")
        .with_metadata(Some(
            dataschema::Metadata::from_json(&json!({"properties": {"owner": "caf\u{e9}"}}))
                .unwrap(),
        ))
        .with_rule_set(Some(dataschema::RuleSet::from_json(&rules).unwrap()));
    let header = contract_header(&schema).unwrap();
    assert!(
        header.bytes().all(|b| b == b' ' || b.is_ascii_graphic()),
        "{header}"
    );
    let (metadata, rule_set) = parse_contract(&header).unwrap();
    assert_eq!(metadata.as_ref(), schema.metadata());
    assert_eq!(rule_set.as_ref(), schema.rule_set());
    assert_eq!(
        contract_header(&dataschema::Schema::json(URN.parse().unwrap(), "{}")),
        None
    );
    for bad in [
        "[]",
        "not json",
        r#"{"ruleSet": {"domainRules": "x"}}"#,
        r#"{"ruleSet": {}, "other": 1}"#,
    ] {
        assert!(parse_contract(bad).is_none(), "{bad}");
    }
}

/// A contract longer than a header may carry
/// (`protocol::MAX_CONTRACT_HEADER_BYTES`) is not sent as one: the native
/// read of its version is refused naming the size and where else to read
/// it, a guard's native fallback fails with those words (never a version
/// read without its rules), Confluent's API still answers it in the body,
/// and a client refuses such a header it is sent.
#[test]
fn a_contract_longer_than_a_header_carries_is_refused_with_its_size() {
    use dataschema::protocol::{AnswerError, SchemaAnswer, MAX_CONTRACT_HEADER_BYTES};
    let running = server::start();
    // Rules of 3,000-byte expressions (each within a rule's bound), more
    // of them than a header carries.
    let expr = format!("message.id != '{}'", "x".repeat(3000));
    let rules: Vec<serde_json::Value> = (0..12)
        .map(|i| rule(&format!("long{i}"), &expr, "ERROR"))
        .collect();
    let registered = server::confluent(
        "POST",
        &running.url("/subjects/payments/versions"),
        &json!({
            "schema": r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#,
            "schemaType": "JSON",
            "ruleSet": {"domainRules": rules},
        }),
    );
    assert_eq!(registered.status, 200, "{}", registered.text());
    let native = server::get(&running.url(&format!("/schemas/{URN}")));
    assert_eq!(native.status, 500, "{}", native.text());
    assert_eq!(native.json()["error"], "contract_too_large");
    let message = native.json()["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains(URN) && message.contains(&MAX_CONTRACT_HEADER_BYTES.to_string()),
        "{message}"
    );
    assert!(native.header("dataschema-contract").is_none());
    // Confluent's API carries it in the body.
    let confluent = server::get(&running.url("/subjects/payments/versions/1"));
    assert_eq!(confluent.status, 200);
    assert_eq!(
        confluent.json()["ruleSet"]["domainRules"]
            .as_array()
            .unwrap()
            .len(),
        12
    );
    // The native fallback says why it has no schema (the error's
    // source: the registry's words).
    let error = fallback(&running, Api::Native)
        .resolve(&URN.parse().unwrap())
        .unwrap_err();
    let mut words = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        words.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    assert!(
        words.contains("HTTP 500")
            && words.contains("Dataschema-Contract header")
            && words.contains(&MAX_CONTRACT_HEADER_BYTES.to_string()),
        "{words}"
    );
    let by_confluent = fallback(
        &running,
        Api::Confluent {
            namespace: "acme".into(),
        },
    )
    .resolve(&URN.parse().unwrap())
    .unwrap();
    assert_eq!(by_confluent.rule_set().unwrap().domain_rules.len(), 12);

    // A client refuses a longer header than the bound, before reading it.
    let long = format!(
        r#"{{"metadata": {{"properties": {{"x": "{}"}}}}}}"#,
        "y".repeat(MAX_CONTRACT_HEADER_BYTES)
    );
    let schema = dataschema::Schema::json(URN.parse().unwrap(), "{}");
    let answer = SchemaAnswer::parse(
        |name| match name {
            "dataschema-urn" => Some(URN),
            "dataschema-language" => Some("jsonschema"),
            "dataschema-digest" => Some(schema.digest()),
            "dataschema-contract" => Some(long.as_str()),
            _ => None,
        },
        b"{}".to_vec(),
    );
    match answer {
        Err(error @ AnswerError::ContractTooLarge { bytes }) => {
            assert_eq!(bytes, long.len());
            assert!(error.to_string().contains("more than the 32768"), "{error}");
        }
        other => panic!("{other:?}"),
    }
}
