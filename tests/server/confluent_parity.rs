//! Confluent parity, round 2 (issue 44): each test holds the server to one
//! behaviour read in Confluent's source (the file and release are named
//! in the server's code where the behaviour lives), and each failed before
//! the change that made it pass.
#![cfg(feature = "server")]

use crate::server;

use serde_json::{json, Value};
use server::*;

const V1: &str =
    r#"{"type": "object", "properties": {"id": {"type": "string"}, "amount": {"type": "number"}}}"#;
const V1_SORTED: &str =
    r#"{"properties":{"amount":{"type":"number"},"id":{"type":"string"}},"type":"object"}"#;

fn send(running: &Running, method: &str, path: &str, body: &Value) -> Reply {
    confluent(method, &running.url(path), body)
}

fn json_body(schema: &str) -> Value {
    json!({"schema": schema, "schemaType": "JSON"})
}

fn register(running: &Running, subject: &str, body: &Value) -> Reply {
    register_at(running, &format!("/subjects/{subject}/versions"), body)
}

fn register_at(running: &Running, path: &str, body: &Value) -> Reply {
    let reply = send(running, "POST", path, body);
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply
}

fn delete(running: &Running, path: &str) -> Reply {
    send(running, "DELETE", path, &Value::Null)
}

/// Item 1: `normalize=true` matches by the canonical text as stored, as
/// Confluent's `canLookup` does: a version registered without it, keys
/// unsorted, is no match for the sorted form; a register adds a version
/// with the sorted text and another id.
#[test]
fn normalize_matches_the_stored_canonical_text_only() {
    let running = start();
    let first = register(&running, "orders-value", &json_body(V1)).json();
    assert_eq!(first["version"], 1);
    // Without normalize, the same text: version 1.
    let lookup = send(&running, "POST", "/subjects/orders-value", &json_body(V1));
    assert_eq!(lookup.json()["id"], first["id"], "{}", lookup.text());
    // With normalize, the sorted form is not what version 1 holds.
    let normalized = send(
        &running,
        "POST",
        "/subjects/orders-value?normalize=true",
        &json_body(V1),
    );
    assert_eq!(
        (normalized.status, normalized.code()),
        (404, 40403),
        "{}",
        normalized.text()
    );
    let again = register_at(
        &running,
        "/subjects/orders-value/versions?normalize=true",
        &json_body(V1),
    )
    .json();
    assert_eq!(again["version"], 2, "a new version with the sorted text");
    assert_ne!(again["id"], first["id"], "another content, another id");
    assert_eq!(again["schema"], V1_SORTED);
    // Now normalize=true finds version 2, and the sorted text finds it
    // without normalize too.
    for path in [
        "/subjects/orders-value?normalize=true",
        "/subjects/orders-value",
    ] {
        let body = if path.ends_with("true") {
            json_body(V1)
        } else {
            json_body(V1_SORTED)
        };
        let found = send(&running, "POST", path, &body);
        assert_eq!(found.json()["version"], 2, "{path}: {}", found.text());
    }
    // Registering the sorted text with normalize again: version 2 still.
    let third = register_at(
        &running,
        "/subjects/orders-value/versions?normalize=true",
        &json_body(V1_SORTED),
    );
    assert_eq!(third.json()["version"], 2);
}

