//! The guard's JSON path allocates nothing on a valid payload once the
//! scanner covers the schema: a counting global allocator watches
//! `Guard::validate` (URN parse, cache lookup, scan, counter) on valid
//! payloads, after a first use has compiled the schema and warmed the
//! thread's buffers.
//!
//! Two costs remain outside the scanner, in what it borrows: an `email`
//! format string is checked by `jsonschema`'s checker, which allocates
//! (the `email_address` crate builds the parsed address), and an integer
//! past `u64`/`i64` is read by serde_json, which collects its digits.

use crate::common;

use crate::counting_alloc;

use counting_alloc::allocations_during;
use dataschema::validate::JsonEngine;
use dataschema::{Guard, Outcome, Registry, Schema};

const ORDER: &str = "urn:acme:schema:orders.created:1";
const WIDE: &str = "urn:acme:schema:scan.wide:1";

/// Keywords beyond the order schema's: escapes, formats, compositions,
/// numbers the scanner hands to serde_json, a local `$ref`.
const WIDE_SCHEMA: &str = r##"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"id": {"type": "string", "format": "uuid"}},
  "properties": {
    "id": {"$ref": "#/$defs/id"},
    "at": {"type": "string", "format": "date-time"},
    "email": {"type": "string", "format": "email"},
    "host": {"format": "hostname"},
    "ip": {"anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]},
    "label": {"type": "string", "pattern": "^[a-zéè ]+$", "maxLength": 40},
    "amount": {"type": "number", "multipleOf": 0.01, "maximum": 1e6},
    "count": {"type": "integer", "minimum": -5},
    "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
    "pair": {"prefixItems": [{"type": "integer"}, {"type": "boolean"}], "items": false},
    "extra": {"not": {"type": "null"}}
  },
  "patternProperties": {"^x-": {"type": "string"}},
  "required": ["id", "at"],
  "dependentRequired": {"email": ["host"]},
  "if": {"required": ["count"]}, "then": {"properties": {"count": {"maximum": 100}}},
  "additionalProperties": false
}"##;

const WIDE_PAYLOAD: &str = r#"{
  "id": "12345678-1234-4234-8234-123456789abc",
  "at": "2026-11-30T08:15:00.123+01:00",
  "host": "mail.example.com",
  "ip": "2001:db8::1",
  "label": "caf\u00e9 cr\u00E8me",
  "amount": 12.34, "count": -3, "kind": "b",
  "tags": ["a", "b\n", "\ud83d\ude00"],
  "pair": [7, true],
  "extra": {"deep": [1.5e3, -0.0, 1e-7, -9223372036854775808]},
  "x-trace": "a\"b\\c", "count": 4
}"#;

fn assert_no_allocations(guard: &Guard, urn: &str, payload: &[u8]) {
    assert_eq!(
        guard.json_engine(&common::urn(urn)),
        Some(JsonEngine::Scanner),
        "{urn} is scanned"
    );
    // The first use compiles and caches, and sizes the thread's buffers.
    if let Err(invalid) = guard.validate(urn, payload) {
        panic!("{invalid}");
    }
    let mut validated = 0;
    let allocations = allocations_during(|| {
        for _ in 0..1_000 {
            if let Ok(Outcome::Validated) = guard.validate(urn, payload) {
                validated += 1;
            }
        }
    });
    assert_eq!(validated, 1_000);
    assert_eq!(
        allocations, 0,
        "{urn}: allocations over 1,000 validated messages"
    );
}

#[test]
fn validating_a_valid_order_event_allocates_nothing() {
    let guard = Guard::new(common::samples());
    let payload = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/order_1k.json"
    ))
    .unwrap();
    assert_no_allocations(&guard, ORDER, &payload);
}

#[test]
fn validating_a_valid_payload_against_many_keywords_allocates_nothing() {
    let registry = Registry::embed([Schema::json(common::urn(WIDE), WIDE_SCHEMA)]).unwrap();
    let guard = Guard::new(registry);
    assert_no_allocations(&guard, WIDE, WIDE_PAYLOAD.as_bytes());
}

#[test]
fn an_invalid_payload_is_reported_by_jsonschema() {
    let registry = Registry::embed([Schema::json(common::urn(WIDE), WIDE_SCHEMA)]).unwrap();
    let guard = Guard::new(registry);
    let payload = WIDE_PAYLOAD.replace("\"kind\": \"b\"", "\"kind\": \"c\"");
    let invalid = guard.validate(WIDE, payload.as_bytes()).unwrap_err();
    let paths: Vec<&str> = invalid.violations().iter().map(|v| v.path()).collect();
    assert_eq!(paths, ["/kind"], "{invalid}");
}

