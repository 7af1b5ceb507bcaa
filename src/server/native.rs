//! The native API: schemas by URN, raw bytes, immutable caching; publish.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::Router;
use serde_json::{json, Value};

use super::cache::UrnEntry;
use super::reply::{json_response, report_json, Query};
use super::AppState;
use crate::protocol;
use crate::store::SchemaId;
use dataschema_core::{Compatibility, Error, Language, Schema, Urn};

/// `Cache-Control` of a schema read: a URN's bytes never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

const URN: HeaderName = HeaderName::from_static(protocol::header::URN);
const LANGUAGE: HeaderName = HeaderName::from_static(protocol::header::LANGUAGE);
const ROOT: HeaderName = HeaderName::from_static(protocol::header::ROOT);
const DIGEST: HeaderName = HeaderName::from_static(protocol::header::DIGEST);
const ID: HeaderName = HeaderName::from_static(protocol::header::ID);
const MODE: HeaderName = HeaderName::from_static(protocol::header::MODE);

pub(crate) fn reads(state: AppState) -> Router {
    Router::new()
        .route("/schemas", get(list))
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

/// A refusal of the native API: `{"error": REASON, "message": ...}`, plus
/// the report of an incompatible publish.
pub(crate) struct NativeError {
    status: StatusCode,
    reason: &'static str,
    message: String,
    report: Option<Value>,
}

impl NativeError {
    fn new(status: StatusCode, reason: &'static str, message: impl Into<String>) -> NativeError {
        NativeError {
            status,
            reason,
            message: message.into(),
            report: None,
        }
    }
}

impl From<Error> for NativeError {
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
            Error::Store { .. } => (StatusCode::INTERNAL_SERVER_ERROR, "store"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        if status.is_server_error() {
            tracing::error!(error = %err.chain(), "request failed");
        }
        let report = match &err {
            Error::Incompatible { report, .. } => Some(report_json(report)),
            _ => None,
        };
        NativeError {
            status,
            reason,
            message: err.chain().to_string(),
            report,
        }
    }
}

impl IntoResponse for NativeError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": self.reason, "message": self.message});
        if let Some(report) = self.report {
            body["report"] = report;
        }
        let mut response = json_response(self.status, &body);
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
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

fn parse_urn(key: &str) -> Result<Urn, NativeError> {
    key.parse::<Urn>().map_err(NativeError::from)
}

async fn list(State(state): State<AppState>) -> Result<Response, NativeError> {
    let urns = state.blocking(|registry| registry.list()).await?;
    let urns: Vec<String> = urns.iter().map(Urn::to_string).collect();
    Ok(json_of(&Value::from(urns)))
}

fn json_of(value: &Value) -> Response {
    let mut response = json_response(StatusCode::OK, value);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

async fn versions(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<Response, NativeError> {
    let Path((namespace, name)) = path.map_err(path_error)?;
    // Both parts checked as a URN checks them.
    let probe = parse_urn(&format!("urn:{namespace}:schema:{name}:1"))?;
    let versions = state
        .blocking(move |registry| registry.versions_in(probe.namespace(), probe.name()))
        .await?;
    if versions.is_empty() {
        return Err(NativeError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no versions of {name} in namespace {namespace}"),
        ));
    }
    Ok(json_of(&Value::from(versions)))
}

/// The entry of `urn` (its schema, id and answers), from the cache or the
/// store.
pub(crate) async fn cached(state: &AppState, urn: Urn) -> Result<Arc<UrnEntry>, Error> {
    if let Some(hit) = state.cache().by_urn(urn.as_ref()) {
        return Ok(hit);
    }
    let (schema, id) = state
        .blocking(move |registry| {
            let schema = registry.resolve(&urn)?;
            let id = registry.id_of(&urn)?;
            Ok((schema, id))
        })
        .await?;
    Ok(state.cache().insert_urn(&schema, id))
}

async fn schema(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    // The request itself, not a `HeaderMap` (that extractor clones every
    // header): only `If-None-Match` is read.
    request: axum::extract::Request,
) -> Result<Response, NativeError> {
    let Path(key) = path.map_err(path_error)?;
    // A URN spelled canonically is looked up as it came, without parsing
    // (a canonical string parses to itself); any other spelling is parsed
    // into its canonical form first.
    let entry = match state.cache().by_urn(&key) {
        Some(hit) => hit,
        None => cached(&state, parse_urn(&key)?).await?,
    };
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
    let namespace = state.namespace().to_owned();
    let urn = state
        .blocking(move |registry| {
            let urns = registry.urns_of_id(id)?;
            let own = urns.iter().position(|urn| urn.namespace() == namespace);
            urns.into_iter()
                .nth(own.unwrap_or(0))
                .ok_or(Error::IdNotFound { id })
        })
        .await?;
    let entry = cached(&state, urn).await?;
    Ok(entry.native.respond(&headers))
}

/// The answer of a schema read, built once per URN: the bytes (shared),
/// and the headers of a `200` and of a `304`.
pub(crate) struct Answer {
    body: Bytes,
    etag: Box<str>,
    ok: HeaderMap,
    not_modified: HeaderMap,
}

impl Answer {
    pub(crate) fn new(schema: &Schema, id: SchemaId) -> Answer {
        let etag = format!("\"{}\"", schema.digest());
        let mut not_modified = HeaderMap::with_capacity(8);
        insert(&mut not_modified, header::ETAG, &etag);
        not_modified.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
        insert(&mut not_modified, URN, schema.urn().as_ref());
        insert(&mut not_modified, LANGUAGE, schema.language().as_str());
        if let Some(root) = schema.root() {
            insert(&mut not_modified, ROOT, root);
        }
        insert(&mut not_modified, DIGEST, schema.digest());
        insert(&mut not_modified, ID, &id.to_string());
        let content_type = protocol::content_type::of(schema.language());
        let mut ok = not_modified.clone();
        ok.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        Answer {
            body: schema.shared_bytes(),
            etag: etag.into(),
            ok,
            not_modified,
        }
    }

    /// The bytes it holds beyond the schema's own (which it shares).
    pub(crate) fn size(&self) -> usize {
        let headers: usize = self
            .ok
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum();
        self.etag.len() + 2 * headers
    }

    /// The answer to a request with `request` headers: `304` when its
    /// `If-None-Match` names the ETag (or is `*`), else the bytes.
    pub(crate) fn respond(&self, request: &HeaderMap) -> Response {
        let not_modified = request
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .any(|value| matches_etag(value, &self.etag));
        if not_modified {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            *response.headers_mut() = self.not_modified.clone();
            response
        } else {
            let mut response = Response::new(Body::from(self.body.clone()));
            *response.headers_mut() = self.ok.clone();
            response
        }
    }
}

fn insert(headers: &mut HeaderMap, name: HeaderName, value: &str) {
    // Every value here is ASCII the registry produced (URNs, digests,
    // numbers); a protobuf root with other bytes is left out, not a panic.
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// Whether an `If-None-Match` value names `etag` (weak or strong) or is `*`.
fn matches_etag(value: &HeaderValue, etag: &str) -> bool {
    let Ok(value) = value.to_str() else {
        return false;
    };
    value
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
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
        let mut response = NativeError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "publish with PUT or POST; read a schema at /schemas/{urn}",
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("PUT, POST"));
        response
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
    let urn = parse_urn(&key)?;
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
    let language = match setting(&query, &headers, "language", &LANGUAGE) {
        Some(language) => language.parse::<Language>()?,
        None => Language::JsonSchema,
    };
    let root = setting(&query, &headers, "root", &ROOT).filter(|root| !root.is_empty());
    if language == Language::JsonSchema && root.is_some() {
        return Err(NativeError::new(
            StatusCode::BAD_REQUEST,
            "invalid_root",
            "a JSON Schema has no root message: give a root for protobuf schemas only",
        ));
    }
    let mode = match setting(&query, &headers, "mode", &MODE) {
        Some(mode) => Some(mode.parse::<Compatibility>().map_err(Error::from)?),
        None => None,
    };
    let schema = Schema::new(urn, language, body, root.as_deref());
    let stored = state
        .blocking(move |registry| {
            let mode = match mode {
                Some(mode) => mode,
                None => registry.compatibility(schema.urn().name())?,
            };
            registry.publish(schema, mode)
        })
        .await?;
    let status = if stored.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut response = json_response(
        status,
        &json!({"urn": stored.urn.to_string(), "id": stored.id, "created": stored.created}),
    );
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_forms() {
        let etag = "\"sha256:ab\"";
        for value in [
            "\"sha256:ab\"",
            "W/\"sha256:ab\"",
            "*",
            "\"x\", \"sha256:ab\"",
        ] {
            assert!(
                matches_etag(&HeaderValue::from_static(value), etag),
                "{value}"
            );
        }
        assert!(!matches_etag(
            &HeaderValue::from_static("\"sha256:cd\""),
            etag
        ));
    }
}
