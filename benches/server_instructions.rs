//! The server's own work per cached read, in instructions counted by
//! callgrind: a figure that does not move with the machine's load, where
//! `benches/load/run.sh` (wrk against nginx) moves by 2x between rows on a
//! shared machine.
//!
//! ```sh
//! cargo bench --features server --bench server_instructions
//! ```
//!
//! Each row runs in a child process under `valgrind --tool=callgrind`: the
//! real router (`server::router` over a `MemoryStore` holding the sample
//! schemas, as `dataschema serve` builds it) served by `server::serve` on a
//! loopback socket, on a two-worker tokio runtime (as the command line
//! runs it), and a client in the same process sending keep-alive requests
//! one after the other on one connection and reading each answer whole.
//! The child runs at two request counts; the difference in instructions
//! over the difference in requests is the cost of one request (set-up
//! cancels out). The kernel's share (the socket calls) is not counted:
//! callgrind sees user space only.
//!
//! Rows:
//!
//! * `hyper/bare`: hyper's HTTP/1 connection on the same runtime answering
//!   every request with a prebuilt response of the same bytes and the same
//!   headers as `native/urn`: the least a server built on hyper does per
//!   request. The baseline; the ratios are against it.
//! * `native/urn`: `GET /schemas/{urn}` (cached).
//! * `confluent/id`: `GET /schemas/ids/{id}` (cached).
//! * `+log`: the same with a `tracing-subscriber` `fmt` subscriber at INFO
//!   installed (writing to a sink), so the request line is formatted, as
//!   `dataschema serve` does with `RUST_LOG=info`. Without it, the line is
//!   filtered out (no subscriber).
//!
//! Without valgrind it says so and exits.

#[path = "support/callgrind.rs"]
mod callgrind;

use std::io::{Read, Write};
use std::net::TcpStream;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Response};
use dataschema::server::{self, Auth, Config};
use dataschema::{Compatibility, MemoryStore, Registry, Schema, Urn};

const ROWS: [&str; 5] = [
    "hyper/bare",
    "native/urn",
    "native/urn+log",
    "confluent/id",
    "confluent/id+log",
];

const URN: &str = "urn:acme:schema:orders.created:2";

/// A registry holding the sample schemas `benches/load/run.sh` publishes.
fn registry() -> (Registry, u32) {
    let registry = Registry::new(MemoryStore::new());
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");
    let mut id = 0;
    for (file, urn) in [
        ("common.address.v1.json", "urn:acme:schema:common.address:1"),
        ("orders.created.v1.json", "urn:acme:schema:orders.created:1"),
        ("orders.created.v2.json", URN),
    ] {
        let bytes = std::fs::read(format!("{dir}/{file}")).expect("a sample schema");
        let urn: Urn = urn.parse().expect("a URN");
        let stored = registry
            .publish(Schema::json(urn, bytes), Compatibility::None)
            .expect("the sample schema publishes");
        id = stored.id;
    }
    (registry, id)
}

/// The headers `GET /schemas/{urn}` answers, prebuilt for the bare row.
fn bare_response(schema: &Schema, id: u32) -> (Bytes, HeaderMap) {
    let mut headers = HeaderMap::new();
    let value = |s: &str| HeaderValue::from_str(s).expect("an ASCII header value");
    headers.insert("content-type", value("application/schema+json"));
    headers.insert("etag", value(&format!("\"{}\"", schema.digest())));
    headers.insert(
        "cache-control",
        value("public, max-age=31536000, immutable"),
    );
    headers.insert("dataschema-urn", value(schema.urn().as_ref()));
    headers.insert("dataschema-language", value(schema.language().as_str()));
    headers.insert("dataschema-digest", value(schema.digest()));
    headers.insert("dataschema-id", value(&id.to_string()));
    (schema.shared_bytes(), headers)
}

