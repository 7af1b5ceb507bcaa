//! Protobuf through the Confluent API, as Confluent's clients send it:
//! `.proto` text with references (Java, Go), base64 of a
//! `FileDescriptorProto` (Python); read back as text, and with
//! `?format=serialized` as base64 of one `FileDescriptorProto`, references
//! listed (where Karapace answers 500 for a schema with references).
#![cfg(all(feature = "server", feature = "proto-text"))]

use crate::common;
use crate::server;

use base64::Engine as _;
use prost::Message as _;
use prost_reflect::prost_types::FileDescriptorProto;
use serde_json::{json, Value};
use server::*;

fn text(file: &str) -> String {
    String::from_utf8(common::read(&format!("proto/confluent/{file}"))).unwrap()
}

fn post(running: &Running, path: &str, body: &Value) -> Reply {
    confluent("POST", &running.url(path), body)
}

fn register(running: &Running, subject: &str, body: &Value) -> Reply {
    post(running, &format!("/subjects/{subject}/versions"), body)
}

fn money_ref() -> Value {
    json!([{"name": "acme/common/v1/money.proto", "subject": "money", "version": 1}])
}

fn shop_body() -> Value {
    json!({"schemaType": "PROTOBUF", "schema": text("shop.proto"), "references": money_ref()})
}

/// Registers `money.proto` and `shop.proto` as Java's and Go's serializers
/// do (text, the import by reference); the shop's id.
fn registered(running: &Running) -> u64 {
    let money = register(
        running,
        "money",
        &json!({"schemaType": "PROTOBUF", "schema": text("money.proto")}),
    );
    assert_eq!(money.status, 200, "{}", money.text());
    let shop = register(running, "shop-value", &shop_body());
    assert_eq!(shop.status, 200, "{}", shop.text());
    assert_eq!(shop.json()["schemaType"], "PROTOBUF");
    shop.json()["id"].as_u64().unwrap()
}

fn decode_b64(text: &str) -> FileDescriptorProto {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64");
    FileDescriptorProto::decode(bytes.as_slice()).expect("one FileDescriptorProto")
}

#[test]
fn text_with_references_registers_and_reads_back_as_registered() {
    let running = start();
    let id = registered(&running);
    // The same registration again: the same id and version.
    let again = register(&running, "shop-value", &shop_body());
    assert_eq!(again.json()["id"].as_u64(), Some(id), "{}", again.text());
    assert_eq!(again.json()["version"], 1);
    for path in [
        format!("/schemas/ids/{id}"),
        "/subjects/shop-value/versions/1".to_owned(),
        "/subjects/shop-value/versions/latest".to_owned(),
    ] {
        let reply = get(&running.url(&path));
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        let body = reply.json();
        assert_eq!(body["schemaType"], "PROTOBUF", "{path}");
        assert_eq!(
            body["schema"].as_str(),
            Some(text("shop.proto").as_str()),
            "{path}"
        );
        assert_eq!(body["references"], money_ref(), "{path}");
    }
    let raw = get(&running.url(&format!("/schemas/ids/{id}/schema")));
    assert_eq!(raw.text(), text("shop.proto"));
    // Lookup finds it by the same registration.
    let found = post(&running, "/subjects/shop-value", &shop_body());
    assert_eq!(found.json()["id"].as_u64(), Some(id), "{}", found.text());
}

#[test]
fn serialized_is_one_file_descriptor_even_with_references() {
    let running = start();
    let id = registered(&running);
    for path in [
        format!("/schemas/ids/{id}?format=serialized"),
        "/subjects/shop-value/versions/1?format=serialized".to_owned(),
    ] {
        let reply = get(&running.url(&path));
        // Karapace: 500 here for a schema with references.
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        let body = reply.json();
        assert_eq!(body["references"], money_ref(), "{path}");
        let file = decode_b64(body["schema"].as_str().unwrap());
        assert_eq!(file.package(), "acme.shop.v1");
        let names: Vec<&str> = file.message_type.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["Order", "Refund"], "{path}");
        assert_eq!(
            file.dependency,
            [
                "acme/common/v1/money.proto",
                "google/protobuf/timestamp.proto",
                "confluent/meta.proto"
            ]
        );
    }
}

