//! The part of Confluent Schema Registry's REST API that clients use.
//!
//! A subject is a URN name, a version a URN version, under the server's
//! namespace. Error bodies and codes are Confluent's (`Errors.java`).

use std::borrow::Cow;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::routing::{delete, get, post, put};
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value};

use super::cache::{IdEntry, UrnEntry};
use super::native::cached;
use super::reply::{json_response, page, report_json, ApiError, Query, CONFLUENT_JSON};
use super::AppState;
use crate::store::SchemaId;
use dataschema_core::clip;
use dataschema_core::{compat, Compatibility, Error, Language, Schema, Urn};

pub(crate) fn reads(state: AppState) -> Router {
    Router::new()
        .route("/subjects", get(subjects))
        .route("/subjects/{subject}", post(lookup).delete(never_deleted))
        .route(
            "/subjects/{subject}/versions",
            get(versions).fallback(read_only),
        )
        .route(
            "/subjects/{subject}/versions/{version}",
            get(version).delete(never_deleted),
        )
        .route(
            "/subjects/{subject}/versions/{version}/schema",
            get(version_schema),
        )
        .route("/schemas/types", get(types))
        .route("/schemas/ids/{id}", get(by_id))
        .route("/schemas/ids/{id}/schema", get(by_id_schema))
        .route("/schemas/ids/{id}/subjects", get(id_subjects))
        .route("/schemas/ids/{id}/versions", get(id_versions))
        .route(
            "/compatibility/subjects/{subject}/versions",
            post(compatibility_all),
        )
        .route(
            "/compatibility/subjects/{subject}/versions/{version}",
            post(compatibility_one),
        )
        .route("/config", get(config).fallback(read_only))
        .route("/config/{subject}", get(subject_config).fallback(read_only))
        .fallback(not_found)
        .with_state(state)
}

pub(crate) fn publishes(state: AppState) -> Router {
    Router::new()
        .route("/subjects/{subject}/versions", post(register))
        .route("/config", put(set_config))
        .route(
            "/config/{subject}",
            put(set_subject_config).merge(delete(clear_subject_config)),
        )
        .with_state(state)
}

type Reply = Result<Response, ApiError>;

fn ok(value: &Value) -> Response {
    json_response(StatusCode::OK, value)
}

/// Prebuilt bytes as an answer with Confluent's content type: a cached
/// JSON answer, or a schema string raw (`.../schema` routes).
fn raw(bytes: Bytes) -> Response {
    let mut response = Response::new(Body::from(bytes));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(CONFLUENT_JSON),
    );
    response
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, 404, "HTTP 404 Not Found")
}

/// A Confluent write on a server that publishes nothing (or another
/// method on a read route).
async fn read_only(method: Method) -> ApiError {
    if method == Method::POST || method == Method::PUT || method == Method::DELETE {
        ApiError::not_permitted(
            "this server is read-only: it registers no schema and changes no config",
        )
    } else {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            405,
            "HTTP 405 Method Not Allowed",
        )
    }
}

async fn never_deleted() -> ApiError {
    ApiError::not_permitted(
        "schemas are never deleted: a stored message's schema must resolve for ever, so no \
         subject or version is ever removed",
    )
}

// ---- parsing ----

fn subject(path: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    let Path(subject) = path.map_err(|rejection| invalid_subject_path(&rejection))?;
    checked_subject(subject)
}

fn subject_version(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), ApiError> {
    let Path((subject, version)) = path.map_err(|rejection| invalid_subject_path(&rejection))?;
    Ok((checked_subject(subject)?, version))
}

fn invalid_subject_path(rejection: &PathRejection) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        42208,
        format!("invalid subject: {}", rejection.body_text()),
    )
}

fn checked_subject(subject: String) -> Result<String, ApiError> {
    match Urn::check_name(&subject) {
        Ok(()) => Ok(subject),
        Err(reason) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            42208,
            format!(
                "invalid subject {:?}: {reason}; a subject is the name of a schema URN \
                 (lowercase letters, digits, `.`, `_` and `-`, at most 200 characters)",
                clip(&subject, 100)
            ),
        )),
    }
}

