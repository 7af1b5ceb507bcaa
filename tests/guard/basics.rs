//! The Guard's outcome table, row by row, its metrics, its cache, and
//! that it never panics.
// Some helpers serve only the tests of one validator's feature.
#![cfg_attr(
    not(all(feature = "json", feature = "protobuf")),
    allow(unused_imports, dead_code)
)]

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{read, samples, urn};
use dataschema::{Error, Guard, Outcome, Reason, Registry, Resolver, Schema, Urn};

const ORDER_V1: &str = "urn:acme:schema:orders.created:1";
const ORDER_V2: &str = "urn:acme:schema:orders.created:2";

fn reason_of(outcome: Result<Outcome, dataschema::Invalid>) -> Reason {
    match outcome {
        Ok(Outcome::Unvalidated(u)) => u.reason(),
        other => panic!("expected Unvalidated, got {other:?}"),
    }
}

/// A resolver that counts its calls and can be told to fail.
struct Counting<R> {
    inner: R,
    calls: Arc<AtomicUsize>,
}

impl<R: Resolver> Resolver for Counting<R> {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.resolve(urn)
    }
}

struct Down;

impl Resolver for Down {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        Err(Error::Unreachable {
            urn: urn.clone(),
            source: "connection refused".into(),
        })
    }
}

/// Answers with a schema under another URN than the one asked for.
struct Liar;

impl Resolver for Liar {
    fn resolve(&self, _: &Urn) -> Result<Schema, Error> {
        Ok(Schema::json(urn("urn:acme:schema:other:1"), "{}"))
    }
}

#[test]
fn empty_dataschema_is_no_schema_and_not_counted() {
    let guard = Guard::new(samples());
    assert!(matches!(
        guard.validate("", b"anything"),
        Ok(Outcome::NoSchema)
    ));
    assert_eq!(guard.unvalidated(), 0);
}

#[test]
fn not_a_urn_fails_open() {
    let guard = Guard::new(samples());
    for dataschema in [
        "orders.created",
        "https://acme.example/schemas/orders.json",
        "urn:acme:schema:Orders:1",
        " ",
    ] {
        let outcome = guard.validate(dataschema, b"{}");
        match outcome {
            Ok(Outcome::Unvalidated(u)) => {
                assert_eq!(u.reason(), Reason::NotAUrn);
                assert!(matches!(u.error(), Error::InvalidUrn { .. }));
                assert!(u.urn().is_none());
            }
            other => panic!("{dataschema:?}: {other:?}"),
        }
    }
    assert_eq!(guard.unvalidated(), 4);
}

