//! Hostile input against a running `dataschema serve` (round 3): no
//! anonymous request takes the server down, and every refusal is a clear
//! 4xx.
#![cfg(feature = "cli")]

use crate::common::data;
use crate::server;

use server::process::{token_file, Serve};
use server::{call, confluent, get};

const CONFLUENT: (&str, &str) = ("Content-Type", "application/vnd.schemaregistry.v1+json");

fn protobuf_request(text: &str) -> serde_json::Value {
    serde_json::json!({"schemaType": "PROTOBUF", "schema": text})
}

/// A 6 kB `.proto` whose custom option nests 1,200 messages deep, sent
/// with no credential to a lookup of a subject nobody holds and to a
/// compatibility test, then with one to a register: each is `422`
/// (`42201`, saying how deep the text nests and where) and the server
/// answers on. (It aborted: `tokio-rt-worker has overflowed its stack`.)
#[test]
fn a_deeply_nested_proto_is_refused_and_the_server_lives() {
    let dir = tempfile::tempdir().unwrap();
    let mut serve = Serve::start(&["--store", "memory", "--token-file", &token_file(dir.path())]);
    let text = std::fs::read_to_string(data("hostile/deep_option.proto")).unwrap();
    let body = protobuf_request(&text).to_string();
    for path in [
        "/subjects/nobody-holds-this",
        "/compatibility/subjects/nobody-holds-this/versions/latest",
        "/compatibility/subjects/nobody-holds-this/versions",
    ] {
        let answer = call("POST", &serve.url(path), &[CONFLUENT], body.as_bytes());
        assert!(
            serve.child.try_wait().unwrap().is_none(),
            "the server died on POST {path}: {}",
            serve.stderr.lock().unwrap()
        );
        match answer.status {
            // A lookup of a subject nobody holds, or a test against none.
            404 | 200 => {}
            status => {
                assert_eq!(status, 422, "POST {path}: {}", answer.text());
                assert_eq!(answer.code(), 42201, "{}", answer.text());
                assert!(answer.text().contains("levels deep"), "{}", answer.text());
            }
        }
    }
    let registered = confluent(
        "POST",
        &serve.url("/subjects/deep/versions"),
        &protobuf_request(&text),
    );
    assert_eq!(registered.status, 422, "{}", registered.text());
    assert_eq!(registered.code(), 42201);
    assert!(
        registered
            .text()
            .contains("nests brackets more than 64 levels deep (line 7"),
        "{}",
        registered.text()
    );
    // Held subject, a lookup that must compile: refused the same way.
    let held = confluent(
        "POST",
        &serve.url("/subjects/deep/versions"),
        &protobuf_request("syntax = \"proto3\";\nmessage M { M m = 1; }\n"),
    );
    assert_eq!(held.status, 200, "{}", held.text());
    let lookup = call(
        "POST",
        &serve.url("/subjects/deep"),
        &[CONFLUENT],
        body.as_bytes(),
    );
    assert_eq!(lookup.status, 422, "{}", lookup.text());
    assert!(lookup.text().contains("levels deep"), "{}", lookup.text());
    assert_eq!(get(&serve.url("/healthz")).status, 200);
    assert!(serve.child.try_wait().unwrap().is_none());
    let _ = serve.child.kill();
}

/// A lookup (`POST /subjects/{s}`, no credential needed) of a subject that
/// holds nothing answers `404` (`40401`) before the schema sent is read:
/// eight anonymous 1 MB `.proto` lookups of absent subjects took a server
/// from 8 MB to 4.5 GB (each compiled, then found nothing to match).
/// Shown by a schema that would be refused if it were compiled: the
/// subject's absence answers first. A held subject still compiles it.
#[test]
fn a_lookup_of_an_absent_subject_answers_404_without_compiling() {
    let running = server::start();
    let broken = protobuf_request("syntax = \"proto3\";\nmessage M { Nowhere n = 1; }\n");
    let deep =
        protobuf_request(&std::fs::read_to_string(data("hostile/deep_option.proto")).unwrap());
    let large = protobuf_request(&format!(
        "syntax = \"proto3\";\n{}",
        (0..20_000)
            .map(|i| format!("message M{i} {{ string f = 1; }}\n"))
            .collect::<String>()
    ));
    for body in [&broken, &deep, &large] {
        for path in [
            "/subjects/nobody-holds-this",
            "/subjects/nobody-holds-this?deleted=true",
        ] {
            let answer = confluent("POST", &running.url(path), body);
            assert_eq!(answer.status, 404, "{path}: {}", answer.text());
            assert_eq!(answer.code(), 40401, "{}", answer.text());
        }
    }
    // A subject whose only version is soft-deleted: 404 to a live lookup.
    let held = confluent(
        "POST",
        &running.url("/subjects/gone/versions"),
        &protobuf_request("syntax = \"proto3\";\nmessage G { string g = 1; }\n"),
    );
    assert_eq!(held.status, 200, "{}", held.text());
    let deleted = confluent(
        "DELETE",
        &running.url("/subjects/gone"),
        &serde_json::json!({}),
    );
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    let answer = confluent("POST", &running.url("/subjects/gone"), &broken);
    assert_eq!(answer.code(), 40401, "{}", answer.text());
    // With deleted=true the subject holds a version: the schema is read.
    let answer = confluent("POST", &running.url("/subjects/gone?deleted=true"), &broken);
    assert_eq!(answer.code(), 42201, "{}", answer.text());
}
