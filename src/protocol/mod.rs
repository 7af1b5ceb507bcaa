//! The native API on the wire (feature `server` or `http`): what
//! `dataschema serve` answers and what its clients ([`HttpResolver`],
//! `dataschema publish`) send and check, written once for all three.
//!
//! [`HttpResolver`]: crate::http::HttpResolver
//!
//! # A schema read
//!
//! `GET /schemas/{urn}` (and `GET /ids/{id}`, answered the same way)
//! answers the schema's bytes as they were published, with
//! `Content-Type` [`content_type::JSON_SCHEMA`], [`content_type::PROTOBUF`]
//! or [`content_type::AVRO`] and the headers
//!
//! | header | value |
//! |---|---|
//! | [`header::URN`] | the URN, canonical |
//! | [`header::LANGUAGE`] | `jsonschema`, `protobuf` or `avro` |
//! | [`header::ROOT`] | protobuf: the root message (absent for JSON Schema) |
//! | [`header::DIGEST`] | `sha256:<hex>` of the body |
//! | [`header::ID`] | the registry's id of the schema |
//! | [`header::REFERENCES`] | the version's references, `name=urn` pairs (absent without) |
//!
//! A client keeps such an answer only once [`SchemaAnswer::parse`] found
//! the digest to be the body's, and [`SchemaAnswer::check_urn`] (or
//! [`SchemaAnswer::check_id`]) found it to be what was asked for.
//!
//! # A publish
//!
//! `PUT /publish/schemas/{urn}` (or `POST`) carries the bytes, and the
//! headers [`header::LANGUAGE`] (default `jsonschema`), [`header::ROOT`],
//! [`header::REFERENCES`] (the version's references, kept with it) and
//! [`header::MODE`] (a compatibility mode checked too, beside the level
//! in effect for the name, which always holds), or
//! the query parameters `language`, `root` and `mode`. The answer is JSON
//! ([`content_type::JSON`]): `{"urn", "id", "created"}`, or a refusal
//! `{"error": REASON, "message": ...}`.
//!
//! # The client side (feature `http`)
//!
//! [`BaseUrl`] is the one check of a registry's URL, with one policy on
//! credentials: a URL holding `user:password@` is refused (see
//! [`BaseUrlProblem::Credential`]). [`Client`] is the one configuration of
//! the HTTP agent: timeouts, no proxy from the environment, no redirect,
//! bounded bodies.

#[cfg(feature = "http")]
mod client;

#[cfg(feature = "http")]
pub use client::{
    Answer, BaseUrl, BaseUrlError, BaseUrlProblem, Client, Credentials, TransportError,
};

use std::fmt;

use dataschema_core::{IntoSchemaBytes, Language, Schema, Urn};

/// The native API's header names, lower-case (HTTP header names are
/// case-insensitive; these are the forms `http::HeaderName` holds).
pub mod header {
    /// The schema's URN (a schema read's answer).
    pub const URN: &str = "dataschema-urn";
    /// The schema's language: `jsonschema` or `protobuf` (a schema read's
    /// answer; a publish's request).
    pub const LANGUAGE: &str = "dataschema-language";
    /// A protobuf schema's root message (a schema read's answer; a
    /// publish's request).
    pub const ROOT: &str = "dataschema-root";
    /// `sha256:<hex>` of the schema's bytes (a schema read's answer).
    pub const DIGEST: &str = "dataschema-digest";
    /// The registry's id of the schema (a schema read's answer).
    pub const ID: &str = "dataschema-id";
    /// A compatibility mode a publish is checked under too, beside the
    /// level in effect for the name (a publish's request; it cannot lift
    /// the level).
    pub const MODE: &str = "dataschema-mode";
    /// The version's references (a schema read's answer; a publish's
    /// request): `name=urn` pairs separated by `,`, each side
    /// percent-encoded ([`references_header`](super::references_header)).
    /// Absent for a version without references.
    pub const REFERENCES: &str = "dataschema-references";
    /// The version's data contract (a schema read's answer): its
    /// `metadata` and `ruleSet` as one JSON object in Confluent's form,
    /// every character outside printable ASCII `\u`-escaped
    /// ([`contract_header`](super::contract_header)), so a guard whose
    /// fallback reads the native API enforces the rules a bundled copy
    /// of the version would. Absent for a version without either.
    pub const CONTRACT: &str = "dataschema-contract";
}

