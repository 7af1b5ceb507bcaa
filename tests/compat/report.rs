//! Compatibility reports are typed: each change found against a prior
//! version has a kind, a path, a label, a direction and a verdict, matched
//! here without reading text; `compat::diff` serves any two `Schema`s; the
//! change kinds are one table each (names, verdicts, `FromStr`).

use crate::common;

use common::{read, urn};
use dataschema::compat::json::JsonChangeKind;
use dataschema::compat::{
    self, AnyChangeKind, CompatError, Compatibility, Direction, VersionChange,
};
use dataschema::{Language, Schema};

fn price(version: u32) -> Schema {
    Schema::json(
        urn(&format!("urn:acme:schema:price:{version}")),
        read(&format!("compat/json/price-v{version}.json")),
    )
}

/// (version, direction, kind, path, breaking) of each change.
fn typed(changes: &[&VersionChange]) -> Vec<(u32, Direction, AnyChangeKind, String, bool)> {
    changes
        .iter()
        .map(|c| {
            (
                c.version(),
                c.direction(),
                c.kind(),
                c.path().to_owned(),
                c.is_breaking(),
            )
        })
        .collect()
}

#[test]
fn a_full_check_reports_every_change_with_its_direction() {
    // number -> integer: narrowed reading v1's data, extended the other way.
    let report = compat::check(Compatibility::Full, &price(2), &[price(1)]).unwrap();
    assert!(!report.is_compatible());
    let [v1] = report.versions() else {
        panic!("{report}")
    };
    assert_eq!(v1.directions(), [Direction::Backward, Direction::Forward]);
    assert!(!v1.passed());
    let all: Vec<&VersionChange> = v1.changes().iter().collect();
    assert_eq!(
        typed(&all),
        [
            (
                1,
                Direction::Backward,
                AnyChangeKind::Json(JsonChangeKind::TypeNarrowed),
                "#/".to_owned(),
                true
            ),
            (
                1,
                Direction::Forward,
                AnyChangeKind::Json(JsonChangeKind::TypeExtended),
                "#/".to_owned(),
                false
            ),
        ]
    );
    let breaking: Vec<&VersionChange> = report.breaking().collect();
    assert_eq!(typed(&breaking), typed(&all[..1]));
    assert_eq!(breaking[0].kind(), JsonChangeKind::TypeNarrowed);
    assert_eq!(breaking[0].label(), None);
    // The text is the report's Display, unchanged.
    assert_eq!(
        report.to_string(),
        "incompatible under full\n  v1: FAILED (backward and forward)\n    \
         [v1] backward: TYPE_NARROWED at #/"
    );
}

#[test]
fn a_transitive_check_reports_per_version() {
    let priors = [price(1), price(2)];
    let report = compat::check(Compatibility::BackwardTransitive, &price(3), &priors).unwrap();
    let verdicts: Vec<(u32, bool)> = report
        .versions()
        .iter()
        .map(|v| (v.version(), v.passed()))
        .collect();
    assert_eq!(verdicts, [(1, false), (2, true)], "{report}");
    let breaking: Vec<&VersionChange> = report.breaking().collect();
    assert_eq!(
        typed(&breaking),
        [(
            1,
            Direction::Backward,
            AnyChangeKind::Json(JsonChangeKind::TypeNarrowed),
            "#/".to_owned(),
            true
        )]
    );
}

#[cfg(feature = "json")]
#[test]
fn publish_refuses_with_a_typed_report() {
    use dataschema::{Error, MemoryStore, Registry};

    let registry = Registry::new(MemoryStore::new());
    registry.publish(price(1), Compatibility::Backward).unwrap();
    let err = registry
        .publish(price(2), Compatibility::Backward)
        .unwrap_err();
    let Error::Incompatible { urn, .. } = &err else {
        panic!("{err}")
    };
    let report = dataschema::compat::CompatReport::of(&err).expect("a compatibility report");
    assert_eq!(urn.version(), 2);
    assert_eq!(report.level(), Compatibility::Backward);
    let breaking: Vec<&VersionChange> = report.breaking().collect();
    assert_eq!(
        typed(&breaking),
        [(
            1,
            Direction::Backward,
            AnyChangeKind::Json(JsonChangeKind::TypeNarrowed),
            "#/".to_owned(),
            true
        )]
    );
}

