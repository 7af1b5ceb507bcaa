//! A protobuf descriptor set published natively (a root, its root file's
//! imports as references, as `dataschema publish` sends a `.proto`
//! folder), read through the Confluent API: the root's file printed as
//! `.proto` text, `?format=serialized` base64 of that one
//! `FileDescriptorProto`, the references listed. References that are not
//! the root file's imports are refused.
#![cfg(all(feature = "server", feature = "proto-text"))]

use crate::common;
use crate::server;

use base64::Engine as _;
use prost::Message as _;
use prost_reflect::prost_types::{FileDescriptorProto, FileDescriptorSet};
use serde_json::{json, Value};
use server::*;

use dataschema::proto::{print_file, WELL_KNOWN};
use dataschema::protocol::{header, references_header};
use dataschema::{Reference, Urn};

const MONEY: &str = "acme/common/v1/money.proto";
const MONEY_SUBJECT: &str = "acme%2Fcommon%2Fv1%2Fmoney.proto";
const SHOP: &str = "urn:acme:schema:shop-value:1";

fn text(file: &str) -> String {
    String::from_utf8(common::read(&format!("proto/confluent/{file}"))).unwrap()
}

fn write(dir: &std::path::Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `shop.proto` and what it imports, compiled with protox (no source
/// info), as `dataschema publish` compiles a folder.
fn descriptor_set(money: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), MONEY, money);
    write(dir.path(), "shop.proto", &text("shop.proto"));
    for (name, text) in WELL_KNOWN {
        write(dir.path(), name, text);
    }
    let mut compiler = protox::Compiler::new([dir.path()]).unwrap();
    compiler.include_imports(true).include_source_info(false);
    compiler.open_file("shop.proto").unwrap();
    compiler.encode_file_descriptor_set()
}

fn root_file(set: &[u8]) -> FileDescriptorProto {
    FileDescriptorSet::decode(set)
        .unwrap()
        .file
        .into_iter()
        .find(|file| file.name() == "shop.proto")
        .unwrap()
}

/// The root's file printed, as Confluent's API answers it.
fn printed(set: &[u8]) -> String {
    let pool = prost_reflect::DescriptorPool::decode(set).unwrap();
    print_file(&pool.get_file_by_name("shop.proto").unwrap())
}

fn money_urn(version: u32) -> Urn {
    let name = dataschema::subject::name_of(MONEY).unwrap();
    Urn::new("acme", &name, version).unwrap()
}

/// `PUT /publish/schemas/{urn}` of a descriptor set with root `Order` and
/// `references`.
fn publish(running: &Running, urn: &str, set: &[u8], references: &[Reference]) -> Reply {
    let references = references_header(references);
    let mut headers = vec![
        ("Authorization", bearer()),
        ("Content-Type", "application/x-protobuf".to_owned()),
        (header::LANGUAGE, "protobuf".to_owned()),
        (header::ROOT, "acme.shop.v1.Order".to_owned()),
    ];
    if let Some(references) = references {
        headers.push((header::REFERENCES, references));
    }
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    call(
        "PUT",
        &running.url(&format!("/publish/schemas/{urn}")),
        &headers,
        set,
    )
}

fn register_money(running: &Running, text: &str) -> Reply {
    confluent(
        "POST",
        &running.url(&format!("/subjects/{MONEY_SUBJECT}/versions")),
        &json!({"schemaType": "PROTOBUF", "schema": text}),
    )
}

fn decode_b64(text: &str) -> FileDescriptorProto {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64");
    FileDescriptorProto::decode(bytes.as_slice()).expect("one FileDescriptorProto")
}

fn money_reference() -> Value {
    json!([{"name": MONEY, "subject": MONEY, "version": 1}])
}

