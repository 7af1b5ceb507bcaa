//! The HTTP fallback resolver against the real server and against a
//! misbehaving loopback server: each fault's verdict, counter, wall time
//! (bounded by the timeout) and recovery; misses remembered and forgotten;
//! single-flight; the request budget under a million random URNs; a
//! single-threaded async runtime kept running.
#![cfg(all(feature = "http", feature = "server"))]

use crate::server;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use dataschema::http::{Api, HttpResolver, HttpResolverBuilder};
use dataschema::{Compatibility, Guard, MemoryStore, Outcome, Reason, Registry, Resolver, Schema};
use dataschema::{Error, Urn};

const URN: &str = "urn:acme:schema:orders.created:1";
const SCHEMA: &str =
    r#"{"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}"#;
const VALID: &[u8] = br#"{"id": "a"}"#;
const INVALID: &[u8] = br#"{"id": 1}"#;

const TIMEOUT: Duration = Duration::from_millis(300);
/// A bound, not a speed claim: the timeout, tripled.
const BOUND: Duration = Duration::from_millis(900);

fn urn() -> Urn {
    URN.parse().unwrap()
}

fn builder(url: &str) -> HttpResolverBuilder {
    HttpResolver::builder(url)
        .connect_timeout(Duration::from_millis(200))
        .timeout(TIMEOUT)
        .retry_after(Duration::from_millis(50))
        .miss_delay(Duration::from_millis(300))
}

fn guard_over(fallback: HttpResolver) -> Guard {
    Guard::builder(Registry::new(MemoryStore::new()))
        .fallback(fallback)
        .build()
}

fn reason(outcome: &Result<Outcome, dataschema::Invalid>) -> Option<Reason> {
    match outcome {
        Ok(Outcome::Unvalidated(unvalidated)) => Some(unvalidated.reason()),
        _ => None,
    }
}

// ---- a misbehaving loopback server ----

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Serves the schema correctly.
    Good,
    /// Accepts and never answers.
    Hang,
    /// `500`.
    Error500,
    /// Bytes that are not HTTP.
    Garbage,
    /// `200`, no `Dataschema-*` headers, a body that is not JSON.
    NotJson,
    /// The right URN, a digest of other bytes.
    WrongDigest,
    /// Another URN (its digest right).
    WrongUrn,
    /// Headers, then a body that never comes.
    HangAfterHeaders,
    /// `404`.
    NotFound,
    /// Good, once the test opens the fake's gate ([`Fake::release`]).
    Held,
}

/// The gate a held reply waits behind: open or not.
type Gate = Arc<(Mutex<bool>, Condvar)>;

struct Fake {
    addr: SocketAddr,
    mode: Arc<Mutex<Mode>>,
    requests: Arc<AtomicUsize>,
    gate: Gate,
}

impl Fake {
    fn start(mode: Mode) -> Fake {
        Fake::on(TcpListener::bind("127.0.0.1:0").unwrap(), mode)
    }

