//! The native API's handlers: schemas by URN and by id, a name's versions,
//! the list of URNs; publish. What they answer is written by
//! [`wire::native`](super::wire::native).

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderName, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::Router;

use super::query::Query;
use super::state::AppState;
use super::wire::native::{self as wire, NativeError};
use super::wire::report_json;
use crate::store::{SchemaId, Version};
use dataschema_core::compat::CompatReport;
use dataschema_core::{Compatibility, Error, Language, Schema, Urn};

pub(crate) fn reads(state: AppState) -> Router {
    Router::new()
        .route("/urns", get(list))
        .route("/schemas/{key}", get(schema))
        .route("/ids/{id}", get(schema_of_id))
        .route("/names/{namespace}/{name}/versions", get(versions))
        .route(
            "/publish/schemas/{key}",
            MethodRouter::new().fallback(not_publishing),
        )
        .with_state(state)
}

pub(crate) fn publishes(state: AppState) -> Router {
    Router::new()
        .route(
            "/publish/schemas/{key}",
            axum::routing::put(publish).post(publish),
        )
        .with_state(state)
}

impl From<Error> for NativeError {
    /// The registry's errors as the native API's refusals.
    fn from(err: Error) -> NativeError {
        let (status, reason) = match &err {
            Error::InvalidUrn { .. } => (StatusCode::BAD_REQUEST, "invalid_urn"),
            Error::InvalidLanguage { .. } => (StatusCode::BAD_REQUEST, "invalid_language"),
            Error::UnknownCompatibility(_) => (StatusCode::BAD_REQUEST, "invalid_mode"),
            Error::NotFound { .. } | Error::IdNotFound { .. } => {
                (StatusCode::NOT_FOUND, "not_found")
            }
            Error::Immutable { .. } => (StatusCode::CONFLICT, "immutable"),
            Error::Incompatible { .. } => (StatusCode::CONFLICT, "incompatible"),
            Error::OutOfOrder { .. } => (StatusCode::CONFLICT, "out_of_order"),
            Error::Empty { .. } | Error::MissingRoot { .. } | Error::SchemaUnusable { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "unusable")
            }
            Error::NoValidator { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "no_validator"),
            Error::LastVersion { .. } => (StatusCode::CONFLICT, "last_version"),
            // The name's registry mode (Confluent's `/mode`) refuses it.
            Error::ModeRefused { .. } | Error::SettingsRefused { .. } => {
                (StatusCode::CONFLICT, "mode_refused")
            }
            // A bounded wait that ran out (a lock another replica holds, a
            // pool that stays full): retryable, as a load balancer and a
            // client's retry policy read a 503.
            Error::Store { .. } if crate::server::metrics::timed_out(&err) => {
                (StatusCode::SERVICE_UNAVAILABLE, "store_timeout")
            }
            Error::Store { .. } => (StatusCode::INTERNAL_SERVER_ERROR, "store"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        // A failure of the server's own is told without its causes (a
        // database path, driver text): those are the log's.
        let message = if status.is_server_error() {
            if matches!(err, Error::Store { .. }) {
                crate::server::metrics::store_error(&err);
            }
            tracing::error!(error = %err.chain(), "request failed");
            crate::server::wire::server_failure(&err)
        } else {
            err.chain().to_string()
        };
        let mut refusal = NativeError::new(status, reason, message);
        if let Some(report) = CompatReport::of(&err) {
            refusal.report = Some(report_json(report));
        }
        refusal
    }
}

fn path_error(rejection: PathRejection) -> NativeError {
    NativeError::new(
        StatusCode::BAD_REQUEST,
        "invalid_path",
        rejection.body_text(),
    )
}

fn body_error(rejection: BytesRejection) -> NativeError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        NativeError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            "the request body is larger than this server accepts",
        )
    } else {
        NativeError::new(
            StatusCode::BAD_REQUEST,
            "invalid_body",
            rejection.body_text(),
        )
    }
}

async fn list(State(state): State<AppState>) -> Result<Response, NativeError> {
    let urns = state.blocking(|registry| registry.list()).await?;
    Ok(wire::urns(&urns))
}

async fn versions(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<Response, NativeError> {
    let Path((namespace, name)) = path.map_err(path_error)?;
    // Both parts checked as a URN checks them.
    let probe: Urn = format!("urn:{namespace}:schema:{name}:1").parse()?;
    let versions = state.versions(probe.namespace(), probe.name()).await?;
    if versions.is_empty() {
        return Err(NativeError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no versions of {name} in namespace {namespace}"),
        ));
    }
    Ok(wire::versions(versions))
}

async fn schema(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    // The request itself, not a `HeaderMap` (that extractor clones every
    // header): only `If-None-Match` is read.
    request: axum::extract::Request,
) -> Result<Response, NativeError> {
    let Path(key) = path.map_err(path_error)?;
    let entry = state.urn_entry_of(&key).await?;
    Ok(entry.native.respond(request.headers()))
}

