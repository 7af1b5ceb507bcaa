//! `?format=`: the form of the `schema` string a read answers.
//!
//! Confluent takes `format` on every route that answers a schema
//! (`/schemas/ids/{id}`, `/schemas/ids/{id}/schema`, `/schemas/guids/{guid}`,
//! `/subjects/{s}/versions/{v}` and `/schema` under it, the register and
//! lookup answers, `/subjects/{s}/metadata`: `SchemasResource.java`,
//! `SubjectVersionsResource.java`, `SubjectsResource.java`, v8.2.0) and
//! answers `ParsedSchema.formattedString(format)`. The one format a client
//! depends on is protobuf's `serialized`: base64 of the schema's
//! `FileDescriptorProto`, which Confluent's protobuf deserializers ask for
//! (`use.latest.version`, `use.latest.with.metadata`). A format a schema
//! type does not know answers the default form, as Confluent's providers do
//! ("for forward compatibility of formats").

use serde_json::Value;

use crate::registry::Registry;
use crate::server::query::Query;
use crate::server::state::proto_view;
use crate::server::wire::confluent::ProtoView;
use dataschema_core::{Error, Schema};

/// The `format` a read asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// The default form (`.proto` text for protobuf).
    #[default]
    Default,
    /// `serialized`: a protobuf schema as base64 of its
    /// `FileDescriptorProto`.
    Serialized,
}

impl Format {
    /// The format `query` asks for (any case).
    pub(crate) fn of(query: &Query) -> Format {
        match query.get("format") {
            Some(format) if format.eq_ignore_ascii_case("serialized") => Format::Serialized,
            _ => Format::Default,
        }
    }

    /// Whether the default answer (a cached one) stands for every schema.
    pub(crate) fn is_default(self) -> bool {
        self == Format::Default
    }

    /// The `schema` string this format answers for `schema`, when it
    /// differs from the default form (`None`: the default stands).
    pub(crate) fn text(
        self,
        registry: &Registry,
        schema: &Schema,
    ) -> Result<Option<String>, Error> {
        match self {
            Format::Default => Ok(None),
            Format::Serialized => serialized(registry, schema),
        }
    }

    /// The view an answer built by `wire::confluent` writes `schema`
    /// from: this format's text, else the default ([`proto_view`]).
    pub(crate) fn view(
        self,
        registry: &Registry,
        namespace: &str,
        schema: &Schema,
    ) -> Result<Option<ProtoView>, Error> {
        Ok(match self.text(registry, schema)? {
            Some(text) => Some(ProtoView { text }),
            None => proto_view(registry, namespace, schema),
        })
    }

    /// A cached answer (`cached`, a JSON object with a `schema` member)
    /// with its `schema` in this format; `None` when the cached answer
    /// stands as it is.
    pub(crate) fn reformat(
        self,
        registry: &Registry,
        schema: &Schema,
        cached: &[u8],
    ) -> Result<Option<Value>, Error> {
        let Some(text) = self.text(registry, schema)? else {
            return Ok(None);
        };
        let mut answer: Value = serde_json::from_slice(cached).map_err(|err| Error::Store {
            source: format!("a cached answer is not JSON: {err}").into(),
        })?;
        answer["schema"] = Value::String(text);
        Ok(Some(answer))
    }
}

/// Base64 of a protobuf schema's one `FileDescriptorProto` (for a
/// descriptor set with a root, the root's file); `None` for another
/// language.
#[cfg(feature = "proto-text")]
fn serialized(registry: &Registry, schema: &Schema) -> Result<Option<String>, Error> {
    use base64::Engine as _;
    if schema.language() != dataschema_core::Language::Protobuf {
        return Ok(None);
    }
    let file = dataschema_core::proto::file_descriptor(schema, registry)?;
    Ok(Some(base64::engine::general_purpose::STANDARD.encode(file)))
}

/// Without `proto-text` no protobuf schema is read through this API's
/// forms: the default stands.
#[cfg(not(feature = "proto-text"))]
fn serialized(registry: &Registry, schema: &Schema) -> Result<Option<String>, Error> {
    let _ = (registry, schema);
    Ok(None)
}
