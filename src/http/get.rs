//! One `GET` of a schema read, below both APIs' fetches (`fetch.rs`, the
//! native API; `confluent.rs`, Confluent's): its status sorted into an
//! answer, a missing schema or a transient failure.

use super::policy::Miss;
use super::MAX_SCHEMA_BYTES;
use crate::protocol::{self, Client, TransportError};

/// `GET path`: a `200`'s answer; a `404` is [`Miss::Missing`], anything
/// else transient.
pub(crate) fn get(client: &Client, path: &str, accept: &str) -> Result<protocol::Answer, Miss> {
    let answer = client
        .get(path, accept, MAX_SCHEMA_BYTES)
        .map_err(|err: TransportError| Miss::Transient(format!("GET {path}: {err}")))?;
    match answer.status() {
        200 => Ok(answer),
        404 => Err(Miss::Missing),
        status => Err(Miss::Transient(match refusal(answer.body()) {
            Some(why) => format!("GET {path}: HTTP {status}: {why}"),
            None => format!("GET {path}: HTTP {status}"),
        })),
    }
}

/// The `message` of a refusal's JSON body (the native API's and
/// Confluent's both have one), clipped.
fn refusal(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let message = value.get("message")?.as_str()?;
    Some(dataschema_core::clip(message, 400))
}
