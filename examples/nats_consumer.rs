//! A NATS JetStream consumer that validates every CloudEvent with a guard,
//! dead-letters the invalid ones and exports the guard's counters to
//! Prometheus.
//!
//! ```text
//! cargo run --example nats_consumer --features http,json,cloudevents -- \
//!     --nats nats://127.0.0.1:4222 --stream EVENTS --subject 'events.*' \
//!     --registry http://127.0.0.1:8081 --metrics 127.0.0.1:9464
//! ```
//!
//! # What it does with a message
//!
//! A message is read as a CloudEvent in either content mode of the
//! CloudEvents NATS binding:
//!
//! * **binary mode**, when it has a `ce-specversion` header: the schema is
//!   the `ce-dataschema` header (none: the event claims no schema) and the
//!   payload is the message body, checked as it is (`Guard::validate`);
//! * **structured mode** otherwise: the body is a JSON CloudEvent
//!   (`application/cloudevents+json`), whose `dataschema` and `data` (or
//!   `data_base64`) are checked (`Guard::validate_event`).
//!
//! The payload may be in any of the three languages: JSON
//! (`application/json`), protobuf (`application/protobuf`) or Avro
//! (`application/avro`, one datum in Avro's binary encoding, in structured
//! mode as `data_base64`). The schema the URN names decides how it is
//! read, not the content type.
//!
//! Then:
//!
//! | verdict | what happens |
//! |---|---|
//! | validated, no schema, unvalidated (any reason) | acknowledged |
//! | invalid | published to the dead-letter subject with the violations in headers, then acknowledged |
//! | unreadable (no `ce-specversion` header and not a JSON CloudEvent) | dead-lettered the same way (`Dataschema-Verdict: unreadable`), counted in `dataschema_consumer_unreadable_total` |
//!
//! A dead letter is published through JetStream and the original is
//! acknowledged only once the server has stored it; if the publish fails
//! the original is not acknowledged but negatively acknowledged
//! (redelivered after 5 s), so nothing is lost. Acknowledgements are
//! "double acks": each waits for the server's confirmation.
//!
//! The dead letter keeps the body and the headers of the original (except
//! `Nats-*` and `Dataschema-*` headers, in any case; when keeping them would exceed the server's
//! `max_payload`, the body is left out, and then if need be the original
//! headers, with a `Dataschema-Body-Omitted` header saying so) and adds,
//! all bounded in size (at most 16 violation headers of at most 300 bytes
//! each; values are printable ASCII, anything else escaped):
//!
//! * `Dataschema-Verdict`: `invalid` or `unreadable`;
//! * `Dataschema-Urn`: the schema the payload failed (invalid);
//! * `Dataschema-Violation-Count`: how many violations (at most 64);
//! * `Dataschema-Violation-1` to `-16`: the first violations, one header
//!   each, `PATH (KIND): MESSAGE` (numbered headers rather than one
//!   repeated header: some NATS clients keep only the last value of a
//!   repeated header, async-nats' `get_raw_message` among them);
//! * `Dataschema-Rule`, `Dataschema-Rule-Action`: the data-contract rule
//!   that refused it (its version's `ruleSet`, from the bundle or the
//!   registry) and its `onFailure` action, `DLQ` or `ERROR` (with the
//!   `cel` feature the guard runs `CEL` and `CEL_FIELD` rules; the output
//!   line says them too: `invalid (URN, 1 violations, rule NAME CEL,
//!   action DLQ) -> SUBJECT.dlq`);
//! * `Dataschema-Error`: why an unreadable message could not be read;
//! * `Dataschema-Source-Stream`, `Dataschema-Source-Subject`,
//!   `Dataschema-Source-Sequence`: where it came from.
//!
//! # Where it reads and writes
//!
//! The stream (`--stream`, created with `--subject` as its only subject if
//! it does not exist) is read through a durable pull consumer
//! (`--consumer`, created if missing, filtered on `--subject`). Dead
//! letters go to `<subject>.dlq` (the original message's subject plus
//! `.dlq`) or to the one subject given with `--dead-letter`, stored in the
//! stream `--dead-letter-stream` (default `<stream>_DLQ`, created if
//! missing). A dead-letter subject the consumer's own filter would match
//! is refused at start (a dead letter would be consumed again), and so is
//! a filter ending in `>` without `--dead-letter`.
//!
//! # Validation off the executor, in parallel
//!
//! Each message is handled in a task of its own (validated, dead-lettered
//! if need be, acknowledged), at most `--concurrency` (default 32) at
//! once: a message waiting for a slow registry holds its own slot only,
//! and the messages behind it go on. Lines and dead letters therefore
//! come in the order messages finish, not in stream order.
//!
//! The fallback is pinned to the bundle's lock: each bundled JSON Schema
//! to its digest, each id the lock records to its URN, so a registry that
//! contradicts the lock is refused (`unreachable`, counted), never taken
//! for the truth.
//!
//! The guard's `validate` is synchronous, and a URN the bundle lacks is
//! fetched from the registry (`--registry`, the `HttpResolver` fallback)
//! by a blocking wait of at most `--fallback-wait-ms` (default: the
//! resolver's total timeout, 1.5 s). So each message is validated on
//! tokio's blocking pool (`spawn_blocking`), never on an executor thread:
//! the message that meets a new URN waits for its schema, and is checked
//! rather than let through. With `--fallback-wait-ms 0` the resolver never
//! waits (the HttpResolver's design for code that validates on the
//! executor): a miss starts the fetch in the background and that message
//! fails open as `unreachable`, counted; later ones hit the cache.
//!
//! # Metrics
//!
//! `metrics-exporter-prometheus` serves `/metrics` on `--metrics ADDR`
//! (port 0: the OS picks one). The exporter is installed before the guard
//! is built, so the guard's counters land in it:
//! `dataschema_validated_total{schema}`, `dataschema_invalid_total{schema}`,
//! `dataschema_unvalidated_total{reason}`, and this consumer's
//! `dataschema_consumer_unreadable_total` and
//! `dataschema_consumer_dead_letters_total`. The alerting rules are in
//! `deploy/prometheus/dataschema.rules.yml`.
//!
//! # Configuration
//!
//! Every flag has an environment variable; the flag wins.
//!
//! | flag | environment | default |
//! |---|---|---|
//! | `--nats URL` | `DATASCHEMA_NATS_URL` | `nats://127.0.0.1:4222` |
//! | `--stream NAME` | `DATASCHEMA_STREAM` | `EVENTS` |
//! | `--subject FILTER` | `DATASCHEMA_SUBJECT` | `events.*` |
//! | `--consumer NAME` | `DATASCHEMA_CONSUMER` | `dataschema-guard` |
//! | `--dead-letter SUBJECT` | `DATASCHEMA_DEAD_LETTER` | `<subject>.dlq` |
//! | `--dead-letter-stream NAME` | `DATASCHEMA_DEAD_LETTER_STREAM` | `<stream>_DLQ` |
//! | `--registry URL` | `DATASCHEMA_REGISTRY_URL` | none: bundled schemas only |
//! | `--confluent-namespace NS` | `DATASCHEMA_CONFLUENT_NAMESPACE` | none: the registry's native API |
//! | `--fallback-wait-ms N` | `DATASCHEMA_FALLBACK_WAIT_MS` | the resolver's timeout |
//! | `--metrics ADDR` | `DATASCHEMA_METRICS_ADDR` | `127.0.0.1:9464` |
//! | `--max-messages N` | `DATASCHEMA_MAX_MESSAGES` | none: until stopped |
//! | `--concurrency N` | `DATASCHEMA_CONCURRENCY` | 32 |
//!
//! It prints `metrics on http://ADDR/metrics`, then `consuming ...`, then
//! one line per message (in the order they finish), and stops cleanly on
//! ctrl-c, SIGTERM or after `--max-messages` messages (printing `stopped
//! after N messages`, once the messages in flight are finished), with exit
//! code 0. When it cannot go on (its durable consumer deleted, the message
//! stream ended) it exits with 1 and says why. A bad flag exits with 64
//! and says which.

