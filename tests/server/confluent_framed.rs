//! Confluent's own Python serializer (`confluent-kafka`'s `JSONSerializer`,
//! auto-registering into our server's Confluent API) frames payloads, and
//! `Guard::validate_framed`, with the server as its fallback, checks them:
//! the valid record validates, the invalid one (serialized with the
//! serializer's `validate: False`) is invalid, through either API of the
//! `HttpResolver`.
//!
//! `DATASCHEMA_PYTHON` missing or without `confluent-kafka`: under `CI`
//! the test fails saying so; elsewhere it prints that it skips.
#![cfg(all(feature = "http", feature = "server", feature = "json"))]

use crate::common;
use crate::server;

use std::process::Command;

use dataschema::http::{Api, HttpResolver};
use dataschema::{Guard, Outcome, Reason};

fn python() -> Option<String> {
    common::python_importing("confluent_kafka.schema_registry.json_schema")
}

#[test]
fn confluents_json_serializer_frames_what_validate_framed_checks() {
    let Some(python) = python() else { return };
    let running = server::start();
    let out_dir = tempfile::tempdir().unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/confluent_framed.py"
    );
    let out = Command::new(&python)
        .arg(script)
        .arg(running.url(""))
        .arg(server::TOKEN)
        .arg(out_dir.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "confluent_framed.py: {text}");

    let valid = std::fs::read(out_dir.path().join("valid.bin")).unwrap();
    let invalid = std::fs::read(out_dir.path().join("invalid.bin")).unwrap();
    let id: u32 = std::fs::read_to_string(out_dir.path().join("id.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(valid[0], 0, "Confluent's magic byte");
    assert_eq!(u32::from_be_bytes(valid[1..5].try_into().unwrap()), id);
    // The server holds it under the subject's URN.
    let urn = common::urn("urn:acme:schema:orders-value:1");
    assert_eq!(running.registry.id_of(&urn).unwrap(), id);

    for api in [
        Api::Confluent {
            namespace: "acme".to_owned(),
        },
        Api::Native,
    ] {
        let fallback = HttpResolver::builder(running.url(""))
            .api(api.clone())
            .build()
            .unwrap();
        // The bundle lacks the schema: only the fallback has the id.
        let guard = Guard::builder(common::samples()).fallback(fallback).build();
        let outcome = guard.validate_framed(&valid);
        assert!(
            matches!(outcome, Ok(Outcome::Validated)),
            "{api:?}: the valid frame: {outcome:?}"
        );
        let refused = guard
            .validate_framed(&invalid)
            .expect_err("the invalid frame is Invalid");
        assert_eq!(refused.urn(), &urn, "{api:?}");
        let mut paths: Vec<&str> = refused.violations().iter().map(|v| v.path()).collect();
        paths.sort();
        assert_eq!(paths, ["/amount", "/id"], "{api:?}: {refused}");

        // An id the server never assigned fails open, counted.
        let mut unknown = valid.clone();
        unknown[1..5].copy_from_slice(&(id + 1000).to_be_bytes());
        match guard.validate_framed(&unknown) {
            Ok(Outcome::Unvalidated(u)) => assert_eq!(u.reason(), Reason::NotFound, "{api:?}"),
            other => panic!("{api:?}: an unknown id: {other:?}"),
        }
        assert_eq!(guard.unvalidated(), 1, "{api:?}");
    }
}