#[test]
fn a_descriptor_registers_as_python_sends_it_and_reads_back_as_text() {
    let running = start();
    registered(&running);
    // What Python's ProtobufSerializer sends: base64 of the file's
    // FileDescriptorProto, its imports by reference.
    let serialized = get(&running.url("/subjects/shop-value/versions/1?format=serialized")).json();
    let b64 = serialized["schema"].as_str().unwrap().to_owned();
    let file = decode_b64(&b64);
    let body = json!({"schemaType": "PROTOBUF", "schema": b64, "references": money_ref()});
    let reply = register(&running, "python-value", &body);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let id = reply.json()["id"].as_u64().unwrap();
    let again = register(&running, "python-value", &body);
    assert_eq!(again.json()["id"].as_u64(), Some(id));
    // Read back as text, printed from the descriptor.
    let read = get(&running.url(&format!("/schemas/ids/{id}"))).json();
    let printed = read["schema"].as_str().unwrap();
    assert!(printed.contains("message Refund {"), "{printed}");
    assert!(
        printed.contains("import \"acme/common/v1/money.proto\";"),
        "{printed}"
    );
    assert!(
        printed.contains("(confluent.field_meta) = { doc: \"the order's id\" }"),
        "{printed}"
    );
    assert_eq!(read["references"], money_ref());
    // And serialized, the same file.
    let serialized = get(&running.url(&format!("/schemas/ids/{id}?format=serialized"))).json();
    let back = decode_b64(serialized["schema"].as_str().unwrap());
    assert_eq!(back.name(), file.name());
    assert_eq!(back.message_type, file.message_type);
}

#[test]
fn bad_protobuf_registrations_are_42201_and_store_nothing() {
    let running = start();
    for (body, needle) in [
        // An import with no reference names nothing.
        (
            json!({"schemaType": "PROTOBUF", "schema": text("shop.proto")}),
            "money.proto",
        ),
        // A reference to a subject version nobody holds.
        (shop_body(), "money"),
        (
            json!({"schemaType": "PROTOBUF", "schema": "message {"}),
            "neither .proto text nor base64",
        ),
        (
            json!({"schemaType": "PROTOBUF", "schema": "syntax = \"proto3\"; message A {}",
                   "references": [{"name": "a.proto", "subject": "a"}]}),
            "references[0] is not a reference",
        ),
        (
            json!({"schemaType": "PROTOBUF", "schema": "syntax = \"proto3\"; message A {}",
                   "references": [{"subject": "a", "version": 1}]}),
            "references[0] is not a reference",
        ),
    ] {
        let reply = register(&running, "bad-value", &body);
        assert_eq!(
            (reply.status, reply.code()),
            (422, 42201),
            "{body}: {}",
            reply.text()
        );
        assert!(reply.text().contains(needle), "{needle}: {}", reply.text());
    }
    let subjects = get(&running.url("/subjects")).json();
    assert_eq!(subjects, json!([]));
}

#[test]
fn compatibility_is_checked_for_protobuf_with_references() {
    let running = start();
    registered(&running);
    let level = confluent(
        "PUT",
        &running.url("/config/shop-value"),
        &json!({"compatibility": "BACKWARD"}),
    );
    assert_eq!(level.status, 200, "{}", level.text());
    // A field's scalar kind changed breaks backward compatibility.
    let broken = text("shop.proto").replace("int64 cents = 2;", "string cents = 2;");
    let body = json!({"schemaType": "PROTOBUF", "schema": broken, "references": money_ref()});
    let test = post(
        &running,
        "/compatibility/subjects/shop-value/versions/latest",
        &body,
    );
    assert_eq!(test.status, 200, "{}", test.text());
    assert_eq!(test.json()["is_compatible"], false, "{}", test.text());
    let refused = register(&running, "shop-value", &body);
    assert_eq!(refused.code(), 40901, "{}", refused.text());
    // Adding a field is compatible.
    let added =
        text("shop.proto").replace("int64 cents = 2;", "int64 cents = 2;\n  string note = 3;");
    let body = json!({"schemaType": "PROTOBUF", "schema": added, "references": money_ref()});
    let test = post(
        &running,
        "/compatibility/subjects/shop-value/versions/latest",
        &body,
    );
    assert_eq!(test.json()["is_compatible"], true, "{}", test.text());
    let v2 = register(&running, "shop-value", &body);
    assert_eq!(v2.json()["version"], 2, "{}", v2.text());
}

