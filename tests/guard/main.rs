//! The guard: outcomes, caching, retries, framing, allocation on the hot path, CloudEvents and violation reports.
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

/// Counts this thread's allocations and live bytes (the allocation tests).
#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

#[cfg(feature = "protobuf")]
mod alloc;
#[cfg(feature = "avro")]
mod avro;
mod basics;
#[cfg(feature = "json")]
mod cache_bound;
#[cfg(feature = "json")]
mod cache_scale;
mod cloudevents;
#[cfg(all(feature = "json", feature = "protobuf"))]
mod framed;
#[cfg(feature = "proto-text")]
mod framed_protobuf;
mod hostile;
#[cfg(all(feature = "json", feature = "jsonata"))]
mod migrations;
mod prepare;
#[cfg(feature = "json")]
mod read_as;
#[cfg(feature = "protobuf")]
mod read_as_protobuf;
mod resolve_alloc;
mod retry;
#[cfg(all(feature = "json", feature = "cel"))]
mod rules;
#[cfg(all(feature = "cel", feature = "avro", feature = "proto-text"))]
mod rules_formed;
mod violations;
