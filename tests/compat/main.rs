//! Compatibility: the conformance corpus, rules, reports, enforcement and properties.
//!
//! One test binary per area (each links the whole crate once): every
//! module below is one capability's tests, and the features a module
//! needs are the `cfg` on its line, so a build without them still runs
//! the rest.

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "avro")]
mod avro;
#[cfg(feature = "avro")]
mod avro_python;
mod conformance;
mod enforced;
mod groups;
mod hostile;
mod props;
#[cfg(feature = "protobuf")]
mod props_protobuf;
mod report;
#[cfg(feature = "avro")]
mod resolve_avro;
#[cfg(feature = "json")]
mod resolve_json;
#[cfg(feature = "protobuf")]
mod resolve_protobuf;
mod rules;
/// The protobuf scanner's fixtures and random messages (the differential).
#[cfg(feature = "protobuf")]
#[path = "../common/scan.rs"]
mod scan;
