//! The associations a subject's delete meets (Confluent's
//! `deleteSubject` and `deleteSchemaVersion`, `KafkaSchemaRegistry.java`,
//! v8.2.0): below both the associations routes and the subjects routes,
//! which each call it.

use super::error::{from_error, ApiError, ErrorCode};
use super::request::Subject;
use crate::server::state::AppState;
use crate::store::AssociationsOf;

/// The refusal of a soft delete that would leave an associated subject
/// without a live version, or of a subject's delete while associations
/// name it (`deleteSchemaVersion`, `deleteSubject`, `v8.2.0`): `None`
/// when the delete may go on. `remaining_live`: whether a live version
/// is left after the delete.
pub(crate) async fn delete_refusal(
    state: &AppState,
    subject: &Subject,
    whole_subject: bool,
    remaining_live: bool,
) -> Result<Option<ApiError>, ApiError> {
    let text = subject.text.clone();
    let held = state
        .blocking(move |registry| registry.associations(AssociationsOf::Subject(&text)))
        .await
        .map_err(from_error)?;
    if held.is_empty() {
        return Ok(None);
    }
    if whole_subject {
        return Ok(Some(ApiError::new(
            ErrorCode::AssociationForSubjectExists,
            format!(
                "An association already exists for subject '{}'",
                subject.text
            ),
        )));
    }
    if !remaining_live {
        return Ok(Some(ApiError::new(
            ErrorCode::NoActiveSubjectVersion,
            format!(
                "No active (non-deleted) version exists for subject '{}'",
                subject.text
            ),
        )));
    }
    Ok(None)
}
