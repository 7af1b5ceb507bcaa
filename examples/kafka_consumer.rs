//! A Kafka consumer (`rdkafka`'s `StreamConsumer`) that validates every
//! message with a guard, dead-letters the invalid ones, commits each
//! offset only once its message is settled, and exports the guard's
//! counters to Prometheus. The NATS example's twin: what they share
//! (the guard, the verdict, the dead letter's headers, the exporter, the
//! flags, the stop signal) is `examples/support/consumer.rs`.
//!
//! ```text
//! cargo run --example kafka_consumer --features kafka-example -- \
//!     --brokers 127.0.0.1:9092 --topic events --group dataschema-guard \
//!     --registry http://127.0.0.1:8081 --metrics 127.0.0.1:9464
//! ```
//!
//! # What it does with a message
//!
//! * a Confluent frame (the payload starts with the magic byte 0, as
//!   Confluent's serializers and `dataschema::Framer` write it) is
//!   validated against the schema its id names (`Guard::validate_framed`:
//!   ids from the bundle's lock, else the registry);
//! * a CloudEvent in binary mode (a `ce_specversion` header, the Kafka
//!   binding's) is validated against its `ce_dataschema` header (none: no
//!   schema);
//! * a JSON CloudEvent (structured mode) against its `dataschema`.
//!
//! | verdict | what happens |
//! |---|---|
//! | validated, no schema, unvalidated (any reason) | settled: its offset committed |
//! | invalid | produced to the dead-letter topic with the violations in headers, then settled |
//! | unreadable (none of the above) | dead-lettered the same way (`Dataschema-Verdict: unreadable`) |
//!
//! A dead letter is acknowledged by the broker (`acks=all`) before its
//! original's offset is committed; a commit is synchronous and retried
//! until the broker takes it, before the next message is handled. A
//! message at an offset already settled (read again after a broker
//! restart or a rebalance) is skipped, not settled twice. So a broker
//! that goes away and comes back loses nothing and settles nothing
//! twice. Messages are handled one at a time, in partition order
//! (validation on tokio's blocking pool, as a fallback fetch may wait).
//!
//! The dead letter keeps the original's key, body and headers (except
//! `Dataschema-*` ones) and adds the headers of the NATS example:
//! `Dataschema-Verdict`, `Dataschema-Urn`, `Dataschema-Violation-Count`,
//! `Dataschema-Violation-1` to `-16`, `Dataschema-Error`, and
//! `Dataschema-Source-Topic`, `-Partition`, `-Offset`.
//!
//! # Metrics
//!
//! The guard's counters (`dataschema_validated_total{schema}`,
//! `dataschema_invalid_total{schema}`, `dataschema_unvalidated_total{reason}`)
//! and `dataschema_consumer_unreadable_total`,
//! `dataschema_consumer_dead_letters_total` on `http://ADDR/metrics`.
//!
//! # Configuration
//!
//! | flag | environment | default |
//! |---|---|---|
//! | `--brokers LIST` | `DATASCHEMA_KAFKA_BROKERS` | `127.0.0.1:9092` |
//! | `--topic NAME` | `DATASCHEMA_TOPIC` | `events` |
//! | `--group NAME` | `DATASCHEMA_GROUP` | `dataschema-guard` |
//! | `--dead-letter TOPIC` | `DATASCHEMA_DEAD_LETTER` | `<topic>.dlq` |
//! | `--registry URL` | `DATASCHEMA_REGISTRY_URL` | none: bundled schemas only |
//! | `--confluent-namespace NS` | `DATASCHEMA_CONFLUENT_NAMESPACE` | none: the native API |
//! | `--fallback-wait-ms N` | `DATASCHEMA_FALLBACK_WAIT_MS` | the resolver's timeout |
//! | `--metrics ADDR` | `DATASCHEMA_METRICS_ADDR` | `127.0.0.1:9464` |
//! | `--max-messages N` | `DATASCHEMA_MAX_MESSAGES` | none: until stopped |
//!
//! It prints `metrics on http://ADDR/metrics`, `consuming ...`, one line
//! per settled message (`message PARTITION:OFFSET TOPIC: VERDICT`), and
//! stops cleanly on ctrl-c, SIGTERM or after `--max-messages` messages
//! (`stopped after N messages`), exit code 0. A bad flag exits with 64.

#[path = "support/consumer.rs"]
mod support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::message::{Header, Headers, Message, OwnedHeaders, OwnedMessage};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Offset, TopicPartitionList};

use dataschema::Guard;
use support::{Fallback, Flags, Verdict};

