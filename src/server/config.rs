//! The server's settings.

use std::time::Duration;

use dataschema_core::{Error, Urn};

/// The server's settings. Every limit has a default; the namespace must
/// be given.
///
/// | setting | default |
/// |---|---|
/// | [`max_schema_bytes`](Config::max_schema_bytes) | 1 MiB ([`MAX_SCHEMA_BYTES`](dataschema_core::MAX_SCHEMA_BYTES)) |
/// | [`max_body_bytes`](Config::max_body_bytes) | 2 MiB + 64 KiB (a schema sent JSON-escaped in a Confluent request can grow) |
/// | [`request_timeout`](Config::request_timeout) | 30 s, waiting for a concurrency slot included |
/// | [`header_read_timeout`](Config::header_read_timeout) | 10 s |
/// | [`body_read_timeout`](Config::body_read_timeout) | 10 s to send a request's body, read before a concurrency slot is taken |
/// | [`body_buffer_bytes`](Config::body_buffer_bytes) | 256 MiB of request bodies held at once (the rest wait) |
/// | [`concurrency_limit`](Config::concurrency_limit) | 256 requests in flight (the rest wait) |
/// | [`check_concurrency`](Config::check_concurrency) | 4 anonymous requests compiling what they send in flight (compatibility tests, lookups, reads in another `format`; the rest wait), apart from the 256 |
/// | [`compile_budget_bytes`](Config::compile_budget_bytes) | the schema cap (1 MiB): the bytes those requests send, compiling at once; a request at the cap (or a read, whose schema may be at the cap) compiles alone, each takes at least a `check_concurrency`-th |
/// | [`compile_wait`](Config::compile_wait) | 10 s for a compile's share of the budget, then `429` (`42901`, `Retry-After`) |
/// | [`cache_bytes`](Config::cache_bytes) | 64 MiB of cached schema bytes |
/// | [`ready_timeout`](Config::ready_timeout) | 2 s for the store to answer `/readyz` |
/// | [`metrics`](Config::metrics) | off: no per-request metrics |
/// | [`ui`](Config::ui) | on: the web console at `/ui/` |
#[derive(Clone, Debug)]
pub struct Config {
    namespace: String,
    max_body_bytes: usize,
    max_schema_bytes: usize,
    request_timeout: Duration,
    header_read_timeout: Duration,
    body_read_timeout: Duration,
    body_buffer_bytes: usize,
    concurrency_limit: usize,
    check_concurrency: usize,
    compile_budget_bytes: Option<usize>,
    compile_wait: Duration,
    cache_bytes: usize,
    ready_timeout: Duration,
    metrics: bool,
    ui: bool,
    store_label: String,
}

impl Config {
    /// Settings for a server whose Confluent subjects live in `namespace`
    /// (the NID of their URNs: letters, digits and `-`, 2 to 32
    /// characters), with the default limits.
    pub fn new(namespace: &str) -> Result<Config, Error> {
        let urn: Urn = format!("urn:{namespace}:schema:x:1")
            .parse()
            .map_err(|err| match err {
                Error::InvalidUrn { reason, .. } => Error::invalid_urn(namespace, reason),
                other => other,
            })?;
        Ok(Config {
            namespace: urn.namespace().to_owned(),
            max_body_bytes: 2 * 1024 * 1024 + 64 * 1024,
            max_schema_bytes: dataschema_core::MAX_SCHEMA_BYTES,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            body_buffer_bytes: 256 * 1024 * 1024,
            concurrency_limit: 256,
            check_concurrency: 4,
            compile_budget_bytes: None,
            compile_wait: Duration::from_secs(10),
            cache_bytes: 64 * 1024 * 1024,
            ready_timeout: Duration::from_secs(2),
            metrics: false,
            ui: true,
            store_label: String::new(),
        })
    }

