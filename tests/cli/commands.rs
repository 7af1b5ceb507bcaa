//! The `dataschema` command line: check, lock, validate and their exit codes.
#![cfg(feature = "cli")]

use crate::common;
use crate::run::{dataschema, text};

use common::data;

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");

#[test]
fn validate_exits_0_for_a_valid_payload() {
    let payload = data("payloads/order_valid.json");
    let out = dataschema(&[
        "validate",
        "--schemas",
        SCHEMAS,
        "urn:acme:schema:orders.created:1",
        payload.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("valid"));
}

#[test]
fn validate_exits_1_with_violations_for_an_invalid_payload() {
    let payload = data("payloads/order_invalid.json");
    let out = dataschema(&[
        "validate",
        "--schemas",
        SCHEMAS,
        "urn:acme:schema:orders.created:1",
        payload.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("/items/0/quantity") && shown.contains("/currency"),
        "{shown}"
    );
}

#[test]
fn validate_exits_2_with_the_reason_when_unvalidated() {
    let payload = data("payloads/order_valid.json");
    for (dataschema, reason) in [
        ("urn:acme:schema:orders.created:9", "not_found"),
        ("orders", "not_a_urn"),
    ] {
        let out = self::dataschema(&[
            "validate",
            "--schemas",
            SCHEMAS,
            dataschema,
            payload.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(reason), "{}", text(&out));
    }
    let out = dataschema(&[
        "validate",
        "--schemas",
        SCHEMAS,
        "urn:acme:schema:orders.created:1",
        "/no/such/file",
    ]);
    assert_eq!(out.status.code(), Some(66), "{}", text(&out));
    assert!(text(&out).contains("/no/such/file"));
}

#[test]
fn validate_that_cannot_run_does_not_exit_as_unvalidated() {
    let payload = data("payloads/order_valid.json");
    let payload = payload.to_str().unwrap();
    let urn = "urn:acme:schema:orders.created:1";
    // A schemas folder that does not load: 66, never 2 (which scripts let
    // through, as the guard fails open).
    let empty = tempfile::tempdir().unwrap();
    let out = dataschema(&[
        "validate",
        "--schemas",
        empty.path().to_str().unwrap(),
        urn,
        payload,
    ]);
    assert_eq!(out.status.code(), Some(66), "{}", text(&out));
    // A --registry that is not an http(s) URL is a usage error.
    let out = dataschema(&[
        "validate",
        "--registry",
        "ftp://registry.invalid",
        urn,
        payload,
    ]);
    assert_eq!(out.status.code(), Some(64), "{}", text(&out));
    assert!(text(&out).contains("--registry"), "{}", text(&out));
}

#[test]
fn check_lists_the_schemas_or_every_problem() {
    let out = dataschema(&["check", SCHEMAS]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("ok  orders.created  v1, v2  (backward: compatible)"),
        "{}",
        text(&out)
    );

    let empty = tempfile::tempdir().unwrap();
    let out = dataschema(&["check", empty.path().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "not a schemas folder: {}",
        text(&out)
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dataschema.toml"), "namespace = \"acme\"\n").unwrap();
    std::fs::write(dir.path().join("bad.v1.json"), "{").unwrap();
    std::fs::write(dir.path().join("Worse.v1.json"), "{}").unwrap();
    let out = dataschema(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    assert!(
        shown.contains("2 problems")
            && shown.contains("bad.v1.json")
            && shown.contains("Worse.v1.json"),
        "{shown}"
    );
}

#[test]
fn lock_writes_the_lock_and_refuses_changed_urns() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dataschema.toml"), "namespace = \"acme\"\n").unwrap();
    std::fs::write(dir.path().join("a.v1.json"), "{}").unwrap();
    let out = dataschema(&["lock", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("locked urn:acme:schema:a:1"));
    let lock = std::fs::read_to_string(dir.path().join("dataschema.lock")).unwrap();
    assert!(
        lock.contains("\"urn:acme:schema:a:1\" = \"sha256:"),
        "{lock}"
    );
    std::fs::write(dir.path().join("a.v1.json"), r#"{"type":"string"}"#).unwrap();
    let out = dataschema(&["lock", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("version 2"), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("dataschema.lock")).unwrap(),
        lock
    );
}

#[test]
fn lock_and_check_exit_2_on_a_folder_that_is_not_there() {
    for command in ["check", "lock"] {
        let out = dataschema(&[command, "/nonexistent/schemas"]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", text(&out));
        assert!(
            text(&out).contains("not a schemas folder"),
            "{}",
            text(&out)
        );
    }
}

#[test]
fn diff_names_a_missing_file() {
    for file in ["/nonexistent/x.proto", "/nonexistent/x.json"] {
        let out = dataschema(&["diff", file, file]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains(&format!("{file}: no such file")),
            "{}",
            text(&out)
        );
    }
}

/// `validate` of a binary Avro datum, from a folder of `.avsc` files;
/// `diff` of two `.avsc` files with Java's kinds and locations.
#[cfg(feature = "avro")]
#[test]
fn avro_schemas_validate_binary_datums_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dataschema.toml"), "namespace = \"acme\"\n").unwrap();
    let v1 = r#"{"type":"record","name":"Ping","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"}]}"#;
    let v2 = r#"{"type":"record","name":"Ping","fields":[{"name":"id","type":"string"},{"name":"n","type":"long"},{"name":"m","type":"int"}]}"#;
    std::fs::write(dir.path().join("ping.v1.avsc"), v1).unwrap();
    let valid = dir.path().join("valid.bin");
    std::fs::write(&valid, [2, b'a', 4]).unwrap(); // id "a", n 2
    let invalid = dir.path().join("invalid.bin");
    std::fs::write(&invalid, [2, b'a', 0x80]).unwrap(); // n never ends
    let folder = dir.path().to_str().unwrap();
    let out = dataschema(&[
        "validate",
        "--schemas",
        folder,
        "urn:acme:schema:ping:1",
        valid.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = dataschema(&[
        "validate",
        "--schemas",
        folder,
        "urn:acme:schema:ping:1",
        invalid.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("/n"), "{}", text(&out));

    let old = dir.path().join("old.avsc");
    let new = dir.path().join("new.avsc");
    std::fs::write(&old, v1).unwrap();
    std::fs::write(&new, v2).unwrap();
    let out = dataschema(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("READER_FIELD_MISSING_DEFAULT_VALUE")
            && text(&out).contains("/fields/2"),
        "{}",
        text(&out)
    );
    let out = dataschema(&["diff", new.to_str().unwrap(), old.to_str().unwrap()]);
    // v1 reads v2's data: the int field n cannot read v2's long.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("TYPE_MISMATCH"), "{}", text(&out));
}
