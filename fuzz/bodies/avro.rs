//! An Avro schema and a datum: the schema's JSON, a zero byte, the datum.
//! Reading the schema never panics; a schema read reads itself
//! (compatibility), and the scanner's verdict and its report agree, without
//! panicking, on any datum.
//!
//! `cargo +nightly fuzz run avro` (from `fuzz/`)

use dataschema::compat::avro;
use dataschema::validate::avro_scan::{parse_schema, Plan};

pub fn run(data: &[u8]) {
    let (schema, datum) = match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let Ok(schema) = parse_schema(schema) else {
        return;
    };
    assert!(
        avro::diff(&schema, &schema).is_empty(),
        "a schema reads itself"
    );
    let plan = Plan::new(std::sync::Arc::new(schema));
    let valid = plan.is_valid(datum);
    let violations = plan.violations(datum);
    assert_eq!(valid, violations.is_empty());
    assert!(violations.len() <= 1);
}
