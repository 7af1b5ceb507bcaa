//! Compatibility tests (`/compatibility/subjects/{s}/versions[/{v}]`):
//! a schema checked as a register would check it, nothing stored.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};

use super::candidate::candidate_with_contract;
use super::contracts;
use super::error::{from_error, version_not_found, ApiError, Reply};
use super::request::{subject, subject_version, which, Subject, Which};
use super::subjects::history;
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{compatibility_json, ok};
use dataschema_core::compat::CompatReport;

/// `POST /compatibility/subjects/{s}/versions`: against every version.
pub(crate) async fn all(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    compatibility(state, subject, None, raw_query, body).await
}

/// `POST /compatibility/subjects/{s}/versions/{v|latest}`: against one.
pub(crate) async fn one(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let which = which(&version)?;
    compatibility(state, subject, Some(which), raw_query, body).await
}

/// Tests a schema as a register would check it: against the version named
/// (`latest`: the newest), or against every version under the subject's
/// mode; under the subject's mode either way. Soft-deleted versions are
/// not checked against; a version the subject lacks (on an empty subject
/// too) is 40402, `latest` of an empty subject compatible. Nothing is
/// stored.
async fn compatibility(
    state: AppState,
    subject: Subject,
    which: Option<Which>,
    raw_query: Option<String>,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    query.flag("normalize", false)?;
    let verbose = query.flag("verbose", false)?;
    let report = report(&state, &subject, which, body).await?;
    Ok(ok(&compatibility_json(&report, verbose)))
}

/// The report of a compatibility test: the candidate `body` sends (a
/// Confluent request body: `schema`, `schemaType`, `references`,
/// `metadata`, `ruleSet`) checked against the version `which` names, or
/// every version the subject's mode covers, as [`compatibility`] answers
/// it. The web console's "would this break anyone?" form calls it too,
/// so both go through the same reading, limits and checks (its route is
/// one of the compile budget's routes, `limits::compiles`).
pub(crate) async fn report(
    state: &AppState,
    subject: &Subject,
    which: Option<Which>,
    body: Result<Bytes, BytesRejection>,
) -> Result<CompatReport, ApiError> {
    let history = history(state, subject).await?;
    let next = history.all.last().map_or(1, |v| v.saturating_add(1));
    let versions = history.live();
    let (candidate, contract) = candidate_with_contract(state, subject, next, body, None)?;
    let candidate = candidate.schema;
    let against: Vec<u32> = match which {
        Some(Which::Exact(v)) if !versions.contains(&v) => {
            return Err(version_not_found(&subject.text, v))
        }
        Some(Which::Exact(v)) => vec![v],
        Some(Which::Latest) => versions.last().copied().into_iter().collect(),
        None => versions,
    };
    let namespace = state.namespace().to_owned();
    let report = state
        .blocking(move |registry| {
            let candidate = match contracts::completed(
                registry,
                &namespace,
                candidate.urn().name(),
                candidate.clone(),
                &contract,
            ) {
                Ok(candidate) => candidate,
                Err(refused) => return Ok(Err(refused.into_api())),
            };
            let mode = registry
                .config()
                .compatibility_in_effect(candidate.urn().name())?;
            let mut priors = Vec::with_capacity(against.len());
            for version in against {
                priors.push(registry.resolve(&candidate.urn().with_version(version)?)?);
            }
            Ok(Ok(registry.check_compatibility(mode, &candidate, &priors)?))
        })
        .await
        .map_err(from_error)??;
    Ok(report)
}
