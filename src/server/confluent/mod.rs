//! The part of Confluent Schema Registry's REST API that clients use: the
//! routes, and one module per resource.
//!
//! A subject is a URN name, a version a URN version, under the server's
//! namespace. Error bodies and codes are Confluent's (`Errors.java`).
//!
//! | module | what |
//! |---|---|
//! | [`subjects`] | subjects and their versions: list, read, register, look up |
//! | [`schemas`] | schemas by id, the schema types |
//! | [`compatibility`] | compatibility tests |
//! | [`config`] | compatibility levels and the config's other settings |
//! | [`contracts`] | references, metadata and rule sets: their completion at register, metadata and guid lookups, `referencedby` |
//! | [`request`] | reading paths and bodies |
//! | [`candidate`] | the schema a register, lookup or compatibility test sends, and its contract: the body read once |
//! | [`mod@format`] | `?format=`: the form of the schema string a read answers (protobuf's `serialized`) |
//! | `protobuf` | protobuf as Confluent's clients send it (`.proto` text or a base64 descriptor, references), and protobuf identity (feature `proto-text`) |
//! | [`tags`] | `POST /subjects/{s}/versions/{v}/tags`: a new version with schema tags, metadata and rule set edited |
//! | [`associations`] | `/associations/...`: which subjects describe a topic's keys and values |
//! | [`delete_guard`] | the associations a subject's (or its last live version's) delete meets: below [`associations`] and [`subjects`], which both call it |
//! | [`context`] | `/contexts/{context}/...`: Confluent's context URL prefix, rewritten to the qualified subjects before routing |
//! | [`error`] | the registry's errors as Confluent's codes |
//!
//! The bodies and codes they answer are written by
//! [`wire::confluent`](super::wire::confluent).

mod associations;
mod candidate;
pub(super) mod canonical;
pub(super) mod compatibility;
mod config;
pub(crate) mod context;
mod contracts;
mod delete_guard;
mod error;
mod format;
mod mode;
#[cfg(feature = "proto-text")]
mod protobuf;
pub(super) mod request;
mod schemas;
mod server;
mod subjects;
mod tags;

use axum::http::Method;
use axum::routing::{delete, get, post, put, MethodRouter};
use axum::Router;

use self::error::{not_permitted, ApiError, ErrorCode};
use super::state::AppState;

/// The read routes, and the answers of the writes on a server that does
/// not publish (`42205`).
pub(crate) fn reads(state: AppState) -> Router {
    Router::new()
        .route("/", get(server::root))
        .route("/v1/metadata/id", get(server::id))
        .route("/v1/metadata/version", get(server::version))
        .route("/contexts", get(server::contexts))
        .route("/schemas", get(schemas::list))
        .route("/subjects", get(subjects::subjects))
        .route(
            "/subjects/{subject}",
            post(subjects::lookup).fallback(read_only),
        )
        .route(
            "/subjects/{subject}/versions",
            get(subjects::versions).fallback(read_only),
        )
        .route(
            "/subjects/{subject}/versions/{version}",
            get(subjects::version).fallback(read_only),
        )
        .route(
            "/subjects/{subject}/versions/{version}/schema",
            get(subjects::version_schema),
        )
        .route(
            "/subjects/{subject}/versions/{version}/referencedby",
            get(contracts::referenced_by),
        )
        .route(
            "/subjects/{subject}/metadata",
            get(contracts::latest_with_metadata),
        )
        .route("/schemas/guids/{guid}", get(contracts::by_guid))
        .route("/schemas/guids/{guid}/ids", get(contracts::guid_ids))
        .route("/schemas/types", get(schemas::types))
        .route("/schemas/ids/{id}", get(schemas::by_id))
        .route("/schemas/ids/{id}/schema", get(schemas::by_id_schema))
        .route("/schemas/ids/{id}/subjects", get(schemas::id_subjects))
        .route("/schemas/ids/{id}/versions", get(schemas::id_versions))
        .route(
            "/compatibility/subjects/{subject}/versions",
            post(compatibility::all),
        )
        .route(
            "/compatibility/subjects/{subject}/versions/{version}",
            post(compatibility::one),
        )
        .route("/config", get(config::global).fallback(read_only))
        .route(
            "/config/{subject}",
            get(config::subject_level).fallback(read_only),
        )
        .route(
            "/associations/subjects/{subject}",
            get(associations::by_subject),
        )
        .route(
            "/associations/resources/{id}",
            get(associations::by_resource_id).fallback(read_only),
        )
        .route(
            "/associations/resources/{namespace}/{name}",
            get(associations::by_resource_name),
        )
        .route(
            "/associations",
            get(associations::by_query).fallback(read_only),
        )
        .route(
            "/associations:batch",
            MethodRouter::new().fallback(read_only),
        )
        .route("/mode", get(mode::global).fallback(read_only))
        .route(
            "/mode/{subject}",
            get(mode::subject_mode).fallback(read_only),
        )
        .fallback(not_found)
        .with_state(state)
}

/// The write routes (the caller puts them behind the credential check).
pub(crate) fn publishes(state: AppState) -> Router {
    Router::new()
        .route("/subjects/{subject}/versions", post(subjects::register))
        .route(
            "/subjects/{subject}/versions/{version}/tags",
            post(tags::modify),
        )
        .route("/subjects/{subject}", delete(subjects::delete_subject))
        .route(
            "/subjects/{subject}/versions/{version}",
            delete(subjects::delete_version),
        )
        .route(
            "/config",
            put(config::set_global).merge(delete(config::clear_global)),
        )
        .route(
            "/config/{subject}",
            put(config::set_subject_level).merge(delete(config::clear_subject_level)),
        )
        .route(
            "/mode",
            put(mode::set_global).merge(delete(mode::clear_global)),
        )
        .route("/associations", post(associations::create))
        .route("/associations:batch", post(associations::batch))
        .route(
            "/associations/resources/{id}",
            put(associations::upsert).merge(delete(associations::delete_resource)),
        )
        .route(
            "/mode/{subject}",
            put(mode::set_subject_mode).merge(delete(mode::clear_subject_mode)),
        )
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "HTTP 404 Not Found")
}

/// A Confluent write on a server that publishes nothing (or another
/// method on a read route).
async fn read_only(method: Method) -> ApiError {
    if method == Method::POST || method == Method::PUT || method == Method::DELETE {
        not_permitted("this server is read-only: it registers no schema and changes no config")
    } else {
        ApiError::new(ErrorCode::MethodNotAllowed, "HTTP 405 Method Not Allowed")
    }
}
