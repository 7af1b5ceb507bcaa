//! What the resolver decides, without IO: the fetched schemas (an LRU in
//! bytes), the misses and failures remembered with their doubling delays,
//! the token bucket, the requests in flight (single-flight). Every call
//! takes the time as `now`, and the jitter of a failure's delay as a draw,
//! so tests run it on a clock of their own, without a socket or a thread.
//!
//! The caller (`super::flight`) holds it under one mutex and does the
//! rest: starts the fetch [`Policy::poll`] asks for, waits for a flight
//! to land, hands [`Policy::land`] what came back.

mod bucket;
mod cache;
mod marks;
mod pins;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use dataschema_core::{Schema, Urn};

pub(crate) use pins::Pins;

use super::{MAX_MISS_DELAY, MAX_RETRY_AFTER};

use bucket::Bucket;
use cache::SchemaCache;
use marks::Marks;

/// What a lookup is for: a URN, a registry id, or the id of a schema's
/// content (the framer's lookup of its text under its subject: its URN
/// and digest; the schema itself travels beside the key, to the fetch).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Key {
    Urn(Urn),
    Id(u32),
    Content(Urn, Box<str>),
}

/// Why a lookup brought no schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Miss {
    /// The registry answered `404`.
    Missing,
    /// Anything else: transport, status, nonsense, a refused answer, a
    /// limit of ours.
    Transient(String),
    /// Registering a schema (auto-registration) was refused by the
    /// registry (incompatible, a bad credential, other bytes under the
    /// URN): remembered like a transient failure.
    Refused(String),
}

/// What a fetch brought: the schema and the id it was answered with.
pub(crate) type Fetched = Result<(Schema, Option<u32>), Miss>;

/// What a lookup answers: the schema, and the id the registry answered
/// for it (for a lookup by id, that id).
pub(crate) type Landed = Result<(Schema, Option<u32>), Miss>;

/// A request in flight: its answer, once landed, for every lookup that
/// waited for it (kept here, not only in the cache, which may not keep it).
pub(crate) type Flight = Arc<OnceLock<Landed>>;

/// The policy's settings (see the builder for each).
pub(crate) struct Limits {
    pub(crate) budget: u32,
    pub(crate) max_in_flight: usize,
    pub(crate) max_misses: usize,
    pub(crate) miss_delay: Duration,
    pub(crate) retry_after: Duration,
    pub(crate) max_cached_bytes: usize,
}

/// What to do next for a lookup.
pub(crate) enum Step {
    /// The answer.
    Answer(Landed),
    /// A fetch of this key is in flight: wait until it lands.
    Wait(Flight),
    /// A fetch of this key is now in flight (the request budget taken):
    /// start it, and [`Policy::land`] what it brings (or
    /// [`Policy::abandon`] it).
    Fetch(Flight),
}

/// The resolver's memory and limits.
pub(crate) struct Policy {
    cache: SchemaCache,
    misses: Marks,
    failures: Marks,
    flights: HashMap<Key, Flight>,
    bucket: Bucket,
    max_in_flight: usize,
    miss_delay: Duration,
    retry_after: Duration,
}

impl Policy {
    /// An empty policy at `now`; the schemas of `pinned` URNs are kept
    /// outside the cache's bound.
    pub(crate) fn new(limits: &Limits, pinned: HashSet<Urn>, now: Instant) -> Policy {
        Policy {
            cache: SchemaCache::new(limits.max_cached_bytes, pinned),
            misses: Marks::new(limits.max_misses, false),
            failures: Marks::new(limits.max_misses, true),
            flights: HashMap::new(),
            bucket: Bucket::new(limits.budget, now),
            max_in_flight: limits.max_in_flight,
            miss_delay: limits.miss_delay,
            retry_after: limits.retry_after,
        }
    }

