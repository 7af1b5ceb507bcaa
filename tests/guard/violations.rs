//! Every violation carries a kind, the same type for both languages: for
//! each kind, a payload that produces it, matched on `kind()` and `path()`
//! (never on the message's words), through `Guard::validate` and
//! `Guard::validate_json`; and one cap on the report for both validators.
#![cfg(any(feature = "json", feature = "protobuf"))]

use crate::common;

#[cfg(feature = "json")]
use common::read;
use common::urn;
use dataschema::{Guard, Invalid, Outcome, Registry, Schema, ViolationKind, MAX_VIOLATIONS};

/// The (kind, path) of each violation, in order.
fn kinds(outcome: Result<Outcome, Invalid>) -> Vec<(ViolationKind, String)> {
    match outcome {
        Err(invalid) => {
            assert!(
                invalid.violations().len() <= MAX_VIOLATIONS,
                "{} violations",
                invalid.violations().len()
            );
            invalid
                .violations()
                .iter()
                .map(|v| (v.kind(), v.path().to_owned()))
                .collect()
        }
        Ok(outcome) => panic!("expected Invalid, got {outcome:?}"),
    }
}

fn one(kind: ViolationKind, path: &str) -> Vec<(ViolationKind, String)> {
    vec![(kind, path.to_owned())]
}

#[cfg(feature = "json")]
mod json {
    use super::*;
    use serde_json::{json, Value};

    const KINDS: &str = "urn:acme:schema:violations.kinds:1";

    fn guard(reject_duplicate_keys: bool) -> Guard {
        let schema = Schema::json(urn(KINDS), read("violations/kinds.schema.json"));
        Guard::builder(Registry::embed([schema]).expect("the fixture registers"))
            .reject_duplicate_keys(reject_duplicate_keys)
            .build()
    }

    /// The same verdict for the bytes and for the parsed value.
    fn both(guard: &Guard, value: Value) -> Vec<(ViolationKind, String)> {
        let bytes = serde_json::to_vec(&value).unwrap();
        let from_bytes = kinds(guard.validate(KINDS, &bytes));
        let from_value = kinds(guard.validate_json(KINDS, &value));
        assert_eq!(from_bytes, from_value, "{value}");
        from_bytes
    }

    #[test]
    fn each_schema_keyword_has_its_kind_and_path() {
        use ViolationKind::*;
        let guard = guard(false);
        let cases = [
            (json!({"id": 1}), Type, "/id"),
            (json!({}), Required, ""),
            (
                json!({"id": "a", "email": "not an address"}),
                Format,
                "/email",
            ),
            (json!({"id": "a", "code": "abc"}), Pattern, "/code"),
            (json!({"id": "a", "color": "blue"}), Enum, "/color"),
            (json!({"id": "a", "version": 2}), Enum, "/version"),
            (json!({"id": "a", "qty": 0}), Bounds, "/qty"),
            (json!({"id": "a", "qty": 11}), Bounds, "/qty"),
            (json!({"id": "a", "tags": [1, 2, 3]}), Bounds, "/tags"),
            (json!({"id": "a", "name": ""}), Bounds, "/name"),
            (
                json!({"id": "a", "strict": {"a": 1, "b": 2}}),
                Additional,
                "/strict",
            ),
            (json!({"id": "a", "choice": true}), Composition, "/choice"),
            (json!({"id": "a", "never": 1}), Composition, "/never"),
            (json!({"id": "a", "list": ["x", 2]}), Type, "/list/1"),
        ];
        for (value, kind, path) in cases {
            assert_eq!(both(&guard, value.clone()), one(kind, path), "{value}");
        }
    }

