//! Frames of each language from a lock's ids (offline): the bytes
//! Confluent's serializers write, validated by a guard; refusals with
//! their reasons and counters.

use crate::common::{self, read, urn};

use dataschema::{
    Compatibility, FrameReason, Framer, Guard, Language, MemoryStore, Outcome, Reference, Registry,
    Schema, Urn,
};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};

const ORDER_V1: &str = "urn:acme:schema:orders.created:1";
const SHIPPED: &str = "urn:acme:schema:orders.shipped:1";
const PAYMENT: &str = "urn:acme:schema:payments.made:1";

/// The samples, with ids as a lock's `[ids]` would record them.
fn locked() -> Registry {
    let samples = common::samples();
    let schemas: Vec<Schema> = samples
        .list()
        .unwrap()
        .iter()
        .map(|urn| samples.resolve(urn).unwrap())
        .collect();
    let ids = [
        (urn(ORDER_V1), 101),
        (urn(SHIPPED), 102),
        (urn(PAYMENT), 0x0102_0304),
    ];
    Registry::embed_with_ids(schemas, ids).unwrap()
}

fn assert_validated(guard: &Guard, frame: &[u8]) {
    match guard.validate_framed(frame) {
        Ok(Outcome::Validated) => {}
        other => panic!("{frame:?}: {other:?}"),
    }
}

#[test]
fn json_avro_and_protobuf_frames_carry_the_locked_id_and_validate() {
    let registry = locked();
    let framer = Framer::new(registry.clone());
    let guard = Guard::new(registry);

    let order = read("payloads/order_valid.json");
    let frame = framer.frame(&urn(ORDER_V1), &order).unwrap();
    assert_eq!(frame[..5], [0, 0, 0, 0, 101]);
    assert_eq!(frame[5..], order[..], "JSON: the payload follows the id");
    assert_validated(&guard, &frame);

    // examples/events.jsonl's evt-0017.
    let payment = read("payloads/payment_made_v1.avro");
    let frame = framer.frame(&urn(PAYMENT), &payment).unwrap();
    assert_eq!(frame[..5], [0, 1, 2, 3, 4], "the id big-endian");
    assert_eq!(frame[5..], payment[..], "Avro: the datum follows the id");
    assert_validated(&guard, &frame);

    // OrderShipped is the first message of its file: indexes [0], written
    // as the single byte 0, as Confluent's serializers write it.
    let shipped = b"\x0a\x05ord_1";
    let frame = framer.frame(&urn(SHIPPED), shipped).unwrap();
    assert_eq!(frame[..6], [0, 0, 0, 0, 102, 0]);
    assert_eq!(&frame[6..], shipped);
    assert_validated(&guard, &frame);
    // Naming the root is the same frame.
    let named = framer
        .frame_message(&urn(SHIPPED), "acme.orders.v1.OrderShipped", shipped)
        .unwrap();
    assert_eq!(named, frame);
    assert_eq!(framer.id_of(&urn(SHIPPED)).unwrap(), 102);
    // Parcel, the file's other message (a frame names the message its body
    // is, as Confluent's serializers frame any message of a file): indexes
    // [1], a count then the index, zigzag.
    let parcel = b"\x18\x05";
    let frame = framer
        .frame_message(&urn(SHIPPED), "acme.orders.v1.Parcel", parcel)
        .unwrap();
    assert_eq!(frame[..7], [0, 0, 0, 0, 102, 2, 2]);
    assert_eq!(&frame[7..], parcel);
    assert_validated(&guard, &frame);
    // Not an OrderShipped (field 3 is a message there): the root's frame
    // is refused.
    let err = framer.frame(&urn(SHIPPED), parcel).unwrap_err();
    assert_eq!(err.reason(), FrameReason::Invalid);
}

#[test]
fn what_consumers_refuse_is_not_framed_and_says_why() {
    let framer = Framer::new(locked());
    let err = framer
        .frame(&urn(ORDER_V1), &read("payloads/order_invalid.json"))
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::Invalid);
    let invalid = err.as_invalid().expect("the violations");
    assert_eq!(invalid.urn(), &urn(ORDER_V1));
    let paths: Vec<&str> = invalid.violations().iter().map(|v| v.path()).collect();
    assert!(paths.contains(&"/currency"), "{paths:?}");
    assert!(err.to_string().contains("/currency"), "{err}");

    let err = framer
        .frame(&urn(PAYMENT), &read("payloads/payment_truncated.avro"))
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::Invalid);
    // A protobuf body that does not decode (a length past the end).
    let err = framer.frame(&urn(SHIPPED), b"\x0a\x09ord").unwrap_err();
    assert_eq!(err.reason(), FrameReason::Invalid);
    // A message the schema does not hold.
    let err = framer
        .frame_message(&urn(SHIPPED), "acme.orders.v1.Carrier", b"")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NoMessage);
    assert!(
        err.to_string()
            .contains("no message acme.orders.v1.Carrier"),
        "{err}"
    );
    // One of another file of the set: its indexes would name a message of
    // the root's file.
    let err = framer
        .frame_message(&urn(SHIPPED), "google.protobuf.Timestamp", b"")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NoMessage);
    assert!(err.to_string().contains("own file"), "{err}");
    // Parcel's body is not a Parcel (weight_grams, a uint32, sent
    // length-delimited).
    let err = framer
        .frame_message(&urn(SHIPPED), "acme.orders.v1.Parcel", b"\x1a\x01\x00")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::Invalid);
    // JSON Schema has no message to name.
    let err = framer
        .frame_message(&urn(ORDER_V1), "Order", &read("payloads/order_valid.json"))
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NoMessage);
}

