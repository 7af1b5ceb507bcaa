//! The Confluent Schema Registry API of the server: every route, every
//! error code, the shapes clients read. A real server on 127.0.0.1:0.
#![cfg(feature = "server")]

use crate::server;

use dataschema::store::{Check, SchemaId, Stored, Version};
use dataschema::{Compatibility, Error, Schema, Store, Urn};
use serde_json::{json, Value};
use server::*;

const V1: &str = r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#;
const V2: &str =
    r#"{"type": "object", "properties": {"id": {"type": "string"}}, "description": "v2"}"#;
/// V1 and V2 as stored and read back: Confluent's canonical form (compact).
const V1_CANONICAL: &str = r#"{"type":"object","properties":{"id":{"type":"string"}}}"#;
const V2_CANONICAL: &str =
    r#"{"type":"object","properties":{"id":{"type":"string"}},"description":"v2"}"#;
const NARROWED: &str = r#"{"type": "object", "properties": {"id": {"type": "integer"}}}"#;

fn json_schema(schema: &str) -> Value {
    json!({"schema": schema, "schemaType": "JSON", "references": []})
}

fn post(running: &Running, path: &str, body: &Value) -> Reply {
    confluent("POST", &running.url(path), body)
}

fn register(running: &Running, subject: &str, schema: &str) -> Reply {
    post(
        running,
        &format!("/subjects/{subject}/versions?normalize=False"),
        &json_schema(schema),
    )
}

#[test]
fn register_is_idempotent_and_ids_are_shared_across_subjects() {
    let running = start();
    let first = register(&running, "orders-value", V1);
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(
        first.header("content-type"),
        Some("application/vnd.schemaregistry.v1+json")
    );
    let body = first.json();
    let id = body["id"].as_u64().unwrap();
    assert_eq!(body["version"], 1);
    assert_eq!(body["subject"], "orders-value");
    let again = register(&running, "orders-value", V1);
    assert_eq!(again.json()["id"].as_u64(), Some(id));
    assert_eq!(again.json()["version"], 1);
    let other = register(&running, "payments-value", V1);
    assert_eq!(
        other.json()["id"].as_u64(),
        Some(id),
        "same schema, same id"
    );
    let v2 = register(&running, "orders-value", V2);
    assert_eq!(v2.json()["version"], 2);
    assert_ne!(v2.json()["id"].as_u64(), Some(id));
    // Newer clients' fields are taken: metadata and a rule set make it
    // another version (tests/server/confluent_contracts.rs).
    let newer = post(
        &running,
        "/subjects/orders-value/versions",
        &json!({"schema": V2, "schemaType": "JSON", "references": [], "metadata": {"properties": {"a": "b"}},
                "ruleSet": {"domainRules": []}, "normalize": true, "guid": "x"}),
    );
    assert_eq!(newer.status, 200, "{}", newer.text());
    assert_eq!(newer.json()["version"], 3);
    // Stored under the server's namespace, in Confluent's canonical form
    // (compact).
    let urn: Urn = "urn:acme:schema:orders-value:2".parse().unwrap();
    assert_eq!(
        running.registry.resolve(&urn).unwrap().bytes(),
        V2_CANONICAL.as_bytes()
    );
}

