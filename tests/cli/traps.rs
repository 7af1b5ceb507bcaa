//! Traps a newcomer met, each now explained where it is met (issue 42):
//! a folder published from another namespace than the server's, the
//! lock's ids, the version a lock error tells you to publish, an open
//! content model, an `.avsc` published natively without its language.
#![cfg(feature = "cli")]

use crate::run::{dataschema, s, text};
use crate::server;

use std::path::Path;

use server::process::{token_file, Serve};
use server::{call, get};

fn folder(dir: &Path, manifest: &str, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("dataschema.toml"), manifest).unwrap();
    for (name, body) in files {
        std::fs::write(dir.join(name), body).unwrap();
    }
}

/// A folder of namespace `shop` published to a server whose Confluent
/// subjects live in `acme`: `publish` says so; the schema's id is served
/// by `/schemas/ids/N` and `/schemas/ids/N/subjects` agrees that it
/// exists (no subject: `[]`, not "not found"); an unknown id is still
/// 40403.
#[test]
fn a_folder_of_another_namespace_is_told_and_its_id_answers_consistently() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let serve = Serve::start(&["--store", "memory", "--token-file", &token]);
    let dir = tmp.path().join("schemas");
    folder(
        &dir,
        "namespace = \"shop\"\n",
        &[("orders-value.v1.json", r#"{"type": "object"}"#)],
    );
    let out = dataschema(&[
        "publish",
        "--registry",
        &serve.url(""),
        "--token-file",
        &token,
        s(&dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("namespace acme") && shown.contains("--namespace shop"),
        "{shown}"
    );
    let id = std::fs::read_to_string(dir.join("dataschema.lock"))
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("\"urn:shop:schema:orders-value:1\" = "))
        .find_map(|id| id.parse::<u32>().ok())
        .expect("the lock records the id");
    assert_eq!(get(&serve.url(&format!("/schemas/ids/{id}"))).status, 200);
    let subjects = get(&serve.url(&format!("/schemas/ids/{id}/subjects")));
    assert_eq!(subjects.status, 200, "{}", subjects.text());
    assert_eq!(subjects.json(), serde_json::json!([]));
    let versions = get(&serve.url(&format!("/schemas/ids/{id}/versions")));
    assert_eq!(versions.status, 200, "{}", versions.text());
    let unknown = get(&serve.url("/schemas/ids/999999/subjects"));
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error_code"], 40403);

    // The same folder in the server's namespace: no note.
    let dir = tmp.path().join("acme");
    folder(
        &dir,
        "namespace = \"acme\"\n",
        &[("orders-value.v1.json", r#"{"type": "object"}"#)],
    );
    let out = dataschema(&[
        "publish",
        "--registry",
        &serve.url(""),
        "--token-file",
        &token,
        s(&dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("note: the registry"), "{}", text(&out));
}

/// A locked version changed: the error names the version after every
/// one the folder and the lock hold (3 here), not "v1 + 1", which exists.
#[test]
fn a_changed_locked_version_names_the_real_next_version() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    folder(
        dir,
        "namespace = \"acme\"\ncompatibility = \"none\"\n",
        &[
            ("price.v1.json", r#"{"type": "integer"}"#),
            ("price.v2.json", r#"{"type": "number"}"#),
        ],
    );
    let out = dataschema(&["lock", s(dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock = std::fs::read_to_string(dir.join("dataschema.lock")).unwrap();
    assert!(lock.contains("[schemas]"), "{lock}");
    std::fs::write(dir.join("price.v1.json"), r#"{"type": "string"}"#).unwrap();
    let out = dataschema(&["check", s(dir)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("publish the change as version 3 instead"),
        "{}",
        text(&out)
    );
}

/// A lock that records ids says whose they are.
#[test]
fn a_lock_with_ids_says_they_belong_to_one_registry() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let serve = Serve::start(&["--store", "memory", "--token-file", &token]);
    let dir = tmp.path().join("schemas");
    folder(
        &dir,
        "namespace = \"acme\"\n",
        &[("ping.v1.json", r#"{"type": "object"}"#)],
    );
    let out = dataschema(&[
        "publish",
        "--registry",
        &serve.url(""),
        "--token-file",
        &token,
        s(&dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock = std::fs::read_to_string(dir.join("dataschema.lock")).unwrap();
    assert!(
        lock.contains("one registry") && lock.contains("dataschema import"),
        "{lock}"
    );
}

/// An optional property added to an open content model: the breaking
/// change comes with how to avoid it, in `diff`, `compat` and JSON.
#[test]
fn an_open_content_model_change_comes_with_a_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    folder(
        dir,
        "namespace = \"acme\"\n",
        &[
            (
                "order.v1.json",
                r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#,
            ),
            (
                "order.v2.json",
                r#"{"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}"#,
            ),
        ],
    );
    let (v1, v2) = (dir.join("order.v1.json"), dir.join("order.v2.json"));
    let out = dataschema(&["diff", s(&v1), s(&v2)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL")
            && shown.contains("hint:")
            && shown.contains("\"additionalProperties\": false")
            && shown.contains("compatibility_policy = \"lenient\""),
        "{shown}"
    );
    let out = dataschema(&["check", s(dir)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("hint:"), "{}", text(&out));
    let out = dataschema(&["diff", "--format", "json", s(&v1), s(&v2)]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        doc["changes"][0]["hint"]
            .as_str()
            .unwrap()
            .contains("additionalProperties"),
        "{doc}"
    );
    // Under the lenient policy the change passes: no hint.
    std::fs::write(
        dir.join("dataschema.toml"),
        "namespace = \"acme\"\ncompatibility_policy = \"lenient\"\n",
    )
    .unwrap();
    let out = dataschema(&["check", s(dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// An `.avsc` published natively without `Dataschema-Language: avro`:
/// the answer says which header to send, not a JSON Schema error.
#[test]
fn a_native_avro_publish_without_its_language_names_the_header() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let serve = Serve::start(&["--store", "memory", "--token-file", &token]);
    let auth = server::bearer();
    let avsc =
        br#"{"type": "record", "name": "Ping", "fields": [{"name": "id", "type": "string"}]}"#;
    let url = serve.url("/publish/schemas/urn:acme:schema:ping:1");
    let reply = call("PUT", &url, &[("Authorization", auth.as_str())], avsc);
    assert_eq!(reply.status, 422, "{}", reply.text());
    assert!(
        reply.text().contains("Dataschema-Language: avro") && reply.text().contains("a record"),
        "{}",
        reply.text()
    );
    let reply = call(
        "PUT",
        &url,
        &[
            ("Authorization", auth.as_str()),
            ("Dataschema-Language", "avro"),
        ],
        avsc,
    );
    assert_eq!(reply.status, 201, "{}", reply.text());
}