    fn on(listener: TcpListener, mode: Mode) -> Fake {
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(Mutex::new(mode));
        let requests = Arc::new(AtomicUsize::new(0));
        let gate: Gate = Arc::default();
        let (m, r, g) = (mode.clone(), requests.clone(), gate.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (m, r, g) = (m.clone(), r.clone(), g.clone());
                std::thread::spawn(move || answer(stream, &m, &r, &g));
            }
        });
        Fake {
            addr,
            mode,
            requests,
            gate,
        }
    }

    /// Opens the gate held replies wait behind.
    fn release(&self) {
        let (open, opened) = &*self.gate;
        *open.lock().unwrap() = true;
        opened.notify_all();
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn answer(mut stream: TcpStream, mode: &Mutex<Mode>, requests: &AtomicUsize, gate: &Gate) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    requests.fetch_add(1, Ordering::SeqCst);
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split(' ').nth(1).unwrap_or("").to_owned();
    let asked = path.strip_prefix("/schemas/").unwrap_or(URN).to_owned();
    let mode = *mode.lock().unwrap();
    let schema = |urn: &str, bytes: &str, digest_of: &str| {
        let digest = Schema::json(urn.parse().unwrap(), digest_of.to_owned().into_bytes())
            .digest()
            .to_owned();
        format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nDataschema-Urn: {urn}\r\n\
             Dataschema-Language: jsonschema\r\nDataschema-Digest: {digest}\r\n\
             Dataschema-Id: 7\r\nConnection: close\r\n\r\n{bytes}",
            bytes.len()
        )
    };
    let reply = match mode {
        Mode::Good => schema(&asked, SCHEMA, SCHEMA),
        Mode::Held => {
            let (open, opened) = &**gate;
            let open = open.lock().unwrap();
            let (open, _) = opened
                .wait_timeout_while(open, Duration::from_secs(30), |open| !*open)
                .unwrap();
            drop(open);
            schema(&asked, SCHEMA, SCHEMA)
        }
        Mode::Hang => {
            std::thread::sleep(Duration::from_secs(10));
            return;
        }
        Mode::Error500 => {
            "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .to_owned()
        }
        Mode::Garbage => "\u{0}\u{1}garbage garbage\r\n\r\n".to_owned(),
        Mode::NotJson => {
            "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot json!".to_owned()
        }
        Mode::WrongDigest => schema(&asked, SCHEMA, r#"{"type": "string"}"#),
        Mode::WrongUrn => schema("urn:acme:schema:other:1", SCHEMA, SCHEMA),
        Mode::HangAfterHeaders => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nDataschema-Urn: x\r\n\r\n{",
            );
            std::thread::sleep(Duration::from_secs(10));
            return;
        }
        Mode::NotFound => {
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 21\r\n\
             Connection: close\r\n\r\n{\"error\":\"not_found\"}"
                .to_owned()
        }
    };
    let _ = stream.write_all(reply.as_bytes());
}

/// One fault: the verdict is `unreachable`, counted, within the bound;
/// once the server serves again (past the retry delay) the schema is used.
fn fault_then_recovery(fake: &Fake, fault: Mode) {
    fake.set(fault);
    let resolver = builder(&fake.url()).build().unwrap();
    let guard = guard_over(resolver.clone());
    for attempt in 1..=2 {
        let start = Instant::now();
        let outcome = guard.validate(URN, VALID);
        let elapsed = start.elapsed();
        assert_eq!(
            reason(&outcome),
            Some(Reason::Unreachable),
            "{fault:?}: {outcome:?}"
        );
        assert_eq!(guard.unvalidated(), attempt, "{fault:?}");
        assert!(elapsed < BOUND, "{fault:?}: took {elapsed:?}");
        assert_eq!(
            resolver.negative_len(),
            0,
            "{fault:?}: a transient failure is no miss"
        );
        assert_eq!(
            resolver.cached_len(),
            0,
            "{fault:?}: a refused answer is never kept"
        );
        // Past the retry delay, so the second attempt asks again.
        std::thread::sleep(Duration::from_millis(120));
    }
    fake.set(Mode::Good);
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        match guard.validate(URN, VALID) {
            Ok(Outcome::Validated) => break,
            other if Instant::now() > deadline => panic!("{fault:?}: no recovery: {other:?}"),
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    assert!(guard.validate(URN, INVALID).is_err(), "{fault:?}");
    assert_eq!(resolver.cached_len(), 1);
}

#[test]
fn slow_past_the_timeout() {
    fault_then_recovery(&Fake::start(Mode::Good), Mode::Hang);
}

#[test]
fn answering_500() {
    fault_then_recovery(&Fake::start(Mode::Good), Mode::Error500);
}

#[test]
fn answering_garbage() {
    fault_then_recovery(&Fake::start(Mode::Good), Mode::Garbage);
}

#[test]
fn answering_not_json() {
    fault_then_recovery(&Fake::start(Mode::Good), Mode::NotJson);
}

#[test]
fn answering_another_schema_digest() {
    fault_then_recovery(&Fake::start(Mode::Good), Mode::WrongDigest);
}

#[test]
fn answering_another_urn() {
    fault_then_recovery(&Fake::start(Mode::Good), Mode::WrongUrn);
}

#[test]
fn hanging_after_headers() {
    fault_then_recovery(&Fake::start(Mode::Good), Mode::HangAfterHeaders);
}

#[test]
fn down_then_back() {
    // A port nothing listens on: connection refused.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let resolver = builder(&format!("http://{addr}")).build().unwrap();
    let guard = guard_over(resolver.clone());
    let start = Instant::now();
    let outcome = guard.validate(URN, VALID);
    assert_eq!(reason(&outcome), Some(Reason::Unreachable), "{outcome:?}");
    assert!(start.elapsed() < BOUND, "took {:?}", start.elapsed());
    assert_eq!(guard.unvalidated(), 1);
    assert_eq!(resolver.negative_len(), 0);
    // Back, on the same port.
    let fake = Fake::on(TcpListener::bind(addr).unwrap(), Mode::Good);
    std::thread::sleep(Duration::from_millis(120));
    assert!(matches!(guard.validate(URN, VALID), Ok(Outcome::Validated)));
    assert_eq!(fake.requests(), 1);
}

#[test]
fn a_404_is_remembered_for_its_delay_then_forgotten() {
    let fake = Fake::start(Mode::NotFound);
    let resolver = builder(&fake.url()).build().unwrap();
    let guard = guard_over(resolver.clone());
    for _ in 0..5 {
        assert_eq!(reason(&guard.validate(URN, VALID)), Some(Reason::NotFound));
    }
    assert_eq!(
        fake.requests(),
        1,
        "misses within the delay send no request"
    );
    assert_eq!(resolver.negative_len(), 1);
    std::thread::sleep(Duration::from_millis(350));
    fake.set(Mode::Good);
    assert!(matches!(guard.validate(URN, VALID), Ok(Outcome::Validated)));
    assert_eq!(fake.requests(), 2);
    assert_eq!(resolver.negative_len(), 0);
}

/// Eight lookups of one URN while its fetch is in flight: one request.
/// The reply is held until the test releases it (once the fetch has
/// reached the fake and every lookup has begun), and the resolver waits
/// far longer than that: no timing decides the outcome, however loaded
/// the machine.
#[test]
fn concurrent_misses_share_one_request() {
    let fake = Fake::start(Mode::Held);
    let resolver = builder(&fake.url())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let urn = urn();
    let begun = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                begun.fetch_add(1, Ordering::SeqCst);
                let schema = resolver
                    .resolve(&urn)
                    .expect("every waiter gets the schema");
                assert_eq!(schema.urn(), &urn);
            });
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while fake.requests() == 0 || begun.load(Ordering::SeqCst) < 8 {
            assert!(Instant::now() < deadline, "the lookups never began");
            std::thread::sleep(Duration::from_millis(5));
        }
        // The lookups that began join the flight (or, if one is slower
        // still, find the answer cached): either way, no second request.
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(fake.requests(), 1, "a request while one was in flight");
        fake.release();
    });
    assert_eq!(fake.requests(), 1);
}