/// Which version a route names.
#[derive(Clone, Copy)]
enum Which {
    Latest,
    Exact(u32),
}

fn which(version: &str) -> Result<Which, ApiError> {
    if version.eq_ignore_ascii_case("latest") || version == "-1" {
        return Ok(Which::Latest);
    }
    match version.parse::<u32>() {
        Ok(v) if v > 0 && !version.starts_with('+') => Ok(Which::Exact(v)),
        _ => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            42202,
            format!(
                "invalid version {:?}: a version is an integer from 1 to 4294967295, or latest",
                clip(version, 40)
            ),
        )),
    }
}

fn parse_id(id: &str) -> Result<SchemaId, ApiError> {
    match id.parse::<SchemaId>() {
        Ok(id) if id > 0 && id <= i32::MAX as u32 => Ok(id),
        _ => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            40403,
            format!("schema {:?} not found", clip(id, 40)),
        )),
    }
}

fn urn(state: &AppState, subject: &str, version: u32) -> Result<Urn, ApiError> {
    format!("urn:{}:schema:{subject}:{version}", state.namespace())
        .parse()
        .map_err(|err: Error| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                42208,
                err.chain().to_string(),
            )
        })
}

fn subject_not_found(subject: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        40401,
        format!("Subject '{subject}' not found."),
    )
}

fn version_not_found(subject: &str, version: u32) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        40402,
        format!("Version {version} not found for subject '{subject}'."),
    )
}

fn mode_name(mode: Compatibility) -> String {
    mode.as_str().to_ascii_uppercase()
}

/// Registry errors as Confluent's.
fn from_error(err: Error) -> ApiError {
    match &err {
        Error::Incompatible { report, .. } => ApiError::new(
            StatusCode::CONFLICT,
            40901,
            format!(
                "Schema being registered is incompatible with an earlier schema for subject \
                 '{}': {report}",
                err.urn().map(Urn::name).unwrap_or_default()
            ),
        ),
        Error::OutOfOrder { .. } | Error::Immutable { .. } => {
            ApiError::new(StatusCode::CONFLICT, 40901, err.chain().to_string())
        }
        Error::Empty { .. }
        | Error::MissingRoot { .. }
        | Error::SchemaUnusable { .. }
        | Error::NoValidator { .. }
        | Error::InvalidLanguage { .. } => ApiError::invalid_schema(err.chain().to_string()),
        Error::InvalidUrn { .. } => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            42208,
            err.chain().to_string(),
        ),
        Error::UnknownCompatibility(_) => invalid_level(err.chain().to_string()),
        Error::IdNotFound { id } => ApiError::new(
            StatusCode::NOT_FOUND,
            40403,
            format!("Schema {id} not found"),
        ),
        Error::NotFound { urn } => ApiError::new(
            StatusCode::NOT_FOUND,
            40402,
            format!(
                "Version {} not found for subject '{}'.",
                urn.version(),
                urn.name()
            ),
        ),
        _ => ApiError::store(&err),
    }
}

fn invalid_level(message: String) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, 42203, message)
}

/// A JSON request body.
fn json_body<T: for<'de> Deserialize<'de>>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                42209,
                "the request body is larger than this server accepts",
            )
        } else {
            ApiError::bad_request(rejection.body_text())
        }
    })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "the request has no body: expected a JSON object",
        ));
    }
    serde_json::from_slice(&body).map_err(|err| {
        ApiError::bad_request(format!(
            "the request body is not the JSON expected: {}",
            clip(&err.to_string(), 200)
        ))
    })
}

/// The body of register, lookup and compatibility requests. `metadata`,
/// `ruleSet`, `normalize`, `guid`, `id` and `version` are accepted and
/// ignored.
#[derive(Deserialize)]
struct SchemaRequest {
    schema: Option<String>,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
    references: Option<Value>,
}