    /// Sets the largest request body read (`413` beyond it).
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Config {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets the largest schema published (`413`, Confluent code `42209`,
    /// beyond it).
    pub fn with_max_schema_bytes(mut self, bytes: usize) -> Config {
        self.max_schema_bytes = bytes;
        self
    }

    /// Sets how long one request may take, from routing to the answer
    /// (`503`, Confluent code `50002`, beyond it).
    pub fn with_request_timeout(mut self, timeout: Duration) -> Config {
        self.request_timeout = timeout;
        self
    }

    /// Sets how long a connection may take to send a request's headers
    /// before it is closed ([`serve`](super::serve) applies it).
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Config {
        self.header_read_timeout = timeout;
        self
    }

    /// Sets how many requests are handled at once; the others wait (within
    /// the request timeout). At least 1.
    pub fn with_concurrency_limit(mut self, limit: usize) -> Config {
        self.concurrency_limit = limit.max(1);
        self
    }

    /// Sets how long a client may take to send a request's body (`408`,
    /// Confluent code `40801`, beyond it). A body is read whole, up to the
    /// body cap, before the request takes a concurrency slot: a client
    /// that sends it slowly holds its own connection only, never a slot
    /// that other requests wait for.
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Config {
        self.body_read_timeout = timeout;
        self
    }

    /// Sets how many bytes of request bodies the server holds at once,
    /// read and not yet answered (at least one body at the cap): a body's
    /// bytes wait for room, within the body read timeout. Bodies are read
    /// before a concurrency slot is taken, so this, not the slots, bounds
    /// what many clients sending large bodies cost together.
    pub fn with_body_buffer_bytes(mut self, bytes: usize) -> Config {
        self.body_buffer_bytes = bytes;
        self
    }

    /// Sets how many anonymous requests that compile the schema they send
    /// run at once: compatibility tests (`POST /compatibility/subjects/...`),
    /// lookups (`POST /subjects/{s}`) and reads asking for a schema in
    /// another `format` (`?format=serialized` compiles `.proto` text); the
    /// others wait (within [`compile_wait`](Config::compile_wait)). At
    /// least 1. They take these slots instead of the general ones:
    /// compiling a large schema costs tens to hundreds of times its size
    /// in memory while it runs (about 70 MiB for a 1 MB JSON Schema, more
    /// for `.proto` text), and anyone may ask for a test or a lookup, so
    /// this bounds what they cost together without making reads wait
    /// behind them. (A lookup of a subject holding no version answers 404
    /// before it compiles. Registrations and native publishes need a
    /// token and do not take these slots.) The slots share the
    /// [`compile_budget_bytes`](Config::compile_budget_bytes): each request
    /// takes its body's bytes of it, and at least a `limit`-th.
    pub fn with_check_concurrency(mut self, limit: usize) -> Config {
        self.check_concurrency = limit.max(1);
        self
    }

    /// Sets how many bytes of request bodies the requests compiling what
    /// they send ([`with_check_concurrency`](Config::with_check_concurrency))
    /// may hold while they compile at once (at least 1; by default the
    /// schema cap, [`max_schema_bytes`](Config::max_schema_bytes)). Each
    /// takes its body's bytes, at least a
    /// [`check_concurrency`](Config::check_concurrency)-th of the budget
    /// and at most all of it: a body at the schema cap compiles alone,
    /// small ones share; a read asking for another `format` or
    /// `GET /schemas` (no body: it cannot tell its schema's size before
    /// it reads it) takes what a schema at the schema cap would (at most
    /// the budget: by default, all of it). What a compile costs grows with its schema's
    /// size, so this, not the slots, bounds the memory the compiles in
    /// flight take (four lookups of a 1 MB schema at once cost four
    /// compiles of it; now one runs, the others wait their turn). A
    /// request that waits longer than [`compile_wait`](Config::compile_wait)
    /// is answered `429` (Confluent code `42901`, `Retry-After`).
    pub fn with_compile_budget_bytes(mut self, bytes: usize) -> Config {
        self.compile_budget_bytes = Some(bytes.max(1));
        self
    }

    /// Sets how long a request compiling what it sends waits for its
    /// share of the compile budget (`429`, Confluent code `42901`, with
    /// `Retry-After`, beyond it; never longer than the request timeout).
    pub fn with_compile_wait(mut self, wait: Duration) -> Config {
        self.compile_wait = wait;
        self
    }

    /// Sets how long `/readyz` waits for the store to answer before it
    /// reports the server not ready (`503`).
    pub fn with_ready_timeout(mut self, timeout: Duration) -> Config {
        self.ready_timeout = timeout;
        self
    }

    /// Records the server's metrics through the [`metrics`] facade (off by
    /// default): requests by route template and status, their latency,
    /// store errors and timeouts, cache hits and misses, readiness. The
    /// recorder (a Prometheus exporter, say) must be installed before the
    /// router is built: the counters are registered then.
    /// `dataschema serve --metrics ADDR` does both.
    ///
    /// | metric | kind | labels |
    /// |---|---|---|
    /// | `dataschema_server_requests_total` | counter | `route` (the route template, `unmatched` for none), `status` |
    /// | `dataschema_server_request_duration_seconds` | histogram | `route` |
    /// | `dataschema_server_request_timeouts_total` | counter | `phase` (`body`: the client was too slow; `handling`) |
    /// | `dataschema_server_store_errors_total` | counter | `kind` (`timeout`: a lock, statement or pool wait ran out; `failure`) |
    /// | `dataschema_server_cache_total` | counter | `lookup` (`urn`, `id`), `result` (`hit`, `miss`) |
    /// | `dataschema_server_ready` | gauge | none: 1 after `/readyz` found the store ready, 0 after it did not |
    /// | `dataschema_server_compile_budget_refusals_total` | counter | none: compiling requests answered `429` (`42901`) because the compile budget stayed spent for the compile wait |
    ///
    /// Exported or not, the requests by route and status and the
    /// refusals are counted in the process too: the web console's server
    /// page (`/ui/server`) shows them.
    pub fn with_metrics(mut self, metrics: bool) -> Config {
        self.metrics = metrics;
        self
    }

    /// Sets how many schema bytes the in-process cache of immutable
    /// lookups (URN to schema, id to schema) holds before it starts over.
    pub fn with_cache_bytes(mut self, bytes: usize) -> Config {
        self.cache_bytes = bytes;
        self
    }

    /// Serves the web console at `/ui/` (on by default; `dataschema serve
    /// --no-ui` turns it off): server-rendered pages that browse the
    /// store (subjects, versions, diffs, lookups, the server's state) and
    /// test a candidate's compatibility. It only reads: its one form that
    /// posts compiles the candidate as `POST
    /// /compatibility/subjects/{s}/versions` does, in the same compile
    /// slots, and stores nothing.
    pub fn with_ui(mut self, ui: bool) -> Config {
        self.ui = ui;
        self
    }

    /// Sets how the web console's server page names the store (say
    /// `sqlite:dataschema.db`; a URL's credential redacted by the caller,
    /// as [`store::redact`](crate::store::redact) does). Empty by default:
    /// the page then says nothing about it.
    pub fn with_store_label(mut self, label: impl Into<String>) -> Config {
        self.store_label = label.into();
        self
    }

    /// Whether the web console is served at `/ui/`.
    pub fn ui(&self) -> bool {
        self.ui
    }

    /// How the web console names the store.
    pub fn store_label(&self) -> &str {
        &self.store_label
    }

    /// The namespace of Confluent subjects.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The largest request body read.
    pub fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// The largest schema published.
    pub fn max_schema_bytes(&self) -> usize {
        self.max_schema_bytes
    }

    /// How long one request may take.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// How long a connection may take to send a request's headers.
    pub fn header_read_timeout(&self) -> Duration {
        self.header_read_timeout
    }

    /// How many requests are handled at once.
    pub fn concurrency_limit(&self) -> usize {
        self.concurrency_limit
    }

    /// How long a client may take to send a request's body.
    pub fn body_read_timeout(&self) -> Duration {
        self.body_read_timeout
    }

    /// How many bytes of request bodies the server holds at once (at
    /// least the body cap plus one: a body at the cap always fits).
    pub fn body_buffer_bytes(&self) -> usize {
        self.body_buffer_bytes
            .max(self.max_body_bytes.saturating_add(1))
            .min(tokio::sync::Semaphore::MAX_PERMITS)
    }

    /// How many requests compiling what they send run at once (see
    /// [`with_check_concurrency`](Config::with_check_concurrency)).
    pub fn check_concurrency(&self) -> usize {
        self.check_concurrency
    }

    /// How many bytes of request bodies compile at once (see
    /// [`with_compile_budget_bytes`](Config::with_compile_budget_bytes)):
    /// the schema cap unless set, at most what a semaphore counts.
    pub fn compile_budget_bytes(&self) -> usize {
        self.compile_budget_bytes
            .unwrap_or(self.max_schema_bytes)
            .clamp(
                1,
                tokio::sync::Semaphore::MAX_PERMITS.min(u32::MAX as usize),
            )
    }

    /// How long a request compiling what it sends waits for its share of
    /// the compile budget.
    pub fn compile_wait(&self) -> Duration {
        self.compile_wait
    }

    /// How long `/readyz` waits for the store.
    pub fn ready_timeout(&self) -> Duration {
        self.ready_timeout
    }

    /// Whether the server records metrics.
    pub fn metrics(&self) -> bool {
        self.metrics
    }

    /// How many schema bytes the cache of immutable lookups holds.
    pub fn cache_bytes(&self) -> usize {
        self.cache_bytes
    }
}
