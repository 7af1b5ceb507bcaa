//! The HTTP server (native and Confluent APIs, the `serve` command) and the HTTP fallback resolver.
//!
//! One test binary per area (each links the whole crate once): every
//! module below is one capability's tests, and the features a module
//! needs are the `cfg` on its line, so a build without them still runs
//! the rest.

#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "server")]
#[path = "../common/server/mod.rs"]
mod server;
#[cfg(feature = "postgres")]
#[path = "../common/standby.rs"]
mod standby;

mod api;
mod cli;
mod confluent;
mod confluent_associations;
mod confluent_avro_python;
mod confluent_avro_references;
mod confluent_contracts;
mod confluent_dropin;
mod confluent_framed;
mod confluent_parity;
mod confluent_protobuf;
mod confluent_protobuf_clients;
mod confluent_protobuf_native;
mod confluent_protobuf_python;
mod confluent_rules_formats_python;
mod confluent_rules_python;
mod console;
mod console_browser;
mod hostile;
#[cfg(all(feature = "http", feature = "server"))]
mod http_fallback;
mod import;
mod openapi;
mod operate;
mod rules;
mod rules_fallback;
#[cfg(all(
    feature = "http",
    feature = "server",
    feature = "cel",
    feature = "jsonata",
    any(
        feature = "json",
        all(feature = "avro", feature = "proto-text", feature = "build")
    )
))]
mod rules_interop;
