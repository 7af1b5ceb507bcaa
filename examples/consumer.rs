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
//!
//! The consumer codes against the latest version of each name the bundle
//! holds (`orders.created` v2): an event written with an older version
//! (v1) is validated against the version it names, then read as the
//! latest with `Guard::read_as` (by name, defaults, widening: the rules of
//! `docs/resolution.md`), and printed as the consumer receives it. The
//! summary counts the events read across versions.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use cloudevents::event::{AttributesReader, Data};
use dataschema::{Guard, Invalid, Outcome, Registry, Urn};

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
    // The version the consumer codes against, per name: the latest the
    // bundle holds (`list` is ordered by name, then version).
    let mut latest: BTreeMap<(String, String), Urn> = BTreeMap::new();
    for urn in registry.list()? {
        latest.insert((urn.namespace().to_owned(), urn.name().to_owned()), urn);
    }
    // Per language: (validated, invalid).
    let mut by_language: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    // Events written with an older version, read as the latest: per
    // (writer, reader).
    let mut read_across: BTreeMap<(String, String), u64> = BTreeMap::new();

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
        let writer = event
            .dataschema()
            .and_then(|url| url.as_str().parse::<Urn>().ok());
        // The latest version of the name the event's schema belongs to,
        // when it is not the event's own.
        let reader = writer.as_ref().and_then(|writer| {
            latest
                .get(&(writer.namespace().to_owned(), writer.name().to_owned()))
                .filter(|latest| latest.version() > writer.version())
        });
        let verdict = match reader {
            Some(reader) => read_as_latest(&guard, &event, reader),
            None => guard.validate_event(&event).map(|outcome| (outcome, None)),
        };
        match verdict {
            Ok((Outcome::Validated, read)) => {
                validated += 1;
                let language = writer.as_ref().map_or("?", language);
                by_language.entry(language).or_default().0 += 1;
                match (read, reader, &writer) {
                    (Some(bytes), Some(reader), Some(writer)) => {
                        *read_across
                            .entry((writer.to_string(), reader.to_string()))
                            .or_default() += 1;
                        writeln!(
                            out,
                            "{id}: validated ({language}), read as {reader}: {}",
                            String::from_utf8_lossy(&bytes)
                        )?;
                    }
                    _ => writeln!(out, "{id}: validated ({language})")?,
                }
            }
            Ok((Outcome::NoSchema, _)) => {
                no_schema += 1;
                writeln!(out, "{id}: no dataschema, processed unchecked")?;
            }
            Ok((Outcome::Unvalidated(u), _)) => {
                *unvalidated.entry(u.reason().to_string()).or_default() += 1;
                writeln!(
                    out,
                    "{id}: UNVALIDATED ({}), processed: {}",
                    u.reason(),
                    u.error()
                )?;
            }
            Ok((other, _)) => writeln!(out, "{id}: {other:?}")?,
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
    writeln!(
        out,
        "  read as the latest version: {}",
        read_across.values().sum::<u64>()
    )?;
    for ((writer, reader), count) in &read_across {
        writeln!(out, "    {writer} -> {reader}: {count}")?;
    }
    if unreadable > 0 {
        writeln!(out, "  unreadable:  {unreadable}")?;
    }
    writeln!(out, "  by language: validated, invalid")?;
    for (language, (validated, invalid)) in &by_language {
        writeln!(out, "    {language:<11} {validated}, {invalid}")?;
    }
    Ok(())
}

/// Validates `event` against the version its `dataschema` names, then
/// reads its data as `reader` (the latest version of its name): the
/// outcome, and the data in the reader's layout when it was read across
/// (`None` when the guard let it through unchecked or could not read it
/// across: then it is processed as written, and counted).
fn read_as_latest(
    guard: &Guard,
    event: &cloudevents::Event,
    reader: &Urn,
) -> Result<(Outcome, Option<Vec<u8>>), Invalid> {
    let dataschema = event.dataschema().map(|url| url.as_str()).unwrap_or("");
    let data: Vec<u8> = match event.data() {
        // Serializing a parsed JSON value does not fail.
        Some(Data::Json(value)) => serde_json::to_vec(value).unwrap_or_default(),
        Some(Data::Binary(bytes)) => bytes.clone(),
        Some(Data::String(text)) => text.clone().into_bytes(),
        None => Vec::new(),
    };
    let read = guard.read_as(dataschema, &data, reader)?;
    let bytes = read.crossed().then(|| read.bytes().to_vec());
    Ok((read.outcome().clone(), bytes))
}
