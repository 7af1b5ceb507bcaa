//! The HTTP fallback resolver (feature `http`): a registry's native API or
//! its Confluent Schema Registry API, asked for the URNs (and schema ids)
//! a guard's bundle lacks.
//!
//! ```no_run
//! use std::time::Duration;
//! use dataschema::http::{Api, HttpResolver};
//! use dataschema::{Guard, Registry};
//!
//! # fn run(registry: Registry) -> Result<(), dataschema::Error> {
//! let fallback = HttpResolver::builder("https://registry.example.invalid")
//!     .api(Api::Native)
//!     .bearer("a read token")
//!     .timeout(Duration::from_secs(1))
//!     .build()?;
//! let guard = Guard::builder(registry).fallback(fallback).build();
//! # let _ = guard; Ok(()) }
//! ```
//!
//! # What it remembers
//!
//! * A fetched schema is kept for the life of the resolver: a URN's bytes
//!   never change. It is kept only once checked: the native API's
//!   `Dataschema-Digest` must be the `sha256:` of the body and its
//!   `Dataschema-Urn` the URN asked for (Confluent's answer must name the
//!   subject and version asked for), and a digest pinned with
//!   [`HttpResolverBuilder::expect`] (from a lock) must match, and so must
//!   an id pinned with [`HttpResolverBuilder::expect_id`] (a lock's
//!   `[ids]`): an id the lock records is asked for by its URN, and the
//!   registry must answer that id for it. Any other
//!   answer is refused as [`Error::Unreachable`]: never used, never kept.
//! * A `404` is remembered for [`HttpResolverBuilder::miss_delay`] (1 s),
//!   doubling on each consecutive miss up to one minute; within it the URN
//!   answers [`Error::NotFound`] without a request. At most
//!   [`HttpResolverBuilder::max_misses`] (10,000) misses are remembered;
//!   the oldest is forgotten first.
//! * A transient failure (connection refused, timeout, a `5xx`, a body
//!   that is not what the API answers, a refused answer) is never
//!   remembered as a miss: it answers [`Error::Unreachable`], and the URN
//!   is asked again after [`HttpResolverBuilder::retry_after`] (250 ms,
//!   doubling up to 10 s, plus up to a quarter at random), in a map
//!   bounded the same way.
//!
//! # What it sends
//!
//! Concurrent lookups of one URN share one request (single-flight). At
//! most [`HttpResolverBuilder::max_in_flight`] (4) requests run at once,
//! and at most [`HttpResolverBuilder::budget`] (20) start per second (a
//! token bucket): beyond either, a lookup answers [`Error::Unreachable`]
//! ("request budget exhausted") without a request and without remembering
//! a miss. A stream of a million random URNs from untrusted messages thus
//! sends about 20 requests a second and holds at most 20,000 small entries
//! (misses and failures); the guard keeps nothing for a URN nobody holds.
//! Every request has a connect timeout (500 ms) and a total timeout
//! (1.5 s, body included); no proxy from the environment is used, and no
//! redirect is followed: requests go to the configured registry only.
//! Credentials ([`HttpResolverBuilder::bearer`],
//! [`HttpResolverBuilder::basic`]) are sent with each request and never
//! printed: `Debug` redacts them.
//!
//! # Threads and async executors
//!
//! A request runs on a short-lived thread of its own (one per request in
//! flight, so at most four); the caller of [`Resolver::resolve`] waits for
//! it at most [`HttpResolverBuilder::blocking_wait`] (default: the total
//! timeout). In plain threads that is what you want: the message that
//! meets a new URN waits for its schema.
//!
//! Inside an async executor (tokio, async-std), where a guard's
//! synchronous `validate` must not block a worker, build the resolver with
//! `.blocking_wait(Duration::ZERO)`: a miss then starts the fetch in the
//! background and answers [`Error::Unreachable`] at once (the message
//! fails open, counted as `unreachable`), and the messages after the fetch
//! landed hit the cache. `validate` then never waits on the network.
//!
//! # APIs
//!
//! * [`Api::Native`]: `GET /schemas/{urn}` and `GET /ids/{id}` of
//!   `dataschema serve` (raw bytes and the `Dataschema-*` headers).
//! * [`Api::Confluent`]: `GET /subjects/{name}/versions/{version}` (subject
//!   = URN name, version = URN version, JSON Schema only) and, for ids,
//!   `GET /schemas/ids/{id}/versions` then the subject version it names;
//!   URNs outside its `namespace` are [`Error::NotFound`] without a
//!   request.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use dataschema_core::{Error, Language, Resolver, Schema, Urn};

