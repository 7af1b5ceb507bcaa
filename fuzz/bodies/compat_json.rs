//! Two arbitrary JSON documents through the JSON Schema diff and every
//! compatibility mode: never panics, and a schema diffed with itself has no
//! change.
//!
//! The input is split at its first NUL byte into the old and new schema.
//!
//! `cargo +nightly fuzz run compat_json` (from `fuzz/`)

use dataschema::compat::{json, Compatibility};

pub fn run(data: &[u8]) {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (Ok(old), Ok(new)) = (
        serde_json::from_slice::<serde_json::Value>(&data[..split]),
        serde_json::from_slice::<serde_json::Value>(data.get(split + 1..).unwrap_or(b"true")),
    ) else {
        return;
    };
    assert!(json::diff(&old, &old).is_empty(), "diff(a, a) is empty");
    let _ = json::diff(&old, &new);
    for mode in Compatibility::ALL {
        let _ = json::check(mode, &new, &[(1, &old)]);
    }
}
