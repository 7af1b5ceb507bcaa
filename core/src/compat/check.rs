//! The one driver behind every language's checker.

use std::fmt;

use super::diff::{ChangeKind, SchemaDiff};
use super::mode::Compatibility;

/// Which way a check reads data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The new version reads data written with the prior one.
    Backward,
    /// The prior version reads data written with the new one.
    Forward,
}

impl Direction {
    /// `backward` or `forward`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Direction::Backward => "backward",
            Direction::Forward => "forward",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of checking the candidate against one prior version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionReport {
    version: u32,
    directions: Vec<Direction>,
    breaking: Vec<String>,
}

impl VersionReport {
    /// A version that fails with one message, whatever the diff says.
    pub(crate) fn failed(
        version: u32,
        directions: Vec<Direction>,
        message: String,
    ) -> VersionReport {
        VersionReport {
            version,
            directions,
            breaking: vec![message],
        }
    }

    /// The prior version checked.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The directions checked against it (one for `Backward`/`Forward`, two for `Full`).
    pub fn directions(&self) -> &[Direction] {
        &self.directions
    }

    /// Whether the candidate passed against this version.
    pub fn passed(&self) -> bool {
        self.breaking.is_empty()
    }

    /// The breaking changes found, each prefixed `[vN] ` with this version.
    pub fn breaking(&self) -> &[String] {
        &self.breaking
    }
}

/// The result of checking a candidate under a [`Compatibility`] mode.
///
/// One [`VersionReport`] per prior version checked, oldest first. `Display`
/// writes one line per version (`v1: passed (backward)`) and each breaking
/// change below its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompatReport {
    mode: Compatibility,
    versions: Vec<VersionReport>,
}

impl CompatReport {
    /// Adds a version's report, keeping versions in order.
    pub(crate) fn insert(&mut self, report: VersionReport) {
        let at = self
            .versions
            .partition_point(|v| v.version < report.version);
        self.versions.insert(at, report);
    }

    /// The mode checked.
    pub fn mode(&self) -> Compatibility {
        self.mode
    }

    /// Whether the candidate passed against every version checked.
    pub fn is_compatible(&self) -> bool {
        self.versions.iter().all(VersionReport::passed)
    }

    /// One report per prior version checked, oldest first (empty for
    /// `None`, or when there is no prior version).
    pub fn versions(&self) -> &[VersionReport] {
        &self.versions
    }

    /// Every breaking change over all versions, each prefixed `[vN] `.
    pub fn messages(&self) -> impl Iterator<Item = &str> {
        self.versions
            .iter()
            .flat_map(|v| v.breaking.iter().map(String::as_str))
    }
}

impl fmt::Display for CompatReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.is_compatible() {
            "compatible"
        } else {
            "incompatible"
        };
        write!(f, "{verdict} under {}", self.mode)?;
        if self.versions.is_empty() {
            f.write_str(": no prior version checked")?;
        }
        for v in &self.versions {
            let directions: Vec<&str> = v.directions.iter().map(|d| d.as_str()).collect();
            let status = if v.passed() { "passed" } else { "FAILED" };
            write!(
                f,
                "\n  v{}: {status} ({})",
                v.version,
                directions.join(" and ")
            )?;
            for message in &v.breaking {
                write!(f, "\n    {message}")?;
            }
        }
        Ok(())
    }
}

/// Checks `candidate` against `priors` (oldest first, each with its version
/// number) under `mode`, with `diff(old, new)` as the language's diff.
///
/// `Backward` against a prior `p` means `diff(p, candidate)` has no breaking
/// change; `Forward` means `diff(candidate, p)` has none; `Full` both. A
/// non-transitive mode checks only the latest prior version, a transitive one
/// every prior version, oldest first. `None`, or no prior version, checks
/// nothing and passes.
pub fn check_with<S: ?Sized, K: ChangeKind>(
    mode: Compatibility,
    candidate: &S,
    priors: &[(u32, &S)],
    mut diff: impl FnMut(&S, &S) -> SchemaDiff<K>,
) -> CompatReport {
    let mut directions = Vec::with_capacity(2);
    if mode.checks_backward() {
        directions.push(Direction::Backward);
    }
    if mode.checks_forward() {
        directions.push(Direction::Forward);
    }
    let checked: &[(u32, &S)] = if directions.is_empty() {
        &[]
    } else if mode.is_transitive() {
        priors
    } else {
        priors.last().map_or(&[], std::slice::from_ref)
    };
    let versions = checked
        .iter()
        .map(|&(version, prior)| {
            let mut breaking = Vec::new();
            for &direction in &directions {
                let d = match direction {
                    Direction::Backward => diff(prior, candidate),
                    Direction::Forward => diff(candidate, prior),
                };
                breaking.extend(d.breaking_changes().map(|c| {
                    let label = c.label().map(|l| format!(" ({l})")).unwrap_or_default();
                    format!(
                        "[v{version}] {direction}: {} at {}{label}",
                        c.kind().name(),
                        c.path()
                    )
                }));
            }
            VersionReport {
                version,
                directions: directions.clone(),
                breaking,
            }
        })
        .collect();
    CompatReport { mode, versions }
}
