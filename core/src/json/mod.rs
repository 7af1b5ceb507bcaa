//! JSON Schema: everything the crate knows of the language, in one folder.
//!
//! * [`validate`] (feature `json`): the validator: `jsonschema` behind the
//!   validating scanner, which checks payload bytes without building a
//!   `serde_json::Value`.

#[cfg(feature = "json")]
pub(crate) mod validate;
