//! Hostile JSON Schemas and payloads: nothing aborts, hangs or rejects a
//! conforming payload. A schema that cannot be validated safely is refused
//! as unusable (publish, embed) and fails open (counted) in a guard that
//! meets it through a fallback; a payload is never refused because of an
//! engine limit.

#![cfg(feature = "json")]

use crate::common;

use dataschema::{Error, Guard, Outcome, Reason, Registry, Resolver, Schema, Urn};
use proptest::prelude::*;
use serde_json::{json, Value};

const URN: &str = "urn:acme:schema:hostile:1";

/// A resolver that hands out schemas unchecked, as a remote registry may:
/// the guard compiles them itself.
struct Unchecked(Vec<Schema>);

impl Resolver for Unchecked {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.0
            .iter()
            .find(|schema| schema.urn() == urn)
            .cloned()
            .ok_or_else(|| Error::NotFound { urn: urn.clone() })
    }
}

/// A guard whose fallback holds `schema` under [`URN`] without checking it.
fn fallback_guard(schema: impl Into<Vec<u8>>) -> Guard {
    let unchecked = Unchecked(vec![Schema::json(common::urn(URN), schema.into())]);
    Guard::builder(Registry::embed([]).unwrap())
        .fallback(unchecked)
        .build()
}

fn embed(schema: impl Into<Vec<u8>>) -> Result<Registry, Error> {
    Registry::embed([Schema::json(common::urn(URN), schema.into())])
}

/// Runs `f` on a thread with a 2 MiB stack, tokio's default.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// One link of a chain, given the `$ref` to the next.
type Link = fn(Value) -> Value;

/// `{"$defs": {"d0": LINK(d1), ..., "dN": {"type": "integer"}}, "$ref": "#/$defs/d0"}`.
fn chain(links: usize, link: impl Fn(Value) -> Value) -> String {
    let mut defs = serde_json::Map::new();
    for i in 0..links {
        defs.insert(
            format!("d{i}"),
            link(json!({ "$ref": format!("#/$defs/d{}", i + 1) })),
        );
    }
    defs.insert(format!("d{links}"), json!({"type": "integer"}));
    json!({"$defs": defs, "$ref": "#/$defs/d0"}).to_string()
}

fn is_unusable(outcome: Result<Outcome, dataschema::Invalid>) -> bool {
    matches!(outcome, Ok(Outcome::Unvalidated(u)) if u.reason() == Reason::Unusable)
}

#[test]
fn long_ref_chains_are_unusable_and_never_overflow_a_2_mib_stack() {
    on_small_stack(|| {
        for links in [50_000, 12_000] {
            let schema = chain(links, |next| next);
            assert!(
                matches!(embed(schema.clone()), Err(Error::SchemaUnusable { .. })),
                "{links} links"
            );
            let guard = fallback_guard(schema);
            for payload in [&b"\"x\""[..], b"1"] {
                assert!(is_unusable(guard.validate(URN, payload)), "{links} links");
            }
            assert_eq!(guard.unvalidated(), 2);
        }
    });
}

#[test]
fn chains_within_the_bound_validate_on_a_2_mib_stack() {
    on_small_stack(|| {
        // 480 links of each in-place applicator, each link two or three
        // subschemas deep: under the bound of 1,000, walked to the end by
        // a payload that fails there.
        let links: [(&str, Link); 7] = [
            ("$ref", |next| next),
            ("allOf", |next| json!({ "allOf": [next] })),
            ("anyOf", |next| json!({ "anyOf": [next, false] })),
            ("oneOf", |next| json!({ "oneOf": [next] })),
            ("not", |next| json!({ "not": { "not": next } })),
            ("then", |next| json!({ "if": true, "then": next })),
            (
                "dependentSchemas",
                |next| json!({ "dependentSchemas": { "a": next } }),
            ),
        ];
        for (name, link) in links {
            let links = if name == "not" { 320 } else { 480 };
            let registry = embed(chain(links, link)).unwrap_or_else(|err| panic!("{name}: {err}"));
            let guard = Guard::new(registry);
            let payload = if name == "dependentSchemas" {
                &br#"{"a": 1}"#[..]
            } else {
                b"\"x\""
            };
            assert!(guard.validate(URN, payload).is_err(), "{name}");
        }
        // In-place cycles are cut by the validator: not refused.
        for schema in [
            json!({"$ref": "#"}),
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
                   "$ref": "#/$defs/a"}),
        ] {
            let guard = Guard::new(embed(schema.to_string()).unwrap());
            assert!(guard.validate(URN, b"\"x\"").is_ok());
        }
    });
}

