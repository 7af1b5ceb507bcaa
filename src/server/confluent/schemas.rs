//! Schemas by id (`/schemas/ids/{id}` and below) and the schema types
//! this server takes.

use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use serde_json::Value;

use super::error::{from_error, ApiError, Reply};
use super::request::parse_id;
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{ok, raw, subject_version_json};
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
    #[cfg(feature = "proto-text")]
    if super::protobuf::wants_serialized(Query::parse(raw_query.as_deref()).get("format")) {
        let schema = state
            .blocking(move |registry| registry.schema_by_id(id))
            .await
            .map_err(from_error)?;
        if let Some(answer) = super::protobuf::serialized(&state, schema, None).await? {
            return Ok(ok(&answer));
        }
    }
    #[cfg(not(feature = "proto-text"))]
    let _ = raw_query;
    Ok(raw(entry.id_json.clone()))
}

/// `GET /schemas/ids/{id}/schema`: the schema string raw.
pub(crate) async fn by_id_schema(State(state): State<AppState>, Path(id): Path<String>) -> Reply {
    let entry = state.id_entry(parse_id(&id)?).await.map_err(from_error)?;
    Ok(raw(entry.text.clone()))
}

/// The URNs of `id` in the server's namespace (40403 for none).
async fn urns_of(state: &AppState, id: &str) -> Result<Vec<Urn>, ApiError> {
    let id = parse_id(id)?;
    let urns: Vec<Urn> = state
        .urns_of_id(id)
        .await
        .map_err(from_error)?
        .into_iter()
        .filter(|urn| urn.namespace() == state.namespace())
        .collect();
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
    query.flag("deleted", false)?;
    let urns = urns_of(&state, &id).await?;
    let mut names: Vec<&str> = urns.iter().map(Urn::name).collect();
    if let Some(subject) = query.get("subject") {
        names.retain(|name| *name == subject);
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
    query.flag("deleted", false)?;
    let urns = urns_of(&state, &id).await?;
    let pairs: Vec<Value> = urns
        .iter()
        .map(|urn| subject_version_json(urn.name(), urn.version()))
        .collect();
    Ok(ok(&Value::from(query.page(pairs)?)))
}

/// `GET /schemas/types`.
pub(crate) async fn types() -> Response {
    if cfg!(feature = "proto-text") {
        ok(&Value::from(vec!["JSON", "PROTOBUF"]))
    } else {
        ok(&Value::from(vec!["JSON"]))
    }
}
