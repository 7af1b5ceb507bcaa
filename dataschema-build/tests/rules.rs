//! Data contracts checked at `cargo build`: a rule reading a field the
//! schema lacks, tags no field carries, a metadata tag path matching no
//! field, a change of compatibility group without migration rules, and
//! `[samples]` run through every rule and migration of their version.

#![cfg(all(
    feature = "cel",
    feature = "jsonata",
    feature = "json",
    feature = "avro"
))]

use std::fs;
use std::path::Path;

use dataschema_build::{check, DiagnosticKind};

const ADDRESS: &str = r#"{"type":"object","properties":{
    "city":{"type":"string"},
    "email":{"type":"string","confluent:tags":["PII"]}}}"#;

const ORDER: &str = r#"{"type":"record","name":"Order","namespace":"acme","fields":[
    {"name":"id","type":"string"},
    {"name":"amount","type":"double"},
    {"name":"email","type":"string","confluent:tags":["PII"]}]}"#;

const PRODUCT_V1: &str = r#"{"type":"record","name":"Product","namespace":"acme","fields":[
    {"name":"name","type":"string"},{"name":"size","type":"int"}]}"#;
const PRODUCT_V2: &str = r#"{"type":"record","name":"Product","namespace":"acme","fields":[
    {"name":"name","type":"string"},{"name":"height","type":"int"}]}"#;

fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

/// Every problem: the file, its kind and its message.
fn problems(dir: &Path) -> Vec<(String, DiagnosticKind, String)> {
    match check(dir) {
        Ok(_) => Vec::new(),
        Err(err) => err
            .diagnostics()
            .iter()
            .map(|d| {
                let file = d.path().file_name().unwrap().to_string_lossy().into_owned();
                (file, d.kind(), d.message().to_owned())
            })
            .collect(),
    }
}

fn assert_problem(dir: &Path, file: &str, details: &[&str]) {
    let found = problems(dir);
    assert!(
        found.iter().any(|(f, k, m)| f == file
            && *k == DiagnosticKind::Rule
            && details.iter().all(|d| m.contains(d))),
        "no rule problem in {file} naming {details:?}: {found:#?}"
    );
}

fn cel(name: &str, kind: &str, rule_type: &str, expr: &str, tags: &str) -> String {
    format!(
        "[[rules.\"{{stem}}\".domainRules]]\nname = {name:?}\nkind = {kind:?}\n\
         type = {rule_type:?}\nexpr = {expr:?}\ntags = [{tags}]\n"
    )
}

fn manifest(stem: &str, rules: &[String], extra: &str) -> String {
    let mut out = "namespace = \"acme\"\n".to_owned();
    out.push_str(extra);
    for rule in rules {
        out.push_str(&rule.replace("{stem}", stem));
    }
    out
}

#[test]
fn a_rule_reading_a_field_the_schema_lacks_fails_the_build_naming_it() {
    for (file, schema, stem) in [
        ("address.v1.json", ADDRESS, "address.v1"),
        ("order.v1.avsc", ORDER, "order.v1"),
    ] {
        let good = folder(&[
            (
                "dataschema.toml",
                &manifest(
                    stem,
                    &[cel(
                        "hasEmail",
                        "CONDITION",
                        "CEL",
                        "message.email != ''",
                        "",
                    )],
                    "",
                ),
            ),
            (file, schema),
        ]);
        assert_eq!(problems(good.path()), Vec::new(), "{file}");
        let typo = folder(&[
            (
                "dataschema.toml",
                &manifest(
                    stem,
                    &[cel(
                        "hasEmail",
                        "CONDITION",
                        "CEL",
                        "message.emial != ''",
                        "",
                    )],
                    "",
                ),
            ),
            (file, schema),
        ]);
        assert_problem(
            typo.path(),
            file,
            &["hasEmail", "message.emial", stem.split('.').next().unwrap()],
        );
    }
}

#[test]
fn field_rules_whose_tags_no_field_carries_fail_the_build() {
    for (file, schema, stem) in [
        ("address.v1.json", ADDRESS, "address.v1"),
        ("order.v1.avsc", ORDER, "order.v1"),
    ] {
        let rule = |tag: &str| {
            manifest(
                stem,
                &[cel(
                    "notEmpty",
                    "CONDITION",
                    "CEL_FIELD",
                    "value != ''",
                    &format!("{tag:?}"),
                )],
                "",
            )
        };
        let good = folder(&[("dataschema.toml", &rule("PII")), (file, schema)]);
        assert_eq!(problems(good.path()), Vec::new(), "{file}");
        let typo = folder(&[("dataschema.toml", &rule("PIII")), (file, schema)]);
        assert_problem(typo.path(), file, &["notEmpty", "PIII", "no field"]);
    }
}

