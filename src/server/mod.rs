//! The registry as an HTTP server (feature `server`): a native API and the
//! part of Confluent Schema Registry's REST API that clients use, over any
//! [`Store`](crate::Store).
//!
//! # Read and publish are separate routers
//!
//! * [`read_router`] serves every read: native schema reads by URN and
//!   Confluent's subjects, versions, ids, lookups, compatibility tests and
//!   config reads. It needs no ceremony; its Confluent write operations
//!   answer `42205` (this server is read-only), never a 404.
//! * [`publish_router`] serves the writes: native publish under
//!   `/publish/schemas/{urn}`, and Confluent's `POST /subjects/{s}/versions`,
//!   `PUT /config`, `PUT /config/{s}` and `DELETE /config/{s}`. It refuses
//!   to be built without an [`Auth`] ([`Error::NoAuthentication`]). The
//!   check wraps each publish route itself, so it sees the request path as
//!   it arrived and a path that is not exactly a publish route (`//publish`,
//!   `/publish/../`, `/%70ublish`, `/PUBLISH`, encoded slashes) never
//!   reaches a write.
//! * [`router`] combines both (or, read-only, the read router alone) with
//!   the limits of a [`Config`]: body cap, request timeout, concurrency
//!   limit and one `tracing` line per request. [`serve`] runs it on a
//!   listener with the header-read timeout and a graceful shutdown.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use dataschema::server::{self, Auth, Config};
//! use dataschema::{MemoryStore, Registry};
//!
//! let registry = Registry::new(MemoryStore::new());
//! let config = Config::new("acme")?;
//! let auth = Auth::new("a long random publish token")?;
//! let app = server::router(registry, &config, Some(auth), false)?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8081").await?;
//! server::serve(listener, app, &config, server::shutdown_signal()).await?;
//! # Ok(()) }
//! ```
//!
//! # The native API
//!
//! | route | answer |
//! |---|---|
//! | `GET /schemas` | every URN held, a JSON array of strings |
//! | `GET /names/{namespace}/{name}/versions` | the name's versions, ascending (`404` for none) |
//! | `GET /schemas/{urn}` | the schema's raw bytes (below) |
//! | `GET /ids/{id}` | the schema of a registry-assigned id, answered as `GET /schemas/{urn}` answers it, under its first URN in the server's namespace, else its first URN of any namespace (`404` for an id no schema has) |
//! | `PUT` or `POST /publish/schemas/{urn}` | publish: `201` created, `200` held already |
//!
//! A schema read answers its bytes with `Content-Type`
//! (`application/schema+json` or `application/x-protobuf`), the headers
//! `Dataschema-Urn`, `Dataschema-Language`, `Dataschema-Root` (protobuf),
//! `Dataschema-Digest` (`sha256:` of the bytes) and `Dataschema-Id`, an
//! `ETag` that is the digest (quoted) and
//! `Cache-Control: public, max-age=31536000, immutable`: a URN's bytes never
//! change. `If-None-Match` with the ETag (or `*`) answers `304`.
//!
//! A publish takes the schema's bytes as the body; its language, root and
//! compatibility mode come from the headers `Dataschema-Language`
//! (`jsonschema`, the default, or `protobuf`), `Dataschema-Root` and
//! `Dataschema-Mode`, or from the query parameters `language`, `root` and
//! `mode` (the query wins). Without a mode, the mode set for the name
//! applies (see [`Registry::compatibility`]). It answers
//! `{"urn", "id", "created"}`. Refusals are JSON `{"error": REASON,
//! "message": ...}`: `immutable`, `incompatible` (with the full `report`:
//! per prior version, each change's `kind`, `path`, `direction` and
//! `breaking`) and `out_of_order` are `409`; an unusable schema is `422`; a
//! bad URN, language or mode is `400` (so is a root for a JSON Schema); a
//! body over the cap is `413`.
//!
//! A publish that outlives the request timeout answers `503` while the
//! store may still complete it; publishing is idempotent, so the client's
//! retry answers `200` (held already) or the refusal.
//!
//! # The Confluent API
//!
//! A subject is a URN name and a version is a URN version, under the
//! namespace of the [`Config`]: subject `orders-value` version 3 is
//! `urn:<namespace>:schema:orders-value:3`. A subject that cannot be a URN
//! name (upper case, `/`, ...) is `42208` with the reason. Routes:
//! `GET /subjects`, `GET /subjects/{s}/versions`,
//! `GET /subjects/{s}/versions/{v|latest}` (and `/schema`),
//! `GET /schemas/ids/{id}` (and `/schema`, `/subjects`, `/versions`),
//! `GET /schemas/types`, `POST /subjects/{s}/versions` (register),
//! `POST /subjects/{s}` (lookup),
//! `POST /compatibility/subjects/{s}/versions[/{v|latest}]`,
//! `GET`/`PUT /config[/{s}]` and `DELETE /config/{s}`. Answers are
//! `application/vnd.schemaregistry.v1+json`; errors are
//! `{"error_code": N, "message": ...}` with Confluent's codes.
//!
//! * `schemaType` `JSON` is JSON Schema. A missing `schemaType` means AVRO
//!   and is `42201` (Avro is not supported). `PROTOBUF` is `42201` too:
//!   Confluent clients send `.proto` text, which this server does not
//!   compile at run time; publish protobuf schemas as descriptor sets
//!   through the native API. A stored protobuf schema reads through the
//!   Confluent API as `PROTOBUF` with its descriptor set in base64.
//! * Non-empty `references` are `42201`; `metadata`, `ruleSet`, `normalize`
//!   and `guid` are accepted and ignored.
//! * Nothing is ever deleted: `DELETE` of a subject or a version is `42205`,
//!   because a stored message's schema must resolve for ever.
//! * Flags in the query are read case-insensitively (`normalize=False`,
//!   `verbose=True`), and `deleted_only`/`deletedOnly` alike; `offset` and
//!   `limit` page the lists.
//! * `GET /schemas` is the native list of URNs, not Confluent's list of
//!   schema objects (which clients do not need to resolve or register).
//! * `GET /config/{s}` without a subject-level mode is `40408`, unless
//!   `defaultToGlobal=true`; `DELETE /config/{s}` answers the mode it
//!   cleared.

