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
//! * A fetched schema is kept (a URN's bytes never change), within
//!   [`HttpResolverBuilder::max_cached_bytes`] (64 MiB): past it the least
//!   recently used is forgotten, and a schema larger than the bound is
//!   used but not kept, so a registry answering every new URN with a big
//!   schema cannot grow the process past the bound. The schemas of URNs a
//!   lock pins ([`HttpResolverBuilder::expect`],
//!   [`HttpResolverBuilder::expect_id`]) are kept outside it. A schema is
//!   kept only once checked: the native API's
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
//! printed: `Debug` redacts them. A base URL holding a credential
//! (`user:password@`) is refused (the policy of
//! [`protocol::BaseUrl`](crate::protocol::BaseUrl)).
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
//!
//! A producer's ids by content ([`HttpResolver::id_of_schema`], what a
//! [`Framer`](crate::Framer) with a [`registry`](crate::FramerBuilder::registry)
//! asks): Confluent's `POST /subjects/{subject}` with the schema's text,
//! natively `GET /schemas/{urn}`; with
//! [`HttpResolverBuilder::auto_register`], `POST
//! /subjects/{subject}/versions` or `PUT /publish/schemas/{urn}` for a
//! schema the registry lacks. Nothing else writes.

//!
//! # Layout
//!
//! The wire protocol (header names, the schema answer's checks, the base
//! URL, the HTTP agent) is [`crate::protocol`]'s, shared with the server
//! and `dataschema publish`. Here: `builder` (the settings), `policy`
//! (what to remember and when to ask: the byte-bounded cache, misses and
//! failures with their doubling delays, the token bucket, the flights;
//! no IO, the time passed in), `flight` (the mutex, the condvar and the
//! fetch threads around the policy), `fetch` (which request a key sends,
//! the lock's pins checked), `confluent` (that API's answers) and
//! `content` (a producer's ids by content, and auto-registration).

mod builder;
mod confluent;
mod content;
mod fetch;
mod flight;
mod get;
mod policy;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use dataschema_core::{Error, Resolver, Schema, Urn};

pub use builder::HttpResolverBuilder;

use flight::Shared;
use policy::{Key, Miss};

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
/// Default bound on the bytes of fetched schemas kept (64 MiB: eight
/// schemas of [`MAX_SCHEMA_BYTES`], thousands of usual ones); see
/// [`HttpResolverBuilder::max_cached_bytes`].
pub const DEFAULT_MAX_CACHED_BYTES: usize = 64 * 1024 * 1024;

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
        let fetcher = &self.shared.fetcher;
        f.debug_struct("HttpResolver")
            .field("base", &fetcher.client.base())
            .field("api", &fetcher.api)
            .field(
                "credentials",
                &fetcher.client.has_credentials().then_some("<redacted>"),
            )
            .field("cached", &self.cached_len())
            .finish_non_exhaustive()
    }
}

impl HttpResolver {
    /// A resolver for the native API at `base_url`, with the defaults.
    pub fn new(base_url: impl Into<String>) -> Result<HttpResolver, Error> {
        HttpResolver::builder(base_url).build()
    }

    /// Configures a resolver for the registry at `base_url`.
    pub fn builder(base_url: impl Into<String>) -> HttpResolverBuilder {
        HttpResolverBuilder::new(&base_url.into())
    }

    /// How many fetched schemas are kept.
    #[doc(hidden)]
    pub fn cached_len(&self) -> usize {
        self.shared.policy.lock().cached_len()
    }

    /// The bytes of fetched schemas kept within
    /// [`HttpResolverBuilder::max_cached_bytes`] (pinned schemas not
    /// counted).
    #[doc(hidden)]
    pub fn cached_bytes(&self) -> usize {
        self.shared.policy.lock().cached_bytes()
    }

    /// The bytes of pinned schemas kept (outside the bound).
    #[doc(hidden)]
    pub fn pinned_bytes(&self) -> usize {
        self.shared.policy.lock().pinned_bytes()
    }

    /// How many misses (`404`s) are remembered.
    #[doc(hidden)]
    pub fn negative_len(&self) -> usize {
        self.shared.policy.lock().negative_len()
    }

    /// How many transient failures are remembered.
    #[doc(hidden)]
    pub fn failure_len(&self) -> usize {
        self.shared.policy.lock().failure_len()
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

impl HttpResolver {
    /// The schema of `urn` and the id the registry answered with it: one
    /// lookup, through the cache, the flights and the limits.
    fn lookup_urn(&self, urn: &Urn) -> Result<(Schema, Option<u32>), Error> {
        if let Api::Confluent { namespace } = &self.shared.fetcher.api {
            if urn.namespace() != namespace {
                return Err(Error::NotFound { urn: urn.clone() });
            }
        }
        self.shared
            .lookup(Key::Urn(urn.clone()), None)
            .map_err(|failure| match failure {
                Miss::Missing => Error::NotFound { urn: urn.clone() },
                Miss::Transient(why) | Miss::Refused(why) => Error::Unreachable {
                    urn: urn.clone(),
                    source: why.into(),
                },
            })
    }
}

/// Why a registry gave no id for a schema's content
/// ([`HttpResolver::id_of_schema`]), in [`Error::Other`]: a
/// [`Framer`](crate::Framer) counts the first as `no_id`, the second as
/// `refused`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum NoRegistryId {
    /// The registry holds no such schema (under the URN, or under its
    /// subject), and auto-registration is off.
    NotRegistered {
        /// The schema's URN.
        urn: Urn,
    },
    /// The registry refused to register it (incompatible with the
    /// subject's versions, a bad token, other bytes under the URN).
    Refused {
        /// The schema's URN.
        urn: Urn,
        /// The request and the registry's answer (escaped, clipped).
        why: String,
    },
}

impl fmt::Display for NoRegistryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoRegistryId::NotRegistered { urn } => write!(
                f,
                "the registry holds no schema {urn} (auto-registration is off: \
                 HttpResolverBuilder::auto_register)"
            ),
            NoRegistryId::Refused { urn, why } => {
                write!(f, "the registry refused to register {urn}: {why}")
            }
        }
    }
}

