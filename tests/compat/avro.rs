//! Avro compatibility as Java's `SchemaCompatibility` decides it: every
//! Avro case of the shared conformance corpus, the five cases where
//! `apache-avro`'s own checker disagrees with Java, the seven modes over
//! `Schema`s, and enforcement at publish.

use std::collections::BTreeSet;

use dataschema::compat::avro::{self, AvroChangeKind as K};
use dataschema::compat::{self, Compatibility, Direction};
use dataschema::{Error, MemoryStore, Registry, Schema};
use serde_json::Value;

use crate::common;

fn read(schema: &Value) -> avro::AvroSchema {
    avro::parse("the schema", schema.to_string().as_bytes())
        .unwrap_or_else(|err| panic!("{schema}: {}", dataschema::Chain::of(&err)))
}

/// Reader `reader` reading what `writer` wrote: each incompatibility as
/// (kind, location, message).
fn incompatibilities(writer: &str, reader: &str) -> Vec<(K, String, String)> {
    let w = avro::parse("writer", writer.as_bytes()).expect("writer");
    let r = avro::parse("reader", reader.as_bytes()).expect("reader");
    avro::diff(&w, &r)
        .changes()
        .iter()
        .map(|c| {
            (
                c.kind(),
                c.path().to_owned(),
                c.label().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_avro_case_of_the_corpus_agrees() {
    let Some(dir) = common::external_dir(
        "DATASCHEMA_CONFORMANCE_DIR",
        "../shared/conformance",
        "the conformance corpus",
    ) else {
        return;
    };
    let text = std::fs::read(dir.join("avro-compat.json")).expect("readable");
    let cases: Vec<Value> = serde_json::from_slice(&text).expect("JSON");
    let mut checked = 0;
    let mut located = 0;
    let mut refusals = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let (Ok(writer), Ok(reader)) = (
            avro::parse("writer", case["writer"].to_string().as_bytes()),
            avro::parse("reader", case["reader"].to_string().as_bytes()),
        ) else {
            // An enum whose default is not among its symbols (the
            // README: parsed upstream with symbol checks off), on either
            // side; Java refuses such a schema, and so do we.
            let refused = avro::parse("writer", case["writer"].to_string().as_bytes())
                .err()
                .map(|err| (err, &case["writer"]))
                .or_else(|| {
                    avro::parse("reader", case["reader"].to_string().as_bytes())
                        .err()
                        .map(|err| (err, &case["reader"]))
                });
            let (err, side) = refused.expect(id);
            assert!(err.to_string().contains("Avro schema"), "{id}: {err}");
            assert!(
                side["type"] == "enum" && side.get("default").is_some(),
                "{id}: refused: {}",
                dataschema::Chain::of(&err)
            );
            refusals += 1;
            continue;
        };
        let diff = avro::diff(&writer, &reader);
        let expected = case["backward"].as_bool().unwrap();
        assert_eq!(
            diff.is_empty(),
            expected,
            "{id}: {}\nwriter {}\nreader {}",
            diff,
            case["writer"],
            case["reader"]
        );
        // Java's locations are among those the Python port reports
        // (Python adds duplicates Java's memo does not produce, and a "/"
        // beside a name mismatch).
        if let Some(locations) = case["locations"].as_array() {
            let theirs: BTreeSet<&str> = locations.iter().filter_map(Value::as_str).collect();
            // Karapace's cases locate some type mismatches at the root
            // alone ("/") where Java (and this checker) descends to the
            // field's type: a root-only location says where the records
            // differ, not where in them.
            if theirs.len() == 1 && theirs.contains("/") {
                checked += 1;
                continue;
            }
            for change in diff.changes() {
                assert!(
                    theirs.contains(change.path()),
                    "{id}: {} at {} not among {theirs:?}",
                    change.kind(),
                    change.path()
                );
                located += 1;
            }
        }
        checked += 1;
    }
    assert!(checked >= 150, "{checked} cases");
    assert!(located >= 40, "{located} locations");
    // The enum defaults not among their symbols, each refused (README).
    assert!(refusals <= 2, "{refusals} refused");
}

#[test]
fn a_field_renamed_with_a_reader_alias_is_compatible() {
    // apache-avro's checker says compatible too, but its resolution then
    // fails to read the data; Java reads the field by its alias.
    let writer = r#"{"type":"record","name":"R","fields":[{"name":"old","type":"int"}]}"#;
    let reader =
        r#"{"type":"record","name":"R","fields":[{"name":"new","aliases":["old"],"type":"int"}]}"#;
    assert!(incompatibilities(writer, reader).is_empty());
    // Without the alias the reader's field has no default.
    let plain = r#"{"type":"record","name":"R","fields":[{"name":"new","type":"int"}]}"#;
    assert_eq!(
        incompatibilities(writer, plain),
        [(
            K::ReaderFieldMissingDefaultValue,
            "/fields/0".into(),
            "new".into()
        )]
    );
}

#[test]
fn a_record_renamed_with_a_reader_alias_is_compatible() {
    // apache-avro refuses it; Java accepts a reader alias naming the
    // writer's full name.
    let writer = r#"{"type":"record","name":"Old","namespace":"a","fields":[]}"#;
    let reader = r#"{"type":"record","name":"New","namespace":"a","aliases":["Old"],"fields":[]}"#;
    assert!(incompatibilities(writer, reader).is_empty());
    let renamed = r#"{"type":"record","name":"New","namespace":"a","fields":[]}"#;
    assert_eq!(
        incompatibilities(writer, renamed),
        [(K::NameMismatch, "/name".into(), "expected: a.Old".into())]
    );
    // The unqualified names decide; a namespace alone may change.
    let moved = r#"{"type":"record","name":"Old","namespace":"b","fields":[]}"#;
    assert!(incompatibilities(writer, moved).is_empty());
}

#[test]
fn a_changed_decimal_precision_is_compatible() {
    // apache-avro refuses it; Java does not compare logical types.
    let writer = r#"{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}"#;
    let reader = r#"{"type":"bytes","logicalType":"decimal","precision":12,"scale":4}"#;
    assert!(incompatibilities(writer, reader).is_empty());
    assert!(incompatibilities(reader, writer).is_empty());
}

#[test]
fn an_enum_symbol_dropped_without_a_default_is_incompatible() {
    // apache-avro reports it as a partial match; Java refuses it, unless
    // the reader has a default.
    let writer = r#"{"type":"enum","name":"E","symbols":["A","B","C"]}"#;
    let reader = r#"{"type":"enum","name":"E","symbols":["A","B"]}"#;
    assert_eq!(
        incompatibilities(writer, reader),
        [(K::MissingEnumSymbols, "/symbols".into(), "[C]".into())]
    );
    let with_default = r#"{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}"#;
    assert!(incompatibilities(writer, with_default).is_empty());
    // The reader with more symbols reads the writer's.
    assert!(incompatibilities(reader, writer).is_empty());
}

#[test]
fn an_optional_int_read_as_int_is_incompatible() {
    // apache-avro reports it as a partial match; Java refuses it: the
    // writer's null branch cannot be read as an int.
    let writer = r#"["null","int"]"#;
    let reader = r#""int""#;
    assert_eq!(
        incompatibilities(writer, reader),
        [(
            K::TypeMismatch,
            "/".into(),
            "reader type: int not compatible with writer type: null".into()
        )]
    );
    assert!(incompatibilities(reader, writer).is_empty());
}

#[test]
fn every_incompatibility_is_reported_with_its_location() {
    let writer = r#"{"type":"record","name":"R","fields":[
        {"name":"a","type":"long"},
        {"name":"b","type":{"type":"fixed","name":"F","size":4}},
        {"name":"c","type":["int","string","boolean"]},
        {"name":"d","type":{"type":"array","items":"string"}}]}"#;
    let reader = r#"{"type":"record","name":"R","fields":[
        {"name":"a","type":"int"},
        {"name":"b","type":{"type":"fixed","name":"F","size":8}},
        {"name":"c","type":["long","bytes"]},
        {"name":"d","type":{"type":"array","items":"int"}},
        {"name":"e","type":"string"}]}"#;
    let found = incompatibilities(writer, reader);
    let kinds: Vec<(K, &str)> = found.iter().map(|(k, p, _)| (*k, p.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (K::TypeMismatch, "/fields/0/type"),
            (K::FixedSizeMismatch, "/fields/1/type/size"),
            // The writer's branch 2 (boolean) has no reader branch.
            (K::MissingUnionBranch, "/fields/2/type/2"),
            (K::TypeMismatch, "/fields/3/type/items"),
            (K::ReaderFieldMissingDefaultValue, "/fields/4"),
        ],
        "{found:?}"
    );
    // Promotions: int to long, float, double; long to float, double;
    // float to double; string and bytes both ways.
    for (w, r) in [
        ("int", "long"),
        ("int", "float"),
        ("int", "double"),
        ("long", "float"),
        ("long", "double"),
        ("float", "double"),
        ("string", "bytes"),
        ("bytes", "string"),
    ] {
        assert!(
            incompatibilities(&format!("{w:?}"), &format!("{r:?}")).is_empty(),
            "{w} to {r}"
        );
        let narrowing = !incompatibilities(&format!("{r:?}"), &format!("{w:?}")).is_empty();
        let both_ways = matches!((w, r), ("string", "bytes") | ("bytes", "string"));
        assert_eq!(narrowing, !both_ways, "{r} to {w}");
    }
}

