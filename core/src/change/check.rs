//! The one driver behind every language's checker.

use std::fmt;

use super::any_kind::AnyChangeKind;
use super::diff::{Change, SchemaDiff};
use super::kind::ChangeKind;
use super::policy::Policy;
use crate::error::Error;
use crate::level::Compatibility;
use crate::schema::Language;

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

/// One change a check found against a prior version: the version, the
/// direction it was found in, and the change itself.
///
/// `Display` writes the line a report prints for it:
/// `[v2] backward: TYPE_NARROWED at #/properties/id`, or
/// `[v2] the language changed from jsonschema to protobuf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionChange {
    version: u32,
    direction: Direction,
    change: Change<AnyChangeKind>,
    /// Compatible under the check's [`Policy`] although its kind breaks.
    forgiven: bool,
}

impl VersionChange {
    /// The prior version the change was found against.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The direction it was found in: `Backward` for `diff(prior,
    /// candidate)`, `Forward` for `diff(candidate, prior)`. A change of
    /// language is reported once, in the first direction the level checks.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// What changed.
    pub fn kind(&self) -> AnyChangeKind {
        self.change.kind()
    }

    /// Where it changed (see [`Change::path`]).
    pub fn path(&self) -> &str {
        self.change.path()
    }

    /// The readable location, where it differs from the path (see
    /// [`Change::label`]).
    pub fn label(&self) -> Option<&str> {
        self.change.label()
    }

    /// Whether the change keeps compatibility in its direction (its
    /// kind's verdict, or the check's [`Policy`] forgives it).
    pub fn is_backward_compatible(&self) -> bool {
        self.forgiven || self.change.is_backward_compatible()
    }

    /// Whether the change breaks compatibility in its direction.
    pub fn is_breaking(&self) -> bool {
        !self.is_backward_compatible()
    }

    /// Whether the check's [`Policy`] took this change as compatible
    /// although its kind breaks.
    pub fn is_forgiven(&self) -> bool {
        self.forgiven
    }

    /// The change, as the diff in its direction listed it.
    pub fn change(&self) -> &Change<AnyChangeKind> {
        &self.change
    }
}

impl fmt::Display for VersionChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = self.version;
        if let AnyChangeKind::LanguageChanged { from, to } = self.kind() {
            return write!(f, "[v{version}] the language changed from {from} to {to}");
        }
        write!(
            f,
            "[v{version}] {}: {} at {}",
            self.direction,
            self.kind().name(),
            self.path()
        )?;
        if let Some(label) = self.label() {
            write!(f, " ({label})")?;
        }
        Ok(())
    }
}

/// The result of checking the candidate against one prior version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionReport {
    version: u32,
    directions: Vec<Direction>,
    changes: Vec<VersionChange>,
}

impl VersionReport {
    /// A version whose language differs from the candidate's: it fails with
    /// one [`AnyChangeKind::LanguageChanged`] change, whatever else differs.
    pub(crate) fn language_changed(
        version: u32,
        directions: Vec<Direction>,
        from: Language,
        to: Language,
    ) -> VersionReport {
        let change = VersionChange {
            version,
            direction: directions.first().copied().unwrap_or(Direction::Backward),
            change: Change::new(AnyChangeKind::LanguageChanged { from, to }, "#/"),
            forgiven: false,
        };
        VersionReport {
            version,
            directions,
            changes: vec![change],
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

    /// Whether the candidate passed against this version: no change breaks
    /// compatibility in the direction it was found in.
    pub fn passed(&self) -> bool {
        self.changes
            .iter()
            .all(VersionChange::is_backward_compatible)
    }

    /// Every change found against this version, compatible or not: the
    /// backward diff's changes, then the forward diff's.
    pub fn changes(&self) -> &[VersionChange] {
        &self.changes
    }

    /// The changes that break compatibility, in order.
    pub fn breaking(&self) -> impl Iterator<Item = &VersionChange> {
        self.changes.iter().filter(|c| c.is_breaking())
    }
}

/// The result of checking a candidate under a [`Compatibility`] level.
///
/// One [`VersionReport`] per prior version checked, oldest first. `Display`
/// writes one line per version (`v1: passed (backward)`) and each breaking
/// change below its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompatReport {
    level: Compatibility,
    policy: Policy,
    versions: Vec<VersionReport>,
}

impl CompatReport {
    /// The report an [`Error::Incompatible`]
    /// holds; `None` for any other error.
    ///
    /// ```
    /// use dataschema::compat::{CompatReport, Compatibility};
    /// use dataschema::{MemoryStore, Registry, Schema, Urn};
    ///
    /// let registry = Registry::new(MemoryStore::new());
    /// let v1: Urn = "urn:acme:schema:order:1".parse().unwrap();
    /// let v2: Urn = "urn:acme:schema:order:2".parse().unwrap();
    /// registry
    ///     .publish(Schema::json(v1, r#"{"type": "integer"}"#), Compatibility::Backward)
    ///     .unwrap();
    /// let err = registry
    ///     .publish(Schema::json(v2, r#"{"type": "string"}"#), Compatibility::Backward)
    ///     .unwrap_err();
    /// let report = CompatReport::of(&err).unwrap();
    /// assert_eq!(report.breaking().count(), 1);
    /// ```
    pub fn of(error: &Error) -> Option<&CompatReport> {
        match error {
            Error::Incompatible { report, .. } => report.downcast_ref(),
            _ => None,
        }
    }

