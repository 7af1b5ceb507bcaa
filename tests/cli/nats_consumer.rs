//! `examples/nats_consumer.rs` against the real NATS JetStream server
//! (`DATASCHEMA_NATS_URL`, default `nats://127.0.0.1:4222`) and a real
//! registry server in this process as its fallback: a mixed stream, where
//! every message must end (acknowledged, or dead-lettered with its
//! violations in headers), and the `/metrics` the consumer's Prometheus
//! exporter serves, which must count exactly what was sent.
//!
//! NATS unreachable: under `CI` the tests fail saying so; elsewhere they
//! print that they skip.
//!
//! The consumer is the example's own binary, built by the test
//! (`common::example`).
#![cfg(all(
    feature = "http",
    feature = "server",
    feature = "json",
    feature = "avro",
    feature = "cloudevents"
))]

use crate::common;
use crate::common::lines::Lines;
use crate::common::stream::{dataschema_series, scrape, ORDER_BAD, ORDER_V1, ORDER_V2};
use crate::fake_registry;
use crate::server;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, stream};
use async_nats::HeaderMap;
use dataschema::{Compatibility, Schema};

const REFUND_SCHEMA: &str = r#"{"type":"object","properties":{"refund_id":{"type":"string","pattern":"^ref_"},"amount":{"type":"number","exclusiveMinimum":0}},"required":["refund_id","amount"]}"#;
const REFUND_URN: &str = "urn:acme:schema:refunds.issued:1";
const PAYMENT_URN: &str = "urn:acme:schema:payments.made:1";