const HELP: &str = "\
kafka_consumer: validate a Kafka topic's messages with dataschema's guard

  --brokers LIST           bootstrap servers (DATASCHEMA_KAFKA_BROKERS, 127.0.0.1:9092)
  --topic NAME             the topic read (DATASCHEMA_TOPIC, events)
  --group NAME             the consumer group (DATASCHEMA_GROUP, dataschema-guard)
  --dead-letter TOPIC      where invalid messages go (DATASCHEMA_DEAD_LETTER, <topic>.dlq)
  --registry URL           fallback registry (DATASCHEMA_REGISTRY_URL)
  --confluent-namespace NS speak Confluent's API, URNs of NS (DATASCHEMA_CONFLUENT_NAMESPACE)
  --fallback-wait-ms N     wait for a fallback fetch at most N ms (DATASCHEMA_FALLBACK_WAIT_MS)
  --metrics ADDR           Prometheus listener (DATASCHEMA_METRICS_ADDR, 127.0.0.1:9464)
  --max-messages N         stop after N settled messages (DATASCHEMA_MAX_MESSAGES)
";

struct Config {
    brokers: String,
    topic: String,
    group: String,
    dead_letter: String,
    registry: Option<String>,
    confluent_namespace: Option<String>,
    fallback_wait: Option<Duration>,
    metrics: SocketAddr,
    max_messages: Option<u64>,
}

impl Config {
    fn from_args(args: impl IntoIterator<Item = String>) -> Result<Config, String> {
        let flags = Flags::parse(
            args,
            &[
                "--brokers",
                "--topic",
                "--group",
                "--dead-letter",
                "--registry",
                "--confluent-namespace",
                "--fallback-wait-ms",
                "--metrics",
                "--max-messages",
            ],
        )?;
        let topic = flags
            .get("--topic", "DATASCHEMA_TOPIC")
            .unwrap_or_else(|| "events".to_owned());
        let config = Config {
            brokers: flags
                .get("--brokers", "DATASCHEMA_KAFKA_BROKERS")
                .unwrap_or_else(|| "127.0.0.1:9092".to_owned()),
            group: flags
                .get("--group", "DATASCHEMA_GROUP")
                .unwrap_or_else(|| "dataschema-guard".to_owned()),
            dead_letter: flags
                .get("--dead-letter", "DATASCHEMA_DEAD_LETTER")
                .unwrap_or_else(|| format!("{topic}.dlq")),
            topic,
            registry: flags.get("--registry", "DATASCHEMA_REGISTRY_URL"),
            confluent_namespace: flags
                .get("--confluent-namespace", "DATASCHEMA_CONFLUENT_NAMESPACE"),
            fallback_wait: flags
                .number("--fallback-wait-ms", "DATASCHEMA_FALLBACK_WAIT_MS")?
                .map(Duration::from_millis),
            metrics: flags.addr("--metrics", "DATASCHEMA_METRICS_ADDR", "127.0.0.1:9464")?,
            max_messages: flags.number("--max-messages", "DATASCHEMA_MAX_MESSAGES")?,
        };
        for (flag, name) in [
            ("--topic", &config.topic),
            ("--dead-letter", &config.dead_letter),
            ("--group", &config.group),
        ] {
            // Kafka's topic names: letters, digits, '.', '_', '-'.
            if name.is_empty()
                || name.len() > 249
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
            {
                return Err(format!(
                    "{flag} {name:?}: 1 to 249 letters, digits, '.', '_' or '-'"
                ));
            }
        }
        if config.dead_letter == config.topic {
            return Err("--dead-letter must differ from --topic".to_owned());
        }
        Ok(config)
    }
}

/// A header's value as text, its name compared without regard to case.
fn header<'a>(message: &'a OwnedMessage, name: &str) -> Option<&'a str> {
    let headers = message.headers()?;
    headers
        .iter()
        .find(|header| header.key.eq_ignore_ascii_case(name))
        .and_then(|header| header.value)
        .and_then(|value| std::str::from_utf8(value).ok())
}

/// The verdict on one message. Runs on the blocking pool: a fallback
/// fetch may wait.
fn classify(guard: &Guard, message: &OwnedMessage) -> Verdict {
    let payload = message.payload().unwrap_or_default();
    if header(message, "ce_specversion").is_some() {
        let dataschema = header(message, "ce_dataschema").unwrap_or("");
        return Verdict::of(guard.validate(dataschema, payload));
    }
    if payload.first() == Some(&0) {
        return Verdict::of(guard.validate_framed(payload));
    }
    match serde_json::from_slice::<cloudevents::Event>(payload) {
        Ok(event) => Verdict::of(guard.validate_event(&event)),
        Err(err) => Verdict::Unreadable(format!(
            "not a Confluent frame (no magic byte 0), no ce_specversion header (binary \
             mode), and the body is not a JSON CloudEvent (structured mode): {err}"
        )),
    }
}

