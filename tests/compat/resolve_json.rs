//! Resolution for JSON Schema, the issue's table row by row
//! (`tests/data/resolve/json_table.json`): each row a writer and a reader,
//! payloads read (writer's in, reader's out) and written back (reader's
//! in, writer's out), payloads refused with their path, pairs refused
//! when the plan is made with the reader's path and why. Every output is
//! checked by the target schema's guard, and every round trip
//! `write_back(transcode(x)) == x` the row allows is checked too.

use dataschema::resolve::{Aliases, PlanOptions};
use dataschema::{Compatibility, Error, Guard, MemoryStore, Outcome, Registry, Schema, Urn};
use serde_json::{json, Value};

use crate::common;

struct Pair {
    registry: Registry,
    writer: Urn,
    reader: Urn,
}

fn pair(name: &str, writer: &Value, reader: &Value) -> Pair {
    let registry = Registry::new(MemoryStore::new());
    let writer_urn: Urn = format!("urn:test:schema:{name}:1").parse().unwrap();
    let reader_urn: Urn = format!("urn:test:schema:{name}:2").parse().unwrap();
    for (urn, schema) in [(&writer_urn, writer), (&reader_urn, reader)] {
        registry
            .publish(
                Schema::json(urn.clone(), serde_json::to_vec(schema).unwrap()),
                Compatibility::None,
            )
            .unwrap();
    }
    Pair {
        registry,
        writer: writer_urn,
        reader: reader_urn,
    }
}

fn bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap()
}

fn parsed(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}", String::from_utf8_lossy(bytes)))
}

fn conforms(guard: &Guard, urn: &Urn, payload: &[u8], row: &str) {
    match guard.validate(urn.as_ref(), payload) {
        Ok(Outcome::Validated) => {}
        other => panic!(
            "{row}: {} does not conform to {urn}: {other:?}",
            String::from_utf8_lossy(payload)
        ),
    }
}

#[test]
fn the_table_row_by_row() {
    let rows: Vec<Value> =
        serde_json::from_slice(&common::read("resolve/json_table.json")).unwrap();
    assert!(rows.len() >= 20);
    for (i, row) in rows.iter().enumerate() {
        let name = row["row"].as_str().unwrap();
        let p = pair(&format!("row{i}"), &row["writer"], &row["reader"]);
        let guard = Guard::new(p.registry.clone());
        let resolution = p.registry.resolution(&p.writer, &p.reader);
        if let Some(refusal) = row.get("unresolvable") {
            let err = resolution.expect_err(name);
            let Error::Unresolvable { refusal: got, .. } = &err else {
                panic!("{name}: {err}")
            };
            assert_eq!(got.path(), refusal[0].as_str().unwrap(), "{name}: {err}");
            assert!(
                got.reason().contains(refusal[1].as_str().unwrap()),
                "{name}: {err}"
            );
            assert_eq!(got.reader(), &p.reader);
            continue;
        }
        let resolution = resolution.unwrap_or_else(|err| panic!("{name}: {err}"));
        for case in row["read"].as_array().into_iter().flatten() {
            let out = resolution
                .transcode(&bytes(&case[0]))
                .unwrap_or_else(|err| panic!("{name}: {case}: {err}"));
            assert_eq!(parsed(&out), case[1], "{name}: read {}", case[0]);
            conforms(&guard, &p.reader, &out, name);
            // Round trip, where the writer's value survives the reader.
            if resolution.can_write_back().is_ok() {
                if let Ok(back) = resolution.write_back(&out) {
                    conforms(&guard, &p.writer, &back, name);
                }
            }
        }
        for case in row["read_refused"].as_array().into_iter().flatten() {
            let err = resolution
                .transcode(&bytes(&case[0]))
                .expect_err(&format!("{name}: {}", case[0]));
            assert_eq!(err.urn(), &p.reader, "{name}");
            assert_eq!(
                err.violations()[0].path(),
                case[1].as_str().unwrap(),
                "{name}: {err}"
            );
        }
        if let Some(refusal) = row.get("back_unresolvable") {
            let why = resolution.can_write_back().expect_err(name);
            assert_eq!(why.path(), refusal[0].as_str().unwrap(), "{name}: {why}");
            assert!(
                why.reason().contains(refusal[1].as_str().unwrap()),
                "{name}: {why}"
            );
            let err = resolution
                .write_back(&bytes(&row["read"][0][1]))
                .expect_err(name);
            assert!(err.to_string().contains("cannot be written back"), "{err}");
        }
        for case in row["back"].as_array().into_iter().flatten() {
            let out = resolution
                .write_back(&bytes(&case[0]))
                .unwrap_or_else(|err| panic!("{name}: {case}: {err}"));
            assert_eq!(parsed(&out), case[1], "{name}: back {}", case[0]);
            conforms(&guard, &p.writer, &out, name);
        }
        for case in row["back_refused"].as_array().into_iter().flatten() {
            let err = resolution
                .write_back(&bytes(&case[0]))
                .expect_err(&format!("{name}: {}", case[0]));
            assert_eq!(err.urn(), &p.writer, "{name}");
            assert_eq!(
                err.violations()[0].path(),
                case[1].as_str().unwrap(),
                "{name}: {err}"
            );
        }
    }
}