#[path = "support/consumer.rs"]
mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, consumer::pull, stream, AckKind};
use async_nats::HeaderMap;
use futures_util::StreamExt;

use dataschema::Guard;
use support::{header_value, Fallback, Flags, Verdict};

/// Messages validated at once by default (`--concurrency`).
const DEFAULT_CONCURRENCY: usize = 32;
/// The most `--concurrency` accepts.
const MAX_CONCURRENCY: u64 = 1024;

const HELP: &str = "\
nats_consumer: validates the CloudEvents of a NATS JetStream stream

flags (each also read from the environment variable in brackets):
  --nats URL                  NATS server [DATASCHEMA_NATS_URL] (nats://127.0.0.1:4222)
  --stream NAME               stream to read [DATASCHEMA_STREAM] (EVENTS)
  --subject FILTER            subject filter [DATASCHEMA_SUBJECT] (events.*)
  --consumer NAME             durable consumer [DATASCHEMA_CONSUMER] (dataschema-guard)
  --dead-letter SUBJECT       dead-letter subject [DATASCHEMA_DEAD_LETTER] (<subject>.dlq)
  --dead-letter-stream NAME   stream storing dead letters [DATASCHEMA_DEAD_LETTER_STREAM] (<stream>_DLQ)
  --registry URL              fallback registry [DATASCHEMA_REGISTRY_URL] (none)
  --confluent-namespace NS    speak Confluent's API for URNs of NS [DATASCHEMA_CONFLUENT_NAMESPACE]
  --fallback-wait-ms N        longest wait for a fetched schema [DATASCHEMA_FALLBACK_WAIT_MS]
  --metrics ADDR              Prometheus listener, port 0 = any [DATASCHEMA_METRICS_ADDR] (127.0.0.1:9464)
  --max-messages N            stop after N messages [DATASCHEMA_MAX_MESSAGES]
  --concurrency N             messages validated at once [DATASCHEMA_CONCURRENCY] (32)
";

/// The consumer's settings.
#[derive(Debug)]
struct Config {
    nats: String,
    stream: String,
    subject: String,
    consumer: String,
    dead_letter: Option<String>,
    dead_letter_stream: String,
    registry: Option<String>,
    confluent_namespace: Option<String>,
    fallback_wait: Option<Duration>,
    metrics: SocketAddr,
    max_messages: Option<u64>,
    concurrency: usize,
}

impl Config {
    /// From the flags, then the environment, then the defaults.
    fn from_args(args: impl IntoIterator<Item = String>) -> Result<Config, String> {
        let flags = Flags::parse(
            args,
            &[
                "--nats",
                "--stream",
                "--subject",
                "--consumer",
                "--dead-letter",
                "--dead-letter-stream",
                "--registry",
                "--confluent-namespace",
                "--fallback-wait-ms",
                "--metrics",
                "--max-messages",
                "--concurrency",
            ],
        )?;
        let get = |flag: &str, env: &str| flags.get(flag, env);
        let number = |flag: &str, env: &str| flags.number(flag, env);
        let stream = get("--stream", "DATASCHEMA_STREAM").unwrap_or_else(|| "EVENTS".to_owned());
        let metrics = flags.addr("--metrics", "DATASCHEMA_METRICS_ADDR", "127.0.0.1:9464")?;
        let config = Config {
            nats: get("--nats", "DATASCHEMA_NATS_URL")
                .unwrap_or_else(|| "nats://127.0.0.1:4222".to_owned()),
            dead_letter_stream: get("--dead-letter-stream", "DATASCHEMA_DEAD_LETTER_STREAM")
                .unwrap_or_else(|| format!("{stream}_DLQ")),
            stream,
            subject: get("--subject", "DATASCHEMA_SUBJECT")
                .unwrap_or_else(|| "events.*".to_owned()),
            consumer: get("--consumer", "DATASCHEMA_CONSUMER")
                .unwrap_or_else(|| "dataschema-guard".to_owned()),
            dead_letter: get("--dead-letter", "DATASCHEMA_DEAD_LETTER"),
            registry: get("--registry", "DATASCHEMA_REGISTRY_URL"),
            confluent_namespace: get("--confluent-namespace", "DATASCHEMA_CONFLUENT_NAMESPACE"),
            fallback_wait: number("--fallback-wait-ms", "DATASCHEMA_FALLBACK_WAIT_MS")?
                .map(Duration::from_millis),
            metrics,
            max_messages: number("--max-messages", "DATASCHEMA_MAX_MESSAGES")?,
            concurrency: match number("--concurrency", "DATASCHEMA_CONCURRENCY")? {
                None => DEFAULT_CONCURRENCY,
                Some(n @ 1..=MAX_CONCURRENCY) => n as usize,
                Some(n) => {
                    return Err(format!(
                        "--concurrency {n}: expected 1 to {MAX_CONCURRENCY} messages at once"
                    ))
                }
            },
        };
        config.check()?;
        Ok(config)
    }

    /// Refuses names NATS refuses, and a dead-letter subject the
    /// consumer's own filter would read back.
    fn check(&self) -> Result<(), String> {
        for (flag, name) in [
            ("--stream", &self.stream),
            ("--dead-letter-stream", &self.dead_letter_stream),
            ("--consumer", &self.consumer),
        ] {
            if name.is_empty()
                || name
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || ".*>/\\".contains(c))
            {
                return Err(format!(
                    "{flag} {name:?}: a stream or consumer name has no spaces, '.', '*', '>', '/' or '\\'"
                ));
            }
        }
        if !valid_subject(&self.subject, true) {
            return Err(format!(
                "--subject {:?}: not a subject filter",
                self.subject
            ));
        }
        match &self.dead_letter {
            Some(subject) => {
                if !valid_subject(subject, false) {
                    return Err(format!(
                        "--dead-letter {subject:?}: not a subject (no wildcards)"
                    ));
                }
                if subject_matches(&self.subject, subject) {
                    return Err(format!(
                        "--dead-letter {subject:?} is matched by --subject {:?}: \
                         dead letters would be consumed again",
                        self.subject
                    ));
                }
            }
            None => {
                if self.subject.ends_with('>') {
                    return Err(format!(
                        "--subject {:?} ends with '>', so <subject>.dlq would be consumed again: \
                         give --dead-letter SUBJECT, or a filter with '*'",
                        self.subject
                    ));
                }
            }
        }
        if self.dead_letter_stream == self.stream {
            return Err("--dead-letter-stream must differ from --stream".to_owned());
        }
        Ok(())
    }

    /// The subjects the dead-letter stream captures.
    fn dead_letter_subjects(&self) -> String {
        match &self.dead_letter {
            Some(subject) => subject.clone(),
            None => format!("{}.dlq", self.subject),
        }
    }

    /// Where the dead letter of a message on `subject` goes.
    fn dead_letter_for(&self, subject: &str) -> String {
        match &self.dead_letter {
            Some(fixed) => fixed.clone(),
            None => format!("{subject}.dlq"),
        }
    }
}

