//! The guard's compiled-validator cache is bounded: entries of schemas the
//! primary does not hold (a fallback registry's) count an estimate of what
//! they hold, and past the bound (`GuardBuilder::cache_bytes`) the least
//! recently looked up are evicted; a bundled schema is pinned. Measured in
//! the cache's own accounting, its eviction count, and the bytes the
//! counting allocator sees the guard keep (every compile runs on the
//! test's thread: inside `on_compile_stack`, nested compiles run inline).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::counting_alloc;

use dataschema::guard::{CacheStats, DEFAULT_CACHE_BYTES};
use dataschema::limits::on_compile_stack;
use dataschema::{Error, Guard, Registry, Resolver, Schema, Urn};

/// Answers every URN of namespace `big` with a valid JSON Schema of about
/// `bytes` bytes (an object whose `description` fills it), made anew for
/// each lookup, as a registry's answer would be; counts the lookups.
struct Big {
    bytes: usize,
    lookups: Arc<AtomicUsize>,
}

impl Resolver for Big {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if urn.namespace() != "big" {
            return Err(Error::NotFound { urn: urn.clone() });
        }
        self.lookups.fetch_add(1, Ordering::Relaxed);
        let text = format!(
            r#"{{"type":"object","properties":{{"n":{{"type":"integer"}}}},"description":"{}"}}"#,
            "x".repeat(self.bytes)
        );
        Ok(Schema::json(urn.clone(), text))
    }
}

