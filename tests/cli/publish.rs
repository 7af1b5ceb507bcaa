//! `dataschema publish` and `dataschema validate --registry/--framed`: the
//! binary against the real server binary (`dataschema serve --store
//! memory`) over HTTP on loopback; and every command's usage errors
//! (exit 64).
#![cfg(feature = "cli")]

use crate::common;
use crate::fake_registry;
use crate::run::{dataschema, dataschema_with_stdin, s, text};
use crate::server;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use server::process::{token_file, Serve};
use server::{call, get, TOKEN};

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

/// A registry with a publish token, over a memory store.
fn registry(tokens: &tempfile::TempDir) -> Serve {
    Serve::start(&[
        "--store",
        "memory",
        "--token-file",
        &token_file(tokens.path()),
    ])
}

/// A copy of the sample schemas folder (with its lock, which records no
/// ids), as `into/schemas`.
fn copy_samples(into: &Path) -> PathBuf {
    let dir = into.join("schemas");
    copy_dir(Path::new(SCHEMAS), &dir);
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn folder(into: &Path, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = into.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

fn lock_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("dataschema.lock")).unwrap_or_default()
}

/// The `[ids]` table of a lock, parsed.
fn lock_ids(dir: &Path) -> Vec<(String, u32)> {
    let lock = lock_of(dir);
    let Some((_, ids)) = lock.split_once("[ids]\n") else {
        return Vec::new();
    };
    ids.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (urn, id) = line.split_once(" = ").unwrap();
            (urn.trim_matches('"').to_owned(), id.parse().unwrap())
        })
        .collect()
}

fn publish(serve: &Serve, token: Option<&str>, dir: &Path, extra: &[&str]) -> Output {
    let url = serve.url("");
    let mut args = vec!["publish", "--registry", &url];
    if let Some(token) = token {
        args.extend(["--token-file", token]);
    }
    args.extend_from_slice(extra);
    args.push(s(dir));
    dataschema(&args)
}

#[test]
fn publish_records_the_registry_ids_and_a_second_run_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let token = token_file(tmp.path());
    let dir = copy_samples(tmp.path());
    let before = lock_of(&dir);
    assert!(!before.contains("[ids]"), "the samples' lock has no ids");

    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("6 published, 0 already published"),
        "{shown}"
    );
    assert!(!shown.contains(TOKEN), "the credential is never printed");
    // Each name's versions in order.
    let v1 = shown
        .find("published urn:acme:schema:orders.created:1")
        .unwrap();
    let v2 = shown
        .find("published urn:acme:schema:orders.created:2")
        .unwrap();
    assert!(v1 < v2, "{shown}");

    // The lock: the old [schemas] kept, every URN's id as the registry
    // answers it.
    let lock = lock_of(&dir);
    assert!(lock.starts_with("# Written by"), "{lock}");
    assert!(
        lock.contains(before.split_once("[schemas]\n").unwrap().1.trim()),
        "{lock}"
    );
    let ids = lock_ids(&dir);
    assert_eq!(ids.len(), 6, "{lock}");
    for (urn, id) in &ids {
        let reply = get(&serve.url(&format!("/schemas/{urn}")));
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.header("dataschema-id"),
            Some(id.to_string().as_str()),
            "{urn}"
        );
    }

    // Again, without a token even: nothing to send, nothing changes.
    let out = publish(&serve, None, &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert!(text(&out).contains("already published urn:acme:schema:orders.shipped:1"));
    assert!(
        text(&out).contains("0 published, 6 already published"),
        "{}",
        text(&out)
    );
    assert_eq!(lock_of(&dir), lock, "the lock's bytes are unchanged");

    // With the token, as a CI job runs it: the same.
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert_eq!(lock_of(&dir), lock);

    // `check` reads the lock with its ids.
    let out = dataschema(&["check", s(&dir)]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
}

#[test]
fn publish_sends_a_referenced_schema_before_the_one_referring_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let token = token_file(tmp.path());
    // `a` sorts first, but $refs `z.base`: the registry compiles `a`
    // against what it holds, so `z.base` must be there first.
    let dir = folder(
        tmp.path(),
        "refs",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            (
                "a.v1.json",
                r#"{"type": "object", "properties": {"base": {"$ref": "urn:acme:schema:z.base:1"}}}"#,
            ),
            ("z.base.v1.json", r#"{"type": "string"}"#),
        ],
    );
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let shown = text(&out);
    let base = shown.find("published urn:acme:schema:z.base:1").unwrap();
    let a = shown.find("published urn:acme:schema:a:1").unwrap();
    assert!(base < a, "{shown}");
    assert_eq!(lock_ids(&dir).len(), 2);
}

