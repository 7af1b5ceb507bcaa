//! Schemas and their languages.

use std::fmt;
use std::sync::{Arc, OnceLock};

pub use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::contract::{canonical_json, Metadata, Reference, RuleSet};
use crate::urn::Urn;

/// The largest schema, in bytes, a registry is meant to accept for
/// publishing: 1 MiB of JSON Schema text or of serialized protobuf
/// `FileDescriptorSet`.
///
/// The compatibility checks are near-linear in schema size; what a check
/// of a schema at this size against a prior version costs is measured by
/// `benches/compat.rs` (groups `protobuf_cap` and `json_cap`; figures in
/// `BENCHMARKS.md`). Nothing enforces the cap yet: paths that take schemas
/// from outside are to compare against it.
pub const MAX_SCHEMA_BYTES: usize = 1 << 20;

/// The language a schema is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Language {
    /// JSON Schema (drafts 4, 6, 7, 2019-09 and 2020-12). Written `jsonschema`.
    JsonSchema,
    /// Protocol Buffers: the bytes are a serialized `FileDescriptorSet`.
    /// Written `protobuf`.
    Protobuf,
    /// Apache Avro: the bytes are the schema's JSON text (`.avsc`); a
    /// payload is one datum in Avro's binary encoding. Written `avro`.
    Avro,
}

impl Language {
    /// The name `FromStr` reads and `Display` writes.
    pub const fn as_str(self) -> &'static str {
        match self {
            Language::JsonSchema => "jsonschema",
            Language::Protobuf => "protobuf",
            Language::Avro => "avro",
        }
    }

    /// The cargo feature that compiles in this language's validator.
    pub const fn feature(self) -> &'static str {
        match self {
            Language::JsonSchema => "json",
            Language::Protobuf => "protobuf",
            Language::Avro => "avro",
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A schema: its URN, language, bytes and (for protobuf) root message.
///
/// Immutable and cheap to clone: everything sits behind one `Arc`, and the
/// bytes are a [`Bytes`] that a bundled schema points at the binary's own
/// static data with (nothing is copied out of it). A registry hands out
/// clones of the schema it holds, so resolving copies no schema bytes.
///
/// Constructors do not check anything; `Registry::publish` and
/// `Registry::embed` do (bytes present, root named, the schema compiles).
///
/// ```
/// use dataschema::{Language, Schema, Urn};
///
/// let urn: Urn = "urn:acme:schema:greeting:1".parse()?;
/// let schema = Schema::json(urn, r#"{"type": "string"}"#);
/// assert_eq!(schema.language(), Language::JsonSchema);
/// assert_eq!(schema.bytes(), br#"{"type": "string"}"#);
/// assert_eq!(schema.root(), None);
/// assert!(schema.digest().starts_with("sha256:"));
/// # Ok::<(), dataschema::Error>(())
/// ```
#[derive(Clone)]
pub struct Schema {
    inner: Arc<Inner>,
}

struct Inner {
    urn: Urn,
    language: Language,
    bytes: Bytes,
    root: Option<Box<str>>,
    digest: OnceLock<String>,
    /// References, metadata, rule set: `None` when the version has none.
    contract: Option<Box<Contract>>,
    /// A validator generated for this version at `cargo build`
    /// ([`Schema::with_generated`]).
    generated: Option<Generated>,
}

/// A validator `dataschema-build` generated for a bundled version, as the
/// bundle hands it over (the JSON validator's `validate::generated::
/// Generated`, which checks that it fits the plan it is given).
pub(crate) type Generated = &'static GeneratedValidator;

/// What a bundle hands a [`Schema`] as its generated validator
/// ([`Schema::with_generated`]): any value, `Send`, `Sync` and unwind safe
/// (a schema is), which the JSON validator takes when it is its own type.
#[doc(hidden)]
pub type GeneratedValidator =
    dyn std::any::Any + Send + Sync + std::panic::RefUnwindSafe + std::panic::UnwindSafe;

/// What a version carries beside its bytes (see [`crate::contract`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Contract {
    references: Vec<Reference>,
    metadata: Option<Metadata>,
    rule_set: Option<RuleSet>,
}

