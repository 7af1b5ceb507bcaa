//! The generated order events of `benches/json_scan.rs`, shared with
//! `benches/instructions.rs` (which counts the same rows' instructions).

use dataschema::{BoxError, Registry};
use serde_json::Value;

pub const V1: &str = "urn:acme:schema:orders.created:1";
pub const V2: &str = "urn:acme:schema:orders.created:2";
const ADDRESS: &str = "urn:acme:schema:common.address:1";

/// Serves the address schema to the bare validator, as the registry does
/// to the guard.
struct Address(Value);

impl jsonschema::Retrieve for Address {
    fn retrieve(&self, uri: &jsonschema::Uri<String>) -> Result<Value, BoxError> {
        if uri.as_str() == ADDRESS {
            Ok(self.0.clone())
        } else {
            Err(format!("{uri} is not served here").into())
        }
    }
}

/// The bare validator of `urn`: the guard's options, the address
/// schema served by URN.
pub fn bare(registry: &Registry, urn: &str) -> jsonschema::Validator {
    let json = |urn: &str| -> Value {
        let schema = registry.resolve(&urn.parse().unwrap()).unwrap();
        serde_json::from_slice(schema.bytes()).unwrap()
    };
    jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(2 << 20)
                .dfa_size_limit(2 << 20),
        )
        .with_retriever(Address(json(ADDRESS)))
        .build(&json(urn))
        .unwrap()
}

#[path = "../../tests/common/rng.rs"]
mod rng;
use rng::Rng;

/// An order event as a producer writes it; `broken` picks one way to be
/// invalid (0: valid).
fn event(rng: &mut Rng, broken: usize) -> Vec<u8> {
    let currencies = ["EUR", "USD", "GBP"];
    let items: Vec<Value> = (0..1 + rng.below(8))
        .map(|i| {
            serde_json::json!({
                "sku": (format!("SKU-{:04}-{}", rng.below(10_000), ["BLUE", "RED", "GRÜN"][i % 3])),
                "quantity": 1 + rng.below(9),
                "unit_price": (1 + rng.below(99_999)) as f64 / 100.0,
            })
        })
        .collect();
    let mut order = serde_json::json!({
        "order_id": format!("ord_{:08x}", rng.next_u64() as u32),
        "customer_id": format!("cus_{:06}", rng.below(1_000_000)),
        "placed_at": format!("2026-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            1 + rng.below(12), 1 + rng.below(28), rng.below(24), rng.below(60), rng.below(60)),
        "currency": currencies[rng.below(3)],
        "items": items,
    });
    if rng.below(2) == 0 {
        order["shipping_address"] = serde_json::json!({
            "street": format!("{} Main Street", 1 + rng.below(300)),
            "city": (["Utrecht", "Zürich", "Lyon"][rng.below(3)]),
            "postcode": "3511 AB",
            "country": (["NL", "CH", "FR"][rng.below(3)]),
        });
    }
    if rng.below(3) == 0 {
        order["note"] = Value::String("Leave at the door, \"please\"\n— thanks".into());
    }
    match broken {
        1 => order["currency"] = "JPY".into(),
        2 => order["placed_at"] = "2026-02-30T10:00:00Z".into(),
        3 => order["items"][0]["quantity"] = 0.into(),
        4 => order["coupon"] = "FREE".into(),
        5 => {
            order["shipping_address"] =
                serde_json::json!({"street": "x", "city": "y", "country": "nl"})
        }
        6 => {
            order.as_object_mut().unwrap().remove("customer_id");
        }
        _ => {}
    }
    serde_json::to_vec(&order).unwrap()
}

/// 1,200 order events; every fourth (`i % 4 == 3`) is broken one way.
pub fn events() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(7);
    (0..1_200)
        .map(|i| {
            let broken = if i % 4 == 3 { 1 + rng.below(6) } else { 0 };
            event(&mut rng, broken)
        })
        .collect()
}

/// The valid three in four of [`events`].
pub fn valid_events() -> Vec<Vec<u8>> {
    events()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 4 != 3)
        .map(|(_, e)| e)
        .collect()
}

/// The 998-byte order payload (valid against [`V1`]).
pub fn order_1k() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/order_1k.json"
    ))
    .unwrap()
}
