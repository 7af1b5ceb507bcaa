//! The crate's error type.
//!
//! It sits above the model it names (`urn.rs`, `schema.rs`: their
//! constructors that answer with it live at the end of this file) and
//! below validation and compatibility, naming neither: a
//! compatibility report travels boxed ([`Error::Incompatible`]), a
//! compatibility level is the model's own ([`Compatibility`]); the
//! compatibility engine's own error turns into it in `change/error.rs`.

use std::fmt;
use std::str::FromStr;

use crate::level::{Compatibility, UnknownCompatibility};
use crate::schema::{Language, Schema};
use crate::text::clip;
use crate::urn::{parse, Urn, UrnError};

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
///
/// The variants stay flat, so a `match` on a variant (`Error::NotFound`,
/// `Error::Immutable`, `Error::SchemaUnusable`, ...) keeps working; their
/// cause is grouped by [`Error::kind`]:
///
/// | [`ErrorKind`] | variants |
/// |---|---|
/// | `Input` | `InvalidUrn`, `InvalidLanguage`, `UnknownCompatibility` |
/// | `Schema` | `Empty`, `MissingRoot`, `SchemaUnusable`, `NoValidator` |
/// | `Publish` | `Immutable`, `Incompatible`, `OutOfOrder`, `LastVersion`, `IdConflict`, `Referenced`, `ModeRefused`, `SettingsRefused` |
/// | `Lookup` | `NotFound`, `IdNotFound`, `NoId` |
/// | `Infrastructure` | `Unreachable`, `Store`, `Other` |
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
    #[error("unknown schema language {language:?}: expected `jsonschema`, `protobuf` or `avro`")]
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
    /// Data written with `writer` cannot be read as `reader` (Avro's
    /// schema resolution, `Registry::resolution`): where in the reader's
    /// data and why (`cannot read long as int at /amount`).
    #[error("data of {writer} cannot be read as {refusal}")]
    Unresolvable {
        /// The schema the data is written with.
        writer: Urn,
        /// The schema it was to be read as, where and why.
        refusal: Box<Unresolved>,
    },
    /// No schema is held under the URN.
    #[error("schema {urn} not found")]
    NotFound {
        /// The URN asked for.
        urn: Urn,
    },
    /// The schema is not compatible with prior versions of its name under
    /// the compatibility level asked for; the report lists every version checked and each
    /// change found; its `Display` prefixes each breaking change with its
    /// version (`[v2] ...`). Read it typed with
    /// [`CompatReport::of`](crate::compat::CompatReport::of).
    #[error("{urn} is incompatible with prior versions: {report}")]
    Incompatible {
        /// The URN being published.
        urn: Urn,
        /// The per-version report, a
        /// [`CompatReport`](crate::compat::CompatReport) (boxed: the error
        /// sits below the compatibility engine).
        report: BoxError,
    },
    /// Under a checked compatibility level, a version below one already held
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
        /// The compatibility level asked for (the field keeps its first name).
        mode: Compatibility,
    },
    /// The URN is at version 4294967295, the largest a URN carries: no
    /// version can follow it. A registry refuses to publish it (its name
    /// would take no next version), and a store answers this when asked for
    /// the next version of a name that holds it.
    #[error(
        "{urn} is at version 4294967295, the largest a URN carries: no version can follow it \
         (publish the name's versions below it)"
    )]
    LastVersion {
        /// The URN at the largest version.
        urn: Urn,
    },
    /// A compatibility level string names none of the seven levels.
    #[error(transparent)]
    UnknownCompatibility(#[from] UnknownCompatibility),
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
    /// A soft delete was refused: a live version (one not soft-deleted)
    /// carries a reference to `urn`, so hiding `urn` would leave that
    /// reference naming a version no listing shows (Confluent refuses it
    /// too, `42206`).
    #[error(
        "{urn} is referenced by {by}, which is not deleted: delete the schemas that reference \
         it first"
    )]
    Referenced {
        /// The URN a delete was asked for.
        urn: Urn,
        /// A live URN whose references name it.
        by: Urn,
    },
    /// A write refused by the registry mode of its name (Confluent's
    /// modes, `/mode`): read-only takes no write, an id is given in IMPORT
    /// mode only, and IMPORT mode takes only writes that give one.
    #[error("{urn}: {refusal}")]
    ModeRefused {
        /// The URN written (a name's URN, for a write of settings).
        urn: Urn,
        /// The rule that refused it.
        refusal: ModeRefusal,
    },
    /// A change of settings refused by the registry mode in effect, as
    /// Confluent refuses it (`KafkaSchemaRegistry.updateConfig`,
    /// `deleteSubjectConfig` and `setMode`, v8.2.0): a compatibility
    /// level or other settings of a read-only name (or, registry-wide, of
    /// a read-only registry) are not changed ([`ModeRefusal::ReadOnly`]);
    /// a switch to IMPORT where versions are held needs to be forced
    /// ([`ModeRefusal::VersionsHeld`]).
    #[error("{}: {refusal}", settings_of(name.as_deref()))]
    SettingsRefused {
        /// The name whose settings were to change (`None`: the
        /// registry-wide ones).
        name: Option<String>,
        /// The rule that refused it.
        refusal: ModeRefusal,
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

/// Which rule of the registry modes refused a write
/// ([`Error::ModeRefused`]); Confluent's `checkRegisterMode`
/// (`AbstractSchemaRegistry.java`, v8.2.0) has the same three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModeRefusal {
    /// The name is READONLY or READONLY_OVERRIDE: nothing is registered,
    /// deleted or configured.
    ReadOnly,
    /// An id was given, and the name is not in IMPORT mode.
    NotImport,
    /// No id was given, and the name is not in READWRITE mode (in IMPORT
    /// mode, every registration carries the id its messages carry).
    NotReadWrite,
    /// A switch to IMPORT mode where live versions are held (of the name,
    /// or anywhere for the registry-wide mode), not forced: imported ids
    /// would mix with the ids given here.
    VersionsHeld,
}

