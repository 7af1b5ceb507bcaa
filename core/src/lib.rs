//! The schema model of [dataschema](https://docs.rs/dataschema): URNs,
//! schemas and their errors, the [`Resolver`] trait, the validators
//! ([`validate`]) and the compatibility checks ([`compat`]).
//!
//! It is its own crate so that `dataschema-build`, which a `build.rs`
//! calls to check and bundle a `schemas/` folder, can compile and compare
//! schemas with the very code the registry and the guard run, without
//! depending on the `dataschema` crate (whose own build script bundles its
//! sample schemas through `dataschema-build`). Depend on `dataschema`: it
//! re-exports everything here.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[cfg(feature = "avro")]
mod avro;
pub mod compat;
pub mod contract;
mod error;
mod json;
pub mod limits;
#[cfg(feature = "protobuf")]
mod protobuf;
mod reading;
pub mod resolve;
mod resolver;
pub mod rules;
mod schema;
mod text;
mod urn;
pub mod validate;
pub mod well_known;

/// Protobuf schemas as Confluent's clients register them, without a root
/// message (their bytes the `schema` string registered, their imports
/// [`Schema::references`](crate::Schema::references)), and descriptors printed
/// back to `.proto` text ([`print_file`](proto::print_file)). Feature
/// `protobuf`; compiling such a schema's text needs `proto-text`.
#[cfg(feature = "protobuf")]
pub mod proto {
    pub use crate::protobuf::print::{print_file, print_file_normalized};
    #[cfg(feature = "proto-text")]
    pub use crate::protobuf::source::{
        check_references, file_descriptor, is_descriptor, message_by_urn, normalize, same_files,
        same_version, text,
    };
    pub use crate::protobuf::source::{
        is_rootless_set, is_well_known, looks_like_source, top_files, Form, PROTOBUF_WELL_KNOWN,
        WELL_KNOWN,
    };
}

/// Avro schemas across schemas (feature `avro`): the named types a
/// schema's JSON defines and the names it uses from elsewhere (what a
/// `schemas/` folder indexes to find the schema defining a type), and
/// Confluent's `normalize=true` for Avro.
#[cfg(feature = "avro")]
pub mod avsc {
    pub use crate::avro::names::{defined_names, used_names};
    pub use crate::avro::normalize::normalize;
}

pub use crate::compat::mode::Compatibility;
pub use crate::contract::{Metadata, Reference, RuleSet};
pub use crate::error::{BoxError, Chain, Error, ErrorKind, ModeRefusal, Unresolved};
pub use crate::resolver::Resolver;
pub use crate::schema::{Bytes, IntoSchemaBytes, Language, Schema, MAX_SCHEMA_BYTES};
pub use crate::urn::{Urn, UrnError};
pub use crate::validate::{Violation, ViolationKind, MAX_VIOLATIONS};

pub use crate::schema::sha256_hex;
pub use crate::text::clip;

/// The guard's allocation-free URN lookup: `dataschema::Guard` parses the
/// URN of every message on its hot path into borrowed parts and looks its
/// canonical form up before it builds a [`Urn`]. Hidden because its shape
/// follows the guard's cache: not API, no semver promise (use
/// [`Urn`]'s `FromStr`).
#[doc(hidden)]
pub use crate::urn::{parse as parse_urn, Parsed as ParsedUrn};
