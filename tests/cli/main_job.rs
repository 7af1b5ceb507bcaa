//! The main job (`cargo run --example consumer --features cloudevents`):
//! `examples/consumer.rs`, compiled into this test from its source, run
//! over the sample stream `examples/events.jsonl` (JSON Schema, protobuf
//! and Avro events). Its summary must be the one the README shows, and
//! each event's verdict the one named here; the events written with an
//! older version are read as the latest.
#![cfg(all(
    feature = "cloudevents",
    feature = "json",
    feature = "protobuf",
    feature = "avro"
))]

#[allow(dead_code)]
#[path = "../../examples/consumer.rs"]
mod example;

/// The main job's output.
fn main_job() -> String {
    let mut out = Vec::new();
    example::run(example::EVENTS, &mut out).expect("the main job runs");
    String::from_utf8(out).expect("UTF-8 output")
}

#[test]
fn the_main_job_prints_the_readmes_summary() {
    let output = main_job();
    let summary = &output[output.find("\nsummary\n").expect("a summary") + 1..];
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("the README");
    let start = readme
        .find("```text\nsummary\n")
        .expect("the README shows the main job's summary")
        + "```text\n".len();
    let shown = &readme[start..start + readme[start..].find("```").expect("the block ends")];
    assert_eq!(
        summary, shown,
        "the main job's summary is not the README's; the whole output:\n{output}"
    );
}

#[test]
fn each_sample_event_has_its_verdict() {
    let output = main_job();
    let verdicts: Vec<(&str, &str)> = output
        .lines()
        .filter(|line| line.starts_with("evt-"))
        .filter_map(|line| line.split_once(": "))
        .collect();
    let wanted = [
        ("evt-0001", "validated (jsonschema)"),
        ("evt-0002", "validated (jsonschema)"),
        ("evt-0009", "validated (protobuf)"),
        ("evt-0010", "INVALID (protobuf)"),
        ("evt-0011", "INVALID (protobuf)"),
        ("evt-0017", "validated (avro)"),
        ("evt-0018", "validated (avro)"),
        ("evt-0019", "INVALID (avro)"),
        ("evt-0020", "INVALID (avro)"),
        ("evt-0021", "INVALID (avro)"),
        ("evt-0012", "UNVALIDATED (not_found)"),
        ("evt-0014", "UNVALIDATED (not_a_urn)"),
        ("evt-0015", "no dataschema"),
    ];
    for (id, verdict) in wanted {
        let (_, line) = verdicts
            .iter()
            .find(|(event, _)| *event == id)
            .unwrap_or_else(|| panic!("no line for {id}:\n{output}"));
        assert!(line.starts_with(verdict), "{id}: {line}");
    }
    // The Avro events' violations, each at its field.
    for (after, violation) in [
        ("evt-0019", "/currency: enum index 3 is out of range"),
        ("evt-0020", "/payment_id: \"pay-0042\" is not a UUID"),
        ("evt-0021", "/paid_at: the payload ends inside a long"),
    ] {
        let at = output
            .find(&format!("{after}: "))
            .expect("the event's line");
        let next = output[at..].lines().nth(1).unwrap_or_default();
        assert!(next.trim_start().starts_with(violation), "{after}: {next}");
    }
}

#[test]
fn older_versions_are_read_as_the_latest() {
    let output = main_job();
    let v2: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schemas/orders.created.v2.json"
        ))
        .expect("v2"),
    )
    .expect("v2 is JSON");
    let read_as = "read as urn:acme:schema:orders.created:2: ";
    for id in ["evt-0001", "evt-0003", "evt-0016"] {
        let line = output
            .lines()
            .find(|line| line.starts_with(&format!("{id}: ")))
            .unwrap_or_else(|| panic!("no line for {id}:\n{output}"));
        let at = line
            .find(read_as)
            .unwrap_or_else(|| panic!("{id} is not read as v2: {line}"));
        let read: serde_json::Value =
            serde_json::from_str(&line[at + read_as.len()..]).expect("the data read is JSON");
        // What the consumer receives is a v2 payload: the v2 schema's
        // properties only (`additionalProperties: false`), every required
        // one present.
        let properties = v2["properties"].as_object().expect("properties");
        for key in read.as_object().expect("an object").keys() {
            assert!(properties.contains_key(key), "{id}: {key} is not v2's");
        }
        for required in v2["required"].as_array().expect("required") {
            let required = required.as_str().expect("a name");
            assert!(read.get(required).is_some(), "{id}: {required} missing");
        }
    }
    // A v2 event is not read across; nor is an invalid v1 one.
    for id in ["evt-0002", "evt-0004"] {
        let line = output
            .lines()
            .find(|line| line.starts_with(&format!("{id}: ")))
            .expect("the line");
        assert!(!line.contains("read as"), "{line}");
    }
}