#[test]
fn a_refused_payload_costs_a_copy_until_its_report_is_read() {
    let registry = Registry::embed([Schema::json(common::urn(WIDE), WIDE_SCHEMA)]).unwrap();
    let guard = Guard::new(registry);
    let payload = WIDE_PAYLOAD.replace("\"kind\": \"b\"", "\"kind\": \"c\"");
    guard.validate(WIDE, payload.as_bytes()).unwrap_err();
    let mut kept = None;
    let allocations = allocations_during(|| {
        kept = Some(guard.validate(WIDE, payload.as_bytes()).unwrap_err());
    });
    // The payload's copy and the shared report: no `Value`, no
    // `jsonschema` pass (parsing this payload alone allocates dozens).
    assert!(
        allocations <= 2,
        "{allocations} allocations for the verdict"
    );
    let invalid = kept.unwrap();
    let reading = allocations_during(|| {
        assert_eq!(invalid.violations()[0].path(), "/kind");
    });
    assert!(reading > 2, "the report is produced when read");
    let again = allocations_during(|| assert_eq!(invalid.violations().len(), 1));
    assert_eq!(again, 0, "read once, kept");
}

#[test]
fn a_ref_by_urn_is_scanned_too() {
    const V2: &str = "urn:acme:schema:orders.created:2";
    let guard = Guard::new(common::samples());
    let payload = br#"{"order_id":"ord_a1b2c3d4","customer_id":"cus_1","placed_at":"2026-11-30T08:15:00Z",
        "currency":"EUR","items":[{"sku":"S","quantity":1,"unit_price":3.5}],
        "shipping_address":{"street":"1 Main Street","city":"Utrecht","postcode":"3511 AB","country":"NL"}}"#;
    assert_no_allocations(&guard, V2, payload);
    let bad = String::from_utf8_lossy(payload).replace("\"NL\"", "\"nl\"");
    let invalid = guard.validate(V2, bad.as_bytes()).unwrap_err();
    let paths: Vec<&str> = invalid.violations().iter().map(|v| v.path()).collect();
    assert_eq!(paths, ["/shipping_address/country"], "{invalid}");
}

/// `unevaluatedProperties`/`unevaluatedItems` (marked through `allOf`,
/// `anyOf`, `if`, `$ref` and a `$dynamicRef`), checked by the scanner
/// without allocating.
#[test]
fn unevaluated_keywords_and_dynamic_refs_allocate_nothing() {
    const UNEVALUATED: &str = "urn:test:schema:unevaluated:1";
    let schema = br##"{
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "allOf": [{"properties": {"kind": {"enum": ["a", "b"]}}}],
        "anyOf": [
            {"properties": {"size": {"type": "integer"}}, "required": ["size"]},
            {"properties": {"tags": {"$ref": "#/$defs/tags"}}}
        ],
        "if": {"properties": {"kind": {"const": "a"}}},
        "then": {"properties": {"child": {"$dynamicRef": "#node"}}},
        "unevaluatedProperties": false,
        "$defs": {
            "tags": {
                "type": "array",
                "prefixItems": [{"type": "string"}],
                "contains": {"type": "integer"},
                "unevaluatedItems": false
            }
        }
    }"##;
    let registry = Registry::embed([Schema::json(common::urn(UNEVALUATED), schema)]).unwrap();
    let guard = Guard::new(registry);
    let payload = br#"{"id": "x", "kind": "a", "size": 3, "tags": ["t", 1, 2],
        "child": {"id": "y", "kind": "b", "size": 1}}"#;
    assert_no_allocations(&guard, UNEVALUATED, payload);
    // An unevaluated member, and an unevaluated item (a string past the
    // prefix matches no `contains`), are refused.
    for bad in [
        r#"{"id": "x", "size": 3, "extra": 1}"#,
        r#"{"id": "x", "size": 3, "tags": ["t", 1, "u"]}"#,
        r#"{"id": "x", "kind": "b", "size": 3, "child": {"size": 1}}"#,
    ] {
        assert!(
            guard.validate(UNEVALUATED, bad.as_bytes()).is_err(),
            "{bad}"
        );
    }
}