/// A NATS subject (or, with `wildcards`, a filter): dot-separated
/// non-empty tokens without spaces; `*` a whole token, `>` the last one.
fn valid_subject(subject: &str, wildcards: bool) -> bool {
    let tokens: Vec<&str> = subject.split('.').collect();
    tokens.iter().enumerate().all(|(i, token)| {
        !token.is_empty()
            && !token.chars().any(|c| c.is_whitespace() || c.is_control())
            && match *token {
                "*" => wildcards,
                ">" => wildcards && i == tokens.len() - 1,
                other => !other.contains(['*', '>']),
            }
    })
}

/// Whether the filter matches the (literal) subject.
fn subject_matches(filter: &str, subject: &str) -> bool {
    let mut subject_tokens = subject.split('.');
    for token in filter.split('.') {
        match token {
            ">" => return subject_tokens.next().is_some(),
            "*" => {
                if subject_tokens.next().is_none() {
                    return false;
                }
            }
            literal => {
                if subject_tokens.next() != Some(literal) {
                    return false;
                }
            }
        }
    }
    subject_tokens.next().is_none()
}

/// A header's value, its name compared without regard to case.
fn header<'a>(headers: Option<&'a HeaderMap>, name: &str) -> Option<&'a str> {
    headers?
        .iter()
        .find(|(key, _)| {
            let key: &[u8] = key.as_ref();
            key.eq_ignore_ascii_case(name.as_bytes())
        })
        .and_then(|(_, values)| values.first())
        .map(|value| value.as_str())
}

