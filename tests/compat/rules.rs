//! The compatibility rules, each in both directions, the transitive modes,
//! and the reports.

use std::path::PathBuf;

use dataschema::compat::{json, CompatError, Compatibility, Direction};
use serde::Deserialize;
use serde_json::{json, Value};

/// One rule of `json-rules.json` / `proto-rules.json`: a change, and its
/// verdict in each direction with the kinds the diff reports. Unknown and
/// missing keys are refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule<S> {
    rule: String,
    /// JSON Schema: a value; protobuf: `.proto` text.
    old: S,
    new: S,
    backward: bool,
    forward: bool,
    kinds: Vec<String>,
}

fn read_rules<S: serde::de::DeserializeOwned>(path: &str) -> Vec<Rule<S>> {
    let bytes = std::fs::read(data(path)).expect("fixture readable");
    serde_json::from_slice(&bytes).unwrap_or_else(|err| panic!("{path}: {err}"))
}

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/compat")
        .join(path)
}

fn read_json(path: &str) -> Value {
    let bytes = std::fs::read(data(path)).expect("fixture readable");
    serde_json::from_slice(&bytes).expect("fixture is JSON")
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn json_rules_in_both_directions() {
    let rules: Vec<Rule<Value>> = read_rules("json-rules.json");
    assert!(!rules.is_empty());
    for rule in &rules {
        let name = &rule.rule;
        let (old, new) = (&rule.old, &rule.new);
        let diff = json::diff(old, new);
        assert_eq!(
            diff.is_backward_compatible(),
            rule.backward,
            "{name}: backward\n{diff}"
        );
        let reverse = json::diff(new, old);
        assert_eq!(
            reverse.is_backward_compatible(),
            rule.forward,
            "{name}: forward\n{reverse}"
        );
        let kinds: Vec<String> = diff
            .changes()
            .iter()
            .map(|c| c.kind().name().to_owned())
            .collect();
        assert_eq!(sorted(kinds), sorted(rule.kinds.clone()), "{name}: kinds");
        // The checker agrees with the diff in every mode.
        let full = json::check(Compatibility::Full, new, &[(1, old)]).expect("schemas");
        assert_eq!(
            full.is_compatible(),
            diff.is_backward_compatible() && reverse.is_backward_compatible(),
            "{name}: full"
        );
    }
}

#[test]
fn transitive_modes_check_every_prior_version() {
    let (v1, v2, v3) = (
        read_json("json/price-v1.json"),
        read_json("json/price-v2.json"),
        read_json("json/price-v3.json"),
    );
    let priors = [(1, &v1), (2, &v2)];
    // v3 only adds a description to v2, but v2 narrowed v1's number to integer.
    let latest = json::check(Compatibility::Backward, &v3, &priors).unwrap();
    assert!(latest.is_compatible(), "{latest}");
    assert_eq!(latest.versions().len(), 1);
    assert_eq!(latest.versions()[0].version(), 2);

    let all = json::check(Compatibility::BackwardTransitive, &v3, &priors).unwrap();
    assert!(!all.is_compatible(), "{all}");
    let versions: Vec<(u32, bool)> = all
        .versions()
        .iter()
        .map(|v| (v.version(), v.passed()))
        .collect();
    assert_eq!(versions, [(1, false), (2, true)]);
    assert_eq!(
        all.breaking().map(ToString::to_string).collect::<Vec<_>>(),
        ["[v1] backward: TYPE_NARROWED at #/"]
    );

    // Forward: the priors read v3's data; integer data is fine for both.
    assert!(json::check(Compatibility::ForwardTransitive, &v3, &priors)
        .unwrap()
        .is_compatible());
    let full = json::check(Compatibility::FullTransitive, &v3, &priors).unwrap();
    assert!(!full.is_compatible());
    assert_eq!(
        full.versions()[0].directions(),
        [Direction::Backward, Direction::Forward]
    );
}

#[test]
fn none_and_first_version_check_nothing() {
    let (v1, v2) = (json!({"type": "string"}), json!({"type": "integer"}));
    for mode in Compatibility::ALL {
        let first = json::check(mode, &v1, &[]).unwrap();
        assert!(first.is_compatible());
        assert!(first.versions().is_empty());
    }
    let none = json::check(Compatibility::None, &v2, &[(1, &v1)]).unwrap();
    assert!(none.is_compatible());
    assert!(none.versions().is_empty());
    for mode in Compatibility::ALL.into_iter().skip(1) {
        assert!(
            !json::check(mode, &v2, &[(1, &v1)]).unwrap().is_compatible(),
            "{mode}"
        );
    }
}

#[test]
fn recursive_refs_terminate_and_compare() {
    let (v1, v2, v3) = (
        read_json("json/tree-v1.json"),
        read_json("json/tree-v2.json"),
        read_json("json/tree-v3.json"),
    );
    assert!(json::diff(&v1, &v1).is_empty());
    let widened = json::diff(&v1, &v2);
    assert!(widened.is_backward_compatible(), "{widened}");
    assert_eq!(widened.changes()[0].path(), "#/properties/value");
    assert!(!json::diff(&v2, &v3).is_backward_compatible());
    let report = json::check(
        Compatibility::BackwardTransitive,
        &v3,
        &[(1, &v1), (2, &v2)],
    )
    .unwrap();
    assert_eq!(report.versions().iter().filter(|v| !v.passed()).count(), 2);
}

#[test]
fn diff_report_format() {
    let same = json!({"type": "string"});
    assert_eq!(json::diff(&same, &same).to_string(), "No changes");

    let old =
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]});
    let new =
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "string"}}});
    let report = json::diff(&old, &new).to_string();
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(
        lines[0],
        "Breaking: 1 of 3 changes break backward compatibility"
    );
    assert!(lines.contains(&"  REQUIRED_ATTRIBUTE_REMOVED at #/required/a"));
    assert!(lines.contains(&"  TYPE_EXTENDED at #/properties/a"));
    assert!(lines
        .contains(&"  [BREAKING] OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL at #/properties/b"));

    let compatible = json::diff(&json!({"type": "integer"}), &json!({"type": "number"}));
    assert_eq!(
        compatible.to_string(),
        "Compatible: 1 change, none breaking\n  TYPE_EXTENDED at #/"
    );
}