/// Default connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// Default total timeout of a request, body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1500);
/// Default number of requests started per second at most.
pub const DEFAULT_BUDGET: u32 = 20;
/// Default number of requests in flight at most.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 4;
/// Default number of remembered misses (and of remembered failures).
pub const DEFAULT_MAX_MISSES: usize = 10_000;
/// Default time a `404` is remembered (doubling up to [`MAX_MISS_DELAY`]).
pub const DEFAULT_MISS_DELAY: Duration = Duration::from_secs(1);
/// The longest a `404` is remembered.
pub const MAX_MISS_DELAY: Duration = Duration::from_secs(60);
/// Default time before a URN that failed transiently is asked again
/// (doubling up to [`MAX_RETRY_AFTER`]).
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_millis(250);
/// The longest a transient failure is left alone.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);
/// The largest schema body read (larger answers are refused).
pub const MAX_SCHEMA_BYTES: u64 = 8 * 1024 * 1024;

/// Which API of the registry to speak.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Api {
    /// `dataschema serve`'s native API (the default).
    Native,
    /// Confluent Schema Registry's API: subject = URN name, version = URN
    /// version, for URNs of `namespace`.
    Confluent {
        /// The URN namespace the registry's subjects live in.
        namespace: String,
    },
}

enum Credentials {
    Bearer(String),
    Basic { user: String, password: String },
}

impl Credentials {
    fn header(&self) -> String {
        match self {
            Credentials::Bearer(token) => format!("Bearer {token}"),
            Credentials::Basic { user, password } => {
                format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))
            }
        }
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Configures an [`HttpResolver`]: see [`HttpResolver::builder`].
pub struct HttpResolverBuilder {
    base: String,
    api: Api,
    connect_timeout: Duration,
    timeout: Duration,
    blocking_wait: Option<Duration>,
    credentials: Option<Credentials>,
    budget: u32,
    max_in_flight: usize,
    max_misses: usize,
    miss_delay: Duration,
    retry_after: Duration,
    pins: HashMap<Urn, String>,
    id_pins: HashMap<Urn, u32>,
}

impl fmt::Debug for HttpResolverBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResolverBuilder")
            .field("base", &without_credential(&self.base))
            .field("api", &self.api)
            .field("timeout", &self.timeout)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<redacted>"),
            )
            .finish_non_exhaustive()
    }
}

impl HttpResolverBuilder {
    /// Which API to speak (default [`Api::Native`]).
    pub fn api(mut self, api: Api) -> Self {
        self.api = api;
        self
    }

    /// The connect timeout (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The total timeout of a request, body included (default
    /// [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long [`Resolver::resolve`] waits for a fetch (default: the total
    /// timeout). `Duration::ZERO` never waits: a miss starts the fetch in
    /// the background and answers [`Error::Unreachable`] at once, the way
    /// to use a guard inside an async executor.
    pub fn blocking_wait(mut self, wait: Duration) -> Self {
        self.blocking_wait = Some(wait);
        self
    }

