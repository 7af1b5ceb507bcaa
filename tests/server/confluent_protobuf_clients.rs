//! `.proto` text registrations as Confluent's Java and Go serializers send
//! them, through the REST API, with fixtures in each client's style
//! (`tests/data/proto/confluent/{java,go}/`, whose README says what each
//! style is and where the facts come from): the import registered first
//! under its path as the subject, then the schema with a reference of that
//! name, subject and version 1.
//!
//! Java's text is its `canonicalString()`, a fixed point of Confluent's
//! own canonicalization, so Confluent answers it byte for byte: so must we.
//! Go's is protoprint's; we answer it as registered. One schema written
//! by the two clients (and by Python, as a descriptor) is one version and
//! one id, as on Confluent, which compares parsed schemas.
#![cfg(all(feature = "server", feature = "proto-text"))]

use crate::common;
use crate::server;

use base64::Engine as _;
use prost::Message as _;
use prost_reflect::prost_types::FileDescriptorProto;
use serde_json::{json, Value};
use server::*;

const MONEY: &str = "acme/common/v1/money.proto";
/// The subject Java and Go register the import under: its path.
const MONEY_SUBJECT: &str = "acme%2Fcommon%2Fv1%2Fmoney.proto";

fn fixture(style: &str, file: &str) -> String {
    String::from_utf8(common::read(&format!("proto/confluent/{style}/{file}"))).unwrap()
}

fn register(running: &Running, subject: &str, body: &Value) -> Reply {
    confluent(
        "POST",
        &running.url(&format!("/subjects/{subject}/versions")),
        body,
    )
}

fn references() -> Value {
    json!([{"name": MONEY, "subject": MONEY, "version": 1}])
}

fn shop_body(text: &str) -> Value {
    json!({"schemaType": "PROTOBUF", "schema": text, "references": references()})
}

/// Registers `style`'s money and shop as its client does; the shop's id.
fn register_as(running: &Running, style: &str) -> u64 {
    let money = register(
        running,
        MONEY_SUBJECT,
        &json!({"schemaType": "PROTOBUF", "schema": fixture(style, "money.proto")}),
    );
    assert_eq!(money.status, 200, "{style}: {}", money.text());
    assert_eq!(money.json()["version"], 1, "{style}: {}", money.text());
    let shop = register(
        running,
        "shop-value",
        &shop_body(&fixture(style, "shop.proto")),
    );
    assert_eq!(shop.status, 200, "{style}: {}", shop.text());
    shop.json()["id"].as_u64().unwrap()
}

fn decode_b64(text: &str) -> FileDescriptorProto {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64");
    FileDescriptorProto::decode(bytes.as_slice()).expect("one FileDescriptorProto")
}

/// What every client reads back: the text byte for byte (default format
/// and `/schema`), the references, and the one file serialized.
fn reads_back(running: &Running, id: u64, text: &str) {
    for path in [
        format!("/schemas/ids/{id}"),
        "/subjects/shop-value/versions/1".to_owned(),
        "/subjects/shop-value/versions/latest".to_owned(),
    ] {
        let body = get(&running.url(&path)).json();
        assert_eq!(body["schemaType"], "PROTOBUF", "{path}");
        assert_eq!(body["schema"].as_str(), Some(text), "{path}");
        assert_eq!(body["references"], references(), "{path}");
    }
    assert_eq!(
        get(&running.url(&format!("/schemas/ids/{id}/schema"))).text(),
        text
    );
    let serialized = get(&running.url(&format!("/schemas/ids/{id}?format=serialized"))).json();
    assert_eq!(serialized["references"], references());
    let file = decode_b64(serialized["schema"].as_str().unwrap());
    assert_eq!(file.package(), "acme.shop.v1");
    let messages: Vec<&str> = file.message_type.iter().map(|m| m.name()).collect();
    assert_eq!(messages, ["Order", "Refund"]);
    let nested: Vec<&str> = file.message_type[0]
        .nested_type
        .iter()
        .map(|m| m.name())
        .collect();
    // The map entry first: the field declaring it (5) comes before Line's
    // declaration in both texts, and protoc orders nested types so.
    assert_eq!(nested, ["LabelsEntry", "Line"], "{file:?}");
    assert_eq!(file.enum_type[0].name(), "Status");
    assert_eq!(file.dependency, [MONEY, "google/protobuf/timestamp.proto"]);
    // The import resolves to the subject it was registered under.
    let money = get(&running.url(&format!("/subjects/{MONEY_SUBJECT}/versions/1"))).json();
    assert_eq!(money["subject"], MONEY, "{money}");
}