mod auth;
mod cache;
mod confluent;
mod limits;
mod native;
mod reply;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;

pub use self::auth::Auth;
use self::cache::Cache;
pub use self::limits::{serve, shutdown_signal};
use crate::Registry;
use dataschema_core::{Error, Urn};

/// The server's settings. Every limit has a default; the namespace must
/// be given.
///
/// | setting | default |
/// |---|---|
/// | [`max_schema_bytes`](Config::max_schema_bytes) | 1 MiB ([`MAX_SCHEMA_BYTES`](crate::MAX_SCHEMA_BYTES)) |
/// | [`max_body_bytes`](Config::max_body_bytes) | 2 MiB + 64 KiB (a schema sent JSON-escaped in a Confluent request can grow) |
/// | [`request_timeout`](Config::request_timeout) | 30 s, waiting for a concurrency slot included |
/// | [`header_read_timeout`](Config::header_read_timeout) | 10 s |
/// | [`concurrency_limit`](Config::concurrency_limit) | 256 requests in flight (the rest wait) |
/// | [`cache_bytes`](Config::cache_bytes) | 64 MiB of cached schema bytes |
#[derive(Clone, Debug)]
pub struct Config {
    namespace: String,
    max_body_bytes: usize,
    max_schema_bytes: usize,
    request_timeout: Duration,
    header_read_timeout: Duration,
    concurrency_limit: usize,
    cache_bytes: usize,
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
            max_schema_bytes: crate::MAX_SCHEMA_BYTES,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            concurrency_limit: 256,
            cache_bytes: 64 * 1024 * 1024,
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
    /// before it is closed ([`serve`] applies it).
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