/// Sends `n` keep-alive GETs of `path` and reads each answer whole;
/// answers the body length. The first answer is parsed (status 200, its
/// `content-length`); every later one must be a 200 of the same length
/// (the headers, `date` included, keep their lengths) and the same body,
/// read as that many bytes, so that the client's own instructions stay few next to the
/// server's.
fn client(port: u16, path: &str, n: usize) -> usize {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the server accepts");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let mut buf = vec![0u8; 64 * 1024];
    stream
        .write_all(request.as_bytes())
        .expect("the request is sent");
    let mut filled = 0;
    let (head_end, length) = loop {
        let read = stream.read(&mut buf[filled..]).expect("the answer reads");
        assert!(read > 0, "the server closed the connection");
        filled += read;
        if let Some(at) = buf[..filled].windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..at]).expect("ASCII headers");
            assert!(head.starts_with("HTTP/1.1 200"), "not a 200: {head}");
            let length = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .expect("a content-length");
            break (at + 4, length);
        }
    };
    let total = head_end + length;
    stream
        .read_exact(&mut buf[filled..total])
        .expect("the body reads");
    let first = buf[head_end..total].to_vec();
    for _ in 1..n {
        stream
            .write_all(request.as_bytes())
            .expect("the request is sent");
        stream
            .read_exact(&mut buf[..total])
            .expect("the answer reads");
        assert!(buf.starts_with(b"HTTP/1.1 200 "), "not a 200");
        assert_eq!(&buf[head_end - 4..head_end], b"\r\n\r\n", "the same head");
        assert_eq!(&buf[head_end..total], &first[..], "the same body");
    }
    length
}

/// Runs `row` for `n` requests (the child under callgrind).
fn child(row: &str, n: usize) {
    let _log = row.ends_with("+log").then(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_writer(std::io::sink)
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("one subscriber")
    });
    let row = row.trim_end_matches("+log");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let (registry, id) = registry();
    let schema = registry
        .resolve(&URN.parse().expect("a URN"))
        .expect("held");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a loopback port");
    let port = listener.local_addr().expect("an address").port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let path = match row {
        "hyper/bare" => {
            let (body, headers) = bare_response(&schema, id);
            runtime.spawn(async move {
                let (stream, _) = listener.accept().await.expect("a connection");
                stream.set_nodelay(true).expect("TCP_NODELAY");
                let service = hyper::service::service_fn(move |_request| {
                    let mut response = Response::new(Body::from(body.clone()));
                    *response.headers_mut() = headers.clone();
                    async move { Ok::<_, std::convert::Infallible>(response) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
            format!("/schemas/{URN}")
        }
        "native/urn" | "confluent/id" => {
            let config = Config::new("acme").expect("a namespace");
            let auth = Auth::new("a long random publish token").expect("a token");
            let app = server::router(registry, &config, Some(auth), false).expect("a router");
            runtime.spawn(async move {
                let _ = server::serve(listener, app, &config, async {
                    let _ = stopped.await;
                })
                .await;
            });
            if row == "native/urn" {
                format!("/schemas/{URN}")
            } else {
                format!("/schemas/ids/{id}")
            }
        }
        other => panic!("no row {other}"),
    };
    let length = client(port, &path, n);
    assert!(
        length > 1_000,
        "{row}: the schema's answer ({length} bytes)"
    );
    let _ = stop.send(());
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
}

/// Instructions callgrind counted for `row` run `n` times.
fn instructions(row: &str, n: usize) -> Option<u64> {
    callgrind::instructions("DATASCHEMA_SERVER_ROW", row, "DATASCHEMA_SERVER_N", n, None)
}

fn main() {
    if let (Ok(row), Ok(n)) = (
        std::env::var("DATASCHEMA_SERVER_ROW"),
        std::env::var("DATASCHEMA_SERVER_N"),
    ) {
        child(&row, n.parse().expect("a request count"));
        return;
    }
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    if !callgrind::available() {
        println!("server_instructions: valgrind is not installed; nothing measured");
        return;
    }
    let (few, many) = (500, 2_500);
    let mut per = std::collections::HashMap::new();
    for row in ROWS {
        let (Some(a), Some(b)) = (instructions(row, few), instructions(row, many)) else {
            println!("{row}: callgrind gave no count");
            std::process::exit(1);
        };
        let each = (b.saturating_sub(a)) as f64 / (many - few) as f64;
        println!("{row:18} {each:>8.0} instructions per request");
        per.insert(row, each);
    }
    let bare = per["hyper/bare"];
    for row in &ROWS[1..] {
        println!("{row:18} / hyper/bare = {:.2}", per[row] / bare);
    }
}
