//! Checking a [`Schema`] against prior versions of its name: the entry the
//! registry, the bundler and the command line share.

use super::check::{CompatReport, Direction, VersionReport};
use super::mode::Compatibility;
use crate::error::Error;
use crate::schema::{Language, Schema};

/// Checks `candidate` against `priors` (prior versions of its name, in any
/// order) under `mode`: the language's checker on each prior version the
/// mode looks at. A prior version in another language fails the check.
///
/// Errors: [`Error::SchemaUnusable`] when a schema cannot be read (not JSON,
/// not a descriptor set), [`Error::NoValidator`] when the language's checker
/// is not compiled in.
pub fn check(
    mode: Compatibility,
    candidate: &Schema,
    priors: &[Schema],
) -> Result<CompatReport, Error> {
    let mut priors: Vec<&Schema> = priors.iter().collect();
    priors.sort_by_key(|schema| schema.urn().version());
    if !mode.is_transitive() {
        priors.drain(..priors.len().saturating_sub(1));
    }
    if mode == Compatibility::None {
        priors.clear();
    }
    let (same, other): (Vec<&Schema>, Vec<&Schema>) = priors
        .into_iter()
        .partition(|prior| prior.language() == candidate.language());
    let mut report = by_language(mode, candidate, &same)?;
    let directions: Vec<Direction> = [
        (mode.checks_backward(), Direction::Backward),
        (mode.checks_forward(), Direction::Forward),
    ]
    .into_iter()
    .filter_map(|(on, direction)| on.then_some(direction))
    .collect();
    for prior in other {
        let version = prior.urn().version();
        report.insert(VersionReport::failed(
            version,
            directions.clone(),
            format!(
                "[v{version}] the language changed from {} to {}",
                prior.language(),
                candidate.language()
            ),
        ));
    }
    Ok(report)
}

fn by_language(
    mode: Compatibility,
    candidate: &Schema,
    priors: &[&Schema],
) -> Result<CompatReport, Error> {
    let unusable = |schema: &Schema| {
        let urn = schema.urn().clone();
        move |err: super::CompatError| Error::SchemaUnusable {
            urn,
            source: Box::new(err),
        }
    };
    match candidate.language() {
        Language::JsonSchema => {
            let new =
                super::json::parse("the schema", candidate.bytes()).map_err(unusable(candidate))?;
            let old = priors
                .iter()
                .map(|prior| {
                    super::json::parse("the schema", prior.bytes())
                        .map(|value| (prior.urn().version(), value))
                        .map_err(unusable(prior))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let old: Vec<(u32, &serde_json::Value)> =
                old.iter().map(|(v, value)| (*v, value)).collect();
            super::json::check(mode, &new, &old).map_err(unusable(candidate))
        }
        #[cfg(feature = "protobuf")]
        Language::Protobuf => {
            let old: Vec<(u32, &[u8])> = priors
                .iter()
                .map(|prior| (prior.urn().version(), prior.bytes()))
                .collect();
            super::protobuf::check(mode, candidate.bytes(), &old).map_err(unusable(candidate))
        }
        #[allow(unreachable_patterns)]
        language => Err(Error::NoValidator {
            urn: candidate.urn().clone(),
            language,
        }),
    }
}
