//! What the streaming examples' tests share: the sample orders they send,
//! and the consumer's Prometheus series, scraped.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// A valid `orders.created` v1 payload (the sample bundle's).
pub const ORDER_V1: &str = r#"{"order_id":"ord_a1b2c3","customer_id":"cus_42","placed_at":"2026-11-30T08:15:00Z","currency":"EUR","items":[{"sku":"SKU-1","quantity":2,"unit_price":9.5}]}"#;
/// A valid `orders.created` v2 payload.
pub const ORDER_V2: &str = r#"{"order_id":"ord_a1b2c3","customer_id":"cus_42","placed_at":"2026-11-30T08:15:00Z","currency":"EUR","items":[{"sku":"SKU-1","quantity":2,"unit_price":9.5}],"shipping_address":{"street":"1 Main St","city":"Utrecht","postcode":"3511 AB","country":"NL"}}"#;
/// An `orders.created` v1 payload with three violations.
pub const ORDER_BAD: &str = r#"{"order_id":"ORD-1","customer_id":"cus_1","placed_at":"yesterday","currency":"EUR","items":[]}"#;

/// The `dataschema_*` series of a Prometheus text exposition.
pub fn dataschema_series(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|line| line.starts_with("dataschema_"))
        .map(|line| {
            let (key, value) = line.rsplit_once(' ').expect("a sample line");
            (key.to_owned(), value.parse().expect("a sample value"))
        })
        .collect()
}

/// The body of `GET url`, which must answer 200.
pub fn scrape(url: &str) -> String {
    let mut reply = ureq::get(url)
        .call()
        .unwrap_or_else(|err| panic!("GET {url}: {err}"));
    assert_eq!(reply.status().as_u16(), 200);
    reply.body_mut().read_to_string().expect("a text body")
}
