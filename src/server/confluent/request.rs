//! Reading a Confluent request: subjects, versions and ids from the path,
//! JSON bodies, the schema a register, lookup or compatibility test sends.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::Path;
use axum::http::StatusCode;
use serde::Deserialize;

use super::error::{bad_request, invalid_schema, ApiError, ErrorCode};
use crate::server::state::AppState;
use crate::store::SchemaId;
use dataschema_core::clip;
use dataschema_core::{Error, Language, Schema, Urn};

/// A subject a request names: as Confluent reads it, and the URN name it
/// maps to ([`crate::subject`]).
#[derive(Clone, Debug)]
pub(crate) struct Subject {
    /// The subject (a default-context qualification `:.:` dropped).
    pub(crate) text: String,
    /// Its URN name.
    pub(crate) name: String,
}

/// The subject a route names, mapped to its URN name.
pub(crate) fn subject(path: Result<Path<String>, PathRejection>) -> Result<Subject, ApiError> {
    let Path(subject) = path.map_err(|rejection| invalid_subject_path(&rejection))?;
    checked_subject(subject)
}

/// The subject (mapped) and the version (as written) a route names.
pub(crate) fn subject_version(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(Subject, String), ApiError> {
    let Path((subject, version)) = path.map_err(|rejection| invalid_subject_path(&rejection))?;
    Ok((checked_subject(subject)?, version))
}

fn invalid_subject_path(rejection: &PathRejection) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidSubject,
        format!("invalid subject: {}", rejection.body_text()),
    )
}

pub(crate) fn checked_subject(subject: String) -> Result<Subject, ApiError> {
    match crate::subject::name_of(&subject) {
        Ok(name) => Ok(Subject {
            text: subject.strip_prefix(":.:").unwrap_or(&subject).to_owned(),
            name,
        }),
        Err(reason) => Err(ApiError::new(
            ErrorCode::InvalidSubject,
            format!("invalid subject {:?}: {reason}", clip(&subject, 100)),
        )),
    }
}

/// Which version a route names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    Latest,
    Exact(u32),
}

/// The largest version Confluent's API addresses, `2^31-1`: a version is
/// a Java `int` there (`VersionId`, `rest/VersionId.java`, v8.2.0: parsed
/// with `Integer.parseInt`, and anything but `-1` below 1 refused), and
/// anything else is `RestInvalidVersionException`, 42202.
pub(crate) const MAX_VERSION: u32 = i32::MAX as u32;

/// 42202 for `version`, in Confluent's words
/// (`RestInvalidVersionException`, v8.2.0).
pub(crate) fn invalid_version(version: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidVersion,
        format!(
            "The specified version '{}' is not a valid version id. Allowed values are \
             between [1, 2^31-1] and the string \"latest\"",
            clip(version, 40)
        ),
    )
}

/// The version a route names: `latest` (any case), `-1`, or 1 to
/// 2^31-1 ([`MAX_VERSION`]; 42202 for anything else).
pub(crate) fn which(version: &str) -> Result<Which, ApiError> {
    if version.eq_ignore_ascii_case("latest") || version == "-1" {
        return Ok(Which::Latest);
    }
    match version.parse::<u32>() {
        Ok(v) if (1..=MAX_VERSION).contains(&v) && !version.starts_with('+') => Ok(Which::Exact(v)),
        _ => Err(invalid_version(version)),
    }
}

/// The id a route names (40403 for one no schema can have: Confluent's
/// ids are positive 32-bit signed integers).
pub(crate) fn parse_id(id: &str) -> Result<SchemaId, ApiError> {
    match id.parse::<SchemaId>() {
        Ok(id) if id > 0 && id <= i32::MAX as u32 => Ok(id),
        _ => Err(ApiError::new(
            ErrorCode::SchemaNotFound,
            format!("schema {:?} not found", clip(id, 40)),
        )),
    }
}

/// The URN of `subject`'s `version`, under the server's namespace.
pub(crate) fn urn(state: &AppState, subject: &Subject, version: u32) -> Result<Urn, ApiError> {
    Urn::new(state.namespace(), &subject.name, version)
        .map_err(|err: Error| ApiError::new(ErrorCode::InvalidSubject, err.chain().to_string()))
}

/// A JSON request body.
pub(crate) fn json_body<T: for<'de> Deserialize<'de>>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                ErrorCode::TooLarge,
                "the request body is larger than this server accepts",
            )
        } else {
            bad_request(rejection.body_text())
        }
    })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(bad_request(
            "the request has no body: expected a JSON object",
        ));
    }
    serde_json::from_slice(&body).map_err(|err| {
        bad_request(format!(
            "the request body is not the JSON expected: {}",
            clip(&err.to_string(), 200)
        ))
    })
}

/// The body of register, lookup and compatibility requests. `id` and
/// `version` are a registration's, kept in import mode; `references`,
/// `metadata` and `ruleSet` are read by
/// [`contracts::requested`](super::contracts::requested); `normalize` and
/// `guid` are accepted and ignored.
#[derive(Deserialize)]
struct SchemaRequest {
    schema: Option<String>,
    #[serde(rename = "schemaType")]
    schema_type: Option<String>,
    id: Option<i64>,
    version: Option<i64>,
}

/// [`candidate_with`], and the references, metadata and rule set the
/// request sends beside it.
pub(crate) fn candidate_with_contract(
    state: &AppState,
    subject: &Subject,
    version: u32,
    body: Result<Bytes, BytesRejection>,
    normalize: Option<bool>,
) -> Result<(Candidate, super::contracts::Contract), ApiError> {
    let bytes = body.as_ref().ok().cloned();
    let candidate = candidate_with(state, subject, version, body, normalize)?;
    let mut contract = super::contracts::requested(bytes.as_deref().unwrap_or_default())?;
    if normalize == Some(true) {
        contract.normalize_references();
    }
    Ok((candidate, contract))
}