    /// Sets how many schema bytes the in-process cache of immutable
    /// lookups (URN to schema, id to schema) holds before it starts over.
    pub fn with_cache_bytes(mut self, bytes: usize) -> Config {
        self.cache_bytes = bytes;
        self
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

    /// How many schema bytes the cache of immutable lookups holds.
    pub fn cache_bytes(&self) -> usize {
        self.cache_bytes
    }
}

/// What every handler shares: the registry, the settings, the cache.
#[derive(Clone)]
pub(crate) struct AppState {
    inner: Arc<Shared>,
}

struct Shared {
    registry: Registry,
    namespace: String,
    max_schema_bytes: usize,
    cache: Cache,
}

impl AppState {
    fn new(registry: Registry, config: &Config) -> AppState {
        AppState {
            inner: Arc::new(Shared {
                registry,
                namespace: config.namespace.clone(),
                max_schema_bytes: config.max_schema_bytes,
                cache: Cache::new(config.cache_bytes),
            }),
        }
    }

    pub(crate) fn namespace(&self) -> &str {
        &self.inner.namespace
    }

    pub(crate) fn max_schema_bytes(&self) -> usize {
        self.inner.max_schema_bytes
    }

    pub(crate) fn cache(&self) -> &Cache {
        &self.inner.cache
    }

    /// Runs a registry call on the blocking pool (stores are synchronous).
    /// A panic there is a store failure, not a crash.
    pub(crate) async fn blocking<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Registry) -> Result<T, Error> + Send + 'static,
    {
        let registry = self.inner.registry.clone();
        tokio::task::spawn_blocking(move || f(&registry))
            .await
            .unwrap_or_else(|join| {
                Err(Error::Store {
                    source: Box::new(join),
                })
            })
    }
}

fn reads(state: &AppState) -> Router {
    native::reads(state.clone()).merge(confluent::reads(state.clone()))
}

/// The read surface alone: native reads and the Confluent reads (lookup
/// and compatibility tests included, since they store nothing). Its
/// Confluent writes answer `42205` (read-only) and its native publish
/// routes `405`. No limits are applied: [`router`] adds them.
pub fn read_router(registry: Registry, config: &Config) -> Router {
    reads(&AppState::new(registry, config))
}

/// The publish surface alone: native publish and the Confluent writes,
/// each behind `auth`. `None` is [`Error::NoAuthentication`]: publishing is
/// never mounted without authentication. No limits are applied: [`router`]
/// adds them.
pub fn publish_router(
    registry: Registry,
    config: &Config,
    auth: Option<Auth>,
) -> Result<Router, Error> {
    publishes(&AppState::new(registry, config), auth)
}

fn publishes(state: &AppState, auth: Option<Auth>) -> Result<Router, Error> {
    let auth = auth.ok_or(Error::NoAuthentication)?;
    Ok(native::publishes(state.clone())
        .merge(confluent::publishes(state.clone()))
        .route_layer(axum::middleware::from_fn_with_state(auth, auth::require)))
}

/// The whole server, as `dataschema serve` runs it: the read router, plus
/// (unless `read_only`) the publish router behind `auth`, sharing one
/// cache, with the limits of `config` (body cap, request timeout,
/// concurrency limit) and one `tracing` line per request. A server that
/// publishes needs `auth` ([`Error::NoAuthentication`]); a read-only one
/// ignores it.
pub fn router(
    registry: Registry,
    config: &Config,
    auth: Option<Auth>,
    read_only: bool,
) -> Result<Router, Error> {
    let state = AppState::new(registry, config);
    let app = if read_only {
        reads(&state)
    } else {
        reads(&state).merge(publishes(&state, auth)?)
    };
    Ok(limits::apply(app, config))
}
