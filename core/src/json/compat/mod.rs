//! JSON Schema compatibility, with Confluent Schema Registry's semantics.
//!
//! [`diff`] lists every change between two schemas (draft-07 or 2020-12,
//! chosen per schema by `$schema`) as Confluent's `SchemaDiff` does, with the
//! same kinds, paths and order; a change breaks backward compatibility when
//! its kind is outside Confluent's STRICT compatible set. [`check`] runs the
//! diff under a [`Compatibility`] level against prior versions.
//!
//! ```
//! use dataschema::compat::json::{self, JsonChangeKind};
//! use serde_json::json;
//!
//! let old = json!({"properties": {"foo": {"type": "string"}}});
//! let new = json!({"properties": {"foo": {"type": "string"}, "bar": {"type": "number"}}});
//! let diff = json::diff(&old, &new);
//! let change = &diff.changes()[0];
//! assert_eq!(change.kind(), JsonChangeKind::OptionalPropertyAddedToOpenContentModel);
//! assert_eq!(change.path(), "#/properties/bar");
//! assert!(!diff.is_backward_compatible());
//! ```

mod canon;
mod compare;
pub(crate) mod kind;
mod nodes;

use serde_json::Value;

pub use self::kind::JsonChangeKind;
use crate::change::check::{check_with, CompatReport};
use crate::change::diff::{Change, SchemaDiff};
use crate::change::error::CompatError;
use crate::json::model;
use crate::level::Compatibility;

/// Every change between `old` and `new`, in Confluent's order.
///
/// Never fails and never panics: a value that is not a schema reads as the
/// empty schema, an unresolvable `$ref` as an opaque reference compared by
/// its URI, and recursive `$ref`s are compared once per pair.
pub fn diff(old: &Value, new: &Value) -> SchemaDiff<JsonChangeKind> {
    // The same schema has no change, however deep it nests.
    if old == new {
        return SchemaDiff::new(Vec::new());
    }
    let old_model = nodes::Model::load(old);
    let new_model = nodes::Model::load(new);
    let changes = compare::Comparer::new(&old_model, &new_model).root();
    SchemaDiff::new(
        changes
            .into_iter()
            .map(|c| Change::new(c.kind, format!("#/{}", c.path)))
            .collect(),
    )
}

/// Parses JSON Schema text, naming the input (`what`) in the error.
pub fn parse(what: &str, text: &[u8]) -> Result<Value, CompatError> {
    use crate::json::model::{parse, ParseError};
    parse(text).map_err(|err| match err {
        ParseError::NotJson(source) => CompatError::NotJson {
            what: what.to_owned(),
            source,
        },
        ParseError::NotASchema(found) => CompatError::NotASchema {
            what: what.to_owned(),
            found,
        },
    })
}

fn validate(what: &str, value: &Value) -> Result<(), CompatError> {
    model::check(value).map_err(|found| CompatError::NotASchema {
        what: what.to_owned(),
        found,
    })
}

/// Checks `candidate` against `priors` (oldest first, with their version
/// numbers) under `level`.
///
/// Fails only when a schema is not an object or a boolean.
pub fn check(
    level: Compatibility,
    candidate: &Value,
    priors: &[(u32, &Value)],
) -> Result<CompatReport, CompatError> {
    validate("candidate", candidate)?;
    for (version, prior) in priors {
        validate(&format!("version {version}"), prior)?;
    }
    Ok(check_with(level, candidate, priors, diff))
}
