//! `dataschema import` against registries that do not make it easy
//! (issue 37): a target whose subjects have modes and settings of their
//! own, a source claiming the largest id, references to later subjects, a
//! source whose words are hostile.
#![cfg(feature = "cli")]

use crate::server;

#[path = "../common/fake_registry.rs"]
mod fake_registry;

use std::process::{Command, Output};
use std::sync::Arc;

use serde_json::json;
use server::process::{token_file, Serve};
use server::{confluent, get};

/// A `dataschema serve` on a memory store, with its token file.
fn registry() -> (Serve, String) {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let token = token_file(dir.path());
    let serve = Serve::start_in(dir, &["--store", "memory", "--token-file", &token]);
    (serve, token)
}

fn send(serve: &Serve, method: &str, path: &str, body: serde_json::Value) -> server::Reply {
    confluent(method, &serve.url(path), &body)
}

/// `dataschema import` from `source` (its URL) to `target`.
fn import(source: &str, target: &Serve, token: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["import", "--from", source, "--to", &target.url("")])
        .args(["--token-file", token])
        .args(extra)
        .output()
        .unwrap()
}

fn shown(out: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Registers `schema` under `subject` at `version` with `id`, the source
/// in IMPORT mode.
fn put_with_id(source: &Serve, subject: &str, version: u32, id: u64, schema: &str) {
    let reply = send(
        source,
        "POST",
        &format!("/subjects/{subject}/versions"),
        json!({"schema": schema, "schemaType": "JSON", "id": id, "version": version}),
    );
    assert_eq!(reply.status, 200, "{subject}: {}", reply.text());
}

/// The import wrote into a target subject set READONLY, then set each
/// subject's mode to the source's (the READONLY gone; a source answering
/// IMPORT left the target in IMPORT), and copied the source's global
/// level (NONE) over the target's. Now a read-only target subject refuses
/// the import before anything is written; each subject gets its own mode
/// back; the source's levels come only with `--copy-settings`. A source
/// claiming the largest id (2147483647) leaves the target numbering new
/// contents.
#[test]
fn import_keeps_the_targets_modes_and_settings() {
    let (source, _) = registry();
    assert_eq!(
        send(&source, "PUT", "/mode", json!({"mode": "IMPORT"})).status,
        200
    );
    put_with_id(&source, "a-value", 1, 10, r#"{"type": "string"}"#);
    put_with_id(&source, "b-value", 1, 11, r#"{"type": "integer"}"#);
    put_with_id(
        &source,
        "top-value",
        1,
        2_147_483_647,
        r#"{"type": "boolean"}"#,
    );
    assert_eq!(
        send(
            &source,
            "PUT",
            "/mode/a-value?force=true",
            json!({"mode": "IMPORT"})
        )
        .status,
        200
    );
    assert_eq!(
        send(&source, "PUT", "/config", json!({"compatibility": "NONE"})).status,
        200
    );
    assert_eq!(
        send(
            &source,
            "PUT",
            "/config/a-value",
            json!({"compatibility": "FULL"})
        )
        .status,
        200
    );

    let (target, token) = registry();
    assert_eq!(
        send(&target, "PUT", "/mode/b-value", json!({"mode": "READONLY"})).status,
        200
    );
    let out = import(&source.url(""), &target, &token, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", shown(&out));
    assert!(shown(&out).contains("b-value"), "{}", shown(&out));
    assert!(shown(&out).contains("READONLY"), "{}", shown(&out));
    for subject in ["a-value", "b-value", "top-value"] {
        assert_eq!(
            get(&target.url(&format!("/subjects/{subject}/versions"))).code(),
            40401,
            "{subject}: nothing was written"
        );
    }
    assert_eq!(get(&target.url("/mode/b-value")).json()["mode"], "READONLY");
    assert_eq!(get(&target.url("/mode/a-value")).code(), 40409);

    assert_eq!(
        send(
            &target,
            "PUT",
            "/mode/b-value",
            json!({"mode": "READWRITE"})
        )
        .status,
        200
    );
    let out = import(&source.url(""), &target, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_eq!(
        get(&target.url("/subjects/a-value/versions/1")).json()["id"],
        10
    );
    assert_eq!(
        get(&target.url("/mode/a-value")).code(),
        40409,
        "the target's own mode (none), not the source's IMPORT"
    );
    assert_eq!(
        get(&target.url("/mode/b-value")).json()["mode"],
        "READWRITE"
    );
    assert_eq!(get(&target.url("/mode")).json()["mode"], "READWRITE");
    assert_eq!(
        get(&target.url("/config")).json()["compatibilityLevel"],
        "BACKWARD",
        "the source's levels are not copied unasked"
    );
    assert_eq!(get(&target.url("/config/a-value")).code(), 40408);

    let out = import(&source.url(""), &target, &token, &["--copy-settings"]);
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert_eq!(
        get(&target.url("/config")).json()["compatibilityLevel"],
        "NONE"
    );
    assert_eq!(
        get(&target.url("/config/a-value")).json()["compatibilityLevel"],
        "FULL"
    );
    assert_eq!(get(&target.url("/mode/a-value")).code(), 40409);

    // The largest id came along, and new contents still get ids.
    assert_eq!(
        get(&target.url("/subjects/top-value/versions/1")).json()["id"],
        2_147_483_647u64
    );
    let fresh = send(
        &target,
        "POST",
        "/subjects/fresh-value/versions",
        json!({"schema": r#"{"type": "null"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(fresh.status, 200, "{}", fresh.text());
}

/// What a terminal acts on, or that hides or reorders what it shows: ESC
/// (and so OSC and CSI sequences), BEL, U+202E, U+2028.
const RAW: [char; 4] = ['\u{1b}', '\u{7}', '\u{202e}', '\u{2028}'];

/// A hostile source registry: its subject names, messages and `5xx`
/// bodies carry escape sequences, BEL, U+202E and U+2028, and a body runs
/// to 100 kB. `dataschema import` printed them raw (a `5xx` body whole);
/// now every remote's words are escaped and clipped, as `publish` shows
/// them.
#[test]
fn import_shows_a_hostile_registrys_words_escaped_and_clipped() {
    use fake_registry::{FakeRegistry, Reply};
    let json = |status: u16, body: String| Reply::Answer {
        status,
        headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
        body: body.into_bytes(),
    };
    let evil = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}eulav\u{2028}";
    let (target, token) = registry();
    for case in ["message", "body", "subject"] {
        let source = FakeRegistry::start(move |path| {
            if !path.starts_with("/subjects?") {
                return json(404, r#"{"error_code":40401,"message":"no"}"#.to_owned());
            }
            match case {
                "message" => json(
                    422,
                    serde_json::json!({"error_code": 42201, "message": format!("{evil} {}", "x".repeat(5_000))})
                        .to_string(),
                ),
                "body" => Reply::Answer {
                    status: 502,
                    headers: vec![("Content-Type".to_owned(), "text/html".to_owned())],
                    body: format!("<html>{evil}{}</html>", "y".repeat(100_000)).into_bytes(),
                },
                _ => json(200, serde_json::json!([format!("orders-{evil}-value")]).to_string()),
            }
        });
        let out = import(&source.url(), &target, &token, &[]);
        let text = shown(&out);
        assert_ne!(out.status.code(), Some(0), "{case}: {text}");
        assert!(
            !text.contains(RAW),
            "{case}: raw control characters shown: {text:?}"
        );
        assert!(text.len() < 2_000, "{case}: {} bytes shown", text.len());
        assert!(text.contains("\\u{1b}]0;owned"), "{case}: {text}");
    }
}

/// Subjects were copied in name order, so `invoices-value`, referring to
/// `shop.common.Money`, was refused (422) and the run stopped without a
/// summary, the same way every time. Now the versions go in dependency
/// order (a topological order over their references), a second run skips
/// what is held, and the summary says what was copied, skipped and
/// refused.
#[test]
fn import_copies_references_first_and_says_what_it_did() {
    let (source, _) = registry();
    assert_eq!(
        send(&source, "PUT", "/mode", json!({"mode": "IMPORT"})).status,
        200
    );
    put_with_id(
        &source,
        "shop.common.Money",
        1,
        30,
        r#"{"type": "object", "properties": {"cents": {"type": "integer"}}}"#,
    );
    let invoice = send(
        &source,
        "POST",
        "/subjects/invoices-value/versions",
        json!({
            "schema": r#"{"type": "object", "properties": {"total": {"$ref": "money.json"}}}"#,
            "schemaType": "JSON", "id": 31, "version": 1,
            "references": [{"name": "money.json", "subject": "shop.common.Money", "version": 1}]
        }),
    );
    assert_eq!(invoice.status, 200, "{}", invoice.text());

    let (target, token) = registry();
    let out = import(&source.url(""), &target, &token, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", shown(&out));
    assert!(
        shown(&out).contains(
            "imported 2 subject(s), 2 version(s): 2 copied, 0 skipped (held already), 0 refused"
        ),
        "{}",
        shown(&out)
    );
    let read = get(&target.url("/subjects/invoices-value/versions/1"));
    assert_eq!(read.json()["id"], 31, "{}", read.text());
    assert_eq!(read.json()["references"][0]["subject"], "shop.common.Money");
    let again = import(&source.url(""), &target, &token, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", shown(&again));
    assert!(
        shown(&again).contains("0 copied, 2 skipped (held already), 0 refused"),
        "{}",
        shown(&again)
    );
}

/// A source claiming a cycle of references (a-value v1 -> b-value v1 ->
/// a-value v1): both refused with the cycle's path, the rest copied, the
/// summary told, exit 1. A source failing mid-way stops the import with
/// the summary of what was done.
#[test]
fn import_refuses_a_cycle_with_its_path_and_tells_an_early_stop() {
    use fake_registry::{FakeRegistry, Reply};
    let answer = |value: serde_json::Value| Reply::Answer {
        status: 200,
        headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
        body: value.to_string().into_bytes(),
    };
    let version = |subject: &str, id: u32, refers: Option<&str>| {
        let mut value = json!({"subject": subject, "version": 1, "id": id,
            "schemaType": "JSON", "schema": format!(r#"{{"title": "{subject}"}}"#)});
        if let Some(other) = refers {
            value["references"] = json!([{"name": "x.json", "subject": other, "version": 1}]);
        }
        value
    };
    let (target, token) = registry();
    for failing in [false, true] {
        let source = FakeRegistry::start(move |path| match path.split('?').next().unwrap() {
            "/subjects" => answer(json!(["a-value", "b-value", "c-value"])),
            "/subjects/c-value/versions/1" if failing => Reply::Answer {
                status: 503,
                headers: vec![],
                body: b"busy".to_vec(),
            },
            p if p.ends_with("/versions") => answer(json!([1])),
            "/subjects/a-value/versions/1" => answer(version("a-value", 41, Some("b-value"))),
            "/subjects/b-value/versions/1" => answer(version("b-value", 42, Some("a-value"))),
            "/subjects/c-value/versions/1" => answer(version("c-value", 43, None)),
            _ => Reply::not_found(),
        });
        let out = import(&source.url(), &target, &token, &[]);
        let text = shown(&out);
        if failing {
            assert_eq!(out.status.code(), Some(3), "{text}");
            assert!(
                text.contains("imported 3 subject(s)"),
                "the summary: {text}"
            );
            assert!(text.contains("stopped: source registry"), "{text}");
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains("imported 3 subject(s), 3 version(s): 1 copied, 0 skipped (held already), 2 refused"),
            "{text}"
        );
        assert!(
            text.contains("a-value version 1 -> b-value version 1 -> a-value version 1"),
            "the cycle's path: {text}"
        );
        assert_eq!(
            get(&target.url("/subjects/c-value/versions/1")).json()["id"],
            43
        );
        assert_eq!(get(&target.url("/subjects/a-value/versions")).code(), 40401);
        assert_eq!(
            get(&target.url("/mode/c-value")).code(),
            40409,
            "modes set back"
        );
    }
}