/// `GET /ids/{id}`: the schema of a registry-assigned id, answered as
/// `GET /schemas/{urn}` answers it: under its first URN in the server's
/// namespace (the one Confluent subjects live in), else under its first
/// URN of any namespace (the native API holds every namespace).
async fn schema_of_id(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, NativeError> {
    let Path(key) = path.map_err(path_error)?;
    let id: SchemaId = match key.parse() {
        Ok(id) if !key.starts_with('+') => id,
        _ => {
            return Err(NativeError::new(
                StatusCode::BAD_REQUEST,
                "invalid_id",
                "a schema id is a decimal number",
            ))
        }
    };
    let urns = state.urns_of_id(id).await?;
    let own = urns
        .iter()
        .position(|urn| urn.namespace() == state.namespace());
    let urn = urns
        .into_iter()
        .nth(own.unwrap_or(0))
        .ok_or(Error::IdNotFound { id })?;
    let entry = state.urn_entry(urn).await?;
    Ok(entry.native.respond(&headers))
}

async fn not_publishing(method: Method) -> Response {
    if method == Method::PUT || method == Method::POST {
        NativeError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "read_only",
            "this server is read-only: it publishes nothing",
        )
        .into_response()
    } else {
        let mut refusal = NativeError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "publish with PUT or POST; read a schema at /schemas/{urn}",
        );
        refusal.allow = Some("PUT, POST");
        refusal.into_response()
    }
}

/// What an Avro schema sent without a language is (`a record`, `a
/// union`), if the body is one: a JSON object whose `type` is `record`,
/// `enum` or `fixed` (no JSON Schema type), or a JSON array (a union; a
/// JSON Schema is an object or a boolean).
fn avro_shape(body: &[u8]) -> Option<&'static str> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    match &value {
        serde_json::Value::Array(_) => Some("a union"),
        serde_json::Value::Object(object) => match object.get("type")?.as_str()? {
            "record" => Some("a record"),
            "enum" if object.contains_key("symbols") => Some("an enum"),
            "fixed" if object.contains_key("size") => Some("a fixed"),
            _ => None,
        },
        _ => None,
    }
}

/// A value from the query (first) or a header.
fn setting(query: &Query, headers: &HeaderMap, key: &str, name: &HeaderName) -> Option<String> {
    if let Some(value) = query.get(key) {
        return Some(value.to_owned());
    }
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.trim().to_owned())
}

async fn publish(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, NativeError> {
    let Path(key) = path.map_err(path_error)?;
    let urn: Urn = key.parse()?;
    let body = body.map_err(body_error)?;
    if body.len() > state.max_schema_bytes() {
        return Err(NativeError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!(
                "the schema is {} bytes, more than the {} this server accepts",
                body.len(),
                state.max_schema_bytes()
            ),
        ));
    }
    let query = Query::parse(raw.as_deref());
    let language = match setting(&query, &headers, "language", &wire::LANGUAGE) {
        Some(language) => language.parse::<Language>()?,
        None => {
            if let Some(what) = avro_shape(&body) {
                return Err(NativeError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "unusable",
                    format!(
                        "{urn}: no language given, so this is read as a JSON Schema, but the \
                         body is an Avro schema ({what}): send the header \
                         `Dataschema-Language: avro` (or `?language=avro`); \
                         `dataschema publish` sends it for an .avsc file"
                    ),
                ));
            }
            Language::JsonSchema
        }
    };
    let root = setting(&query, &headers, "root", &wire::ROOT).filter(|root| !root.is_empty());
    if language != Language::Protobuf && root.is_some() {
        return Err(NativeError::new(
            StatusCode::BAD_REQUEST,
            "invalid_root",
            "only a protobuf schema has a root message: give a root for protobuf schemas only",
        ));
    }
    let mode = match setting(&query, &headers, "mode", &wire::MODE) {
        Some(mode) => Some(mode.parse::<Compatibility>().map_err(Error::from)?),
        None => None,
    };
    let mut schema = Schema::new(urn, language, body, root.as_deref());
    if let Some(value) = headers.get(&wire::REFERENCES) {
        let references = value
            .to_str()
            .ok()
            .and_then(crate::protocol::parse_references)
            .ok_or_else(|| {
                NativeError::new(
                    StatusCode::BAD_REQUEST,
                    "invalid_references",
                    "Dataschema-References is not name=urn pairs (each side percent-encoded, \
                     pairs separated by `,`)",
                )
            })?;
        schema = schema.with_references(references);
    }
    // The level in effect for the name always holds: a request's mode is
    // checked too, never instead (`Registry::register`).
    let stored = state
        .blocking(move |registry| registry.register(schema, Version::Exact, mode))
        .await?;
    Ok(wire::published(&stored.urn, stored.id, stored.created))
}
