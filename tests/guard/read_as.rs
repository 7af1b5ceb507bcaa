//! `Guard::read_as` and `read_framed_as`: the writer's payload validated
//! first (fails closed), then read as the reader's version; a reader or a
//! pair that cannot be used fails open, counted as `unresolvable`, the
//! payload handed back as written; plans cached per pair.

use dataschema::{Compatibility, Guard, MemoryStore, Outcome, Reason, Registry, Schema, Urn};
use serde_json::{json, Value};

fn urn(text: &str) -> Urn {
    text.parse().unwrap()
}

fn registry() -> (Registry, Vec<u32>) {
    let registry = Registry::new(MemoryStore::new());
    let v1 = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "fullName": {"type": "string"}}, "required": ["id"]});
    let v2 = json!({"type": "object", "properties": {"id": {"type": "number"},
        "name": {"type": "string", "aliases": ["fullName"]},
        "currency": {"type": "string", "default": "EUR"}}, "required": ["id", "currency"]});
    let other = json!({"type": "object", "properties": {"id": {"type": "string"}}});
    let mut ids = Vec::new();
    for (text, schema) in [
        ("urn:acme:schema:order:1", v1),
        ("urn:acme:schema:order:2", v2),
        ("urn:acme:schema:order:3", other),
    ] {
        let published = registry
            .publish(
                Schema::json(urn(text), serde_json::to_vec(&schema).unwrap()),
                Compatibility::None,
            )
            .unwrap();
        ids.push(published.id);
    }
    (registry, ids)
}

