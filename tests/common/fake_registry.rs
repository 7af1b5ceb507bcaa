//! A hostile registry on 127.0.0.1:0, in the test's process: it answers
//! each `GET` with what the test's handler says (any status, headers and
//! body, true or not), or accepts the request and never answers.
//!
//! Included with `#[path = "common/fake_registry.rs"] mod fake_registry;`
//! by the tests that need it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the registry does with one request.
pub enum Reply {
    /// Answers this status, these headers and this body.
    Answer {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Reads the request and never answers (until the registry stops).
    Silent,
}

impl Reply {
    /// A native API answer for a JSON Schema: the `Dataschema-*` headers
    /// naming `urn`, the body's own digest, and `id`.
    pub fn native_json(urn: &str, id: Option<u32>, body: &[u8]) -> Reply {
        let mut headers = vec![
            ("Dataschema-Urn".to_owned(), urn.to_owned()),
            ("Dataschema-Language".to_owned(), "jsonschema".to_owned()),
            ("Dataschema-Digest".to_owned(), sha256(body)),
            (
                "Content-Type".to_owned(),
                "application/schema+json".to_owned(),
            ),
        ];
        if let Some(id) = id {
            headers.push(("Dataschema-Id".to_owned(), id.to_string()));
        }
        Reply::Answer {
            status: 200,
            headers,
            body: body.to_vec(),
        }
    }

    /// `404` with a native API error body.
    pub fn not_found() -> Reply {
        Reply::Answer {
            status: 404,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: br#"{"error":"not_found","message":"not held"}"#.to_vec(),
        }
    }
}

/// `sha256:<hex>` of `bytes`, as the registry's `Dataschema-Digest`.
pub fn sha256(bytes: &[u8]) -> String {
    dataschema::Schema::json("urn:test:schema:digest:1".parse().unwrap(), bytes.to_vec())
        .digest()
        .to_owned()
}

type Handler = dyn Fn(&str) -> Reply + Send + Sync;

/// A running hostile registry; stops when dropped.
pub struct FakeRegistry {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    stopping: Arc<AtomicBool>,
    open: Arc<AtomicUsize>,
}

impl FakeRegistry {
    /// Starts the registry; `handler` is given each request's path.
    pub fn start(handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> FakeRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stopping = Arc::new(AtomicBool::new(false));
        let open = Arc::new(AtomicUsize::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let (log, stop, count) = (requests.clone(), stopping.clone(), open.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (handler, log, stop, count) =
                    (handler.clone(), log.clone(), stop.clone(), count.clone());
                std::thread::spawn(move || serve(stream, &*handler, &log, &stop, &count));
            }
        });
        FakeRegistry {
            addr,
            requests,
            stopping,
            open,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The paths asked so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for FakeRegistry {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wakes the accept loop.
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(
    stream: TcpStream,
    handler: &Handler,
    log: &Mutex<Vec<String>>,
    stopping: &AtomicBool,
    open: &AtomicUsize,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(stream) => stream,
        Err(_) => return,
    });
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        // The headers, up to the blank line, then the body (read, unused).
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header == "\r\n" || header == "\n" {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if std::io::Read::read_exact(&mut reader, &mut body).is_err() {
            return;
        }
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        log.lock().unwrap().push(path.clone());
        match handler(&path) {
            Reply::Silent => {
                open.fetch_add(1, Ordering::SeqCst);
                while !stopping.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                open.fetch_sub(1, Ordering::SeqCst);
                return;
            }
            Reply::Answer {
                status,
                headers,
                body,
            } => {
                let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\n", body.len());
                for (name, value) in headers {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                head.push_str("\r\n");
                if stream.write_all(head.as_bytes()).is_err() || stream.write_all(&body).is_err() {
                    return;
                }
            }
        }
    }
}
