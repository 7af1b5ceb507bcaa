//! The registry's rules on every path (issue 37, classes 5 and 6): the
//! ids and versions of Confluent's 32-bit range, and the modes and
//! compatibility levels, met by the native API, the Confluent API and
//! `dataschema import` alike, on every store.
#![cfg(feature = "cli")]

use crate::common;
use crate::server;

use serde_json::json;
use server::process::{token_file, Serve};
use server::{confluent, get};

/// The largest id, as Confluent's ids are Java `int`s.
const MAX_ID: u64 = 2_147_483_647;

/// The `--store` values to run a test on: memory, a SQLite file under
/// `dir`, and a PostgreSQL database of its own (the env
/// `DATASCHEMA_POSTGRES_URL`, as the store tests use it).
fn stores(dir: &std::path::Path) -> (Vec<String>, Option<common::TestDatabase>) {
    let mut stores = vec![
        "memory".to_owned(),
        format!("sqlite:{}", dir.join("registry.db").display()),
    ];
    let db = common::TestDatabase::create();
    if let Some(db) = &db {
        stores.push(db.url.clone());
    }
    (stores, db)
}

/// One IMPORT of id 2147483647 (a valid Confluent id) made every later
/// registration of new content answer 500, for good, on every store: the
/// store's sequence was raised past the largest id. Now new contents keep
/// getting ids no content holds, and the imported one keeps its bytes.
/// Versions outside 1..2^31-1 are 42202, as Confluent's `VersionId`
/// refuses them.
#[test]
fn the_largest_id_imported_leaves_ids_for_new_content() {
    let dir = tempfile::tempdir().unwrap();
    let token = token_file(dir.path());
    let (stores, _db) = stores(dir.path());
    for store in &stores {
        let serve = Serve::start(&["--store", store, "--token-file", &token]);
        let send = |method: &str, path: &str, body: serde_json::Value| {
            confluent(method, &serve.url(path), &body)
        };
        assert_eq!(send("PUT", "/mode", json!({"mode": "IMPORT"})).status, 200);
        let top = send(
            "POST",
            "/subjects/top-value/versions",
            json!({"schema": r#"{"type": "string"}"#, "schemaType": "JSON",
                   "id": MAX_ID, "version": 1}),
        );
        assert_eq!(top.status, 200, "{store}: {}", top.text());
        assert_eq!(top.json()["id"], MAX_ID);
        // A version past 2^31-1, in the body or the path: 42202.
        for version in [2_147_483_648u64, 4_294_967_295] {
            let past = send(
                "POST",
                "/subjects/top-value/versions",
                json!({"schema": r#"{"type": "integer"}"#, "schemaType": "JSON",
                       "id": 7, "version": version}),
            );
            assert_eq!(past.code(), 42202, "{store}: {}", past.text());
            let read = get(&serve.url(&format!("/subjects/top-value/versions/{version}")));
            assert_eq!(read.code(), 42202, "{store}: {}", read.text());
        }
        assert_eq!(
            send("PUT", "/mode", json!({"mode": "READWRITE"})).status,
            200
        );
        let mut ids = vec![MAX_ID];
        for n in 0..3 {
            let fresh = send(
                "POST",
                &format!("/subjects/fresh-{n}-value/versions"),
                json!({"schema": format!(r#"{{"type": "object", "title": "{n}"}}"#),
                       "schemaType": "JSON"}),
            );
            assert_eq!(fresh.status, 200, "{store}: {}", fresh.text());
            let id = fresh.json()["id"].as_u64().unwrap();
            assert!((1..MAX_ID).contains(&id), "{store}: {id}");
            assert!(!ids.contains(&id), "{store}: id {id} handed out twice");
            ids.push(id);
        }
        let native = server::call(
            "PUT",
            &serve.url("/publish/schemas/urn:acme:schema:native.after:1"),
            &[("Authorization", &server::bearer())],
            br#"{"type": "boolean"}"#,
        );
        assert_eq!(native.status, 201, "{store}: {}", native.text());
        let id = native.json()["id"].as_u64().unwrap();
        assert!(
            (1..MAX_ID).contains(&id) && !ids.contains(&id),
            "{store}: {id}"
        );
        let read = get(&serve.url(&format!("/schemas/ids/{MAX_ID}")));
        assert_eq!(read.json()["schema"], r#"{"type":"string"}"#, "{store}");
    }
}

/// A subject READONLY (or IMPORT) through the Confluent API was still
/// written through the native `PUT /publish/schemas/{urn}` (201), a
/// read-only subject's versions could be soft-deleted only through one
/// API, and a request's `Dataschema-Mode` or `?mode=` lowered the
/// compatibility level set for the name. The modes and levels live in
/// `Registry` now: every path meets them, and a request's mode is checked
/// beside the level, never instead.
#[test]
fn modes_and_levels_hold_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", &token_file(dir.path())]);
    let bearer = server::bearer();
    let native = |urn: &str, body: &str, extra: &[(&str, &str)]| {
        let mut headers = vec![("Authorization", bearer.as_str())];
        headers.extend_from_slice(extra);
        server::call(
            "PUT",
            &serve.url(&format!("/publish/schemas/{urn}")),
            &headers,
            body.as_bytes(),
        )
    };
    let send = |method: &str, path: &str, body: serde_json::Value| {
        confluent(method, &serve.url(path), &body)
    };
    let v1 = r#"{"type": "object", "properties": {"n": {"type": "integer"}}}"#;
    let narrowed = r#"{"type": "object", "properties": {"n": {"type": "string"}}}"#;
    assert_eq!(native("urn:acme:schema:frozen:1", v1, &[]).status, 201);

    assert_eq!(
        send("PUT", "/config/frozen", json!({"compatibility": "FULL"})).status,
        200
    );
    // READONLY through the Confluent API: no path writes or deletes.
    assert_eq!(
        send("PUT", "/mode/frozen", json!({"mode": "READONLY"})).status,
        200
    );
    let refused = native("urn:acme:schema:frozen:2", r#"{"type": "object"}"#, &[]);
    assert_eq!(refused.status, 409, "{}", refused.text());
    assert_eq!(refused.json()["error"], "mode_refused");
    assert!(refused.text().contains("read-only"), "{}", refused.text());
    let again = native("urn:acme:schema:frozen:1", v1, &[]);
    assert_eq!(
        again.status,
        409,
        "held already, and still refused: {}",
        again.text()
    );
    let register = send(
        "POST",
        "/subjects/frozen/versions",
        json!({"schema": r#"{"type": "boolean"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(register.code(), 42205, "{}", register.text());
    let delete = send("DELETE", "/subjects/frozen/versions/1", json!(null));
    assert_eq!(delete.code(), 42205, "{}", delete.text());
    assert_eq!(
        get(&serve.url("/subjects/frozen/versions")).json(),
        json!([1])
    );
    assert_eq!(
        get(&serve.url("/schemas/urn:acme:schema:frozen:2")).status,
        404,
        "nothing was written"
    );
    // Nor is its level or its settings changed, or cleared (Confluent's
    // `updateConfig` and `deleteSubjectConfig`, v8.2.0: 42205), while
    // another subject's level still changes.
    for (method, body) in [
        ("PUT", json!({"compatibility": "NONE"})),
        ("PUT", json!({"compatibilityGroup": "app"})),
        ("DELETE", json!(null)),
    ] {
        let changed = send(method, "/config/frozen", body.clone());
        assert_eq!(changed.status, 422, "{method} {body}: {}", changed.text());
        assert_eq!(changed.code(), 42205, "{}", changed.text());
        assert!(changed.text().contains("read-only"), "{}", changed.text());
    }
    assert_eq!(
        get(&serve.url("/config/frozen")).json(),
        json!({"compatibilityLevel": "FULL"})
    );
    assert_eq!(
        send("PUT", "/config/open", json!({"compatibility": "NONE"})).status,
        200
    );
    // A read-only registry: the default level does not change either.
    assert_eq!(
        send("PUT", "/mode", json!({"mode": "READONLY"})).status,
        200
    );
    let global = send("PUT", "/config", json!({"compatibility": "NONE"}));
    assert_eq!(global.code(), 42205, "{}", global.text());
    assert_eq!(send("DELETE", "/mode", json!(null)).status, 200);

    // IMPORT: a write without an id is refused on every path.
    assert_eq!(
        send(
            "PUT",
            "/mode/importing?force=true",
            json!({"mode": "IMPORT"})
        )
        .status,
        200
    );
    let refused = native("urn:acme:schema:importing:1", v1, &[]);
    assert_eq!(refused.status, 409, "{}", refused.text());
    assert!(refused.text().contains("read-write"), "{}", refused.text());
    let imported = send(
        "POST",
        "/subjects/importing/versions",
        json!({"schema": v1, "schemaType": "JSON", "id": 500, "version": 1}),
    );
    assert_eq!(imported.status, 200, "{}", imported.text());
    // An id outside IMPORT mode is refused too.
    let with_id = send(
        "POST",
        "/subjects/open/versions",
        json!({"schema": v1, "schemaType": "JSON", "id": 501}),
    );
    assert_eq!(with_id.code(), 42205, "{}", with_id.text());

    // A request's mode cannot lower the level set for the name.
    assert_eq!(native("urn:acme:schema:strict:1", v1, &[]).status, 201);
    assert_eq!(
        send(
            "PUT",
            "/config/strict",
            json!({"compatibility": "BACKWARD"})
        )
        .status,
        200
    );
    for (what, urn, headers) in [
        (
            "header",
            "urn:acme:schema:strict:2",
            vec![("Dataschema-Mode", "NONE")],
        ),
        ("query", "urn:acme:schema:strict:2?mode=none", vec![]),
    ] {
        let lowered = native(urn, narrowed, &headers);
        assert_eq!(lowered.status, 409, "{what}: {}", lowered.text());
        assert_eq!(lowered.json()["error"], "incompatible", "{what}");
    }
    // A request may ask for more: FULL past a NONE level is checked.
    assert_eq!(
        send("PUT", "/config/strict", json!({"compatibility": "NONE"})).status,
        200
    );
    let stricter = native(
        "urn:acme:schema:strict:2",
        narrowed,
        &[("Dataschema-Mode", "FULL")],
    );
    assert_eq!(stricter.status, 409, "{}", stricter.text());
    assert_eq!(
        native("urn:acme:schema:strict:2", narrowed, &[]).status,
        201
    );
}

/// Two references with the same name were accepted and one silently
/// dropped (the schema's references keep a name once); a reference's
/// `version: -1` resolved to a soft-deleted version. Now the same name for
/// two schemas is refused (Confluent API 42201, native 400), and `-1` is
/// the subject's latest live version.
#[test]
fn a_reference_name_names_one_schema_and_latest_is_live() {
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", &token_file(dir.path())]);
    let send = |method: &str, path: &str, body: serde_json::Value| {
        confluent(method, &serve.url(path), &body)
    };
    assert_eq!(
        send("PUT", "/config/money", json!({"compatibility": "NONE"})).status,
        200
    );
    for title in ["v1", "v2"] {
        let reply = send(
            "POST",
            "/subjects/money/versions",
            json!({"schema": format!(r#"{{"type": "object", "title": "{title}"}}"#),
                   "schemaType": "JSON"}),
        );
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
    let other = send(
        "POST",
        "/subjects/other/versions",
        json!({"schema": r#"{"type": "string"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(other.status, 200, "{}", other.text());
    assert_eq!(
        send("DELETE", "/subjects/money/versions/2", json!(null)).status,
        200
    );
    let schema = r#"{"type": "object", "properties": {"m": {"$ref": "m.json"}}}"#;
    let latest = send(
        "POST",
        "/subjects/invoice/versions",
        json!({"schema": schema, "schemaType": "JSON",
               "references": [{"name": "m.json", "subject": "money", "version": -1}]}),
    );
    assert_eq!(latest.status, 200, "{}", latest.text());
    let read = get(&serve.url("/subjects/invoice/versions/1"));
    assert_eq!(
        read.json()["references"][0]["version"],
        1,
        "the latest live version, not the soft-deleted 2: {}",
        read.text()
    );

    let twice = send(
        "POST",
        "/subjects/dup/versions",
        json!({"schema": schema, "schemaType": "JSON",
               "references": [{"name": "m.json", "subject": "money", "version": 1},
                              {"name": "m.json", "subject": "other", "version": 1}]}),
    );
    assert_eq!(twice.code(), 42201, "{}", twice.text());
    assert!(twice.text().contains("m.json"), "{}", twice.text());
    let native = server::call(
        "PUT",
        &serve.url("/publish/schemas/urn:acme:schema:dup:1"),
        &[
            ("Authorization", &server::bearer()),
            (
                "Dataschema-References",
                "m.json=urn:acme:schema:money:1,m.json=urn:acme:schema:other:1",
            ),
        ],
        schema.as_bytes(),
    );
    assert_eq!(native.status, 400, "{}", native.text());
    assert_eq!(native.json()["error"], "invalid_references");
}