#[test]
fn a_descriptor_set_published_natively_reads_back_as_its_root_file() {
    let running = start();
    let money = register_money(&running, &text("money.proto"));
    assert_eq!(money.status, 200, "{}", money.text());
    assert_eq!(money.json()["version"], 1);
    let set = descriptor_set(&text("money.proto"));
    let published = publish(&running, SHOP, &set, &[Reference::new(MONEY, money_urn(1))]);
    assert_eq!(published.status, 201, "{}", published.text());
    let id = published.json()["id"].as_u64().unwrap();
    let root = root_file(&set);
    let printed = printed(&set);
    assert!(printed.contains("message Refund"), "{printed}");

    for path in [
        format!("/schemas/ids/{id}"),
        "/subjects/shop-value/versions/1".to_owned(),
        "/subjects/shop-value/versions/latest".to_owned(),
    ] {
        let reply = get(&running.url(&path));
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        let body = reply.json();
        assert_eq!(body["schemaType"], "PROTOBUF", "{path}");
        assert_eq!(body["schema"].as_str(), Some(printed.as_str()), "{path}");
        assert_eq!(body["references"], money_reference(), "{path}");

        let serialized = get(&running.url(&format!("{path}?format=serialized")));
        assert_eq!(serialized.status, 200, "{path}: {}", serialized.text());
        let body = serialized.json();
        assert_eq!(decode_b64(body["schema"].as_str().unwrap()), root, "{path}");
        assert_eq!(body["references"], money_reference(), "{path}");
    }
    let raw = get(&running.url(&format!("/schemas/ids/{id}/schema")));
    assert_eq!(raw.text(), printed);
    // The reference itself reads back as registered.
    let reference = get(&running.url(&format!(
        "/subjects/{MONEY_SUBJECT}/versions/1?format=serialized"
    )));
    assert_eq!(reference.status, 200, "{}", reference.text());
    assert_eq!(
        decode_b64(reference.json()["schema"].as_str().unwrap()).message_type[0].name(),
        "Money"
    );

    // What was read back, registered as Java registers it: the same
    // schema, the same id and version.
    let again = confluent(
        "POST",
        &running.url("/subjects/shop-value/versions"),
        &json!({"schemaType": "PROTOBUF", "schema": printed, "references": money_reference()}),
    );
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["id"].as_u64(), Some(id), "{}", again.text());
    assert_eq!(again.json()["version"], 1);
}

#[test]
fn references_that_are_not_the_root_files_imports_are_refused() {
    let running = start();
    let set = descriptor_set(&text("money.proto"));
    // Not held yet.
    let missing = publish(&running, SHOP, &set, &[Reference::new(MONEY, money_urn(1))]);
    assert_eq!(missing.status, 422, "{}", missing.text());
    assert!(missing.text().contains("not held"), "{}", missing.text());

    let money = register_money(&running, &text("money.proto"));
    assert_eq!(money.status, 200, "{}", money.text());
    // A name the root's file does not import.
    let stray = publish(
        &running,
        SHOP,
        &set,
        &[Reference::new("other.proto", money_urn(1))],
    );
    assert_eq!(stray.status, 422, "{}", stray.text());
    assert!(stray.text().contains("no file"), "{}", stray.text());

    // A registration of the import whose file is not the set's.
    let changed = text("money.proto").replace(
        "  int64 cents = 2;\n",
        "  int64 cents = 2;\n  int32 scale = 3;\n",
    );
    let v2 = register_money(&running, &changed);
    assert_eq!(v2.json()["version"], 2, "{}", v2.text());
    let other = publish(&running, SHOP, &set, &[Reference::new(MONEY, money_urn(2))]);
    assert_eq!(other.status, 422, "{}", other.text());
    assert!(
        other.text().contains("whose file is not"),
        "{}",
        other.text()
    );
    // Nothing was stored by the refusals.
    assert_eq!(get(&running.url(&format!("/schemas/{SHOP}"))).status, 404);
    // The right one is taken.
    let ok = publish(&running, SHOP, &set, &[Reference::new(MONEY, money_urn(1))]);
    assert_eq!(ok.status, 201, "{}", ok.text());
}

#[test]
fn a_descriptor_set_without_references_reads_back_as_its_root_file_too() {
    // Published natively without references (the native API does not
    // need them): the text is the root's file, no references listed.
    let running = start();
    let set = descriptor_set(&text("money.proto"));
    let published = publish(&running, SHOP, &set, &[]);
    assert_eq!(published.status, 201, "{}", published.text());
    let id = published.json()["id"].as_u64().unwrap();
    let body = get(&running.url(&format!("/schemas/ids/{id}"))).json();
    assert_eq!(body["schema"].as_str(), Some(printed(&set).as_str()));
    assert!(body.get("references").is_none(), "{body}");
}