/// A version with references (the manifest's `[references]`) is published
/// with them (`Dataschema-References`), after the version they name; the
/// registry compiles it with them, and reads answer them.
#[test]
fn publish_sends_references_and_the_registry_keeps_them() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let token = token_file(tmp.path());
    let dir = folder(
        tmp.path(),
        "references",
        &[
            (
                "dataschema.toml",
                "namespace = \"acme\"\n[references.\"a.v1\"]\n\"base.json\" = \"urn:acme:schema:z.base:1\"\n",
            ),
            (
                "a.v1.json",
                r#"{"type": "object", "properties": {"base": {"$ref": "base.json"}}}"#,
            ),
            ("z.base.v1.json", r#"{"type": "string"}"#),
        ],
    );
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let shown = text(&out);
    let base = shown.find("published urn:acme:schema:z.base:1").unwrap();
    let a = shown.find("published urn:acme:schema:a:1").unwrap();
    assert!(base < a, "{shown}");
    let read = call("GET", &serve.url("/schemas/urn:acme:schema:a:1"), &[], b"");
    assert_eq!(read.status, 200, "{}", read.text());
    assert_eq!(
        read.header("dataschema-references"),
        Some("base.json=urn:acme:schema:z.base:1")
    );
    let confluent = call("GET", &serve.url("/subjects/a/versions/1"), &[], b"").json();
    assert_eq!(
        confluent["references"],
        serde_json::json!([{"name": "base.json", "subject": "z.base", "version": 1}])
    );
    // A second run changes nothing.
    let again = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&again), Some(0), "{}", text(&again));
}

