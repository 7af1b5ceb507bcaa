//! Confluent Schema Registry's registry modes.

use std::fmt;
use std::str::FromStr;

/// A registry mode, as Confluent Schema Registry has them (`/mode`,
/// `/mode/{subject}`): what writes a subject (or the whole registry)
/// takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mode {
    /// Registrations, config changes and deletes are taken (the default).
    #[default]
    ReadWrite,
    /// Nothing is registered or deleted; config and mode changes are
    /// still taken.
    ReadOnly,
    /// As [`Mode::ReadOnly`] (Confluent's variant that only an operator's
    /// override lifts).
    ReadOnlyOverride,
    /// Registrations carry their own id and version, kept as given (a
    /// migration from another registry); compatibility is not checked.
    Import,
}

impl Mode {
    /// Confluent's name: `READWRITE`, `READONLY`, `READONLY_OVERRIDE`,
    /// `IMPORT`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::ReadWrite => "READWRITE",
            Mode::ReadOnly => "READONLY",
            Mode::ReadOnlyOverride => "READONLY_OVERRIDE",
            Mode::Import => "IMPORT",
        }
    }

    /// Whether registrations and deletes are refused.
    pub fn is_read_only(self) -> bool {
        matches!(self, Mode::ReadOnly | Mode::ReadOnlyOverride)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no [`Mode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMode(pub String);

impl fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown mode {:?}: expected READWRITE, READONLY, READONLY_OVERRIDE or IMPORT",
            dataschema_core::clip(&self.0, 40)
        )
    }
}

impl std::error::Error for UnknownMode {}

impl FromStr for Mode {
    type Err = UnknownMode;

    /// Confluent's names, in any case.
    fn from_str(s: &str) -> Result<Mode, UnknownMode> {
        [
            Mode::ReadWrite,
            Mode::ReadOnly,
            Mode::ReadOnlyOverride,
            Mode::Import,
        ]
        .into_iter()
        .find(|mode| mode.as_str().eq_ignore_ascii_case(s))
        .ok_or_else(|| UnknownMode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for mode in [
            Mode::ReadWrite,
            Mode::ReadOnly,
            Mode::ReadOnlyOverride,
            Mode::Import,
        ] {
            assert_eq!(mode.as_str().parse::<Mode>(), Ok(mode));
            assert_eq!(mode.as_str().to_lowercase().parse::<Mode>(), Ok(mode));
        }
        assert!("WRITEONLY".parse::<Mode>().is_err());
    }
}
