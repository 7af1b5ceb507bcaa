//! Errors of the compatibility engine.

/// An input the compatibility engine could not use.
///
/// Diffing itself never fails; these errors come from turning bytes into a
/// schema (JSON text, a serialized `FileDescriptorSet`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompatError {
    /// The bytes of a JSON Schema are not JSON.
    #[error("{what} is not JSON: {source}")]
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
    #[error("{what} is not a usable protobuf FileDescriptorSet: {source}")]
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
        source: crate::validate::scan::UnusableDescriptor,
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
}
