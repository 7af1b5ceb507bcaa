//! Bundling at `cargo build`: what the bundle holds, and every build error.

mod common;

use common::samples;

#[test]
fn the_bundle_holds_the_sample_schemas() {
    let bundle = dataschema::include_bundle!();
    assert_eq!(bundle.len(), 5);
    let listed: Vec<String> = samples()
        .list()
        .unwrap()
        .iter()
        .map(|u| u.to_string())
        .collect();
    assert_eq!(
        listed,
        [
            "urn:acme:schema:common.address:1",
            "urn:acme:schema:customers.registered:1",
            "urn:acme:schema:orders.created:1",
            "urn:acme:schema:orders.created:2",
            "urn:acme:schema:orders.shipped:1",
        ]
    );
    let shipped = samples()
        .resolve(&common::urn("urn:acme:schema:orders.shipped:1"))
        .unwrap();
    assert_eq!(shipped.language(), dataschema::Language::Protobuf);
    assert_eq!(shipped.root(), Some("acme.orders.v1.OrderShipped"));
    let json = samples()
        .resolve(&common::urn("urn:acme:schema:orders.created:1"))
        .unwrap();
    assert_eq!(
        json.bytes(),
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schemas/orders.created.v1.json"
        ))
        .unwrap()
    );
}

#[cfg(feature = "build")]
mod build {
    use std::fs;
    use std::path::Path;

    use dataschema::build::{self, BundleError, DiagnosticKind as Kind};

    const ADDRESS: &str = r#"{"type":"object","properties":{"city":{"type":"string"}}}"#;
    const PROTO: &str = "syntax = \"proto3\";\npackage acme.v1;\nmessage Ping { string id = 1; }\n";

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    /// Every problem: the file, its kind, and its message.
    fn problems(dir: &Path) -> Vec<(String, Kind, String)> {
        let err: BundleError = build::check(dir).unwrap_err();
        err.diagnostics()
            .iter()
            .map(|d| {
                let file = d.path().file_name().unwrap().to_string_lossy().into_owned();
                (file, d.kind(), d.message().to_owned())
            })
            .collect()
    }

    /// A problem of `kind` in `file`; its message names `detail` (the URN,
    /// the key, the version to publish instead...).
    fn assert_problem(dir: &Path, file: &str, kind: Kind, detail: &str) {
        let found = problems(dir);
        assert!(
            found
                .iter()
                .any(|(f, k, m)| f == file && *k == kind && m.contains(detail)),
            "no {kind:?} problem in {file} naming {detail:?}: {found:#?}"
        );
    }

    #[test]
    fn a_good_folder_checks_and_locks() {
        let dir = folder(&[
            (
                "dataschema.toml",
                "namespace = \"acme\"\n[roots]\n\"ping.v1\" = \"acme.v1.Ping\"\n",
            ),
            ("address.v1.json", ADDRESS),
            ("ping.v1.proto", PROTO),
            ("README.md", "not a schema"),
        ]);
        let checked = build::check(dir.path()).unwrap();
        let urns: Vec<String> = checked
            .sources
            .iter()
            .map(|s| s.schema.urn().to_string())
            .collect();
        assert_eq!(
            urns,
            ["urn:acme:schema:address:1", "urn:acme:schema:ping:1"]
        );
        assert!(!checked.has_lock);
        let added = build::lock(dir.path()).unwrap();
        assert_eq!(added.len(), 2);
        assert!(
            build::lock(dir.path()).unwrap().is_empty(),
            "locking again adds nothing"
        );
        let checked = build::check(dir.path()).unwrap();
        assert!(checked.has_lock && checked.unlocked.is_empty());
        // A new version is fine, and shows as not locked yet.
        fs::write(dir.path().join("address.v2.json"), ADDRESS).unwrap();
        let checked = build::check(dir.path()).unwrap();
        assert_eq!(checked.unlocked.len(), 1);
    }

