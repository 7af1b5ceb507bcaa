//! Data contracts on read: the domain rules a version carries run in the
//! guard (`CEL`, `CEL_FIELD`), their actions mapped to the outcome table.

use dataschema::{
    Guard, Invalid, Metadata, Outcome, Reason, Registry, RuleSet, Schema, ViolationKind,
};
use serde_json::{json, Value};

use crate::common::{read, urn};

const URN: &str = "urn:acme:schema:payment:1";

fn payment(rules: Value) -> Schema {
    let metadata: Value = serde_json::from_slice(&read("rules/payment.metadata.json")).unwrap();
    Schema::json(urn(URN), read("rules/payment.json"))
        .with_rule_set(Some(RuleSet::from_json(&rules).unwrap()))
        .with_metadata(Some(Metadata::from_json(&metadata).unwrap()))
}

fn guard_of(schema: Schema) -> Guard {
    Guard::new(Registry::embed([schema]).unwrap())
}

fn guard() -> Guard {
    let rules: Value = serde_json::from_slice(&read("rules/payment.rules.json")).unwrap();
    guard_of(payment(rules))
}

fn good() -> Value {
    json!({
        "id": "p1", "amount": 12.5, "currency": "EUR",
        "email": "a@example.com", "card": "4111", "note": null,
        "lines": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 1}]
    })
}

fn with(change: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut payload = good();
    change(&mut payload);
    serde_json::to_vec(&payload).unwrap()
}

fn refused(guard: &Guard, payload: &[u8]) -> Invalid {
    match guard.validate(URN, payload) {
        Err(invalid) => invalid,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_payload_every_rule_holds_for_is_validated() {
    let guard = guard();
    let payload = serde_json::to_vec(&good()).unwrap();
    assert!(matches!(
        guard.validate(URN, &payload),
        Ok(Outcome::Validated)
    ));
    // Parsed already: the same verdict.
    assert!(matches!(
        guard.validate_json(URN, &good()),
        Ok(Outcome::Validated)
    ));
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn a_false_condition_fails_closed_naming_the_rule() {
    let guard = guard();
    let invalid = refused(&guard, &with(|p| p["amount"] = json!(-3)));
    let violation = &invalid.violations()[0];
    assert_eq!(violation.kind(), ViolationKind::Rule);
    assert_eq!(violation.path(), "");
    assert!(
        violation.message().contains("positiveAmount"),
        "{violation}"
    );
    assert!(
        violation.message().contains("message.amount > 0"),
        "{violation}"
    );
    assert!(violation.message().contains("action ERROR"), "{violation}");
    assert!(!invalid.dead_letter());
    // The rule, typed, for a consumer to log or route by.
    let rule = invalid.rule().expect("a rule refused it");
    assert_eq!(rule.name(), "positiveAmount");
    assert_eq!(rule.kind().as_str(), "CONDITION");
    assert_eq!(rule.rule_type(), "CEL");
    assert_eq!(rule.action().as_str(), "ERROR");
    // The schema alone would have taken it: the rule decided.
    let bare = guard_of(Schema::json(urn(URN), read("rules/payment.json")));
    assert!(bare
        .validate(URN, &with(|p| p["amount"] = json!(-3)))
        .is_ok());
    // A payload failing its schema names no rule.
    let schema_refusal = bare.validate(URN, b"[]").unwrap_err();
    assert!(schema_refusal.rule().is_none());
}

#[test]
fn a_dlq_action_is_a_dead_letter_verdict() {
    let invalid = refused(&guard(), &with(|p| p["currency"] = json!("XXX")));
    assert!(invalid.dead_letter());
    assert!(invalid.violations()[0].message().contains("knownCurrency"));
    assert!(invalid.violations()[0].message().contains("action DLQ"));
    let rule = invalid.rule().expect("a rule refused it");
    assert_eq!(rule.name(), "knownCurrency");
    assert_eq!(rule.action().as_str(), "DLQ");
}

#[test]
fn field_rules_run_on_the_tagged_fields_and_name_the_field() {
    let guard = guard();
    let invalid = refused(&guard, &with(|p| p["email"] = json!("")));
    assert_eq!(invalid.violations()[0].path(), "$.email");
    assert!(invalid.violations()[0].message().contains("piiIsNotEmpty"));
    // `card` is tagged PII too.
    let invalid = refused(&guard, &with(|p| p["card"] = json!("")));
    assert_eq!(invalid.violations()[0].path(), "$.card");
    // `id` is not tagged: an empty one is no rule's business.
    assert!(guard.validate(URN, &with(|p| p["id"] = json!(""))).is_ok());
    // Tags from the version's metadata, by path, into arrays.
    let invalid = refused(&guard, &with(|p| p["lines"][1]["qty"] = json!(0)));
    assert_eq!(invalid.violations()[0].path(), "$.lines[1].qty");
    assert!(invalid.violations()[0].message().contains("quantities"));
}

#[test]
fn write_only_disabled_and_transform_rules_do_not_refuse_on_read() {
    // producerOnly (WRITE), switchedOff (disabled) are `false`, and
    // maskCard rewrites: none of them refuses the good payload (the first
    // test), and none is in the failures of a refused one.
    let invalid = refused(&guard(), &with(|p| p["amount"] = json!(0)));
    for violation in invalid.violations() {
        for name in ["producerOnly", "switchedOff", "maskCard"] {
            assert!(!violation.message().contains(name), "{violation}");
        }
    }
}

#[test]
fn an_evaluation_error_is_a_failure_as_in_confluents_clients() {
    // `message.missing` has no such key: Confluent's CelExecutor throws a
    // RuleException, and onFailure (unset: ERROR) refuses.
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "needsMissing", "kind": "CONDITION", "type": "CEL", "expr": "message.missing > 0"
    }]})));
    let invalid = refused(&guard, &serde_json::to_vec(&good()).unwrap());
    assert!(invalid.violations()[0]
        .message()
        .contains("could not be evaluated"));
}

