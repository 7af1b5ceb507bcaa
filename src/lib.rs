#![doc = include_str!("../docs/crate.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// Lets the code `build::bundle` generates (`::dataschema::...`) compile
// inside this crate's own unit tests too.
extern crate self as dataschema;

pub mod bundle;
pub mod compat;
mod error;
pub mod guard;
mod registry;
mod resolver;
mod schema;
pub mod store;
mod urn;
pub mod validate;

#[cfg(feature = "build")]
pub use crate::bundle::build;
pub use crate::bundle::Bundle;
pub use crate::compat::mode::Compatibility;
pub use crate::error::{BoxError, Chain, Error};
pub use crate::guard::{Guard, GuardBuilder, Invalid, Outcome, Reason, Unvalidated};
pub use crate::registry::Registry;
pub use crate::resolver::Resolver;
pub use crate::schema::{Language, Schema};
pub use crate::store::{MemoryStore, Store};
pub use crate::urn::{Urn, UrnError};
pub use crate::validate::Violation;
