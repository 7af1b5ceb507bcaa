//! Confluent's own Python `ProtobufSerializer` and `ProtobufDeserializer`
//! against the real server: a message importing another file (by
//! reference) and well-known files (skipped), `use.latest.version`; the
//! framed bytes validate through `Guard::validate_framed`, over the
//! server's registry, through the fallback (its Confluent API and its
//! native API, both with the references), and from a bundle: a schemas
//! folder of the same `.proto` files whose `dataschema.lock` records the
//! ids the server gave, which validates the frames with no registry at all.
//!
//! `DATASCHEMA_PYTHON` missing or without `confluent-kafka` and `protobuf`:
//! under `CI` the test fails saying so; elsewhere it prints that it skips.
#![cfg(all(
    feature = "http",
    feature = "server",
    feature = "proto-text",
    feature = "build"
))]

use crate::common;
use crate::server;

use std::process::Command;

use dataschema::http::{Api, HttpResolver};
use dataschema::proto::WELL_KNOWN;
use dataschema::{build, Guard, Outcome, Reason, Registry};

fn fixture(file: &str) -> String {
    String::from_utf8(common::read(&format!("proto/confluent/{file}"))).unwrap()
}

fn write(dir: &std::path::Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The fixtures laid out as their imports name them, compiled with protox
/// into one descriptor set.
fn descriptor_set(dir: &std::path::Path) -> Vec<u8> {
    write(dir, "acme/common/v1/money.proto", &fixture("money.proto"));
    write(dir, "shop.proto", &fixture("shop.proto"));
    for (name, text) in WELL_KNOWN {
        write(dir, name, text);
    }
    let mut compiler = protox::Compiler::new([dir]).unwrap();
    compiler.include_imports(true);
    compiler.open_file("shop.proto").unwrap();
    compiler.encode_file_descriptor_set()
}

/// `tests/python/confluent_protobuf.py` run against `running`: Confluent's
/// serializer registers the schema and writes its frames into the folder
/// returned.
fn run_client(python: &str, running: &server::Running) -> tempfile::TempDir {
    let out_dir = tempfile::tempdir().unwrap();
    let set_path = out_dir.path().join("set.binpb");
    std::fs::write(&set_path, descriptor_set(&out_dir.path().join("src"))).unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/confluent_protobuf.py"
    );
    let out = Command::new(python)
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
    out_dir
}

