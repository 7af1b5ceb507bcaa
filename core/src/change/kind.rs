//! Change kinds: the trait every language's kinds implement and the table
//! macro that declares them (each language's `compat/kind.rs` uses it; the
//! kind of a language-agnostic report is in `any_kind.rs`).

use std::fmt;

use crate::schema::Language;

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
/// (`FromStr` of [`JsonChangeKind`](crate::compat::json::JsonChangeKind) and
/// `ProtoChangeKind`).
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

        impl $crate::change::kind::ChangeKind for $kind {
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
            type Err = $crate::change::kind::UnknownChangeKind;

            /// Reads Confluent's name of a kind (`TYPE_EXTENDED`), exactly.
            fn from_str(name: &str) -> Result<Self, Self::Err> {
                match name {
                    $( $name => Ok($kind::$variant), )*
                    _ => Err($crate::change::kind::UnknownChangeKind::new($language, name)),
                }
            }
        }
    };
}

pub(crate) use change_kinds;