    /// Adds a version's report, keeping versions in order.
    pub(crate) fn insert(&mut self, report: VersionReport) {
        let at = self
            .versions
            .partition_point(|v| v.version < report.version);
        self.versions.insert(at, report);
    }

    /// The level checked.
    pub fn level(&self) -> Compatibility {
        self.level
    }

    /// The former name of [`level`](CompatReport::level): "mode" is the
    /// registry's (`READWRITE`, `IMPORT`, ...), the compatibility setting is
    /// a level.
    #[deprecated(note = "renamed to `level`")]
    pub fn mode(&self) -> Compatibility {
        self.level
    }

    /// The policy the changes were read under ([`Policy::Strict`] unless
    /// [`under`](CompatReport::under) says otherwise).
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The same report read under `policy`: each change `policy`
    /// [forgives](Policy::forgives) counts as compatible (and is still
    /// listed in [`VersionReport::changes`]).
    pub fn under(mut self, policy: Policy) -> CompatReport {
        self.policy = policy;
        for version in &mut self.versions {
            for change in &mut version.changes {
                change.forgiven =
                    !change.change.is_backward_compatible() && policy.forgives(change.kind());
            }
        }
        self
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

    /// Every breaking change over all versions, oldest version first.
    pub fn breaking(&self) -> impl Iterator<Item = &VersionChange> {
        self.versions.iter().flat_map(VersionReport::breaking)
    }
}

/// A report is the cause an [`Error::Incompatible`] carries.
impl std::error::Error for CompatReport {}

impl fmt::Display for CompatReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.is_compatible() {
            "compatible"
        } else {
            "incompatible"
        };
        write!(f, "{verdict} under {}", self.level)?;
        if self.policy != Policy::Strict {
            write!(f, " ({} policy)", self.policy.as_str().to_ascii_lowercase())?;
        }
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
            for change in v.breaking() {
                write!(f, "\n    {change}")?;
            }
        }
        super::diff::write_hints(f, self.breaking().map(VersionChange::kind))
    }
}

/// Checks `candidate` against `priors` (oldest first, each with its version
/// number) under `level`, with `diff(old, new)` as the language's diff.
///
/// `Backward` against a prior `p` means `diff(p, candidate)` has no breaking
/// change; `Forward` means `diff(candidate, p)` has none; `Full` both. A
/// non-transitive level checks only the latest prior version, a transitive one
/// every prior version, oldest first. `None`, or no prior version, checks
/// nothing and passes.
///
/// Each change found is kept in the report as a [`VersionChange`], its kind
/// made an [`AnyChangeKind`] (so `K` is one of the crate's kinds).
pub fn check_with<S: ?Sized, K: ChangeKind + Into<AnyChangeKind>>(
    level: Compatibility,
    candidate: &S,
    priors: &[(u32, &S)],
    mut diff: impl FnMut(&S, &S) -> SchemaDiff<K>,
) -> CompatReport {
    let mut directions = Vec::with_capacity(2);
    if level.checks_backward() {
        directions.push(Direction::Backward);
    }
    if level.checks_forward() {
        directions.push(Direction::Forward);
    }
    let checked: &[(u32, &S)] = if directions.is_empty() {
        &[]
    } else if level.is_transitive() {
        priors
    } else {
        priors.last().map_or(&[], std::slice::from_ref)
    };
    let versions = checked
        .iter()
        .map(|&(version, prior)| {
            let mut changes = Vec::new();
            for &direction in &directions {
                let d = match direction {
                    Direction::Backward => diff(prior, candidate),
                    Direction::Forward => diff(candidate, prior),
                };
                changes.extend(d.into_changes().into_iter().map(|change| VersionChange {
                    version,
                    direction,
                    change: change.into_any(),
                    forgiven: false,
                }));
            }
            VersionReport {
                version,
                directions: directions.clone(),
                changes,
            }
        })
        .collect();
    CompatReport {
        level,
        policy: Policy::Strict,
        versions,
    }
}