impl Contract {
    fn is_empty(&self) -> bool {
        self.references.is_empty() && self.metadata.is_none() && self.rule_set.is_none()
    }
}

/// What a [`Schema`] constructor takes as bytes: owned buffers are moved
/// in ([`Vec<u8>`], [`String`], [`Bytes`], `Box<[u8]>`), borrowed ones are
/// copied once ( `&[u8]`, `&str`, byte arrays and string literals). To
/// point at static data without a copy, pass `Bytes::from_static(..)`.
pub trait IntoSchemaBytes {
    /// The bytes, shared.
    fn into_schema_bytes(self) -> Bytes;
}

impl IntoSchemaBytes for Bytes {
    fn into_schema_bytes(self) -> Bytes {
        self
    }
}

impl IntoSchemaBytes for Vec<u8> {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::from(self)
    }
}

impl IntoSchemaBytes for String {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::from(self)
    }
}

impl IntoSchemaBytes for Box<[u8]> {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::from(self)
    }
}

impl IntoSchemaBytes for &[u8] {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::copy_from_slice(self)
    }
}

impl IntoSchemaBytes for &str {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::copy_from_slice(self.as_bytes())
    }
}

impl IntoSchemaBytes for &String {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::copy_from_slice(self.as_bytes())
    }
}

impl IntoSchemaBytes for &Vec<u8> {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::copy_from_slice(self)
    }
}

impl<const N: usize> IntoSchemaBytes for [u8; N] {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::copy_from_slice(&self)
    }
}

impl<const N: usize> IntoSchemaBytes for &[u8; N] {
    fn into_schema_bytes(self) -> Bytes {
        Bytes::copy_from_slice(self)
    }
}

impl PartialEq for Schema {
    /// Two schemas are the same when URN, language, bytes, root,
    /// references, metadata and rule set are.
    fn eq(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.inner.urn == other.inner.urn
                && self.inner.language == other.inner.language
                && self.inner.bytes == other.inner.bytes
                && self.inner.root == other.inner.root
                && self.inner.contract == other.inner.contract)
    }
}

impl Eq for Schema {}

impl Schema {
    /// A schema of any language. `root` names the root message of a
    /// protobuf schema; `None` for JSON Schema.
    pub fn new(
        urn: Urn,
        language: Language,
        bytes: impl IntoSchemaBytes,
        root: Option<&str>,
    ) -> Schema {
        Schema {
            inner: Arc::new(Inner {
                urn,
                language,
                bytes: bytes.into_schema_bytes(),
                root: root.map(Box::from),
                digest: OnceLock::new(),
                contract: None,
                generated: None,
            }),
        }
    }

    /// A JSON Schema.
    pub fn json(urn: Urn, bytes: impl IntoSchemaBytes) -> Schema {
        Schema::new(urn, Language::JsonSchema, bytes, None)
    }

    /// A protobuf schema: a serialized `FileDescriptorSet` and the
    /// fully-qualified name of the root message.
    pub fn protobuf(
        urn: Urn,
        descriptor_set: impl IntoSchemaBytes,
        root: impl AsRef<str>,
    ) -> Schema {
        Schema::new(urn, Language::Protobuf, descriptor_set, Some(root.as_ref()))
    }

    /// An Avro schema: its JSON text (the contents of an `.avsc` file).
    ///
    /// ```
    /// use dataschema::{Language, Schema, Urn};
    ///
    /// let urn: Urn = "urn:acme:schema:greeting:1".parse()?;
    /// let schema = Schema::avro(urn, r#"{"type": "string"}"#);
    /// assert_eq!(schema.language(), Language::Avro);
    /// assert_eq!(schema.root(), None);
    /// # Ok::<(), dataschema::Error>(())
    /// ```
    pub fn avro(urn: Urn, bytes: impl IntoSchemaBytes) -> Schema {
        Schema::new(urn, Language::Avro, bytes, None)
    }