/// The largest [`header::CONTRACT`] value, in bytes: 32 KiB. HTTP
/// clients bound an answer's headers (`ureq`, this crate's client: 64 KiB
/// for all of them; Node's `http`: 16 KiB; a proxy such as nginx: its
/// `proxy_buffer_size`, 4 or 8 KiB unless raised), and past the bound they
/// fail with their own words, or not at all. A server does not send a
/// longer one: it refuses the read naming the size (`contract_too_large`),
/// and [`SchemaAnswer::parse`] refuses a longer one it is sent
/// ([`AnswerError::ContractTooLarge`]). A version whose rules need more
/// is read through Confluent's API (the contract in the body) or bundled.
pub const MAX_CONTRACT_HEADER_BYTES: usize = 32 * 1024;

/// The value of [`header::CONTRACT`] for `schema` (`None` when it carries
/// no metadata and no rule set): `{"metadata": .., "ruleSet": ..}`, JSON
/// in printable ASCII (a header value's alphabet; JSON's `\u` escapes
/// keep it the same JSON).
pub fn contract_header(schema: &Schema) -> Option<String> {
    let mut object = serde_json::Map::new();
    if let Some(metadata) = schema.metadata() {
        object.insert("metadata".into(), metadata.to_json());
    }
    if let Some(rule_set) = schema.rule_set() {
        object.insert("ruleSet".into(), rule_set.to_json());
    }
    if object.is_empty() {
        return None;
    }
    let text = serde_json::Value::Object(object).to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ' ' || c.is_ascii_graphic() {
            out.push(c);
        } else {
            // Outside a JSON string only ASCII appears in `to_string`'s
            // output, so every such character is inside one, where `\u`
            // is an escape JSON reads back as the character.
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    Some(out)
}

/// The metadata and rule set a [`header::CONTRACT`] value holds; `None`
/// for a value that is not a JSON object of them.
pub fn parse_contract(
    value: &str,
) -> Option<(
    Option<dataschema_core::Metadata>,
    Option<dataschema_core::RuleSet>,
)> {
    let value: serde_json::Value = serde_json::from_str(value).ok()?;
    let object = value.as_object()?;
    if object
        .keys()
        .any(|key| key != "metadata" && key != "ruleSet")
    {
        return None;
    }
    let metadata = match object.get("metadata") {
        None | Some(serde_json::Value::Null) => None,
        Some(metadata) => Some(dataschema_core::Metadata::from_json(metadata).ok()?),
    };
    let rule_set = match object.get("ruleSet") {
        None | Some(serde_json::Value::Null) => None,
        Some(rule_set) => Some(dataschema_core::RuleSet::from_json(rule_set).ok()?),
    };
    Some((metadata, rule_set))
}

/// The value of [`header::REFERENCES`] for `references` (`None` for none):
/// `name=urn` pairs separated by `,`, every byte of a name or URN outside
/// `A-Z a-z 0-9 - . _ ~ :` written `%XX`, so the value is visible ASCII
/// whatever the names hold.
pub fn references_header(references: &[dataschema_core::Reference]) -> Option<String> {
    fn encode(text: &str, out: &mut String) {
        for byte in text.bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~:".contains(&byte) {
                out.push(char::from(byte));
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    if references.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (i, reference) in references.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        encode(reference.name(), &mut out);
        out.push('=');
        encode(reference.urn().as_ref(), &mut out);
    }
    Some(out)
}

/// The references a [`header::REFERENCES`] value holds; `None` for a value
/// [`references_header`] does not write (a pair without `=`, a bad `%`
/// escape, text that is not UTF-8, a URN that is none, a name given twice).
pub fn parse_references(value: &str) -> Option<Vec<dataschema_core::Reference>> {
    fn decode(text: &str) -> Option<String> {
        let bytes = text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).ok()
    }
    let references: Vec<dataschema_core::Reference> = value
        .split(',')
        .map(|pair| {
            let (name, urn) = pair.split_once('=')?;
            let urn: Urn = decode(urn)?.parse().ok()?;
            Some(dataschema_core::Reference::new(decode(name)?, urn))
        })
        .collect::<Option<_>>()?;
    // A name stands for one schema: given twice, one would be dropped.
    let mut names: Vec<&str> = references.iter().map(|r| r.name()).collect();
    names.sort_unstable();
    if names.windows(2).any(|pair| pair[0] == pair[1]) {
        return None;
    }
    Some(references)
}