#[test]
fn a_failure_whose_action_is_none_goes_on() {
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "soft", "kind": "CONDITION", "type": "CEL", "expr": "message.amount > 100",
        "onFailure": "NONE"
    }]})));
    let payload = serde_json::to_vec(&good()).unwrap();
    assert!(matches!(
        guard.validate(URN, &payload),
        Ok(Outcome::Validated)
    ));
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn a_failure_whose_action_is_none_is_counted() {
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let guard = guard_of(payment(json!({"domainRules": [{
            "name": "soft", "kind": "CONDITION", "type": "CEL", "expr": "message.amount > 100",
            "onFailure": "NONE"
        }]})));
        let payload = serde_json::to_vec(&good()).unwrap();
        for _ in 0..3 {
            assert!(guard.validate(URN, &payload).is_ok());
        }
    });
    let ignored: Vec<(String, u64)> = snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .filter(|(key, _, _, _)| key.key().name() == "dataschema_rule_ignored_total")
        .map(|(key, _, _, value)| {
            let DebugValue::Counter(n) = value else {
                panic!("not a counter")
            };
            (key.key().labels().next().unwrap().value().to_owned(), n)
        })
        .collect();
    assert_eq!(ignored, [("payment".to_owned(), 3)]);
}

#[test]
fn split_actions_take_the_read_half() {
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "split", "kind": "CONDITION", "type": "CEL", "expr": "message.amount > 100",
        "onFailure": "ERROR,NONE"
    }]})));
    let payload = serde_json::to_vec(&good()).unwrap();
    assert!(matches!(
        guard.validate(URN, &payload),
        Ok(Outcome::Validated)
    ));
}

