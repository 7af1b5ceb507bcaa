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

pub mod compat;
mod error;
mod json;
mod resolver;
mod schema;
mod urn;
pub mod validate;

pub use crate::compat::mode::Compatibility;
pub use crate::error::{BoxError, Chain, Error};
pub use crate::resolver::Resolver;
pub use crate::schema::{Bytes, IntoSchemaBytes, Language, Schema, MAX_SCHEMA_BYTES};
pub use crate::urn::{Urn, UrnError};
pub use crate::validate::{Violation, ViolationKind, MAX_VIOLATIONS};

/// What `dataschema` and `dataschema-build` share with this crate beyond
/// its public API. Not part of it: no semver guarantee.
#[doc(hidden)]
pub mod __private {
    pub use crate::error::clip;
    pub use crate::schema::sha256_hex;
    pub use crate::urn::{check_name, parse as parse_urn, Parsed};
    pub use crate::validate::{compile, violation, CompileError, Compiled, Options, Report};
}
