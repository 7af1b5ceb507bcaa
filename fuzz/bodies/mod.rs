//! The fuzz targets' bodies: one function a target, `run(data)`, shared by
//! `cargo fuzz` (`fuzz_targets/`) and by `tests/validate/fuzz_corpus.rs`, which runs
//! each over its committed seeds (`seeds/<target>/`) on stable.

#[cfg(feature = "avro")]
pub mod avro;
pub mod compat_json;
pub mod descriptors;
pub mod guard;
pub mod json_scan;
pub mod json_schema;
pub mod scan;
pub mod urn;
