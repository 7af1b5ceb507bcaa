//! Avro through the Confluent API with references, as Confluent's clients
//! send them (each reference's `name` the full name of the type it brings,
//! `subject`/`version` the schema defining it): register, lookup,
//! compatibility against versions with references, the references listed
//! by id and by version, `referencedby`; and `normalize=true` for Avro.
#![cfg(all(feature = "server", feature = "avro"))]

use crate::server;

use serde_json::{json, Value};
use server::*;

fn post(running: &Running, path: &str, body: &Value) -> Reply {
    confluent("POST", &running.url(path), body)
}

fn register(running: &Running, subject: &str, body: &Value) -> Reply {
    post(running, &format!("/subjects/{subject}/versions"), body)
}

const MONEY: &str = r#"{"type": "record", "name": "Money", "namespace": "acme.common",
  "fields": [{"name": "cents", "type": "long"},
             {"name": "currency", "type": {"type": "enum", "name": "Currency", "symbols": ["EUR", "USD"]}}]}"#;

/// A payment using `acme.common.Money` (and the enum nested in it) from
/// the subject `money`.
fn payment(extra_field: &str) -> String {
    format!(
        r#"{{"type": "record", "name": "Payment", "namespace": "acme.pay",
  "fields": [{{"name": "id", "type": "string"}},
             {{"name": "amount", "type": "acme.common.Money"}},
             {{"name": "fallback", "type": "acme.common.Currency"}}{extra_field}]}}"#
    )
}

fn money_ref() -> Value {
    json!([{"name": "acme.common.Money", "subject": "money", "version": 1}])
}

fn payment_body(extra_field: &str) -> Value {
    json!({"schema": payment(extra_field), "references": money_ref()})
}

/// Registers `money` and `payment-value` (using Money); the payment's and
/// the money's ids.
fn registered(running: &Running) -> (u64, u64) {
    let money = register(running, "money", &json!({"schema": MONEY}));
    assert_eq!(money.status, 200, "{}", money.text());
    let payment = register(running, "payment-value", &payment_body(""));
    assert_eq!(payment.status, 200, "{}", payment.text());
    (
        payment.json()["id"].as_u64().unwrap(),
        money.json()["id"].as_u64().unwrap(),
    )
}

#[test]
fn a_schema_using_another_subjects_type_registers_and_reads_back_with_its_references() {
    let running = start();
    let (id, money_id) = registered(&running);
    assert_ne!(id, money_id);
    // Again: the same id and version.
    let again = register(&running, "payment-value", &payment_body(""));
    assert_eq!(again.json()["id"].as_u64(), Some(id), "{}", again.text());
    assert_eq!(again.json()["version"], 1);
    for path in [
        format!("/schemas/ids/{id}"),
        "/subjects/payment-value/versions/1".to_owned(),
        "/subjects/payment-value/versions/latest".to_owned(),
    ] {
        let reply = get(&running.url(&path));
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        let body = reply.json();
        assert_eq!(body["schemaType"], "AVRO", "{path}");
        assert_eq!(body["references"], money_ref(), "{path}");
        let stored: Value = serde_json::from_str(body["schema"].as_str().unwrap()).unwrap();
        let sent: Value = serde_json::from_str(&payment("")).unwrap();
        assert_eq!(stored, sent, "{path}: the bytes are kept as written");
    }
    // The version the references name lists the referrer.
    let by = get(&running.url("/subjects/money/versions/1/referencedby"));
    assert_eq!(by.status, 200, "{}", by.text());
    assert_eq!(by.json(), json!([id]));
    let none = get(&running.url("/subjects/payment-value/versions/1/referencedby"));
    assert_eq!(none.json(), json!([]));
    // Lookup finds it with its references, and not without them.
    let found = post(&running, "/subjects/payment-value", &payment_body(""));
    assert_eq!(found.status, 200, "{}", found.text());
    assert_eq!(found.json()["id"].as_u64(), Some(id), "{}", found.text());
    assert_eq!(found.json()["references"], money_ref());
    let unreferenced = post(
        &running,
        "/subjects/payment-value",
        &json!({"schema": payment("")}),
    );
    assert_eq!(unreferenced.code(), 42201, "{}", unreferenced.text());
    assert!(
        unreferenced.text().contains("acme.common.Money"),
        "{}",
        unreferenced.text()
    );
}

