//! Comparing [`Schema`]s: the one per-language dispatch behind
//! [`diff`](fn@diff) and [`check`], which the registry, the bundler and the
//! command line share.

use std::sync::Arc;

use super::reading::{Model, Reading};
use crate::change::any_kind::AnyChangeKind;
use crate::change::check::{check_with, CompatReport, Direction, VersionReport};
use crate::change::diff::{Change, SchemaDiff};
use crate::change::error::CompatError;
use crate::level::Compatibility;
use crate::schema::Schema;

/// The language's diff; schemas of two languages differ by one
/// [`AnyChangeKind::LanguageChanged`] at `#/`.
fn diff_models(old: &Model, new: &Model) -> SchemaDiff<AnyChangeKind> {
    match (old, new) {
        (Model::Json(old), Model::Json(new)) => crate::json::compat::diff(old, new).into_any(),
        #[cfg(feature = "protobuf")]
        (Model::Protobuf(old), Model::Protobuf(new)) => {
            crate::protobuf::compat::diff(old, new).into_any()
        }
        #[cfg(feature = "avro")]
        (Model::Avro(old), Model::Avro(new)) => crate::avro::compat::diff(old, new).into_any(),
        #[allow(unreachable_patterns)]
        (old, new) => SchemaDiff::new(vec![Change::new(
            AnyChangeKind::LanguageChanged {
                from: old.language(),
                to: new.language(),
            },
            "#/",
        )]),
    }
}

/// [`diff_models`], with every Avro change, safe ones too
/// ([`avro::changes`](crate::avro::compat::changes)): what a person reads.
fn changes_models(old: &Model, new: &Model) -> SchemaDiff<AnyChangeKind> {
    match (old, new) {
        #[cfg(feature = "avro")]
        (Model::Avro(old), Model::Avro(new)) => crate::avro::compat::changes(old, new).into_any(),
        (old, new) => diff_models(old, new),
    }
}

/// Every change between two schemas, whatever their language, in
/// Confluent's order: [`json::diff`](crate::compat::json::diff) or
/// [`protobuf::diff`](crate::compat::protobuf::diff) (feature `protobuf`) or
/// [`avro::changes`](crate::compat::avro::changes) (feature `avro`: Java's
/// incompatibilities and the safe changes beside them) with the kinds made
/// [`AnyChangeKind`]. Two schemas of different languages differ
/// by one breaking [`AnyChangeKind::LanguageChanged`] at `#/`.
///
/// Errors: [`CompatError::Unusable`] when a schema cannot be read (not JSON,
/// not a JSON Schema, not a descriptor set; the cause names `the old schema`
/// or `the new schema`), [`CompatError::NoComparer`] when the language's
/// engine is not compiled in.
///
/// ```
/// use dataschema::compat::{self, json::JsonChangeKind};
/// use dataschema::{Schema, Urn};
///
/// let urn: Urn = "urn:acme:schema:order:1".parse().unwrap();
/// let old = Schema::json(urn.clone(), r#"{"properties": {"id": {"type": "number"}}}"#);
/// let new = Schema::json(urn, r#"{"properties": {"id": {"type": "integer"}}}"#);
/// let diff = compat::diff(&old, &new).unwrap();
/// let change = &diff.changes()[0];
/// assert_eq!(change.kind(), JsonChangeKind::TypeNarrowed);
/// assert_eq!(change.path(), "#/properties/id");
/// assert!(!diff.is_backward_compatible());
/// ```
pub fn diff(old: &Schema, new: &Schema) -> Result<SchemaDiff<AnyChangeKind>, CompatError> {
    let old = Model::read(old, "the old schema")?;
    let new = Model::read(new, "the new schema")?;
    Ok(changes_models(&old, &new))
}

/// Checks `candidate` against `priors` (prior versions of its name, in any
/// order) under `level`: the language's diff, as [`diff`](fn@diff) runs it,
/// on each prior version the level looks at, through [`check_with`]. A prior
/// version in another language fails the check with one
/// [`AnyChangeKind::LanguageChanged`] change.
///
/// Errors: as [`diff`](fn@diff), for the candidate or any prior version the
/// level looks at (the cause names `the schema`).
pub fn check(
    level: Compatibility,
    candidate: &Schema,
    priors: &[Schema],
) -> Result<CompatReport, CompatError> {
    check_readings(level, candidate, priors, &mut |schema| {
        Reading::read(schema).map(Arc::new)
    })
}

/// [`check`], reading each schema it looks at through `read` (the
/// candidate first, then each prior version the level looks at, oldest
/// first), so that a caller can hand out [`Reading`]s it keeps; `read` is
/// called for the schemas of the candidate's language only.
///
/// Errors: those of `read`.
pub fn check_readings(
    level: Compatibility,
    candidate: &Schema,
    priors: &[Schema],
    read: &mut dyn FnMut(&Schema) -> Result<Arc<Reading>, CompatError>,
) -> Result<CompatReport, CompatError> {
    let mut priors: Vec<&Schema> = priors.iter().collect();
    priors.sort_by_key(|schema| schema.urn().version());
    if !level.is_transitive() {
        priors.drain(..priors.len().saturating_sub(1));
    }
    if level == Compatibility::None {
        priors.clear();
    }
    let (same, other): (Vec<&Schema>, Vec<&Schema>) = priors
        .into_iter()
        .partition(|prior| prior.language() == candidate.language());
    let new = read(candidate)?;
    let old = same
        .iter()
        .map(|prior| Ok((prior.urn().version(), read(prior)?)))
        .collect::<Result<Vec<_>, CompatError>>()?;
    let old: Vec<(u32, &Model)> = old.iter().map(|(v, reading)| (*v, &reading.0)).collect();
    let mut report = check_with(level, &new.0, &old, diff_models);
    let directions: Vec<Direction> = [
        (level.checks_backward(), Direction::Backward),
        (level.checks_forward(), Direction::Forward),
    ]
    .into_iter()
    .filter_map(|(on, direction)| on.then_some(direction))
    .collect();
    for prior in other {
        report.insert(VersionReport::language_changed(
            prior.urn().version(),
            directions.clone(),
            prior.language(),
            candidate.language(),
        ));
    }
    Ok(report)
}
