//! `dataschema publish` of a `.proto` folder, then the same files
//! registered as Confluent's clients register them (Java's text, Go's
//! text, Python's descriptor, the import by reference): one schema, the
//! version and id the publish locked. A changed source is another
//! version. Against the real server binary (`dataschema serve --store
//! memory`) on loopback.
#![cfg(all(feature = "cli", feature = "proto-text"))]

use crate::common;
use crate::server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine as _;
use prost::Message as _;
use serde_json::{json, Value};
use server::process::{token_file, Serve};
use server::{confluent, get};

const MONEY: &str = "acme/common/v1/money.proto";
const MONEY_SUBJECT: &str = "acme%2Fcommon%2Fv1%2Fmoney.proto";
const SHOP: &str = "urn:acme:schema:shop-value:1";

fn fixture(style: &str, file: &str) -> String {
    String::from_utf8(common::read(&format!("proto/confluent/{style}/{file}"))).unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A schemas folder of the Java fixtures' sources: `shop-value.v1.proto`
/// (root `Order`) and its import where it names it.
fn folder(into: &Path, shop: &str) -> PathBuf {
    let dir = into.join("schemas");
    write(
        &dir,
        "dataschema.toml",
        "namespace = \"acme\"\n\n[roots]\n\"shop-value.v1\" = \"acme.shop.v1.Order\"\n",
    );
    write(&dir, "shop-value.v1.proto", shop);
    write(&dir, MONEY, &fixture("java", "money.proto"));
    dir
}

fn locked_id(dir: &Path, urn: &str) -> u64 {
    let lock = std::fs::read_to_string(dir.join("dataschema.lock")).unwrap();
    let (_, ids) = lock.split_once("[ids]\n").expect("the lock records ids");
    ids.lines()
        .find_map(|line| {
            let (key, id) = line.split_once(" = ")?;
            (key.trim_matches('"') == urn).then(|| id.parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no id for {urn}: {lock}"))
}

fn register(serve: &Serve, subject: &str, body: &Value) -> server::Reply {
    confluent(
        "POST",
        &serve.url(&format!("/subjects/{subject}/versions")),
        body,
    )
}

fn shop_body(schema: &str) -> Value {
    json!({"schemaType": "PROTOBUF", "schema": schema,
           "references": [{"name": MONEY, "subject": MONEY, "version": 1}]})
}

/// What Python's serializer sends for the shop file: base64 of its
/// `FileDescriptorProto`, compiled here with `protox` from the folder.
fn python_descriptor(dir: &Path) -> String {
    let mut compiler = protox::Compiler::new([dir]).unwrap();
    compiler.open_file("shop-value.v1.proto").unwrap();
    let set = compiler.file_descriptor_set();
    let mut file = set
        .file
        .into_iter()
        .find(|f| f.name() == "shop-value.v1.proto")
        .unwrap();
    file.source_code_info = None;
    file.name = Some("acme/shop/v1/shop.proto".to_owned());
    base64::engine::general_purpose::STANDARD.encode(file.encode_to_vec())
}

#[test]
fn a_published_proto_folder_and_confluent_clients_end_on_one_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", &token_file(tmp.path())]);
    let token = token_file(tmp.path());
    let dir = folder(tmp.path(), &fixture("java", "shop.proto"));
    let url = serve.url("");
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["publish", "--registry", &url, "--token-file", &token])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let id = locked_id(&dir, SHOP);

    // Each client registers the import under its path, then the schema.
    let money = register(
        &serve,
        MONEY_SUBJECT,
        &json!({"schemaType": "PROTOBUF", "schema": fixture("java", "money.proto")}),
    );
    assert_eq!(money.status, 200, "{}", money.text());
    // `publish` registered it already: the same version.
    assert_eq!(money.json()["version"], 1, "{}", money.text());
    for (who, schema) in [
        ("Java", fixture("java", "shop.proto")),
        ("Go", fixture("go", "shop.proto")),
        ("Python", python_descriptor(&dir)),
    ] {
        let reply = register(&serve, "shop-value", &shop_body(&schema));
        assert_eq!(reply.status, 200, "{who}: {}", reply.text());
        assert_eq!(
            reply.json()["id"].as_u64(),
            Some(id),
            "{who}: {}",
            reply.text()
        );
        assert_eq!(reply.json()["version"], 1, "{who}");
        // The serializer's lookup (auto.register.schemas off) too.
        let found = confluent(
            "POST",
            &serve.url("/subjects/shop-value"),
            &shop_body(&schema),
        );
        assert_eq!(
            found.json()["id"].as_u64(),
            Some(id),
            "{who}: {}",
            found.text()
        );
    }
    let versions = get(&serve.url("/subjects/shop-value/versions")).json();
    assert_eq!(versions, json!([1]));

    // A source that is not the folder's is another version.
    let changed = fixture("go", "shop.proto").replace(
        "  acme.common.v1.Money amount = 2;\n",
        "  acme.common.v1.Money amount = 2;\n\n  string reason = 3;\n",
    );
    let v2 = register(&serve, "shop-value", &shop_body(&changed));
    assert_eq!(v2.json()["version"], 2, "{}", v2.text());
    assert_ne!(v2.json()["id"].as_u64(), Some(id));

    // The folder published again: nothing new, the lock as it was.
    let lock = std::fs::read_to_string(dir.join("dataschema.lock")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["publish", "--registry", &url])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("dataschema.lock")).unwrap(),
        lock
    );
}