#[test]
fn round_trips_where_the_pair_allows_it() {
    let writer = json!({"type": "object", "properties": {
        "id": {"type": "string"},
        "qty": {"type": "integer"},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
        "meta": {"type": "object", "additionalProperties": {"type": "integer"}}},
        "required": ["id", "qty"]});
    let reader = json!({"type": "object", "properties": {
        "id": {"type": "string"},
        "quantity": {"type": "number", "aliases": ["qty"]},
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
        "meta": {"type": "object", "additionalProperties": {"type": "number"}},
        "note": {"type": "string", "default": ""}},
        "required": ["id", "quantity"]});
    let p = pair("round", &writer, &reader);
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    for x in [
        json!({"id": "1", "qty": 2}),
        json!({"id": "1", "qty": -7, "tags": ["b", "a"], "meta": {"k": 1, "j": 0}}),
        json!({"id": "\u{e9}\"", "qty": 0, "tags": [], "meta": {}}),
    ] {
        let read = resolution.transcode(&bytes(&x)).unwrap();
        let back = resolution.write_back(&read).unwrap();
        assert_eq!(parsed(&back), x, "via {}", String::from_utf8_lossy(&read));
    }
}

#[test]
fn identical_schemas_resolve_to_the_identity() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let p = pair("same", &schema, &schema);
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    assert!(resolution.is_identity());
    let payload = b"{ \"a\" :  1 }";
    assert_eq!(resolution.transcode(payload).unwrap(), payload);
    assert_eq!(resolution.write_back(payload).unwrap(), payload);
}

#[test]
fn aliases_given_outside_the_schema_by_the_readers_path() {
    let writer = json!({"type": "object", "properties": {"customer": {"type": "object",
        "properties": {"fullName": {"type": "string"}}, "required": ["fullName"]}}});
    let reader = json!({"type": "object", "properties": {"customer": {"type": "object",
        "properties": {"name": {"type": "string"}}, "required": ["name"]}}});
    let p = pair("given", &writer, &reader);
    // Without the alias, the reader's required name has no writer field.
    let err = p.registry.resolution(&p.writer, &p.reader).unwrap_err();
    assert!(err.to_string().contains("at /customer/name"), "{err}");
    let options = PlanOptions::new()
        .with_aliases(Aliases::new().with("/customer/name", vec!["fullName".into()]));
    let resolution = p
        .registry
        .resolution_with(&p.writer, &p.reader, &options)
        .unwrap();
    let out = resolution
        .transcode(br#"{"customer":{"fullName":"Ada"}}"#)
        .unwrap();
    assert_eq!(parsed(&out), json!({"customer": {"name": "Ada"}}));
}

#[test]
fn a_malformed_payload_is_refused_with_the_writers_violations() {
    let writer = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let reader =
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"default": 1}}});
    let p = pair("malformed", &writer, &reader);
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    for bad in [
        &b"{\"a\": \"x\"}"[..],
        b"{\"a\": 1",
        b"[1]",
        b"{\"a\": 1} x",
    ] {
        let err = resolution.transcode(bad).unwrap_err();
        assert_eq!(err.urn(), &p.writer, "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn hostile_payloads_are_bounded_in_output_and_depth() {
    // Each empty item gains a 4 kB default: 20,000 items would be 80 MB.
    let big = "x".repeat(4096);
    let writer = json!({"type": "array", "items": {"type": "object"}});
    let reader = json!({"type": "array", "items": {"type": "object",
        "properties": {"pad": {"type": "string", "default": big}}}});
    let p = pair("amplified", &writer, &reader);
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    let mut payload = b"[".to_vec();
    for i in 0..20_000 {
        if i > 0 {
            payload.push(b',');
        }
        payload.extend_from_slice(b"{}");
    }
    payload.push(b']');
    let err = resolution.transcode(&payload).unwrap_err();
    assert!(err.to_string().contains("larger than"), "{err}");

    // Nesting past serde_json's limit is not JSON, refused before the plan
    // runs (and the plan's own walk is bounded the same).
    let writer = json!({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
        "$ref": "#/$defs/n"});
    let reader = json!({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"},
        "title": "other"}}, "$ref": "#/$defs/n"});
    let p = pair("deep", &writer, &reader);
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(resolution.transcode(deep.as_bytes()).is_err());
    let fine = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert_eq!(
        resolution.transcode(fine.as_bytes()).unwrap(),
        fine.as_bytes()
    );
}