    /// Sends `Authorization: Bearer <token>` (never printed).
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.credentials = Some(Credentials::Bearer(token.into()));
        self
    }

    /// Sends HTTP basic authentication (never printed).
    pub fn basic(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.credentials = Some(Credentials::Basic {
            user: user.into(),
            password: password.into(),
        });
        self
    }

    /// Requests started per second at most (default [`DEFAULT_BUDGET`],
    /// at least 1).
    pub fn budget(mut self, per_second: u32) -> Self {
        self.budget = per_second.max(1);
        self
    }

    /// Requests in flight at most (default [`DEFAULT_MAX_IN_FLIGHT`], at
    /// least 1).
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// Misses (and, separately, transient failures) remembered at most
    /// (default [`DEFAULT_MAX_MISSES`], at least 1).
    pub fn max_misses(mut self, entries: usize) -> Self {
        self.max_misses = entries.max(1);
        self
    }

    /// How long a `404` is first remembered (default
    /// [`DEFAULT_MISS_DELAY`]; doubles up to [`MAX_MISS_DELAY`]).
    pub fn miss_delay(mut self, delay: Duration) -> Self {
        self.miss_delay = delay;
        self
    }

    /// How long a URN that failed transiently is first left alone
    /// (default [`DEFAULT_RETRY_AFTER`]; doubles up to
    /// [`MAX_RETRY_AFTER`]).
    pub fn retry_after(mut self, delay: Duration) -> Self {
        self.retry_after = delay;
        self
    }

    /// Pins the digest (`sha256:<hex>`) a lock recorded for `urn`: an
    /// answer with other bytes is refused as [`Error::Unreachable`].
    pub fn expect(mut self, urn: Urn, digest: impl Into<String>) -> Self {
        self.pins.insert(urn, digest.into());
        self
    }

    /// Pins the registry id a lock's `[ids]` recorded for `urn`: an answer
    /// for `urn` with another id (or none) is refused as
    /// [`Error::Unreachable`], and a lookup of `id` asks for `urn` (by its
    /// URN, then checks the id), so the registry cannot hand another
    /// schema for an id the lock knows.
    pub fn expect_id(mut self, urn: Urn, id: u32) -> Self {
        self.id_pins.insert(urn, id);
        self
    }

    /// The resolver. Only `http://` and `https://` base URLs with a host
    /// are accepted.
    pub fn build(self) -> Result<HttpResolver, Error> {
        let base = self.base.trim_end_matches('/').to_owned();
        let uri: ureq::http::Uri = base
            .parse()
            .map_err(|err| bad_url(&base, &format!("{err}")))?;
        match uri.scheme_str() {
            Some("http") | Some("https") => {}
            _ => return Err(bad_url(&base, "only http and https are allowed")),
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(bad_url(&base, "no host"));
        }
        if uri.query().is_some() || base.contains('#') {
            return Err(bad_url(&base, "a base URL has no query or fragment"));
        }
        if let Api::Confluent { namespace } = &self.api {
            // The namespace must be one a URN can have.
            format!("urn:{namespace}:schema:probe:1").parse::<Urn>()?;
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(self.connect_timeout))
            .timeout_global(Some(self.timeout))
            .max_redirects(0)
            .proxy(None)
            .build()
            .into();
        let now = Instant::now();
        // An id pinned for several URNs (one content) is asked by the first.
        let mut pinned_ids: HashMap<u32, Urn> = HashMap::new();
        for (urn, id) in &self.id_pins {
            match pinned_ids.get(id) {
                Some(held) if held <= urn => {}
                _ => {
                    pinned_ids.insert(*id, urn.clone());
                }
            }
        }
        Ok(HttpResolver {
            shared: Arc::new(Shared {
                agent,
                base,
                api: self.api,
                authorization: self.credentials.as_ref().map(Credentials::header),
                blocking_wait: self.blocking_wait.unwrap_or(self.timeout),
                max_in_flight: self.max_in_flight,
                miss_delay: self.miss_delay,
                retry_after: self.retry_after,
                pins: self.pins,
                id_pins: self.id_pins,
                pinned_ids,
                state: Mutex::new(State {
                    schemas: HashMap::new(),
                    ids: HashMap::new(),
                    misses: Marks::new(self.max_misses, false),
                    failures: Marks::new(self.max_misses, true),
                    flights: HashSet::new(),
                    bucket: Bucket {
                        per_second: f64::from(self.budget),
                        tokens: f64::from(self.budget),
                        last: now,
                    },
                }),
                landed: Condvar::new(),
            }),
        })
    }
}

fn bad_url(base: &str, why: &str) -> Error {
    Error::Other(
        format!(
            "registry URL {:?} refused: {why}",
            dataschema_core::clip(&without_credential(base), 100)
        )
        .into(),
    )
}