impl fmt::Display for ModeRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModeRefusal::ReadOnly => {
                "the name is in read-only mode: nothing is registered, deleted or configured \
                 until its mode is READWRITE (or IMPORT) again"
            }
            ModeRefusal::NotImport => {
                "the name is not in import mode: a schema is stored with the id given only in \
                 IMPORT mode"
            }
            ModeRefusal::NotReadWrite => {
                "the name is not in read-write mode: in IMPORT mode every registration gives \
                 the id its messages carry"
            }
            ModeRefusal::VersionsHeld => {
                "live versions are held: switching to IMPORT mode would mix imported ids with \
                 those given here (force the switch to do it anyway)"
            }
        })
    }
}

/// Whose settings an [`Error::SettingsRefused`] concerns.
fn settings_of(name: Option<&str>) -> String {
    match name {
        Some(name) => format!("the settings of {:?}", crate::text::clip(name, 100)),
        None => "the registry-wide settings".to_owned(),
    }
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

/// What an [`Error`] is about, for a caller that handles errors by cause
/// (an HTTP status, a retry, a log level) rather than by variant: see
/// [`Error::kind`]. New kinds may be added (a `match` needs a wildcard arm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The caller's input is malformed: a URN, a language or a mode string.
    Input,
    /// The schema cannot be used (here): empty, without its root, not a
    /// schema of its language, or of a language not compiled in.
    Schema,
    /// A publish was refused: the registry's rules (immutability,
    /// compatibility, order, one id per content) say no.
    Publish,
    /// Nothing is held under the URN or id asked for.
    Lookup,
    /// Something the crate depends on failed or is misconfigured: a remote
    /// registry, a store, a user-supplied resolver, the server's setup.
    /// Often passing: the same call may succeed later.
    Infrastructure,
}

impl Error {
    /// A string that is not a URN of the schema grammar: the input quoted
    /// (clipped to 100 characters, as every error quotes its input), with
    /// the part that was wrong.
    pub fn invalid_urn(input: &str, reason: UrnError) -> Error {
        Error::InvalidUrn {
            input: crate::text::clip(input, 100),
            reason,
        }
    }

    /// What this error is about ([`ErrorKind`]); the grouping is in
    /// [`Error`]'s documentation.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidUrn { .. }
            | Error::InvalidLanguage { .. }
            | Error::UnknownCompatibility(_) => ErrorKind::Input,
            Error::Empty { .. }
            | Error::MissingRoot { .. }
            | Error::SchemaUnusable { .. }
            | Error::NoValidator { .. }
            | Error::Unresolvable { .. } => ErrorKind::Schema,
            Error::Immutable { .. }
            | Error::Incompatible { .. }
            | Error::OutOfOrder { .. }
            | Error::LastVersion { .. }
            | Error::IdConflict { .. }
            | Error::Referenced { .. }
            | Error::ModeRefused { .. }
            | Error::SettingsRefused { .. } => ErrorKind::Publish,
            Error::NotFound { .. } | Error::IdNotFound { .. } | Error::NoId { .. } => {
                ErrorKind::Lookup
            }
            Error::Unreachable { .. } | Error::Store { .. } | Error::Other(_) => {
                ErrorKind::Infrastructure
            }
        }
    }

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
            | Error::LastVersion { urn }
            | Error::Unreachable { urn, .. }
            | Error::NoId { urn }
            | Error::IdConflict { urn, .. }
            | Error::Referenced { urn, .. }
            | Error::ModeRefused { urn, .. } => Some(urn),
            Error::Unresolvable { refusal, .. } => Some(refusal.reader()),
            _ => None,
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

/// The cause of an [`Error::SchemaUnusable`] whose schema `$ref`s a URN
/// no resolver holds: a state that passes once that URN is published, so
/// a guard compiles such a schema again after a delay.
#[derive(Debug)]
#[cfg_attr(
    not(any(feature = "json", feature = "proto-text", feature = "avro")),
    allow(dead_code)
)]
pub(crate) struct MissingRef {
    pub(crate) target: Urn,
}

impl fmt::Display for MissingRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "its reference {} is not held by any resolver",
            self.target
        )
    }
}