#[test]
fn recursive_schemas_compare_without_end() {
    let list = |head: &str| {
        format!(
            r#"{{"type":"record","name":"List","fields":[{{"name":"head","type":"{head}"}},
                {{"name":"tail","type":["null","List"]}}]}}"#
        )
    };
    assert!(incompatibilities(&list("int"), &list("long")).is_empty());
    let found = incompatibilities(&list("long"), &list("int"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1, "/fields/0/type");
}

fn version(n: u32, fields: &str) -> Schema {
    Schema::avro(
        common::urn(&format!("urn:acme:schema:payment:{n}")),
        format!(r#"{{"type":"record","name":"Payment","fields":[{fields}]}}"#),
    )
}

#[test]
fn the_seven_modes_over_schemas() {
    let v1 = version(1, r#"{"name":"id","type":"string"}"#);
    // Adds a field with a default: both ways.
    let v2 = version(
        2,
        r#"{"name":"id","type":"string"},{"name":"n","type":"int","default":0}"#,
    );
    // Adds a field without a default: the new reader cannot read v1/v2.
    let v3 = version(
        3,
        r#"{"name":"id","type":"string"},{"name":"n","type":"int","default":0},{"name":"m","type":"int"}"#,
    );
    for mode in Compatibility::ALL {
        let report = compat::check(mode, &v2, std::slice::from_ref(&v1)).unwrap();
        assert!(report.is_compatible(), "{mode}: {report}");
    }
    let priors = [v1.clone(), v2.clone()];
    for (mode, compatible) in [
        (Compatibility::None, true),
        (Compatibility::Backward, false),
        (Compatibility::BackwardTransitive, false),
        (Compatibility::Forward, true),
        (Compatibility::ForwardTransitive, true),
        (Compatibility::Full, false),
        (Compatibility::FullTransitive, false),
    ] {
        let report = compat::check(mode, &v3, &priors).unwrap();
        assert_eq!(report.is_compatible(), compatible, "{mode}: {report}");
        let versions: Vec<u32> = report.versions().iter().map(|v| v.version()).collect();
        let expected: &[u32] = match mode {
            Compatibility::None => &[],
            m if m.is_transitive() => &[1, 2],
            _ => &[2],
        };
        assert_eq!(versions, expected, "{mode}");
        for change in report.breaking() {
            assert_eq!(change.direction(), Direction::Backward);
            assert_eq!(
                change.kind().as_avro(),
                Some(K::ReaderFieldMissingDefaultValue)
            );
            assert_eq!(change.path(), "/fields/2");
            assert_eq!(change.label(), Some("m"));
        }
    }
    // A language change is breaking too.
    let json = Schema::json(
        common::urn("urn:acme:schema:payment:4"),
        r#"{"type":"object"}"#,
    );
    assert!(!compat::check(Compatibility::Backward, &json, &priors)
        .unwrap()
        .is_compatible());
}

#[test]
fn publish_enforces_avro_compatibility() {
    let registry = Registry::new(MemoryStore::new());
    registry
        .publish(
            version(1, r#"{"name":"id","type":"string"}"#),
            Compatibility::Backward,
        )
        .unwrap();
    let err = registry
        .publish(
            version(
                2,
                r#"{"name":"id","type":"string"},{"name":"m","type":"int"}"#,
            ),
            Compatibility::Backward,
        )
        .unwrap_err();
    let Error::Incompatible { .. } = &err else {
        panic!("{err}")
    };
    let report = dataschema::compat::CompatReport::of(&err).expect("a compatibility report");
    assert_eq!(report.breaking().count(), 1, "{report}");
    assert!(
        err.to_string()
            .contains("READER_FIELD_MISSING_DEFAULT_VALUE"),
        "{err}"
    );
    registry
        .publish(
            version(
                2,
                r#"{"name":"id","type":"string"},{"name":"m","type":"int","default":1}"#,
            ),
            Compatibility::Backward,
        )
        .unwrap();
    // A schema Avro refuses is unusable, with the place and the rule.
    let err = registry
        .publish(
            version(3, r#"{"name":"id","type":"strin"}"#),
            Compatibility::None,
        )
        .unwrap_err();
    let chain = dataschema::Chain::of(&err).to_string();
    assert!(chain.contains("/fields/0/type"), "{chain}");
    assert_eq!(registry.versions("payment").unwrap(), vec![1, 2]);
}

#[test]
fn a_corpus_reader_reads_itself() {
    // Every schema reads data it wrote.
    for file in ["logical.avsc", "recursive.avsc", "namespaces.avsc"] {
        let schema: Value = serde_json::from_slice(&common::read(&format!("avro/{file}"))).unwrap();
        let s = read(&schema);
        assert!(avro::diff(&s, &s).is_empty(), "{file}");
    }
}

#[test]
fn a_resolution_reads_one_version_as_another() {
    let registry = Registry::new(MemoryStore::new());
    let v = |n: u32| common::urn(&format!("urn:acme:schema:payment:{n}"));
    let publish = |n: u32, fields: &str| {
        registry
            .publish(version(n, fields), Compatibility::None)
            .unwrap();
    };
    publish(
        1,
        r#"{"name":"id","type":"string"},{"name":"amount","type":"int"},
           {"name":"state","type":{"type":"enum","name":"S","symbols":["NEW","PAID","LOST"]}},
           {"name":"gone","type":"string"}"#,
    );
    publish(
        2,
        r#"{"name":"ref","aliases":["id"],"type":"string"},{"name":"amount","type":"double"},
           {"name":"state","type":{"type":"enum","name":"S","symbols":["NEW","PAID","OTHER"],"default":"OTHER"}},
           {"name":"note","type":["null","string"],"default":null}"#,
    );
    let resolution = registry.resolution(&v(1), &v(2)).unwrap();
    assert_eq!(resolution.writer(), &v(1));
    // id "a", amount -2, state LOST, gone "x".
    let datum = [2, b'a', 3, 4, 2, b'x'];
    let mut expected = vec![2, b'a'];
    expected.extend_from_slice(&(-2f64).to_le_bytes());
    expected.push(4); // LOST is not a v2 symbol: the default, OTHER (2)
    expected.push(0); // note: null
    assert_eq!(resolution.transcode(&datum).unwrap(), expected);
    // A payload that is not a v1 datum is invalid, under v1's URN.
    let invalid = resolution.transcode(&datum[..2]).unwrap_err();
    assert_eq!(invalid.urn(), &v(1));
    assert_eq!(invalid.violations()[0].path(), "/amount");
    // v1 cannot read v2: a double amount as an int (and no `id`, whose
    // alias is v2's own, a writer alias Avro does not use); the first, in
    // the writer's order, is named with the reader's data path.
    let err = registry.resolution(&v(2), &v(1)).unwrap_err();
    let Error::Unresolvable { refusal, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (refusal.path(), refusal.reason()),
        ("/amount", "cannot read double as int")
    );
    assert_eq!(refusal.reader(), &v(1));
    let err = registry
        .resolution(&v(1), &common::urn("urn:acme:schema:payment:9"))
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
}
