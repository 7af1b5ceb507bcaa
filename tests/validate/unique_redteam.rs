//! Red team of `uniqueItems` over arrays and objects decided on the bytes:
//! the scanner hashes each array or object item so that values equal as
//! JSON Schema defines it (`1` and `1.0`, members in any order) hash alike,
//! and calls items of different hashes distinct (`hash_value` in
//! `core/src/json/validate/scanner.rs`; a string or key with an escape
//! decoded first); two items of one hash, a repeated key or a number that
//! is not exactly an `f64` leave the array to `jsonschema`. Random arrays of small nested values, drawn from few
//! enough that equal items are common, written with members in any order,
//! repeated keys and escapes, compared verdict by verdict with
//! `jsonschema` built with the guard's options. Seeds are fixed.

use serde_json::{json, Value};

use crate::common::rng::Rng;
use crate::redteam::*;

/// Scalars, as JSON text: equal pairs written differently among them.
const SCALARS: [&str; 11] = [
    "1",
    "1.0",
    "2",
    "0",
    "-0.0",
    "\"a\"",
    "\"\\u0061\"",
    "\"b\"",
    "true",
    "null",
    "1e0",
];

/// Keys, as JSON text (`"\u0062"` is `"b"`).
const KEYS: [&str; 4] = ["\"a\"", "\"b\"", "\"\\u0062\"", "\"c\""];

/// A value, as JSON text, nested up to `depth`.
fn value(rng: &mut Rng, depth: usize) -> String {
    match if depth == 0 { 0 } else { rng.below(3) } {
        0 => rng.pick(&SCALARS).to_string(),
        1 => {
            let items: Vec<String> = (0..rng.below(3)).map(|_| value(rng, depth - 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => {
            // Now and then a key twice (the parsed object keeps the last).
            let members: Vec<String> = (0..rng.below(4))
                .map(|_| format!("{}:{}", rng.pick(&KEYS), value(rng, depth - 1)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}

/// An array of 2 to 6 items, most of them arrays or objects; now and then
/// one item twice, its members written in another order.
fn array(rng: &mut Rng) -> String {
    let mut items: Vec<String> = (0..2 + rng.below(5)).map(|_| value(rng, 2)).collect();
    if rng.chance(30) {
        let copy = items[rng.below(items.len())].clone();
        items.push(reordered(&copy));
    }
    format!("[{}]", items.join(","))
}

/// `text` (JSON) with the members of its objects in reverse order, when
/// none repeats a key (else the last would change).
fn reordered(text: &str) -> String {
    let value: Value = serde_json::from_str(text).expect("generated JSON");
    let written = serde_json::to_string(&value).unwrap();
    if written.len() + 8 < text.len() {
        // A repeated key or an escape: keep it as it is.
        return text.to_string();
    }
    reverse(&value)
}

fn reverse(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(reverse).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", json!(k), reverse(v)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        other => other.to_string(),
    }
}

#[test]
fn unique_arrays_and_objects_give_jsonschemas_verdict() {
    let mut rng = Rng::new(0x5eed_0017);
    let mut findings = Findings::default();
    let schemas = [
        json!({"uniqueItems": true}),
        json!({"$schema": "http://json-schema.org/draft-04/schema#", "uniqueItems": true}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "items": {"type": ["object", "array", "number"]}, "uniqueItems": true}),
        json!({"properties": {"l": {"uniqueItems": true, "maxItems": 5}}}),
    ];
    for schema in schemas {
        let nested = schema.get("properties").is_some();
        let subject =
            Subject::new(schema.clone()).unwrap_or_else(|| panic!("jsonschema refuses {schema}"));
        for _ in 0..3_000 {
            let payload = array(&mut rng);
            let payload = if nested {
                format!("{{\"l\":{payload}}}")
            } else {
                payload
            };
            subject.check(&payload, &mut findings);
        }
    }
    assert!(
        findings.valid * 10 >= findings.checked && findings.valid * 10 <= findings.checked * 9,
        "{} valid of {}",
        findings.valid,
        findings.checked
    );
    findings.assert_none("uniqueItems over arrays and objects");
}

#[test]
fn equal_compound_items_written_differently_are_not_unique() {
    let subject = Subject::new(json!({"uniqueItems": true})).unwrap();
    let mut findings = Findings::default();
    for payload in [
        r#"[{"a":1,"b":2},{"b":2,"a":1}]"#,
        r#"[{"a":1},{"a":1.0}]"#,
        r#"[{"a":0},{"a":-0.0}]"#,
        r#"[[1,[2]],[1,[2.0]]]"#,
        r#"[[1,2],[2,1]]"#,
        r#"[{"a":[1]},{"a":[2]}]"#,
        r#"[{},[]]"#,
        r#"[{},{}]"#,
        r#"[[],[]]"#,
        r#"[[],[[]]]"#,
        r#"[{"a":"\u0061"},{"a":"a"}]"#,
        r#"[{"\u0061":1},{"a":1}]"#,
        r#"[{"a":1,"a":2},{"a":2}]"#,
        r#"[{"a":2,"a":1},{"a":2}]"#,
        r#"[{"a":1,"b":1},{"a":1,"c":1}]"#,
        r#"[{"a":1,"b":2},{"a":2,"b":1}]"#,
        r#"[[1,2],[1,2,3]]"#,
        r#"[{"a":1},{"a":1,"b":null}]"#,
        r#"[1,"1",[1],{"1":1}]"#,
        r#"[[9007199254740993],[9007199254740992]]"#,
        r#"[{"k":1,"l":2,"m":3,"n":4,"o":5,"p":6,"q":7,"r":8,"s":9,"t":10,"u":11,"v":12,"w":13,"x":14,"y":15,"z":16,"zz":17},{"k":1}]"#,
    ] {
        subject.check(payload, &mut findings);
    }
    findings.assert_none("uniqueItems written by hand");
}
