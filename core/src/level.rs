//! The seven compatibility levels of Confluent Schema Registry.

use std::fmt;
use std::str::FromStr;

/// How a new version of a schema must relate to the versions before it.
///
/// The names and meanings are Confluent Schema Registry's:
///
/// | level | the new version must |
/// |---|---|
/// | `None` | nothing: any change is accepted |
/// | `Backward` | read data written with the latest prior version |
/// | `BackwardTransitive` | read data written with every prior version |
/// | `Forward` | be readable by the latest prior version |
/// | `ForwardTransitive` | be readable by every prior version |
/// | `Full` | both `Backward` and `Forward` against the latest prior version |
/// | `FullTransitive` | both, against every prior version |
///
/// `FromStr` accepts the snake-case names (`backward_transitive`) and
/// Confluent's upper-case spelling (`BACKWARD_TRANSITIVE`); `Display` writes
/// the snake-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compatibility {
    /// Accept any new version.
    None,
    /// The new version reads data written with the latest prior version.
    #[default]
    Backward,
    /// The new version reads data written with every prior version.
    BackwardTransitive,
    /// The latest prior version reads data written with the new version.
    Forward,
    /// Every prior version reads data written with the new version.
    ForwardTransitive,
    /// `Backward` and `Forward` against the latest prior version.
    Full,
    /// `Backward` and `Forward` against every prior version.
    FullTransitive,
}

impl Compatibility {
    /// Every level, in the order of Confluent's documentation.
    pub const ALL: [Compatibility; 7] = [
        Compatibility::None,
        Compatibility::Backward,
        Compatibility::BackwardTransitive,
        Compatibility::Forward,
        Compatibility::ForwardTransitive,
        Compatibility::Full,
        Compatibility::FullTransitive,
    ];

    /// The snake-case name (`backward_transitive`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Compatibility::None => "none",
            Compatibility::Backward => "backward",
            Compatibility::BackwardTransitive => "backward_transitive",
            Compatibility::Forward => "forward",
            Compatibility::ForwardTransitive => "forward_transitive",
            Compatibility::Full => "full",
            Compatibility::FullTransitive => "full_transitive",
        }
    }

    /// Whether the new version must read data written with prior versions.
    pub const fn checks_backward(self) -> bool {
        matches!(
            self,
            Compatibility::Backward
                | Compatibility::BackwardTransitive
                | Compatibility::Full
                | Compatibility::FullTransitive
        )
    }

    /// Whether prior versions must read data written with the new version.
    pub const fn checks_forward(self) -> bool {
        matches!(
            self,
            Compatibility::Forward
                | Compatibility::ForwardTransitive
                | Compatibility::Full
                | Compatibility::FullTransitive
        )
    }

    /// Whether the check runs against every prior version, not only the latest.
    pub const fn is_transitive(self) -> bool {
        matches!(
            self,
            Compatibility::BackwardTransitive
                | Compatibility::ForwardTransitive
                | Compatibility::FullTransitive
        )
    }
}

impl fmt::Display for Compatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A compatibility level string that names none of the seven levels.
/// (Formerly `UnknownMode`, a name `dataschema::store::UnknownMode`, the
/// registry mode's, also bore.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCompatibility(pub String);

impl fmt::Display for UnknownCompatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown compatibility mode {:?}: expected one of none, backward, \
             backward_transitive, forward, forward_transitive, full, full_transitive",
            self.0
        )
    }
}

impl std::error::Error for UnknownCompatibility {}

impl FromStr for Compatibility {
    type Err = UnknownCompatibility;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Compatibility::ALL
            .into_iter()
            .find(|level| level.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownCompatibility(s.chars().take(64).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_both_spellings() {
        for level in Compatibility::ALL {
            assert_eq!(level.as_str().parse::<Compatibility>(), Ok(level));
            let upper = level.as_str().to_ascii_uppercase();
            assert_eq!(upper.parse::<Compatibility>(), Ok(level));
        }
        let err = "sideways".parse::<Compatibility>().unwrap_err();
        assert!(err.to_string().contains("\"sideways\""));
    }
}
