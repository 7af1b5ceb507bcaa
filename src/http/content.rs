//! A schema's id asked by its content, for a producer's frames
//! ([`HttpResolver::id_of_schema`](super::HttpResolver::id_of_schema)):
//! Confluent's lookup of a schema's text under its subject (`POST
//! /subjects/{subject}`), or the native read of its URN with the digest
//! compared; registered when the registry holds none and
//! auto-registration is on (Confluent's `POST
//! /subjects/{subject}/versions`, the native `PUT /publish/schemas/{urn}`).

use dataschema_core::{Language, Schema};

use super::get::get;
use super::policy::{Fetched, Miss};
use super::{Api, MAX_SCHEMA_BYTES};
use crate::protocol::{self, content_type, header, Client};

/// The longest registry message repeated in an error.
const SHOWN: usize = 300;

/// The id `api`'s registry holds `schema`'s content under; `register`
/// (a client with the publishing credential), when given, registers it
/// where the registry holds none. [`Miss::Missing`] when it holds none
/// and nothing registers it.
pub(crate) fn id(
    client: &Client,
    api: &Api,
    register: Option<&Client>,
    schema: &Schema,
) -> Fetched {
    let id = match api {
        Api::Native => native(client, register, schema)?,
        Api::Confluent { .. } => confluent(client, register, schema)?,
    };
    match id {
        // Zero is no id a frame may carry.
        0 => Err(Miss::Transient("the registry answered id 0".into())),
        id => Ok((schema.clone(), Some(id))),
    }
}

/// `GET /schemas/{urn}`: the id of the bytes held there, which must be
/// `schema`'s; a `404` registers it (`PUT /publish/schemas/{urn}`) with
/// `register`.
fn native(client: &Client, register: Option<&Client>, schema: &Schema) -> Result<u32, Miss> {
    let urn = schema.urn();
    let path = protocol::schema_path(urn);
    match get(client, &path, "*/*") {
        Ok(answer) => {
            let (held, id) = answer
                .into_schema()
                .and_then(|held| held.check_urn(urn))
                .map_err(|err| Miss::Transient(format!("GET {path}: {err}")))?
                .into_parts();
            if held.digest() != schema.digest() {
                return Err(Miss::Transient(format!(
                    "GET {path}: the registry holds other bytes under {urn} (digest {})",
                    held.digest()
                )));
            }
            id.ok_or_else(|| Miss::Transient(format!("GET {path}: no Dataschema-Id header")))
        }
        Err(Miss::Missing) => match register {
            Some(register) => native_register(register, schema),
            None => Err(Miss::Missing),
        },
        Err(failure) => Err(failure),
    }
}

/// `PUT /publish/schemas/{urn}` of `schema`: its id.
fn native_register(client: &Client, schema: &Schema) -> Result<u32, Miss> {
    let urn = schema.urn();
    let path = protocol::publish_path(urn);
    let mut headers = vec![
        ("Content-Type", content_type::of(schema.language())),
        (header::LANGUAGE, schema.language().as_str()),
    ];
    if let Some(root) = schema.root() {
        headers.push((header::ROOT, root));
    }
    let references = protocol::references_header(schema.references());
    if let Some(references) = &references {
        headers.push((header::REFERENCES, references.as_str()));
    }
    let answer = client
        .put(&path, &headers, schema.bytes(), MAX_SCHEMA_BYTES)
        .map_err(|err| Miss::Transient(format!("PUT {path}: {err}")))?;
    match answer.status() {
        200 | 201 => {
            let value: serde_json::Value = serde_json::from_slice(answer.body())
                .map_err(|_| Miss::Transient(format!("PUT {path}: the answer is not JSON")))?;
            if value["urn"].as_str() != Some(urn.as_str()) {
                return Err(Miss::Transient(format!(
                    "PUT {path}: the answer names another URN"
                )));
            }
            answered_id(&value, &path)
        }
        status => Err(refusal("PUT", &path, status, answer.body())),
    }
}