/// The schema a request sends, under `subject` and `version`.
fn candidate(
    state: &AppState,
    subject: &str,
    version: u32,
    body: Result<Bytes, BytesRejection>,
) -> Result<Schema, ApiError> {
    let request: SchemaRequest = json_body(body)?;
    match &request.references {
        None | Some(Value::Null) => {}
        Some(Value::Array(references)) if references.is_empty() => {}
        Some(_) => {
            return Err(ApiError::invalid_schema(
                "schema references are not supported: a JSON Schema refers to another schema \
                 by its URN (\"$ref\": \"urn:...\") instead",
            ))
        }
    }
    match request.schema_type.as_deref() {
        Some(t) if t.eq_ignore_ascii_case("JSON") => {}
        None => {
            return Err(ApiError::invalid_schema(
                "Avro schemas are not supported: a request without schemaType is Avro; this \
                 server takes JSON Schema (schemaType JSON)",
            ))
        }
        Some(t) if t.eq_ignore_ascii_case("AVRO") => {
            return Err(ApiError::invalid_schema(
                "Avro schemas are not supported: this server takes JSON Schema (schemaType JSON)",
            ))
        }
        Some(t) if t.eq_ignore_ascii_case("PROTOBUF") => {
            return Err(ApiError::invalid_schema(
                "PROTOBUF schemas are not accepted through the Confluent API: this server does \
                 not compile .proto text; publish a protobuf schema as a descriptor set through \
                 the native API (PUT /publish/schemas/{urn}), or send JSON Schema",
            ))
        }
        Some(t) => {
            return Err(ApiError::invalid_schema(format!(
                "unknown schemaType {:?}: expected JSON",
                clip(t, 40)
            )))
        }
    }
    let text = request
        .schema
        .filter(|text| !text.is_empty())
        .ok_or_else(|| ApiError::invalid_schema("the request has no schema"))?;
    if text.len() > state.max_schema_bytes() {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            42209,
            format!(
                "the schema is {} bytes, more than the {} this server accepts",
                text.len(),
                state.max_schema_bytes()
            ),
        ));
    }
    Ok(Schema::json(urn(state, subject, version)?, text))
}

/// Confluent's name of a language.
fn schema_type(language: Language) -> &'static str {
    match language {
        Language::Protobuf => "PROTOBUF",
        _ => "JSON",
    }
}

/// The schema as Confluent's `schema` string: a JSON Schema's text; a
/// protobuf descriptor set in base64.
fn schema_string(schema: &Schema) -> Cow<'_, str> {
    match schema.language() {
        Language::Protobuf => {
            use base64::Engine as _;
            Cow::Owned(base64::engine::general_purpose::STANDARD.encode(schema.bytes()))
        }
        _ => String::from_utf8_lossy(schema.bytes()),
    }
}

/// [`schema_string`] as bytes: the schema's own (shared, not copied) when
/// its text is them.
pub(crate) fn schema_text(schema: &Schema) -> Bytes {
    match schema_string(schema) {
        Cow::Borrowed(_) => schema.shared_bytes(),
        Cow::Owned(text) => Bytes::from(text),
    }
}

fn schema_json(schema: &Schema, id: SchemaId) -> Value {
    json!({
        "subject": schema.urn().name(),
        "version": schema.urn().version(),
        "id": id,
        "schemaType": schema_type(schema.language()),
        "schema": schema_string(schema),
    })
}

/// The answer of `GET /subjects/{s}/versions/{v}`, serialized (cached per
/// URN).
pub(crate) fn version_json(schema: &Schema, id: SchemaId) -> Bytes {
    Bytes::from(schema_json(schema, id).to_string())
}

/// The answer of `GET /schemas/ids/{id}`, serialized (cached per id).
pub(crate) fn id_json(schema: &Schema) -> Bytes {
    let value = json!({
        "schemaType": schema_type(schema.language()),
        "schema": schema_string(schema),
    });
    Bytes::from(value.to_string())
}

fn same_content(a: &Schema, b: &Schema) -> bool {
    a.language() == b.language() && a.root() == b.root() && a.bytes() == b.bytes()
}

// ---- subjects and versions ----

