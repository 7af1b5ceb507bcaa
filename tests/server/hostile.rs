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

/// The `.proto` text of file `i` of an import chain: `chain/f{i}.proto`
/// imports `chain/f{i-1}.proto` and holds a field of its message.
fn chain_file(i: usize, extra: &str) -> String {
    if i == 0 {
        return format!(
            "syntax = \"proto3\";\npackage chain;\nmessage M0 {{ string v = 1;{extra} }}\n"
        );
    }
    format!(
        "syntax = \"proto3\";\npackage chain;\nimport \"chain/f{:04}.proto\";\nmessage M{i} {{ M{} prev = 1;{extra} }}\n",
        i - 1,
        i - 1
    )
}

/// The reference file `i` of the chain gives (to file `i - 1`), as a
/// Confluent request names it.
fn chain_reference(i: usize) -> serde_json::Value {
    serde_json::json!([{
        "name": format!("chain/f{:04}.proto", i - 1),
        "subject": format!("chain-f{:04}", i - 1),
        "version": 1,
    }])
}

/// An import chain of 1,000 `.proto` files (each importing the one
/// before it, given as references, as Confluent's clients register
/// them), held in a SQLite store the server then serves: requests that
/// compile its head (a lookup, a compatibility test, a `format` read, the
/// console's version page: 1,000 files, the most a schema may import) are
/// answered within bounds, and a schema importing the head (1,001 files)
/// is refused with a 422 that says why, anonymous or not; never a 5xx, and
/// the server lives (class 1 of issue 37: every recursive reader, the
/// references' included). A compatible change over the chain is judged
/// compatible: the comparison no longer follows the unchanged imports
/// (it answered `COMPARISON_TOO_DEEP` under 128 levels of
/// `FIELD_NAMED_TYPE_CHANGED`, none of them a change).
#[test]
fn an_import_chain_of_a_thousand_files_is_answered_within_bounds() {
    use dataschema::store::Store;
    use dataschema::{Language, Reference, Schema, SqliteStore, Urn};
    const FILES: usize = 1_000;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("chain.db");
    {
        let store = SqliteStore::open(&db).unwrap();
        for i in 0..FILES {
            let urn = Urn::new("acme", &format!("chain-f{i:04}"), 1).unwrap();
            let mut schema = Schema::new(urn, Language::Protobuf, chain_file(i, ""), None);
            if i > 0 {
                let target = Urn::new("acme", &format!("chain-f{:04}", i - 1), 1).unwrap();
                schema = schema.with_references([Reference::new(
                    format!("chain/f{:04}.proto", i - 1),
                    target,
                )]);
            }
            store.put(&schema).unwrap();
        }
    }
    let mut serve = Serve::start(&[
        "--store",
        &format!("sqlite:{}", db.display()),
        "--token-file",
        &token_file(dir.path()),
        // A debug build compiles 1,000 files in seconds, not milliseconds.
        "--request-timeout",
        "300",
        "--compile-wait",
        "300",
    ]);
    let head = FILES - 1;
    let bearer = server::bearer();
    // Within bounds: the head with everything it imports (1,000 files).
    let started = std::time::Instant::now();
    let lookup = call(
        "POST",
        &serve.url(&format!("/subjects/chain-f{head:04}")),
        &[CONFLUENT],
        serde_json::json!({
            "schemaType": "PROTOBUF",
            "schema": chain_file(head, ""),
            "references": chain_reference(head),
        })
        .to_string()
        .as_bytes(),
    );
    alive(&mut serve, "a lookup of the chain's head", &lookup);
    assert_eq!(lookup.status, 200, "{}", lookup.text());
    assert_eq!(lookup.json()["version"], 1, "{}", lookup.text());
    println!("the lookup took {:?}", started.elapsed());
    let test = call(
        "POST",
        &serve.url(&format!(
            "/compatibility/subjects/chain-f{head:04}/versions?verbose=true"
        )),
        &[CONFLUENT],
        serde_json::json!({
            "schemaType": "PROTOBUF",
            "schema": chain_file(head, " string note = 2;"),
            "references": chain_reference(head),
        })
        .to_string()
        .as_bytes(),
    );
    alive(
        &mut serve,
        "a compatibility test of the chain's head",
        &test,
    );
    assert_eq!(test.status, 200, "{}", test.text());
    assert_eq!(test.json()["is_compatible"], true, "{}", test.text());
    let read = get(&serve.url(&format!(
        "/subjects/chain-f{head:04}/versions/1?format=serialized"
    )));
    alive(&mut serve, "a serialized read of the chain's head", &read);
    assert_eq!(read.status, 200, "{}", read.text());
    let page = get(&serve.url(&format!("/ui/version?name=chain-f{head:04}&v=1")));
    alive(&mut serve, "the console's page of the chain's head", &page);
    assert_eq!(page.status, 200);
    // Past the bound: a schema importing the head (1,001 files), sent
    // anonymously to a compatibility test and with the token to a
    // register, is refused saying why.
    let over = serde_json::json!({
        "schemaType": "PROTOBUF",
        "schema": chain_file(FILES, ""),
        "references": chain_reference(FILES),
    });
    for (path, headers) in [
        (
            format!("/compatibility/subjects/chain-f{head:04}/versions"),
            vec![CONFLUENT],
        ),
        (
            "/subjects/chain-top/versions".to_owned(),
            vec![CONFLUENT, ("Authorization", bearer.as_str())],
        ),
    ] {
        let answer = call(
            "POST",
            &serve.url(&path),
            &headers,
            over.to_string().as_bytes(),
        );
        alive(&mut serve, &format!("POST {path} of 1,001 files"), &answer);
        assert_eq!(answer.status, 422, "{path}: {}", answer.text());
        assert_eq!(answer.code(), 42201, "{}", answer.text());
        assert!(
            answer.text().contains("imports more than 1000 files"),
            "{path}: {}",
            answer.text()
        );
    }
    assert_eq!(get(&serve.url("/healthz")).status, 200);
    assert!(serve.child.try_wait().unwrap().is_none());
    let _ = serve.child.kill();
}

/// The server still runs after `what`, and answered it below 500.
fn alive(serve: &mut Serve, what: &str, answer: &server::Reply) {
    assert!(
        serve.child.try_wait().unwrap().is_none(),
        "the server died on {what}: {}",
        serve.stderr.lock().unwrap()
    );
    assert!(
        answer.status < 500,
        "{what}: {} {}",
        answer.status,
        answer.text()
    );
    println!("{what}: {} {}", answer.status, clip(&answer.text()));
}

/// The first 300 characters of an answer, for the test's log.
fn clip(text: &str) -> String {
    text.chars().take(300).collect()
}