/// The verdict on one message (binary or structured mode). Runs on the
/// blocking pool: a fallback fetch may wait.
fn classify(guard: &Guard, headers: Option<&HeaderMap>, payload: &[u8]) -> Verdict {
    if header(headers, "ce-specversion").is_some() {
        let dataschema = header(headers, "ce-dataschema").unwrap_or("");
        return Verdict::of(guard.validate(dataschema, payload));
    }
    match serde_json::from_slice::<cloudevents::Event>(payload) {
        Ok(event) => Verdict::of(guard.validate_event(&event)),
        Err(err) => Verdict::Unreadable(format!(
            "no ce-specversion header (binary mode) and the body is not a JSON CloudEvent \
             (structured mode): {err}"
        )),
    }
}

/// The dead letter's headers: the original's (without `Nats-*` and
/// `Dataschema-*`), plus the
/// verdict, the violations and where it came from.
fn dead_letter_headers(
    original: Option<&HeaderMap>,
    verdict: &Verdict,
    stream: &str,
    subject: &str,
    sequence: Option<u64>,
) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Some(original) = original {
        for (name, values) in original.iter() {
            let name_bytes: &[u8] = name.as_ref();
            if name_bytes.len() >= 5 && name_bytes[..5].eq_ignore_ascii_case(b"nats-") {
                continue;
            }
            // Ours alone (in any case): a producer cannot forge a verdict
            // or a violation (names are compared as written).
            if support::is_ours(name_bytes) {
                continue;
            }
            for value in values {
                headers.append(name.clone(), value.clone());
            }
        }
    }
    for (name, value) in verdict.headers() {
        headers.insert(name, value);
    }
    headers.insert("Dataschema-Source-Stream", header_value(stream));
    headers.insert("Dataschema-Source-Subject", header_value(subject));
    if let Some(sequence) = sequence {
        headers.insert("Dataschema-Source-Sequence", sequence.to_string());
    }
    headers
}

