//! An invalid JSON payload with very many errors is reported within memory
//! proportional to the payload, not to its errors: a global allocator that
//! tracks the peak of live bytes watches the guard (one test in this file,
//! so nothing else allocates meanwhile).

#![cfg(feature = "json")]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use dataschema::{Guard, Registry, Schema};
use serde_json::{json, Value};

struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        grew(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// The most bytes live at once while `f` runs, beyond those live before.
fn peak_during(f: impl FnOnce()) -> usize {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    f();
    PEAK.load(Ordering::SeqCst) - before
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
