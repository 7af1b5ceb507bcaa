//! The guard's outcome table for Avro: a raw datum (`Guard::validate`), a
//! Confluent frame (`Guard::validate_framed`), a CloudEvent whose data is
//! Avro (`Guard::validate_event`), an unusable schema, and no allocation
//! on the hot path.

use crate::common;
use crate::counting_alloc::allocations_during;

use dataschema::{
    Compatibility, Guard, MemoryStore, Outcome, Reason, Registry, Schema, ViolationKind,
};

const ORDER: &str = "urn:acme:schema:order:1";

fn order_schema() -> Schema {
    Schema::avro(common::urn(ORDER), common::read("avro/order.avsc"))
}

fn zigzag(value: i64, out: &mut Vec<u8>) {
    let mut n = ((value << 1) ^ (value >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn string(text: &str, out: &mut Vec<u8>) {
    zigzag(text.len() as i64, out);
    out.extend_from_slice(text.as_bytes());
}

/// An order with `items` items, the last one's price `last_price` cents.
fn order(items: usize, last_price: i64) -> Vec<u8> {
    let mut price = Vec::new();
    zigzag(last_price, &mut price);
    order_with(items, &price)
}

/// An order whose last item's price is written as `price`.
fn order_with(items: usize, price: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    string("o-1", &mut out);
    zigzag(items as i64, &mut out);
    for i in 0..items {
        string(&format!("sku-{i}"), &mut out);
        zigzag(1, &mut out); // quantity
        if i + 1 == items {
            out.extend_from_slice(price);
        } else {
            zigzag(100, &mut out);
        }
    }
    if items > 0 {
        zigzag(0, &mut out);
    }
    zigzag(0, &mut out); // note: null
    out
}

#[test]
fn a_raw_datum_is_validated_or_refused_with_its_path() {
    let guard = Guard::new(Registry::embed([order_schema()]).unwrap());
    assert!(matches!(
        guard.validate(ORDER, &order(4, 250)),
        Ok(Outcome::Validated)
    ));
    // A varint longer than 10 bytes in the fourth item's price.
    let broken = order_with(4, &[0xff; 11]);
    let invalid = guard.validate(ORDER, &broken).unwrap_err();
    assert_eq!(invalid.urn().as_str(), ORDER);
    assert_eq!(invalid.violations()[0].path(), "/items/3/price");
    assert_eq!(invalid.violations()[0].kind(), ViolationKind::Wire);
    // A negative price is refused by no rule of Avro's: valid.
    assert!(guard.validate(ORDER, &order(1, -5)).is_ok());
    // Bytes after the datum.
    let mut trailing = order(1, 5);
    trailing.push(0);
    assert!(guard.validate(ORDER, &trailing).is_err());
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn validating_a_datum_allocates_nothing() {
    let guard = Guard::new(Registry::embed([order_schema()]).unwrap());
    let payload = order(20, 999);
    assert!(guard.validate(ORDER, &payload).is_ok());
    let count = allocations_during(|| {
        for _ in 0..100 {
            assert!(guard.validate(ORDER, &payload).is_ok());
        }
    });
    assert_eq!(count, 0);
}

#[test]
fn a_framed_datum_is_validated_against_the_schema_its_id_names() {
    let registry = Registry::new(MemoryStore::new());
    let stored = registry
        .publish(order_schema(), Compatibility::None)
        .unwrap();
    let guard = Guard::new(registry);
    let frame = |body: &[u8]| {
        let mut out = vec![0];
        out.extend_from_slice(&stored.id.to_be_bytes());
        out.extend_from_slice(body);
        out
    };
    assert!(matches!(
        guard.validate_framed(&frame(&order(2, 1))),
        Ok(Outcome::Validated)
    ));
    let invalid = guard
        .validate_framed(&frame(&order(2, 1)[..5]))
        .unwrap_err();
    assert_eq!(invalid.urn().as_str(), ORDER);
    assert!(
        invalid.violations()[0].path().starts_with("/items"),
        "{invalid}"
    );
    // An id held nowhere fails open.
    let mut unknown = frame(&order(1, 1));
    unknown[1..5].copy_from_slice(&9999u32.to_be_bytes());
    match guard.validate_framed(&unknown) {
        Ok(Outcome::Unvalidated(why)) => assert_eq!(why.reason(), Reason::NotFound),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unusable_avro_schema_is_refused_with_its_place() {
    let urn = "urn:acme:schema:broken:1";
    // Checked at embed: refused with the place and the rule.
    let broken = Schema::avro(
        common::urn(urn),
        r#"{"type":"record","name":"R","fields":[{"name":"a"}]}"#,
    );
    let err = Registry::embed([broken.clone()]).unwrap_err();
    assert!(
        dataschema::Chain::of(&err)
            .to_string()
            .contains("/fields/0"),
        "{err}"
    );
}

#[cfg(feature = "cloudevents")]
#[test]
fn a_cloudevent_with_avro_data_is_validated() {
    use serde_json::json;
    let guard = Guard::new(Registry::embed([order_schema()]).unwrap());
    fn base64(data: &[u8]) -> String {
        const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in data.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }
    let event = |data: &[u8]| -> cloudevents::Event {
        serde_json::from_value(json!({
            "specversion": "1.0", "id": "e1", "source": "/test", "type": "com.acme.order",
            "datacontenttype": "application/avro",
            "dataschema": ORDER,
            "data_base64": base64(data),
        }))
        .unwrap()
    };
    assert!(matches!(
        guard.validate_event(&event(&order(3, 7))),
        Ok(Outcome::Validated)
    ));
    let invalid = guard.validate_event(&event(&order(3, 7)[..6])).unwrap_err();
    assert_eq!(invalid.urn().as_str(), ORDER);
}