impl std::error::Error for MissingRef {}

// The model's constructors and checks that answer with this error. The
// model (`urn.rs`, `schema.rs`) stands below this file and gives its own
// reasons (`UrnError`); turning them into an `Error` that names the input
// happens here, so no file of the model imports the error that holds it.

impl Urn {
    /// Builds `urn:<namespace>:schema:<name>:<version>`, checking each part.
    ///
    /// ```
    /// let urn = dataschema::Urn::new("acme", "orders.created", 3)?;
    /// assert_eq!(urn.to_string(), "urn:acme:schema:orders.created:3");
    /// # Ok::<(), dataschema::Error>(())
    /// ```
    pub fn new(namespace: &str, name: &str, version: u32) -> Result<Urn, Error> {
        format!("urn:{namespace}:schema:{name}:{version}").parse()
    }

    /// The same namespace and name at another version.
    pub fn with_version(&self, version: u32) -> Result<Urn, Error> {
        Urn::new(self.namespace(), self.name(), version)
    }
}

impl FromStr for Urn {
    type Err = Error;

    fn from_str(s: &str) -> Result<Urn, Error> {
        parse(s)
            .map(Urn::from_parsed)
            .map_err(|reason| Error::invalid_urn(s, reason))
    }
}

impl TryFrom<&str> for Urn {
    type Error = Error;

    fn try_from(s: &str) -> Result<Urn, Error> {
        s.parse()
    }
}

impl FromStr for Language {
    type Err = Error;

    fn from_str(s: &str) -> Result<Language, Error> {
        match s {
            "jsonschema" => Ok(Language::JsonSchema),
            "protobuf" => Ok(Language::Protobuf),
            "avro" => Ok(Language::Avro),
            _ => Err(Error::InvalidLanguage {
                language: clip(s, 100),
            }),
        }
    }
}

impl Schema {
    /// The checks that need no validator: bytes present, protobuf root named.
    #[doc(hidden)]
    pub fn check_shape(&self) -> Result<(), Error> {
        if self.bytes().is_empty() {
            return Err(Error::Empty {
                urn: self.urn().clone(),
            });
        }
        // A protobuf schema without a root is a Confluent registration,
        // text (`protobuf/source.rs`), or a descriptor set whose own file
        // is the one no other imports (its compile checks that); a root
        // given is never empty.
        let missing = self.root().is_some_and(str::is_empty);
        if self.language() == Language::Protobuf && missing {
            return Err(Error::MissingRoot {
                urn: self.urn().clone(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_has_its_cause() {
        let urn: Urn = "urn:acme:schema:order:1".parse().unwrap();
        let cases = [
            (
                Error::invalid_urn("nope", UrnError::Version),
                ErrorKind::Input,
            ),
            (
                Error::InvalidLanguage {
                    language: "avro".into(),
                },
                ErrorKind::Input,
            ),
            (Error::Empty { urn: urn.clone() }, ErrorKind::Schema),
            (
                Error::SchemaUnusable {
                    urn: urn.clone(),
                    source: "bad".into(),
                },
                ErrorKind::Schema,
            ),
            (Error::Immutable { urn: urn.clone() }, ErrorKind::Publish),
            (
                Error::OutOfOrder {
                    urn: urn.clone(),
                    held: 2,
                    mode: Compatibility::Backward,
                },
                ErrorKind::Publish,
            ),
            (Error::NotFound { urn: urn.clone() }, ErrorKind::Lookup),
            (Error::IdNotFound { id: 7 }, ErrorKind::Lookup),
            (
                Error::Store {
                    source: "disk".into(),
                },
                ErrorKind::Infrastructure,
            ),
            (Error::Other("resolver".into()), ErrorKind::Infrastructure),
        ];
        for (error, kind) in cases {
            assert_eq!(error.kind(), kind, "{error}");
        }
    }

    #[test]
    fn invalid_urn_clips_its_input() {
        let long = "x".repeat(300);
        let Error::InvalidUrn { input, reason } = Error::invalid_urn(&long, UrnError::Version)
        else {
            panic!("not InvalidUrn");
        };
        assert_eq!(
            input.chars().count(),
            101,
            "100 characters and the ellipsis"
        );
        assert!(input.ends_with('…'));
        assert_eq!(reason, UrnError::Version);
    }
}

/// Why data of one schema cannot be read as another
/// ([`Error::Unresolvable`]): the reader's schema, where in its data and
/// why. `Display`: `<reader>: <reason> at <path>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    reader: Urn,
    path: String,
    reason: String,
}

impl Unresolved {
    /// The refusal of reading as `reader`, at `path` (`/amount`), for
    /// `reason` (`cannot read double as int`).
    pub fn new(reader: Urn, path: impl Into<String>, reason: impl Into<String>) -> Unresolved {
        Unresolved {
            reader,
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// The schema the data was to be read as.
    pub fn reader(&self) -> &Urn {
        &self.reader
    }

    /// Where in the reader's data (`/amount`; `/` for the whole datum).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Why, in words.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for Unresolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} at {}", self.reader, self.reason, self.path)
    }
}