/// `url` as it may be shown: a `user:password@` in its authority (which
/// the HTTP client sends as basic credentials) replaced by `***@`.
fn without_credential(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, url),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match scheme {
            Some(scheme) => format!("{scheme}://***{}", &rest[at..]),
            None => format!("***{}", &rest[at..]),
        },
        None => url.to_owned(),
    }
}

/// A [`Resolver`] asking a registry over HTTP, for a guard's fallback:
/// `Guard::builder(registry).fallback(HttpResolver::new(url)?)`. See the
/// [module docs](self) for what it remembers and sends. Cheap to clone
/// (clones share caches).
#[derive(Clone)]
pub struct HttpResolver {
    shared: Arc<Shared>,
}

impl fmt::Debug for HttpResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResolver")
            .field("base", &without_credential(&self.shared.base))
            .field("api", &self.shared.api)
            .field(
                "credentials",
                &self.shared.authorization.as_ref().map(|_| "<redacted>"),
            )
            .field("cached", &self.cached_len())
            .finish_non_exhaustive()
    }
}

struct Shared {
    agent: ureq::Agent,
    base: String,
    api: Api,
    authorization: Option<String>,
    blocking_wait: Duration,
    max_in_flight: usize,
    miss_delay: Duration,
    retry_after: Duration,
    pins: HashMap<Urn, String>,
    /// URN -> the id a lock recorded for it.
    id_pins: HashMap<Urn, u32>,
    /// Id -> a URN the lock records it for.
    pinned_ids: HashMap<u32, Urn>,
    state: Mutex<State>,
    landed: Condvar,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Key {
    Urn(Urn),
    Id(u32),
}

struct State {
    schemas: HashMap<Urn, Schema>,
    ids: HashMap<u32, Urn>,
    misses: Marks,
    failures: Marks,
    flights: HashSet<Key>,
    bucket: Bucket,
}

impl State {
    fn hit(&self, key: &Key) -> Option<Schema> {
        match key {
            Key::Urn(urn) => self.schemas.get(urn).cloned(),
            Key::Id(id) => self.schemas.get(self.ids.get(id)?).cloned(),
        }
    }
}

/// A token bucket: `per_second` requests a second, bursts of as many.
struct Bucket {
    per_second: f64,
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.per_second);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Remembered misses or failures: bounded, oldest forgotten first.
struct Marks {
    map: HashMap<Key, Mark>,
    order: VecDeque<(Key, u64)>,
    cap: usize,
    seq: u64,
    /// Adds up to a quarter of the delay at random, so that the clients of
    /// a registry that was down do not all come back at once.
    jitter: bool,
}

struct Mark {
    until: Instant,
    delay: Duration,
    seq: u64,
    why: Arc<str>,
}

impl Marks {
    fn new(cap: usize, jitter: bool) -> Marks {
        Marks {
            map: HashMap::new(),
            order: VecDeque::new(),
            cap,
            seq: 0,
            jitter,
        }
    }

    fn live(&self, key: &Key, now: Instant) -> Option<&Mark> {
        self.map.get(key).filter(|mark| mark.until > now)
    }

    fn insert(&mut self, key: Key, base: Duration, max: Duration, why: Arc<str>, now: Instant) {
        let delay = match self.map.get(&key) {
            // Consecutive: the delay doubles. Long after the last one: anew.
            Some(mark) if now < mark.until + mark.delay => (mark.delay * 2).min(max),
            _ => base.min(max),
        };
        self.seq += 1;
        let seq = self.seq;
        let extra = if self.jitter {
            delay.mul_f64(random_unit() / 4.0)
        } else {
            Duration::ZERO
        };
        self.map.insert(
            key.clone(),
            Mark {
                until: now + delay + extra,
                delay,
                seq,
                why,
            },
        );
        self.order.push_back((key, seq));
        while self.map.len() > self.cap {
            let Some((old, old_seq)) = self.order.pop_front() else {
                break;
            };
            if self.map.get(&old).is_some_and(|mark| mark.seq == old_seq) {
                self.map.remove(&old);
            }
        }
        if self.order.len() > 2 * self.cap + 16 {
            let map = &self.map;
            self.order
                .retain(|(key, seq)| map.get(key).is_some_and(|mark| mark.seq == *seq));
        }
    }

