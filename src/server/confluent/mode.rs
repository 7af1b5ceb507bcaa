//! Registry modes (`/mode`, `/mode/{s}`): read, set, clear.
//!
//! READWRITE takes registrations; READONLY and READONLY_OVERRIDE refuse
//! registrations and deletes (42205); IMPORT takes only registrations that
//! carry their own id (kept, with the version given), and none without.
//! Switching to IMPORT where versions are held (under any name for
//! `/mode`, under the subject's name for `/mode/{s}`) is refused unless
//! `force=true`, as in Confluent: the rule is the registry's
//! (`RegistryConfig::set_mode`, `RegistryConfig::force_mode`), met by every path.
//! Modes are kept by the store: they survive a restart and replicas share
//! them.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use serde::Deserialize;

use super::error::{from_error, no_subject_mode, ApiError, ErrorCode, Reply};
use super::request::{json_body, subject, Subject};
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{mode_json, ok};
use crate::store::Mode;
use dataschema_core::clip;

#[derive(Deserialize)]
struct ModeRequest {
    mode: Option<String>,
}

/// The mode a `PUT` sends (42204 for none, or not one of the four).
fn requested(body: Result<Bytes, BytesRejection>) -> Result<Mode, ApiError> {
    let request: ModeRequest = json_body(body)?;
    let text = request.mode.unwrap_or_default();
    text.parse::<Mode>().map_err(|_| {
        ApiError::new(
            ErrorCode::InvalidMode,
            format!(
                "Invalid mode {:?}: expected READWRITE, READONLY, READONLY_OVERRIDE or IMPORT",
                clip(&text, 40)
            ),
        )
    })
}

/// `GET /mode`: the registry-wide mode.
pub(crate) async fn global(State(state): State<AppState>) -> Reply {
    let mode = state
        .blocking(|registry| registry.config().mode(None))
        .await
        .map_err(from_error)?
        .unwrap_or_default();
    Ok(ok(&mode_json(mode)))
}

/// Sets the mode of `subject` (`None`: the registry-wide one).
async fn set(
    state: AppState,
    subject: Option<Subject>,
    raw_query: Option<String>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let force = Query::parse(raw_query.as_deref()).flag("force", false)?;
    let mode = requested(body)?;
    let name = subject.as_ref().map(|s| s.name.clone());
    // The rule (IMPORT where versions are held only when forced) is the
    // registry's: `RegistryConfig::set_mode`.
    state
        .blocking(move |registry| {
            if force {
                registry.config().force_mode(name.as_deref(), Some(mode))
            } else {
                registry.config().set_mode(name.as_deref(), Some(mode))
            }
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&mode_json(mode)))
}

/// `PUT /mode`: sets the registry-wide mode (`force=true`: to IMPORT
/// even where subjects are held).
pub(crate) async fn set_global(
    State(state): State<AppState>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    set(state, None, raw_query, body).await
}

/// `DELETE /mode`: clears the registry-wide mode (READWRITE again),
/// answering the mode cleared.
pub(crate) async fn clear_global(State(state): State<AppState>) -> Reply {
    let previous = state
        .blocking(|registry| {
            let previous = registry.config().mode(None)?;
            registry.config().set_mode(None, None)?;
            Ok(previous)
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&mode_json(previous.unwrap_or_default())))
}

/// `GET /mode/{s}`: the subject's own mode (40409 for none, unless
/// `defaultToGlobal=true`).
pub(crate) async fn subject_mode(
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
                registry.config().mode(Some(&name))?,
                registry.config().mode(None)?,
            ))
        })
        .await
        .map_err(from_error)?;
    match own {
        Some(mode) => Ok(ok(&mode_json(mode))),
        None if default_to_global => Ok(ok(&mode_json(global.unwrap_or_default()))),
        None => Err(no_subject_mode(&subject.text)),
    }
}

/// `PUT /mode/{s}`: sets the subject's mode.
pub(crate) async fn set_subject_mode(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    set(state, Some(subject), raw_query, body).await
}

/// `DELETE /mode/{s}`: clears the subject's mode, answering the mode it
/// cleared (40409 for none).
pub(crate) async fn clear_subject_mode(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Reply {
    let subject = subject(path)?;
    let name = subject.name.clone();
    let previous = state
        .blocking(move |registry| {
            let previous = registry.config().mode(Some(&name))?;
            if previous.is_some() {
                registry.config().set_mode(Some(&name), None)?;
            }
            Ok(previous)
        })
        .await
        .map_err(from_error)?;
    match previous {
        Some(mode) => Ok(ok(&mode_json(mode))),
        None => Err(no_subject_mode(&subject.text)),
    }
}
