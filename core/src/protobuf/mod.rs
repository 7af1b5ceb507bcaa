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
//! * [`source`]: a protobuf schema as Confluent's clients register it, with
//!   no root: `.proto` text or a base64 `FileDescriptorProto`, and its
//!   references; compiled at run time with feature `proto-text`.
//! * [`print`](mod@print): descriptors back to `.proto` text.
//! * [`compat`]: the compatibility engine, public as
//!   [`dataschema::compat::protobuf`](crate::compat::protobuf).
//!
//! Neither `validate` nor `compat` imports the other. The canonical form of
//! a protobuf schema with a root is its descriptor set's bytes, as given;
//! of one without, the bytes registered ([`source`]).

pub mod compat;
pub(crate) mod form;
pub(crate) mod frame;
pub(crate) mod model;
pub mod print;
pub(crate) mod resolution;
pub mod scan;
pub mod source;
pub(crate) mod validate;
