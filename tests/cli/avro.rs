//! The command-line tool with Avro: `dataschema publish` of an `.avsc`
//! folder (`tests/data/avro/payments`) to the real server binary, the lock
//! recording its ids; `dataschema validate --schemas DIR URN FILE` with a
//! binary Avro datum, and `--framed` with a framed one, offline from the
//! folder's lock and through the registry. The datums
//! (`tests/data/payloads/payment_v*.avro`) were written by PyPI
//! `fastavro`'s `schemaless_writer` with the folder's schemas.
#![cfg(all(feature = "cli", feature = "avro"))]

use crate::common;
use crate::run::{dataschema, s, text};
use crate::server;

use std::path::{Path, PathBuf};

use server::get;
use server::process::{token_file, Serve};

const FOLDER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/avro/payments");
const V1: &str = "urn:acme:schema:payments-value:1";
const V2: &str = "urn:acme:schema:payments-value:2";

/// The folder copied into `into/schemas` (the lock is written there).
fn copy_folder(into: &Path) -> PathBuf {
    let dir = into.join("schemas");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(FOLDER).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// The `[ids]` of the folder's lock, by URN.
fn lock_id(dir: &Path, urn: &str) -> Option<u32> {
    let lock = std::fs::read_to_string(dir.join("dataschema.lock")).ok()?;
    let (_, ids) = lock.split_once("[ids]\n")?;
    ids.lines().find_map(|line| {
        let (key, id) = line.split_once(" = ")?;
        (key.trim_matches('"') == urn).then(|| id.parse().unwrap())
    })
}

fn frame(id: u32, body: &[u8]) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(body);
    out
}

#[test]
fn publish_of_an_avsc_folder_records_its_ids_and_serves_it_to_both_apis() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", &token_file(tmp.path())]);
    let token = token_file(tmp.path());
    let dir = copy_folder(tmp.path());
    let out = dataschema(&["check", s(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let url = serve.url("");
    let publish = || {
        dataschema(&[
            "publish",
            "--registry",
            &url,
            "--token-file",
            &token,
            s(&dir),
        ])
    };
    let out = publish();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("2 published, 0 already published"),
        "{}",
        text(&out)
    );
    let ids = [V1, V2].map(|urn| lock_id(&dir, urn).expect("the lock records the id"));
    assert_ne!(ids[0], ids[1]);
    for (urn, id, file) in [
        (V1, ids[0], "payments-value.v1.avsc"),
        (V2, ids[1], "payments-value.v2.avsc"),
    ] {
        // The native API: the file's bytes, as Avro, under the lock's id.
        let reply = get(&serve.url(&format!("/schemas/{urn}")));
        assert_eq!(reply.status, 200, "{urn}: {}", reply.text());
        assert_eq!(reply.header("dataschema-language"), Some("avro"));
        assert_eq!(reply.header("dataschema-id"), Some(id.to_string().as_str()));
        assert_eq!(
            reply.body,
            std::fs::read(Path::new(FOLDER).join(file)).unwrap()
        );
        // The Confluent API: the subject's version, the same id, Avro
        // (no `schemaType`, as Confluent answers Avro).
        let version = urn.rsplit(':').next().unwrap();
        let reply = get(&serve.url(&format!("/subjects/payments-value/versions/{version}")));
        assert_eq!(reply.status, 200, "{}", reply.text());
        let body = reply.json();
        assert_eq!(body["id"].as_u64(), Some(u64::from(id)), "{body}");
        assert!(
            body.get("schemaType").is_none() || body["schemaType"] == "AVRO",
            "{body}"
        );
    }
    // Again: nothing sent, the lock unchanged.
    let lock = std::fs::read_to_string(dir.join("dataschema.lock")).unwrap();
    let out = publish();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("0 published, 2 already published"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("dataschema.lock")).unwrap(),
        lock
    );
}

#[test]
fn validate_takes_a_binary_avro_datum_and_a_framed_one() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", &token_file(tmp.path())]);
    let token = token_file(tmp.path());
    let dir = copy_folder(tmp.path());
    let write = |name: &str, bytes: &[u8]| {
        let path = tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let v1 = common::read("payloads/payment_v1.avro");
    let v2 = common::read("payloads/payment_v2.avro");
    // v1 with its enum index (the byte after the long) made 3: Currency
    // has three symbols.
    let mut bad_enum = v1.clone();
    assert_eq!(bad_enum[5], 0, "EUR, index 0");
    bad_enum[5] = 6;
    let v1_file = write("v1.avro", &v1);
    let v2_file = write("v2.avro", &v2);
    let bad_file = write("bad.avro", &bad_enum);
    let schemas = s(&dir);

    // By URN, offline (the folder alone, no lock ids needed).
    let run =
        |urn: &str, file: &Path| dataschema(&["validate", "--schemas", schemas, urn, s(file)]);
    let out = run(V1, &v1_file);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("valid: {V1}")),
        "{}",
        text(&out)
    );
    let out = run(V2, &v2_file);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = run(V1, &bad_file);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("/currency"), "{}", text(&out));
    // A v2 datum is not a v1 datum: its `channel` is bytes v1 does not have.
    let out = run(V1, &v2_file);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // Nor is v1's a v2 datum: it ends before `channel`.
    let out = run(V2, &v1_file);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));

    // Framed: published, so the lock records the ids frames carry.
    let url = serve.url("");
    let out = dataschema(&[
        "publish",
        "--registry",
        &url,
        "--token-file",
        &token,
        schemas,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let id1 = lock_id(&dir, V1).unwrap();
    let id2 = lock_id(&dir, V2).unwrap();
    let good = write("good.frame", &frame(id1, &v1));
    let good2 = write("good2.frame", &frame(id2, &v2));
    let bad = write("bad.frame", &frame(id1, &bad_enum));
    let wrong = write("wrong.frame", &frame(id2, &v1));
    for source in [
        vec!["--schemas", schemas],
        vec!["--registry", url.as_str()],
        vec!["--schemas", schemas, "--registry", url.as_str()],
    ] {
        let framed = |file: &Path| {
            let mut args = vec!["validate", "--framed"];
            args.extend(&source);
            args.push(s(file));
            dataschema(&args)
        };
        let out = framed(&good);
        assert_eq!(out.status.code(), Some(0), "{source:?}: {}", text(&out));
        assert!(
            text(&out).contains(&format!("valid: schema id {id1}")),
            "{}",
            text(&out)
        );
        let out = framed(&good2);
        assert_eq!(out.status.code(), Some(0), "{source:?}: {}", text(&out));
        let out = framed(&bad);
        assert_eq!(out.status.code(), Some(1), "{source:?}: {}", text(&out));
        assert!(text(&out).contains("/currency"), "{}", text(&out));
        let out = framed(&wrong);
        assert_eq!(out.status.code(), Some(1), "{source:?}: {}", text(&out));
    }
    // The folder as it was before publishing (no ids): the id names nothing.
    let out = dataschema(&["validate", "--framed", "--schemas", FOLDER, s(&good)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("not_found"), "{}", text(&out));
}
