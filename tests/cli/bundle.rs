//! Bundling at `cargo build`: what the bundle holds, and every build error.

use crate::common;

use common::samples;

#[test]
fn the_bundle_holds_the_sample_schemas() {
    let bundle = dataschema::include_bundle!();
    assert_eq!(bundle.len(), 6);
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
            "urn:acme:schema:payments.made:1",
        ]
    );
    let payments = samples()
        .resolve(&common::urn("urn:acme:schema:payments.made:1"))
        .unwrap();
    assert_eq!(payments.language(), dataschema::Language::Avro);
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

/// `tests/data/bundle_ids/`, bundled by the build script as a user's
/// build script bundles its folder: its lock records the ids a real
/// `dataschema publish` got (greeting and hello hold one content: id 1;
/// tally: id 2; unpublished is locked with no id).
fn published_bundle() -> dataschema::bundle::Bundle {
    include!(concat!(env!("OUT_DIR"), "/bundle_ids/dataschema_bundle.rs"))
}

#[cfg(feature = "json")]
fn frame(id: u32, body: &[u8]) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(body);
    out
}

#[test]
fn a_bundle_of_a_published_folder_answers_its_lock_ids_offline() {
    use dataschema::{Error, Registry, Resolver as _};

    let bundle = published_bundle();
    let mut ids: Vec<(&str, u32)> = bundle.ids().collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            ("urn:acme:schema:greeting:1", 1),
            ("urn:acme:schema:hello:1", 1),
            ("urn:acme:schema:tally:1", 2)
        ]
    );
    let registry = Registry::from_bundle(bundle).unwrap();
    let urn = common::urn;
    assert_eq!(
        registry.id_of(&urn("urn:acme:schema:greeting:1")).unwrap(),
        1
    );
    assert_eq!(registry.id_of(&urn("urn:acme:schema:hello:1")).unwrap(), 1);
    assert_eq!(registry.id_of(&urn("urn:acme:schema:tally:1")).unwrap(), 2);
    // Held, but never published: no id, rather than a number of the process.
    assert!(matches!(
        registry.id_of(&urn("urn:acme:schema:unpublished:1")),
        Err(Error::NoId { .. })
    ));
    assert!(matches!(
        registry.id_of(&urn("urn:acme:schema:nobody:1")),
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        registry.schema_by_id(1).unwrap().urn().as_str(),
        "urn:acme:schema:greeting:1"
    );
    assert_eq!(
        registry.urns_of_id(1).unwrap(),
        [
            urn("urn:acme:schema:greeting:1"),
            urn("urn:acme:schema:hello:1")
        ]
    );
    assert_eq!(
        registry.resolve_id(2).unwrap().urn().as_str(),
        "urn:acme:schema:tally:1"
    );
    // Only the lock's ids: the memory store numbered four contents (1 to
    // 3 here), but 3 names nothing a registry assigned.
    assert!(matches!(
        registry.resolve_id(3),
        Err(Error::IdNotFound { id: 3 })
    ));

    // Framed payloads validate offline (with the JSON validator compiled
    // in; without it they fail open, no_validator, as any payload does).
    #[cfg(feature = "json")]
    framed_offline(registry);
}

