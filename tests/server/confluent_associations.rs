//! Confluent's Associations API (issue 44, item 10): `/associations/...`
//! against a real server, with Confluent's validation and error codes
//! (read in its source at v8.2.0: `AssociationsResource.java`,
//! `KafkaSchemaRegistry.java`, `Errors.java`; cited in
//! `src/server/confluent/associations.rs`).
#![cfg(feature = "server")]

use crate::server;

use serde_json::{json, Value};
use server::*;

const SCHEMA: &str = r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#;

fn send(running: &Running, method: &str, path: &str, body: &Value) -> Reply {
    confluent(method, &running.url(path), body)
}

fn register(running: &Running, subject: &str) {
    let reply = send(
        running,
        "POST",
        &format!("/subjects/{subject}/versions"),
        &json!({"schema": SCHEMA, "schemaType": "JSON"}),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
}

/// A create request for `topic` (namespace `lkc-1`, id `id`).
fn request(id: &str, topic: &str, associations: Value) -> Value {
    json!({
        "resourceName": topic,
        "resourceNamespace": "lkc-1",
        "resourceId": id,
        "resourceType": "topic",
        "associations": associations,
    })
}

fn expect(reply: &Reply, status: u16, code: i64) {
    assert_eq!(
        (reply.status, reply.code()),
        (status, code),
        "{}",
        reply.text()
    );
}

fn read(running: &Running, path: &str) -> Vec<Value> {
    let reply = send(running, "GET", path, &Value::Null);
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json().as_array().unwrap().clone()
}

/// Created, read back by subject, resource id, name in a namespace (or
/// any, `-`), every resource of a namespace (name `-`), filtered and
/// paged; deleted (204), then 40410; a create again of the same is
/// idempotent (nothing written, no association answered).
#[test]
fn associations_are_created_read_and_deleted() {
    let running = start();
    register(&running, "orders-key");
    register(&running, "orders-value");
    let created = send(
        &running,
        "POST",
        "/associations",
        &request(
            "lkc-1:orders",
            "orders",
            json!([
                {"subject": "orders-key", "associationType": "key", "lifecycle": "WEAK"},
                {"subject": "orders-value", "associationType": "value", "lifecycle": "STRONG"}
            ]),
        ),
    );
    assert_eq!(created.status, 200, "{}", created.text());
    let created = created.json();
    assert_eq!(created["resourceName"], "orders");
    assert_eq!(created["resourceNamespace"], "lkc-1");
    assert_eq!(created["resourceId"], "lkc-1:orders");
    assert_eq!(created["resourceType"], "topic");
    assert_eq!(created["associations"][0]["associationType"], "key");
    assert_eq!(created["associations"][0]["lifecycle"], "WEAK");
    assert_eq!(created["associations"][1]["subject"], "orders-value");
    assert_eq!(created["associations"][1]["lifecycle"], "STRONG");
    assert_eq!(created["associations"][1]["frozen"], false);

    let by_subject = read(&running, "/associations/subjects/orders-value");
    assert_eq!(by_subject.len(), 1);
    let value = &by_subject[0];
    assert_eq!(value["resourceId"], "lkc-1:orders");
    assert_eq!(value["associationType"], "value");
    let guid = value["guid"].as_str().unwrap();
    assert_eq!(guid.len(), 36, "{guid}");

    let by_id = read(&running, "/associations/resources/lkc-1:orders");
    assert_eq!(by_id.len(), 2);
    assert_eq!(by_id[0]["associationType"], "key", "Confluent's order");
    for path in [
        "/associations/resources/lkc-1/orders",
        "/associations/resources/-/orders",
        "/associations/resources/lkc-1/-",
    ] {
        assert_eq!(read(&running, path), by_id, "{path}");
    }
    assert_eq!(
        read(&running, "/associations/resources/lkc-2/orders"),
        Vec::<Value>::new()
    );
    // The same lookup by query, as Confluent's Rust client sends it
    // (not a route of Confluent's): a missing namespace is any.
    for path in [
        "/associations?resourceName=orders&resourceNamespace=lkc-1",
        "/associations?resourceName=orders&resourceNamespace=-&limit=-1",
        "/associations?resourceName=orders",
        "/associations?resourceName=-&resourceNamespace=lkc-1",
    ] {
        assert_eq!(read(&running, path), by_id, "{path}");
    }
    assert_eq!(
        read(
            &running,
            "/associations?resourceName=orders&resourceNamespace=lkc-1&resourceType=topic&associationType=value"
        )[0]["subject"],
        "orders-value"
    );
    let unnamed = send(
        &running,
        "GET",
        "/associations?resourceNamespace=lkc-1",
        &Value::Null,
    );
    assert_eq!(unnamed.status, 400, "{}", unnamed.text());
    assert!(
        unnamed.text().contains("resourceName"),
        "{}",
        unnamed.text()
    );
    assert_eq!(
        read(
            &running,
            "/associations/resources/lkc-1:orders?associationType=value"
        )[0]["subject"],
        "orders-value"
    );
    assert_eq!(
        read(
            &running,
            "/associations/resources/lkc-1:orders?lifecycle=WEAK"
        )
        .len(),
        1
    );
    assert_eq!(
        read(
            &running,
            "/associations/resources/lkc-1:orders?offset=1&limit=1"
        )[0]["associationType"],
        "value"
    );
    assert_eq!(
        read(
            &running,
            "/associations/resources/lkc-1:orders?resourceType=table"
        ),
        Vec::<Value>::new()
    );
    assert_eq!(
        read(&running, "/associations/subjects/nobody"),
        Vec::<Value>::new()
    );

    // The same create again changes nothing and answers no association.
    let again = send(
        &running,
        "POST",
        "/associations",
        &request(
            "lkc-1:orders",
            "orders",
            json!([{"subject": "orders-value", "associationType": "value"}]),
        ),
    );
    assert_eq!(again.status, 200, "{}", again.text());
    assert!(
        again.json().get("associations").is_none(),
        "{}",
        again.text()
    );
    assert_eq!(
        read(&running, "/associations/subjects/orders-value")[0]["guid"],
        guid
    );

    let deleted = send(
        &running,
        "DELETE",
        "/associations/resources/lkc-1:orders?associationType=key",
        &Value::Null,
    );
    assert_eq!(deleted.status, 204, "{}", deleted.text());
    assert_eq!(
        read(&running, "/associations/subjects/orders-key"),
        Vec::<Value>::new()
    );
    let deleted = send(
        &running,
        "DELETE",
        "/associations/resources/lkc-1:orders",
        &Value::Null,
    );
    assert_eq!(deleted.status, 204, "{}", deleted.text());
    let none = send(
        &running,
        "DELETE",
        "/associations/resources/lkc-1:orders",
        &Value::Null,
    );
    expect(&none, 404, 40410);
    assert_eq!(
        read(&running, "/associations/resources/lkc-1:orders"),
        Vec::<Value>::new()
    );
}

/// A create carrying a schema registers it in the subject (a new subject
/// here) and answers it; a frozen association needs one, on a subject
/// without versions; a dry run registers and writes nothing.
#[test]
fn a_schema_sent_with_an_association_is_registered() {
    let running = start();
    let dry = send(
        &running,
        "POST",
        "/associations?dryRun=true",
        &json!({
            "resourceName": "payments",
            "resourceNamespace": "lkc-1",
            "associations": [{"subject": "payments-value", "lifecycle": "STRONG",
                              "frozen": true, "schema": {"schema": SCHEMA, "schemaType": "JSON"}}]
        }),
    );
    assert_eq!(dry.status, 200, "{}", dry.text());
    assert!(dry.json().get("associations").is_none(), "{}", dry.text());
    assert!(dry.json().get("resourceId").is_none(), "{}", dry.text());
    let versions = send(
        &running,
        "GET",
        "/subjects/payments-value/versions",
        &Value::Null,
    );
    assert_eq!(versions.status, 404, "the dry run registered nothing");

    let created = send(
        &running,
        "POST",
        "/associations",
        &request(
            "lkc-1:payments",
            "payments",
            json!([{"subject": "payments-value", "lifecycle": "STRONG", "frozen": true,
                    "schema": {"schema": SCHEMA, "schemaType": "JSON"}}]),
        ),
    );
    assert_eq!(created.status, 200, "{}", created.text());
    let info = &created.json()["associations"][0];
    assert_eq!(info["associationType"], "value", "the default type");
    assert_eq!(info["frozen"], true);
    assert_eq!(info["schema"]["subject"], "payments-value");
    assert_eq!(info["schema"]["version"], 1);
    assert!(info["schema"]["id"].as_u64().unwrap() > 0);
    let versions = send(
        &running,
        "GET",
        "/subjects/payments-value/versions",
        &Value::Null,
    );
    assert_eq!(versions.json(), json!([1]));

    // Frozen: not changed (40908), not deleted without cascadeLifecycle.
    let upsert = send(
        &running,
        "PUT",
        "/associations/resources/lkc-1:payments",
        &json!({"resourceName": "payments", "resourceNamespace": "lkc-1",
                "associations": [{"subject": "payments-value", "lifecycle": "WEAK"}]}),
    );
    expect(&upsert, 409, 40908);
    let delete = send(
        &running,
        "DELETE",
        "/associations/resources/lkc-1:payments",
        &Value::Null,
    );
    expect(&delete, 409, 40908);
    // With cascadeLifecycle, the strong association's subject goes too:
    // soft-deleted here (its schema kept, resolvable by id).
    let cascade = send(
        &running,
        "DELETE",
        "/associations/resources/lkc-1:payments?cascadeLifecycle=true",
        &Value::Null,
    );
    assert_eq!(cascade.status, 204, "{}", cascade.text());
    let gone = send(
        &running,
        "GET",
        "/subjects/payments-value/versions",
        &Value::Null,
    );
    assert_eq!(gone.status, 404, "{}", gone.text());
    let id = info["schema"]["id"].as_u64().unwrap();
    let by_id = send(&running, "GET", &format!("/schemas/ids/{id}"), &Value::Null);
    assert_eq!(by_id.status, 200, "{}", by_id.text());

    // A frozen association without a schema, or onto a subject holding
    // versions: 42212.
    register(&running, "held-value");
    for (subject, schema) in [
        ("new-value", Value::Null),
        (
            "held-value",
            json!({"schema": SCHEMA, "schemaType": "JSON"}),
        ),
    ] {
        let mut info = json!({"subject": subject, "lifecycle": "STRONG", "frozen": true});
        if !schema.is_null() {
            info["schema"] = schema;
        }
        let refused = send(
            &running,
            "POST",
            "/associations",
            &request("lkc-1:frozen", "frozen", json!([info])),
        );
        expect(&refused, 422, 42212);
    }
}

/// Confluent's codes: 42212 for each invalid property, 40907 for a
/// subject with no live version, 40903 for another association of the
/// type, 40904 for a strong association onto an associated subject,
/// 40905 for a weak one onto a subject with a strong one, 42212 for a
/// subject changed by an update; and the subject deletes they guard.
#[test]
fn refusals_carry_confluents_codes() {
    let running = start();
    register(&running, "a-value");
    register(&running, "b-value");
    register(&running, "c-value");
    let one = |subject: &str, extra: Value| {
        let mut info = json!({"subject": subject});
        for (k, v) in extra.as_object().unwrap() {
            info[k] = v.clone();
        }
        info
    };
    let invalid = [
        json!({"resourceName": "a.b", "resourceNamespace": "lkc-1", "resourceId": "x",
               "associations": [one("a-value", json!({}))]}),
        json!({"resourceName": "a", "resourceNamespace": "lkc 1", "resourceId": "x",
               "associations": [one("a-value", json!({}))]}),
        json!({"resourceName": "a", "resourceNamespace": "lkc-1",
               "associations": [one("a-value", json!({}))]}),
        json!({"resourceName": "a", "resourceNamespace": "lkc-1", "resourceId": "x",
               "resourceType": "table", "associations": [one("a-value", json!({}))]}),
        request(
            "x",
            "a",
            json!([one("a-value", json!({"associationType": "both"}))]),
        ),
        request(
            "x",
            "a",
            json!([one("a-value", json!({"lifecycle": "WEAK", "frozen": true}))]),
        ),
        request(
            "x",
            "a",
            json!([one("a-value", json!({"lifecycle": "MEDIUM"}))]),
        ),
        request("x", "a", json!([one("", json!({}))])),
        request(
            "x",
            "a",
            json!([
                one("a-value", json!({})),
                one("b-value", json!({"associationType": "value"}))
            ]),
        ),
        request(&"r".repeat(257), "a", json!([one("a-value", json!({}))])),
        request("x", &"n".repeat(257), json!([one("a-value", json!({}))])),
    ];
    for body in &invalid {
        let reply = send(&running, "POST", "/associations", body);
        expect(&reply, 422, 42212);
        assert!(
            reply.json()["message"]
                .as_str()
                .unwrap()
                .starts_with("The association specified an invalid value for property: '"),
            "{}",
            reply.text()
        );
    }
    let no_version = send(
        &running,
        "POST",
        "/associations",
        &request("x", "a", json!([one("never-registered", json!({}))])),
    );
    expect(&no_version, 409, 40907);

    let strong = request(
        "t1",
        "t1",
        json!([one("a-value", json!({"lifecycle": "STRONG"}))]),
    );
    assert_eq!(send(&running, "POST", "/associations", &strong).status, 200);
    let other = send(
        &running,
        "POST",
        "/associations",
        &request("t1", "t1", json!([one("b-value", json!({}))])),
    );
    expect(&other, 409, 40903);
    let shared_strong = send(
        &running,
        "POST",
        "/associations",
        &request(
            "t2",
            "t2",
            json!([one("a-value", json!({"lifecycle": "STRONG"}))]),
        ),
    );
    expect(&shared_strong, 409, 40904);
    let weak_onto_strong = send(
        &running,
        "POST",
        "/associations",
        &request(
            "t2",
            "t2",
            json!([one("a-value", json!({"lifecycle": "WEAK"}))]),
        ),
    );
    expect(&weak_onto_strong, 409, 40905);
    let moved = send(
        &running,
        "PUT",
        "/associations/resources/t1",
        &request("t1", "t1", json!([one("b-value", json!({}))])),
    );
    expect(&moved, 422, 42212);
    let mismatch = send(
        &running,
        "PUT",
        "/associations/resources/t9",
        &request("t1", "t1", json!([one("b-value", json!({}))])),
    );
    expect(&mismatch, 422, 42212);
    // An update of lifecycle is taken (not frozen), and keeps the guid.
    let guid = read(&running, "/associations/resources/t1")[0]["guid"].clone();
    let weaker = send(
        &running,
        "PUT",
        "/associations/resources/t1",
        &request(
            "t1",
            "t1",
            json!([one("a-value", json!({"lifecycle": "WEAK"}))]),
        ),
    );
    assert_eq!(weaker.status, 200, "{}", weaker.text());
    let now = read(&running, "/associations/resources/t1");
    assert_eq!(
        (now[0]["lifecycle"].clone(), now[0]["guid"].clone()),
        (json!("WEAK"), guid)
    );
    // Two weak associations may share a subject.
    let shared_weak = send(
        &running,
        "POST",
        "/associations",
        &request(
            "t2",
            "t2",
            json!([one("a-value", json!({"lifecycle": "WEAK"}))]),
        ),
    );
    assert_eq!(shared_weak.status, 200, "{}", shared_weak.text());

    // The subject's deletes: refused while associated.
    let whole = send(&running, "DELETE", "/subjects/a-value", &Value::Null);
    expect(&whole, 409, 40904);
    let last = send(
        &running,
        "DELETE",
        "/subjects/a-value/versions/1",
        &Value::Null,
    );
    expect(&last, 409, 40907);
    let free = send(&running, "DELETE", "/subjects/c-value", &Value::Null);
    assert_eq!(free.status, 200, "{}", free.text());
}

/// `POST /associations:batch`: each request's operations in turn, each
/// request answered apart (its associations after, or its refusal);
/// more than 100 operations is 42212.
#[test]
fn a_batch_answers_each_request() {
    let running = start();
    register(&running, "k");
    register(&running, "v");
    let batch = json!({"requests": [
        {"resourceName": "t", "resourceNamespace": "lkc-1", "resourceId": "t",
         "associations": [
             {"opType": "CREATE", "subject": "k", "associationType": "key"},
             {"opType": "UPSERT", "subject": "v", "associationType": "value", "lifecycle": "STRONG"},
             {"opType": "DELETE", "associationType": "key"}
         ]},
        {"resourceName": "u", "resourceNamespace": "lkc-1", "resourceId": "u",
         "associations": [{"opType": "CREATE", "subject": "nothing-here"}]},
        {"resourceName": "w", "resourceNamespace": "lkc-1", "resourceId": "w",
         "associations": [{"opType": "RENAME", "subject": "k"}]}
    ]});
    let reply = send(&running, "POST", "/associations:batch", &batch);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let results = reply.json()["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 3);
    let first = &results[0]["result"];
    assert_eq!(first["resourceId"], "t");
    assert_eq!(
        first["associations"].as_array().unwrap().len(),
        1,
        "{first}"
    );
    assert_eq!(first["associations"][0]["subject"], "v");
    assert_eq!(results[1]["error"]["error_code"], 40907);
    assert_eq!(results[2]["error"]["error_code"], 42212);

    let many: Vec<Value> = (0..101)
        .map(|i| json!({"opType": "DELETE", "associationType": if i % 2 == 0 {"key"} else {"value"}}))
        .collect();
    let too_many = send(
        &running,
        "POST",
        "/associations:batch",
        &json!({"requests": [{"resourceName": "t", "resourceNamespace": "lkc-1",
                              "resourceId": "t", "associations": many}]}),
    );
    expect(&too_many, 422, 42212);
}

/// Writes need the credential (401 without); a read-only server answers
/// them 42205 and still serves the reads; a body over the cap is 413.
#[test]
fn writes_are_guarded_and_bounded() {
    let running = start();
    let body = request("x", "a", json!([{"subject": "s"}]));
    let anonymous = call(
        "POST",
        &running.url("/associations"),
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(anonymous.status, 401, "{}", anonymous.text());
    let anonymous_delete = call(
        "DELETE",
        &running.url("/associations/resources/x"),
        &[],
        b"",
    );
    assert_eq!(anonymous_delete.status, 401, "{}", anonymous_delete.text());
    let read_anonymously = get(&running.url("/associations/resources/x"));
    assert_eq!(read_anonymously.status, 200, "{}", read_anonymously.text());

    // A body over the server's cap (4 KiB here).
    let capped = start_with(config().with_max_body_bytes(4096), false);
    let huge = json!({"resourceName": "a", "resourceNamespace": "b", "resourceId": "c",
                      "associations": [{"subject": "x".repeat(10_000)}]});
    let reply = send(&capped, "POST", "/associations", &huge);
    expect(&reply, 413, 42209);

    let read_only = start_with(config(), true);
    for (method, path) in [
        ("POST", "/associations"),
        ("POST", "/associations:batch"),
        ("PUT", "/associations/resources/x"),
        ("DELETE", "/associations/resources/x"),
    ] {
        let reply = send(&read_only, method, path, &body);
        expect(&reply, 422, 42205);
    }
    assert_eq!(
        send(&read_only, "GET", "/associations/subjects/s", &Value::Null).status,
        200
    );
}

/// Two servers over one PostgreSQL database (replicas): an association
/// created through one is read, and refused again, through the other.
#[cfg(feature = "postgres")]
#[test]
fn replicas_over_postgres_share_associations() {
    use crate::common::TestDatabase;
    use dataschema::store::PostgresStore;
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let one = start_on(PostgresStore::connect(&db.url).unwrap(), config());
    let two = start_on(PostgresStore::connect(&db.url).unwrap(), config());
    register(&one, "orders-value");
    let created = send(
        &one,
        "POST",
        "/associations",
        &request(
            "lkc-1:orders",
            "orders",
            json!([{"subject": "orders-value", "lifecycle": "STRONG"}]),
        ),
    );
    assert_eq!(created.status, 200, "{}", created.text());
    let seen = read(&two, "/associations/subjects/orders-value");
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["resourceId"], "lkc-1:orders");
    register(&two, "other-value");
    let other = send(
        &two,
        "POST",
        "/associations",
        &request(
            "lkc-1:orders",
            "orders",
            json!([{"subject": "other-value"}]),
        ),
    );
    expect(&other, 409, 40903);
    drop((one, two));
}