#[test]
fn publish_refuses_a_changed_schema_and_leaves_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let token = token_file(tmp.path());
    let dir = folder(
        tmp.path(),
        "one",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("greeting.v1.json", r#"{"type": "string"}"#),
        ],
    );
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let lock = lock_of(&dir);

    // The lock pins the bytes: refused before the registry is asked.
    std::fs::write(dir.join("greeting.v1.json"), r#"{"type": "integer"}"#).unwrap();
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("changed since it was published"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("version 2"), "{}", text(&out));
    assert_eq!(lock_of(&dir), lock);

    // A folder without that lock: the registry itself refuses (409,
    // immutable), and says why.
    let other = folder(
        tmp.path(),
        "other",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("greeting.v1.json", r#"{"type": "integer"}"#),
        ],
    );
    let out = publish(&serve, Some(&token), &other, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(shown.contains("HTTP 409, immutable"), "{shown}");
    assert!(shown.contains("never changes"), "{shown}");
    assert_eq!(lock_of(&other), "", "nothing published: no lock written");
}

#[test]
fn publish_refuses_an_incompatible_version_with_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let token = token_file(tmp.path());
    // The folder's own mode lets v2 through; the registry's does not.
    let dir = folder(
        tmp.path(),
        "evolving",
        &[
            (
                "dataschema.toml",
                "namespace = \"acme\"\ncompatibility = \"none\"\n",
            ),
            (
                "order.v1.json",
                r#"{"type": "object", "properties": {"qty": {"type": "integer"}}}"#,
            ),
            (
                "order.v2.json",
                r#"{"type": "object", "properties": {"qty": {"type": "string"}}}"#,
            ),
        ],
    );
    let out = publish(&serve, Some(&token), &dir, &["--mode", "backward"]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("published urn:acme:schema:order:1"),
        "{shown}"
    );
    assert!(shown.contains("HTTP 409, incompatible"), "{shown}");
    assert!(
        shown.contains("[v1] backward: TYPE_CHANGED at #/properties/qty"),
        "the report: {shown}"
    );
    // v1 was taken: its id is recorded; v2's is not.
    let ids = lock_ids(&dir);
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(ids[0].0, "urn:acme:schema:order:1");
    assert_eq!(
        get(&serve.url("/schemas/urn:acme:schema:order:2")).status,
        404
    );
    // `--mode none` asks for less than the registry's level (BACKWARD by
    // default): the level holds, and it is refused again.
    let out = publish(&serve, Some(&token), &dir, &["--mode", "none"]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    // The name's level set to NONE on the registry: taken.
    let level = call(
        "PUT",
        &serve.url("/config/order"),
        &[
            ("Authorization", &format!("Bearer {TOKEN}")),
            ("Content-Type", "application/vnd.schemaregistry.v1+json"),
        ],
        br#"{"compatibility": "NONE"}"#,
    );
    assert_eq!(level.status, 200, "{}", level.text());
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert_eq!(lock_ids(&dir).len(), 2);
}

#[test]
fn publish_needs_the_right_credential_and_never_prints_it() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let dir = folder(
        tmp.path(),
        "one",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("greeting.v1.json", r#"{"type": "string"}"#),
        ],
    );
    let wrong = tmp.path().join("wrong");
    std::fs::write(&wrong, "not-the-token-xyzzy\n").unwrap();
    let out = publish(&serve, Some(s(&wrong)), &dir, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("refused the credential (HTTP 401)"),
        "{shown}"
    );
    assert!(!shown.contains("xyzzy"), "{shown}");
    let out = publish(&serve, None, &dir, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("give --token-file"), "{}", text(&out));
    assert_eq!(lock_of(&dir), "");
    // A read-only registry publishes nothing.
    let read_only = Serve::start(&["--store", "memory", "--read-only"]);
    let out = publish(&read_only, None, &dir, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("HTTP 405, read_only"), "{}", text(&out));
    // An empty or missing token file: bad input, nothing sent.
    let empty = tmp.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let two_lines = tmp.path().join("two-lines");
    std::fs::write(&two_lines, "secret-one\nsecret-two\n").unwrap();
    // One printable line, but far too long for a token (and, were it
    // `/dev/zero`, never ending): refused unread past a bound.
    let huge = tmp.path().join("huge");
    std::fs::write(&huge, "secret-".repeat(300_000)).unwrap();
    for file in [s(&empty), s(&two_lines), s(&huge), "/nonexistent/token"] {
        let out = publish(&serve, Some(file), &dir, &[]);
        assert_eq!(code(&out), Some(2), "{}", text(&out));
        assert!(text(&out).contains("--token-file"), "{}", text(&out));
        assert!(!text(&out).contains("secret-"), "{}", text(&out));
    }
}