/// The content types the native API speaks.
pub mod content_type {
    use dataschema_core::Language;

    /// A JSON Schema's bytes.
    pub const JSON_SCHEMA: &str = "application/schema+json";
    /// A protobuf schema's bytes (a serialized `FileDescriptorSet`).
    pub const PROTOBUF: &str = "application/x-protobuf";
    /// An Avro schema's bytes (its JSON text).
    pub const AVRO: &str = "application/vnd.apache.avro+json";
    /// Lists, publish answers and refusals.
    pub const JSON: &str = "application/json";
    /// The Confluent Schema Registry API's bodies.
    pub const CONFLUENT_JSON: &str = "application/vnd.schemaregistry.v1+json";

    /// The content type of a schema's bytes in `language`.
    pub fn of(language: Language) -> &'static str {
        match language {
            Language::Protobuf => PROTOBUF,
            Language::Avro => AVRO,
            _ => JSON_SCHEMA,
        }
    }
}

/// The path of a schema read: `/schemas/{urn}`.
pub fn schema_path(urn: &Urn) -> String {
    format!("/schemas/{urn}")
}

/// The path of a read by id: `/ids/{id}`.
pub fn id_path(id: u32) -> String {
    format!("/ids/{id}")
}

/// The path of a publish: `/publish/schemas/{urn}`.
pub fn publish_path(urn: &Urn) -> String {
    format!("/publish/schemas/{urn}")
}

/// A schema read's answer, checked: the schema its headers and body
/// describe, whose digest is the one [`header::DIGEST`] announced.
#[derive(Debug, Clone)]
pub struct SchemaAnswer {
    schema: Schema,
    id: Option<u32>,
}

impl SchemaAnswer {
    /// Reads an answer from its headers (`header(name)` gives a header's
    /// value by its lower-case name, `None` when absent or not text) and
    /// its body. Refused: a missing or malformed [`header::URN`],
    /// [`header::LANGUAGE`] or [`header::DIGEST`], a malformed
    /// [`header::ID`], and a digest that is not the body's.
    pub fn parse<'h>(
        header: impl Fn(&'static str) -> Option<&'h str>,
        body: impl IntoSchemaBytes,
    ) -> Result<SchemaAnswer, AnswerError> {
        let urn: Urn = header(header::URN)
            .ok_or(AnswerError::NoUrn)?
            .parse()
            .map_err(|_| AnswerError::BadUrn)?;
        let language: Language = header(header::LANGUAGE)
            .ok_or(AnswerError::NoLanguage)?
            .parse()
            .map_err(|_| AnswerError::BadLanguage)?;
        let digest = header(header::DIGEST).ok_or(AnswerError::NoDigest)?;
        let id = match header(header::ID) {
            Some(id) => Some(id.parse().map_err(|_| AnswerError::BadId)?),
            None => None,
        };
        let mut schema = Schema::new(urn, language, body, header(header::ROOT));
        if let Some(value) = header(header::REFERENCES) {
            let references = parse_references(value).ok_or(AnswerError::BadReferences)?;
            schema = schema.with_references(references);
        }
        if let Some(value) = header(header::CONTRACT) {
            if value.len() > MAX_CONTRACT_HEADER_BYTES {
                return Err(AnswerError::ContractTooLarge { bytes: value.len() });
            }
            let (metadata, rule_set) = parse_contract(value).ok_or(AnswerError::BadContract)?;
            schema = schema.with_metadata(metadata).with_rule_set(rule_set);
        }
        if schema.digest() != digest {
            return Err(AnswerError::DigestMismatch {
                body: schema.digest().to_owned(),
                announced: dataschema_core::clip(digest, 80),
            });
        }
        Ok(SchemaAnswer { schema, id })
    }

    /// Refuses an answer for another URN than `asked`.
    pub fn check_urn(self, asked: &Urn) -> Result<SchemaAnswer, AnswerError> {
        if self.schema.urn() == asked {
            Ok(self)
        } else {
            Err(AnswerError::OtherUrn {
                asked: asked.clone(),
                answered: self.schema.urn().clone(),
            })
        }
    }

