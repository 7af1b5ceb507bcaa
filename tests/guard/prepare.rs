//! `Guard::prepare` compiles every schema the primary resolver holds at
//! start-up and returns those that failed.
#![cfg(all(feature = "json", feature = "protobuf", feature = "avro"))]

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{samples, urn};
use dataschema::{Error, Guard, MemoryStore, Reason, Registry, Resolver, Schema, Store, Urn};

/// Counts every lookup: a compile of orders.created:2 looks up its $ref.
struct Counting {
    inner: Registry,
    lookups: Arc<AtomicUsize>,
}

impl Resolver for Counting {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        self.inner.resolve(urn)
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        self.inner.list()
    }
}

#[test]
fn the_bundle_compiles_at_start_up_and_messages_pay_no_compile() {
    let lookups = Arc::new(AtomicUsize::new(0));
    let guard = Guard::new(Counting {
        inner: samples(),
        lookups: Arc::clone(&lookups),
    });
    let failed = guard.prepare().unwrap();
    assert!(failed.is_empty(), "{failed:?}");
    let after_prepare = lookups.load(Ordering::SeqCst);
    assert!(after_prepare >= 5, "each bundled schema was resolved");
    let payload = common::read("payloads/order_v2_valid.json");
    for _ in 0..3 {
        assert!(guard
            .validate("urn:acme:schema:orders.created:2", &payload)
            .unwrap()
            .is_validated());
    }
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        after_prepare,
        "no lookup or compile after prepare"
    );
}

#[test]
fn a_broken_schema_is_reported_before_traffic() {
    let store = MemoryStore::new();
    store
        .put(&Schema::json(
            urn("urn:acme:schema:ok:1"),
            r#"{"type": "string"}"#,
        ))
        .unwrap();
    store
        .put(&Schema::json(
            urn("urn:acme:schema:broken:1"),
            r#"{"type": 7}"#,
        ))
        .unwrap();
    store
        .put(&Schema::protobuf(
            urn("urn:acme:schema:notproto:1"),
            b"\xff\xff".to_vec(),
            "x.Y",
        ))
        .unwrap();
    let guard = Guard::new(Registry::new(store));
    let failed = guard.prepare().unwrap();
    let mut named: Vec<(String, Reason)> = failed
        .iter()
        .map(|u| (u.urn().unwrap().to_string(), u.reason()))
        .collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        named,
        [
            ("urn:acme:schema:broken:1".to_owned(), Reason::Unusable),
            ("urn:acme:schema:notproto:1".to_owned(), Reason::Unusable),
        ]
    );
    // The same failures a second time: they are kept, not compiled again.
    assert_eq!(guard.prepare().unwrap().len(), 2);
    assert!(guard
        .validate("urn:acme:schema:ok:1", br#""hi""#)
        .unwrap()
        .is_validated());
}