    fn remove(&mut self, key: &Key) {
        self.map.remove(key);
    }

    fn len(&self) -> usize {
        self.map.len()
    }
}

/// A number in `[0, 1)`, from the standard library's random hash keys.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Why a fetch did not bring a schema.
enum Failure {
    /// The registry answered `404`.
    Missing,
    /// Anything else: transport, status, nonsense, a refused answer.
    Transient(String),
}

type Fetched = Result<(Schema, Option<u32>), Failure>;

impl HttpResolver {
    /// A resolver for the native API at `base_url`, with the defaults.
    pub fn new(base_url: impl Into<String>) -> Result<HttpResolver, Error> {
        HttpResolver::builder(base_url).build()
    }

    /// Configures a resolver for the registry at `base_url`.
    pub fn builder(base_url: impl Into<String>) -> HttpResolverBuilder {
        HttpResolverBuilder {
            base: base_url.into(),
            api: Api::Native,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            blocking_wait: None,
            credentials: None,
            budget: DEFAULT_BUDGET,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_misses: DEFAULT_MAX_MISSES,
            miss_delay: DEFAULT_MISS_DELAY,
            retry_after: DEFAULT_RETRY_AFTER,
            pins: HashMap::new(),
            id_pins: HashMap::new(),
        }
    }

    /// How many fetched schemas are kept.
    #[doc(hidden)]
    pub fn cached_len(&self) -> usize {
        self.shared.state.lock().schemas.len()
    }

    /// How many misses (`404`s) are remembered.
    #[doc(hidden)]
    pub fn negative_len(&self) -> usize {
        self.shared.state.lock().misses.len()
    }

    /// How many transient failures are remembered.
    #[doc(hidden)]
    pub fn failure_len(&self) -> usize {
        self.shared.state.lock().failures.len()
    }

    fn lookup(&self, key: Key) -> Result<Schema, Failure> {
        let shared = &self.shared;
        let deadline = Instant::now() + shared.blocking_wait;
        let mut state = shared.state.lock();
        let mut started = false;
        loop {
            let now = Instant::now();
            if let Some(schema) = state.hit(&key) {
                return Ok(schema);
            }
            if state.misses.live(&key, now).is_some() {
                return Err(Failure::Missing);
            }
            if let Some(mark) = state.failures.live(&key, now) {
                return Err(Failure::Transient(mark.why.to_string()));
            }
            if state.flights.contains(&key) {
                if now >= deadline {
                    return Err(Failure::Transient(if started {
                        "the fetch is still running (waiting stopped)".into()
                    } else {
                        "another lookup's fetch is still running".into()
                    }));
                }
                shared.landed.wait_until(&mut state, deadline);
                continue;
            }
            if started {
                // Our fetch landed without leaving a trace (cannot happen).
                return Err(Failure::Transient("the fetch left no answer".into()));
            }
            if state.flights.len() >= shared.max_in_flight {
                return Err(Failure::Transient(
                    "too many requests in flight to the registry".into(),
                ));
            }
            if !state.bucket.take(now) {
                return Err(Failure::Transient("request budget exhausted".into()));
            }
            state.flights.insert(key.clone());
            let background = self.shared.clone();
            let flight = key.clone();
            let spawned = std::thread::Builder::new()
                .name("dataschema-http".into())
                .spawn(move || {
                    let fetched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        background.fetch(&flight)
                    }))
                    .unwrap_or_else(|_| Err(Failure::Transient("the fetch panicked".into())));
                    background.land(flight, fetched);
                });
            if let Err(err) = spawned {
                state.flights.remove(&key);
                return Err(Failure::Transient(format!(
                    "no thread for the fetch: {err}"
                )));
            }
            started = true;
            if shared.blocking_wait.is_zero() {
                return Err(Failure::Transient(
                    "fetch started in the background (blocking_wait is zero)".into(),
                ));
            }
        }
    }
}

