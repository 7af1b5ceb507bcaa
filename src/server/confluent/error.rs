//! The Confluent API's refusals: the registry's errors as Confluent's
//! codes, and the refusals its handlers share. The codes and the error
//! body are [`wire::confluent`](crate::server::wire::confluent)'s.

use axum::response::Response;

pub(crate) use crate::server::wire::confluent::{ApiError, ErrorCode};
use dataschema_core::{Error, ModeRefusal, Urn};

/// What a Confluent handler answers.
pub(crate) type Reply = Result<Response, ApiError>;

/// The registry's errors as Confluent's.
pub(crate) fn from_error(err: Error) -> ApiError {
    match &err {
        Error::Incompatible { report, .. } => ApiError::new(
            ErrorCode::Conflict,
            format!(
                "Schema being registered is incompatible with an earlier schema for subject \
                 '{}': {report}",
                err.urn().map(Urn::name).unwrap_or_default()
            ),
        ),
        Error::OutOfOrder { .. } | Error::Immutable { .. } => {
            ApiError::new(ErrorCode::Conflict, err.chain().to_string())
        }
        Error::Empty { .. }
        | Error::MissingRoot { .. }
        | Error::SchemaUnusable { .. }
        | Error::NoValidator { .. }
        | Error::InvalidLanguage { .. } => invalid_schema(err.chain().to_string()),
        Error::InvalidUrn { .. } => {
            ApiError::new(ErrorCode::InvalidSubject, err.chain().to_string())
        }
        Error::UnknownCompatibility(_) => invalid_level(err.chain().to_string()),
        Error::IdConflict { id, .. } => not_permitted(format!(
            "Overwrite new schema with id {id} is not permitted: {}",
            err.chain()
        )),
        Error::IdNotFound { id } => {
            ApiError::new(ErrorCode::SchemaNotFound, format!("Schema {id} not found"))
        }
        Error::NotFound { urn } => version_not_found(
            &crate::server::wire::confluent::subject_name(urn.name()),
            urn.version(),
        ),
        Error::Referenced { urn, by } => ApiError::new(
            ErrorCode::ReferenceExists,
            format!(
                "One or more references exist to the schema {{subject={}, version={}}}: \
                 referenced by subject '{}' version {}, which is not deleted",
                crate::server::wire::confluent::subject_name(urn.name()),
                urn.version(),
                crate::server::wire::confluent::subject_name(by.name()),
                by.version()
            ),
        ),
        Error::LastVersion { .. } => {
            ApiError::new(ErrorCode::InvalidVersion, err.chain().to_string())
        }
        // Confluent's words (`checkRegisterMode`, v8.2.0), 42205.
        Error::ModeRefused { urn, refusal } => not_permitted(format!(
            "Subject '{}' is {}",
            crate::server::wire::confluent::subject_name(urn.name()),
            match refusal {
                ModeRefusal::ReadOnly => "in read-only mode",
                ModeRefusal::NotImport => "not in import mode",
                _ => "not in read-write mode",
            }
        )),
        // Confluent's words (`updateConfig`, `deleteSubjectConfig`,
        // `setMode`, v8.2.0), 42205.
        Error::SettingsRefused { name, refusal } => not_permitted(match refusal {
            ModeRefusal::VersionsHeld => "Cannot import since found existing subjects (set \
                                          force=true to switch to IMPORT anyway)"
                .to_owned(),
            _ => match name {
                Some(name) => format!(
                    "Subject '{}' is in read-only mode",
                    crate::server::wire::confluent::subject_name(name)
                ),
                None => "The registry is in read-only mode".to_owned(),
            },
        }),
        _ => store_failed(&err),
    }
}

/// Confluent's 50001 (50002 for a store wait that ran out). The cause chain (a database file's path, the driver's text) is
/// the operator's: it goes to the log, and the client, who may be
/// anonymous, is told only what failed.
fn store_failed(err: &Error) -> ApiError {
    if matches!(err, Error::Store { .. }) {
        crate::server::metrics::store_error(err);
    }
    tracing::error!(error = %err.chain(), "store failed");
    // A bounded wait that ran out is Confluent's operation timeout,
    // retryable, as the request timeout is.
    let code = if matches!(err, Error::Store { .. }) && crate::server::metrics::timed_out(err) {
        ErrorCode::Timeout
    } else {
        ErrorCode::StoreFailed
    };
    ApiError::new(code, crate::server::wire::server_failure(err))
}

/// 42201: the schema is not one this server takes.
pub(crate) fn invalid_schema(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidSchema, message)
}

/// 42203: no compatibility level, or not one of the seven.
pub(crate) fn invalid_level(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidCompatibilityLevel, message)
}

/// 42205: refused, whoever asks.
pub(crate) fn not_permitted(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::NotPermitted, message)
}

/// 400: a request this server cannot read.
pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, message)
}

/// 40401: the subject has no version.
pub(crate) fn subject_not_found(subject: &str) -> ApiError {
    ApiError::new(
        ErrorCode::SubjectNotFound,
        format!("Subject '{subject}' not found."),
    )
}

/// 40402: the subject has versions, not this one.
pub(crate) fn version_not_found(subject: &str, version: u32) -> ApiError {
    ApiError::new(
        ErrorCode::VersionNotFound,
        format!("Version {version} not found for subject '{subject}'."),
    )
}

/// 40409: the subject has no registry mode of its own.
pub(crate) fn no_subject_mode(subject: &str) -> ApiError {
    ApiError::new(
        ErrorCode::SubjectModeNotFound,
        format!("Subject '{subject}' does not have subject-level mode configured"),
    )
}

/// 40408: the subject has no compatibility level of its own.
pub(crate) fn no_subject_config(subject: &str) -> ApiError {
    ApiError::new(
        ErrorCode::SubjectConfigNotFound,
        format!("Subject '{subject}' does not have subject-level compatibility configured"),
    )
}