#[test]
fn unknown_urn_fails_open_as_not_found() {
    let guard = Guard::new(samples());
    match guard.validate("urn:acme:schema:orders.created:99", b"{}") {
        Ok(Outcome::Unvalidated(u)) => {
            assert_eq!(u.reason(), Reason::NotFound);
            assert_eq!(u.urn().unwrap().version(), 99);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(guard.unvalidated(), 1);
}

#[cfg(feature = "json")]
#[test]
fn fallback_is_consulted_only_for_urns_the_first_does_not_hold() {
    let calls = Arc::new(AtomicUsize::new(0));
    let extra = Registry::embed([Schema::json(
        urn("urn:acme:schema:extra:1"),
        r#"{"type":"integer"}"#,
    )])
    .unwrap();
    let guard = Guard::builder(samples())
        .fallback(Counting {
            inner: extra,
            calls: Arc::clone(&calls),
        })
        .build();
    assert!(guard
        .validate(ORDER_V1, &read("payloads/order_valid.json"))
        .unwrap()
        .is_validated());
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the primary held it");
    assert!(guard
        .validate("urn:acme:schema:extra:1", b"7")
        .unwrap()
        .is_validated());
    assert!(guard
        .validate("urn:acme:schema:extra:1", b"\"seven\"")
        .is_err());
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "resolved once, then cached"
    );
    assert_eq!(
        reason_of(guard.validate("urn:acme:schema:nowhere:1", b"{}")),
        Reason::NotFound
    );
}

#[test]
fn a_fallback_that_is_down_or_lies_fails_open_as_unreachable() {
    let guard = Guard::builder(samples()).fallback(Down).build();
    assert_eq!(
        reason_of(guard.validate("urn:acme:schema:elsewhere:1", b"{}")),
        Reason::Unreachable
    );
    // Not cached: a later call asks again (and still fails open).
    assert_eq!(
        reason_of(guard.validate("urn:acme:schema:elsewhere:1", b"{}")),
        Reason::Unreachable
    );
    let guard = Guard::builder(samples()).fallback(Liar).build();
    assert_eq!(
        reason_of(guard.validate("urn:acme:schema:elsewhere:1", b"{}")),
        Reason::Unreachable
    );
    assert_eq!(guard.unvalidated(), 1);
}

#[cfg(feature = "json")]
#[test]
fn on_fail_open_is_called_with_the_dataschema_and_the_cause() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let guard = Guard::builder(samples())
        .on_fail_open(move |dataschema, unvalidated| {
            sink.lock()
                .unwrap()
                .push((dataschema.to_owned(), unvalidated.reason()));
        })
        .build();
    let _ = guard.validate("nope", b"{}");
    let _ = guard.validate("urn:acme:schema:gone:1", b"{}");
    let _ = guard.validate(ORDER_V1, &read("payloads/order_valid.json"));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            ("nope".to_owned(), Reason::NotAUrn),
            ("urn:acme:schema:gone:1".to_owned(), Reason::NotFound)
        ]
    );
}

#[cfg(any(feature = "json", feature = "protobuf"))]
/// A registry holding schemas `publish` would refuse, as a store can hold
/// them when written by another process or version.
fn registry_holding(schemas: Vec<Schema>) -> Registry {
    let store = dataschema::MemoryStore::new();
    for schema in &schemas {
        dataschema::Store::put(&store, schema).unwrap();
    }
    Registry::new(store)
}

