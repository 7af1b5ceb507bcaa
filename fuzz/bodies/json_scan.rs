//! The JSON scanner against `serde_json` + `jsonschema` on arbitrary bytes:
//! the first byte picks one of a fixed set of schemas, the rest is the
//! payload. Whenever the scanner answers, its verdict equals
//! `serde_json::from_slice` followed by `jsonschema`'s `is_valid` (built
//! with the guard's options); it never panics.
//!
//! `cargo +nightly fuzz run json_scan`

use std::sync::OnceLock;

use dataschema::validate::json_plan::JsonPlan;
use serde_json::{json, Value};

fn schemas() -> Vec<Value> {
    vec![
        // An order event (benches/data, schemas/orders.created.v1.json).
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "order_id": {"type": "string", "pattern": "^ord_[0-9a-z]{6,}$"},
                "customer_id": {"type": "string"},
                "placed_at": {"type": "string", "format": "date-time"},
                "currency": {"enum": ["EUR", "USD", "GBP"]},
                "items": {"type": "array", "minItems": 1, "items": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string", "minLength": 1},
                        "quantity": {"type": "integer", "minimum": 1},
                        "unit_price": {"type": "number", "exclusiveMinimum": 0}
                    },
                    "required": ["sku", "quantity", "unit_price"]
                }}
            },
            "required": ["order_id", "customer_id", "placed_at", "currency", "items"],
            "additionalProperties": false
        }),
        // Compositions, tuples, dependencies, names, formats.
        json!({
            "$defs": {"id": {"type": "string", "format": "uuid"}},
            "type": ["object", "array", "string"],
            "properties": {
                "id": {"$ref": "#/$defs/id"},
                "n": {"oneOf": [{"type": "integer", "multipleOf": 3}, {"type": "number", "maximum": 2.5}]},
                "s": {"anyOf": [{"format": "ipv4"}, {"format": "email"}, {"maxLength": 2}]},
                "t": {"prefixItems": [{"type": "boolean"}, {"const": null}], "items": {"not": {"type": "string"}}}
            },
            "patternProperties": {"^x": {"type": "string", "minLength": 1}},
            "propertyNames": {"maxLength": 4},
            "dependentRequired": {"a": ["b"]},
            "dependentSchemas": {"b": {"required": ["id"]}},
            "if": {"type": "string"}, "then": {"format": "date"}, "else": {"minItems": 0},
            "items": {"$ref": "#"}
        }),
        // Draft 7: `$ref` siblings ignored, tuple `items`, `dependencies`.
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"s": {"type": "string", "pattern": "\\d"}},
            "type": "object",
            "properties": {
                "r": {"$ref": "#/definitions/s", "type": "integer"},
                "l": {"items": [{"type": "integer"}, {"type": "string"}], "additionalItems": false}
            },
            "additionalProperties": {"type": ["null", "boolean", "number"]},
            "dependencies": {"r": ["l"], "l": {"properties": {"l": {"maxItems": 1}}}}
        }),
        // Indexed branches: `oneOf`/`anyOf` keyed by a member's `const`,
        // `enum` or `^literal$` pattern (strings and integers), by the
        // names they require, and by a string value's own `enum`.
        json!({
            "type": ["object", "array", "string", "integer"],
            "items": {"$ref": "#"},
            "oneOf": [
                {"properties": {"k": {"const": "a"}, "v": {"type": "string"}}, "required": ["k"]},
                {"properties": {"k": {"enum": ["b", 2, 3.0]}, "v": {"type": "integer"}},
                 "required": ["k", "v"]},
                {"properties": {"k": {"pattern": "^c\\.d$"}, "v": {"$ref": "#"}}},
                {"required": ["w"]},
                {"type": "array"},
                {"enum": ["a", "b", 1, 2]},
                {"type": "integer", "const": 7}
            ],
            "anyOf": [
                {"properties": {"v": {"const": 1}}, "required": ["v"]},
                {"properties": {"v": {"enum": ["x", "y"]}}, "required": ["v", "k"]},
                {"properties": {"k": {"pattern": "^a$"}}},
                {"not": {"type": "object"}}
            ]
        }),
        // Draft 4: integers by how they are written, boolean exclusives.
        json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "maximum": 1e20}
        }),
    ]
}

struct Case {
    plan: JsonPlan,
    validator: jsonschema::Validator,
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        schemas()
            .into_iter()
            .map(|schema| {
                let validator = jsonschema::options()
                    .should_validate_formats(true)
                    .with_pattern_options(
                        jsonschema::PatternOptions::regex()
                            .size_limit(2 << 20)
                            .dfa_size_limit(2 << 20),
                    )
                    .build(&schema)
                    .expect("the fuzz schemas compile");
                let plan = JsonPlan::compile(&schema, true).expect("the fuzz schemas are planned");
                Case { plan, validator }
            })
            .collect()
    })
}

pub fn run(data: &[u8]) {
    let Some((&pick, payload)) = data.split_first() else {
        return;
    };
    let cases = cases();
    let case = &cases[pick as usize % cases.len()];
    let expected = serde_json::from_slice::<Value>(payload)
        .map(|value| case.validator.is_valid(&value))
        .unwrap_or(false);
    if let Some(verdict) = case.plan.scan(payload) {
        assert_eq!(
            verdict,
            expected,
            "schema {pick}, payload {:?}",
            String::from_utf8_lossy(payload)
        );
    }
}