impl Shared {
    fn land(&self, key: Key, fetched: Fetched) {
        let now = Instant::now();
        let mut state = self.state.lock();
        match fetched {
            Ok((schema, id)) => {
                let urn = schema.urn().clone();
                if let Some(id) = id {
                    state.ids.insert(id, urn.clone());
                }
                state.misses.remove(&Key::Urn(urn.clone()));
                state.failures.remove(&Key::Urn(urn.clone()));
                state.schemas.insert(urn, schema);
                state.misses.remove(&key);
                state.failures.remove(&key);
            }
            Err(Failure::Missing) => {
                state.failures.remove(&key);
                state
                    .misses
                    .insert(key.clone(), self.miss_delay, MAX_MISS_DELAY, "".into(), now);
            }
            Err(Failure::Transient(why)) => {
                state.failures.insert(
                    key.clone(),
                    self.retry_after,
                    MAX_RETRY_AFTER,
                    why.into(),
                    now,
                );
            }
        }
        state.flights.remove(&key);
        drop(state);
        self.landed.notify_all();
    }

    fn fetch(&self, key: &Key) -> Fetched {
        let fetched = match (&self.api, key) {
            (Api::Native, Key::Urn(urn)) => {
                self.native(&format!("/schemas/{urn}"))
                    .and_then(|(schema, id)| {
                        if schema.urn() == urn {
                            Ok((schema, id))
                        } else {
                            Err(Failure::Transient(format!(
                                "asked for {urn}, the registry answered {}",
                                schema.urn()
                            )))
                        }
                    })
            }
            // An id the lock knows: asked by its URN, whose id must match.
            (Api::Native, Key::Id(id)) if self.pinned_ids.contains_key(id) => {
                let urn = &self.pinned_ids[id];
                self.native(&format!("/schemas/{urn}"))
                    .and_then(|(schema, answered)| {
                        if schema.urn() == urn {
                            Ok((schema, answered))
                        } else {
                            Err(Failure::Transient(format!(
                                "asked for {urn}, the registry answered {}",
                                schema.urn()
                            )))
                        }
                    })
            }
            (Api::Confluent { .. }, Key::Id(id)) if self.pinned_ids.contains_key(id) => {
                self.confluent_version(&self.pinned_ids[id], Some(*id))
            }
            (Api::Native, Key::Id(id)) => {
                self.native(&format!("/ids/{id}"))
                    .and_then(|(schema, answered)| match answered {
                        Some(answered) if answered == *id => Ok((schema, Some(answered))),
                        _ => Err(Failure::Transient(format!(
                            "asked for id {id}, the registry answered id {answered:?}"
                        ))),
                    })
            }
            (Api::Confluent { .. }, Key::Urn(urn)) => self.confluent_version(urn, None),
            (Api::Confluent { namespace }, Key::Id(id)) => self.confluent_id(namespace, *id),
        }?;
        let (schema, id) = fetched;
        if let Some(pinned) = self.id_pins.get(schema.urn()) {
            if id != Some(*pinned) {
                return Err(Failure::Transient(format!(
                    "the registry answered {} with id {}, the lock pins id {pinned}",
                    schema.urn(),
                    id.map_or_else(|| "none".to_owned(), |id| id.to_string()),
                )));
            }
        }
        if let Some(pinned) = self.pins.get(schema.urn()) {
            if pinned != schema.digest() {
                return Err(Failure::Transient(format!(
                    "the registry answered {} with digest {}, the lock pins {pinned}",
                    schema.urn(),
                    schema.digest()
                )));
            }
        }
        Ok((schema, id))
    }