/// The size of `headers` on the wire (as the NATS client writes them).
fn encoded_len(headers: &HeaderMap) -> usize {
    let mut len = "NATS/1.0\r\n".len() + "\r\n".len();
    for (name, values) in headers.iter() {
        let name: &[u8] = name.as_ref();
        for value in values {
            len += name.len() + ": ".len() + value.as_str().len() + "\r\n".len();
        }
    }
    len
}

/// The dead letter of a message: its headers, and whether it keeps the
/// body (of `payload_len` bytes). When they would
/// exceed the server's `max_payload` (which counts headers and body, and
/// an original just under it leaves no room for the violations), the body
/// is left out, saying so in `Dataschema-Body-Omitted` (the original stays
/// in its stream at `Dataschema-Source-Sequence`); and if the original's
/// headers alone are too many, they are left out too. Otherwise the
/// server would refuse it on every redelivery, forever.
fn dead_letter(
    original: Option<&HeaderMap>,
    payload_len: usize,
    verdict: &Verdict,
    config: &Config,
    subject: &str,
    sequence: Option<u64>,
    max_payload: usize,
) -> (HeaderMap, bool) {
    let headers = dead_letter_headers(original, verdict, &config.stream, subject, sequence);
    if encoded_len(&headers) + payload_len <= max_payload {
        return (headers, true);
    }
    let omitted = format!(
        "{payload_len} bytes: with the headers above over the server's max_payload \
         ({max_payload}); the original is in stream {} at Dataschema-Source-Sequence",
        config.stream
    );
    let mut headers = headers;
    headers.insert("Dataschema-Body-Omitted", header_value(&omitted));
    if encoded_len(&headers) > max_payload {
        headers = dead_letter_headers(None, verdict, &config.stream, subject, sequence);
        headers.insert("Dataschema-Body-Omitted", header_value(&omitted));
    }
    (headers, false)
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

    let client = async_nats::ConnectOptions::new()
        .connection_timeout(Duration::from_secs(5))
        .connect(config.nats.as_str())
        .await
        .map_err(|err| format!("NATS at {}: {err}", config.nats))?;
    let js = jetstream::new(client.clone());
    let stream = js
        .get_or_create_stream(stream::Config {
            name: config.stream.clone(),
            subjects: vec![config.subject.clone()],
            ..Default::default()
        })
        .await
        .map_err(|err| format!("stream {}: {err}", config.stream))?;
    js.get_or_create_stream(stream::Config {
        name: config.dead_letter_stream.clone(),
        subjects: vec![config.dead_letter_subjects()],
        ..Default::default()
    })
    .await
    .map_err(|err| format!("dead-letter stream {}: {err}", config.dead_letter_stream))?;
    let consumer = stream
        .get_or_create_consumer(
            &config.consumer,
            pull::Config {
                durable_name: Some(config.consumer.clone()),
                filter_subject: config.subject.clone(),
                ack_wait: Duration::from_secs(30),
                ..Default::default()
            },
        )
        .await
        .map_err(|err| format!("consumer {}: {err}", config.consumer))?;
    let mut messages = consumer.messages().await?;
    println!(
        "consuming {} ({}) as {}; dead letters to {} in {}",
        config.stream,
        config.subject,
        config.consumer,
        config.dead_letter_subjects(),
        config.dead_letter_stream
    );

    let shared = Arc::new(Shared {
        guard,
        js: js.clone(),
        client: client.clone(),
        unreadable,
        dead_letters,
        config,
    });
    let config = &shared.config;
    // Each message is handled in a task of its own, at most
    // `--concurrency` at once: one waiting for a slow registry holds its
    // slot only, and the messages behind it go on.
    let mut tasks = tokio::task::JoinSet::new();
    let mut started: u64 = 0;
    let mut handled: u64 = 0;
    let mut stop = std::pin::pin!(support::stop_signal());
    let ended: Result<&str, String> = loop {
        let room = tasks.len() < config.concurrency;
        let wanted = config.max_messages.is_none_or(|max| started < max);
        if !wanted && tasks.is_empty() {
            break Ok("--max-messages reached");
        }
        tokio::select! {
            () = &mut stop => break Ok("signal"),
            Some(done) = tasks.join_next(), if !tasks.is_empty() => match done {
                Ok(Ok(true)) => handled += 1,
                // Not acknowledged (redelivered later): another is read.
                Ok(Ok(false)) => started -= 1,
                Ok(Err(why)) => break Err(why),
                Err(err) => break Err(format!("a message's task failed: {err}")),
            },
            next = messages.next(), if room && wanted => match next {
                Some(Ok(message)) => {
                    started += 1;
                    tasks.spawn(handle(shared.clone(), message));
                }
                Some(Err(err)) => match err.kind() {
                    pull::MessagesErrorKind::ConsumerDeleted => {
                        break Err(format!("the durable consumer {} was deleted", config.consumer))
                    }
                    kind => {
                        eprintln!("reading the stream: {err}");
                        // A missing heartbeat or a failed pull: is the
                        // consumer still there?
                        if matches!(
                            kind,
                            pull::MessagesErrorKind::MissingHeartbeat
                                | pull::MessagesErrorKind::NoResponders
                                | pull::MessagesErrorKind::Pull
                        ) {
                            if let Err(gone) = consumer_exists(&stream, &config.consumer).await {
                                break Err(gone);
                            }
                        }
                    }
                },
                None => break Err(format!(
                    "the message stream of consumer {} ended",
                    config.consumer
                )),
            },
        }
    };
    // The messages in flight are finished, whatever the reason.
    while let Some(done) = tasks.join_next().await {
        if let Ok(Ok(true)) = done {
            handled += 1;
        }
    }
    client.flush().await?;
    match ended {
        Ok(reason) => {
            println!("stopped after {handled} messages ({reason})");
            Ok(())
        }
        Err(why) => {
            println!("stopped after {handled} messages (failed)");
            Err(why.into())
        }
    }
}

