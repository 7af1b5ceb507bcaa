//! Operating `dataschema serve` behind a load balancer, under hostile
//! load: the memory of compatibility tests, `/healthz` and `/readyz`
//! (with a database that waits), the Prometheus metrics (`--metrics`).
#![cfg(feature = "cli")]

use crate::server;

use std::time::{Duration, Instant};

use server::process::{token_file, Serve};
use server::{call, confluent, get};

/// A JSON Schema of about `bytes` bytes: an object of many string
/// properties, the `changed`-th of them an integer.
fn big_schema(bytes: usize, changed: usize) -> String {
    let mut schema = String::from(r#"{"type":"object","properties":{"#);
    let mut i = 0;
    while schema.len() < bytes - 64 {
        let kind = if i == changed { "integer" } else { "string" };
        if i > 0 {
            schema.push(',');
        }
        schema.push_str(&format!(r#""p{i:06}":{{"type":"{kind}"}}"#));
        i += 1;
    }
    schema.push_str("}}");
    schema
}

fn schema_request(schema: &str) -> serde_json::Value {
    serde_json::json!({"schemaType": "JSON", "schema": schema})
}

/// 48 concurrent unauthenticated compatibility tests of a 250 kB schema
/// against a 250 kB version: the server's peak resident memory (VmHWM)
/// stays bounded, because tests share a compile budget of their own (the
/// schema cap: three bodies of 270 kB at once); every test is answered. (With every test at once, as when they took the 256
/// general slots, the peak is about 4 times higher: measured 947 MiB
/// against 227 MiB for 48 tests of 400 kB, `--check-concurrency 256`
/// against the default 4.)
#[test]
fn concurrent_large_compatibility_tests_have_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    // (A debug build takes seconds per test: the request timeout is
    // raised so that every queued test is answered.)
    let serve = Serve::start(&[
        "--store",
        "memory",
        "--request-timeout",
        "600",
        "--compile-wait",
        "600",
        "--token-file",
        &token_file(dir.path()),
    ]);
    let prior = big_schema(250_000, usize::MAX);
    let registered = confluent(
        "POST",
        &serve.url("/subjects/big/versions"),
        &schema_request(&prior),
    );
    assert_eq!(registered.status, 200, "{}", registered.text());
    let candidate = schema_request(&big_schema(250_000, 7)).to_string();
    let before = serve.memory_kib("VmRSS");
    let started = Instant::now();
    let url = serve.url("/compatibility/subjects/big/versions/latest");
    let answers: Vec<_> = (0..48)
        .map(|_| {
            let (url, body) = (url.clone(), candidate.clone());
            std::thread::spawn(move || {
                call(
                    "POST",
                    &url,
                    &[("Content-Type", "application/vnd.schemaregistry.v1+json")],
                    body.as_bytes(),
                )
            })
        })
        .collect();
    for answer in answers {
        let answer = answer.join().unwrap();
        assert_eq!(answer.status, 200, "{}", answer.text());
        assert_eq!(answer.json()["is_compatible"], false, "{}", answer.text());
    }
    let took = started.elapsed();
    let peak = serve.memory_kib("VmHWM");
    let after = serve.memory_kib("VmRSS");
    println!(
        "48 compatibility tests of 250 kB: VmRSS {} MiB before, {} MiB after, peak {} MiB, in {took:?}",
        before / 1024,
        after / 1024,
        peak / 1024
    );
    assert!(
        peak < 400 * 1024,
        "the server peaked at {} MiB for 48 tests",
        peak / 1024
    );
    // The memory goes back once the burst is over (the last compile slot
    // given back trims the allocator's heaps, off the request path): the
    // server's resident size falls to within 64 MiB of where it started.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut settled = after;
    while settled > before + 64 * 1024 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        settled = serve.memory_kib("VmRSS");
    }
    println!("after the burst: VmRSS {} MiB", settled / 1024);
    assert!(
        settled <= before + 64 * 1024,
        "after the burst the server kept {} MiB ({} MiB before it, peak {} MiB)",
        settled / 1024,
        before / 1024,
        peak / 1024
    );
}

#[test]
fn healthz_and_readyz_answer_without_a_credential() {
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--token-file", &token_file(dir.path())]);
    let health = get(&serve.url("/healthz"));
    assert_eq!(health.status, 200, "{}", health.text());
    assert_eq!(health.json()["status"], "ok");
    let ready = get(&serve.url("/readyz"));
    assert_eq!(ready.status, 200, "{}", ready.text());
    assert_eq!(ready.json()["status"], "ready");
    assert_eq!(
        ready.header("content-type"),
        Some("application/json"),
        "{:?}",
        ready.headers
    );
}

/// A replica whose database waits (its migrations table locked by
/// another session) reports not ready within the ready timeout, probe
/// after probe, and ready again once the lock is gone; the gauge follows.
#[test]
fn readyz_reports_a_database_that_waits() {
    let Some(db) = crate::common::TestDatabase::create() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(&[
        "--store",
        &db.url,
        "--token-file",
        &token_file(dir.path()),
        "--ready-timeout",
        "0.5",
        "--metrics",
        "127.0.0.1:0",
    ]);
    let metrics = serve.metrics_url();
    assert_eq!(get(&serve.url("/readyz")).status, 200);
    assert!(get(&metrics).text().contains("dataschema_server_ready 1"));
    let mut locker = ::postgres::Client::connect(&db.url, ::postgres::NoTls).unwrap();
    let mut lock = locker.transaction().unwrap();
    lock.batch_execute("LOCK TABLE dataschema_migrations IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    for probe in 0..3 {
        let started = Instant::now();
        let ready = get(&serve.url("/readyz"));
        let took = started.elapsed();
        assert_eq!(ready.status, 503, "probe {probe}: {}", ready.text());
        assert_eq!(ready.code(), 50301);
        assert!(
            ready.text().contains("did not answer within 500 ms"),
            "{}",
            ready.text()
        );
        assert!(took < Duration::from_secs(2), "probe {probe} took {took:?}");
    }
    assert!(get(&metrics).text().contains("dataschema_server_ready 0"));
    // The cheap routes still answer: the process is alive.
    assert_eq!(get(&serve.url("/healthz")).status, 200);
    lock.rollback().unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let ready = get(&serve.url("/readyz"));
        if ready.status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never ready again: {}",
            ready.text()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(get(&metrics).text().contains("dataschema_server_ready 1"));
}

/// The server's metrics on `--metrics`: requests by route template (never
/// the raw path) and status, latency histograms, cache hits and misses,
/// store errors, compile budget refusals; and every `dataschema_server_` name the shipped server
/// alerts use is one the server exports.
#[test]
fn metrics_count_routes_statuses_latency_and_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(&[
        "--store",
        "memory",
        "--token-file",
        &token_file(dir.path()),
        "--metrics",
        "127.0.0.1:0",
    ]);
    let metrics = serve.metrics_url();
    let urn = "urn:acme:schema:metered:1";
    let published = call(
        "PUT",
        &serve.url(&format!("/publish/schemas/{urn}")),
        &[("Authorization", &server::bearer())],
        br#"{"type": "string"}"#,
    );
    assert_eq!(published.status, 201, "{}", published.text());
    for _ in 0..3 {
        assert_eq!(get(&serve.url(&format!("/schemas/{urn}"))).status, 200);
    }
    assert_eq!(get(&serve.url("/subjects/nothing/versions")).status, 404);
    assert_eq!(get(&serve.url("/no/such/route/at/all")).status, 404);
    assert_eq!(get(&serve.url("/readyz")).status, 200);
    let text = get(&metrics).text();
    println!("{text}");
    for expected in [
        r#"dataschema_server_requests_total{route="/schemas/{key}",status="200"} 3"#,
        r#"dataschema_server_requests_total{route="/publish/schemas/{key}",status="201"} 1"#,
        r#"dataschema_server_requests_total{route="/subjects/{subject}/versions",status="404"} 1"#,
        r#"dataschema_server_requests_total{route="unmatched",status="404"} 1"#,
        r#"dataschema_server_request_duration_seconds_bucket{route="/schemas/{key}",le="+Inf"} 3"#,
        r#"dataschema_server_request_duration_seconds_count{route="/schemas/{key}"} 3"#,
        r#"dataschema_server_cache_total{lookup="urn",result="miss"} 1"#,
        r#"dataschema_server_cache_total{lookup="urn",result="hit"} 2"#,
        "dataschema_server_ready 1",
        // Exported from the start, at 0 (an alert reads it).
        "dataschema_server_compile_budget_refusals_total 0",
    ] {
        assert!(text.contains(expected), "no {expected} in:\n{text}");
    }
    assert!(!text.contains("urn:acme"), "a raw path is a label:\n{text}");
    assert!(!text.contains("/no/such"), "a raw path is a label:\n{text}");
    // The shipped server alerts name only what the server exports.
    let rules = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("deploy/prometheus/dataschema-server.rules.yml"),
    )
    .unwrap();
    let mut used = 0;
    for piece in rules.split("dataschema_server_").skip(1) {
        let name: String = piece
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let name = format!("dataschema_server_{name}");
        let base = name
            .trim_end_matches("_bucket")
            .trim_end_matches("_count")
            .trim_end_matches("_sum");
        assert!(
            text.contains(&format!("# TYPE {base} ")),
            "the server rules use {name}, which the server does not export"
        );
        used += 1;
    }
    assert!(used >= 2, "the rules name the server's metrics");
}

/// A SIGTERM sent as soon as the start-up line is read stops the server
/// cleanly (exit 0), every time: the signals are caught before the line
/// is printed.
#[test]
fn sigterm_right_after_the_start_up_line_is_a_clean_stop() {
    for round in 0..5 {
        let serve = Serve::start(&["--store", "memory", "--read-only"]);
        let (exit, log) = serve.terminate();
        assert!(exit.success(), "round {round}: {exit:?}\n{log}");
        assert!(
            log.contains("dataschema serve stopped"),
            "round {round}: {log}"
        );
    }
}