#[cfg(feature = "json")]
mod json {
    use super::*;
    use common::json_schema;
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};

    #[test]
    fn conforming_payload_is_validated() {
        let guard = Guard::new(samples());
        assert!(matches!(
            guard.validate(ORDER_V1, &read("payloads/order_valid.json")),
            Ok(Outcome::Validated)
        ));
        assert!(matches!(
            guard.validate(ORDER_V2, &read("payloads/order_v2_valid.json")),
            Ok(Outcome::Validated)
        ));
        assert_eq!(guard.unvalidated(), 0);
    }

    #[test]
    fn non_conforming_payload_fails_closed_with_every_violation() {
        let guard = Guard::new(samples());
        let invalid = guard
            .validate(ORDER_V1, &read("payloads/order_invalid.json"))
            .unwrap_err();
        assert_eq!(invalid.urn().to_string(), ORDER_V1);
        let paths: Vec<&str> = invalid.violations().iter().map(|v| v.path()).collect();
        for expected in [
            "/order_id",
            "/placed_at",
            "/currency",
            "/items/0/sku",
            "/items/0/quantity",
            "/items/1",
        ] {
            assert!(
                paths.contains(&expected),
                "{expected} missing from {paths:?}"
            );
        }
        assert!(invalid.violations().iter().all(|v| !v.message().is_empty()));
        let shown = invalid.to_string();
        assert!(
            shown.contains(ORDER_V1) && shown.contains("/items/0/quantity"),
            "{shown}"
        );
        assert_eq!(guard.unvalidated(), 0, "invalid is not unvalidated");
    }

    #[test]
    fn a_payload_that_is_not_json_is_invalid() {
        let guard = Guard::new(samples());
        let invalid = guard
            .validate(ORDER_V1, &read("payloads/not_json.txt"))
            .unwrap_err();
        assert_eq!(invalid.violations().len(), 1);
        assert!(invalid.violations()[0].message().contains("not JSON"));
        assert!(guard.validate(ORDER_V1, &[0xff, 0xfe]).is_err());
        assert!(guard.validate(ORDER_V1, b"").is_err());
    }

    #[test]
    fn refs_by_urn_are_checked_through() {
        let guard = Guard::new(samples());
        let invalid = guard
            .validate(ORDER_V2, &read("payloads/order_v2_bad_address.json"))
            .unwrap_err();
        let paths: Vec<&str> = invalid.violations().iter().map(|v| v.path()).collect();
        assert!(paths.contains(&"/shipping_address"), "{paths:?}");
        assert!(paths.contains(&"/shipping_address/country"), "{paths:?}");
    }

    #[test]
    fn formats_are_asserted_by_default_and_can_be_turned_off() {
        let payload = read("payloads/customer_bad_email.json");
        let strict = Guard::new(samples());
        let invalid = strict
            .validate("urn:acme:schema:customers.registered:1", &payload)
            .unwrap_err();
        assert_eq!(invalid.violations()[0].path(), "/email");
        let lax = Guard::builder(samples()).assert_formats(false).build();
        assert!(lax
            .validate("urn:acme:schema:customers.registered:1", &payload)
            .unwrap()
            .is_validated());
    }

    #[test]
    fn drafts_are_detected_from_dollar_schema() {
        let registry = Registry::embed([
            json_schema("urn:acme:schema:d4:1", "draft4.json"),
            json_schema("urn:acme:schema:d6:1", "draft6.json"),
            json_schema("urn:acme:schema:d2019:1", "draft201909.json"),
        ])
        .unwrap();
        let guard = Guard::new(registry);
        // Draft 4's boolean exclusiveMaximum.
        assert!(guard
            .validate("urn:acme:schema:d4:1", br#"{"n": 9.5}"#)
            .unwrap()
            .is_validated());
        assert!(guard
            .validate("urn:acme:schema:d4:1", br#"{"n": 10}"#)
            .is_err());
        // Draft 6's propertyNames.
        assert!(guard
            .validate("urn:acme:schema:d6:1", br#"{"abc": 1}"#)
            .unwrap()
            .is_validated());
        assert!(guard
            .validate("urn:acme:schema:d6:1", br#"{"abcd": 1}"#)
            .is_err());
        assert!(guard
            .validate("urn:acme:schema:d2019:1", b"[1, 2]")
            .unwrap()
            .is_validated());
        assert!(guard
            .validate("urn:acme:schema:d2019:1", b"[1, 2, 3]")
            .is_err());
    }

    #[test]
    fn an_unusable_schema_fails_open_and_is_compiled_once() {
        let calls = Arc::new(AtomicUsize::new(0));
        let registry = registry_holding(vec![
            json_schema("urn:acme:schema:broken:1", "does_not_compile.json"),
            json_schema("urn:acme:schema:dangling:1", "refs_unknown.json"),
            json_schema("urn:acme:schema:remote:1", "refs_http.json"),
        ]);
        let guard = Guard::new(Counting {
            inner: registry,
            calls: Arc::clone(&calls),
        });
        for _ in 0..3 {
            match guard.validate("urn:acme:schema:broken:1", b"{}") {
                Ok(Outcome::Unvalidated(u)) => {
                    assert_eq!(u.reason(), Reason::Unusable);
                    assert!(matches!(u.error(), Error::SchemaUnusable { .. }));
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "the unusable result is remembered"
        );
        assert_eq!(
            reason_of(guard.validate("urn:acme:schema:dangling:1", b"{}")),
            Reason::Unusable
        );
        assert_eq!(
            reason_of(guard.validate("urn:acme:schema:remote:1", b"{}")),
            Reason::Unusable
        );
        assert_eq!(guard.unvalidated(), 5);
    }

    /// A fallback that is down until told otherwise.
    struct Flaky {
        inner: Registry,
        up: Arc<std::sync::atomic::AtomicBool>,
    }

    impl Resolver for Flaky {
        fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
            if self.up.load(Ordering::SeqCst) {
                self.inner.resolve(urn)
            } else {
                Err(Error::Unreachable {
                    urn: urn.clone(),
                    source: "connection refused".into(),
                })
            }
        }
    }

    #[test]
    fn a_ref_whose_registry_is_down_fails_open_and_is_not_remembered() {
        // With no retry delay, the next message compiles again at once
        // (tests/guard/retry.rs covers the delay itself).
        let primary = registry_holding(vec![Schema::json(
            urn("urn:acme:schema:outer:1"),
            r#"{"properties": {"inner": {"$ref": "urn:acme:schema:inner:1"}}}"#,
        )]);
        let remote = Registry::embed([Schema::json(
            urn("urn:acme:schema:inner:1"),
            r#"{"type": "integer"}"#,
        )])
        .unwrap();
        let up = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let guard = Guard::builder(primary)
            .fallback(Flaky {
                inner: remote,
                up: Arc::clone(&up),
            })
            .retry_after(std::time::Duration::ZERO)
            .build();
        match guard.validate("urn:acme:schema:outer:1", br#"{"inner": 1}"#) {
            Ok(Outcome::Unvalidated(u)) => {
                assert_eq!(u.reason(), Reason::Unreachable);
                assert!(u.to_string().contains("urn:acme:schema:inner:1"), "{u}");
            }
            other => panic!("{other:?}"),
        }
        up.store(true, Ordering::SeqCst);
        assert!(guard
            .validate("urn:acme:schema:outer:1", br#"{"inner": 1}"#)
            .unwrap()
            .is_validated());
        assert!(guard
            .validate("urn:acme:schema:outer:1", br#"{"inner": "one"}"#)
            .is_err());
    }

    #[test]
    fn validate_json_checks_a_parsed_value() {
        let guard = Guard::new(samples());
        let value: serde_json::Value =
            serde_json::from_slice(&read("payloads/order_valid.json")).unwrap();
        assert!(guard
            .validate_json(ORDER_V1, &value)
            .unwrap()
            .is_validated());
        let bad = serde_json::json!({"order_id": 1});
        assert!(guard.validate_json(ORDER_V1, &bad).is_err());
        assert!(matches!(
            guard.validate_json("", &bad),
            Ok(Outcome::NoSchema)
        ));
    }

    #[test]
    fn non_canonical_spellings_of_a_urn_share_one_cache_entry() {
        let calls = Arc::new(AtomicUsize::new(0));
        let guard = Guard::new(Counting {
            inner: samples(),
            calls: Arc::clone(&calls),
        });
        let payload = read("payloads/order_valid.json");
        for spelling in [
            ORDER_V1,
            "URN:ACME:schema:orders.created:1",
            "urn:Acme:schema:orders.created:1",
        ] {
            assert!(guard.validate(spelling, &payload).unwrap().is_validated());
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    /// Each thread remembers the entry it last validated with, by the
    /// cache's identity: two guards holding different schemas under one
    /// URN, used in turn on one thread, and guards dropped and replaced
    /// (a new one may take the old one's address), each give their own
    /// schema's verdict.
    #[test]
    fn guards_holding_one_urn_each_keep_their_own_schema() {
        const URN: &str = "urn:acme:schema:hot.slot:1";
        let guard_of =
            |schema: &str| Guard::new(Registry::embed([Schema::json(urn(URN), schema)]).unwrap());
        let strings = r#"{"type": "string"}"#;
        let numbers = r#"{"type": "number"}"#;
        let (a, b) = (guard_of(strings), guard_of(numbers));
        for _ in 0..3 {
            assert!(a.validate(URN, br#""text""#).unwrap().is_validated());
            assert!(a.validate(URN, b"7").is_err());
            assert!(b.validate(URN, b"7").unwrap().is_validated());
            assert!(b.validate(URN, br#""text""#).is_err());
        }
        for round in 0..20 {
            let schema = if round % 2 == 0 { strings } else { numbers };
            let guard = guard_of(schema);
            let (good, bad): (&[u8], &[u8]) = if round % 2 == 0 {
                (br#""text""#, b"7")
            } else {
                (b"7", br#""text""#)
            };
            assert!(
                guard.validate(URN, good).unwrap().is_validated(),
                "round {round}"
            );
            assert!(guard.validate(URN, bad).is_err(), "round {round}");
            drop(guard);
        }
        // Across threads, each its own remembered entry.
        std::thread::scope(|scope| {
            scope.spawn(|| assert!(b.validate(URN, br#""text""#).is_err()));
            scope.spawn(|| assert!(a.validate(URN, br#""text""#).unwrap().is_validated()));
        });
    }

    #[test]
    fn concurrent_first_uses_compile_once() {
        // Compiling orders.created:2 resolves its $ref (common.address:1)
        // through the guard's resolver once per compile: count those.
        struct RefCounting {
            inner: Registry,
            ref_lookups: Arc<AtomicUsize>,
        }
        impl Resolver for RefCounting {
            fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
                if urn.name() == "common.address" {
                    self.ref_lookups.fetch_add(1, Ordering::SeqCst);
                }
                self.inner.resolve(urn)
            }
        }
        let ref_lookups = Arc::new(AtomicUsize::new(0));
        let guard = Guard::new(RefCounting {
            inner: samples(),
            ref_lookups: Arc::clone(&ref_lookups),
        });
        let barrier = Arc::new(std::sync::Barrier::new(8));
        let payload = Arc::new(read("payloads/order_v2_valid.json"));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (guard, barrier, payload) =
                    (guard.clone(), Arc::clone(&barrier), Arc::clone(&payload));
                std::thread::spawn(move || {
                    barrier.wait();
                    guard.validate(ORDER_V2, &payload).unwrap().is_validated()
                })
            })
            .collect();
        assert!(handles.into_iter().all(|h| h.join().unwrap()));
        assert_eq!(
            ref_lookups.load(Ordering::SeqCst),
            1,
            "compiled exactly once"
        );
        for _ in 0..10 {
            guard.validate(ORDER_V2, &payload).unwrap();
        }
        assert_eq!(ref_lookups.load(Ordering::SeqCst), 1, "cached");
    }

    #[test]
    fn metrics_count_each_outcome_with_bounded_labels() {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        metrics::with_local_recorder(&recorder, || {
            let guard = Guard::new(samples());
            guard
                .validate(ORDER_V1, &read("payloads/order_valid.json"))
                .unwrap();
            guard
                .validate(ORDER_V1, &read("payloads/order_valid.json"))
                .unwrap();
            guard
                .validate(ORDER_V1, &read("payloads/order_invalid.json"))
                .unwrap_err();
            guard.validate("not a urn at all", b"{}").unwrap();
            guard
                .validate("urn:acme:schema:secret-token-123:1", b"{}")
                .unwrap();
            guard.validate("", b"{}").unwrap();
        });
        let mut counters = Vec::new();
        for (key, _, _, value) in snapshotter.snapshot().into_vec() {
            let key = key.key();
            let labels: Vec<(String, String)> = key
                .labels()
                .map(|l| (l.key().to_owned(), l.value().to_owned()))
                .collect();
            let DebugValue::Counter(n) = value else {
                panic!("not a counter")
            };
            counters.push((key.name().to_owned(), labels, n));
        }
        counters.sort();
        // Every reason's series exists from the guard's build, at zero
        // until counted (an alert on the rate sees it from the start).
        let reasons: Vec<&str> = counters
            .iter()
            .filter(|(name, _, _)| name == "dataschema_unvalidated_total")
            .map(|(_, labels, _)| labels[0].1.as_str())
            .collect();
        assert_eq!(
            reasons,
            [
                "no_validator",
                "not_a_urn",
                "not_found",
                "pattern_budget",
                "rule_unusable",
                "unreachable",
                "unresolvable",
                "unusable"
            ]
        );
        counters.retain(|(_, _, n)| *n > 0);
        let schema = |n: &str| vec![("schema".to_owned(), n.to_owned())];
        let reason = |r: &str| vec![("reason".to_owned(), r.to_owned())];
        assert_eq!(
            counters,
            vec![
                (
                    "dataschema_invalid_total".to_owned(),
                    schema("orders.created"),
                    1
                ),
                (
                    "dataschema_unvalidated_total".to_owned(),
                    reason("not_a_urn"),
                    1
                ),
                (
                    "dataschema_unvalidated_total".to_owned(),
                    reason("not_found"),
                    1
                ),
                (
                    "dataschema_validated_total".to_owned(),
                    schema("orders.created"),
                    2
                ),
            ]
        );
        // No label carries the raw dataschema string.
        assert!(counters.iter().all(|(_, labels, _)| labels
            .iter()
            .all(|(_, v)| !v.contains("secret") && !v.contains("not a urn"))));
    }

    /// The verdict on a payload the scanner refuses is final and counted
    /// when `validate` returns; `jsonschema`'s report comes when first read,
    /// the same as a parsed value's, and the same for the clones.
    #[test]
    fn an_invalid_payload_is_counted_before_its_report_is_read() {
        fn send_sync_clone<T: Send + Sync + Clone + 'static>(_: &T) {}
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        let payload = read("payloads/order_invalid.json");
        let invalid = metrics::with_local_recorder(&recorder, || {
            let guard = Guard::new(samples());
            assert_eq!(
                guard.json_engine(&urn(ORDER_V1)),
                Some(dataschema::validate::JsonEngine::Scanner)
            );
            let invalid = guard.validate(ORDER_V1, &payload).unwrap_err();
            let value: serde_json::Value = serde_json::from_slice(&payload).unwrap();
            let parsed = guard.validate_json(ORDER_V1, &value).unwrap_err();
            (invalid, parsed)
        });
        let (invalid, parsed) = invalid;
        let counted: u64 = snapshotter
            .snapshot()
            .into_vec()
            .into_iter()
            .filter(|(key, _, _, _)| key.key().name() == "dataschema_invalid_total")
            .map(|(_, _, _, value)| match value {
                DebugValue::Counter(n) => n,
                _ => panic!("not a counter"),
            })
            .sum();
        assert_eq!(counted, 2, "both counted before any report was read");
        send_sync_clone(&invalid);
        let clone = invalid.clone();
        let paths = |i: &dataschema::Invalid| -> Vec<(dataschema::ViolationKind, String)> {
            i.violations()
                .iter()
                .map(|v| (v.kind(), v.path().to_owned()))
                .collect()
        };
        assert!(!invalid.violations().is_empty());
        assert_eq!(paths(&invalid), paths(&parsed));
        assert_eq!(invalid.violations(), parsed.violations());
        // A clone made before the first read finds the same report on its
        // own read; one made after carries it.
        assert_eq!(clone.violations(), invalid.violations());
        assert_eq!(invalid.clone().violations(), invalid.violations());
        assert_eq!(invalid.to_string(), parsed.to_string());
    }
}

#[cfg(feature = "protobuf")]
mod protobuf {
    use super::*;
    use prost::Message;
    use prost_reflect::{DescriptorPool, DynamicMessage, Value};

    const SHIPPED: &str = "urn:acme:schema:orders.shipped:1";

    fn envelope_pool() -> DescriptorPool {
        DescriptorPool::decode(read("schemas/proto2.binpb").as_slice()).unwrap()
    }

    fn envelope_guard(reject_unknown: bool) -> Guard {
        let registry = Registry::embed([Schema::protobuf(
            urn("urn:acme:schema:envelope:1"),
            read("schemas/proto2.binpb"),
            "test.v1.Envelope",
        )])
        .unwrap();
        Guard::builder(registry)
            .reject_unknown_fields(reject_unknown)
            .build()
    }

    fn inner(pool: &DescriptorPool, code: Option<i32>) -> DynamicMessage {
        let mut inner = DynamicMessage::new(pool.get_message_by_name("test.v1.Inner").unwrap());
        if let Some(code) = code {
            inner.set_field_by_name("code", Value::I32(code));
        }
        inner
    }

    #[test]
    fn a_bundled_proto_validates_decodable_payloads() {
        let registry = samples();
        let schema = registry.resolve(&urn(SHIPPED)).unwrap();
        let pool = DescriptorPool::decode(schema.bytes()).unwrap();
        let mut message = DynamicMessage::new(
            pool.get_message_by_name("acme.orders.v1.OrderShipped")
                .unwrap(),
        );
        message.set_field_by_name("order_id", Value::String("ord_123456".into()));
        message.set_field_by_name("carrier", Value::String("DHL".into()));
        let guard = Guard::new(registry);
        assert!(guard
            .validate(SHIPPED, &message.encode_to_vec())
            .unwrap()
            .is_validated());
        assert!(
            guard.validate(SHIPPED, &[]).unwrap().is_validated(),
            "the empty message is valid proto3"
        );
        // Field 1 (string) with invalid UTF-8.
        let invalid = guard
            .validate(SHIPPED, &[0x0a, 0x02, 0xff, 0xfe])
            .unwrap_err();
        assert_eq!(invalid.urn().to_string(), SHIPPED);
        assert!(!invalid.violations().is_empty());
        // Truncated: a length past the end.
        assert!(guard.validate(SHIPPED, &[0x0a, 0x10, b'a']).is_err());
        // Wrong wire type for field 1 (varint for a string).
        assert!(guard.validate(SHIPPED, &[0x08, 0x01]).is_err());
    }

    #[test]
    fn proto2_required_fields_are_enforced_with_paths() {
        let pool = envelope_pool();
        let guard = envelope_guard(false);
        let mut envelope =
            DynamicMessage::new(pool.get_message_by_name("test.v1.Envelope").unwrap());
        envelope.set_field_by_name("id", Value::String("e1".into()));
        envelope.set_field_by_name("inner", Value::Message(inner(&pool, Some(1))));
        envelope.set_field_by_name(
            "items",
            Value::List(vec![
                Value::Message(inner(&pool, Some(2))),
                Value::Message(inner(&pool, None)),
            ]),
        );
        let invalid = guard
            .validate("urn:acme:schema:envelope:1", &envelope.encode_to_vec())
            .unwrap_err();
        let found: Vec<(&str, &str)> = invalid
            .violations()
            .iter()
            .map(|v| (v.path(), v.message()))
            .collect();
        assert_eq!(found, vec![("items[1].code", "required field missing")]);

        let mut missing_id = envelope.clone();
        missing_id.clear_field_by_name("id");
        missing_id.set_field_by_name("items", Value::List(vec![]));
        let invalid = guard
            .validate("urn:acme:schema:envelope:1", &missing_id.encode_to_vec())
            .unwrap_err();
        assert_eq!(invalid.violations()[0].path(), "id");

        envelope.set_field_by_name(
            "items",
            Value::List(vec![Value::Message(inner(&pool, Some(3)))]),
        );
        assert!(guard
            .validate("urn:acme:schema:envelope:1", &envelope.encode_to_vec())
            .unwrap()
            .is_validated());
    }

    #[test]
    fn unknown_fields_are_accepted_unless_the_guard_rejects_them() {
        let pool = envelope_pool();
        let mut envelope =
            DynamicMessage::new(pool.get_message_by_name("test.v1.Envelope").unwrap());
        envelope.set_field_by_name("id", Value::String("e1".into()));
        let mut bytes = envelope.encode_to_vec();
        bytes.extend_from_slice(&[0xa0, 0x06, 0x01]); // field 100, varint 1
        assert!(envelope_guard(false)
            .validate("urn:acme:schema:envelope:1", &bytes)
            .unwrap()
            .is_validated());
        let invalid = envelope_guard(true)
            .validate("urn:acme:schema:envelope:1", &bytes)
            .unwrap_err();
        assert!(
            invalid.violations()[0].message().contains("100"),
            "{invalid}"
        );
    }

    #[test]
    fn a_protobuf_schema_checks_json_values_in_the_json_mapping() {
        let guard = envelope_guard(false);
        let ok = serde_json::json!({"id": "e1", "inner": {"code": 4}});
        assert!(guard
            .validate_json("urn:acme:schema:envelope:1", &ok)
            .unwrap()
            .is_validated());
        let missing = serde_json::json!({"inner": {"code": 4}});
        assert!(guard
            .validate_json("urn:acme:schema:envelope:1", &missing)
            .is_err());
        let wrong_type = serde_json::json!({"id": "e1", "inner": {"code": "four"}});
        assert!(guard
            .validate_json("urn:acme:schema:envelope:1", &wrong_type)
            .is_err());
        // Unknown fields follow the guard's option, as for bytes.
        let extra = serde_json::json!({"id": "e1", "later": true});
        assert!(guard
            .validate_json("urn:acme:schema:envelope:1", &extra)
            .unwrap()
            .is_validated());
        assert!(envelope_guard(true)
            .validate_json("urn:acme:schema:envelope:1", &extra)
            .is_err());
    }

    #[test]
    fn unusable_protobuf_schemas_fail_open() {
        let registry = registry_holding(vec![
            Schema::protobuf(
                urn("urn:acme:schema:garbage:1"),
                vec![0xff, 0xff, 0xff],
                "a.B",
            ),
            Schema::protobuf(
                urn("urn:acme:schema:noroot:1"),
                read("schemas/proto2.binpb"),
                "test.v1.Missing",
            ),
        ]);
        let guard = Guard::new(registry);
        assert_eq!(
            reason_of(guard.validate("urn:acme:schema:garbage:1", b"")),
            Reason::Unusable
        );
        assert_eq!(
            reason_of(guard.validate("urn:acme:schema:noroot:1", b"")),
            Reason::Unusable
        );
    }
}

#[cfg(not(feature = "json"))]
#[test]
fn without_a_validator_the_guard_fails_open_with_no_validator() {
    let guard = Guard::new(samples());
    assert_eq!(
        reason_of(guard.validate(ORDER_V1, b"{}")),
        Reason::NoValidator
    );
    assert_eq!(
        reason_of(guard.validate(ORDER_V1, b"{}")),
        Reason::NoValidator
    );
    assert_eq!(guard.unvalidated(), 2);
}

#[cfg(not(feature = "protobuf"))]
#[test]
fn without_the_protobuf_validator_protobuf_schemas_fail_open() {
    let guard = Guard::new(samples());
    assert_eq!(
        reason_of(guard.validate("urn:acme:schema:orders.shipped:1", b"")),
        Reason::NoValidator
    );
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn dataschema() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            Just(ORDER_V1.to_owned()),
            Just(ORDER_V2.to_owned()),
            Just("urn:acme:schema:orders.shipped:1".to_owned()),
            Just("urn:acme:schema:customers.registered:1".to_owned()),
            "(?i)urn:acme:schema:[a-z.]{1,20}:[0-9]{1,3}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn validate_never_panics(dataschema in dataschema(), payload in proptest::collection::vec(any::<u8>(), 0..200)) {
            let guard = Guard::new(samples());
            let _ = guard.validate(&dataschema, &payload);
        }

        #[test]
        fn validate_never_panics_on_json_like_payloads(dataschema in dataschema(), payload in "[\\[\\]{}\":,a-z0-9 .-]{0,120}") {
            let guard = Guard::new(samples());
            let _ = guard.validate(&dataschema, payload.as_bytes());
        }
    }
}
