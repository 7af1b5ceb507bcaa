//! Frames the `Framer` writes, read back by Confluent's own JavaScript
//! deserializers (`@confluentinc/schemaregistry`'s `JsonDeserializer`,
//! `AvroDeserializer`, `ProtobufDeserializer`), each fetching the writer
//! schema by the frame's id from a registry server: the same frames as
//! the Python read-back (`confluent_python::frames_in`).
//!
//! The package is installed by `.ci/setup` (`tests/node/package.json` and
//! its lock, `npm ci` into `$HOME/.cache/dataschema/node`), which exports
//! `DATASCHEMA_NODE_MODULES`. Node or the package missing: under `CI` the
//! test fails saying so; elsewhere it prints that it skips.

use std::path::PathBuf;
use std::process::Command;

use crate::common::read;

use super::confluent_python::frames_in;

/// The folder holding `@confluentinc/schemaregistry`, or `None` (skip)
/// outside CI.
fn node_modules() -> Option<PathBuf> {
    let missing = |why: String| {
        if std::env::var_os("CI").is_some() {
            panic!("{why}; under CI it must run (.ci/setup installs it)");
        }
        eprintln!("SKIPPED: {why} (source .ci/setup)");
        None
    };
    let Some(dir) = std::env::var_os("DATASCHEMA_NODE_MODULES").filter(|d| !d.is_empty()) else {
        return missing("DATASCHEMA_NODE_MODULES is not set".into());
    };
    let dir = PathBuf::from(dir);
    if !dir
        .join("@confluentinc/schemaregistry/package.json")
        .is_file()
    {
        return missing(format!(
            "{} holds no @confluentinc/schemaregistry",
            dir.display()
        ));
    }
    match Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => Some(dir),
        _ => missing("node does not run".into()),
    }
}

#[test]
fn confluents_javascript_deserializers_read_every_frame_back() {
    let Some(modules) = node_modules() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let running = frames_in(dir.path());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/node/framer_readback.js");
    let out = Command::new("node")
        .arg(script)
        .arg(running.url(""))
        .arg(dir.path())
        .env("NODE_PATH", &modules)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "framer_readback.js: {text}");
    let last = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    let decoded: serde_json::Value = serde_json::from_str(&last).unwrap();

    let sent: serde_json::Value =
        serde_json::from_slice(&read("payloads/order_valid.json")).unwrap();
    assert_eq!(decoded["json"], sent, "JSON: the record itself");
    for (field, value) in [
        ("order_id", "ord_a1b2c3"),
        ("currency", "EUR"),
        ("method", "card"),
    ] {
        assert_eq!(decoded["avro"][field], value, "{}", decoded["avro"]);
    }
    assert_eq!(
        decoded["protobuf"],
        serde_json::json!({"type": "acme.ticks.v1.Tock", "id": "t1", "source": {"host": "h"}})
    );
}
