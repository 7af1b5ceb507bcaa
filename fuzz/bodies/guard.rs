//! Arbitrary `dataschema` strings and payloads through `Guard::validate`
//! over the sample schemas (JSON Schema and protobuf): never panics, and an
//! `Invalid` always names at least one violation.
//!
//! The first byte picks the dataschema (one of the samples, or arbitrary
//! text taken from the input); the rest is the payload.
//!
//! `cargo +nightly fuzz run guard` (from `fuzz/`)

use std::sync::OnceLock;

use dataschema::{Guard, Registry, Schema, Urn};

const SAMPLES: &[&str] = &[
    "urn:acme:schema:orders.created:1",
    "urn:acme:schema:orders.created:2",
    "urn:acme:schema:customers.registered:1",
    "urn:acme:schema:common.address:1",
];

fn guard() -> &'static Guard {
    static GUARD: OnceLock<Guard> = OnceLock::new();
    GUARD.get_or_init(|| {
        let schema =
            |urn: &str, bytes: &'static [u8]| Schema::json(urn.parse::<Urn>().unwrap(), bytes);
        let registry = Registry::embed([
            schema(
                SAMPLES[0],
                include_bytes!("../../schemas/orders.created.v1.json"),
            ),
            schema(
                SAMPLES[1],
                include_bytes!("../../schemas/orders.created.v2.json"),
            ),
            schema(
                SAMPLES[2],
                include_bytes!("../../schemas/customers.registered.v1.json"),
            ),
            schema(
                SAMPLES[3],
                include_bytes!("../../schemas/common.address.v1.json"),
            ),
        ])
        .expect("the sample schemas compile");
        Guard::new(registry)
    })
}

pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (dataschema, payload) = match SAMPLES.get(usize::from(pick) % (SAMPLES.len() + 1)) {
        Some(urn) => (urn.to_string(), rest),
        None => {
            let split = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            (
                String::from_utf8_lossy(&rest[..split]).into_owned(),
                rest.get(split + 1..).unwrap_or(&[]),
            )
        }
    };
    if let Err(invalid) = guard().validate(&dataschema, payload) {
        assert!(!invalid.violations().is_empty());
    }
}