/// Reads `x` as the reader, checks the output against `read` and the
/// reader's schema, writes it back and checks that against the writer's
/// schema and, when `round`, equal to `x`.
fn reads(p: &Pair, x: &Value, read: &Value, round: bool) {
    let guard = Guard::new(p.registry.clone());
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    let out = resolution
        .transcode(&bytes(x))
        .unwrap_or_else(|err| panic!("{x}: {err}"));
    assert_eq!(parsed(&out), *read, "read {x}");
    conforms(&guard, &p.reader, &out, &x.to_string());
    let back = resolution
        .write_back(&out)
        .unwrap_or_else(|err| panic!("{x}: back: {err}"));
    conforms(&guard, &p.writer, &back, &x.to_string());
    if round {
        assert_eq!(parsed(&back), *x, "write_back(transcode(x)) == x");
    }
}

fn unresolvable(p: &Pair, path: &str, why: &str) {
    let err = p.registry.resolution(&p.writer, &p.reader).unwrap_err();
    let Error::Unresolvable { refusal, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(refusal.path(), path, "{err}");
    assert!(refusal.reason().contains(why), "{err}");
}

#[test]
fn pattern_properties_resolve_value_by_value() {
    let writer = json!({"type": "object", "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false});
    let reader = json!({"type": "object", "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "number"}, "^tag-": {"type": "string"}},
        "additionalProperties": false});
    let p = pair("patterns", &writer, &reader);
    for x in [
        json!({"name": "a"}),
        json!({"name": "a", "x-n": 1, "x-m": -3}),
        json!({"x-": 0}),
    ] {
        reads(&p, &x, &x, true);
    }
    // Written back, a value the writer's pattern refuses is refused at its
    // key; a key only the reader's patterns take is dropped.
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    let err = resolution
        .write_back(br#"{"name": "a", "x-n": 2.5}"#)
        .unwrap_err();
    assert_eq!(err.violations()[0].path(), "/x-n", "{err}");
    let back = resolution
        .write_back(br#"{"name": "a", "tag-q": "t", "x-n": 2.0}"#)
        .unwrap();
    assert_eq!(parsed(&back), json!({"name": "a", "x-n": 2}));

    // The same pattern, values the reader cannot hold: refused when planned.
    let reader = json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}});
    unresolvable(
        &pair("patterns-narrowed", &writer, &reader),
        "/*",
        "cannot read integer as string",
    );

    // Different patterns: a key both match, with values that do not
    // resolve, is refused at its key when met; others go their way.
    let writer = json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}});
    let reader =
        json!({"type": "object", "patternProperties": {"^x-[0-9]+$": {"type": "integer"}}});
    let p = pair("patterns-apart", &writer, &reader);
    let resolution = p.registry.resolution(&p.writer, &p.reader).unwrap();
    let out = resolution.transcode(br#"{"x-a": "s", "y": [1]}"#).unwrap();
    assert_eq!(parsed(&out), json!({"x-a": "s", "y": [1]}));
    let err = resolution.transcode(br#"{"x-1": "s"}"#).unwrap_err();
    assert_eq!(err.violations()[0].path(), "/x-1", "{err}");
    assert!(
        err.to_string().contains("patterns of both versions"),
        "{err}"
    );
}

#[test]
fn all_of_resolves_as_its_branches_merged() {
    let base = json!({"type": "object", "properties": {"id": {"type": "string"}},
        "required": ["id"]});
    let writer = json!({"$defs": {"base": base}, "allOf": [{"$ref": "#/$defs/base"},
        {"properties": {"qty": {"type": "integer"}}, "required": ["qty"]}]});
    let reader = json!({"$defs": {"base": base}, "allOf": [{"$ref": "#/$defs/base"},
        {"properties": {"qty": {"type": "number"}, "note": {"type": "string", "default": ""}},
         "required": ["qty", "note"]}]});
    let p = pair("allof", &writer, &reader);
    reads(
        &p,
        &json!({"id": "a", "qty": 2}),
        &json!({"id": "a", "qty": 2, "note": ""}),
        true,
    );
    // A branch closed by additionalProperties sees its own properties
    // only: the other branch's `id` must hold its `additionalProperties`.
    let writer = json!({"allOf": [{"type": "object", "properties": {"id": {"type": "string"}}},
        {"additionalProperties": {"type": "string"}}]});
    let reader = json!({"type": "object", "properties": {"id": {"type": "string"}},
        "additionalProperties": {"type": "string"}});
    let p = pair("allof-closed", &writer, &reader);
    reads(
        &p,
        &json!({"id": "a", "k": "v"}),
        &json!({"id": "a", "k": "v"}),
        true,
    );
    // A reader branch requiring what the writer lacks: refused at its path.
    let reader = json!({"$defs": {"base": base}, "allOf": [{"$ref": "#/$defs/base"},
        {"properties": {"zone": {"type": "string"}}, "required": ["zone"]}]});
    unresolvable(
        &pair("allof-required", &p_writer(&base), &reader),
        "/zone",
        "requires it with no default",
    );
    // Two branches' conditionals are kept whole: the same on both sides,
    // resolved and the output checked; one the reader adds, refused.
    let conditional = json!({"if": {"properties": {"kind": {"const": "a"}}},
        "then": {"required": ["a"]}});
    let conditional2 = json!({"if": {"properties": {"kind": {"const": "b"}}},
        "then": {"required": ["b"]}});
    let object = json!({"type": "object", "properties": {"kind": {"type": "string"},
        "a": {"type": "integer"}, "b": {"type": "integer"}}});
    let writer = json!({"allOf": [object, conditional, conditional2]});
    let mut wider = object.clone();
    wider["properties"]["a"] = json!({"type": "number"});
    let reader = json!({"allOf": [wider, conditional, conditional2]});
    let p = pair("allof-if", &writer, &reader);
    reads(
        &p,
        &json!({"kind": "a", "a": 1}),
        &json!({"kind": "a", "a": 1}),
        true,
    );
    let reader = json!({"allOf": [object, conditional, conditional2,
        {"if": {"properties": {"kind": {"const": "c"}}}, "then": {"required": ["c"]}}]});
    unresolvable(&pair("allof-if-added", &writer, &reader), "/", "allOf");
}

fn p_writer(base: &Value) -> Value {
    json!({"$defs": {"base": base}, "allOf": [{"$ref": "#/$defs/base"}]})
}

#[test]
fn a_ref_beside_other_keywords_applies_both() {
    let defs = json!({"name": {"type": "string", "maxLength": 10}});
    // The writer's `n` is the $ref and its sibling both: at most 5 long,
    // which the reader's 8 holds (the $ref alone, 10, would not).
    let writer = json!({"$defs": defs, "type": "object", "properties": {
        "n": {"$ref": "#/$defs/name", "maxLength": 5}}});
    let reader = json!({"type": "object", "properties": {"n": {"type": "string", "maxLength": 8}}});
    let p = pair("ref-beside", &writer, &reader);
    reads(&p, &json!({"n": "abc"}), &json!({"n": "abc"}), true);
    // The reader's sibling narrows: refused at the reader's path.
    let reader = json!({"$defs": defs, "type": "object", "properties": {
        "n": {"$ref": "#/$defs/name", "maxLength": 3}}});
    unresolvable(
        &pair("ref-beside-narrowed", &writer, &reader),
        "/n",
        "maxLength",
    );
    // A sibling the plan reads structurally: properties beside the $ref.
    let writer = json!({"$defs": {"base": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "$ref": "#/$defs/base", "properties": {"qty": {"type": "integer"}}, "required": ["qty"]});
    let reader = json!({"$defs": {"base": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "$ref": "#/$defs/base", "properties": {"qty": {"type": "number"}}, "required": ["qty"]});
    let p = pair("ref-beside-properties", &writer, &reader);
    reads(
        &p,
        &json!({"id": "a", "qty": 1}),
        &json!({"id": "a", "qty": 1}),
        true,
    );
}

#[test]
fn all_of_merges_that_grow_exponentially_are_refused() {
    // a_k = allOf [a_k+1, b_k+1], b_k = allOf [a_k+1, {p: minLength k}]:
    // each level's `p` holds both the next ones', a Fibonacci growth.
    let mut defs = serde_json::Map::new();
    for k in 0..48 {
        let (a, b) = (format!("#/$defs/a{}", k + 1), format!("#/$defs/b{}", k + 1));
        defs.insert(
            format!("a{k}"),
            json!({"allOf": [{"$ref": a}, {"$ref": b}]}),
        );
        defs.insert(
            format!("b{k}"),
            json!({"allOf": [{"$ref": a}, {"properties": {"p": {"minLength": k}}}]}),
        );
    }
    defs.insert("a48".into(), json!({"type": "object"}));
    defs.insert("b48".into(), json!({"type": "object"}));
    let writer = json!({"$defs": defs, "allOf": [{"$ref": "#/$defs/a0"}]});
    let mut reader = writer.clone();
    reader["title"] = json!("v2");
    let p = pair("exponential", &writer, &reader);
    let err = p.registry.resolution(&p.writer, &p.reader).unwrap_err();
    assert!(err.to_string().contains("grow past"), "{err}");
}