#[test]
fn the_reference_name_is_a_label_and_the_types_come_from_the_referenced_schema() {
    let running = start();
    registered(&running);
    // Another name for the same reference (a Java client may send one):
    // the types still come from `money` version 1. Latest (-1) too.
    let body = json!({"schema": payment(""),
        "references": [{"name": "money.avsc", "subject": "money", "version": -1}]});
    let other = register(&running, "other-value", &body);
    assert_eq!(other.status, 200, "{}", other.text());
    let read = get(&running.url("/subjects/other-value/versions/1"));
    assert_eq!(
        read.json()["references"],
        json!([{"name": "money.avsc", "subject": "money", "version": 1}])
    );
}

#[test]
fn references_are_followed_transitively() {
    let running = start();
    registered(&running);
    // A refund uses Payment; Payment's own reference brings Money.
    let refund = r#"{"type": "record", "name": "Refund", "namespace": "acme.pay",
      "fields": [{"name": "of", "type": "Payment"}, {"name": "back", "type": "acme.common.Money"}]}"#;
    let body = json!({"schema": refund,
        "references": [{"name": "acme.pay.Payment", "subject": "payment-value", "version": 1}]});
    let reply = register(&running, "refund-value", &body);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let by = get(&running.url("/subjects/payment-value/versions/1/referencedby"));
    assert_eq!(by.json(), json!([reply.json()["id"]]));
}

#[test]
fn bad_references_are_42201_and_store_nothing() {
    let running = start();
    registered(&running);
    let color = json!({"schema": r#"{"type": "enum", "name": "acme.Color", "symbols": ["RED"]}"#});
    assert_eq!(register(&running, "color", &color).status, 200);
    let cases = [
        // A version not registered.
        (
            json!({"schema": payment(""),
                "references": [{"name": "acme.common.Money", "subject": "money", "version": 7}]}),
            "not registered",
        ),
        // A reference that defines another type than the one used.
        (
            json!({"schema": payment(""),
                "references": [{"name": "acme.Color", "subject": "color", "version": 1}]}),
            "acme.common.Money",
        ),
    ];
    for (body, says) in cases {
        let reply = register(&running, "broken-value", &body);
        assert_eq!(reply.code(), 42201, "{body}: {}", reply.text());
        assert!(reply.text().contains(says), "{says}: {}", reply.text());
    }
    // The subject holds nothing.
    let versions = get(&running.url("/subjects/broken-value/versions"));
    assert_eq!(versions.status, 404, "{}", versions.text());
    // A type defined both by the schema and by its reference.
    let twice = r#"{"type": "record", "name": "Twice", "fields": [
        {"name": "a", "type": "acme.common.Money"},
        {"name": "b", "type": {"type": "record", "name": "acme.common.Money", "fields": []}}]}"#;
    let reply = register(
        &running,
        "twice-value",
        &json!({"schema": twice, "references": money_ref()}),
    );
    assert_eq!(reply.code(), 42201, "{}", reply.text());
    assert!(reply.text().contains("defined twice"), "{}", reply.text());
    // Defined before it is used, or never used: refused the same (Java
    // refuses every redefinition), on every route that reads it.
    let first = r#"{"type": "record", "name": "Twice", "fields": [
        {"name": "b", "type": {"type": "record", "name": "acme.common.Money", "fields": []}},
        {"name": "a", "type": "acme.common.Money"}]}"#;
    let unused = r#"{"type": "record", "name": "Twice", "fields": [
        {"name": "b", "type": ["null", {"type": "record", "name": "acme.common.Money",
            "fields": [{"name": "cents", "type": "long"}]}]}]}"#;
    for text in [first, unused] {
        let body = json!({"schema": text, "references": money_ref()});
        for path in [
            "/subjects/twice-value/versions",
            "/compatibility/subjects/payment-value/versions/latest",
        ] {
            let reply = post(&running, path, &body);
            assert_eq!(reply.code(), 42201, "{path}: {}", reply.text());
            assert!(reply.text().contains("defined twice"), "{}", reply.text());
        }
    }
}

