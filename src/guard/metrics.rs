//! The guard's counters, through the `metrics` crate.
//!
//! Counter handles are bound once: the per-reason counters when a guard is
//! built, a schema's validated and invalid counters when it is first
//! compiled, each in the recorder installed at that moment. Counting a
//! message is then one increment on a handle: no key is hashed or looked
//! up in the recorder, and nothing is allocated. Install the exporter
//! before building the guard. Label values are bounded: a `reason`, or the
//! name of a schema a resolver holds; never the raw `dataschema` string.

use metrics::{Counter, Key, Label, Level, Metadata};

use super::outcome::Reason;

/// Payloads that conform (label `schema`).
pub const VALIDATED: &str = "dataschema_validated_total";
/// Payloads that do not conform (label `schema`).
pub const INVALID: &str = "dataschema_invalid_total";
/// Data-contract rule failures whose action is `NONE`: the payload went
/// on (label `schema`).
pub const RULE_IGNORED: &str = "dataschema_rule_ignored_total";
/// Payloads let through unchecked (label `reason`).
pub const UNVALIDATED: &str = "dataschema_unvalidated_total";
/// Compiled validators evicted from a guard's cache (no label): a schema
/// the primary does not hold, dropped to keep the cache within its bound
/// (`GuardBuilder::cache_bytes`), and compiled again when a message names
/// it. A steady rate means the bound is too small for the schemas in use.
pub const CACHE_EVICTIONS: &str = "dataschema_guard_cache_evictions_total";

static METADATA: Metadata<'static> = Metadata::new("dataschema", Level::INFO, Some(module_path!()));

/// The counter under `key` in the recorder installed now (a no-op counter
/// when none is).
pub(crate) fn register(key: &Key) -> Counter {
    metrics::with_recorder(|recorder| recorder.register_counter(key, &METADATA))
}

/// The `dataschema_unvalidated_total` counter of each reason, in
/// [`Reason::ALL`] order.
pub(crate) fn unvalidated_counters() -> [Counter; Reason::COUNT] {
    Reason::ALL.map(|reason| {
        register(&Key::from_parts(
            UNVALIDATED,
            vec![Label::from_static_parts("reason", reason.as_str())],
        ))
    })
}

/// The validated and invalid counters of one schema.
pub(crate) struct SchemaCounters {
    pub(crate) validated: Counter,
    pub(crate) invalid: Counter,
    /// Registered only for a version with read rules.
    pub(crate) rule_ignored: Option<Counter>,
}

impl SchemaCounters {
    pub(crate) fn new(name: &str, with_rules: bool) -> SchemaCounters {
        let labels = || vec![Label::new("schema", name.to_owned())];
        SchemaCounters {
            validated: register(&Key::from_parts(VALIDATED, labels())),
            invalid: register(&Key::from_parts(INVALID, labels())),
            rule_ignored: with_rules.then(|| register(&Key::from_parts(RULE_IGNORED, labels()))),
        }
    }
}
