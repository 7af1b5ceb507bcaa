//! The main job: a consumer validating a stream of CloudEvents against the
//! schemas bundled into this binary at `cargo build`.
//!
//! ```text
//! cargo run --example consumer --features cloudevents [-- EVENTS.jsonl]
//! ```
//!
//! Reads one structured-mode CloudEvent (JSON) a line (by default the
//! samples in `examples/events.jsonl`), validates each with a guard, and
//! prints what happened to each event, then a summary: validated, invalid
//! with the violations, unvalidated by reason. A real consumer would
//! process the `Ok` events, dead-letter the invalid ones, and alert on
//! `dataschema_unvalidated_total`.

use std::collections::BTreeMap;
use std::io::BufRead;

use cloudevents::AttributesReader;
use dataschema::{Guard, Outcome, Registry};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/events.jsonl").to_owned()
    });
    let registry = Registry::from_bundle(dataschema::include_bundle!())?;
    println!("bundled schemas: {}", registry.list()?.len());
    let guard = Guard::new(registry);

    let mut validated = 0;
    let mut no_schema = 0;
    let mut unreadable = 0;
    let mut invalid: Vec<String> = Vec::new();
    let mut unvalidated: BTreeMap<String, u64> = BTreeMap::new();

    let file = std::io::BufReader::new(std::fs::File::open(&path)?);
    for (number, line) in file.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let event: cloudevents::Event = match serde_json::from_str(&line) {
            Ok(event) => event,
            Err(err) => {
                println!("line {}: not a CloudEvent: {err}", number + 1);
                unreadable += 1;
                continue;
            }
        };
        let id = event.id().to_owned();
        match guard.validate_event(&event) {
            Ok(Outcome::Validated) => {
                validated += 1;
                println!("{id}: validated");
            }
            Ok(Outcome::NoSchema) => {
                no_schema += 1;
                println!("{id}: no dataschema, processed unchecked");
            }
            Ok(Outcome::Unvalidated(u)) => {
                *unvalidated.entry(u.reason().to_string()).or_default() += 1;
                println!(
                    "{id}: UNVALIDATED ({}), processed: {}",
                    u.reason(),
                    u.error()
                );
            }
            Ok(other) => println!("{id}: {other:?}"),
            Err(err) => {
                println!("{id}: INVALID, rejected: {}", err.urn());
                for violation in err.violations() {
                    println!("    {violation}");
                }
                let first = err
                    .violations()
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                invalid.push(format!("{id} ({}): {first}", err.urn()));
            }
        }
    }

    println!();
    println!("summary");
    println!("  validated:   {validated}");
    println!("  invalid:     {}", invalid.len());
    for line in &invalid {
        println!("    {line}");
    }
    println!(
        "  unvalidated: {} (guard counter: {})",
        unvalidated.values().sum::<u64>(),
        guard.unvalidated()
    );
    for (reason, count) in &unvalidated {
        println!("    {reason}: {count}");
    }
    println!("  no schema:   {no_schema}");
    if unreadable > 0 {
        println!("  unreadable:  {unreadable}");
    }
    Ok(())
}
