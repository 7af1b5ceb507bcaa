//! Compatibility groups (a config's `compatibilityGroup`, the manifest's
//! `compatibility_group`) and the lenient policy for JSON Schema, at
//! publish and at `cargo build`. The design's example: `Event {id:
//! string}` in group 1, then `Event {event_id: int}` in group 2 under
//! BACKWARD is accepted; the same schema in group 1 is refused.
#![cfg(feature = "json")]

use crate::common::urn;
use dataschema::compat::{self, Policy};
use dataschema::{Compatibility, Error, MemoryStore, Metadata, Registry, Schema, Settings};

const ID_STRING: &str =
    r#"{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}"#;
const EVENT_ID_INT: &str = r#"{"type": "object", "properties": {"event_id": {"type": "integer"}}, "required": ["event_id"]}"#;

fn in_group(version: u32, text: &str, group: Option<&str>) -> Schema {
    let schema = Schema::json(urn(&format!("urn:acme:schema:event:{version}")), text);
    let metadata = group.map(|group| {
        let mut metadata = Metadata::default();
        metadata
            .properties
            .insert("major".to_owned(), group.to_owned());
        metadata
    });
    schema.with_metadata(metadata)
}

fn grouped_registry() -> Registry {
    let registry = Registry::new(MemoryStore::new());
    let settings = Settings {
        compatibility_group: Some("major".to_owned()),
        ..Settings::default()
    };
    registry
        .config()
        .set_settings(Some("event"), Some(&settings))
        .unwrap();
    registry
}

#[test]
fn the_designs_example_at_publish() {
    let registry = grouped_registry();
    let mode = Compatibility::Backward;
    registry
        .publish(in_group(1, ID_STRING, Some("1")), mode)
        .unwrap();
    registry
        .publish(in_group(2, EVENT_ID_INT, Some("2")), mode)
        .unwrap();
    let refused = registry.publish(in_group(3, EVENT_ID_INT, Some("1")), mode);
    let Err(Error::Incompatible { report, .. }) = refused else {
        panic!("{refused:?}");
    };
    let report: &dataschema::compat::CompatReport =
        report.downcast_ref().expect("a compatibility report");
    // Checked against version 1 alone: group 1's.
    let checked: Vec<u32> = report.versions().iter().map(|v| v.version()).collect();
    assert_eq!(checked, [1]);
    // A version without the property is its own group: nothing to check.
    registry
        .publish(
            in_group(3, EVENT_ID_INT, None),
            Compatibility::BackwardTransitive,
        )
        .unwrap();
    // The same in group 2 again is compatible with version 2.
    registry
        .publish(
            in_group(
                4,
                &EVENT_ID_INT.replace("}}", "}, \"note\": {}}"),
                Some("2"),
            ),
            mode,
        )
        .unwrap();
    // Without a group every version is a prior.
    let plain = Registry::new(MemoryStore::new());
    plain
        .publish(in_group(1, ID_STRING, Some("1")), mode)
        .unwrap();
    assert!(matches!(
        plain.publish(in_group(2, EVENT_ID_INT, Some("2")), mode),
        Err(Error::Incompatible { .. })
    ));
}

#[test]
fn settings_fall_back_to_the_default_field_by_field() {
    let registry = Registry::new(MemoryStore::new());
    let default = Settings {
        compatibility_group: Some("major".to_owned()),
        compatibility_policy: Some(Policy::Lenient),
        ..Settings::default()
    };
    registry
        .config()
        .set_settings(None, Some(&default))
        .unwrap();
    let own = Settings {
        compatibility_policy: Some(Policy::Strict),
        ..Settings::default()
    };
    registry
        .config()
        .set_settings(Some("event"), Some(&own))
        .unwrap();
    let effective = registry.config().settings_in_effect("event").unwrap();
    assert_eq!(effective.compatibility_group.as_deref(), Some("major"));
    assert_eq!(effective.compatibility_policy, Some(Policy::Strict));
    assert_eq!(registry.config().settings(Some("other")).unwrap(), None);
    registry.config().set_settings(Some("event"), None).unwrap();
    assert_eq!(registry.config().settings(Some("event")).unwrap(), None);
    assert!(registry
        .config()
        .set_settings(Some("Not A Name"), Some(&own))
        .is_err());
}

/// Lenient cases: (prior, candidate, mode, strict verdict, lenient verdict).
const LENIENT_CASES: &[(&str, &str, Compatibility, bool, bool)] = &[
    // An optional property added to an open model.
    (
        r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}"#,
        Compatibility::Backward,
        false,
        true,
    ),
    // A required property with a default added to an open model.
    (
        r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer", "default": 0}}, "required": ["b"]}"#,
        Compatibility::Backward,
        false,
        true,
    ),
    // A required property without a default stays breaking.
    (
        r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["b"]}"#,
        Compatibility::Backward,
        false,
        false,
    ),
    // The model closed: additionalProperties false added.
    (
        r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}"#,
        Compatibility::Backward,
        false,
        true,
    ),
    // A property removed from a closed model.
    (
        r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "additionalProperties": false}"#,
        r#"{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}"#,
        Compatibility::Backward,
        false,
        true,
    ),
    // A type narrowed is breaking under either policy.
    (
        r#"{"type": "object", "properties": {"a": {"type": "number"}}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "integer"}}}"#,
        Compatibility::Backward,
        false,
        false,
    ),
    // Compatible under strict stays compatible.
    (
        r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#,
        r#"{"type": "object", "properties": {"a": {"type": "string"}}, "description": "x"}"#,
        Compatibility::Full,
        true,
        true,
    ),
];