#[test]
fn normalize_makes_equivalent_texts_one_schema() {
    let running = start();
    registered(&running);
    // The same schema written twice: imports, fields, oneof and reserved
    // ranges in other orders, other spacing and comments.
    let a = "syntax = \"proto3\";\npackage acme.norm.v1;\nimport \"google/protobuf/timestamp.proto\";\nimport \"acme/common/v1/money.proto\";\n\
             message Pay {\n  reserved 9, 3;\n  acme.common.v1.Money amount = 2;\n  string id = 1;\n  oneof via { string card = 6; string iban = 5; }\n  google.protobuf.Timestamp at = 4;\n}\n\
             message After { Pay pay = 1; }\n";
    let b = "// Written by hand.\nsyntax = \"proto3\";\npackage acme.norm.v1;\nimport \"acme/common/v1/money.proto\";\nimport \"google/protobuf/timestamp.proto\";\n\
             message Pay {\n  string id = 1;\n  .acme.common.v1.Money amount = 2;\n  reserved 3, 9;\n  google.protobuf.Timestamp at = 4;\n  oneof via {\n    string iban = 5;\n    string card = 6;\n  }\n}\n\
             message After {\n  Pay pay = 1;\n}\n";
    let body =
        |text: &str| json!({"schemaType": "PROTOBUF", "schema": text, "references": money_ref()});
    let first = post(
        &running,
        "/subjects/pay-value/versions?normalize=true",
        &body(a),
    );
    assert_eq!(first.status, 200, "{}", first.text());
    let second = post(
        &running,
        "/subjects/pay-value/versions?normalize=true",
        &body(b),
    );
    assert_eq!(second.json()["id"], first.json()["id"], "{}", second.text());
    assert_eq!(second.json()["version"], 1);
    let found = post(&running, "/subjects/pay-value?normalize=true", &body(a));
    assert_eq!(found.json()["id"], first.json()["id"], "{}", found.text());
    // What is stored is the normalized text: imports sorted, fields by tag.
    let stored = first.json()["schema"].as_str().unwrap().to_owned();
    let money = stored
        .find("import \"acme/common/v1/money.proto\"")
        .unwrap();
    let timestamp = stored
        .find("import \"google/protobuf/timestamp.proto\"")
        .unwrap();
    assert!(money < timestamp, "{stored}");
    let id = stored.find("string id = 1;").unwrap();
    let amount = stored.find("amount = 2;").unwrap();
    assert!(id < amount, "{stored}");
    assert!(stored.contains("reserved 3, 9;"), "{stored}");
    // Without normalize, `b` (declared in the normalized order) compiles
    // to the stored schema's files: the same version. `a` (its fields in
    // another order) is another version.
    let same = post(&running, "/subjects/pay-value/versions", &body(b));
    assert_eq!(same.json()["version"], 1, "{}", same.text());
    let other = post(&running, "/subjects/pay-value/versions", &body(a));
    assert_eq!(other.json()["version"], 2, "{}", other.text());
}

#[test]
fn a_file_that_declares_no_message_registers_as_confluent_takes_it() {
    use dataschema::Guard;
    let running = start();
    registered(&running);
    // Only a public import, as Confluent's peer suite's PublicTestProto.
    let public = "syntax = \"proto3\";\n\nimport public \"acme/common/v1/money.proto\";\n\npackage acme.public.v1;\n";
    let body = json!({"schemaType": "PROTOBUF", "schema": public, "references": money_ref()});
    let reply = register(&running, "public", &body);
    assert_eq!(reply.status, 200, "{}", reply.text());
    let id = reply.json()["id"].as_u64().unwrap();
    let read = get(&running.url(&format!("/schemas/ids/{id}"))).json();
    assert_eq!(read["schema"].as_str(), Some(public));
    assert_eq!(read["references"], money_ref());
    let serialized = get(&running.url(&format!("/schemas/ids/{id}?format=serialized"))).json();
    let file = decode_b64(serialized["schema"].as_str().unwrap());
    assert!(file.message_type.is_empty());
    assert_eq!(file.public_dependency, [0]);

    // A file importing it publicly sees Money through it.
    let user = "syntax = \"proto3\";\npackage acme.user.v1;\n\nimport \"public.proto\";\n\nmessage Wallet {\n  acme.common.v1.Money balance = 1;\n}\n";
    let body = json!({"schemaType": "PROTOBUF", "schema": user,
                      "references": [{"name": "public.proto", "subject": "public", "version": 1}]});
    let wallet = register(&running, "wallet-value", &body);
    assert_eq!(wallet.status, 200, "{}", wallet.text());

    // A frame naming a message of the messageless file is invalid (no
    // message is there), never a panic nor a pass.
    let guard = Guard::new(running.registry.clone());
    let mut frame = vec![0];
    frame.extend_from_slice(&u32::try_from(id).unwrap().to_be_bytes());
    frame.push(0);
    let invalid = guard.validate_framed(&frame).expect_err("no message");
    assert!(
        invalid.to_string().contains("0 top-level messages"),
        "{invalid}"
    );
    assert!(guard.validate_framed(&frame[..5]).is_err(), "no indexes");
    // By URN, as a frame without indexes: refused, saying why.
    let refused = guard
        .validate("urn:acme:schema:public:1", b"")
        .expect_err("no message");
    assert!(
        refused.to_string().contains("declares no message"),
        "{refused}"
    );
}
