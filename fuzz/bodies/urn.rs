//! Arbitrary strings through the URN parser: no panic, and whatever parses
//! displays to a canonical form that parses back to the same URN.
//!
//! `cargo +nightly fuzz run urn` (from `fuzz/`)

use dataschema::Urn;

pub fn run(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(urn) = input.parse::<Urn>() {
        let shown = urn.to_string();
        let again: Urn = shown.parse().expect("a displayed URN parses");
        assert_eq!(again, urn);
        assert_eq!(again.to_string(), shown);
    }
}
