//! Avro: everything the crate knows of the language, in one folder
//! (feature `avro`).
//!
//! * [`model`]: the schema model, a schema's JSON text (`.avsc`) read into a
//!   checked table of types, with its Parsing Canonical Form and Rabin
//!   fingerprint; the validator and the compatibility engine both start
//!   from it.
//! * [`names`]: named types across schemas (a schema's references, read
//!   first as Java's parser reads Confluent's references).
//! * [`normalize`]: Confluent's `normalize=true` for Avro.
//! * [`scan`]: the validating scanner, which checks a binary datum against
//!   the schema in one pass without decoding it; its fast path, a flat
//!   program compiled from the model, is in `plan`.
//! * [`validate`]: the validator, over the scanner.
//! * [`resolution`]: reading one version's bytes as another's (Avro's schema
//!   resolution as a plan over the bytes), public as
//!   [`dataschema::validate::avro_resolution`](crate::validate::avro_resolution).
//! * [`compat`]: the compatibility engine (Java's `SchemaCompatibility`),
//!   public as [`dataschema::compat::avro`](crate::compat::avro).
//!
//! Neither `validate` nor `compat` imports the other. A Confluent frame
//! carries nothing for Avro beyond the schema id: the datum follows it.

mod canonical;
pub mod compat;
pub(crate) mod form;
pub mod model;
pub(crate) mod names;
pub(crate) mod normalize;
mod plan;
pub mod resolution;
pub mod scan;
pub(crate) mod validate;
mod values;
mod write;
