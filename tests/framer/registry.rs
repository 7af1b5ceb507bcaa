//! Ids from a registry by the schema's content (`FramerBuilder::registry`,
//! `HttpResolver::id_of_schema`), against a real `dataschema serve`
//! process: Confluent's lookup of a schema's text under its subject
//! answers the id whatever version the registry gave it; the process
//! killed mid-stream leaves the ids already found in use and makes the
//! rest clean `unreachable` errors (never a frame, never a zero id) until
//! it is back; auto-registration is off unless asked for, with a token.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::urn;
use crate::server::process::{token_file, Serve};
use crate::server::{self, confluent, TOKEN};

use dataschema::http::{Api, HttpResolver, NoRegistryId};
use dataschema::{FrameReason, Framer, Guard, Outcome, Registry, Schema};

const GREETING: &str = r#"{"type": "string"}"#;
const TALLY: &str = r#"{"type": "integer", "minimum": 0}"#;
const PAYMENT: &str = r#"{"type": "record", "name": "Payment", "namespace": "acme", "fields": [{"name": "cents", "type": "long"}]}"#;

/// A registry client of `serve`'s Confluent API (or its native one).
fn registry(serve: &Serve, api: Api) -> dataschema::http::HttpResolverBuilder {
    HttpResolver::builder(serve.url(""))
        .api(api)
        .timeout(Duration::from_millis(500))
        .retry_after(Duration::from_millis(50))
}

fn confluent_api() -> Api {
    Api::Confluent {
        namespace: "acme".into(),
    }
}