    /// The schema's permanent identifier.
    pub fn urn(&self) -> &Urn {
        &self.inner.urn
    }

    /// The language its bytes are written in.
    pub fn language(&self) -> Language {
        self.inner.language
    }

    /// JSON Schema: the JSON document. Protobuf: a serialized
    /// `FileDescriptorSet` holding the root message and its dependencies.
    /// Avro: the schema's JSON text.
    pub fn bytes(&self) -> &[u8] {
        &self.inner.bytes
    }

    /// The bytes as a shared [`Bytes`] (a reference count, not a copy).
    pub fn shared_bytes(&self) -> Bytes {
        self.inner.bytes.clone()
    }

    /// Protobuf: the fully-qualified name of the message a payload is
    /// (`acme.orders.v1.OrderShipped`). `None` for JSON Schema, and for a
    /// protobuf schema registered as Confluent's clients register it
    /// (`.proto` text or a `FileDescriptorProto`, its imports its
    /// [`references`](Schema::references)), whose frames name their message.
    pub fn root(&self) -> Option<&str> {
        self.inner.root.as_deref()
    }

    /// `sha256:<hex>` of the bytes, computed once.
    pub fn digest(&self) -> &str {
        self.inner
            .digest
            .get_or_init(|| sha256_hex(&self.inner.bytes))
    }

    /// The references the version carries: names its schema uses for other
    /// schemas, each with the URN it stands for (see [`Reference`]).
    /// Empty for most schemas.
    pub fn references(&self) -> &[Reference] {
        self.inner
            .contract
            .as_ref()
            .map_or(&[], |contract| &contract.references)
    }

    /// The version's metadata (Confluent's data contracts), if any.
    pub fn metadata(&self) -> Option<&Metadata> {
        self.inner.contract.as_ref()?.metadata.as_ref()
    }

    /// The version's rule set (kept, never executed), if any.
    pub fn rule_set(&self) -> Option<&RuleSet> {
        self.inner.contract.as_ref()?.rule_set.as_ref()
    }

    /// This schema with `references` instead of its own (the bytes are
    /// shared, not copied). References are sorted by name; a name given
    /// twice keeps its first URN.
    pub fn with_references(&self, references: impl IntoIterator<Item = Reference>) -> Schema {
        let mut references: Vec<Reference> = references.into_iter().collect();
        references.sort_by(|a, b| a.name().cmp(b.name()));
        references.dedup_by(|a, b| a.name() == b.name());
        self.with_contract(|contract| contract.references = references)
    }

    /// This schema with `metadata` instead of its own (empty metadata is
    /// none).
    pub fn with_metadata(&self, metadata: Option<Metadata>) -> Schema {
        let metadata = metadata.filter(|metadata| !metadata.is_empty());
        self.with_contract(|contract| contract.metadata = metadata)
    }

    /// This schema with `rule_set` instead of its own (a set without rules
    /// and without `enableAt` is none).
    pub fn with_rule_set(&self, rule_set: Option<RuleSet>) -> Schema {
        let rule_set = rule_set.filter(|set| !set.is_empty() || set.enable_at.is_some());
        self.with_contract(|contract| contract.rule_set = rule_set)
    }

    /// This schema (bytes, root, references, metadata, rule set) under
    /// another URN.
    pub fn with_urn(&self, urn: Urn) -> Schema {
        let mut schema = Schema::new(urn, self.language(), self.shared_bytes(), self.root());
        if let Some(inner) = Arc::get_mut(&mut schema.inner) {
            inner.contract = self.inner.contract.clone();
            inner.generated = self.inner.generated;
        }
        schema
    }

