//! Named types across `.avsc` files at `cargo build`: a schema using a
//! record, enum or fixed another `.avsc` of the folder defines, by full
//! name, gets the defining schema as a reference (found by the name, or
//! named by the manifest); the bundle carries the references, the guard
//! and the resolution read over them offline; and the build's
//! diagnostics (a name two files define, a type nobody defines, a cycle,
//! a version incompatible through a referenced type).
#![cfg(feature = "avro")]

use dataschema::{Guard, Outcome, Registry};

fn bundled() -> Registry {
    let bundle: dataschema::bundle::Bundle = include!(concat!(
        env!("OUT_DIR"),
        "/bundle_avro/dataschema_bundle.rs"
    ));
    Registry::from_bundle(bundle).unwrap()
}

fn references(registry: &Registry, urn: &str) -> Vec<(String, String)> {
    registry
        .resolve(&urn.parse().unwrap())
        .unwrap()
        .references()
        .iter()
        .map(|r| (r.name().to_owned(), r.urn().to_string()))
        .collect()
}

/// A payment of version 1: id "p1", 250 cents, currency `currency`
/// (the enum's index).
fn payment(currency: u8) -> Vec<u8> {
    vec![4, b'p', b'1', 0xF4, 0x03, currency * 2]
}

#[test]
fn the_bundle_carries_the_references_found_by_full_name_or_named_by_the_manifest() {
    let registry = bundled();
    let money = [(
        "acme.common.Money".to_owned(),
        "urn:acme:schema:money:1".to_owned(),
    )];
    assert_eq!(references(&registry, "urn:acme:schema:payment:1"), money);
    assert_eq!(references(&registry, "urn:acme:schema:payment:2"), money);
    assert_eq!(references(&registry, "urn:acme:schema:money:1"), []);
    // Payment is defined by two versions: the manifest names the one
    // meant; Money is then found by its full name as for the others.
    assert_eq!(
        references(&registry, "urn:acme:schema:refund:1"),
        [(
            "acme.pay.Payment".to_owned(),
            "urn:acme:schema:payment:2".to_owned()
        )]
    );
    // The bytes are bundled as written.
    let held = registry
        .resolve(&"urn:acme:schema:payment:1".parse().unwrap())
        .unwrap();
    let file = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/bundle_avro/payment.v1.avsc"
    ))
    .unwrap();
    assert_eq!(held.bytes(), file.as_slice());
}

#[test]
fn the_guard_validates_over_the_referenced_types_offline() {
    let guard = Guard::new(bundled());
    let urn = "urn:acme:schema:payment:1";
    assert!(matches!(
        guard.validate(urn, &payment(1)),
        Ok(Outcome::Validated)
    ));
    // The enum Money defines has two symbols: index 5 is refused where it
    // sits.
    let invalid = guard.validate(urn, &payment(5)).unwrap_err();
    assert_eq!(
        invalid.violations()[0].path(),
        "/amount/currency",
        "{invalid:?}"
    );
    // A refund (payment 2, then money): the manifest's reference and the
    // one it brings transitively.
    let mut refund = payment(0);
    refund.push(2); // payment 2's fallback: USD
    refund.extend_from_slice(&[0x02, 0x00]); // 1 cent, EUR
    assert!(matches!(
        guard.validate("urn:acme:schema:refund:1", &refund),
        Ok(Outcome::Validated)
    ));
}

#[test]
fn a_resolution_reads_one_version_as_another_over_their_references() {
    let registry = bundled();
    let resolution = registry
        .resolution(
            &"urn:acme:schema:payment:1".parse().unwrap(),
            &"urn:acme:schema:payment:2".parse().unwrap(),
        )
        .unwrap();
    // Version 2 adds the fallback currency, at its default (EUR: 0).
    let mut expected = payment(1);
    expected.push(0);
    assert_eq!(resolution.transcode(&payment(1)).unwrap(), expected);
}

#[cfg(feature = "build")]
mod build {
    use std::fs;
    use std::path::Path;

    use dataschema::build::{self, DiagnosticKind as Kind};

