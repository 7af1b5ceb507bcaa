//! `dataschema frame`: the frame on standard output, ids from the folder's
//! lock; what `validate --framed` then says; the exit codes.
#![cfg(feature = "cli")]

use std::process::Output;

use crate::common::data;
use crate::run::dataschema_with_stdin;

fn folder() -> String {
    data("bundle_ids").to_str().unwrap().to_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn frame_writes_the_frame_with_the_locked_id_and_validate_takes_it() {
    let payload = br#"{"name": "Ada"}"#;
    let out = dataschema_with_stdin(
        &[
            "frame",
            "--schemas",
            &folder(),
            "urn:acme:schema:tally:1",
            "-",
        ],
        br#"{"count": 3}"#,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, b"\0\0\0\0\x02{\"count\": 3}");

    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), payload).unwrap();
    let path = file.path().to_str().unwrap();
    let out = dataschema_with_stdin(
        &[
            "frame",
            "--schemas",
            &folder(),
            "urn:acme:schema:greeting:1",
            path,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout[..5], [0, 0, 0, 0, 1]);
    assert_eq!(out.stdout[5..], payload[..]);
    let check = dataschema_with_stdin(
        &["validate", "--framed", "--schemas", &folder(), "-"],
        &out.stdout,
    );
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
}

#[test]
fn frame_exit_codes_say_why_nothing_was_written() {
    let run = |args: &[&str], stdin: &[u8]| {
        let out = dataschema_with_stdin(args, stdin);
        (out.status.code(), out.stdout.is_empty(), stderr(&out))
    };
    let f = folder();
    // Invalid: 1, the violation named.
    let (code, empty, err) = run(
        &["frame", "--schemas", &f, "urn:acme:schema:tally:1", "-"],
        br#"{"count": -1}"#,
    );
    assert_eq!((code, empty), (Some(1), true), "{err}");
    assert!(err.contains("/count") && err.contains("invalid"), "{err}");
    // Locked without an id: 2, no_id.
    let (code, empty, err) = run(
        &[
            "frame",
            "--schemas",
            &f,
            "urn:acme:schema:unpublished:1",
            "-",
        ],
        br#""abc""#,
    );
    assert_eq!((code, empty), (Some(2), true), "{err}");
    assert!(err.contains("no_id"), "{err}");
    // Held nowhere: 2, not_found.
    let (code, _, err) = run(
        &["frame", "--schemas", &f, "urn:acme:schema:nobody:1", "-"],
        b"{}",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not_found"), "{err}");
    // The registry asked for the id, and down: 3, retry later.
    let (code, empty, err) = run(
        &[
            "frame",
            "--schemas",
            &f,
            "--registry",
            "http://127.0.0.1:1",
            "urn:acme:schema:unpublished:1",
            "-",
        ],
        br#""abc""#,
    );
    assert_eq!((code, empty), (Some(3), true), "{err}");
    assert!(err.contains("unreachable"), "{err}");
    // A message named for a JSON Schema: 2, no_message.
    let (code, _, err) = run(
        &[
            "frame",
            "--schemas",
            &f,
            "--message",
            "X",
            "urn:acme:schema:tally:1",
            "-",
        ],
        br#"{"count": 3}"#,
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no_message"), "{err}");
    // Usage: no source, not a URN; no input: an unreadable file.
    let (code, _, _) = run(&["frame", "urn:acme:schema:tally:1", "-"], b"");
    assert_eq!(code, Some(64));
    let (code, _, _) = run(&["frame", "--schemas", &f, "not-a-urn", "-"], b"");
    assert_eq!(code, Some(64));
    let (code, _, err) = run(
        &[
            "frame",
            "--schemas",
            &f,
            "urn:acme:schema:tally:1",
            "/nonexistent/x",
        ],
        b"",
    );
    assert_eq!(code, Some(66), "{err}");
}

/// A protobuf schema with a root (Ping): `frame --message` frames its
/// file's other message (Pong, indexes `[1]`), and `validate --framed`
/// validates that frame as a Pong, as Confluent's deserializer reads the
/// indexes; the Ping's body under Pong's indexes is invalid; indexes naming
/// no message are refused, saying so.
#[test]
fn a_frame_of_a_rooted_protobuf_schema_names_its_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("dataschema.toml"),
        "namespace = \"acme\"\n[roots]\n\"ping.v1\" = \"acme.v1.Ping\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ping.v1.proto"),
        "syntax = \"proto3\";\npackage acme.v1;\nmessage Ping { string id = 1; }\nmessage Pong { int64 at = 1; }\n",
    )
    .unwrap();
    dataschema::build::lock(dir.path()).unwrap();
    let urn = crate::common::urn("urn:acme:schema:ping:1");
    let checked = dataschema::build::check(dir.path()).unwrap();
    dataschema::build::record_published(dir.path(), &checked, &[(urn.clone(), 7)]).unwrap();
    let schemas = dir.path().to_str().unwrap();

    let pong = b"\x08\x05"; // at = 5
    let out = dataschema_with_stdin(
        &[
            "frame",
            "--schemas",
            schemas,
            "--message",
            "acme.v1.Pong",
            urn.as_str(),
            "-",
        ],
        pong,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, b"\0\0\0\0\x07\x02\x02\x08\x05");
    let validate = |frame: &[u8]| {
        let out =
            dataschema_with_stdin(&["validate", "--framed", "--schemas", schemas, "-"], frame);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        (out.status.code(), text)
    };
    let (code, text) = validate(&out.stdout);
    assert_eq!(code, Some(0), "{text}");
    // A Ping's body (field 1 a string) under Pong's indexes: invalid.
    let (code, text) = validate(b"\0\0\0\0\x07\x02\x02\x0a\x01x");
    assert_eq!(code, Some(1), "{text}");
    // The same body as the root (indexes [0]): a Ping.
    let (code, text) = validate(b"\0\0\0\0\x07\x00\x0a\x01x");
    assert_eq!(code, Some(0), "{text}");
    // Indexes [5]: the file has two messages.
    let (code, text) = validate(b"\0\0\0\0\x07\x02\x0a\x08\x05");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("index 0 is 5, and there are 2 top-level messages"),
        "{text}"
    );
}
