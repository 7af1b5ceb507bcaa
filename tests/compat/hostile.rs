//! JSON Schema compatibility on large and hostile inputs: unchanged
//! subschemas compare as unchanged whatever their size, set comparisons
//! (`enum`, member de-duplication, `required`) finish on inputs far too large
//! for quadratic work, and a comparison that runs out of budget says
//! `COMPARISON_TOO_LARGE` and nothing else.
// The publish tests need the JSON validator.
#![cfg_attr(not(feature = "json"), allow(unused_imports, dead_code))]

use crate::common;

use common::urn;
use dataschema::compat::json::{self, JsonChangeKind};
use dataschema::compat::Compatibility;
use dataschema::{Error, MemoryStore, Registry, Schema};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// The kinds and paths of a diff, in order.
fn changes(old: &Value, new: &Value) -> Vec<(String, String)> {
    json::diff(old, new)
        .changes()
        .iter()
        .map(|c| (c.kind().name().to_owned(), c.path().to_owned()))
        .collect()
}

fn change(kind: &str, path: &str) -> (String, String) {
    (kind.to_owned(), path.to_owned())
}

/// `{"title": title, "anyOf": members}`.
fn any_of(title: &str, members: Vec<Value>) -> Value {
    json!({"title": title, "anyOf": members})
}

fn consts(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({ "const": i })).collect()
}

/// The two-letter codes `aa`, `ab`, .., as an ISO 639-1 list looks.
fn language_codes(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let code: String = [b'a' + (i / 26 % 26) as u8, b'a' + (i % 26) as u8]
                .iter()
                .map(|&b| b as char)
                .collect();
            json!({ "const": code, "title": format!("language {code}") })
        })
        .collect()
}

#[test]
fn a_400_member_any_of_whose_title_changes_has_only_the_title_change() {
    let (old, new) = (any_of("v1", consts(400)), any_of("v2", consts(400)));
    assert_eq!(changes(&old, &new), [change("TITLE_CHANGED", "#/")]);
    let report = json::check(Compatibility::FullTransitive, &new, &[(1, &old)]).unwrap();
    assert!(report.is_compatible(), "{report}");

    let (old, new) = (
        any_of("v1", language_codes(676)),
        any_of("v2", language_codes(676)),
    );
    assert_eq!(changes(&old, &new), [change("TITLE_CHANGED", "#/")]);
}

#[test]
fn an_unchanged_large_any_of_inside_a_changed_object_is_unchanged() {
    let schema = |max: u32| {
        json!({
            "type": "object",
            "properties": {
                "language": {"anyOf": language_codes(676)},
                "name": {"type": "string", "maxLength": max}
            }
        })
    };
    assert_eq!(
        changes(&schema(10), &schema(20)),
        [change(
            "MAX_LENGTH_INCREASED",
            "#/properties/name/maxLength"
        )]
    );
}

/// An expression language: 400 operators, each of whose operands is the
/// whole schema again (`$ref` to `#`).
fn expressions(title: &str, last_max: u32) -> Value {
    let mut ops: Vec<Value> = (0..400)
        .map(|i| {
            json!({
                "type": "object",
                "properties": {format!("op{i}"): {"type": "array", "items": {"$ref": "#"}}},
                "required": [format!("op{i}")],
                "additionalProperties": false
            })
        })
        .collect();
    ops.push(json!({"type": "string", "maxLength": last_max}));
    json!({"title": title, "anyOf": ops})
}

#[test]
fn a_large_recursive_any_of_whose_title_changes_has_only_the_title_change() {
    assert_eq!(
        changes(&expressions("v1", 10), &expressions("v2", 10)),
        [change("TITLE_CHANGED", "#/")]
    );
    assert_eq!(
        changes(&expressions("v1", 10), &expressions("v1", 20)),
        [change("MAX_LENGTH_INCREASED", "#/anyOf/400/maxLength")]
    );
    assert_eq!(
        changes(&expressions("v1", 20), &expressions("v1", 10)),
        [change("COMBINED_TYPE_SUBSCHEMAS_CHANGED", "#/")]
    );
}