#[test]
fn a_guard_expression_skips_the_body() {
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "usdOnly", "kind": "CONDITION", "type": "CEL",
        "expr": "message.currency == 'USD'; message.amount > 100"
    }]})));
    // EUR: the guard is false, the condition holds.
    let payload = serde_json::to_vec(&good()).unwrap();
    assert!(guard.validate(URN, &payload).is_ok());
    assert!(guard
        .validate(URN, &with(|p| p["currency"] = json!("USD")))
        .is_err());
}

fn unusable(guard: &Guard) -> dataschema::Unvalidated {
    let payload = serde_json::to_vec(&good()).unwrap();
    match guard.validate(URN, &payload) {
        Ok(Outcome::Unvalidated(unvalidated)) => unvalidated,
        other => panic!("expected a fail-open, got {other:?}"),
    }
}

#[test]
fn a_rule_that_cannot_run_fails_open_counted() {
    for rule in [
        json!({"name": "enc", "type": "ENCRYPT", "kind": "TRANSFORM", "tags": ["PII"]}),
        json!({"name": "broken", "type": "CEL", "kind": "CONDITION", "expr": "message.amount >"}),
        json!({"name": "quadratic", "type": "CEL", "kind": "CONDITION",
               "expr": "message.lines.all(a, message.lines.exists(b, a == b))"}),
        json!({"name": "deep", "type": "CEL", "kind": "CONDITION",
               "expr": format!("{}true{}", "(".repeat(400), ")".repeat(400))}),
        json!({"name": "huge", "type": "CEL", "kind": "CONDITION",
               "expr": format!("'{}' != ''", "x".repeat(100_000))}),
    ] {
        let name = rule["name"].as_str().unwrap().to_owned();
        let guard = guard_of(payment(json!({"domainRules": [rule]})));
        let unvalidated = unusable(&guard);
        assert_eq!(unvalidated.reason(), Reason::RuleUnusable, "{name}");
        assert!(unvalidated.to_string().contains(&name), "{unvalidated}");
        assert_eq!(guard.unvalidated(), 1, "{name}");
    }
}

#[test]
fn a_rule_that_cannot_run_refuses_when_its_action_says_so() {
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "enc", "type": "ENCRYPT", "kind": "CONDITION", "onFailure": "DLQ"
    }]})));
    let invalid = refused(&guard, &serde_json::to_vec(&good()).unwrap());
    assert!(invalid.dead_letter());
    assert!(invalid.violations()[0].message().contains("no executor"));
}

/// `lines` items and as many `skus` (outside the items): the quadratic
/// rule below compares each line's sku with every one of them.
fn with_skus(n: usize, missing: bool) -> Vec<u8> {
    with(|p| {
        p["lines"] = (0..n)
            .map(|i| json!({"sku": format!("s{i}"), "qty": 1}))
            .collect();
        p["skus"] = (0..n)
            .map(|i| json!(format!("s{}", if missing && i == 0 { n } else { i })))
            .collect();
    })
}

const SKU_KNOWN: &str = "message.lines.all(l, l.sku in message.skus)";

#[test]
fn a_quadratic_rule_on_a_large_payload_is_refused_naming_the_rule_and_the_bound() {
    use dataschema_core::rules::EVAL_BUDGET;
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "skuKnown", "kind": "CONDITION", "type": "CEL", "expr": SKU_KNOWN
    }]})));
    // 3,000 lines against 3,000 skus: 9 million comparisons, bounded
    // before any runs.
    let n = 3_000;
    assert!((n * n) as u64 > EVAL_BUDGET);
    let invalid = refused(&guard, &with_skus(n, false));
    let message = invalid.violations()[0].message();
    assert!(message.contains("skuKnown"), "{message}");
    assert!(message.contains("evaluation budget"), "{message}");
    assert!(message.contains(&EVAL_BUDGET.to_string()), "{message}");
    assert!(
        message.contains("3000 iterations over message.lines, each reading message.skus"),
        "{message}"
    );
    assert_eq!(invalid.violations()[0].kind(), ViolationKind::Rule);
    assert_eq!(invalid.rule().unwrap().name(), "skuKnown");

    // With onFailure NONE it goes on, counted as an ignored failure (as
    // any evaluation error).
    let soft = guard_of(payment(json!({"domainRules": [{
        "name": "skuKnown", "kind": "CONDITION", "type": "CEL", "expr": SKU_KNOWN,
        "onFailure": "NONE"
    }]})));
    assert!(matches!(
        soft.validate(URN, &with_skus(n, false)),
        Ok(Outcome::Validated)
    ));
}