    /// Refuses an answer with another id than `asked` (or none).
    pub fn check_id(self, asked: u32) -> Result<SchemaAnswer, AnswerError> {
        if self.id == Some(asked) {
            Ok(self)
        } else {
            Err(AnswerError::OtherId {
                asked,
                answered: self.id,
            })
        }
    }

    /// The schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The registry's id of it ([`header::ID`]), when the answer gave one.
    pub fn id(&self) -> Option<u32> {
        self.id
    }

    /// The schema and its id.
    pub fn into_parts(self) -> (Schema, Option<u32>) {
        (self.schema, self.id)
    }
}

/// Why a schema read's answer was refused: it is not one the native API
/// gives for the request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswerError {
    /// No [`header::URN`].
    NoUrn,
    /// A [`header::URN`] that is not a URN.
    BadUrn,
    /// No [`header::LANGUAGE`].
    NoLanguage,
    /// A [`header::LANGUAGE`] that names no language.
    BadLanguage,
    /// No [`header::DIGEST`].
    NoDigest,
    /// A [`header::ID`] that is not an id.
    BadId,
    /// A [`header::REFERENCES`] that is not references.
    BadReferences,
    /// [`header::CONTRACT`] is not a JSON object of `metadata` and
    /// `ruleSet` in Confluent's form.
    BadContract,
    /// [`header::CONTRACT`] is longer than [`MAX_CONTRACT_HEADER_BYTES`].
    ContractTooLarge {
        /// Its length, in bytes.
        bytes: usize,
    },
    /// The body's digest is not the one announced.
    DigestMismatch {
        /// The body's digest.
        body: String,
        /// What [`header::DIGEST`] said (clipped).
        announced: String,
    },
    /// The answer is for another URN.
    OtherUrn {
        /// The URN asked for.
        asked: Urn,
        /// The URN answered.
        answered: Urn,
    },
    /// The answer has another id (or none).
    OtherId {
        /// The id asked for.
        asked: u32,
        /// The id answered.
        answered: Option<u32>,
    },
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerError::NoUrn => f.write_str("no Dataschema-Urn header"),
            AnswerError::BadUrn => f.write_str("Dataschema-Urn is not a URN"),
            AnswerError::NoLanguage => f.write_str("no Dataschema-Language header"),
            AnswerError::BadLanguage => f.write_str("unknown Dataschema-Language"),
            AnswerError::NoDigest => f.write_str("no Dataschema-Digest header"),
            AnswerError::BadId => f.write_str("Dataschema-Id is not an id"),
            AnswerError::BadReferences => {
                f.write_str("Dataschema-References is not name=urn pairs")
            }
            AnswerError::BadContract => {
                f.write_str("Dataschema-Contract is not a JSON object of metadata and ruleSet")
            }
            AnswerError::ContractTooLarge { bytes } => write!(
                f,
                "Dataschema-Contract is {bytes} bytes, more than the \
                 {MAX_CONTRACT_HEADER_BYTES} a contract header may have"
            ),
            AnswerError::DigestMismatch { body, announced } => write!(
                f,
                "the body's digest is {body}, Dataschema-Digest says {announced}"
            ),
            AnswerError::OtherUrn { asked, answered } => {
                write!(f, "asked for {asked}, the registry answered {answered}")
            }
            AnswerError::OtherId { asked, answered } => write!(
                f,
                "asked for id {asked}, the registry answered id {}",
                answered.map_or_else(|| "none".to_owned(), |id| id.to_string())
            ),
        }
    }
}

impl std::error::Error for AnswerError {}

#[cfg(test)]
mod tests {

    #[test]
    fn references_round_trip_through_their_header() {
        use dataschema_core::Reference;
        let references = vec![
            Reference::new(
                "http://example.com/a b,c=d%é.json",
                "urn:acme:schema:a:1".parse().unwrap(),
            ),
            Reference::new("plain", "urn:acme:schema:b:2".parse().unwrap()),
        ];
        let value = references_header(&references).unwrap();
        assert!(value.bytes().all(|b| b.is_ascii_graphic()), "{value}");
        assert_eq!(value.matches(',').count(), 1, "{value}");
        assert_eq!(parse_references(&value), Some(references));
        assert_eq!(references_header(&[]), None);
        for bad in [
            "x",
            "a=urn:nope",
            "a%zz=urn:acme:schema:a:1",
            "a=urn:acme:schema:a:1,",
        ] {
            assert_eq!(parse_references(bad), None, "{bad}");
        }
    }