impl std::error::Error for NoRegistryId {}

impl HttpResolver {
    /// The id the registry holds `schema`'s content under, for a
    /// producer's frames: through Confluent's API, the lookup of its text
    /// under its subject (`POST /subjects/{subject}`, as Confluent's
    /// serializers do with `auto.register.schemas` off; JSON Schema and
    /// Avro), natively the read of its URN (`GET /schemas/{urn}`), whose
    /// bytes must be `schema`'s. With
    /// [`HttpResolverBuilder::auto_register`], a schema the registry does
    /// not hold is registered there. Cached with the schema, one request
    /// for concurrent callers, within the timeouts and the request
    /// budget; failures are remembered as a lookup's are. Never id 0.
    ///
    /// Errors: [`Error::NotFound`] for a URN outside a Confluent API's
    /// namespace; [`Error::Unreachable`] (registry down, slow, nonsense,
    /// other bytes under the URN, an id the lock's pins contradict);
    /// [`Error::Other`] with a [`NoRegistryId`] (not registered, or the
    /// registration refused).
    pub fn id_of_schema(&self, schema: &Schema) -> Result<u32, Error> {
        let urn = schema.urn();
        if let Api::Confluent { namespace } = &self.shared.fetcher.api {
            if urn.namespace() != namespace {
                return Err(Error::NotFound { urn: urn.clone() });
            }
        }
        let key = Key::Content(urn.clone(), schema.digest().into());
        match self.shared.lookup(key, Some(schema)) {
            Ok((_, Some(id))) if id != 0 => Ok(id),
            Ok(_) => Err(Error::NoId { urn: urn.clone() }),
            Err(Miss::Missing) => Err(Error::Other(Box::new(NoRegistryId::NotRegistered {
                urn: urn.clone(),
            }))),
            Err(Miss::Refused(why)) => Err(Error::Other(Box::new(NoRegistryId::Refused {
                urn: urn.clone(),
                why,
            }))),
            Err(Miss::Transient(why)) => Err(Error::Unreachable {
                urn: urn.clone(),
                source: why.into(),
            }),
        }
    }
}

impl Resolver for HttpResolver {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        self.lookup_urn(urn).map(|(schema, _)| schema)
    }

    fn resolve_id(&self, id: u32) -> Result<Schema, Error> {
        self.shared
            .lookup(Key::Id(id), None)
            .map(|(schema, _)| schema)
            .map_err(|failure| match failure {
                Miss::Missing => Error::IdNotFound { id },
                Miss::Transient(why) | Miss::Refused(why) => {
                    Error::Other(Box::new(IdUnreachable { id, why }))
                }
            })
    }

    /// The id the registry answers with `urn`'s schema (the native API's
    /// `Dataschema-Id`, Confluent's `id`), by the same lookup as
    /// [`resolve`](Resolver::resolve): cached with the schema, one request
    /// for concurrent callers, within the timeouts and the request
    /// budget, checked against the lock's pins. [`Error::NoId`] when the
    /// answer carried none.
    fn id_of(&self, urn: &Urn) -> Result<u32, Error> {
        match self.lookup_urn(urn)? {
            (_, Some(id)) => Ok(id),
            (_, None) => Err(Error::NoId { urn: urn.clone() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https() {
        for url in [
            "ftp://x",
            "file:///etc/passwd",
            "x",
            "http://",
            "http://h/?q=1",
        ] {
            let err = HttpResolver::new(url).unwrap_err().to_string();
            assert!(err.contains("refused"), "{url}: {err}");
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
        let shown = format!("{resolver:?}");
        assert!(!shown.contains("t0ken"), "{shown}");
        assert!(
            shown.contains("<redacted>") && shown.contains("127.0.0.1:1"),
            "{shown}"
        );
    }

    #[test]
    fn a_credential_in_the_url_is_refused_and_never_repeated() {
        for url in [
            "http://u:s3cret@127.0.0.1:1/",
            "ftp://u:s3cret@x",
            "http://u:s3cret@bad host",
            "http://u:s3cret@[::1",
            "http://u:s3cret@h/?q=1",
        ] {
            let builder = HttpResolver::builder(url);
            let shown = format!("{builder:?}");
            assert!(!shown.contains("s3cret"), "{shown}");
            let err = builder.build().unwrap_err().to_string();
            assert!(!err.contains("s3cret"), "{err}");
            assert!(
                err.contains("refused") && err.contains("credential"),
                "{err}"
            );
        }
    }
}
