//! Confluent's own Python `AvroSerializer` and `AvroDeserializer` against
//! the real server (`tests/python/confluent_avro.py`):
//! `auto.register.schemas` on and off, `use.latest.version`. The frames it
//! writes validate through `Guard::validate_framed` over the server's
//! registry, through the fallback resolver (both APIs), and from a bundle:
//! the same `.avsc` files as a schemas folder whose `dataschema.lock`
//! records the ids the server gave, with no registry at all.
//!
//! `DATASCHEMA_PYTHON` missing or without `confluent-kafka` and `fastavro`:
//! under `CI` the test fails saying so; elsewhere it prints that it skips.
#![cfg(all(
    feature = "http",
    feature = "server",
    feature = "avro",
    feature = "build"
))]

use crate::common;
use crate::server;

use std::path::{Path, PathBuf};
use std::process::Command;

use dataschema::http::{Api, HttpResolver};
use dataschema::{build, Guard, Outcome, Reason, Registry, Urn};

/// `tests/data/avro/payments`: `payments-value.v1.avsc` and `.v2.avsc`.
fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/avro/payments")
}

/// What the script wrote: the three frames and the two ids.
struct Frames {
    v1: Vec<u8>,
    lookup: Vec<u8>,
    latest: Vec<u8>,
    ids: [u32; 2],
}

fn run_script(python: &str, running: &server::Running, out: &Path) -> Frames {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/confluent_avro.py"
    );
    let output = Command::new(python)
        .arg(script)
        .arg(running.url(""))
        .arg(server::TOKEN)
        .arg(folder().join("payments-value.v1.avsc"))
        .arg(folder().join("payments-value.v2.avsc"))
        .arg(out)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{text}");
    assert!(output.status.success(), "confluent_avro.py: {text}");
    let read = |name: &str| std::fs::read(out.join(name)).unwrap();
    let ids: Vec<u32> = std::fs::read_to_string(out.join("ids.txt"))
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    Frames {
        v1: read("v1.bin"),
        lookup: read("lookup.bin"),
        latest: read("latest.bin"),
        ids: [ids[0], ids[1]],
    }
}

fn urn(version: u32) -> Urn {
    common::urn(&format!("urn:acme:schema:payments-value:{version}"))
}

/// The folder copied, locked, and the server's ids recorded as
/// `dataschema publish` records them; loaded as the CLI and a build
/// script load it (its schemas with the lock's ids).
fn locked_bundle(dir: &Path, ids: [u32; 2]) -> Registry {
    for entry in std::fs::read_dir(folder()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    build::lock(dir).unwrap();
    let checked = build::check(dir).unwrap();
    let published = [(urn(1), ids[0]), (urn(2), ids[1])];
    assert_eq!(
        build::record_published(dir, &checked, &published).unwrap(),
        [urn(1), urn(2)]
    );
    let checked = build::check(dir).unwrap();
    let locked: Vec<_> = checked
        .sources
        .iter()
        .filter_map(|s| s.id.map(|id| (s.schema.urn().clone(), id)))
        .collect();
    assert_eq!(locked, published);
    Registry::embed_with_ids(checked.schemas(), locked).unwrap()
}

/// Every frame validates; a frame cut short is invalid under its URN; an
/// id nobody gave fails open, counted.
fn check(what: &str, guard: &Guard, frames: &Frames) {
    for (name, frame) in [
        ("v1", &frames.v1),
        ("lookup", &frames.lookup),
        ("latest", &frames.latest),
    ] {
        let outcome = guard.validate_framed(frame);
        assert!(
            matches!(outcome, Ok(Outcome::Validated)),
            "{what}: {name}: {outcome:?}"
        );
    }
    // The latest frame without its last byte (the `channel` string's).
    let cut = &frames.latest[..frames.latest.len() - 1];
    let invalid = guard.validate_framed(cut).expect_err("a frame cut short");
    assert_eq!(invalid.urn(), &urn(2), "{what}: {invalid}");
    // The v1 frame with a byte more: Avro allows no trailing bytes.
    let mut longer = frames.v1.clone();
    longer.push(0);
    let invalid = guard.validate_framed(&longer).expect_err("a trailing byte");
    assert_eq!(invalid.urn(), &urn(1), "{what}: {invalid}");
    let mut unknown = frames.v1.clone();
    let other = frames.ids[0].max(frames.ids[1]) + 1000;
    unknown[1..5].copy_from_slice(&other.to_be_bytes());
    match guard.validate_framed(&unknown) {
        Ok(Outcome::Unvalidated(u)) => assert_eq!(u.reason(), Reason::NotFound, "{what}"),
        other => panic!("{what}: an unknown id: {other:?}"),
    }
    assert_eq!(guard.unvalidated(), 1, "{what}");
}

#[test]
fn confluents_avro_serializer_frames_what_validate_framed_checks() {
    let Some(python) = common::python_importing("confluent_kafka.schema_registry.avro") else {
        return;
    };
    let running = server::start();
    let out = tempfile::tempdir().unwrap();
    let frames = run_script(&python, &running, out.path());
    assert_eq!(&frames.v1[1..5], frames.ids[0].to_be_bytes());
    assert_eq!(
        frames.lookup, frames.v1,
        "auto off: the same id, the same bytes"
    );
    assert_eq!(&frames.latest[1..5], frames.ids[1].to_be_bytes());
    for (version, id) in [(1, frames.ids[0]), (2, frames.ids[1])] {
        assert_eq!(running.registry.id_of(&urn(version)).unwrap(), id);
    }

    check(
        "the server's registry",
        &Guard::new(running.registry.clone()),
        &frames,
    );
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
        // The samples bundle lacks the schemas: only the fallback has them.
        let guard = Guard::builder(common::samples()).fallback(fallback).build();
        check(&format!("the fallback ({api:?})"), &guard, &frames);
    }

    let schemas = tempfile::tempdir().unwrap();
    let bundle = locked_bundle(schemas.path(), frames.ids);
    // No registry: the lock's ids are all the guard knows of the server.
    drop(running);
    check("the bundle with locked ids", &Guard::new(bundle), &frames);
}
