//! Stores and the registry over them.
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

mod registry;
mod stores;