#[test]
fn confluents_protobuf_serializer_frames_what_validate_framed_checks() {
    let Some(python) = common::python_importing("confluent_kafka.schema_registry.protobuf") else {
        return;
    };
    let running = server::start();
    let out_dir = run_client(&python, &running);

    let frame = |name: &str| std::fs::read(out_dir.path().join(name)).unwrap();
    let (order, refund, latest) = (frame("order.bin"), frame("refund.bin"), frame("latest.bin"));
    let id: u32 = std::fs::read_to_string(out_dir.path().join("id.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let urn = common::urn("urn:acme:schema:shop-value:1");
    assert_eq!(running.registry.id_of(&urn).unwrap(), id);

    let mislabelled = mislabelled_refund(&refund);

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
        (
            "the fallback (Confluent API)",
            fallback(Api::Confluent {
                namespace: "acme".to_owned(),
            }),
        ),
        // The native API answers the references too (Dataschema-References).
        ("the fallback (native API)", fallback(Api::Native)),
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

/// The bundle of the same sources: `shop-value.v1.proto` (the text the
/// serializer's class was made from), its import where it names it, and
/// the well-known Confluent file; the manifest gives its root (`Order`,
/// the message the frames' indexes `[0]` name). Locked, then the ids the
/// server gave recorded as `dataschema publish` records them.
fn locked_bundle(dir: &std::path::Path, id: u32) -> Registry {
    locked_bundle_of(
        dir,
        id,
        "namespace = \"acme\"\n\n[roots]\n\"shop-value.v1\" = \"acme.shop.v1.Order\"\n",
    )
}

/// [`locked_bundle`] with the manifest `manifest`.
fn locked_bundle_of(dir: &std::path::Path, id: u32, manifest: &str) -> Registry {
    write(dir, build::MANIFEST_FILE, manifest);
    write(dir, "shop-value.v1.proto", &fixture("shop.proto"));
    write(dir, "acme/common/v1/money.proto", &fixture("money.proto"));
    // No copy of `confluent/meta.proto`: the bundler resolves it.
    build::lock(dir).unwrap();
    let urn = common::urn("urn:acme:schema:shop-value:1");
    let checked = build::check(dir).unwrap();
    assert_eq!(
        build::record_published(dir, &checked, &[(urn.clone(), id)]).unwrap(),
        std::slice::from_ref(&urn)
    );
    let lock = std::fs::read_to_string(dir.join(build::LOCK_FILE)).unwrap();
    assert!(
        lock.contains(&format!("[ids]\n\"{urn}\" = {id}\n")),
        "{lock}"
    );
    // The folder as the CLI and a build script read it: its schemas with
    // the lock's ids.
    let checked = build::check(dir).unwrap();
    let ids: Vec<_> = checked
        .sources
        .iter()
        .filter_map(|s| s.id.map(|id| (s.schema.urn().clone(), id)))
        .collect();
    assert_eq!(ids, [(urn, id)]);
    Registry::embed_with_ids(checked.schemas(), ids).unwrap()
}

#[test]
fn confluents_protobuf_frames_validate_from_a_bundle_with_locked_ids() {
    let Some(python) = common::python_importing("confluent_kafka.schema_registry.protobuf") else {
        return;
    };
    let running = server::start();
    let out_dir = run_client(&python, &running);
    let frame = |name: &str| std::fs::read(out_dir.path().join(name)).unwrap();
    let (order, refund, latest) = (frame("order.bin"), frame("refund.bin"), frame("latest.bin"));
    let id: u32 = std::fs::read_to_string(out_dir.path().join("id.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let urn = common::urn("urn:acme:schema:shop-value:1");
    assert_eq!(running.registry.id_of(&urn).unwrap(), id);

    let schemas = tempfile::tempdir().unwrap();
    let bundle = locked_bundle(schemas.path(), id);
    assert_eq!(bundle.id_of(&urn).unwrap(), id);
    // No fallback: the lock's id is all the guard knows of the server.
    drop(running);
    let guard = Guard::new(bundle);
    // The bundle's schema has a root (Order, from its manifest); a frame's
    // message indexes decide which message its body is, as Confluent's
    // deserializer reads them (ProtobufSchema.toMessageName): the Refund
    // Confluent's serializer framed validates as a Refund, and a Refund's
    // body labelled an Order does not.
    for (name, payload) in [("order", &order), ("refund", &refund), ("latest", &latest)] {
        let outcome = guard.validate_framed(payload);
        assert!(
            matches!(outcome, Ok(Outcome::Validated)),
            "the bundle: {name}: {outcome:?}"
        );
    }
    let refused = guard
        .validate_framed(&mislabelled_refund(&refund))
        .expect_err("a Refund's body is not an Order");
    assert_eq!(refused.urn(), &urn);
    // By URN, the root: the Order's body is one, the Refund's is not.
    assert!(matches!(
        guard.validate(urn.as_str(), &order[6..]),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate(urn.as_str(), &refund[7..]).is_err());
    // An Order's body altered (its id, field 1, made a varint): invalid.
    let mut broken = order.clone();
    assert_eq!(broken[6], 0x0a, "field 1, length-delimited");
    broken[6] = 0x08;
    assert!(guard.validate_framed(&broken).is_err());
    assert_eq!(guard.unvalidated(), 0);

    // The same folder with the schema listed `rootless` (no root, as
    // Confluent's schema has none): every frame validates, the Refund's
    // too, and a payload by URN names no message (fails open, counted).
    let rootless = tempfile::tempdir().unwrap();
    let guard = Guard::new(locked_bundle_of(
        rootless.path(),
        id,
        "namespace = \"acme\"\nrootless = [\"shop-value.v1\"]\n",
    ));
    for (name, payload) in [("order", &order), ("refund", &refund), ("latest", &latest)] {
        let outcome = guard.validate_framed(payload);
        assert!(
            matches!(outcome, Ok(Outcome::Validated)),
            "the rootless bundle: {name}: {outcome:?}"
        );
    }
    assert!(guard.validate_framed(&mislabelled_refund(&refund)).is_err());
    assert!(guard.validate_framed(&broken).is_err());
    let by_urn = guard.validate(urn.as_str(), &order[6..]);
    assert!(
        matches!(&by_urn, Ok(Outcome::Unvalidated(u)) if u.reason() == Reason::Unusable),
        "{by_urn:?}"
    );
    assert_eq!(guard.unvalidated(), 1);
}

/// A Refund's body read as an Order (indexes `[0]`): not an Order.
fn mislabelled_refund(refund: &[u8]) -> Vec<u8> {
    let mut mislabelled = refund[..5].to_vec();
    mislabelled.push(0);
    mislabelled.extend_from_slice(&refund[7..]);
    mislabelled
}