/// `[tags."<name>.v<version>"]` is the version's `metadata.tags`: a rule
/// selecting a field by a tag only the metadata gives it builds, and the
/// bundled schema carries the tags; a path matching no field, or a table
/// naming no version, fails the build.
#[test]
fn the_manifests_tags_are_the_versions_metadata_tags() {
    let rule = cel(
        "small",
        "CONDITION",
        "CEL_FIELD",
        "value < 100.0",
        "\"MONEY\"",
    );
    let with_tags = |tags: &str| {
        manifest("order.v1", std::slice::from_ref(&rule), "")
            + &format!("\n[tags.\"order.v1\"]\n{tags}\n")
    };
    let good = folder(&[
        (
            "dataschema.toml",
            &with_tags("\"acme.Order.amount\" = [\"MONEY\"]"),
        ),
        ("order.v1.avsc", ORDER),
    ]);
    let checked = check(good.path()).unwrap();
    let metadata = checked.sources[0].schema.metadata().unwrap();
    assert_eq!(
        metadata.tags["acme.Order.amount"],
        ["MONEY".to_owned()].into_iter().collect()
    );
    // Without the table, no field carries MONEY.
    let bare = folder(&[
        (
            "dataschema.toml",
            &manifest("order.v1", std::slice::from_ref(&rule), ""),
        ),
        ("order.v1.avsc", ORDER),
    ]);
    assert_problem(
        bare.path(),
        "order.v1.avsc",
        &["small", "MONEY", "no field"],
    );
    // A path matching no field of the schema.
    let typo = folder(&[
        (
            "dataschema.toml",
            &with_tags("\"acme.Order.amont\" = [\"MONEY\"]"),
        ),
        ("order.v1.avsc", ORDER),
    ]);
    assert!(
        problems(typo.path())
            .iter()
            .any(|(_, k, m)| *k == DiagnosticKind::Rule && m.contains("acme.Order.amont")),
        "{:#?}",
        problems(typo.path())
    );
    // A table naming a version the folder does not hold.
    let stray = folder(&[
        (
            "dataschema.toml",
            &(with_tags("\"acme.Order.amount\" = [\"MONEY\"]")
                + "\n[tags.\"order.v2\"]\n\"acme.Order.id\" = [\"X\"]\n"),
        ),
        ("order.v1.avsc", ORDER),
    ]);
    assert!(
        problems(stray.path())
            .iter()
            .any(|(_, k, m)| *k == DiagnosticKind::Manifest && m.contains("order.v2")),
        "{:#?}",
        problems(stray.path())
    );
}

#[test]
fn a_migration_chain_with_a_missing_step_fails_the_build() {
    let groups = "compatibility = \"none\"\ncompatibility_group = \"major\"\n\
                  [metadata.\"product.v1\"]\nmajor = \"1\"\n[metadata.\"product.v2\"]\nmajor = \"2\"\n";
    let up = "[[rules.\"product.v2\".migrationRules]]\nname = \"up\"\nkind = \"TRANSFORM\"\n\
         mode = \"UPGRADE\"\ntype = \"JSONATA\"\n\
         expr = \"$merge([$sift($, function($v, $k) {$k != 'size'}), {'height': $.'size'}])\"\n";
    let down = "[[rules.\"product.v2\".migrationRules]]\nname = \"down\"\nkind = \"TRANSFORM\"\n\
         mode = \"DOWNGRADE\"\ntype = \"JSONATA\"\n\
         expr = \"$merge([$sift($, function($v, $k) {$k != 'height'}), {'size': $.'height'}])\"\n";
    let folder_of = |rules: &str| {
        folder(&[
            (
                "dataschema.toml",
                &format!("namespace = \"acme\"\n{groups}{rules}"),
            ),
            ("product.v1.avsc", PRODUCT_V1),
            ("product.v2.avsc", PRODUCT_V2),
        ])
    };
    // v2 starts group 2 and reads v1 up, but nothing reads v2 down.
    let missing = folder_of(up);
    assert_problem(
        missing.path(),
        "product.v2.avsc",
        &["urn:acme:schema:product:2", "DOWNGRADE", "missing step"],
    );
    assert!(!problems(missing.path())
        .iter()
        .any(|(_, _, m)| m.contains("no UPGRADE")));
    assert_eq!(
        problems(folder_of(&format!("{up}{down}")).path()),
        Vec::new()
    );
    // Groups without any migration rule: compatibility checks alone.
    assert_eq!(problems(folder_of("").path()), Vec::new());
}

