//! Protobuf through the Confluent API: a registration as Confluent's clients
//! send it (`.proto` text from Java and Go, base64 of one
//! `FileDescriptorProto` from Python, with `references` naming the subject
//! version of each import), and `?format=serialized`.
//!
//! The schema stored is what was registered (`dataschema::proto::ProtoSource`):
//! the `schema` string byte for byte, with its references as URNs (each
//! reference's subject and version under the server's namespace). The
//! registry compiles it (`protox`, from memory) when it is published, so a
//! registration that does not compile, or whose reference names nothing,
//! is refused (42201) and nothing is stored.

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::{from_error, invalid_schema, ApiError};
use super::request::{checked_subject, urn, Subject};
use crate::server::state::{proto_view, AppState};
use crate::server::wire::confluent::references_json;
use dataschema_core::clip;
use dataschema_core::proto::{ProtoReference, ProtoSource};
use dataschema_core::{Language, Schema};

/// One of a request's `references`.
#[derive(Deserialize)]
struct Reference {
    name: Option<String>,
    subject: Option<String>,
    version: Option<Value>,
}

/// The protobuf schema a register, lookup or compatibility request sends
/// (`text`, its `schema`), under `subject` and `version`.
pub(crate) fn candidate(
    state: &AppState,
    subject: &Subject,
    version: u32,
    text: String,
    references: Option<Value>,
) -> Result<Schema, ApiError> {
    let references: Vec<Reference> = match references {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => serde_json::from_value(value).map_err(|err| {
            invalid_schema(format!(
                "references are a list of {{\"name\", \"subject\", \"version\"}}: {}",
                clip(&err.to_string(), 200)
            ))
        })?,
    };
    let mut resolved: Vec<ProtoReference> = Vec::with_capacity(references.len());
    for (i, reference) in references.into_iter().enumerate() {
        let name = reference
            .name
            .filter(|name| !name.is_empty())
            .ok_or_else(|| invalid_schema(format!("reference {i} has no name")))?;
        let target = reference
            .subject
            .filter(|subject| !subject.is_empty())
            .ok_or_else(|| {
                invalid_schema(format!("reference {:?} has no subject", clip(&name, 100)))
            })?;
        let version = reference
            .version
            .as_ref()
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
            .filter(|v| *v > 0)
            .ok_or_else(|| {
                invalid_schema(format!(
                    "reference {:?} has no version (1 or more)",
                    clip(&name, 100)
                ))
            })?;
        if resolved.iter().any(|r| r.name == name) {
            return Err(invalid_schema(format!(
                "reference {:?} is given twice",
                clip(&name, 100)
            )));
        }
        let target = urn(state, &checked_subject(target)?, version)?;
        resolved.push(ProtoReference {
            name,
            urn: target.to_string(),
        });
    }
    let source = ProtoSource {
        schema: text,
        references: resolved,
    };
    let bytes = source.to_bytes();
    if !dataschema_core::proto::looks_like_source(&bytes) {
        return Err(invalid_schema(
            "a PROTOBUF schema is .proto text or base64 of a FileDescriptorProto, without \
             control characters",
        ));
    }
    Ok(Schema::new(
        urn(state, subject, version)?,
        Language::Protobuf,
        bytes,
        None,
    ))
}

/// Whether a read asks for `?format=serialized`.
pub(crate) fn wants_serialized(format: Option<&str>) -> bool {
    format.is_some_and(|f| f.eq_ignore_ascii_case("serialized"))
}

/// The answer of a read with `?format=serialized` for a protobuf schema:
/// `schema` is base64 of its one `FileDescriptorProto` (of the root's file,
/// for a descriptor set), references listed. `subject_version` adds the
/// subject, version and id (a subject version's read). `None` when
/// `schema` is not protobuf (the default answer stands).
pub(crate) async fn serialized(
    state: &AppState,
    schema: Schema,
    subject_version: Option<(String, u32, u32)>,
) -> Result<Option<Value>, ApiError> {
    if schema.language() != Language::Protobuf {
        return Ok(None);
    }
    let namespace = state.namespace().to_owned();
    let (file, view) = state
        .blocking(move |registry| {
            let file = dataschema_core::proto::file_descriptor(&schema, registry)?;
            Ok((file, proto_view(registry, &namespace, &schema)))
        })
        .await
        .map_err(from_error)?;
    let mut answer = json!({
        "schemaType": "PROTOBUF",
        "schema": base64::engine::general_purpose::STANDARD.encode(file),
    });
    if let Some((subject, version, id)) = subject_version {
        answer["subject"] = json!(subject);
        answer["version"] = json!(version);
        answer["id"] = json!(id);
    }
    if let Some(view) = view.filter(|view| !view.references.is_empty()) {
        answer["references"] = references_json(&view);
    }
    Ok(Some(answer))
}