async fn subjects(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Reply {
    let query = Query::parse(raw.as_deref());
    query.flag("deleted", false)?;
    if query.flag("deletedOnly", false)? {
        return Ok(ok(&json!([])));
    }
    let prefix = query.get("subjectPrefix").unwrap_or("").to_owned();
    let namespace = state.namespace().to_owned();
    let urns = state
        .blocking(|registry| registry.list())
        .await
        .map_err(from_error)?;
    let mut names: Vec<&str> = urns
        .iter()
        .filter(|urn| urn.namespace() == namespace && urn.name().starts_with(&prefix))
        .map(Urn::name)
        .collect();
    names.dedup();
    Ok(ok(&json!(page(names, &query)?)))
}

async fn versions_of(state: &AppState, subject: &str) -> Result<Vec<u32>, ApiError> {
    let namespace = state.namespace().to_owned();
    let name = subject.to_owned();
    state
        .blocking(move |registry| registry.versions_in(&namespace, &name))
        .await
        .map_err(from_error)
}

async fn versions(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Reply {
    let subject = subject(path)?;
    let query = Query::parse(raw.as_deref());
    query.flag("deleted", false)?;
    let deleted_only = query.flag("deletedOnly", false)?;
    let versions = versions_of(&state, &subject).await?;
    if versions.is_empty() {
        return Err(subject_not_found(&subject));
    }
    if deleted_only {
        return Ok(ok(&json!([])));
    }
    Ok(ok(&json!(page(versions, &query)?)))
}

/// The cached entry of a subject's version.
async fn find_version(
    state: &AppState,
    subject: &str,
    version: &str,
) -> Result<Arc<UrnEntry>, ApiError> {
    let which = which(version)?;
    let number = match which {
        Which::Exact(v) => v,
        Which::Latest => *versions_of(state, subject)
            .await?
            .last()
            .ok_or_else(|| subject_not_found(subject))?,
    };
    let urn = urn(state, subject, number)?;
    match cached(state, urn).await {
        Ok(found) => Ok(found),
        Err(Error::NotFound { .. }) => {
            if versions_of(state, subject).await?.is_empty() {
                Err(subject_not_found(subject))
            } else {
                Err(version_not_found(subject, number))
            }
        }
        Err(err) => Err(from_error(err)),
    }
}

async fn version(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let entry = find_version(&state, &subject, &version).await?;
    Ok(raw(entry.version_json.clone()))
}

async fn version_schema(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let entry = find_version(&state, &subject, &version).await?;
    Ok(raw(entry.text.clone()))
}

async fn register(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    Query::parse(raw_query.as_deref()).flag("normalize", false)?;
    let schema = candidate(&state, &subject, 1, body)?;
    let stored = state
        .blocking(move |registry| {
            let mode = registry.compatibility(schema.urn().name())?;
            let stored = registry.publish_next(schema.clone(), mode)?;
            Ok((stored, schema))
        })
        .await
        .map_err(from_error)?;
    let (stored, schema) = stored;
    Ok(ok(&json!({
        "id": stored.id,
        "subject": subject,
        "version": stored.urn.version(),
        "schemaType": "JSON",
        "schema": String::from_utf8_lossy(schema.bytes()),
    })))
}

async fn lookup(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let query = Query::parse(raw_query.as_deref());
    query.flag("normalize", false)?;
    query.flag("deleted", false)?;
    let candidate = candidate(&state, &subject, 1, body)?;
    let namespace = state.namespace().to_owned();
    let name = subject.clone();
    let found = state
        .blocking(move |registry| {
            let versions = registry.versions_in(&namespace, &name)?;
            if versions.is_empty() {
                return Ok(None);
            }
            for &version in versions.iter().rev() {
                let urn = candidate.urn().with_version(version)?;
                let held = registry.resolve(&urn)?;
                if same_content(&held, &candidate) {
                    let id = registry.id_of(&urn)?;
                    return Ok(Some(Some((held, id))));
                }
            }
            Ok(Some(None))
        })
        .await
        .map_err(from_error)?;
    match found {
        None => Err(subject_not_found(&subject)),
        Some(None) => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            40403,
            format!("Schema not found under subject '{subject}'."),
        )),
        Some(Some((schema, id))) => Ok(ok(&schema_json(&schema, id))),
    }
}

