//! What the round trips (`tests/`) and the framing bench
//! (`benches/framing.rs`) share: a `dataschema serve` router on loopback
//! in this process (a memory store, publishing behind a token), and the
//! schemas and payloads they send through it.

use std::net::SocketAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;

use dataschema::server::{self, Access, Auth, Config};
use dataschema::{MemoryStore, Registry};

/// The publishing token of [`Serve`].
pub const TOKEN: &str = "rust-clients-token";

/// The registry's URN namespace.
pub const NAMESPACE: &str = "acme";

/// A JSON Schema of an order.
pub const ORDER_JSON: &str = r#"{"type":"object","properties":{"id":{"type":"string","minLength":1},"cents":{"type":"integer","minimum":0},"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}},"required":["sku","qty"]}}},"required":["id","cents","lines"]}"#;

/// An Avro record of a payment.
pub const PAYMENT_AVRO: &str = r#"{"type":"record","name":"Payment","namespace":"acme.payments","fields":[{"name":"id","type":"string"},{"name":"cents","type":"long"},{"name":"currency","type":"string"},{"name":"note","type":["null","string"],"default":null}]}"#;

/// A protobuf file as Confluent's clients register it (`.proto` text, no
/// root); frames name their message.
pub const TICKS_PROTO: &str = r#"syntax = "proto3";
package acme.ticks.v1;

message Tick {
  string id = 1;
  int64 at = 2;
}
"#;

/// A payment, as a serde struct (the Avro serializers' input).
#[derive(serde::Serialize)]
pub struct Payment {
    /// Its id.
    pub id: &'static str,
    /// Its amount.
    pub cents: i64,
    /// Its currency's code.
    pub currency: &'static str,
    /// A note, or none.
    pub note: Option<&'static str>,
}

/// The payment the tests and the bench send.
pub const PAYMENT: Payment = Payment {
    id: "pay_1",
    cents: 990,
    currency: "EUR",
    note: None,
};

/// [`PAYMENT`]'s Avro binary encoding.
pub fn payment_bytes() -> Vec<u8> {
    [&[0x0a][..], b"pay_1", &[0xbc, 0x0f, 0x06], b"EUR", &[0x00]].concat()
}

/// An order, as JSON.
pub fn order() -> serde_json::Value {
    serde_json::json!({
        "id": "ord_1",
        "cents": 1250,
        "lines": [{"sku": "a-1", "qty": 2}, {"sku": "b-2", "qty": 1}]
    })
}

/// A `dataschema serve` router on 127.0.0.1 (a port the OS picked), on a
/// runtime of its own; stopped when dropped.
pub struct Serve {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The registry it serves (for ids and direct publishes).
    pub registry: Registry,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Serve {
    /// A server over a new memory store, publishing behind [`TOKEN`].
    pub fn start() -> Serve {
        let registry = Registry::new(MemoryStore::new());
        let config = Config::new(NAMESPACE).expect("a namespace");
        let auth = Auth::new(TOKEN).expect("a token");
        let app = server::router(registry.clone(), &config, Access::Publish(auth));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (addr_tx, addr_rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("a loopback port");
                addr_tx
                    .send(listener.local_addr().expect("its address"))
                    .expect("the test waits");
                server::serve(listener, app, &config, async {
                    let _ = stopped.await;
                })
                .await
                .expect("the server runs");
            });
        });
        let addr = addr_rx.recv().expect("the server starts");
        Serve {
            addr,
            registry,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
