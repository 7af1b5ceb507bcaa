//! The producer half: [`Framer`] writes Confluent's wire format around a
//! payload it has validated, with the schema id from the lock (offline)
//! or the registry.
//!
//! ```
//! use dataschema::{Framer, Guard, Outcome, Registry, Schema, Urn};
//!
//! let urn: Urn = "urn:acme:schema:greeting:1".parse()?;
//! // Ids as a lock records them (`dataschema publish` writes its `[ids]`).
//! let registry = Registry::embed_with_ids(
//!     [Schema::json(urn.clone(), r#"{"type": "string"}"#)],
//!     [(urn.clone(), 7)],
//! )?;
//! let framer = Framer::new(registry.clone());
//!
//! let frame = framer.frame(&urn, br#""hi""#)?;
//! assert_eq!(frame, b"\0\0\0\0\x07\"hi\"");
//! // What consumers refuse is not framed.
//! let refused = framer.frame(&urn, b"42").unwrap_err();
//! assert_eq!(refused.reason(), dataschema::FrameReason::Invalid);
//! // A consumer's guard over the same schemas validates the frame.
//! assert!(matches!(Guard::new(registry).validate_framed(&frame), Ok(Outcome::Validated)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
pub mod metrics;

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ::metrics::Counter;
use dataschema_core::{Resolver, Urn};
use parking_lot::RwLock;

pub use self::error::{FrameError, FrameReason};
use crate::guard::{Guard, GuardBuilder, Invalid};

/// The magic byte of Confluent's wire format, version 0.
const MAGIC: u8 = 0;

/// The most prefixes a framer keeps by default, of URNs and of named
/// messages each ([`FramerBuilder::max_prefixes`]): as many as the schema
/// ids a guard remembers for `validate_framed` (65,536; a prefix costs
/// about 200 bytes).
pub const DEFAULT_MAX_PREFIXES: usize = 1 << 16;

/// Frames payloads as Confluent's serializers do, after validating them
/// as the consumers' [`Guard`]s will: magic byte 0, the schema id (4
/// bytes, big-endian), for protobuf the message indexes, then the payload.
///
/// Built like a guard, from the same resolvers:
/// `Framer::builder(registry).fallback(http).build()`. Ids come from
/// [`Resolver::id_of`]: a bundled [`Registry`](crate::Registry) answers
/// the ids its folder's lock records (offline, the common case), one over
/// a store its store's; for a URN the first resolver does not hold, or
/// holds without an id, the fallback is asked
/// ([`HttpResolver`](crate::http::HttpResolver): the id the registry
/// answers with the URN's schema, cached with it, one request for
/// concurrent callers, within its timeouts and request budget), and its
/// answer must agree with the first resolver's bytes and ids.
///
/// What cannot be framed is a [`FrameError`] with its [`FrameReason`],
/// counted in `dataschema_frame_errors_total{reason}`; never a frame with
/// a wrong or zero id. Each frame is counted in
/// `dataschema_framed_total{schema}`.
///
/// Cheap to clone, safe to share across threads. A URN's prefix (id and
/// message indexes) is found once and kept: an id never moves to other
/// bytes. What is kept is bounded ([`FramerBuilder::max_prefixes`]): a
/// fallback registry may answer any number of URNs, and past the bound
/// the prefixes kept are forgotten at once (found again when framed
/// again), counted in [`FramerStats::evictions`] and
/// `dataschema_frame_prefix_evictions_total`.
#[derive(Clone)]
pub struct Framer {
    inner: Arc<Inner>,
}

struct Inner {
    /// The resolver chain, the compiled validators and their cache.
    guard: Guard,
    /// The registry asked for the ids the first resolver lacks, by the
    /// schema's content.
    #[cfg(feature = "http")]
    registry: Option<crate::http::HttpResolver>,
    /// The prefix of each URN framed so far (the root message).
    prefixes: RwLock<HashMap<Urn, Arc<Prefix>, foldhash::fast::RandomState>>,
    /// The prefix of each named protobuf message framed so far.
    named: RwLock<HashMap<Named, Arc<Prefix>>>,
    /// The most entries of each map.
    max_prefixes: usize,
    /// Prefixes forgotten so far, the bound reached.
    evictions: AtomicU64,
    evicted: Counter,
    errors: [Counter; FrameReason::COUNT],
}

/// What a [`Framer`] keeps: see [`Framer::stats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FramerStats {
    /// The prefixes kept now (of URNs and of named messages).
    pub prefixes: usize,
    /// The prefixes forgotten so far because a map reached the bound.
    pub evictions: u64,
    /// The most prefixes kept of URNs, and of named messages, each
    /// ([`FramerBuilder::max_prefixes`]).
    pub bound: usize,
}

/// A URN and the full name of a protobuf message of it.
type Named = (Urn, Box<str>);

