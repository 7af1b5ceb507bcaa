//! JSON Schema: everything the crate knows of the language, in one folder.
//!
//! * [`model`]: the schema model, the bytes of a schema read as a JSON
//!   Schema document (a JSON object or boolean), which compatibility reads.
//! * [`validate`] (feature `json`): the validator, `jsonschema` behind the
//!   validating scanner that checks payload bytes without building a
//!   `serde_json::Value`.
//! * [`compat`]: the compatibility engine, public as
//!   [`dataschema::compat::json`](crate::compat::json).
//!
//! Neither `validate` nor `compat` imports the other. JSON Schema has no
//! canonical form of its own here (the schema's bytes are what is kept) and
//! no framing beyond Confluent's schema id.

pub mod compat;
pub(crate) mod model;
#[cfg(feature = "json")]
pub(crate) mod resolution;
#[cfg(feature = "json")]
pub(crate) mod validate;