/// A recursive schema, each payload level passing through `per_level`
/// in-place subschemas, against payloads nested up to 127 deep: the schema
/// is used whatever its depth a level (as web-types now is); a payload whose
/// path passes the caller's bound is checked by `jsonschema` on a stack
/// of its own, and one past even that bound is refused, itself.
#[test]
fn recursion_through_the_payload_counts_its_nesting() {
    on_small_stack(|| {
        let nested =
            |depth: usize, leaf: &str| format!("{}{leaf}{}", "[".repeat(depth), "]".repeat(depth));
        let recursive = |per_level: usize| {
            let mut defs = serde_json::Map::new();
            for i in 0..per_level {
                defs.insert(
                    format!("d{i}"),
                    json!({ "$ref": format!("#/$defs/d{}", i + 1) }),
                );
            }
            defs.insert(
                format!("d{per_level}"),
                json!({"type": ["array", "integer"], "items": {"$ref": "#/$defs/d0"}}),
            );
            json!({"$defs": defs, "$ref": "#/$defs/d0"}).to_string()
        };
        // Three subschemas a level: 128 levels fit the caller's stack.
        let guard = Guard::new(embed(recursive(1)).unwrap());
        assert!(guard
            .validate(URN, nested(127, "\"x\"").as_bytes())
            .is_err());
        assert!(guard
            .validate(URN, b"[[1, 2], [3]]")
            .unwrap()
            .is_validated());
        // Thirteen a level: past about 76 levels a payload's path passes
        // the caller's bound, not the schema's. The scanner's path and
        // `jsonschema`'s alone (duplicate keys refused) give the same
        // verdicts, and the report of a deep refused payload is read.
        let schema = recursive(11);
        let registry = embed(schema.clone()).unwrap();
        for guard in [
            Guard::new(registry.clone()),
            Guard::builder(registry).reject_duplicate_keys(true).build(),
            fallback_guard(schema),
        ] {
            for depth in [3, 76, 77, 100, 127] {
                let valid = nested(depth, "1");
                assert!(
                    guard
                        .validate(URN, valid.as_bytes())
                        .unwrap()
                        .is_validated(),
                    "nested {depth}"
                );
                let invalid = guard
                    .validate(URN, nested(depth, "\"x\"").as_bytes())
                    .unwrap_err();
                assert_eq!(
                    invalid.violations()[0].kind(),
                    dataschema::ViolationKind::Type,
                    "nested {depth}: {invalid}"
                );
                let value: Value = serde_json::from_str(&valid).unwrap();
                assert!(guard.validate_json(URN, &value).unwrap().is_validated());
            }
        }
        // 202 a level: past about 79 levels even a stack of its own would
        // pass its bound (16,000 subschemas): such a payload is refused as
        // too deep, saying so; shallower ones give `jsonschema`'s verdict.
        let guard = Guard::builder(embed(recursive(200)).unwrap())
            .reject_duplicate_keys(true)
            .build();
        for depth in [2, 10, 40, 78] {
            let payload = nested(depth, "1");
            assert!(
                guard
                    .validate(URN, payload.as_bytes())
                    .unwrap()
                    .is_validated(),
                "nested {depth}"
            );
        }
        let invalid = guard
            .validate(URN, nested(40, "\"x\"").as_bytes())
            .unwrap_err();
        assert_eq!(
            invalid.violations()[0].kind(),
            dataschema::ViolationKind::Type
        );
        let too_deep = guard
            .validate(URN, nested(100, "1").as_bytes())
            .unwrap_err();
        let violation = &too_deep.violations()[0];
        assert_eq!(violation.kind(), dataschema::ViolationKind::TooDeep);
        assert!(
            violation.message().contains("nests 100 deep")
                && violation.message().contains("refused for this schema"),
            "{violation:?}"
        );
        // The same through a value the caller parsed.
        let value: Value = serde_json::from_str(&nested(100, "1")).unwrap();
        let too_deep = guard.validate_json(URN, &value).unwrap_err();
        assert_eq!(
            too_deep.violations()[0].kind(),
            dataschema::ViolationKind::TooDeep
        );
    });
}