/// The dead letter's headers: the original's (without `Dataschema-*`),
/// the verdict's, and where it came from.
fn dead_letter_headers(message: &OwnedMessage, verdict: &Verdict) -> OwnedHeaders {
    let mut headers = OwnedHeaders::new();
    if let Some(original) = message.headers() {
        for header in original.iter() {
            if !support::is_ours(header.key.as_bytes()) {
                headers = headers.insert(header);
            }
        }
    }
    let source = [
        (
            "Dataschema-Source-Topic".to_owned(),
            message.topic().to_owned(),
        ),
        (
            "Dataschema-Source-Partition".to_owned(),
            message.partition().to_string(),
        ),
        (
            "Dataschema-Source-Offset".to_owned(),
            message.offset().to_string(),
        ),
    ];
    for (key, value) in verdict.headers().iter().chain(source.iter()) {
        headers = headers.insert(Header {
            key,
            value: Some(value.as_bytes()),
        });
    }
    headers
}

async fn run(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    let metrics_addr = support::install_exporter(config.metrics)?;
    println!("metrics on http://{metrics_addr}/metrics");
    let unreadable = metrics::counter!("dataschema_consumer_unreadable_total");
    let dead_letters = metrics::counter!("dataschema_consumer_dead_letters_total");
    // Built after the exporter is installed: its counters land there.
    let fallback = config.registry.as_deref().map(|url| Fallback {
        url,
        confluent_namespace: config.confluent_namespace.as_deref(),
        wait: config.fallback_wait,
    });
    let guard = support::guard(dataschema::include_bundle!(), fallback.as_ref())?;

    let consumer: StreamConsumer = ClientConfig::new()
        .set("bootstrap.servers", &config.brokers)
        .set("group.id", &config.group)
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "10000")
        .create()?;
    consumer.subscribe(&[&config.topic])?;
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", &config.brokers)
        .set("acks", "all")
        .set("message.timeout.ms", "30000")
        .create()?;
    println!(
        "consuming {} as {}; dead letters to {}",
        config.topic, config.group, config.dead_letter
    );

    // The next offset to settle, per partition: a message before it was
    // settled already (read again after a rebalance), and is skipped.
    let mut next: HashMap<i32, i64> = HashMap::new();
    let mut settled: u64 = 0;
    let mut stop = std::pin::pin!(support::stop_signal());
    let ended = loop {
        if config.max_messages.is_some_and(|max| settled >= max) {
            break "--max-messages reached";
        }
        let message = tokio::select! {
            () = &mut stop => break "signal",
            received = consumer.recv() => match received {
                Ok(message) => message.detach(),
                Err(err) => {
                    eprintln!("reading {}: {err}", config.topic);
                    continue;
                }
            },
        };
        let (partition, offset) = (message.partition(), message.offset());
        if next.get(&partition).is_some_and(|next| offset < *next) {
            eprintln!("message {partition}:{offset}: settled already, skipped");
            continue;
        }
        let checker = guard.clone();
        let (message, verdict) = tokio::task::spawn_blocking(move || {
            let verdict = classify(&checker, &message);
            (message, verdict)
        })
        .await?;
        let mut line = format!(
            "message {partition}:{offset} {}: {}",
            message.topic(),
            verdict.line()
        );
        if verdict.is_dead_letter() {
            let headers = dead_letter_headers(&message, &verdict);
            // Stored before the original is settled: retried until then
            // (a stop meanwhile leaves the original unsettled: read again
            // by the next consumer, not lost).
            loop {
                let mut record = FutureRecord::to(&config.dead_letter)
                    .payload(message.payload().unwrap_or_default())
                    .headers(headers.clone());
                if let Some(key) = message.key() {
                    record = record.key(key);
                }
                let sent = tokio::select! {
                    () = &mut stop => None,
                    sent = producer.send(record, Duration::from_secs(30)) => Some(sent),
                };
                match sent {
                    None => return stopped(settled, "signal"),
                    Some(Ok(_)) => break,
                    Some(Err((err, _))) => {
                        eprintln!(
                            "message {partition}:{offset}: dead letter not stored ({err}); retrying"
                        );
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                }
            }
            dead_letters.increment(1);
            if matches!(verdict, Verdict::Unreadable(_)) {
                unreadable.increment(1);
            }
            line.push_str(&format!(" -> {}", config.dead_letter));
        }
        let mut offsets = TopicPartitionList::new();
        offsets.add_partition_offset(message.topic(), partition, Offset::Offset(offset + 1))?;
        loop {
            match tokio::task::block_in_place(|| consumer.commit(&offsets, CommitMode::Sync)) {
                Ok(()) => break,
                Err(err) => {
                    eprintln!("message {partition}:{offset}: commit failed ({err}); retrying");
                    tokio::select! {
                        () = &mut stop => return stopped(settled, "signal"),
                        () = tokio::time::sleep(Duration::from_millis(500)) => {}
                    }
                }
            }
        }
        next.insert(partition, offset + 1);
        settled += 1;
        println!("{line}");
    };
    stopped(settled, ended)
}

fn stopped(settled: u64, why: &str) -> Result<(), Box<dyn std::error::Error>> {
    println!("stopped after {settled} messages ({why})");
    Ok(())
}

fn main() {
    support::main("kafka_consumer", HELP, Config::from_args, run);
}
