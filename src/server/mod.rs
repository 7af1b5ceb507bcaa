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
//!   the soft deletes, and the `PUT`s and `DELETE`s of `/config` and
//!   `/mode`. It takes an
//!   [`Auth`], so it cannot be built without one. The check wraps each
//!   publish route itself, so it sees the request path as it arrived and a
//!   path that is not exactly a publish route (`//publish`, `/publish/../`,
//!   `/%70ublish`, `/PUBLISH`, encoded slashes) never reaches a write.
//! * [`router`] combines both ([`Access::Publish`]) or serves the read
//!   router alone ([`Access::ReadOnly`]), with the limits of a [`Config`]:
//!   body cap, body read timeout (a body is read whole before the request
//!   takes a concurrency slot), request timeout, concurrency limits (the
//!   general one, and compatibility tests' own), one `tracing` line per
//!   request and, when enabled, the [`metrics`]. [`serve`] runs it on a
//!   listener with the header-read timeout and a graceful shutdown.
//! * Every router also answers `GET /healthz` (the process answers),
//!   `GET /readyz` (the store answers within [`Config::ready_timeout`] and
//!   its tables are at the expected layout: `200`, else `503` with code
//!   `50301`) and `GET /openapi.json` (the OpenAPI description of both
//!   APIs, `docs/openapi.json` in the repository), without a credential.
//! * The read router serves the web console under `/ui/` unless
//!   [`Config::with_ui`] turned it off: HTML pages rendered on the server
//!   that browse the store and test a candidate's compatibility; nothing
//!   in it writes (`console`).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use dataschema::server::{self, Access, Auth, Config};
//! use dataschema::{MemoryStore, Registry};
//!
//! let registry = Registry::new(MemoryStore::new());
//! let config = Config::new("acme")?;
//! let auth = Auth::new("a long random publish token")?;
//! let app = server::router(registry, &config, Access::Publish(auth));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8081").await?;
//! server::serve(listener, app, &config, server::shutdown_signal()).await?;
//! # Ok(()) }
//! ```
//!
//! # Inside: one way down
//!
//! | layer | modules |
//! |---|---|
//! | routers and layers | this module; `auth` (the credential check), `limits` (limits, serve loop) |
//! | handlers | `native`; `confluent` (`subjects`, `schemas`, `compatibility`, `config`, with `request` and `error`) |
//! | shared lookups | `state`: the app state, with a URN's entry, an id's entry, a name's versions |
//! | cache | `cache`: the immutable lookups with their prebuilt answers |
//! | the wire | `wire`: content types, header names, every body and error code both APIs write |
//!
//! Each layer uses only the ones below it; `query` (reading a request's
//! query) sits beside the handlers and uses the wire's error codes;
//! [`Config`] (`config`) is read by the state and the limits.
//!
//! # The native API
//!
//! | route | answer |
//! |---|---|
//! | `GET /urns` | every URN held, a JSON array of strings |
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
//! `mode` (the query wins). The level in effect for the name (see
//! [`RegistryConfig::compatibility_in_effect`](crate::RegistryConfig::compatibility_in_effect)) always applies; a mode given is checked
//! too, never instead (`Registry::register`): a request asks for more
//! checking, never less. The name's registry mode holds as on every path
//! (`Registry::writable`): READONLY takes nothing, IMPORT only writes with
//! an id (`409` `mode_refused`). It answers
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
//! A subject is any string Confluent takes; it maps reversibly to a URN
//! name ([`crate::subject`]) and its version is the URN's version, under
//! the namespace of the [`Config`]: subject `orders-value` version 3 is
//! `urn:<namespace>:schema:orders-value:3`, subject `Orders-value` is
//! `urn:<namespace>:schema:x.._orders-value:3`. Answers are
//! `application/vnd.schemaregistry.v1+json`.
//!
//! | resource | route | answer |
//! |---|---|---|
//! | server | `GET /`, `GET /v1/metadata/id`, `/v1/metadata/version`, `GET /contexts` | `{}`, the cluster id, the version, the contexts (`contextPrefix`, `offset`, `limit`) |
//! | subjects | `GET /subjects` | the subjects of the namespace (`subjectPrefix`, `deleted`, `deletedOnly`) |
//! | | `GET /subjects/{s}/versions` | the subject's live versions (`deleted=true`: all) |
//! | | `GET /subjects/{s}/versions/{v\|latest}` (and `/schema`) | the version: `subject`, `version`, `id`, `guid`, `schemaType`, `schema`, and its `references`, `metadata`, `ruleSet` |
//! | | `GET /subjects/{s}/versions/{v\|latest}/referencedby` | the ids of the versions whose references name it |
//! | | `GET /subjects/{s}/metadata?key=K&value=V...` | the latest version whose metadata properties include every pair (`40403` for none) |
//! | | `POST /subjects/{s}/versions` | register (publish router): stored in its canonical form; the version holding the same canonical form, or the next; `id`/`version` kept in IMPORT mode |
//! | | `POST /subjects/{s}/versions/{v\|latest}/tags` | a new version (publish router): version `v` with the schema tags (Avro, JSON Schema), metadata and rule set sent, registered as `POST /subjects/{s}/versions` does |
//! | | `POST /subjects/{s}` | lookup: the newest live version whose canonical form is the one sent |
//! | | `DELETE /subjects/{s}[/versions/{v}]` | soft delete (publish router): the versions deleted; `permanent=true` is `42205` |
//! | schemas | `GET /schemas` | every subject version as a schema object (`subjectPrefix`, `deleted`, `latestOnly`) |
//! | | `GET /schemas/ids/{id}` (and `/schema`) | the id's `guid`, `schemaType` and `schema`, `references`, `metadata`, `ruleSet` |
//! | | `GET /schemas/guids/{guid}` | as `GET /schemas/ids/{id}`, for the content with that guid |
//! | | `GET /schemas/guids/{guid}/ids` | `[{"context": ".", "id": N}]`, every id of the content; `[]` for a guid held by none |
//! | | `GET /schemas/ids/{id}/subjects`, `/versions` | the id's subjects, its subject versions |
//! | | `GET /schemas/types` | `["JSON"]` |
//! | compatibility | `POST /compatibility/subjects/{s}/versions[/{v\|latest}]` | `is_compatible` (with `verbose`, `messages` and the `report`) |
//! | config | `GET /config`, `GET /config/{s}` | `compatibilityLevel`, and the settings set (`compatibilityGroup`, `compatibilityPolicy`, `normalize`, `defaultMetadata`, `overrideMetadata`, `defaultRuleSet`, `overrideRuleSet`, any other member) |
//! | | `PUT /config`, `PUT /config/{s}` | set (publish router): `compatibility` and the settings (a member not sent keeps its value) |
//! | | `DELETE /config`, `DELETE /config/{s}` | clear (publish router): the `compatibilityLevel` cleared |
//! | mode | `GET /mode`, `GET /mode/{s}` | `mode` (`defaultToGlobal` for a subject) |
//! | | `PUT /mode`, `PUT /mode/{s}` | set (publish router; `force=true` for IMPORT where subjects are held) |
//! | | `DELETE /mode`, `DELETE /mode/{s}` | clear (publish router): the `mode` cleared |
//! | associations | `GET /associations/subjects/{s}`, `/associations/resources/{id}`, `/associations/resources/{ns}/{name}` | the associations of a subject, a resource id, a resource name (`-`: any namespace; name `-`: the namespace's every resource); `resourceType`, `associationType`, `lifecycle`, `offset`, `limit` |
//! | | `POST /associations`, `PUT /associations/resources/{id}` | create, create or update (publish router): the associations written, with the schemas their requests registered; `dryRun`, `context` |
//! | | `POST /associations:batch` | each request's `CREATE`, `UPSERT` and `DELETE` operations (publish router; at most 100 in all): each request's result or error |
//! | | `DELETE /associations/resources/{id}` | delete (publish router): `204`; `cascadeLifecycle` soft-deletes a strong association's subject |
//!
//! The native API lists URNs at `GET /urns`.
//!
//! Errors are `{"error_code": N, "message": ...}`:
//!
//! | code | status | meaning |
//! |---|---|---|
//! | `400` | 400 | a body or query this server cannot read |
//! | `404`, `405` | 404, 405 | no such route, no such method |
//! | `40101` | 401 | publishing without the credential, or with a wrong one |
//! | `40401` | 404 | the subject has no (live) version |
//! | `40402` | 404 | the subject has no such version |
//! | `40403` | 404 | no schema has the id, or none under the subject matches |
//! | `40404`, `40406` | 404 | the subject, the version, is soft-deleted already |
//! | `40408` | 404 | the subject has no compatibility level of its own |
//! | `40409` | 404 | the subject has no mode of its own |
//! | `40410` | 404 | the resource has no association of the types asked |
//! | `40901` | 409 | incompatible, out of order, or the URN held with other bytes |
//! | `40902` | 409 | the registry holds as many associations as it takes (100,000) |
//! | `40903` | 409 | the resource has another association of the type |
//! | `40904` | 409 | a strong association onto an associated subject, or the delete of a subject associations name |
//! | `40905` | 409 | a weak association onto a subject with a strong one |
//! | `40907` | 409 | an association onto, or a soft delete leaving, a subject without a live version |
//! | `40908` | 409 | the association is frozen |
//! | `42201` | 422 | a schema this server does not take (a lookup's too) |
//! | `42202` | 422 | not a version |
//! | `42203` | 422 | not a compatibility level |
//! | `42204` | 422 | not a mode |
//! | `42205` | 422 | refused: a permanent delete, a write the mode forbids, an id held by other bytes, a write on a read-only server |
//! | `42208` | 422 | a subject with a control character, or too long once written as a URN name |
//! | `42209` | 413 | a schema or a body over the cap |
//! | `42212` | 422 | an association request with an invalid property |
//! | `40801` | 408 | the body did not arrive within the body read timeout |
//! | `50001` | 500 | the store failed |
//! | `50002` | 503 | the request outlived the request timeout |
//! | `50301` | 503 | not ready (`/readyz`) |
//!
//! * `schemaType` `JSON` is JSON Schema; `AVRO`, or no `schemaType`
//!   (Confluent's default), is Avro (feature `avro`); `PROTOBUF` is
//!   `.proto` text or base64 of a `FileDescriptorProto`, with references,
//!   compiled at run time (feature `proto-text`, in `cli`; without it,
//!   `42201`). A protobuf schema registered so reads back as its text
//!   (`?format=serialized`: base64 of its one `FileDescriptorProto`); one
//!   published natively as a descriptor set reads as the set in base64.
//! * `references` (`name`, `subject`, `version`, `-1` the latest) are
//!   resolved at register (a reference to no version held is `42201`) and
//!   kept with the version: a `$ref` to a reference's name resolves to the
//!   referenced version, at register and in every guard. `metadata` and
//!   `ruleSet` are kept with the version (rules are never executed); a
//!   register without them inherits the previous version's, merged with
//!   the config's default and override metadata and rule sets;
//!   `confluent:version` follows the version registered. A body's
//!   `normalize` and `guid` are accepted and ignored; the query's
//!   `normalize=true` normalizes a registration and a lookup (Avro,
//!   protobuf; JSON Schema with its keys sorted).
//! * Nothing is ever lost: a soft delete hides a version from its subject,
//!   and it stays resolvable by id and by URN for ever.
//! * Flags in the query are read case-insensitively (`normalize=False`,
//!   `verbose=True`), and `deleted_only`/`deletedOnly` alike; `offset` and
//!   `limit` page the lists.
//! * `GET /config/{s}` without a subject-level mode is `40408`, unless
//!   `defaultToGlobal=true`; `DELETE /config/{s}` answers the mode it
//!   cleared.

