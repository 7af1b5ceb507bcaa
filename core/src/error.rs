//! The crate's error type.

use crate::compat::{CompatError, CompatReport, Compatibility, UnknownMode};
use crate::schema::Language;
use crate::urn::{Urn, UrnError};

/// A boxed error from a backend, a user-supplied resolver, or a validator.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong at the crate's public boundary.
///
/// Each variant names the URN (or the input) concerned; an underlying error,
/// where there is one, is kept in [`source()`](std::error::Error::source)
/// and is not repeated by `Display`, so a reporter that walks the chain
/// prints each cause once. [`Error::chain`] prints the whole chain on one
/// line.
/// A payload that does not conform to its schema is not an `Error` but an
/// `dataschema::Invalid`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A string is not a URN of the schema grammar
    /// (`urn:<nid>:schema:<name>:<version>`).
    #[error("invalid URN {input:?}")]
    InvalidUrn {
        /// The input (clipped to 100 characters).
        input: String,
        /// Which part was wrong.
        #[source]
        reason: UrnError,
    },
    /// A schema language string is neither `jsonschema` nor `protobuf`.
    #[error("unknown schema language {language:?}: expected `jsonschema` or `protobuf`")]
    InvalidLanguage {
        /// The string given (clipped to 100 characters).
        language: String,
    },
    /// A schema has no bytes.
    #[error("schema {urn} is empty: a schema needs bytes")]
    Empty {
        /// The schema's URN.
        urn: Urn,
    },
    /// A protobuf schema does not name its root message.
    #[error(
        "protobuf schema {urn} names no root message: give the fully-qualified message name \
         (a root is never guessed)"
    )]
    MissingRoot {
        /// The schema's URN.
        urn: Urn,
    },
    /// The URN is already published with different bytes.
    #[error(
        "{urn} is already published with different bytes: a published URN never changes, \
         publish the change as a new version instead"
    )]
    Immutable {
        /// The URN that was published twice.
        urn: Urn,
    },
    /// No schema is held under the URN.
    #[error("schema {urn} not found")]
    NotFound {
        /// The URN asked for.
        urn: Urn,
    },
    /// The schema is not compatible with prior versions of its name under
    /// the mode asked for; the report lists every version checked and each
    /// change found, typed ([`CompatReport::breaking`]); its `Display`
    /// prefixes each breaking change with its version (`[v2] ...`).
    #[error("{urn} is incompatible with prior versions: {report}")]
    Incompatible {
        /// The URN being published.
        urn: Urn,
        /// The per-version report.
        report: Box<CompatReport>,
    },
    /// Under a checked compatibility mode, a version below one already held
    /// was published: it was never checked against the later version.
    /// Versions are published in order (or with `Compatibility::None`).
    #[error(
        "{urn} is below v{held}, which is already published: under {mode}, versions are \
         published in order (publish with Compatibility::None to add it anyway)"
    )]
    OutOfOrder {
        /// The URN being published.
        urn: Urn,
        /// The later version already held.
        held: u32,
        /// The mode asked for.
        mode: Compatibility,
    },
    /// A compatibility mode string names none of the seven modes.
    #[error(transparent)]
    UnknownCompatibility(#[from] UnknownMode),
    /// The schema cannot be used: it does not compile, is not a descriptor
    /// set, its root message is missing, or a `$ref` it needs is not held.
    #[error("schema {urn} is unusable")]
    SchemaUnusable {
        /// The schema's URN.
        urn: Urn,
        /// What the validator said.
        #[source]
        source: BoxError,
    },
    /// No validator for the schema's language is compiled into this binary.
    #[error(
        "no validator for {language} schemas is compiled in (schema {urn}): \
         enable dataschema's `{}` feature",
        language.feature()
    )]
    NoValidator {
        /// The schema's URN.
        urn: Urn,
        /// The schema's language.
        language: Language,
    },
    /// No schema has the id (see `Registry::schema_by_id`).
    #[error("no schema has id {id}")]
    IdNotFound {
        /// The id asked for.
        id: u32,
    },
    /// The schema under `urn` is held, but has no registry id here: an
    /// embedded registry answers only the ids it was given (a bundle's,
    /// from the `[ids]` its lock records; `dataschema publish` records
    /// them).
    #[error(
        "schema {urn} has no registry id here (only ids recorded in a lock are known offline)"
    )]
    NoId {
        /// The URN asked for.
        urn: Urn,
    },
    /// Two registry ids contradict each other: one id given to two
    /// different contents, or one content given two ids (a registry gives
    /// each content exactly one id, shared by every URN holding it).
    #[error("{}", id_conflict(urn, *id, other, *other_id))]
    IdConflict {
        /// A URN with its id.
        urn: Urn,
        /// The id given to `urn`.
        id: u32,
        /// The URN it contradicts.
        other: Urn,
        /// The id given to `other`.
        other_id: u32,
    },
    /// A remote registry could not be asked, or answered nonsense.
    #[error("registry unreachable while resolving {urn}")]
    Unreachable {
        /// The URN being resolved.
        urn: Urn,
        /// The transport or decoding error.
        #[source]
        source: BoxError,
    },
    /// A store failed (I/O, database).
    #[error("schema store failed")]
    Store {
        /// The backend's error.
        #[source]
        source: BoxError,
    },
    /// An error from a user-supplied resolver, store or validator.
    #[error(transparent)]
    Other(BoxError),
}