#[test]
fn a_pinned_digest_refuses_other_bytes() {
    let fake = Fake::start(Mode::Good);
    let resolver = builder(&fake.url())
        .expect(urn(), "sha256:0000")
        .build()
        .unwrap();
    match resolver.resolve(&urn()) {
        Err(Error::Unreachable { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(resolver.cached_len(), 0);
    let digest = Schema::json(urn(), SCHEMA).digest().to_owned();
    let pinned = builder(&fake.url()).expect(urn(), digest).build().unwrap();
    assert!(pinned.resolve(&urn()).is_ok());
}

// ---- the real server ----

fn publish(running: &server::Running) -> u32 {
    running
        .registry
        .publish(Schema::json(urn(), SCHEMA), Compatibility::None)
        .unwrap();
    running.registry.id_of(&urn()).unwrap()
}

fn framed(id: u32, body: &[u8]) -> Vec<u8> {
    let mut frame = vec![0];
    frame.extend_from_slice(&id.to_be_bytes());
    frame.extend_from_slice(body);
    frame
}

#[test]
fn through_the_real_server_native() {
    let running = server::start();
    let id = publish(&running);
    let resolver = builder(&running.url(""))
        .bearer("a read token")
        .build()
        .unwrap();
    let guard = guard_over(resolver.clone());
    assert!(matches!(guard.validate(URN, VALID), Ok(Outcome::Validated)));
    assert!(guard.validate(URN, INVALID).is_err());
    assert_eq!(
        reason(&guard.validate("urn:acme:schema:nobody:1", VALID)),
        Some(Reason::NotFound)
    );
    assert_eq!(resolver.cached_len(), 1);
    assert_eq!(resolver.negative_len(), 1);
    // By id: `GET /ids/{id}`, through a fresh resolver and guard.
    let resolver = builder(&running.url("")).build().unwrap();
    assert_eq!(resolver.resolve_id(id).unwrap().urn(), &urn());
    assert!(matches!(
        resolver.resolve_id(id + 1000),
        Err(Error::IdNotFound { .. })
    ));
    let guard = guard_over(builder(&running.url("")).build().unwrap());
    assert!(matches!(
        guard.validate_framed(&framed(id, VALID)),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate_framed(&framed(id, INVALID)).is_err());
    // The server stops: what was fetched stays; a new URN fails open.
    running.stop();
    assert!(matches!(guard.validate(URN, VALID), Ok(Outcome::Validated)));
    let start = Instant::now();
    let outcome = guard.validate("urn:acme:schema:orders.created:2", VALID);
    assert_eq!(reason(&outcome), Some(Reason::Unreachable), "{outcome:?}");
    assert!(start.elapsed() < BOUND);
}

#[test]
fn an_id_pinned_from_a_lock_must_be_the_registry_answer() {
    let running = server::start();
    let id = publish(&running);
    // The lock's id for the URN: the registry's answer matches, by URN and
    // by id (asked by the URN the lock names).
    let pinned = builder(&running.url(""))
        .expect_id(urn(), id)
        .build()
        .unwrap();
    assert_eq!(pinned.resolve_id(id).unwrap().urn(), &urn());
    assert!(pinned.resolve(&urn()).is_ok());

    // A lock that says another id: refused both ways, counted
    // unreachable, nothing kept.
    let wrong = id + 41;
    for ask_by_id in [false, true] {
        let contradicted = builder(&running.url(""))
            .expect_id(urn(), wrong)
            .build()
            .unwrap();
        if ask_by_id {
            match contradicted.resolve_id(wrong) {
                Err(Error::Other(err)) => {
                    let text = err.to_string();
                    assert!(text.contains("the lock pins id"), "{text}");
                }
                other => panic!("{other:?}"),
            }
        } else {
            match contradicted.resolve(&urn()) {
                Err(Error::Unreachable { source, .. }) => {
                    assert!(source.to_string().contains("the lock pins id"), "{source}")
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(contradicted.cached_len(), 0);
        let guard = guard_over(contradicted);
        let outcome = if ask_by_id {
            guard.validate_framed(&framed(wrong, VALID))
        } else {
            guard.validate(URN, VALID)
        };
        assert_eq!(reason(&outcome), Some(Reason::Unreachable), "{outcome:?}");
        assert_eq!(guard.unvalidated(), 1);
    }
}

#[test]
fn through_the_real_server_confluent() {
    let running = server::start();
    let id = publish(&running);
    let api = Api::Confluent {
        namespace: "acme".into(),
    };
    let resolver = builder(&running.url("")).api(api.clone()).build().unwrap();
    let guard = guard_over(resolver.clone());
    assert!(matches!(guard.validate(URN, VALID), Ok(Outcome::Validated)));
    assert!(guard.validate(URN, INVALID).is_err());
    assert_eq!(
        reason(&guard.validate("urn:other:schema:orders.created:1", VALID)),
        Some(Reason::NotFound),
        "another namespace is not asked"
    );
    assert_eq!(
        reason(&guard.validate("urn:acme:schema:orders.created:9", VALID)),
        Some(Reason::NotFound)
    );
    let guard = guard_over(builder(&running.url("")).api(api).build().unwrap());
    assert!(matches!(
        guard.validate_framed(&framed(id, VALID)),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate_framed(&framed(id, INVALID)).is_err());
}

/// A version registered with a reference through the Confluent API is
/// followed by a guard whose fallback reads that API: the answer's
/// `references` become the schema's, and the referenced version is asked
/// for by its URN.
#[test]
fn references_are_followed_through_the_confluent_fallback() {
    let running = server::start();
    let customer = r#"{"$id": "http://example.com/customer.json", "type": "object",
        "properties": {"id": {"type": "integer"}}, "required": ["id"]}"#;
    let order = r#"{"type": "object", "properties": {"customer": {"$ref": "http://example.com/customer.json"}}}"#;
    let register = |subject: &str, body: serde_json::Value| {
        let reply = server::confluent(
            "POST",
            &running.url(&format!("/subjects/{subject}/versions")),
            &body,
        );
        assert_eq!(reply.status, 200, "{}", reply.text());
    };
    register(
        "customer",
        serde_json::json!({"schema": customer, "schemaType": "JSON"}),
    );
    register(
        "order",
        serde_json::json!({"schema": order, "schemaType": "JSON", "references": [
            {"name": "http://example.com/customer.json", "subject": "customer", "version": 1}
        ]}),
    );
    let api = Api::Confluent {
        namespace: "acme".into(),
    };
    let guard = guard_over(builder(&running.url("")).api(api).build().unwrap());
    let urn = "urn:acme:schema:order:1";
    assert!(matches!(
        guard.validate(urn, br#"{"customer": {"id": 3}}"#),
        Ok(Outcome::Validated)
    ));
    assert!(guard
        .validate(urn, br#"{"customer": {"id": "3"}}"#)
        .is_err());
}

/// A Confluent registry answering a version whose `references` give one
/// name for two schemas: a schema's references keep a name once, so one
/// was silently dropped and the guard validated against a schema the
/// registry did not describe. A registry is input too: the answer is
/// garbage (reason `unreachable`), as the server refuses such a
/// registration (42201). The same name twice for the same schema stays
/// fine.
#[test]
fn a_confluent_answer_naming_two_schemas_by_one_reference_name_is_refused() {
    let answer = |references: serde_json::Value| {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                let path = String::from_utf8_lossy(&head)
                    .split(' ')
                    .nth(1)
                    .unwrap_or("")
                    .to_owned();
                let (subject, schema, refs) = if path.starts_with("/subjects/order/") {
                    ("order", r#"{"$ref": "common.json"}"#, references.clone())
                } else if path.starts_with("/subjects/a/") {
                    ("a", r#"{"type": "integer"}"#, serde_json::json!([]))
                } else {
                    ("b", r#"{"type": "string"}"#, serde_json::json!([]))
                };
                let body = serde_json::json!({
                    "subject": subject, "version": 1, "id": 5, "schemaType": "JSON",
                    "schema": schema, "references": refs,
                })
                .to_string();
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.schemaregistry.v1+json\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes());
            }
        });
        let api = Api::Confluent {
            namespace: "acme".into(),
        };
        guard_over(builder(&url).api(api).build().unwrap())
    };
    let twice = answer(serde_json::json!([
        {"name": "common.json", "subject": "a", "version": 1},
        {"name": "common.json", "subject": "b", "version": 1},
    ]));
    let outcome = twice.validate("urn:acme:schema:order:1", b"7");
    assert_eq!(reason(&outcome), Some(Reason::Unreachable), "{outcome:?}");
    let once = answer(serde_json::json!([
        {"name": "common.json", "subject": "a", "version": 1},
        {"name": "common.json", "subject": "a", "version": 1},
    ]));
    assert!(matches!(
        once.validate("urn:acme:schema:order:1", b"7"),
        Ok(Outcome::Validated)
    ));
    assert!(once.validate("urn:acme:schema:order:1", b"\"s\"").is_err());
}

/// The same through the native API: a publish with `Dataschema-References`,
/// and a fallback reading the header back.
#[test]
fn references_are_followed_through_the_native_fallback() {
    let running = server::start();
    let base = r#"{"type": "integer"}"#;
    let order = r#"{"type": "object", "properties": {"n": {"$ref": "base.json"}}}"#;
    for (urn, body, references) in [
        ("urn:acme:schema:base:1", base, None),
        (
            "urn:acme:schema:order:1",
            order,
            Some("base.json=urn:acme:schema:base:1"),
        ),
    ] {
        let auth = server::bearer();
        let mut headers = vec![("Authorization", auth.as_str())];
        if let Some(references) = references {
            headers.push(("Dataschema-References", references));
        }
        let reply = server::call(
            "PUT",
            &running.url(&format!("/publish/schemas/{urn}")),
            &headers,
            body.as_bytes(),
        );
        assert!(
            reply.status == 200 || reply.status == 201,
            "{}",
            reply.text()
        );
    }
    let bad = server::call(
        "PUT",
        &running.url("/publish/schemas/urn:acme:schema:order:2"),
        &[
            ("Authorization", server::bearer().as_str()),
            ("Dataschema-References", "no pairs"),
        ],
        order.as_bytes(),
    );
    assert_eq!(bad.status, 400, "{}", bad.text());
    let guard = guard_over(builder(&running.url("")).build().unwrap());
    let urn = "urn:acme:schema:order:1";
    assert!(matches!(
        guard.validate(urn, br#"{"n": 3}"#),
        Ok(Outcome::Validated)
    ));
    assert!(guard.validate(urn, br#"{"n": "3"}"#).is_err());
}

// ---- async and memory ----

#[test]
fn a_single_threaded_runtime_keeps_running_while_the_registry_hangs() {
    let fake = Fake::start(Mode::Hang);
    let resolver = builder(&fake.url())
        .blocking_wait(Duration::ZERO)
        .build()
        .unwrap();
    let guard = guard_over(resolver);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let ticks = Arc::new(AtomicUsize::new(0));
    let (validations, slowest) = runtime.block_on(async {
        let counter = ticks.clone();
        let ticker = tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        let start = Instant::now();
        let mut validations = 0u64;
        let mut slowest = Duration::ZERO;
        while start.elapsed() < Duration::from_secs(1) {
            let one = Instant::now();
            let urn = format!("urn:acme:schema:slow:{}", validations % 5 + 1);
            let outcome = guard.validate(&urn, VALID);
            assert_eq!(reason(&outcome), Some(Reason::Unreachable));
            slowest = slowest.max(one.elapsed());
            validations += 1;
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        ticker.abort();
        (validations, slowest)
    });
    let ticks = ticks.load(Ordering::SeqCst);
    println!("{validations} validations, {ticks} ticks, slowest validate {slowest:?}");
    assert!(ticks >= 40, "the other task ran only {ticks} times");
    assert!(
        slowest < TIMEOUT,
        "a validate waited on the network: {slowest:?}"
    );
    assert_eq!(guard.unvalidated(), validations);
}

fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// 100,000 distinct URNs by default; `DATASCHEMA_HTTP_MILLION=1` runs a
/// million (release recommended).
#[test]
fn random_urns_send_a_bounded_number_of_requests_in_bounded_memory() {
    let count: u64 = if std::env::var_os("DATASCHEMA_HTTP_MILLION").is_some() {
        1_000_000
    } else {
        100_000
    };
    let fake = Fake::start(Mode::NotFound);
    let budget = 20;
    let cap = 1_000;
    let resolver = builder(&fake.url())
        .budget(budget)
        .max_misses(cap)
        .build()
        .unwrap();
    let guard = guard_over(resolver.clone());
    let before = resident_kib();
    let start = Instant::now();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..count {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let urn = format!("urn:acme:schema:r{seed:x}:1");
        let reason = reason(&guard.validate(&urn, VALID));
        assert!(matches!(
            reason,
            Some(Reason::NotFound | Reason::Unreachable)
        ));
    }
    let elapsed = start.elapsed().as_secs_f64();
    let after = resident_kib();
    let requests = fake.requests() as f64;
    println!(
        "{count} URNs in {elapsed:.2} s: {requests} requests, misses {}, failures {}, \
         resident {before:?} -> {after:?} KiB",
        resolver.negative_len(),
        resolver.failure_len()
    );
    assert!(requests <= f64::from(budget) * (elapsed + 1.0) + 5.0);
    assert!(resolver.negative_len() <= cap);
    assert!(resolver.failure_len() <= cap);
    assert_eq!(resolver.cached_len(), 0);
    assert_eq!(guard.unvalidated(), count);
    if let (Some(before), Some(after)) = (before, after) {
        assert!(
            after.saturating_sub(before) < 64 * 1024,
            "grew {} KiB",
            after - before
        );
    }
}

// ---- a hostile registry: every new URN answered with a big schema ----

/// The size of each schema the hostile registry answers.
const BIG: usize = 4 * 1024 * 1024;

/// A registry on loopback answering every `GET /schemas/{urn}` with a
/// well-formed 4 MiB JSON Schema for that URN (its digest right), and
/// counting requests.
fn hostile_registry() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let body: Arc<Vec<u8>> = Arc::new({
        let mut body = br#"{"description": ""#.to_vec();
        body.resize(BIG - 2, b'x');
        body.extend_from_slice(b"\"}");
        body
    });
    let digest = Schema::json(urn(), body.to_vec()).digest().to_owned();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (body, digest, counted) = (body.clone(), digest.clone(), counted.clone());
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split(' ').nth(1).unwrap_or("").to_owned();
                let asked = path.strip_prefix("/schemas/").unwrap_or(URN).to_owned();
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nDataschema-Urn: {asked}\r\n\
                     Dataschema-Language: jsonschema\r\nDataschema-Digest: {digest}\r\n\
                     Dataschema-Id: 7\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes());
                let _ = stream.write_all(&body);
            });
        }
    });
    (url, requests)
}

/// Set in the child process the test below runs itself in, so that its
/// resident memory is its own (the other tests of this binary run in
/// parallel threads and allocate too).
const HOSTILE_CHILD: &str = "DATASCHEMA_HOSTILE_REGISTRY_CHILD";

/// Issue 21, item 8: a registry answering each new URN with a 4 MiB
/// schema grew a consumer by about 7.5 MiB a message, never freed. With
/// the cache bounded at 16 MiB, 40 such URNs (160 MiB through it) leave
/// at most 16 MiB counted, the least recently used gone, a pinned URN
/// kept (and not asked again), and the process's resident memory grown
/// by the bound plus slack, not by 160 MiB.
#[test]
fn a_hostile_registry_answering_big_schemas_grows_the_cache_no_further_than_its_bound() {
    if std::env::var_os(HOSTILE_CHILD).is_none() {
        let name = "http_fallback::a_hostile_registry_answering_big_schemas_grows_the_cache_no_further_than_its_bound";
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads", "1"])
            .env(HOSTILE_CHILD, "1")
            .output()
            .unwrap();
        let shown = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        println!("{shown}");
        assert!(out.status.success(), "{shown}");
        assert!(shown.contains("1 passed"), "the child ran no test: {shown}");
        return;
    }
    let (url, requests) = hostile_registry();
    let bound = 16 * 1024 * 1024;
    let locked: Urn = "urn:acme:schema:locked:1".parse().unwrap();
    let body_digest = {
        let mut body = br#"{"description": ""#.to_vec();
        body.resize(BIG - 2, b'x');
        body.extend_from_slice(b"\"}");
        Schema::json(urn(), body).digest().to_owned()
    };
    let resolver = HttpResolver::builder(&url)
        .timeout(Duration::from_secs(10))
        .budget(1_000)
        .max_cached_bytes(bound)
        .expect(locked.clone(), body_digest)
        .build()
        .unwrap();
    assert_eq!(resolver.resolve(&locked).unwrap().bytes().len(), BIG);
    let pinned = resolver.pinned_bytes();
    assert!(pinned > BIG, "the pinned schema is kept outside the bound");
    assert_eq!(resolver.cached_bytes(), 0);
    let before = resident_kib();
    let count = 40;
    let mut peak = 0;
    for n in 0..count {
        let urn: Urn = format!("urn:acme:schema:big{n}:1").parse().unwrap();
        let schema = resolver.resolve(&urn).unwrap();
        assert_eq!(schema.bytes().len(), BIG);
        drop(schema);
        peak = peak.max(resolver.cached_bytes());
        assert!(
            resolver.cached_bytes() <= bound,
            "{}",
            resolver.cached_bytes()
        );
    }
    let after = resident_kib();
    // Three 4 MiB schemas fit in 16 MiB (each counts its URN and overhead
    // too), plus the pinned one outside the bound.
    assert_eq!(resolver.cached_len(), 3 + 1);
    assert_eq!(resolver.pinned_bytes(), pinned);
    // The newest are kept, the oldest forgotten (asked again).
    let asked = requests.load(Ordering::SeqCst);
    assert_eq!(asked, count + 1);
    resolver
        .resolve(
            &format!("urn:acme:schema:big{}:1", count - 1)
                .parse()
                .unwrap(),
        )
        .unwrap();
    resolver.resolve(&locked).unwrap();
    assert_eq!(
        requests.load(Ordering::SeqCst),
        asked,
        "no request for a kept schema"
    );
    resolver
        .resolve(&"urn:acme:schema:big0:1".parse().unwrap())
        .unwrap();
    assert_eq!(
        requests.load(Ordering::SeqCst),
        asked + 1,
        "the oldest was forgotten"
    );
    println!(
        "{count} URNs of {BIG} bytes: cache peak {peak} bytes (bound {bound}), pinned \
         {pinned}, resident {before:?} -> {after:?} KiB"
    );
    if let (Some(before), Some(after)) = (before, after) {
        let grown = after.saturating_sub(before);
        // Unbounded, it grew by the 160 MiB fetched. The slack is the
        // allocator's: freed 4 MiB blocks it keeps for the next fetch.
        assert!(
            grown < 48 * 1024,
            "grew {grown} KiB for {count} big schemas"
        );
    }
}
