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
    // A broken frame fails closed.
    assert!(guard
        .read_framed_as(&[1, 0, 0, 0, 1], &urn("urn:acme:schema:order:2"))
        .is_err());
}
