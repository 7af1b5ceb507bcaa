//! Resolution for Avro, the table row by row, both ways, through
//! `Registry::resolution` (the differential test against fastavro on
//! generated pairs is `avro_python.rs`).

use dataschema::{Compatibility, Error, MemoryStore, Registry, Resolution, Schema, Urn};
use serde_json::{json, Value};

fn resolution(name: &str, writer: Value, reader: Value) -> Result<Resolution, Error> {
    let registry = Registry::new(MemoryStore::new());
    let w: Urn = format!("urn:test:schema:{name}:1").parse().unwrap();
    let r: Urn = format!("urn:test:schema:{name}:2").parse().unwrap();
    for (urn, schema) in [(&w, &writer), (&r, &reader)] {
        registry
            .publish(
                Schema::avro(urn.clone(), schema.to_string()),
                Compatibility::None,
            )
            .unwrap();
    }
    registry.resolution(&w, &r)
}

fn record(fields: Value) -> Value {
    json!({"type": "record", "name": "R", "fields": fields})
}

/// Zigzag varint of `n`.
fn long(n: i64) -> Vec<u8> {
    let mut v = ((n << 1) ^ (n >> 63)) as u64;
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

fn string(s: &str) -> Vec<u8> {
    let mut out = long(s.len() as i64);
    out.extend_from_slice(s.as_bytes());
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

#[test]
fn a_field_of_the_same_name_or_an_alias_of_the_readers() {
    let res = resolution(
        "alias",
        record(json!([{"name": "id", "type": "int"}, {"name": "fullName", "type": "string"}])),
        record(json!([{"name": "id", "type": "int"},
            {"name": "name", "type": "string", "aliases": ["fullName"]}])),
    )
    .unwrap();
    let datum = cat(&[&long(7), &string("Ada")]);
    assert_eq!(res.transcode(&datum).unwrap(), datum);
    assert_eq!(res.write_back(&datum).unwrap(), datum);
}

#[test]
fn a_field_only_the_writer_has() {
    // Dropped; written back at its default.
    let res = resolution(
        "wonly",
        record(json!([{"name": "id", "type": "int"},
            {"name": "note", "type": "string", "default": "none"}])),
        record(json!([{"name": "id", "type": "int"}])),
    )
    .unwrap();
    assert_eq!(
        res.transcode(&cat(&[&long(1), &string("hi")])).unwrap(),
        long(1)
    );
    assert_eq!(
        res.write_back(&long(1)).unwrap(),
        cat(&[&long(1), &string("none")])
    );
    // Else null where the writer's type is a union with null.
    let res = resolution(
        "wnull",
        record(json!([{"name": "id", "type": "int"},
            {"name": "note", "type": ["string", "null"]}])),
        record(json!([{"name": "id", "type": "int"}])),
    )
    .unwrap();
    assert_eq!(
        res.write_back(&long(1)).unwrap(),
        cat(&[&long(1), &long(1)])
    );
    // Else the pair reads but cannot be written back.
    let res = resolution(
        "wnone",
        record(json!([{"name": "id", "type": "int"}, {"name": "note", "type": "string"}])),
        record(json!([{"name": "id", "type": "int"}])),
    )
    .unwrap();
    let why = res.can_write_back().unwrap_err();
    assert!(why.reason().contains("note"), "{why}");
    let err = res.write_back(&long(1)).unwrap_err();
    assert!(err.to_string().contains("cannot be written back"), "{err}");
}

#[test]
fn a_field_only_the_reader_has() {
    let res = resolution(
        "ronly",
        record(json!([{"name": "id", "type": "int"}])),
        record(json!([{"name": "id", "type": "int"},
            {"name": "currency", "type": "string", "default": "EUR"}])),
    )
    .unwrap();
    assert_eq!(
        res.transcode(&long(1)).unwrap(),
        cat(&[&long(1), &string("EUR")])
    );
    assert_eq!(
        res.write_back(&cat(&[&long(1), &string("USD")])).unwrap(),
        long(1)
    );
    let err = resolution(
        "rreq",
        record(json!([{"name": "id", "type": "int"}])),
        record(json!([{"name": "id", "type": "int"}, {"name": "currency", "type": "string"}])),
    )
    .unwrap_err();
    let Error::Unresolvable { refusal, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(refusal.path(), "/currency", "{err}");
}

#[test]
fn promotions_widened_and_narrowed_back_when_they_fit() {
    let res = resolution(
        "promo",
        record(json!([{"name": "n", "type": "int"}, {"name": "x", "type": "float"}])),
        record(json!([{"name": "n", "type": "long"}, {"name": "x", "type": "double"}])),
    )
    .unwrap();
    let datum = cat(&[&long(-5), &1.5f32.to_le_bytes()]);
    let read = res.transcode(&datum).unwrap();
    assert_eq!(read, cat(&[&long(-5), &1.5f64.to_le_bytes()]));
    assert_eq!(res.write_back(&read).unwrap(), datum);
    // A long past an int, a double that is no float: refused, with the path.
    let err = res
        .write_back(&cat(&[&long(1 << 40), &1.5f64.to_le_bytes()]))
        .unwrap_err();
    assert_eq!(err.violations()[0].path(), "/n", "{err}");
    let err = res
        .write_back(&cat(&[&long(1), &0.1f64.to_le_bytes()]))
        .unwrap_err();
    assert_eq!(err.violations()[0].path(), "/x", "{err}");
    // Narrowing is unresolvable reading.
    let err = resolution(
        "narrow",
        record(json!([{"name": "n", "type": "long"}])),
        record(json!([{"name": "n", "type": "int"}])),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("cannot read long as int at /n"),
        "{err}"
    );
}

#[test]
fn enums_by_symbol() {
    let res = resolution(
        "enums",
        record(json!([{"name": "s", "type": {"type": "enum", "name": "S",
            "symbols": ["NEW", "PAID", "VOID"]}}])),
        record(json!([{"name": "s", "type": {"type": "enum", "name": "S",
            "symbols": ["UNKNOWN", "NEW", "PAID"], "default": "UNKNOWN"}}])),
    )
    .unwrap();
    assert_eq!(res.transcode(&long(1)).unwrap(), long(2)); // PAID
    assert_eq!(res.transcode(&long(2)).unwrap(), long(0)); // VOID -> UNKNOWN
    assert_eq!(res.write_back(&long(1)).unwrap(), long(0)); // NEW
    let err = res.write_back(&long(0)).unwrap_err(); // UNKNOWN: the writer lacks it
    assert_eq!(err.violations()[0].path(), "/s", "{err}");
}

#[test]
fn arrays_maps_and_nested_records() {
    let item_w = json!({"type": "record", "name": "I", "fields": [{"name": "q", "type": "int"}]});
    let item_r = json!({"type": "record", "name": "I", "fields": [{"name": "q", "type": "long"},
        {"name": "g", "type": "boolean", "default": false}]});
    let res = resolution(
        "nested",
        record(
            json!([{"name": "items", "type": {"type": "array", "items": item_w}},
            {"name": "m", "type": {"type": "map", "values": "int"}}]),
        ),
        record(
            json!([{"name": "items", "type": {"type": "array", "items": item_r}},
            {"name": "m", "type": {"type": "map", "values": "double"}}]),
        ),
    )
    .unwrap();
    let datum = cat(&[
        &long(2),
        &long(3),
        &long(4),
        &[0],
        &long(1),
        &string("k"),
        &long(9),
        &[0],
    ]);
    let read = res.transcode(&datum).unwrap();
    assert_eq!(
        read,
        cat(&[
            &long(2),
            &long(3),
            &[0],
            &long(4),
            &[0],
            &[0],
            &long(1),
            &string("k"),
            &9f64.to_le_bytes(),
            &[0]
        ])
    );
    assert_eq!(res.write_back(&read).unwrap(), datum);
    let bad = cat(&[&long(1), &long(1 << 40), &[0], &[0], &[0]]);
    let err = res.write_back(&bad).unwrap_err();
    assert_eq!(err.violations()[0].path(), "/items/0/q", "{err}");
}

#[test]
fn unions_both_ways() {
    let res = resolution(
        "unions",
        record(json!([{"name": "v", "type": ["null", "int"]}])),
        record(json!([{"name": "v", "type": ["null", "string", "long"]}])),
    )
    .unwrap();
    assert_eq!(
        res.transcode(&cat(&[&long(1), &long(5)])).unwrap(),
        cat(&[&long(2), &long(5)])
    );
    assert_eq!(res.transcode(&long(0)).unwrap(), long(0));
    assert_eq!(
        res.write_back(&cat(&[&long(2), &long(5)])).unwrap(),
        cat(&[&long(1), &long(5)])
    );
    // A branch the writer lacks is refused, with the path.
    let err = res.write_back(&cat(&[&long(1), &string("x")])).unwrap_err();
    assert_eq!(err.violations()[0].path(), "/v", "{err}");
}

#[test]
fn another_kind_of_type_is_unresolvable_and_identity_is_free() {
    let err = resolution(
        "kind",
        record(json!([{"name": "v", "type": "string"}])),
        record(json!([{"name": "v", "type": "int"}])),
    )
    .unwrap_err();
    assert!(err.to_string().contains("at /v"), "{err}");
    let same = record(json!([{"name": "v", "type": "string"}]));
    let res = resolution("same", same.clone(), same).unwrap();
    assert!(res.is_identity());
    assert_eq!(res.transcode(&string("x")).unwrap(), string("x"));
}

#[test]
fn a_datum_declaring_millions_of_items_is_bounded_in_output() {
    // The writer's validator refuses an array declaring more items than a
    // decoder holds (2^60 nulls: refused before the plan runs). Under that
    // bound, 9,000,000 empty records take no byte in; each read with a
    // 4 kB default takes 4 kB out: the run stops at the output bound
    // (64 MiB), refused, not 36 GB written.
    let empty = json!({"type": "record", "name": "E", "fields": []});
    let padded = json!({"type": "record", "name": "E", "fields": [
        {"name": "pad", "type": "string", "default": "x".repeat(4096)}]});
    let resolution = resolution(
        "amplified",
        json!({"type": "array", "items": empty}),
        json!({"type": "array", "items": padded}),
    )
    .unwrap();
    let mut payload = long(9_000_000);
    payload.push(0);
    let err = resolution.transcode(&payload).unwrap_err();
    assert!(err.to_string().contains("larger than"), "{err}");
    let mut payload = long(1 << 60);
    payload.push(0);
    let err = resolution.transcode(&payload).unwrap_err();
    assert!(err.to_string().contains("past the"), "{err}");
}
