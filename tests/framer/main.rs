//! The producer half: `Framer` writes Confluent frames around payloads it
//! validated, with ids from the lock or a registry; a consumer's guard
//! validates every frame it writes; what cannot be framed is an error
//! with its reason, counted, never a frame with a wrong or zero id.

#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "server")]
#[path = "../common/server/mod.rs"]
mod server;

#[cfg(all(
    feature = "http",
    feature = "server",
    feature = "json",
    feature = "proto-text",
    feature = "avro"
))]
mod confluent_node;
#[cfg(all(
    feature = "http",
    feature = "server",
    feature = "json",
    feature = "proto-text",
    feature = "avro"
))]
mod confluent_python;
#[cfg(all(feature = "http", feature = "server", feature = "json"))]
mod fallback;
#[cfg(all(feature = "json", feature = "protobuf", feature = "avro"))]
mod languages;
#[cfg(all(
    feature = "cli",
    feature = "http",
    feature = "server",
    feature = "json",
    feature = "avro"
))]
mod registry;
