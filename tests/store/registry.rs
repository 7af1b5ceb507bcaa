//! The registry and its stores: publish, immutability, resolve, versions, list.
// Some helpers serve only the tests of one validator's feature.
#![cfg_attr(
    not(all(feature = "json", feature = "protobuf")),
    allow(unused_imports, dead_code)
)]

use crate::common;

use std::sync::{Arc, Barrier};

use common::{read, urn};
use dataschema::{Compatibility, Error, Language, MemoryStore, Registry, Schema, Store};

fn greeting(version: u32, body: &str) -> Schema {
    Schema::json(
        urn(&format!("urn:acme:schema:greeting:{version}")),
        body.to_owned(),
    )
}

#[cfg(feature = "json")]
#[test]
fn same_bytes_again_is_fine_different_bytes_are_refused() {
    let registry = Registry::new(MemoryStore::new());
    registry
        .publish(greeting(1, r#"{"type":"string"}"#), Compatibility::None)
        .unwrap();
    registry
        .publish(greeting(1, r#"{"type":"string"}"#), Compatibility::None)
        .unwrap();
    let err = registry
        .publish(greeting(1, r#"{"type": "string"}"#), Compatibility::None)
        .unwrap_err();
    assert!(
        matches!(&err, Error::Immutable { urn } if urn.to_string() == "urn:acme:schema:greeting:1")
    );
    assert!(err.to_string().contains("urn:acme:schema:greeting:1"));
    assert!(err.to_string().contains("new version"));
    // What is stored did not change.
    assert_eq!(
        registry
            .resolve(&urn("urn:acme:schema:greeting:1"))
            .unwrap()
            .bytes(),
        br#"{"type":"string"}"#
    );
}

#[cfg(feature = "protobuf")]
#[test]
fn the_same_bytes_as_another_language_or_root_are_a_different_schema() {
    let registry = Registry::new(MemoryStore::new());
    let proto = read("schemas/proto2.binpb");
    let first = Schema::protobuf(
        urn("urn:acme:schema:env:1"),
        proto.clone(),
        "test.v1.Envelope",
    );
    registry.publish(first, Compatibility::None).unwrap();
    let other_root = Schema::protobuf(urn("urn:acme:schema:env:1"), proto, "test.v1.Inner");
    assert!(matches!(
        registry.publish(other_root, Compatibility::None),
        Err(Error::Immutable { .. })
    ));
}

#[cfg(feature = "json")]
#[test]
fn concurrent_publishers_of_different_bytes_exactly_one_wins() {
    for _ in 0..20 {
        let registry = Registry::new(MemoryStore::new());
        let threads = 8;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let registry = registry.clone();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    let body = format!(r#"{{"type":"string","maxLength":{i}}}"#);
                    registry
                        .publish(greeting(1, &body), Compatibility::None)
                        .map(|_| body)
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners: Vec<&String> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "{results:?}");
        assert!(results
            .iter()
            .filter_map(|r| r.as_ref().err())
            .all(|e| matches!(e, Error::Immutable { .. })));
        let held = registry
            .resolve(&urn("urn:acme:schema:greeting:1"))
            .unwrap();
        assert_eq!(held.bytes(), winners[0].as_bytes());
    }
}

#[cfg(feature = "json")]
#[test]
fn versions_ascending_and_empty_for_an_unknown_name() {
    let registry = Registry::new(MemoryStore::new());
    for version in [10, 2, 1] {
        registry
            .publish(
                greeting(version, r#"{"type":"string"}"#),
                Compatibility::None,
            )
            .unwrap();
    }
    registry
        .publish(
            Schema::json(urn("urn:acme:schema:aaa:1"), "{}"),
            Compatibility::None,
        )
        .unwrap();
    assert_eq!(registry.versions("greeting").unwrap(), vec![1, 2, 10]);
    assert_eq!(registry.versions("unknown").unwrap(), Vec::<u32>::new());
    let listed: Vec<String> = registry
        .list()
        .unwrap()
        .iter()
        .map(|u| u.to_string())
        .collect();
    assert_eq!(
        listed,
        [
            "urn:acme:schema:aaa:1",
            "urn:acme:schema:greeting:1",
            "urn:acme:schema:greeting:2",
            "urn:acme:schema:greeting:10"
        ]
    );
}

#[test]
fn resolving_an_unknown_urn_is_not_found() {
    let registry = Registry::new(MemoryStore::new());
    let err = registry
        .resolve(&urn("urn:acme:schema:nope:1"))
        .unwrap_err();
    assert!(matches!(&err, Error::NotFound { urn } if urn.name() == "nope"));
    assert!(err.to_string().contains("urn:acme:schema:nope:1"));
}

#[test]
fn reads_share_the_stored_bytes_which_nobody_can_change() {
    // A schema is immutable (no `&mut` access to its bytes exists), so a
    // read hands out the stored bytes themselves: no copy.
    let store = MemoryStore::new();
    let schema = greeting(1, r#"{"type":"string"}"#);
    store.put(&schema).unwrap();
    let first = store.get(schema.urn()).unwrap().unwrap();
    let again = store.get(schema.urn()).unwrap().unwrap();
    assert_eq!(again.bytes(), schema.bytes());
    assert_eq!(first.bytes().as_ptr(), again.bytes().as_ptr());
    assert_eq!(first.bytes().as_ptr(), schema.bytes().as_ptr());
}

#[test]
fn empty_bytes_and_missing_roots_are_refused() {
    let registry = Registry::new(MemoryStore::new());
    let err = registry
        .publish(greeting(1, ""), Compatibility::None)
        .unwrap_err();
    assert!(matches!(err, Error::Empty { .. }), "{err}");
    let no_root = Schema::protobuf(
        urn("urn:acme:schema:env:1"),
        read("schemas/proto2.binpb"),
        "",
    );
    assert!(matches!(
        registry.publish(no_root, Compatibility::None),
        Err(Error::MissingRoot { .. })
    ));
}

/// A descriptor set without a root whose own file is not one (two files
/// that no other imports: two sets' bytes are one set of both): it names
/// no root, and none is guessed.
#[cfg(feature = "protobuf")]
#[test]
fn a_descriptor_set_without_a_root_or_one_own_file_is_refused() {
    let registry = Registry::new(MemoryStore::new());
    let mut two = read("schemas/proto2.binpb");
    two.extend_from_slice(&{
        use prost::Message as _;
        use prost_reflect::prost_types::{DescriptorProto, FileDescriptorProto, FileDescriptorSet};
        FileDescriptorSet {
            file: vec![FileDescriptorProto {
                name: Some("other.proto".into()),
                package: Some("other".into()),
                message_type: vec![DescriptorProto {
                    name: Some("Other".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }],
        }
        .encode_to_vec()
    });
    let no_root = Schema::new(urn("urn:acme:schema:env:1"), Language::Protobuf, two, None);
    let err = registry.publish(no_root, Compatibility::None).unwrap_err();
    assert!(matches!(err, Error::MissingRoot { .. }));
    assert!(err.to_string().contains("urn:acme:schema:env:1"));
}

#[test]
fn languages_parse_and_display() {
    assert_eq!(
        "jsonschema".parse::<Language>().unwrap(),
        Language::JsonSchema
    );
    assert_eq!("protobuf".parse::<Language>().unwrap(), Language::Protobuf);
    assert_eq!(Language::JsonSchema.to_string(), "jsonschema");
    assert_eq!(Language::Protobuf.to_string(), "protobuf");
    assert_eq!("avro".parse::<Language>().unwrap(), Language::Avro);
    assert_eq!(Language::Avro.to_string(), "avro");
    assert_eq!(Language::Avro.feature(), "avro");
    let err = "xml".parse::<Language>().unwrap_err();
    assert!(matches!(&err, Error::InvalidLanguage { language } if language == "xml"));
    assert!(err.to_string().contains("\"xml\""));
    assert!(err.to_string().contains("`avro`"), "{err}");
}

#[test]
fn compatibility_modes_parse_and_unknown_ones_name_the_string() {
    assert_eq!(
        "BACKWARD_TRANSITIVE".parse::<Compatibility>().unwrap(),
        Compatibility::BackwardTransitive
    );
    let err: Error = "sideways".parse::<Compatibility>().unwrap_err().into();
    assert!(matches!(err, Error::UnknownCompatibility(_)));
    assert!(err.to_string().contains("sideways"));
}

#[cfg(feature = "json")]
mod json {
    use super::*;
    use common::json_schema;

    #[test]
    fn a_schema_that_does_not_compile_is_refused() {
        let registry = Registry::new(MemoryStore::new());
        for file in [
            "does_not_compile.json",
            "refs_unknown.json",
            "refs_http.json",
            "refs_file.json",
        ] {
            let schema = json_schema("urn:acme:schema:broken:1", file);
            let err = registry.publish(schema, Compatibility::None).unwrap_err();
            assert!(matches!(err, Error::SchemaUnusable { .. }), "{file}: {err}");
            assert!(std::error::Error::source(&err).is_some());
        }
        let not_json = Schema::json(urn("urn:acme:schema:broken:1"), "{ nope");
        let err = registry.publish(not_json, Compatibility::None).unwrap_err();
        // Display names the schema; the cause is in the chain, once.
        assert!(!err.to_string().contains("not JSON"), "{err}");
        assert!(err.chain().to_string().contains("not JSON"), "{err}");
        assert!(registry.list().unwrap().is_empty());
    }

    #[test]
    fn refs_by_urn_resolve_from_the_registry() {
        let registry = Registry::new(MemoryStore::new());
        let referring = Schema::json(
            urn("urn:acme:schema:outer:1"),
            r#"{"properties": {"inner": {"$ref": "urn:acme:schema:inner:1"}}}"#,
        );
        // Not published yet: the reference does not resolve.
        assert!(matches!(
            registry.publish(referring.clone(), Compatibility::None),
            Err(Error::SchemaUnusable { .. })
        ));
        registry
            .publish(
                Schema::json(urn("urn:acme:schema:inner:1"), r#"{"type":"integer"}"#),
                Compatibility::None,
            )
            .unwrap();
        registry.publish(referring, Compatibility::None).unwrap();
    }

    #[test]
    fn embed_accepts_refs_within_the_batch_in_any_order() {
        let registry = Registry::embed([
            Schema::json(
                urn("urn:acme:schema:outer:1"),
                r#"{"$ref": "urn:acme:schema:inner:1"}"#,
            ),
            Schema::json(urn("urn:acme:schema:inner:1"), r#"{"type":"integer"}"#),
        ])
        .unwrap();
        assert_eq!(registry.list().unwrap().len(), 2);
        let err = Registry::embed([json_schema(
            "urn:acme:schema:broken:1",
            "does_not_compile.json",
        )])
        .unwrap_err();
        assert!(matches!(err, Error::SchemaUnusable { .. }));
    }
}

#[cfg(feature = "protobuf")]
mod protobuf {
    use super::*;

    #[test]
    fn garbage_descriptor_sets_and_missing_roots_are_unusable() {
        let registry = Registry::new(MemoryStore::new());
        let garbage = Schema::protobuf(
            urn("urn:acme:schema:env:1"),
            vec![0xff, 0x00, 0x12],
            "test.v1.Envelope",
        );
        assert!(matches!(
            registry.publish(garbage, Compatibility::None),
            Err(Error::SchemaUnusable { .. })
        ));
        let missing = Schema::protobuf(
            urn("urn:acme:schema:env:1"),
            read("schemas/proto2.binpb"),
            "test.v1.Nope",
        );
        let err = registry.publish(missing, Compatibility::None).unwrap_err();
        assert!(err.chain().to_string().contains("test.v1.Nope"), "{err}");
    }
}

#[cfg(not(feature = "json"))]
#[test]
fn without_the_json_feature_json_schemas_are_refused_with_no_validator() {
    let registry = Registry::new(MemoryStore::new());
    let err = registry
        .publish(greeting(1, "{}"), Compatibility::None)
        .unwrap_err();
    assert!(matches!(
        err,
        Error::NoValidator {
            language: Language::JsonSchema,
            ..
        }
    ));
    assert!(err.to_string().contains("`json`"));
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn arbitrary_schema_bytes_never_panic_publish(bytes in proptest::collection::vec(any::<u8>(), 0..256), proto in any::<bool>()) {
            let registry = Registry::new(MemoryStore::new());
            let schema = if proto {
                Schema::protobuf(urn("urn:acme:schema:fuzz:1"), bytes, "a.B")
            } else {
                Schema::json(urn("urn:acme:schema:fuzz:1"), bytes)
            };
            let _ = registry.publish(schema, Compatibility::None);
        }

        #[test]
        fn arbitrary_json_text_never_panics_publish(text in "[\\[\\]{}\":,a-z0-9$# ]{0,80}") {
            let registry = Registry::new(MemoryStore::new());
            let _ = registry.publish(Schema::json(urn("urn:acme:schema:fuzz:1"), text), Compatibility::None);
        }
    }
}

#[cfg(feature = "json")]
#[test]
fn publish_and_embed_agree_on_a_schema_that_refs_its_own_urn() {
    // A recursive schema naming itself by URN, without `$id`.
    let tree = dataschema::Schema::json(
        common::urn("urn:acme:schema:tree:1"),
        r#"{"type": "object", "properties": {"children": {"type": "array",
            "items": {"$ref": "urn:acme:schema:tree:1"}}}}"#,
    );
    dataschema::Registry::embed([tree.clone()]).expect("embed accepts it");
    let registry = dataschema::Registry::new(dataschema::MemoryStore::new());
    registry
        .publish(tree, dataschema::Compatibility::Backward)
        .expect("publish accepts it too");
    let guard = dataschema::Guard::new(registry);
    assert!(guard
        .validate(
            "urn:acme:schema:tree:1",
            br#"{"children": [{"children": []}]}"#
        )
        .unwrap()
        .is_validated());
    assert!(guard
        .validate(
            "urn:acme:schema:tree:1",
            br#"{"children": [{"children": 1}]}"#
        )
        .is_err());
}

/// `message Order { <ty> id = 1; }` in package `shop`, as a descriptor set.
#[cfg(feature = "protobuf")]
fn order_set(ty: prost_reflect::prost_types::field_descriptor_proto::Type) -> Vec<u8> {
    use prost::Message as _;
    use prost_reflect::prost_types::{
        DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
    };
    let field = FieldDescriptorProto {
        name: Some("id".into()),
        number: Some(1),
        r#type: Some(ty as i32),
        label: Some(1),
        ..Default::default()
    };
    let message = DescriptorProto {
        name: Some("Order".into()),
        field: vec![field],
        ..Default::default()
    };
    let file = FileDescriptorProto {
        name: Some("order.proto".into()),
        package: Some("shop".into()),
        syntax: Some("proto3".into()),
        message_type: vec![message],
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

/// A publish checks against the readings the registry keeps of prior
/// versions (and the candidate's compile-time reading) with exactly the
/// verdict and report `compat::check` gives from the bytes, with the cache
/// on, shrunk to nothing mid-way, and off.
#[cfg(feature = "protobuf")]
#[test]
fn kept_readings_check_as_the_bytes_do() {
    use prost_reflect::prost_types::field_descriptor_proto::Type;
    for setting in ["on", "shrunk", "off"] {
        let registry = Registry::new(MemoryStore::new());
        if setting == "off" {
            registry.set_compat_cache_bytes(0);
        }
        let version = |v: u32, ty| {
            Schema::protobuf(
                urn(&format!("urn:acme:schema:order:{v}")),
                order_set(ty),
                "shop.Order",
            )
        };
        let (v1, v2) = (version(1, Type::Int32), version(2, Type::Int64));
        registry
            .publish(v1.clone(), Compatibility::Backward)
            .unwrap();
        registry
            .publish(v2.clone(), Compatibility::Backward)
            .unwrap();
        if setting == "shrunk" {
            registry.set_compat_cache_bytes(1);
        }
        for mode in [Compatibility::Backward, Compatibility::BackwardTransitive] {
            let v3 = version(3, Type::String);
            let expected = dataschema::compat::check(mode, &v3, &[v1.clone(), v2.clone()])
                .unwrap()
                .to_string();
            match registry.publish(v3, mode) {
                Err(Error::Incompatible { report, .. }) => {
                    assert_eq!(report.to_string(), expected, "{setting}, {mode:?}")
                }
                other => panic!("{setting}, {mode:?}: {other:?}"),
            }
        }
        // A compatible next version still passes, against every prior.
        registry
            .publish(version(3, Type::Uint64), Compatibility::BackwardTransitive)
            .unwrap();
        assert_eq!(registry.versions("order").unwrap(), vec![1, 2, 3]);
    }
}

/// Version 4294967295, the largest a URN carries, is refused at publish
/// (its name could take no next version), saying so; a name that holds it
/// from elsewhere (a store written directly) answers its next version with
/// the same error, not a wrap or a panic.
#[cfg(feature = "json")]
#[test]
fn the_largest_version_is_refused_at_publish() {
    let store = std::sync::Arc::new(MemoryStore::new());
    let registry = Registry::new(std::sync::Arc::clone(&store));
    let last = Schema::json(
        urn("urn:acme:schema:last:4294967295"),
        r#"{"type":"string"}"#,
    );
    for mode in [Compatibility::None, Compatibility::Backward] {
        let err = registry.publish(last.clone(), mode).unwrap_err();
        assert!(
            matches!(&err, Error::LastVersion { urn } if urn == last.urn()),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(message.contains("4294967295"), "{message}");
        assert!(message.contains("no version can follow"), "{message}");
    }
    assert_eq!(registry.versions("last").unwrap(), Vec::<u32>::new());
    // Landing on it as the next version is refused too.
    store
        .put(&Schema::json(
            urn("urn:acme:schema:edge:4294967294"),
            r#"{"title":"below"}"#,
        ))
        .unwrap();
    let err = registry
        .publish_next(
            Schema::json(urn("urn:acme:schema:edge:1"), r#"{"title":"last"}"#),
            Compatibility::None,
        )
        .unwrap_err();
    assert!(matches!(err, Error::LastVersion { .. }), "{err:?}");
    // Held already (written before this check): the next version after it
    // is the same clear error.
    store.put(&last).unwrap();
    let err = registry
        .publish_next(
            Schema::json(urn("urn:acme:schema:last:1"), r#"{"title":"after"}"#),
            Compatibility::None,
        )
        .unwrap_err();
    assert!(
        matches!(&err, Error::LastVersion { urn } if urn == last.urn()),
        "{err:?}"
    );
}

/// The modes' rules on settings live in `Registry`, so every path (either
/// API, `dataschema import`, a program over the library) meets them: a
/// read-only name's level and settings do not change (nor the default's
/// under a read-only registry), and a switch to IMPORT where live
/// versions are held is refused unless forced (Confluent's
/// `updateConfig`, `deleteSubjectConfig`, `setMode`, v8.2.0). A
/// read-only name's mode itself may change: that is how it is opened
/// again.
#[cfg(feature = "json")]
#[test]
fn settings_follow_the_mode_and_import_needs_force_where_versions_are_held() {
    use dataschema::store::Mode;
    use dataschema::ModeRefusal;
    use dataschema::Settings;
    let registry = Registry::new(MemoryStore::new());
    registry
        .publish(greeting(1, r#"{"type":"object"}"#), Compatibility::None)
        .unwrap();
    registry
        .config()
        .set_compatibility(Some("greeting"), Some(Compatibility::Full))
        .unwrap();
    registry
        .config()
        .set_mode(Some("greeting"), Some(Mode::ReadOnly))
        .unwrap();
    let read_only = |result: Result<(), Error>, what: &str, whose: Option<&str>| match result {
        Err(Error::SettingsRefused { name, refusal }) => {
            assert_eq!(refusal, ModeRefusal::ReadOnly, "{what}");
            assert_eq!(name.as_deref(), whose, "{what}");
        }
        other => panic!("{what}: {other:?}"),
    };
    read_only(
        registry
            .config()
            .set_compatibility(Some("greeting"), Some(Compatibility::None)),
        "set a level",
        Some("greeting"),
    );
    read_only(
        registry.config().set_compatibility(Some("greeting"), None),
        "clear a level",
        Some("greeting"),
    );
    let settings = Settings::from_json(&serde_json::json!({"compatibilityGroup": "app"})).unwrap();
    read_only(
        registry
            .config()
            .set_settings(Some("greeting"), Some(&settings)),
        "set settings",
        Some("greeting"),
    );
    assert_eq!(
        registry.config().compatibility(Some("greeting")).unwrap(),
        Some(Compatibility::Full),
        "nothing changed"
    );
    // Another name, and the default, are not read-only.
    registry
        .config()
        .set_compatibility(Some("other"), Some(Compatibility::None))
        .unwrap();
    registry
        .config()
        .set_compatibility(None, Some(Compatibility::Forward))
        .unwrap();
    // Opened again, its level changes.
    registry.config().set_mode(Some("greeting"), None).unwrap();
    registry
        .config()
        .set_compatibility(Some("greeting"), None)
        .unwrap();

    // A read-only registry: the default's settings do not change, nor a
    // name's that has no mode of its own.
    registry
        .config()
        .set_mode(None, Some(Mode::ReadOnly))
        .unwrap();
    read_only(
        registry
            .config()
            .set_compatibility(None, Some(Compatibility::None)),
        "the default",
        None,
    );
    read_only(
        registry.config().set_compatibility(None, None),
        "clear the default",
        None,
    );
    read_only(
        registry
            .config()
            .set_compatibility(Some("other"), Some(Compatibility::Full)),
        "a name under a read-only registry",
        Some("other"),
    );
    registry.config().set_mode(None, None).unwrap();

    // IMPORT where live versions are held: refused unless forced, for the
    // name and registry-wide; a name without versions switches freely.
    for name in [Some("greeting"), None] {
        match registry.config().set_mode(name, Some(Mode::Import)) {
            Err(Error::SettingsRefused { refusal, .. }) => {
                assert_eq!(refusal, ModeRefusal::VersionsHeld, "{name:?}")
            }
            other => panic!("{name:?}: {other:?}"),
        }
    }
    assert_eq!(
        registry.config().mode_in_effect("greeting").unwrap(),
        Mode::ReadWrite
    );
    registry
        .config()
        .set_mode(Some("empty"), Some(Mode::Import))
        .unwrap();
    registry
        .config()
        .force_mode(Some("greeting"), Some(Mode::Import))
        .unwrap();
    assert_eq!(
        registry.config().mode_in_effect("greeting").unwrap(),
        Mode::Import
    );
    // Already in IMPORT: setting it again needs no force.
    registry
        .config()
        .set_mode(Some("greeting"), Some(Mode::Import))
        .unwrap();
    // Soft-deleted versions are not held live.
    registry.config().set_mode(Some("greeting"), None).unwrap();
    registry
        .delete_versions(&[urn("urn:acme:schema:greeting:1")])
        .unwrap();
    registry
        .config()
        .set_mode(Some("greeting"), Some(Mode::Import))
        .unwrap();
}

/// The settings' former names on `Registry` (before `Registry::config`)
/// still compile for programs that call them, and do what `config()` does.
#[test]
#[allow(deprecated)]
fn the_former_setting_methods_forward_to_config() {
    use dataschema::store::Mode;
    let registry = Registry::new(MemoryStore::new());
    registry
        .set_default_compatibility(Compatibility::Full)
        .unwrap();
    registry
        .set_compatibility("greeting", Compatibility::None)
        .unwrap();
    assert_eq!(
        registry.config().compatibility(None).unwrap(),
        Some(Compatibility::Full)
    );
    assert_eq!(
        registry.compatibility_setting(Some("greeting")).unwrap(),
        Some(Compatibility::None)
    );
    assert_eq!(
        registry.compatibility("greeting").unwrap(),
        Compatibility::None
    );
    registry.clear_compatibility("greeting").unwrap();
    assert_eq!(
        registry.compatibility("greeting").unwrap(),
        Compatibility::Full
    );
    registry.clear_default_compatibility().unwrap();
    assert_eq!(
        registry.compatibility("greeting").unwrap(),
        Compatibility::Backward
    );

    registry
        .set_mode(Some("greeting"), Some(Mode::ReadOnly))
        .unwrap();
    assert_eq!(
        registry.config().mode(Some("greeting")).unwrap(),
        Some(Mode::ReadOnly)
    );
    assert_eq!(registry.mode_setting(None).unwrap(), None);
    assert_eq!(registry.mode("greeting").unwrap(), Mode::ReadOnly);
    assert!(matches!(
        registry.configurable(Some("greeting")),
        Err(Error::SettingsRefused { .. })
    ));
    registry.force_mode(Some("greeting"), None).unwrap();
    assert_eq!(registry.mode("greeting").unwrap(), Mode::ReadWrite);

    let settings = dataschema::Settings {
        compatibility_group: Some("major".into()),
        ..Default::default()
    };
    registry.set_settings(None, Some(&settings)).unwrap();
    assert_eq!(registry.settings(None).unwrap(), Some(settings.clone()));
    assert_eq!(registry.settings_in_effect("greeting").unwrap(), settings);
    assert_eq!(
        registry.config().settings_in_effect("greeting").unwrap(),
        settings
    );
}
