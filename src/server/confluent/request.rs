//! Reading a Confluent request: subjects, versions and ids from the path,
//! JSON bodies. The schema a register, lookup or compatibility test sends
//! is `candidate.rs`'s, above this file and the modules it uses.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::Path;
use axum::http::StatusCode;
use serde::Deserialize;

use super::error::{bad_request, ApiError, ErrorCode};
use crate::server::state::AppState;
use crate::store::SchemaId;
use dataschema_core::clip;
use dataschema_core::{Error, Urn};

/// A subject a request names: as Confluent reads it, and the URN name it
/// maps to ([`crate::subject`]).
#[derive(Clone, Debug)]
pub(crate) struct Subject {
    /// The subject (a default-context qualification `:.:` dropped).
    pub(crate) text: String,
    /// Its URN name.
    pub(crate) name: String,
}

/// The subject a route names, mapped to its URN name.
pub(crate) fn subject(path: Result<Path<String>, PathRejection>) -> Result<Subject, ApiError> {
    let Path(subject) = path.map_err(|rejection| invalid_subject_path(&rejection))?;
    checked_subject(subject)
}

/// The subject (mapped) and the version (as written) a route names.
pub(crate) fn subject_version(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(Subject, String), ApiError> {
    let Path((subject, version)) = path.map_err(|rejection| invalid_subject_path(&rejection))?;
    Ok((checked_subject(subject)?, version))
}

fn invalid_subject_path(rejection: &PathRejection) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidSubject,
        format!("invalid subject: {}", rejection.body_text()),
    )
}

pub(crate) fn checked_subject(subject: String) -> Result<Subject, ApiError> {
    match crate::subject::name_of(&subject) {
        Ok(name) => Ok(Subject {
            text: subject.strip_prefix(":.:").unwrap_or(&subject).to_owned(),
            name,
        }),
        Err(reason) => Err(ApiError::new(
            ErrorCode::InvalidSubject,
            format!("invalid subject {:?}: {reason}", clip(&subject, 100)),
        )),
    }
}

/// Which version a route names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    Latest,
    Exact(u32),
}

/// The largest version Confluent's API addresses, `2^31-1`: a version is
/// a Java `int` there (`VersionId`, `rest/VersionId.java`, v8.2.0: parsed
/// with `Integer.parseInt`, and anything but `-1` below 1 refused), and
/// anything else is `RestInvalidVersionException`, 42202.
pub(crate) const MAX_VERSION: u32 = i32::MAX as u32;

/// 42202 for `version`, in Confluent's words
/// (`RestInvalidVersionException`, v8.2.0).
pub(crate) fn invalid_version(version: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidVersion,
        format!(
            "The specified version '{}' is not a valid version id. Allowed values are \
             between [1, 2^31-1] and the string \"latest\"",
            clip(version, 40)
        ),
    )
}

/// The version a route names: `latest` (any case), `-1`, or 1 to
/// 2^31-1 ([`MAX_VERSION`]; 42202 for anything else).
pub(crate) fn which(version: &str) -> Result<Which, ApiError> {
    if version.eq_ignore_ascii_case("latest") || version == "-1" {
        return Ok(Which::Latest);
    }
    match version.parse::<u32>() {
        Ok(v) if (1..=MAX_VERSION).contains(&v) && !version.starts_with('+') => Ok(Which::Exact(v)),
        _ => Err(invalid_version(version)),
    }
}

/// The id a route names (40403 for one no schema can have: Confluent's
/// ids are positive 32-bit signed integers).
pub(crate) fn parse_id(id: &str) -> Result<SchemaId, ApiError> {
    match id.parse::<SchemaId>() {
        Ok(id) if id > 0 && id <= i32::MAX as u32 => Ok(id),
        _ => Err(ApiError::new(
            ErrorCode::SchemaNotFound,
            format!("schema {:?} not found", clip(id, 40)),
        )),
    }
}

/// The URN of `subject`'s `version`, under the server's namespace.
pub(crate) fn urn(state: &AppState, subject: &Subject, version: u32) -> Result<Urn, ApiError> {
    Urn::new(state.namespace(), &subject.name, version)
        .map_err(|err: Error| ApiError::new(ErrorCode::InvalidSubject, err.chain().to_string()))
}

/// A JSON request body.
pub(crate) fn json_body<T: for<'de> Deserialize<'de>>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                ErrorCode::TooLarge,
                "the request body is larger than this server accepts",
            )
        } else {
            bad_request(rejection.body_text())
        }
    })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(bad_request(
            "the request has no body: expected a JSON object",
        ));
    }
    serde_json::from_slice(&body).map_err(|err| {
        bad_request(format!(
            "the request body is not the JSON expected: {}",
            clip(&err.to_string(), 200)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_ids_parse_strictly() {
        assert_eq!(which("latest").ok(), Some(Which::Latest));
        assert_eq!(which("LATEST").ok(), Some(Which::Latest));
        assert_eq!(which("-1").ok(), Some(Which::Latest));
        assert_eq!(which("3").ok(), Some(Which::Exact(3)));
        assert_eq!(which("2147483647").ok(), Some(Which::Exact(2_147_483_647)));
        for bad in [
            "0",
            "+3",
            "-2",
            "x",
            "2147483648",
            "4294967295",
            "4294967296",
            "",
        ] {
            assert_eq!(
                which(bad).err().map(|e| e.code),
                Some(ErrorCode::InvalidVersion),
                "{bad}"
            );
        }
        assert_eq!(parse_id("7").ok(), Some(7));
        for bad in ["0", "-1", "x", "99999999999"] {
            assert_eq!(
                parse_id(bad).err().map(|e| e.code),
                Some(ErrorCode::SchemaNotFound),
                "{bad}"
            );
        }
    }
}