#[cfg(feature = "json")]
fn framed_offline(registry: dataschema::Registry) {
    use dataschema::{Guard, Outcome, Reason};
    let guard = Guard::new(registry);
    assert!(matches!(
        guard.validate_framed(&frame(2, br#"{"count": 4}"#)),
        Ok(Outcome::Validated)
    ));
    let invalid = guard
        .validate_framed(&frame(2, br#"{"count": -1}"#))
        .unwrap_err();
    assert_eq!(invalid.urn().as_str(), "urn:acme:schema:tally:1");
    assert_eq!(invalid.violations()[0].path(), "/count");
    assert!(matches!(
        guard.validate_framed(&frame(1, br#"{"name": "Ada"}"#)),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate_framed(&frame(1, br#"{}"#)).is_err());
    match guard.validate_framed(&frame(3, b"{}")) {
        Ok(Outcome::Unvalidated(unvalidated)) => assert_eq!(unvalidated.reason(), Reason::NotFound),
        other => panic!("expected not_found, got {other:?}"),
    }
    assert_eq!(guard.unvalidated(), 1);
}

/// `tests/data/bundle_references/`: order.v1's `$ref` to
/// `http://example.com/customer.schema.json` is a reference (the
/// manifest's `[references]`) to customer.v1.
#[cfg(feature = "json")]
#[test]
fn a_bundle_carries_references_and_the_guard_follows_them_offline() {
    use dataschema::{Guard, Outcome, Registry};

    let bundle: dataschema::bundle::Bundle = include!(concat!(
        env!("OUT_DIR"),
        "/bundle_references/dataschema_bundle.rs"
    ));
    let registry = Registry::from_bundle(bundle).unwrap();
    let order = registry
        .resolve(&"urn:acme:schema:order:1".parse().unwrap())
        .unwrap();
    let references: Vec<(&str, String)> = order
        .references()
        .iter()
        .map(|r| (r.name(), r.urn().to_string()))
        .collect();
    assert_eq!(
        references,
        [(
            "http://example.com/customer.schema.json",
            "urn:acme:schema:customer:1".to_owned()
        )]
    );
    let guard = Guard::new(registry);
    let urn = "urn:acme:schema:order:1";
    assert!(matches!(
        guard.validate(urn, br#"{"customer": {"name": "Ada", "id": 1}}"#),
        Ok(Outcome::Validated)
    ));
    // The referenced schema's rule (id: integer) is applied.
    assert!(guard
        .validate(urn, br#"{"customer": {"name": "Ada", "id": "one"}}"#)
        .is_err());
}

/// `tests/data/bundle_aliases/`: the manifest gives customer.v2's `name`
/// the alias `fullName` (`[aliases."customer.v2"]`), which its schema does
/// not carry; `resolve = "latest"` built only with it.
#[cfg(feature = "json")]
#[test]
fn a_bundle_carries_the_manifests_aliases_and_resolution_honours_them() {
    use dataschema::{Guard, Outcome, Registry};

    let bundle: dataschema::bundle::Bundle = include!(concat!(
        env!("OUT_DIR"),
        "/bundle_aliases/dataschema_bundle.rs"
    ));
    let listed: Vec<String> = bundle
        .aliases()
        .flat_map(|(urn, aliases)| {
            aliases
                .entries()
                .map(|(path, names)| format!("{urn} {path} {names:?}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(listed, [r#"urn:acme:schema:customer:2 /name ["fullName"]"#]);
    let registry = Registry::from_bundle(bundle).unwrap();
    let (v1, v2) = (
        common::urn("urn:acme:schema:customer:1"),
        common::urn("urn:acme:schema:customer:2"),
    );
    let resolution = registry.resolution(&v1, &v2).unwrap();
    assert_eq!(
        resolution
            .transcode(br#"{"id":1,"fullName":"Ada"}"#)
            .unwrap(),
        br#"{"id":1,"name":"Ada"}"#
    );
    assert_eq!(
        resolution.write_back(br#"{"id":2,"name":"Bo"}"#).unwrap(),
        br#"{"id":2,"fullName":"Bo"}"#
    );
    let guard = Guard::new(registry.clone());
    let read = guard
        .read_as(v1.as_str(), br#"{"id":3,"fullName":"Cy"}"#, &v2)
        .unwrap();
    assert!(matches!(read.outcome(), Outcome::Validated), "{read:?}");
    assert_eq!(read.bytes(), br#"{"id":3,"name":"Cy"}"#);
    // The same schemas without the manifest: v2 requires a name v1 lacks.
    let bare = Registry::embed([
        registry.resolve(&v1).unwrap(),
        registry.resolve(&v2).unwrap(),
    ])
    .unwrap();
    let refused = bare.resolution(&v1, &v2).unwrap_err().to_string();
    assert!(refused.contains("/name"), "{refused}");
}

#[test]
fn the_generated_bundle_carries_the_lock_ids() {
    let code =
        std::fs::read_to_string(concat!(env!("OUT_DIR"), "/bundle_ids/dataschema_bundle.rs"))
            .unwrap();
    let line = |name: &str| {
        code.lines()
            .find(|line| line.contains(&format!("\"urn:acme:schema:{name}:1\"")))
            .unwrap_or_else(|| panic!("no entry for {name}: {code}"))
            .to_owned()
    };
    assert!(line("tally").ends_with(".with_id(2),"), "{}", line("tally"));
    assert!(
        !line("unpublished").contains("with_id"),
        "{}",
        line("unpublished")
    );
    // The sample bundle's lock records no ids: its entries carry none.
    let samples =
        std::fs::read_to_string(concat!(env!("OUT_DIR"), "/dataschema_bundle.rs")).unwrap();
    assert!(!samples.contains("with_id"));
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

    #[cfg(feature = "avro")]
    const PAYMENT: &str = r#"{"type":"record","name":"Payment","namespace":"acme","fields":[
        {"name":"id","type":{"type":"string","logicalType":"uuid"}},
        {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}]}"#;

    #[cfg(feature = "avro")]
    #[test]
    fn avro_schemas_are_bundled_locked_and_checked() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("payment.v1.avsc", PAYMENT),
        ]);
        let checked = build::check(dir.path()).unwrap();
        assert_eq!(checked.sources.len(), 1);
        let schema = &checked.sources[0].schema;
        assert_eq!(schema.urn().to_string(), "urn:acme:schema:payment:1");
        assert_eq!(schema.language(), dataschema::Language::Avro);
        assert_eq!(schema.bytes(), PAYMENT.as_bytes(), "bundled as written");
        assert_eq!(build::lock(dir.path()).unwrap().len(), 1);
        // A compatible next version: a field with a default.
        let v2 = PAYMENT.replace(
            "scale\":2}}]",
            "scale\":2}},{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}]",
        );
        fs::write(dir.path().join("payment.v2.avsc"), &v2).unwrap();
        assert_eq!(build::check(dir.path()).unwrap().unlocked.len(), 1);
        // An incompatible one (a field without a default) fails the build
        // under the default mode, with Java's kind and location.
        let v3 = v2.replace(
            "\"default\":\"\"}]",
            "\"default\":\"\"},{\"name\":\"due\",\"type\":\"long\"}]",
        );
        fs::write(dir.path().join("payment.v3.avsc"), v3).unwrap();
        assert_problem(
            dir.path(),
            "payment.v3.avsc",
            Kind::Incompatible,
            "READER_FIELD_MISSING_DEFAULT_VALUE at /fields/3",
        );
        fs::remove_file(dir.path().join("payment.v3.avsc")).unwrap();
        // A schema Avro refuses, with the place and the rule.
        fs::write(
            dir.path().join("broken.v1.avsc"),
            r#"{"type":"enum","name":"E","symbols":["A","A"]}"#,
        )
        .unwrap();
        assert_problem(dir.path(), "broken.v1.avsc", Kind::Unusable, "/symbols/1");
        fs::remove_file(dir.path().join("broken.v1.avsc")).unwrap();
        // A locked .avsc that changed fails the build.
        fs::write(
            dir.path().join("payment.v1.avsc"),
            PAYMENT.replace("9", "10"),
        )
        .unwrap();
        assert_problem(
            dir.path(),
            "payment.v1.avsc",
            Kind::Changed,
            "urn:acme:schema:payment:1 changed",
        );
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

    /// `[aliases."<name>.v<version>"]`: honoured by `resolve = "latest"`,
    /// carried by the check's result, and an entry naming no field of its
    /// reader fails the build (it would drop a value without a word).
    #[cfg(feature = "json")]
    #[test]
    fn manifest_aliases_are_honoured_and_one_naming_no_reader_field_fails() {
        const V1: &str = r#"{"type":"object","properties":{"fullName":{"type":"string"}},"required":["fullName"]}"#;
        const V2: &str =
            r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
        const HEAD: &str = "namespace = \"acme\"\ncompatibility = \"none\"\nresolve = \"latest\"\n";
        let dir = folder(&[
            ("dataschema.toml", HEAD),
            ("customer.v1.json", V1),
            ("customer.v2.json", V2),
        ]);
        // Without the alias, v1 cannot be read as v2.
        assert_problem(dir.path(), "customer.v1.json", Kind::Unresolvable, "/name");
        fs::write(
            dir.path().join("dataschema.toml"),
            format!("{HEAD}[aliases.\"customer.v2\"]\n\"/name\" = [\"fullName\"]\n"),
        )
        .unwrap();
        let checked = build::check(dir.path()).unwrap();
        let v2: dataschema::Urn = "urn:acme:schema:customer:2".parse().unwrap();
        let given: Vec<(String, Vec<String>)> = checked
            .aliases_of(&v2)
            .entries()
            .map(|(path, names)| (path.to_owned(), names.to_vec()))
            .collect();
        assert_eq!(given, [("/name".to_owned(), vec!["fullName".to_owned()])]);
        // An entry naming no field of v2: the manifest's problem, naming it.
        fs::write(
            dir.path().join("dataschema.toml"),
            format!(
                "{HEAD}[aliases.\"customer.v2\"]\n\"/name\" = [\"fullName\"]\n\"/nmae\" = [\"x\"]\n"
            ),
        )
        .unwrap();
        assert_problem(
            dir.path(),
            "dataschema.toml",
            Kind::Manifest,
            "\"/nmae\" names no field of urn:acme:schema:customer:2",
        );
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
    fn a_rootless_proto_is_bundled_and_validates_frames_only() {
        use dataschema::{Guard, Outcome, Reason, Registry};
        let two = "syntax = \"proto3\";\npackage acme.v1;\nmessage Ping { string id = 1; }\nmessage Pong { int64 at = 1; }\n";
        let dir = folder(&[
            (
                "dataschema.toml",
                "namespace = \"acme\"\nrootless = [\"ping.v1\"]\n",
            ),
            ("ping.v1.proto", two),
        ]);
        build::lock(dir.path()).unwrap();
        let checked = build::check(dir.path()).unwrap();
        let urn = crate::common::urn("urn:acme:schema:ping:1");
        assert_eq!(checked.sources[0].schema.root(), None);
        let registry = Registry::embed_with_ids(checked.schemas(), [(urn.clone(), 7)]).unwrap();
        let guard = Guard::new(registry);
        let frame = |indexes: &[u8], body: &[u8]| {
            let mut out = vec![0, 0, 0, 0, 7];
            out.extend_from_slice(indexes);
            out.extend_from_slice(body);
            out
        };
        // Ping {id: "x"} as [0], Pong {at: 5} as [1].
        for (what, framed) in [
            ("Ping", frame(b"\x00", b"\x0a\x01x")),
            ("Pong", frame(b"\x02\x02", b"\x08\x05")),
        ] {
            let outcome = guard.validate_framed(&framed);
            assert!(
                matches!(outcome, Ok(Outcome::Validated)),
                "{what}: {outcome:?}"
            );
        }
        // A Ping's bytes as a Pong: field 1 is an int64 there.
        let invalid = guard
            .validate_framed(&frame(b"\x02\x02", b"\x0a\x01x"))
            .expect_err("not a Pong");
        assert_eq!(invalid.urn(), &urn);
        assert_eq!(guard.unvalidated(), 0);
        // By URN: no message named, fails open as unusable, counted.
        match guard.validate(urn.as_str(), b"\x0a\x01x") {
            Ok(Outcome::Unvalidated(unvalidated)) => {
                assert_eq!(unvalidated.reason(), Reason::Unusable)
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(guard.unvalidated(), 1);

        // Given a root instead, the URN's meaning changes: the lock says so.
        fs::write(
            dir.path().join("dataschema.toml"),
            "namespace = \"acme\"\n[roots]\n\"ping.v1\" = \"acme.v1.Ping\"\n",
        )
        .unwrap();
        assert_problem(
            dir.path(),
            "ping.v1.proto",
            Kind::Changed,
            "urn:acme:schema:ping:1",
        );
    }

    #[test]
    fn well_known_imports_resolve_without_a_copy_in_the_folder() {
        let order = "syntax = \"proto3\";\npackage acme.v1;\n\nimport \"confluent/meta.proto\";\nimport \"confluent/type/decimal.proto\";\nimport \"google/type/date.proto\";\nimport \"google/protobuf/timestamp.proto\";\n\nmessage Order {\n  string id = 1 [(confluent.field_meta).doc = \"the id\"];\n  confluent.type.Decimal total = 2;\n  google.type.Date due = 3;\n  google.protobuf.Timestamp at = 4;\n}\n";
        let manifest = "namespace = \"acme\"\n[roots]\n\"order.v1\" = \"acme.v1.Order\"\n";
        let bare = folder(&[("dataschema.toml", manifest), ("order.v1.proto", order)]);
        build::lock(bare.path()).unwrap();
        let checked = build::check(bare.path()).unwrap();
        let registry = dataschema::Registry::embed(checked.schemas()).unwrap();
        // Order {id: "o1", due: {year: 2026}}.
        let guard = dataschema::Guard::new(registry);
        let outcome = guard.validate("urn:acme:schema:order:1", b"\x0a\x02o1\x1a\x03\x08\xea\x0f");
        assert!(
            matches!(outcome, Ok(dataschema::Outcome::Validated)),
            "{outcome:?}"
        );
        // A folder holding copies of the same files locks the same digest.
        let mut files = vec![("dataschema.toml", manifest), ("order.v1.proto", order)];
        files.extend(dataschema::proto::WELL_KNOWN.iter().copied());
        let copies = folder(&files);
        build::lock(copies.path()).unwrap();
        let lock = |dir: &Path| fs::read_to_string(dir.join(build::LOCK_FILE)).unwrap();
        assert_eq!(lock(bare.path()), lock(copies.path()));
    }

    #[test]
    fn rootless_entries_are_checked_against_the_folder() {
        let dir = folder(&[
            (
                "dataschema.toml",
                "namespace = \"acme\"\nrootless = [\"ping.v1\", \"gone.v1\"]\n[roots]\n\"ping.v1\" = \"acme.v1.Ping\"\n",
            ),
            ("ping.v1.proto", PROTO),
        ]);
        assert_problem(
            dir.path(),
            "dataschema.toml",
            Kind::Manifest,
            "under [roots] and in `rootless`",
        );
        assert_problem(
            dir.path(),
            "dataschema.toml",
            Kind::Manifest,
            "`rootless` names \"gone.v1\"",
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

    const LOCK_HEAD: &str = "[schemas]\n";

    /// The folder's lock: `[schemas]` as `build::lock` writes it, then
    /// `ids` as an `[ids]` table.
    fn lock_with_ids(dir: &Path, ids: &str) {
        build::lock(dir).unwrap();
        let path = dir.join(build::LOCK_FILE);
        let lock = fs::read_to_string(&path).unwrap();
        assert!(lock.contains(LOCK_HEAD));
        fs::write(path, format!("{lock}\n[ids]\n{ids}")).unwrap();
    }

    #[test]
    fn lock_ids_are_read_into_the_sources() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("address.v1.json", ADDRESS),
            ("other.v1.json", "{}"),
        ]);
        lock_with_ids(dir.path(), "\"urn:acme:schema:address:1\" = 7\n");
        let checked = build::check(dir.path()).unwrap();
        let ids: Vec<Option<u32>> = checked.sources.iter().map(|s| s.id).collect();
        assert_eq!(ids, [Some(7), None]);
    }

    #[test]
    fn lock_ids_that_contradict_each_other_fail_the_build() {
        // One content under two URNs, two ids.
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("a.v1.json", ADDRESS),
            ("b.v1.json", ADDRESS),
        ]);
        lock_with_ids(
            dir.path(),
            "\"urn:acme:schema:a:1\" = 3\n\"urn:acme:schema:b:1\" = 4\n",
        );
        assert_problem(
            dir.path(),
            "dataschema.lock",
            Kind::IdConflict,
            "same content",
        );
        // One id for two contents.
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("a.v1.json", ADDRESS),
            ("b.v1.json", "{}"),
        ]);
        lock_with_ids(
            dir.path(),
            "\"urn:acme:schema:a:1\" = 3\n\"urn:acme:schema:b:1\" = 3\n",
        );
        assert_problem(dir.path(), "dataschema.lock", Kind::IdConflict, "same id 3");
        // An id without a digest, and id 0.
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("a.v1.json", ADDRESS),
        ]);
        lock_with_ids(
            dir.path(),
            "\"urn:acme:schema:a:1\" = 0\n\"urn:acme:schema:gone:1\" = 5\n",
        );
        assert_problem(
            dir.path(),
            "dataschema.lock",
            Kind::Lock,
            "a registry id is at least 1",
        );
        assert_problem(dir.path(), "dataschema.lock", Kind::Lock, "does not lock");
        // Not an id at all.
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("a.v1.json", ADDRESS),
        ]);
        lock_with_ids(dir.path(), "\"urn:acme:schema:a:1\" = -2\n");
        assert_problem(dir.path(), "dataschema.lock", Kind::Lock, "");
    }

    #[test]
    fn record_published_writes_ids_once_and_refuses_contradictions() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("a.v1.json", ADDRESS),
            ("b.v1.json", ADDRESS),
            ("c.v1.json", "{}"),
        ]);
        let checked = build::check(dir.path()).unwrap();
        let urn = super::common::urn;
        let (a, b, c) = (
            urn("urn:acme:schema:a:1"),
            urn("urn:acme:schema:b:1"),
            urn("urn:acme:schema:c:1"),
        );
        let added = build::record_published(dir.path(), &checked, &[(a.clone(), 5)]).unwrap();
        assert_eq!(added, std::slice::from_ref(&a));
        let path = dir.path().join(build::LOCK_FILE);
        let lock = fs::read_to_string(&path).unwrap();
        assert!(
            lock.contains("[ids]\n\"urn:acme:schema:a:1\" = 5\n"),
            "{lock}"
        );
        assert!(
            lock.contains("\"urn:acme:schema:a:1\" = \"sha256:"),
            "{lock}"
        );
        // The old format still reads, and the new one checks.
        let checked = build::check(dir.path()).unwrap();
        assert_eq!(checked.sources[0].id, Some(5));
        // Again: nothing new, the file untouched.
        assert!(
            build::record_published(dir.path(), &checked, &[(a.clone(), 5)])
                .unwrap()
                .is_empty()
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), lock);
        // Another id for a, or for b (a's content), or a's id for c:
        // refused, nothing written.
        for (urn, id, needle) in [
            (&a, 6, "lock records id 5"),
            (&b, 6, "same content"),
            (&c, 5, "same id 5"),
        ] {
            let err =
                build::record_published(dir.path(), &checked, &[(urn.clone(), id)]).unwrap_err();
            assert!(err.to_string().contains(needle), "{needle}: {err}");
            assert_eq!(fs::read_to_string(&path).unwrap(), lock);
        }
        build::record_published(dir.path(), &checked, &[(b.clone(), 5), (c.clone(), 9)]).unwrap();
        let checked = build::check(dir.path()).unwrap();
        let ids: Vec<Option<u32>> = checked.sources.iter().map(|s| s.id).collect();
        assert_eq!(ids, [Some(5), Some(5), Some(9)]);
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

    /// The manifest's `[rules]`: every CEL rule compiles at `cargo build`,
    /// or the build fails naming the version and the rule.
    #[cfg(feature = "cel")]
    #[test]
    fn rules_are_checked_when_bundled() {
        let manifest = |expr: &str| {
            format!(
                "namespace = \"acme\"\n\
                 [[rules.\"address.v1\".domainRules]]\n\
                 name = \"hasCity\"\nkind = \"CONDITION\"\ntype = \"CEL\"\nexpr = {expr:?}\n"
            )
        };
        let good = folder(&[
            ("dataschema.toml", &manifest("message.city != ''")),
            ("address.v1.json", ADDRESS),
        ]);
        let checked = build::check(good.path()).unwrap();
        let set = checked.sources[0]
            .schema
            .rule_set()
            .expect("the rules are the version's");
        assert_eq!(set.domain_rules[0]["name"], "hasCity");
        let broken = folder(&[
            ("dataschema.toml", &manifest("message.city !=")),
            ("address.v1.json", ADDRESS),
        ]);
        assert_problem(
            broken.path(),
            "dataschema.toml",
            Kind::Rule,
            "urn:acme:schema:address:1",
        );
        assert_problem(broken.path(), "dataschema.toml", Kind::Rule, "hasCity");
        assert_problem(
            broken.path(),
            "dataschema.toml",
            Kind::Rule,
            "does not compile",
        );
        let malformed = folder(&[
            (
                "dataschema.toml",
                "namespace = \"acme\"\n[[rules.\"address.v1\".domainRules]]\nname = \"x\"\n",
            ),
            ("address.v1.json", ADDRESS),
        ]);
        assert_problem(
            malformed.path(),
            "dataschema.toml",
            Kind::Rule,
            "Missing rule type",
        );
        let stray = folder(&[
            (
                "dataschema.toml",
                "namespace = \"acme\"\n[[rules.\"nothing.v1\".domainRules]]\nname = \"x\"\ntype = \"CEL\"\n",
            ),
            ("address.v1.json", ADDRESS),
        ]);
        assert_problem(
            stray.path(),
            "dataschema.toml",
            Kind::Manifest,
            "nothing.v1",
        );
    }

    /// The manifest's `[rules]`: every JSONATA migration rule compiles at
    /// `cargo build` (the subset the guard runs), or the build fails
    /// naming the version and the rule.
    #[cfg(feature = "jsonata")]
    #[test]
    fn migration_rules_are_checked_when_bundled() {
        let manifest = |expr: &str| {
            format!(
                "namespace = \"acme\"\n\
                 [[rules.\"address.v1\".migrationRules]]\n\
                 name = \"rename\"\nkind = \"TRANSFORM\"\nmode = \"UPGRADE\"\n\
                 type = \"JSONATA\"\nexpr = {expr:?}\n"
            )
        };
        let good = folder(&[
            (
                "dataschema.toml",
                &manifest(
                    "$merge([$sift($, function($v, $k) {$k != 'town'}), {'city': $.'town'}])",
                ),
            ),
            ("address.v1.json", ADDRESS),
        ]);
        let checked = build::check(good.path()).unwrap();
        let set = checked.sources[0].schema.rule_set().expect("the rules");
        assert_eq!(set.migration_rules[0]["name"], "rename");
        for (expr, said) in [
            ("$merge([$", "does not compile"),
            ("$now()", "$now is not a function"),
        ] {
            let broken = folder(&[
                ("dataschema.toml", &manifest(expr)),
                ("address.v1.json", ADDRESS),
            ]);
            assert_problem(broken.path(), "dataschema.toml", Kind::Rule, "rename");
            assert_problem(broken.path(), "dataschema.toml", Kind::Rule, said);
        }
    }
}
