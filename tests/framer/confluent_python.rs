//! Frames the `Framer` writes, read back by Confluent's own Python
//! deserializers (`JSONDeserializer`, `AvroDeserializer`,
//! `ProtobufDeserializer`), each fetching the writer schema by the
//! frame's id from a `dataschema serve` (its Confluent API); the protobuf
//! frame names the second message of a schema registered as Confluent's
//! clients register one (`.proto` text, no root).
//!
//! `DATASCHEMA_PYTHON` missing or without `confluent-kafka`: under `CI`
//! the test fails saying so; elsewhere it prints that it skips.

use std::process::Command;

use crate::common::{self, read, urn};
use crate::server;

use dataschema::{Compatibility, Framer, Guard, Language, Outcome, Registry, Schema};
use prost::Message as _;

const ORDER_V1: &str = "urn:acme:schema:orders.created:1";
const TICKS: &str = "urn:acme:schema:ticks:1";

/// A protobuf schema as Confluent's clients register it: `.proto` text,
/// no root; frames name their message.
const TICKS_PROTO: &str = r#"syntax = "proto3";
package acme.ticks.v1;

message Tick {
  string id = 1;
  int64 at = 2;
}

message Tock {
  message Source {
    string host = 1;
  }
  string id = 1;
  Source source = 2;
}
"#;
const PAYMENT: &str = "urn:acme:schema:payments.made:1";

/// A registry server holding the samples and the ticks schema (under ids
/// of its own), and in `dir` the frames a `Framer` wrote of each language
/// (json.bin, avro.bin, protobuf.bin: a Tock, the second message of the
/// ticks file), each checked to carry the registry's id and to validate
/// in a consumer's guard; `ticks.proto` and its compiled `protobuf.set`
/// beside them.
pub(crate) fn frames_in(dir: &std::path::Path) -> server::Running {
    // The registry holds the samples, under ids of its own.
    let running = server::start();
    let samples = common::samples();
    for name in [ORDER_V1, PAYMENT] {
        let schema = samples.resolve(&urn(name)).unwrap();
        running
            .registry
            .publish(schema, Compatibility::None)
            .unwrap();
    }
    let ticks = Schema::new(urn(TICKS), Language::Protobuf, TICKS_PROTO, None);
    running
        .registry
        .publish(ticks, Compatibility::None)
        .unwrap();
    let fallback = dataschema::http::HttpResolver::new(running.url("")).unwrap();
    let framer = Framer::builder(common::samples())
        .fallback(fallback)
        .build();

    let order = read("payloads/order_valid.json");
    let payment = read("payloads/payment_made_v1.avro");
    // Tock {id: "t1", source: {host: "h"}}: the second message, [1].
    let tock = b"\x0a\x02t1\x12\x03\x0a\x01h";
    let guard = Guard::builder(Registry::embed(Vec::new()).unwrap())
        .fallback(dataschema::http::HttpResolver::new(running.url("")).unwrap())
        .build();
    for (file, target, payload, message) in [
        ("json.bin", ORDER_V1, &order[..], None),
        ("avro.bin", PAYMENT, &payment[..], None),
        ("protobuf.bin", TICKS, &tock[..], Some("acme.ticks.v1.Tock")),
    ] {
        let frame = match message {
            Some(message) => framer.frame_message(&urn(target), message, payload),
            None => framer.frame(&urn(target), payload),
        }
        .unwrap();
        let id = running.registry.id_of(&urn(target)).unwrap();
        assert_eq!(frame[1..5], id.to_be_bytes(), "{target}: the registry's id");
        assert!(
            matches!(guard.validate_framed(&frame), Ok(Outcome::Validated)),
            "{target}"
        );
        std::fs::write(dir.join(file), frame).unwrap();
    }
    // The message classes' descriptors, compiled here (no protoc).
    std::fs::write(dir.join("ticks.proto"), TICKS_PROTO).unwrap();
    let set = protox::compile(["ticks.proto"], [dir]).unwrap();
    std::fs::write(dir.join("protobuf.set"), set.encode_to_vec()).unwrap();
    running
}

#[test]
fn confluents_python_deserializers_read_every_frame_back() {
    let Some(python) = common::python_importing("confluent_kafka.schema_registry.protobuf") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let running = frames_in(dir.path());
    let order = read("payloads/order_valid.json");

    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/framer_readback.py"
    );
    let out = Command::new(&python)
        .arg(script)
        .arg(running.url(""))
        .arg(dir.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "framer_readback.py: {text}");
    let last = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    let decoded: serde_json::Value = serde_json::from_str(&last).unwrap();

    let sent: serde_json::Value = serde_json::from_slice(&order).unwrap();
    assert_eq!(decoded["json"], sent, "JSON: the record itself");
    assert_eq!(
        decoded["avro"]["order_id"], "ord_a1b2c3",
        "{}",
        decoded["avro"]
    );
    assert_eq!(decoded["avro"]["currency"], "EUR", "{}", decoded["avro"]);
    assert_eq!(decoded["avro"]["method"], "card", "{}", decoded["avro"]);
    assert_eq!(
        decoded["protobuf"],
        serde_json::json!({"id": "t1", "source": {"host": "h"}})
    );
}
