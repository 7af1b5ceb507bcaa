//! The native API on the wire: its header names and content types (from
//! [`protocol`], which the clients share), the answer of
//! a schema read (built once per URN), its JSON answers and its refusals.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::protocol;
use crate::store::SchemaId;
use dataschema_core::{Schema, Urn};

/// The content type of the native API's JSON answers (lists, publish
/// results, refusals).
pub(crate) const JSON: &str = protocol::content_type::JSON;

/// `Cache-Control` of a schema read: a URN's bytes never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The schema's URN (a read's answer).
pub(crate) const URN: HeaderName = HeaderName::from_static(protocol::header::URN);
/// The schema's language (a read's answer; a publish's setting).
pub(crate) const LANGUAGE: HeaderName = HeaderName::from_static(protocol::header::LANGUAGE);
/// A protobuf schema's root message (a read's answer; a publish's setting).
pub(crate) const ROOT: HeaderName = HeaderName::from_static(protocol::header::ROOT);
/// `Dataschema-References`.
pub(crate) const REFERENCES: HeaderName = HeaderName::from_static(protocol::header::REFERENCES);
pub(crate) const CONTRACT: HeaderName = HeaderName::from_static(protocol::header::CONTRACT);
/// `sha256:` of the schema's bytes (a read's answer).
pub(crate) const DIGEST: HeaderName = HeaderName::from_static(protocol::header::DIGEST);
/// The schema's registry id (a read's answer).
pub(crate) const ID: HeaderName = HeaderName::from_static(protocol::header::ID);
/// The compatibility mode of a publish (a publish's setting).
pub(crate) const MODE: HeaderName = HeaderName::from_static(protocol::header::MODE);

/// A JSON answer of the native API under `status`.
pub(crate) fn json_answer(status: StatusCode, value: &Value) -> Response {
    super::body::json_answer(status, JSON, value)
}

/// The list of every URN held (`GET /schemas`).
pub(crate) fn urns(urns: &[Urn]) -> Response {
    let urns: Vec<String> = urns.iter().map(Urn::to_string).collect();
    json_answer(StatusCode::OK, &Value::from(urns))
}

/// A name's versions (`GET /names/{namespace}/{name}/versions`).
pub(crate) fn versions(versions: Vec<u32>) -> Response {
    json_answer(StatusCode::OK, &Value::from(versions))
}

/// The answer of a publish: `201` created, `200` held already.
pub(crate) fn published(urn: &Urn, id: SchemaId, created: bool) -> Response {
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    json_answer(
        status,
        &json!({"urn": urn.to_string(), "id": id, "created": created}),
    )
}

/// A refusal of the native API: `{"error": REASON, "message": ...}`, plus
/// the report of an incompatible publish.
pub(crate) struct NativeError {
    pub(crate) status: StatusCode,
    pub(crate) reason: &'static str,
    pub(crate) message: String,
    /// [`report_json`](super::body::report_json) of an incompatible publish.
    pub(crate) report: Option<Value>,
    /// The `Allow` header of a `405`.
    pub(crate) allow: Option<&'static str>,
}

impl NativeError {
    pub(crate) fn new(
        status: StatusCode,
        reason: &'static str,
        message: impl Into<String>,
    ) -> NativeError {
        NativeError {
            status,
            reason,
            message: message.into(),
            report: None,
            allow: None,
        }
    }
}

impl IntoResponse for NativeError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": self.reason, "message": self.message});
        if let Some(report) = self.report {
            body["report"] = report;
        }
        let mut response = json_answer(self.status, &body);
        if let Some(allow) = self.allow {
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        response
    }
}

/// The answer of a schema read, built once per URN: the bytes (shared),
/// and the headers of a `200` and of a `304`.
pub(crate) struct SchemaAnswer {
    body: Bytes,
    etag: Box<str>,
    ok: HeaderMap,
    not_modified: HeaderMap,
    /// Why the version cannot be answered here: its data contract is
    /// longer than a header carries
    /// ([`protocol::MAX_CONTRACT_HEADER_BYTES`]).
    refused: Option<Box<str>>,
}

