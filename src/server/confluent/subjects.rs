//! Subjects and their versions: list, read, register, look up.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use serde_json::Value;

use super::error::{from_error, subject_not_found, version_not_found, ApiError, ErrorCode, Reply};
use super::request::{candidate, subject, subject_version, urn, which, Which};
use crate::server::cache::UrnEntry;
use crate::server::query::Query;
use crate::server::state::{proto_view, AppState};
use crate::server::wire::confluent::{ok, raw, registered_json, schema_json};
use dataschema_core::{Error, Schema, Urn};

/// `GET /subjects`: the names held in the server's namespace.
pub(crate) async fn subjects(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Reply {
    let query = Query::parse(raw.as_deref());
    query.flag("deleted", false)?;
    if query.flag("deletedOnly", false)? {
        return Ok(ok(&Value::Array(Vec::new())));
    }
    let prefix = query.get("subjectPrefix").unwrap_or("");
    let urns = state
        .blocking(|registry| registry.list())
        .await
        .map_err(from_error)?;
    let mut names: Vec<&str> = urns
        .iter()
        .filter(|urn| urn.namespace() == state.namespace() && urn.name().starts_with(prefix))
        .map(Urn::name)
        .collect();
    names.dedup();
    Ok(ok(&Value::from(query.page(names)?)))
}

/// The versions of `subject`, ascending (empty for none).
pub(crate) async fn versions_of(state: &AppState, subject: &str) -> Result<Vec<u32>, ApiError> {
    state
        .versions(state.namespace(), subject)
        .await
        .map_err(from_error)
}

/// `GET /subjects/{s}/versions`.
pub(crate) async fn versions(
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
        return Ok(ok(&Value::Array(Vec::new())));
    }
    Ok(ok(&Value::from(query.page(versions)?)))
}

/// The cached entry of a subject's version.
async fn find_version(
    state: &AppState,
    subject: &str,
    version: &str,
) -> Result<Arc<UrnEntry>, ApiError> {
    let number = match which(version)? {
        Which::Exact(v) => v,
        Which::Latest => *versions_of(state, subject)
            .await?
            .last()
            .ok_or_else(|| subject_not_found(subject))?,
    };
    let urn = urn(state, subject, number)?;
    match state.urn_entry(urn).await {
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

/// `GET /subjects/{s}/versions/{v}` (`?format=serialized`: a protobuf
/// schema as base64 of its `FileDescriptorProto`).
pub(crate) async fn version(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let entry = find_version(&state, &subject, &version).await?;
    #[cfg(feature = "proto-text")]
    if super::protobuf::wants_serialized(Query::parse(raw_query.as_deref()).get("format")) {
        let schema = entry.schema.clone();
        let (name, number) = (schema.urn().name().to_owned(), schema.urn().version());
        let id = state
            .blocking({
                let urn = schema.urn().clone();
                move |registry| registry.id_of(&urn)
            })
            .await
            .map_err(from_error)?;
        if let Some(answer) =
            super::protobuf::serialized(&state, schema, Some((name, number, id))).await?
        {
            return Ok(ok(&answer));
        }
    }
    #[cfg(not(feature = "proto-text"))]
    let _ = raw_query;
    Ok(raw(entry.version_json.clone()))
}

/// `GET /subjects/{s}/versions/{v}/schema`: the schema string raw.
pub(crate) async fn version_schema(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let entry = find_version(&state, &subject, &version).await?;
    Ok(raw(entry.text.clone()))
}

/// `POST /subjects/{s}/versions`: registers the schema as the subject's
/// next version (the same content again answers its version).
pub(crate) async fn register(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let normalize = Query::parse(raw_query.as_deref()).flag("normalize", false)?;
    let schema = candidate(&state, &subject, 1, body)?;
    let namespace = state.namespace().to_owned();
    let (stored, schema, view) = state
        .blocking(move |registry| {
            let schema = normalized(registry, schema, normalize)?;
            let mode = registry.compatibility(schema.urn().name())?;
            let stored = registry.publish_next(schema.clone(), mode)?;
            let view = proto_view(registry, &namespace, &schema);
            Ok((stored, schema, view))
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&registered_json(
        stored.id,
        &subject,
        stored.urn.version(),
        &schema,
        view.as_ref(),
    )))
}

/// `POST /subjects/{s}`: the newest version of the subject that holds the
/// schema sent.
pub(crate) async fn lookup(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let query = Query::parse(raw_query.as_deref());
    let normalize = query.flag("normalize", false)?;
    query.flag("deleted", false)?;
    let candidate = candidate(&state, &subject, 1, body)?;
    let namespace = state.namespace().to_owned();
    let name = subject.clone();
    let found = state
        .blocking(move |registry| {
            let candidate = normalized(registry, candidate, normalize)?;
            let versions = registry.versions_in(&namespace, &name)?;
            if versions.is_empty() {
                return Ok(None);
            }
            for &version in versions.iter().rev() {
                let urn = candidate.urn().with_version(version)?;
                let held = registry.resolve(&urn)?;
                if same_content(&held, &candidate) {
                    let id = registry.id_of(&urn)?;
                    let view = proto_view(registry, &namespace, &held);
                    return Ok(Some(Some((held, id, view))));
                }
            }
            Ok(Some(None))
        })
        .await
        .map_err(from_error)?;
    match found {
        None => Err(subject_not_found(&subject)),
        Some(None) => Err(ApiError::new(
            ErrorCode::SchemaNotFound,
            format!("Schema not found under subject '{subject}'."),
        )),
        Some(Some((schema, id, view))) => Ok(ok(&schema_json(&schema, id, view.as_ref()))),
    }
}

fn same_content(a: &Schema, b: &Schema) -> bool {
    a.language() == b.language() && a.root() == b.root() && a.bytes() == b.bytes()
}

/// `schema` as `normalize=true` registers it: a protobuf schema registered
/// as Confluent's clients do, its text normalized
/// (`dataschema::proto::normalize`); anything else as it is.
fn normalized(
    registry: &crate::Registry,
    schema: Schema,
    normalize: bool,
) -> Result<Schema, Error> {
    #[cfg(feature = "proto-text")]
    if normalize {
        return dataschema_core::proto::normalize(&schema, registry);
    }
    let _ = (registry, normalize);
    Ok(schema)
}
