//! The command-line tool, bundling at `cargo build`, the shipped alerts and the examples (the main job, NATS consumer, fallback).
//!
//! One test binary per area (each links the whole crate once): every
//! module below is one capability's tests, and the features a module
//! needs are the `cfg` on its line, so a build without them still runs
//! the rest.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/fake_registry.rs"]
mod fake_registry;
#[cfg(feature = "server")]
#[path = "../common/server/mod.rs"]
mod server;

#[cfg(feature = "json")]
mod alerts;
mod avro;
mod bundle;
mod bundle_avro_references;
mod bundle_confinement;
mod commands;
mod deploy;
mod fallback_example;
mod formats;
mod frame;
mod guide;
mod kafka;
mod main_job;
mod nats_consumer;
mod publish;
mod publish_proto;
mod resolve;
mod rules;
#[cfg(feature = "cli")]
mod run;
mod traps;