impl SchemaAnswer {
    /// The answer of `schema`, whose registry id is `id`: its bytes with
    /// `Content-Type`, the `Dataschema-*` headers, an `ETag` that is the
    /// digest (quoted) and an immutable `Cache-Control`.
    pub(crate) fn new(schema: &Schema, id: SchemaId) -> SchemaAnswer {
        let etag = format!("\"{}\"", schema.digest());
        let mut not_modified = HeaderMap::with_capacity(8);
        insert(&mut not_modified, header::ETAG, &etag);
        not_modified.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
        insert(&mut not_modified, URN, schema.urn().as_ref());
        insert(&mut not_modified, LANGUAGE, schema.language().as_str());
        if let Some(root) = schema.root() {
            insert(&mut not_modified, ROOT, root);
        }
        if let Some(references) = protocol::references_header(schema.references()) {
            insert(&mut not_modified, REFERENCES, &references);
        }
        let mut refused = None;
        if let Some(contract) = protocol::contract_header(schema) {
            if contract.len() > protocol::MAX_CONTRACT_HEADER_BYTES {
                refused = Some(
                    format!(
                        "the data contract (metadata and ruleSet) of {} is {} bytes as a \
                         Dataschema-Contract header, more than the {} an answer's header may \
                         carry: read this version through the Confluent API, whose body holds \
                         its contract, or bundle it",
                        schema.urn(),
                        contract.len(),
                        protocol::MAX_CONTRACT_HEADER_BYTES
                    )
                    .into(),
                );
            } else {
                insert(&mut not_modified, CONTRACT, &contract);
            }
        }
        insert(&mut not_modified, DIGEST, schema.digest());
        insert(&mut not_modified, ID, &id.to_string());
        let content_type = protocol::content_type::of(schema.language());
        let mut ok = not_modified.clone();
        ok.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        SchemaAnswer {
            body: schema.shared_bytes(),
            etag: etag.into(),
            ok,
            not_modified,
            refused,
        }
    }

    /// The bytes it holds beyond the schema's own (which it shares).
    pub(crate) fn size(&self) -> usize {
        let headers: usize = self
            .ok
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum();
        self.etag.len() + 2 * headers + self.refused.as_ref().map_or(0, |why| why.len())
    }

    /// The answer to a request with `request` headers: `304` when its
    /// `If-None-Match` names the ETag (or is `*`), else the bytes.
    /// A version whose contract a header cannot carry is refused: `500`,
    /// `contract_too_large`.
    pub(crate) fn respond(&self, request: &HeaderMap) -> Response {
        if let Some(why) = &self.refused {
            return NativeError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "contract_too_large",
                why.to_string(),
            )
            .into_response();
        }
        let not_modified = request
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .any(|value| matches_etag(value, &self.etag));
        if not_modified {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            *response.headers_mut() = self.not_modified.clone();
            response
        } else {
            let mut response = Response::new(Body::from(self.body.clone()));
            *response.headers_mut() = self.ok.clone();
            response
        }
    }
}

fn insert(headers: &mut HeaderMap, name: HeaderName, value: &str) {
    // Every value here is ASCII the registry produced (URNs, digests,
    // numbers); a protobuf root with other bytes is left out, not a panic.
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// Whether an `If-None-Match` value names `etag` (weak or strong) or is `*`.
fn matches_etag(value: &HeaderValue, etag: &str) -> bool {
    let Ok(value) = value.to_str() else {
        return false;
    };
    value
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_forms() {
        let etag = "\"sha256:ab\"";
        for value in [
            "\"sha256:ab\"",
            "W/\"sha256:ab\"",
            "*",
            "\"x\", \"sha256:ab\"",
        ] {
            assert!(
                matches_etag(&HeaderValue::from_static(value), etag),
                "{value}"
            );
        }
        assert!(!matches_etag(
            &HeaderValue::from_static("\"sha256:cd\""),
            etag
        ));
    }
}