mod auth;
mod cache;
mod config;
mod confluent;
mod console;
mod limits;
mod meta;
pub mod metrics;
mod native;
mod query;
mod state;
mod wire;

use axum::Router;

pub use self::auth::{Auth, CredentialError, MAX_CREDENTIAL_FILE_BYTES};
pub use self::config::Config;
pub use self::limits::{serve, shutdown_signal};
use self::state::AppState;
use crate::registry::Registry;

/// Whether a server publishes: a read-only server, or one whose publish
/// routes are behind a credential. A publishing server without one cannot
/// be written.
#[derive(Clone, Debug)]
pub enum Access {
    /// Reads only: Confluent's writes answer `42205`, native publish `405`.
    ReadOnly,
    /// Reads, and publishing behind the credential.
    Publish(Auth),
}

fn reads(state: &AppState) -> Router {
    let app = native::reads(state.clone())
        .merge(confluent::reads(state.clone()))
        .merge(meta::routes(state.clone()));
    if state.config().ui() {
        app.merge(console::routes(state.clone()))
    } else {
        app
    }
}

fn publishes(state: &AppState, auth: Auth) -> Router {
    native::publishes(state.clone())
        .merge(confluent::publishes(state.clone()))
        .route_layer(axum::middleware::from_fn_with_state(auth, auth::require))
}