#[cfg(all(feature = "json", feature = "protobuf"))]
#[test]
fn a_language_change_is_one_typed_change() {
    use dataschema::{Error, MemoryStore, Registry};

    let proto = Schema::protobuf(
        urn("urn:acme:schema:price:2"),
        read("schemas/proto2.binpb"),
        "test.v1.Inner",
    );
    let registry = Registry::new(MemoryStore::new());
    registry.publish(price(1), Compatibility::None).unwrap();
    let err = registry
        .publish(proto.clone(), Compatibility::Full)
        .unwrap_err();
    let Error::Incompatible { .. } = &err else {
        panic!("{err}")
    };
    let report = dataschema::compat::CompatReport::of(&err).expect("a compatibility report");
    let breaking: Vec<&VersionChange> = report.breaking().collect();
    let changed = AnyChangeKind::LanguageChanged {
        from: Language::JsonSchema,
        to: Language::Protobuf,
    };
    assert_eq!(
        typed(&breaking),
        [(1, Direction::Backward, changed, "#/".to_owned(), true)]
    );
    assert_eq!(changed.name(), "LANGUAGE_CHANGED");
    assert!(err
        .to_string()
        .contains("[v1] the language changed from jsonschema to protobuf"));

    // The same through compat::diff: one breaking change at the root.
    let diff = compat::diff(&price(1), &proto).unwrap();
    let kinds: Vec<AnyChangeKind> = diff.changes().iter().map(|c| c.kind()).collect();
    assert_eq!(kinds, [changed]);
    assert!(!diff.is_backward_compatible());
}

#[test]
fn diff_serves_json_schemas() {
    let diff = compat::diff(&price(1), &price(2)).unwrap();
    let changes: Vec<(AnyChangeKind, &str)> = diff
        .changes()
        .iter()
        .map(|c| (c.kind(), c.path()))
        .collect();
    assert_eq!(
        changes,
        [(AnyChangeKind::Json(JsonChangeKind::TypeNarrowed), "#/")]
    );
    assert_eq!(
        diff.changes()[0].kind().as_json(),
        Some(JsonChangeKind::TypeNarrowed)
    );
    assert!(compat::diff(&price(1), &price(1)).unwrap().is_empty());
}

#[cfg(feature = "protobuf")]
#[test]
fn diff_serves_protobuf_schemas() {
    use dataschema::compat::protobuf::ProtoChangeKind;

    let order = |version: u32| {
        let path = common::data(&format!("compat/proto/order-v{version}.proto"));
        let bytes = compile_proto(&path);
        Schema::protobuf(
            urn(&format!("urn:acme:schema:order:{version}")),
            bytes,
            "shop.Order",
        )
    };
    // v1 -> v3: quantity changes from an integer to a string.
    let diff = compat::diff(&order(1), &order(3)).unwrap();
    let breaking: Vec<(AnyChangeKind, &str, Option<&str>)> = diff
        .breaking_changes()
        .map(|c| (c.kind(), c.path(), c.label()))
        .collect();
    assert_eq!(
        breaking,
        [(
            AnyChangeKind::Protobuf(ProtoChangeKind::FieldScalarKindChanged),
            "#/Order/2",
            Some("Order.quantity")
        )]
    );
    assert_eq!(
        breaking[0].0.as_protobuf(),
        Some(ProtoChangeKind::FieldScalarKindChanged)
    );
}

