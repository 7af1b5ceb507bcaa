//! The server as a drop-in for Confluent Schema Registry (issue 16): modes
//! and imported ids, any subject, canonical identity, soft deletes, and
//! the rest of the surface clients call. Each test names the problem of
//! the issue it holds the server to (each failed before the change).
#![cfg(feature = "server")]

use crate::server;

use dataschema::{MemoryStore, Registry, Urn};
use serde_json::{json, Value};
use server::*;

const V1: &str = r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#;
const V1_PRETTY: &str = "{\n  \"type\" : \"object\",\n  \"properties\" : {\n    \"id\" : {\"type\": \"string\"}\n  }\n}\n";
const V1_REORDERED: &str = r#"{"properties": {"id": {"type": "string"}}, "type": "object"}"#;
const V2: &str =
    r#"{"type": "object", "properties": {"id": {"type": "string"}}, "description": "v2"}"#;

fn body(schema: &str) -> Value {
    json!({"schema": schema, "schemaType": "JSON"})
}

fn send(running: &Running, method: &str, path: &str, body: &Value) -> Reply {
    confluent(method, &running.url(path), body)
}

fn register(running: &Running, subject: &str, schema: &str) -> Reply {
    send(
        running,
        "POST",
        &format!("/subjects/{subject}/versions"),
        &body(schema),
    )
}

fn set_mode(running: &Running, path: &str, mode: &str) -> Reply {
    send(running, "PUT", path, &json!({"mode": mode}))
}

/// Problem 1: an id sent at registration was silently replaced; there was
/// no `/mode`.
#[test]
fn ids_are_refused_outside_import_mode_and_kept_inside_it() {
    let running = start();
    assert_eq!(
        get(&running.url("/mode")).json(),
        json!({"mode": "READWRITE"})
    );
    let with_id = json!({"schema": V1, "schemaType": "JSON", "id": 1000, "version": 3});
    let refused = send(
        &running,
        "POST",
        "/subjects/orders-value/versions",
        &with_id,
    );
    assert_eq!(
        (refused.status, refused.code()),
        (422, 42205),
        "{}",
        refused.text()
    );
    assert!(
        refused.text().contains("not in import mode"),
        "{}",
        refused.text()
    );
    assert!(running.registry.list().unwrap().is_empty());

    let set = set_mode(&running, "/mode", "IMPORT");
    assert_eq!(set.json(), json!({"mode": "IMPORT"}), "{}", set.text());
    // Import mode takes only registrations that carry their id.
    let without = register(&running, "orders-value", V1);
    assert_eq!(without.code(), 42205, "{}", without.text());
    let kept = send(
        &running,
        "POST",
        "/subjects/orders-value/versions",
        &with_id,
    );
    assert_eq!(kept.status, 200, "{}", kept.text());
    assert_eq!(
        (kept.json()["id"].as_u64(), kept.json()["version"].as_u64()),
        (Some(1000), Some(3))
    );
    // Again: the same answer, nothing new.
    let again = send(
        &running,
        "POST",
        "/subjects/orders-value/versions",
        &with_id,
    );
    assert_eq!(again.json()["id"], 1000, "{}", again.text());
    // The id held by other bytes: refused, never reused.
    let taken = send(
        &running,
        "POST",
        "/subjects/payments-value/versions",
        &json!({"schema": V2, "schemaType": "JSON", "id": 1000, "version": 1}),
    );
    assert_eq!(
        (taken.status, taken.code()),
        (422, 42205),
        "{}",
        taken.text()
    );
    assert!(taken.text().contains("1000"), "{}", taken.text());
    // Under another subject, the same schema keeps its id.
    let shared = send(
        &running,
        "POST",
        "/subjects/payments-value/versions",
        &json!({"schema": V1, "schemaType": "JSON", "id": 1000, "version": 7}),
    );
    assert_eq!(shared.status, 200, "{}", shared.text());
    assert_eq!(shared.json()["version"], 7);

    assert_eq!(get(&running.url("/schemas/ids/1000")).status, 200);
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions/3")).json()["id"],
        1000
    );
    // Back to READWRITE: new schemas get ids the store never handed out,
    // above every imported one.
    assert_eq!(set_mode(&running, "/mode", "READWRITE").status, 200);
    let next = register(&running, "orders-value", V2);
    assert_eq!(next.status, 200, "{}", next.text());
    assert!(
        next.json()["id"].as_u64().unwrap() > 1000,
        "{}",
        next.text()
    );
    assert_eq!(next.json()["version"], 4);
}