    const MONEY: &str = r#"{"type": "record", "name": "Money", "namespace": "acme.common",
        "fields": [{"name": "cents", "type": "long"},
                   {"name": "currency", "type": {"type": "enum", "name": "Currency", "symbols": ["EUR", "USD"]}}]}"#;
    const PAYMENT: &str = r#"{"type": "record", "name": "Payment", "namespace": "acme.pay",
        "fields": [{"name": "id", "type": "string"}, {"name": "amount", "type": "acme.common.Money"}]}"#;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn problems(dir: &Path) -> Vec<(String, Kind, String)> {
        build::check(dir)
            .unwrap_err()
            .diagnostics()
            .iter()
            .map(|d| {
                let file = d.path().file_name().unwrap().to_string_lossy().into_owned();
                (file, d.kind(), d.message().to_owned())
            })
            .collect()
    }

    #[test]
    fn a_type_found_by_its_short_name_in_the_namespace() {
        // `Money` in namespace acme.common is acme.common.Money.
        let user = r#"{"type": "record", "name": "Wallet", "namespace": "acme.common",
            "fields": [{"name": "balance", "type": "Money"}]}"#;
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("money.v1.avsc", MONEY),
            ("wallet.v1.avsc", user),
        ]);
        let checked = build::check(dir.path()).unwrap();
        let wallet = checked
            .sources
            .iter()
            .find(|s| s.schema.urn().name() == "wallet")
            .unwrap();
        let names: Vec<&str> = wallet
            .schema
            .references()
            .iter()
            .map(|r| r.name())
            .collect();
        assert_eq!(names, ["acme.common.Money"]);
    }

    #[test]
    fn a_name_two_files_define_is_a_diagnostic_naming_both() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("money.v1.avsc", MONEY),
            ("cash.v1.avsc", MONEY),
            ("payment.v1.avsc", PAYMENT),
        ]);
        let found = problems(dir.path());
        let twice: Vec<_> = found
            .iter()
            .filter(|(_, kind, _)| *kind == Kind::DefinedTwice)
            .collect();
        assert_eq!(twice.len(), 1, "{found:#?}");
        let (file, _, message) = twice[0];
        assert_eq!(file, "payment.v1.avsc");
        for detail in [
            "acme.common.Money",
            "money.v1.avsc",
            "cash.v1.avsc",
            "[references.\"payment.v1\"]",
        ] {
            assert!(message.contains(detail), "{detail}: {message}");
        }
        // Naming one in the manifest settles it.
        fs::write(
            dir.path().join("dataschema.toml"),
            "namespace = \"acme\"\n[references.\"payment.v1\"]\n\"acme.common.Money\" = \"urn:acme:schema:cash:1\"\n",
        )
        .unwrap();
        let checked = build::check(dir.path()).unwrap();
        let payment = checked
            .sources
            .iter()
            .find(|s| s.schema.urn().name() == "payment")
            .unwrap();
        assert_eq!(
            payment.schema.references()[0].urn().to_string(),
            "urn:acme:schema:cash:1"
        );
    }

    #[test]
    fn a_type_no_file_defines_is_refused_with_its_location() {
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("payment.v1.avsc", PAYMENT),
        ]);
        let found = problems(dir.path());
        assert!(
            found
                .iter()
                .any(|(file, kind, message)| file == "payment.v1.avsc"
                    && *kind == Kind::Unusable
                    && message.contains("/fields/1/type")
                    && message.contains("acme.common.Money")),
            "{found:#?}"
        );
    }

    #[test]
    fn schemas_using_each_others_types_in_a_cycle_are_refused() {
        let a = r#"{"type": "record", "name": "x.A", "fields": [{"name": "b", "type": ["null", "x.B"]}]}"#;
        let b = r#"{"type": "record", "name": "x.B", "fields": [{"name": "a", "type": ["null", "x.A"]}]}"#;
        let dir = folder(&[
            ("dataschema.toml", "namespace = \"acme\"\n"),
            ("a.v1.avsc", a),
            ("b.v1.avsc", b),
        ]);
        let found = problems(dir.path());
        for file in ["a.v1.avsc", "b.v1.avsc"] {
            assert!(
                found
                    .iter()
                    .any(|(f, _, message)| f == file && message.contains("lead back")),
                "{file}: {found:#?}"
            );
        }
    }

    #[test]
    fn a_version_incompatible_through_a_referenced_type_fails_the_build() {
        // Money 2 drops USD; payment 2 over it cannot read payment 1's
        // data (USD has no reader symbol, and the enum no default).
        let money2 = MONEY.replace(r#"["EUR", "USD"]"#, r#"["EUR"]"#);
        let manifest = "namespace = \"acme\"\n[compatibility_overrides]\n\"money\" = \"none\"\n\
                        [references.\"payment.v1\"]\n\"acme.common.Money\" = \"urn:acme:schema:money:1\"\n\
                        [references.\"payment.v2\"]\n\"acme.common.Money\" = \"urn:acme:schema:money:2\"\n";
        let dir = folder(&[
            ("dataschema.toml", manifest),
            ("money.v1.avsc", MONEY),
            ("money.v2.avsc", &money2),
            ("payment.v1.avsc", PAYMENT),
            ("payment.v2.avsc", PAYMENT),
        ]);
        let found = problems(dir.path());
        assert!(
            found
                .iter()
                .any(|(file, kind, message)| file == "payment.v2.avsc"
                    && *kind == Kind::Incompatible
                    && message.contains("USD")),
            "{found:#?}"
        );
        assert_eq!(found.len(), 1, "{found:#?}");
    }
}

/// `dataschema compat` and `dataschema validate --schemas` read each
/// version over its references in the folder, as the build does.
#[cfg(feature = "cli")]
#[test]
fn the_command_line_reads_over_the_folders_references() {
    use std::process::Command;

    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bundle_avro");
    let compat = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["compat", "--mode", "full_transitive", dir, "payment"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&compat.stdout).into_owned()
        + &String::from_utf8_lossy(&compat.stderr);
    assert_eq!(compat.status.code(), Some(0), "{said}");
    assert!(said.contains("urn:acme:schema:payment:2"), "{said}");
    let tmp = tempfile::tempdir().unwrap();
    for (datum, code) in [(payment(1), Some(0)), (payment(5), Some(1))] {
        let file = tmp.path().join("payment.bin");
        std::fs::write(&file, datum).unwrap();
        let validate = Command::new(env!("CARGO_BIN_EXE_dataschema"))
            .args(["validate", "--schemas", dir, "urn:acme:schema:payment:1"])
            .arg(&file)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&validate.stdout).into_owned()
            + &String::from_utf8_lossy(&validate.stderr);
        assert_eq!(validate.status.code(), code, "{said}");
    }
}