    fn get(
        &self,
        path: &str,
        accept: &str,
    ) -> Result<(u16, ureq::http::HeaderMap, Vec<u8>), Failure> {
        let url = format!("{}{path}", self.base);
        let mut request = self.agent.get(&url).header("Accept", accept);
        if let Some(authorization) = &self.authorization {
            request = request.header("Authorization", authorization);
        }
        let mut response = request
            .call()
            .map_err(|err| Failure::Transient(format!("GET {path}: {err}")))?;
        let status = response.status().as_u16();
        if status == 404 {
            return Err(Failure::Missing);
        }
        if status != 200 {
            return Err(Failure::Transient(format!("GET {path}: HTTP {status}")));
        }
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_SCHEMA_BYTES)
            .read_to_vec()
            .map_err(|err| Failure::Transient(format!("GET {path}: reading the body: {err}")))?;
        Ok((status, response.headers().clone(), body))
    }

    fn native(&self, path: &str) -> Result<(Schema, Option<u32>), Failure> {
        let (_, headers, body) = self.get(path, "*/*")?;
        let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
        let nonsense = |why: &str| Failure::Transient(format!("GET {path}: {why}"));
        let urn: Urn = header("dataschema-urn")
            .ok_or_else(|| nonsense("no Dataschema-Urn header"))?
            .parse()
            .map_err(|_| nonsense("Dataschema-Urn is not a URN"))?;
        let language: Language = header("dataschema-language")
            .ok_or_else(|| nonsense("no Dataschema-Language header"))?
            .parse()
            .map_err(|_| nonsense("unknown Dataschema-Language"))?;
        let digest = header("dataschema-digest")
            .ok_or_else(|| nonsense("no Dataschema-Digest header"))?
            .to_owned();
        let id = match header("dataschema-id") {
            Some(id) => Some(
                id.parse()
                    .map_err(|_| nonsense("Dataschema-Id is not an id"))?,
            ),
            None => None,
        };
        let root = header("dataschema-root").map(str::to_owned);
        let schema = Schema::new(urn, language, body, root.as_deref());
        if schema.digest() != digest {
            return Err(nonsense(&format!(
                "the body's digest is {}, Dataschema-Digest says {}",
                schema.digest(),
                dataschema_core::clip(&digest, 80)
            )));
        }
        Ok((schema, id))
    }

    /// `GET /subjects/{name}/versions/{version}`, checked to name them
    /// (and `id`, when given).
    fn confluent_version(&self, urn: &Urn, id: Option<u32>) -> Fetched {
        let path = format!("/subjects/{}/versions/{}", urn.name(), urn.version());
        let (_, _, body) = self.get(&path, "application/vnd.schemaregistry.v1+json")?;
        let nonsense = |why: &str| Failure::Transient(format!("GET {path}: {why}"));
        let value: serde_json::Value =
            serde_json::from_slice(&body).map_err(|_| nonsense("the body is not JSON"))?;
        if value["subject"].as_str() != Some(urn.name())
            || value["version"].as_u64() != Some(u64::from(urn.version()))
        {
            return Err(nonsense("the answer names another subject or version"));
        }
        let answered = value["id"]
            .as_u64()
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| nonsense("no id"))?;
        if id.is_some_and(|id| id != answered) {
            return Err(nonsense("the answer has another id"));
        }
        if value["schemaType"].as_str() != Some("JSON") {
            return Err(nonsense(
                "only JSON schemas are read from a Confluent registry",
            ));
        }
        let text = value["schema"]
            .as_str()
            .ok_or_else(|| nonsense("no schema"))?;
        Ok((
            Schema::json(urn.clone(), text.as_bytes().to_vec()),
            Some(answered),
        ))
    }

    fn confluent_id(&self, namespace: &str, id: u32) -> Fetched {
        let path = format!("/schemas/ids/{id}/versions");
        let (_, _, body) = self.get(&path, "application/vnd.schemaregistry.v1+json")?;
        let nonsense = |why: &str| Failure::Transient(format!("GET {path}: {why}"));
        let value: serde_json::Value =
            serde_json::from_slice(&body).map_err(|_| nonsense("the body is not JSON"))?;
        let first = value
            .as_array()
            .and_then(|pairs| pairs.first())
            .ok_or_else(|| nonsense("no subject version"))?;
        let subject = first["subject"]
            .as_str()
            .ok_or_else(|| nonsense("no subject"))?;
        let version = first["version"]
            .as_u64()
            .ok_or_else(|| nonsense("no version"))?;
        let urn: Urn = format!("urn:{namespace}:schema:{subject}:{version}")
            .parse()
            .map_err(|_| nonsense("the subject version is no URN"))?;
        self.confluent_version(&urn, Some(id))
    }
}