/// What a frame of one URN (and message) starts with.
struct Prefix {
    bytes: Box<[u8]>,
    framed: Counter,
}

impl fmt::Debug for Framer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Framer")
            .field("guard", &self.inner.guard)
            .field("prefixes", &self.inner.prefixes.read().len())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Framer`]: `Framer::builder(registry).fallback(..).build()`.
#[must_use]
pub struct FramerBuilder {
    guard: GuardBuilder,
    max_prefixes: usize,
    #[cfg(feature = "http")]
    registry: Option<crate::http::HttpResolver>,
}

impl fmt::Debug for FramerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FramerBuilder").finish_non_exhaustive()
    }
}

impl FramerBuilder {
    /// A second resolver, asked for what the first does not hold, and for
    /// the id of a URN the first holds without one (as
    /// [`GuardBuilder::fallback`], whose checks apply: the first resolver
    /// is the truth).
    pub fn fallback(mut self, resolver: impl Resolver + 'static) -> FramerBuilder {
        self.guard = self.guard.fallback(resolver);
        self
    }

    /// The registry that gives the ids the first resolver lacks (a bundle
    /// whose lock records no id for a URN), asked by the schema's
    /// content as Confluent's serializers ask:
    /// [`HttpResolver::id_of_schema`](crate::http::HttpResolver::id_of_schema)
    /// (through Confluent's API, the lookup of the schema's text under
    /// its subject, whatever version number the registry gave it;
    /// natively, the read of its URN, whose bytes must be the first
    /// resolver's). With
    /// [`auto_register`](crate::http::HttpResolverBuilder::auto_register)
    /// set on it, a schema the registry lacks is registered there
    /// (Confluent's `auto.register.schemas`; off by default). Cached with
    /// the resolver's bounds, single-flight, within its timeouts; a
    /// registry down is [`FrameReason::Unreachable`], a schema it lacks
    /// [`FrameReason::NoId`], a refused registration
    /// [`FrameReason::Refused`]: never a frame with a wrong or zero id.
    /// A lock's id still comes first; schemas the first resolver lacks
    /// come from the [`fallback`](FramerBuilder::fallback), whose ids are
    /// then its own.
    ///
    /// ```no_run
    /// use dataschema::http::{Api, HttpResolver};
    /// use dataschema::{Framer, Registry};
    ///
    /// # fn run(bundle: Registry) -> Result<(), dataschema::Error> {
    /// let registry = HttpResolver::builder("https://registry.example.invalid")
    ///     .api(Api::Confluent { namespace: "acme".into() })
    ///     .build()?;
    /// let framer = Framer::builder(bundle).registry(registry).build();
    /// # let _ = framer; Ok(()) }
    /// ```
    #[cfg(feature = "http")]
    pub fn registry(mut self, registry: crate::http::HttpResolver) -> FramerBuilder {
        self.registry = Some(registry);
        self
    }

    /// JSON Schema: whether `format` is asserted (default `true`); set it
    /// as the consumers' guards have it.
    pub fn assert_formats(mut self, yes: bool) -> FramerBuilder {
        self.guard = self.guard.assert_formats(yes);
        self
    }

    /// Protobuf: whether a field number the schema does not know makes the
    /// payload invalid (default `false`); set it as the consumers' guards
    /// have it.
    pub fn reject_unknown_fields(mut self, yes: bool) -> FramerBuilder {
        self.guard = self.guard.reject_unknown_fields(yes);
        self
    }

    /// JSON: whether a payload naming a key twice is refused (default
    /// `false`); set it as the consumers' guards have it.
    pub fn reject_duplicate_keys(mut self, yes: bool) -> FramerBuilder {
        self.guard = self.guard.reject_duplicate_keys(yes);
        self
    }

    /// How many prefixes (a frame's id and message indexes) the framer
    /// keeps, of URNs and of named protobuf messages each (default
    /// [`DEFAULT_MAX_PREFIXES`], at least 1). Past it the kept ones are
    /// forgotten at once and found again as they are framed (their
    /// schemas stay in the guard's bounded cache, their ids with the
    /// resolvers), counted in [`FramerStats::evictions`].
    pub fn max_prefixes(mut self, max: usize) -> FramerBuilder {
        self.max_prefixes = max.max(1);
        self
    }

    /// The framer. Its counters are bound here, to the `metrics` recorder
    /// installed now.
    pub fn build(self) -> Framer {
        Framer {
            inner: Arc::new(Inner {
                guard: self.guard.build(),
                #[cfg(feature = "http")]
                registry: self.registry,
                prefixes: RwLock::default(),
                named: RwLock::default(),
                max_prefixes: self.max_prefixes,
                evictions: AtomicU64::new(0),
                evicted: metrics::evictions_counter(),
                errors: metrics::error_counters(),
            }),
        }
    }
}

