//! Confluent Schema Registry's REST API on the wire: its content type, its
//! error codes and error body, and the JSON bodies of its answers.

use std::borrow::Cow;

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::store::SchemaId;
use dataschema_core::compat::CompatReport;
use dataschema_core::{Compatibility, Language, Schema};

/// Confluent's content type, used for every Confluent answer.
pub(crate) const CONTENT_TYPE: &str = crate::protocol::content_type::CONFLUENT_JSON;

/// The `error_code` of a Confluent error body, each with its HTTP status.
/// The five-digit codes are Confluent's (`Errors.java`); `400`, `404` and
/// `405` are the plain HTTP refusals, which Confluent answers with the
/// status as the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorCode {
    /// 400: a request this server cannot read (body, query).
    BadRequest,
    /// 404: no such route.
    NotFound,
    /// 405: a method the route does not take.
    MethodNotAllowed,
    /// 40101: a publish without the credential, or with a wrong one (401).
    Unauthorized,
    /// 40401: the subject has no version (404).
    SubjectNotFound,
    /// 40402: the subject has no such version (404).
    VersionNotFound,
    /// 40403: no schema has the id, or none under the subject matches (404).
    SchemaNotFound,
    /// 40404: every version of the subject is soft-deleted (404).
    SubjectSoftDeleted,
    /// 40406: the version is soft-deleted already (404).
    VersionSoftDeleted,
    /// 40408: the subject has no compatibility level of its own (404).
    SubjectConfigNotFound,
    /// 40409: the subject has no registry mode of its own (404).
    SubjectModeNotFound,
    /// 40901: the schema conflicts with the subject: incompatible, out of
    /// order, or the URN is held with other bytes (409).
    Conflict,
    /// 42201: the schema is not one this server takes (422).
    InvalidSchema,
    /// 42202: a version that is no version (422).
    InvalidVersion,
    /// 42203: a compatibility level that is none (422).
    InvalidCompatibilityLevel,
    /// 42204: a registry mode that is none (422).
    InvalidMode,
    /// 42205: refused, whoever asks: a write on a read-only server, a
    /// delete (422).
    NotPermitted,
    /// 42206: a delete of a version a live schema's references name
    /// (422).
    ReferenceExists,
    /// 42208: a subject that cannot be a URN name (422).
    InvalidSubject,
    /// 42210: a rule set that is none, or sent beside the rules to merge
    /// or remove (422).
    InvalidRuleSet,
    /// 42209: a schema or a body over the cap (413).
    TooLarge,
    /// 50001: the store failed (500).
    StoreFailed,
    /// 50002: the request took longer than the request timeout (503).
    Timeout,
    /// 40801: the client took longer than the body read timeout to send
    /// the request's body (408).
    BodyTimeout,
    /// 50301: the server is not ready: its store did not answer within
    /// the bound, or its tables are not at the expected layout (503).
    NotReady,
    /// 40410: the resource has no association of the types asked (404).
    AssociationNotFound,
    /// 40902: the registry holds as many associations as it takes (409).
    TooManyAssociations,
    /// 40903: the resource has another association of the type (409).
    AssociationForResourceExists,
    /// 40904: a strong association would share its subject, or a subject
    /// with associations would be deleted (409).
    AssociationForSubjectExists,
    /// 40905: the subject has a strong association already (409).
    StrongAssociationForSubjectExists,
    /// 40907: the subject would be left with no live version (409).
    NoActiveSubjectVersion,
    /// 40908: the association is frozen (409).
    AssociationFrozen,
    /// 42212: an association request with an invalid property (422).
    InvalidAssociation,
    /// 42901: the compiles in flight held the compile budget for longer
    /// than the compile wait (429, with `Retry-After`): retry later.
    /// Confluent's clients retry a 429 (`RestService.java`, v8.2.0).
    TooManyCompiles,
}

