//! Data contracts over Avro and protobuf payloads against Confluent's own
//! Python client with rule execution (`confluent-kafka[rules]`:
//! `AvroSerializer`/`AvroDeserializer`, `ProtobufSerializer`/
//! `ProtobufDeserializer`, its CEL, CEL_FIELD and JSONata executors),
//! through the real server (`tests/python/confluent_rules_formats.py`);
//! issue 40's interoperability, as `confluent_rules_python.rs` checks it
//! for JSON Schema:
//!
//! * every payload Confluent's serializer refuses on write (a `WRITEREAD`
//!   condition: message-level `CEL`, `CEL_FIELD` on a field tagged in the
//!   schema, Avro's `confluent:tags` and protobuf's
//!   `(confluent.field_meta).tags`, and on a field the version's
//!   `metadata.tags` tags), the guard refuses on read, naming the rule
//!   Confluent's deserializer names; every one it accepts, the guard
//!   accepts;
//! * the `CEL_FIELD` masking transform (mode `READ`) gives the bytes
//!   Confluent's deserializer's value has, written with the reader's
//!   schema, with and without a migration before it;
//! * a consumer pinned to major version 2 reads a version-1 frame through
//!   the `JSONATA` migration rules as Confluent's deserializer returns it
//!   (the decoded values compared, and the bytes);
//!
//! each through a guard over the server's registry, through the HTTP
//! fallback (Confluent API and native API), and from a bundle (the same
//! schemas, the rules in its manifest, the ids the server gave locked).
//!
//! `DATASCHEMA_PYTHON` missing or without `confluent-kafka[rules]`: under
//! `CI` the test fails saying so; elsewhere it prints that it skips.
#![cfg(all(
    feature = "http",
    feature = "server",
    feature = "avro",
    feature = "proto-text",
    feature = "build",
    feature = "cel",
    feature = "jsonata"
))]

use crate::common;
use crate::rules_interop::{
    self, assert_refused_as_confluent, condition, guards, hex, rule_named_by, run_script,
};
use crate::server;

use std::path::Path;
use std::process::Command;

use dataschema::proto::WELL_KNOWN;
use dataschema::{build, Guard, Outcome, Registry, Urn};
use serde_json::{json, Value};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Avro,
    Protobuf,
}

impl Format {
    fn subject(self) -> &'static str {
        match self {
            Format::Avro => "contracts-avro-value",
            Format::Protobuf => "contracts-proto-value",
        }
    }

    fn arg(self) -> &'static str {
        match self {
            Format::Avro => "avro",
            Format::Protobuf => "protobuf",
        }
    }

    fn schema_type(self) -> &'static str {
        match self {
            Format::Avro => "AVRO",
            Format::Protobuf => "PROTOBUF",
        }
    }

    /// The bundle's file of a version.
    fn file(self, version: u32) -> String {
        let extension = match self {
            Format::Avro => "avsc",
            Format::Protobuf => "proto",
        };
        format!("{}.v{version}.{extension}", self.subject())
    }

    /// The full name Confluent's walk gives the `amount` field (Avro:
    /// `common/avro.py` `_transform_field` line 207, the record's full
    /// name and the field's; protobuf: the field descriptor's
    /// `full_name`, `common/protobuf.py` `_transform_field` line 442;
    /// confluent-kafka-python v2.16.1): what the version's
    /// `metadata.tags` path names (`common/serde.py` `get_tags`, lines
    /// 277-284, by `wildcard_match`).
    fn amount_full_name(self) -> &'static str {
        match self {
            Format::Avro => "acme.Contract.amount",
            Format::Protobuf => "acme.contracts.Contract.amount",
        }
    }

    /// Version `version`'s schema text: the amount is `amount` in
    /// version 1 and `total` in version 2; `email` is optional and
    /// tagged `PII` in the schema, and so is the `sku` of the records a
    /// map holds (which v2.16.1 walks: `common/avro.py` `transform`,
    /// `common/protobuf.py` `_child_descriptor`), as Confluent's walks
    /// read tags: Avro's `confluent:tags` on the field (`common/avro.py`
    /// `get_inline_tags`, line 497, the key read at line 537), protobuf's
    /// `(confluent.field_meta).tags` (`common/protobuf.py`
    /// `get_inline_tags`, line 842).
    fn schema(self, version: u32) -> String {
        let amount = if version == 1 { "amount" } else { "total" };
        match self {
            Format::Avro => json!({
                "type": "record",
                "name": "Contract",
                "namespace": "acme",
                "fields": [
                    {"name": "id", "type": "string"},
                    {"name": amount, "type": "double"},
                    {"name": "email", "type": ["null", "string"], "default": null,
                     "confluent:tags": ["PII"]},
                    {"name": "lines", "default": {}, "type": {"type": "map", "values": {
                        "type": "record", "name": "Line", "fields": [
                            {"name": "sku", "type": "string", "confluent:tags": ["PII"]},
                        ]}}},
                ],
            })
            .to_string(),
            Format::Protobuf => format!(
                "syntax = \"proto3\";\npackage acme.contracts;\n\n\
                 import \"confluent/meta.proto\";\n\n\
                 message Contract {{\n  string id = 1;\n  double {amount} = 2;\n  \
                 optional string email = 3 [(confluent.field_meta).tags = \"PII\"];\n  \
                 message Line {{\n    string sku = 1 [(confluent.field_meta).tags = \"PII\"];\n  }}\n  \
                 map<string, Line> lines = 4;\n}}\n"
            ),
        }
    }
}