#[test]
fn modes_per_subject_and_read_only_modes() {
    let running = start();
    assert_eq!(register(&running, "orders-value", V1).status, 200);
    assert_eq!(get(&running.url("/mode/orders-value")).code(), 40409);
    assert_eq!(
        get(&running.url("/mode/orders-value?defaultToGlobal=true")).json(),
        json!({"mode": "READWRITE"})
    );
    for mode in ["READONLY", "READONLY_OVERRIDE"] {
        assert_eq!(set_mode(&running, "/mode/orders-value", mode).status, 200);
        assert_eq!(
            get(&running.url("/mode/orders-value")).json(),
            json!({"mode": mode})
        );
        let refused = register(&running, "orders-value", V2);
        assert_eq!(refused.code(), 42205, "{}", refused.text());
        assert!(refused.text().contains("read-only"), "{}", refused.text());
        let delete = send(
            &running,
            "DELETE",
            "/subjects/orders-value/versions/1",
            &Value::Null,
        );
        assert_eq!(delete.code(), 42205, "{}", delete.text());
    }
    // Other subjects are not concerned.
    assert_eq!(register(&running, "payments-value", V2).status, 200);
    let cleared = send(&running, "DELETE", "/mode/orders-value", &Value::Null);
    assert_eq!(cleared.json(), json!({"mode": "READONLY_OVERRIDE"}));
    assert_eq!(register(&running, "orders-value", V2).status, 200);

    let invalid = set_mode(&running, "/mode", "WRITEONLY");
    assert_eq!((invalid.status, invalid.code()), (422, 42204));
    // IMPORT where subjects are held needs force=true, as in Confluent.
    let refused = set_mode(&running, "/mode", "IMPORT");
    assert_eq!(refused.code(), 42205, "{}", refused.text());
    assert_eq!(
        get(&running.url("/mode")).json(),
        json!({"mode": "READWRITE"})
    );
    assert_eq!(set_mode(&running, "/mode?force=true", "IMPORT").status, 200);
    assert_eq!(get(&running.url("/mode")).json(), json!({"mode": "IMPORT"}));
    // A mode change is a write: behind the credential.
    let anonymous = call(
        "PUT",
        &running.url("/mode"),
        &[("Content-Type", "application/json")],
        br#"{"mode": "READWRITE"}"#,
    );
    assert_eq!(anonymous.status, 401);
}

/// Problem 2: subjects had to be lowercase URN names.
#[test]
fn every_subject_confluent_accepts_works() {
    let running = start();
    let subjects = [
        ("Orders-value", "Orders-value", "x.._orders-value"),
        ("com.acme.Order", "com.acme.Order", "x..com.acme._order"),
        (
            "proto%2Forders.proto",
            "proto/orders.proto",
            "x..proto_-2forders.proto",
        ),
        (
            ":.staging:orders-value",
            ":.staging:orders-value",
            "x.._-3a.staging_-3aorders-value",
        ),
        ("orders_value", "orders_value", "orders_value"),
    ];
    for (path, subject, name) in subjects {
        let reply = register(&running, path, V1);
        assert_eq!(reply.status, 200, "{subject}: {}", reply.text());
        assert_eq!(reply.json()["subject"], subject);
        let read = get(&running.url(&format!("/subjects/{path}/versions/latest")));
        assert_eq!(read.status, 200, "{subject}: {}", read.text());
        assert_eq!(read.json()["subject"], subject);
        // The URN the native API and the lock name it by.
        let urn = Urn::new("acme", name, 1).unwrap();
        assert!(running.registry.resolve(&urn).is_ok(), "{urn}");
    }
    let mut listed: Vec<String> =
        serde_json::from_value(get(&running.url("/subjects")).json()).unwrap();
    listed.sort();
    let mut expected: Vec<String> = subjects.iter().map(|s| s.1.to_owned()).collect();
    expected.sort();
    assert_eq!(listed, expected);
    // A default-context qualification is the plain subject.
    assert_eq!(
        get(&running.url("/subjects/:.:Orders-value/versions/1")).json()["subject"],
        "Orders-value"
    );
    let contexts = get(&running.url("/contexts")).json();
    assert_eq!(contexts, json!([".", ".staging"]));
    // The id's subjects are subjects, not URN names.
    let id = get(&running.url("/subjects/Orders-value/versions/1")).json()["id"].clone();
    let of_id = get(&running.url(&format!("/schemas/ids/{id}/subjects"))).json();
    assert!(
        of_id.as_array().unwrap().contains(&json!("com.acme.Order")),
        "{of_id}"
    );
    // Config and modes take them too.
    let config = send(
        &running,
        "PUT",
        "/config/Orders-value",
        &json!({"compatibility": "NONE"}),
    );
    assert_eq!(config.status, 200, "{}", config.text());
    assert_eq!(
        get(&running.url("/config/Orders-value")).json()["compatibilityLevel"],
        "NONE"
    );
}