#[test]
fn refs_to_other_schemas_by_urn_count_towards_the_bound() {
    on_small_stack(|| {
        // Two schemas each a 600-link chain, the first ending in the second.
        let a = common::urn("urn:acme:schema:chain.a:1");
        let b = common::urn("urn:acme:schema:chain.b:1");
        let tail = chain(600, |next| next).replace(
            r#"{"type":"integer"}"#,
            r#"{"$ref":"urn:acme:schema:chain.b:1"}"#,
        );
        assert!(tail.contains("chain.b"));
        let schemas = [
            Schema::json(a.clone(), tail),
            Schema::json(b.clone(), chain(600, |next| next)),
        ];
        assert!(matches!(
            Registry::embed(schemas.clone()),
            Err(Error::SchemaUnusable { urn, .. }) if urn == a
        ));
        let guard = Guard::builder(Registry::embed([]).unwrap())
            .fallback(Unchecked(schemas.to_vec()))
            .build();
        assert!(is_unusable(guard.validate(a.as_ref(), b"\"x\"")));
        assert!(guard.validate(b.as_ref(), b"\"x\"").is_err());
    });
}

#[test]
fn a_pattern_too_large_for_either_engine_makes_the_schema_unusable() {
    let bytes = common::read("schemas/hostile/huge_pattern.json");
    assert!(matches!(
        embed(bytes.clone()),
        Err(Error::SchemaUnusable { .. })
    ));
    let guard = fallback_guard(bytes);
    assert!(is_unusable(guard.validate(URN, b"\"a\"")));
}

fn is_pattern_budget(outcome: &Result<Outcome, dataschema::Invalid>) -> bool {
    matches!(outcome, Ok(Outcome::Unvalidated(u)) if u.reason() == Reason::PatternBudget)
}

/// Backreferences run on the backtracking engine, a match within a budget:
/// ordinary payloads get their verdict; a payload whose verdict hangs on a
/// match that ran out of budget fails open (`pattern_budget`), never
/// `Invalid`, on both guard paths, and quickly.
#[test]
fn patterns_the_linear_engine_cannot_run_are_matched_within_a_budget() {
    // 400 keys that made an unbounded backtracking engine take 19 s; 40 a's
    // and a '!' it rejected though the payload conforms.
    let keys: serde_json::Map<String, Value> = (0..400)
        .map(|i| (format!("{}{i}!", "a".repeat(45)), json!(1)))
        .collect();
    let keys = Value::Object(keys);
    let bangs = json!(format!("{}!", "a".repeat(40)));
    // (schema, payload, its verdict: Some(valid), None: undecided)
    let cases = [
        ("backreference_pattern_properties.json", keys.clone(), None),
        (
            "backreference_pattern_properties.json",
            bangs.clone(),
            Some(true),
        ),
        (
            "backreference_pattern_properties.json",
            json!({"aa": 1}),
            Some(false),
        ),
        (
            "backreference_pattern_properties.json",
            json!({"aa": "x", "b": 1}),
            Some(true),
        ),
        ("not_backreference.json", bangs, None),
        // A pattern passes what is not a string: `not` refuses it.
        ("not_backreference.json", keys, Some(false)),
        ("not_backreference.json", json!("aaaa"), Some(false)),
        ("not_backreference.json", json!("ab"), Some(true)),
    ];
    for (file, payload, verdict) in cases {
        let guard = Guard::new(embed(common::read(&format!("schemas/hostile/{file}"))).unwrap());
        let bytes = payload.to_string();
        for parsed in [false, true] {
            let start = std::time::Instant::now();
            let outcome = if parsed {
                guard.validate_json(URN, &payload)
            } else {
                guard.validate(URN, bytes.as_bytes())
            };
            let took = start.elapsed();
            match verdict {
                None => assert!(
                    is_pattern_budget(&outcome),
                    "{file} {bytes:.60}: {outcome:?}"
                ),
                Some(true) => assert!(
                    outcome.as_ref().is_ok_and(Outcome::is_validated),
                    "{file} {bytes:.60}: {outcome:?}"
                ),
                Some(false) => assert!(outcome.is_err(), "{file} {bytes:.60}: {outcome:?}"),
            }
            // A few budgets' worth per key (debug build, shared machine).
            assert!(
                took < std::time::Duration::from_secs(30),
                "{file}: {took:?}"
            );
        }
        let undecided = if verdict.is_none() { 2 } else { 0 };
        assert_eq!(guard.unvalidated(), undecided, "{file} {bytes:.60}");
    }
}

