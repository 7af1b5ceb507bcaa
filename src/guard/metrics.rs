//! The guard's counters, through the `metrics` crate.
//!
//! Keys are built once (per guard, and per cached schema) and incremented
//! by reference, so counting allocates nothing on the hot path. Label values
//! are bounded: a `reason`, or the name of a schema a resolver holds; never
//! the raw `dataschema` string.

use metrics::{Key, Label, Level, Metadata};

use super::outcome::Reason;

/// Payloads that conform (label `schema`).
pub const VALIDATED: &str = "dataschema_validated_total";
/// Payloads that do not conform (label `schema`).
pub const INVALID: &str = "dataschema_invalid_total";
/// Payloads let through unchecked (label `reason`).
pub const UNVALIDATED: &str = "dataschema_unvalidated_total";

static METADATA: Metadata<'static> = Metadata::new("dataschema", Level::INFO, Some(module_path!()));

pub(crate) fn increment(key: &Key) {
    metrics::with_recorder(|recorder| recorder.register_counter(key, &METADATA).increment(1));
}

/// The `dataschema_unvalidated_total` key of each reason.
pub(crate) fn unvalidated_keys() -> [Key; 5] {
    Reason::ALL.map(|reason| Key::from_static_labels(UNVALIDATED, reason_labels(reason)))
}

fn reason_labels(reason: Reason) -> &'static [Label] {
    static NOT_A_URN: [Label; 1] = [Label::from_static_parts("reason", "not_a_urn")];
    static NOT_FOUND: [Label; 1] = [Label::from_static_parts("reason", "not_found")];
    static UNREACHABLE: [Label; 1] = [Label::from_static_parts("reason", "unreachable")];
    static NO_VALIDATOR: [Label; 1] = [Label::from_static_parts("reason", "no_validator")];
    static UNUSABLE: [Label; 1] = [Label::from_static_parts("reason", "unusable")];
    match reason {
        Reason::NotAUrn => &NOT_A_URN,
        Reason::NotFound => &NOT_FOUND,
        Reason::Unreachable => &UNREACHABLE,
        Reason::NoValidator => &NO_VALIDATOR,
        Reason::Unusable => &UNUSABLE,
    }
}

/// The validated and invalid keys of one schema.
pub(crate) struct SchemaKeys {
    pub(crate) validated: Key,
    pub(crate) invalid: Key,
}

impl SchemaKeys {
    pub(crate) fn new(name: &str) -> SchemaKeys {
        SchemaKeys {
            validated: Key::from_parts(VALIDATED, vec![Label::new("schema", name.to_owned())]),
            invalid: Key::from_parts(INVALID, vec![Label::new("schema", name.to_owned())]),
        }
    }
}