/// Version 1's rules: name and expression (Confluent's refusal names
/// the expression: `Rule expr failed: EXPR`).
const V1_RULES: [(&str, &str); 6] = [
    ("positiveAmount", "message.amount > 0"),
    ("notBlocked", "message.id != 'blocked'"),
    ("piiNotEmpty", "value != ''"),
    ("notTooBig", "value < 1000000.0"),
    ("softCheck", "message.id != 'soft'"),
    // Avro's null branch reaches a field rule (v2.16.1, `common/avro.py`
    // `transform`, lines 147-152), a protobuf `optional` left unset does
    // not (`common/protobuf.py` `_transform_field`, line 447:
    // `has_presence`): `nomail` is refused as Avro, accepted as protobuf.
    (
        "mailUnlessNomail",
        "value != null || message.id != 'nomail'",
    ),
];

fn v1_rules() -> Value {
    json!({"domainRules": [
        condition(V1_RULES[0].0, V1_RULES[0].1, "ERROR"),
        condition(V1_RULES[1].0, V1_RULES[1].1, "ERROR"),
        {"name": V1_RULES[2].0, "kind": "CONDITION", "type": "CEL_FIELD",
         "mode": "WRITEREAD", "tags": ["PII"], "expr": V1_RULES[2].1},
        // On the field the version's metadata.tags tags MONEY.
        {"name": V1_RULES[3].0, "kind": "CONDITION", "type": "CEL_FIELD",
         "mode": "WRITEREAD", "tags": ["MONEY"], "expr": V1_RULES[3].1},
        condition(V1_RULES[4].0, V1_RULES[4].1, "NONE"),
        {"name": V1_RULES[5].0, "kind": "CONDITION", "type": "CEL_FIELD",
         "mode": "WRITEREAD", "tags": ["PII"], "expr": V1_RULES[5].1},
    ]})
}

fn v2_rules() -> Value {
    json!({
        "migrationRules": [
            {"name": "amountToTotal", "kind": "TRANSFORM", "type": "JSONATA", "mode": "UPGRADE",
             "expr": "$merge([$sift($, function($v, $k) {$k != 'amount'}), {'total': $.'amount'}])"},
            {"name": "totalToAmount", "kind": "TRANSFORM", "type": "JSONATA", "mode": "DOWNGRADE",
             "expr": "$merge([$sift($, function($v, $k) {$k != 'total'}), {'amount': $.'total'}])"},
        ],
        "domainRules": [
            condition("positiveTotal", "message.total > 0", "ERROR"),
            // Masking on read: Confluent's deserializer and the guard's
            // read_framed_as both hand back the masked value. The guard
            // before `;` keeps the rule off Avro's null branch, which
            // v2.16.1's walk hands the rule (`common/avro.py` transform).
            {"name": "maskPii", "kind": "TRANSFORM", "type": "CEL_FIELD", "mode": "READ",
             "tags": ["PII"], "expr": "typeName == 'STRING' ; 'XXX-' + value"},
        ],
    })
}

