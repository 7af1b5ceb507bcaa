//! `dataschema resolve`: a payload read as another version, written back,
//! the exit codes; and `resolve = "latest"` checked by `dataschema check`
//! (`tests/data/resolve/folder`, whose manifest gives an alias by path).
#![cfg(feature = "cli")]

use crate::common::data;
use crate::run::dataschema_with_stdin;

fn folder() -> String {
    data("resolve/folder").to_str().unwrap().to_owned()
}

const V1: &str = "urn:acme:schema:order:1";
const V2: &str = "urn:acme:schema:order:2";

#[test]
fn resolve_reads_writes_back_and_says_why_not() {
    let f = folder();
    let out = dataschema_with_stdin(
        &["resolve", "--schemas", &f, V1, V2, "-"],
        br#"{"id": 7, "fullName": "Ada"}"#,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout, br#"{"id":7,"name":"Ada","currency":"EUR"}"#);
    let out = dataschema_with_stdin(
        &["resolve", "--write-back", "--schemas", &f, V1, V2, "-"],
        br#"{"id": 8, "name": "Bo", "currency": "USD"}"#,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout, br#"{"id":8,"fullName":"Bo"}"#);
    // Invalid for the writer: 1. A reader not held: 2, with the reason.
    let out = dataschema_with_stdin(
        &["resolve", "--schemas", &f, V1, V2, "-"],
        br#"{"id": "x"}"#,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = dataschema_with_stdin(
        &[
            "resolve",
            "--schemas",
            &f,
            V1,
            "urn:acme:schema:order:9",
            "-",
        ],
        b"{}",
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unresolvable"),
        "{out:?}"
    );
    // A usage error: 64.
    let out = dataschema_with_stdin(&["resolve", "--schemas", &f, V1, "-"], b"{}");
    assert_eq!(out.status.code(), Some(64), "{out:?}");
}

#[test]
fn check_refuses_a_version_the_latest_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["dataschema.toml", "order.v1.json", "order.v2.json"] {
        std::fs::copy(data("resolve/folder").join(file), dir.path().join(file)).unwrap();
    }
    let path = dir.path().to_str().unwrap();
    let out = dataschema_with_stdin(&["check", path], b"");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // v3 types id as a string: v1 and v2 cannot be read as it.
    std::fs::write(
        dir.path().join("order.v3.json"),
        r#"{"type":"object","properties":{"id":{"type":"string"}}}"#,
    )
    .unwrap();
    let out = dataschema_with_stdin(&["check", path], b"");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("cannot read integer as string at /id"),
        "{text}"
    );
    assert!(text.contains("resolve = \"latest\""), "{text}");
    // An alias naming no field of its reader is refused.
    std::fs::remove_file(dir.path().join("order.v3.json")).unwrap();
    std::fs::write(
        dir.path().join("dataschema.toml"),
        "namespace = \"acme\"\ncompatibility = \"none\"\n[aliases.\"order.v2\"]\n\"/nope\" = [\"fullName\"]\n",
    )
    .unwrap();
    let out = dataschema_with_stdin(&["check", path], b"");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

/// `tests/data/bundle_aliases`: the alias is the manifest's alone (the
/// schema carries none), and `--schemas` honours it both ways.
#[test]
fn resolve_honours_the_manifests_aliases() {
    let f = data("bundle_aliases").to_str().unwrap().to_owned();
    let (v1, v2) = ("urn:acme:schema:customer:1", "urn:acme:schema:customer:2");
    let out = dataschema_with_stdin(
        &["resolve", "--schemas", &f, v1, v2, "-"],
        br#"{"id": 1, "fullName": "Ada"}"#,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout, br#"{"id":1,"name":"Ada"}"#);
    let out = dataschema_with_stdin(
        &["resolve", "--write-back", "--schemas", &f, v1, v2, "-"],
        br#"{"id": 2, "name": "Bo"}"#,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout, br#"{"id":2,"fullName":"Bo"}"#);
}
