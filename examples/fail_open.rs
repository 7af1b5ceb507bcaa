//! Failing open, counted: a schema the guard cannot use lets the message
//! through, and says so in `dataschema_unvalidated_total` (and
//! `Guard::unvalidated()`), which is what operators alert on.
//!
//! ```text
//! cargo run --example fail_open
//! ```

use dataschema::{Error, Guard, Outcome, Registry, Resolver, Schema, Urn};

/// A remote registry that is down.
struct Down;

impl Resolver for Down {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        Err(Error::Unreachable {
            urn: urn.clone(),
            source: "connection refused".into(),
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_bundle(dataschema::include_bundle!())?;
    let guard = Guard::builder(registry)
        .fallback(Down)
        .on_fail_open(|dataschema, cause| {
            eprintln!("fail open: {dataschema:?}: {cause}");
        })
        .build();

    for dataschema in [
        "urn:acme:schema:orders.created:1", // held: validated
        "urn:acme:schema:refunds.issued:1", // not held, fallback down: unreachable
        "https://acme.example/orders.json", // not a schema URN
        "",                                 // claims no schema: not counted
    ] {
        let payload = br#"{"order_id":"ord_a1b2c3","customer_id":"c","placed_at":"2026-11-30T08:15:00Z","currency":"EUR","items":[{"sku":"S","quantity":1,"unit_price":1}]}"#;
        match guard.validate(dataschema, payload) {
            Ok(Outcome::Unvalidated(u)) => {
                println!("{dataschema:?}: processed UNCHECKED ({})", u.reason())
            }
            Ok(outcome) => println!("{dataschema:?}: {outcome:?}"),
            Err(invalid) => println!("{dataschema:?}: rejected: {invalid}"),
        }
    }
    println!(
        "dataschema_unvalidated_total = {}: alert when this moves",
        guard.unvalidated()
    );
    Ok(())
}