#[derive(Debug)]
struct IdUnreachable {
    id: u32,
    why: String,
}

impl fmt::Display for IdUnreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "registry unreachable while resolving schema id {}: {}",
            self.id, self.why
        )
    }
}

impl std::error::Error for IdUnreachable {}

impl Resolver for HttpResolver {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if let Api::Confluent { namespace } = &self.shared.api {
            if urn.namespace() != namespace {
                return Err(Error::NotFound { urn: urn.clone() });
            }
        }
        self.lookup(Key::Urn(urn.clone()))
            .map_err(|failure| match failure {
                Failure::Missing => Error::NotFound { urn: urn.clone() },
                Failure::Transient(why) => Error::Unreachable {
                    urn: urn.clone(),
                    source: why.into(),
                },
            })
    }

    fn resolve_id(&self, id: u32) -> Result<Schema, Error> {
        self.lookup(Key::Id(id)).map_err(|failure| match failure {
            Failure::Missing => Error::IdNotFound { id },
            Failure::Transient(why) => Error::Other(Box::new(IdUnreachable { id, why })),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (input, output) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), output);
        }
    }

    #[test]
    fn only_http_and_https() {
        for url in [
            "ftp://x",
            "file:///etc/passwd",
            "x",
            "http://",
            "http://h/?q=1",
        ] {
            assert!(HttpResolver::new(url).is_err(), "{url}");
        }
        assert!(HttpResolver::new("https://registry.example.invalid/").is_ok());
    }

    #[test]
    fn debug_redacts_credentials() {
        let builder = HttpResolver::builder("http://127.0.0.1:1").basic("u", "s3cret");
        assert!(!format!("{builder:?}").contains("s3cret"));
        let resolver = builder.build().unwrap();
        assert!(!format!("{resolver:?}").contains("s3cret"));
        let resolver = HttpResolver::builder("http://127.0.0.1:1")
            .bearer("t0ken")
            .build()
            .unwrap();
        assert!(!format!("{resolver:?}").contains("t0ken"));
    }

    #[test]
    fn a_credential_in_the_url_is_never_repeated() {
        for url in [
            "ftp://u:s3cret@x",
            "http://u:s3cret@bad host",
            "http://u:s3cret@[::1",
            "http://u:s3cret@h/?q=1",
        ] {
            let err = HttpResolver::new(url).unwrap_err().to_string();
            assert!(!err.contains("s3cret"), "{err}");
            assert!(err.contains("refused"), "{err}");
        }
        let builder = HttpResolver::builder("http://u:s3cret@127.0.0.1:1/");
        assert!(!format!("{builder:?}").contains("s3cret"));
        let resolver = builder.build().unwrap();
        let shown = format!("{resolver:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("127.0.0.1:1"), "{shown}");
    }

    #[test]
    fn marks_stay_under_their_cap_and_double() {
        let mut marks = Marks::new(3, false);
        let now = Instant::now();
        for id in 0..100 {
            marks.insert(
                Key::Id(id),
                Duration::from_secs(1),
                MAX_MISS_DELAY,
                "".into(),
                now,
            );
        }
        assert_eq!(marks.len(), 3);
        assert!(marks.order.len() <= 2 * 3 + 16);
        assert!(marks.live(&Key::Id(99), now).is_some());
        assert!(marks.live(&Key::Id(0), now).is_none());
        marks.insert(
            Key::Id(99),
            Duration::from_secs(1),
            MAX_MISS_DELAY,
            "".into(),
            now,
        );
        assert_eq!(marks.map[&Key::Id(99)].delay, Duration::from_secs(2));
    }

    #[test]
    fn the_bucket_refills_at_its_rate() {
        let start = Instant::now();
        let mut bucket = Bucket {
            per_second: 20.0,
            tokens: 20.0,
            last: start,
        };
        assert_eq!((0..100).filter(|_| bucket.take(start)).count(), 20);
        let later = start + Duration::from_millis(500);
        assert_eq!((0..100).filter(|_| bucket.take(later)).count(), 10);
    }
}