/// Problem 3: identity was byte-exact.
#[test]
fn identity_is_canonical() {
    let running = start();
    let first = register(&running, "orders-value", V1);
    let id = first.json()["id"].clone();
    let pretty = register(&running, "orders-value", V1_PRETTY);
    assert_eq!(pretty.status, 200, "{}", pretty.text());
    assert_eq!(
        (
            pretty.json()["id"].clone(),
            pretty.json()["version"].clone()
        ),
        (id.clone(), json!(1))
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions")).json(),
        json!([1])
    );
    // A producer with auto.register.schemas=false looks it up.
    let lookup = send(&running, "POST", "/subjects/orders-value", &body(V1_PRETTY));
    assert_eq!(lookup.status, 200, "{}", lookup.text());
    assert_eq!(lookup.json()["id"], id);
    // Under another subject, the same canonical form has the same id.
    assert_eq!(register(&running, "copy-value", V1_PRETTY).json()["id"], id);
    // Keys in another order are another schema. With normalize=true
    // too, as in Confluent: the sorted form is compared with the text
    // stored, which was registered without normalize (issue 44; its test
    // is tests/server/confluent_parity.rs).
    let lookup = send(
        &running,
        "POST",
        "/subjects/orders-value",
        &body(V1_REORDERED),
    );
    assert_eq!(lookup.code(), 40403);
    let normalized = send(
        &running,
        "POST",
        "/subjects/orders-value?normalize=true",
        &body(V1_REORDERED),
    );
    assert_eq!(normalized.code(), 40403, "{}", normalized.text());
    let registered = send(
        &running,
        "POST",
        "/subjects/orders-value/versions?normalize=true",
        &body(V1_REORDERED),
    );
    assert_eq!(registered.json()["version"], json!(2));
    assert_ne!(registered.json()["id"], id);
    // What a URN holds: the canonical form, for ever.
    let urn: Urn = "urn:acme:schema:orders-value:1".parse().unwrap();
    assert_eq!(
        running.registry.resolve(&urn).unwrap().bytes(),
        br#"{"type":"object","properties":{"id":{"type":"string"}}}"#
    );
}

/// Soft deletes, as Confluent clients expect them, without losing a
/// schema.
#[test]
fn soft_deletes_hide_and_never_lose() {
    let running = start();
    let id1 = register(&running, "orders-value", V1).json()["id"].clone();
    let id2 = register(&running, "orders-value", V2).json()["id"].clone();
    let deleted = send(
        &running,
        "DELETE",
        "/subjects/orders-value/versions/2",
        &Value::Null,
    );
    assert_eq!(deleted.json(), json!(2), "{}", deleted.text());
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions")).json(),
        json!([1])
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions/latest")).json()["version"],
        1
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions/2")).code(),
        40402
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions?deleted=true")).json(),
        json!([1, 2])
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions/2?deleted=true")).json()["id"],
        id2
    );
    // Resolvable by id and by URN for ever.
    assert_eq!(
        get(&running.url(&format!("/schemas/ids/{id2}"))).status,
        200
    );
    let urn: Urn = "urn:acme:schema:orders-value:2".parse().unwrap();
    assert!(running.registry.resolve(&urn).is_ok());
    assert_eq!(
        send(
            &running,
            "DELETE",
            "/subjects/orders-value/versions/2",
            &Value::Null
        )
        .code(),
        40406
    );
    // Re-registering it: a new version, the same id (as Confluent).
    let again = register(&running, "orders-value", V2);
    assert_eq!(
        (again.json()["id"].clone(), again.json()["version"].clone()),
        (id2, json!(3))
    );

    let subject = send(&running, "DELETE", "/subjects/orders-value", &Value::Null);
    assert_eq!(subject.json(), json!([1, 3]), "{}", subject.text());
    assert_eq!(get(&running.url("/subjects")).json(), json!([]));
    assert_eq!(
        get(&running.url("/subjects?deleted=true")).json(),
        json!(["orders-value"])
    );
    assert_eq!(
        get(&running.url("/subjects/orders-value/versions")).code(),
        40401
    );
    assert_eq!(
        send(&running, "DELETE", "/subjects/orders-value", &Value::Null).code(),
        40404
    );
    assert_eq!(
        get(&running.url(&format!("/schemas/ids/{id1}"))).status,
        200
    );
    let permanent = send(
        &running,
        "DELETE",
        "/subjects/orders-value?permanent=true",
        &Value::Null,
    );
    assert_eq!((permanent.status, permanent.code()), (422, 42205));
    assert!(
        permanent.text().contains("stored message"),
        "{}",
        permanent.text()
    );
    assert_eq!(running.registry.list().unwrap().len(), 3, "nothing is lost");
    // Problem 6: deleting what does not exist is 40401.
    assert_eq!(
        send(&running, "DELETE", "/subjects/nothing", &Value::Null).code(),
        40401
    );
}