#[cfg(feature = "protobuf")]
fn compile_proto(path: &std::path::Path) -> Vec<u8> {
    let dir = path.parent().unwrap();
    let mut compiler = protox::Compiler::new([dir]).unwrap();
    compiler.include_imports(true);
    compiler
        .open_file(path.file_name().unwrap().to_str().unwrap())
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    compiler.encode_file_descriptor_set()
}

#[test]
fn an_unreadable_schema_is_named_by_its_urn() {
    let broken = Schema::json(urn("urn:acme:schema:price:1"), "{ nope");
    // The prior is the broken one: the error names it, not the candidate.
    let err = compat::check(
        Compatibility::Backward,
        &price(2),
        std::slice::from_ref(&broken),
    )
    .unwrap_err();
    let CompatError::Unusable { urn: named, source } = &err else {
        panic!("{err}")
    };
    assert_eq!(named.version(), 1);
    assert_eq!(err.urn().map(|u| u.version()), Some(1));
    assert!(matches!(**source, CompatError::NotJson { .. }), "{source}");

    let err = compat::diff(&price(1), &broken).unwrap_err();
    let CompatError::Unusable { source, .. } = &err else {
        panic!("{err}")
    };
    let CompatError::NotJson { what, .. } = &**source else {
        panic!("{source}")
    };
    assert_eq!(what, "the new schema");

    // At the crate's boundary it is SchemaUnusable, the cause kept once.
    let err = dataschema::Error::from(err);
    assert!(
        matches!(err, dataschema::Error::SchemaUnusable { .. }),
        "{err}"
    );
    assert_eq!(err.urn().map(|u| u.version()), Some(1));
    let chain = err.chain().to_string();
    assert!(chain.contains("the new schema is not JSON: "), "{chain}");
    // Each cause once: the parser's message is not repeated.
    let parser = serde_json::from_str::<serde_json::Value>("{ nope")
        .unwrap_err()
        .to_string();
    assert_eq!(chain.matches(&parser).count(), 1, "{chain}");
}

#[test]
fn json_kinds_are_one_table() {
    let all = JsonChangeKind::ALL;
    assert_eq!(all.len(), 124);
    assert_eq!(
        all.iter().filter(|k| k.is_backward_compatible()).count(),
        61
    );
    for &kind in all {
        assert_eq!(kind.name().parse::<JsonChangeKind>(), Ok(kind));
        assert_eq!(kind.to_string(), kind.name());
        let any = AnyChangeKind::from(kind);
        assert_eq!(any.name(), kind.name());
        assert_eq!(any.is_backward_compatible(), kind.is_backward_compatible());
    }
    let mut names: Vec<&str> = all.iter().map(|k| k.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len(), "names are unique");
    // Confluent's verdicts, spot-checked in both directions.
    assert!(JsonChangeKind::TypeExtended.is_backward_compatible());
    assert!(!JsonChangeKind::TypeNarrowed.is_backward_compatible());
    assert!(!JsonChangeKind::ComparisonTooLarge.is_backward_compatible());
    let err = "type_extended".parse::<JsonChangeKind>().unwrap_err();
    assert_eq!(err.name(), "type_extended");
    assert_eq!(err.language(), Language::JsonSchema);
}

#[cfg(feature = "protobuf")]
#[test]
fn protobuf_kinds_are_one_table() {
    use dataschema::compat::protobuf::ProtoChangeKind;

    for &kind in ProtoChangeKind::ALL {
        assert_eq!(kind.name().parse::<ProtoChangeKind>(), Ok(kind));
        let any = AnyChangeKind::from(kind);
        assert_eq!(any.name(), kind.name());
        assert_eq!(any.is_backward_compatible(), kind.is_backward_compatible());
    }
    // A JSON name is not a protobuf kind, though both languages have it.
    assert!("TYPE_EXTENDED".parse::<ProtoChangeKind>().is_err());
    assert_eq!(
        "COMPARISON_TOO_DEEP".parse::<ProtoChangeKind>(),
        Ok(ProtoChangeKind::ComparisonTooDeep)
    );
}
