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