impl ErrorCode {
    /// The number written as `error_code`.
    pub(crate) fn number(self) -> u32 {
        match self {
            ErrorCode::BadRequest => 400,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::Unauthorized => 40101,
            ErrorCode::SubjectNotFound => 40401,
            ErrorCode::VersionNotFound => 40402,
            ErrorCode::SchemaNotFound => 40403,
            ErrorCode::SubjectSoftDeleted => 40404,
            ErrorCode::VersionSoftDeleted => 40406,
            ErrorCode::SubjectConfigNotFound => 40408,
            ErrorCode::SubjectModeNotFound => 40409,
            ErrorCode::Conflict => 40901,
            ErrorCode::InvalidSchema => 42201,
            ErrorCode::InvalidVersion => 42202,
            ErrorCode::InvalidCompatibilityLevel => 42203,
            ErrorCode::InvalidMode => 42204,
            ErrorCode::NotPermitted => 42205,
            ErrorCode::ReferenceExists => 42206,
            ErrorCode::InvalidSubject => 42208,
            ErrorCode::InvalidRuleSet => 42210,
            ErrorCode::TooLarge => 42209,
            ErrorCode::StoreFailed => 50001,
            ErrorCode::Timeout => 50002,
            ErrorCode::BodyTimeout => 40801,
            ErrorCode::NotReady => 50301,
            ErrorCode::TooManyCompiles => 42901,
            ErrorCode::AssociationNotFound => 40410,
            ErrorCode::TooManyAssociations => 40902,
            ErrorCode::AssociationForResourceExists => 40903,
            ErrorCode::AssociationForSubjectExists => 40904,
            ErrorCode::StrongAssociationForSubjectExists => 40905,
            ErrorCode::NoActiveSubjectVersion => 40907,
            ErrorCode::AssociationFrozen => 40908,
            ErrorCode::InvalidAssociation => 42212,
        }
    }

    /// The HTTP status answered with it.
    pub(crate) fn status(self) -> StatusCode {
        match self {
            ErrorCode::BadRequest => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::NotFound
            | ErrorCode::SubjectNotFound
            | ErrorCode::VersionNotFound
            | ErrorCode::SchemaNotFound
            | ErrorCode::SubjectSoftDeleted
            | ErrorCode::VersionSoftDeleted
            | ErrorCode::SubjectConfigNotFound
            | ErrorCode::SubjectModeNotFound
            | ErrorCode::AssociationNotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::Conflict
            | ErrorCode::TooManyAssociations
            | ErrorCode::AssociationForResourceExists
            | ErrorCode::AssociationForSubjectExists
            | ErrorCode::StrongAssociationForSubjectExists
            | ErrorCode::NoActiveSubjectVersion
            | ErrorCode::AssociationFrozen => StatusCode::CONFLICT,
            ErrorCode::InvalidSchema
            | ErrorCode::InvalidVersion
            | ErrorCode::InvalidCompatibilityLevel
            | ErrorCode::InvalidMode
            | ErrorCode::NotPermitted
            | ErrorCode::ReferenceExists
            | ErrorCode::InvalidSubject
            | ErrorCode::InvalidRuleSet
            | ErrorCode::InvalidAssociation => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::StoreFailed => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Timeout | ErrorCode::NotReady => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::TooManyCompiles => StatusCode::TOO_MANY_REQUESTS,
        }
    }
}

/// A Confluent error: `{"error_code": N, "message": ...}` under the
/// code's status.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
}

impl ApiError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_answer(
            self.code.status(),
            &json!({"error_code": self.code.number(), "message": self.message}),
        )
    }
}

/// A JSON answer with Confluent's content type under `status`.
pub(crate) fn json_answer(status: StatusCode, value: &Value) -> Response {
    super::body::json_answer(status, CONTENT_TYPE, value)
}

/// `value` as a `200`.
pub(crate) fn ok(value: &Value) -> Response {
    json_answer(StatusCode::OK, value)
}

/// Prebuilt bytes as a `200` with Confluent's content type: a cached JSON
/// answer, or a schema string raw (`.../schema` routes).
pub(crate) fn raw(bytes: Bytes) -> Response {
    super::body::bytes_answer(CONTENT_TYPE, bytes)
}

/// Confluent's name of a language (`schemaType`).
pub(crate) fn schema_type(language: Language) -> &'static str {
    match language {
        Language::Protobuf => "PROTOBUF",
        Language::Avro => "AVRO",
        _ => "JSON",
    }
}

