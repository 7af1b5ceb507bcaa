//! `Guard::validate_framed`: Confluent's wire format (magic byte 0, a
//! 4-byte big-endian schema id, for protobuf the message indexes, then the
//! body) validated with the outcome table of `Guard::validate`.

use crate::common;

use dataschema::{
    Compatibility, Guard, MemoryStore, Outcome, Reason, Registry, Schema, ViolationKind, FRAME_URN,
};
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, Value};

const SHIPPED: &str = "urn:acme:schema:orders.shipped:1";

fn frame(id: u32, rest: &[u8]) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(rest);
    out
}

fn json_registry() -> (Registry, u32) {
    let registry = Registry::new(MemoryStore::new());
    let stored = registry
        .publish(
            Schema::json(
                common::urn("urn:acme:schema:greeting:1"),
                r#"{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}"#,
            ),
            Compatibility::None,
        )
        .unwrap();
    (registry, stored.id)
}

#[test]
fn a_json_frame_is_validated_against_the_schema_its_id_names() {
    let (registry, id) = json_registry();
    let guard = Guard::new(registry);
    assert!(matches!(
        guard.validate_framed(&frame(id, br#"{"name": "Ada"}"#)),
        Ok(Outcome::Validated)
    ));
    let invalid = guard
        .validate_framed(&frame(id, br#"{"name": 7}"#))
        .unwrap_err();
    assert_eq!(invalid.urn().as_str(), "urn:acme:schema:greeting:1");
    assert_eq!(invalid.violations()[0].path(), "/name");
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn a_broken_frame_is_invalid_and_names_what_is_wrong() {
    let (registry, id) = json_registry();
    let guard = Guard::new(registry);
    for (payload, needle) in [
        (Vec::new(), "at least 5 bytes"),
        (vec![0, 0, 0], "this payload has 3"),
        (
            [&[1u8][..], &frame(id, b"{}")[1..]].concat(),
            "magic byte is 0x01",
        ),
        (
            [&[b'{'][..], b"\"name\": 1}"].concat(),
            "magic byte is 0x7b",
        ),
    ] {
        let invalid = guard.validate_framed(&payload).unwrap_err();
        assert_eq!(invalid.urn().as_str(), FRAME_URN);
        let violation = &invalid.violations()[0];
        assert_eq!(violation.kind(), ViolationKind::Wire);
        assert!(
            violation.message().contains(needle),
            "{payload:?}: {}",
            violation.message()
        );
    }
    assert_eq!(guard.unvalidated(), 0, "a broken frame is not failed open");
}

#[test]
fn an_id_held_nowhere_fails_open_as_not_found_and_is_counted() {
    let (registry, id) = json_registry();
    let guard = Guard::new(registry);
    match guard.validate_framed(&frame(id + 1000, b"{}")) {
        Ok(Outcome::Unvalidated(unvalidated)) => {
            assert_eq!(unvalidated.reason(), Reason::NotFound);
            assert!(unvalidated.to_string().contains(&format!("{}", id + 1000)));
        }
        other => panic!("expected not_found, got {other:?}"),
    }
    assert_eq!(guard.unvalidated(), 1);
}

#[test]
fn an_embedded_registry_answers_no_ids_and_the_fallback_is_asked() {
    // The bundle's memory store numbers schemas in load order: those are no
    // registry's ids, and must not name schemas.
    let guard = Guard::new(common::samples());
    match guard.validate_framed(&frame(1, b"{}")) {
        Ok(Outcome::Unvalidated(unvalidated)) => assert_eq!(unvalidated.reason(), Reason::NotFound),
        other => panic!("expected not_found, got {other:?}"),
    }
    // A registry over a store behind it, as a fallback, answers its ids.
    let (registry, id) = json_registry();
    let guard = Guard::builder(common::samples()).fallback(registry).build();
    assert!(matches!(
        guard.validate_framed(&frame(id, br#"{"name": "Ada"}"#)),
        Ok(Outcome::Validated)
    ));
}

#[test]
fn embed_with_ids_answers_the_given_ids_and_refuses_contradictions() {
    use dataschema::Error;
    let schemas = || {
        vec![
            Schema::json(common::urn("urn:acme:schema:a:1"), r#"{"type": "string"}"#),
            Schema::json(common::urn("urn:acme:schema:b:1"), r#"{"type": "string"}"#),
            Schema::json(common::urn("urn:acme:schema:c:1"), r#"{"type": "integer"}"#),
        ]
    };
    let ids = |pairs: &[(&str, u32)]| -> Vec<(dataschema::Urn, u32)> {
        pairs
            .iter()
            .map(|(urn, id)| (common::urn(urn), *id))
            .collect()
    };
    let registry = Registry::embed_with_ids(
        schemas(),
        ids(&[("urn:acme:schema:a:1", 40), ("urn:acme:schema:c:1", 41)]),
    )
    .unwrap();
    assert_eq!(
        registry.id_of(&common::urn("urn:acme:schema:a:1")).unwrap(),
        40
    );
    assert!(matches!(
        registry.id_of(&common::urn("urn:acme:schema:b:1")),
        Err(Error::NoId { .. })
    ));
    let guard = Guard::new(registry);
    assert!(matches!(
        guard.validate_framed(&frame(41, b"7")),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate_framed(&frame(40, b"7")).is_err());
    match guard.validate_framed(&frame(1, b"7")) {
        Ok(Outcome::Unvalidated(unvalidated)) => assert_eq!(unvalidated.reason(), Reason::NotFound),
        other => panic!("the store's own numbers are no ids: {other:?}"),
    }
    // `embed` answers no id at all, not the store's load-order numbers.
    let plain = Registry::embed(schemas()).unwrap();
    assert!(matches!(
        plain.id_of(&common::urn("urn:acme:schema:a:1")),
        Err(Error::NoId { .. })
    ));
    assert!(matches!(
        plain.schema_by_id(1),
        Err(Error::IdNotFound { id: 1 })
    ));
    assert!(plain.urns_of_id(1).unwrap().is_empty());

    for (given, needle) in [
        (
            ids(&[("urn:acme:schema:a:1", 40), ("urn:acme:schema:b:1", 42)]),
            "hold the same content",
        ),
        (
            ids(&[("urn:acme:schema:a:1", 40), ("urn:acme:schema:c:1", 40)]),
            "different contents but the same id 40",
        ),
        (
            ids(&[("urn:acme:schema:a:1", 40), ("urn:acme:schema:a:1", 43)]),
            "id",
        ),
    ] {
        match Registry::embed_with_ids(schemas(), given) {
            Err(err @ Error::IdConflict { .. }) => {
                assert!(err.to_string().contains(needle), "{needle}: {err}")
            }
            other => panic!("{needle}: {other:?}"),
        }
    }
    assert!(matches!(
        Registry::embed_with_ids(schemas(), ids(&[("urn:acme:schema:zz:1", 9)])),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn one_content_under_two_urns_has_one_id() {
    let registry = Registry::new(MemoryStore::new());
    let a = registry
        .publish(
            Schema::json(common::urn("urn:acme:schema:a:1"), "{}"),
            Compatibility::None,
        )
        .unwrap();
    let b = registry
        .publish(
            Schema::json(common::urn("urn:acme:schema:b:1"), "{}"),
            Compatibility::None,
        )
        .unwrap();
    assert_eq!(a.id, b.id);
    assert_eq!(
        registry.id_of(&common::urn("urn:acme:schema:b:1")).unwrap(),
        a.id
    );
    assert_eq!(registry.urns_of_id(a.id).unwrap().len(), 2);
    assert_eq!(
        registry.schema_by_id(a.id).unwrap().urn().as_str(),
        "urn:acme:schema:a:1"
    );
}

/// The protobuf `OrderShipped` sample registered in a store-backed
/// registry, its id, its root's top-level index, and a valid body.
fn protobuf_setup() -> (Guard, u32, u64, Vec<u8>) {
    let samples = common::samples();
    let schema = samples.resolve(&common::urn(SHIPPED)).unwrap();
    let pool = DescriptorPool::decode(schema.bytes()).unwrap();
    let root = pool
        .get_message_by_name("acme.orders.v1.OrderShipped")
        .unwrap();
    let index = root
        .parent_file()
        .messages()
        .position(|m| m.full_name() == root.full_name())
        .unwrap() as u64;
    let mut shipped = DynamicMessage::new(root);
    shipped.set_field_by_name("order_id", Value::String("ord_1".into()));
    let body = shipped.encode_to_vec();
    let registry = Registry::new(MemoryStore::new());
    let id = registry.publish(schema, Compatibility::None).unwrap().id;
    (Guard::new(registry), id, index, body)
}

fn zigzag(value: i64) -> u8 {
    let encoded = ((value << 1) ^ (value >> 63)) as u64;
    assert!(encoded < 0x80, "one-byte varints in these tests");
    encoded as u8
}

#[test]
fn protobuf_frames_carry_message_indexes() {
    let (guard, id, index, body) = protobuf_setup();
    let indexes: Vec<u8> = if index == 0 {
        vec![0] // the short form of [0]
    } else {
        vec![zigzag(1), zigzag(index as i64)]
    };
    let valid = frame(id, &[&indexes[..], &body[..]].concat());
    assert!(matches!(
        guard.validate_framed(&valid),
        Ok(Outcome::Validated)
    ));
    // The long form of the same list.
    let long = frame(
        id,
        &[&[zigzag(1), zigzag(index as i64)][..], &body[..]].concat(),
    );
    assert!(matches!(
        guard.validate_framed(&long),
        Ok(Outcome::Validated)
    ));

    // An index that names no message, or a broken list.
    for (rest, with_body, needle) in [
        (
            vec![zigzag(1), zigzag(50)],
            true,
            "name no message of the schema",
        ),
        (
            vec![zigzag(2), zigzag(index as i64), zigzag(0)],
            true,
            "no message",
        ),
        (vec![zigzag(-1)], true, "index count is -1"),
        // The frame ends inside the list.
        (vec![zigzag(2), zigzag(index as i64)], false, "truncated"),
        (vec![0x80], false, "truncated"),
        (vec![zigzag(1), zigzag(-3)], true, "not negative"),
    ] {
        let body: &[u8] = if with_body { &body } else { &[] };
        let payload = frame(id, &[&rest[..], body].concat());
        let invalid = guard.validate_framed(&payload).unwrap_err();
        let violation = &invalid.violations()[0];
        assert_eq!(violation.kind(), ViolationKind::Wire);
        assert!(
            violation.message().contains(needle),
            "{rest:?}: {}",
            violation.message()
        );
    }
    // A count past Python's bound of 100,000 (a multi-byte varint).
    let mut huge = Vec::new();
    let mut count = (200_000u64) << 1;
    while count >= 0x80 {
        huge.push((count as u8) | 0x80);
        count >>= 7;
    }
    huge.push(count as u8);
    let invalid = guard.validate_framed(&frame(id, &huge)).unwrap_err();
    assert!(invalid.violations()[0].message().contains("200000"));
    assert_eq!(guard.unvalidated(), 0);
}

/// Parcel, the sample's other message, as a consumer reads it in a frame
/// whose indexes name it: `weight_grams = 5` is a Parcel; as the root
/// (`OrderShipped`, where field 3 is a message) the same bytes are not.
#[test]
fn a_frame_names_the_message_its_body_is() {
    let (guard, id, index, _) = protobuf_setup();
    assert_eq!(index, 0, "OrderShipped is the file's first message");
    let parcel = [zigzag(1), zigzag(1)];
    let weight = [0x18, 0x05];
    assert!(matches!(
        guard.validate_framed(&frame(id, &[&parcel[..], &weight[..]].concat())),
        Ok(Outcome::Validated)
    ));
    // The same bytes framed as the root, or addressed by URN (the root is
    // the default), are not an OrderShipped.
    let as_root = guard
        .validate_framed(&frame(id, &[&[0u8][..], &weight[..]].concat()))
        .expect_err("field 3 of OrderShipped is a message");
    assert_eq!(as_root.urn().as_str(), SHIPPED);
    assert!(matches!(
        guard.validate(SHIPPED, &weight),
        Err(invalid) if invalid.urn().as_str() == SHIPPED
    ));
    // Not a Parcel: field 3 (weight_grams, a uint32) as a length-delimited
    // field.
    let invalid = guard
        .validate_framed(&frame(id, &[&parcel[..], &[0x1a, 0x01, 0x00][..]].concat()))
        .expect_err("weight_grams is a varint");
    assert_eq!(invalid.urn().as_str(), SHIPPED);
    let violation = &invalid.violations()[0];
    assert!(
        !violation.message().contains("index"),
        "the body, not the frame: {}",
        violation.message()
    );
    // Indexes naming no message: refused, saying what the file holds.
    let nowhere = guard
        .validate_framed(&frame(id, &[zigzag(1), zigzag(2), 0x18, 0x05]))
        .expect_err("the file has two messages");
    let violation = &nowhere.violations()[0];
    assert_eq!(violation.kind(), ViolationKind::Wire);
    assert!(
        violation
            .message()
            .contains("index 0 is 2, and there are 2 top-level messages"),
        "{}",
        violation.message()
    );
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn hostile_frames_never_panic() {
    let (guard, id, _, body) = protobuf_setup();
    let base = frame(id, &[&[0u8][..], &body[..]].concat());
    for cut in 0..base.len() {
        let _ = guard.validate_framed(&base[..cut]);
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..5_000 {
        let mut payload = base.clone();
        for _ in 0..3 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = 5 + (state as usize) % (payload.len() - 5);
            payload[at] = (state >> 32) as u8;
        }
        let _ = guard.validate_framed(&payload);
    }
}

/// A fallback that answers each id with the schema the test gives it.
struct Claims(Vec<(u32, Schema)>);

impl dataschema::Resolver for Claims {
    fn resolve(&self, urn: &dataschema::Urn) -> Result<Schema, dataschema::Error> {
        self.0
            .iter()
            .find(|(_, schema)| schema.urn() == urn)
            .map(|(_, schema)| schema.clone())
            .ok_or_else(|| dataschema::Error::NotFound { urn: urn.clone() })
    }

    fn resolve_id(&self, id: u32) -> Result<Schema, dataschema::Error> {
        self.0
            .iter()
            .find(|(held, _)| *held == id)
            .map(|(_, schema)| schema.clone())
            .ok_or(dataschema::Error::IdNotFound { id })
    }
}

/// The primary registry is the truth (a bundle: its folder and lock): a
/// fallback's answer for an id that names a URN the primary holds with
/// other bytes, or records under another id, fails open as `unreachable`,
/// counted, and is never `Validated`. What the primary does not speak of
/// still comes from the fallback.
#[test]
fn a_fallback_that_contradicts_the_primary_is_refused() {
    let greeting = common::urn("urn:acme:schema:greeting:1");
    let tally = common::urn("urn:acme:schema:tally:1");
    let greeting_bytes = r#"{"type": "object", "required": ["name"]}"#;
    let tally_bytes = r#"{"type": "object", "required": ["count"]}"#;
    // The lock records greeting under id 1, and tally with no id.
    let primary = Registry::embed_with_ids(
        [
            Schema::json(greeting.clone(), greeting_bytes),
            Schema::json(tally.clone(), tally_bytes),
        ],
        [(greeting.clone(), 1)],
    )
    .unwrap();
    let fallback = Claims(vec![
        // Greeting, its own bytes, under an id the lock does not give it.
        (7, Schema::json(greeting.clone(), greeting_bytes)),
        // Tally with other bytes.
        (8, Schema::json(tally.clone(), r#"{"type": "object"}"#)),
        // Tally with its own bytes: an id the lock lacks, not contradicted.
        (9, Schema::json(tally.clone(), tally_bytes)),
        // A URN the primary does not hold.
        (
            10,
            Schema::json(
                common::urn("urn:acme:schema:other:1"),
                r#"{"required": ["n"]}"#,
            ),
        ),
    ]);
    let guard = Guard::builder(primary).fallback(fallback).build();
    for (id, body) in [
        (7, &br#"{"name": "Ada"}"#[..]),
        (8, br#"{"a": 1}"#),
        (8, br#"{"count": 1}"#),
    ] {
        match guard.validate_framed(&frame(id, body)) {
            Ok(Outcome::Unvalidated(unvalidated)) => {
                assert_eq!(unvalidated.reason(), Reason::Unreachable, "{unvalidated}");
                assert!(
                    unvalidated.to_string().contains("the primary"),
                    "{unvalidated}"
                );
            }
            other => panic!("id {id}: expected unreachable, got {other:?}"),
        }
    }
    assert_eq!(guard.unvalidated(), 3);
    assert!(matches!(
        guard.validate_framed(&frame(1, br#"{"name": "Ada"}"#)),
        Ok(Outcome::Validated)
    ));
    assert!(matches!(
        guard.validate_framed(&frame(9, br#"{"count": 1}"#)),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate_framed(&frame(9, br#"{}"#)).is_err());
    assert!(matches!(
        guard.validate_framed(&frame(10, br#"{"n": 1}"#)),
        Ok(Outcome::Validated)
    ));
    assert_eq!(guard.unvalidated(), 3);
}

/// A primary that keeps what it resolved, over a registry: a wrapper
/// forwarding the registry's ids, as a user's caching resolver would.
struct Caching {
    registry: Registry,
    seen: std::sync::Mutex<std::collections::HashMap<dataschema::Urn, Schema>>,
}

impl dataschema::Resolver for Caching {
    fn resolve(&self, urn: &dataschema::Urn) -> Result<Schema, dataschema::Error> {
        let mut seen = self.seen.lock().unwrap();
        if let Some(schema) = seen.get(urn) {
            return Ok(schema.clone());
        }
        let schema = self.registry.resolve(urn)?;
        seen.insert(urn.clone(), schema.clone());
        Ok(schema)
    }

    fn resolve_id(&self, id: u32) -> Result<Schema, dataschema::Error> {
        dataschema::Resolver::resolve_id(&self.registry, id)
    }

    fn id_of(&self, urn: &dataschema::Urn) -> Result<u32, dataschema::Error> {
        dataschema::Resolver::id_of(&self.registry, urn)
    }
}

/// The lock's id checks hold whatever wraps the primary registry: an
/// `Arc`, a caching resolver. A fallback answering id 7 for a URN the lock
/// records under id 1 is refused through each, as through the registry.
#[test]
fn a_wrapped_primary_still_pins_the_fallbacks_ids() {
    let greeting = common::urn("urn:acme:schema:greeting:1");
    let bytes = r#"{"type": "object", "required": ["name"]}"#;
    let registry = || {
        Registry::embed_with_ids(
            [Schema::json(greeting.clone(), bytes)],
            [(greeting.clone(), 1)],
        )
        .unwrap()
    };
    let fallback = || Claims(vec![(7, Schema::json(greeting.clone(), bytes))]);
    let guards = [
        (
            "registry",
            Guard::builder(registry()).fallback(fallback()).build(),
        ),
        (
            "Arc<Registry>",
            Guard::builder(std::sync::Arc::new(registry()))
                .fallback(fallback())
                .build(),
        ),
        (
            "caching resolver",
            Guard::builder(Caching {
                registry: registry(),
                seen: Default::default(),
            })
            .fallback(fallback())
            .build(),
        ),
    ];
    for (primary, guard) in guards {
        match guard.validate_framed(&frame(7, br#"{"name": "Ada"}"#)) {
            Ok(Outcome::Unvalidated(unvalidated)) => {
                assert_eq!(unvalidated.reason(), Reason::Unreachable, "{primary}");
                assert!(
                    unvalidated
                        .to_string()
                        .contains("the primary records it under id 1"),
                    "{primary}: {unvalidated}"
                );
            }
            other => panic!("{primary}: expected unreachable, got {other:?}"),
        }
        assert!(
            matches!(
                guard.validate_framed(&frame(1, br#"{"name": "Ada"}"#)),
                Ok(Outcome::Validated)
            ),
            "{primary}"
        );
    }
}