fn id_conflict(urn: &Urn, id: u32, other: &Urn, other_id: u32) -> String {
    if id == other_id {
        format!(
            "{urn} and {other} have different contents but the same id {id}: \
             a registry id names one content"
        )
    } else {
        format!(
            "{urn} (id {id}) and {other} (id {other_id}) hold the same content: \
             a registry gives one content one id"
        )
    }
}

impl Error {
    /// The error and each of its causes, once each, separated by `: `
    /// (`schema urn:acme:schema:x:1 is unusable: the schema does not
    /// compile: ...`).
    pub fn chain(&self) -> Chain<'_> {
        Chain(self)
    }

    /// The URN this error concerns, where it concerns one.
    pub fn urn(&self) -> Option<&Urn> {
        match self {
            Error::Empty { urn }
            | Error::MissingRoot { urn }
            | Error::Immutable { urn }
            | Error::NotFound { urn }
            | Error::Incompatible { urn, .. }
            | Error::OutOfOrder { urn, .. }
            | Error::SchemaUnusable { urn, .. }
            | Error::NoValidator { urn, .. }
            | Error::Unreachable { urn, .. }
            | Error::NoId { urn }
            | Error::IdConflict { urn, .. } => Some(urn),
            _ => None,
        }
    }
}

impl From<CompatError> for Error {
    /// A schema the compatibility engine cannot read is
    /// [`Error::SchemaUnusable`] (its cause kept as the source); an engine
    /// not compiled in is [`Error::NoValidator`]; an error that names no
    /// schema is [`Error::Other`].
    fn from(err: CompatError) -> Self {
        match err {
            CompatError::Unusable { urn, source } => Error::SchemaUnusable { urn, source },
            CompatError::NoComparer { urn, language } => Error::NoValidator { urn, language },
            other => Error::Other(Box::new(other)),
        }
    }
}

/// An error and its causes on one line: see [`Error::chain`].
#[derive(Debug, Clone, Copy)]
pub struct Chain<'a>(&'a (dyn std::error::Error + 'static));

impl<'a> Chain<'a> {
    /// The chain of any error.
    pub fn of(error: &'a (dyn std::error::Error + 'static)) -> Chain<'a> {
        Chain(error)
    }
}

impl std::fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(error) = cause {
            write!(f, ": {error}")?;
            cause = error.source();
        }
        Ok(())
    }
}

/// Clips untrusted input for an error message: at most `max` characters.
pub fn clip(input: &str, max: usize) -> String {
    match input.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &input[..end]),
        None => input.to_owned(),
    }
}
