//! The guard's validator cache grows in linear time: tens of thousands of
//! URNs resolved through a fallback do not copy the map per insert.
//! Measured in allocations (each copy of the map clones every key), which
//! the counting allocator sees exactly, unlike time.

use crate::counting_alloc;

use counting_alloc::allocations_during;
use dataschema::{Error, Guard, MemoryStore, Registry, Resolver, Schema, Urn};

/// Holds every URN of namespace `many`, each an empty JSON Schema.
struct Everything;

impl Resolver for Everything {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if urn.namespace() == "many" {
            Ok(Schema::json(urn.clone(), "{}"))
        } else {
            Err(Error::NotFound { urn: urn.clone() })
        }
    }
}

/// Allocations per new URN while the cache grows from `from` to `to` URNs.
fn per_urn(guard: &Guard, from: usize, to: usize) -> f64 {
    let total = allocations_during(|| {
        for i in from..to {
            let urn = format!("urn:many:schema:s{i}:1");
            assert!(guard.validate(&urn, b"1").unwrap().is_validated());
        }
    });
    total as f64 / (to - from) as f64
}

#[test]
fn twenty_thousand_fallback_urns_cost_the_same_per_urn() {
    let guard = Guard::builder(Registry::new(MemoryStore::new()))
        .fallback(Everything)
        .build();
    let early = per_urn(&guard, 0, 2_000);
    per_urn(&guard, 2_000, 16_000);
    let late = per_urn(&guard, 16_000, 20_000);
    // A map copied per insert would clone ~17,000 keys per URN here, and
    // ~1,000 in the early range: a ratio near 17. Linear growth keeps it
    // near 1 (merges copy each key O(1) times on average).
    assert!(
        late < early * 1.5,
        "allocations per new URN grew from {early:.0} (first 2,000) to {late:.0} (16,000-20,000)"
    );
    // The newest URNs (not yet merged into the lock-free snapshot) are
    // validated from the cache without allocating, like the oldest.
    for urn in ["urn:many:schema:s19999:1", "urn:many:schema:s0:1"] {
        let allocations = allocations_during(|| {
            for _ in 0..100 {
                assert!(guard.validate(urn, b"1").unwrap().is_validated());
            }
        });
        assert_eq!(allocations, 0, "allocations validating {urn} 100 times");
    }
    // Every URN still validates from the cache.
    for i in (0..20_000).step_by(997) {
        let urn = format!("urn:many:schema:s{i}:1");
        assert!(guard.validate(&urn, b"1").unwrap().is_validated());
    }
}
