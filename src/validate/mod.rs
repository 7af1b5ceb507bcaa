//! Validators: one file per language, each behind its cargo feature, and
//! the protobuf validating scanner ([`scan`]).
//!
//! A schema is compiled once (`compile`) into a `Compiled` value the
//! guard caches for the life of the process (a URN's bytes never change).
//! Dispatch is a `match` on an enum, not a trait object: the hot path has
//! one predictable branch per message.

// Without a validator every schema fails open with `no_validator`, and the
// payload-checking half of this module has nothing to do.
#![cfg_attr(
    not(any(feature = "json", feature = "protobuf")),
    allow(unused_imports, unused_variables, dead_code)
)]

#[cfg(feature = "json")]
mod json;
#[cfg(feature = "protobuf")]
mod protobuf;
#[cfg(feature = "protobuf")]
pub mod scan;

use std::fmt;
use std::sync::Arc;

use crate::error::Error;
use crate::resolver::Resolver;
use crate::schema::{Language, Schema};

/// How payloads are checked; set on [`GuardBuilder`](crate::GuardBuilder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    /// JSON Schema: assert `format` (dates, e-mail addresses, ...).
    pub(crate) assert_formats: bool,
    /// Protobuf: a field number the descriptor does not know is a violation.
    pub(crate) reject_unknown_fields: bool,
    /// JSON: an object naming a key twice makes the payload not JSON (by
    /// default the last value is kept, as serde_json does).
    pub(crate) reject_duplicate_keys: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            assert_formats: true,
            reject_unknown_fields: false,
            reject_duplicate_keys: false,
        }
    }
}

/// One way a payload fails its schema: where, and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    path: String,
    message: String,
}

impl Violation {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Violation {
        Violation {
            path: path.into(),
            message: message.into(),
        }
    }

    /// Where in the payload: a JSON pointer (`/items/3/sku`) for JSON, a
    /// field path (`items[3].sku`) for protobuf; empty for the whole payload.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// At most this many violations are reported for one payload, so a hostile
/// payload cannot make the report arbitrarily large.
pub(crate) const MAX_VIOLATIONS: usize = 64;

/// A compiled schema, ready to check payloads.
pub(crate) enum Compiled {
    #[cfg(feature = "json")]
    Json(json::JsonValidator),
    #[cfg(feature = "protobuf")]
    Protobuf(protobuf::ProtobufValidator),
}

impl Compiled {
    /// Checks a payload's bytes.
    #[inline]
    pub(crate) fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.validate(payload),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate(payload),
        }
    }

    /// Checks a payload the caller has already parsed as JSON.
    #[inline]
    pub(crate) fn validate_json(&self, value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.validate_value(value),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate_json(value),
        }
    }
}

/// Compiles `schema`. `refs` resolves the URNs a JSON Schema `$ref`
/// names; nothing is ever fetched from the network or the filesystem.
///
/// Errors: [`Error::NoValidator`] when the language's feature is off,
/// [`Error::SchemaUnusable`] when the schema does not compile,
/// [`Error::Unreachable`] when a `$ref`'s schema could not be fetched just
/// now (not a property of the schema: not to be cached), and the shape
/// errors ([`Error::Empty`], [`Error::MissingRoot`]).
pub(crate) fn compile(
    schema: &Schema,
    refs: Arc<dyn Resolver>,
    options: Options,
) -> Result<Compiled, Error> {
    schema.check_shape()?;
    let unusable = |source| Error::SchemaUnusable {
        urn: schema.urn.clone(),
        source,
    };
    match schema.language {
        #[cfg(feature = "json")]
        Language::JsonSchema => json::JsonValidator::compile(&schema.bytes, refs, options)
            .map(Compiled::Json)
            .map_err(|err| match err {
                json::CompileError::Unusable(source) => unusable(source),
                json::CompileError::Unreachable(source) => Error::Unreachable {
                    urn: schema.urn.clone(),
                    source,
                },
            }),
        #[cfg(feature = "protobuf")]
        Language::Protobuf => {
            let root = schema.root.as_deref().unwrap_or_default();
            protobuf::ProtobufValidator::compile(&schema.bytes, root, options)
                .map(Compiled::Protobuf)
                .map_err(unusable)
        }
        #[allow(unreachable_patterns)]
        language => {
            let _ = (refs, unusable);
            Err(Error::NoValidator {
                urn: schema.urn.clone(),
                language,
            })
        }
    }
}