#[test]
fn samples_run_through_every_rule_and_migration_at_build() {
    let rules = manifest(
        "order.v1",
        &[
            cel("positive", "CONDITION", "CEL", "message.amount > 0.0", ""),
            cel("mask", "TRANSFORM", "CEL_FIELD", "'XXX'", "\"PII\""),
        ],
        "[samples]\n\"order.v1\" = [\"samples/order.json\"]\n",
    );
    let good = folder(&[
        ("dataschema.toml", &rules),
        ("order.v1.avsc", ORDER),
        (
            "samples/order.json",
            r#"{"id": "o1", "amount": 3.5, "email": "a@b.c"}"#,
        ),
    ]);
    assert_eq!(problems(good.path()), Vec::new());
    // A sample the condition refuses: the build fails naming the rule,
    // the version and the sample.
    let refused = folder(&[
        ("dataschema.toml", &rules),
        ("order.v1.avsc", ORDER),
        (
            "samples/order.json",
            r#"{"id": "o1", "amount": -1.0, "email": "a@b.c"}"#,
        ),
    ]);
    assert_problem(
        refused.path(),
        "order.json",
        &[
            "positive",
            "urn:acme:schema:order:1",
            "message.amount > 0.0",
        ],
    );
    // A sample that is no payload of its version.
    let wrong = folder(&[
        ("dataschema.toml", &rules),
        ("order.v1.avsc", ORDER),
        ("samples/order.json", r#"{"id": "o1"}"#),
    ]);
    assert_problem(wrong.path(), "order.json", &["urn:acme:schema:order:1"]);
    // A migration that gives the reader something it cannot hold.
    let broken = "[[rules.\"product.v2\".migrationRules]]\nname = \"up\"\nkind = \"TRANSFORM\"\n\
         mode = \"UPGRADE\"\ntype = \"JSONATA\"\n\
         expr = \"$merge([$sift($, function($v, $k) {$k != 'size'}), {'height': 'tall'}])\"\n\
         [samples]\n\"product.v1\" = [\"samples/p.json\"]\n";
    let migrating = folder(&[
        (
            "dataschema.toml",
            &format!("namespace = \"acme\"\ncompatibility = \"none\"\n{broken}"),
        ),
        ("product.v1.avsc", PRODUCT_V1),
        ("product.v2.avsc", PRODUCT_V2),
        ("samples/p.json", r#"{"name": "a", "size": 3}"#),
    ]);
    assert_problem(
        migrating.path(),
        "p.json",
        &[
            "urn:acme:schema:product:1",
            "urn:acme:schema:product:2",
            "height",
        ],
    );
}

const SHIPMENT_JSON: &str = r##"{"type":"object","properties":{
    "customer":{"$ref":"#/$defs/customer"},
    "items":{"type":"array","items":{"type":"object","properties":{
        "sku":{"type":"string"},"qty":{"type":"integer"}}}},
    "extra":{"type":"object","additionalProperties":{"type":"string"}}},
    "$defs":{"customer":{"type":"object","properties":{
        "name":{"type":"string"},"email":{"type":"string"}}}}}"##;

const SHIPMENT_AVRO: &str = r#"{"type":"record","name":"Shipment","namespace":"acme","fields":[
    {"name":"customer","type":["null",{"type":"record","name":"Customer","fields":[
        {"name":"name","type":"string"},{"name":"email","type":"string"}]}]},
    {"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
        {"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}},
    {"name":"extra","type":{"type":"map","values":"string"}}]}"#;