#[test]
fn java_text_registers_and_reads_back_byte_for_byte() {
    let running = start();
    let java = fixture("java", "shop.proto");
    let id = register_as(&running, "java");
    reads_back(&running, id, &java);
    // The serializer's lookup (auto.register.schemas off) and its
    // registration again find the same version.
    let found = confluent(
        "POST",
        &running.url("/subjects/shop-value"),
        &shop_body(&java),
    );
    assert_eq!(found.json()["id"].as_u64(), Some(id), "{}", found.text());
    assert_eq!(found.json()["version"], 1);
    let again = register(&running, "shop-value", &shop_body(&java));
    assert_eq!(again.json()["id"].as_u64(), Some(id));
    assert_eq!(again.json()["version"], 1);
}

#[test]
fn go_text_registers_and_reads_back_as_registered() {
    let running = start();
    let go = fixture("go", "shop.proto");
    let id = register_as(&running, "go");
    reads_back(&running, id, &go);
    let found = confluent(
        "POST",
        &running.url("/subjects/shop-value"),
        &shop_body(&go),
    );
    assert_eq!(found.json()["id"].as_u64(), Some(id), "{}", found.text());
}

#[test]
fn one_schema_from_java_go_and_python_is_one_version_and_one_id() {
    let running = start();
    let id = register_as(&running, "java");
    // Go's text of the same sources after Java's: the same version, the
    // same id, for the import (its own subject) and the schema.
    let id_go = register_as(&running, "go");
    assert_eq!(id_go, id);
    let versions = get(&running.url("/subjects/shop-value/versions")).json();
    assert_eq!(versions, json!([1]));
    let versions = get(&running.url(&format!("/subjects/{MONEY_SUBJECT}/versions"))).json();
    assert_eq!(versions, json!([1]));
    // Python's descriptor of the same file (base64 of its
    // FileDescriptorProto, named as its import path) too.
    let serialized = get(&running.url(&format!("/schemas/ids/{id}?format=serialized"))).json();
    let mut file = decode_b64(serialized["schema"].as_str().unwrap());
    file.name = Some("acme/shop/v1/shop.proto".to_owned());
    let b64 = base64::engine::general_purpose::STANDARD.encode(file.encode_to_vec());
    let python = register(&running, "shop-value", &shop_body(&b64));
    assert_eq!(python.json()["id"].as_u64(), Some(id), "{}", python.text());
    assert_eq!(python.json()["version"], 1);
    // And each client's lookup finds it.
    for style in ["java", "go"] {
        let found = confluent(
            "POST",
            &running.url("/subjects/shop-value"),
            &shop_body(&fixture(style, "shop.proto")),
        );
        assert_eq!(found.json()["id"].as_u64(), Some(id), "{style}");
    }
    // What is stored stays what was registered first: Java's text.
    assert_eq!(
        get(&running.url(&format!("/schemas/ids/{id}/schema"))).text(),
        fixture("java", "shop.proto")
    );

    // Another schema is another version: a field more (Go's text).
    let changed = fixture("go", "shop.proto").replace(
        "  acme.common.v1.Money amount = 2;\n",
        "  acme.common.v1.Money amount = 2;\n\n  string reason = 3;\n",
    );
    let v2 = register(&running, "shop-value", &shop_body(&changed));
    assert_eq!(v2.json()["version"], 2, "{}", v2.text());
    assert_ne!(v2.json()["id"].as_u64(), Some(id));
    // So is the same text with its fields declared in another order
    // (declaration order is part of the schema: Confluent keeps it too).
    let reordered = fixture("java", "shop.proto").replace(
        "  string order_id = 1;\n  .acme.common.v1.Money amount = 2;\n",
        "  .acme.common.v1.Money amount = 2;\n  string order_id = 1;\n",
    );
    assert_ne!(reordered, fixture("java", "shop.proto"));
    let v3 = register(&running, "shop-value", &shop_body(&reordered));
    assert_eq!(v3.json()["version"], 3, "{}", v3.text());
}

#[test]
fn normalize_makes_java_and_go_texts_one_normalized_version() {
    let running = start();
    let mut ids = Vec::new();
    for style in ["java", "go"] {
        let money = confluent(
            "POST",
            &running.url(&format!(
                "/subjects/{MONEY_SUBJECT}/versions?normalize=true"
            )),
            &json!({"schemaType": "PROTOBUF", "schema": fixture(style, "money.proto")}),
        );
        assert_eq!(money.json()["version"], 1, "{style}: {}", money.text());
        let shop = confluent(
            "POST",
            &running.url("/subjects/shop-value/versions?normalize=true"),
            &shop_body(&fixture(style, "shop.proto")),
        );
        assert_eq!(shop.status, 200, "{style}: {}", shop.text());
        assert_eq!(shop.json()["version"], 1, "{style}: {}", shop.text());
        ids.push(shop.json()["id"].as_u64().unwrap());
    }
    assert_eq!(ids[0], ids[1]);
    // The stored text is the normalized one: type names fully qualified.
    let stored = get(&running.url(&format!("/schemas/ids/{}/schema", ids[0]))).text();
    assert!(
        stored.contains(".acme.common.v1.Money price = 3;"),
        "{stored}"
    );
    assert!(
        stored.contains(".acme.shop.v1.Status status = 4;"),
        "{stored}"
    );
}
