//! One conformance suite for every `Store`: immutability, retention,
//! ordering, copies on read, races. Run against each implementation.

mod common;

use std::sync::{Arc, Barrier};

use common::urn;
use dataschema::{Error, MemoryStore, Schema, Store};

fn schema(text: &str, body: &str) -> Schema {
    Schema::json(urn(text), body.to_owned())
}

/// Every store must pass this.
pub fn conformance(store: Arc<dyn Store>) {
    let a1 = schema("urn:acme:schema:a:1", r#"{"type":"string"}"#);
    assert_eq!(store.get(a1.urn()).unwrap(), None);
    store.put(&a1).unwrap();
    store.put(&a1).unwrap(); // idempotent
    assert_eq!(store.get(a1.urn()).unwrap().as_ref(), Some(&a1));

    // Different bytes, language or root under a held URN: refused, and the
    // held schema is unchanged.
    let changed = schema("urn:acme:schema:a:1", r#"{"type":"integer"}"#);
    assert!(matches!(store.put(&changed), Err(Error::Immutable { .. })));
    let other_language = Schema::protobuf(urn("urn:acme:schema:a:1"), a1.shared_bytes(), "x.Y");
    assert!(matches!(
        store.put(&other_language),
        Err(Error::Immutable { .. })
    ));
    assert_eq!(store.get(a1.urn()).unwrap().as_ref(), Some(&a1));

    // What is read back is the schema put, byte for byte.
    let read = store.get(a1.urn()).unwrap().unwrap();
    assert_eq!(read.bytes(), a1.bytes());
    assert_eq!(read.digest(), a1.digest());

    // Versions ascending (numerically), per namespace; list ordered.
    for text in [
        "urn:acme:schema:a:10",
        "urn:acme:schema:a:2",
        "urn:zeta:schema:a:3",
        "urn:acme:schema:b:1",
    ] {
        store.put(&schema(text, "{}")).unwrap();
    }
    assert_eq!(store.versions("acme", "a").unwrap(), vec![1, 2, 10]);
    assert_eq!(store.versions("zeta", "a").unwrap(), vec![3]);
    assert_eq!(store.versions("ACME", "a").unwrap(), vec![1, 2, 10]);
    assert_eq!(
        store.versions("acme", "nothing").unwrap(),
        Vec::<u32>::new()
    );
    let listed: Vec<String> = store
        .list()
        .unwrap()
        .iter()
        .map(|u| u.to_string())
        .collect();
    assert_eq!(
        listed,
        [
            "urn:acme:schema:a:1",
            "urn:acme:schema:a:2",
            "urn:acme:schema:a:10",
            "urn:acme:schema:b:1",
            "urn:zeta:schema:a:3"
        ]
    );

    // Racing writers of different bytes: exactly one wins.
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                store.put(&schema(
                    "urn:acme:schema:race:1",
                    &format!("{{\"maxLength\":{i}}}"),
                ))
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    assert!(results
        .iter()
        .filter_map(|r| r.as_ref().err())
        .all(|e| matches!(e, Error::Immutable { .. })));
}

#[test]
fn memory_store() {
    conformance(Arc::new(MemoryStore::new()));
}