#[test]
fn compat_report_format() {
    let (v1, v2) = (json!({"type": "string"}), json!({"type": "integer"}));
    let report = json::check(Compatibility::Full, &v2, &[(4, &v1)]).unwrap();
    assert_eq!(
        report.to_string(),
        "incompatible under full\n  v4: FAILED (backward and forward)\n    \
         [v4] backward: TYPE_CHANGED at #/\n    [v4] forward: TYPE_CHANGED at #/"
    );
    let ok = json::check(Compatibility::Backward, &v1, &[]).unwrap();
    assert_eq!(
        ok.to_string(),
        "compatible under backward: no prior version checked"
    );
}

#[test]
fn bad_json_inputs_are_errors_naming_the_input() {
    let err = json::parse("version 2", b"{not json").unwrap_err();
    assert!(matches!(err, CompatError::NotJson { .. }));
    assert!(err.to_string().starts_with("version 2 is not JSON"));
    let err = json::parse("candidate", b"[1, 2]").unwrap_err();
    assert!(
        err.to_string().contains("candidate is not a JSON Schema"),
        "{err}"
    );
    let err = json::check(Compatibility::Backward, &json!({}), &[(3, &json!(7))]).unwrap_err();
    assert!(err.to_string().contains("version 3"), "{err}");
}