#[test]
fn publish_to_a_registry_that_is_down_or_not_a_registry() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let dir = copy_samples(tmp.path());
    let lock = lock_of(&dir);
    // A port nobody listens on (bound, then closed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let out = dataschema(&[
        "publish",
        "--registry",
        &url,
        "--token-file",
        &token,
        s(&dir),
    ]);
    assert_eq!(code(&out), Some(3), "{}", text(&out));
    assert!(text(&out).contains("cannot be reached"), "{}", text(&out));
    assert_eq!(lock_of(&dir), lock);

    // A bad URL, a URL with a credential, a folder that is not one: 2.
    for (url, folder, needle) in [
        ("ftp://127.0.0.1", s(&dir), "http:// or https://"),
        (
            "http://user:hunter2@127.0.0.1:1",
            s(&dir),
            "--token-file instead",
        ),
        (url.as_str(), "/nonexistent/schemas", "not a schemas folder"),
        // A credential in a URL refused for another reason first.
        ("ftp://user:hunter2@127.0.0.1", s(&dir), "--registry"),
        ("http://user:hunter2@bad host", s(&dir), "--registry"),
        ("http://user:hunter2@[::1", s(&dir), "--registry"),
    ] {
        let out = dataschema(&["publish", "--registry", url, folder]);
        assert_eq!(code(&out), Some(2), "{url}: {}", text(&out));
        assert!(text(&out).contains(needle), "{}", text(&out));
        assert!(!text(&out).contains("hunter2"), "{}", text(&out));
    }

    // A folder that fails its check: 1, as `check` says, nothing sent.
    let broken = folder(
        tmp.path(),
        "broken",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("x.v1.json", "{"),
        ],
    );
    let out = dataschema(&["publish", "--registry", &url, s(&broken)]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("x.v1.json: not JSON"), "{}", text(&out));
}

