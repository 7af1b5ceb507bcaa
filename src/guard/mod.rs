//! The [`Guard`]: validates each message against the schema its
//! `dataschema` names, fails closed on a payload that does not conform, and
//! fails open (counted) when the schema cannot be used.

mod cache;
mod chain;
mod framed;
pub mod metrics;
mod outcome;
mod read_as;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub use self::cache::CacheStats;
use self::cache::{Cache, Compile, Entry};
use self::chain::ResolverChain;
pub use self::framed::FRAME_URN;
use self::metrics::SchemaCounters;
pub use self::outcome::{Invalid, Outcome, Reason, RuleRefusal, Unvalidated};
pub use self::read_as::ReadAs;
use dataschema_core::rules::{ReadRules, RuleAction, RuleOutcome};
use dataschema_core::validate::{self as core, CompileError, Compiled, Options, Report};
use dataschema_core::{Error, Resolver, Schema, Urn};

/// The payload a verdict's rules read, as the caller handed it.
#[derive(Clone, Copy)]
pub(crate) enum Payload<'a> {
    /// Bytes (a payload addressed by URN: a JSON payload's text, an Avro
    /// datum, a protobuf message of the schema's root).
    Bytes(&'a [u8]),
    /// What follows the schema id in a Confluent frame: for protobuf the
    /// message indexes, then the body; for the other languages the body.
    Frame(&'a [u8]),
    /// A payload parsed as JSON already.
    Json(&'a serde_json::Value),
}

/// The read rules of `schema`, compiled on the compile stack (the CEL
/// parser recurses), with the form its payloads are read in for them;
/// `Err` when its rule set is malformed.
fn compile_rules(schema: &Schema, compiled: &Compiled) -> Result<Option<Box<ReadRules>>, Error> {
    let unusable = |source: dataschema_core::BoxError| Error::SchemaUnusable {
        urn: schema.urn().clone(),
        source,
    };
    if schema.rule_set().is_none() {
        return Ok(None);
    }
    let form = compiled.payload_form();
    dataschema_core::limits::on_compile_stack(|| ReadRules::compile_for(schema, form))
        .map_err(|error| unusable(Box::new(error)))?
        .map(|rules| rules.map(Box::new))
        .map_err(|error| unusable(Box::new(error)))
}

/// The `Invalid` of a payload a rule refused: one violation naming the
/// rule, its kind, type and action; routed to the dead-letter subject
/// when the action is `DLQ`.
pub(crate) fn rule_refusal(
    urn: &Arc<Urn>,
    failure: dataschema_core::rules::RuleFailure,
) -> Invalid {
    let action = failure.action.clone().unwrap_or(RuleAction::Error);
    let message = format!(
        "{} (rule {}, {} {}, action {})",
        failure.message,
        failure.rule,
        failure.kind.as_str(),
        failure.rule_type,
        action.as_str()
    );
    let violation = dataschema_core::Violation::new(
        failure.path,
        dataschema_core::ViolationKind::Rule,
        message,
    );
    let rule = RuleRefusal::new(&failure.rule, failure.kind, &failure.rule_type, action);
    Invalid::reported(Arc::clone(urn), Report::found(vec![violation])).refused_by(rule)
}

type FailOpenHook = dyn Fn(&str, &Unvalidated) + Send + Sync;

/// Validates payloads against the schemas their `dataschema` names.
///
/// | the message | result | counted in |
/// |---|---|---|
/// | empty `dataschema` | `Ok(Outcome::NoSchema)` | nothing |
/// | not a schema URN | `Ok(Outcome::Unvalidated(..))`, [`Reason::NotAUrn`] | `dataschema_unvalidated_total` |
/// | URN held nowhere | [`Reason::NotFound`] | same |
/// | fallback down, slow, or answering garbage | [`Reason::Unreachable`] | same |
/// | no validator compiled in for the language | [`Reason::NoValidator`] | same |
/// | schema unusable | [`Reason::Unusable`] | same |
/// | verdict hangs on a backtracking `pattern` match that ran out of budget | [`Reason::PatternBudget`] | same |
/// | a data-contract rule of the version cannot run here | [`Reason::RuleUnusable`] | same |
/// | payload does not conform (or a data-contract condition is false) | `Err(Invalid)` | `dataschema_invalid_total` |
/// | read as another version ([`Guard::read_as`]) that is not held, or a pair that cannot be resolved | [`Reason::Unresolvable`], the payload handed back as written | same |
/// | payload conforms | `Ok(Outcome::Validated)` | `dataschema_validated_total` |
///
/// A guard is cheap to clone and safe to share across threads. Each URN's
/// schema is compiled once, on first use, and kept.
///
/// ```
/// use dataschema::{Guard, Outcome, Reason, Registry, Schema, Urn};
///
/// let urn: Urn = "urn:acme:schema:greeting:1".parse()?;
/// let registry = Registry::embed([Schema::json(urn, r#"{"type": "string"}"#)])?;
/// let guard = Guard::new(registry);
///
/// assert!(matches!(guard.validate("urn:acme:schema:greeting:1", br#""hi""#), Ok(Outcome::Validated)));
/// assert!(guard.validate("urn:acme:schema:greeting:1", b"42").is_err());
/// match guard.validate("urn:acme:schema:unknown:1", b"{}") {
///     Ok(Outcome::Unvalidated(u)) => assert_eq!(u.reason(), Reason::NotFound),
///     other => panic!("{other:?}"),
/// }
/// assert_eq!(guard.unvalidated(), 1);
/// # Ok::<(), dataschema::Error>(())
/// ```
#[derive(Clone)]
pub struct Guard {
    inner: Arc<Inner>,
}

struct Inner {
    resolver: Arc<ResolverChain>,
    options: Options,
    cache: Cache,
    unvalidated: AtomicU64,
    unvalidated_counters: [::metrics::Counter; Reason::COUNT],
    on_fail_open: Option<Box<FailOpenHook>>,
    retry_after: Duration,
    /// Schema ids resolved so far (`validate_framed`).
    ids: parking_lot::RwLock<std::collections::HashMap<u32, Urn>>,
    /// Resolution plans made so far (`read_as`), bounded.
    plans: read_as::Plans,
    /// Whether a version compiled so far has read transforms (data
    /// contracts' `TRANSFORM` rules, run on what `read_as` hands back):
    /// until one has, `read_as` asks no version for them.
    transforms: std::sync::atomic::AtomicBool,
    /// Whether a version compiled so far has read rules at all: until
    /// one has, `read_as` asks no reader version for its conditions.
    rules: std::sync::atomic::AtomicBool,
}

impl fmt::Debug for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Guard")
            .field("options", &self.inner.options)
            .field("cached", &self.inner.cache.len())
            .field("unvalidated", &self.unvalidated())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Guard`]: `Guard::builder(registry).fallback(..).build()`.
#[must_use]
pub struct GuardBuilder {
    primary: Box<dyn Resolver>,
    fallback: Option<Box<dyn Resolver>>,
    options: Options,
    on_fail_open: Option<Box<FailOpenHook>>,
    retry_after: Duration,
    cache_bytes: usize,
}

/// The default of [`GuardBuilder::cache_bytes`]: 128 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 128 << 20;

/// The default first retry delay of a schema whose compile failed for a
/// passing reason: see [`GuardBuilder::retry_after`].
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);

impl GuardBuilder {
    /// A second resolver, consulted only when the first does not hold the
    /// URN (it answered [`Error::NotFound`]) or the schema id
    /// ([`Error::IdNotFound`]).
    ///
    /// The first resolver is the truth, and the fallback only adds to it:
    /// its answer for a schema id is refused when it names a URN the first
    /// holds with other bytes (or another language or root message), or,
    /// a URN the first records under another id
    /// ([`Resolver::id_of`]: a registry's, whose bundle's lock or store
    /// records ids, wrapped or not). The
    /// payload then fails open as `unreachable`, counted, and is never
    /// `Validated` against a claim the lock contradicts.
    pub fn fallback(mut self, resolver: impl Resolver + 'static) -> GuardBuilder {
        self.fallback = Some(Box::new(resolver));
        self
    }

    /// Called with the `dataschema` and the cause each time a payload is let
    /// through unchecked (for logging; the counter is kept regardless).
    pub fn on_fail_open(
        mut self,
        callback: impl Fn(&str, &Unvalidated) + Send + Sync + 'static,
    ) -> GuardBuilder {
        self.on_fail_open = Some(Box::new(callback));
        self
    }

    /// JSON Schema: whether `format` is asserted (default `true`). The
    /// formats asserted, `idn-email` and `idn-hostname` among them, are
    /// listed in the crate docs ("JSON payloads: exactly what is checked");
    /// any other `format` never makes a payload invalid.
    pub fn assert_formats(mut self, yes: bool) -> GuardBuilder {
        self.options.assert_formats = yes;
        self
    }

    /// Protobuf: whether a field number the schema does not know makes the
    /// payload invalid (default `false`: accepted, as protobuf accepts it).
    pub fn reject_unknown_fields(mut self, yes: bool) -> GuardBuilder {
        self.options.reject_unknown_fields = yes;
        self
    }

    /// How long a schema whose compile failed for a reason that may pass
    /// is left alone before it is compiled again (default
    /// [`DEFAULT_RETRY_AFTER`], 1 s). Such a failure is a `$ref` whose
    /// registry is unreachable (`unreachable`) or a `$ref` to a URN nobody
    /// holds yet (`unusable`): until the delay ends, messages of that URN
    /// fail open with the same reason without a compile or a lookup. The
    /// delay doubles with each consecutive failure, up to one minute, and
    /// is forgotten once a compile succeeds. A failure that cannot pass
    /// (the schema itself does not compile) is kept for good.
    pub fn retry_after(mut self, delay: Duration) -> GuardBuilder {
        self.retry_after = delay;
        self
    }

    /// How much the compiled validators of schemas the primary resolver
    /// does not hold (a fallback registry's) may count in all (default
    /// [`DEFAULT_CACHE_BYTES`], 128 MiB). Each counts an estimate of what
    /// it holds, from one scan of its schema's bytes: 4 KiB, twice the
    /// bytes, and 512 bytes per structural byte (`{`, `[`, `,`, `:`, `;`,
    /// `=`), an upper bound of what compiles were measured to keep. Past the
    /// bound, the entries not looked up for longest are evicted
    /// (`dataschema_guard_cache_evictions_total`,
    /// [`Guard::cache_stats`]) and compiled again if a message names them
    /// again. Schemas the primary holds (a bundle's) are kept for good and
    /// not counted against the bound: the bundle bounds them.
    pub fn cache_bytes(mut self, bytes: usize) -> GuardBuilder {
        self.cache_bytes = bytes;
        self
    }

    /// JSON: whether a payload whose object names a key twice is refused as
    /// not JSON (default `false`: the last value is kept, as serde_json
    /// keeps it). Turn it on when a consumer's own parser may keep the
    /// first value, which would then never have been checked. Costs nothing
    /// when off; applies to [`Guard::validate`] (a parsed
    /// `serde_json::Value` cannot hold duplicates).
    pub fn reject_duplicate_keys(mut self, yes: bool) -> GuardBuilder {
        self.options.reject_duplicate_keys = yes;
        self
    }

    /// The guard. Its counters are bound here, to the `metrics` recorder
    /// installed now (a schema's own counters when it is first compiled):
    /// install the exporter before building the guard.
    pub fn build(self) -> Guard {
        Guard {
            inner: Arc::new(Inner {
                resolver: Arc::new(ResolverChain {
                    primary: self.primary,
                    fallback: self.fallback,
                }),
                options: self.options,
                cache: Cache::new(self.cache_bytes),
                unvalidated: AtomicU64::new(0),
                unvalidated_counters: metrics::unvalidated_counters(),
                on_fail_open: self.on_fail_open,
                retry_after: self.retry_after,
                ids: Default::default(),
                plans: Default::default(),
                transforms: Default::default(),
                rules: Default::default(),
            }),
        }
    }
}

impl Guard {
    /// A guard reading schemas through `resolver`, with default options.
    pub fn new(resolver: impl Resolver + 'static) -> Guard {
        Guard::builder(resolver).build()
    }

    /// A builder for a guard reading schemas through `resolver`.
    pub fn builder(resolver: impl Resolver + 'static) -> GuardBuilder {
        GuardBuilder {
            primary: Box::new(resolver),
            fallback: None,
            options: Options::default(),
            on_fail_open: None,
            retry_after: DEFAULT_RETRY_AFTER,
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }

    /// Validates `payload` against the schema `dataschema` names.
    ///
    /// See the [outcome table](Guard). Never panics, whatever the inputs.
    #[inline]
    pub fn validate(&self, dataschema: &str, payload: &[u8]) -> Result<Outcome, Invalid> {
        self.run(dataschema, Payload::Bytes(payload), |compiled| {
            compiled.check(payload)
        })
    }

    /// Validates a payload the caller has already parsed as JSON (nothing is
    /// parsed twice). A protobuf schema checks the value in protobuf's JSON
    /// mapping.
    #[inline]
    pub fn validate_json(
        &self,
        dataschema: &str,
        payload: &serde_json::Value,
    ) -> Result<Outcome, Invalid> {
        self.run(dataschema, Payload::Json(payload), |compiled| {
            compiled.check_json(payload)
        })
    }

    /// Validates a CloudEvent: its `dataschema` attribute (none: no schema)
    /// and its data (JSON data is checked as parsed; none is an empty
    /// payload).
    #[cfg(feature = "cloudevents")]
    pub fn validate_event(&self, event: &cloudevents::Event) -> Result<Outcome, Invalid> {
        use cloudevents::event::{AttributesReader, Data};
        let dataschema = event.dataschema().map(|url| url.as_str()).unwrap_or("");
        match event.data() {
            Some(Data::Json(value)) => self.validate_json(dataschema, value),
            Some(Data::Binary(bytes)) => self.validate(dataschema, bytes),
            Some(Data::String(text)) => self.validate(dataschema, text.as_bytes()),
            None => self.validate(dataschema, &[]),
        }
    }

    /// Compiles every schema the primary resolver holds (its
    /// [`Resolver::list`]), so that the first message of each type pays no
    /// compile, and returns those that failed, each with its reason and
    /// error: a broken bundle is visible at start-up, before traffic
    /// arrives. Failures are kept as a message would leave them (lasting
    /// ones for good, passing ones for the retry delay). Errors only when
    /// the primary resolver cannot list what it holds.
    ///
    /// ```
    /// use dataschema::{Guard, Registry, Schema, Urn};
    ///
    /// let urn: Urn = "urn:acme:schema:greeting:1".parse()?;
    /// let guard = Guard::new(Registry::embed([Schema::json(urn, r#"{"type": "string"}"#)])?);
    /// assert!(guard.prepare()?.is_empty(), "everything compiled");
    /// # Ok::<(), dataschema::Error>(())
    /// ```
    pub fn prepare(&self) -> Result<Vec<Unvalidated>, Error> {
        let mut failed = Vec::new();
        for urn in self.inner.resolver.primary.list()? {
            let schema = match self.inner.resolver.primary.resolve(&urn) {
                Ok(schema) => schema,
                Err(error) => {
                    failed.push(Unvalidated::new(Reason::Unreachable, Arc::new(error)));
                    continue;
                }
            };
            let slot = self
                .inner
                .cache
                .slot(&urn, self.inner.resolver.primary.is_bounded());
            let entry = match slot.entry.get() {
                Some(entry) => Ok(entry),
                None => {
                    self.inner
                        .cache
                        .get_or_compile(&urn, &slot, self.inner.retry_after, || {
                            self.compile(schema, urn.clone())
                        })
                }
            };
            match entry {
                Ok(Entry::Ready { .. }) => {}
                Ok(Entry::Failed(unvalidated)) => failed.push(unvalidated.clone()),
                Err(unvalidated) => failed.push(unvalidated),
            }
        }
        Ok(failed)
    }

    /// Which engine checks the payload bytes of the JSON Schema `urn`
    /// names: the validating scanner, or `serde_json` and `jsonschema` for
    /// a schema the scanner does not cover. Compiles the schema as a first
    /// message would (and caches it); counts nothing. `None` when the
    /// schema is not a JSON Schema or cannot be used (its message would
    /// fail open).
    ///
    /// ```
    /// use dataschema::validate::JsonEngine;
    /// use dataschema::{Guard, Registry, Schema, Urn};
    ///
    /// let urn: Urn = "urn:acme:schema:greeting:1".parse()?;
    /// let guard = Guard::new(Registry::embed([Schema::json(urn.clone(), r#"{"type": "string"}"#)])?);
    /// assert_eq!(guard.json_engine(&urn), Some(JsonEngine::Scanner));
    /// # Ok::<(), dataschema::Error>(())
    /// ```
    #[cfg(feature = "json")]
    pub fn json_engine(&self, urn: &Urn) -> Option<dataschema_core::validate::JsonEngine> {
        // A slot only for a URN a resolver holds, as for a message.
        let slot = match self.inner.cache.existing(urn) {
            Some(slot) => slot,
            None => {
                let (_, pinned) = self.resolve_checked(urn).ok()?;
                self.inner.cache.slot(urn, pinned)
            }
        };
        let entry = match slot.entry.get() {
            Some(entry) => entry,
            None => {
                let (schema, _) = self.resolve_checked(urn).ok()?;
                self.inner
                    .cache
                    .get_or_compile(urn, &slot, self.inner.retry_after, || {
                        self.compile(schema, urn.clone())
                    })
                    .ok()?
            }
        };
        match entry {
            Entry::Ready { compiled, .. } => compiled.json_engine(),
            Entry::Failed(_) => None,
        }
    }

    /// What the compiled-validator cache holds now: its entries, the bytes
    /// they are counted as holding (evictable and pinned), the evictions
    /// so far and the bound ([`GuardBuilder::cache_bytes`]), and the schema
    /// ids remembered.
    pub fn cache_stats(&self) -> CacheStats {
        CacheStats {
            ids: self.inner.ids.read().len(),
            ..self.inner.cache.stats()
        }
    }

    /// How many payloads this guard let through without validating them.
    pub fn unvalidated(&self) -> u64 {
        self.inner.unvalidated.load(Ordering::Relaxed)
    }

    fn run(
        &self,
        dataschema: &str,
        payload: Payload<'_>,
        check: impl FnOnce(&Compiled) -> Result<(), Report>,
    ) -> Result<Outcome, Invalid> {
        if dataschema.is_empty() {
            return Ok(Outcome::NoSchema);
        }
        // Hottest path: a URN written in its canonical form (as producers
        // do), compiled already. Only URNs that parsed are keys, and a
        // canonical form parses to itself, so a hit is what parsing first
        // would find.
        let cache = &self.inner.cache;
        if let Some(entry) = cache.hot(dataschema) {
            return self.verdict(dataschema, entry, payload, check);
        }
        let snapshot = cache.snapshot();
        if let Some(entry) = snapshot.get(dataschema) {
            return self.verdict(dataschema, entry, payload, check);
        }
        drop(snapshot);
        let parsed = match dataschema_core::parse_urn(dataschema) {
            Ok(parsed) => parsed,
            Err(reason) => {
                let error = Error::invalid_urn(dataschema, reason);
                return Ok(self.fail_open(
                    dataschema,
                    Unvalidated::new(Reason::NotAUrn, Arc::new(error)),
                ));
            }
        };
        // Hot path: compiled already.
        let snapshot = cache.snapshot();
        if let Some(entry) = snapshot.get(&parsed.canonical) {
            return self.verdict(dataschema, entry, payload, check);
        }
        drop(snapshot);
        // Compiled, but not yet merged into the snapshot (a fallback's many
        // URNs): still no allocation.
        if let Some(slot) = cache.young(&parsed.canonical) {
            if let Some(entry) = slot.entry.get() {
                return self.verdict(dataschema, entry, payload, check);
            }
        }
        self.miss(dataschema, Urn::from_parsed(parsed), payload, check)
    }

    #[cold]
    fn miss(
        &self,
        dataschema: &str,
        urn: Urn,
        payload: Payload<'_>,
        check: impl FnOnce(&Compiled) -> Result<(), Report>,
    ) -> Result<Outcome, Invalid> {
        match self.entry_of(urn, |entry| self.verdict(dataschema, entry, payload, check)) {
            Ok(verdict) => verdict,
            // Passing: fail open now, compile again after the delay.
            Err(unvalidated) => Ok(self.fail_open(dataschema, unvalidated)),
        }
    }

    /// The cache entry of `urn`, resolved and compiled on a miss, handed
    /// to `then`; `Err` when it cannot be had now (not held, unreachable,
    /// a passing compile failure within its retry delay).
    fn entry_of<T>(&self, urn: Urn, then: impl FnOnce(&Entry) -> T) -> Result<T, Unvalidated> {
        // A URN seen before whose compile failed for a passing reason: the
        // slot decides (its retry delay covers the lookup too).
        let cache = &self.inner.cache;
        let retry_after = self.inner.retry_after;
        if let Some(slot) = cache.existing(&urn) {
            let outcome = cache.get_or_compile(&urn, &slot, retry_after, || {
                match self.resolve_checked(&urn) {
                    Ok((schema, _)) => self.compile(schema, urn.clone()),
                    Err(unvalidated) => Compile::Passing(unvalidated),
                }
            });
            return outcome.map(then);
        }
        // A new URN gets a slot only once a resolver holds it, so hostile
        // `dataschema` strings cannot grow the cache.
        let (schema, pinned) = self.resolve_checked(&urn)?;
        let slot = cache.slot(&urn, pinned);
        let entry = match slot.entry.get() {
            Some(entry) => entry,
            None => cache.get_or_compile(&urn, &slot, retry_after, || {
                self.compile(schema, urn.clone())
            })?,
        };
        Ok(then(entry))
    }

    /// The compiled validator of `urn` (resolved and compiled as a
    /// message's would be, through the same cache and retry delays)
    /// handed to `then`, or why it cannot be used. Counts nothing and
    /// calls no hook: for the [`Framer`](crate::Framer), which refuses
    /// what a guard lets through.
    pub(crate) fn with_compiled<T>(
        &self,
        urn: &Urn,
        then: impl FnOnce(&Compiled) -> T,
    ) -> Result<T, Unvalidated> {
        self.with_ready(urn, |compiled, _| then(compiled))
    }

    /// [`with_compiled`](Guard::with_compiled), with the version's read
    /// rules beside its validator.
    pub(crate) fn with_ready<T>(
        &self,
        urn: &Urn,
        then: impl FnOnce(&Compiled, Option<&ReadRules>) -> T,
    ) -> Result<T, Unvalidated> {
        let ready = |entry: &Entry| match entry {
            Entry::Ready {
                compiled, rules, ..
            } => Ok(then(compiled, rules.as_deref())),
            Entry::Failed(unvalidated) => Err(unvalidated.clone()),
        };
        let snapshot = self.inner.cache.snapshot();
        if let Some(entry) = snapshot.get(urn.as_str()) {
            return ready(entry);
        }
        drop(snapshot);
        self.entry_of(urn.clone(), ready)?
    }

    /// Every URN the primary resolver holds (its [`Resolver::list`]).
    pub(crate) fn list_primary(&self) -> Result<Vec<Urn>, Error> {
        self.inner.resolver.primary.list()
    }

    /// The registry id of the schema `urn` names, from the primary
    /// resolver or (for a URN it does not hold, or holds without an id)
    /// the fallback, whose answer must agree with the primary.
    pub(crate) fn id_of(&self, urn: &Urn) -> Result<u32, Error> {
        self.inner.resolver.id_of(urn)
    }

    /// The primary resolver's id of `urn` (a lock's), asking no fallback.
    #[cfg(feature = "http")]
    pub(crate) fn primary_id_of(&self, urn: &Urn) -> Result<u32, Error> {
        self.inner.resolver.primary.id_of(urn)
    }

    /// The schema the resolver chain holds under `urn`.
    #[cfg(feature = "http")]
    pub(crate) fn schema_of(&self, urn: &Urn) -> Result<Schema, Error> {
        self.inner.resolver.resolve(urn)
    }

    /// The schema the resolver chain holds under `urn`, and whether its
    /// entry is pinned (the primary, a `Registry`, holds it), or why it
    /// cannot be used: not held (`not_found`), or the resolver could not
    /// be asked or answered for another URN (`unreachable`).
    fn resolve_checked(&self, urn: &Urn) -> Result<(Schema, bool), Unvalidated> {
        match self.inner.resolver.resolve_kept(urn) {
            Ok((schema, pinned)) if schema.urn() == urn => Ok((schema, pinned)),
            Ok((schema, _)) => {
                let error = Error::Unreachable {
                    source: format!("asked for {urn}, the resolver answered {}", schema.urn())
                        .into(),
                    urn: urn.clone(),
                };
                Err(Unvalidated::new(Reason::Unreachable, Arc::new(error)))
            }
            Err(error) => {
                // A resolver says NotFound for a URN it does not hold; any
                // other error means it could not be asked.
                let reason = match error {
                    Error::NotFound { .. } => Reason::NotFound,
                    _ => Reason::Unreachable,
                };
                Err(Unvalidated::new(reason, Arc::new(error)))
            }
        }
    }

    /// Compiles a schema for the cache, sorting failures into those that
    /// last (kept) and those that may pass (retried after a delay).
    fn compile(&self, schema: Schema, urn: Urn) -> Compile {
        let refs: Arc<dyn Resolver> = self.inner.resolver.clone();
        let lasting = |reason, error: Error| {
            let weight = cache::weight(error.to_string().as_bytes());
            Compile::Lasting(
                Entry::Failed(Unvalidated::new(reason, Arc::new(error))),
                weight,
            )
        };
        let passing = |reason, error| Compile::Passing(Unvalidated::new(reason, Arc::new(error)));
        match core::compile(&schema, refs, self.inner.options) {
            Ok(compiled) => match compile_rules(&schema, &compiled) {
                Ok(rules) => {
                    if rules.as_ref().is_some_and(|r| r.has_transforms()) {
                        self.inner.transforms.store(true, Ordering::Relaxed);
                    }
                    if rules.is_some() {
                        self.inner.rules.store(true, Ordering::Relaxed);
                    }
                    Compile::Lasting(
                        Entry::Ready {
                            counters: SchemaCounters::new(urn.name(), rules.is_some()),
                            urn: Arc::new(urn),
                            compiled,
                            rules,
                        },
                        cache::weight(schema.bytes()),
                    )
                }
                Err(error) => lasting(Reason::RuleUnusable, error),
            },
            Err(CompileError::NoValidator(error)) => lasting(Reason::NoValidator, error),
            Err(CompileError::Unusable(error)) => lasting(Reason::Unusable, error),
            Err(CompileError::MissingRef(error)) => passing(Reason::Unusable, error),
            Err(CompileError::Unreachable(error)) => passing(Reason::Unreachable, error),
        }
    }

    #[inline]
    fn verdict(
        &self,
        dataschema: &str,
        entry: &Entry,
        payload: Payload<'_>,
        check: impl FnOnce(&Compiled) -> Result<(), Report>,
    ) -> Result<Outcome, Invalid> {
        match entry {
            Entry::Ready {
                urn,
                compiled,
                counters,
                rules,
            } => match check(compiled) {
                Ok(()) => match rules {
                    None => {
                        counters.validated.increment(1);
                        Ok(Outcome::Validated)
                    }
                    Some(rules) => {
                        self.apply_rules(dataschema, urn, counters, (compiled, rules), payload)
                    }
                },
                Err(report) => self.refused(dataschema, urn, counters, report),
            },
            Entry::Failed(unvalidated) => Ok(self.fail_open(dataschema, unvalidated.clone())),
        }
    }

    /// A payload the validator did not pass: refused, or let through
    /// (counted) when the validator could not decide. Out of line, so that
    /// the hot path's frame is a passing payload's.
    #[cold]
    #[inline(never)]
    fn refused(
        &self,
        dataschema: &str,
        urn: &Arc<Urn>,
        counters: &SchemaCounters,
        report: Report,
    ) -> Result<Outcome, Invalid> {
        if let Some(why) = report.undecided() {
            let error = Error::Other(why.to_owned().into());
            return Ok(self.fail_open(
                dataschema,
                Unvalidated::new(Reason::PatternBudget, Arc::new(error)),
            ));
        }
        if let Some(why) = report.unusable() {
            let error = Error::SchemaUnusable {
                urn: Urn::clone(urn),
                source: why.to_owned().into(),
            };
            return Ok(self.fail_open(
                dataschema,
                Unvalidated::new(Reason::Unusable, Arc::new(error)),
            ));
        }
        counters.invalid.increment(1);
        Err(Invalid::reported(Arc::clone(urn), report))
    }

    /// A conforming payload's verdict under its version's read rules.
    #[cold]
    fn apply_rules(
        &self,
        dataschema: &str,
        urn: &Arc<Urn>,
        counters: &SchemaCounters,
        (compiled, rules): (&Compiled, &ReadRules),
        payload: Payload<'_>,
    ) -> Result<Outcome, Invalid> {
        let outcome = match payload {
            Payload::Bytes(bytes) => rules.run_bytes(bytes),
            // A frame's rules read its body, past a protobuf frame's
            // message indexes (Confluent's deserializers run the rules on
            // the message the indexes name). The rules' form reads the
            // root: a frame naming another message of the file is judged
            // by the schema alone and fails open, counted (`rule_unusable`).
            Payload::Frame(rest) => match compiled.framed_message(rest) {
                Ok((None, body)) => rules.run_bytes(body),
                Ok((Some(message), _)) => {
                    let error = Error::SchemaUnusable {
                        urn: Urn::clone(urn),
                        source: format!(
                            "the frame names message {message}, not the schema's root: its \
                             data-contract rules run on frames of the root message only"
                        )
                        .into(),
                    };
                    return Ok(self.fail_open(
                        dataschema,
                        Unvalidated::new(Reason::RuleUnusable, Arc::new(error)),
                    ));
                }
                // The frame validated, so its indexes name a message.
                Err(why) => {
                    let error = Error::SchemaUnusable {
                        urn: Urn::clone(urn),
                        source: why.into(),
                    };
                    return Ok(self.fail_open(
                        dataschema,
                        Unvalidated::new(Reason::RuleUnusable, Arc::new(error)),
                    ));
                }
            },
            Payload::Json(value) => rules.run(value),
        };
        match outcome {
            RuleOutcome::Pass { ignored } => {
                if let (true, Some(counter)) = (ignored > 0, &counters.rule_ignored) {
                    counter.increment(u64::from(ignored));
                }
                counters.validated.increment(1);
                Ok(Outcome::Validated)
            }
            RuleOutcome::Refused(failure) => {
                counters.invalid.increment(1);
                Err(rule_refusal(urn, failure))
            }
            RuleOutcome::Unusable(failure) => {
                let error = Error::SchemaUnusable {
                    urn: Urn::clone(urn),
                    source: format!("rule {}: {}", failure.rule, failure.message).into(),
                };
                Ok(self.fail_open(
                    dataschema,
                    Unvalidated::new(Reason::RuleUnusable, Arc::new(error)),
                ))
            }
        }
    }

    #[cold]
    fn fail_open(&self, dataschema: &str, unvalidated: Unvalidated) -> Outcome {
        self.inner.unvalidated.fetch_add(1, Ordering::Relaxed);
        self.inner.unvalidated_counters[unvalidated.reason().index()].increment(1);
        if let Some(callback) = &self.inner.on_fail_open {
            callback(dataschema, &unvalidated);
        }
        Outcome::Unvalidated(unvalidated)
    }
}