    /// This schema with a validator generated for it at `cargo build`
    /// (the bundle's code sets it; the validator is used only if it fits
    /// the plan compiled from the bytes at run time).
    #[doc(hidden)]
    pub fn with_generated(&self, generated: &'static GeneratedValidator) -> Schema {
        let mut schema = self.with_urn(self.urn().clone());
        if let Some(inner) = Arc::get_mut(&mut schema.inner) {
            inner.generated = Some(generated);
        }
        schema
    }

    /// The validator generated for this schema at `cargo build`, if any.
    #[cfg_attr(not(feature = "json"), allow(dead_code))] // read by the JSON validator
    pub(crate) fn generated(&self) -> Option<Generated> {
        self.inner.generated
    }

    fn with_contract(&self, change: impl FnOnce(&mut Contract)) -> Schema {
        let mut contract = self.inner.contract.as_deref().cloned().unwrap_or_default();
        change(&mut contract);
        let mut schema = self.with_urn(self.urn().clone());
        if let Some(inner) = Arc::get_mut(&mut schema.inner) {
            inner.contract = (!contract.is_empty()).then(|| Box::new(contract));
        }
        schema
    }

    /// The references, metadata and rule set as one JSON text, each
    /// object's keys in order (`{"metadata": .., "references": [{"name":
    /// .., "urn": ..}], "ruleSet": ..}`, members present only when set):
    /// what a store keeps beside the bytes, and part of the content's
    /// identity. `None` when the schema carries none of them.
    pub fn contract_json(&self) -> Option<String> {
        let contract = self.inner.contract.as_deref()?;
        let mut object = serde_json::Map::new();
        if let Some(metadata) = &contract.metadata {
            object.insert("metadata".into(), metadata.to_json());
        }
        if !contract.references.is_empty() {
            let references: Vec<serde_json::Value> = contract
                .references
                .iter()
                .map(|r| serde_json::json!({"name": r.name(), "urn": r.urn().to_string()}))
                .collect();
            object.insert("references".into(), references.into());
        }
        if let Some(rule_set) = &contract.rule_set {
            object.insert("ruleSet".into(), rule_set.to_json());
        }
        Some(canonical_json(&serde_json::Value::Object(object)))
    }

    /// This schema with the references, metadata and rule set of
    /// `text`, a [`contract_json`](Schema::contract_json) (a store reads
    /// back what it wrote). Text that is not one is refused with a message
    /// naming what is wrong.
    pub fn with_contract_json(&self, text: &str) -> Result<Schema, String> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|err| format!("the contract of {} is not JSON: {err}", self.urn()))?;
        let object = value
            .as_object()
            .ok_or_else(|| format!("the contract of {} is not an object", self.urn()))?;
        let metadata = object
            .get("metadata")
            .map(Metadata::from_json)
            .transpose()?;
        let rule_set = object.get("ruleSet").map(RuleSet::from_json).transpose()?;
        let mut references = Vec::new();
        for reference in object
            .get("references")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = reference.get("name").and_then(serde_json::Value::as_str);
            let urn = reference
                .get("urn")
                .and_then(serde_json::Value::as_str)
                .and_then(|urn| urn.parse::<Urn>().ok());
            match (name, urn) {
                (Some(name), Some(urn)) => references.push(Reference::new(name, urn)),
                _ => {
                    return Err(format!(
                        "a reference in the contract of {} is unreadable",
                        self.urn()
                    ))
                }
            }
        }
        Ok(self
            .with_references(references)
            .with_metadata(metadata)
            .with_rule_set(rule_set))
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("urn", self.urn())
            .field("language", &self.language())
            .field("bytes", &format_args!("<{} bytes>", self.bytes().len()))
            .field("root", &self.root())
            .field("references", &self.references())
            .field("metadata", &self.metadata())
            .field("rule_set", &self.rule_set())
            .finish()
    }
}

/// `sha256:<hex>` of some bytes: the digest [`Schema::digest`] gives, and
/// the one the crates above use for every digest they keep (a store's
/// content digests, the server's credential digests, a bundle's lock).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}