/// A `CEL` rule naming a field below the root that the schema lacks (a
/// nested record's field, an array item's through an index or a
/// comprehension's variable) fails the build, naming the rule, the
/// version, and the path it read; the fields the schema has, and parts
/// the schema leaves open (a map's keys), pass.
#[test]
fn a_rule_reading_a_nested_field_the_schema_lacks_fails_the_build() {
    for (file, schema, stem) in [
        ("shipment.v1.json", SHIPMENT_JSON, "shipment.v1"),
        ("shipment.v1.avsc", SHIPMENT_AVRO, "shipment.v1"),
    ] {
        let folder_with = |expr: &str| {
            folder(&[
                (
                    "dataschema.toml",
                    &manifest(stem, &[cel("check", "CONDITION", "CEL", expr, "")], ""),
                ),
                (file, schema),
            ])
        };
        for good in [
            "message.customer.email != ''",
            "has(message.customer.name) && message.items.all(i, i.qty > 0)",
            "message.items[0].sku != '' && message.extra.anything != ''",
            "message.items.exists(i, i.sku == 'a'); size(message.items) > 0",
        ] {
            assert_eq!(
                problems(folder_with(good).path()),
                Vec::new(),
                "{file}: {good}"
            );
        }
        for (bad, read, missing) in [
            (
                "message.customer.emial != ''",
                "message.customer.emial",
                "in message.customer",
            ),
            (
                "message.items.all(i, i.qyt > 0)",
                "message.items[].qyt",
                "in message.items[]",
            ),
            (
                "message.items[0].skew == 'a'",
                "message.items[].skew",
                "in message.items[]",
            ),
        ] {
            assert_problem(
                folder_with(bad).path(),
                file,
                &["check", read, missing, "urn:acme:schema:shipment:1"],
            );
        }
    }
}

/// The same for protobuf: a nested message's field, a repeated field's
/// item, a map's value.
#[cfg(feature = "protobuf")]
#[test]
fn a_rule_reading_a_nested_protobuf_field_the_message_lacks_fails_the_build() {
    const SHIPMENT_PROTO: &str = "syntax = \"proto3\";\npackage acme;\n\
        message Customer { string name = 1; string email = 2; }\n\
        message Item { string sku = 1; int32 qty = 2; }\n\
        message Shipment { Customer customer = 1; repeated Item items = 2; \
        map<string, Item> by_sku = 3; }\n";
    let folder_with = |expr: &str| {
        folder(&[
            (
                "dataschema.toml",
                &manifest(
                    "shipment.v1",
                    &[cel("check", "CONDITION", "CEL", expr, "")],
                    "[roots]\n\"shipment.v1\" = \"acme.Shipment\"\n",
                ),
            ),
            ("shipment.v1.proto", SHIPMENT_PROTO),
        ])
    };
    for good in [
        "message.customer.email != ''",
        "message.items.all(i, i.qty > 0) && message.by_sku['a'].qty > 0",
    ] {
        assert_eq!(problems(folder_with(good).path()), Vec::new(), "{good}");
    }
    for (bad, read) in [
        ("message.customer.emial != ''", "message.customer.emial"),
        ("message.items.all(i, i.qyt > 0)", "message.items[].qyt"),
        ("message.by_sku['a'].skew != ''", "message.by_sku[].skew"),
    ] {
        assert_problem(
            folder_with(bad).path(),
            "shipment.v1.proto",
            &["check", read, "urn:acme:schema:shipment:1"],
        );
    }
}

/// A JSON Schema version's `[tags]` paths name its fields by their path
/// from the root (`$.customer.email`, `$.items[0].sku`, as the guard's
/// walk names them): one matching no field fails the build naming it and
/// the version; patterns with wildcards and indexes that match pass.
#[test]
fn json_tag_paths_matching_no_field_fail_the_build() {
    let rule = cel(
        "notEmpty",
        "CONDITION",
        "CEL_FIELD",
        "value != ''",
        "\"PII\"",
    );
    let with_tags = |tags: &str| {
        folder(&[
            (
                "dataschema.toml",
                &(manifest("shipment.v1", std::slice::from_ref(&rule), "")
                    + &format!("\n[tags.\"shipment.v1\"]\n{tags}\n")),
            ),
            ("shipment.v1.json", SHIPMENT_JSON),
        ])
    };
    for good in [
        "\"$.customer.email\" = [\"PII\"]",
        "\"$.items[*].sku\" = [\"PII\"]",
        "\"$.items[3].sku\" = [\"PII\"]",
        "\"**.name\" = [\"PII\"]",
    ] {
        assert_eq!(problems(with_tags(good).path()), Vec::new(), "{good}");
    }
    let typo = with_tags("\"$.customer.emial\" = [\"PII\"]");
    assert_problem(
        typo.path(),
        "shipment.v1.json",
        &[
            "$.customer.emial",
            "urn:acme:schema:shipment:1",
            "matches no field",
        ],
    );
}