#[test]
fn the_lenient_policy_case_by_case() {
    for (i, (prior, candidate, mode, strict, lenient)) in LENIENT_CASES.iter().enumerate() {
        let prior = Schema::json(urn("urn:acme:schema:case:1"), *prior);
        let candidate = Schema::json(urn("urn:acme:schema:case:2"), *candidate);
        let report = compat::check(*mode, &candidate, std::slice::from_ref(&prior)).unwrap();
        assert_eq!(report.is_compatible(), *strict, "case {i} strict: {report}");
        let forgiving = report.clone().under(Policy::Lenient);
        assert_eq!(
            forgiving.is_compatible(),
            *lenient,
            "case {i} lenient: {forgiving}"
        );
        assert_eq!(forgiving.policy(), Policy::Lenient);
        // Every change is still listed; the forgiven ones say so.
        let forgiven = forgiving.versions()[0]
            .changes()
            .iter()
            .filter(|c| c.is_forgiven())
            .count();
        assert_eq!(forgiven > 0, *lenient && !*strict, "case {i}: {forgiving}");
        // The same through a registry whose settings say LENIENT.
        let registry = Registry::new(MemoryStore::new());
        let settings = Settings {
            compatibility_policy: Some(Policy::Lenient),
            ..Settings::default()
        };
        registry
            .config()
            .set_settings(Some("case"), Some(&settings))
            .unwrap();
        registry.publish(prior, *mode).unwrap();
        assert_eq!(
            registry.publish(candidate, *mode).is_ok(),
            *lenient,
            "case {i} at publish"
        );
    }
    assert_eq!("lenient".parse::<Policy>().unwrap(), Policy::Lenient);
    assert!("logical".parse::<Policy>().is_err());
}

#[cfg(feature = "build")]
mod bundle {
    use std::fs;

    use super::{EVENT_ID_INT, ID_STRING};
    use dataschema::build;

    fn check(manifest: &str, third: &str) -> Result<build::Checked, build::BundleError> {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("dataschema.toml"), manifest).unwrap();
        fs::write(dir.path().join("event.v1.json"), ID_STRING).unwrap();
        fs::write(dir.path().join("event.v2.json"), EVENT_ID_INT).unwrap();
        fs::write(dir.path().join("event.v3.json"), third).unwrap();
        build::check(dir.path())
    }

    const GROUPED: &str = r#"namespace = "acme"
compatibility = "backward"
compatibility_group = "major"

[metadata."event.v1"]
major = "1"

[metadata."event.v2"]
major = "2"

[metadata."event.v3"]
major = "GROUP"
"#;

    #[test]
    fn the_designs_example_at_build() {
        let third = EVENT_ID_INT.replace("\"event_id\"]", "\"event_id\"], \"title\": \"3\"");
        // v3 in group 2: checked against v2 alone, accepted.
        let checked = check(&GROUPED.replace("GROUP", "2"), &third).unwrap();
        assert_eq!(checked.sources.len(), 3);
        // v3 in group 1: checked against v1, refused.
        let err = check(&GROUPED.replace("GROUP", "1"), &third).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("event.v3.json"), "{text}");
        assert!(text.contains("breaks compatibility"), "{text}");
        // Without the group, v2 already breaks v1.
        let err = check("namespace = \"acme\"\n", &third).unwrap_err();
        assert!(err.to_string().contains("event.v2.json"), "{err}");
        // Metadata for a version the folder does not hold is a problem.
        let err = check(
            &format!(
                "{}\n[metadata.\"event.v9\"]\nmajor = \"1\"\n",
                GROUPED.replace("GROUP", "2")
            ),
            &third,
        )
        .unwrap_err();
        assert!(err.to_string().contains("event.v9"), "{err}");
    }

    #[test]
    fn the_manifest_sets_the_policy() {
        let dir = tempfile::tempdir().unwrap();
        let open = r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#;
        let added = r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}"#;
        fs::write(dir.path().join("note.v1.json"), open).unwrap();
        fs::write(dir.path().join("note.v2.json"), added).unwrap();
        let manifest = |policy: &str| {
            fs::write(
                dir.path().join("dataschema.toml"),
                format!("namespace = \"acme\"\n{policy}"),
            )
            .unwrap();
            build::check(dir.path())
        };
        let err = manifest("").unwrap_err();
        assert!(
            err.to_string()
                .contains("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"),
            "{err}"
        );
        manifest("compatibility_policy = \"lenient\"\n").unwrap();
        let err = manifest("compatibility_policy = \"loose\"\n").unwrap_err();
        assert!(err.to_string().contains("compatibility_policy"), "{err}");
    }
}