/// Confluent's name of a compatibility level (`BACKWARD`, ...).
pub(crate) fn level_name(mode: Compatibility) -> String {
    mode.as_str().to_ascii_uppercase()
}

/// What Confluent's answers show of a protobuf schema: its `.proto` text
/// (the text registered, printed from the descriptor registered, or, for
/// a descriptor set with a root, its root's file printed; its references
/// are the schema's own). Built on the blocking pool, where its references
/// resolve (`state::proto_view`), and handed to the answers below.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProtoView {
    /// The `.proto` text.
    pub(crate) text: String,
}

/// The schema as Confluent's `schema` string: a JSON Schema's text; a
/// protobuf schema, its `.proto` text (`view`); a protobuf descriptor set
/// without a view (it does not decode, or the server prints no text), in
/// base64.
pub(crate) fn schema_string<'a>(schema: &'a Schema, view: Option<&'a ProtoView>) -> Cow<'a, str> {
    if let Some(view) = view {
        return Cow::Borrowed(&view.text);
    }
    match schema.language() {
        Language::Protobuf if is_descriptor_set(schema) => {
            use base64::Engine as _;
            Cow::Owned(base64::engine::general_purpose::STANDARD.encode(schema.bytes()))
        }
        _ => String::from_utf8_lossy(schema.bytes()),
    }
}

/// Whether a protobuf schema is a descriptor set (with a root, or without
/// one: bytes that are not `.proto` text), not a Confluent registration.
fn is_descriptor_set(schema: &Schema) -> bool {
    #[cfg(feature = "protobuf")]
    let binary = !dataschema_core::proto::looks_like_source(schema.bytes());
    #[cfg(not(feature = "protobuf"))]
    let binary = false;
    schema.root().is_some() || binary
}

/// [`schema_string`] as bytes, the answer of the `.../schema` routes: the
/// schema's own (shared, not copied) when its text is them.
pub(crate) fn schema_text(schema: &Schema, view: Option<&ProtoView>) -> Bytes {
    match schema_string(schema, view) {
        Cow::Borrowed(text) if text.as_bytes() == schema.bytes() => schema.shared_bytes(),
        Cow::Borrowed(text) => Bytes::copy_from_slice(text.as_bytes()),
        Cow::Owned(text) => Bytes::from(text),
    }
}

/// A subject's version: `{"subject", "version", "id", "guid",
/// "schemaType", "schema"}`, and `references`, `metadata`, `ruleSet` when
/// the version has them (a version read, a lookup).
pub(crate) fn schema_json(schema: &Schema, id: SchemaId, view: Option<&ProtoView>) -> Value {
    let mut answer = json!({
        "subject": subject_name(schema.urn().name()),
        "version": schema.urn().version(),
        "id": id,
        "guid": guid(schema),
        "schemaType": schema_type(schema.language()),
        "schema": schema_string(schema, view),
    });
    contract_members(schema, &mut answer);
    answer
}

/// The `guid` Confluent answers for a schema's content.
pub(crate) fn guid(schema: &Schema) -> String {
    crate::store::content_guid(&crate::store::content_digest(schema))
}

/// Adds a version's `references` (`name`, `subject`, `version`),
/// `metadata` and `ruleSet` to an answer, those it has ([`Schema::references`],
/// a protobuf registration's included).
pub(crate) fn contract_members(schema: &Schema, answer: &mut Value) {
    if !schema.references().is_empty() {
        let references: Vec<Value> = schema
            .references()
            .iter()
            .map(|reference| {
                json!({
                    "name": reference.name(),
                    "subject": subject_name(reference.urn().name()),
                    "version": reference.urn().version(),
                })
            })
            .collect();
        answer["references"] = Value::from(references);
    }
    if let Some(metadata) = schema.metadata() {
        answer["metadata"] = metadata.to_json();
    }
    if let Some(rule_set) = schema.rule_set() {
        answer["ruleSet"] = rule_set.to_json();
    }
}

/// The Confluent subject of a URN name ([`crate::subject`]); a name that
/// writes no subject (published natively) as it is.
pub(crate) fn subject_name(name: &str) -> String {
    crate::subject::subject_of(name).unwrap_or_else(|| name.to_owned())
}