#[test]
fn a_catastrophic_but_regular_pattern_runs_in_linear_time() {
    let bytes = common::read("schemas/hostile/nested_quantifier.json");
    let guard = Guard::new(embed(bytes).unwrap());
    let long = "a".repeat(100_000);
    assert!(guard
        .validate(URN, format!("\"{long}\"").as_bytes())
        .unwrap()
        .is_validated());
    assert!(guard
        .validate(URN, format!("\"{long}!\"").as_bytes())
        .is_err());
    // The same pattern where an ECMA-262 regex is the value (`format: regex`).
    let guard = Guard::new(embed(r#"{"format": "regex"}"#).unwrap());
    assert!(guard
        .validate(URN, br#""^(a|aa)+\\1$""#)
        .unwrap()
        .is_validated());
    assert!(guard.validate(URN, br#""(a""#).is_err());
}

#[test]
fn idn_formats_are_asserted() {
    let host = Guard::new(embed(r#"{"format": "idn-hostname"}"#).unwrap());
    assert!(host
        .validate(URN, "\"例え.テスト\"".as_bytes())
        .unwrap()
        .is_validated());
    let huge = format!("\"{}\"", "a".repeat(1 << 20));
    assert!(host.validate(URN, huge.as_bytes()).is_err());
    assert!(host.validate(URN, br#""-not-a-host-""#).is_err());
    let email = Guard::new(embed(r#"{"format": "idn-email"}"#).unwrap());
    assert!(email
        .validate(URN, "\"用户@例子.广告\"".as_bytes())
        .unwrap()
        .is_validated());
    assert!(email.validate(URN, br#""not an address""#).is_err());
}

#[test]
fn duplicate_keys_keep_the_last_value_unless_refused() {
    let schema = r#"{"properties": {"a": {"type": "integer"}, "b": {"type": "object"}}}"#;
    let payloads: [&[u8]; 2] = [br#"{"a": "x", "a": 1}"#, br#"{"b": {"c": 1, "c": 2}}"#];
    let lenient = Guard::new(embed(schema).unwrap());
    let strict = Guard::builder(embed(schema).unwrap())
        .reject_duplicate_keys(true)
        .build();
    for payload in payloads {
        assert!(lenient.validate(URN, payload).unwrap().is_validated());
        let invalid = strict.validate(URN, payload).unwrap_err();
        let message = invalid.violations()[0].message();
        assert!(
            message.contains("not JSON") && message.contains("duplicate key"),
            "{message}"
        );
    }
    assert!(strict
        .validate(URN, br#"{"a": 1, "b": {"a": 1}}"#)
        .unwrap()
        .is_validated());
}

#[test]
fn payloads_nested_128_deep_are_not_json_on_both_guard_paths() {
    let guard = Guard::new(embed("{}").unwrap());
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    for (depth, ok) in [(127, true), (128, false), (129, false)] {
        let text = nested(depth);
        assert_eq!(
            guard.validate(URN, text.as_bytes()).is_ok(),
            ok,
            "bytes, {depth}"
        );
        // Built without the parser, which would refuse it.
        let mut value = json!(1);
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        match guard.validate_json(URN, &value) {
            Ok(outcome) => assert!(ok && outcome.is_validated(), "value, {depth}"),
            Err(invalid) => {
                assert!(!ok, "value, {depth}");
                assert!(invalid.violations()[0].message().contains("128"));
            }
        }
    }
    // Numbers beyond f64 are not JSON here (serde_json refuses them).
    assert!(guard.validate(URN, b"1e400").is_err());
}

#[test]
fn reports_of_many_errors_stay_small() {
    // 200,000 errors against the 64 a report shows.
    let payload = format!("[{}\"\"]", "\"\",".repeat(200_000));
    let enumeration: Vec<u32> = (0..1_000).collect();
    for schema in [
        json!({"items": {"type": "integer"}}),
        json!({"items": {"enum": enumeration}}),
    ] {
        let guard = Guard::new(embed(schema.to_string()).unwrap());
        let invalid = guard.validate(URN, payload.as_bytes()).unwrap_err();
        assert_eq!(invalid.violations().len(), 1);
        assert_eq!(invalid.violations()[0].path(), "/0");
        assert!(invalid.violations()[0].message().contains("only the first"));
    }
    // With anyOf, whose errors copy the value for each branch.
    let guard = Guard::new(
        embed(r#"{"items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}"#).unwrap(),
    );
    assert_eq!(
        guard
            .validate(URN, payload.as_bytes())
            .unwrap_err()
            .violations()
            .len(),
        1
    );
    // A small payload still gets the full report, and a long message is cut.
    let guard = Guard::new(embed(r#"{"items": {"type": "integer"}, "maxItems": 1}"#).unwrap());
    let small = format!("[\"{}\", \"\", \"\"]", "y".repeat(100_000));
    let invalid = guard.validate(URN, small.as_bytes()).unwrap_err();
    assert_eq!(invalid.violations().len(), 4);
    assert!(invalid
        .violations()
        .iter()
        .all(|v| v.message().len() < 2_000));
}

// Schemas from a generator: the keywords that recurse, refer, match and
// combine, with `$ref` chains and patterns, and payloads of every shape.

fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        prop::sample::select(vec![
            "string", "integer", "number", "object", "array", "null"
        ])
        .prop_map(|t| json!({ "type": t })),
        prop::sample::select(vec![
            "^(a+)+$",
            "^(a|aa)+\\1$",
            "(?=a)b",
            "[",
            "^\\p{L}*$",
            "a{2,}",
            "^(\\w{50}){50}$",
            ".*",
        ])
        .prop_map(|p| json!({ "pattern": p })),
        prop::sample::select(vec![
            "date-time",
            "email",
            "idn-email",
            "hostname",
            "idn-hostname",
            "ipv4",
            "uri",
            "regex",
            "uuid",
            "duration",
            "json-pointer",
            "nonsense",
        ])
        .prop_map(|f| json!({ "format": f })),
        (0usize..40).prop_map(|i| json!({ "$ref": format!("#/$defs/d{i}") })),
        Just(json!({"$ref": "#"})),
        Just(json!({"$ref": "urn:acme:schema:other:1"})),
        Just(json!({"$dynamicRef": "#meta"})),
        Just(json!({"$ref": "http://example.com/x"})),
        Just(json!({"enum": [1, "a", null, [1]]})),
        Just(json!({"minLength": 2, "maxItems": 1, "uniqueItems": true})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({ "allOf": v })),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({ "anyOf": v })),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({ "oneOf": v })),
            inner.clone().prop_map(|s| json!({ "not": s })),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(i, t, e)| json!({ "if": i, "then": t, "else": e })),
            inner.clone().prop_map(|s| json!({ "items": s })),
            inner
                .clone()
                .prop_map(|s| json!({ "properties": { "a": s }, "required": ["a"] })),
            inner
                .clone()
                .prop_map(|s| json!({ "patternProperties": { "^(a|b)+$": s } })),
            inner.clone().prop_map(
                |s| json!({ "additionalProperties": s, "propertyNames": {"maxLength": 3} })
            ),
            inner
                .clone()
                .prop_map(|s| json!({ "dependentSchemas": { "a": s } })),
            inner
                .clone()
                .prop_map(|s| json!({ "contains": s, "unevaluatedItems": false })),
            inner
                .clone()
                .prop_map(|s| json!({ "$dynamicAnchor": "meta", "unevaluatedProperties": s })),
        ]
    })
}

fn document() -> impl Strategy<Value = Value> {
    (
        schema(),
        prop::collection::vec(schema(), 0..40),
        0usize..3000,
    )
        .prop_map(|(root, mut defs, chain)| {
            let mut map = serde_json::Map::new();
            // A chain of `chain` links in front of the generated definitions.
            for i in 0..chain {
                map.insert(
                    format!("c{i}"),
                    json!({ "$ref": format!("#/$defs/c{}", i + 1) }),
                );
            }
            map.insert(format!("c{chain}"), json!({ "$ref": "#/$defs/d0" }));
            if defs.is_empty() {
                defs.push(json!(true));
            }
            for (i, def) in defs.into_iter().enumerate() {
                map.insert(format!("d{i}"), def);
            }
            let mut root = match root {
                Value::Object(root) => root,
                other => serde_json::Map::from_iter([("allOf".to_owned(), json!([other]))]),
            };
            root.insert("$defs".to_owned(), Value::Object(map));
            root.insert("anyOf".to_owned(), json!([{"$ref": "#/$defs/c0"}, true]));
            Value::Object(root)
        })
}

fn payload() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(vec![
            "",
            "a",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
            "例え.テスト",
            "x@y.z"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["a", "b", "ab", "aaaa", "c"]).prop_map(str::to_owned),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Generated schemas through `Registry::embed` and a guard (the test
    /// thread's stack is 2 MiB): no panic, no abort, and an `Invalid`
    /// always names a violation. A schema `embed` refuses fails open.
    #[test]
    fn generated_schemas_never_panic(schema in document(), payloads in prop::collection::vec(payload(), 1..4)) {
        let text = schema.to_string();
        let other = Schema::json(common::urn("urn:acme:schema:other:1"), r#"{"type": "object"}"#);
        let embedded = Registry::embed([Schema::json(common::urn(URN), text.clone()), other.clone()]);
        let guard = match &embedded {
            Ok(registry) => Guard::new(registry.clone()),
            Err(_) => Guard::builder(Registry::embed([other.clone()]).unwrap())
                .fallback(Unchecked(vec![Schema::json(common::urn(URN), text)]))
                .build(),
        };
        for payload in &payloads {
            for outcome in [
                guard.validate(URN, payload.to_string().as_bytes()),
                guard.validate_json(URN, payload),
            ] {
                match outcome {
                    Ok(Outcome::Unvalidated(u)) => prop_assert!(
                        (embedded.is_err() && u.reason() == Reason::Unusable)
                            || u.reason() == Reason::PatternBudget
                    ),
                    Ok(_) => {}
                    Err(invalid) => prop_assert!(!invalid.violations().is_empty()),
                }
            }
        }
    }
}

/// Many failing members, each repeated at the end of the object, read a
/// second time from the object's tape (the first read by another
/// subschema): each failure looks for its key's repeat among the later
/// keys, and that search is charged to the scan's look-ahead budget, so
/// the work stays linear in the payload. Past the budget the scanner
/// cannot tell (it would compare 20,000 keys with 20,000 keys), and the
/// guard's verdict is `jsonschema`'s.
#[test]
fn repeated_failing_members_on_a_tape_stay_within_the_look_ahead_budget() {
    let members = 20_000;
    for escaped in [false, true] {
        let mut payload = String::from("{");
        for i in 0..members {
            let key = if escaped {
                format!("\\u006b{i}")
            } else {
                format!("k{i}")
            };
            payload.push_str(&format!("\"{key}\":\"x\","));
        }
        for i in 0..members {
            let comma = if i + 1 < members { "," } else { "" };
            payload.push_str(&format!("\"k{i}\":1{comma}"));
        }
        payload.push('}');
        for schema in [
            json!({"allOf": [{"properties": {"zz": {"type": "string"}}},
                {"additionalProperties": {"type": "integer"}}]}),
            json!({"anyOf": [{"required": ["zz"]}, {"additionalProperties": {"type": "integer"}}]}),
            json!({"properties": {"zz": {"type": "string"}},
                "not": {"additionalProperties": {"type": "integer"}}}),
        ] {
            let plan =
                dataschema::validate::json_plan::JsonPlan::compile(&schema, true).expect("planned");
            assert_eq!(
                plan.scan(payload.as_bytes()),
                None,
                "escaped {escaped}: {schema} decided past the budget"
            );
            let value: Value = serde_json::from_str(&payload).unwrap();
            let expected = jsonschema::validator_for(&schema).unwrap().is_valid(&value);
            let guard = Guard::new(embed(schema.to_string()).unwrap());
            assert_eq!(
                guard.validate(URN, payload.as_bytes()).is_ok(),
                expected,
                "escaped {escaped}: {schema}"
            );
        }
    }
}