#[test]
fn a_payload_is_read_as_the_readers_version() {
    let (registry, _) = registry();
    let guard = Guard::new(registry);
    let reader = urn("urn:acme:schema:order:2");
    let read = guard
        .read_as(
            "urn:acme:schema:order:1",
            br#"{"id": 7, "fullName": "Ada"}"#,
            &reader,
        )
        .unwrap();
    assert!(read.outcome().is_validated());
    assert!(read.crossed());
    let value: Value = serde_json::from_slice(read.bytes()).unwrap();
    assert_eq!(value, json!({"id": 7, "name": "Ada", "currency": "EUR"}));
    // Planned once for the pair.
    guard
        .read_as("urn:acme:schema:order:1", br#"{"id": 8}"#, &reader)
        .unwrap();
    assert_eq!(guard.cached_plans(), 1);
    // The reader's own version: the payload itself, not copied.
    let payload = br#"{"id": 1.5, "currency": "USD"}"#;
    let read = guard
        .read_as("urn:acme:schema:order:2", payload, &reader)
        .unwrap();
    assert!(!read.crossed());
    assert_eq!(read.bytes().as_ptr(), payload.as_ptr());
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn the_writers_payload_is_validated_first_and_fails_closed() {
    let (registry, _) = registry();
    let guard = Guard::new(registry);
    let err = guard
        .read_as(
            "urn:acme:schema:order:1",
            br#"{"id": "seven"}"#,
            &urn("urn:acme:schema:order:2"),
        )
        .unwrap_err();
    assert_eq!(err.urn(), &urn("urn:acme:schema:order:1"));
}

#[test]
fn a_reader_not_held_or_an_unresolvable_pair_fails_open_counted() {
    let (registry, _) = registry();
    let guard = Guard::new(registry);
    let payload = br#"{"id": 7}"#;
    for reader in ["urn:acme:schema:order:9", "urn:acme:schema:order:3"] {
        let read = guard
            .read_as("urn:acme:schema:order:1", payload, &urn(reader))
            .unwrap();
        match read.outcome() {
            Outcome::Unvalidated(u) => assert_eq!(u.reason(), Reason::Unresolvable, "{u}"),
            other => panic!("{reader}: {other:?}"),
        }
        assert_eq!(read.bytes(), payload);
        assert!(!read.crossed());
    }
    assert_eq!(guard.unvalidated(), 2);
    // A message claiming no schema is handed back, not counted.
    let read = guard
        .read_as("", payload, &urn("urn:acme:schema:order:2"))
        .unwrap();
    assert!(matches!(read.outcome(), Outcome::NoSchema));
    assert_eq!(guard.unvalidated(), 2);
}

#[test]
fn a_frame_is_read_as_the_readers_version() {
    let (registry, ids) = registry();
    let guard = Guard::new(registry);
    let mut frame = vec![0];
    frame.extend_from_slice(&ids[0].to_be_bytes());
    frame.extend_from_slice(br#"{"id": 3, "fullName": "Bo"}"#);
    let read = guard
        .read_framed_as(&frame, &urn("urn:acme:schema:order:2"))
        .unwrap();
    assert!(read.crossed());
    let value: Value = serde_json::from_slice(&read.into_bytes()).unwrap();
    assert_eq!(value, json!({"id": 3, "name": "Bo", "currency": "EUR"}));
    // A pair that cannot be read across fails open, counted: the frame
    // handed back whole, as written (not its body), like every other
    // frame let through.
    let before = guard.unvalidated();
    let read = guard
        .read_framed_as(&frame, &urn("urn:acme:schema:order:3"))
        .unwrap();
    match read.outcome() {
        Outcome::Unvalidated(u) => assert_eq!(u.reason(), Reason::Unresolvable, "{u}"),
        other => panic!("{other:?}"),
    }
    assert!(!read.crossed());
    assert_eq!(read.bytes(), &frame[..]);
    assert_eq!(guard.unvalidated(), before + 1);
    // A broken frame fails closed.
    assert!(guard
        .read_framed_as(&[1, 0, 0, 0, 1], &urn("urn:acme:schema:order:2"))
        .is_err());
}

/// Aliases given outside the reader's schema (a manifest's, here through
/// `Registry::with_aliases`): the guard's plans honour them, through a
/// fallback's as well as the primary's.
#[test]
fn aliases_given_outside_the_schema_are_honoured() {
    use dataschema::resolve::Aliases;

    let (v1, v3) = (
        urn("urn:acme:schema:person:1"),
        urn("urn:acme:schema:person:3"),
    );
    let registry = Registry::embed([
        Schema::json(
            v1.clone(),
            r#"{"type":"object","properties":{"surname":{"type":"string"}},"required":["surname"]}"#,
        ),
        Schema::json(
            v3.clone(),
            r#"{"type":"object","properties":{"family_name":{"type":"string"}},"required":["family_name"]}"#,
        ),
    ])
    .unwrap();
    let payload = br#"{"surname":"Lovelace"}"#;
    // Without them, v3 requires a field v1 lacks: fails open, as written.
    let plain = Guard::new(registry.clone());
    let read = plain.read_as(v1.as_str(), payload, &v3).unwrap();
    assert!(
        matches!(read.outcome(), Outcome::Unvalidated(u) if u.reason() == Reason::Unresolvable)
    );
    assert_eq!(read.bytes(), payload);
    let aliased = registry
        .with_aliases([(
            v3.clone(),
            Aliases::new().with("/family_name", vec!["surname".into()]),
        )])
        .unwrap();
    for guard in [
        Guard::new(aliased.clone()),
        // The fallback holds the reader: its aliases are asked.
        Guard::builder(Registry::embed(Vec::new()).unwrap())
            .fallback(aliased.clone())
            .build(),
    ] {
        let read = guard.read_as(v1.as_str(), payload, &v3).unwrap();
        assert!(read.outcome().is_validated(), "{read:?}");
        assert_eq!(read.bytes(), br#"{"family_name":"Lovelace"}"#);
    }
    // A URN the registry does not hold is refused.
    let absent = urn("urn:acme:schema:person:9");
    assert!(matches!(
        registry.with_aliases([(absent, Aliases::new())]),
        Err(dataschema::Error::NotFound { .. })
    ));
}