/// A registry mode: `{"mode": ...}`.
pub(crate) fn mode_json(mode: crate::store::Mode) -> Value {
    json!({"mode": mode.as_str()})
}

/// The answer of `GET /subjects/{s}/versions/{v}`, serialized (cached per
/// URN).
pub(crate) fn version_json(schema: &Schema, id: SchemaId, view: Option<&ProtoView>) -> Bytes {
    Bytes::from(schema_json(schema, id, view).to_string())
}

/// The answer of `GET /schemas/ids/{id}`, serialized (cached per id).
pub(crate) fn id_json(schema: &Schema, view: Option<&ProtoView>) -> Bytes {
    let mut value = json!({
        "guid": guid(schema),
        "schemaType": schema_type(schema.language()),
        "schema": schema_string(schema, view),
    });
    contract_members(schema, &mut value);
    Bytes::from(value.to_string())
}

/// The answer of a register: the version `schema` was given under
/// `subject`, with its id.
pub(crate) fn registered_json(
    id: SchemaId,
    subject: &str,
    version: u32,
    schema: &Schema,
    view: Option<&ProtoView>,
) -> Value {
    let mut answer = json!({
        "id": id,
        "guid": guid(schema),
        "subject": subject,
        "version": version,
        "schemaType": schema_type(schema.language()),
        "schema": schema_string(schema, view),
    });
    contract_members(schema, &mut answer);
    answer
}

/// One of an id's subject versions (`GET /schemas/ids/{id}/versions`).
pub(crate) fn subject_version_json(subject: &str, version: u32) -> Value {
    json!({"subject": subject, "version": version})
}

/// The answer of a compatibility test; `verbose` adds the breaking
/// changes as `messages` and the whole `report`.
pub(crate) fn compatibility_json(report: &CompatReport, verbose: bool) -> Value {
    let mut answer = json!({"is_compatible": report.is_compatible()});
    if verbose {
        let messages: Vec<String> = report.breaking().map(ToString::to_string).collect();
        answer["messages"] = json!(messages);
        answer["report"] = super::body::report_json(report);
    }
    answer
}

/// A compatibility level read or cleared: `{"compatibilityLevel": ...}`.
pub(crate) fn level_json(mode: Compatibility) -> Value {
    json!({"compatibilityLevel": level_name(mode)})
}

/// A compatibility level set: `{"compatibility": ...}`.
pub(crate) fn level_set_json(mode: Compatibility) -> Value {
    json!({"compatibility": level_name(mode)})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_has_its_number_and_status() {
        let cases = [
            (ErrorCode::BadRequest, 400, 400),
            (ErrorCode::NotFound, 404, 404),
            (ErrorCode::MethodNotAllowed, 405, 405),
            (ErrorCode::Unauthorized, 40101, 401),
            (ErrorCode::SubjectNotFound, 40401, 404),
            (ErrorCode::VersionNotFound, 40402, 404),
            (ErrorCode::SchemaNotFound, 40403, 404),
            (ErrorCode::SubjectSoftDeleted, 40404, 404),
            (ErrorCode::VersionSoftDeleted, 40406, 404),
            (ErrorCode::SubjectConfigNotFound, 40408, 404),
            (ErrorCode::SubjectModeNotFound, 40409, 404),
            (ErrorCode::Conflict, 40901, 409),
            (ErrorCode::InvalidSchema, 42201, 422),
            (ErrorCode::InvalidVersion, 42202, 422),
            (ErrorCode::InvalidCompatibilityLevel, 42203, 422),
            (ErrorCode::InvalidMode, 42204, 422),
            (ErrorCode::NotPermitted, 42205, 422),
            (ErrorCode::ReferenceExists, 42206, 422),
            (ErrorCode::InvalidSubject, 42208, 422),
            (ErrorCode::TooLarge, 42209, 413),
            (ErrorCode::StoreFailed, 50001, 500),
            (ErrorCode::Timeout, 50002, 503),
            (ErrorCode::BodyTimeout, 40801, 408),
            (ErrorCode::NotReady, 50301, 503),
        ];
        for (code, number, status) in cases {
            assert_eq!(code.number(), number, "{code:?}");
            assert_eq!(code.status().as_u16(), status, "{code:?}");
        }
    }
}
