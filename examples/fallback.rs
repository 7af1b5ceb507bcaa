//! The HTTP fallback: a schema the binary's bundle lacks is fetched from a
//! registry server, and when that server is gone the message still passes,
//! counted.
//!
//! ```text
//! cargo run --example fallback --features http,server,json
//! ```
//!
//! It starts a registry server in this process (on a loopback port the OS
//! picks), publishes two versions of `refunds.issued` (which the bundle
//! lacks) over HTTP, then validates with a guard whose fallback is that
//! server: v1 validates (and an invalid v1 payload is refused). Then the
//! server stops. v1 still validates (a fetched schema is immutable, kept
//! for good); v2, never fetched, fails open as `unreachable` and is counted
//! in `dataschema_unvalidated_total{reason="unreachable"}`, read back from
//! the Prometheus recorder it installs. It exits non-zero if any of that does not happen
//! (`tests/cli/fallback_example.rs` runs it).

use std::time::{Duration, Instant};

use metrics_exporter_prometheus::PrometheusBuilder;

use dataschema::http::HttpResolver;
use dataschema::server::{self, Auth, Config};
use dataschema::{Guard, MemoryStore, Outcome, Reason, Registry};

const TOKEN: &str = "an example publish token";
const V1: &str = r#"{
  "type": "object",
  "properties": {
    "refund_id": { "type": "string", "pattern": "^ref_" },
    "amount": { "type": "number", "exclusiveMinimum": 0 }
  },
  "required": ["refund_id", "amount"],
  "additionalProperties": false
}"#;
const V2: &str = r#"{
  "type": "object",
  "properties": {
    "refund_id": { "type": "string", "pattern": "^ref_" },
    "amount": { "type": "number", "exclusiveMinimum": 0 },
    "reason": { "type": "string" }
  },
  "required": ["refund_id", "amount"],
  "additionalProperties": false
}"#;
const V1_URN: &str = "urn:acme:schema:refunds.issued:1";
const V2_URN: &str = "urn:acme:schema:refunds.issued:2";

/// A registry server on its own runtime thread, until [`Server::stop`].
struct Server {
    url: String,
    stop: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<std::io::Result<()>>,
}

impl Server {
    fn start() -> Result<Server, Box<dyn std::error::Error>> {
        let config = Config::new("acme")?;
        let app = server::router(
            Registry::new(MemoryStore::new()),
            &config,
            Some(Auth::new(TOKEN)?),
            false,
        )?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let url = format!("http://{}", listener.local_addr()?);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(server::serve(listener, app, &config, async {
                let _ = stopped.await;
            }))
        });
        Ok(Server { url, stop, thread })
    }

    /// Publishes a JSON Schema over the native API.
    fn publish(&self, urn: &str, schema: &str) -> Result<(), Box<dyn std::error::Error>> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(10)))
            .build()
            .into();
        let mut reply = agent
            .put(format!("{}/publish/schemas/{urn}", self.url))
            .header("Authorization", format!("Bearer {TOKEN}"))
            .send(schema.as_bytes())?;
        let status = reply.status().as_u16();
        let body = reply.body_mut().read_to_string()?;
        if status != 201 && status != 200 {
            return Err(format!("publishing {urn}: HTTP {status}: {body}").into());
        }
        println!("published {urn}: HTTP {status} {body}");
        Ok(())
    }

    /// Stops accepting, finishes the requests in flight, and returns.
    fn stop(self) -> Result<(), Box<dyn std::error::Error>> {
        let _ = self.stop.send(());
        match self.thread.join() {
            Ok(result) => Ok(result?),
            Err(_) => Err("the server thread panicked".into()),
        }
    }
}

/// Checks one step, printing it; an unexpected verdict ends the example.
fn expect(
    what: &str,
    got: &Result<Outcome, dataschema::Invalid>,
    wanted: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let seen = match got {
        Ok(Outcome::Validated) => "validated".to_owned(),
        Ok(Outcome::Unvalidated(u)) => format!("unvalidated ({})", u.reason()),
        Ok(other) => format!("{other:?}"),
        Err(invalid) => format!("invalid ({} violations)", invalid.violations().len()),
    };
    println!("{what}: {seen}");
    if !seen.starts_with(wanted) {
        return Err(format!("{what}: wanted {wanted}, got {seen}").into());
    }
    Ok(())
}

/// The example, callable from a test.
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let server = Server::start()?;
    println!("registry server on {}", server.url);
    server.publish(V1_URN, V1)?;
    server.publish(V2_URN, V2)?;

    // The recorder is installed before the guard is built (the guard binds
    // its counters in the recorder installed then; a schema's, when it is
    // first compiled); its counts are read back below.
    let recorder = PrometheusBuilder::new().build_recorder();
    let metrics = recorder.handle();
    metrics::set_global_recorder(recorder)
        .map_err(|err| format!("installing the Prometheus recorder: {err}"))?;
    let fallback = HttpResolver::builder(server.url.clone())
        .timeout(Duration::from_millis(500))
        .build()?;
    let bundle = Registry::from_bundle(dataschema::include_bundle!())?;
    let guard = Guard::builder(bundle).fallback(fallback.clone()).build();

    let good = br#"{"refund_id": "ref_1", "amount": 12.5}"#;
    let bad = br#"{"refund_id": "R-1", "amount": 0}"#;
    expect(
        "v1, registry up",
        &guard.validate(V1_URN, good),
        "validated",
    )?;
    expect(
        "v1 invalid, registry up",
        &guard.validate(V1_URN, bad),
        "invalid",
    )?;
    println!("schemas fetched so far: {}", fallback.cached_len());

    server.stop()?;
    println!("registry server stopped");
    expect(
        "v1, registry down (cached)",
        &guard.validate(V1_URN, good),
        "validated",
    )?;
    let unreachable = guard.validate(V2_URN, good);
    expect(
        "v2, registry down (never fetched)",
        &unreachable,
        "unvalidated (unreachable)",
    )?;
    if let Ok(Outcome::Unvalidated(u)) = &unreachable {
        assert_eq!(u.reason(), Reason::Unreachable);
        println!("  {u}");
    }

    let rendered = metrics.render();
    let series = |name: &str, label: &str| -> Option<f64> {
        let prefix = format!("{name}{{{label}}} ");
        rendered
            .lines()
            .find_map(|line| line.strip_prefix(prefix.as_str()))
            .and_then(|value| value.trim().parse().ok())
    };
    let counted = [
        (
            "dataschema_validated_total",
            r#"schema="refunds.issued""#,
            2.0,
        ),
        (
            "dataschema_invalid_total",
            r#"schema="refunds.issued""#,
            1.0,
        ),
        (
            "dataschema_unvalidated_total",
            r#"reason="unreachable""#,
            1.0,
        ),
        ("dataschema_unvalidated_total", r#"reason="not_found""#, 0.0),
    ];
    println!("\nsummary ({} ms)", started.elapsed().as_millis());
    for (name, label, wanted) in counted {
        let value = series(name, label);
        println!("  {name}{{{label}}} = {value:?}");
        if value != Some(wanted) {
            return Err(
                format!("{name}{{{label}}} is {value:?}, wanted {wanted}\n{rendered}").into(),
            );
        }
    }
    println!(
        "  Guard::unvalidated() = {}: the number to alert on",
        guard.unvalidated()
    );
    Ok(())
}