/// Item 1: with `normalize=true` references are sorted (subject, then
/// version) and each kept once, as Confluent's `normalize()` does.
#[test]
fn normalize_sorts_and_deduplicates_references() {
    let running = start();
    let leaf = r#"{"type": "string"}"#;
    register(&running, "b-ref", &json_body(leaf));
    register(&running, "a-ref", &json_body(r#"{"type": "integer"}"#));
    let schema =
        r#"{"type": "object", "properties": {"a": {"$ref": "a.json"}, "b": {"$ref": "b.json"}}}"#;
    let unordered = json!([
        {"name": "b.json", "subject": "b-ref", "version": 1},
        {"name": "a.json", "subject": "a-ref", "version": 1},
        {"name": "b.json", "subject": "b-ref", "version": 1},
    ]);
    let reply = register_at(
        &running,
        "/subjects/refs-value/versions?normalize=true",
        &json!({"schema": schema, "schemaType": "JSON", "references": unordered}),
    );
    assert_eq!(
        reply.json()["references"],
        json!([
            {"name": "a.json", "subject": "a-ref", "version": 1},
            {"name": "b.json", "subject": "b-ref", "version": 1},
        ]),
        "{}",
        reply.text()
    );
}

/// Item 2: a version of a subject whose every version is soft-deleted is
/// "subject not found" (40401) without `deleted=true`, as Confluent's
/// `getSchemaByVersion` answers; a version the subject does not have, with
/// live versions left, stays 40402.
#[test]
fn a_version_of_a_soft_deleted_subject_is_40401() {
    let running = start();
    register(&running, "gone-value", &json_body(V1));
    register(
        &running,
        "gone-value",
        &json_body(r#"{"type": "object", "description": "v2"}"#),
    );
    assert_eq!(
        get(&running.url("/subjects/gone-value/versions/9")).code(),
        40402
    );
    assert_eq!(delete(&running, "/subjects/gone-value").status, 200);
    for path in [
        "/subjects/gone-value/versions/1",
        "/subjects/gone-value/versions/2/schema",
        "/subjects/gone-value/versions/9",
        "/subjects/gone-value/versions/latest",
    ] {
        let reply = get(&running.url(path));
        assert_eq!(
            (reply.status, reply.code()),
            (404, 40401),
            "{path}: {}",
            reply.text()
        );
    }
    // Still readable with deleted=true.
    let deleted = get(&running.url("/subjects/gone-value/versions/1?deleted=true"));
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    // Deleting a version it never had: 40402 (the subject is held).
    assert_eq!(
        delete(&running, "/subjects/gone-value/versions/9").code(),
        40402
    );
}

/// Item 3: a (soft) delete of a version, or of a subject, that a live
/// schema's references name is refused with 42206, and nothing is
/// deleted; once the referrer is deleted, the delete goes through.
#[test]
fn deleting_what_a_live_schema_references_is_42206() {
    let running = start();
    register(&running, "money", &json_body(r#"{"type": "number"}"#));
    let referrer = register(
        &running,
        "order-value",
        &json!({
            "schema": r#"{"type": "object", "properties": {"total": {"$ref": "money.json"}}}"#,
            "schemaType": "JSON",
            "references": [{"name": "money.json", "subject": "money", "version": 1}],
        }),
    )
    .json();
    for path in ["/subjects/money/versions/1", "/subjects/money"] {
        let refused = delete(&running, path);
        assert_eq!(
            (refused.status, refused.code()),
            (422, 42206),
            "{path}: {}",
            refused.text()
        );
        assert!(refused.text().contains("order-value"), "{}", refused.text());
    }
    assert_eq!(
        get(&running.url("/subjects/money/versions")).json(),
        json!([1]),
        "nothing was deleted"
    );
    let referenced_by = get(&running.url("/subjects/money/versions/1/referencedby")).json();
    assert_eq!(referenced_by, json!([referrer["id"]]));
    // The referrer deleted, the reference is no longer live.
    assert_eq!(delete(&running, "/subjects/order-value").status, 200);
    assert_eq!(
        get(&running.url("/subjects/money/versions/1/referencedby")).json(),
        json!([])
    );
    assert_eq!(
        get(&running.url("/subjects/money/versions/1/referencedby?deleted=true")).json(),
        json!([referrer["id"]])
    );
    let deleted = delete(&running, "/subjects/money/versions/1");
    assert_eq!(deleted.json(), json!(1), "{}", deleted.text());
}

/// Item 3: a subject's own versions referencing each other do not stop
/// the subject's delete (Confluent sets the subject itself aside).
#[test]
fn a_subject_referencing_itself_deletes_whole() {
    let running = start();
    let none = send(
        &running,
        "PUT",
        "/config/self-value",
        &json!({"compatibility": "NONE"}),
    );
    assert_eq!(none.status, 200, "{}", none.text());
    register(&running, "self-value", &json_body(r#"{"type": "number"}"#));
    register(
        &running,
        "self-value",
        &json!({
            "schema": r#"{"type": "object", "properties": {"n": {"$ref": "n.json"}}}"#,
            "schemaType": "JSON",
            "references": [{"name": "n.json", "subject": "self-value", "version": 1}],
        }),
    );
    let deleted = delete(&running, "/subjects/self-value");
    assert_eq!(deleted.json(), json!([1, 2]), "{}", deleted.text());
}

/// Item 8: `GET /schemas/guids/{guid}/ids` (Confluent 8.0 on): the ids of a
/// content with their context, `[]` for a guid no content has.
#[test]
fn guid_ids_list_the_ids_of_a_content() {
    let running = start();
    let registered = register(&running, "orders-value", &json_body(V1)).json();
    let guid = registered["guid"].as_str().unwrap().to_owned();
    let ids = get(&running.url(&format!("/schemas/guids/{guid}/ids")));
    assert_eq!(ids.status, 200, "{}", ids.text());
    assert_eq!(
        ids.json(),
        json!([{"context": ".", "id": registered["id"]}])
    );
    for unknown in ["00000000-0000-0000-0000-000000000000", "not-a-guid"] {
        let none = get(&running.url(&format!("/schemas/guids/{unknown}/ids")));
        assert_eq!((none.status, none.json()), (200, json!([])), "{unknown}");
    }
}

/// Item 5: every route that answers a protobuf schema takes
/// `format=serialized` (base64 of its `FileDescriptorProto`), among them
/// `GET /subjects/{s}/metadata`, which Confluent's protobuf deserializer
/// asks with `use.latest.with.metadata`.
#[cfg(feature = "proto-text")]
#[test]
fn format_serialized_on_every_route_answering_a_protobuf_schema() {
    use base64::Engine as _;
    use prost::Message as _;
    use prost_reflect::prost_types::FileDescriptorProto;

    let running = start();
    let text = String::from_utf8(crate::common::read("proto/confluent/money.proto")).unwrap();
    let registered = register(
        &running,
        "money",
        &json!({"schemaType": "PROTOBUF", "schema": text,
                "metadata": {"properties": {"owner": "payments"}}}),
    )
    .json();
    let (id, guid) = (registered["id"].clone(), registered["guid"].clone());
    let guid = guid.as_str().unwrap();
    let check = |label: &str, schema: &str| {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(schema)
            .unwrap_or_else(|err| panic!("{label}: not base64 ({err}): {schema}"));
        let file = FileDescriptorProto::decode(bytes.as_slice()).expect(label);
        assert_eq!(file.package(), "acme.common.v1", "{label}");
    };
    let json_routes = [
        "/subjects/money/metadata?key=owner&value=payments&format=serialized".to_owned(),
        format!("/schemas/ids/{id}?format=serialized"),
        format!("/schemas/guids/{guid}?format=serialized"),
        "/subjects/money/versions/1?format=serialized".to_owned(),
        "/subjects/money/versions/latest?format=SERIALIZED".to_owned(),
    ];
    for path in &json_routes {
        let reply = get(&running.url(path));
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        if path.starts_with("/subjects") {
            assert_eq!(reply.json()["id"], id, "{path}");
        }
        check(path, reply.json()["schema"].as_str().unwrap());
    }
    for path in [
        format!("/schemas/ids/{id}/schema?format=serialized"),
        "/subjects/money/versions/1/schema?format=serialized".to_owned(),
    ] {
        let reply = get(&running.url(&path));
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        check(&path, &reply.text());
    }
    // The register and lookup answers too.
    let body = json!({"schemaType": "PROTOBUF", "schema": text,
                      "metadata": {"properties": {"owner": "payments"}}});
    for path in [
        "/subjects/money/versions?format=serialized",
        "/subjects/money?format=serialized",
    ] {
        let reply = send(&running, "POST", path, &body);
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        check(path, reply.json()["schema"].as_str().unwrap());
    }
    // Without the format: the text, as before.
    let plain = get(&running.url("/subjects/money/metadata?key=owner&value=payments")).json();
    assert_eq!(plain["schema"], text.as_str());
}

/// Item 4: IMPORT keeps every id it is given: a content already held under
/// one id is kept under the second id given too (Confluent's register in
/// IMPORT mode stores the id sent when the content's id differs,
/// `KafkaSchemaRegistry.register`); each id and each version resolves to
/// the same bytes, and a registration without an id finds the content's
/// first id (the server's own ids keep one content, one id).
#[test]
fn import_keeps_one_content_under_two_ids() {
    let running = start();
    let mode = send(&running, "PUT", "/mode", &json!({"mode": "IMPORT"}));
    assert_eq!(mode.status, 200, "{}", mode.text());
    let schema = r#"{"type": "string", "title": "twin"}"#;
    for (subject, id) in [("first-value", 1500), ("second-value", 1700)] {
        let reply = register(
            &running,
            subject,
            &json!({"schema": schema, "schemaType": "JSON", "id": id, "version": 1}),
        );
        assert_eq!(reply.json()["id"], id, "{}", reply.text());
    }
    // The same content under a third id, at the next version of a subject
    // that holds it under another: a new version.
    let third = register(
        &running,
        "first-value",
        &json!({"schema": schema, "schemaType": "JSON", "id": 1800}),
    )
    .json();
    assert_eq!(
        (third["id"].clone(), third["version"].clone()),
        (json!(1800), json!(2))
    );
    // An id held by other bytes is still refused.
    let moved = send(
        &running,
        "POST",
        "/subjects/third-value/versions",
        &json!({"schema": r#"{"type": "null"}"#, "schemaType": "JSON", "id": 1700, "version": 1}),
    );
    assert_eq!(
        (moved.status, moved.code()),
        (422, 42205),
        "{}",
        moved.text()
    );
    let text = get(&running.url("/schemas/ids/1500")).json()["schema"].clone();
    for id in [1500, 1700, 1800] {
        let read = get(&running.url(&format!("/schemas/ids/{id}")));
        assert_eq!(read.status, 200, "{id}: {}", read.text());
        assert_eq!(read.json()["schema"], text, "{id}");
    }
    for (path, id) in [
        ("/subjects/first-value/versions/1", 1500),
        ("/subjects/second-value/versions/1", 1700),
        ("/subjects/first-value/versions/2", 1800),
    ] {
        assert_eq!(get(&running.url(path)).json()["id"], id, "{path}");
    }
    assert_eq!(
        get(&running.url("/schemas/ids/1700/versions")).json(),
        json!([{"subject": "second-value", "version": 1}])
    );
    let guid = get(&running.url("/subjects/second-value/versions/1")).json()["guid"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        get(&running.url(&format!("/schemas/guids/{guid}/ids"))).json(),
        json!([
            {"context": ".", "id": 1500},
            {"context": ".", "id": 1700},
            {"context": ".", "id": 1800},
        ])
    );
    // Back to READWRITE: the content registered anew gets its first id.
    assert_eq!(
        send(&running, "PUT", "/mode", &json!({"mode": "READWRITE"})).status,
        200
    );
    let plain = register(
        &running,
        "plain-value",
        &json!({"schema": schema, "schemaType": "JSON"}),
    );
    assert_eq!(plain.json()["id"], 1500, "{}", plain.text());
}

const MYRECORD: &str =
    r#"{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string"}]}"#;

fn tag_request(path: &str, kind: &str, tags: &[&str]) -> Value {
    json!([{"schemaEntity": {"entityPath": path, "entityType": kind}, "tags": tags}])
}

/// Item 9: `POST /subjects/{s}/versions/{v}/tags` registers the version
/// with its tags edited, as Confluent's `modifySchemaTags` does (its
/// `RestApiRegisterSchemaTagsTest`, v8.2.0: the same schema texts).
#[test]
fn tags_register_a_new_version_with_the_schema_tags_edited() {
    let running = start();
    let avro = json!({"schema": MYRECORD, "schemaType": "AVRO"});
    let first = register(&running, "test", &avro).json();
    let added = send(
        &running,
        "POST",
        "/subjects/test/versions/latest/tags",
        &json!({"newVersion": 2, "tagsToAdd": tag_request("myrecord", "sr_record", &["TAG1", "TAG2"])}),
    );
    assert_eq!(added.status, 200, "{}", added.text());
    assert_ne!(added.json()["id"], first["id"]);
    let latest = send(
        &running,
        "GET",
        "/subjects/test/versions/latest",
        &Value::Null,
    )
    .json();
    assert_eq!(
        latest["schema"],
        r#"{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string"}],"confluent:tags":["TAG1","TAG2"]}"#
    );
    assert_eq!(latest["version"], 2);
    assert_eq!(latest["metadata"]["properties"]["confluent:version"], "2");

    // Without newVersion: the next version; TAG2 removed, a field tagged.
    let mut request = json!({
        "tagsToRemove": tag_request("myrecord", "sr_record", &["TAG2"]),
        "tagsToAdd": tag_request(".myrecord.f1", "sr_field", &["PII"]),
    });
    let removed = send(&running, "POST", "/subjects/test/versions/2/tags", &request);
    assert_eq!(removed.status, 200, "{}", removed.text());
    let latest = send(
        &running,
        "GET",
        "/subjects/test/versions/latest",
        &Value::Null,
    )
    .json();
    assert_eq!(
        latest["schema"],
        r#"{"type":"record","name":"myrecord","fields":[{"name":"f1","type":"string","confluent:tags":["PII"]}],"confluent:tags":["TAG1"]}"#
    );
    assert_eq!(latest["version"], 3);
    assert_eq!(latest["metadata"]["properties"]["confluent:version"], "3");
    // The same edit again: the same schema, so version 3 again.
    let again = send(&running, "POST", "/subjects/test/versions/2/tags", &request);
    assert_eq!(again.json()["id"], removed.json()["id"], "{}", again.text());

    // A path found nowhere: 42201, naming it.
    request = json!({"tagsToAdd": tag_request("does.not.exist", "sr_field", &["X"])});
    let nowhere = send(
        &running,
        "POST",
        "/subjects/test/versions/latest/tags",
        &request,
    );
    assert_eq!(
        (nowhere.status, nowhere.code()),
        (422, 42201),
        "{}",
        nowhere.text()
    );
    assert!(
        nowhere.text().contains("does.not.exist"),
        "{}",
        nowhere.text()
    );
    // ruleSet beside rulesToMerge: 42210.
    request = json!({"ruleSet": {}, "rulesToMerge": {}});
    let rules = send(
        &running,
        "POST",
        "/subjects/test/versions/latest/tags",
        &request,
    );
    assert_eq!(
        (rules.status, rules.code()),
        (422, 42210),
        "{}",
        rules.text()
    );
    // An unknown subject: 40401; an unknown version: 40402.
    request = json!({"tagsToAdd": tag_request("myrecord", "sr_record", &["X"])});
    let none = send(
        &running,
        "POST",
        "/subjects/nobody/versions/1/tags",
        &request,
    );
    assert_eq!(none.code(), 40401, "{}", none.text());
    let none = send(&running, "POST", "/subjects/test/versions/9/tags", &request);
    assert_eq!(none.code(), 40402, "{}", none.text());

    // A rule merged into the latest's rule set, then removed by name.
    let merged = send(
        &running,
        "POST",
        "/subjects/test/versions/latest/tags",
        &json!({"rulesToMerge": {"domainRules": [{"name": "r1", "kind": "CONDITION", "type": "CEL", "mode": "WRITE", "expr": "true"}]}}),
    );
    assert_eq!(merged.status, 200, "{}", merged.text());
    let latest = send(
        &running,
        "GET",
        "/subjects/test/versions/latest",
        &Value::Null,
    )
    .json();
    assert_eq!(
        latest["ruleSet"]["domainRules"][0]["name"], "r1",
        "{latest}"
    );
    let unmerged = send(
        &running,
        "POST",
        "/subjects/test/versions/latest/tags",
        &json!({"rulesToRemove": ["r1"]}),
    );
    assert_eq!(unmerged.status, 200, "{}", unmerged.text());
    // Without it, the schema is version 3's, which answers.
    assert_eq!(
        unmerged.json()["id"],
        removed.json()["id"],
        "{}",
        unmerged.text()
    );

    // JSON Schema: a property by `object.<name>`, its text kept as written.
    let schema = r#"{"type":"object","properties":{"id":{"type":"string"},"n":{"type":"number","maximum":1.50}}}"#;
    register(&running, "doc", &json_body(schema));
    let tagged = send(
        &running,
        "POST",
        "/subjects/doc/versions/1/tags",
        &json!({"tagsToAdd": tag_request("object.id", "sr_field", &["PII"])}),
    );
    assert_eq!(tagged.status, 200, "{}", tagged.text());
    let latest = send(
        &running,
        "GET",
        "/subjects/doc/versions/latest",
        &Value::Null,
    )
    .json();
    assert_eq!(
        latest["schema"],
        r#"{"type":"object","properties":{"id":{"type":"string","confluent:tags":["PII"]},"n":{"type":"number","maximum":1.50}}}"#
    );
}

/// Item 11: a context-qualified subject on every route: registered, read
/// by version, listed under its context, its id read with `?subject=`,
/// its id's subjects and versions, `GET /contexts` (with Confluent's
/// `contextPrefix`, `offset` and `limit`, `ContextsResource.listContexts`,
/// v8.2.0); one id space for every context (README, What differs).
#[test]
fn a_context_qualified_subject_is_honoured_on_every_route() {
    let running = start();
    let subject = ":.staging:orders-value";
    let staged = register(&running, subject, &json_body(V1)).json();
    let id = staged["id"].as_u64().unwrap();
    let other = register(
        &running,
        ":.prod:orders-value",
        &json_body(r#"{"type": "string"}"#),
    )
    .json();
    assert_ne!(
        other["id"], staged["id"],
        "one id space: another content, another id"
    );
    let get = |path: &str| send(&running, "GET", path, &Value::Null);

    let version = get(&format!("/subjects/{subject}/versions/1")).json();
    assert_eq!(version["subject"], subject);
    assert_eq!(version["id"], id);
    let subjects = get("/subjects").json();
    assert!(
        subjects.as_array().unwrap().contains(&json!(subject)),
        "{subjects}"
    );
    let prefixed = get("/subjects?subjectPrefix=:.staging:").json();
    assert_eq!(prefixed, json!([subject]));
    let by_id = get(&format!("/schemas/ids/{id}?subject={subject}"));
    assert_eq!(by_id.status, 200, "{}", by_id.text());
    assert_eq!(by_id.json()["schema"], staged["schema"]);
    assert_eq!(
        get(&format!("/schemas/ids/{id}/subjects")).json(),
        json!([subject])
    );
    assert_eq!(
        get(&format!("/schemas/ids/{id}/versions")).json(),
        json!([{"subject": subject, "version": 1}])
    );
    // A lookup under the subject finds it; the same name in the default
    // context holds nothing.
    let found = send(
        &running,
        "POST",
        &format!("/subjects/{subject}"),
        &json_body(V1),
    );
    assert_eq!(found.json()["id"], id, "{}", found.text());
    let unqualified = get("/subjects/orders-value/versions/1");
    assert_eq!(unqualified.code(), 40401, "{}", unqualified.text());

    assert_eq!(get("/contexts").json(), json!([".", ".prod", ".staging"]));
    assert_eq!(
        get("/contexts?contextPrefix=.s").json(),
        json!([".staging"])
    );
    assert_eq!(get("/contexts?offset=1&limit=1").json(), json!([".prod"]));
}

/// Item 11: Confluent's context URL prefix, the way clients pick a
/// context (a registry URL of `http://host/contexts/.staging`): each
/// request is the one `ContextFilter` (v8.2.0) rewrites it to, the subject
/// in the path and the `subject` and `subjectPrefix` parameters qualified
/// with the context, a bare `config` the context's own.
#[test]
fn the_context_url_prefix_stands_for_the_qualified_subject() {
    let running = start();
    let get = |path: &str| send(&running, "GET", path, &Value::Null);
    let base = "/contexts/.staging";
    let staged = register_at(
        &running,
        &format!("{base}/subjects/orders-value/versions"),
        &json_body(V1),
    )
    .json();
    let id = staged["id"].as_u64().unwrap();
    // The same name in the default context is another subject.
    register(
        &running,
        "orders-value",
        &json_body(r#"{"type": "string"}"#),
    );

    assert_eq!(
        get("/subjects/:.staging:orders-value/versions").json(),
        json!([1])
    );
    assert_eq!(
        get(&format!("{base}/subjects")).json(),
        json!([":.staging:orders-value"]),
        "a listing keeps to the context"
    );
    let version = get(&format!("{base}/subjects/orders-value/versions/1")).json();
    assert_eq!(version["subject"], ":.staging:orders-value");
    assert_eq!(version["id"], id);
    let by_id = get(&format!("{base}/schemas/ids/{id}"));
    assert_eq!(by_id.status, 200, "{}", by_id.text());
    assert_eq!(by_id.json()["schema"], staged["schema"]);
    let found = send(
        &running,
        "POST",
        &format!("{base}/subjects/orders-value"),
        &json_body(V1),
    );
    assert_eq!(found.json()["id"], id, "{}", found.text());
    // A subject naming its own context keeps it.
    let other = get(&format!("{base}/subjects/:.:orders-value/versions/1"));
    assert_eq!(other.json()["subject"], "orders-value", "{}", other.text());

    // The context's config.
    let set = send(
        &running,
        "PUT",
        &format!("{base}/config"),
        &json!({"compatibility": "NONE"}),
    );
    assert_eq!(set.status, 200, "{}", set.text());
    let config = get("/config/:.staging:");
    assert_eq!(
        config.json()["compatibilityLevel"],
        "NONE",
        "{}",
        config.text()
    );

    let refused = get("/contexts/.a:b/subjects");
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert!(
        refused.text().contains("cannot contain a colon"),
        "{}",
        refused.text()
    );
}
