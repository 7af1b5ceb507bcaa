//! Compatibility levels (`/config`, `/config/{s}`): read, set, clear.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use serde::Deserialize;

use super::error::{from_error, invalid_level, no_subject_config, ApiError, Reply};
use super::request::{json_body, subject};
use crate::registry::{Registry, Settings};
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{level_json, level_set_json, ok};
use dataschema_core::clip;
use dataschema_core::Compatibility;
use serde_json::{json, Value};

#[derive(Deserialize)]
struct ConfigRequest {
    compatibility: Option<String>,
    #[serde(rename = "compatibilityLevel")]
    compatibility_level: Option<String>,
}

/// What a `PUT` sends: the level, if any, and the other settings.
struct Sent {
    level: Option<Compatibility>,
    settings: Settings,
}

/// The level and settings a `PUT` sends (42203 for a level that is not
/// one of the seven, or for a body that sets nothing).
fn sent(body: Result<Bytes, BytesRejection>) -> Result<Sent, ApiError> {
    let bytes = body.as_ref().ok().cloned();
    let request: ConfigRequest = json_body(body)?;
    let value: serde_json::Value =
        serde_json::from_slice(bytes.as_deref().unwrap_or_default()).unwrap_or_default();
    let settings = Settings::from_json(&value)
        .map_err(|why| invalid_level(format!("Invalid config: {why}")))?;
    let level =
        match request.compatibility.or(request.compatibility_level) {
            Some(level) => Some(parse_level(&level)?),
            None if !settings.is_empty() => None,
            None => return Err(invalid_level(
                "the request names no compatibility level: send {\"compatibility\": \"BACKWARD\"}",
            )),
        };
    Ok(Sent { level, settings })
}

/// A config's answer: the level (under `compatibilityLevel` for a read,
/// `compatibility` for a write, as Confluent answers), and the settings
/// set.
fn config_json(key: &str, level: Option<Compatibility>, settings: Option<&Settings>) -> Value {
    let mut answer = settings.map(Settings::to_json).unwrap_or_else(|| json!({}));
    if let Some(level) = level {
        let written = if key == "compatibility" {
            level_set_json(level)
        } else {
            level_json(level)
        };
        if let (Value::Object(answer), Value::Object(written)) = (&mut answer, written) {
            answer.extend(written);
        }
    }
    answer
}

/// A compatibility level by name (42203 for none of the seven).
fn parse_level(level: &str) -> Result<Compatibility, ApiError> {
    level.parse::<Compatibility>().map_err(|_| {
        invalid_level(format!(
            "Invalid compatibility level {:?}: expected one of NONE, BACKWARD, \
             BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE",
            clip(level, 40)
        ))
    })
}

/// `GET /config`: the default level.
pub(crate) async fn global(State(state): State<AppState>) -> Reply {
    let (mode, settings) = state
        .blocking(|registry| {
            Ok((
                registry.config().compatibility(None)?,
                registry.config().settings(None)?,
            ))
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&config_json(
        "compatibilityLevel",
        Some(mode.unwrap_or_default()),
        settings.as_ref(),
    )))
}

/// `PUT /config`: sets the default level.
pub(crate) async fn set_global(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let Sent { level, settings } = sent(body)?;
    let settings = state
        .blocking(move |registry| {
            if let Some(mode) = level {
                registry.config().set_compatibility(None, Some(mode))?;
            }
            set_settings(registry, None, settings)
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&config_json("compatibility", level, settings.as_ref())))
}

/// Sets the settings sent over those held (a member not sent keeps its
/// value), answering what is held after.
fn set_settings(
    registry: &Registry,
    name: Option<&str>,
    sent: Settings,
) -> Result<Option<Settings>, dataschema_core::Error> {
    if sent.is_empty() {
        return registry.config().settings(name);
    }
    let held = registry.config().settings(name)?.unwrap_or_default();
    let settings = sent.or(&held);
    registry.config().set_settings(name, Some(&settings))?;
    Ok(Some(settings))
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
    let (own, own_settings, global, global_settings) = state
        .blocking(move |registry| {
            Ok((
                registry.config().compatibility(Some(&name))?,
                registry.config().settings(Some(&name))?,
                registry.config().compatibility(None)?,
                registry.config().settings(None)?,
            ))
        })
        .await
        .map_err(from_error)?;
    if own.is_some() || own_settings.is_some() {
        let level = own.or(global.filter(|_| default_to_global));
        let settings = match (&own_settings, default_to_global) {
            (Some(own), true) => Some(own.or(&global_settings.unwrap_or_default())),
            (own, _) => own.clone(),
        };
        return Ok(ok(&config_json(
            "compatibilityLevel",
            level,
            settings.as_ref(),
        )));
    }
    if default_to_global {
        return Ok(ok(&config_json(
            "compatibilityLevel",
            Some(global.unwrap_or_default()),
            global_settings.as_ref(),
        )));
    }
    Err(no_subject_config(&subject.text))
}

/// `DELETE /config`: clears the default level, answering the level it
/// cleared (the default, BACKWARD, when none was set).
pub(crate) async fn clear_global(State(state): State<AppState>) -> Reply {
    let (previous, settings) = state
        .blocking(|registry| {
            let previous = registry.config().compatibility(None)?;
            registry.config().set_compatibility(None, None)?;
            let settings = registry.config().settings(None)?;
            if settings.is_some() {
                registry.config().set_settings(None, None)?;
            }
            Ok((previous, settings))
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&config_json(
        "compatibilityLevel",
        Some(previous.unwrap_or_default()),
        settings.as_ref(),
    )))
}

/// `PUT /config/{s}`: sets the subject's level.
pub(crate) async fn set_subject_level(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let Sent { level, settings } = sent(body)?;
    let settings = state
        .blocking(move |registry| {
            if let Some(mode) = level {
                registry
                    .config()
                    .set_compatibility(Some(&subject.name), Some(mode))?;
            }
            set_settings(registry, Some(&subject.name), settings)
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&config_json("compatibility", level, settings.as_ref())))
}

/// `DELETE /config/{s}`: clears the subject's level, answering the level
/// it cleared (40408 for none).
pub(crate) async fn clear_subject_level(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Reply {
    let subject = subject(path)?;
    let name = subject.name.clone();
    let (previous, settings) = state
        .blocking(move |registry| {
            let previous = registry.config().compatibility(Some(&name))?;
            if previous.is_some() {
                registry.config().set_compatibility(Some(&name), None)?;
            }
            let settings = registry.config().settings(Some(&name))?;
            if settings.is_some() {
                registry.config().set_settings(Some(&name), None)?;
            }
            Ok((previous, settings))
        })
        .await
        .map_err(from_error)?;
    if previous.is_none() && settings.is_none() {
        return Err(no_subject_config(&subject.text));
    }
    Ok(ok(&config_json(
        "compatibilityLevel",
        previous,
        settings.as_ref(),
    )))
}
