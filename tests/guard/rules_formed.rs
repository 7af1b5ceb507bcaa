//! Data contracts over Avro and protobuf payloads: `CEL` and `CEL_FIELD`
//! conditions on the payload read in the form Confluent's deserializers
//! hand their rules (fields selected by `confluent:tags`,
//! `(confluent.field_meta).tags` and the version's `metadata.tags`),
//! `CEL_FIELD` transforms (masking) on what `read_as` hands back, written
//! in the payload's own encoding, and `JSONATA` migrations between
//! versions through the payload's JSON form.

use dataschema::{
    Guard, Invalid, Language, Metadata, Outcome, Reason, Registry, RuleSet, Schema, ViolationKind,
};
use serde_json::{json, Value};

use crate::common::{read, urn};

const AVRO: &str = "urn:acme:schema:order:1";
const PROTO: &str = "urn:acme:schema:order-pb:1";

fn ruled(schema: Schema, rules: Value, metadata: &str) -> Schema {
    let metadata: Value = serde_json::from_slice(&read(metadata)).unwrap();
    schema
        .with_rule_set(Some(RuleSet::from_json(&rules).unwrap()))
        .with_metadata(Some(Metadata::from_json(&metadata).unwrap()))
}

fn rules() -> Value {
    serde_json::from_slice(&read("rules/order.rules.json")).unwrap()
}

fn avro_schema(rules: Value) -> Schema {
    ruled(
        Schema::avro(urn(AVRO), read("rules/order.avsc")),
        rules,
        "rules/order.avro.metadata.json",
    )
}

fn proto_schema(rules: Value) -> Schema {
    let text = String::from_utf8(read("rules/order.proto")).unwrap();
    ruled(
        Schema::new(urn(PROTO), Language::Protobuf, text, None),
        rules,
        "rules/order.proto.metadata.json",
    )
}

fn guard_of(schemas: impl IntoIterator<Item = Schema>) -> Guard {
    Guard::new(Registry::embed(schemas).unwrap())
}

fn good() -> Value {
    json!({
        "id": "o1", "amount": 12.5, "email": "a@example.com",
        "lines": [{"sku": "x", "qty": 2}, {"sku": "y", "qty": 1}]
    })
}

fn with(change: impl FnOnce(&mut Value)) -> Value {
    let mut value = good();
    change(&mut value);
    value
}

/// An Avro datum of `order.avsc`, written by `apache-avro`.
fn avro(value: &Value) -> Vec<u8> {
    let text = String::from_utf8(read("rules/order.avsc")).unwrap();
    avro_with(&text, value)
}

fn avro_with(schema: &str, value: &Value) -> Vec<u8> {
    let schema = apache_avro::Schema::parse_str(schema).unwrap();
    let datum = apache_avro::types::Value::try_from(value.clone())
        .unwrap()
        .resolve(&schema)
        .unwrap();
    apache_avro::writer::datum::GenericDatumWriter::builder(&schema)
        .build()
        .unwrap()
        .write_value_to_vec(datum)
        .unwrap()
}

fn from_avro(schema: &str, bytes: &[u8]) -> Value {
    let schema = apache_avro::Schema::parse_str(schema).unwrap();
    let datum = apache_avro::reader::datum::GenericDatumReader::builder(&schema)
        .build()
        .unwrap()
        .read_value(&mut &bytes[..])
        .unwrap();
    Value::try_from(datum).unwrap()
}