/// The NATS URL, or `None` (skip) when it cannot be reached outside CI.
async fn nats() -> Option<async_nats::Client> {
    let url = std::env::var("DATASCHEMA_NATS_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "nats://127.0.0.1:4222".to_owned());
    let connected = async_nats::ConnectOptions::new()
        .connection_timeout(Duration::from_secs(3))
        .connect(url.as_str())
        .await;
    match connected {
        Ok(client) => Some(client),
        Err(err) => {
            let message =
                format!("NATS with JetStream at {url} (DATASCHEMA_NATS_URL) is unreachable: {err}");
            if std::env::var_os("CI").is_some() {
                panic!("{message}; under CI it must run (.ci/setup exports its URL)");
            }
            eprintln!("SKIPPED: {message}");
            None
        }
    }
}

/// A name no other run (or test) uses.
fn unique() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{}_{}_{}",
        std::process::id(),
        nanos % 1_000_000_000_000,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The example's binary, built with this test's features.
fn consumer_binary() -> PathBuf {
    common::example::example_binary("nats_consumer")
}

/// A running consumer (the example's binary): its stdout lines arrive
/// on a channel.
struct Consumer;

impl Consumer {
    fn start(args: &[String]) -> Lines {
        Lines::spawn(
            Command::new(consumer_binary())
                .args(args)
                .env_remove("DATASCHEMA_REGISTRY_URL")
                .env_remove("DATASCHEMA_MAX_MESSAGES"),
        )
    }
}

/// A JetStream stream of one test's own: `DSTEST_<id>` over the subjects
/// `dstest_<id>.*`, with the durable consumer name `guard_<id>` the
/// consumer is started with. `delete` removes it and the dead-letter
/// stream the consumer made beside it.
struct TestStream {
    js: jetstream::Context,
    /// The server's `max_payload`, in bytes.
    max_payload: usize,
    prefix: String,
    name: String,
    consumer: String,
}

impl TestStream {
    /// A new stream, or `None` (skip) when NATS cannot be reached outside CI.
    async fn create() -> Option<TestStream> {
        let client = nats().await?;
        let max_payload = client.server_info().max_payload;
        let js = jetstream::new(client);
        let id = unique();
        let stream = TestStream {
            js,
            max_payload,
            prefix: format!("dstest_{id}"),
            name: format!("DSTEST_{id}"),
            consumer: format!("guard_{id}"),
        };
        stream
            .js
            .create_stream(stream::Config {
                name: stream.name.clone(),
                subjects: vec![format!("{}.*", stream.prefix)],
                max_age: Duration::from_secs(3600),
                ..Default::default()
            })
            .await
            .unwrap();
        Some(stream)
    }

    /// The subject `dstest_<id>.<leaf>`.
    fn subject(&self, leaf: &str) -> String {
        format!("{}.{leaf}", self.prefix)
    }

    /// The dead-letter stream's name, as the consumer names it.
    fn dlq_name(&self) -> String {
        format!("{}_DLQ", self.name)
    }

    /// Starts the consumer on this stream (every subject, the durable
    /// consumer, metrics on a port the OS picks), with `extra` flags.
    fn start(&self, extra: &[String]) -> Lines {
        let mut args = vec![
            format!("--stream={}", self.name),
            format!("--subject={}.*", self.prefix),
            format!("--consumer={}", self.consumer),
            "--metrics=127.0.0.1:0".to_owned(),
        ];
        args.extend_from_slice(extra);
        Consumer::start(&args)
    }

    /// Publishes `body` with `headers` to `dstest_<id>.<leaf>`.
    async fn publish(&self, leaf: &str, headers: HeaderMap, body: impl AsRef<[u8]>) -> u64 {
        publish(&self.js, &self.subject(leaf), headers, body).await
    }

    /// What the server says of the durable consumer.
    async fn consumer_info(&self) -> jetstream::consumer::Info {
        self.js
            .get_stream(&self.name)
            .await
            .unwrap()
            .consumer_info(&self.consumer)
            .await
            .unwrap()
    }

    /// The dead-letter stream.
    async fn dead_letters(&self) -> stream::Stream {
        self.js.get_stream(self.dlq_name()).await.unwrap()
    }

    /// Deletes the stream and its dead-letter stream.
    async fn delete(self) {
        self.js.delete_stream(&self.name).await.unwrap();
        self.js.delete_stream(self.dlq_name()).await.unwrap();
    }
}

fn binary_event(dataschema: Option<&str>, id: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("ce-specversion", "1.0");
    headers.insert("ce-id", id);
    headers.insert("ce-source", "/tests/nats_consumer");
    headers.insert("ce-type", "com.acme.test");
    headers.insert("Content-Type", "application/json");
    if let Some(dataschema) = dataschema {
        headers.insert("ce-dataschema", dataschema);
    }
    headers
}

fn structured_event(dataschema: &str, id: &str, data: &str) -> (HeaderMap, String) {
    let mut headers = HeaderMap::new();
    headers.insert("Content-Type", "application/cloudevents+json");
    let body = format!(
        r#"{{"specversion":"1.0","id":"{id}","source":"/tests/nats_consumer","type":"com.acme.test","dataschema":"{dataschema}","datacontenttype":"application/json","data":{data}}}"#
    );
    (headers, body)
}

/// A binary-mode event whose payload is an Avro datum.
fn avro_binary_event(id: &str) -> HeaderMap {
    let mut headers = binary_event(Some(PAYMENT_URN), id);
    headers.insert("Content-Type", "application/avro");
    headers
}

/// A structured-mode event whose `data` is the Avro datum `datum`
/// (`data_base64`, as the CloudEvents SDK writes binary data).
fn avro_structured_event(id: &str, datum: &[u8]) -> (HeaderMap, Vec<u8>) {
    use cloudevents::{EventBuilder, EventBuilderV10};
    let event = EventBuilderV10::new()
        .id(id)
        .source("/tests/nats_consumer")
        .ty("com.acme.test")
        .data_with_schema("application/avro", PAYMENT_URN, datum.to_vec())
        .build()
        .unwrap();
    let body = serde_json::to_vec(&event).unwrap();
    assert!(
        String::from_utf8_lossy(&body).contains("\"data_base64\""),
        "binary data is written as data_base64"
    );
    let mut headers = HeaderMap::new();
    headers.insert("Content-Type", "application/cloudevents+json");
    (headers, body)
}

/// Publishes `body` with `headers` to `subject`, stored by JetStream.
async fn publish(
    js: &jetstream::Context,
    subject: &str,
    headers: HeaderMap,
    body: impl AsRef<[u8]>,
) -> u64 {
    js.publish_with_headers(subject.to_owned(), headers, body.as_ref().to_vec().into())
        .await
        .unwrap()
        .await
        .unwrap()
        .sequence
}

/// A message sent: subject, headers, body, the consumer's line for it,
/// whether it is dead-lettered.
type Sent<'a> = (String, HeaderMap, Vec<u8>, &'a str, bool);

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mixed_stream_ends_where_it_should_and_is_counted() {
    let Some(stream) = TestStream::create().await else {
        return;
    };

    // The fallback registry holds a schema the bundle lacks.
    let running = server::start();
    running
        .registry
        .publish(
            Schema::json(common::urn(REFUND_URN), REFUND_SCHEMA),
            Compatibility::None,
        )
        .unwrap();

    let orders = stream.subject("orders");
    let refunds = stream.subject("refunds");
    let v1 = "urn:acme:schema:orders.created:1";
    // (subject, headers, body, the consumer's line, dead-lettered)
    let mut sent: Vec<Sent> = Vec::new();
    sent.push((
        orders.clone(),
        binary_event(Some(v1), "e1"),
        ORDER_V1.into(),
        "validated",
        false,
    ));
    let (h, b) = structured_event("urn:acme:schema:orders.created:2", "e2", ORDER_V2);
    sent.push((orders.clone(), h, b.into(), "validated", false));
    sent.push((
        orders.clone(),
        binary_event(Some(v1), "e3"),
        ORDER_BAD.into(),
        "invalid (urn:acme:schema:orders.created:1, 3 violations)",
        true,
    ));
    sent.push((
        refunds.clone(),
        binary_event(Some(REFUND_URN), "e4"),
        r#"{"refund_id":"ref_9","amount":3}"#.into(),
        "validated",
        false,
    ));
    let (h, b) = structured_event(REFUND_URN, "e5", r#"{"refund_id":"R9","amount":-1}"#);
    sent.push((
        refunds.clone(),
        h,
        b.into(),
        "invalid (urn:acme:schema:refunds.issued:1, 2 violations)",
        true,
    ));
    sent.push((
        orders.clone(),
        binary_event(Some("urn:acme:schema:nowhere.held:1"), "e6"),
        ORDER_V1.into(),
        "unvalidated (not_found)",
        false,
    ));
    sent.push((
        orders.clone(),
        binary_event(None, "e7"),
        ORDER_V1.into(),
        "no schema",
        false,
    ));
    sent.push((
        orders.clone(),
        binary_event(Some(v1), "e8"),
        r#"{"order_id": "ord_a1b2c3","#.into(),
        "invalid (urn:acme:schema:orders.created:1, 1 violations)",
        true,
    ));
    let mut plain = HeaderMap::new();
    plain.insert("Content-Type", "application/cloudevents+json");
    sent.push((
        orders.clone(),
        plain,
        "this is not a CloudEvent".into(),
        "unreadable",
        true,
    ));
    sent.push((
        orders.clone(),
        binary_event(Some("https://acme.example/orders.json"), "e10"),
        ORDER_V1.into(),
        "unvalidated (not_a_urn)",
        false,
    ));
    // Avro events (the bundle's payments.made), in both modes: one datum
    // in Avro's binary encoding.
    let payments = stream.subject("payments");
    let valid_payment = common::read("payloads/payment_valid.avro");
    sent.push((
        payments.clone(),
        avro_binary_event("e11"),
        valid_payment.clone(),
        "validated",
        false,
    ));
    let (h, b) = avro_structured_event("e12", &valid_payment);
    sent.push((payments.clone(), h, b, "validated", false));
    sent.push((
        payments.clone(),
        avro_binary_event("e13"),
        common::read("payloads/payment_bad_currency.avro"),
        "invalid (urn:acme:schema:payments.made:1, 1 violations)",
        true,
    ));
    let (h, b) = avro_structured_event("e14", &common::read("payloads/payment_truncated.avro"));
    sent.push((
        payments.clone(),
        h,
        b,
        "invalid (urn:acme:schema:payments.made:1, 1 violations)",
        true,
    ));
    for (number, (subject, headers, body, _, _)) in sent.iter().enumerate() {
        let seq = publish(&stream.js, subject, headers.clone(), body).await;
        assert_eq!(seq, number as u64 + 1);
    }

    // The flags in their two-word form (the others' tests use `--flag=value`).
    let mut consumer = Consumer::start(&[
        "--stream".into(),
        stream.name.clone(),
        "--subject".into(),
        stream.subject("*"),
        "--consumer".into(),
        stream.consumer.clone(),
        "--registry".into(),
        running.url(""),
        "--metrics".into(),
        "127.0.0.1:0".into(),
        "--nats".into(),
        std::env::var("DATASCHEMA_NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".into()),
    ]);
    let first = consumer.line(Duration::from_secs(30)).await;
    let metrics_url = first
        .strip_prefix("metrics on ")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_owned();
    let second = consumer.line(Duration::from_secs(30)).await;
    assert!(second.starts_with("consuming "), "{second:?}");

    // One line per message (messages are validated in parallel: in the
    // order they finish).
    let mut wanted_lines: Vec<String> = sent
        .iter()
        .enumerate()
        .map(|(number, (subject, _, _, verdict, dead))| {
            let mut wanted = format!("message {} {subject}: {verdict}", number + 1);
            if *dead {
                wanted.push_str(&format!(" -> {subject}.dlq"));
            }
            wanted
        })
        .collect();
    let mut lines = Vec::new();
    for _ in &sent {
        lines.push(consumer.line(Duration::from_secs(30)).await);
    }
    lines.sort();
    wanted_lines.sort();
    assert_eq!(lines, wanted_lines);

    // Every message acknowledged (double acks: confirmed before the line).
    let info = stream.consumer_info().await;
    assert_eq!(info.delivered.stream_sequence, sent.len() as u64);
    assert_eq!(info.ack_floor.stream_sequence, sent.len() as u64);
    assert_eq!(
        (info.num_pending, info.num_ack_pending, info.num_redelivered),
        (0, 0, 0)
    );

    // The dead letters: the invalid and the unreadable, with headers.
    let mut dlq = stream.dead_letters().await;
    let dead: Vec<(usize, &Sent)> = sent.iter().enumerate().filter(|(_, m)| m.4).collect();
    assert_eq!(dlq.info().await.unwrap().state.messages, dead.len() as u64);
    // Stored in the order they were handled: found by their source.
    let mut letters = BTreeMap::new();
    for n in 1..=dead.len() as u64 {
        let letter = dlq.get_raw_message(n).await.unwrap();
        let source = header(&letter.headers, "Dataschema-Source-Sequence")
            .expect("a dead letter names its source")
            .to_owned();
        letters.insert(source, letter);
    }
    for (number, (subject, original, body, _, _)) in dead.iter() {
        let letter = letters
            .remove(&(number + 1).to_string())
            .unwrap_or_else(|| panic!("no dead letter of message {}", number + 1));
        let h = &letter.headers;
        assert_eq!(letter.subject.as_str(), format!("{subject}.dlq"));
        assert_eq!(
            letter.payload.as_ref(),
            body.as_slice(),
            "the original body"
        );
        assert_eq!(
            header(h, "Dataschema-Source-Stream"),
            Some(stream.name.as_str())
        );
        assert_eq!(
            header(h, "Dataschema-Source-Subject"),
            Some(subject.as_str())
        );
        let source_sequence = (number + 1).to_string();
        assert_eq!(
            header(h, "Dataschema-Source-Sequence"),
            Some(source_sequence.as_str())
        );
        // The original headers travel along.
        assert_eq!(header(h, "ce-id"), header(original, "ce-id"));
        assert_eq!(header(h, "Content-Type"), header(original, "Content-Type"));
        let violations: Vec<&str> = (1..=16)
            .map_while(|n| header(h, &format!("Dataschema-Violation-{n}")))
            .collect();
        for value in &violations {
            assert!(
                value.len() <= 300 && value.bytes().all(|b| (32..127).contains(&b)),
                "{value:?}"
            );
        }
        match number + 1 {
            3 => {
                assert_eq!(header(h, "Dataschema-Verdict"), Some("invalid"));
                assert_eq!(header(h, "Dataschema-Urn"), Some(v1));
                assert_eq!(header(h, "Dataschema-Violation-Count"), Some("3"));
                let paths: Vec<&str> = violations
                    .iter()
                    .map(|v| v.split(' ').next().unwrap())
                    .collect();
                assert_eq!(
                    paths,
                    ["/items", "/order_id", "/placed_at"],
                    "{violations:?}"
                );
            }
            5 => {
                assert_eq!(header(h, "Dataschema-Urn"), Some(REFUND_URN));
                assert_eq!(header(h, "Dataschema-Violation-Count"), Some("2"));
                let mut paths: Vec<&str> = violations
                    .iter()
                    .map(|v| v.split(' ').next().unwrap())
                    .collect();
                paths.sort();
                assert_eq!(paths, ["/amount", "/refund_id"], "{violations:?}");
            }
            8 => {
                assert_eq!(header(h, "Dataschema-Violation-Count"), Some("1"));
                assert!(
                    violations[0].starts_with("(root) (NotJson): "),
                    "{violations:?}"
                );
            }
            9 => {
                assert_eq!(header(h, "Dataschema-Verdict"), Some("unreadable"));
                assert!(header(h, "Dataschema-Error")
                    .unwrap()
                    .contains("not a JSON CloudEvent"));
                assert!(header(h, "Dataschema-Urn").is_none());
            }
            13 | 14 => {
                assert_eq!(header(h, "Dataschema-Verdict"), Some("invalid"));
                assert_eq!(header(h, "Dataschema-Urn"), Some(PAYMENT_URN));
                assert_eq!(header(h, "Dataschema-Violation-Count"), Some("1"));
                let wanted = if number + 1 == 13 {
                    "/currency (Enum): enum index 3 is out of range"
                } else {
                    "/paid_at (Wire): the payload ends inside a long"
                };
                assert!(violations[0].starts_with(wanted), "{violations:?}");
            }
            other => panic!("message {other} was not to be dead-lettered"),
        }
    }

    // The counters, exactly: every series the consumer exports.
    let scraped = dataschema_series(&scrape(&metrics_url));
    let mut wanted: BTreeMap<String, f64> = BTreeMap::new();
    for urn in common::samples().list().unwrap() {
        for name in ["dataschema_validated_total", "dataschema_invalid_total"] {
            wanted.insert(format!("{name}{{schema=\"{}\"}}", urn.name()), 0.0);
        }
    }
    // The guard's cache held every schema: nothing evicted.
    wanted.insert("dataschema_guard_cache_evictions_total".to_owned(), 0.0);
    for reason in dataschema::Reason::ALL {
        wanted.insert(
            format!("dataschema_unvalidated_total{{reason=\"{reason}\"}}"),
            0.0,
        );
    }
    for (series, value) in [
        (
            r#"dataschema_validated_total{schema="orders.created"}"#,
            2.0,
        ),
        (r#"dataschema_invalid_total{schema="orders.created"}"#, 2.0),
        (
            r#"dataschema_validated_total{schema="refunds.issued"}"#,
            1.0,
        ),
        (r#"dataschema_invalid_total{schema="refunds.issued"}"#, 1.0),
        (r#"dataschema_validated_total{schema="payments.made"}"#, 2.0),
        (r#"dataschema_invalid_total{schema="payments.made"}"#, 2.0),
        (r#"dataschema_unvalidated_total{reason="not_found"}"#, 1.0),
        (r#"dataschema_unvalidated_total{reason="not_a_urn"}"#, 1.0),
        ("dataschema_consumer_unreadable_total", 1.0),
        ("dataschema_consumer_dead_letters_total", 6.0),
    ] {
        wanted.insert(series.to_owned(), value);
    }
    assert_eq!(scraped, wanted);

    // SIGTERM: a clean stop.
    let status = Command::new("kill")
        .args(["-TERM", &consumer.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = consumer.exit(Duration::from_secs(20)).await;
    assert!(
        exit.success(),
        "exit {exit:?}; stderr:\n{}",
        consumer.stderr()
    );
    let rest = consumer.rest().await;
    assert_eq!(
        rest,
        [format!("stopped after {} messages (signal)", sent.len())]
    );

    stream.delete().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_messages_stops_after_that_many_and_leaves_the_rest() {
    let Some(stream) = TestStream::create().await else {
        return;
    };
    for n in 0..3 {
        let headers = binary_event(Some("urn:acme:schema:orders.created:1"), &format!("m{n}"));
        stream.publish("orders", headers, ORDER_V1).await;
    }
    let mut consumer = stream.start(&["--max-messages=2".into()]);
    let exit = consumer.exit(Duration::from_secs(60)).await;
    assert!(
        exit.success(),
        "exit {exit:?}; stderr:\n{}",
        consumer.stderr()
    );
    let lines = consumer.rest().await;
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(
        lines[0].starts_with("metrics on http://127.0.0.1:"),
        "{lines:?}"
    );
    // Validated in parallel: in the order they finish.
    let mut handled = lines[2..4].to_vec();
    handled.sort();
    assert_eq!(
        handled,
        [
            format!("message 1 {}: validated", stream.subject("orders")),
            format!("message 2 {}: validated", stream.subject("orders"))
        ]
    );
    assert_eq!(
        lines[4],
        "stopped after 2 messages (--max-messages reached)"
    );
    let info = stream.consumer_info().await;
    assert_eq!(info.ack_floor.stream_sequence, 2);
    assert_eq!(
        info.num_pending + info.num_ack_pending as u64,
        1,
        "{info:?}"
    );
    stream.delete().await;
}

/// An invalid message that fits the server's `max_payload`, but whose
/// dead letter (its body, plus the violation headers) would not: the dead
/// letter is stored without the body (saying so, and where the original
/// is), and the original acknowledged, rather than redelivered forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_message_near_max_payload_is_dead_lettered_without_its_body() {
    let Some(stream) = TestStream::create().await else {
        return;
    };
    let max_payload = stream.max_payload;
    let subject = stream.subject("orders");
    // The original's headers are well under 512 bytes: it fits.
    let filler = "x".repeat(max_payload - 512);
    let big = format!(r#"{{"order_id": "{filler}"}}"#);
    let v1 = "urn:acme:schema:orders.created:1";
    publish(&stream.js, &subject, binary_event(Some(v1), "big"), &big).await;
    publish(&stream.js, &subject, binary_event(Some(v1), "ok"), ORDER_V1).await;
    let mut consumer = stream.start(&["--max-messages=2".into()]);
    let exit = consumer.exit(Duration::from_secs(60)).await;
    let lines = consumer.rest().await;
    assert!(
        exit.success(),
        "exit {exit:?}; stdout {lines:?}; stderr:\n{}",
        consumer.stderr()
    );
    assert!(
        lines.iter().any(
            |line| line.starts_with(&format!("message 1 {subject}: invalid ("))
                && line.ends_with(&format!("-> {subject}.dlq"))
        ),
        "{lines:?}"
    );
    assert!(
        lines.contains(&format!("message 2 {subject}: validated")),
        "{lines:?}"
    );
    let info = stream.consumer_info().await;
    assert_eq!(info.ack_floor.stream_sequence, 2, "{info:?}");
    let mut dlq = stream.dead_letters().await;
    assert_eq!(dlq.info().await.unwrap().state.messages, 1);
    let letter = dlq.get_raw_message(1).await.unwrap();
    assert!(letter.payload.is_empty(), "{} bytes", letter.payload.len());
    let headers = letter.headers;
    assert_eq!(header(&headers, "Dataschema-Verdict"), Some("invalid"));
    assert_eq!(header(&headers, "Dataschema-Urn"), Some(v1));
    assert_eq!(header(&headers, "Dataschema-Source-Sequence"), Some("1"));
    let omitted = header(&headers, "Dataschema-Body-Omitted").unwrap_or_default();
    assert!(
        omitted.starts_with(&format!("{} bytes", big.len())),
        "{headers:?}"
    );
    assert!(
        header(&headers, "Dataschema-Violation-1").is_some(),
        "{headers:?}"
    );
    stream.delete().await;
}

/// A producer cannot forge the verdict: `Dataschema-*` headers of the
/// original, in any case, are not copied into its dead letter; others are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_letter_carries_no_dataschema_header_of_the_original() {
    let Some(stream) = TestStream::create().await else {
        return;
    };
    let subject = stream.subject("orders");
    let v1 = "urn:acme:schema:orders.created:1";
    let mut headers = binary_event(Some(v1), "e11");
    headers.insert("dataschema-verdict", "forged-verdict");
    headers.insert("Dataschema-Violation-9", "forged-violation");
    headers.insert("DATASCHEMA-URN", "forged-urn");
    headers.insert("X-Keep", "kept");
    publish(&stream.js, &subject, headers, ORDER_BAD).await;
    let mut consumer = stream.start(&["--max-messages=1".into()]);
    let exit = consumer.exit(Duration::from_secs(60)).await;
    let lines = consumer.rest().await;
    assert!(
        exit.success(),
        "exit {exit:?}; stdout {lines:?}; stderr:\n{}",
        consumer.stderr()
    );
    let mut dlq = stream.dead_letters().await;
    assert_eq!(dlq.info().await.unwrap().state.messages, 1, "{lines:?}");
    let letter = dlq.get_raw_message(1).await.unwrap();
    let headers = letter.headers;
    let mut shown = Vec::new();
    for (name, values) in headers.iter() {
        for value in values {
            shown.push(format!("{}: {}", name.as_ref() as &str, value.as_str()));
        }
    }
    assert!(
        !shown.iter().any(|line| line.contains("forged")),
        "{shown:?}"
    );
    assert_eq!(header(&headers, "Dataschema-Verdict"), Some("invalid"));
    assert_eq!(header(&headers, "Dataschema-Urn"), Some(v1));
    assert_eq!(header(&headers, "X-Keep"), Some("kept"));
    assert_eq!(header(&headers, "ce-id"), Some("e11"));
    stream.delete().await;
}

/// A fallback that accepts connections and never answers costs each
/// message naming an unknown URN its wait (1.5 s), but only that message:
/// the valid messages behind them are handled meanwhile, not after them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn valid_messages_do_not_wait_behind_a_registry_that_never_answers() {
    let Some(stream) = TestStream::create().await else {
        return;
    };
    let silent = fake_registry::FakeRegistry::start(|_| fake_registry::Reply::Silent);
    const SLOW: usize = 3;
    const VALID: usize = 20;
    for n in 0..SLOW {
        let urn = format!("urn:acme:schema:slow.n{n}:1");
        stream
            .publish(
                "orders",
                binary_event(Some(&urn), &format!("s{n}")),
                ORDER_V1,
            )
            .await;
    }
    for n in 0..VALID {
        let headers = binary_event(Some("urn:acme:schema:orders.created:1"), &format!("v{n}"));
        stream.publish("orders", headers, ORDER_V1).await;
    }
    let mut consumer = stream.start(&[format!("--registry={}", silent.url())]);
    let first = consumer.line(Duration::from_secs(30)).await;
    let metrics_url = first.strip_prefix("metrics on ").unwrap().to_owned();
    let second = consumer.line(Duration::from_secs(30)).await;
    assert!(second.starts_with("consuming "), "{second:?}");
    let start = Instant::now();
    let mut lines = Vec::new();
    for _ in 0..SLOW + VALID {
        let line = consumer.line(Duration::from_secs(30)).await;
        lines.push((line, start.elapsed()));
    }
    let slow: Vec<&(String, Duration)> = lines
        .iter()
        .filter(|(line, _)| line.ends_with("unvalidated (unreachable)"))
        .collect();
    let valid: Vec<&(String, Duration)> = lines
        .iter()
        .filter(|(line, _)| line.ends_with(": validated"))
        .collect();
    assert_eq!((slow.len(), valid.len()), (SLOW, VALID), "{lines:?}");
    // The slow ones came first in the stream, and still finish last.
    for (line, _) in &slow {
        let number: usize = line.split(' ').nth(1).unwrap().parse().unwrap();
        assert!(number <= SLOW, "{line}");
    }
    let first_slow = slow.iter().map(|(_, at)| *at).min().unwrap();
    let last_valid = valid.iter().map(|(_, at)| *at).max().unwrap();
    assert!(
        last_valid < first_slow,
        "a valid message waited behind a slow one: {lines:?}"
    );
    assert!(
        first_slow >= Duration::from_millis(1000),
        "the slow ones did wait for the registry: {lines:?}"
    );
    assert!(
        silent.requests().len() >= SLOW,
        "each unknown URN was asked: {:?}",
        silent.requests()
    );
    let scraped = dataschema_series(&scrape(&metrics_url));
    assert_eq!(
        scraped[r#"dataschema_unvalidated_total{reason="unreachable"}"#],
        SLOW as f64
    );
    assert_eq!(
        scraped[r#"dataschema_validated_total{schema="orders.created"}"#],
        VALID as f64
    );
    drop(consumer);
    stream.delete().await;
}

/// The durable consumer deleted under a running consumer: it stops, with a
/// non-zero exit code saying so (a supervisor restarts it, an alert
/// fires), rather than exiting 0 as if asked to stop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consumer_exits_non_zero_when_its_durable_consumer_is_deleted() {
    let Some(stream) = TestStream::create().await else {
        return;
    };
    let headers = binary_event(Some("urn:acme:schema:orders.created:1"), "d1");
    stream.publish("orders", headers, ORDER_V1).await;
    let mut consumer = stream.start(&[]);
    for _ in 0..2 {
        consumer.line(Duration::from_secs(30)).await;
    }
    let line = consumer.line(Duration::from_secs(30)).await;
    assert_eq!(
        line,
        format!("message 1 {}: validated", stream.subject("orders"))
    );
    let deleted_at = Instant::now();
    stream
        .js
        .get_stream(&stream.name)
        .await
        .unwrap()
        .delete_consumer(&stream.consumer)
        .await
        .unwrap();
    // Within the heartbeat's bound (twice its 15 s), if the server does not
    // say at once.
    let exit = consumer.exit(Duration::from_secs(60)).await;
    let stderr = consumer.stderr();
    assert!(!exit.success(), "exit {exit:?}; stderr:\n{stderr}");
    assert_eq!(exit.code(), Some(1), "stderr:\n{stderr}");
    assert!(
        stderr.contains(&stream.consumer)
            && (stderr.contains("deleted") || stderr.contains("gone")),
        "{stderr}"
    );
    eprintln!("exited {:?} after the deletion", deleted_at.elapsed());
    stream.delete().await;
}

#[test]
fn bad_flags_are_usage_errors() {
    for args in [
        &["--no-such-flag"][..],
        &["--max-messages", "many"],
        &["--subject", "events.>"],
        &["--subject", "events.*", "--dead-letter", "events.dlq"],
        &["--stream", "has.dot"],
        &["--metrics"],
    ] {
        let out = Command::new(consumer_binary()).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "{args:?}: {stderr}");
        assert!(stderr.starts_with("nats_consumer: "), "{args:?}: {stderr}");
    }
}

/// A data contract's `DLQ` rule (issue 40): the registry's version carries
/// a `CEL` condition whose `onFailure` is `DLQ`; the consumer (its
/// fallback reads the native API, `Dataschema-Contract`) dead-letters the
/// payload that fails it, its line and its dead letter naming the rule
/// and the action, and acknowledges the one that holds.
#[cfg(feature = "cel")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payload_a_dlq_rule_refuses_is_dead_lettered_naming_the_rule() {
    let Some(stream) = TestStream::create().await else {
        return;
    };
    let running = server::start();
    let rules = dataschema::RuleSet::from_json(&serde_json::json!({"domainRules": [
        {"name": "positiveRefund", "kind": "CONDITION", "type": "CEL", "mode": "WRITEREAD",
         "expr": "message.amount > 0", "onFailure": "DLQ"}
    ]}))
    .unwrap();
    // The schema lets any number through: the rule alone refuses.
    let schema = r#"{"type":"object","properties":{"refund_id":{"type":"string"},"amount":{"type":"number"}},"required":["refund_id","amount"]}"#;
    running
        .registry
        .publish(
            Schema::json(common::urn(REFUND_URN), schema).with_rule_set(Some(rules)),
            Compatibility::None,
        )
        .unwrap();
    let subject = stream.subject("refunds");
    publish(
        &stream.js,
        &subject,
        binary_event(Some(REFUND_URN), "r1"),
        r#"{"refund_id": "ref_1", "amount": -5}"#,
    )
    .await;
    publish(
        &stream.js,
        &subject,
        binary_event(Some(REFUND_URN), "r2"),
        r#"{"refund_id": "ref_2", "amount": 5}"#,
    )
    .await;
    let mut consumer = stream.start(&[
        format!("--registry={}", running.url("")),
        "--max-messages=2".into(),
    ]);
    let exit = consumer.exit(Duration::from_secs(60)).await;
    let lines = consumer.rest().await;
    assert!(
        exit.success(),
        "exit {exit:?}; stdout {lines:?}; stderr:\n{}",
        consumer.stderr()
    );
    assert!(
        lines.contains(&format!(
            "message 1 {subject}: invalid ({REFUND_URN}, 1 violations, rule positiveRefund CEL, \
             action DLQ) -> {subject}.dlq"
        )),
        "{lines:?}"
    );
    assert!(
        lines.contains(&format!("message 2 {subject}: validated")),
        "{lines:?}"
    );
    let mut dlq = stream.dead_letters().await;
    assert_eq!(dlq.info().await.unwrap().state.messages, 1, "{lines:?}");
    let letter = dlq.get_raw_message(1).await.unwrap();
    let headers = letter.headers;
    assert_eq!(header(&headers, "Dataschema-Rule"), Some("positiveRefund"));
    assert_eq!(header(&headers, "Dataschema-Rule-Action"), Some("DLQ"));
    assert_eq!(header(&headers, "ce-id"), Some("r1"));
    stream.delete().await;
}
