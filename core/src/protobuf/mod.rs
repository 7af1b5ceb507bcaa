//! Protobuf: everything the crate knows of the language, in one folder
//! (feature `protobuf`).
//!
//! * [`model`]: the schema model, a serialized `FileDescriptorSet` read into
//!   a checked `DescriptorPool`; the validator and the compatibility engine
//!   both start from it.
//! * [`validate`]: the validator, over the validating scanner ([`scan`]),
//!   and the JSON mapping for `Guard::validate_json`.
//! * [`scan`]: the validating scanner, which checks payload bytes against a
//!   message descriptor without building the message.
//! * [`frame`]: what a protobuf payload's Confluent frame carries beyond the
//!   schema id, the message indexes.
//! * [`compat`]: the compatibility engine, public as
//!   [`dataschema::compat::protobuf`](crate::compat::protobuf).
//!
//! Neither `validate` nor `compat` imports the other. The canonical form of
//! a protobuf schema is its descriptor set's bytes, as given.

pub mod compat;
pub(crate) mod frame;
pub(crate) mod model;
pub mod scan;
pub(crate) mod validate;
