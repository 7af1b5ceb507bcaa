//! Compatibility enforced where it matters: at publish, per-name modes, at
//! `cargo build` (the bundle check), and on the command line.

// The publish tests need the JSON validator; the rest of the file does not.
#![cfg_attr(not(feature = "json"), allow(unused_imports, dead_code))]

use crate::common;

use common::{read, urn};
use dataschema::compat::Direction;
use dataschema::{Compatibility, Error, MemoryStore, Registry, Schema};

fn price(version: u32) -> Schema {
    Schema::json(
        urn(&format!("urn:acme:schema:price:{version}")),
        read(&format!("compat/json/price-v{version}.json")),
    )
}

#[cfg(feature = "json")]
mod publish {
    use super::*;

    #[test]
    fn the_first_version_has_nothing_to_check_against() {
        let registry = Registry::new(MemoryStore::new());
        for mode in Compatibility::ALL {
            let schema = Schema::json(urn("urn:acme:schema:first:1"), r#"{"type":"string"}"#);
            registry.publish(schema, mode).unwrap();
        }
    }

    #[test]
    fn an_incompatible_version_is_refused_with_the_report() {
        let registry = Registry::new(MemoryStore::new());
        registry.publish(price(1), Compatibility::Backward).unwrap();
        // number -> integer: the new reader cannot read 9.5.
        let err = registry
            .publish(price(2), Compatibility::Backward)
            .unwrap_err();
        let Error::Incompatible { urn, .. } = &err else {
            panic!("{err}")
        };
        let report = dataschema::compat::CompatReport::of(&err).expect("a compatibility report");
        assert_eq!(urn.version(), 2);
        assert!(!report.is_compatible());
        let breaking: Vec<_> = report.breaking().collect();
        assert!(!breaking.is_empty(), "{report}");
        assert!(
            breaking
                .iter()
                .all(|c| c.version() == 1 && c.direction() == Direction::Backward),
            "{report}"
        );
        assert!(err.to_string().contains("[v1]"), "{err}");
        assert_eq!(
            registry.versions("price").unwrap(),
            vec![1],
            "nothing stored"
        );
        // Widening is compatible the other way round: Forward accepts it.
        registry.publish(price(2), Compatibility::Forward).unwrap();
    }

    #[test]
    fn transitive_modes_check_every_prior_version() {
        let registry = Registry::new(MemoryStore::new());
        registry.publish(price(1), Compatibility::None).unwrap();
        registry.publish(price(2), Compatibility::None).unwrap();
        // v3 only adds a description to v2, but v1 allowed 9.5.
        let err = registry
            .publish(price(3), Compatibility::BackwardTransitive)
            .unwrap_err();
        let Error::Incompatible { .. } = &err else {
            panic!("{err}")
        };
        let report = dataschema::compat::CompatReport::of(&err).expect("a compatibility report");
        let verdicts: Vec<(u32, bool)> = report
            .versions()
            .iter()
            .map(|v| (v.version(), v.passed()))
            .collect();
        assert_eq!(verdicts, vec![(1, false), (2, true)], "{report}");
        assert!(matches!(
            registry.publish(price(3), Compatibility::FullTransitive),
            Err(Error::Incompatible { .. })
        ));
        registry.publish(price(3), Compatibility::Backward).unwrap();
    }

    #[test]
    fn under_a_checked_mode_versions_are_published_in_order() {
        let registry = Registry::new(MemoryStore::new());
        let v = |n: u32, ty: &str| {
            Schema::json(
                urn(&format!("urn:acme:schema:qty:{n}")),
                format!(r#"{{"type":"{ty}"}}"#),
            )
        };
        registry
            .publish(v(1, "integer"), Compatibility::Backward)
            .unwrap();
        registry
            .publish(v(3, "integer"), Compatibility::Backward)
            .unwrap();
        // v2 would pass against v1, but v3 was never checked against it.
        let err = registry
            .publish(v(2, "number"), Compatibility::Backward)
            .unwrap_err();
        assert!(matches!(err, Error::OutOfOrder { held: 3, .. }), "{err}");
        assert!(err.to_string().contains("already published"), "{err}");
        assert_eq!(registry.versions("qty").unwrap(), vec![1, 3]);
        registry
            .publish(v(2, "number"), Compatibility::None)
            .unwrap();
    }

    #[test]
    fn per_name_defaults_start_at_backward() {
        let registry = Registry::new(MemoryStore::new());
        assert_eq!(
            registry.config().compatibility_in_effect("price").unwrap(),
            Compatibility::Backward
        );
        let mode = || registry.config().compatibility_in_effect("price").unwrap();
        registry.publish(price(1), mode()).unwrap();
        assert!(matches!(
            registry.publish(price(2), mode()),
            Err(Error::Incompatible { .. })
        ));
        registry
            .config()
            .set_compatibility(Some("price"), Some(Compatibility::None))
            .unwrap();
        registry.publish(price(2), mode()).unwrap();
        assert!(matches!(
            registry
                .config()
                .set_compatibility(Some("Not A Name"), Some(Compatibility::Full)),
            Err(Error::InvalidUrn { .. })
        ));
        let unknown: Result<Compatibility, _> = "BACKWARDS".parse();
        assert!(unknown.unwrap_err().to_string().contains("\"BACKWARDS\""));
    }

    // Publishing the protobuf version needs its validator to compile it.
    #[cfg(feature = "protobuf")]
    #[test]
    fn a_language_change_is_incompatible() {
        let registry = Registry::new(MemoryStore::new());
        registry.publish(price(1), Compatibility::None).unwrap();
        let proto = Schema::protobuf(
            urn("urn:acme:schema:price:2"),
            read("schemas/proto2.binpb"),
            "test.v1.Inner",
        );
        let err = registry
            .publish(proto, Compatibility::Backward)
            .unwrap_err();
        assert!(err.to_string().contains("language changed"), "{err}");
    }

    #[test]
    fn versions_in_other_namespaces_are_not_priors() {
        let registry = Registry::new(MemoryStore::new());
        registry.publish(price(1), Compatibility::None).unwrap();
        let other = Schema::json(
            urn("urn:other:schema:price:2"),
            read("compat/json/price-v2.json"),
        );
        registry
            .publish(other, Compatibility::BackwardTransitive)
            .unwrap();
    }
}

#[cfg(all(feature = "protobuf", feature = "build"))]
mod protobuf {
    use super::*;

    fn order(version: u32) -> Schema {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compat/proto");
        let mut compiler = protox::Compiler::new([dir]).unwrap();
        compiler.include_imports(true);
        compiler
            .open_file(format!("order-v{version}.proto"))
            .unwrap();
        Schema::protobuf(
            urn(&format!("urn:acme:schema:order:{version}")),
            compiler.encode_file_descriptor_set(),
            "shop.Order",
        )
    }

    #[test]
    fn wire_incompatible_changes_are_refused_at_publish() {
        let registry = Registry::new(MemoryStore::new());
        registry.publish(order(1), Compatibility::Backward).unwrap();
        // int32 -> sint32: varint to zigzag.
        let err = registry
            .publish(order(2), Compatibility::Backward)
            .unwrap_err();
        assert!(matches!(err, Error::Incompatible { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("FIELD_SCALAR_KIND_CHANGED at #/Order/2"),
            "{err}"
        );
        registry.publish(order(2), Compatibility::None).unwrap();
        // sint32 -> sint64 and a new field: fine against v2, not against v1.
        assert!(matches!(
            registry.publish(order(3), Compatibility::BackwardTransitive),
            Err(Error::Incompatible { .. })
        ));
        registry.publish(order(3), Compatibility::Backward).unwrap();
    }
}

#[cfg(feature = "build")]
mod bundle {
    use std::fs;

    use dataschema::build;

    fn folder(manifest: &str, files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("dataschema.toml"), manifest).unwrap();
        for (name, bytes) in files {
            fs::write(dir.path().join(name), bytes).unwrap();
        }
        dir
    }

    fn prices() -> Vec<(&'static str, Vec<u8>)> {
        (1..=3)
            .map(|v| {
                let name: &'static str = ["price.v1.json", "price.v2.json", "price.v3.json"][v - 1];
                (name, super::read(&format!("compat/json/price-v{v}.json")))
            })
            .collect()
    }

    fn check(manifest: &str) -> Result<build::Checked, build::BundleError> {
        let files = prices();
        let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
        let dir = folder(manifest, &refs);
        build::check(dir.path())
    }

    #[test]
    fn an_incompatible_version_fails_the_build_with_the_report() {
        let err = check("namespace = \"acme\"\n").unwrap_err();
        let problems: Vec<String> = err.diagnostics().iter().map(|d| d.to_string()).collect();
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(problems[0].contains("price.v2.json"), "{}", problems[0]);
        assert!(problems[0].contains("[v1] backward"), "{}", problems[0]);
        // The diagnostic is typed: its kind, its file, and the report.
        let problem = &err.diagnostics()[0];
        assert_eq!(problem.kind(), build::DiagnosticKind::Incompatible);
        assert_eq!(problem.path().file_name().unwrap(), "price.v2.json");
        let report = problem
            .report()
            .expect("an incompatible diagnostic has its report");
        let breaking: Vec<_> = report
            .breaking()
            .map(|c| (c.version(), c.direction(), c.kind(), c.path().to_owned()))
            .collect();
        assert_eq!(
            breaking,
            [(
                1,
                dataschema::compat::Direction::Backward,
                dataschema::compat::json::JsonChangeKind::TypeNarrowed.into(),
                "#/".to_owned()
            )]
        );
    }

    #[test]
    fn the_manifest_sets_the_mode_and_per_name_overrides() {
        let checked = check("namespace = \"acme\"\ncompatibility = \"none\"\n").unwrap();
        assert_eq!(checked.modes["price"], dataschema::Compatibility::None);
        let checked =
            check("namespace = \"acme\"\n[compatibility_overrides]\n\"price\" = \"FORWARD\"\n")
                .unwrap();
        assert_eq!(checked.modes["price"], dataschema::Compatibility::Forward);
        // Forward: the old reader (number) reads the new data (integer).
        let checked = check(
            "namespace = \"acme\"\n[compatibility_overrides]\n\"price\" = \"forward_transitive\"\n",
        )
        .unwrap();
        assert_eq!(
            checked.modes["price"],
            dataschema::Compatibility::ForwardTransitive
        );
        let err = check("namespace = \"acme\"\ncompatibility = \"none\"\n[compatibility_overrides]\n\"price\" = \"backward\"\n").unwrap_err();
        assert!(err.to_string().contains("price.v2.json"), "{err}");
    }

    #[test]
    fn unknown_modes_and_names_in_the_manifest_are_errors() {
        let err = check("namespace = \"acme\"\ncompatibility = \"sideways\"\n").unwrap_err();
        assert!(err.to_string().contains("\"sideways\""), "{err}");
        let err = check("namespace = \"acme\"\ncompatibility = \"none\"\n[compatibility_overrides]\n\"cost\" = \"none\"\n").unwrap_err();
        assert!(err.to_string().contains("\"cost\""), "{err}");
    }
}

#[cfg(feature = "cli")]
mod cli {
    use std::process::Command;

    fn run(args: &[&str]) -> (Option<i32>, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
            .args(args)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    }

    fn data(path: &str) -> String {
        super::common::data(path).to_string_lossy().into_owned()
    }

    #[test]
    fn diff_prints_every_change_and_exits_by_verdict() {
        let (code, text) = run(&[
            "diff",
            &data("compat/json/price-v2.json"),
            &data("compat/json/price-v3.json"),
        ]);
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("DESCRIPTION_CHANGED"), "{text}");
        let (code, text) = run(&[
            "diff",
            &data("compat/json/price-v1.json"),
            &data("compat/json/price-v2.json"),
        ]);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("[BREAKING]"), "{text}");
        let (code, text) = run(&[
            "diff",
            &data("compat/json/price-v1.json"),
            &data("compat/json/price-v1.json"),
        ]);
        assert_eq!((code, text.trim()), (Some(0), "No changes"));
        let (code, text) = run(&[
            "diff",
            &data("compat/proto/order-v1.proto"),
            &data("compat/proto/order-v2.proto"),
        ]);
        assert_eq!(code, Some(1), "{text}");
        assert!(
            text.contains("[BREAKING] FIELD_SCALAR_KIND_CHANGED at #/Order/2"),
            "{text}"
        );
        let (code, _) = run(&["diff", &data("compat/json/price-v1.json"), "/no/such.json"]);
        assert_eq!(code, Some(2));
        let (code, _) = run(&[
            "diff",
            &data("compat/json/price-v1.json"),
            &data("compat/proto/order-v1.proto"),
        ]);
        assert_eq!(code, Some(2));
    }

    #[test]
    fn compat_checks_the_newest_version_under_a_mode() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("dataschema.toml"), "namespace = \"acme\"\n").unwrap();
        for v in 1..=3 {
            std::fs::copy(
                data(&format!("compat/json/price-v{v}.json")),
                dir.path().join(format!("price.v{v}.json")),
            )
            .unwrap();
        }
        let d = dir.path().to_str().unwrap();
        let (code, text) = run(&["compat", "--mode", "backward", d, "price"]);
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("v2: passed"), "{text}");
        let (code, text) = run(&["compat", "--mode", "backward_transitive", d, "price"]);
        assert_eq!(code, Some(1), "{text}");
        assert!(
            text.contains("v1: FAILED") && text.contains("[v1] backward"),
            "{text}"
        );
        assert!(text.contains("v2: passed"), "{text}");
        // An unknown mode is a usage error: 64 (EX_USAGE), never 2.
        assert_eq!(
            run(&["compat", "--mode", "sideways", d, "price"]).0,
            Some(64)
        );
        assert_eq!(run(&["compat", "--mode", "none", d, "nothing"]).0, Some(2));
        assert_eq!(
            run(&["compat", "--mode", "none", "/no/such/dir", "price"]).0,
            Some(2)
        );
        // check reports the failure, per file.
        let (code, text) = run(&["check", d]);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("price.v2.json"), "{text}");
    }
}