/// Version 1's metadata: its group and the tag on its amount.
fn v1_tags(format: Format) -> Value {
    json!({format.amount_full_name(): ["MONEY"]})
}

/// Registers versions 1 and 2 of the format's subject, in the
/// compatibility group `major_version`; answers their ids.
fn register(running: &server::Running, format: Format) -> [u32; 2] {
    let subject = format.subject();
    let send =
        |method: &str, path: &str, body: Value| rules_interop::send(running, method, path, body);
    send(
        "PUT",
        &format!("/config/{subject}"),
        json!({"compatibility": "BACKWARD", "compatibilityGroup": "major_version"}),
    );
    let v1 = send(
        "POST",
        &format!("/subjects/{subject}/versions"),
        json!({
            "schema": format.schema(1),
            "schemaType": format.schema_type(),
            "metadata": {"properties": {"major_version": "1"}, "tags": v1_tags(format)},
            "ruleSet": v1_rules(),
        }),
    );
    let v2 = send(
        "POST",
        &format!("/subjects/{subject}/versions"),
        json!({
            "schema": format.schema(2),
            "schemaType": format.schema_type(),
            "metadata": {"properties": {"major_version": "2"}},
            "ruleSet": v2_rules(),
        }),
    );
    let id = |reply: &Value| u32::try_from(reply["id"].as_u64().unwrap()).unwrap();
    [id(&v1), id(&v2)]
}

/// Version `version`'s `.proto` file and its imports, compiled with
/// protox into a descriptor set (one a version: both define
/// `acme.contracts.Contract`): what the Python side makes its message
/// classes from, and what this side decodes the guard's bytes with.
fn descriptor_set(dir: &Path, version: u32) -> Vec<u8> {
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    for version in [1, 2] {
        write(
            &format!("contract.v{version}.proto"),
            &Format::Protobuf.schema(version),
        );
    }
    for (name, text) in WELL_KNOWN {
        write(name, text);
    }
    let mut compiler = protox::Compiler::new([dir]).unwrap();
    compiler.include_imports(true);
    compiler
        .open_file(format!("contract.v{version}.proto"))
        .unwrap();
    compiler.encode_file_descriptor_set()
}

/// The guard's bytes of a version decoded to the JSON Confluent's
/// client gives for them: fastavro's dict (Avro), `MessageToDict`
/// (protobuf: JSON names, defaults left out).
fn decoded(format: Format, set: &[u8], version: u32, bytes: &[u8]) -> Value {
    match format {
        Format::Avro => {
            let schema = apache_avro::Schema::parse_str(&format.schema(version)).unwrap();
            let datum = apache_avro::reader::datum::GenericDatumReader::builder(&schema)
                .build()
                .unwrap()
                .read_value(&mut &bytes[..])
                .unwrap();
            Value::try_from(datum).unwrap()
        }
        Format::Protobuf => {
            let pool = prost_reflect::DescriptorPool::decode(set).unwrap();
            let file = pool
                .get_file_by_name(&format!("contract.v{version}.proto"))
                .unwrap();
            let message = file.messages().find(|m| m.name() == "Contract").unwrap();
            let decoded = prost_reflect::DynamicMessage::decode(message, bytes).unwrap();
            serde_json::to_value(&decoded).unwrap()
        }
    }
}