#[test]
fn a_real_change_inside_a_large_any_of_has_its_own_kind() {
    let old = any_of("t", consts(400));

    // One member gained: the sum type is extended, nothing else.
    let mut more = consts(400);
    more.push(json!({"const": 400}));
    assert_eq!(
        changes(&old, &any_of("t", more)),
        [change("SUM_TYPE_EXTENDED", "#/")]
    );

    // One member lost: narrowed (breaking), and the rest still pair.
    let mut fewer = consts(400);
    fewer.remove(123);
    assert_eq!(
        changes(&old, &any_of("t", fewer)),
        [change("SUM_TYPE_NARROWED", "#/")]
    );

    // One member replaced: it pairs with nothing.
    let mut replaced = consts(400);
    replaced[200] = json!({"const": "other"});
    assert_eq!(
        changes(&old, &any_of("t", replaced)),
        [change("COMBINED_TYPE_SUBSCHEMAS_CHANGED", "#/")]
    );

    // One member widened: its change, at its path.
    let bounded = |max: u32| {
        let mut members = consts(400);
        members[250] = json!({"type": "integer", "maximum": max});
        any_of("t", members)
    };
    assert_eq!(
        changes(&bounded(10), &bounded(20)),
        [change("MAXIMUM_INCREASED", "#/anyOf/250/maximum")]
    );
    // Narrowed: a breaking change pairs the member with nothing.
    assert_eq!(
        changes(&bounded(20), &bounded(10)),
        [change("COMBINED_TYPE_SUBSCHEMAS_CHANGED", "#/")]
    );

    // Every member's description changed: 400 compatible changes, each at
    // its member.
    let described = |text: &str| {
        let members = (0..400)
            .map(|i| json!({"const": i, "description": format!("{text} {i}")}))
            .collect();
        any_of("t", members)
    };
    let found = changes(&described("old"), &described("new"));
    let expected: Vec<_> = (0..400)
        .map(|i| change("DESCRIPTION_CHANGED", &format!("#/anyOf/{i}")))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn thousands_of_members_are_de_duplicated_by_their_json() {
    // 40,000 members, each value twice: 20,000 distinct ones.
    let doubled: Vec<Value> = (0..40_000).map(|i| json!({"const": i % 20_000})).collect();
    let old = any_of("t", doubled);
    // The same members once each, in the same order: no change at all
    // (JSON counts once, and `1` and `1.0` are the same number).
    let once: Vec<Value> = (0..20_000)
        .map(|i| {
            if i % 2 == 0 {
                json!({ "const": i })
            } else {
                json!({ "const": f64::from(i) })
            }
        })
        .collect();
    assert_eq!(changes(&old, &any_of("t", once.clone())), []);
    let mut more = once;
    more.push(json!({"const": -1}));
    assert_eq!(
        changes(&old, &any_of("t", more)),
        [change("SUM_TYPE_EXTENDED", "#/")]
    );
}

#[test]
fn a_very_large_enum_compares_as_a_set() {
    let values: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
    let old = json!({ "enum": values });

    let mut more = values.clone();
    more.push(json!("new"));
    assert_eq!(
        changes(&old, &json!({ "enum": more })),
        [change("ENUM_ARRAY_EXTENDED", "#/enum")]
    );

    let mut fewer = values.clone();
    fewer.pop();
    assert_eq!(
        changes(&old, &json!({ "enum": fewer })),
        [change("ENUM_ARRAY_NARROWED", "#/enum")]
    );

    let mut other = values.clone();
    other[0] = json!("other");
    assert_eq!(
        changes(&old, &json!({ "enum": other })),
        [change("ENUM_ARRAY_CHANGED", "#/enum")]
    );

    // The same set in another order, with a title: only the title.
    let mut reversed = values.clone();
    reversed.reverse();
    assert_eq!(
        changes(&old, &json!({ "enum": reversed, "title": "t" })),
        [change("TITLE_CHANGED", "#/")]
    );
}

/// A closed object of `n` integer properties, each required but `optional`.
fn required_object(n: usize, optional: Option<usize>, extra: Option<&str>) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for i in 0..n {
        props.insert(format!("p{i}"), json!({"type": "integer", "minimum": i}));
        if Some(i) != optional {
            required.push(json!(format!("p{i}")));
        }
    }
    if let Some(name) = extra {
        props.insert(name.to_owned(), json!({"type": "string"}));
        required.push(json!(name));
    }
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

#[test]
fn many_required_properties_are_looked_up_in_a_set() {
    let old = required_object(30_000, None, None);
    assert_eq!(
        changes(&old, &required_object(30_000, Some(4_321), None)),
        [change("REQUIRED_ATTRIBUTE_REMOVED", "#/required/p4321")]
    );
    assert_eq!(
        changes(&required_object(30_000, Some(4_321), None), &old),
        [change("REQUIRED_ATTRIBUTE_ADDED", "#/required/p4321")]
    );
    assert_eq!(
        changes(&old, &required_object(30_000, None, Some("late"))),
        [change(
            "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
            "#/properties/late"
        )]
    );
}

/// Sixty `anyOf`s of sixty integer ranges, shifted by `base`: no member of
/// one version has the structure of a member of the other, so every member
/// is compared with every member.
fn combinatorial(base: i64) -> Value {
    let outer: Vec<Value> = (0..60)
        .map(|i| {
            let inner: Vec<Value> = (0..60)
                .map(|k| json!({"type": "integer", "minimum": base + i * 1_000 + k * 7}))
                .collect();
            json!({ "anyOf": inner })
        })
        .collect();
    json!({ "anyOf": outer })
}

#[test]
fn a_combinatorial_comparison_reports_only_that_it_is_too_large() {
    let (old, new) = (combinatorial(0), combinatorial(1));
    assert_eq!(changes(&old, &new), [change("COMPARISON_TOO_LARGE", "#/")]);
    let report = json::check(Compatibility::Backward, &new, &[(1, &old)]).unwrap();
    assert!(!report.is_compatible());
}

fn publish(registry: &Registry, version: u32, schema: &Value) -> Result<(), Error> {
    let schema = Schema::json(
        urn(&format!("urn:acme:schema:languages:{version}")),
        schema.to_string(),
    );
    registry.publish(schema, Compatibility::Backward).map(drop)
}

// Publishing a JSON Schema needs its validator.
#[cfg(feature = "json")]
#[test]
fn publish_accepts_a_title_change_to_a_large_any_of_and_names_a_too_large_one() {
    let registry = Registry::new(MemoryStore::new());
    publish(&registry, 1, &any_of("v1", language_codes(676))).unwrap();
    publish(&registry, 2, &any_of("v2", language_codes(676))).unwrap();

    let registry = Registry::new(MemoryStore::new());
    publish(&registry, 1, &combinatorial(0)).unwrap();
    let err = publish(&registry, 2, &combinatorial(1)).unwrap_err();
    let Error::Incompatible { .. } = &err else {
        panic!("{err}")
    };
    let report = dataschema::compat::CompatReport::of(&err).expect("a compatibility report");
    let kinds: Vec<_> = report.breaking().map(|c| c.kind()).collect();
    assert_eq!(kinds, [JsonChangeKind::ComparisonTooLarge], "{report}");
}

/// A member of a generated combined schema: distinct from every other
/// member by its index (so annotation changes never merge two members),
/// nested or recursive (`$ref` to `#`).
fn member(index: usize) -> impl Strategy<Value = Value> {
    let i = index as i64;
    let leaf = prop_oneof![
        Just(json!({ "const": i })),
        Just(json!({"type": "string", "maxLength": i})),
        Just(json!({"type": "integer", "minimum": i, "maximum": i + 10})),
        Just(json!({"enum": [i, i + 1, format!("e{i}")]})),
        Just(json!({
            "type": "object",
            "properties": {format!("p{i}"): {"type": "string"}, "n": {"type": "number"}},
            "required": [format!("p{i}")]
        })),
        Just(json!({"type": "array", "items": {"const": i}})),
        Just(json!({"anyOf": [{"const": i}, {"type": "null"}]})),
        // Recursive: the member holds the whole schema again.
        Just(json!({"type": "array", "items": {"$ref": "#"}, "maxItems": i})),
    ];
    (leaf, any::<bool>()).prop_map(move |(schema, wrapped)| {
        if wrapped {
            json!({"allOf": [schema, {"not": {"const": format!("never {index}")}}]})
        } else {
            schema
        }
    })
}

fn combined_schema() -> impl Strategy<Value = Value> {
    (
        50usize..600,
        prop::sample::select(vec!["anyOf", "oneOf", "allOf"]),
    )
        .prop_flat_map(|(n, keyword)| {
            let members: Vec<_> = (0..n).map(member).collect();
            members.prop_map(move |members| {
                let mut root = Map::new();
                root.insert(keyword.to_owned(), Value::Array(members));
                Value::Object(root)
            })
        })
}

/// `schema` with annotations (`title`, `description`, `default`) added or
/// changed on every schema object whose position `pick` selects.
fn annotate(schema: &Value, pick: &mut impl FnMut() -> u8) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                let value = match key.as_str() {
                    "anyOf" | "oneOf" | "allOf" => match value {
                        Value::Array(subs) => {
                            Value::Array(subs.iter().map(|s| annotate(s, pick)).collect())
                        }
                        other => other.clone(),
                    },
                    "not" | "items" => annotate(value, pick),
                    "properties" => match value {
                        Value::Object(props) => Value::Object(
                            props
                                .iter()
                                .map(|(k, v)| (k.clone(), annotate(v, pick)))
                                .collect(),
                        ),
                        other => other.clone(),
                    },
                    _ => value.clone(),
                };
                out.insert(key.clone(), value);
            }
            match pick() % 4 {
                1 => {
                    out.insert("title".to_owned(), json!("a new title"));
                }
                2 => {
                    out.insert("description".to_owned(), json!({"lang": "en"}));
                }
                3 => {
                    out.insert("default".to_owned(), json!(null));
                }
                _ => {}
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Annotations changed anywhere in a large combined schema: no breaking
    /// change, and every change is an annotation change.
    #[test]
    fn annotation_changes_to_a_large_combined_schema_never_break(
        schema in combined_schema(),
        seed in any::<u64>(),
    ) {
        let mut state = seed | 1;
        let mut pick = move || {
            // xorshift: a different pick for every schema object.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        };
        let annotated = annotate(&schema, &mut pick);
        let diff = json::diff(&schema, &annotated);
        prop_assert!(diff.is_backward_compatible(), "{}", diff);
        prop_assert!(
            diff.changes().iter().all(|c| matches!(
                c.kind().name(),
                "TITLE_CHANGED" | "DESCRIPTION_CHANGED" | "DEFAULT_CHANGED" | "NOT_TYPE_NARROWED"
            )),
            "{}", diff
        );
        let report = json::check(Compatibility::Backward, &annotated, &[(1, &schema)]).unwrap();
        prop_assert!(report.is_compatible(), "{}", report);
    }
}