/// A loopback server answering every request with `answer` (raw HTTP),
/// until the test ends.
fn answering(answer: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            // The head, then the body its Content-Length announces.
            loop {
                match std::io::Read::read(&mut stream, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
                let text = String::from_utf8_lossy(&request).to_ascii_lowercase();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|line| line.strip_prefix("content-length:"))
                        .and_then(|n| n.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
            }
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    url
}

#[test]
fn publish_shows_a_registry_refusal_without_its_control_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = folder(
        tmp.path(),
        "one",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("greeting.v1.json", r#"{"type": "string"}"#),
        ],
    );
    // A reason and a report (one change a line) with terminal escapes.
    let body = r#"{"error":"incompatible\u001b[2J","message":"line one\nline two \u001b]0;owned\u0007\r"}"#;
    let answer: &'static str = Box::leak(
        format!(
            "HTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_boxed_str(),
    );
    let url = answering(answer);
    let out = dataschema(&["publish", "--registry", &url, s(&dir)]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(shown.contains("HTTP 409, incompatible"), "{shown}");
    assert!(
        shown.contains("line one\nline two"),
        "the report keeps its lines: {shown}"
    );
    assert!(
        !shown.contains(['\u{1b}', '\u{7}', '\r']),
        "no control character of the answer reaches the terminal: {shown:?}"
    );
}

/// Bidi overrides and isolates reorder what a terminal shows, zero-width
/// characters hide text: a registry's words reach the terminal with them
/// escaped, as `\u{..}`.
#[test]
fn publish_shows_a_registry_refusal_without_its_invisible_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = folder(
        tmp.path(),
        "one",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("greeting.v1.json", r#"{"type": "string"}"#),
        ],
    );
    let body = r#"{"error":"incompatible\u202e","message":"ok \u2066evil\u2069 zero\u200bwidth\ufeff \u061c \u00ad."}"#;
    let answer: &'static str = Box::leak(
        format!(
            "HTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_boxed_str(),
    );
    let url = answering(answer);
    let out = dataschema(&["publish", "--registry", &url, s(&dir)]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let shown = text(&out);
    for invisible in [
        '\u{202e}', '\u{2066}', '\u{2069}', '\u{200b}', '\u{feff}', '\u{61c}', '\u{ad}',
    ] {
        assert!(
            !shown.contains(invisible),
            "{invisible:?} reached the terminal: {shown:?}"
        );
    }
    assert!(shown.contains("incompatible\\u{202e}"), "{shown}");
    assert!(shown.contains("zero\\u{200b}width"), "{shown}");
}

#[test]
fn publish_refuses_a_registry_that_contradicts_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let first = registry(&tmp);
    let dir = copy_samples(tmp.path());
    let out = publish(&first, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let lock = lock_of(&dir);

    // Another registry that holds none of it: publishing there would give
    // the URNs other ids.
    let second = registry(&tmp);
    let out = publish(&second, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("does not hold it"), "{}", text(&out));
    assert!(
        text(&out).contains("remove the [ids] table"),
        "{}",
        text(&out)
    );
    assert_eq!(lock_of(&dir), lock);
    assert_eq!(get(&second.url("/urns")).json(), serde_json::json!([]));

    // Another registry that holds them under other ids.
    let third = registry(&tmp);
    let reply = call(
        "PUT",
        &third.url("/publish/schemas/urn:acme:schema:first.come:1"),
        &[("Authorization", &server::bearer())],
        br#"{"type": "null"}"#,
    );
    assert_eq!(reply.status, 201, "{}", reply.text());
    let without_ids = copy_samples(&tmp.path().join("again"));
    let out = publish(&third, Some(&token), &without_ids, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let out = publish(&third, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("but the lock records id"),
        "{}",
        text(&out)
    );
    assert_eq!(lock_of(&dir), lock);

    // A registry that holds the locked URN under the locked id, but with
    // other bytes: refused as immutable, before anything is sent.
    let fourth = registry(&tmp);
    let reply = call(
        "PUT",
        &fourth.url("/publish/schemas/urn:acme:schema:greeting:1"),
        &[("Authorization", &server::bearer())],
        br#"{"type": "integer"}"#,
    );
    assert_eq!(reply.status, 201, "{}", reply.text());
    let id = reply.json()["id"].as_u64().unwrap();
    let mine = folder(
        tmp.path(),
        "mine",
        &[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("greeting.v1.json", r#"{"type": "string"}"#),
        ],
    );
    let out = dataschema(&["lock", s(&mine)]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let path = mine.join("dataschema.lock");
    let hand_written = format!(
        "{}\n[ids]\n\"urn:acme:schema:greeting:1\" = {id}\n",
        std::fs::read_to_string(&path).unwrap()
    );
    std::fs::write(&path, &hand_written).unwrap();
    let out = publish(&fourth, Some(&token), &mine, &[]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("holds other bytes"), "{}", text(&out));
    assert_eq!(lock_of(&mine), hand_written);
}

/// A Confluent frame: magic byte, id, body.
fn frame(id: u32, body: &[u8]) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(body);
    out
}

#[test]
fn validate_through_the_registry_and_framed_offline_or_online() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let token = token_file(tmp.path());
    let dir = copy_samples(tmp.path());
    let url = serve.url("");
    let valid = common::read("payloads/order_valid.json");
    let invalid = common::read("payloads/order_invalid.json");
    let write = |name: &str, bytes: &[u8]| {
        let path = tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };

    // A URN only the registry holds.
    let extra = "urn:acme:schema:extra:1";
    let reply = call(
        "PUT",
        &serve.url(&format!("/publish/schemas/{extra}")),
        &[("Authorization", &server::bearer())],
        br#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}"#,
    );
    assert_eq!(reply.status, 201, "{}", reply.text());
    let good = write("good.json", br#"{"n": 1}"#);
    let bad = write("bad.json", br#"{"n": "one"}"#);
    for source in [
        vec!["--schemas", SCHEMAS, "--registry", &url],
        vec!["--registry", &url],
    ] {
        let run = |urn: &str, file: &Path| {
            let mut args = vec!["validate"];
            args.extend(&source);
            args.extend([urn, s(file)]);
            dataschema(&args)
        };
        let out = run(extra, &good);
        assert_eq!(code(&out), Some(0), "{source:?}: {}", text(&out));
        let out = run(extra, &bad);
        assert_eq!(code(&out), Some(1), "{}", text(&out));
        assert!(text(&out).contains("/n"), "{}", text(&out));
        let out = run("urn:acme:schema:nobody:1", &good);
        assert_eq!(code(&out), Some(2), "{}", text(&out));
        assert!(text(&out).contains("not_found"), "{}", text(&out));
    }

    // Publish the samples: the lock gets the ids frames carry.
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let id = lock_ids(&dir)
        .into_iter()
        .find(|(urn, _)| urn == "urn:acme:schema:orders.created:1")
        .unwrap()
        .1;
    let good_frame = write("good.frame", &frame(id, &valid));
    let bad_frame = write("bad.frame", &frame(id, &invalid));
    let unknown_frame = write("unknown.frame", &frame(4242, &valid));
    let broken_frame = write("broken.frame", &[0, 0]);

    // Offline: the folder's lock names the id.
    let schemas = s(&dir);
    let out = dataschema(&["validate", "--framed", "--schemas", schemas, s(&good_frame)]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("valid: schema id {id}")),
        "{}",
        text(&out)
    );
    let out = dataschema(&["validate", "--framed", "--schemas", schemas, s(&bad_frame)]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("/currency"), "{}", text(&out));
    let out = dataschema(&[
        "validate",
        "--framed",
        "--schemas",
        schemas,
        s(&unknown_frame),
    ]);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("not_found"), "{}", text(&out));
    let out = dataschema(&[
        "validate",
        "--framed",
        "--schemas",
        schemas,
        s(&broken_frame),
    ]);
    assert_eq!(
        code(&out),
        Some(1),
        "a broken frame is invalid: {}",
        text(&out)
    );
    // The samples folder itself records no ids: the id names nothing there.
    let out = dataschema(&["validate", "--framed", "--schemas", SCHEMAS, s(&good_frame)]);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("not_found"), "{}", text(&out));

    // Through the registry (GET /ids/{id}); with standard input.
    let out = dataschema(&["validate", "--framed", "--registry", &url, s(&good_frame)]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let out = dataschema_with_stdin(
        &["validate", "--framed", "--registry", &url, "-"],
        &frame(id, &invalid),
    );
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let out = dataschema_with_stdin(
        &[
            "validate",
            "--schemas",
            SCHEMAS,
            "urn:acme:schema:orders.created:1",
            "-",
        ],
        &valid,
    );
    assert_eq!(code(&out), Some(0), "{}", text(&out));

    // The registry stops: what only it held is unvalidated, unreachable.
    let (status, _) = serve.terminate();
    assert!(status.success());
    let out = dataschema(&["validate", "--registry", &url, extra, s(&good)]);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("unreachable"), "{}", text(&out));
    let out = dataschema(&[
        "validate",
        "--framed",
        "--schemas",
        schemas,
        "--registry",
        &url,
        s(&good_frame),
    ]);
    assert_eq!(code(&out), Some(0), "offline first: {}", text(&out));
    // A bad registry URL is a usage error, never "unvalidated".
    let out = dataschema(&["validate", "--registry", "ftp://x", extra, s(&good)]);
    assert_eq!(code(&out), Some(64), "{}", text(&out));
    assert!(text(&out).contains("--registry"), "{}", text(&out));
}

/// `tests/data/bundle_ids`: its lock records greeting and hello under id
/// 1, tally under id 2, and unpublished with no id.
const LOCKED_IDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bundle_ids");

/// A registry that contradicts the folder's lock is refused (unvalidated,
/// `unreachable`), never taken for the truth: an id the lock lacks
/// claimed to be a URN the lock records under another id, or a locked
/// URN with other bytes. What the lock does not speak of still comes from
/// the registry.
#[test]
fn validate_refuses_a_registry_that_contradicts_the_lock() {
    use fake_registry::{FakeRegistry, Reply};
    let tally = std::fs::read(Path::new(LOCKED_IDS).join("tally.v1.json")).unwrap();
    let other = br#"{"type": "object", "required": ["n"]}"#.to_vec();
    let hostile = FakeRegistry::start(move |path| match path {
        // Tally is locked under id 2: the registry says 7 is tally.
        "/ids/7" => Reply::native_json("urn:acme:schema:tally:1", Some(7), &tally),
        // Unpublished is locked with no id, and other bytes than these.
        "/ids/8" => Reply::native_json(
            "urn:acme:schema:unpublished:1",
            Some(8),
            br#"{"type": "object"}"#,
        ),
        // A URN the lock does not know: the registry's word is taken.
        "/ids/9" => Reply::native_json("urn:acme:schema:other:1", Some(9), &other),
        "/schemas/urn:acme:schema:other:1" => {
            Reply::native_json("urn:acme:schema:other:1", Some(9), &other)
        }
        _ => Reply::not_found(),
    });
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let url = hostile.url();
    let framed = |file: &Path| {
        dataschema(&[
            "validate",
            "--framed",
            "--schemas",
            LOCKED_IDS,
            "--registry",
            &url,
            s(file),
        ])
    };

    // A tally payload under the id the registry made up for it.
    let out = framed(&write("seven.frame", &frame(7, br#"{"count": 4}"#)));
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("unreachable"), "{}", text(&out));
    assert!(!text(&out).contains("valid:"), "{}", text(&out));
    // A payload valid for the registry's bytes of a locked URN (an
    // object) and for the folder's own none (a string of at most 3).
    for body in [&br#"{"a": 1}"#[..], br#""abc""#] {
        let out = framed(&write("eight.frame", &frame(8, body)));
        assert_eq!(code(&out), Some(2), "{}", text(&out));
        assert!(text(&out).contains("unreachable"), "{}", text(&out));
    }
    // The lock's own ids still validate offline, and the registry still
    // answers what the lock does not speak of.
    let out = framed(&write("one.frame", &frame(1, br#"{"name": "Ada"}"#)));
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let out = framed(&write("nine.frame", &frame(9, br#"{"n": 1}"#)));
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let out = framed(&write("nine_bad.frame", &frame(9, br#"{}"#)));
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let out = dataschema(&[
        "validate",
        "--schemas",
        LOCKED_IDS,
        "--registry",
        &url,
        "urn:acme:schema:other:1",
        s(&write("other.json", br#"{"n": 1}"#)),
    ]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let asked = hostile.requests();
    assert!(asked.contains(&"/ids/7".to_owned()), "{asked:?}");
    assert!(asked.contains(&"/ids/8".to_owned()), "{asked:?}");
}

#[test]
fn usage_errors_exit_64_for_every_command_and_help_exits_0() {
    let payload = common::data("payloads/order_valid.json");
    let payload = payload.to_str().unwrap();
    let urn = "urn:acme:schema:orders.created:1";
    for (args, needle) in [
        (vec![], "Usage"),
        (vec!["frobnicate"], "unrecognized subcommand"),
        (vec!["check", "--bogus", SCHEMAS], "--bogus"),
        (vec!["check"], "required"),
        (vec!["lock", SCHEMAS, "extra"], "unexpected argument"),
        (vec!["publish", SCHEMAS], "--registry"),
        (
            vec![
                "publish",
                "--registry",
                "http://127.0.0.1:1",
                "--mode",
                "sideways",
                SCHEMAS,
            ],
            "sideways",
        ),
        (vec!["validate", urn, payload], "--schemas"),
        (
            vec!["validate", "--schemas", SCHEMAS, urn],
            "DATASCHEMA FILE",
        ),
        (
            vec!["validate", "--schemas", SCHEMAS, urn, payload, "extra"],
            "unexpected",
        ),
        (
            vec!["validate", "--framed", "--schemas", SCHEMAS, urn, payload],
            "FILE alone",
        ),
        (vec!["validate", "--schemas"], "value is required"),
        (vec!["diff", "one.json"], "required"),
        (vec!["compat", "--mode", "backward", SCHEMAS], "required"),
        (
            vec!["serve", "--listen", "not-an-address"],
            "not-an-address",
        ),
    ] {
        let out = dataschema(&args);
        assert_eq!(code(&out), Some(64), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(needle), "{args:?}: {}", text(&out));
    }
    for args in [
        vec!["--help"],
        vec!["--version"],
        vec!["help"],
        vec!["validate", "--help"],
        vec!["publish", "--help"],
    ] {
        let out = dataschema(&args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", text(&out));
        assert!(!out.stdout.is_empty(), "{args:?}: printed on stdout");
    }
    // Not usage errors: the documented codes stay.
    let out = dataschema(&[
        "validate",
        "--schemas",
        SCHEMAS,
        "urn:acme:schema:orders.created:9",
        payload,
    ]);
    assert_eq!(code(&out), Some(2), "unvalidated: {}", text(&out));
    let out = dataschema(&["check", "/nonexistent/schemas"]);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
}

#[cfg(feature = "avro")]
#[test]
fn publish_sends_avro_references_the_confluent_api_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = registry(&tmp);
    let token = token_file(tmp.path());
    let dir = tmp.path().join("bundle_avro");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bundle_avro"),
        &dir,
    );
    let out = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    // Each defining schema before the schemas using its types.
    let shown = text(&out);
    let at = |urn: &str| {
        shown
            .find(&format!("published {urn}"))
            .unwrap_or_else(|| panic!("{urn}: {shown}"))
    };
    assert!(at("urn:acme:schema:money:1") < at("urn:acme:schema:payment:1"));
    assert!(at("urn:acme:schema:payment:2") < at("urn:acme:schema:refund:1"));
    for (subject, references) in [
        (
            "payment/versions/2",
            serde_json::json!([{"name": "acme.common.Money", "subject": "money", "version": 1}]),
        ),
        (
            "refund/versions/1",
            serde_json::json!([{"name": "acme.pay.Payment", "subject": "payment", "version": 2}]),
        ),
    ] {
        let read = call("GET", &serve.url(&format!("/subjects/{subject}")), &[], b"");
        assert_eq!(read.status, 200, "{subject}: {}", read.text());
        assert_eq!(read.json()["references"], references, "{subject}");
        let id = read.json()["id"].as_u64().unwrap();
        let by_id = call("GET", &serve.url(&format!("/schemas/ids/{id}")), &[], b"");
        assert_eq!(by_id.json()["references"], references, "{subject}");
    }
    let by = call(
        "GET",
        &serve.url("/subjects/money/versions/1/referencedby"),
        &[],
        b"",
    );
    assert_eq!(by.json().as_array().map(Vec::len), Some(2), "{}", by.text());
    // A second run changes nothing.
    let again = publish(&serve, Some(&token), &dir, &[]);
    assert_eq!(code(&again), Some(0), "{}", text(&again));
}

/// A registry's words reach `validate`'s output (a schema's pattern in a
/// violation, here with U+202E, an ESC sequence and BEL in it): escaped,
/// as `publish` and `import` show a remote's words.
#[test]
fn validate_shows_a_registrys_words_escaped() {
    use fake_registry::{FakeRegistry, Reply};
    let schema = r#"{"type": "string", "pattern": "^\u202ea\u001b0;x\u0007$"}"#;
    let schema = schema.as_bytes().to_vec();
    let hostile = FakeRegistry::start(move |path| match path {
        "/schemas/urn:acme:schema:evil:1" => {
            Reply::native_json("urn:acme:schema:evil:1", Some(3), &schema)
        }
        _ => Reply::not_found(),
    });
    let tmp = tempfile::tempdir().unwrap();
    let payload = tmp.path().join("payload.json");
    std::fs::write(&payload, br#""b""#).unwrap();
    let url = hostile.url();
    let out = dataschema(&[
        "validate",
        "--registry",
        &url,
        "urn:acme:schema:evil:1",
        s(&payload),
    ]);
    let shown = text(&out);
    assert_eq!(code(&out), Some(1), "{shown}");
    assert!(
        !shown.contains(['\u{1b}', '\u{7}', '\u{202e}']),
        "raw control characters shown: {shown:?}"
    );
    assert!(shown.contains("\\u{202e}"), "{shown}");
}