fn bundled() -> Registry {
    let urn: Urn = "urn:acme:schema:bundled:1".parse().unwrap();
    Registry::embed([Schema::json(urn, r#"{"type":"integer"}"#)]).unwrap()
}

#[test]
fn a_fallback_answering_120_schemas_of_4_mb_stays_within_the_bound() {
    const MB4: usize = 4 << 20;
    let lookups = Arc::new(AtomicUsize::new(0));
    let asked = Arc::clone(&lookups);
    let (stats, kept) = on_compile_stack(move || {
        let fallback = Big {
            bytes: MB4,
            lookups: asked,
        };
        let before = counting_alloc::live();
        let guard = Guard::builder(bundled()).fallback(fallback).build();
        assert!(guard
            .validate("urn:acme:schema:bundled:1", b"7")
            .unwrap()
            .is_validated());
        for i in 0..120 {
            let urn = format!("urn:big:schema:s{i}:1");
            assert!(guard.validate(&urn, br#"{"n":1}"#).unwrap().is_validated());
            assert!(guard.validate(&urn, br#"{"n":"one"}"#).is_err());
        }
        let kept = counting_alloc::live() - before;
        // The first URNs were evicted: validated again, compiled again.
        assert!(guard
            .validate("urn:big:schema:s0:1", br#"{"n":1}"#)
            .unwrap()
            .is_validated());
        // The bundled schema is pinned: still there.
        assert!(guard
            .validate("urn:acme:schema:bundled:1", b"7")
            .unwrap()
            .is_validated());
        (guard.cache_stats(), kept)
    })
    .unwrap();
    // Each URN looked up once, and s0 again once evicted.
    assert_eq!(lookups.load(Ordering::Relaxed), 121);
    let CacheStats {
        entries,
        bytes,
        pinned_bytes,
        evictions,
        bound,
        ..
    } = stats;
    assert_eq!(bound, DEFAULT_CACHE_BYTES);
    assert!(bytes <= bound, "{stats:?}");
    assert!(pinned_bytes > 0, "{stats:?}");
    // Each 4 MB entry counts 8 MiB and more: at most 16 fit in 128 MiB.
    assert!(entries <= 18, "{stats:?}");
    assert!(evictions >= 100, "{stats:?}");
    // What the guard keeps, as the allocator counts it: well under the
    // issue's 256 MiB (unbounded, it kept 120 validators: over 500 MiB).
    assert!(
        kept < 256 << 20,
        "the guard keeps {} MiB: {stats:?}",
        kept >> 20
    );
}

/// The bytes a guard keeps for one compiled schema, as the allocator
/// counts them, and what the cache counts it as.
fn kept_and_counted(schema: Schema) -> (usize, usize, usize) {
    on_compile_stack(move || {
        let urn = schema.urn().clone();
        let len = schema.bytes().len();
        let guard = Guard::builder(bundled())
            .fallback(crate::common::Answers(schema))
            .build();
        let before = counting_alloc::live();
        let counted_before = guard.cache_stats().bytes;
        let _ = guard.validate(urn.as_str(), b"{}");
        let kept = counting_alloc::live() - before;
        let counted = guard.cache_stats().bytes - counted_before;
        (usize::try_from(kept).unwrap_or(0), counted, len)
    })
    .unwrap()
}

#[test]
fn an_entry_is_counted_as_no_less_than_what_its_compile_keeps() {
    let urn = |name: &str| -> Urn { format!("urn:big:schema:{name}:1").parse().unwrap() };
    let properties: String = (0..5_000)
        .map(|i| format!(r#""p{i}":{{"type":"string","maxLength":{i}}}"#))
        .collect::<Vec<_>>()
        .join(",");
    let enumerated: String = (0..20_000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let nested: String = (0..2_000)
        .map(|i| format!(r#""q{i}":{{"type":"object","properties":{{"a":{{"type":"integer","minimum":{i}}},"b":{{"enum":["x{i}","y"]}}}},"required":["a"]}}"#))
        .collect::<Vec<_>>()
        .join(",");
    // Pushed to with the `avro` feature.
    #[cfg_attr(not(feature = "avro"), allow(unused_mut))]
    let mut cases = vec![
        Schema::json(
            urn("description"),
            format!(
                r#"{{"type":"object","description":"{}"}}"#,
                "x".repeat(4 << 20)
            ),
        ),
        Schema::json(
            urn("props"),
            format!(r#"{{"type":"object","properties":{{{properties}}}}}"#),
        ),
        Schema::json(urn("enum"), format!(r#"{{"enum":[{enumerated}]}}"#)),
        Schema::json(
            urn("nested"),
            format!(r#"{{"type":"object","properties":{{{nested}}}}}"#),
        ),
    ];
    #[cfg(feature = "avro")]
    {
        let fields: String = (0..5_000)
            .map(|i| format!(r#"{{"name":"f{i}","type":["null","long"],"default":null}}"#))
            .collect::<Vec<_>>()
            .join(",");
        cases.push(Schema::avro(
            urn("avro"),
            format!(r#"{{"type":"record","name":"R","fields":[{fields}]}}"#),
        ));
    }
    for schema in cases {
        let name = schema.urn().name().to_owned();
        let (kept, counted, len) = kept_and_counted(schema);
        eprintln!(
            "{name}: {len} bytes of schema, {kept} kept, counted {counted} ({:.1}x)",
            kept as f64 / len as f64
        );
        assert!(counted >= kept, "{name}: kept {kept}, counted {counted}");
    }
}

/// Answers every schema id with one JSON Schema (a fallback registry
/// whose ids all name one URN).
struct EveryId(Schema);

impl Resolver for EveryId {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if urn == self.0.urn() {
            Ok(self.0.clone())
        } else {
            Err(Error::NotFound { urn: urn.clone() })
        }
    }

    fn resolve_id(&self, _id: u32) -> Result<Schema, Error> {
        Ok(self.0.clone())
    }
}

#[test]
fn the_schema_ids_a_guard_remembers_are_bounded() {
    let urn: Urn = "urn:big:schema:framed:1".parse().unwrap();
    let guard = Guard::builder(bundled())
        .fallback(EveryId(Schema::json(urn, r#"{"type":"integer"}"#)))
        .build();
    let mut frame = vec![0, 0, 0, 0, 0, b'1'];
    for id in 1..=70_000u32 {
        frame[1..5].copy_from_slice(&id.to_be_bytes());
        assert!(guard.validate_framed(&frame).unwrap().is_validated());
    }
    let ids = guard.cache_stats().ids;
    assert!(ids > 0 && ids <= 1 << 16, "{ids} ids remembered");
}