#[test]
fn the_same_rule_on_a_small_payload_runs() {
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "skuKnown", "kind": "CONDITION", "type": "CEL", "expr": SKU_KNOWN
    }]})));
    assert!(matches!(
        guard.validate(URN, &with_skus(300, false)),
        Ok(Outcome::Validated)
    ));
    // It ran: a line whose sku is not listed makes it false.
    let invalid = refused(&guard, &with_skus(300, true));
    let message = invalid.violations()[0].message();
    assert!(message.contains("is false"), "{message}");
}

#[test]
fn a_map_over_a_large_list_is_linear() {
    // The `cel` crate appends a `map`'s items to one list in place; were
    // the list copied on each append, the bytes allocated would grow with
    // the square of the list.
    use crate::counting_alloc::bytes_during;
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "mapped", "kind": "CONDITION", "type": "CEL",
        "expr": "message.lines.map(l, l.qty).size() == size(message.lines)"
    }]})));
    let lines =
        |n: usize| with(|p| p["lines"] = (0..n).map(|i| json!({"sku": "s", "qty": i})).collect());
    let bytes = |n: usize| {
        let payload = lines(n);
        bytes_during(|| {
            assert!(matches!(
                guard.validate(URN, &payload),
                Ok(Outcome::Validated)
            ))
        })
    };
    bytes(10); // compiled and cached
    let (one, two) = (bytes(20_000), bytes(40_000));
    let ratio = two as f64 / one as f64;
    assert!(
        ratio < 2.5,
        "{one} bytes for 20,000 lines, {two} for 40,000"
    );
}

#[test]
fn a_malformed_rule_set_makes_the_version_fail_open() {
    // A rule Confluent's Rule.validate refuses: several actions on READ.
    let guard = guard_of(payment(json!({"domainRules": [{
        "name": "bad", "type": "CEL", "mode": "READ", "expr": "true", "onFailure": "ERROR,NONE"
    }]})));
    let unvalidated = unusable(&guard);
    assert_eq!(unvalidated.reason(), Reason::RuleUnusable);
    assert!(
        unvalidated
            .error()
            .chain()
            .to_string()
            .contains("Multiple actions"),
        "{unvalidated}"
    );
}