    use super::*;

    const BODY: &str = r#"{"type": "string"}"#;

    fn digest(body: &str) -> String {
        Schema::json("urn:acme:schema:b:1".parse().unwrap(), body.to_owned())
            .digest()
            .to_owned()
    }

    fn headers<'p>(
        pairs: &'p [(&'static str, String)],
    ) -> impl Fn(&'static str) -> Option<&'p str> + 'p {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.as_str())
        }
    }

    fn good() -> Vec<(&'static str, String)> {
        vec![
            (header::URN, "urn:acme:schema:b:1".to_owned()),
            (header::LANGUAGE, "jsonschema".to_owned()),
            (header::DIGEST, digest(BODY)),
            (header::ID, "7".to_owned()),
        ]
    }

    #[test]
    fn a_good_answer_is_the_schema_and_its_id() {
        let pairs = good();
        let answer = SchemaAnswer::parse(headers(&pairs), BODY).unwrap();
        assert_eq!(answer.schema().urn().as_str(), "urn:acme:schema:b:1");
        assert_eq!(answer.schema().bytes(), BODY.as_bytes());
        assert_eq!(answer.id(), Some(7));
        let urn: Urn = "urn:acme:schema:b:1".parse().unwrap();
        let answer = answer.check_urn(&urn).unwrap().check_id(7).unwrap();
        assert_eq!(answer.into_parts().1, Some(7));
    }

    #[test]
    fn each_fault_is_named() {
        let without = |name: &str| {
            good()
                .into_iter()
                .filter(|(key, _)| *key != name)
                .collect::<Vec<_>>()
        };
        let with = |name: &'static str, value: &str| {
            let mut pairs = without(name);
            pairs.push((name, value.to_owned()));
            pairs
        };
        for (pairs, expected) in [
            (without(header::URN), AnswerError::NoUrn),
            (with(header::URN, "nope"), AnswerError::BadUrn),
            (without(header::LANGUAGE), AnswerError::NoLanguage),
            (with(header::LANGUAGE, "cobol"), AnswerError::BadLanguage),
            (without(header::DIGEST), AnswerError::NoDigest),
            (with(header::ID, "-1"), AnswerError::BadId),
            (
                with(header::DIGEST, "sha256:00"),
                AnswerError::DigestMismatch {
                    body: digest(BODY),
                    announced: "sha256:00".to_owned(),
                },
            ),
        ] {
            let err = SchemaAnswer::parse(headers(&pairs), BODY).unwrap_err();
            assert_eq!(err, expected);
        }
        // No id is an answer (an id is checked only where asked for).
        let pairs = without(header::ID);
        let answer = SchemaAnswer::parse(headers(&pairs), BODY).unwrap();
        assert_eq!(answer.id(), None);
        assert_eq!(
            answer.check_id(7).unwrap_err().to_string(),
            "asked for id 7, the registry answered id none"
        );
    }

    #[test]
    fn another_urn_is_refused_with_both_named() {
        let pairs = good();
        let other: Urn = "urn:acme:schema:c:1".parse().unwrap();
        let err = SchemaAnswer::parse(headers(&pairs), BODY)
            .unwrap()
            .check_urn(&other)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "asked for urn:acme:schema:c:1, the registry answered urn:acme:schema:b:1"
        );
    }

    #[test]
    fn a_long_announced_digest_is_clipped() {
        let long = "x".repeat(10_000);
        let pairs = {
            let mut pairs = good();
            pairs.retain(|(key, _)| *key != header::DIGEST);
            pairs.push((header::DIGEST, long));
            pairs
        };
        let err = SchemaAnswer::parse(headers(&pairs), BODY).unwrap_err();
        let shown = err.to_string();
        assert!(shown.contains(&"x".repeat(80)), "{shown}");
        assert!(!shown.contains(&"x".repeat(81)), "{shown}");
    }

    #[test]
    fn content_types_by_language() {
        assert_eq!(
            content_type::of(Language::JsonSchema),
            "application/schema+json"
        );
        assert_eq!(
            content_type::of(Language::Protobuf),
            "application/x-protobuf"
        );
        assert_eq!(
            content_type::of(Language::Avro),
            "application/vnd.apache.avro+json"
        );
    }
}
