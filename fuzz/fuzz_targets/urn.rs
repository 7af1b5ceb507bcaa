//! Arbitrary strings through the URN parser: no panic, and whatever parses
//! displays to a canonical form that parses back to the same URN.
//!
//! `cargo +nightly fuzz run urn`
#![no_main]

use dataschema::Urn;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    if let Ok(urn) = input.parse::<Urn>() {
        let shown = urn.to_string();
        let again: Urn = shown.parse().expect("a displayed URN parses");
        assert_eq!(again, urn);
        assert_eq!(again.to_string(), shown);
    }
});
