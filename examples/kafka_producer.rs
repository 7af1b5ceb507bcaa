//! A Kafka producer (`rdkafka`'s `FutureProducer`) that frames each
//! payload with `dataschema::Framer` before it is sent: validated as the
//! consumers' guards will validate it, then Confluent's wire format with
//! the schema id from the bundle's lock, else the registry. What cannot
//! be framed is not sent: it is said, with its reason, and counted
//! (`dataschema_frame_errors_total{reason}`).
//!
//! ```text
//! printf '%s\n' '{"urn": "urn:acme:schema:orders.created:1", "data": {...}}' |
//! cargo run --example kafka_producer --features kafka-example -- \
//!     --brokers 127.0.0.1:9092 --topic events --registry http://127.0.0.1:8081
//! ```
//!
//! Standard input holds one JSON object a line: `urn` (the schema),
//! `data` (a JSON payload) or `data_base64` (a protobuf or Avro payload's
//! bytes), and optionally `message` (a protobuf message's full name) and
//! `key` (the record's key).
//!
//! It prints `produced URN -> PARTITION:OFFSET` for each record the broker
//! acknowledged (`acks=all`), `not framed (REASON): ...` for each refused,
//! and at the end `produced N, not framed M`. Exit code 0 when every line
//! was produced, 1 when some were not framed (or not delivered), 64 for a
//! bad flag.
//!
//! | flag | environment | default |
//! |---|---|---|
//! | `--brokers LIST` | `DATASCHEMA_KAFKA_BROKERS` | `127.0.0.1:9092` |
//! | `--topic NAME` | `DATASCHEMA_TOPIC` | `events` |
//! | `--registry URL` | `DATASCHEMA_REGISTRY_URL` | none: the lock's ids only |
//! | `--confluent-namespace NS` | `DATASCHEMA_CONFLUENT_NAMESPACE` | none: the native API |

#[path = "support/consumer.rs"]
mod support;

use std::io::BufRead as _;
use std::time::Duration;

use base64::Engine as _;
use rdkafka::config::ClientConfig;
use rdkafka::producer::{FutureProducer, FutureRecord};

use dataschema::{Framer, Registry, Urn};
use support::{Fallback, Flags};

const HELP: &str = "\
kafka_producer: frame JSON lines' payloads with dataschema's Framer and produce them

  --brokers LIST           bootstrap servers (DATASCHEMA_KAFKA_BROKERS, 127.0.0.1:9092)
  --topic NAME             the topic written (DATASCHEMA_TOPIC, events)
  --registry URL           registry for ids the lock lacks (DATASCHEMA_REGISTRY_URL)
  --confluent-namespace NS speak Confluent's API, URNs of NS (DATASCHEMA_CONFLUENT_NAMESPACE)

stdin: one {\"urn\", \"data\" | \"data_base64\", \"message\"?, \"key\"?} a line
";

/// One line of input: what to frame and send.
struct Line {
    urn: Urn,
    payload: Vec<u8>,
    message: Option<String>,
    key: Option<String>,
}

fn parse(line: &str) -> Result<Line, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|err| format!("not JSON: {err}"))?;
    let urn = value["urn"]
        .as_str()
        .ok_or("no \"urn\"")?
        .parse::<Urn>()
        .map_err(|err| format!("\"urn\": {err}"))?;
    let payload = match (&value["data"], value["data_base64"].as_str()) {
        (serde_json::Value::Null, Some(text)) => base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|err| format!("\"data_base64\": {err}"))?,
        (serde_json::Value::Null, None) => return Err("no \"data\" or \"data_base64\"".into()),
        (data, None) => serde_json::to_vec(data).map_err(|err| err.to_string())?,
        (_, Some(_)) => return Err("both \"data\" and \"data_base64\"".into()),
    };
    Ok(Line {
        urn,
        payload,
        message: value["message"].as_str().map(str::to_owned),
        key: value["key"].as_str().map(str::to_owned),
    })
}

async fn run(flags: Flags) -> Result<(), Box<dyn std::error::Error>> {
    let brokers = flags
        .get("--brokers", "DATASCHEMA_KAFKA_BROKERS")
        .unwrap_or_else(|| "127.0.0.1:9092".to_owned());
    let topic = flags
        .get("--topic", "DATASCHEMA_TOPIC")
        .unwrap_or_else(|| "events".to_owned());
    let registry = flags.get("--registry", "DATASCHEMA_REGISTRY_URL");
    let namespace = flags.get("--confluent-namespace", "DATASCHEMA_CONFLUENT_NAMESPACE");

    let bundle = dataschema::include_bundle!();
    let mut builder = Framer::builder(Registry::from_bundle(bundle)?);
    if let Some(url) = registry.as_deref() {
        let fallback = Fallback {
            url,
            confluent_namespace: namespace.as_deref(),
            wait: None,
        };
        builder = builder.fallback(support::pinned_fallback(bundle, &fallback)?);
    }
    let framer = builder.build();
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", &brokers)
        .set("acks", "all")
        .set("message.timeout.ms", "30000")
        .create()?;

    let (mut produced, mut refused) = (0u64, 0u64);
    let lines: Vec<String> = std::io::stdin().lock().lines().collect::<Result<_, _>>()?;
    for (number, text) in lines
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.trim().is_empty())
    {
        let line = match parse(text) {
            Ok(line) => line,
            Err(why) => {
                println!("line {}: not framed (unreadable): {why}", number + 1);
                refused += 1;
                continue;
            }
        };
        // Framing may ask the registry, a blocking call: off the executor.
        let checker = framer.clone();
        let (line, framed) = tokio::task::spawn_blocking(move || {
            let framed = match &line.message {
                Some(message) => checker.frame_message(&line.urn, message, &line.payload),
                None => checker.frame(&line.urn, &line.payload),
            };
            (line, framed)
        })
        .await?;
        let frame = match framed {
            Ok(frame) => frame,
            Err(err) => {
                println!("line {}: {err}", number + 1);
                refused += 1;
                continue;
            }
        };
        let mut record = FutureRecord::to(&topic).payload(&frame);
        if let Some(key) = &line.key {
            record = record.key(key);
        }
        match producer.send(record, Duration::from_secs(30)).await {
            Ok(delivery) => {
                println!(
                    "produced {} -> {}:{}",
                    line.urn, delivery.partition, delivery.offset
                );
                produced += 1;
            }
            Err((err, _)) => {
                println!("line {}: not delivered: {err}", number + 1);
                refused += 1;
            }
        }
    }
    println!("produced {produced}, not framed {refused}");
    if refused > 0 {
        return Err(format!("{refused} line(s) not framed or not delivered").into());
    }
    Ok(())
}

fn main() {
    let known = [
        "--brokers",
        "--topic",
        "--registry",
        "--confluent-namespace",
    ];
    support::main(
        "kafka_producer",
        HELP,
        |args| Flags::parse(args, &known),
        run,
    );
}