/// The id and version a registration gives (Confluent: `-1`, `0` or
/// absent for none).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Given {
    /// The id, when one is given.
    pub(crate) id: Option<SchemaId>,
    /// The version, when one is given.
    pub(crate) version: Option<u32>,
}

/// What a register, lookup or compatibility request sends: the schema in
/// Confluent's canonical form ([`canonical`](super::canonical)) under
/// `subject` and `version`, with the id and version it gives.
pub(crate) struct Candidate {
    /// The schema, its bytes the canonical form.
    pub(crate) schema: Schema,
    /// The id and version given.
    pub(crate) given: Given,
}

/// The schema a request sends, under `subject` and `version`: with
/// `normalize` `Some`, in the canonical form (keys sorted when `true`),
/// a text that is no JSON refused (42201).
pub(crate) fn candidate_with(
    state: &AppState,
    subject: &Subject,
    version: u32,
    body: Result<Bytes, BytesRejection>,
    normalize: Option<bool>,
) -> Result<Candidate, ApiError> {
    let request: SchemaRequest = json_body(body)?;
    let given = Given {
        id: match request.id {
            None => None,
            Some(id) if id <= 0 => None,
            Some(id) => Some(
                u32::try_from(id)
                    .ok()
                    .filter(|&id| id <= i32::MAX as u32)
                    .ok_or_else(|| {
                        bad_request(format!("id {id}: an id is from 1 to 2147483647"))
                    })?,
            ),
        },
        // Confluent's register takes 0 and below as "the next version"
        // (`KafkaSchemaRegistry.register`, v8.2.0: `schema.getVersion() <=
        // 0`); above 2^31-1 is no version there (42202).
        version: match request.version {
            None => None,
            Some(version) if version <= 0 => None,
            Some(version) => Some(
                u32::try_from(version)
                    .ok()
                    .filter(|&v| v <= MAX_VERSION)
                    .ok_or_else(|| invalid_version(&version.to_string()))?,
            ),
        },
    };
    let protobuf = request
        .schema_type
        .as_deref()
        .is_some_and(|t| t.eq_ignore_ascii_case("PROTOBUF"));
    let language = language_of(request.schema_type.as_deref())?;
    let text = request
        .schema
        .filter(|text| !text.is_empty())
        .ok_or_else(|| invalid_schema("the request has no schema"))?;
    if text.len() > state.max_schema_bytes() {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!(
                "the schema is {} bytes, more than the {} this server accepts",
                text.len(),
                state.max_schema_bytes()
            ),
        ));
    }
    #[cfg(feature = "proto-text")]
    if protobuf {
        // Its references are resolved by the contracts module; normalized
        // (`normalize=true`) once they are, on the blocking pool.
        let schema = super::protobuf::candidate(state, subject, version, text)?;
        return Ok(Candidate { schema, given });
    }
    #[cfg(not(feature = "proto-text"))]
    let _ = protobuf;
    let text = match normalize {
        None => text,
        Some(normalize) => super::canonical::canonical(&text, normalize).map_err(|err| {
            invalid_schema(format!(
                "Invalid schema: the schema is not JSON: {}",
                clip(&err, 200)
            ))
        })?,
    };
    Ok(Candidate {
        schema: Schema::new(urn(state, subject, version)?, language, text, None),
        given,
    })
}

/// The language a request's `schemaType` names: `JSON` is JSON Schema;
/// `AVRO`, or no `schemaType` (Confluent's default), is Avro; `PROTOBUF`
/// (feature `proto-text`) is protobuf as Confluent's clients send it.
fn language_of(schema_type: Option<&str>) -> Result<Language, ApiError> {
    match schema_type {
        Some(t) if t.eq_ignore_ascii_case("JSON") => Ok(Language::JsonSchema),
        None => Ok(Language::Avro),
        Some(t) if t.eq_ignore_ascii_case("AVRO") => Ok(Language::Avro),
        Some(t) if t.eq_ignore_ascii_case("PROTOBUF") && cfg!(feature = "proto-text") => {
            Ok(Language::Protobuf)
        }
        Some(t) if t.eq_ignore_ascii_case("PROTOBUF") => Err(invalid_schema(
            "PROTOBUF schemas are not accepted through the Confluent API: this server does \
             not compile .proto text; publish a protobuf schema as a descriptor set through \
             the native API (PUT /publish/schemas/{urn}), or send JSON Schema or Avro",
        )),
        Some(t) => Err(invalid_schema(format!(
            "unknown schemaType {:?}: expected AVRO, JSON or PROTOBUF",
            clip(t, 40)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_ids_parse_strictly() {
        assert_eq!(which("latest").ok(), Some(Which::Latest));
        assert_eq!(which("LATEST").ok(), Some(Which::Latest));
        assert_eq!(which("-1").ok(), Some(Which::Latest));
        assert_eq!(which("3").ok(), Some(Which::Exact(3)));
        assert_eq!(which("2147483647").ok(), Some(Which::Exact(2_147_483_647)));
        for bad in [
            "0",
            "+3",
            "-2",
            "x",
            "2147483648",
            "4294967295",
            "4294967296",
            "",
        ] {
            assert_eq!(
                which(bad).err().map(|e| e.code),
                Some(ErrorCode::InvalidVersion),
                "{bad}"
            );
        }
        assert_eq!(parse_id("7").ok(), Some(7));
        for bad in ["0", "-1", "x", "99999999999"] {
            assert_eq!(
                parse_id(bad).err().map(|e| e.code),
                Some(ErrorCode::SchemaNotFound),
                "{bad}"
            );
        }
    }
}
