//! Schema compatibility: a diff engine per language and one checker for the
//! seven [`Compatibility`] modes.
//!
//! Every check is built on a diff. [`json::diff`] and [`protobuf::diff`]
//! (feature `protobuf`) list every change between an old and a new schema,
//! each with a kind named after Confluent Schema Registry's difference types,
//! a path, and whether it breaks backward compatibility. The checkers
//! ([`json::check`], [`protobuf::check`]) run those diffs under a mode against
//! prior versions through one language-agnostic driver, [`check_with`].
//! Over [`Schema`](crate::Schema)s of any language, [`diff()`] and [`check()`]
//! share one per-language dispatch; their kinds are [`AnyChangeKind`].
//!
//! Reports are typed: a [`CompatReport`] holds a [`VersionReport`] per
//! prior version checked, each with every [`VersionChange`] found (its
//! version, [`Direction`], kind, path and verdict). Text comes from
//! `Display` only.
//!
//! | mode | what is checked |
//! |---|---|
//! | `Backward` | `diff(latest prior, new)` has no breaking change |
//! | `Forward` | `diff(new, latest prior)` has no breaking change |
//! | `Full` | both |
//! | `*Transitive` | the same against every prior version, oldest first |
//! | `None` | nothing |
//!
//! ```
//! use dataschema::compat::{json, Compatibility};
//! use serde_json::json;
//!
//! let v1 = json!({"type": "object", "properties": {"id": {"type": "integer"}}});
//! let v2 = json!({"type": "object", "properties": {"id": {"type": "number"}}});
//! let report = json::check(Compatibility::Backward, &v2, &[(1, &v1)]).unwrap();
//! assert!(report.is_compatible());
//!
//! let diff = json::diff(&v1, &v2);
//! assert_eq!(diff.to_string().lines().count(), 2);
//! ```
//!
//! The rules per language, and where they differ from Confluent, are in
//! `docs/compatibility.md`.

mod any_kind;
mod check;
mod diff;
mod dispatch;
mod error;
pub(crate) mod java_order;
pub(crate) mod kind;
pub mod mode;
mod policy;

#[cfg(feature = "avro")]
pub use crate::avro::compat as avro;
pub use crate::json::compat as json;
#[cfg(feature = "protobuf")]
pub use crate::protobuf::compat as protobuf;

pub use crate::reading::Reading;
pub use any_kind::AnyChangeKind;
pub use check::{check_with, CompatReport, Direction, VersionChange, VersionReport};
pub use diff::{Change, SchemaDiff};
pub use dispatch::{check, check_readings, diff};
pub use error::CompatError;
pub use kind::{ChangeKind, UnknownChangeKind};
pub use mode::{Compatibility, UnknownMode};
pub use policy::{Policy, UnknownPolicy};