// ---- ids ----

/// The cached entry of an id.
async fn schema_of_id(state: &AppState, id: SchemaId) -> Result<Arc<IdEntry>, ApiError> {
    if let Some(entry) = state.cache().by_id(id) {
        return Ok(entry);
    }
    let schema = state
        .blocking(move |registry| registry.schema_by_id(id))
        .await
        .map_err(from_error)?;
    Ok(state.cache().insert_id(id, &schema))
}

async fn by_id(State(state): State<AppState>, Path(id): Path<String>) -> Reply {
    let entry = schema_of_id(&state, parse_id(&id)?).await?;
    Ok(raw(entry.id_json.clone()))
}

async fn by_id_schema(State(state): State<AppState>, Path(id): Path<String>) -> Reply {
    let entry = schema_of_id(&state, parse_id(&id)?).await?;
    Ok(raw(entry.text.clone()))
}

/// The URNs of `id` in the server's namespace (40403 for none).
async fn urns_of(state: &AppState, id: &str) -> Result<Vec<Urn>, ApiError> {
    let id = parse_id(id)?;
    let namespace = state.namespace().to_owned();
    let urns = state
        .blocking(move |registry| registry.urns_of_id(id))
        .await
        .map_err(from_error)?;
    let urns: Vec<Urn> = urns
        .into_iter()
        .filter(|urn| urn.namespace() == namespace)
        .collect();
    if urns.is_empty() {
        return Err(from_error(Error::IdNotFound { id }));
    }
    Ok(urns)
}

async fn id_subjects(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    query.flag("deleted", false)?;
    let urns = urns_of(&state, &id).await?;
    let mut names: Vec<&str> = urns.iter().map(Urn::name).collect();
    if let Some(subject) = query.get("subject") {
        names.retain(|name| *name == subject);
    }
    names.dedup();
    Ok(ok(&json!(page(names, &query)?)))
}

async fn id_versions(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    query.flag("deleted", false)?;
    let urns = urns_of(&state, &id).await?;
    let pairs: Vec<Value> = urns
        .iter()
        .map(|urn| json!({"subject": urn.name(), "version": urn.version()}))
        .collect();
    Ok(ok(&json!(page(pairs, &query)?)))
}

async fn types() -> Response {
    ok(&json!(["JSON"]))
}

// ---- compatibility ----

async fn compatibility_all(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    compatibility(state, subject, None, raw_query, body).await
}

async fn compatibility_one(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let which = which(&version)?;
    compatibility(state, subject, Some(which), raw_query, body).await
}

/// Tests a schema as a register would check it: against the version named
/// (`latest`: the newest), or against every version under the subject's
/// mode; under the subject's mode either way. Nothing is stored.
async fn compatibility(
    state: AppState,
    subject: String,
    which: Option<Which>,
    raw_query: Option<String>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    query.flag("normalize", false)?;
    let verbose = query.flag("verbose", false)?;
    let versions = versions_of(&state, &subject).await?;
    let next = versions.last().map_or(1, |v| v.saturating_add(1));
    let candidate = candidate(&state, &subject, next, body)?;
    let against: Vec<u32> = match which {
        Some(Which::Exact(_)) if versions.is_empty() => return Err(subject_not_found(&subject)),
        Some(Which::Exact(v)) if !versions.contains(&v) => {
            return Err(version_not_found(&subject, v))
        }
        Some(Which::Exact(v)) => vec![v],
        Some(Which::Latest) => versions.last().copied().into_iter().collect(),
        None => versions,
    };
    let report = state
        .blocking(move |registry| {
            let mode = registry.compatibility(candidate.urn().name())?;
            let mut priors = Vec::with_capacity(against.len());
            for version in against {
                priors.push(registry.resolve(&candidate.urn().with_version(version)?)?);
            }
            Ok(compat::check(mode, &candidate, &priors)?)
        })
        .await
        .map_err(from_error)?;
    let mut answer = json!({"is_compatible": report.is_compatible()});
    if verbose {
        let messages: Vec<String> = report.breaking().map(ToString::to_string).collect();
        answer["messages"] = json!(messages);
        answer["report"] = report_json(&report);
    }
    Ok(ok(&answer))
}

