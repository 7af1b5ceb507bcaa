//! `examples/kafka_producer.rs` and `examples/kafka_consumer.rs` against
//! a real Kafka-protocol broker: tansu 0.6.0 (memory storage), the
//! prebuilt binary `.ci/setup` installs (`DATASCHEMA_TANSU`), started by
//! each test on a loopback port of its own. Part of each stream is
//! written by Confluent's own Python producer and serializer
//! (`tests/python/kafka_produce.py`), part by the producer example (the
//! `Framer`), part by raw `rdkafka` records (CloudEvents, an unreadable
//! body, a frame of an id nobody holds); a real registry server in this
//! process gives both examples their ids.
//!
//! What is checked: every message ends where it should (settled, or
//! dead-lettered with its violations in headers, then settled), in order,
//! once; the consumer's Prometheus counters; a consumer stopped (or
//! killed) mid-stream is followed by one that resumes at the first
//! unsettled offset, so nothing is lost and nothing settled twice; a
//! producer whose registry is down frames nothing and sends nothing.
//!
//! The broker keeps its log in memory, except in the broker restart
//! test: there it writes it through its `s3://` storage engine to an
//! S3-protocol server on loopback (moto's `moto_server`, `.ci/setup`'s
//! `DATASCHEMA_MOTO`), the only storage the prebuilt binary has besides
//! memory (its file, SQLite and PostgreSQL engines are not compiled in),
//! so the topic and the group's committed offsets outlive the broker.
//!
//! tansu, moto or Python missing: under `CI` the tests fail saying so;
//! elsewhere they print that they skip.
#![cfg(all(
    feature = "kafka-example",
    feature = "server",
    feature = "avro",
    feature = "cloudevents"
))]

use crate::common;
use crate::common::lines::Lines;
use crate::common::stream::{dataschema_series, scrape, ORDER_BAD, ORDER_V1, ORDER_V2};
use crate::server;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{Consumer as _, StreamConsumer};
use rdkafka::message::{Header, Headers as _, Message as _, OwnedHeaders, OwnedMessage};
use rdkafka::producer::{FutureProducer, FutureRecord};

use dataschema::Compatibility;

const V1: &str = "urn:acme:schema:orders.created:1";
const V2: &str = "urn:acme:schema:orders.created:2";
const PAYMENT: &str = "urn:acme:schema:payments.made:1";

const LINE_WAIT: Duration = Duration::from_secs(60);

/// The tansu binary, or `None` (skip) when it is missing outside CI.
fn tansu() -> Option<PathBuf> {
    tool("DATASCHEMA_TANSU", "the Kafka-protocol broker", "--version")
}

