//! A schema whose compile failed for a reason that may pass (a `$ref` not
//! published yet, a `$ref`'s registry down or slow) is compiled again after
//! a bounded delay, one compile at a time per URN, and callers arriving
//! during a failing compile share its result instead of queueing for their
//! own.
#![cfg(feature = "json")]

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use common::urn;
use dataschema::{Compatibility, Error, Guard, Outcome, Reason, Registry, Resolver, Schema, Urn};

const OUTER: &str = "urn:acme:schema:outer:1";
const INNER: &str = "urn:acme:schema:inner:1";

fn outer() -> Schema {
    Schema::json(
        urn(OUTER),
        r#"{"properties": {"inner": {"$ref": "urn:acme:schema:inner:1"}}}"#,
    )
}

fn inner() -> Schema {
    Schema::json(urn(INNER), r#"{"type": "integer"}"#)
}

fn reason_of(outcome: Result<Outcome, dataschema::Invalid>) -> Reason {
    match outcome {
        Ok(Outcome::Unvalidated(u)) => u.reason(),
        other => panic!("expected Unvalidated, got {other:?}"),
    }
}

/// Counts the lookups of `inner:1` and can be made slow or down.
struct Remote {
    registry: Registry,
    lookups: Arc<AtomicUsize>,
    delay: Duration,
    down: bool,
}

impl Resolver for Remote {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if urn.name() == "inner" {
            self.lookups.fetch_add(1, Ordering::SeqCst);
        }
        thread::sleep(self.delay);
        if self.down {
            return Err(Error::Unreachable {
                urn: urn.clone(),
                source: "timed out".into(),
            });
        }
        self.registry.resolve(urn)
    }
}