// ---- config ----

#[derive(Deserialize)]
struct ConfigRequest {
    compatibility: Option<String>,
}

fn level(body: Result<Bytes, BytesRejection>) -> Result<Compatibility, ApiError> {
    let request: ConfigRequest = json_body(body)?;
    let Some(level) = request.compatibility else {
        return Err(invalid_level(
            "the request names no compatibility level: send {\"compatibility\": \"BACKWARD\"}"
                .to_owned(),
        ));
    };
    level.parse::<Compatibility>().map_err(|_| {
        invalid_level(format!(
            "Invalid compatibility level {:?}: expected one of NONE, BACKWARD, \
             BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE",
            clip(&level, 40)
        ))
    })
}

async fn config(State(state): State<AppState>) -> Reply {
    let mode = state
        .blocking(|registry| registry.compatibility_setting(None))
        .await
        .map_err(from_error)?
        .unwrap_or_default();
    Ok(ok(&json!({"compatibilityLevel": mode_name(mode)})))
}

async fn set_config(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Reply {
    let mode = level(body)?;
    state
        .blocking(move |registry| registry.set_default_compatibility(mode))
        .await
        .map_err(from_error)?;
    Ok(ok(&json!({"compatibility": mode_name(mode)})))
}

fn no_subject_config(subject: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        40408,
        format!("Subject '{subject}' does not have subject-level compatibility configured"),
    )
}

async fn subject_config(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let subject = subject(path)?;
    let default_to_global = Query::parse(raw_query.as_deref()).flag("defaultToGlobal", false)?;
    let name = subject.clone();
    let (own, global) = state
        .blocking(move |registry| {
            Ok((
                registry.compatibility_setting(Some(&name))?,
                registry.compatibility_setting(None)?,
            ))
        })
        .await
        .map_err(from_error)?;
    match own {
        Some(mode) => Ok(ok(&json!({"compatibilityLevel": mode_name(mode)}))),
        None if default_to_global => Ok(ok(
            &json!({"compatibilityLevel": mode_name(global.unwrap_or_default())}),
        )),
        None => Err(no_subject_config(&subject)),
    }
}

async fn set_subject_config(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let mode = level(body)?;
    state
        .blocking(move |registry| registry.set_compatibility(&subject, mode))
        .await
        .map_err(from_error)?;
    Ok(ok(&json!({"compatibility": mode_name(mode)})))
}

async fn clear_subject_config(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Reply {
    let subject = subject(path)?;
    let name = subject.clone();
    let previous = state
        .blocking(move |registry| {
            let previous = registry.compatibility_setting(Some(&name))?;
            if previous.is_some() {
                registry.clear_compatibility(&name)?;
            }
            Ok(previous)
        })
        .await
        .map_err(from_error)?;
    match previous {
        Some(mode) => Ok(ok(&json!({"compatibilityLevel": mode_name(mode)}))),
        None => Err(no_subject_config(&subject)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_ids_parse_strictly() {
        assert!(matches!(which("latest"), Ok(Which::Latest)));
        assert!(matches!(which("LATEST"), Ok(Which::Latest)));
        assert!(matches!(which("-1"), Ok(Which::Latest)));
        assert!(matches!(which("3"), Ok(Which::Exact(3))));
        for bad in ["0", "+3", "-2", "x", "4294967296", ""] {
            assert_eq!(which(bad).err().map(|e| e.code), Some(42202), "{bad}");
        }
        assert_eq!(parse_id("7").ok(), Some(7));
        for bad in ["0", "-1", "x", "99999999999"] {
            assert_eq!(parse_id(bad).err().map(|e| e.code), Some(40403), "{bad}");
        }
    }
}