#[test]
fn a_bundled_version_carries_its_rules_to_the_guard() {
    use dataschema::bundle::{Bundle, Entry};
    static ENTRIES: &[Entry] = &[Entry::new(
        "urn:acme:schema:payment:1",
        dataschema::Language::JsonSchema,
        None,
        br#"{"type": "object"}"#,
    )
    .with_rules(
        r#"{"domainRules": [{"name": "positiveAmount", "kind": "CONDITION", "type": "CEL", "expr": "message.amount > 0"}]}"#,
    )];
    let guard = Guard::new(Registry::from_bundle(Bundle::new(ENTRIES)).unwrap());
    assert!(guard.validate(URN, br#"{"amount": 1}"#).is_ok());
    let invalid = refused(&guard, br#"{"amount": 0}"#);
    assert!(invalid.violations()[0].message().contains("positiveAmount"));
}

/// The manifest's `[tags."<name>.v<version>"]` reaches the bundle as the
/// version's `metadata.tags` (`Entry::with_metadata`): a field rule
/// selecting by a metadata tag runs on the bundled version.
#[test]
fn a_bundled_version_carries_its_metadata_tags_to_the_guard() {
    use dataschema::bundle::{Bundle, Entry};
    static ENTRIES: &[Entry] = &[Entry::new(
        "urn:acme:schema:payment:1",
        dataschema::Language::JsonSchema,
        None,
        br#"{"type": "object", "properties": {"amount": {"type": "number"}}}"#,
    )
    .with_rules(
        r#"{"domainRules": [{"name": "small", "kind": "CONDITION", "type": "CEL_FIELD", "tags": ["MONEY"], "expr": "value < 100.0"}]}"#,
    )
    .with_metadata(r#"{"tags": {"$.amount": ["MONEY"]}}"#)];
    let guard = Guard::new(Registry::from_bundle(Bundle::new(ENTRIES)).unwrap());
    assert!(guard.validate(URN, br#"{"amount": 1}"#).is_ok());
    let invalid = refused(&guard, br#"{"amount": 200}"#);
    assert_eq!(invalid.rule().unwrap().name(), "small", "{invalid}");
}

#[test]
fn a_field_transform_masks_what_read_as_hands_back() {
    // maskCard (TRANSFORM, CEL_FIELD, tags PCI) rewrites `card` in the
    // bytes read_as hands back; the verdict judged the payload as written.
    let guard = guard();
    let payload = serde_json::to_vec(&good()).unwrap();
    let read = guard.read_as(URN, &payload, &urn(URN)).unwrap();
    assert!(read.outcome().is_validated());
    let back: Value = serde_json::from_slice(read.bytes()).unwrap();
    assert_eq!(back, {
        let mut masked = good();
        masked["card"] = json!("****");
        masked
    });
    // Without transforms the payload is handed back as it was written.
    let plain = guard_of(payment(json!({"domainRules": []})));
    let read = plain.read_as(URN, &payload, &urn(URN)).unwrap();
    assert_eq!(read.bytes(), payload);
}

/// A payload read across versions meets the reader version's read
/// conditions, after the migration rules, as Confluent's deserializers
/// run the READ rules of the version they read as on what they return
/// (confluent-kafka-python v2.16.1 `__deserialize`); before, `read_as`
/// ran only the reader's transforms, so a payload its reader's rules
/// refuse was handed over (found by
/// tests/server/confluent_rules_formats_python.rs).
#[cfg(feature = "jsonata")]
#[test]
fn a_payload_read_as_another_version_meets_the_readers_conditions() {
    let v1 = Schema::json(
        urn("urn:acme:schema:order:1"),
        r#"{"type": "object", "properties": {"amount": {"type": "number"}}}"#,
    );
    let v2 = Schema::json(
        urn("urn:acme:schema:order:2"),
        r#"{"type": "object", "properties": {"total": {"type": "number"}}}"#,
    )
    .with_rule_set(Some(
        RuleSet::from_json(&json!({
            "migrationRules": [{"name": "rename", "kind": "TRANSFORM", "type": "JSONATA",
                "mode": "UPGRADE", "expr": "{'total': $.'amount'}"}],
            "domainRules": [{"name": "small", "kind": "CONDITION", "type": "CEL",
                "expr": "message.total < 100"}]
        }))
        .unwrap(),
    ));
    let guard = Guard::new(Registry::embed([v1, v2]).unwrap());
    let reader = urn("urn:acme:schema:order:2");
    let read = guard
        .read_as("urn:acme:schema:order:1", br#"{"amount": 5}"#, &reader)
        .unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(read.bytes()).unwrap(),
        json!({"total": 5})
    );
    // Version 1 has no rule: its verdict takes 500; version 2's does not.
    let refused = guard
        .read_as("urn:acme:schema:order:1", br#"{"amount": 500}"#, &reader)
        .unwrap_err();
    assert_eq!(refused.rule().unwrap().name(), "small", "{refused}");
    assert_eq!(refused.urn(), &reader);
}