#[test]
fn no_id_and_not_found_are_errors_never_a_zero_id() {
    // The bundle without a lock's ids: held, but no id offline.
    let framer = Framer::new(common::samples());
    let err = framer
        .frame(&urn(ORDER_V1), &read("payloads/order_valid.json"))
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NoId);
    assert!(err.to_string().contains("no registry id"), "{err}");
    assert!(matches!(err.error(), Some(dataschema::Error::NoId { .. })));
    let err = framer
        .frame(&urn("urn:acme:schema:nobody:1"), b"{}")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NotFound);
    assert_eq!(err.urn(), &urn("urn:acme:schema:nobody:1"));
}

#[test]
fn a_schema_that_will_not_compile_is_unusable() {
    let bad = urn("urn:acme:schema:broken:1");
    // Embedding refuses it; a resolver of the user's may still hand it out.
    struct Broken;
    impl dataschema::Resolver for Broken {
        fn resolve(&self, urn: &Urn) -> Result<Schema, dataschema::Error> {
            Ok(Schema::json(urn.clone(), r#"{"type": 12}"#))
        }
        fn id_of(&self, _: &Urn) -> Result<u32, dataschema::Error> {
            Ok(9)
        }
    }
    let err = Framer::new(Broken).frame(&bad, b"{}").unwrap_err();
    assert_eq!(err.reason(), FrameReason::Unusable);
}

#[cfg(feature = "proto-text")]
/// `shop.proto` as Confluent's clients register it (no root), and its
/// import by reference, in a registry over a store (its own ids).
fn shop() -> (Registry, Urn, u32) {
    let text = |file: &str| String::from_utf8(read(&format!("proto/confluent/{file}"))).unwrap();
    let money = urn("urn:acme:schema:money:1");
    let shop = urn("urn:acme:schema:shop:1");
    let registry = Registry::new(MemoryStore::new());
    registry
        .publish(
            Schema::new(money.clone(), Language::Protobuf, text("money.proto"), None),
            Compatibility::None,
        )
        .unwrap();
    let id = registry
        .publish(
            Schema::new(shop.clone(), Language::Protobuf, text("shop.proto"), None)
                .with_references([Reference::new("acme/common/v1/money.proto", money)]),
            Compatibility::None,
        )
        .unwrap()
        .id;
    (registry, shop, id)
}

#[cfg(feature = "proto-text")]
#[test]
fn a_rootless_schema_frames_any_message_of_its_file_by_name() {
    let (registry, shop, id) = shop();
    let framer = Framer::new(registry.clone());
    let guard = Guard::new(registry);
    let id = id.to_be_bytes();
    for (message, body, indexes) in [
        (
            "acme.shop.v1.Order",
            &b"\x0a\x02o1\x12\x03\x0a\x01x"[..],
            &[0u8][..],
        ),
        ("acme.shop.v1.Refund", b"\x0a\x02o1\x10\x05", &[2, 2]),
        ("acme.shop.v1.Order.Line", b"\x0a\x01x\x10\x02", &[4, 0, 0]),
    ] {
        let frame = framer.frame_message(&shop, message, body).unwrap();
        assert_eq!(frame[1..5], id, "{message}");
        assert_eq!(&frame[5..5 + indexes.len()], indexes, "{message}");
        assert_eq!(&frame[5 + indexes.len()..], body, "{message}");
        assert_validated(&guard, &frame);
    }
    // Without a name: the file's first message, as a payload by URN is.
    let frame = framer.frame(&shop, b"\x0a\x02o1").unwrap();
    assert_eq!(frame[5], 0);
    // A body that is not the named message (an Order's `lines` cut
    // short) is refused.
    let err = framer
        .frame_message(&shop, "acme.shop.v1.Order", b"\x12\x01")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::Invalid);
    // A message of the imported file is not the schema's own.
    let err = framer
        .frame_message(&shop, "acme.common.v1.Money", b"")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NoMessage);
    let err = framer
        .frame_message(&shop, "acme.shop.v1.Nope", b"")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NoMessage);
}

#[test]
fn each_frame_and_each_refusal_is_counted() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let framer = Framer::new(locked());
        let order = read("payloads/order_valid.json");
        for _ in 0..3 {
            framer.frame(&urn(ORDER_V1), &order).unwrap();
        }
        framer.frame(&urn(ORDER_V1), b"{}").unwrap_err();
        framer
            .frame(&urn("urn:acme:schema:nobody:1"), b"{}")
            .unwrap_err();
        framer
            .frame(&urn("urn:acme:schema:nobody:2"), b"{}")
            .unwrap_err();
    });
    let mut seen = std::collections::BTreeMap::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let key = key.key();
        let labels: Vec<String> = key
            .labels()
            .map(|l| format!("{}={}", l.key(), l.value()))
            .collect();
        if let DebugValue::Counter(n) = value {
            seen.insert(format!("{}{{{}}}", key.name(), labels.join(",")), n);
        }
    }
    assert_eq!(seen["dataschema_framed_total{schema=orders.created}"], 3);
    assert_eq!(seen["dataschema_frame_errors_total{reason=invalid}"], 1);
    assert_eq!(seen["dataschema_frame_errors_total{reason=not_found}"], 2);
    assert_eq!(seen["dataschema_frame_errors_total{reason=no_id}"], 0);
    // A consumer's counters are not a producer's.
    for (key, n) in &seen {
        if key.starts_with("dataschema_validated_total")
            || key.starts_with("dataschema_invalid_total")
            || key.starts_with("dataschema_unvalidated_total")
        {
            assert_eq!(*n, 0, "{key}");
        }
    }
}