    #[test]
    fn a_changed_locked_schema_fails_naming_the_urn_and_the_next_version() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("address.v1.json", ADDRESS),
        ]);
        build::lock(dir.path()).unwrap();
        let lock_before = fs::read(dir.path().join("dataschema.lock")).unwrap();
        fs::write(dir.path().join("address.v1.json"), r#"{"type":"object"}"#).unwrap();
        assert_problem(
            dir.path(),
            "address.v1.json",
            Kind::Changed,
            "urn:acme:schema:address:1 changed",
        );
        assert_problem(dir.path(), "address.v1.json", Kind::Changed, "version 2");
        // Locking again refuses too, and leaves the lock as it was.
        assert!(build::lock(dir.path()).is_err());
        assert_eq!(
            fs::read(dir.path().join("dataschema.lock")).unwrap(),
            lock_before
        );
    }

    #[test]
    fn a_locked_proto_changes_when_an_import_changes() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n[roots]\n\"ping.v1\" = \"acme.v1.Ping\"\n"),
            ("ping.v1.proto", "syntax = \"proto3\";\npackage acme.v1;\nimport \"acme/v1/common.proto\";\nmessage Ping { Id id = 1; }\n"),
            ("acme/v1/common.proto", "syntax = \"proto3\";\npackage acme.v1;\nmessage Id { string value = 1; }\n"),
        ]);
        build::lock(dir.path()).unwrap();
        fs::write(
            dir.path().join("acme/v1/common.proto"),
            "syntax = \"proto3\";\npackage acme.v1;\nmessage Id { int64 value = 1; }\n",
        )
        .unwrap();
        assert_problem(dir.path(), "ping.v1.proto", Kind::Changed, "changed");
    }

    #[test]
    fn a_locked_proto_changes_when_its_root_changes() {
        let two = "syntax = \"proto3\";\npackage acme.v1;\nmessage Ping { string id = 1; }\nmessage Pong { string id = 1; }\n";
        let dir = folder(&[
            (
                "dataschema.toml",
                "namespace = \"acme\"\n[roots]\n\"ping.v1\" = \"acme.v1.Ping\"\n",
            ),
            ("ping.v1.proto", two),
        ]);
        build::lock(dir.path()).unwrap();
        fs::write(
            dir.path().join("dataschema.toml"),
            "namespace = \"acme\"\n[roots]\n\"ping.v1\" = \"acme.v1.Pong\"\n",
        )
        .unwrap();
        assert_problem(
            dir.path(),
            "ping.v1.proto",
            Kind::Changed,
            "urn:acme:schema:ping:1 changed",
        );
    }

    #[test]
    fn a_published_schema_may_not_disappear() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("address.v1.json", ADDRESS),
        ]);
        build::lock(dir.path()).unwrap();
        fs::remove_file(dir.path().join("address.v1.json")).unwrap();
        assert_problem(
            dir.path(),
            "dataschema.lock",
            Kind::Removed,
            "urn:acme:schema:address:1 is published",
        );
    }

    #[test]
    fn a_locked_file_that_broke_is_one_problem_not_also_gone() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("address.v1.json", ADDRESS),
        ]);
        build::lock(dir.path()).unwrap();
        fs::write(dir.path().join("address.v1.json"), "{ broken").unwrap();
        let found = problems(dir.path());
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].1, Kind::NotJson, "{found:#?}");
    }

    #[test]
    fn manifest_problems_name_the_manifest() {
        let dir = folder(&[("address.v1.json", ADDRESS)]);
        assert_problem(dir.path(), "dataschema.toml", Kind::Manifest, "namespace");
        let dir = folder(&[("dataschema.toml", "namespace = \"a\"\n")]);
        assert_problem(
            dir.path(),
            "dataschema.toml",
            Kind::Manifest,
            "namespace \"a\"",
        );
        let dir = folder(&[(
            "dataschema.toml",
            "namespace = \"acme\"\nnamespcae = \"x\"\n",
        )]);
        assert_problem(dir.path(), "dataschema.toml", Kind::Manifest, "namespcae");
        let dir = folder(&[(
            "dataschema.toml",
            "namespace = \"acme\"\n[roots]\n\"gone.v1\" = \"a.B\"\n",
        )]);
        assert_problem(dir.path(), "dataschema.toml", Kind::Manifest, "gone.v1");
    }

    #[test]
    fn file_name_problems_name_the_file() {
        for (name, needle) in [
            ("address.json", "no version"),
            ("address.v0.json", "version"),
            ("address.v01.json", "version"),
            ("address.v+1.json", "version"),
            ("Address.v1.json", "start with a lowercase"),
            ("add ress.v1.json", "invalid URN"),
        ] {
            let dir = folder(&[
                ("dataschema.toml", "namespace = \"acme\"\n"),
                (name, ADDRESS),
            ]);
            assert_problem(dir.path(), name, Kind::FileName, needle);
        }
    }

    #[test]
    fn schemas_that_do_not_compile_fail_with_the_compilers_message() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n[roots]\n\"bad.v1\" = \"acme.v1.Bad\"\n\"ping.v1\" = \"acme.v1.Nope\"\n"),
            ("notjson.v1.json", "{ nope"),
            ("badtype.v1.json", r#"{"type": "no-such-type"}"#),
            ("dangling.v1.json", r#"{"$ref": "urn:acme:schema:nowhere:1"}"#),
            ("bad.v1.proto", "syntax = \"proto3\";\nmessage Bad { strin id = 1; }\n"),
            ("ping.v1.proto", PROTO),
            ("noroot.v1.proto", PROTO.replace("Ping", "Pong").as_str()),
        ]);
        let found = problems(dir.path());
        let has = |file: &str, kind: Kind, detail: &str| {
            found
                .iter()
                .any(|(f, k, m)| f == file && *k == kind && m.contains(detail))
        };
        assert!(has("notjson.v1.json", Kind::NotJson, ""), "{found:#?}");
        assert!(
            has("badtype.v1.json", Kind::Unusable, "does not compile"),
            "{found:#?}"
        );
        assert!(
            has(
                "dangling.v1.json",
                Kind::Unusable,
                "urn:acme:schema:nowhere:1"
            ),
            "{found:#?}"
        );
        assert!(
            has("bad.v1.proto", Kind::ProtoDoesNotCompile, "strin"),
            "{found:#?}"
        );
        assert!(
            has("ping.v1.proto", Kind::Unusable, "acme.v1.Nope"),
            "{found:#?}"
        );
        assert!(
            has("noroot.v1.proto", Kind::MissingRoot, "[roots]"),
            "{found:#?}"
        );
    }

    #[test]
    fn the_same_urn_twice_is_refused() {
        let dir = folder(&[
            (
                "dataschema.toml",
                "namespace = \"acme\"\n[roots]\n\"ping.v1\" = \"acme.v1.Ping\"\n",
            ),
            ("ping.v1.json", ADDRESS),
            ("ping.v1.proto", PROTO),
        ]);
        assert_problem(
            dir.path(),
            "ping.v1.proto",
            Kind::Duplicate,
            "also given by",
        );
    }

    #[test]
    fn bundle_refuses_to_run_outside_a_build_script() {
        // Tests run without OUT_DIR in their environment.
        if std::env::var_os("OUT_DIR").is_none() {
            let err = build::bundle(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).unwrap_err();
            assert_eq!(err.diagnostics()[0].kind(), Kind::NotInBuildScript);
        }
    }

    #[test]
    fn a_bundle_error_debug_prints_readably() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("x.v1.json", "{"),
        ]);
        let err = build::check(dir.path()).unwrap_err();
        let debug = format!("{err:?}");
        assert!(debug.starts_with("1 problem in the schemas:"), "{debug}");
        assert!(debug.contains("x.v1.json: not JSON"), "{debug}");
    }

    #[test]
    fn the_sample_folder_passes_its_lock() {
        let checked = build::check(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas")).unwrap();
        assert!(checked.has_lock);
        assert!(
            checked.unlocked.is_empty(),
            "samples not locked: {:?}",
            checked.unlocked
        );
    }

    #[test]
    fn the_committed_test_descriptor_set_matches_its_source() {
        let mut compiler =
            protox::Compiler::new([concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/schemas")])
                .unwrap();
        compiler.include_imports(true).include_source_info(false);
        compiler.open_file("proto2.proto").unwrap();
        assert_eq!(
            compiler.encode_file_descriptor_set(),
            super::common::read("schemas/proto2.binpb")
        );
    }
}
