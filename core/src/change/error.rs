//! Errors of the compatibility engine.

use crate::error::Error;
use crate::schema::Language;
use crate::urn::Urn;

/// An input the compatibility engine could not use.
///
/// Diffing itself never fails; these errors come from turning bytes into a
/// schema (JSON text, a serialized `FileDescriptorSet`). The entry points
/// over [`Schema`](crate::schema::Schema)s ([`compat::diff`](crate::compat::diff()),
/// [`compat::check`](fn@crate::compat::check)) wrap the cause in
/// [`CompatError::Unusable`], naming the schema's URN. `Display` does not
/// repeat the cause kept in `source()`: print the chain
/// ([`Chain`](crate::error::Chain)) for the whole story.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompatError {
    /// The bytes of a JSON Schema are not JSON.
    #[error("{what} is not JSON")]
    NotJson {
        /// Which input was wrong (`"candidate"`, `"version 3"`, ...).
        what: String,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A JSON value that cannot be a JSON Schema (a schema is an object or a boolean).
    #[error("{what} is not a JSON Schema: a schema is an object or a boolean, found {found}")]
    NotASchema {
        /// Which input was wrong.
        what: String,
        /// The JSON type found instead (`"array"`, `"string"`, ...).
        found: &'static str,
    },
    /// The bytes of a protobuf schema are not a serialized `FileDescriptorSet`
    /// (or the set does not link: a missing import, a duplicate name).
    #[cfg(feature = "protobuf")]
    #[error("{what} is not a usable protobuf FileDescriptorSet")]
    NotADescriptorSet {
        /// Which input was wrong.
        what: String,
        /// The decoding or linking error.
        #[source]
        source: prost_reflect::DescriptorError,
    },
    /// The descriptor set links, but holds a shape `protoc` never writes and
    /// the engine cannot compare safely (a map entry without a `value`
    /// field, a `bytes` map key, a proto3 `required` field, ...).
    #[cfg(feature = "protobuf")]
    #[error("{what} is not a usable protobuf FileDescriptorSet: {source}")]
    UnusableDescriptor {
        /// Which input was wrong.
        what: String,
        /// The element and the rule it breaks.
        #[source]
        source: crate::protobuf::model::UnusableDescriptor,
    },
    /// A protobuf schema without a root (`.proto` text or a
    /// `FileDescriptorProto`, with references) does not compile.
    #[cfg(feature = "protobuf")]
    #[error("{what} does not compile as a protobuf schema: {reason}")]
    NotCompiled {
        /// Which input was wrong.
        what: String,
        /// Why, in words.
        reason: String,
    },
    /// A descriptor set holds no file, or not the file that was asked for.
    #[cfg(feature = "protobuf")]
    #[error("{what} has no file {file:?} to compare")]
    NoSuchFile {
        /// Which input was wrong.
        what: String,
        /// The file looked for (empty when the set holds no file at all).
        file: String,
    },
    /// The bytes of an Avro schema are not a usable Avro schema (not JSON,
    /// or a rule of the specification broken); the source names the place
    /// in the schema and the rule.
    #[cfg(feature = "avro")]
    #[error("{what} is not a usable Avro schema: {source}")]
    NotAnAvroSchema {
        /// Which input was wrong.
        what: String,
        /// Where in the schema, and the rule broken.
        #[source]
        source: crate::avro::model::SchemaError,
    },
    /// The named types an Avro schema's references define cannot be read
    /// (a reference not held, or not an Avro schema).
    #[cfg(feature = "avro")]
    #[error("{what} cannot be read over its references: {reason}")]
    AvroReferences {
        /// Which input was wrong.
        what: String,
        /// Why, in words.
        reason: String,
    },
    /// A schema given by URN cannot be read for comparison; the cause (in
    /// `source()`) says why.
    #[error("schema {urn} is unusable")]
    Unusable {
        /// The schema's URN.
        urn: Urn,
        /// Why it cannot be read.
        #[source]
        source: Box<CompatError>,
    },
    /// The comparison engine of the schema's language is not compiled in.
    #[error(
        "no compatibility check for {language} schemas is compiled in (schema {urn}): \
         enable dataschema's `{}` feature",
        language.feature()
    )]
    NoComparer {
        /// The schema's URN.
        urn: Urn,
        /// The schema's language.
        language: Language,
    },
}

impl CompatError {
    /// The URN of the schema concerned, when the error came from an entry
    /// point over [`Schema`](crate::schema::Schema)s.
    pub fn urn(&self) -> Option<&Urn> {
        match self {
            CompatError::Unusable { urn, .. } | CompatError::NoComparer { urn, .. } => Some(urn),
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
