//! The guard's validated paths allocate nothing per message: a
//! counting global allocator watches `Guard::validate` on valid payloads
//! (URN parse, cache lookup, scan, counter), once the URN is compiled.

use crate::common;

use crate::counting_alloc;

use counting_alloc::allocations_during;
use dataschema::{Guard, Outcome};
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, Value};

const SHIPPED: &str = "urn:acme:schema:orders.shipped:1";

#[test]
fn validating_a_valid_protobuf_payload_allocates_nothing() {
    let registry = common::samples();
    let schema = registry.resolve(&common::urn(SHIPPED)).unwrap();
    let pool = DescriptorPool::decode(schema.bytes()).unwrap();
    let message = |name: &str| DynamicMessage::new(pool.get_message_by_name(name).unwrap());
    let mut address = message("acme.common.v1.Address");
    address.set_field_by_name("city", Value::String("Utrecht".into()));
    let mut parcel = message("acme.orders.v1.Parcel");
    parcel.set_field_by_name("skus", Value::List(vec![Value::String("SKU-1".into()); 3]));
    let mut shipped = message("acme.orders.v1.OrderShipped");
    shipped.set_field_by_name("order_id", Value::String("ord_a1b2c3".into()));
    shipped.set_field_by_name("destination", Value::Message(address));
    shipped.set_field_by_name("parcels", Value::List(vec![Value::Message(parcel); 4]));
    let payload = shipped.encode_to_vec();

    let guard = Guard::new(registry);
    // The first use compiles and caches: that allocates, once.
    assert!(guard.validate(SHIPPED, &payload).unwrap().is_validated());

    let mut validated = 0;
    let allocations = allocations_during(|| {
        for _ in 0..1_000 {
            if let Ok(Outcome::Validated) = guard.validate(SHIPPED, &payload) {
                validated += 1;
            }
        }
    });
    assert_eq!(validated, 1_000);
    assert_eq!(allocations, 0, "allocations over 1,000 validated messages");
}

#[cfg(feature = "json")]
const ORDER: &str = "urn:acme:schema:orders.created:1";

/// `validate_json` on a value the caller parsed: the nesting check walks
/// the value without allocating, and `is_valid` collects nothing.
#[cfg(feature = "json")]
#[test]
fn validating_a_valid_json_value_allocates_nothing() {
    let payload = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/order_1k.json"
    ))
    .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&payload).unwrap();
    let guard = Guard::new(common::samples());
    assert!(guard.validate_json(ORDER, &value).unwrap().is_validated());

    let mut validated = 0;
    let allocations = allocations_during(|| {
        for _ in 0..1_000 {
            if let Ok(Outcome::Validated) = guard.validate_json(ORDER, &value) {
                validated += 1;
            }
        }
    });
    assert_eq!(validated, 1_000);
    assert_eq!(allocations, 0, "allocations over 1,000 validated values");
}

/// A JSON payload the scanner refuses costs one allocation, the copy its
/// `Invalid` keeps for the report (which is produced only when read).
#[cfg(feature = "json")]
#[test]
fn refusing_a_json_payload_allocates_its_copy_only() {
    let payload = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/payloads/order_invalid.json"
    ))
    .unwrap();
    let guard = Guard::new(common::samples());
    assert!(guard.validate(ORDER, &payload).is_err());

    let mut refused = 0;
    let allocations = allocations_during(|| {
        for _ in 0..1_000 {
            if guard.validate(ORDER, &payload).is_err() {
                refused += 1;
            }
        }
    });
    assert_eq!(refused, 1_000);
    assert_eq!(
        allocations, 1_000,
        "allocations over 1,000 refused payloads"
    );
}