    #[test]
    fn a_payload_that_is_not_json_is_not_json() {
        for bytes in [&b"{\"id\":"[..], b"\xff", b"{\"id\": \"a\"} trailing", b""] {
            assert_eq!(
                kinds(guard(false).validate(KINDS, bytes)),
                one(ViolationKind::NotJson, ""),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn a_duplicate_key_is_its_own_kind_when_refused() {
        let bytes = br#"{"id": "a", "id": "b"}"#;
        assert!(guard(false)
            .validate(KINDS, bytes)
            .expect("the last value is kept")
            .is_validated());
        assert_eq!(
            kinds(guard(true).validate(KINDS, bytes)),
            one(ViolationKind::DuplicateKey, "")
        );
        // Nested, too.
        let nested = br#"{"id": "a", "strict": {"a": 1, "a": 2}}"#;
        assert_eq!(
            kinds(guard(true).validate(KINDS, nested)),
            one(ViolationKind::DuplicateKey, "")
        );
    }

    #[test]
    fn nesting_past_the_limit_is_too_deep_on_both_paths() {
        let depth = 200;
        let bytes = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(
            kinds(guard(false).validate(KINDS, bytes.as_bytes())),
            one(ViolationKind::TooDeep, "")
        );
        let mut value = json!([]);
        for _ in 1..depth {
            value = Value::Array(vec![value]);
        }
        assert_eq!(
            kinds(guard(false).validate_json(KINDS, &value)),
            one(ViolationKind::TooDeep, "")
        );
    }

    #[test]
    fn the_report_is_capped_at_max_violations() {
        let value = json!({"id": "a", "list": (0..200).collect::<Vec<i32>>()});
        let found = both(&guard(false), value);
        assert_eq!(found.len(), MAX_VIOLATIONS);
        assert!(
            found
                .iter()
                .enumerate()
                .all(|(i, (kind, path))| *kind == ViolationKind::Type
                    && *path == format!("/list/{i}"))
        );
    }
}

#[cfg(feature = "protobuf")]
mod protobuf {
    use super::*;
    use serde_json::json;

    const ROOT: &str = "urn:acme:schema:violations.root:1";

    fn guard(reject_unknown_fields: bool) -> Guard {
        let dir = common::data("violations");
        let descriptor_set = protox::Compiler::new([&dir])
            .expect("include path")
            .open_files(["kinds.proto"])
            .expect("the fixture compiles")
            .encode_file_descriptor_set();
        let schema = Schema::protobuf(urn(ROOT), descriptor_set, "violations.v1.Root");
        Guard::builder(Registry::embed([schema]).expect("the fixture registers"))
            .reject_unknown_fields(reject_unknown_fields)
            .build()
    }

    /// `Root.id = "r"`: every case below starts with it.
    const ID: &[u8] = b"\x0a\x01r";

    fn with_id(rest: &[u8]) -> Vec<u8> {
        [ID, rest].concat()
    }

    /// A length-delimited field: tag byte, length (under 128), body.
    fn field(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        let mut len = body.len();
        loop {
            let byte = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn each_encoding_problem_has_its_kind_and_path() {
        use ViolationKind::*;
        let guard = guard(false);
        let cases: Vec<(Vec<u8>, ViolationKind, &str)> = vec![
            // count (int32) as a varint cut short.
            (with_id(b"\x30\x80"), Wire, "count"),
            // count (int32) with a length-delimited wire type.
            (with_id(b"\x32\x01\x00"), Wire, "count"),
            // A length past the end of the payload.
            (with_id(b"\x12\x05ab"), Wire, "note"),
            // note (string) holding bytes that are not UTF-8.
            (with_id(b"\x12\x02\xff\xfe"), Utf8, "note"),
            // id missing.
            (Vec::new(), Required, "id"),
            // items[0].sku missing.
            (with_id(&field(0x22, b"")), Required, "items[0].sku"),
            // by_key["k"].sku missing (a map entry: key "k", empty value).
            (
                with_id(&field(
                    0x2a,
                    &[&b"\x0a\x01k"[..], &field(0x12, b"")].concat(),
                )),
                Required,
                "by_key[\"k\"].sku",
            ),
            // [violations.v1.extra].sku missing (extension field 50).
            (
                with_id(b"\x92\x03\x00"),
                Required,
                "[violations.v1.extra].sku",
            ),
        ];
        for (bytes, kind, path) in cases {
            assert_eq!(
                kinds(guard.validate(ROOT, &bytes)),
                one(kind, path),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn an_unknown_field_is_its_own_kind_when_refused() {
        let bytes = with_id(b"\xa0\x06\x01"); // field 100, varint 1
        assert!(guard(false)
            .validate(ROOT, &bytes)
            .expect("unknown fields are skipped by default")
            .is_validated());
        assert_eq!(
            kinds(guard(true).validate(ROOT, &bytes)),
            one(ViolationKind::UnknownField, "")
        );
    }

    #[test]
    fn nesting_past_the_limit_is_too_deep() {
        let mut node = Vec::new();
        for _ in 0..150 {
            node = field(0x0a, &node); // Node.child
        }
        let bytes = with_id(&field(0x1a, &node)); // Root.node
        let found = kinds(guard(false).validate(ROOT, &bytes));
        assert_eq!(found.len(), 1, "{found:?}");
        let (kind, path) = &found[0];
        assert_eq!(*kind, ViolationKind::TooDeep);
        // Somewhere down the chain of children: node.child.child...
        let children = path
            .strip_prefix("node")
            .unwrap_or_else(|| panic!("{path}"));
        assert!(
            !children.is_empty() && children.split_terminator(".child").all(str::is_empty),
            "{path}"
        );
    }

    #[test]
    fn a_json_value_has_the_kinds_of_the_bytes() {
        use ViolationKind::*;
        let guard = guard(false);
        let cases = [
            (json!({}), Required, "id"),
            (json!({"id": "r", "items": [{}]}), Required, "items[0].sku"),
            (
                json!({"id": "r", "byKey": {"k": {}}}),
                Required,
                "by_key[\"k\"].sku",
            ),
            // Extensions too: the walk is the scanner's, which visits them.
            (
                json!({"id": "r", "[violations.v1.extra]": {}}),
                Required,
                "[violations.v1.extra].sku",
            ),
            (json!({"id": "r", "count": "four"}), Mapping, ""),
            (json!(["not", "a", "message"]), Mapping, ""),
        ];
        for (value, kind, path) in cases {
            assert_eq!(
                kinds(guard.validate_json(ROOT, &value)),
                one(kind, path),
                "{value}"
            );
        }
    }

    #[test]
    fn the_report_is_capped_at_max_violations_on_both_paths() {
        let guard = guard(false);
        let bytes = with_id(&field(0x22, b"").repeat(200));
        let value = json!({"id": "r", "items": vec![json!({}); 200]});
        for found in [
            kinds(guard.validate(ROOT, &bytes)),
            kinds(guard.validate_json(ROOT, &value)),
        ] {
            assert_eq!(found.len(), MAX_VIOLATIONS);
            assert!(found
                .iter()
                .enumerate()
                .all(|(i, (kind, path))| *kind == ViolationKind::Required
                    && *path == format!("items[{i}].sku")));
        }
        // The scanner's own report has the same cap.
        assert_eq!(
            dataschema::validate::protobuf_scan::MAX_VIOLATIONS,
            MAX_VIOLATIONS
        );
    }
}
