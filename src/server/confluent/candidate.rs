//! The schema a register, lookup or compatibility test sends, with the
//! references, metadata and rule set beside it: the body read once.
//!
//! It stands above the modules it uses: [`request`](super::request) (the
//! subject, the URN, the JSON body), [`contracts`](super::contracts) (what
//! the contract members say) and `protobuf` (a `.proto` registration).

use std::fmt;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use serde::de::{Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::contracts::{requested, Contract, Sent};
use super::error::{bad_request, invalid_schema, ApiError, ErrorCode};
use super::request::{invalid_version, json_body, urn, Subject, MAX_VERSION};
use crate::server::state::AppState;
use crate::store::SchemaId;
use dataschema_core::clip;
use dataschema_core::{Language, Schema};

/// The body of register, lookup and compatibility requests. `id` and
/// `version` are a registration's, kept in import mode; `references`,
/// `metadata` and `ruleSet` are the contract's, read by
/// [`contracts::requested`](super::contracts::requested); `normalize` and
/// `guid` are accepted and ignored.
struct SchemaRequest {
    schema: Option<String>,
    schema_type: Option<String>,
    id: Option<i64>,
    version: Option<i64>,
    /// The contract's members, each the last one sent (as a JSON object
    /// read into a map keeps it), `null` kept as absent.
    sent: Sent,
}

/// The members [`SchemaRequest`] reads; `Other` is skipped.
#[derive(Deserialize)]
#[serde(field_identifier)]
enum Member {
    #[serde(rename = "schema")]
    Schema,
    #[serde(rename = "schemaType")]
    SchemaType,
    #[serde(rename = "id")]
    Id,
    #[serde(rename = "version")]
    Version,
    #[serde(rename = "references")]
    References,
    #[serde(rename = "metadata")]
    Metadata,
    #[serde(rename = "ruleSet")]
    RuleSet,
    #[serde(other)]
    Other,
}

/// Written by hand for one reason: the four typed members are read as a
/// derived `Deserialize` reads them (a member given twice refused, the
/// same messages), while the contract's members are kept as the last one
/// sent, as Confluent's Jackson and a JSON map do.
impl<'de> Deserialize<'de> for SchemaRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SchemaRequest, D::Error> {
        const TYPED: &[&str] = &["schema", "schemaType", "id", "version"];
        struct Reader;

        /// A member given twice (a derived `Deserialize`'s refusal).
        fn once<T, E: serde::de::Error>(slot: &Option<T>, name: &'static str) -> Result<(), E> {
            match slot {
                Some(_) => Err(E::duplicate_field(name)),
                None => Ok(()),
            }
        }

        impl<'de> Visitor<'de> for Reader {
            type Value = SchemaRequest;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("struct SchemaRequest")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SchemaRequest, A::Error> {
                let (mut schema, mut schema_type, mut id, mut version) = (None, None, None, None);
                let mut sent = Sent::default();
                let kept = |value: Value| (!value.is_null()).then_some(value);
                while let Some(member) = map.next_key::<Member>()? {
                    match member {
                        Member::Schema => {
                            once(&schema, "schema")?;
                            schema = Some(map.next_value::<Option<String>>()?);
                        }
                        Member::SchemaType => {
                            once(&schema_type, "schemaType")?;
                            schema_type = Some(map.next_value::<Option<String>>()?);
                        }
                        Member::Id => {
                            once(&id, "id")?;
                            id = Some(map.next_value::<Option<i64>>()?);
                        }
                        Member::Version => {
                            once(&version, "version")?;
                            version = Some(map.next_value::<Option<i64>>()?);
                        }
                        Member::References => sent.references = kept(map.next_value()?),
                        Member::Metadata => sent.metadata = kept(map.next_value()?),
                        Member::RuleSet => sent.rule_set = kept(map.next_value()?),
                        Member::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(SchemaRequest {
                    schema: schema.flatten(),
                    schema_type: schema_type.flatten(),
                    id: id.flatten(),
                    version: version.flatten(),
                    sent,
                })
            }

            /// An array of the four typed members in order, as a derived
            /// `Deserialize` reads one; it sends no contract.
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SchemaRequest, A::Error> {
                let expected = &"struct SchemaRequest with 4 elements";
                let schema = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, expected))?;
                let schema_type = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(1, expected))?;
                let id = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(2, expected))?;
                let version = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(3, expected))?;
                Ok(SchemaRequest {
                    schema,
                    schema_type,
                    id,
                    version,
                    sent: Sent::default(),
                })
            }
        }

        deserializer.deserialize_struct("SchemaRequest", TYPED, Reader)
    }
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

/// The schema a request sends, under `subject` and `version`, and the
/// references, metadata and rule set it sends beside it (the references
/// sorted and each kept once with `normalize` `Some(true)`). With
/// `normalize` `Some`, the schema is in the canonical form (keys sorted
/// when `true`), a text that is no JSON refused (42201).
pub(crate) fn candidate_with_contract(
    state: &AppState,
    subject: &Subject,
    version: u32,
    body: Result<Bytes, BytesRejection>,
    normalize: Option<bool>,
) -> Result<(Candidate, Contract), ApiError> {
    let mut request: SchemaRequest = json_body(body)?;
    let sent = std::mem::take(&mut request.sent);
    let candidate = candidate_with(state, subject, version, request, normalize)?;
    let mut contract = requested(&sent)?;
    if normalize == Some(true) {
        contract.normalize_references();
    }
    Ok((candidate, contract))
}

/// The schema `request` sends, under `subject` and `version`.
fn candidate_with(
    state: &AppState,
    subject: &Subject,
    version: u32,
    request: SchemaRequest,
    normalize: Option<bool>,
) -> Result<Candidate, ApiError> {
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