#[test]
fn a_folder_whose_import_differs_is_not_the_clients_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", &token_file(tmp.path())]);
    let token = token_file(tmp.path());
    let dir = folder(tmp.path(), &fixture("java", "shop.proto"));
    // The folder's Money has a field more than the clients' import.
    write(
        &dir,
        MONEY,
        &fixture("java", "money.proto").replace(
            "  int64 cents = 2;\n",
            "  int64 cents = 2;\n  int32 scale = 3;\n",
        ),
    );
    let url = serve.url("");
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["publish", "--registry", &url, "--token-file", &token])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let id = locked_id(&dir, SHOP);
    let money = register(
        &serve,
        MONEY_SUBJECT,
        &json!({"schemaType": "PROTOBUF", "schema": fixture("java", "money.proto")}),
    );
    assert_eq!(money.status, 200, "{}", money.text());
    // `publish` registered the folder's Money as version 1 of its path:
    // the clients' is version 2.
    assert_eq!(money.json()["version"], 2, "{}", money.text());
    let level = confluent(
        "PUT",
        &serve.url("/config/shop-value"),
        &json!({"compatibility": "NONE"}),
    );
    assert_eq!(level.status, 200, "{}", level.text());
    // Not the published files: another version, another id.
    let mut body = shop_body(&fixture("java", "shop.proto"));
    body["references"][0]["version"] = json!(2);
    let reply = register(&serve, "shop-value", &body);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["version"], 2, "{}", reply.text());
    assert_ne!(reply.json()["id"].as_u64(), Some(id));
}

/// A folder of the generic fixtures (`shop.proto` imports Money, a
/// Timestamp and Confluent's `meta.proto`, which the bundler resolves
/// without a copy in the folder).
fn generic_folder(into: &Path) -> PathBuf {
    let dir = into.join("schemas");
    write(
        &dir,
        "dataschema.toml",
        "namespace = \"acme\"\n\n[roots]\n\"shop-value.v1\" = \"acme.shop.v1.Order\"\n",
    );
    let read =
        |file: &str| String::from_utf8(common::read(&format!("proto/confluent/{file}"))).unwrap();
    write(&dir, "shop-value.v1.proto", &read("shop.proto"));
    write(&dir, MONEY, &read("money.proto"));
    dir
}

fn publish(url: &str, token: &str, dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["publish", "--registry", url, "--token-file", token])
        .arg(dir)
        .output()
        .unwrap()
}

#[test]
fn publish_registers_a_proto_folders_imports_and_confluent_reads_the_root_back() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let serve = Serve::start(&["--store", "memory", "--token-file", &token]);
    let dir = generic_folder(tmp.path());
    let out = publish(&serve.url(""), &token, &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let money_urn = "urn:acme:schema:x..acme_-2fcommon_-2fv1_-2fmoney.proto:1";
    assert!(
        text(&out).contains(&format!("registered import {MONEY} as {money_urn} (id ")),
        "{}",
        text(&out)
    );
    // Well-known imports are no subjects.
    let subjects = get(&serve.url("/subjects")).json();
    assert_eq!(subjects, json!([MONEY, "shop-value"]), "{subjects}");
    let id = locked_id(&dir, SHOP);

    let read = get(&serve.url(&format!("/schemas/ids/{id}"))).json();
    assert_eq!(
        read["references"],
        json!([{"name": MONEY, "subject": MONEY, "version": 1}]),
        "{read}"
    );
    let schema = read["schema"].as_str().unwrap();
    assert!(
        schema.starts_with("syntax = \"proto3\";\npackage acme.shop.v1;\n"),
        "{schema}"
    );
    assert!(schema.contains("message Refund {"), "{schema}");

    // Published again: the import is found held, nothing new.
    let again = publish(&serve.url(""), &token, &dir);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let versions = get(&serve.url(&format!("/subjects/{MONEY_SUBJECT}/versions"))).json();
    assert_eq!(versions, json!([1]));

    // Confluent's own Python client reads it back, by id and by lookup.
    let Some(python) = common::python_importing("confluent_kafka.schema_registry.protobuf") else {
        return;
    };
    let set = tmp.path().join("set.binpb");
    let compiled = dataschema::build::compile_proto(&dir.join("shop-value.v1.proto")).unwrap();
    std::fs::write(&set, compiled).unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/confluent_protobuf_readback.py"
    );
    let out = Command::new(python)
        .arg(script)
        .arg(serve.url(""))
        .arg(id.to_string())
        .arg(&set)
        .output()
        .unwrap();
    println!("{}", text(&out));
    assert!(
        out.status.success(),
        "confluent_protobuf_readback.py: {}",
        text(&out)
    );
}