/// What every message's task shares.
struct Shared {
    config: Config,
    guard: Guard,
    js: jetstream::Context,
    client: async_nats::Client,
    unreadable: metrics::Counter,
    dead_letters: metrics::Counter,
}

/// `Err` saying so when the durable consumer `name` is gone.
async fn consumer_exists(stream: &jetstream::stream::Stream, name: &str) -> Result<(), String> {
    match stream.consumer_info(name).await {
        Err(err)
            if matches!(
                err.kind(),
                jetstream::context::ConsumerInfoErrorKind::NotFound
                    | jetstream::context::ConsumerInfoErrorKind::StreamNotFound
            ) =>
        {
            Err(format!("the durable consumer {name} is gone: {err}"))
        }
        // There, or the server cannot say now: reading goes on.
        _ => Ok(()),
    }
}

/// Validates one message, dead-letters it if need be and acknowledges it.
/// `Ok(true)`: handled; `Ok(false)`: not acknowledged (negatively: it is
/// redelivered later); `Err`: the consumer cannot go on.
async fn handle(shared: Arc<Shared>, message: jetstream::Message) -> Result<bool, String> {
    let config = &shared.config;
    let sequence = message.info().ok().map(|info| info.stream_sequence);
    let subject = message.subject.to_string();
    let checker = shared.guard.clone();
    let (message, verdict) = tokio::task::spawn_blocking(move || {
        let verdict = classify(&checker, message.headers.as_ref(), &message.payload);
        (message, verdict)
    })
    .await
    .map_err(|err| format!("validating a message failed: {err}"))?;
    let seq = sequence.map_or_else(|| "?".to_owned(), |s| s.to_string());
    let line = verdict.line();
    if verdict.is_dead_letter() {
        let target = config.dead_letter_for(&subject);
        let (headers, keep_body) = dead_letter(
            message.headers.as_ref(),
            message.payload.len(),
            &verdict,
            config,
            &subject,
            sequence,
            shared.client.server_info().max_payload,
        );
        let body = if keep_body {
            message.payload.clone()
        } else {
            Default::default()
        };
        let stored = match shared
            .js
            .publish_with_headers(target.clone(), headers, body)
            .await
        {
            Ok(ack) => ack.await.map(|_| ()).map_err(|err| err.to_string()),
            Err(err) => Err(err.to_string()),
        };
        if let Err(err) = stored {
            eprintln!(
                "message {seq}: dead letter to {target} not stored ({err}): redelivered later"
            );
            if let Err(err) = message
                .ack_with(AckKind::Nak(Some(Duration::from_secs(5))))
                .await
            {
                eprintln!("message {seq}: nak failed: {err}");
            }
            return Ok(false);
        }
        shared.dead_letters.increment(1);
        if matches!(verdict, Verdict::Unreadable(_)) {
            shared.unreadable.increment(1);
        }
        if let Err(err) = message.double_ack().await {
            eprintln!("message {seq}: ack failed: {err}");
        }
        println!("message {seq} {subject}: {line} -> {target}");
    } else {
        if let Err(err) = message.double_ack().await {
            eprintln!("message {seq}: ack failed: {err}");
        }
        println!("message {seq} {subject}: {line}");
    }
    Ok(true)
}

fn main() {
    support::main("nats_consumer", HELP, Config::from_args, run);
}
