//! The main job: a consumer validating a stream of CloudEvents against the
//! schemas bundled into this binary at `cargo build`.
//!
//! ```text
//! cargo run --example consumer --features cloudevents [-- EVENTS.jsonl]
//! ```
//!
//! Reads one structured-mode CloudEvent (JSON) a line (by default the
//! samples in `examples/events.jsonl`: JSON Schema events with JSON `data`,
//! protobuf (`application/protobuf`) and Avro (`application/avro`, one
//! datum in Avro's binary encoding) events with `data_base64`), validates
//! each with a guard, and prints what happened to each event, then a
//! summary: validated, invalid with the violations, unvalidated by
//! reason, and the validated and invalid by schema language. A real
//! consumer would process the `Ok` events, dead-letter the invalid ones,
//! and alert on `dataschema_unvalidated_total`.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use cloudevents::AttributesReader;
use dataschema::{Guard, Outcome, Registry, Urn};

/// The sample stream.
pub const EVENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/events.jsonl");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| EVENTS.to_owned());
    run(&path, &mut std::io::stdout().lock())
}

/// Validates the events of the file `path`, writing a line per event and
/// the summary to `out` (`tests/cli/main_job.rs` compares the summary
/// with the README's).
pub fn run(path: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_bundle(dataschema::include_bundle!())?;
    writeln!(out, "bundled schemas: {}", registry.list()?.len())?;
    let guard = Guard::new(registry.clone());
    // The language of a bundled schema, for the lines and the summary.
    let language = |urn: &Urn| {
        registry
            .resolve(urn)
            .map_or("?", |schema| schema.language().as_str())
    };
    // Per language: (validated, invalid).
    let mut by_language: BTreeMap<&str, (u64, u64)> = BTreeMap::new();

    let mut validated = 0;
    let mut no_schema = 0;
    let mut unreadable = 0;
    let mut invalid: Vec<String> = Vec::new();
    let mut unvalidated: BTreeMap<String, u64> = BTreeMap::new();

    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    for (number, line) in file.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let event: cloudevents::Event = match serde_json::from_str(&line) {
            Ok(event) => event,
            Err(err) => {
                writeln!(out, "line {}: not a CloudEvent: {err}", number + 1)?;
                unreadable += 1;
                continue;
            }
        };
        let id = event.id().to_owned();
        match guard.validate_event(&event) {
            Ok(Outcome::Validated) => {
                validated += 1;
                let language = event
                    .dataschema()
                    .and_then(|url| url.as_str().parse::<Urn>().ok())
                    .map_or("?", |urn| language(&urn));
                by_language.entry(language).or_default().0 += 1;
                writeln!(out, "{id}: validated ({language})")?;
            }
            Ok(Outcome::NoSchema) => {
                no_schema += 1;
                writeln!(out, "{id}: no dataschema, processed unchecked")?;
            }
            Ok(Outcome::Unvalidated(u)) => {
                *unvalidated.entry(u.reason().to_string()).or_default() += 1;
                writeln!(
                    out,
                    "{id}: UNVALIDATED ({}), processed: {}",
                    u.reason(),
                    u.error()
                )?;
            }
            Ok(other) => writeln!(out, "{id}: {other:?}")?,
            Err(err) => {
                let language = language(err.urn());
                by_language.entry(language).or_default().1 += 1;
                writeln!(out, "{id}: INVALID ({language}), rejected: {}", err.urn())?;
                for violation in err.violations() {
                    writeln!(out, "    {violation}")?;
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

    writeln!(out)?;
    writeln!(out, "summary")?;
    writeln!(out, "  validated:   {validated}")?;
    writeln!(out, "  invalid:     {}", invalid.len())?;
    for line in &invalid {
        writeln!(out, "    {line}")?;
    }
    writeln!(
        out,
        "  unvalidated: {} (guard counter: {})",
        unvalidated.values().sum::<u64>(),
        guard.unvalidated()
    )?;
    for (reason, count) in &unvalidated {
        writeln!(out, "    {reason}: {count}")?;
    }
    writeln!(out, "  no schema:   {no_schema}")?;
    if unreadable > 0 {
        writeln!(out, "  unreadable:  {unreadable}")?;
    }
    writeln!(out, "  by language: validated, invalid")?;
    for (language, (validated, invalid)) in &by_language {
        writeln!(out, "    {language:<11} {validated}, {invalid}")?;
    }
    Ok(())
}
