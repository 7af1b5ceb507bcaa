//! Protobuf through the Confluent API: a registration as Confluent's clients
//! send it (`.proto` text from Java and Go, base64 of one
//! `FileDescriptorProto` from Python, its imports as `references`, which
//! the contracts module resolves as for every schema), and
//! protobuf identity (`?format=serialized` is the `format` module's).
//!
//! The schema stored is what was registered: the `schema` string byte for
//! byte, no root, its references the version's
//! ([`Schema::references`](dataschema_core::Schema::references)). The
//! registry compiles it (`protox`, from memory) when it is published, so a
//! registration that does not compile, or whose reference names nothing,
//! is refused (42201) and nothing is stored.

use super::error::{invalid_schema, ApiError};
use super::request::{urn, Subject};
use crate::registry::Registry;
use crate::server::state::AppState;
use dataschema_core::{Language, Schema};

/// The protobuf schema a register, lookup or compatibility request sends
/// (`text`, its `schema`), under `subject` and `version`; its references
/// are the request's, resolved by the contracts module.
pub(crate) fn candidate(
    state: &AppState,
    subject: &Subject,
    version: u32,
    text: String,
) -> Result<Schema, ApiError> {
    if !dataschema_core::proto::looks_like_source(text.as_bytes()) {
        return Err(invalid_schema(
            "a PROTOBUF schema is .proto text or base64 of a FileDescriptorProto, without \
             control characters",
        ));
    }
    Ok(Schema::new(
        urn(state, subject, version)?,
        Language::Protobuf,
        text,
        None,
    ))
}

/// Whether `held` and `sent`, both protobuf, compile to the same files
/// ([`same_files`](dataschema_core::proto::same_files), references resolved
/// from `registry`): one schema, whichever form each was registered in
/// (Java's or Go's text, Python's descriptor, a descriptor set published
/// natively). A schema that does not compile matches nothing.
pub(crate) fn same_files(registry: &Registry, held: &Schema, sent: &Schema) -> bool {
    held.language() == Language::Protobuf
        && sent.language() == Language::Protobuf
        && dataschema_core::proto::same_files(held, sent, registry).unwrap_or(false)
}