/// The read surface alone: native reads and the Confluent reads (lookup
/// and compatibility tests included, since they store nothing). Its
/// Confluent writes answer `42205` (read-only) and its native publish
/// routes `405`. No limits are applied: [`router`] adds them.
pub fn read_router(registry: Registry, config: &Config) -> Router {
    reads(&AppState::new(registry, config))
}

/// The publish surface alone: native publish and the Confluent writes,
/// each behind `auth`. No limits are applied: [`router`] adds them.
///
/// Publishing is never mounted without authentication: there is no
/// router to build without an [`Auth`].
///
/// ```compile_fail
/// # use dataschema::{MemoryStore, Registry};
/// # use dataschema::server::{publish_router, Config};
/// # let config = Config::new("acme").unwrap();
/// let app = publish_router(Registry::new(MemoryStore::new()), &config, None);
/// ```
pub fn publish_router(registry: Registry, config: &Config, auth: Auth) -> Router {
    publishes(&AppState::new(registry, config), auth)
}

/// The whole server, as `dataschema serve` runs it: the read router, plus
/// (with [`Access::Publish`]) the publish router behind its credential,
/// sharing one cache, with the limits of `config` (body cap, request
/// timeout, concurrency limit) and one `tracing` line per request.
pub fn router(registry: Registry, config: &Config, access: Access) -> Router {
    let state = AppState::new(registry, config);
    let app = match access {
        Access::ReadOnly => reads(&state),
        Access::Publish(auth) => reads(&state).merge(publishes(&state, auth)),
    };
    let app = limits::apply(app, config, state.metrics().clone());
    confluent::context::mount(app)
}
