//! An invalid JSON payload with very many errors is reported within memory
//! proportional to the payload, not to its errors: the counting allocator
//! tracks the peak of this thread's live bytes while the guard runs.

#![cfg(feature = "json")]

use crate::common;

use dataschema::{Guard, Registry, Schema};
use serde_json::{json, Value};

/// The most bytes this thread held at once while `f` ran.
fn peak_during(f: impl FnOnce()) -> usize {
    crate::counting_alloc::peak_during(f).1
}

#[test]
fn many_errors_cost_memory_in_proportion_to_the_payload() {
    const URN: &str = "urn:acme:schema:many.errors:1";
    // 2 MB of `""`, each one an error.
    let payload = format!("[{}\"\"]", "\"\",".repeat(666_666));
    let value: Value = serde_json::from_str(&payload).unwrap();
    let enumeration: Vec<u32> = (0..1_000).collect();
    for schema in [
        json!({"items": {"type": "integer"}}),
        json!({"items": {"enum": enumeration}}),
        json!({"items": {"anyOf": [{"type": "integer"}, {"enum": enumeration}]}}),
    ] {
        let registry = Registry::embed([Schema::json(common::urn(URN), schema.to_string())]);
        let guard = Guard::new(registry.unwrap());
        assert!(guard.validate_json(URN, &value).is_err());
        // The parsed value is the caller's: validating it adds little.
        let peak = peak_during(|| assert!(guard.validate_json(URN, &value).is_err()));
        assert!(peak <= payload.len(), "{schema}: {peak} bytes at peak");
        // From bytes, the report read: the parsed value (about 32 bytes of
        // `Value` a 3-byte `"",`, with the array's growth), the payload's
        // copy a deferred report keeps, and little else.
        let peak = peak_during(|| {
            let invalid = guard.validate(URN, payload.as_bytes()).unwrap_err();
            assert!(!invalid.violations().is_empty());
        });
        assert!(peak <= 32 * payload.len(), "{schema}: {peak} bytes at peak");
    }
}
