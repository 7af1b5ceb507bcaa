//! Resolving a held schema copies no schema bytes: a bundled schema points
//! at the binary's static data, and a registry hands out shared clones. A
//! counting global allocator watches `Registry::resolve`.

use crate::common;

use crate::counting_alloc;

use counting_alloc::allocations_during;
use dataschema::{MemoryStore, Registry, Schema, Store};

#[test]
fn resolving_a_held_schema_allocates_nothing() {
    let registry = common::samples();
    let urns = registry.list().unwrap();
    assert_eq!(urns.len(), 6);
    // Built from a `&'static` slice: the bundle copies nothing either.
    let first: Vec<Schema> = urns.iter().map(|u| registry.resolve(u).unwrap()).collect();

    let mut resolved = Vec::with_capacity(urns.len() * 1_000);
    let allocations = allocations_during(|| {
        for _ in 0..1_000 {
            for urn in &urns {
                resolved.push(registry.resolve(urn).unwrap());
            }
        }
    });
    assert_eq!(resolved.len(), 6_000);
    assert_eq!(
        allocations, 0,
        "allocations over 6,000 resolves of held schemas"
    );
    // The same bytes each time, and those of the binary.
    for (schema, again) in first.iter().zip(&resolved) {
        assert_eq!(schema.bytes().as_ptr(), again.bytes().as_ptr());
    }
    let store = MemoryStore::new();
    store
        .put(&Schema::json(
            common::urn("urn:acme:schema:x:1"),
            r#"{"type": "string"}"#,
        ))
        .unwrap();
    let embedded = Registry::new(store);
    let urn = common::urn("urn:acme:schema:x:1");
    let once = embedded.resolve(&urn).unwrap();
    let allocations = allocations_during(|| {
        for _ in 0..1_000 {
            assert_eq!(embedded.resolve(&urn).unwrap().bytes(), once.bytes());
        }
    });
    assert_eq!(
        allocations, 0,
        "a stored schema resolves without a copy too"
    );
}