/// Problem 6 and the rest of the surface.
#[test]
fn smaller_answers_as_confluent_gives_them() {
    let running = start();
    // DELETE /config on a writable server.
    assert_eq!(
        send(
            &running,
            "PUT",
            "/config",
            &json!({"compatibility": "FULL"})
        )
        .status,
        200
    );
    let cleared = send(&running, "DELETE", "/config", &Value::Null);
    assert_eq!(cleared.status, 200, "{}", cleared.text());
    assert_eq!(cleared.json(), json!({"compatibilityLevel": "FULL"}));
    assert_eq!(
        get(&running.url("/config")).json()["compatibilityLevel"],
        "BACKWARD"
    );
    // A compatibility test against a version of an empty subject: 40402.
    let empty = send(
        &running,
        "POST",
        "/compatibility/subjects/nothing/versions/1",
        &body(V1),
    );
    assert_eq!(empty.code(), 40402, "{}", empty.text());
    let latest = send(
        &running,
        "POST",
        "/compatibility/subjects/nothing/versions/latest",
        &body(V1),
    );
    assert_eq!(latest.json()["is_compatible"], true, "{}", latest.text());
    // Looking up an unparsable schema: 42201.
    assert_eq!(register(&running, "orders-value", V1).status, 200);
    for bad in ["not json", r#"{"type": "arrayy"}"#] {
        let lookup = send(&running, "POST", "/subjects/orders-value", &body(bad));
        assert_eq!(
            (lookup.status, lookup.code()),
            (422, 42201),
            "{bad}: {}",
            lookup.text()
        );
        assert!(
            lookup.text().contains("Invalid schema"),
            "{}",
            lookup.text()
        );
    }
    // GET /schemas: schema objects (the native list is GET /urns).
    let schemas = get(&running.url("/schemas")).json();
    assert_eq!(schemas.as_array().unwrap().len(), 1, "{schemas}");
    assert_eq!(schemas[0]["subject"], "orders-value");
    assert_eq!(schemas[0]["version"], 1);
    assert_eq!(schemas[0]["schemaType"], "JSON");
    assert_eq!(
        get(&running.url("/urns")).json(),
        json!(["urn:acme:schema:orders-value:1"])
    );
    assert_eq!(get(&running.url("/")).json(), json!({}));
    let id = get(&running.url("/v1/metadata/id")).json();
    assert_eq!(
        id["scope"]["clusters"]["schema-registry-cluster"], "acme",
        "{id}"
    );
    assert_eq!(get(&running.url("/contexts")).json(), json!(["."]));
    let mut types = vec!["JSON"];
    if cfg!(feature = "proto-text") {
        types.push("PROTOBUF");
    }
    if cfg!(feature = "avro") {
        types.push("AVRO");
    }
    assert_eq!(get(&running.url("/schemas/types")).json(), json!(types));
}

/// Modes and imported ids are kept by the store: the same store under a
/// new server answers them.
#[test]
fn a_new_server_over_the_store_keeps_modes_and_ids() {
    let store = std::sync::Arc::new(MemoryStore::new());
    let running = start_on(store.clone(), config());
    assert_eq!(set_mode(&running, "/mode", "IMPORT").status, 200);
    let imported = send(
        &running,
        "POST",
        "/subjects/orders-value/versions",
        &json!({"schema": V1, "schemaType": "JSON", "id": 77, "version": 5}),
    );
    assert_eq!(imported.status, 200, "{}", imported.text());
    running.stop();
    let registry = Registry::new(store);
    assert_eq!(
        registry.config().mode(None).unwrap(),
        Some(dataschema::store::Mode::Import)
    );
    let urn: Urn = "urn:acme:schema:orders-value:5".parse().unwrap();
    assert_eq!(registry.id_of(&urn).unwrap(), 77);
}
