//! Red team of the scanner's second reads of an object: an object that
//! in-place applicators (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/
//! `else`, `dependentSchemas`) check more than once is read again from the
//! tape its first read recorded, and a subschema naming few of its members
//! looks each name up among the members instead of reading every member
//! (`named_on_tape` in `core/src/json/validate/scanner.rs`). Random schemas
//! of such branches (`properties`, `required`, `dependentRequired`,
//! `minProperties`, `unevaluatedProperties`, nested objects) against random
//! objects with many members, repeated keys (the last one counts, as in a
//! parsed object) and escaped keys, compared verdict by verdict with
//! `jsonschema` built with the guard's options. Seeds are fixed.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use crate::common::rng::Rng;
use crate::redteam::*;

/// Keys the schemas name and the payloads use (`"é"` is not ASCII).
const NAMES: [&str; 8] = ["a", "b", "id", "kind", "name", "ab", "é", "x_1"];
/// A name only an escape can write, now and then among the schemas'.
const QUOTED: &str = "a\"b";

/// A name: one of [`NAMES`], now and then [`QUOTED`].
fn name(rng: &mut Rng) -> &'static str {
    if rng.chance(4) {
        QUOTED
    } else {
        rng.pick(&NAMES)
    }
}

/// Member values, as JSON text.
const VALUES: [&str; 12] = [
    "1",
    "2.0",
    "-3",
    "\"x\"",
    "\"y\"",
    "\"zzz\"",
    "true",
    "null",
    "{}",
    "{\"a\":1}",
    "{\"a\":\"x\",\"b\":2}",
    "[1]",
];

/// A subschema for one member's value (draft 4 has no boolean schemas:
/// `{}` and `{"not": {}}` stand for them).
fn leaf(rng: &mut Rng, depth: usize, draft4: bool) -> Value {
    match rng.below(if depth == 0 { 9 } else { 8 }) {
        0 => json!({"type": "integer"}),
        1 => json!({"const": 1}),
        2 => json!({"enum": ["x", "y", 2]}),
        3 => json!({"type": "string", "maxLength": 2}),
        4 if draft4 => json!({}),
        4 => json!(true),
        5 if draft4 => json!({"not": {}}),
        5 => json!(false),
        6 => json!({"type": ["object", "null"]}),
        7 => json!({"not": {"type": "string"}}),
        _ => branch(rng, depth + 1, draft4),
    }
}

/// `properties` over one to three names, `required`, or both, with now
/// and then a count or a dependency.
fn branch(rng: &mut Rng, depth: usize, draft4: bool) -> Value {
    let mut schema = Map::new();
    let names = 1 + rng.below(3);
    let shape = rng.below(4);
    if shape != 1 {
        let mut properties = Map::new();
        for _ in 0..names {
            properties.insert(name(rng).to_owned(), leaf(rng, depth, draft4));
        }
        schema.insert("properties".into(), Value::Object(properties));
    }
    if shape != 0 {
        // Distinct, as the metaschemas require.
        let mut required: Vec<&str> = (0..names).map(|_| name(rng)).collect();
        required.sort_unstable();
        required.dedup();
        schema.insert("required".into(), json!(required));
    }
    if rng.chance(15) {
        schema.insert("minProperties".into(), json!(1 + rng.below(5)));
    }
    if rng.chance(10) {
        schema.insert("dependentRequired".into(), json!({name(rng): [name(rng)]}));
    }
    if rng.chance(10) {
        schema.insert("type".into(), json!("object"));
    }
    Value::Object(schema)
}

/// An object schema applying several branches in place to the same value.
fn applicators(rng: &mut Rng, draft: &str) -> Value {
    let draft4 = draft == DRAFT4;
    let mut schema = Map::new();
    let branches = |rng: &mut Rng| -> Value {
        let n = 1 + rng.below(4);
        Value::Array((0..n).map(|_| branch(rng, 0, draft4)).collect())
    };
    match rng.below(6) {
        0 => {
            schema.insert("allOf".into(), branches(rng));
        }
        1 => {
            schema.insert("anyOf".into(), branches(rng));
        }
        2 => {
            schema.insert("oneOf".into(), branches(rng));
        }
        3 => {
            schema.insert("if".into(), branch(rng, 0, draft4));
            schema.insert("then".into(), branch(rng, 0, draft4));
            if rng.chance(50) {
                schema.insert("else".into(), branch(rng, 0, draft4));
            }
        }
        4 => {
            schema.insert("not".into(), branch(rng, 0, draft4));
            schema.insert("allOf".into(), branches(rng));
        }
        _ => {
            let key = if draft == DRAFT2019 || draft == DRAFT2020 {
                "dependentSchemas"
            } else {
                "dependencies"
            };
            schema.insert(key.into(), json!({name(rng): branch(rng, 0, draft4)}));
            schema.insert("anyOf".into(), branches(rng));
        }
    }
    if rng.chance(30) {
        let own = branch(rng, 0, draft4);
        if let Value::Object(own) = own {
            schema.extend(own);
        }
    }
    if (draft == DRAFT2019 || draft == DRAFT2020) && rng.chance(20) {
        schema.insert("unevaluatedProperties".into(), json!(rng.chance(50)));
    }
    Value::Object(schema)
}

