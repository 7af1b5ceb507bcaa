//! The Confluent Schema Registry API as a fallback: subject = URN name,
//! version = URN version; JSON Schema, and protobuf as Confluent answers
//! it (`.proto` text and references: a schema without a root).

use dataschema_core::{Schema, Urn};

use super::fetch::get;
use super::policy::{Failure, Fetched};
use crate::protocol::{content_type, Client};

/// `GET /subjects/{name}/versions/{version}`, checked to name them (and
/// `id`, when given).
pub(crate) fn version(client: &Client, urn: &Urn, id: Option<u32>) -> Fetched {
    let path = format!("/subjects/{}/versions/{}", urn.name(), urn.version());
    let answer = get(client, &path, content_type::CONFLUENT_JSON)?;
    let nonsense = |why: &str| Failure::Transient(format!("GET {path}: {why}"));
    let value: serde_json::Value =
        serde_json::from_slice(answer.body()).map_err(|_| nonsense("the body is not JSON"))?;
    if value["subject"].as_str() != Some(urn.name())
        || value["version"].as_u64() != Some(u64::from(urn.version()))
    {
        return Err(nonsense("the answer names another subject or version"));
    }
    let answered = value["id"]
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .ok_or_else(|| nonsense("no id"))?;
    if id.is_some_and(|id| id != answered) {
        return Err(nonsense("the answer has another id"));
    }
    let text = value["schema"]
        .as_str()
        .ok_or_else(|| nonsense("no schema"))?;
    match value["schemaType"].as_str() {
        Some("JSON") => Ok((
            Schema::json(urn.clone(), text.as_bytes().to_vec()),
            Some(answered),
        )),
        #[cfg(feature = "protobuf")]
        Some("PROTOBUF") => Ok((
            protobuf(urn, text, &value["references"]).map_err(|why| nonsense(&why))?,
            Some(answered),
        )),
        _ => Err(nonsense(
            "only JSON and PROTOBUF schemas are read from a Confluent registry",
        )),
    }
}

/// A Confluent protobuf answer as a schema without a root: its text and
/// its references, each reference's subject version read as a URN of
/// `urn`'s namespace (as the answers of this API are).
#[cfg(feature = "protobuf")]
fn protobuf(urn: &Urn, text: &str, references: &serde_json::Value) -> Result<Schema, String> {
    use dataschema_core::proto::{ProtoReference, ProtoSource};
    let mut resolved = Vec::new();
    for reference in references.as_array().map(Vec::as_slice).unwrap_or_default() {
        let (Some(name), Some(subject), Some(version)) = (
            reference["name"].as_str(),
            reference["subject"].as_str(),
            reference["version"].as_u64(),
        ) else {
            return Err("a reference without name, subject or version".into());
        };
        let target: Urn = format!("urn:{}:schema:{subject}:{version}", urn.namespace())
            .parse()
            .map_err(|_| "a reference's subject version is no URN".to_owned())?;
        resolved.push(ProtoReference {
            name: name.to_owned(),
            urn: target.to_string(),
        });
    }
    let source = ProtoSource {
        schema: text.to_owned(),
        references: resolved,
    };
    Ok(Schema::new(
        urn.clone(),
        dataschema_core::Language::Protobuf,
        source.to_bytes(),
        None,
    ))
}

/// `GET /schemas/ids/{id}/versions`, then the first subject version it
/// names (in `namespace`).
pub(crate) fn id(client: &Client, namespace: &str, id: u32) -> Fetched {
    let path = format!("/schemas/ids/{id}/versions");
    let answer = get(client, &path, content_type::CONFLUENT_JSON)?;
    let nonsense = |why: &str| Failure::Transient(format!("GET {path}: {why}"));
    let value: serde_json::Value =
        serde_json::from_slice(answer.body()).map_err(|_| nonsense("the body is not JSON"))?;
    let first = value
        .as_array()
        .and_then(|pairs| pairs.first())
        .ok_or_else(|| nonsense("no subject version"))?;
    let subject = first["subject"]
        .as_str()
        .ok_or_else(|| nonsense("no subject"))?;
    let number = first["version"]
        .as_u64()
        .ok_or_else(|| nonsense("no version"))?;
    let urn: Urn = format!("urn:{namespace}:schema:{subject}:{number}")
        .parse()
        .map_err(|_| nonsense("the subject version is no URN"))?;
    version(client, &urn, Some(id))
}