    /// The next step of a lookup of `key` at `now`: a kept schema, a
    /// remembered miss or failure, a flight to wait for, a refusal (too
    /// many in flight, no token left), or a new flight to start.
    pub(crate) fn poll(&mut self, key: &Key, now: Instant) -> Step {
        let hit = match key {
            Key::Urn(urn) => self.cache.get(urn),
            Key::Id(id) => self
                .cache
                .get_id(*id)
                .map(|(schema, _)| (schema, Some(*id))),
            // Kept when its bytes were answered with an id.
            Key::Content(urn, digest) => self
                .cache
                .get(urn)
                .filter(|(kept, id)| id.is_some() && kept.digest() == &**digest),
        };
        if let Some(hit) = hit {
            return Step::Answer(Ok(hit));
        }
        if self.misses.live(key, now).is_some() {
            return Step::Answer(Err(Miss::Missing));
        }
        if let Some(mark) = self.failures.live(key, now) {
            let why = mark.why().to_owned();
            return Step::Answer(Err(match mark.refused() {
                true => Miss::Refused(why),
                false => Miss::Transient(why),
            }));
        }
        if let Some(flight) = self.flights.get(key) {
            return Step::Wait(flight.clone());
        }
        if self.flights.len() >= self.max_in_flight {
            return Step::Answer(Err(Miss::Transient(
                "too many requests in flight to the registry".into(),
            )));
        }
        if !self.bucket.take(now) {
            return Step::Answer(Err(Miss::Transient("request budget exhausted".into())));
        }
        let flight = Flight::default();
        self.flights.insert(key.clone(), flight.clone());
        Step::Fetch(flight)
    }

    /// Lands the flight of `key` at `now` with what it `fetched`: a schema
    /// is kept (within the bound) and clears the marks of its key and URN;
    /// a `404` is remembered as a miss; anything else as a failure, its
    /// delay spread by `draw` (in `[0, 1)`). The flight's waiters get the
    /// answer.
    pub(crate) fn land(&mut self, key: &Key, fetched: Fetched, now: Instant, draw: f64) {
        let landed = match fetched {
            Ok((schema, id)) => {
                let urn = Key::Urn(schema.urn().clone());
                self.misses.remove(&urn);
                self.failures.remove(&urn);
                self.misses.remove(key);
                self.failures.remove(key);
                self.cache.insert(schema.clone(), id);
                Ok((schema, id))
            }
            Err(Miss::Missing) => {
                self.failures.remove(key);
                self.misses.insert(
                    key.clone(),
                    self.miss_delay,
                    MAX_MISS_DELAY,
                    "".into(),
                    now,
                    draw,
                );
                Err(Miss::Missing)
            }
            Err(failure @ (Miss::Transient(_) | Miss::Refused(_))) => {
                let (why, refused) = match &failure {
                    Miss::Refused(why) => (why.as_str(), true),
                    Miss::Transient(why) => (why.as_str(), false),
                    Miss::Missing => ("", false),
                };
                self.failures.insert(
                    key.clone(),
                    self.retry_after,
                    MAX_RETRY_AFTER,
                    why.into(),
                    now,
                    draw,
                );
                if refused {
                    self.failures.mark_refused(key);
                }
                Err(failure)
            }
        };
        if let Some(flight) = self.flights.remove(key) {
            let _ = flight.set(landed);
        }
    }

    /// Forgets the flight of `key`, which could not start: answers
    /// `why` to its waiters, remembers nothing.
    pub(crate) fn abandon(&mut self, key: &Key, why: String) {
        if let Some(flight) = self.flights.remove(key) {
            let _ = flight.set(Err(Miss::Transient(why)));
        }
    }

    /// How many fetched schemas are kept.
    pub(crate) fn cached_len(&self) -> usize {
        self.cache.len()
    }

    /// The bytes the cache's bound counts.
    pub(crate) fn cached_bytes(&self) -> usize {
        self.cache.bytes()
    }

    /// The bytes of the pinned schemas kept (outside the bound).
    pub(crate) fn pinned_bytes(&self) -> usize {
        self.cache.pinned_bytes()
    }

    /// How many misses are remembered.
    pub(crate) fn negative_len(&self) -> usize {
        self.misses.len()
    }

