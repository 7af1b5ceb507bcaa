//! Properties of the JSON Schema diff over generated schema-like values:
//! a schema never differs from itself, every mode accepts a schema against
//! itself, and nothing panics on arbitrary input.

use dataschema::compat::{json, Compatibility};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "enum",
    "const",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "$ref",
    "definitions",
    "$defs",
    "title",
    "default",
    "contains",
    "minContains",
    "if",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        prop::sample::select(vec![
            "string", "integer", "number", "object", "array", "null", "boolean"
        ])
        .prop_map(|t| json!({"type": t})),
        (0i64..20).prop_map(|n| json!(n)),
        "[a-z^$*.]{0,4}".prop_map(Value::String),
        prop::sample::select(vec![
            "#",
            "#/definitions/a",
            "#/$defs/b",
            "#/properties/x",
            "other.json"
        ])
        .prop_map(|r| json!({"$ref": r})),
    ]
}

fn schema_like() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (prop::sample::select(KEYWORDS.to_vec()), inner.clone()),
                0..6
            )
            .prop_map(|entries| {
                let mut map = Map::new();
                for (k, v) in entries {
                    map.insert(k.to_owned(), v);
                }
                Value::Object(map)
            }),
            prop::collection::vec(("[a-c]{1,2}", inner), 0..4).prop_map(|entries| {
                let mut props = Map::new();
                for (k, v) in entries {
                    props.insert(k, v);
                }
                json!({"type": "object", "properties": props, "definitions": {"a": {"$ref": "#"}}})
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_schema_never_differs_from_itself(schema in schema_like()) {
        let diff = json::diff(&schema, &schema);
        prop_assert!(diff.is_empty(), "{}", diff);
        if schema.is_object() || schema.is_boolean() {
            for mode in Compatibility::ALL {
                let report = json::check(mode, &schema, &[(1, &schema), (2, &schema)]).unwrap();
                prop_assert!(report.is_compatible(), "{}", report);
            }
        }
    }

    /// `diff` short-cuts equal schemas, so this one makes the comparer walk
    /// the whole schema: the same schema under a root whose title differs.
    /// The title change is the only change, wherever a `$ref` to `#` makes
    /// it show up again (under a `not`, a changed title reads as narrowed).
    #[test]
    fn the_comparer_finds_no_change_in_an_unchanged_subschema(schema in schema_like()) {
        let wrap = |title: &str| serde_json::json!({"title": title, "allOf": [schema.clone()]});
        let diff = json::diff(&wrap("old"), &wrap("new"));
        prop_assert!(
            diff.changes().iter().any(|c| c.kind().name() == "TITLE_CHANGED" && c.path() == "#/"),
            "{}", diff
        );
        prop_assert!(
            diff.changes().iter().all(|c| matches!(c.kind().name(), "TITLE_CHANGED" | "NOT_TYPE_NARROWED")),
            "{}", diff
        );
    }

    #[test]
    fn diff_and_check_never_panic(old in schema_like(), new in schema_like()) {
        let diff = json::diff(&old, &new);
        let _ = diff.to_string();
        let _ = json::check(Compatibility::FullTransitive, &new, &[(1, &old)]);
    }
}