#[test]
fn reads_subjects_versions_and_ids() {
    let running = start();
    let id1 = register(&running, "orders-value", V1).json()["id"]
        .as_u64()
        .unwrap();
    let id2 = register(&running, "orders-value", V2).json()["id"]
        .as_u64()
        .unwrap();
    register(&running, "payments-value", V1);

    assert_eq!(
        get(&running.url("/subjects")).json(),
        json!(["orders-value", "payments-value"])
    );
    assert_eq!(
        get(&running.url("/subjects?deleted=TRUE&subjectPrefix=pay")).json(),
        json!(["payments-value"])
    );
    assert_eq!(
        get(&running.url("/subjects?deleted_only=true")).json(),
        json!([])
    );
    assert_eq!(
        get(&running.url("/subjects?deletedOnly=True")).json(),
        json!([])
    );
    assert_eq!(
        get(&running.url("/subjects?offset=1&limit=1")).json(),
        json!(["payments-value"])
    );
    assert_eq!(get(&running.url("/subjects?deleted=maybe")).status, 400);

    assert_eq!(
        get(&running.url("/subjects/orders-value/versions")).json(),
        json!([1, 2])
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions?deleted=false&deleted_only=False"))
            .json(),
        json!([1, 2])
    );
    // Percent-encoded subjects decode.
    assert_eq!(
        get(&running.url("/subjects/orders%2Dvalue/versions")).json(),
        json!([1, 2])
    );
    let missing = get(&running.url("/subjects/nothing/versions"));
    assert_eq!((missing.status, missing.code()), (404, 40401));

    let mut latest = get(&running.url("/subjects/orders-value/versions/latest")).json();
    // The content's guid (tests/server/confluent_contracts.rs).
    let guid = latest.as_object_mut().unwrap().remove("guid");
    assert_eq!(
        guid.as_ref().and_then(Value::as_str).map(str::len),
        Some(36)
    );
    assert_eq!(
        latest,
        json!({"subject": "orders-value", "version": 2, "id": id2, "schemaType": "JSON", "schema": V2_CANONICAL})
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions/-1")).json()["version"],
        2
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions/1")).json()["id"],
        id1
    );
    let raw = get(&running.url("/subjects/orders-value/versions/1/schema"));
    assert_eq!(raw.text(), V1_CANONICAL);
    let no_version = get(&running.url("/subjects/orders-value/versions/7"));
    assert_eq!((no_version.status, no_version.code()), (404, 40402));
    let no_subject = get(&running.url("/subjects/nothing/versions/1"));
    assert_eq!((no_subject.status, no_subject.code()), (404, 40401));
    let no_subject_latest = get(&running.url("/subjects/nothing/versions/latest"));
    assert_eq!(no_subject_latest.code(), 40401);
    for bad in ["0", "x", "1.5", "-3"] {
        let reply = get(&running.url(&format!("/subjects/orders-value/versions/{bad}")));
        assert_eq!((reply.status, reply.code()), (422, 42202), "{bad}");
    }

    let mut by_id = get(&running.url(&format!("/schemas/ids/{id1}"))).json();
    assert!(by_id.as_object_mut().unwrap().remove("guid").is_some());
    assert_eq!(by_id, json!({"schemaType": "JSON", "schema": V1_CANONICAL}));
    assert_eq!(
        get(&running.url(&format!("/schemas/ids/{id1}/schema"))).text(),
        V1_CANONICAL
    );
    assert_eq!(
        get(&running.url(&format!("/schemas/ids/{id1}/subjects"))).json(),
        json!(["orders-value", "payments-value"])
    );
    assert_eq!(
        get(&running.url(&format!("/schemas/ids/{id1}/versions"))).json(),
        json!([{"subject": "orders-value", "version": 1}, {"subject": "payments-value", "version": 1}])
    );
    for path in [
        "/schemas/ids/999",
        "/schemas/ids/999/schema",
        "/schemas/ids/999/subjects",
        "/schemas/ids/x",
        "/schemas/ids/0/versions",
    ] {
        let reply = get(&running.url(path));
        assert_eq!((reply.status, reply.code()), (404, 40403), "{path}");
    }
    let mut types = vec!["JSON"];
    if cfg!(feature = "proto-text") {
        types.push("PROTOBUF");
    }
    if cfg!(feature = "avro") {
        types.push("AVRO");
    }
    assert_eq!(get(&running.url("/schemas/types")).json(), json!(types));
}

#[test]
fn lookup_finds_the_version_holding_a_schema() {
    let running = start();
    register(&running, "orders-value", V1);
    register(&running, "orders-value", V2);
    let found = post(
        &running,
        "/subjects/orders-value?normalize=False&deleted=False",
        &json_schema(V1),
    );
    assert_eq!(found.status, 200, "{}", found.text());
    assert_eq!(found.json()["version"], 1);
    assert_eq!(found.json()["subject"], "orders-value");
    assert_eq!(found.json()["schema"], V1_CANONICAL);
    let unknown_schema = post(&running, "/subjects/orders-value", &json_schema(NARROWED));
    assert_eq!((unknown_schema.status, unknown_schema.code()), (404, 40403));
    let unknown_subject = post(&running, "/subjects/nothing", &json_schema(V1));
    assert_eq!(
        (unknown_subject.status, unknown_subject.code()),
        (404, 40401)
    );
}

