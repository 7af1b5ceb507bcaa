//! Validation: URNs, the protobuf and JSON validating scanners (differential, suite, allocation, hostile input) and the fuzz corpus.
//!
//! One test binary per area (each links the whole crate once): every
//! module below is one capability's tests, and the features a module
//! needs are the `cfg` on its line, so a build without them still runs
//! the rest.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/counting_alloc.rs"]
#[allow(dead_code)]
mod counting_alloc;
#[cfg(feature = "protobuf")]
#[path = "../common/descriptor.rs"]
mod descriptor;
#[cfg(feature = "protobuf")]
#[path = "../common/scan.rs"]
mod support;

/// Counts this thread's allocations and live bytes (the allocation tests).
#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

#[cfg(feature = "json")]
#[path = "../../benches/support/corpus.rs"]
mod corpus;

#[cfg(feature = "avro")]
mod avro;
#[cfg(feature = "avro")]
mod avro_normalize;
#[cfg(feature = "json")]
mod branches_redteam;
#[cfg(feature = "json")]
mod formats_redteam;
mod fuzz_corpus;
#[cfg(feature = "avro")]
mod hostile_avro;
mod hostile_depth;
mod hostile_json;
mod hostile_json_memory;
#[cfg(feature = "protobuf")]
mod hostile_protobuf;
#[cfg(feature = "protobuf")]
mod hostile_protobuf_memory;
#[cfg(feature = "json")]
mod json_codegen;
#[cfg(feature = "json")]
mod json_corpus;
#[cfg(feature = "json")]
mod json_scan_alloc;
#[cfg(feature = "json")]
mod json_scan_differential;
#[cfg(feature = "json")]
mod json_scan_suite;
#[cfg(feature = "json")]
mod pattern_redteam;
#[cfg(feature = "proto-text")]
mod proto_print;
#[cfg(feature = "json")]
mod redteam;
#[cfg(feature = "protobuf")]
mod scan_alloc;
#[cfg(feature = "protobuf")]
mod scan_differential;
#[cfg(feature = "protobuf")]
mod scan_fuzz_descriptors;
#[cfg(feature = "protobuf")]
mod scan_violations;
#[cfg(feature = "protobuf")]
mod scan_wide;
#[cfg(feature = "json")]
mod unique_redteam;
mod urn;