/// Registers `text` under `subject` through Confluent's API: its id.
fn register(serve: &Serve, subject: &str, text: &str, schema_type: &str) -> u32 {
    let reply = confluent(
        "POST",
        &serve.url(&format!("/subjects/{subject}/versions")),
        &serde_json::json!({"schema": text, "schemaType": schema_type}),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    u32::try_from(reply.json()["id"].as_u64().unwrap()).unwrap()
}

/// A bundle holding the three schemas, with no ids (no lock).
fn bundle() -> Registry {
    Registry::embed([
        Schema::json(urn("urn:acme:schema:greeting:1"), GREETING),
        Schema::json(urn("urn:acme:schema:tally:1"), TALLY),
        Schema::avro(urn("urn:acme:schema:payment:1"), PAYMENT),
    ])
    .unwrap()
}

#[test]
fn ids_by_content_from_a_serve_killed_mid_stream_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = token_file(dir.path());
    let cwd = Arc::new(tempfile::tempdir().unwrap());
    let serve = Serve::start_in(cwd.clone(), &["--token-file", &tokens]);
    let addr = serve.addr;
    let greeting = register(&serve, "greeting", GREETING, "JSON");
    // The bundle's tally:1 is the registry's second version of `tally`:
    // the lookup by text finds it, a lookup by version number would not.
    register(
        &serve,
        "tally",
        r#"{"type": "integer", "minimum": 0, "maximum": 9}"#,
        "JSON",
    );
    let tally = register(&serve, "tally", TALLY, "JSON");
    let payment = register(&serve, "payment", PAYMENT, "AVRO");
    assert_eq!(
        [greeting, tally, payment].map(|id| id > 0),
        [true; 3],
        "{greeting} {tally} {payment}"
    );

    let framer = Framer::builder(bundle())
        .registry(registry(&serve, confluent_api()).build().unwrap())
        .build();
    let consumer = Guard::builder(Registry::embed(Vec::new()).unwrap())
        .fallback(registry(&serve, Api::Native).build().unwrap())
        .build();
    let greeting_frame = framer
        .frame(&urn("urn:acme:schema:greeting:1"), br#""hi""#)
        .unwrap();
    assert_eq!(
        greeting_frame[..5],
        [&[0][..], &greeting.to_be_bytes()].concat()
    );
    let tally_frame = framer.frame(&urn("urn:acme:schema:tally:1"), b"3").unwrap();
    assert_eq!(tally_frame[1..5], tally.to_be_bytes());
    for frame in [&greeting_frame, &tally_frame] {
        assert!(matches!(
            consumer.validate_framed(frame),
            Ok(Outcome::Validated)
        ));
    }
    // What the consumers would refuse is not framed, registry or not.
    let refused = framer
        .frame(&urn("urn:acme:schema:tally:1"), b"-1")
        .unwrap_err();
    assert_eq!(refused.reason(), FrameReason::Invalid);

    // The registry dies mid-stream (SIGKILL: no goodbye).
    drop(serve);
    let started = Instant::now();
    for _ in 0..50 {
        // Ids found before are kept: those frames go on.
        assert_eq!(
            framer
                .frame(&urn("urn:acme:schema:greeting:1"), br#""hi""#)
                .unwrap(),
            greeting_frame
        );
        // A schema not asked yet: a clean error, never a frame.
        let err = framer
            .frame(&urn("urn:acme:schema:payment:1"), &[0x02])
            .unwrap_err();
        assert_eq!(err.reason(), FrameReason::Unreachable, "{err}");
        assert!(err.to_string().contains("unreachable"), "{err}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "bounded by the timeouts and the remembered failure: {:?}",
        started.elapsed()
    );

    // Back on the same address, over the same store: framed with its id.
    let serve = restart(cwd, &addr.to_string(), &tokens);
    let deadline = Instant::now() + Duration::from_secs(20);
    let frame = loop {
        match framer.frame(&urn("urn:acme:schema:payment:1"), &[0x02]) {
            Ok(frame) => break frame,
            Err(err) => {
                assert_eq!(err.reason(), FrameReason::Unreachable, "{err}");
                assert!(Instant::now() < deadline, "still not framed: {err}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    };
    assert_eq!(frame, [&[0][..], &payment.to_be_bytes(), &[0x02]].concat());
    assert!(matches!(
        consumer.validate_framed(&frame),
        Ok(Outcome::Validated)
    ));
    drop(serve);
}

/// `dataschema serve` again in `cwd` on `listen` (the port may take a
/// moment to be free).
fn restart(cwd: Arc<tempfile::TempDir>, listen: &str, tokens: &str) -> Serve {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if std::net::TcpListener::bind(listen).is_ok() {
            return Serve::start_at(cwd, listen, &["--token-file", tokens]);
        }
        assert!(Instant::now() < deadline, "{listen} stays taken");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_schema_the_registry_lacks_is_registered_only_when_asked_with_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = token_file(dir.path());
    let serve = Serve::start(&["--token-file", &tokens]);
    let tally = urn("urn:acme:schema:tally:1");

    // Off by default: no id, nothing written.
    let framer = Framer::builder(bundle())
        .registry(registry(&serve, confluent_api()).build().unwrap())
        .build();
    let err = framer.frame(&tally, b"3").unwrap_err();
    assert_eq!(err.reason(), FrameReason::NoId, "{err}");
    assert!(
        err.to_string().contains("auto-registration is off"),
        "{err}"
    );
    assert_eq!(
        server::get(&serve.url("/subjects")).json(),
        serde_json::json!([])
    );

    // A wrong token: refused, counted as such, nothing written.
    let framer = Framer::builder(bundle())
        .registry(
            registry(&serve, confluent_api())
                .auto_register("not the token")
                .build()
                .unwrap(),
        )
        .build();
    let err = framer.frame(&tally, b"3").unwrap_err();
    assert_eq!(err.reason(), FrameReason::Refused, "{err}");
    assert!(matches!(
        err.error(),
        Some(dataschema::Error::Other(other))
            if matches!(other.downcast_ref::<NoRegistryId>(), Some(NoRegistryId::Refused { .. }))
    ));
    assert_eq!(
        server::get(&serve.url("/subjects")).json(),
        serde_json::json!([])
    );

    // With the token: registered under its subject, framed with its id.
    let framer = Framer::builder(bundle())
        .registry(
            registry(&serve, confluent_api())
                .auto_register(TOKEN)
                .build()
                .unwrap(),
        )
        .build();
    let frame = framer.frame(&tally, b"3").unwrap();
    let held = confluent(
        "POST",
        &serve.url("/subjects/tally"),
        &serde_json::json!({"schema": TALLY, "schemaType": "JSON"}),
    );
    assert_eq!(held.status, 200, "{}", held.text());
    let id = u32::try_from(held.json()["id"].as_u64().unwrap()).unwrap();
    assert!(id > 0);
    assert_eq!(frame, [&[0][..], &id.to_be_bytes(), b"3"].concat());

    // Natively: published under its URN exactly, with the id framed.
    let framer = Framer::builder(bundle())
        .registry(
            registry(&serve, Api::Native)
                .auto_register(TOKEN)
                .build()
                .unwrap(),
        )
        .build();
    let payment = urn("urn:acme:schema:payment:1");
    let frame = framer.frame(&payment, &[0x04]).unwrap();
    let read = server::get(&serve.url("/schemas/urn:acme:schema:payment:1"));
    assert_eq!(read.status, 200, "{}", read.text());
    let id: u32 = read.header("dataschema-id").unwrap().parse().unwrap();
    assert_eq!(frame, [&[0][..], &id.to_be_bytes(), &[0x04]].concat());
    // Natively, the URN must hold the bundle's very bytes: the tally
    // Confluent's API registered is held in its canonical form (no
    // spaces), so it is refused, never framed with that id.
    let err = framer.frame(&tally, b"3").unwrap_err();
    assert_eq!(err.reason(), FrameReason::Unreachable, "{err}");
    assert!(err.to_string().contains("other bytes"), "{err}");
}