impl Framer {
    /// A framer reading schemas and ids through `resolver`.
    pub fn new(resolver: impl Resolver + 'static) -> Framer {
        Framer::builder(resolver).build()
    }

    /// A builder for a framer reading schemas and ids through `resolver`.
    pub fn builder(resolver: impl Resolver + 'static) -> FramerBuilder {
        FramerBuilder {
            guard: Guard::builder(resolver),
            max_prefixes: DEFAULT_MAX_PREFIXES,
            #[cfg(feature = "http")]
            registry: None,
        }
    }

    /// What the framer keeps now: its prefixes, those forgotten so far
    /// and the bound.
    pub fn stats(&self) -> FramerStats {
        FramerStats {
            prefixes: self.inner.prefixes.read().len() + self.inner.named.read().len(),
            evictions: self.inner.evictions.load(Ordering::Relaxed),
            bound: self.inner.max_prefixes,
        }
    }

    /// The Confluent frame of `payload` under the schema `urn` names:
    /// magic byte 0, the schema's id (4 bytes, big-endian), for protobuf
    /// the message indexes of the schema's root message (a rootless
    /// schema's first message), then the payload. The payload is first
    /// validated as a consumer's [`Guard::validate_framed`] validates the
    /// frame; a payload it would refuse is not framed
    /// ([`FrameReason::Invalid`]), nor one it would let through unchecked
    /// (schema not held, unusable, no validator, undecided: each its
    /// reason).
    pub fn frame(&self, urn: &Urn, payload: &[u8]) -> Result<Vec<u8>, FrameError> {
        self.counted(self.framed(urn, None, payload))
    }

    /// [`frame`](Framer::frame), for the protobuf message `message` (its
    /// full name, `acme.orders.v1.Order.Line`): any message of the
    /// schema's file (the root's, or a rootless schema's own), which
    /// consumers validate as the message the frame's indexes name. A
    /// message the schema does not hold, one of another file of its set,
    /// or a message named for a JSON Schema or Avro schema, is
    /// [`FrameReason::NoMessage`].
    pub fn frame_message(
        &self,
        urn: &Urn,
        message: &str,
        payload: &[u8],
    ) -> Result<Vec<u8>, FrameError> {
        self.counted(self.framed(urn, Some(message), payload))
    }