    /// How many failures are remembered.
    pub(crate) fn failure_len(&self) -> usize {
        self.failures.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn limits() -> Limits {
        Limits {
            budget: 20,
            max_in_flight: 4,
            max_misses: 100,
            miss_delay: Duration::from_secs(1),
            retry_after: Duration::from_millis(250),
            max_cached_bytes: 1 << 20,
        }
    }

    fn urn(name: &str) -> Urn {
        format!("urn:acme:schema:{name}:1").parse().unwrap()
    }

    fn key(name: &str) -> Key {
        Key::Urn(urn(name))
    }

    fn schema(name: &str) -> Schema {
        Schema::json(urn(name), r#"{"type": "string"}"#)
    }

    fn fetch(policy: &mut Policy, key: &Key, now: Instant) -> Flight {
        match policy.poll(key, now) {
            Step::Fetch(flight) => flight,
            Step::Wait(_) => panic!("{key:?}: asked to wait"),
            Step::Answer(answer) => panic!("{key:?}: answered {answer:?}"),
        }
    }

    fn answer(policy: &mut Policy, key: &Key, now: Instant) -> Landed {
        match policy.poll(key, now) {
            Step::Answer(answer) => answer,
            Step::Wait(_) => panic!("{key:?}: asked to wait"),
            Step::Fetch(_) => panic!("{key:?}: asked to fetch"),
        }
    }

    #[test]
    fn one_flight_per_key_its_waiters_get_its_answer_then_the_cache_does() {
        let now = Instant::now();
        let mut policy = Policy::new(&limits(), HashSet::new(), now);
        let a = key("a");
        let flight = fetch(&mut policy, &a, now);
        let Step::Wait(waited) = policy.poll(&a, now) else {
            panic!("a second lookup must wait for the first's flight");
        };
        assert!(Arc::ptr_eq(&flight, &waited));
        assert!(waited.get().is_none());
        policy.land(&a, Ok((schema("a"), Some(7))), now, 0.0);
        assert_eq!(waited.get(), Some(&Ok((schema("a"), Some(7)))));
        assert_eq!(answer(&mut policy, &a, now), Ok((schema("a"), Some(7))));
        // The id it was answered with finds it too, without a request.
        assert_eq!(
            answer(&mut policy, &Key::Id(7), now),
            Ok((schema("a"), Some(7)))
        );
        assert_eq!(policy.cached_len(), 1);
    }

    #[test]
    fn a_miss_is_remembered_for_its_delay_doubling_while_consecutive() {
        let start = Instant::now();
        let mut policy = Policy::new(&limits(), HashSet::new(), start);
        let a = key("a");
        let mut now = start;
        for expected in [1000, 2000, 4000] {
            let flight = fetch(&mut policy, &a, now);
            policy.land(&a, Err(Miss::Missing), now, 0.5);
            assert_eq!(flight.get(), Some(&Err(Miss::Missing)));
            let end = now + expected * MS;
            assert_eq!(answer(&mut policy, &a, end - MS), Err(Miss::Missing));
            // No jitter on misses: asked again exactly at its end.
            now = end;
        }
        assert_eq!(policy.negative_len(), 1);
        assert_eq!(policy.failure_len(), 0);
        // Found at last: the miss is forgotten.
        fetch(&mut policy, &a, now);
        policy.land(&a, Ok((schema("a"), None)), now, 0.0);
        assert_eq!(policy.negative_len(), 0);
        assert_eq!(answer(&mut policy, &a, now), Ok((schema("a"), None)));
    }

    #[test]
    fn a_failure_is_no_miss_and_is_retried_after_its_jittered_delay() {
        let start = Instant::now();
        let mut policy = Policy::new(&limits(), HashSet::new(), start);
        let a = key("a");
        fetch(&mut policy, &a, start);
        policy.land(&a, Err(Miss::Transient("HTTP 500".into())), start, 0.999);
        assert_eq!(policy.negative_len(), 0);
        assert_eq!(policy.failure_len(), 1);
        // 250 ms plus up to a quarter (the draw): about 312 ms.
        let down = Err(Miss::Transient("HTTP 500".into()));
        assert_eq!(answer(&mut policy, &a, start + 311 * MS), down);
        let now = start + 313 * MS;
        fetch(&mut policy, &a, now);
        // Consecutive: 500 ms (draw 0), then 1 s.
        policy.land(&a, Err(Miss::Transient("HTTP 500".into())), now, 0.0);
        assert_eq!(answer(&mut policy, &a, now + 499 * MS), down);
        fetch(&mut policy, &a, now + 500 * MS);
        // A miss after failures clears the failure.
        policy.land(&a, Err(Miss::Missing), now + 500 * MS, 0.0);
        assert_eq!(policy.failure_len(), 0);
        assert_eq!(policy.negative_len(), 1);
    }

    #[test]
    fn the_failure_delay_stops_doubling_at_its_max() {
        let start = Instant::now();
        let mut limits = limits();
        limits.retry_after = Duration::from_secs(4);
        let mut policy = Policy::new(&limits, HashSet::new(), start);
        let a = key("a");
        let mut now = start;
        for expected in [4, 8, 10, 10] {
            fetch(&mut policy, &a, now);
            policy.land(&a, Err(Miss::Transient("down".into())), now, 0.0);
            let end = now + Duration::from_secs(expected);
            assert!(matches!(
                answer(&mut policy, &a, end - MS),
                Err(Miss::Transient(_))
            ));
            now = end;
        }
    }

    #[test]
    fn the_budget_and_the_flights_cap_refuse_without_remembering() {
        let now = Instant::now();
        let mut limits = limits();
        limits.budget = 3;
        limits.max_in_flight = 2;
        let mut policy = Policy::new(&limits, HashSet::new(), now);
        fetch(&mut policy, &key("a"), now);
        fetch(&mut policy, &key("b"), now);
        assert_eq!(
            answer(&mut policy, &key("c"), now),
            Err(Miss::Transient(
                "too many requests in flight to the registry".into()
            ))
        );
        policy.land(&key("a"), Err(Miss::Missing), now, 0.0);
        fetch(&mut policy, &key("c"), now);
        policy.land(&key("b"), Err(Miss::Missing), now, 0.0);
        policy.land(&key("c"), Err(Miss::Missing), now, 0.0);
        // Three tokens spent in this instant.
        let exhausted = Err(Miss::Transient("request budget exhausted".into()));
        assert_eq!(answer(&mut policy, &key("d"), now), exhausted);
        assert_eq!(answer(&mut policy, &key("d"), now + 300 * MS), exhausted);
        // Nothing remembered for `d`: a token later, it is asked.
        assert_eq!(policy.negative_len(), 3);
        assert_eq!(policy.failure_len(), 0);
        fetch(&mut policy, &key("d"), now + 334 * MS);
    }

    #[test]
    fn an_abandoned_flight_answers_its_waiters_and_leaves_nothing() {
        let now = Instant::now();
        let mut policy = Policy::new(&limits(), HashSet::new(), now);
        let a = key("a");
        let flight = fetch(&mut policy, &a, now);
        policy.abandon(&a, "no thread".into());
        assert_eq!(
            flight.get(),
            Some(&Err(Miss::Transient("no thread".into())))
        );
        assert_eq!(policy.failure_len(), 0);
        fetch(&mut policy, &a, now + MS);
    }

    #[test]
    fn a_schema_over_the_bound_reaches_its_waiters_but_is_not_kept() {
        let now = Instant::now();
        let mut limits = limits();
        limits.max_cached_bytes = 100;
        let mut policy = Policy::new(&limits, HashSet::new(), now);
        let a = key("a");
        let flight = fetch(&mut policy, &a, now);
        policy.land(&a, Ok((schema("a"), None)), now, 0.0);
        assert_eq!(flight.get(), Some(&Ok((schema("a"), None))));
        assert_eq!(policy.cached_len(), 0);
        assert_eq!(policy.cached_bytes(), 0);
        // Asked again (no miss, no failure remembered).
        fetch(&mut policy, &a, now + MS);
    }

    #[test]
    fn a_found_id_clears_the_marks_of_its_urn() {
        let now = Instant::now();
        let mut policy = Policy::new(&limits(), HashSet::new(), now);
        let a = key("a");
        fetch(&mut policy, &a, now);
        policy.land(&a, Err(Miss::Missing), now, 0.0);
        let id = Key::Id(5);
        fetch(&mut policy, &id, now);
        policy.land(&id, Ok((schema("a"), Some(5))), now, 0.0);
        assert_eq!(policy.negative_len(), 0);
        assert_eq!(answer(&mut policy, &a, now), Ok((schema("a"), Some(5))));
    }
}