#[test]
fn compatibility_tests_store_nothing() {
    let running = start();
    let empty = post(
        &running,
        "/compatibility/subjects/orders-value/versions/latest",
        &json_schema(V1),
    );
    assert_eq!(
        empty.json(),
        json!({"is_compatible": true}),
        "no versions: compatible"
    );
    register(&running, "orders-value", V1);
    let fine = post(
        &running,
        "/compatibility/subjects/orders-value/versions/latest?verbose=False",
        &json_schema(V2),
    );
    assert_eq!(fine.json(), json!({"is_compatible": true}));
    let broken = post(
        &running,
        "/compatibility/subjects/orders-value/versions/1?verbose=True",
        &json_schema(NARROWED),
    );
    let body = broken.json();
    assert_eq!(body["is_compatible"], false, "{body}");
    let messages = body["messages"].as_array().unwrap();
    assert!(!messages.is_empty());
    assert!(messages[0].as_str().unwrap().contains("[v1]"), "{body}");
    let all = post(
        &running,
        "/compatibility/subjects/orders-value/versions?verbose=true",
        &json_schema(NARROWED),
    );
    assert_eq!(all.json()["is_compatible"], false);
    let missing = post(
        &running,
        "/compatibility/subjects/orders-value/versions/5",
        &json_schema(V2),
    );
    assert_eq!((missing.status, missing.code()), (404, 40402));
    let no_subject = post(
        &running,
        "/compatibility/subjects/nothing/versions/1",
        &json_schema(V2),
    );
    // As Confluent: a version the subject lacks, on an empty subject too.
    assert_eq!(no_subject.code(), 40402);
    let bad = post(
        &running,
        "/compatibility/subjects/orders-value/versions/zero",
        &json_schema(V2),
    );
    assert_eq!(bad.code(), 42202);
    assert_eq!(running.registry.list().unwrap().len(), 1);
}

#[test]
fn incompatible_registers_are_409_with_40901() {
    let running = start();
    register(&running, "orders-value", V1);
    let refused = register(&running, "orders-value", NARROWED);
    assert_eq!(
        (refused.status, refused.code()),
        (409, 40901),
        "{}",
        refused.text()
    );
    assert!(refused.json()["message"].as_str().unwrap().contains("[v1]"));
    // Under NONE it goes in.
    let set = confluent(
        "PUT",
        &running.url("/config/orders-value"),
        &json!({"compatibility": "NONE"}),
    );
    assert_eq!(set.json(), json!({"compatibility": "NONE"}));
    assert_eq!(
        register(&running, "orders-value", NARROWED).json()["version"],
        2
    );
}

#[test]
fn config_reads_and_writes() {
    let running = start();
    assert_eq!(
        get(&running.url("/config")).json(),
        json!({"compatibilityLevel": "BACKWARD"})
    );
    let set = confluent(
        "PUT",
        &running.url("/config"),
        &json!({"compatibility": "FULL_TRANSITIVE"}),
    );
    assert_eq!(set.json(), json!({"compatibility": "FULL_TRANSITIVE"}));
    assert_eq!(
        get(&running.url("/config")).json()["compatibilityLevel"],
        "FULL_TRANSITIVE"
    );
    assert_eq!(
        running
            .registry
            .config()
            .compatibility_in_effect("anything")
            .unwrap(),
        Compatibility::FullTransitive
    );

    let none = get(&running.url("/config/orders-value"));
    assert_eq!((none.status, none.code()), (404, 40408));
    let global = get(&running.url("/config/orders-value?defaultToGlobal=true"));
    assert_eq!(global.json()["compatibilityLevel"], "FULL_TRANSITIVE");
    confluent(
        "PUT",
        &running.url("/config/orders-value"),
        &json!({"compatibility": "forward"}),
    );
    assert_eq!(
        get(&running.url("/config/orders-value")).json()["compatibilityLevel"],
        "FORWARD"
    );
    let cleared = confluent("DELETE", &running.url("/config/orders-value"), &Value::Null);
    assert_eq!(cleared.json(), json!({"compatibilityLevel": "FORWARD"}));
    assert_eq!(get(&running.url("/config/orders-value")).code(), 40408);
    assert_eq!(
        confluent("DELETE", &running.url("/config/orders-value"), &Value::Null).code(),
        40408
    );

    for bad in [
        json!({"compatibility": "SIDEWAYS"}),
        json!({}),
        json!({"compatibility": null}),
    ] {
        let reply = confluent("PUT", &running.url("/config"), &bad);
        assert_eq!((reply.status, reply.code()), (422, 42203), "{bad}");
    }
    let bad_subject = confluent(
        "PUT",
        &running.url("/config/a%0Ab"),
        &json!({"compatibility": "NONE"}),
    );
    assert_eq!(bad_subject.code(), 42208);
}

