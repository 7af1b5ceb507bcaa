//! Why a payload was not framed: [`FrameError`] and its [`FrameReason`].

use std::fmt;
use std::sync::Arc;

use dataschema_core::{Error, Urn};

use crate::guard::{Invalid, Reason, Unvalidated};

/// Declares [`FrameReason`] once: each variant with its label; `ALL`,
/// `as_str` and the metric index follow.
macro_rules! reasons {
    ($($(#[$doc:meta])* $variant:ident => $label:literal,)*) => {
        /// Why a payload was not framed: the `reason` label of
        /// `dataschema_frame_errors_total`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum FrameReason {
            $($(#[$doc])* $variant,)*
        }

        impl FrameReason {
            /// How many reasons there are.
            pub(crate) const COUNT: usize = [$($label),*].len();

            /// Every reason.
            pub const ALL: [FrameReason; FrameReason::COUNT] = [$(FrameReason::$variant),*];

            /// The `reason` label value in `dataschema_frame_errors_total`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(FrameReason::$variant => $label,)*
                }
            }
        }
    };
}

reasons! {
    /// The payload does not conform to the schema: the consumers' guards
    /// would refuse it ([`FrameError::as_invalid`] has the violations).
    Invalid => "invalid",
    /// No resolver holds the URN.
    NotFound => "not_found",
    /// The schema is held, but no registry id is known for it: the lock
    /// records none, and no registry was asked or none answered one.
    NoId => "no_id",
    /// The registry could not be asked (down, slow, a `5xx`, the request
    /// budget spent), answered nonsense, or contradicted the lock.
    Unreachable => "unreachable",
    /// No validator for the schema's language is compiled in: the payload
    /// cannot be checked, so it is not framed.
    NoValidator => "no_validator",
    /// The schema cannot be used (does not compile, a `$ref` not held).
    Unusable => "unusable",
    /// The verdict hangs on a JSON Schema `pattern` match that ran out of
    /// its backtracking budget: not known to conform, so not framed.
    PatternBudget => "pattern_budget",
    /// The protobuf message asked for is not one a consumer validates a
    /// frame of (not in the schema, or not its root), or the schema names
    /// no message for the payload (a descriptor set without a root, no
    /// message named); or a message was named for a JSON Schema or Avro
    /// schema, which have none.
    NoMessage => "no_message",
    /// Registering the schema (auto-registration) was refused by the
    /// registry: incompatible, a bad credential, a different schema under
    /// the URN.
    Refused => "refused",
}

impl FrameReason {
    /// The position in [`FrameReason::ALL`].
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    /// The reason a guard's [`Reason`] becomes for a producer, which
    /// refuses what a consumer lets through.
    fn of(reason: Reason) -> FrameReason {
        match reason {
            Reason::NotFound | Reason::NotAUrn => FrameReason::NotFound,
            Reason::Unreachable => FrameReason::Unreachable,
            Reason::NoValidator => FrameReason::NoValidator,
            Reason::PatternBudget => FrameReason::PatternBudget,
            _ => FrameReason::Unusable,
        }
    }
}

impl fmt::Display for FrameReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A payload the [`Framer`](crate::Framer) did not frame: the URN, the
/// [`FrameReason`], and the error behind it ([`source`](std::error::Error::source)).
/// Never a frame with a wrong or zero id instead.
#[derive(Debug, Clone)]
pub struct FrameError(Box<Repr>);

#[derive(Debug, Clone)]
struct Repr {
    urn: Urn,
    reason: FrameReason,
    cause: Cause,
}

#[derive(Debug, Clone)]
enum Cause {
    Invalid(Invalid),
    Unvalidated(Unvalidated),
    Error(Arc<Error>),
    Message(String),
}

impl FrameError {
    pub(crate) fn invalid(invalid: Invalid) -> FrameError {
        FrameError(Box::new(Repr {
            urn: invalid.urn().clone(),
            reason: FrameReason::Invalid,
            cause: Cause::Invalid(invalid),
        }))
    }

    pub(crate) fn unvalidated(urn: &Urn, unvalidated: Unvalidated) -> FrameError {
        FrameError(Box::new(Repr {
            urn: urn.clone(),
            reason: FrameReason::of(unvalidated.reason()),
            cause: Cause::Unvalidated(unvalidated),
        }))
    }

    /// An id lookup's error: not held, no id, or the registry not asked.
    pub(crate) fn id(urn: &Urn, error: Error) -> FrameError {
        let reason = match error {
            Error::NotFound { .. } => FrameReason::NotFound,
            Error::NoId { .. } | Error::IdNotFound { .. } => FrameReason::NoId,
            _ => FrameReason::Unreachable,
        };
        FrameError::with_error(urn, reason, error)
    }

    /// A registry's content lookup's error
    /// ([`HttpResolver::id_of_schema`](crate::http::HttpResolver::id_of_schema)):
    /// not registered is `no_id`, a refused registration `refused`.
    #[cfg(feature = "http")]
    pub(crate) fn registry(urn: &Urn, error: Error) -> FrameError {
        use crate::http::NoRegistryId;
        let reason = match &error {
            Error::Other(other) => match other.downcast_ref::<NoRegistryId>() {
                Some(NoRegistryId::Refused { .. }) => FrameReason::Refused,
                Some(_) => FrameReason::NoId,
                None => FrameReason::Unreachable,
            },
            _ => return FrameError::id(urn, error),
        };
        FrameError::with_error(urn, reason, error)
    }

    pub(crate) fn with_error(urn: &Urn, reason: FrameReason, error: Error) -> FrameError {
        FrameError(Box::new(Repr {
            urn: urn.clone(),
            reason,
            cause: Cause::Error(Arc::new(error)),
        }))
    }

    pub(crate) fn message(urn: &Urn, why: String) -> FrameError {
        FrameError(Box::new(Repr {
            urn: urn.clone(),
            reason: FrameReason::NoMessage,
            cause: Cause::Message(why),
        }))
    }

    /// The URN of the schema the payload was to be framed with.
    pub fn urn(&self) -> &Urn {
        &self.0.urn
    }

    /// Why it was not framed.
    pub fn reason(&self) -> FrameReason {
        self.0.reason
    }

    /// For [`FrameReason::Invalid`], the violations, as a guard reports
    /// them.
    pub fn as_invalid(&self) -> Option<&Invalid> {
        match &self.0.cause {
            Cause::Invalid(invalid) => Some(invalid),
            _ => None,
        }
    }

    /// The crate error behind the reason, when there is one
    /// (`NotFound`, `NoId`, `Unreachable`, `SchemaUnusable`, ...).
    pub fn error(&self) -> Option<&Error> {
        match &self.0.cause {
            Cause::Unvalidated(unvalidated) => Some(unvalidated.error()),
            Cause::Error(error) => Some(error),
            Cause::Invalid(_) | Cause::Message(_) => None,
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not framed ({}): ", self.0.reason)?;
        match &self.0.cause {
            Cause::Invalid(invalid) => write!(f, "{invalid}"),
            Cause::Unvalidated(unvalidated) => {
                write!(f, "{}: {}", self.0.urn, unvalidated.error().chain())
            }
            Cause::Error(error) => write!(f, "{}", error.chain()),
            Cause::Message(why) => write!(f, "{}: {why}", self.0.urn),
        }
    }
}

impl std::error::Error for FrameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.cause {
            Cause::Invalid(invalid) => Some(invalid),
            Cause::Unvalidated(unvalidated) => Some(unvalidated.error()),
            Cause::Error(error) => Some(&**error),
            Cause::Message(_) => None,
        }
    }
}
