//! Helpers for the server tests: a real server on 127.0.0.1:0 in its own
//! runtime, an HTTP client, raw requests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use dataschema::server::{self, Access, Auth, Config};
use dataschema::{MemoryStore, Registry, Store};

#[cfg(feature = "cli")]
pub mod process;

pub const TOKEN: &str = "pa:ss w0rd!";

/// A server running on loopback until dropped (or [`Running::stop`]).
pub struct Running {
    pub addr: SocketAddr,
    pub registry: Registry,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Running {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Asks the server to stop; the requests in flight finish first.
    pub fn begin_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Stops and waits for the serve loop to return.
    pub fn stop(mut self) {
        self.begin_stop();
        if let Some(thread) = self.thread.take() {
            thread.join().expect("the server thread ends cleanly");
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.begin_stop();
    }
}

pub fn config() -> Config {
    Config::new("acme").unwrap()
}

/// A publishing server over a new memory store.
pub fn start() -> Running {
    start_with(config(), false)
}

pub fn start_with(config: Config, read_only: bool) -> Running {
    start_over(Registry::new(MemoryStore::new()), config, read_only)
}

pub fn start_on(store: impl Store + 'static, config: Config) -> Running {
    start_over(Registry::new(store), config, false)
}

fn start_over(registry: Registry, config: Config, read_only: bool) -> Running {
    let access = if read_only {
        Access::ReadOnly
    } else {
        Access::Publish(Auth::new(TOKEN).unwrap())
    };
    let app = server::router(registry.clone(), &config, access);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (addr_tx, addr_rx) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            server::serve(listener, app, &config, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
    });
    let addr = addr_rx.recv().expect("the server starts");
    Running {
        addr,
        registry,
        stop: Some(stop),
        thread: Some(thread),
    }
}

/// An answer: status, headers, body.
pub struct Reply {
    pub status: u16,
    pub headers: ureq::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.text()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The Confluent error code of the body.
    pub fn code(&self) -> i64 {
        self.json()["error_code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error_code: {}", self.text()))
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// One request with `headers` and, for POST and PUT, `body`.
pub fn call(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut builder = ureq::http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let response = if method == "POST" || method == "PUT" {
        agent().run(builder.body(body.to_vec()).unwrap())
    } else {
        agent().run(builder.body(()).unwrap())
    };
    let mut response = response.unwrap_or_else(|err| panic!("{method} {url}: {err}"));
    Reply {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_vec()
            .unwrap(),
    }
}

pub fn get(url: &str) -> Reply {
    call("GET", url, &[], b"")
}

pub fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

/// A Confluent client's request: its content type, `Accept: */*`, the
/// credential as HTTP Basic.
pub fn confluent(method: &str, url: &str, body: &serde_json::Value) -> Reply {
    use base64::Engine as _;
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("client:{TOKEN}"))
    );
    let body = if body.is_null() {
        Vec::new()
    } else {
        body.to_string().into_bytes()
    };
    call(
        method,
        url,
        &[
            ("Content-Type", "application/vnd.schemaregistry.v1+json"),
            ("Accept", "*/*"),
            ("Authorization", &basic),
        ],
        &body,
    )
}

/// Sends `request` as written on a new connection and answers the status
/// code of the reply and the whole reply.
pub fn raw(addr: SocketAddr, request: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, reply)
}

/// A memory store whose `versions` of a name starting with `slow` takes
/// `delay`: a request that holds its concurrency slot that long
/// (`GET /names/acme/slow/versions`). `overlap` counts how many such
/// calls were in flight at once.
pub struct Sleepy {
    pub inner: MemoryStore,
    pub delay: Duration,
    pub overlap: std::sync::Arc<Overlap>,
}

/// How many slow calls are in flight, and the most there were at once.
#[derive(Default)]
pub struct Overlap {
    now: std::sync::atomic::AtomicUsize,
    peak: std::sync::atomic::AtomicUsize,
}

impl Overlap {
    /// The most slow calls in flight at once so far.
    pub fn peak(&self) -> usize {
        self.peak.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn during<T>(&self, work: impl FnOnce() -> T) -> T {
        use std::sync::atomic::Ordering::SeqCst;
        let now = self.now.fetch_add(1, SeqCst) + 1;
        self.peak.fetch_max(now, SeqCst);
        let done = work();
        self.now.fetch_sub(1, SeqCst);
        done
    }
}

impl Store for Sleepy {
    fn get(&self, urn: &dataschema::Urn) -> Result<Option<dataschema::Schema>, dataschema::Error> {
        self.inner.get(urn)
    }
    fn publish(
        &self,
        schema: &dataschema::Schema,
        version: dataschema::store::Version,
        check: dataschema::store::Check<'_>,
    ) -> Result<dataschema::store::Stored, dataschema::Error> {
        self.inner.publish(schema, version, check)
    }
    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, dataschema::Error> {
        if name.starts_with("slow") {
            self.overlap.during(|| std::thread::sleep(self.delay));
        }
        self.inner.versions(namespace, name)
    }
    fn list(&self) -> Result<Vec<dataschema::Urn>, dataschema::Error> {
        self.inner.list()
    }
    fn id_of(
        &self,
        urn: &dataschema::Urn,
    ) -> Result<Option<dataschema::store::SchemaId>, dataschema::Error> {
        self.inner.id_of(urn)
    }
    fn urns_of(
        &self,
        id: dataschema::store::SchemaId,
    ) -> Result<Vec<dataschema::Urn>, dataschema::Error> {
        self.inner.urns_of(id)
    }
    fn compatibility(
        &self,
        name: Option<&str>,
    ) -> Result<Option<dataschema::Compatibility>, dataschema::Error> {
        self.inner.compatibility(name)
    }
    fn set_compatibility(
        &self,
        name: Option<&str>,
        mode: Option<dataschema::Compatibility>,
    ) -> Result<(), dataschema::Error> {
        self.inner.set_compatibility(name, mode)
    }
}

/// A publishing server whose `GET /names/acme/slow/versions` takes `delay`.
pub fn start_sleepy(config: Config, delay: Duration) -> Running {
    start_sleepy_counted(config, delay).0
}

/// [`start_sleepy`], with the count of slow calls in flight at once.
pub fn start_sleepy_counted(config: Config, delay: Duration) -> (Running, std::sync::Arc<Overlap>) {
    let overlap = std::sync::Arc::new(Overlap::default());
    let running = start_on(
        Sleepy {
            inner: MemoryStore::new(),
            delay,
            overlap: overlap.clone(),
        },
        config,
    );
    (running, overlap)
}
