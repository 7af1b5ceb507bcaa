#![doc = include_str!("../docs/crate.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// Lets the code `build::bundle` generates (`::dataschema::...`) compile
// inside this crate's own unit tests too.
extern crate self as dataschema;

pub mod bundle;
pub mod framer;
pub mod guard;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http;
#[cfg(any(feature = "server", feature = "http"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "http"))))]
pub mod protocol;
mod registry;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
pub mod store;
pub mod subject;

/// The README's Rust examples, compiled and run by `cargo test --doc`
/// (they use JSON Schema, Avro and CEL rules), so that they stay runnable.
#[cfg(all(doctest, feature = "json", feature = "avro", feature = "cel"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;

/// Bundling at `cargo build` (feature `build`): the `dataschema-build`
/// crate, the function a `build.rs` calls.
#[cfg(feature = "build")]
pub use dataschema_build as build;
#[cfg(feature = "avro")]
pub use dataschema_core::avsc;
#[cfg(feature = "protobuf")]
pub use dataschema_core::proto;
pub use dataschema_core::{compat, contract, limits, resolve, validate};
pub use dataschema_core::{
    BoxError, Bytes, Chain, Compatibility, Error, IntoSchemaBytes, Language, Metadata, ModeRefusal,
    Reference, Resolver, RuleSet, Schema, Unresolved, Urn, UrnError, Violation, ViolationKind,
    MAX_SCHEMA_BYTES, MAX_VIOLATIONS,
};

pub use crate::bundle::Bundle;
pub use crate::framer::{FrameError, FrameReason, Framer, FramerBuilder, FramerStats};
pub use crate::guard::{
    Guard, GuardBuilder, Invalid, Outcome, ReadAs, Reason, RuleRefusal, Unvalidated, FRAME_URN,
};
pub use crate::registry::Resolution;
pub use crate::registry::{Registry, RegistryConfig, Settings};
#[cfg(feature = "postgres")]
pub use crate::store::PostgresStore;
#[cfg(feature = "sqlite")]
pub use crate::store::SqliteStore;
pub use crate::store::{MemoryStore, SchemaId, Store};