#[test]
fn a_ref_published_later_is_picked_up_after_the_retry_delay() {
    // `publish` and `embed` refuse a dangling $ref; a store holds outer:1
    // unchecked, as a bundle built against a registry that had inner:1 would.
    let store = dataschema::MemoryStore::new();
    dataschema::Store::put(&store, &outer()).unwrap();
    let primary = Registry::new(store);

    let remote = Registry::new(dataschema::MemoryStore::new());
    let lookups = Arc::new(AtomicUsize::new(0));
    let guard = Guard::builder(primary)
        .fallback(Remote {
            registry: remote.clone(),
            lookups: Arc::clone(&lookups),
            delay: Duration::ZERO,
            down: false,
        })
        .retry_after(Duration::from_millis(300))
        .build();

    match guard.validate(OUTER, br#"{"inner": 1}"#) {
        Ok(Outcome::Unvalidated(u)) => {
            assert_eq!(u.reason(), Reason::Unusable);
            assert!(u.to_string().contains(INNER), "names the missing $ref: {u}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(lookups.load(Ordering::SeqCst), 1);

    remote.publish(inner(), Compatibility::None).unwrap();
    // Within the delay: the failure is shared, nothing is asked again.
    assert_eq!(
        reason_of(guard.validate(OUTER, br#"{"inner": 1}"#)),
        Reason::Unusable
    );
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        1,
        "no lookup within the delay"
    );

    thread::sleep(Duration::from_millis(350));
    assert!(guard
        .validate(OUTER, br#"{"inner": 1}"#)
        .unwrap()
        .is_validated());
    assert!(guard.validate(OUTER, br#"{"inner": "one"}"#).is_err());
    assert_eq!(lookups.load(Ordering::SeqCst), 2);
    // Compiled for good now: no further lookups.
    for _ in 0..5 {
        guard.validate(OUTER, br#"{"inner": 2}"#).unwrap();
    }
    assert_eq!(lookups.load(Ordering::SeqCst), 2);
}

#[test]
fn consecutive_passing_failures_double_the_delay() {
    let store = dataschema::MemoryStore::new();
    dataschema::Store::put(&store, &outer()).unwrap();
    let lookups = Arc::new(AtomicUsize::new(0));
    let guard = Guard::builder(Registry::new(store))
        .fallback(Remote {
            registry: Registry::new(dataschema::MemoryStore::new()),
            lookups: Arc::clone(&lookups),
            delay: Duration::ZERO,
            down: true,
        })
        .retry_after(Duration::from_millis(200))
        .build();
    let check = |expected: usize| {
        assert_eq!(
            reason_of(guard.validate(OUTER, br#"{"inner": 1}"#)),
            Reason::Unreachable
        );
        assert_eq!(lookups.load(Ordering::SeqCst), expected);
    };
    check(1); // failure 1: next try after 200 ms
    thread::sleep(Duration::from_millis(250));
    check(2); // failure 2: next try after 400 ms
    thread::sleep(Duration::from_millis(250));
    check(2); // 250 ms < 400 ms: not asked
    thread::sleep(Duration::from_millis(250));
    check(3); // 500 ms > 400 ms: asked again
}

#[test]
fn callers_during_a_failing_compile_share_its_result() {
    let store = dataschema::MemoryStore::new();
    dataschema::Store::put(&store, &outer()).unwrap();
    let lookups = Arc::new(AtomicUsize::new(0));
    let guard = Guard::builder(Registry::new(store))
        .fallback(Remote {
            registry: Registry::new(dataschema::MemoryStore::new()),
            lookups: Arc::clone(&lookups),
            delay: Duration::from_millis(200),
            down: true,
        })
        .build();
    let barrier = Arc::new(Barrier::new(16));
    let handles: Vec<_> = (0..16)
        .map(|_| {
            let (guard, barrier) = (guard.clone(), Arc::clone(&barrier));
            thread::spawn(move || {
                barrier.wait();
                reason_of(guard.validate(OUTER, br#"{"inner": 1}"#))
            })
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().unwrap(), Reason::Unreachable);
    }
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        1,
        "one compile, one lookup, for 16 concurrent callers"
    );
    assert_eq!(guard.unvalidated(), 16, "each message is counted");
    // Within the (default, 1 s) delay, later callers get the failure at once.
    assert_eq!(
        reason_of(guard.validate(OUTER, br#"{"inner": 1}"#)),
        Reason::Unreachable
    );
    assert_eq!(lookups.load(Ordering::SeqCst), 1);
}

#[test]
fn a_schema_that_cannot_compile_is_not_retried() {
    let store = dataschema::MemoryStore::new();
    let broken = Schema::json(urn("urn:acme:schema:broken:1"), r#"{"type": 12}"#);
    dataschema::Store::put(&store, &broken).unwrap();
    struct Counting(Registry, Arc<AtomicUsize>);
    impl Resolver for Counting {
        fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
            self.1.fetch_add(1, Ordering::SeqCst);
            self.0.resolve(urn)
        }
    }
    let calls = Arc::new(AtomicUsize::new(0));
    let guard = Guard::builder(Counting(Registry::new(store), Arc::clone(&calls)))
        .retry_after(Duration::ZERO)
        .build();
    for _ in 0..3 {
        assert_eq!(
            reason_of(guard.validate("urn:acme:schema:broken:1", b"{}")),
            Reason::Unusable
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1, "a lasting failure is kept");
}

/// Holds `outer:1` and `inner:1`; counts lookups of each; `inner:1` is down
/// and, while `gate` is set, each lookup of it blocks until released.
struct Gated {
    registry: Registry,
    outer_lookups: Arc<AtomicUsize>,
    inner_lookups: Arc<AtomicUsize>,
    gate: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
}

impl Resolver for Gated {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if urn.name() == "outer" {
            self.outer_lookups.fetch_add(1, Ordering::SeqCst);
            return self.registry.resolve(urn);
        }
        self.inner_lookups.fetch_add(1, Ordering::SeqCst);
        let (lock, released) = &*self.gate;
        let mut closed = lock.lock().unwrap();
        while *closed {
            let (next, timeout) = released
                .wait_timeout(closed, Duration::from_secs(10))
                .unwrap();
            closed = next;
            assert!(!timeout.timed_out(), "the gate was never opened");
        }
        Err(Error::Unreachable {
            urn: urn.clone(),
            source: "timed out".into(),
        })
    }
}

#[test]
fn a_fallback_urn_in_its_retry_window_is_not_looked_up_and_a_retry_blocks_nobody() {
    let store = dataschema::MemoryStore::new();
    dataschema::Store::put(&store, &outer()).unwrap();
    let (outer_lookups, inner_lookups) =
        (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let gate = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let guard = Guard::builder(Registry::new(dataschema::MemoryStore::new()))
        .fallback(Gated {
            registry: Registry::new(store),
            outer_lookups: Arc::clone(&outer_lookups),
            inner_lookups: Arc::clone(&inner_lookups),
            gate: Arc::clone(&gate),
        })
        .retry_after(Duration::from_millis(200))
        .build();
    assert_eq!(reason_of(guard.validate(OUTER, b"{}")), Reason::Unreachable);
    assert_eq!(outer_lookups.load(Ordering::SeqCst), 1);
    for _ in 0..20 {
        assert_eq!(reason_of(guard.validate(OUTER, b"{}")), Reason::Unreachable);
    }
    assert_eq!(
        outer_lookups.load(Ordering::SeqCst),
        1,
        "no lookup of the fallback's URN within the retry delay"
    );

    // After the delay, one caller retries and blocks in the registry; the
    // others keep getting the kept failure meanwhile.
    thread::sleep(Duration::from_millis(250));
    *gate.0.lock().unwrap() = true;
    let retrying = {
        let guard = guard.clone();
        thread::spawn(move || reason_of(guard.validate(OUTER, b"{}")))
    };
    while inner_lookups.load(Ordering::SeqCst) < 2 {
        thread::yield_now();
    }
    for _ in 0..5 {
        assert_eq!(reason_of(guard.validate(OUTER, b"{}")), Reason::Unreachable);
    }
    assert_eq!(
        inner_lookups.load(Ordering::SeqCst),
        2,
        "one retry at a time"
    );
    *gate.0.lock().unwrap() = false;
    gate.1.notify_all();
    assert_eq!(retrying.join().unwrap(), Reason::Unreachable);
}
