//! [`AnyChangeKind`], the kind of a change in a language-agnostic report:
//! one language's kind, or a change of language.

use std::fmt;

use super::kind::ChangeKind;
#[cfg(feature = "avro")]
use crate::avro::compat::kind::AvroChangeKind;
use crate::json::compat::kind::JsonChangeKind;
#[cfg(feature = "protobuf")]
use crate::protobuf::compat::kind::ProtoChangeKind;
use crate::schema::Language;

/// [`AnyChangeKind::hint`] of the kinds that add a property to an open
/// content model.
const OPEN_CONTENT_MODEL_HINT: &str = "the object's content model is open (no \
    \"additionalProperties\": false), so data written with the old version may already hold \
    this property, with any value. To add a property safely, give it the empty schema {} \
    (any value) or close the model from the name's first version on \
    (\"additionalProperties\": false; closing it later is breaking too), or read JSON Schema \
    changes leniently, assuming producers write only the properties their schema names: \
    compatibility_policy = \"lenient\" in schemas/dataschema.toml, \
    \"compatibilityPolicy\": \"LENIENT\" in a subject's config (PUT /config/{subject})";

/// The kind of a change in a language-agnostic report ([`compat::diff`],
/// [`CompatReport`]): a language's kind, or a change of language between
/// versions.
///
/// [`compat::diff`]: crate::compat::diff()
/// [`CompatReport`]: crate::compat::CompatReport
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnyChangeKind {
    /// A change between two JSON Schemas.
    Json(JsonChangeKind),
    /// A change between two protobuf schemas (feature `protobuf`).
    #[cfg(feature = "protobuf")]
    Protobuf(ProtoChangeKind),
    /// An incompatibility between two Avro schemas (feature `avro`).
    #[cfg(feature = "avro")]
    Avro(AvroChangeKind),
    /// The schema's language changed between versions (`LANGUAGE_CHANGED`,
    /// breaking): no data of one reads as the other.
    LanguageChanged {
        /// The prior version's language.
        from: Language,
        /// The candidate's language.
        to: Language,
    },
}

impl AnyChangeKind {
    /// The name of the kind: Confluent's for a language's kind,
    /// `LANGUAGE_CHANGED` for a change of language.
    pub const fn name(self) -> &'static str {
        match self {
            AnyChangeKind::Json(kind) => kind.name(),
            #[cfg(feature = "protobuf")]
            AnyChangeKind::Protobuf(kind) => kind.name(),
            #[cfg(feature = "avro")]
            AnyChangeKind::Avro(kind) => kind.name(),
            AnyChangeKind::LanguageChanged { .. } => "LANGUAGE_CHANGED",
        }
    }

    /// Whether a new schema with this change still reads data written with
    /// the old one (never, for a change of language).
    pub const fn is_backward_compatible(self) -> bool {
        match self {
            AnyChangeKind::Json(kind) => kind.is_backward_compatible(),
            #[cfg(feature = "protobuf")]
            AnyChangeKind::Protobuf(kind) => kind.is_backward_compatible(),
            #[cfg(feature = "avro")]
            AnyChangeKind::Avro(kind) => kind.is_backward_compatible(),
            AnyChangeKind::LanguageChanged { .. } => false,
        }
    }

    /// How to avoid or settle a breaking change of this kind, where the
    /// way is not plain from its name: a sentence the reports print below
    /// the changes (`CompatReport` and `SchemaDiff`'s `Display`, once per
    /// kind), and `dataschema`'s JSON output carries.
    ///
    /// ```
    /// use dataschema::compat::{json::JsonChangeKind, AnyChangeKind};
    ///
    /// let kind = AnyChangeKind::Json(JsonChangeKind::OptionalPropertyAddedToOpenContentModel);
    /// assert!(kind.hint().unwrap().contains("additionalProperties"));
    /// ```
    pub const fn hint(self) -> Option<&'static str> {
        use JsonChangeKind as J;
        match self {
            AnyChangeKind::Json(
                J::OptionalPropertyAddedToOpenContentModel
                | J::RequiredPropertyWithDefaultAddedToOpenContentModel
                | J::PropertyAddedToOpenContentModel
                | J::RequiredPropertyAddedToOpenContentModel,
            ) => Some(OPEN_CONTENT_MODEL_HINT),
            _ => None,
        }
    }

    /// The JSON Schema kind, if it is one.
    pub const fn as_json(self) -> Option<JsonChangeKind> {
        match self {
            AnyChangeKind::Json(kind) => Some(kind),
            _ => None,
        }
    }

    /// The protobuf kind, if it is one (feature `protobuf`).
    #[cfg(feature = "protobuf")]
    pub const fn as_protobuf(self) -> Option<ProtoChangeKind> {
        match self {
            AnyChangeKind::Protobuf(kind) => Some(kind),
            _ => None,
        }
    }
}

#[cfg(feature = "avro")]
impl AnyChangeKind {
    /// The Avro kind, if it is one (feature `avro`).
    pub const fn as_avro(self) -> Option<AvroChangeKind> {
        match self {
            AnyChangeKind::Avro(kind) => Some(kind),
            _ => None,
        }
    }
}

#[cfg(feature = "avro")]
impl From<AvroChangeKind> for AnyChangeKind {
    fn from(kind: AvroChangeKind) -> Self {
        AnyChangeKind::Avro(kind)
    }
}

#[cfg(feature = "avro")]
impl PartialEq<AvroChangeKind> for AnyChangeKind {
    fn eq(&self, other: &AvroChangeKind) -> bool {
        *self == AnyChangeKind::Avro(*other)
    }
}

impl ChangeKind for AnyChangeKind {
    fn name(self) -> &'static str {
        AnyChangeKind::name(self)
    }

    fn is_backward_compatible(self) -> bool {
        AnyChangeKind::is_backward_compatible(self)
    }
}

impl fmt::Display for AnyChangeKind {
    /// The kind's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<JsonChangeKind> for AnyChangeKind {
    fn from(kind: JsonChangeKind) -> Self {
        AnyChangeKind::Json(kind)
    }
}

#[cfg(feature = "protobuf")]
impl From<ProtoChangeKind> for AnyChangeKind {
    fn from(kind: ProtoChangeKind) -> Self {
        AnyChangeKind::Protobuf(kind)
    }
}

impl PartialEq<JsonChangeKind> for AnyChangeKind {
    fn eq(&self, other: &JsonChangeKind) -> bool {
        *self == AnyChangeKind::Json(*other)
    }
}

#[cfg(feature = "protobuf")]
impl PartialEq<ProtoChangeKind> for AnyChangeKind {
    fn eq(&self, other: &ProtoChangeKind) -> bool {
        *self == AnyChangeKind::Protobuf(*other)
    }
}
