//! Runs `examples/fallback.rs` (compiled into this test from its source),
//! so the example cannot rot: it checks each verdict and the counters it
//! reads back from its Prometheus recorder, and fails on any surprise.
#![cfg(all(feature = "http", feature = "server", feature = "json"))]

#[path = "../../examples/fallback.rs"]
mod example;

#[test]
fn the_fallback_example_validates_then_fails_open_counted() {
    // The example installs the global recorder: the only test in this file.
    if let Err(err) = example::main() {
        panic!("examples/fallback.rs failed: {err}");
    }
}
