//! Ids from a registry (the HTTP fallback): asked once and kept, checked
//! against the primary's bytes; a registry down is a clean error, never
//! a frame with a wrong or zero id.

use std::time::{Duration, Instant};

use crate::common::{self, read, urn};
use crate::server;

use dataschema::http::HttpResolver;
use dataschema::{Compatibility, FrameReason, Framer, Guard, Outcome, Registry, Schema};

const ORDER_V1: &str = "urn:acme:schema:orders.created:1";

fn order_schema() -> Schema {
    common::samples().resolve(&urn(ORDER_V1)).unwrap()
}

fn fallback(running: &server::Running) -> HttpResolver {
    HttpResolver::builder(running.url(""))
        .timeout(Duration::from_millis(500))
        .build()
        .unwrap()
}

#[test]
fn the_registry_answers_the_id_of_a_urn_the_bundle_holds_without_one() {
    let running = server::start();
    let id = running
        .registry
        .publish(order_schema(), Compatibility::None)
        .unwrap()
        .id;
    assert_ne!(id, 0);
    // The bundle holds the schema, its lock no id: the registry is asked.
    let framer = Framer::builder(common::samples())
        .fallback(fallback(&running))
        .build();
    let order = read("payloads/order_valid.json");
    let frame = framer.frame(&urn(ORDER_V1), &order).unwrap();
    assert_eq!(frame[1..5], id.to_be_bytes());
    let guard = Guard::builder(Registry::embed(Vec::new()).unwrap())
        .fallback(fallback(&running))
        .build();
    assert!(matches!(
        guard.validate_framed(&frame),
        Ok(Outcome::Validated)
    ));

    // Kept: the registry gone, frames of that URN are still written.
    running.stop();
    for _ in 0..100 {
        let again = framer.frame(&urn(ORDER_V1), &order).unwrap();
        assert_eq!(again, frame);
    }
}

#[test]
fn a_schema_only_the_registry_holds_is_framed_with_its_id() {
    let running = server::start();
    let urn2 = urn("urn:acme:schema:greeting:1");
    let id = running
        .registry
        .publish(
            Schema::json(urn2.clone(), r#"{"type": "string"}"#),
            Compatibility::None,
        )
        .unwrap()
        .id;
    let framer = Framer::builder(Registry::embed(Vec::new()).unwrap())
        .fallback(fallback(&running))
        .build();
    let frame = framer.frame(&urn2, br#""hi""#).unwrap();
    assert_eq!(frame[1..5], id.to_be_bytes());
    let err = framer.frame(&urn2, b"42").unwrap_err();
    assert_eq!(err.reason(), FrameReason::Invalid);
    let err = framer
        .frame(&urn("urn:acme:schema:nobody:1"), b"1")
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::NotFound);
}

#[test]
fn a_registry_holding_other_bytes_under_the_urn_is_refused() {
    let running = server::start();
    // The registry's orders.created:1 is not the bundle's.
    running
        .registry
        .publish(
            Schema::json(urn(ORDER_V1), r#"{"type": "object"}"#),
            Compatibility::None,
        )
        .unwrap();
    let framer = Framer::builder(common::samples())
        .fallback(fallback(&running))
        .build();
    let err = framer
        .frame(&urn(ORDER_V1), &read("payloads/order_valid.json"))
        .unwrap_err();
    assert_eq!(err.reason(), FrameReason::Unreachable);
    assert!(err.to_string().contains("digest"), "{err}");
}

#[test]
fn a_registry_down_while_producing_is_a_clean_error_and_recovers() {
    let mut running = server::start();
    let urn2 = urn("urn:acme:schema:greeting:1");
    running
        .registry
        .publish(
            Schema::json(urn2.clone(), r#"{"type": "string"}"#),
            Compatibility::None,
        )
        .unwrap();
    let addr = running.addr;
    running.begin_stop();
    running.stop();
    let resolver = HttpResolver::builder(format!("http://{addr}"))
        .timeout(Duration::from_millis(300))
        .retry_after(Duration::from_millis(50))
        .build()
        .unwrap();
    let framer = Framer::builder(common::samples())
        .fallback(resolver)
        .build();
    let started = Instant::now();
    for _ in 0..50 {
        // Held by the bundle without an id, and not held at all: both need
        // the registry.
        for (target, payload) in [
            (urn(ORDER_V1), read("payloads/order_valid.json")),
            (urn2.clone(), br#""hi""#.to_vec()),
        ] {
            let err = framer.frame(&target, &payload).unwrap_err();
            assert_eq!(err.reason(), FrameReason::Unreachable, "{err}");
            assert!(err.to_string().contains("unreachable"), "{err}");
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "bounded by the timeouts and the remembered failure: {:?}",
        started.elapsed()
    );
}

/// A fallback registry answering every URN of namespace `any` (with the
/// URN's version as its id): one that answers any number of them.
struct AnyUrn;

impl dataschema::Resolver for AnyUrn {
    fn resolve(&self, urn: &dataschema::Urn) -> Result<Schema, dataschema::Error> {
        if urn.namespace() != "any" {
            return Err(dataschema::Error::NotFound { urn: urn.clone() });
        }
        Ok(Schema::json(urn.clone(), r#"{"type":"integer"}"#))
    }

    fn id_of(&self, urn: &dataschema::Urn) -> Result<u32, dataschema::Error> {
        self.resolve(urn)?;
        Ok(urn.version())
    }
}

/// The prefixes a framer keeps were unbounded: a fallback answering any
/// number of URNs grew its maps for ever. Now they are bounded
/// (`FramerBuilder::max_prefixes`, 65,536 by default, as the schema ids a
/// guard remembers): past the bound they are forgotten at once, counted,
/// and a URN framed again is framed with the same id.
#[test]
fn the_prefixes_a_framer_keeps_are_bounded() {
    let default = Framer::builder(common::samples()).fallback(AnyUrn).build();
    assert_eq!(default.stats().bound, 1 << 16);
    let framer = Framer::builder(common::samples())
        .fallback(AnyUrn)
        .max_prefixes(100)
        .build();
    let mut most = 0;
    for version in 1..=250u32 {
        let urn = urn(&format!("urn:any:schema:n:{version}"));
        let frame = framer.frame(&urn, b"7").unwrap();
        assert_eq!(&frame[1..5], &version.to_be_bytes());
        most = most.max(framer.stats().prefixes);
    }
    let stats = framer.stats();
    assert_eq!(most, 100, "{stats:?}");
    assert!(stats.prefixes <= 100, "{stats:?}");
    assert_eq!(stats.evictions, 200, "two times 100 forgotten: {stats:?}");
    // Forgotten, framed again with its id.
    let first = framer.frame(&urn("urn:any:schema:n:1"), b"7").unwrap();
    assert_eq!(&first[1..5], &1u32.to_be_bytes());
}
