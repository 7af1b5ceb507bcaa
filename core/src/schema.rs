//! Schemas and their languages.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

pub use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::text::clip;
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
}

impl Language {
    /// The name `FromStr` reads and `Display` writes.
    pub const fn as_str(self) -> &'static str {
        match self {
            Language::JsonSchema => "jsonschema",
            Language::Protobuf => "protobuf",
        }
    }

    /// The cargo feature that compiles in this language's validator.
    pub const fn feature(self) -> &'static str {
        match self {
            Language::JsonSchema => "json",
            Language::Protobuf => "protobuf",
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Language {
    type Err = Error;

    fn from_str(s: &str) -> Result<Language, Error> {
        match s {
            "jsonschema" => Ok(Language::JsonSchema),
            "protobuf" => Ok(Language::Protobuf),
            _ => Err(Error::InvalidLanguage {
                language: clip(s, 100),
            }),
        }
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
    /// Two schemas are the same when URN, language, bytes and root are.
    fn eq(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.inner.urn == other.inner.urn
                && self.inner.language == other.inner.language
                && self.inner.bytes == other.inner.bytes
                && self.inner.root == other.inner.root)
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
    /// (`.proto` text or a `FileDescriptorProto`, with references: see
    /// `dataschema::proto::ProtoSource`), whose frames name their message.
    pub fn root(&self) -> Option<&str> {
        self.inner.root.as_deref()
    }

    /// `sha256:<hex>` of the bytes, computed once.
    pub fn digest(&self) -> &str {
        self.inner
            .digest
            .get_or_init(|| sha256_hex(&self.inner.bytes))
    }

    /// The checks that need no validator: bytes present, protobuf root named.
    #[doc(hidden)]
    pub fn check_shape(&self) -> Result<(), Error> {
        if self.bytes().is_empty() {
            return Err(Error::Empty {
                urn: self.urn().clone(),
            });
        }
        // A protobuf schema without a root is a Confluent registration,
        // text (`protobuf/source.rs`); a descriptor set names its root.
        let missing = match self.root() {
            Some(root) => root.is_empty(),
            None => !is_source_text(self.bytes()),
        };
        if self.language() == Language::Protobuf && missing {
            return Err(Error::MissingRoot {
                urn: self.urn().clone(),
            });
        }
        Ok(())
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("urn", self.urn())
            .field("language", &self.language())
            .field("bytes", &format_args!("<{} bytes>", self.bytes().len()))
            .field("root", &self.root())
            .finish()
    }
}

/// Whether `bytes` can be a protobuf schema without a root (a Confluent
/// registration: `.proto` text, base64 of a `FileDescriptorProto`, or the
/// record of either with references), not a serialized descriptor set:
/// UTF-8 with no control character but tab, line feed, form feed and
/// carriage return. A serialized `FileDescriptorSet` always has one (its
/// length prefixes and tags).
pub(crate) fn is_source_text(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && std::str::from_utf8(bytes).is_ok()
        && !bytes
            .iter()
            .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0c | b'\r'))
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