#[test]
fn unsupported_schemas_and_bad_requests_are_clear_4xx() {
    let running = start();
    // Avro (no schemaType) is a schema like any other; one Avro cannot
    // read is refused, naming where and why.
    let avro = post(
        &running,
        "/subjects/orders-value/versions",
        &json!({"schema": "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"a\", \"type\": \"Nope\"}]}"}),
    );
    assert_eq!((avro.status, avro.code()), (422, 42201));
    assert!(avro.text().contains("/fields/0/type"), "{}", avro.text());
    // .proto text that does not compile (tests/server/confluent_protobuf.rs
    // registers the rest).
    let proto = post(
        &running,
        "/subjects/orders-value/versions",
        &json!({"schema": "syntax = \"proto3\"; message A { B b = 1; }", "schemaType": "PROTOBUF"}),
    );
    assert_eq!(proto.code(), 42201, "{}", proto.text());
    let references = post(
        &running,
        "/subjects/orders-value/versions",
        &json!({"schema": V1, "schemaType": "JSON", "references": [{"name": "a", "subject": "b", "version": 1}]}),
    );
    // A reference to a subject that holds nothing.
    assert_eq!(references.code(), 42201);
    let unusable = post(
        &running,
        "/subjects/orders-value/versions",
        &json_schema(r#"{"type": 12}"#),
    );
    assert_eq!(
        (unusable.status, unusable.code()),
        (422, 42201),
        "{}",
        unusable.text()
    );
    let not_json = post(
        &running,
        "/subjects/orders-value/versions",
        &json_schema("not json"),
    );
    assert_eq!(not_json.code(), 42201);
    let empty = post(
        &running,
        "/subjects/orders-value/versions",
        &json!({"schemaType": "JSON"}),
    );
    assert_eq!(empty.code(), 42201);

    for body in ["{", "[]", "", "{\"schema\": 5}"] {
        let reply = call(
            "POST",
            &running.url("/subjects/orders-value/versions"),
            &[
                ("Authorization", &bearer()),
                ("Content-Type", "application/vnd.schemaregistry.v1+json"),
            ],
            body.as_bytes(),
        );
        assert_eq!(
            (reply.status, reply.code()),
            (400, 400),
            "{body:?}: {}",
            reply.text()
        );
    }

    // A control character, and a subject too long once written as a URN
    // name, are no subjects.
    let long_upper = "A".repeat(150);
    for subject in ["a%0Ab", "%7F", long_upper.as_str()] {
        let reply = register(&running, subject, V1);
        assert_eq!(
            (reply.status, reply.code()),
            (422, 42208),
            "{subject}: {}",
            reply.text()
        );
        assert!(reply.text().contains("invalid subject"), "{}", reply.text());
        assert_eq!(
            get(&running.url(&format!("/subjects/{subject}/versions"))).code(),
            42208
        );
    }
    let long = "a".repeat(201);
    assert_eq!(register(&running, &long, V1).code(), 42208);

    for path in [
        "/subjects/orders-value",
        "/subjects/orders-value/versions/1",
        "/subjects/orders-value/versions/latest",
    ] {
        let reply = confluent("DELETE", &running.url(path), &Value::Null);
        assert_eq!((reply.status, reply.code()), (404, 40401), "{path}");
        let permanent = confluent(
            "DELETE",
            &running.url(&format!("{path}?permanent=true")),
            &Value::Null,
        );
        assert_eq!((permanent.status, permanent.code()), (422, 42205), "{path}");
        assert!(
            permanent.text().contains("permanent delete is refused"),
            "{}",
            permanent.text()
        );
    }
    assert!(running.registry.list().unwrap().is_empty());
}

/// A store whose database is down.
struct Down;

fn down() -> Error {
    Error::Store {
        source: "connection refused".into(),
    }
}

impl Store for Down {
    fn get(&self, _: &Urn) -> Result<Option<Schema>, Error> {
        Err(down())
    }
    fn publish(&self, _: &Schema, _: Version, _: Check<'_>) -> Result<Stored, Error> {
        Err(down())
    }
    fn versions(&self, _: &str, _: &str) -> Result<Vec<u32>, Error> {
        Err(down())
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        Err(down())
    }
    fn id_of(&self, _: &Urn) -> Result<Option<SchemaId>, Error> {
        Err(down())
    }
    fn urns_of(&self, _: SchemaId) -> Result<Vec<Urn>, Error> {
        Err(down())
    }
    fn compatibility(&self, _: Option<&str>) -> Result<Option<Compatibility>, Error> {
        Err(down())
    }
    fn set_compatibility(&self, _: Option<&str>, _: Option<Compatibility>) -> Result<(), Error> {
        Err(down())
    }
}

#[test]
fn store_failures_are_50001_never_not_found() {
    let running = start_on(Down, config());
    for reply in [
        get(&running.url("/subjects")),
        get(&running.url("/subjects/orders-value/versions")),
        get(&running.url("/subjects/orders-value/versions/1")),
        get(&running.url("/schemas/ids/1")),
        get(&running.url("/config")),
        register(&running, "orders-value", V1),
        post(&running, "/subjects/orders-value", &json_schema(V1)),
    ] {
        assert_eq!(
            (reply.status, reply.code()),
            (500, 50001),
            "{}",
            reply.text()
        );
        // The cause (the driver's text) is the log's, not the client's.
        assert!(
            reply.text().contains("schema store failed"),
            "{}",
            reply.text()
        );
        assert!(
            !reply.text().contains("connection refused"),
            "{}",
            reply.text()
        );
    }
    let native = get(&running.url("/schemas/urn:acme:schema:x:1"));
    assert_eq!(native.status, 500);
    assert_eq!(native.json()["error"], "store");
    assert!(
        !native.text().contains("connection refused"),
        "{}",
        native.text()
    );
}

#[test]
fn requests_in_either_content_type_and_any_accept_are_served() {
    let running = start();
    let body = json_schema(V1).to_string();
    for (content_type, accept) in [
        ("application/vnd.schemaregistry.v1+json", "*/*"),
        (
            "application/vnd.schemaregistry+json",
            "application/vnd.schemaregistry.v1+json",
        ),
        ("application/json", "application/json"),
        (
            "application/octet-stream",
            "application/vnd.schemaregistry.v1+json, application/json",
        ),
    ] {
        let reply = call(
            "POST",
            &running.url("/subjects/orders-value/versions"),
            &[
                ("Content-Type", content_type),
                ("Accept", accept),
                ("Authorization", &bearer()),
            ],
            body.as_bytes(),
        );
        assert_eq!(reply.status, 200, "{content_type}: {}", reply.text());
        assert_eq!(reply.json()["version"], 1);
        assert_eq!(
            reply.header("content-type"),
            Some("application/vnd.schemaregistry.v1+json")
        );
    }
}

/// Avro through the Confluent API: `schemaType` absent (Confluent's
/// default) or `AVRO`; register, read by id, lookup, compatibility with
/// Java's kinds in the messages.
#[cfg(feature = "avro")]
#[test]
fn avro_schemas_register_lookup_and_check() {
    const A1: &str =
        r#"{"type":"record","name":"Payment","fields":[{"name":"id","type":"string"}]}"#;
    const A2: &str = r#"{"type":"record","name":"Payment","fields":[{"name":"id","type":"string"},{"name":"n","type":"int","default":0}]}"#;
    const A3: &str = r#"{"type":"record","name":"Payment","fields":[{"name":"id","type":"string"},{"name":"m","type":"int"}]}"#;
    let running = start();
    let first = post(
        &running,
        "/subjects/payments-value/versions",
        &json!({"schema": A1}),
    );
    assert_eq!(first.status, 200, "{}", first.text());
    let id = first.json()["id"].as_u64().unwrap();
    let mut by_id = get(&running.url(&format!("/schemas/ids/{id}"))).json();
    // The content's guid (tests/server/confluent_contracts.rs).
    assert!(by_id.as_object_mut().unwrap().remove("guid").is_some());
    assert_eq!(by_id, json!({"schemaType": "AVRO", "schema": A1}));
    let again = post(
        &running,
        "/subjects/payments-value/versions",
        &json!({"schema": A1, "schemaType": "AVRO"}),
    );
    assert_eq!(again.json()["id"].as_u64(), Some(id));
    let found = post(&running, "/subjects/payments-value", &json!({"schema": A1}));
    assert_eq!(found.status, 200, "{}", found.text());
    assert_eq!(found.json()["version"], 1);
    let fine = post(
        &running,
        "/compatibility/subjects/payments-value/versions/latest",
        &json!({"schema": A2}),
    );
    assert_eq!(fine.json(), json!({"is_compatible": true}));
    let broken = post(
        &running,
        "/compatibility/subjects/payments-value/versions/latest?verbose=true",
        &json!({"schema": A3}),
    );
    let body = broken.json();
    assert_eq!(body["is_compatible"], false, "{body}");
    let message = body["messages"][0].as_str().unwrap();
    assert!(
        message.contains("READER_FIELD_MISSING_DEFAULT_VALUE") && message.contains("/fields/1"),
        "{body}"
    );
    let refused = post(
        &running,
        "/subjects/payments-value/versions",
        &json!({"schema": A3}),
    );
    assert_eq!(
        (refused.status, refused.code()),
        (409, 40901),
        "{}",
        refused.text()
    );
}
