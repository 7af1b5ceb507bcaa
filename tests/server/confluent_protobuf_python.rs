//! Confluent's own Python `ProtobufSerializer` and `ProtobufDeserializer`
//! against the real server: a message importing another file (by
//! reference) and well-known files (skipped), `use.latest.version`; the
//! framed bytes validate through `Guard::validate_framed`, over the
//! server's registry and through the fallback.
//!
//! `DATASCHEMA_PYTHON` missing or without `confluent-kafka` and `protobuf`:
//! under `CI` the test fails saying so; elsewhere it prints that it skips.
#![cfg(all(feature = "http", feature = "server", feature = "proto-text"))]

use crate::common;
use crate::server;

use std::process::Command;

use dataschema::http::{Api, HttpResolver};
use dataschema::proto::WELL_KNOWN;
use dataschema::{Guard, Outcome};

/// The fixtures laid out as their imports name them, compiled with protox
/// into one descriptor set.
fn descriptor_set(dir: &std::path::Path) -> Vec<u8> {
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let read =
        |file: &str| String::from_utf8(common::read(&format!("proto/confluent/{file}"))).unwrap();
    write("acme/common/v1/money.proto", &read("money.proto"));
    write("shop.proto", &read("shop.proto"));
    for (name, text) in WELL_KNOWN {
        write(name, text);
    }
    let mut compiler = protox::Compiler::new([dir]).unwrap();
    compiler.include_imports(true);
    compiler.open_file("shop.proto").unwrap();
    compiler.encode_file_descriptor_set()
}

#[test]
fn confluents_protobuf_serializer_frames_what_validate_framed_checks() {
    let Some(python) = common::python_importing("confluent_kafka.schema_registry.protobuf") else {
        return;
    };
    let running = server::start();
    let out_dir = tempfile::tempdir().unwrap();
    let set_path = out_dir.path().join("set.binpb");
    std::fs::write(&set_path, descriptor_set(&out_dir.path().join("src"))).unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/confluent_protobuf.py"
    );
    let out = Command::new(&python)
        .arg(script)
        .arg(running.url(""))
        .arg(server::TOKEN)
        .arg(&set_path)
        .arg(out_dir.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "confluent_protobuf.py: {text}");

    let frame = |name: &str| std::fs::read(out_dir.path().join(name)).unwrap();
    let (order, refund, latest) = (frame("order.bin"), frame("refund.bin"), frame("latest.bin"));
    let id: u32 = std::fs::read_to_string(out_dir.path().join("id.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let urn = common::urn("urn:acme:schema:shop-value:1");
    assert_eq!(running.registry.id_of(&urn).unwrap(), id);

    // A Refund's body read as an Order (indexes [0]): not an Order.
    let mut mislabelled = refund[..5].to_vec();
    mislabelled.push(0);
    mislabelled.extend_from_slice(&refund[7..]);

    let fallback = |api: Api| {
        let resolver = HttpResolver::builder(running.url(""))
            .api(api)
            .build()
            .unwrap();
        Guard::builder(common::samples()).fallback(resolver).build()
    };
    for (what, guard) in [
        (
            "the server's registry",
            Guard::new(running.registry.clone()),
        ),
        ("the fallback (native API)", fallback(Api::Native)),
        (
            "the fallback (Confluent API)",
            fallback(Api::Confluent {
                namespace: "acme".to_owned(),
            }),
        ),
    ] {
        for (name, payload) in [("order", &order), ("refund", &refund), ("latest", &latest)] {
            let outcome = guard.validate_framed(payload);
            assert!(
                matches!(outcome, Ok(Outcome::Validated)),
                "{what}: {name}: {outcome:?}"
            );
        }
        let invalid = guard
            .validate_framed(&mislabelled)
            .expect_err("a Refund is no Order");
        assert_eq!(invalid.urn(), &urn, "{what}");
        assert_eq!(guard.unvalidated(), 0, "{what}");
    }
}