#[test]
fn compatibility_is_checked_against_versions_with_references() {
    let running = start();
    registered(&running);
    let level = confluent(
        "PUT",
        &running.url("/config/payment-value"),
        &json!({"compatibility": "BACKWARD"}),
    );
    assert_eq!(level.status, 200, "{}", level.text());
    // A new field without a default: the new reader cannot read old data.
    let broken = payment_body(r#", {"name": "note", "type": "string"}"#);
    let test = post(
        &running,
        "/compatibility/subjects/payment-value/versions/latest?verbose=true",
        &broken,
    );
    assert_eq!(test.status, 200, "{}", test.text());
    assert_eq!(test.json()["is_compatible"], false, "{}", test.text());
    assert!(test.text().contains("note"), "{}", test.text());
    let refused = register(&running, "payment-value", &broken);
    assert_eq!(refused.code(), 40901, "{}", refused.text());
    // With a default it is compatible, and registers as version 2.
    let added = payment_body(r#", {"name": "note", "type": "string", "default": ""}"#);
    let test = post(
        &running,
        "/compatibility/subjects/payment-value/versions/latest",
        &added,
    );
    assert_eq!(test.json()["is_compatible"], true, "{}", test.text());
    let v2 = register(&running, "payment-value", &added);
    assert_eq!(v2.json()["version"], 2, "{}", v2.text());
    // Money version 2 drops a symbol of the nested enum; a payment over
    // it reads old payments no more (the writer's USD has no reader
    // symbol and the reader enum no default).
    let none = confluent(
        "PUT",
        &running.url("/config/money"),
        &json!({"compatibility": "NONE"}),
    );
    assert_eq!(none.status, 200, "{}", none.text());
    let money2 = MONEY.replace(r#"["EUR", "USD"]"#, r#"["EUR"]"#);
    let money = register(&running, "money", &json!({"schema": money2}));
    assert_eq!(money.json()["version"], 2, "{}", money.text());
    let over_v2 = json!({"schema": payment(r#", {"name": "note", "type": "string", "default": ""}"#),
        "references": [{"name": "acme.common.Money", "subject": "money", "version": 2}]});
    let test = post(
        &running,
        "/compatibility/subjects/payment-value/versions/latest?verbose=true",
        &over_v2,
    );
    assert_eq!(test.json()["is_compatible"], false, "{}", test.text());
    assert!(test.text().contains("USD"), "{}", test.text());
}

#[test]
fn normalize_makes_equivalent_avro_texts_one_schema() {
    let running = start();
    registered(&running);
    // One schema written twice: namespace apart or in the name, members in
    // other orders, a primitive as an object, aliases in another order,
    // a referenced type by short name in its namespace.
    let a = r#"{"type": "record", "name": "Order", "namespace": "acme.shop", "doc": "An order",
      "aliases": ["Purchase", "acme.old.Order"],
      "fields": [
        {"name": "id", "type": {"type": "string"}, "aliases": ["ref", "key"]},
        {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line",
          "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int", "default": 1}]}}},
        {"name": "total", "type": "acme.common.Money"},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tags", "type": {"type": "map", "values": "string"}, "default": {}}
      ]}"#;
    let b = r#"{"fields": [
        {"aliases": ["key", "ref"], "type": "string", "name": "id"},
        {"type": {"items": {"fields": [{"type": "string", "name": "sku"}, {"default": 1, "name": "qty", "type": {"type": "int"}}],
          "name": "acme.shop.Line", "type": "record"}, "type": "array"}, "name": "lines"},
        {"name": "total", "type": {"type": "acme.common.Money"}},
        {"type": {"logicalType": "timestamp-millis", "type": "long"}, "name": "at"},
        {"default": {}, "type": {"values": {"type": "string"}, "type": "map"}, "name": "tags"}
      ], "aliases": ["acme.old.Order", "acme.shop.Purchase"], "doc": "An order", "name": "acme.shop.Order", "type": "record"}"#;
    let body = |text: &str| json!({"schema": text, "references": money_ref()});
    let first = post(
        &running,
        "/subjects/order-value/versions?normalize=true",
        &body(a),
    );
    assert_eq!(first.status, 200, "{}", first.text());
    let second = post(
        &running,
        "/subjects/order-value/versions?normalize=true",
        &body(b),
    );
    assert_eq!(second.status, 200, "{}", second.text());
    assert_eq!(second.json()["id"], first.json()["id"], "{}", second.text());
    assert_eq!(second.json()["version"], 1);
    let found = post(&running, "/subjects/order-value?normalize=true", &body(b));
    assert_eq!(found.json()["id"], first.json()["id"], "{}", found.text());
    // What is stored is Confluent's normalized form.
    let stored = first.json()["schema"].as_str().unwrap().to_owned();
    assert!(
        stored.starts_with(r#"{"name":"acme.shop.Order","type":"record","fields":[{"name":"id","type":"string","aliases":["key","ref"]}"#),
        "{stored}"
    );
    assert!(
        stored.contains(r#"{"name":"total","type":"acme.common.Money"}"#),
        "{stored}"
    );
    assert!(
        stored.ends_with(r#""doc":"An order","aliases":["acme.old.Order","acme.shop.Purchase"]}"#),
        "{stored}"
    );
    // Without normalize, the other text is another version.
    let other = post(&running, "/subjects/order-value/versions", &body(b));
    assert_eq!(other.json()["version"], 2, "{}", other.text());
    assert_ne!(other.json()["id"], first.json()["id"]);
    // A lookup that normalizes finds the newest version equal once
    // normalized: version 2, registered as written.
    let found = post(&running, "/subjects/order-value?normalize=true", &body(a));
    assert_eq!(found.json()["id"], other.json()["id"], "{}", found.text());
    assert_eq!(found.json()["version"], 2, "{}", found.text());
}

/// A guard whose fallback reads the Confluent API validates the frames of
/// a schema with references: the answer's `references` become the
/// schema's, and the referenced version is fetched by its URN.
#[cfg(feature = "http")]
#[test]
fn a_guard_follows_avro_references_through_the_confluent_fallback() {
    use dataschema::http::{Api, HttpResolver};
    use dataschema::{Guard, MemoryStore, Outcome, Registry};

    let running = start();
    let (id, _) = registered(&running);
    let fallback = HttpResolver::builder(running.url(""))
        .api(Api::Confluent {
            namespace: "acme".into(),
        })
        .build()
        .unwrap();
    let guard = Guard::builder(Registry::new(MemoryStore::new()))
        .fallback(fallback)
        .build();
    // id "p1", 250 cents in USD, fallback EUR.
    let datum = [4, b'p', b'1', 0xF4, 0x03, 2, 0];
    let mut frame = vec![0];
    frame.extend_from_slice(&u32::try_from(id).unwrap().to_be_bytes());
    frame.extend_from_slice(&datum);
    assert!(matches!(
        guard.validate_framed(&frame),
        Ok(Outcome::Validated)
    ));
    assert!(matches!(
        guard.validate("urn:acme:schema:payment-value:1", &datum),
        Ok(Outcome::Validated)
    ));
    // The referenced enum has two symbols: index 2 is refused, with its
    // place.
    let mut bad = frame.clone();
    let at = bad.len() - 2;
    bad[at] = 4;
    let invalid = guard.validate_framed(&bad).unwrap_err();
    assert_eq!(invalid.violations()[0].path(), "/amount/currency");
}
