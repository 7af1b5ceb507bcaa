//! What the command line prints for programs and shells: `--format json`
//! of `check`, `compat`, `diff`, `validate`, `resolve` and `import` (the
//! shapes of `docs/guide/cli-json.md`, parsed here), `diff` listing every
//! change of every language, `compat` taking the manifest's mode, and
//! the completion scripts and man page generated from the commands'
//! definitions.
#![cfg(feature = "cli")]

use crate::common;
use crate::run::{dataschema, s, text};
use crate::server;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::data;
use serde_json::Value;
use server::process::{token_file, Serve};

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");

/// Standard output as the one JSON document of `command`, checked for
/// the envelope every document has.
fn document(output: &Output, command: &str) -> Value {
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one line: {}", text(output));
    let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|err| {
        panic!("not JSON ({err}): {}", text(output));
    });
    assert_eq!(doc["format_version"], 1, "{doc}");
    assert_eq!(doc["command"], command, "{doc}");
    doc
}

fn diff_data(name: &str) -> PathBuf {
    data(&format!("diff/{name}"))
}

/// `(kind, path, breaking)` of each change of a JSON diff.
fn changes(doc: &Value) -> Vec<(String, String, bool)> {
    doc["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_owned(),
                c["path"].as_str().unwrap().to_owned(),
                c["breaking"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// Four real changes between two Avro versions (a promotion, an enum
/// symbol added, a field removed, a field added with a default), every
/// one safe: listed, none marked breaking (`diff` printed "No changes"
/// for them when it listed Java's incompatibilities only). Read the other
/// way, three of them break, and the fourth (the field the old version
/// never had) is still listed.
#[test]
fn diff_lists_every_avro_change_with_its_mark() {
    let (v1, v2) = (diff_data("payment.v1.avsc"), diff_data("payment.v2.avsc"));
    let out = dataschema(&["diff", s(&v1), s(&v2)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        shown.trim_end(),
        "Compatible: 4 changes, none breaking\n  \
         FIELD_REMOVED at /fields (note)\n  \
         TYPE_PROMOTED at /fields/1/type (int to long)\n  \
         ENUM_SYMBOL_ADDED at /fields/2/type/symbols (REFUNDED)\n  \
         FIELD_ADDED at /fields/3 (currency)",
        "{}",
        text(&out)
    );

    let out = dataschema(&["diff", "--format", "json", s(&v1), s(&v2)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = document(&out, "diff");
    assert_eq!(doc["language"], "avro");
    assert_eq!(doc["compatible"], true);
    assert_eq!(
        changes(&doc),
        [
            ("FIELD_REMOVED", "/fields", false),
            ("TYPE_PROMOTED", "/fields/1/type", false),
            ("ENUM_SYMBOL_ADDED", "/fields/2/type/symbols", false),
            ("FIELD_ADDED", "/fields/3", false),
        ]
        .map(|(k, p, b)| (k.to_owned(), p.to_owned(), b))
    );
    assert_eq!(doc["changes"][3]["label"], "currency");

    let out = dataschema(&["diff", "--format", "json", s(&v2), s(&v1)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = document(&out, "diff");
    assert_eq!(doc["compatible"], false);
    assert_eq!(
        changes(&doc),
        [
            ("FIELD_REMOVED", "/fields", false),
            ("TYPE_MISMATCH", "/fields/1/type", true),
            ("MISSING_ENUM_SYMBOLS", "/fields/2/type/symbols", true),
            ("READER_FIELD_MISSING_DEFAULT_VALUE", "/fields/3", true),
        ]
        .map(|(k, p, b)| (k.to_owned(), p.to_owned(), b))
    );
}

/// More safe Avro changes: a type made a union, an enum symbol removed
/// that the enum's new default reads, the default itself, a field renamed
/// by an alias.
#[test]
fn diff_lists_unions_enum_defaults_and_aliases() {
    let (v2, v3) = (diff_data("payment.v2.avsc"), diff_data("payment.v3.avsc"));
    let out = dataschema(&["diff", "--format", "json", s(&v2), s(&v3)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = document(&out, "diff");
    assert_eq!(
        changes(&doc),
        [
            ("TYPE_CHANGED_TO_UNION", "/fields/0/type", false),
            ("ENUM_DEFAULT_CHANGED", "/fields/2/type/default", false),
            ("ENUM_SYMBOL_REMOVED", "/fields/2/type/symbols", false),
            ("FIELD_RENAMED", "/fields/3", false),
        ]
        .map(|(k, p, b)| (k.to_owned(), p.to_owned(), b)),
        "{doc}"
    );
    assert_eq!(doc["changes"][3]["label"], "currency to ccy");
    // Back: the union is no longer read by a string, REFUNDED has no
    // symbol, and `currency` is no field of v3's data.
    let out = dataschema(&["diff", "--format", "json", s(&v3), s(&v2)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = document(&out, "diff");
    let found = changes(&doc);
    assert!(
        found.iter().any(|(k, _, b)| k == "TYPE_MISMATCH" && *b),
        "{doc}"
    );
    assert!(
        found
            .iter()
            .any(|(k, _, b)| k == "ENUM_SYMBOL_ADDED" && !*b),
        "{doc}"
    );
}

/// JSON Schema and protobuf diffs in the same shape, each change marked.
#[test]
fn diff_json_of_json_schema_and_protobuf() {
    let v1 = format!("{SCHEMAS}/orders.created.v1.json");
    let v2 = format!("{SCHEMAS}/orders.created.v2.json");
    let out = dataschema(&["diff", "--format", "json", &v1, &v2]);
    let doc = document(&out, "diff");
    assert_eq!(doc["language"], "jsonschema");
    let found = changes(&doc);
    assert!(!found.is_empty(), "{doc}");
    let breaking = found.iter().any(|(_, _, b)| *b);
    assert_eq!(doc["compatible"], !breaking);
    assert_eq!(out.status.code(), Some(if breaking { 1 } else { 0 }));

    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.proto");
    let new = dir.path().join("new.proto");
    std::fs::write(
        &old,
        "syntax = \"proto3\";\nmessage Ping { string id = 1; int32 n = 2; }\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "syntax = \"proto3\";\nmessage Ping { string id = 1; string n = 2; int32 m = 3; }\n",
    )
    .unwrap();
    let out = dataschema(&["diff", "--format", "json", s(&old), s(&new)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = document(&out, "diff");
    assert_eq!(doc["language"], "protobuf");
    let found = changes(&doc);
    assert!(
        found.iter().any(|(_, _, b)| *b) && found.iter().any(|(_, _, b)| !*b),
        "a breaking and a safe change: {doc}"
    );

    // Bad input: the error in the document, exit 2.
    let out = dataschema(&["diff", "--format", "json", "/nonexistent/x.json", &v1]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let doc = document(&out, "diff");
    assert!(
        doc["error"].as_str().unwrap().contains("no such file"),
        "{doc}"
    );
}

/// A folder whose manifest gives `price` full_transitive: `compat` without
/// `--mode` checks under it (v3 breaks v1 only, which `backward` does not
/// look at); `--mode` still overrides it.
#[test]
fn compat_takes_the_manifests_mode_and_speaks_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("dataschema.toml"),
        "namespace = \"acme\"\ncompatibility = \"none\"\n\
         [compatibility_overrides]\n\"price\" = \"backward_transitive\"\n",
    )
    .unwrap();
    let price = |v: u32, body: &str| {
        std::fs::write(dir.path().join(format!("price.v{v}.json")), body).unwrap();
    };
    price(
        1,
        r#"{"type": "object", "properties": {"amount": {"type": "integer"}}}"#,
    );
    price(
        2,
        r#"{"type": "object", "properties": {"amount": {"type": "number"}}}"#,
    );
    price(
        3,
        r#"{"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]}"#,
    );
    let d = s(dir.path());

    let out = dataschema(&["compat", d, "price"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("backward_transitive") && text(&out).contains("manifest"),
        "{}",
        text(&out)
    );
    let out = dataschema(&["compat", "--mode", "backward", d, "price"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));

    let out = dataschema(&["compat", "--format", "json", d, "price"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = document(&out, "compat");
    assert_eq!(doc["urn"], "urn:acme:schema:price:3");
    assert_eq!(doc["mode"], "backward_transitive");
    assert_eq!(doc["mode_from"], "manifest");
    assert_eq!(doc["compatible"], false);
    let versions = doc["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{doc}");
    assert_eq!(versions[0]["version"], 1);
    assert_eq!(versions[0]["directions"], serde_json::json!(["backward"]));
    let change = &versions[0]["changes"][0];
    assert_eq!(change["direction"], "backward");
    assert!(
        change["kind"].is_string() && change["path"].is_string(),
        "{doc}"
    );
    assert!(versions.iter().any(|v| v["passed"] == false), "{doc}");

    let out = dataschema(&["compat", "--format", "json", "--mode", "none", d, "price"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = document(&out, "compat");
    assert_eq!(doc["mode_from"], "flag");
    assert_eq!(doc["versions"], serde_json::json!([]));

    let out = dataschema(&["compat", "--format", "json", d, "nothing"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(document(&out, "compat")["error"].is_string());
}

#[test]
fn check_json_lists_names_or_every_problem() {
    let out = dataschema(&["check", "--format", "json", SCHEMAS]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = document(&out, "check");
    assert_eq!(doc["ok"], true);
    assert!(doc["schemas"].as_u64().unwrap() >= 5, "{doc}");
    let names = doc["names"].as_array().unwrap();
    let created = names
        .iter()
        .find(|n| n["name"] == "orders.created")
        .expect("orders.created listed");
    assert_eq!(created["versions"], serde_json::json!([1, 2]));
    assert_eq!(created["mode"], "backward");
    assert_eq!(doc["has_lock"], true);
    assert_eq!(doc["problems"], serde_json::json!([]));

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dataschema.toml"), "namespace = \"acme\"\n").unwrap();
    std::fs::write(dir.path().join("a.v1.json"), "{not json").unwrap();
    std::fs::write(dir.path().join("b.v1.json"), r#"{"type": "integer"}"#).unwrap();
    std::fs::write(dir.path().join("b.v2.json"), r#"{"type": "string"}"#).unwrap();
    let out = dataschema(&["check", "--format", "json", s(dir.path())]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = document(&out, "check");
    assert_eq!(doc["ok"], false);
    let problems = doc["problems"].as_array().unwrap();
    let kinds: Vec<&str> = problems
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"not_json") && kinds.contains(&"incompatible"),
        "{doc}"
    );
    let incompatible = problems
        .iter()
        .find(|p| p["kind"] == "incompatible")
        .unwrap();
    assert!(incompatible["path"]
        .as_str()
        .unwrap()
        .ends_with("b.v2.json"));
    assert_eq!(incompatible["report"]["compatible"], false, "{doc}");

    let out = dataschema(&["check", "--format", "json", "/nonexistent"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(document(&out, "check")["error"]
        .as_str()
        .unwrap()
        .contains("not a schemas folder"));
}

#[test]
fn validate_json_gives_the_outcome_and_violations() {
    let urn = "urn:acme:schema:orders.created:1";
    let valid = data("payloads/order_valid.json");
    let validate = |urn: &str, file: &str| {
        dataschema(&[
            "validate",
            "--format",
            "json",
            "--schemas",
            SCHEMAS,
            urn,
            file,
        ])
    };
    let out = validate(urn, s(&valid));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = document(&out, "validate");
    assert_eq!(doc["outcome"], "valid");
    assert_eq!(doc["dataschema"], urn);
    assert_eq!(doc["schema_id"], Value::Null);

    let invalid = data("payloads/order_invalid.json");
    let out = validate(urn, s(&invalid));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = document(&out, "validate");
    assert_eq!(doc["outcome"], "invalid");
    assert_eq!(doc["urn"], urn);
    let paths: Vec<&str> = doc["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            assert!(v["kind"].is_string() && v["message"].is_string(), "{v}");
            v["path"].as_str().unwrap()
        })
        .collect();
    assert!(paths.contains(&"/currency"), "{doc}");

    let out = validate("urn:acme:schema:orders.created:9", s(&valid));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let doc = document(&out, "validate");
    assert_eq!(doc["outcome"], "unvalidated");
    assert_eq!(doc["reason"], "not_found");
    assert!(doc["message"].is_string());

    let out = validate(urn, "/nonexistent");
    assert_eq!(out.status.code(), Some(66), "{}", text(&out));
    assert!(document(&out, "validate")["error"].is_string());
}

#[test]
fn resolve_json_carries_the_payload_in_base64() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let payload = dir.path().join("v1.json");
    std::fs::write(&payload, br#"{"id": 7, "fullName": "Ada"}"#).unwrap();
    let folder = data("resolve/folder");
    let (v1, v2) = ("urn:acme:schema:order:1", "urn:acme:schema:order:2");
    let resolve = |reader: &str| {
        dataschema(&[
            "resolve",
            "--format",
            "json",
            "--schemas",
            s(&folder),
            v1,
            reader,
            s(&payload),
        ])
    };
    let out = resolve(v2);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = document(&out, "resolve");
    assert_eq!(doc["outcome"], "resolved");
    assert_eq!(doc["direction"], "read");
    assert_eq!(doc["writer"], v1);
    assert_eq!(doc["reader"], v2);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(doc["payload_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, br#"{"id":7,"name":"Ada","currency":"EUR"}"#);

    std::fs::write(&payload, br#"{"id": "x"}"#).unwrap();
    let out = resolve(v2);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc = document(&out, "resolve");
    assert_eq!(doc["outcome"], "invalid");
    assert_eq!(doc["payload_base64"], Value::Null);
    assert_eq!(doc["violations"][0]["path"], "/id", "{doc}");

    std::fs::write(&payload, br#"{"id": 7}"#).unwrap();
    let out = resolve("urn:acme:schema:order:9");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let doc = document(&out, "resolve");
    assert_eq!(doc["outcome"], "not_resolved");
    assert!(
        doc["message"].as_str().unwrap().contains("unresolvable"),
        "{doc}"
    );
}

/// `import --format json`: the summary's counts, from one registry into
/// another.
#[test]
fn import_json_counts_what_it_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let token = token_file(tmp.path());
    let source = Serve::start(&["--store", "memory", "--token-file", &token]);
    let target = Serve::start(&["--store", "memory", "--token-file", &token]);
    let reply = server::confluent(
        "POST",
        &source.url("/subjects/orders-value/versions"),
        &serde_json::json!({"schema": r#"{"type": "object"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    let args = [
        "import",
        "--format",
        "json",
        "--from",
        &source.url(""),
        "--to",
        &target.url(""),
        "--token-file",
        &token,
    ];
    let out = dataschema(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = document(&out, "import");
    assert_eq!(doc["subjects"], 1, "{doc}");
    assert_eq!(doc["versions"], 1);
    assert_eq!(doc["copied"], 1);
    assert_eq!(doc["skipped"], 0);
    assert_eq!(doc["refused"], serde_json::json!([]));
    assert_eq!(doc["stopped"], Value::Null);
    let again = dataschema(&args);
    assert_eq!(document(&again, "import")["skipped"], 1, "{}", text(&again));

    let out = dataschema(&[
        "import",
        "--format",
        "json",
        "--from",
        "ftp://x",
        "--to",
        &target.url(""),
        "--token-file",
        &token,
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(document(&out, "import")["error"].is_string());
}

/// The completion scripts name every command; bash's parses (`bash -n`).
#[test]
fn completions_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let out = dataschema(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let script = String::from_utf8(out.stdout).unwrap();
        for command in [
            "check",
            "publish",
            "validate",
            "serve",
            "import",
            "completions",
        ] {
            assert!(script.contains(command), "{shell}: {command} missing");
        }
    }
    let out = dataschema(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dataschema.bash");
    std::fs::write(&file, &out.stdout).unwrap();
    let bash = Command::new("bash").arg("-n").arg(&file).output();
    match bash {
        Ok(checked) => assert!(checked.status.success(), "{}", text(&checked)),
        Err(err) => panic!("bash is needed to check the script: {err}"),
    }
    assert_eq!(dataschema(&["completions", "tcsh"]).status.code(), Some(64));
}

/// The man page has its sections and every command; `man -l` (or
/// `groff`) renders it where installed.
#[test]
fn man_page_from_the_commands() {
    let out = dataschema(&["man"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let page = String::from_utf8(out.stdout).unwrap();
    for section in [
        ".TH dataschema",
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH SUBCOMMANDS",
    ] {
        assert!(page.contains(section), "{section} missing");
    }
    for command in ["check", "diff", "compat", "serve", "import", "completions"] {
        assert!(
            page.contains(&format!("dataschema\\-{command}")),
            "{command} missing"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dataschema(&["man", "--out-dir", s(dir.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let compat = std::fs::read_to_string(dir.path().join("dataschema-compat.1")).unwrap();
    assert!(compat.contains("manifest"), "{compat}");
    assert!(compat.contains("\\-\\-format"), "{compat}");

    let file = dir.path().join("dataschema.1");
    let rendered = Command::new("man")
        .args(["-l", "-Tutf8"])
        .arg(&file)
        .env("MANPAGER", "cat")
        .output();
    let rendered = match rendered {
        Ok(out) if out.status.success() => Some(out),
        _ => Command::new("groff")
            .args(["-man", "-Tutf8"])
            .arg(&file)
            .output()
            .ok()
            .filter(|out| out.status.success()),
    };
    match rendered {
        Some(out) => {
            // Bold is overstruck (`S\x08S`): each backspace takes back a character.
            let mut shown = String::new();
            for c in String::from_utf8_lossy(&out.stdout).chars() {
                if c == '\u{8}' {
                    shown.pop();
                } else {
                    shown.push(c);
                }
            }
            assert!(
                shown.contains("SYNOPSIS") && shown.contains("dataschema-serve(1)"),
                "{shown}"
            );
        }
        // Neither is installed: the sections above are what is checked.
        None => eprintln!("note: neither man nor groff renders here; sections checked"),
    }
}
