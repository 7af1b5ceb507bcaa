//! Compatibility levels (`/config`, `/config/{s}`): read, set, clear.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use serde::Deserialize;

use super::error::{from_error, invalid_level, no_subject_config, ApiError, Reply};
use super::request::{json_body, subject};
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{level_json, level_set_json, ok};
use dataschema_core::clip;
use dataschema_core::Compatibility;

#[derive(Deserialize)]
struct ConfigRequest {
    compatibility: Option<String>,
}

/// The level a `PUT` sends (42203 for none, or not one of the seven).
fn level(body: Result<Bytes, BytesRejection>) -> Result<Compatibility, ApiError> {
    let request: ConfigRequest = json_body(body)?;
    let Some(level) = request.compatibility else {
        return Err(invalid_level(
            "the request names no compatibility level: send {\"compatibility\": \"BACKWARD\"}",
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

/// `GET /config`: the default level.
pub(crate) async fn global(State(state): State<AppState>) -> Reply {
    let mode = state
        .blocking(|registry| registry.compatibility_setting(None))
        .await
        .map_err(from_error)?
        .unwrap_or_default();
    Ok(ok(&level_json(mode)))
}

/// `PUT /config`: sets the default level.
pub(crate) async fn set_global(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let mode = level(body)?;
    state
        .blocking(move |registry| registry.set_default_compatibility(mode))
        .await
        .map_err(from_error)?;
    Ok(ok(&level_set_json(mode)))
}

/// `GET /config/{s}`: the subject's own level (40408 for none, unless
/// `defaultToGlobal=true`).
pub(crate) async fn subject_level(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let subject = subject(path)?;
    let default_to_global = Query::parse(raw_query.as_deref()).flag("defaultToGlobal", false)?;
    let name = subject.name.clone();
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
        Some(mode) => Ok(ok(&level_json(mode))),
        None if default_to_global => Ok(ok(&level_json(global.unwrap_or_default()))),
        None => Err(no_subject_config(&subject.text)),
    }
}

/// `DELETE /config`: clears the default level, answering the level it
/// cleared (the default, BACKWARD, when none was set).
pub(crate) async fn clear_global(State(state): State<AppState>) -> Reply {
    let previous = state
        .blocking(|registry| {
            let previous = registry.compatibility_setting(None)?;
            registry.clear_default_compatibility()?;
            Ok(previous)
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&level_json(previous.unwrap_or_default())))
}

/// `PUT /config/{s}`: sets the subject's level.
pub(crate) async fn set_subject_level(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let mode = level(body)?;
    state
        .blocking(move |registry| registry.set_compatibility(&subject.name, mode))
        .await
        .map_err(from_error)?;
    Ok(ok(&level_set_json(mode)))
}

/// `DELETE /config/{s}`: clears the subject's level, answering the level
/// it cleared (40408 for none).
pub(crate) async fn clear_subject_level(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Reply {
    let subject = subject(path)?;
    let name = subject.name.clone();
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
        Some(mode) => Ok(ok(&level_json(mode))),
        None => Err(no_subject_config(&subject.text)),
    }
}
