//! Change kinds: the trait every language's kinds implement, the table
//! macro that declares them, and [`AnyChangeKind`], the kind of a change in
//! a language-agnostic report.

use std::fmt;

use crate::schema::Language;

use super::json::JsonChangeKind;
#[cfg(feature = "protobuf")]
use super::protobuf::ProtoChangeKind;

/// The kind of one change, per language (JSON Schema, protobuf).
///
/// Kinds are named after Confluent Schema Registry's difference types, and a
/// kind alone decides whether a change breaks backward compatibility, as in
/// Confluent.
pub trait ChangeKind: Copy + Eq + fmt::Debug {
    /// Confluent's name of the kind (`TYPE_EXTENDED`, `FIELD_KIND_CHANGED`, ...).
    fn name(self) -> &'static str;

    /// Whether a new schema with this change still reads data written with
    /// the old one.
    fn is_backward_compatible(self) -> bool;
}

/// A name that is no change kind of the language asked for
/// (`FromStr` of [`JsonChangeKind`] and `ProtoChangeKind`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {language} change kind {name:?}")]
pub struct UnknownChangeKind {
    language: Language,
    name: String,
}

impl UnknownChangeKind {
    pub(crate) fn new(language: Language, name: &str) -> Self {
        UnknownChangeKind {
            language,
            name: crate::text::clip(name, 100),
        }
    }

    /// The language whose kinds were searched.
    pub fn language(&self) -> Language {
        self.language
    }

    /// The name given (clipped to 100 characters).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Declares a language's change kinds from one table: each row is the
/// variant (with its docs), Confluent's name and whether the kind is
/// backward compatible. The enum, `ALL`, `name()`,
/// `is_backward_compatible()`, `Display`, `FromStr` and the [`ChangeKind`]
/// impl all follow from the table.
macro_rules! change_kinds {
    (
        $(#[$enum_doc:meta])*
        pub enum $kind:ident for $language:expr;
        $( $(#[$doc:meta])* $variant:ident = $name:literal, $compatible:literal; )*
    ) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $kind {
            $( $(#[$doc])* $variant, )*
        }

        impl $kind {
            /// Every kind, in the table's (Confluent's declaration) order.
            pub const ALL: &'static [$kind] = &[$( $kind::$variant, )*];

            /// Confluent's name of the kind.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $kind::$variant => $name, )*
                }
            }

            /// Whether the kind is in Confluent's compatible set.
            pub const fn is_backward_compatible(self) -> bool {
                match self {
                    $( $kind::$variant => $compatible, )*
                }
            }
        }

        impl $crate::compat::ChangeKind for $kind {
            fn name(self) -> &'static str {
                $kind::name(self)
            }

            fn is_backward_compatible(self) -> bool {
                $kind::is_backward_compatible(self)
            }
        }

        impl ::std::fmt::Display for $kind {
            /// Confluent's name of the kind.
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $kind {
            type Err = $crate::compat::UnknownChangeKind;

            /// Reads Confluent's name of a kind (`TYPE_EXTENDED`), exactly.
            fn from_str(name: &str) -> Result<Self, Self::Err> {
                match name {
                    $( $name => Ok($kind::$variant), )*
                    _ => Err($crate::compat::UnknownChangeKind::new($language, name)),
                }
            }
        }
    };
}

pub(crate) use change_kinds;

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
            AnyChangeKind::LanguageChanged { .. } => false,
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
