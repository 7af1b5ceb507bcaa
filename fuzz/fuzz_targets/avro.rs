//! See `bodies/avro.rs`: the same function runs over the committed seed
//! corpus as an ordinary test on stable (`tests/validate/fuzz_corpus.rs`).
#![no_main]

#[path = "../bodies/mod.rs"]
#[allow(dead_code)]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::avro::run(data));
