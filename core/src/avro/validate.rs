//! Avro: a schema is its JSON text; a payload is one datum in Avro's binary
//! encoding (no container file header, no single-object marker), valid when
//! the scanner ([`super::scan`]) reads exactly it.

use std::sync::Arc;

use super::model::AvroSchema;
use super::names::{self, ReadError};
use super::scan::Plan;
use crate::violation::{Violation, ViolationKind};

/// A compiled Avro schema.
pub struct AvroValidator {
    plan: Plan,
}

impl AvroValidator {
    /// Compiles `schema`, the named types its references define resolved
    /// through `refs`.
    pub(crate) fn compile(
        schema: &crate::schema::Schema,
        refs: &dyn crate::resolver::Resolver,
    ) -> Result<AvroValidator, ReadError> {
        let schema = names::read(schema, refs)?;
        Ok(AvroValidator {
            plan: Plan::new(Arc::new(schema)),
        })
    }

    /// The schema read (shared).
    pub(crate) fn schema(&self) -> Arc<AvroSchema> {
        self.plan.shared_schema()
    }

    #[inline]
    pub(crate) fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        if self.plan.is_valid(payload) {
            return Ok(());
        }
        self.explain(payload)
    }

    #[cold]
    fn explain(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        let mut violations = self.plan.violations(payload);
        if violations.is_empty() {
            violations.push(Violation::new(
                "",
                ViolationKind::Other,
                "the payload is not a datum of the schema",
            ));
        }
        Err(violations)
    }

    /// A JSON value: Avro's JSON encoding is not checked (a guard validates
    /// Avro's binary encoding); the value is refused, saying so.
    pub(crate) fn validate_json(&self, _value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        Err(vec![Violation::new(
            "",
            ViolationKind::Mapping,
            "an Avro schema validates a binary datum, not a JSON value (Avro's JSON encoding is \
             not supported)",
        )])
    }
}
