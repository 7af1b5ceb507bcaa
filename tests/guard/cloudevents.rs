//! `Guard::validate_event` over `cloudevents-sdk` events.
#![cfg(all(feature = "cloudevents", feature = "json", feature = "protobuf"))]

use crate::common;

use dataschema::{Guard, Outcome, Reason};
use serde_json::json;

fn event(value: serde_json::Value) -> cloudevents::Event {
    let mut base =
        json!({"specversion": "1.0", "id": "e1", "source": "/test", "type": "com.acme.test"});
    base.as_object_mut()
        .unwrap()
        .extend(value.as_object().unwrap().clone());
    serde_json::from_value(base).unwrap()
}

#[test]
fn events_are_validated_by_their_dataschema_attribute() {
    let guard = Guard::new(common::samples());
    let order: serde_json::Value =
        serde_json::from_slice(&common::read("payloads/order_valid.json")).unwrap();
    let v1 = "urn:acme:schema:orders.created:1";

    let ok = event(json!({"dataschema": v1, "datacontenttype": "application/json", "data": order}));
    assert!(guard.validate_event(&ok).unwrap().is_validated());

    let bad = event(
        json!({"dataschema": v1, "datacontenttype": "application/json", "data": {"order_id": 5}}),
    );
    let invalid = guard.validate_event(&bad).unwrap_err();
    assert_eq!(invalid.urn().to_string(), v1);

    // Binary data (data_base64) is checked as bytes: here a protobuf payload
    // whose string field is not UTF-8.
    let proto =
        event(json!({"dataschema": "urn:acme:schema:orders.shipped:1", "data_base64": "CgL//g=="}));
    assert!(guard.validate_event(&proto).is_err());
    let empty_proto = event(json!({"dataschema": "urn:acme:schema:orders.shipped:1"}));
    assert!(
        guard.validate_event(&empty_proto).unwrap().is_validated(),
        "no data: an empty payload"
    );

    let none = event(json!({"data": {"anything": true}}));
    assert!(matches!(guard.validate_event(&none), Ok(Outcome::NoSchema)));

    let unknown = event(json!({"dataschema": "urn:acme:schema:nope:1", "data": {}}));
    match guard.validate_event(&unknown) {
        Ok(Outcome::Unvalidated(u)) => assert_eq!(u.reason(), Reason::NotFound),
        other => panic!("{other:?}"),
    }
    let not_urn = event(json!({"dataschema": "https://acme.example/s.json", "data": {}}));
    match guard.validate_event(&not_urn) {
        Ok(Outcome::Unvalidated(u)) => assert_eq!(u.reason(), Reason::NotAUrn),
        other => panic!("{other:?}"),
    }
}

/// Avro data (`application/avro`) travels as `data_base64`: the datum's
/// bytes are checked against the Avro schema; JSON `data` under an Avro
/// schema is refused, saying why (Avro's JSON encoding is not read).
#[cfg(feature = "avro")]
#[test]
fn avro_events_are_validated_from_data_base64() {
    use cloudevents::{EventBuilder, EventBuilderV10};
    let guard = Guard::new(common::samples());
    let urn = "urn:acme:schema:payments.made:1";
    let binary = |file: &str| {
        EventBuilderV10::new()
            .id("p1")
            .source("/test")
            .ty("com.acme.payments.made")
            .data_with_schema("application/avro", urn, common::read(file))
            .build()
            .unwrap()
    };
    // Through its JSON form, as the consumer reads it.
    let ok = binary("payloads/payment_valid.avro");
    let text = serde_json::to_string(&ok).unwrap();
    assert!(text.contains("\"data_base64\""), "{text}");
    let read: cloudevents::Event = serde_json::from_str(&text).unwrap();
    assert!(guard.validate_event(&read).unwrap().is_validated());
    assert!(guard.validate_event(&ok).unwrap().is_validated());

    let bad = guard
        .validate_event(&binary("payloads/payment_bad_currency.avro"))
        .unwrap_err();
    assert_eq!(bad.urn().to_string(), urn);
    let violation = &bad.violations()[0];
    assert_eq!(violation.path(), "/currency");
    assert!(violation.message().contains("enum index 3"), "{violation}");

    let cut = guard
        .validate_event(&binary("payloads/payment_truncated.avro"))
        .unwrap_err();
    assert_eq!(cut.violations()[0].path(), "/paid_at");

    let json = event(
        json!({"dataschema": urn, "datacontenttype": "application/json", "data": {"payment_id": "x"}}),
    );
    let refused = guard.validate_event(&json).unwrap_err();
    assert!(
        refused.violations()[0].message().contains("binary datum"),
        "{}",
        refused.violations()[0]
    );
}