    /// The URN of the latest version of Confluent subject `subject` (its
    /// URN name, [`subject::name_of`](crate::subject::name_of)) in
    /// `namespace` that the first resolver holds: for producers that
    /// address schemas by topic
    /// ([`SubjectNameStrategy`](crate::subject::SubjectNameStrategy)).
    /// A bundle's versions are fixed for the process: look it up once per
    /// topic and keep it. `None` when no version is held (or the subject
    /// has no URN name).
    ///
    /// ```
    /// use dataschema::subject::SubjectNameStrategy;
    /// use dataschema::{Framer, Registry, Schema};
    ///
    /// let registry = Registry::embed_with_ids(
    ///     [
    ///         Schema::json("urn:acme:schema:orders-value:1".parse()?, "{}"),
    ///         Schema::json("urn:acme:schema:orders-value:2".parse()?, r#"{"type": "object"}"#),
    ///     ],
    ///     [("urn:acme:schema:orders-value:2".parse()?, 12)],
    /// )?;
    /// let framer = Framer::new(registry);
    /// let subject = SubjectNameStrategy::TopicName.subject("orders", false, "Order");
    /// let urn = framer.latest("acme", &subject).expect("a version is held");
    /// assert_eq!(urn.as_str(), "urn:acme:schema:orders-value:2");
    /// assert_eq!(framer.frame(&urn, b"{}")?, b"\0\0\0\0\x0c{}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn latest(&self, namespace: &str, subject: &str) -> Option<Urn> {
        let name = crate::subject::name_of(subject).ok()?;
        self.inner
            .guard
            .list_primary()
            .ok()?
            .into_iter()
            .filter(|urn| urn.namespace() == namespace && urn.name() == name)
            .max_by_key(Urn::version)
    }

    /// The schema id frames of `urn` carry (found as [`frame`](Framer::frame)
    /// finds it, and kept).
    pub fn id_of(&self, urn: &Urn) -> Result<u32, FrameError> {
        let prefix = self.counted(self.prefix(urn, None))?;
        let mut id = [0; 4];
        id.copy_from_slice(&prefix.bytes[1..5]);
        Ok(u32::from_be_bytes(id))
    }

    fn counted<T>(&self, result: Result<T, FrameError>) -> Result<T, FrameError> {
        if let Err(error) = &result {
            self.inner.errors[error.reason().index()].increment(1);
        }
        result
    }

    fn framed(
        &self,
        urn: &Urn,
        message: Option<&str>,
        payload: &[u8],
    ) -> Result<Vec<u8>, FrameError> {
        let prefix = self.prefix(urn, message)?;
        let mut frame = Vec::with_capacity(prefix.bytes.len() + payload.len());
        frame.extend_from_slice(&prefix.bytes);
        frame.extend_from_slice(payload);
        // The frame's body checked exactly as a consumer's guard checks it.
        let verdict = self
            .inner
            .guard
            .with_compiled(urn, |compiled| compiled.validate_framed_body(&frame[5..]))
            .map_err(|unvalidated| FrameError::unvalidated(urn, unvalidated))?;
        match verdict {
            Ok(()) => {
                prefix.framed.increment(1);
                Ok(frame)
            }
            Err(report) if report.undecided().is_some() => Err(FrameError::with_error(
                urn,
                FrameReason::PatternBudget,
                dataschema_core::Error::Other(report.undecided().unwrap_or_default().into()),
            )),
            Err(report) if report.unusable().is_some() => Err(FrameError::message(
                urn,
                report.unusable().unwrap_or_default().to_owned(),
            )),
            Err(report) => Err(FrameError::invalid(Invalid::reported(
                Arc::new(urn.clone()),
                report,
            ))),
        }
    }

    /// The prefix of frames of `urn` (and `message`): kept, or found now
    /// (the schema compiled, its message indexes, its id).
    fn prefix(&self, urn: &Urn, message: Option<&str>) -> Result<Arc<Prefix>, FrameError> {
        let kept = match message {
            None => self.inner.prefixes.read().get(urn).cloned(),
            Some(name) => self
                .inner
                .named
                .read()
                .get(&(urn.clone(), Box::from(name)))
                .cloned(),
        };
        if let Some(prefix) = kept {
            return Ok(prefix);
        }
        self.new_prefix(urn, message)
    }

    /// The id frames of `urn` carry: the first resolver's (a lock's);
    /// else the registry's for the schema's content, when one is set;
    /// else the fallback's.
    fn schema_id(&self, urn: &Urn) -> Result<u32, FrameError> {
        let guard = &self.inner.guard;
        #[cfg(feature = "http")]
        if let Some(registry) = &self.inner.registry {
            match guard.primary_id_of(urn) {
                Err(
                    dataschema_core::Error::NotFound { .. } | dataschema_core::Error::NoId { .. },
                ) => {
                    let schema = guard
                        .schema_of(urn)
                        .map_err(|err| FrameError::id(urn, err))?;
                    return match registry.id_of_schema(&schema) {
                        Ok(id) => Ok(id),
                        Err(err) => Err(FrameError::registry(urn, err)),
                    };
                }
                held => return held.map_err(|err| FrameError::id(urn, err)),
            }
        }
        guard.id_of(urn).map_err(|err| FrameError::id(urn, err))
    }

    #[cold]
    fn new_prefix(&self, urn: &Urn, message: Option<&str>) -> Result<Arc<Prefix>, FrameError> {
        let guard = &self.inner.guard;
        // The schema first: no id is asked for one that cannot be used.
        let indexes = guard
            .with_compiled(urn, |compiled| compiled.message_indexes(message))
            .map_err(|unvalidated| FrameError::unvalidated(urn, unvalidated))?
            .map_err(|why| FrameError::message(urn, why))?;
        let id = self.schema_id(urn)?;
        let mut bytes = Vec::with_capacity(5 + indexes.len());
        bytes.push(MAGIC);
        bytes.extend_from_slice(&id.to_be_bytes());
        bytes.extend_from_slice(&indexes);
        let prefix = Arc::new(Prefix {
            bytes: bytes.into_boxed_slice(),
            framed: metrics::framed_counter(urn.name()),
        });
        // Only URNs a resolver holds with an id get here, but a fallback
        // registry may answer any number of them: the maps are bounded.
        match message {
            None => self.keep(&self.inner.prefixes, urn.clone(), prefix.clone()),
            Some(name) => self.keep(
                &self.inner.named,
                (urn.clone(), Box::from(name)),
                prefix.clone(),
            ),
        }
        Ok(prefix)
    }

    /// Keeps `prefix` under `key` in `map`, first forgetting every
    /// prefix `map` keeps when it holds the bound already (counted).
    fn keep<K: Hash + Eq, S: BuildHasher>(
        &self,
        map: &RwLock<HashMap<K, Arc<Prefix>, S>>,
        key: K,
        prefix: Arc<Prefix>,
    ) {
        let mut map = map.write();
        if map.len() >= self.inner.max_prefixes && !map.contains_key(&key) {
            let forgotten = map.len() as u64;
            map.clear();
            map.shrink_to_fit();
            self.inner.evictions.fetch_add(forgotten, Ordering::Relaxed);
            self.inner.evicted.increment(forgotten);
        }
        map.insert(key, prefix);
    }
}