#[cfg(feature = "protobuf")]
mod proto {
    use super::*;
    use dataschema::compat::protobuf;
    use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};

    struct One(String);

    impl FileResolver for One {
        fn open_file(&self, name: &str) -> Result<File, protox::Error> {
            if name == "schema.proto" {
                File::from_source(name, &self.0)
            } else {
                Err(protox::Error::file_not_found(name))
            }
        }
    }

    fn compile(source: &str) -> Vec<u8> {
        let mut chain = ChainFileResolver::new();
        chain.add(One(source.to_owned()));
        chain.add(GoogleFileResolver::new());
        let mut compiler = protox::Compiler::with_file_resolver(chain);
        compiler.include_imports(true);
        compiler
            .open_file("schema.proto")
            .expect("fixture compiles");
        compiler.encode_file_descriptor_set()
    }

    fn compile_file(path: &str) -> Vec<u8> {
        compile(&std::fs::read_to_string(data(path)).expect("fixture readable"))
    }

    #[test]
    fn proto_rules_in_both_directions() {
        let rules: Vec<Rule<String>> = read_rules("proto-rules.json");
        assert!(!rules.is_empty());
        for rule in &rules {
            let name = &rule.rule;
            let old = compile(&rule.old);
            let new = compile(&rule.new);
            let (o, n) = (
                protobuf::decode("old", &old).unwrap(),
                protobuf::decode("new", &new).unwrap(),
            );
            let diff = protobuf::diff(&o, &n);
            assert_eq!(
                diff.is_backward_compatible(),
                rule.backward,
                "{name}: backward\n{diff}"
            );
            let reverse = protobuf::diff(&n, &o);
            assert_eq!(
                reverse.is_backward_compatible(),
                rule.forward,
                "{name}: forward\n{reverse}"
            );
            let kinds: Vec<String> = diff
                .changes()
                .iter()
                .map(|c| c.kind().name().to_owned())
                .collect();
            assert_eq!(sorted(kinds), sorted(rule.kinds.clone()), "{name}: kinds");
            let forward = protobuf::check(Compatibility::Forward, &new, &[(1, &old)]).unwrap();
            assert_eq!(
                forward.is_compatible(),
                reverse.is_backward_compatible(),
                "{name}"
            );
        }
    }

    #[test]
    fn proto_transitive() {
        let v1 = compile_file("proto/order-v1.proto");
        let v2 = compile_file("proto/order-v2.proto");
        let v3 = compile_file("proto/order-v3.proto");
        let priors: [(u32, &[u8]); 2] = [(1, &v1), (2, &v2)];
        let latest = protobuf::check(Compatibility::Backward, &v3, &priors).unwrap();
        assert!(latest.is_compatible(), "{latest}");
        let all = protobuf::check(Compatibility::BackwardTransitive, &v3, &priors).unwrap();
        assert!(!all.is_compatible());
        assert_eq!(
            all.breaking().map(ToString::to_string).collect::<Vec<_>>(),
            ["[v1] backward: FIELD_SCALAR_KIND_CHANGED at #/Order/2 (Order.quantity)"]
        );
        assert!(protobuf::diff(
            &protobuf::decode("v3", &v3).unwrap(),
            &protobuf::decode("v3", &v3).unwrap()
        )
        .is_empty());
    }

    #[test]
    fn bad_descriptor_sets_are_errors() {
        let good = compile_file("proto/order-v1.proto");
        let err = protobuf::check(
            Compatibility::Backward,
            b"\xff\xff not protobuf",
            &[(1, &good)],
        )
        .unwrap_err();
        assert!(
            matches!(err, CompatError::NotADescriptorSet { .. }),
            "{err}"
        );
        assert!(err.to_string().starts_with("candidate is not"), "{err}");
        let err = protobuf::check(Compatibility::Backward, &good, &[(7, b"")]).unwrap_err();
        assert!(err.to_string().contains("version 7"), "{err}");
    }
}

/// A chain of local `$ref`s far deeper than JSON nesting allows: the
/// comparison stops at its depth limit and says so, instead of overflowing
/// the stack (this runs on a test thread's small stack).
#[test]
fn a_very_deep_ref_chain_is_reported_not_overflowed() {
    let chain = |last: &str| {
        let mut defs = serde_json::Map::new();
        for i in 0..20_000 {
            defs.insert(
                format!("d{i}"),
                serde_json::json!({"type": "object", "properties": {"n": {"$ref": format!("#/$defs/d{}", i + 1)}}}),
            );
        }
        defs.insert("d20000".to_owned(), serde_json::json!({"type": last}));
        serde_json::json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/d0", "$defs": defs})
    };
    let (old, new) = (chain("string"), chain("integer"));
    let diff = json::diff(&old, &new);
    let kinds: Vec<&str> = diff.changes().iter().map(|c| c.kind().name()).collect();
    assert!(kinds.contains(&"COMPARISON_TOO_DEEP"), "{kinds:?}");
    assert!(!diff.is_backward_compatible());
    let report = json::check(Compatibility::Backward, &new, &[(1, &old)]).unwrap();
    assert!(!report.is_compatible());
    // The same deep schema against itself: no change at all.
    assert!(json::diff(&old, &old).is_empty());
}

/// Large combined schemas nested in each other: every member compares with
/// every member. Past its budget the diff stops (the unit test in
/// `compat::json::compare` shows the budget is what stops it); the verdict
/// stays "breaking", never a guess of "compatible".
#[test]
fn a_combinatorial_schema_is_not_computed_forever() {
    let nested = |base: i64| {
        let outer: Vec<Value> = (0..60)
            .map(|i| {
                let inner: Vec<Value> = (0..60)
                    .map(|k| json!({"type": "integer", "minimum": base + i * 100 + k}))
                    .collect();
                json!({ "anyOf": inner })
            })
            .collect();
        json!({ "anyOf": outer })
    };
    let diff = json::diff(&nested(0), &nested(1));
    assert!(!diff.is_backward_compatible(), "{diff}");
}