/// A JSON value as a TOML inline value (strings, arrays, tables): the
/// manifest's form of a rule set.
fn toml(value: &Value) -> String {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => value.to_string(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(toml).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(members) => format!(
            "{{{}}}",
            members
                .iter()
                .map(|(k, v)| format!("{} = {}", Value::from(k.as_str()), toml(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Null => panic!("no null in TOML"),
    }
}

/// A schemas folder of the same two versions, their rules (and version
/// 1's metadata tags) in its manifest, locked with the ids the server
/// gave: the registry a consumer built from it holds.
fn bundle(dir: &Path, format: Format, ids: [u32; 2]) -> Registry {
    let name = format.subject();
    let roots = match format {
        Format::Avro => String::new(),
        Format::Protobuf => format!(
            "[roots]\n\"{name}.v1\" = \"acme.contracts.Contract\"\n\
             \"{name}.v2\" = \"acme.contracts.Contract\"\n\n"
        ),
    };
    let manifest = format!(
        "namespace = \"acme\"\ncompatibility_group = \"major_version\"\n\n{roots}\
         [metadata.\"{name}.v1\"]\nmajor_version = \"1\"\n\n\
         [metadata.\"{name}.v2\"]\nmajor_version = \"2\"\n\n\
         [tags.\"{name}.v1\"]\n{tags}\n\n\
         [rules]\n\"{name}.v1\" = {v1}\n\"{name}.v2\" = {v2}\n",
        tags = v1_tags(format)
            .as_object()
            .unwrap()
            .iter()
            .map(|(path, tags)| format!("{} = {}", Value::from(path.as_str()), toml(tags)))
            .collect::<Vec<_>>()
            .join("\n"),
        v1 = toml(&v1_rules()),
        v2 = toml(&v2_rules()),
    );
    std::fs::write(dir.join(build::MANIFEST_FILE), manifest).unwrap();
    for version in [1, 2] {
        std::fs::write(dir.join(format.file(version)), format.schema(version)).unwrap();
    }
    build::lock(dir).unwrap();
    let urns: Vec<Urn> = [1, 2]
        .iter()
        .map(|v| common::urn(&format!("urn:acme:schema:{name}:{v}")))
        .collect();
    let checked = build::check(dir).unwrap_or_else(|problems| panic!("{problems:?}"));
    build::record_published(
        dir,
        &checked,
        &[(urns[0].clone(), ids[0]), (urns[1].clone(), ids[1])],
    )
    .unwrap();
    let checked = build::check(dir).unwrap();
    let ids: Vec<_> = checked
        .sources
        .iter()
        .filter_map(|s| s.id.map(|id| (s.schema.urn().clone(), id)))
        .collect();
    assert_eq!(ids.len(), 2);
    Registry::embed_with_ids(checked.schemas(), ids).unwrap()
}

fn run(format: Format) {
    let Some(python) = common::python_importing(
        "confluent_kafka.schema_registry.rules.cel.cel_executor, \
         confluent_kafka.schema_registry.rules.jsonata.jsonata_executor, \
         confluent_kafka.schema_registry.avro, confluent_kafka.schema_registry.protobuf",
    ) else {
        return;
    };
    let running = server::start();
    let ids = register(&running, format);
    let out = tempfile::tempdir().unwrap();
    let sets = [1, 2].map(|v| {
        let set = descriptor_set(&out.path().join("proto"), v);
        let path = out.path().join(format!("set.v{v}.binpb"));
        std::fs::write(&path, &set).unwrap();
        (set, path)
    });
    let sets_given: Vec<&Path> = match format {
        Format::Protobuf => sets.iter().map(|(_, path)| path.as_path()).collect(),
        Format::Avro => Vec::new(),
    };
    let result = run_script(
        &python,
        "confluent_rules_formats.py",
        &running,
        &[format.arg()],
        &sets_given,
    );
    assert_eq!(result["v1_id"], ids[0]);
    assert_eq!(result["v2_id"], ids[1]);

    let name = format.subject();
    let v1: Urn = common::urn(&format!("urn:acme:schema:{name}:1"));
    let v2: Urn = common::urn(&format!("urn:acme:schema:{name}:2"));
    let folder = tempfile::tempdir().unwrap();
    let mut guards = guards(&running);
    guards.push(("bundle", Guard::new(bundle(folder.path(), format, ids))));
    let v2_rules = [("positiveTotal", "message.total > 0")];
    let (mut refused, mut accepted, mut masked, mut downgraded) = (0, 0, 0, 0);
    for (what, guard) in &guards {
        let what = format!("{format:?}, {what}");
        for (entry, reader, rules) in result["written"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e, &v1, &V1_RULES[..]))
            .chain(
                result["written_v2"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| (e, &v2, &v2_rules[..])),
            )
        {
            let payload = &entry["payload"];
            let frame = hex(entry["frame_hex"].as_str().unwrap());
            let verdict = guard.validate_framed(&frame);
            if !entry["refused_on_write"].is_null() {
                assert_refused_as_confluent(&what, entry, verdict, rules);
                refused += 1;
                continue;
            }
            assert!(
                entry["refused_on_read"].is_null(),
                "{payload}: Confluent refused on read what it wrote: {}",
                entry["refused_on_read"]
            );
            assert!(
                matches!(verdict, Ok(Outcome::Validated)),
                "{what}: {payload}: Confluent accepted it, the guard says {verdict:?}"
            );
            accepted += 1;
            if reader == &v2 {
                // A version-2 frame read as version 1: the DOWNGRADE rule,
                // then version 1's own read conditions, as Confluent's
                // deserializer pinned to major_version 1 runs them.
                let read = guard.read_framed_as(&frame, &v1);
                match entry["refused_as_v1"].as_str() {
                    Some(refusal) => {
                        let invalid = read.err().unwrap_or_else(|| {
                            panic!("{what}: {payload}: Confluent refused it as v1 ({refusal})")
                        });
                        let rule = invalid
                            .rule()
                            .unwrap_or_else(|| panic!("{what}: {payload}: {invalid}"));
                        assert_eq!(rule.name(), rule_named_by(refusal, &V1_RULES), "{what}");
                        assert_eq!(invalid.urn(), &v1, "{what}");
                        downgraded += 1;
                    }
                    None => {
                        let read = read.unwrap_or_else(|invalid| panic!("{what}: {invalid}"));
                        assert_eq!(
                            read.bytes(),
                            hex(entry["read_v1_hex"].as_str().unwrap()),
                            "{what}: {payload} read as version 1: Confluent's {}",
                            entry["read_v1"]
                        );
                        assert_eq!(
                            decoded(format, &sets[0].0, 1, read.bytes()),
                            entry["read_v1"],
                            "{what}: {payload} read as version 1"
                        );
                        downgraded += 1;
                    }
                }
            }
            if reader == &v1 {
                // Read as written: version 1 has no transform.
                let read = guard
                    .read_framed_as(&frame, &v1)
                    .unwrap_or_else(|invalid| panic!("{what}: {payload}: {invalid}"));
                assert_eq!(
                    read.bytes(),
                    hex(entry["read_v1_hex"].as_str().unwrap()),
                    "{what}: {payload} read as version 1"
                );
            }
            // Read as version 2: through the JSONata rules for a
            // version-1 frame, and version 2's masking either way; what
            // Confluent's deserializer pinned to major_version 2 returns.
            let read = guard
                .read_framed_as(&frame, &v2)
                .unwrap_or_else(|invalid| panic!("{what}: {payload}: {invalid}"));
            assert!(
                matches!(read.outcome(), Outcome::Validated),
                "{what}: {payload}: {:?}",
                read.outcome()
            );
            assert_eq!(
                read.bytes(),
                hex(entry["read_v2_hex"].as_str().unwrap()),
                "{what}: {payload} read as version 2: the bytes of Confluent's value {}",
                entry["read_v2"]
            );
            let ours = decoded(format, &sets[1].0, 2, read.bytes());
            assert_eq!(
                ours, entry["read_v2"],
                "{what}: {payload} read as version 2"
            );
            assert!(
                ours.get("total").is_some() && ours.get("amount").is_none(),
                "{ours}"
            );
            if let Some(email) = payload.get("email").and_then(Value::as_str) {
                assert_eq!(ours["email"], format!("XXX-{email}"), "{what}");
                masked += 1;
            }
            if let Some(lines) = payload.get("lines").and_then(Value::as_object) {
                for (key, line) in lines {
                    let sku = line["sku"].as_str().unwrap();
                    assert_eq!(ours["lines"][key]["sku"], format!("XXX-{sku}"), "{what}");
                    masked += 1;
                }
            }
        }
    }
    #[cfg(feature = "cli")]
    cli_agrees(format, &result, folder.path(), &running.url(""), [&v1, &v2]);
    // Every verdict of Confluent's is met, both ways, by each guard; and
    // the payloads exercised both.
    let guards = guards.len();
    assert!(
        refused >= guards * 5 && accepted >= guards * 5,
        "refused {refused}, accepted {accepted}"
    );
    assert!(masked >= guards * 3, "masked {masked}");
    assert_eq!(downgraded, guards * 3, "downgraded {downgraded}");
    // The NONE rule's failure let `soft` through both sides.
    let soft = result["written"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["payload"]["id"] == "soft")
        .unwrap();
    assert!(soft["refused_on_write"].is_null(), "{soft}");
}

/// `dataschema validate --framed` and `dataschema resolve --framed` on
/// each of Confluent's frames, from the bundle's folder (its manifest's
/// rules, its lock's ids) and from the server (`--registry`, its native
/// API): the verdict Confluent's client gave, the refusing rule named in
/// `--format json`, and a version-1 or version-2 frame read as version
/// 2 giving the bytes of what Confluent's deserializer returns.
#[cfg(feature = "cli")]
fn cli_agrees(format: Format, result: &Value, folder: &Path, registry: &str, [v1, v2]: [&Urn; 2]) {
    let dir = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_dataschema"))
            .args(args)
            .output()
            .unwrap()
    };
    let folder = folder.to_str().unwrap();
    let v2_rules = [("positiveTotal", "message.total > 0")];
    let mut checked = 0;
    let entries = result["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e, &V1_RULES[..]))
        .chain(
            result["written_v2"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (e, &v2_rules[..])),
        );
    for (n, (entry, rules)) in entries.enumerate() {
        let payload = &entry["payload"];
        let file = dir.path().join(format!("frame-{n}.bin"));
        std::fs::write(&file, hex(entry["frame_hex"].as_str().unwrap())).unwrap();
        let file = file.to_str().unwrap();
        for source in [["--schemas", folder], ["--registry", registry]] {
            let what = format!("{format:?}, dataschema validate {}: {payload}", source[0]);
            let out = cli(&[
                "validate", "--framed", "--format", "json", source[0], source[1], file,
            ]);
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
                panic!(
                    "{what}: {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )
            });
            if let Some(on_read) = entry["refused_on_read"].as_str() {
                assert_eq!(out.status.code(), Some(1), "{what}: {doc}");
                assert_eq!(doc["outcome"], "invalid", "{what}: {doc}");
                assert_eq!(
                    doc["rule"]["name"],
                    rule_named_by(on_read, rules),
                    "{what}: {doc}"
                );
                assert_eq!(doc["rule"]["action"], "ERROR", "{what}: {doc}");
                checked += 1;
                continue;
            }
            assert_eq!(out.status.code(), Some(0), "{what}: {doc}");
            assert_eq!(doc["outcome"], "valid", "{what}: {doc}");
            let what = format!("{format:?}, dataschema resolve {}: {payload}", source[0]);
            let out = cli(&[
                "resolve",
                "--framed",
                source[0],
                source[1],
                v2.as_str(),
                file,
            ]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                out.stdout,
                hex(entry["read_v2_hex"].as_str().unwrap()),
                "{what}: Confluent's value {}",
                entry["read_v2"]
            );
            checked += 1;
            // A version-2 frame read as version 1: the DOWNGRADE rule, then
            // version 1's read conditions.
            if entry.get("refused_as_v1").is_none() {
                continue;
            }
            let what = format!("{what}, as version 1");
            let out = cli(&[
                "resolve",
                "--framed",
                "--format",
                "json",
                source[0],
                source[1],
                v1.as_str(),
                file,
            ]);
            let doc: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|_| panic!("{what}: {}", String::from_utf8_lossy(&out.stderr)));
            match entry["refused_as_v1"].as_str() {
                Some(refusal) => {
                    assert_eq!(out.status.code(), Some(1), "{what}: {doc}");
                    assert_eq!(
                        doc["rule"]["name"],
                        rule_named_by(refusal, &V1_RULES),
                        "{what}: {doc}"
                    );
                }
                None => {
                    assert_eq!(out.status.code(), Some(0), "{what}: {doc}");
                    assert_eq!(doc["outcome"], "resolved", "{what}: {doc}");
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 2 * 10, "checked {checked}");
}

#[test]
fn confluent_python_avro_rule_verdicts_masking_and_migrations_match_the_guard() {
    run(Format::Avro);
}

#[test]
fn confluent_python_protobuf_rule_verdicts_masking_and_migrations_match_the_guard() {
    run(Format::Protobuf);
}
