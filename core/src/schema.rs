//! Schemas and their languages.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

use crate::error::{clip, Error};
use crate::urn::Urn;

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
/// Constructors do not check anything; `Registry::publish` and
/// `Registry::embed` do (bytes present, root named, the schema compiles).
#[derive(Clone, PartialEq, Eq)]
pub struct Schema {
    /// The schema's permanent identifier.
    pub urn: Urn,
    /// The language its bytes are written in.
    pub language: Language,
    /// JSON Schema: the JSON document. Protobuf: a serialized
    /// `FileDescriptorSet` holding the root message and its dependencies.
    pub bytes: Vec<u8>,
    /// Protobuf: the fully-qualified name of the message a payload is
    /// (`acme.orders.v1.OrderShipped`). `None` for JSON Schema.
    pub root: Option<String>,
}

impl Schema {
    /// A JSON Schema.
    pub fn json(urn: Urn, bytes: impl Into<Vec<u8>>) -> Schema {
        Schema {
            urn,
            language: Language::JsonSchema,
            bytes: bytes.into(),
            root: None,
        }
    }

    /// A protobuf schema: a serialized `FileDescriptorSet` and the
    /// fully-qualified name of the root message.
    pub fn protobuf(
        urn: Urn,
        descriptor_set: impl Into<Vec<u8>>,
        root: impl Into<String>,
    ) -> Schema {
        Schema {
            urn,
            language: Language::Protobuf,
            bytes: descriptor_set.into(),
            root: Some(root.into()),
        }
    }

    /// `sha256:<hex>` of the bytes.
    pub fn digest(&self) -> String {
        sha256_hex(&self.bytes)
    }

    /// The checks that need no validator: bytes present, protobuf root named.
    #[doc(hidden)]
    pub fn check_shape(&self) -> Result<(), Error> {
        if self.bytes.is_empty() {
            return Err(Error::Empty {
                urn: self.urn.clone(),
            });
        }
        if self.language == Language::Protobuf
            && self.root.as_deref().is_none_or(|root| root.is_empty())
        {
            return Err(Error::MissingRoot {
                urn: self.urn.clone(),
            });
        }
        Ok(())
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("urn", &self.urn)
            .field("language", &self.language)
            .field("bytes", &format_args!("<{} bytes>", self.bytes.len()))
            .field("root", &self.root)
            .finish()
    }
}

/// `sha256:<hex>` of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}