/// A key as JSON text: plain, or (now and then: one object in five has
/// one) escaped, which the scanner cannot compare on the bytes.
fn key_text(rng: &mut Rng, name: &str) -> String {
    let plain = serde_json::to_string(name).expect("a string serializes");
    if rng.chance(3) {
        let escaped: Vec<String> = encodings(name)
            .into_iter()
            .filter(|form| *form != plain)
            .collect();
        if !escaped.is_empty() {
            return escaped[rng.below(escaped.len())].clone();
        }
    }
    plain
}

/// An object of 3 to 12 members named by [`name`] (so keys repeat), as
/// JSON text.
fn object(rng: &mut Rng) -> String {
    let members = 3 + rng.below(10);
    object_of(rng, members)
}

/// An object of `members` members named by [`name`], as JSON text.
fn object_of(rng: &mut Rng, members: usize) -> String {
    let mut text = String::from("{");
    for i in 0..members {
        if i > 0 {
            text.push(',');
        }
        let name = name(rng);
        let _ = write!(text, "{}:{}", key_text(rng, name), rng.pick(&VALUES));
    }
    text.push('}');
    text
}

fn sweep(seed: u64, schemas: usize, payloads: usize) -> Findings {
    let mut rng = Rng::new(seed);
    let mut findings = Findings::default();
    let drafts = [DRAFT4, DRAFT6, DRAFT7, DRAFT2019, DRAFT2020];
    for _ in 0..schemas {
        let draft = rng.pick(&drafts);
        let inner = applicators(&mut rng, draft);
        check_objects(&mut rng, &mut findings, draft, inner, payloads, object);
    }
    findings
}

/// Checks `payloads` objects `object` writes against `inner` (of `draft`),
/// at the root or (three times in ten) one level down, as the member `o`
/// of an object (an object read inside another).
fn check_objects(
    rng: &mut Rng,
    findings: &mut Findings,
    draft: &str,
    inner: Value,
    payloads: usize,
    object: fn(&mut Rng) -> String,
) {
    let nested = rng.chance(30);
    let subject = placed(inner, draft, nested, None);
    for _ in 0..payloads {
        let payload = object(rng);
        subject.check(&place(payload, nested), findings);
    }
}

/// `inner` (of `draft`) at the root, or (`nested`) as the member `o` of
/// an object, with `defs` as the root's `$defs`.
fn placed(inner: Value, draft: &str, nested: bool, defs: Option<&Value>) -> Subject {
    let mut schema = if nested {
        json!({"properties": {"o": inner}})
    } else {
        inner
    };
    schema["$schema"] = json!(draft);
    if let Some(defs) = defs {
        schema["$defs"] = defs.clone();
    }
    Subject::new(schema.clone()).unwrap_or_else(|| panic!("jsonschema refuses {schema}"))
}

/// `payload` where a schema [`placed`] checks it.
fn place(payload: String, nested: bool) -> String {
    if nested {
        format!("{{\"o\":{payload}}}")
    } else {
        payload
    }
}

#[test]
fn objects_read_again_by_branches_give_jsonschemas_verdict() {
    let findings = sweep(0x5eed_b001, 600, 40);
    // Both verdicts seen often, or the sweep tells nothing.
    findings.assert_telling(20_000);
    findings.assert_none("objects read again by in-place branches");
}

