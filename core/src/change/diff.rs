//! The language-agnostic result of a diff: a list of changes and its report.

use std::fmt;

use super::any_kind::AnyChangeKind;
use super::kind::ChangeKind;

/// One change between an old and a new schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change<K> {
    kind: K,
    path: String,
    label: Option<String>,
}

impl<K: ChangeKind> Change<K> {
    /// A change of `kind` at `path`.
    pub fn new(kind: K, path: impl Into<String>) -> Self {
        Change {
            kind,
            path: path.into(),
            label: None,
        }
    }

    /// The same change with a readable location beside the path
    /// (`Order.quantity` for the protobuf path `#/Order/2`).
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        let label = label.into();
        self.label = (!label.is_empty() && label != self.path).then_some(label);
        self
    }

    /// The readable location, where it differs from the path: a protobuf
    /// change's `Message.field`.
    pub fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// What changed.
    pub fn kind(&self) -> K {
        self.kind
    }

    /// Where it changed: a JSON pointer in Confluent's form (`#/properties/foo`)
    /// for JSON Schema, `#/Message/field-number` for protobuf.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether the new schema still reads data written with the old one.
    pub fn is_backward_compatible(&self) -> bool {
        self.kind.is_backward_compatible()
    }

    /// Whether the change breaks backward compatibility (the opposite of
    /// [`Change::is_backward_compatible`]).
    pub fn is_breaking(&self) -> bool {
        !self.is_backward_compatible()
    }

    /// The same change with its kind made language-agnostic.
    pub fn into_any(self) -> Change<AnyChangeKind>
    where
        K: Into<AnyChangeKind>,
    {
        Change {
            kind: self.kind.into(),
            path: self.path,
            label: self.label,
        }
    }
}

impl<K: ChangeKind> fmt::Display for Change<K> {
    /// `KIND at PATH`, prefixed with `[BREAKING] ` when the change breaks
    /// backward compatibility.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_backward_compatible() {
            f.write_str("[BREAKING] ")?;
        }
        write!(f, "{} at {}", self.kind.name(), self.path)?;
        if let Some(label) = &self.label {
            write!(f, " ({label})")?;
        }
        Ok(())
    }
}

/// Every change between two schemas of one language, in the order
/// Confluent's diff lists them.
///
/// `Display` writes a report: `No changes` when there is none, else a header
/// line and one line per change, breaking ones marked `[BREAKING]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaDiff<K> {
    changes: Vec<Change<K>>,
}

impl<K: ChangeKind> SchemaDiff<K> {
    /// A diff made of these changes.
    pub fn new(changes: Vec<Change<K>>) -> Self {
        SchemaDiff { changes }
    }

    /// Whether the two schemas have no difference the diff reports.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Every change, in order.
    pub fn changes(&self) -> &[Change<K>] {
        &self.changes
    }

    /// The changes that break backward compatibility.
    pub fn breaking_changes(&self) -> impl Iterator<Item = &Change<K>> {
        self.changes.iter().filter(|c| !c.is_backward_compatible())
    }

    /// Whether the new schema reads every datum written with the old one
    /// (Confluent: no change outside the compatible set).
    pub fn is_backward_compatible(&self) -> bool {
        self.changes.iter().all(Change::is_backward_compatible)
    }

    /// Consumes the diff into its changes.
    pub fn into_changes(self) -> Vec<Change<K>> {
        self.changes
    }

    /// The same diff with its kinds made language-agnostic: what
    /// [`compat::diff`](crate::compat::diff()) returns.
    pub fn into_any(self) -> SchemaDiff<AnyChangeKind>
    where
        K: Into<AnyChangeKind>,
    {
        SchemaDiff::new(self.changes.into_iter().map(Change::into_any).collect())
    }
}

impl<K: ChangeKind + Into<AnyChangeKind>> fmt::Display for SchemaDiff<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_empty() {
            return f.write_str("No changes");
        }
        let total = self.changes.len();
        let breaking = self.breaking_changes().count();
        let plural = if total == 1 { "" } else { "s" };
        if breaking > 0 {
            write!(
                f,
                "Breaking: {breaking} of {total} change{plural} break backward compatibility"
            )?;
        } else {
            write!(f, "Compatible: {total} change{plural}, none breaking")?;
        }
        for change in &self.changes {
            write!(f, "\n  {change}")?;
        }
        write_hints(
            f,
            self.breaking_changes().map(|change| change.kind().into()),
        )
    }
}

/// One `hint:` line for each kind among `breaking` that has a hint
/// ([`AnyChangeKind::hint`]), in order of first appearance.
pub(crate) fn write_hints(
    f: &mut fmt::Formatter<'_>,
    breaking: impl Iterator<Item = AnyChangeKind>,
) -> fmt::Result {
    let mut shown: Vec<&'static str> = Vec::new();
    for kind in breaking {
        if let Some(hint) = kind.hint() {
            if !shown.contains(&hint) {
                shown.push(hint);
                write!(f, "\n  hint: {hint}")?;
            }
        }
    }
    Ok(())
}
