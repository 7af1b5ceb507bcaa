//! Subjects and their versions: list, read, register, look up.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use serde_json::Value;

use super::contracts;
use super::error::{from_error, subject_not_found, version_not_found, ApiError, ErrorCode, Reply};
use super::request::{candidate_with_contract, subject, subject_version, urn, which, Which};
use crate::server::cache::UrnEntry;
use crate::server::query::Query;
use crate::server::state::AppState;
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

/// `GET /subjects/{s}/versions/{v}`.
pub(crate) async fn version(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let entry = find_version(&state, &subject, &version).await?;
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
    Query::parse(raw_query.as_deref()).flag("normalize", false)?;
    let (schema, contract) = candidate_with_contract(&state, &subject, 1, body)?;
    let namespace = state.namespace().to_owned();
    let (stored, schema) = state
        .blocking(move |registry| {
            let name = schema.urn().name().to_owned();
            let schema = match contracts::completed(registry, &namespace, &name, schema, &contract)
            {
                Ok(schema) => schema,
                Err(refused) => return Ok(Err(refused.into_api())),
            };
            let mode = registry.compatibility(schema.urn().name())?;
            let stored = registry.publish_next(schema.clone(), mode)?;
            Ok(Ok((stored, schema)))
        })
        .await
        .map_err(from_error)??;
    Ok(ok(&registered_json(
        stored.id,
        &subject,
        stored.urn.version(),
        &schema,
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
    query.flag("normalize", false)?;
    query.flag("deleted", false)?;
    let (candidate, contract) = candidate_with_contract(&state, &subject, 1, body)?;
    let namespace = state.namespace().to_owned();
    let name = subject.clone();
    let found = state
        .blocking(move |registry| {
            let candidate = match contracts::resolved(registry, &namespace, candidate, &contract) {
                Ok(candidate) => candidate,
                Err(refused) => return Ok(Err(refused.into_api())),
            };
            let versions = registry.versions_in(&namespace, &name)?;
            if versions.is_empty() {
                return Ok(Ok(None));
            }
            for &version in versions.iter().rev() {
                let urn = candidate.urn().with_version(version)?;
                let held = registry.resolve(&urn)?;
                if same_content(&held, &candidate) {
                    let id = registry.id_of(&urn)?;
                    return Ok(Ok(Some(Some((held, id)))));
                }
            }
            Ok(Ok(Some(None)))
        })
        .await
        .map_err(from_error)??;
    match found {
        None => Err(subject_not_found(&subject)),
        Some(None) => Err(ApiError::new(
            ErrorCode::SchemaNotFound,
            format!("Schema not found under subject '{subject}'."),
        )),
        Some(Some((schema, id))) => Ok(ok(&schema_json(&schema, id))),
    }
}

/// Whether `held` is the schema a lookup sent: the same bytes and
/// references, and, when the lookup sent metadata or a rule set, the same
/// ones (a lookup without them matches any, as Confluent's does).
fn same_content(held: &Schema, sent: &Schema) -> bool {
    held.language() == sent.language()
        && held.root() == sent.root()
        && held.bytes() == sent.bytes()
        && held.references() == sent.references()
        && sent.metadata().is_none_or(|m| held.metadata() == Some(m))
        && sent.rule_set().is_none_or(|r| held.rule_set() == Some(r))
}