/// Protobuf's varint.
fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn field(number: u64, bytes: &[u8], out: &mut Vec<u8>) {
    varint(number << 3 | 2, out);
    varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// An `acme.Order` of `order.proto`, written as protobuf's encoders write
/// it (fields in number order, defaults left out).
fn proto(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    field(1, value["id"].as_str().unwrap().as_bytes(), &mut out);
    out.push(2 << 3 | 1);
    out.extend_from_slice(&value["amount"].as_f64().unwrap().to_le_bytes());
    let email = value["email"].as_str().unwrap();
    if !email.is_empty() {
        field(3, email.as_bytes(), &mut out);
    }
    for line in value["lines"].as_array().unwrap() {
        let mut inner = Vec::new();
        field(1, line["sku"].as_str().unwrap().as_bytes(), &mut inner);
        let qty = line["qty"].as_i64().unwrap();
        if qty != 0 {
            inner.push(2 << 3);
            varint(qty as u64, &mut inner);
        }
        field(4, &inner, &mut out);
    }
    out
}

fn refused(guard: &Guard, dataschema: &str, payload: &[u8]) -> Invalid {
    match guard.validate(dataschema, payload) {
        Err(invalid) => invalid,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Writes a payload of one language from its JSON form.
type Encode = fn(&Value) -> Vec<u8>;

/// Both languages: the guard, its URN and the payload encoder.
fn cases() -> [(Guard, &'static str, Encode); 2] {
    [
        (guard_of([avro_schema(rules())]), AVRO, avro),
        (guard_of([proto_schema(rules())]), PROTO, proto),
    ]
}

#[test]
fn conditions_run_on_avro_and_protobuf_payloads() {
    for (guard, dataschema, encode) in cases() {
        assert!(
            matches!(
                guard.validate(dataschema, &encode(&good())),
                Ok(Outcome::Validated)
            ),
            "{dataschema}"
        );
        // A message-level CEL condition.
        let invalid = refused(
            &guard,
            dataschema,
            &encode(&with(|v| v["amount"] = json!(-1.0))),
        );
        assert_eq!(invalid.violations()[0].kind(), ViolationKind::Rule);
        assert!(
            invalid.violations()[0].message().contains("positiveAmount"),
            "{dataschema}: {invalid}"
        );
        // A field selected by its tag in the schema.
        let invalid = refused(
            &guard,
            dataschema,
            &encode(&with(|v| v["email"] = json!(""))),
        );
        assert_eq!(invalid.violations()[0].path(), "$.email", "{dataschema}");
        assert!(invalid.violations()[0].message().contains("piiIsNotEmpty"));
        // A field selected by the version's metadata.tags, by its full name,
        // inside an array of records.
        let invalid = refused(
            &guard,
            dataschema,
            &encode(&with(|v| v["lines"][1]["qty"] = json!(0))),
        );
        assert_eq!(
            invalid.violations()[0].path(),
            "$.lines[1].qty",
            "{dataschema}"
        );
        assert!(invalid.violations()[0].message().contains("quantities"));
        assert_eq!(guard.unvalidated(), 0, "{dataschema}");
    }
}

#[test]
fn field_rules_bind_name_type_name_full_name_and_message_as_confluent_does() {
    // `bindings` holds for every `sku` only while its line's qty is
    // positive: `message` is the record holding the field.
    let only_bindings = json!({"domainRules": [rules()["domainRules"][3].clone()]});
    for (guard, dataschema, encode) in [
        (
            guard_of([avro_schema(only_bindings.clone())]),
            AVRO,
            avro as Encode,
        ),
        (guard_of([proto_schema(only_bindings)]), PROTO, proto),
    ] {
        assert!(guard.validate(dataschema, &encode(&good())).is_ok());
        let invalid = refused(
            &guard,
            dataschema,
            &encode(&with(|v| v["lines"][0]["qty"] = json!(-4))),
        );
        assert_eq!(
            invalid.violations()[0].path(),
            "$.lines[0].sku",
            "{dataschema}"
        );
    }
}

#[test]
fn a_masking_transform_rewrites_what_read_as_hands_back_in_the_payloads_encoding() {
    let text = String::from_utf8(read("rules/order.avsc")).unwrap();
    for (guard, dataschema, encode) in cases() {
        let payload = encode(&good());
        let read = guard
            .read_as(dataschema, &payload, &urn(dataschema))
            .unwrap();
        assert!(read.outcome().is_validated());
        let masked = with(|v| v["email"] = json!("XXX"));
        // The bytes a producer would write for the masked message.
        assert_eq!(read.bytes(), encode(&masked), "{dataschema}");
        if dataschema == AVRO {
            assert_eq!(from_avro(&text, read.bytes()), masked);
        }
        // The verdict itself judged the payload as written.
        assert!(guard.validate(dataschema, &payload).is_ok());
    }
}

#[test]
fn a_message_level_cel_transform_replaces_the_message() {
    let rules = json!({"domainRules": [{
        "name": "upper", "kind": "TRANSFORM", "mode": "READ", "type": "CEL",
        "expr": "message.id == 'o1' ; {'id': 'O1', 'amount': message.amount * 2.0, 'email': message.email, 'lines': message.lines}"
    }]});
    let guard = guard_of([avro_schema(rules)]);
    let written = avro(&good());
    let read = guard.read_as(AVRO, &written, &urn(AVRO)).unwrap();
    let text = String::from_utf8(read_schema()).unwrap();
    let expected = with(|v| {
        v["id"] = json!("O1");
        v["amount"] = json!(25.0);
    });
    assert_eq!(from_avro(&text, read.bytes()), expected);
    // The guard before `;` is false: the message is handed back as written.
    let other = with(|v| v["id"] = json!("o2"));
    let written = avro(&other);
    let read = guard.read_as(AVRO, &written, &urn(AVRO)).unwrap();
    assert_eq!(read.bytes(), written);
}

fn read_schema() -> Vec<u8> {
    read("rules/order.avsc")
}

#[test]
fn a_transform_whose_result_the_schema_cannot_hold_fails_closed() {
    let rules = json!({"domainRules": [{
        "name": "badMask", "kind": "TRANSFORM", "mode": "READ", "type": "CEL_FIELD",
        "tags": ["PII"], "expr": "42"
    }]});
    let guard = guard_of([avro_schema(rules)]);
    let invalid = guard.read_as(AVRO, &avro(&good()), &urn(AVRO)).unwrap_err();
    assert!(
        invalid.violations()[0].message().contains("badMask"),
        "{invalid}"
    );
}

#[test]
fn unsupported_rule_types_fail_open_counted_under_rule_unusable() {
    for rule in [
        json!({"name": "enc", "type": "ENCRYPT", "kind": "TRANSFORM", "tags": ["PII"],
               "params": {"encrypt.kek.name": "k"}}),
        json!({"name": "mystery", "type": "NO_SUCH_TYPE", "kind": "CONDITION", "expr": "x"}),
    ] {
        let name = rule["name"].as_str().unwrap().to_owned();
        for (guard, dataschema, encode) in [
            (
                guard_of([avro_schema(json!({"domainRules": [rule.clone()]}))]),
                AVRO,
                avro as Encode,
            ),
            (
                guard_of([proto_schema(json!({"domainRules": [rule.clone()]}))]),
                PROTO,
                proto,
            ),
        ] {
            match guard.validate(dataschema, &encode(&good())) {
                Ok(Outcome::Unvalidated(u)) => {
                    assert_eq!(u.reason(), Reason::RuleUnusable, "{name}");
                    assert!(u.to_string().contains(&name), "{u}");
                }
                other => panic!("{name} on {dataschema}: {other:?}"),
            }
            assert_eq!(guard.unvalidated(), 1);
        }
    }
    // An encoding rule (ENCRYPT_PAYLOAD encrypts the whole payload): the
    // payload is not the schema's until decrypted, so the version fails
    // open rather than refusing every payload as malformed.
    let rules = json!({"encodingRules": [{
        "name": "payloadEnc", "type": "ENCRYPT_PAYLOAD", "kind": "TRANSFORM",
        "params": {"encrypt.kek.name": "k"}
    }]});
    let guard = guard_of([avro_schema(rules)]);
    match guard.validate(AVRO, b"\x01\x02 encrypted bytes") {
        Ok(Outcome::Unvalidated(u)) => {
            assert_eq!(u.reason(), Reason::RuleUnusable);
            assert!(u.to_string().contains("payloadEnc"), "{u}");
        }
        other => panic!("{other:?}"),
    }
}

#[cfg(feature = "jsonata")]
mod migrations {
    use super::*;

    fn version(n: u32) -> dataschema::Urn {
        format!("urn:acme:schema:product:{n}").parse().unwrap()
    }

    fn rules_of_v2() -> RuleSet {
        let rules: Value =
            serde_json::from_slice(&read("migrations/product.v2.rules.json")).unwrap();
        RuleSet::from_json(&rules).unwrap()
    }

    fn text(file: &str) -> String {
        String::from_utf8(read(&format!("migrations/{file}"))).unwrap()
    }

    #[test]
    fn avro_payloads_migrate_through_their_json_form() {
        let guard = guard_of([
            Schema::avro(version(1), text("product.v1.avsc")),
            Schema::avro(version(2), text("product.v2.avsc")).with_rule_set(Some(rules_of_v2())),
        ]);
        let v1 = json!({"name": "alice", "size": 123, "version": 1});
        let v2 = json!({"name": "alice", "height": 123, "version": 1});
        let written = avro_with(&text("product.v1.avsc"), &v1);
        let read = guard
            .read_as(version(1).as_str(), &written, &version(2))
            .unwrap();
        assert!(read.outcome().is_validated());
        assert!(read.crossed());
        assert_eq!(from_avro(&text("product.v2.avsc"), read.bytes()), v2);
        // And back down.
        let written = avro_with(&text("product.v2.avsc"), &v2);
        let read = guard
            .read_as(version(2).as_str(), &written, &version(1))
            .unwrap();
        assert_eq!(from_avro(&text("product.v1.avsc"), read.bytes()), v1);
        assert_eq!(guard.unvalidated(), 0);
    }

    #[test]
    fn protobuf_payloads_migrate_through_their_json_form() {
        let proto = |n: u32| {
            Schema::new(
                version(n),
                Language::Protobuf,
                text(&format!("product.v{n}.proto")),
                None,
            )
        };
        let guard = guard_of([proto(1), proto(2).with_rule_set(Some(rules_of_v2()))]);
        // v1 {name: "alice", size: 123, version: 1}
        let mut v1 = Vec::new();
        field(1, b"alice", &mut v1);
        v1.extend_from_slice(&[2 << 3, 123, 3 << 3, 1]);
        // v2 {name: "alice", version: 1, height: 123}
        let mut v2 = Vec::new();
        field(1, b"alice", &mut v2);
        v2.extend_from_slice(&[3 << 3, 1, 4 << 3, 123]);
        let read = guard
            .read_as(version(1).as_str(), &v1, &version(2))
            .unwrap();
        assert!(read.outcome().is_validated());
        assert_eq!(read.bytes(), v2);
        let read = guard
            .read_as(version(2).as_str(), &v2, &version(1))
            .unwrap();
        assert_eq!(read.bytes(), v1);
        // Without the rules, field 2 is unknown to v2 and `height` stays
        // unset: the rule carried the value.
        let bare = guard_of([proto(1), proto(2)]);
        let read = bare.read_as(version(1).as_str(), &v1, &version(2)).unwrap();
        assert_ne!(read.bytes(), v2);
    }
}

#[test]
fn the_readmes_masking_example_holds() {
    let urn: dataschema::Urn = "urn:acme:schema:user:1".parse().unwrap();
    let schema = Schema::avro(
        urn.clone(),
        r#"{"type": "record", "name": "User",
    "fields": [{"name": "email", "type": "string", "confluent:tags": ["PII"]}]}"#,
    )
    .with_rule_set(Some(
        RuleSet::from_json(&json!({"domainRules": [{
            "name": "maskPii", "kind": "TRANSFORM", "mode": "READ",
            "type": "CEL_FIELD", "tags": ["PII"], "expr": "'***'"}]}))
        .unwrap(),
    ));
    let guard = Guard::new(Registry::embed([schema]).unwrap());
    let read = guard.read_as(urn.as_str(), b"\x0aa@b.c", &urn).unwrap();
    assert_eq!(read.bytes(), b"\x06***");
}

#[test]
fn of_two_field_transforms_with_the_same_tags_the_first_runs() {
    // Confluent's FieldRuleExecutor.transform passes over a transform when
    // one before it in the rule set has the same tags, mode and type.
    let rules = json!({"domainRules": [
        {"name": "first", "kind": "TRANSFORM", "mode": "READ", "type": "CEL_FIELD",
         "tags": ["PII"], "expr": "'AAA'"},
        {"name": "second", "kind": "TRANSFORM", "mode": "READ", "type": "CEL_FIELD",
         "tags": ["PII"], "expr": "'BBB'"}
    ]});
    let guard = guard_of([avro_schema(rules)]);
    let written = avro(&good());
    let read = guard.read_as(AVRO, &written, &urn(AVRO)).unwrap();
    assert_eq!(read.bytes(), avro(&with(|v| v["email"] = json!("AAA"))));
}

/// confluent-kafka-python v2.16.1 walks the messages a protobuf map
/// holds with their own descriptor (`common/protobuf.py`
/// `_child_descriptor`: a map's value type), so a tagged field inside
/// them is masked; a map of scalars is a `MAP`, no primitive, and left.
/// The walk here passed over every map field.
#[test]
fn a_field_transform_reaches_the_messages_a_protobuf_map_holds() {
    let text = "syntax = \"proto3\";\npackage acme;\nimport \"confluent/meta.proto\";\n\
                message Book {\n  message Line {\n    string sku = 1 [(confluent.field_meta).tags = \"PII\"];\n    \
                int32 qty = 2;\n  }\n  map<string, Line> lines = 1;\n  \
                map<string, string> notes = 2 [(confluent.field_meta).tags = \"PII\"];\n}\n";
    let urn_text = "urn:acme:schema:book:1";
    let rules = json!({"domainRules": [{
        "name": "maskPii", "kind": "TRANSFORM", "mode": "READ", "type": "CEL_FIELD",
        "tags": ["PII"], "expr": "typeName == 'STRING' ; 'XXX'"}]});
    let schema = Schema::new(urn(urn_text), Language::Protobuf, text, None)
        .with_rule_set(Some(RuleSet::from_json(&rules).unwrap()));
    let guard = guard_of([schema]);
    // Book{lines: {"a": Line{sku, qty: 2}}, notes: {"n": "secret"}}.
    let book = |sku: &str| {
        let mut line = Vec::new();
        field(1, sku.as_bytes(), &mut line);
        line.extend_from_slice(&[2 << 3, 2]);
        let mut entry = Vec::new();
        field(1, b"a", &mut entry);
        field(2, &line, &mut entry);
        let mut note = Vec::new();
        field(1, b"n", &mut note);
        field(2, b"secret", &mut note);
        let mut out = Vec::new();
        field(1, &entry, &mut out);
        field(2, &note, &mut out);
        out
    };
    let written = book("x");
    let read = guard.read_as(urn_text, &written, &urn(urn_text)).unwrap();
    assert!(read.outcome().is_validated());
    assert_eq!(read.bytes(), book("XXX"));
}

/// A Confluent frame of a protobuf schema with rules: the rules read the
/// body past the message indexes (they were handed the indexes too, so
/// every framed protobuf payload of a version with rules failed open as
/// `rule_unusable`, never refused: found by Confluent's ProtobufSerializer
/// frames in tests/server/confluent_rules_formats_python.rs). A frame
/// naming another message than the root is judged by the schema and
/// fails open, counted, for its rules.
#[test]
fn rules_run_on_a_protobuf_frames_body_past_its_message_indexes() {
    let registry = Registry::embed_with_ids([proto_schema(rules())], [(urn(PROTO), 7)]).unwrap();
    let guard = Guard::new(registry);
    let frame = |indexes: &[u8], body: Vec<u8>| {
        let mut frame = vec![0, 0, 0, 0, 7];
        frame.extend_from_slice(indexes);
        frame.extend(body);
        frame
    };
    assert!(matches!(
        guard.validate_framed(&frame(&[0], proto(&good()))),
        Ok(Outcome::Validated)
    ));
    let negative = frame(&[0], proto(&with(|v| v["amount"] = json!(-1.0))));
    let invalid = guard.validate_framed(&negative).unwrap_err();
    assert_eq!(
        invalid.rule().unwrap().name(),
        "positiveAmount",
        "{invalid}"
    );
    // read_framed_as hands back the masked body, unframed.
    let written = frame(&[0], proto(&good()));
    let read = guard.read_framed_as(&written, &urn(PROTO)).unwrap();
    assert!(read.outcome().is_validated());
    assert_eq!(read.bytes(), proto(&with(|v| v["email"] = json!("XXX"))));
    assert_eq!(guard.unvalidated(), 0);
    // Indexes [0, 0]: an Order.Line, valid, its rules not run.
    let mut line = Vec::new();
    field(1, b"x", &mut line);
    match guard.validate_framed(&frame(&[4, 0, 0], line)) {
        Ok(Outcome::Unvalidated(u)) => assert_eq!(u.reason(), Reason::RuleUnusable),
        other => panic!("{other:?}"),
    }
    assert_eq!(guard.unvalidated(), 1);
}