#[test]
fn a_client_first_then_publish_of_the_same_files_lands_on_its_version() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let serve = Serve::start(&["--store", "memory", "--token-file", &token]);
    // Go's serializer registers first: the import under its path, then
    // the schema (Go's texts, not the folder's bytes).
    let money = register(
        &serve,
        MONEY_SUBJECT,
        &json!({"schemaType": "PROTOBUF", "schema": fixture("go", "money.proto")}),
    );
    assert_eq!(money.status, 200, "{}", money.text());
    let go_shop = fixture("go", "shop.proto");
    let client = register(&serve, "shop-value", &shop_body(&go_shop));
    assert_eq!(client.status, 200, "{}", client.text());
    let id = client.json()["id"].as_u64().unwrap();

    // The folder of Java's texts of the same files, published after.
    let dir = folder(tmp.path(), &fixture("java", "shop.proto"));
    let out = publish(&serve.url(""), &token, &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let printed = text(&out);
    assert!(
        printed.contains(&format!("already published {SHOP} (id {id})")),
        "{printed}"
    );
    assert!(
        printed.contains(&format!("import {MONEY} already registered as ")),
        "{printed}"
    );
    assert_eq!(locked_id(&dir, SHOP), id);
    // Nothing new, the bytes stored are the client's.
    assert_eq!(
        get(&serve.url("/subjects/shop-value/versions")).json(),
        json!([1])
    );
    assert_eq!(
        get(&serve.url(&format!("/subjects/{MONEY_SUBJECT}/versions"))).json(),
        json!([1])
    );
    let native = get(&serve.url(&format!("/schemas/{SHOP}")));
    assert_eq!(native.text(), go_shop);
    let read = get(&serve.url("/subjects/shop-value/versions/1")).json();
    assert_eq!(read["schema"].as_str(), Some(go_shop.as_str()));

    // Published again, the lock's id confirmed (other bytes, same files).
    let lock = std::fs::read_to_string(dir.join("dataschema.lock")).unwrap();
    let again = publish(&serve.url(""), &token, &dir);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        text(&again).contains(&format!("already published {SHOP} (id {id})")),
        "{}",
        text(&again)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("dataschema.lock")).unwrap(),
        lock
    );

    // Other files under that URN: refused as immutable, nothing stored.
    let changed = folder(
        &tmp.path().join("changed"),
        &fixture("java", "shop.proto").replace(
            "  string order_id = 1;\n",
            "  string order_id = 1;\n  string reason = 9;\n",
        ),
    );
    let out = publish(&serve.url(""), &token, &changed);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("immutable"), "{}", text(&out));
    // The same files with another root: a payload by URN would be another
    // message, so another schema.
    let other_root = folder(&tmp.path().join("root"), &fixture("java", "shop.proto"));
    write(
        &other_root,
        "dataschema.toml",
        "namespace = \"acme\"\n\n[roots]\n\"shop-value.v1\" = \"acme.shop.v1.Refund\"\n",
    );
    let out = publish(&serve.url(""), &token, &other_root);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("immutable"), "{}", text(&out));
    assert_eq!(
        get(&serve.url("/subjects/shop-value/versions")).json(),
        json!([1])
    );
    assert_eq!(get(&serve.url(&format!("/schemas/{SHOP}"))).text(), go_shop);
}

#[test]
fn a_rootless_proto_folder_publishes_with_its_imports_and_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let serve = Serve::start(&["--store", "memory", "--token-file", &token]);
    let dir = generic_folder(tmp.path());
    write(
        &dir,
        "dataschema.toml",
        "namespace = \"acme\"\nrootless = [\"shop-value.v1\"]\n",
    );
    let out = publish(&serve.url(""), &token, &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let id = locked_id(&dir, SHOP);
    // Held without a root (no Dataschema-Root), its import by reference.
    let native = get(&serve.url(&format!("/schemas/{SHOP}")));
    assert_eq!(native.status, 200, "{}", native.text());
    assert_eq!(native.header("dataschema-root"), None);
    let read = get(&serve.url(&format!("/schemas/ids/{id}"))).json();
    assert_eq!(
        read["references"],
        json!([{"name": MONEY, "subject": MONEY, "version": 1}]),
        "{read}"
    );
    let schema = read["schema"].as_str().unwrap();
    assert!(schema.contains("message Order {"), "{schema}");
    // Java's registration of the same files lands on it.
    let reply = register(
        &serve,
        "shop-value",
        &json!({"schemaType": "PROTOBUF", "schema": schema,
                "references": [{"name": MONEY, "subject": MONEY, "version": 1}]}),
    );
    assert_eq!(reply.json()["id"].as_u64(), Some(id), "{}", reply.text());
}
