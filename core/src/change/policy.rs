//! [`Policy`]: how strictly a check reads a JSON Schema's open content
//! model (Confluent's `compatibilityPolicy`).

use std::fmt;
use std::str::FromStr;

use super::any_kind::AnyChangeKind;
use crate::json::compat::kind::JsonChangeKind;

/// How strictly a compatibility check reads JSON Schema changes
/// (Confluent's `compatibilityPolicy`, set in a subject's config).
///
/// Under [`Strict`](Policy::Strict) (the default, Confluent's `STRICT`) an
/// open content model (`additionalProperties` absent or `true`) accepts
/// any property, so adding a property to it is breaking: data written with
/// the old schema may hold that property with any value. Under
/// [`Lenient`](Policy::Lenient) (`LENIENT`) a check assumes producers do not
/// write properties their schema does not name, and also accepts the
/// changes that assumption makes safe (Confluent's
/// `COMPATIBLE_CHANGES_LENIENT`): see [`Policy::forgives`] and
/// `docs/compatibility.md`. Protobuf changes are read the same under both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Policy {
    /// Every change keeps its verdict.
    #[default]
    Strict,
    /// The open-content-model changes of [`Policy::forgives`] are
    /// compatible.
    Lenient,
}

impl Policy {
    /// `STRICT` or `LENIENT`, as Confluent writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Policy::Strict => "STRICT",
            Policy::Lenient => "LENIENT",
        }
    }

    /// Whether this policy takes `kind` as compatible although its own
    /// verdict is breaking. Under `Lenient`, the JSON Schema kinds
    /// `OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL`,
    /// `REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL`,
    /// `PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL`,
    /// `PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`,
    /// `PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`,
    /// `ADDITIONAL_PROPERTIES_NARROWED` and `ADDITIONAL_PROPERTIES_REMOVED`
    /// (Confluent's lenient set also names the `UNEVALUATED_PROPERTIES_`
    /// kinds, which this engine does not report); nothing else, and
    /// nothing under `Strict`.
    pub fn forgives(self, kind: AnyChangeKind) -> bool {
        use JsonChangeKind as K;
        match (self, kind.as_json()) {
            (Policy::Lenient, Some(kind)) => matches!(
                kind,
                K::OptionalPropertyAddedToOpenContentModel
                    | K::RequiredPropertyWithDefaultAddedToOpenContentModel
                    | K::PropertyRemovedFromClosedContentModel
                    | K::PropertyAddedNotCoveredByPartiallyOpenContentModel
                    | K::PropertyRemovedNotCoveredByPartiallyOpenContentModel
                    | K::AdditionalPropertiesNarrowed
                    | K::AdditionalPropertiesRemoved
            ),
            _ => false,
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A policy name that is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPolicy(pub String);

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown compatibility policy {:?}: expected STRICT or LENIENT",
            crate::text::clip(&self.0, 40)
        )
    }
}

impl std::error::Error for UnknownPolicy {}

impl FromStr for Policy {
    type Err = UnknownPolicy;

    /// `STRICT` or `LENIENT`, in any case.
    fn from_str(s: &str) -> Result<Policy, UnknownPolicy> {
        if s.eq_ignore_ascii_case("strict") {
            Ok(Policy::Strict)
        } else if s.eq_ignore_ascii_case("lenient") {
            Ok(Policy::Lenient)
        } else {
            Err(UnknownPolicy(s.to_owned()))
        }
    }
}