#[test]
fn a_repeated_key_counts_once_its_last_member_in_every_branch() {
    // The first member of a key fails a branch and the last passes, or
    // the other way round; the branch names few of many members, so the
    // tape is searched by name.
    let many = r#""n1":0,"n2":0,"n3":0,"n4":0,"n5":0,"n6":0"#;
    let mut findings = Findings::default();
    for applicator in ["allOf", "anyOf", "oneOf"] {
        let schema = json!({
            applicator: [
                {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"b": {"const": "x"}}},
            ]
        });
        let subject = Subject::new(schema).expect("jsonschema compiles it");
        for payload in [
            format!(r#"{{"a":"no",{many},"a":1}}"#),
            format!(r#"{{"a":1,{many},"a":"no"}}"#),
            format!(r#"{{"b":"x",{many},"b":"y","a":1}}"#),
            format!(r#"{{"b":"y",{many},"b":"x","a":1}}"#),
            format!(r#"{{"\u0061":"no",{many},"a":1}}"#),
            format!(r#"{{"a":1,{many},"\u0061":"no"}}"#),
            format!(r#"{{{many}}}"#),
        ] {
            subject.check(&payload, &mut findings);
        }
    }
    let schema = json!({
        "if": {"properties": {"kind": {"const": "x"}}, "required": ["kind"]},
        "then": {"required": ["id"]},
        "else": {"properties": {"id": false}}
    });
    let subject = Subject::new(schema).expect("jsonschema compiles it");
    for payload in [
        format!(r#"{{"kind":"x",{many},"id":1}}"#),
        format!(r#"{{"kind":"x",{many}}}"#),
        format!(r#"{{"kind":"y",{many},"kind":"x","id":1}}"#),
        format!(r#"{{"kind":"x",{many},"kind":"y","id":1}}"#),
        format!(r#"{{"kind":"y",{many}}}"#),
    ] {
        subject.check(&payload, &mut findings);
    }
    assert!(findings.valid >= 8, "{} valid", findings.valid);
    assert!(findings.checked - findings.valid >= 8);
    findings.assert_none("repeated keys under in-place branches");
}

#[test]
fn branches_at_the_edges_of_the_tape_lookup_give_jsonschemas_verdict() {
    let mut findings = Findings::default();
    let many = r#""n1":0,"n2":0,"n3":0,"n4":0,"n5":0,"n6":0,"n7":0,"n8":0,"n9":0"#;
    let cases: Vec<(Value, Vec<String>)> = vec![
        // A branch the lookup must not take: closed, patterned or with
        // checked names.
        (
            json!({"oneOf": [
                {"properties": {"a": {}}, "additionalProperties": false},
                {"required": ["b"]}]}),
            vec![
                r#"{"a":1,"b":2,"c":3,"d":4}"#.into(),
                r#"{"a":1,"c":3,"d":4}"#.into(),
                r#"{"a":1,"b":2}"#.into(),
            ],
        ),
        (
            json!({"oneOf": [
                {"properties": {"a": {}}, "patternProperties": {"^c": false}},
                {"required": ["b"]}]}),
            vec![
                r#"{"a":1,"b":2,"c":3,"d":4}"#.into(),
                r#"{"a":1,"b":2,"d":4,"e":5}"#.into(),
            ],
        ),
        (
            json!({"oneOf": [
                {"properties": {"a": {}}, "propertyNames": {"maxLength": 1}},
                {"required": ["b"]}]}),
            vec![
                r#"{"a":1,"b":2,"cc":3,"d":4}"#.into(),
                r#"{"a":1,"b":2,"c":3,"d":4}"#.into(),
            ],
        ),
        // The empty name.
        (
            json!({"oneOf": [
                {"properties": {"": {"type": "integer"}}, "required": [""]},
                {"required": ["x"]}]}),
            vec![
                format!(r#"{{"":"s",{many},"":1}}"#),
                format!(r#"{{"":1,{many},"":"s"}}"#),
                format!(r#"{{{many},"x":1}}"#),
            ],
        ),
        // An escape inside a value, not in the object's own keys.
        (
            json!({"oneOf": [
                {"properties": {"a": {"type": "integer"}}},
                {"properties": {"a": {"type": "object"}}}]}),
            vec![
                format!(r#"{{"a":{{"\u0062":1}},{many},"a":1}}"#),
                format!(r#"{{"a":1,{many},"a":{{"\u0062":1}}}}"#),
            ],
        ),
        // Names sharing their first eight bytes, a raw and an escaped
        // character past the BMP, `/` and DEL.
        (
            json!({"if": {"properties": {
                        "abcdefghX": {"const": 1}, "abcdefghY": {"const": 2},
                        "😀": {"type": "string"}, "a/b": {"type": "integer"},
                        "d\u{7f}": {"type": "null"}}},
                   "then": {"required": ["abcdefghX"]},
                   "else": {"required": ["abcdefghY"]}}),
            vec![
                format!(r#"{{"abcdefghX":1,"abcdefghY":2,{many}}}"#),
                format!(r#"{{"abcdefghX":2,"abcdefghY":2,{many}}}"#),
                format!(r#"{{"abcdefghY":2,"😀":"s",{many}}}"#),
                format!(r#"{{"abcdefghY":2,"😀":1,{many}}}"#),
                format!(r#"{{"abcdefghY":2,"\ud83d\ude00":1,{many}}}"#),
                format!(r#"{{"abcdefghX":1,"a/b":"s",{many}}}"#),
                format!(r#"{{"abcdefghX":1,"a\/b":"s",{many}}}"#),
                format!("{{\"abcdefghX\":1,\"d\u{7f}\":1,{many}}}"),
            ],
        ),
        // `allOf` branches that stay apart (each with a `not`), so the
        // object is reread.
        (
            json!({"allOf": [
                {"properties": {"a": {"type": "integer"}}, "not": {"required": ["z"]}},
                {"properties": {"b": {"const": "x"}}, "not": {"required": ["y"]}}]}),
            vec![
                format!(r#"{{"a":1,"b":"x",{many}}}"#),
                format!(r#"{{"a":1,"b":"y",{many},"b":"x"}}"#),
                format!(r#"{{"a":1,"b":"x",{many},"b":"y"}}"#),
                format!(r#"{{"a":1,"b":"x",{many},"z":0}}"#),
            ],
        ),
        // More names than the lookup takes (nine) against many members.
        (
            json!({"anyOf": [
                {"properties": {
                    "n1": {"const": 1}, "n2": {}, "n3": {}, "n4": {}, "n5": {},
                    "n6": {}, "n7": {}, "n8": {}, "n9": {}}},
                {"required": ["q"]}]}),
            vec![
                format!(r#"{{{many},"n1":1,"m":0,"m2":0}}"#),
                format!(r#"{{"n1":1,{many},"m":0,"m2":0}}"#),
                format!(r#"{{"n1":1,{many},"q":0}}"#),
            ],
        ),
    ];
    for (schema, payloads) in cases {
        let subject =
            Subject::new(schema.clone()).unwrap_or_else(|| panic!("jsonschema refuses {schema}"));
        for payload in payloads {
            subject.check(&payload, &mut findings);
        }
    }
    assert!(findings.valid >= 8, "{} valid", findings.valid);
    assert!(findings.checked - findings.valid >= 8);
    findings.assert_none("branches at the edges of the tape lookup");
}

/// The names the one-member conditions below dispatch on (`"é"` is not
/// ASCII).
const TAGS: [&str; 4] = ["type", "kind", "a", "é"];

/// Tag values, as JSON text: strings in and out of the conditions' sets,
/// one written with an escape, and values of every other kind.
const TAG_VALUES: [&str; 11] = [
    "\"x\"",
    "\"y\"",
    "\"xy\"",
    "\"\"",
    "\"\\u0078\"",
    "\"x\\ty\"",
    "1",
    "null",
    "true",
    "{\"type\":\"x\"}",
    "[\"x\"]",
];

/// A condition of one member (`properties` of one name, perhaps
/// `required`, perhaps `type: object`): the shape the scanner looks up on
/// an object's tape alone (`JsonPlan::probe`), its value a set of
/// strings (looked up as such) or not.
fn probe(rng: &mut Rng) -> Value {
    let tag = rng.pick(&TAGS);
    let value = match rng.below(8) {
        0 => json!({"const": "x"}),
        1 => json!({"const": "y"}),
        2 => json!({"enum": ["x", "y"]}),
        3 => json!({"type": "string", "enum": ["x", "xy", ""]}),
        4 => json!({"enum": ["x", 1, null]}),
        5 => json!({"type": "string"}),
        6 => json!({"const": "x", "maxLength": 0}),
        _ => json!(true),
    };
    let mut schema = json!({"properties": {tag: value}});
    if rng.chance(40) {
        schema["required"] = json!([tag]);
    }
    if rng.chance(25) {
        schema["type"] = json!("object");
    }
    // Not a probe: another keyword of the condition's own.
    if rng.chance(15) {
        schema["maxProperties"] = json!(2);
    }
    schema
}

/// What a condition selects: a requirement on another member.
fn consequence(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => json!({"required": [rng.pick(&NAMES)]}),
        1 => json!({"properties": {rng.pick(&TAGS): {"type": "integer"}}}),
        2 => json!({"properties": {rng.pick(&NAMES): false}}),
        _ => json!({"minProperties": 1 + rng.below(6)}),
    }
}

/// SchemaStore's dispatches on one member: an `allOf` of `if`/`then`
/// (github-issue-forms' form items), a chain of `if`/`else` (ui5's
/// extensions), or conditions as `anyOf`/`oneOf` branches, beside now and
/// then a keyword of the node's own (so that the object is read first).
fn dispatch(rng: &mut Rng) -> Value {
    let mut schema = match rng.below(4) {
        0 => {
            let n = 1 + rng.below(5);
            let all: Vec<Value> = (0..n)
                .map(|_| json!({"if": probe(rng), "then": consequence(rng)}))
                .collect();
            json!({"allOf": all})
        }
        1 => {
            let mut chain = consequence(rng);
            for _ in 0..1 + rng.below(4) {
                chain = json!({"if": probe(rng), "then": consequence(rng), "else": chain});
            }
            chain
        }
        2 => {
            let n = 1 + rng.below(4);
            json!({"anyOf": (0..n).map(|_| probe(rng)).collect::<Vec<_>>()})
        }
        _ => {
            let n = 1 + rng.below(4);
            json!({"oneOf": (0..n).map(|_| probe(rng)).collect::<Vec<_>>()})
        }
    };
    if rng.chance(50) {
        schema["properties"] = json!({rng.pick(&NAMES): {"type": ["integer", "string", "object"]}});
    }
    schema
}

/// An object of 0 to 8 members, a tag now and then repeated or written
/// with an escape, or (one payload in ten) a value of another kind.
fn tagged(rng: &mut Rng) -> String {
    if rng.chance(10) {
        return rng.pick(&TAG_VALUES).to_owned();
    }
    let members = rng.below(9);
    let mut text = String::from("{");
    for i in 0..members {
        if i > 0 {
            text.push(',');
        }
        let (name, value) = if rng.chance(50) {
            (rng.pick(&TAGS), rng.pick(&TAG_VALUES))
        } else {
            (rng.pick(&NAMES), rng.pick(&VALUES))
        };
        let _ = write!(text, "{}:{}", key_text(rng, name), value);
    }
    text.push('}');
    text
}

#[test]
fn conditions_of_one_member_give_jsonschemas_verdict() {
    let mut rng = Rng::new(0x5eed_b0b0);
    let mut findings = Findings::default();
    for _ in 0..500 {
        let draft = rng.pick(&[DRAFT7, DRAFT2019, DRAFT2020]);
        let inner = dispatch(&mut rng);
        let nested = rng.chance(30);
        let mut schema = if nested {
            json!({"properties": {"o": {"type": "array", "items": inner}}})
        } else {
            inner
        };
        schema["$schema"] = json!(draft);
        let subject =
            Subject::new(schema.clone()).unwrap_or_else(|| panic!("jsonschema refuses {schema}"));
        for _ in 0..40 {
            let payload = tagged(&mut rng);
            let payload = if nested {
                format!("{{\"o\":[{payload},{}]}}", tagged(&mut rng))
            } else {
                payload
            };
            subject.check(&payload, &mut findings);
        }
    }
    // Both verdicts seen often, or the sweep tells nothing.
    findings.assert_telling(20_000);
    findings.assert_none("conditions of one member");
}

/// An `allOf` member beside `unevaluatedProperties`: plain properties,
/// patterns, a closed member, branches of its own, a dependency, a nested
/// `allOf`, or `unevaluatedProperties` of its own. The plan merges the
/// plain ones into the parent (`plan/merge.rs`).
fn evaluating_member(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 | 1 => branch(rng, 1, false),
        2 => json!({"properties": {name(rng): leaf(rng, 1, false)},
                    "patternProperties": {"^[a-c]": {"type": ["integer", "string"]}}}),
        3 => json!({"properties": {name(rng): {}}, "additionalProperties": leaf(rng, 1, false)}),
        4 => json!({"anyOf": [branch(rng, 1, false), branch(rng, 1, false)]}),
        5 => json!({"dependentSchemas": {name(rng): branch(rng, 1, false)}}),
        6 => json!({"allOf": [branch(rng, 1, false)], "properties": {name(rng): {}}}),
        _ => json!({"properties": {name(rng): {}}, "unevaluatedProperties": leaf(rng, 1, false)}),
    }
}

#[test]
fn unevaluated_properties_beside_all_of_give_jsonschemas_verdict() {
    let mut rng = Rng::new(0x5eed_b0e5);
    let mut findings = Findings::default();
    for _ in 0..400 {
        let draft = rng.pick(&[DRAFT2019, DRAFT2020]);
        let n = 1 + rng.below(3);
        let all: Vec<Value> = (0..n).map(|_| evaluating_member(&mut rng)).collect();
        let mut schema = json!({"allOf": all});
        if rng.chance(60) {
            schema["properties"] = json!({name(&mut rng): leaf(&mut rng, 1, false)});
        }
        schema["unevaluatedProperties"] = match rng.below(5) {
            0 => json!(false),
            1 => json!({"type": ["integer", "string", "null"]}),
            2 => json!({"not": {"type": "array"}}),
            _ => json!({"type": ["integer", "number", "string", "boolean", "null", "object"]}),
        };
        check_objects(&mut rng, &mut findings, draft, schema, 50, |rng| {
            let members = rng.below(5);
            object_of(rng, members)
        });
    }
    findings.assert_none("unevaluatedProperties beside allOf");
    // Both verdicts seen often, or the sweep tells nothing.
    findings.assert_telling(20_000);
}

/// Tag values the nested sweep's branches allow and its objects hold.
const KINDS: [&str; 7] = ["t1", "t2", "t3", "t4", "x", "y", "zzz"];

/// A branch keyed by the member `kind`: a `const` or an `enum` of
/// [`KINDS`] (in place or behind a `$ref`), with now and then a
/// requirement, another member or a closed object; or (one in four, while
/// `depth` allows) an `anyOf` or a `oneOf` of such branches, whose tags the
/// outer index reads as their union.
fn keyed_branch(rng: &mut Rng, depth: usize) -> Value {
    if depth < 2 && rng.chance(25) {
        let n = 1 + rng.below(4);
        let applicator = if rng.chance(50) { "oneOf" } else { "anyOf" };
        let mut nested =
            json!({applicator: (0..n).map(|_| keyed_branch(rng, depth + 1)).collect::<Vec<_>>()});
        if rng.chance(30) {
            nested["type"] = json!("object");
        }
        if rng.chance(20) {
            nested["required"] = json!([name(rng)]);
        }
        return nested;
    }
    let allowed = match rng.below(7) {
        0 => json!({"enum": [rng.pick(&KINDS), rng.pick(&KINDS)]}),
        1 => json!({"type": "string"}),
        2 => json!({"$ref": format!("#/$defs/{}", rng.pick(&KINDS))}),
        // Unions: of two sets, or of a set and a branch taking no string.
        3 => json!({"anyOf": [{"const": rng.pick(&KINDS)}, {"enum": [rng.pick(&KINDS), 1]}]}),
        4 => json!({"oneOf": [{"const": rng.pick(&KINDS)}, {"type": "integer"}]}),
        5 => json!({"oneOf": [{"const": rng.pick(&KINDS)}, {"type": "string"}]}),
        _ => json!({"const": rng.pick(&KINDS)}),
    };
    let mut branch = json!({"properties": {"kind": allowed}});
    if rng.chance(70) {
        branch["required"] = json!(["kind"]);
    }
    if rng.chance(40) {
        let other = name(rng);
        branch["properties"][other] = leaf(rng, 1, false);
    }
    if rng.chance(15) {
        branch["additionalProperties"] = json!(false);
    }
    if rng.chance(10) {
        branch = json!({"type": rng.pick(&["string", "integer"])});
    }
    branch
}

/// An object of one to five members, most often its first the tag, as
/// JSON text.
fn kind_object(rng: &mut Rng) -> String {
    let members = 1 + rng.below(5);
    let mut text = String::from("{");
    let tag_at = if rng.chance(70) {
        0
    } else {
        rng.below(members + 1)
    };
    for i in 0..members {
        if i > 0 {
            text.push(',');
        }
        if i == tag_at {
            let value = if rng.chance(85) {
                format!("\"{}\"", rng.pick(&KINDS))
            } else {
                rng.pick(&VALUES).to_owned()
            };
            let _ = write!(text, "{}:{value}", key_text(rng, "kind"));
        } else {
            let name = name(rng);
            let _ = write!(text, "{}:{}", key_text(rng, name), rng.pick(&VALUES));
        }
    }
    text.push('}');
    text
}

#[test]
fn nested_tagged_branches_give_jsonschemas_verdict() {
    // An `anyOf`/`oneOf` of three to six branches keyed by `kind`, some of
    // them `anyOf`s or `oneOf`s of keyed branches themselves: the outer
    // index keys such a branch by the union of its branches' tags.
    let mut rng = Rng::new(0x5eed_b002);
    let mut findings = Findings::default();
    let defs = Value::Object(
        KINDS
            .iter()
            .map(|t| ((*t).to_owned(), json!({"const": t})))
            .collect::<Map<String, Value>>(),
    );
    for _ in 0..500 {
        let n = 3 + rng.below(4);
        let applicator = if rng.chance(50) { "oneOf" } else { "anyOf" };
        let branches: Vec<Value> = (0..n).map(|_| keyed_branch(&mut rng, 0)).collect();
        let inner = json!({applicator: branches});
        // At the root, or (three times in ten) one level down.
        let nested = rng.chance(30);
        let subject = placed(inner, DRAFT2020, nested, Some(&defs));
        for _ in 0..30 {
            let payload = kind_object(&mut rng);
            subject.check(&place(payload, nested), &mut findings);
        }
    }
    findings.assert_telling(3_000);
    findings.assert_none("nested branches keyed by a tag");
}

/// A branch of one type family (or now and then of two, or untyped),
/// with keywords of its family and now and then one of another family,
/// an `enum`, or a `not`: the shapes `typed_branches` merges into one node
/// and those it must leave apart.
fn typed_branch(rng: &mut Rng, draft4: bool) -> Value {
    let (ty, mut branch) = match rng.below(11) {
        10 => (
            "array",
            json!({"type": "array", "uniqueItems": true, "minItems": 1}),
        ),
        7 => (
            "object",
            json!({"type": "object", "properties": {"a": {"type": "integer"}},
                "required": ["a"], "additionalProperties": false}),
        ),
        8 => (
            "array",
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 2}),
        ),
        9 => (
            "object",
            json!({"type": "object", "minProperties": 1, "patternProperties": {"^x": {"type": "string"}}}),
        ),
        0 => (
            "string",
            json!({"type": "string", "pattern": "^\\$\\{[a-z]+\\}$"}),
        ),
        1 => (
            "string",
            json!({"type": "string", "minLength": 2, "maxLength": 4}),
        ),
        2 => (
            "integer",
            json!({"type": "integer", "minimum": 0, "maximum": 7}),
        ),
        3 => (
            "number",
            json!({"type": "number", "exclusiveMaximum": 2.5, "multipleOf": 0.5}),
        ),
        4 => ("boolean", json!({"type": "boolean"})),
        5 => ("null", json!({"type": "null"})),
        _ => ("string", json!({"type": "string", "format": "date"})),
    };
    if draft4 && ty == "number" {
        branch["exclusiveMaximum"] = json!(true);
        branch["maximum"] = json!(2.5);
    }
    match rng.below(15) {
        12 => branch["anyOf"] = json!([{"required": ["b"]}, {"maxProperties": 1}]),
        // Keywords of the other compound type, which do not apply to this
        // branch's values but would to the other's in one node.
        13 => branch["uniqueItems"] = json!(true),
        14 => branch["minProperties"] = json!(2),
        0 => branch["maxLength"] = json!(1),
        1 => branch["minimum"] = json!(3),
        2 => branch["enum"] = json!(["${ab}", 3, true, "abc"]),
        3 => branch["not"] = json!({"const": 4}),
        4 if ty != "null" => branch["type"] = json!([ty, "null"]),
        5 => {
            branch.as_object_mut().expect("an object").remove("type");
        }
        _ => {}
    }
    branch
}

/// Values of every type, in and out of the branches' keywords.
const SCALARS: [&str; 26] = [
    "[\"x\",\"x\"]",
    "[]",
    "{\"a\":1}",
    "{\"a\":\"x\"}",
    "{\"a\":1,\"b\":2}",
    "{\"x1\":\"y\"}",
    "{}",
    "[\"x\",\"y\"]",
    "[\"x\",\"y\",\"z\"]",
    "[1]",
    "\"${ab}\"",
    "\"${}\"",
    "\"ab\"",
    "\"abcde\"",
    "\"2024-02-30\"",
    "\"2024-02-03\"",
    "3",
    "4",
    "-1",
    "8",
    "2",
    "2.5",
    "1.5",
    "true",
    "null",
    "[\"${ab}\"]",
];

#[test]
fn branches_of_one_type_each_give_jsonschemas_verdict() {
    // `oneOf`/`anyOf` of branches each of its own type family: one node of
    // their keywords and types when each asserts nothing else
    // (`typed_branches`), apart otherwise.
    let mut rng = Rng::new(0x5eed_b003);
    let mut findings = Findings::default();
    for _ in 0..600 {
        let draft = rng.pick(&[DRAFT4, DRAFT7, DRAFT2020]);
        let n = 2 + rng.below(3);
        let applicator = if rng.chance(50) { "oneOf" } else { "anyOf" };
        let branches: Vec<Value> = (0..n)
            .map(|_| typed_branch(&mut rng, draft == DRAFT4))
            .collect();
        let mut inner = json!({applicator: branches});
        if rng.chance(25) {
            inner["type"] = json!(["integer", "string"]);
        }
        if rng.chance(20) {
            inner["maxLength"] = json!(3);
        }
        // What a passing object branch evaluated, as an `allOf` member.
        if draft == DRAFT2020 && rng.chance(20) {
            inner["unevaluatedProperties"] = json!(false);
        }
        let nested = rng.chance(40);
        let subject = placed(inner, draft, nested, None);
        for payload in SCALARS {
            subject.check(&place(payload.to_owned(), nested), &mut findings);
        }
    }
    findings.assert_telling(14_000);
    findings.assert_none("branches of one type each");
}

/// Patterns a string branch asks for: anchored and not, folded (which
/// `merge_folded` joins first), counted, empty, and lookaround (the
/// backtracking engine).
const BRANCH_PATTERNS: [&str; 9] = [
    "^a",
    "b$",
    "^[0-9]+$",
    "\\$\\{[a-z]+\\}",
    "^.*\\.[Yy][Aa][Mm][Ll]$",
    "^.*\\.[Jj][Ss][Oo][Nn]$",
    "^(?!x)",
    "^x{2,3}$",
    "^$",
];

/// A branch of nothing but a `pattern`, a `"type": "string"`, both, or a
/// `$ref` to a string of one pattern (the shapes `pattern_branches` joins
/// into one node), and now and then a keyword it must leave apart.
fn pattern_branch(rng: &mut Rng) -> Value {
    let pattern = rng.pick(&BRANCH_PATTERNS);
    let mut branch = match rng.below(5) {
        0 => json!({ "pattern": pattern }),
        1 => json!({"type": "string", "pattern": pattern}),
        2 => json!({"type": "string"}),
        3 => json!({"$ref": "#/$defs/var"}),
        _ => json!({"pattern": pattern, "description": "a note"}),
    };
    match rng.below(14) {
        0 => branch["maxLength"] = json!(2),
        1 => branch["enum"] = json!(["ab", "${ab}", 3]),
        2 => branch["type"] = json!(["string", "null"]),
        3 => branch["type"] = json!("integer"),
        4 => branch["not"] = json!({"const": "ab"}),
        5 => branch["minimum"] = json!(3),
        _ => {}
    }
    branch
}

/// Strings each pattern matches and misses, escaped too, and a value of
/// every other type.
const PATTERN_PAYLOADS: [&str; 20] = [
    "\"ab\"",
    "\"a1\"",
    "\"\\u0061b\"",
    "\"cb\"",
    "\"123\"",
    "\"${ab}\"",
    "\"x${ab}\"",
    "\"${}\"",
    "\"f.yaml\"",
    "\"f.JSON\"",
    "\"f.yml\"",
    "\"xx\"",
    "\"xxxx\"",
    "\"x\"",
    "\"\"",
    "3",
    "null",
    "true",
    "[\"ab\"]",
    "{\"a\":\"xx\"}",
];

#[test]
fn branches_of_patterns_give_jsonschemas_verdict() {
    // `anyOf` of branches asserting nothing but patterns on strings: one
    // node of a pattern matching any of theirs (`pattern_branches`) when
    // each is so, apart otherwise; the node's own `type`, `pattern` or
    // length beside it.
    let mut rng = Rng::new(0x5eed_b004);
    let mut findings = Findings::default();
    let defs = json!({"var": {"type": "string", "pattern": "\\$\\{[a-z]+\\}"}});
    for _ in 0..600 {
        let draft = rng.pick(&[DRAFT7, DRAFT2020]);
        let n = 2 + rng.below(4);
        let branches: Vec<Value> = (0..n).map(|_| pattern_branch(&mut rng)).collect();
        let mut inner = json!({ "anyOf": branches });
        match rng.below(5) {
            0 => inner["type"] = json!("string"),
            1 => inner["pattern"] = json!("b"),
            2 => inner["maxLength"] = json!(3),
            _ => {}
        }
        let nested = rng.chance(40);
        let subject = placed(inner, draft, nested, Some(&defs));
        for payload in PATTERN_PAYLOADS {
            subject.check(&place(payload.to_owned(), nested), &mut findings);
        }
    }
    findings.assert_telling(9_000);
    findings.assert_none("branches of patterns");
}