/// The binary `var` names (`what`, answering `probe`), or `None` (skip)
/// when it is missing outside CI.
fn tool(var: &str, what: &str, probe: &str) -> Option<PathBuf> {
    let missing = |why: String| {
        if std::env::var_os("CI").is_some() {
            panic!("{why}; under CI it must run (.ci/setup installs it and exports its path)");
        }
        eprintln!("SKIPPED: {why} (source .ci/setup)");
        None
    };
    let Some(path) = std::env::var_os(var).filter(|p| !p.is_empty()) else {
        return missing(format!("{var} ({what}) is not set"));
    };
    let path = PathBuf::from(path);
    match Command::new(&path).arg(probe).output() {
        Ok(out) if out.status.success() => Some(path),
        Ok(out) => missing(format!(
            "{} {probe} failed: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(err) => missing(format!("{} does not run: {err}", path.display())),
    }
}

/// A name no other run (or test) uses: letters, digits and '-' (a topic,
/// and a Confluent subject `<topic>-value` the registry takes as a URN's
/// name).
fn unique(what: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    format!(
        "{what}-{}-{}-{}",
        std::process::id(),
        nanos % 1_000_000_000,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A port the OS picked, released for a child that takes an address
/// rather than a socket.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Waits until `child` listens on `port` (at most 30 s), panicking with
/// its log if it exits first.
fn wait_listening(child: &mut Child, port: u16, what: &str, log: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = child.try_wait().expect("try_wait") {
            panic!(
                "{what} exited ({status}) before listening on {port}:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        assert!(
            Instant::now() < deadline,
            "{what} does not listen on {port} after 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An S3-protocol server on loopback (moto's), with one bucket, killed
/// when dropped: the storage a broker's log outlives the broker in.
struct ObjectStore {
    child: Child,
    port: u16,
    bucket: String,
    _log: tempfile::NamedTempFile,
}

impl ObjectStore {
    /// Started, or `None` (skip) when moto is missing outside CI.
    fn start() -> Option<ObjectStore> {
        let moto = tool("DATASCHEMA_MOTO", "the S3-protocol server", "--help")?;
        let port = free_port();
        let log = tempfile::NamedTempFile::new().expect("a log file");
        let mut child = Command::new(&moto)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(log.reopen().expect("the log reopens"))
            .spawn()
            .unwrap_or_else(|err| panic!("{} starts: {err}", moto.display()));
        wait_listening(&mut child, port, "moto_server", log.path());
        let bucket = "tansu".to_owned();
        let created = server::call(
            "PUT",
            &format!("http://127.0.0.1:{port}/{bucket}"),
            &[],
            b"",
        );
        assert_eq!(created.status, 200, "bucket: {}", created.text());
        Some(ObjectStore {
            child,
            port,
            bucket,
            _log: log,
        })
    }
}

impl Drop for ObjectStore {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tansu broker on a loopback port of its own, killed when dropped.
struct Broker {
    tansu: PathBuf,
    child: Child,
    port: u16,
    /// `memory://tansu/`, or an `s3://` bucket with its endpoint.
    storage: String,
    endpoint: Option<String>,
}

impl Broker {
    /// A broker keeping its log in memory.
    fn start(tansu: PathBuf) -> Broker {
        Broker::launch(tansu, free_port(), "memory://tansu/".into(), None)
    }

    /// A broker keeping its log (topics, records, the groups' committed
    /// offsets) in `store`'s bucket, through its `s3://` storage engine.
    fn start_on(tansu: PathBuf, store: &ObjectStore) -> Broker {
        Broker::launch(
            tansu,
            free_port(),
            format!("s3://{}/", store.bucket),
            Some(format!("http://127.0.0.1:{}", store.port)),
        )
    }

    fn launch(tansu: PathBuf, port: u16, storage: String, endpoint: Option<String>) -> Broker {
        let url = format!("tcp://127.0.0.1:{port}");
        let log = tempfile::NamedTempFile::new().expect("a log file");
        let mut command = Command::new(&tansu);
        command
            .args([
                "broker",
                "--listener-url",
                &url,
                "--advertised-listener-url",
            ])
            .arg(&url)
            .args(["--storage-engine", &storage])
            .env_remove("STORAGE_ENGINE")
            .env_remove("SCHEMA_REGISTRY")
            .stdout(Stdio::null())
            .stderr(log.reopen().expect("the log reopens"));
        if let Some(endpoint) = &endpoint {
            // object_store's S3 settings, as tansu reads them.
            command
                .env("AWS_ENDPOINT", endpoint)
                .env("AWS_ALLOW_HTTP", "true")
                .env("AWS_ACCESS_KEY_ID", "dataschema")
                .env("AWS_SECRET_ACCESS_KEY", "dataschema")
                .env("AWS_DEFAULT_REGION", "us-east-1");
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|err| panic!("{} starts: {err}", tansu.display()));
        wait_listening(&mut child, port, "the broker", log.path());
        Broker {
            tansu,
            child,
            port,
            storage,
            endpoint,
        }
    }

    /// Kills the broker (SIGKILL: no clean shutdown).
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts a broker again on the same port over the same storage.
    fn start_again(&mut self) {
        let next = Broker::launch(
            self.tansu.clone(),
            self.port,
            self.storage.clone(),
            self.endpoint.clone(),
        );
        *self = next;
    }

    fn brokers(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Creates `topic` with one partition (the tests read it in order).
    fn create_topic(&self, topic: &str) {
        let out = Command::new(&self.tansu)
            .args(["topic", "create", topic, "--partitions", "1", "--broker"])
            .arg(format!("tcp://127.0.0.1:{}", self.port))
            .output()
            .expect("tansu topic create runs");
        assert!(
            out.status.success(),
            "tansu topic create {topic}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn producer(&self) -> FutureProducer {
        ClientConfig::new()
            .set("bootstrap.servers", self.brokers())
            .set("acks", "all")
            .set("message.timeout.ms", "30000")
            .create()
            .expect("a producer")
    }

    /// Reads `count` messages of `topic` from its start, in a group of its
    /// own.
    async fn read(&self, topic: &str, count: usize) -> Vec<OwnedMessage> {
        let consumer: StreamConsumer = ClientConfig::new()
            .set("bootstrap.servers", self.brokers())
            .set("group.id", unique("reader"))
            .set("enable.auto.commit", "false")
            .set("auto.offset.reset", "earliest")
            .create()
            .expect("a consumer");
        consumer.subscribe(&[topic]).expect("subscribed");
        let mut messages = Vec::new();
        while messages.len() < count {
            match tokio::time::timeout(LINE_WAIT, consumer.recv()).await {
                Ok(Ok(message)) => messages.push(message.detach()),
                Ok(Err(err)) => panic!("reading {topic}: {err}"),
                Err(_) => panic!(
                    "{} of {count} messages of {topic} within {LINE_WAIT:?}",
                    messages.len()
                ),
            }
        }
        messages
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends one record and waits for the broker's acknowledgement: its offset.
async fn send(
    producer: &FutureProducer,
    topic: &str,
    body: &[u8],
    headers: Option<OwnedHeaders>,
) -> i64 {
    let mut record = FutureRecord::<(), [u8]>::to(topic).payload(body);
    if let Some(headers) = headers {
        record = record.headers(headers);
    }
    match producer.send(record, Duration::from_secs(30)).await {
        Ok(delivery) => delivery.offset,
        Err((err, _)) => panic!("producing to {topic}: {err}"),
    }
}

/// A binary-mode CloudEvent's headers (the Kafka binding's `ce_*`).
fn binary_event(dataschema: &str, id: &str) -> OwnedHeaders {
    [
        ("ce_specversion", "1.0"),
        ("ce_id", id),
        ("ce_source", "/tests/kafka"),
        ("ce_type", "com.acme.test"),
        ("ce_dataschema", dataschema),
        ("content-type", "application/json"),
    ]
    .into_iter()
    .fold(OwnedHeaders::new(), |headers, (key, value)| {
        headers.insert(Header {
            key,
            value: Some(value.as_bytes()),
        })
    })
}

fn header<'a>(message: &'a OwnedMessage, name: &str) -> Option<&'a str> {
    message
        .headers()?
        .iter()
        .find(|h| h.key.eq_ignore_ascii_case(name))
        .and_then(|h| h.value)
        .and_then(|v| std::str::from_utf8(v).ok())
}

/// The example's binary with this test's features.
fn example(name: &'static str) -> Command {
    let mut command = Command::new(common::example::example_binary(name));
    for var in [
        "DATASCHEMA_REGISTRY_URL",
        "DATASCHEMA_MAX_MESSAGES",
        "DATASCHEMA_CONFLUENT_NAMESPACE",
        "DATASCHEMA_KAFKA_BROKERS",
        "DATASCHEMA_TOPIC",
        "DATASCHEMA_GROUP",
    ] {
        command.env_remove(var);
    }
    command
}

/// Runs the producer example over `lines` (its standard input): exit
/// status and standard output.
fn run_producer(args: &[String], lines: &[String]) -> (std::process::ExitStatus, String, String) {
    let mut child = example("kafka_producer")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kafka_producer starts");
    {
        let mut stdin = child.stdin.take().expect("stdin is piped");
        for line in lines {
            writeln!(stdin, "{line}").expect("kafka_producer reads its input");
        }
    }
    let out = child.wait_with_output().expect("kafka_producer ends");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The consumer example reading `topic` as `group`.
fn start_consumer(broker: &Broker, topic: &str, group: &str, extra: &[String]) -> Lines {
    let mut command = example("kafka_consumer");
    command
        .args(["--brokers", &broker.brokers(), "--topic", topic])
        .args(["--group", group, "--metrics", "127.0.0.1:0"])
        .args(extra);
    Lines::spawn(&mut command)
}

/// Reads the consumer's two opening lines; the metrics URL.
async fn opening(consumer: &mut Lines) -> String {
    let metrics = consumer.line(LINE_WAIT).await;
    let url = metrics
        .strip_prefix("metrics on ")
        .unwrap_or_else(|| panic!("the first line names the metrics URL: {metrics}"))
        .to_owned();
    let consuming = consumer.line(LINE_WAIT).await;
    assert!(consuming.starts_with("consuming "), "{consuming}");
    url
}

/// The sum of a counter's series, over its labels.
fn total(series: &BTreeMap<String, f64>, name: &str) -> f64 {
    series
        .iter()
        .filter(|(key, _)| *key == name || key.starts_with(&format!("{name}{{")))
        .map(|(_, value)| value)
        .sum()
}

/// A publishing registry server holding the sample bundle's schemas (with
/// ids of its own: the sample lock has none).
fn registry_of_the_bundle() -> server::Running {
    let running = server::start();
    for schema in dataschema::include_bundle!().schemas() {
        let schema = schema.expect("a sample schema");
        running
            .registry
            .publish(schema, Compatibility::None)
            .expect("the sample schemas publish");
    }
    running
}

/// Three producers write one topic (the producer example through the
/// `Framer`, Confluent's Python producer, raw records), one consumer
/// settles it: every message in order, once, the invalid and the
/// unreadable dead-lettered with their verdicts in headers, the rest
/// passed on, and the counters say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_producers_one_consumer_every_message_settled_once() {
    let Some(tansu) = tansu() else { return };
    let broker = Broker::start(tansu);
    let running = registry_of_the_bundle();
    let topic = unique("orders");
    let dead_letter = format!("{topic}.dlq");
    broker.create_topic(&topic);
    broker.create_topic(&dead_letter);

    // 1. The producer example: ids from the registry (the sample lock has
    // none); the invalid line is refused and never sent.
    let payment = base64::engine::general_purpose::STANDARD
        .encode(common::read("payloads/payment_valid.avro"));
    let input = [
        format!(r#"{{"urn":"{V1}","data":{ORDER_V1},"key":"k1"}}"#),
        format!(r#"{{"urn":"{V2}","data":{ORDER_V2}}}"#),
        format!(r#"{{"urn":"{PAYMENT}","data_base64":"{payment}"}}"#),
        format!(r#"{{"urn":"{V1}","data":{ORDER_BAD}}}"#),
    ];
    let (status, stdout, stderr) = run_producer(
        &[
            "--brokers".into(),
            broker.brokers(),
            "--topic".into(),
            topic.clone(),
            "--registry".into(),
            running.url(""),
        ],
        &input,
    );
    assert_eq!(status.code(), Some(1), "one line refused: {stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], format!("produced {V1} -> 0:0"), "{stdout}");
    assert_eq!(lines[1], format!("produced {V2} -> 0:1"), "{stdout}");
    assert_eq!(lines[2], format!("produced {PAYMENT} -> 0:2"), "{stdout}");
    assert!(
        lines[3].starts_with("line 4: ") && lines[3].contains("invalid"),
        "{stdout}"
    );
    assert!(
        lines[4..].contains(&"  /items: [] has less than 1 item"),
        "{stdout}"
    );
    assert_eq!(lines.last(), Some(&"produced 3, not framed 1"), "{stdout}");

    // 2. Confluent's Python producer and JSONSerializer (auto-registered
    // under `<topic>-value` in the same registry): a valid record, then
    // one serialized without validation.
    let Some(python) = common::python_importing("confluent_kafka.schema_registry.json_schema")
    else {
        return;
    };
    let out = Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/python/kafka_produce.py"
        ))
        .args([broker.brokers(), topic.clone(), running.url("")])
        .arg(server::TOKEN)
        .output()
        .expect("kafka_produce.py runs");
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "kafka_produce.py: {said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("produced 0:3\nproduced 0:4"),
        "Python's records follow the example's: {said}"
    );
    let python_urn = format!("urn:acme:schema:{topic}-value:1");

    // 3. Raw records: a binary-mode CloudEvent (valid), an unreadable body,
    // a frame naming an id nobody holds (fails open).
    let producer = broker.producer();
    let offset = send(
        &producer,
        &topic,
        ORDER_V1.as_bytes(),
        Some(binary_event(V1, "e6")),
    )
    .await;
    assert_eq!(offset, 5);
    let unreadable = b"this is neither a frame nor a CloudEvent";
    assert_eq!(send(&producer, &topic, unreadable, None).await, 6);
    let mut unknown = vec![0u8];
    unknown.extend_from_slice(&987_654u32.to_be_bytes());
    unknown.extend_from_slice(ORDER_V1.as_bytes());
    assert_eq!(send(&producer, &topic, &unknown, None).await, 7);

    // The consumer: the registry as its fallback (ids of the bundle's
    // schemas and of Python's).
    let group = unique("guard");
    let mut consumer = start_consumer(
        &broker,
        &topic,
        &group,
        &["--registry".into(), running.url("")],
    );
    let metrics = opening(&mut consumer).await;
    let expected = [
        "validated".to_owned(),
        "validated".to_owned(),
        "validated".to_owned(),
        "validated".to_owned(),
        format!("invalid ({python_urn}, 2 violations) -> {dead_letter}"),
        "validated".to_owned(),
        format!("unreadable -> {dead_letter}"),
        "unvalidated (not_found)".to_owned(),
    ];
    for (offset, verdict) in expected.iter().enumerate() {
        let line = consumer.line(LINE_WAIT).await;
        assert_eq!(line, format!("message 0:{offset} {topic}: {verdict}"));
    }

    let series = dataschema_series(&scrape(&metrics));
    for (counter, expected) in [
        ("dataschema_validated_total", 5.0),
        ("dataschema_invalid_total", 1.0),
        ("dataschema_unvalidated_total", 1.0),
        ("dataschema_consumer_dead_letters_total", 2.0),
        ("dataschema_consumer_unreadable_total", 1.0),
    ] {
        assert_eq!(total(&series, counter), expected, "{counter}: {series:?}");
    }
    // Nothing more: each message was settled once.
    assert_eq!(consumer.maybe_line(Duration::from_secs(2)).await, None);
    consumer.kill();

    // The dead letters: the originals' bodies, the verdicts in headers.
    let letters = broker.read(&dead_letter, 2).await;
    assert_eq!(header(&letters[0], "Dataschema-Verdict"), Some("invalid"));
    assert_eq!(
        header(&letters[0], "Dataschema-Urn"),
        Some(python_urn.as_str())
    );
    assert_eq!(header(&letters[0], "Dataschema-Violation-Count"), Some("2"));
    assert!(header(&letters[0], "Dataschema-Violation-1").is_some());
    assert_eq!(
        header(&letters[0], "Dataschema-Source-Topic"),
        Some(topic.as_str())
    );
    assert_eq!(header(&letters[0], "Dataschema-Source-Offset"), Some("4"));
    assert_eq!(letters[0].key(), Some(&b"python"[..]));
    let originals = broker.read(&topic, 8).await;
    assert_eq!(letters[0].payload(), originals[4].payload());
    assert_eq!(
        header(&letters[1], "Dataschema-Verdict"),
        Some("unreadable")
    );
    assert_eq!(header(&letters[1], "Dataschema-Source-Offset"), Some("6"));
    assert!(header(&letters[1], "Dataschema-Error").is_some());
    assert_eq!(letters[1].payload(), Some(&unreadable[..]));
}

/// A consumer stopped after some messages (cleanly, or killed) is
/// followed by one of the same group that starts at the first unsettled
/// offset: nothing lost, nothing settled twice, through the broker's own
/// committed offsets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_stopped_mid_stream_is_resumed_where_it_settled() {
    let Some(tansu) = tansu() else { return };
    let broker = Broker::start(tansu);
    let topic = unique("resume");
    broker.create_topic(&topic);
    broker.create_topic(&format!("{topic}.dlq"));
    let producer = broker.producer();
    let event = |n: i64| binary_event(V1, &format!("e{n}"));
    for n in 0..5 {
        assert_eq!(
            send(&producer, &topic, ORDER_V1.as_bytes(), Some(event(n))).await,
            n
        );
    }
    let group = unique("guard");
    let mut settled: Vec<String> = Vec::new();

    // Stopped cleanly after 3 of the 5.
    let mut first = start_consumer(
        &broker,
        &topic,
        &group,
        &["--max-messages".into(), "3".into()],
    );
    opening(&mut first).await;
    for _ in 0..3 {
        settled.push(first.line(LINE_WAIT).await);
    }
    let status = first.exit(LINE_WAIT).await;
    assert!(status.success(), "{status}: {}", first.stderr());
    assert_eq!(
        first.rest().await,
        ["stopped after 3 messages (--max-messages reached)"]
    );

    // The next one settles the other 2, and is killed (no clean shutdown,
    // no last commit): a line is printed only once its offset is committed.
    let mut second = start_consumer(&broker, &topic, &group, &[]);
    opening(&mut second).await;
    for _ in 0..2 {
        settled.push(second.line(LINE_WAIT).await);
    }
    second.kill();

    // More of the stream while no consumer runs; the third starts at the
    // first offset nobody settled.
    for n in 5..8 {
        assert_eq!(
            send(&producer, &topic, ORDER_V1.as_bytes(), Some(event(n))).await,
            n
        );
    }
    let mut third = start_consumer(&broker, &topic, &group, &[]);
    opening(&mut third).await;
    // The first line may wait for the group to drop the killed member
    // (its session times out); the rest follow at once.
    for _ in 0..3 {
        settled.push(third.line(LINE_WAIT).await);
    }
    assert_eq!(third.maybe_line(Duration::from_secs(3)).await, None);
    third.kill();

    // Each offset once, in order: none lost, none settled twice.
    let offsets: Vec<i64> = settled
        .iter()
        .map(|line| {
            assert!(line.ends_with(&format!("{topic}: validated")), "{line}");
            line.strip_prefix("message 0:")
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("a message line: {line}"))
        })
        .collect();
    assert_eq!(offsets, (0..8).collect::<Vec<i64>>(), "{settled:?}");
}

/// The broker killed and started again mid-stream, over the same storage
/// (an S3-protocol server, so its log and the group's committed offsets
/// outlive it), while a consumer runs and a producer sends: the records
/// sent while it was down arrive once it is back, the consumer goes on
/// from where it settled, and every offset is settled exactly once, in
/// order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_restarted_mid_stream_loses_nothing_and_settles_nothing_twice() {
    let Some(tansu) = tansu() else { return };
    let Some(store) = ObjectStore::start() else {
        return;
    };
    let mut broker = Broker::start_on(tansu, &store);
    let topic = unique("restart");
    broker.create_topic(&topic);
    broker.create_topic(&format!("{topic}.dlq"));
    let event = |n: i64| binary_event(V1, &format!("e{n}"));
    let producer = broker.producer();
    for n in 0..4 {
        assert_eq!(
            send(&producer, &topic, ORDER_V1.as_bytes(), Some(event(n))).await,
            n
        );
    }
    let group = unique("guard");
    let mut consumer = start_consumer(&broker, &topic, &group, &[]);
    opening(&mut consumer).await;
    let mut settled: Vec<String> = Vec::new();
    for _ in 0..4 {
        settled.push(consumer.line(LINE_WAIT).await);
    }

    // Killed while the consumer and the producer are connected; records
    // sent meanwhile wait in the producer's queue.
    broker.kill();
    let sending = {
        let producer = producer.clone();
        let topic = topic.clone();
        tokio::spawn(async move {
            let mut offsets = Vec::new();
            for n in 4..7 {
                offsets.push(send(&producer, &topic, ORDER_V1.as_bytes(), Some(event(n))).await);
            }
            offsets
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    broker.start_again();
    assert_eq!(sending.await.expect("the sends end"), [4, 5, 6]);
    for _ in 0..3 {
        settled.push(consumer.line(LINE_WAIT).await);
    }
    // Nothing read twice: no line for an offset settled before.
    assert_eq!(consumer.maybe_line(Duration::from_secs(3)).await, None);
    consumer.kill();

    let offsets: Vec<i64> = settled
        .iter()
        .map(|line| {
            assert!(line.ends_with(&format!("{topic}: validated")), "{line}");
            line.strip_prefix("message 0:")
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("a message line: {line}"))
        })
        .collect();
    assert_eq!(offsets, (0..7).collect::<Vec<i64>>(), "{settled:?}");

    // The log itself: the seven records, in order, once each.
    let records = broker.read(&topic, 7).await;
    let ids: Vec<String> = records
        .iter()
        .map(|record| header(record, "ce_id").unwrap_or_default().to_owned())
        .collect();
    assert_eq!(ids, (0..7).map(|n| format!("e{n}")).collect::<Vec<_>>());
}

/// A producer whose registry is down, for schemas whose ids only the
/// registry has, frames nothing and sends nothing: no frame with a zero
/// or made-up id reaches the topic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_producer_whose_registry_is_down_sends_nothing() {
    let Some(tansu) = tansu() else { return };
    let broker = Broker::start(tansu);
    let topic = unique("down");
    broker.create_topic(&topic);
    // A port nothing listens on.
    let closed = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let input = [
        format!(r#"{{"urn":"{V1}","data":{ORDER_V1}}}"#),
        format!(r#"{{"urn":"{V2}","data":{ORDER_V2}}}"#),
    ];
    let (status, stdout, stderr) = run_producer(
        &[
            "--brokers".into(),
            broker.brokers(),
            "--topic".into(),
            topic.clone(),
            "--registry".into(),
            format!("http://{closed}"),
        ],
        &input,
    );
    assert_eq!(status.code(), Some(1), "{stdout}{stderr}");
    assert!(!stdout.contains("produced urn"), "{stdout}");
    assert!(stdout.ends_with("produced 0, not framed 2\n"), "{stdout}");
    for line in stdout.lines().take(2) {
        assert!(line.contains("not framed"), "{line}");
    }
    // The topic's first message is the sentinel sent after: nothing came
    // before it.
    let producer = broker.producer();
    assert_eq!(send(&producer, &topic, b"sentinel", None).await, 0);
    let first = broker.read(&topic, 1).await;
    assert_eq!(first[0].payload(), Some(&b"sentinel"[..]));
}

/// Flags the examples refuse: a usage error (64), before any broker is
/// asked.
#[test]
fn bad_flags_are_usage_errors() {
    for (name, args) in [
        ("kafka_consumer", &["--topic", "a/b"][..]),
        (
            "kafka_consumer",
            &["--topic", "t", "--dead-letter", "t"][..],
        ),
        ("kafka_consumer", &["--max-messages", "many"][..]),
        ("kafka_producer", &["--no-such-flag"][..]),
    ] {
        let out = example(name).args(args).output().expect("the example runs");
        assert_eq!(
            out.status.code(),
            Some(64),
            "{name} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