/// Confluent's lookup, `POST /subjects/{subject}` with the schema's text
/// (and references): the id of the version holding it; a `404` (subject
/// or schema not found) registers it (`POST /subjects/{subject}/versions`)
/// with `register`.
fn confluent(client: &Client, register: Option<&Client>, schema: &Schema) -> Result<u32, Miss> {
    let urn = schema.urn();
    let subject = crate::subject::subject_of(urn.name()).unwrap_or_else(|| urn.name().to_owned());
    let body = registration(schema)?;
    let path = format!("/subjects/{}", crate::subject::path_segment(&subject));
    let headers = [("Content-Type", content_type::CONFLUENT_JSON)];
    let answer = client
        .post(&path, &headers, &body, MAX_SCHEMA_BYTES)
        .map_err(|err| Miss::Transient(format!("POST {path}: {err}")))?;
    match answer.status() {
        200 => {
            let value: serde_json::Value = serde_json::from_slice(answer.body())
                .map_err(|_| Miss::Transient(format!("POST {path}: the answer is not JSON")))?;
            if value["subject"].as_str() != Some(subject.as_str()) {
                return Err(Miss::Transient(format!(
                    "POST {path}: the answer names another subject"
                )));
            }
            answered_id(&value, &path)
        }
        404 => {
            let Some(register) = register else {
                return Err(Miss::Missing);
            };
            let path = format!("{path}/versions");
            let answer = register
                .post(&path, &headers, &body, MAX_SCHEMA_BYTES)
                .map_err(|err| Miss::Transient(format!("POST {path}: {err}")))?;
            match answer.status() {
                200 => {
                    let value: serde_json::Value =
                        serde_json::from_slice(answer.body()).map_err(|_| {
                            Miss::Transient(format!("POST {path}: the answer is not JSON"))
                        })?;
                    answered_id(&value, &path)
                }
                status => Err(refusal("POST", &path, status, answer.body())),
            }
        }
        status => Err(Miss::Transient(format!(
            "POST {path}: HTTP {status}{}",
            message(answer.body())
        ))),
    }
}

/// The body of a Confluent lookup or registration of `schema`: its text,
/// its type, its references as subject versions.
fn registration(schema: &Schema) -> Result<Vec<u8>, Miss> {
    let schema_type = match schema.language() {
        Language::JsonSchema => "JSON",
        Language::Avro => "AVRO",
        // A bundle's protobuf schema is a compiled descriptor set, which
        // Confluent's API does not take as text.
        _ => {
            return Err(Miss::Transient(format!(
                "{}: the id of a {} schema is asked of the native API (a bundled protobuf \
                 schema is a descriptor set, not the `.proto` text Confluent's lookup takes)",
                schema.urn(),
                schema.language().as_str()
            )))
        }
    };
    let text = std::str::from_utf8(schema.bytes())
        .map_err(|_| Miss::Transient(format!("{}: the schema is not UTF-8", schema.urn())))?;
    let references: Vec<serde_json::Value> = schema
        .references()
        .iter()
        .map(|reference| {
            let target = reference.urn();
            serde_json::json!({
                "name": reference.name(),
                "subject": crate::subject::subject_of(target.name())
                    .unwrap_or_else(|| target.name().to_owned()),
                "version": target.version(),
            })
        })
        .collect();
    let mut body = serde_json::json!({ "schema": text, "schemaType": schema_type });
    if !references.is_empty() {
        body["references"] = references.into();
    }
    serde_json::to_vec(&body).map_err(|err| Miss::Transient(err.to_string()))
}

/// The positive `id` of a registry's answer.
fn answered_id(value: &serde_json::Value, path: &str) -> Result<u32, Miss> {
    value["id"]
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .filter(|id| *id > 0)
        .ok_or_else(|| Miss::Transient(format!("{path}: the answer has no id")))
}

/// A registration's answer that is not a success: a `4xx` is the
/// registry's refusal (incompatible, a bad credential, other bytes under
/// the URN), anything else a transient failure.
fn refusal(method: &str, path: &str, status: u16, body: &[u8]) -> Miss {
    let why = format!("{method} {path}: HTTP {status}{}", message(body));
    match status {
        400..=499 => Miss::Refused(why),
        _ => Miss::Transient(why),
    }
}

/// `: <message>` of an error body (Confluent's `message`, the native
/// API's `error`), escaped and clipped: a remote registry's words.
fn message(body: &[u8]) -> String {
    let value: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let Some(text) = value["message"].as_str().or(value["error"].as_str()) else {
        return String::new();
    };
    let shown: String = text
        .chars()
        .flat_map(char::escape_debug)
        .take(SHOWN)
        .collect();
    format!(": {shown}")
}
