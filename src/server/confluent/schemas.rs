//! Schemas by id (`/schemas/ids/{id}` and below) and the schema types
//! this server takes.

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use serde_json::Value;

use axum::body::Bytes;

use super::error::{from_error, ApiError, Reply};
use super::format::Format;
use super::request::parse_id;
use super::subjects::{every_subject, Seen};
use crate::server::query::Query;
use crate::server::state::{proto_view, AppState};
use crate::server::wire::confluent::{ok, raw, schema_json, subject_name, subject_version_json};
use dataschema_core::{Error, Urn};

/// `GET /schemas/ids/{id}` (`?format=serialized`: a protobuf schema as
/// base64 of its `FileDescriptorProto`).
pub(crate) async fn by_id(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let id = parse_id(&id)?;
    let entry = state.id_entry(id).await.map_err(from_error)?;
    let format = Format::of(&Query::parse(raw_query.as_deref()));
    if !format.is_default() {
        let cached = entry.id_json.clone();
        let answer = state
            .blocking(move |registry| {
                let schema = registry.schema_by_id(id)?;
                format.reformat(registry, &schema, &cached)
            })
            .await
            .map_err(from_error)?;
        if let Some(answer) = answer {
            return Ok(ok(&answer));
        }
    }
    Ok(raw(entry.id_json.clone()))
}

/// `GET /schemas/ids/{id}/schema`: the schema string raw (in the
/// `?format` asked for).
pub(crate) async fn by_id_schema(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let id = parse_id(&id)?;
    let entry = state.id_entry(id).await.map_err(from_error)?;
    let format = Format::of(&Query::parse(raw_query.as_deref()));
    if !format.is_default() {
        let text = state
            .blocking(move |registry| format.text(registry, &registry.schema_by_id(id)?))
            .await
            .map_err(from_error)?;
        if let Some(text) = text {
            return Ok(raw(Bytes::from(text)));
        }
    }
    Ok(raw(entry.text.clone()))
}

/// The URNs of `id` in the server's namespace that name a subject's
/// version (soft-deleted ones with `deleted`; 40403 for none). An id held
/// only under URNs no subject of the namespace names (published natively
/// in another namespace: `GET /schemas/ids/{id}` serves it) has no
/// subject version: an empty list, not "not found".
async fn urns_of(state: &AppState, id: &str, deleted: bool) -> Result<Vec<Urn>, ApiError> {
    let id = parse_id(id)?;
    let held = state.urns_of_id(id).await.map_err(from_error)?;
    let any_held = !held.is_empty();
    let urns: Vec<Urn> = held
        .into_iter()
        .filter(|urn| urn.namespace() == state.namespace())
        .filter(|urn| crate::subject::subject_of(urn.name()).is_some())
        .collect();
    if any_held && urns.is_empty() {
        return Ok(urns);
    }
    let urns = if deleted {
        urns
    } else {
        let namespace = state.namespace().to_owned();
        state
            .blocking(move |registry| {
                let mut live = Vec::with_capacity(urns.len());
                for urn in urns {
                    if !registry
                        .deleted_versions(&namespace, urn.name())?
                        .contains(&urn.version())
                    {
                        live.push(urn);
                    }
                }
                Ok(live)
            })
            .await
            .map_err(from_error)?
    };
    if urns.is_empty() {
        return Err(from_error(Error::IdNotFound { id }));
    }
    Ok(urns)
}

/// `GET /schemas/ids/{id}/subjects`.
pub(crate) async fn id_subjects(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    let deleted = query.flag("deleted", false)?;
    let urns = urns_of(&state, &id, deleted).await?;
    let mut names: Vec<String> = urns.iter().map(|urn| subject_name(urn.name())).collect();
    if let Some(subject) = query.get("subject") {
        names.retain(|name| name == subject);
    }
    names.dedup();
    Ok(ok(&Value::from(query.page(names)?)))
}

/// `GET /schemas/ids/{id}/versions`: the subject versions of the id.
pub(crate) async fn id_versions(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    let deleted = query.flag("deleted", false)?;
    let urns = urns_of(&state, &id, deleted).await?;
    let pairs: Vec<Value> = urns
        .iter()
        .map(|urn| subject_version_json(&subject_name(urn.name()), urn.version()))
        .collect();
    Ok(ok(&Value::from(query.page(pairs)?)))
}

/// `GET /schemas`: every subject version of the namespace as a schema
/// object (`subject`, `version`, `id`, `schemaType`, `schema`), by subject
/// then version; `subjectPrefix`, `deleted`, `latestOnly`, `offset` and
/// `limit` as in Confluent. (The native API lists URNs at `GET /urns`.)
pub(crate) async fn list(State(state): State<AppState>, RawQuery(raw_query): RawQuery) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    let seen = if query.flag("deleted", false)? {
        Seen::All
    } else {
        Seen::Live
    };
    let latest_only = query.flag("latestOnly", false)?;
    let prefix = query.get("subjectPrefix").unwrap_or("").to_owned();
    let namespace = state.namespace().to_owned();
    let listed = namespace.clone();
    let urns = state
        .blocking(move |registry| {
            let mut urns = Vec::new();
            for (subject, (name, versions)) in every_subject(registry, &listed, seen)? {
                if !subject.starts_with(&prefix) {
                    continue;
                }
                let versions = if latest_only {
                    versions.last().copied().into_iter().collect()
                } else {
                    versions
                };
                for version in versions {
                    urns.push(Urn::new(&listed, &name, version)?);
                }
            }
            Ok(urns)
        })
        .await
        .map_err(from_error)?;
    // The page first: only the versions answered are read and printed (a
    // protobuf schema's text is printed from its descriptor), not every
    // version of the namespace for an anonymous request asking for one.
    let urns = query.page(urns)?;
    let answers = state
        .blocking(move |registry| {
            let mut answers = Vec::with_capacity(urns.len());
            for urn in urns {
                let schema = registry.resolve(&urn)?;
                let id = registry.id_of(&urn)?;
                let view = proto_view(registry, &namespace, &schema);
                answers.push(schema_json(&schema, id, view.as_ref()));
            }
            Ok(answers)
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&Value::from(answers)))
}

/// `GET /schemas/types`.
pub(crate) async fn types() -> Response {
    ok(&Value::from(schema_types()))
}

/// The `schemaType`s this server registers, in Confluent's order.
pub(crate) fn schema_types() -> Vec<&'static str> {
    let mut types = vec!["JSON"];
    if cfg!(feature = "proto-text") {
        types.push("PROTOBUF");
    }
    if cfg!(feature = "avro") {
        types.push("AVRO");
    }
    types
}
