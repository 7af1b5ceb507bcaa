//! The server's native API, its authentication, the path tricks that must
//! not reach publish, and its limits: a real server on 127.0.0.1:0.
#![cfg(feature = "server")]

use crate::server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use dataschema::server::{publish_router, router, Access, Auth, CredentialError};
use dataschema::{MemoryStore, Registry};
use server::*;

const URN: &str = "urn:acme:schema:orders.created:1";
const V1: &str = r#"{"type": "object", "properties": {"id": {"type": "string"}}}"#;
const V2_NARROWED: &str = r#"{"type": "object", "properties": {"id": {"type": "integer"}}}"#;

fn publish(running: &Running, urn: &str, body: &str, extra: &[(&str, &str)]) -> Reply {
    let auth = bearer();
    let mut headers = vec![("Authorization", auth.as_str())];
    headers.extend_from_slice(extra);
    call(
        "PUT",
        &running.url(&format!("/publish/schemas/{urn}")),
        &headers,
        body.as_bytes(),
    )
}

#[test]
fn publish_then_read_with_immutable_caching() {
    let running = start();
    let created = publish(&running, URN, V1, &[]);
    assert_eq!(created.status, 201, "{}", created.text());
    let id = created.json()["id"].as_u64().unwrap();
    assert_eq!(created.json()["created"], true);
    let again = publish(&running, URN, V1, &[]);
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["id"].as_u64(), Some(id));

    let read = get(&running.url(&format!("/schemas/{URN}")));
    assert_eq!(read.status, 200);
    assert_eq!(read.text(), V1);
    assert_eq!(read.header("content-type"), Some("application/schema+json"));
    assert_eq!(read.header("dataschema-language"), Some("jsonschema"));
    assert_eq!(read.header("dataschema-urn"), Some(URN));
    assert_eq!(read.header("dataschema-id"), Some(id.to_string().as_str()));
    let digest = read.header("dataschema-digest").unwrap().to_owned();
    assert!(digest.starts_with("sha256:"));
    let etag = format!("\"{digest}\"");
    assert_eq!(read.header("etag"), Some(etag.as_str()));
    assert_eq!(
        read.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );

    for tag in [etag.clone(), format!("W/{etag}"), "*".to_owned()] {
        let cached = call(
            "GET",
            &running.url(&format!("/schemas/{URN}")),
            &[("If-None-Match", &tag)],
            b"",
        );
        assert_eq!(cached.status, 304, "{tag}");
        assert!(cached.body.is_empty());
        assert_eq!(cached.header("etag"), Some(etag.as_str()));
    }
    let stale = call(
        "GET",
        &running.url(&format!("/schemas/{URN}")),
        &[("If-None-Match", "\"sha256:other\"")],
        b"",
    );
    assert_eq!(stale.status, 200);

    let list = get(&running.url("/urns"));
    assert_eq!(list.json(), serde_json::json!([URN]));
    let versions = get(&running.url("/names/acme/orders.created/versions"));
    assert_eq!(versions.json(), serde_json::json!([1]));
    assert_eq!(
        get(&running.url("/names/acme/nothing/versions")).status,
        404
    );
    assert_eq!(get(&running.url("/names/acme/Bad/versions")).status, 400);
}

#[test]
fn an_id_is_answered_under_the_servers_namespace_first_then_any() {
    // The server's namespace is `acme`; the native API holds every one.
    let running = start();
    let other = "urn:globex:schema:orders.created:1";
    let first = publish(&running, other, V1, &[]);
    assert_eq!(first.status, 201, "{}", first.text());
    let id = first.json()["id"].as_u64().unwrap();
    let read = get(&running.url(&format!("/ids/{id}")));
    assert_eq!(read.status, 200, "{}", read.text());
    assert_eq!(read.text(), V1);
    assert_eq!(read.header("dataschema-urn"), Some(other));
    // The same content under the server's namespace: that URN is preferred.
    let own = publish(&running, URN, V1, &[]);
    assert_eq!(own.json()["id"].as_u64(), Some(id), "one content, one id");
    let read = get(&running.url(&format!("/ids/{id}")));
    assert_eq!(read.header("dataschema-urn"), Some(URN));
    assert_eq!(get(&running.url(&format!("/ids/{}", id + 1))).status, 404);
}

#[test]
fn publish_refusals_name_their_reason() {
    let running = start();
    assert_eq!(publish(&running, URN, V1, &[]).status, 201);

    let immutable = publish(&running, URN, V2_NARROWED, &[]);
    assert_eq!(immutable.status, 409);
    assert_eq!(immutable.json()["error"], "immutable");

    let v2 = "urn:acme:schema:orders.created:2";
    let incompatible = publish(
        &running,
        v2,
        V2_NARROWED,
        &[("Dataschema-Mode", "backward")],
    );
    assert_eq!(incompatible.status, 409, "{}", incompatible.text());
    let body = incompatible.json();
    assert_eq!(body["error"], "incompatible");
    let report = &body["report"];
    assert_eq!(report["mode"], "backward");
    assert_eq!(report["compatible"], false);
    let change = &report["versions"][0]["changes"][0];
    assert_eq!(report["versions"][0]["version"], 1);
    assert!(
        change["kind"].as_str().unwrap().starts_with("TYPE_"),
        "{change}"
    );
    assert_eq!(change["breaking"], true);
    assert!(change["path"].as_str().unwrap().contains("id"), "{change}");
    assert_eq!(change["direction"], "backward");

    // A request's mode is checked beside the level in effect, never
    // instead: `none` does not lift the default BACKWARD; the level set
    // to NONE for the name does.
    let lowered = call(
        "POST",
        &running.url(&format!("/publish/schemas/{v2}?mode=none")),
        &[("Authorization", &bearer())],
        V2_NARROWED.as_bytes(),
    );
    assert_eq!(lowered.status, 409, "{}", lowered.text());
    assert_eq!(lowered.json()["error"], "incompatible");
    let level = call(
        "PUT",
        &running.url("/config/orders.created"),
        &[
            ("Authorization", &bearer()),
            ("Content-Type", "application/vnd.schemaregistry.v1+json"),
        ],
        br#"{"compatibility": "NONE"}"#,
    );
    assert_eq!(level.status, 200, "{}", level.text());
    let accepted = call(
        "POST",
        &running.url(&format!("/publish/schemas/{v2}?mode=none")),
        &[("Authorization", &bearer()), ("Dataschema-Mode", "full")],
        V2_NARROWED.as_bytes(),
    );
    assert_eq!(accepted.status, 201, "{}", accepted.text());

    let out_of_order = publish(
        &running,
        "urn:acme:schema:orders.created:1",
        V1,
        &[("Dataschema-Mode", "full")],
    );
    assert_eq!(out_of_order.status, 200, "held already: no check");

    let unusable = publish(&running, "urn:acme:schema:broken:1", r#"{"type": 12}"#, &[]);
    assert_eq!(unusable.status, 422, "{}", unusable.text());
    assert_eq!(unusable.json()["error"], "unusable");
    let no_root = publish(
        &running,
        "urn:acme:schema:proto:1",
        "bytes",
        &[("Dataschema-Language", "protobuf")],
    );
    assert_eq!(no_root.status, 422);
    let bad_urn = publish(&running, "urn:acme:schema:Orders:1", V1, &[]);
    assert_eq!(bad_urn.status, 400);
    assert_eq!(bad_urn.json()["error"], "invalid_urn");
    let bad_language = publish(
        &running,
        "urn:acme:schema:x:1",
        V1,
        &[("Dataschema-Language", "xml")],
    );
    assert_eq!(bad_language.status, 400);
    let json_root = publish(
        &running,
        "urn:acme:schema:x:1",
        V1,
        &[("Dataschema-Root", "a.B")],
    );
    assert_eq!(json_root.status, 400);
    assert_eq!(json_root.json()["error"], "invalid_root");
    let bad_mode = publish(
        &running,
        "urn:acme:schema:x:1",
        V1,
        &[("Dataschema-Mode", "sideways")],
    );
    assert_eq!(bad_mode.status, 400);
    assert_eq!(bad_mode.json()["error"], "invalid_mode");
    assert_eq!(
        get(&running.url("/schemas/urn:acme:schema:missing:1")).status,
        404
    );
    assert_eq!(get(&running.url("/schemas/not-a-urn")).status, 400);
}

#[test]
fn protobuf_descriptor_sets_publish_and_read_with_their_root() {
    let running = start();
    let descriptor = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/schemas/proto2.binpb"
    ))
    .unwrap();
    let urn = "urn:acme:schema:envelope:1";
    let created = call(
        "PUT",
        &running.url(&format!(
            "/publish/schemas/{urn}?language=protobuf&root=test.v1.Envelope"
        )),
        &[("Authorization", &bearer())],
        &descriptor,
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let read = get(&running.url(&format!("/schemas/{urn}")));
    assert_eq!(read.body, descriptor);
    assert_eq!(read.header("content-type"), Some("application/x-protobuf"));
    assert_eq!(read.header("dataschema-root"), Some("test.v1.Envelope"));
    assert_eq!(read.header("dataschema-language"), Some("protobuf"));
}

#[test]
fn publishing_needs_the_credential_as_bearer_or_basic_password() {
    use base64::Engine as _;
    let running = start();
    let url = running.url(&format!("/publish/schemas/{URN}"));
    let basic = |user_pass: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(user_pass)
        )
    };
    for refused in [
        vec![],
        vec![("Authorization", "Bearer wrong".to_owned())],
        vec![("Authorization", format!("Bearer {TOKEN}x"))],
        vec![("Authorization", basic("user:wrong"))],
        vec![("Authorization", basic(TOKEN))], // no user: the password is after the first colon
        vec![("Authorization", TOKEN.to_owned())],
    ] {
        let headers: Vec<(&str, &str)> = refused.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let reply = call("PUT", &url, &headers, V1.as_bytes());
        assert_eq!(reply.status, 401, "{refused:?}");
        let challenges: Vec<&str> = reply
            .headers
            .get_all("www-authenticate")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert!(
            challenges.iter().any(|c| c.starts_with("Bearer")),
            "{challenges:?}"
        );
        assert!(
            challenges.iter().any(|c| c.starts_with("Basic")),
            "{challenges:?}"
        );
        assert_eq!(reply.code(), 40101);
    }
    assert!(running.registry.list().unwrap().is_empty());
    let by_basic = call(
        "PUT",
        &url,
        &[("Authorization", &basic(&format!("anyone:{TOKEN}")))],
        V1.as_bytes(),
    );
    assert_eq!(by_basic.status, 201, "{}", by_basic.text());
    let by_bearer = call("PUT", &url, &[("Authorization", &bearer())], V1.as_bytes());
    assert_eq!(by_bearer.status, 200);

    // The Confluent writes sit behind the same check.
    for (method, path, body) in [
        (
            "POST",
            "/subjects/orders/versions",
            r#"{"schema": "{}", "schemaType": "JSON"}"#,
        ),
        ("PUT", "/config", r#"{"compatibility": "NONE"}"#),
        ("PUT", "/config/orders", r#"{"compatibility": "NONE"}"#),
        ("DELETE", "/config/orders", ""),
    ] {
        let reply = call(
            method,
            &running.url(path),
            &[("Authorization", "Bearer nope")],
            body.as_bytes(),
        );
        assert_eq!(reply.status, 401, "{method} {path}");
    }
    assert_eq!(running.registry.list().unwrap().len(), 1);
    assert_eq!(running.registry.config().compatibility(None).unwrap(), None);
}

#[test]
fn path_tricks_never_reach_publish() {
    let running = start();
    let urn = "urn:acme:schema:trick:1";
    let body = V1;
    let paths = [
        format!("//publish/schemas/{urn}"),
        format!("/publish//schemas/{urn}"),
        format!("/publish/../publish/schemas/{urn}"),
        format!("/schemas/../publish/schemas/{urn}"),
        format!("/x/../publish/schemas/{urn}"),
        format!("/%70ublish/schemas/{urn}"),
        format!("/publish%2Fschemas%2F{urn}"),
        format!("/publish/schemas%2F{urn}"),
        format!("/PUBLISH/schemas/{urn}"),
        format!("/Publish/Schemas/{urn}"),
        format!("/schemas/..%2Fpublish%2Fschemas%2F{urn}"),
        format!("/schemas/%2E%2E/publish/schemas/{urn}"),
        format!("/./publish/schemas/{urn}"),
        format!("/publish/schemas/{urn}/"),
        format!("/publish/schemas/{urn}?x=/../"),
        format!("/%2Fpublish/schemas/{urn}"),
        "/subjects/trick/versions/../versions".to_owned(),
        "/subjects/trick%2Fversions".to_owned(),
        "//subjects/trick/versions".to_owned(),
        "/SUBJECTS/trick/versions".to_owned(),
        "/config/../config".to_owned(),
        "//config".to_owned(),
    ];
    for path in &paths {
        for method in ["PUT", "POST"] {
            let request = format!(
                "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let (status, reply) = raw(running.addr, request.as_bytes());
            assert!(
                [400, 401, 404, 405, 422].contains(&status),
                "{method} {path}: {reply}"
            );
        }
        // Confluent shapes too.
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/vnd.schemaregistry.v1+json\r\n\
             Content-Length: {len}\r\nConnection: close\r\n\r\n{{\"schema\": \"{{}}\", \"schemaType\": \"JSON\"}}",
            len = r#"{"schema": "{}", "schemaType": "JSON"}"#.len()
        );
        let (status, reply) = raw(running.addr, request.as_bytes());
        assert!(!(200..300).contains(&status), "POST {path}: {reply}");
    }
    // An absolute-form target is the same route, behind the same check.
    let absolute = format!(
        "PUT http://x/publish/schemas/{urn} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(raw(running.addr, absolute.as_bytes()).0, 401);
    assert!(
        running.registry.list().unwrap().is_empty(),
        "nothing stored"
    );
    assert_eq!(running.registry.config().compatibility(None).unwrap(), None);
}

/// A publishing router without a credential cannot be written (the
/// `compile_fail` example on `publish_router` holds that); what is left to
/// check at run time is that no credential can be empty, and that a
/// read-only router mounts no publish route.
#[test]
fn publishing_is_never_mounted_without_authentication() {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use tower::ServiceExt;

    assert!(matches!(Auth::new(""), Err(CredentialError::Empty)));
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("blank");
    std::fs::write(&blank, " \n\t\n").unwrap();
    assert!(matches!(
        Auth::from_file(&blank),
        Err(CredentialError::Empty)
    ));
    assert!(matches!(
        Auth::from_file(dir.path().join("absent")),
        Err(CredentialError::Unreadable(_))
    ));

    let registry = Registry::new(MemoryStore::new());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let app = router(registry.clone(), &config(), Access::ReadOnly);
        let refused = app
            .oneshot(
                Request::put(format!("/publish/schemas/{URN}"))
                    .header("Authorization", format!("Bearer {TOKEN}"))
                    .body(Body::from(V1))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);
    });
    assert!(registry.list().unwrap().is_empty(), "nothing stored");
}

#[test]
fn a_read_only_server_refuses_writes_clearly() {
    let running = start_with(config(), true);
    let native = publish(&running, URN, V1, &[]);
    assert_eq!(native.status, 405);
    assert_eq!(native.json()["error"], "read_only");
    for (method, path, body) in [
        (
            "POST",
            "/subjects/orders/versions",
            r#"{"schema": "{}", "schemaType": "JSON"}"#,
        ),
        ("PUT", "/config", r#"{"compatibility": "NONE"}"#),
        ("PUT", "/config/orders", r#"{"compatibility": "NONE"}"#),
        ("DELETE", "/config/orders", ""),
    ] {
        let reply = call(
            method,
            &running.url(path),
            &[("Authorization", &bearer())],
            body.as_bytes(),
        );
        assert_eq!(reply.status, 422, "{method} {path}");
        assert_eq!(reply.code(), 42205, "{method} {path}");
        assert!(reply.text().contains("read-only"), "{}", reply.text());
    }
    assert!(running.registry.list().unwrap().is_empty());
    // Reads work.
    assert_eq!(get(&running.url("/subjects")).json(), serde_json::json!([]));
    assert_eq!(get(&running.url("/config")).status, 200);
}

#[test]
fn bodies_and_schemas_over_their_caps_are_413() {
    let running = start_with(
        config()
            .with_max_body_bytes(4096)
            .with_max_schema_bytes(1024),
        false,
    );
    let big_schema = format!(r#"{{"description": "{}"}}"#, "x".repeat(2000));
    let reply = publish(&running, URN, &big_schema, &[]);
    assert_eq!(reply.status, 413, "{}", reply.text());
    let huge = format!(r#"{{"description": "{}"}}"#, "x".repeat(10_000));
    let reply = publish(&running, URN, &huge, &[]);
    assert_eq!(reply.status, 413, "{}", reply.text());
    let confluent_big = confluent(
        "POST",
        &running.url("/subjects/orders/versions"),
        &serde_json::json!({"schema": big_schema, "schemaType": "JSON"}),
    );
    assert_eq!(confluent_big.status, 413);
    assert_eq!(confluent_big.code(), 42209);
    let confluent_huge = confluent(
        "POST",
        &running.url("/subjects/orders/versions"),
        &serde_json::json!({"schema": huge, "schemaType": "JSON"}),
    );
    assert_eq!(confluent_huge.status, 413);
    assert_eq!(confluent_huge.code(), 42209);
    // Without a Content-Length (chunked), the cap holds as the body is read.
    let mut stream = TcpStream::connect(running.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "PUT /publish/schemas/{URN} HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        bearer()
    )
    .unwrap();
    for _ in 0..10 {
        let _ = write!(stream, "400\r\n{}\r\n", "y".repeat(1024));
    }
    let _ = write!(stream, "0\r\n\r\n");
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(running.registry.list().unwrap().is_empty());
}

/// Opens a publish whose body arrives slowly: it holds its request (and a
/// concurrency slot) until the rest is sent.
fn slow_publish(running: &Running, urn: &str) -> TcpStream {
    let mut stream = TcpStream::connect(running.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "PUT /publish/schemas/{urn} HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        bearer(),
        V1.len(),
        &V1[..10]
    )
    .unwrap();
    stream
}

fn finish(mut stream: TcpStream) -> String {
    let _ = stream.write_all(&V1.as_bytes()[10..]);
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply
}

#[test]
fn a_request_over_its_time_is_503_with_code_50002() {
    let running = start_sleepy(
        config().with_request_timeout(Duration::from_millis(300)),
        Duration::from_millis(1200),
    );
    let started = std::time::Instant::now();
    let reply = get(&running.url("/names/acme/slow/versions"));
    assert_eq!(reply.status, 503, "{}", reply.text());
    assert_eq!(reply.code(), 50002);
    assert!(started.elapsed() < Duration::from_millis(1100));
}

/// A body slower than the body read timeout is 408 (`40801`), and nothing
/// is published.
#[test]
fn a_body_over_its_time_is_408_with_code_40801() {
    let running = start_with(
        config().with_body_read_timeout(Duration::from_millis(300)),
        false,
    );
    let stream = slow_publish(&running, URN);
    std::thread::sleep(Duration::from_millis(1200));
    let reply = finish(stream);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("40801"), "{reply}");
    assert!(running.registry.list().unwrap().is_empty());
}

#[test]
fn the_concurrency_limit_makes_requests_wait_for_a_slot() {
    let running = start_sleepy(
        config().with_concurrency_limit(1),
        Duration::from_millis(1000),
    );
    assert_eq!(publish(&running, URN, V1, &[]).status, 201);
    // The slow read holds the only slot: a read behind it is not
    // answered until the slow one is.
    let slow_url = running.url("/names/acme/slow/versions");
    let slow = std::thread::spawn(move || get(&slow_url));
    std::thread::sleep(Duration::from_millis(200));
    let url = running.url(&format!("/schemas/{URN}"));
    let (answered, answer) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let reply = get(&url);
        answered.send(()).unwrap();
        reply
    });
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        answer.try_recv().is_err(),
        "the read was answered while the slot was held"
    );
    assert_eq!(slow.join().unwrap().status, 404);
    let read = reader.join().unwrap();
    assert_eq!(read.status, 200, "the read ran after: {}", read.text());
    assert_eq!(read.text(), V1);
}

/// A JSON Schema of about `bytes` bytes sent as Confluent's register
/// and lookup bodies carry it.
fn lookup_body(bytes: usize, salt: usize) -> Vec<u8> {
    let mut schema = format!(r#"{{"title":"t{salt}","type":"object","properties":{{"#);
    let mut i = 0;
    while schema.len() < bytes {
        if i > 0 {
            schema.push(',');
        }
        schema.push_str(&format!(r#""p{i:06}":{{"type":"string"}}"#));
        i += 1;
    }
    schema.push_str("}}");
    serde_json::json!({"schemaType": "JSON", "schema": schema})
        .to_string()
        .into_bytes()
}

/// `count` anonymous lookups of `body`-sized schemas at once under
/// subject `slow-big` (which holds a version: each compiles, then is not
/// found), their answers, the most that held the compile budget at
/// once (the sleepy store's `versions` runs inside it), and the console's
/// server page read after them.
fn concurrent_lookups(
    config: dataschema::server::Config,
    count: usize,
    bytes: usize,
) -> (Vec<Reply>, usize, String) {
    let (running, overlap) = start_sleepy_counted(config, Duration::from_millis(400));
    let registered = confluent(
        "POST",
        &running.url("/subjects/slow-big/versions"),
        &serde_json::json!({"schemaType": "JSON", "schema": r#"{"type":"object"}"#}),
    );
    assert_eq!(registered.status, 200, "{}", registered.text());
    let before = overlap.peak();
    let url = running.url("/subjects/slow-big");
    let answers: Vec<_> = (0..count)
        .map(|salt| {
            let (url, body) = (url.clone(), lookup_body(bytes, salt));
            std::thread::spawn(move || {
                call(
                    "POST",
                    &url,
                    &[("Content-Type", "application/vnd.schemaregistry.v1+json")],
                    &body,
                )
            })
        })
        .collect();
    let answers = answers.into_iter().map(|a| a.join().unwrap()).collect();
    assert_eq!(before, 1, "the registration alone");
    let server_page = get(&running.url("/ui/server")).text();
    (answers, overlap.peak(), server_page)
}

/// The compile budget is weighted by body size (issue 37, class 2): with
/// 4 compile slots whatever the size, four anonymous lookups at the size
/// cap compiled at once. Now a body at the budget takes all of it (one at
/// a time, every lookup answered in turn), while small lookups still
/// share it four at once.
#[test]
fn the_compile_budget_is_weighted_by_body_size() {
    let config = || {
        config()
            .with_compile_budget_bytes(100_000)
            .with_compile_wait(Duration::from_secs(120))
            .with_request_timeout(Duration::from_secs(120))
    };
    let (answers, peak, _) = concurrent_lookups(config(), 6, 120_000);
    for answer in &answers {
        assert_eq!(answer.status, 404, "{}", answer.text());
        assert_eq!(answer.code(), 40403, "{}", answer.text());
    }
    assert_eq!(peak, 1, "lookups at the budget compiled {peak} at once");
    let (answers, peak, _) = concurrent_lookups(config(), 8, 1_000);
    for answer in &answers {
        assert_eq!(answer.status, 404, "{}", answer.text());
    }
    assert!(
        (2..=4).contains(&peak),
        "small lookups share the budget four at once (the slots), {peak} did"
    );
}

/// A read asking for another `format` compiles the schema stored (a
/// `.proto` text to its descriptor) and cannot tell its size before it
/// reads it: it takes what a schema at the cap would, so anonymous reads
/// of the largest schema stored do not compile four at once (they took
/// the least share, four at once).
#[test]
fn formatted_reads_take_what_a_schema_at_the_cap_would() {
    let config = config()
        .with_compile_wait(Duration::from_secs(120))
        .with_request_timeout(Duration::from_secs(120));
    let (running, overlap) = start_sleepy_counted(config, Duration::from_millis(400));
    let registered = confluent(
        "POST",
        &running.url("/subjects/slow-read/versions"),
        &serde_json::json!({"schemaType": "JSON", "schema": r#"{"type":"object"}"#}),
    );
    assert_eq!(registered.status, 200, "{}", registered.text());
    let url = running.url("/subjects/slow-read/versions?format=serialized");
    let reads: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || get(&url))
        })
        .collect();
    for read in reads {
        let read = read.join().unwrap();
        assert_eq!(read.status, 200, "{}", read.text());
    }
    assert_eq!(overlap.peak(), 1, "formatted reads ran at once");
}

/// A compiling request that waits longer than the compile wait for its
/// share of the budget is answered 429 (42901) with Retry-After, never a
/// 5xx; the one holding the budget is answered as usual. The refusal is
/// counted: the console's server page shows it, under the route and as a
/// compile budget refusal (`dataschema_server_compile_budget_refusals_total`
/// when the metrics are exported).
#[test]
fn a_compile_past_its_wait_is_429_with_code_42901() {
    let config = config()
        .with_compile_budget_bytes(100_000)
        .with_compile_wait(Duration::from_millis(200));
    let (answers, peak, server_page) = concurrent_lookups(config, 2, 120_000);
    assert_eq!(peak, 1);
    let mut statuses: Vec<u16> = answers.iter().map(|a| a.status).collect();
    statuses.sort_unstable();
    assert_eq!(
        statuses,
        [404, 429],
        "{:?}",
        answers.iter().map(Reply::text).collect::<Vec<_>>()
    );
    let refused = answers.iter().find(|a| a.status == 429).unwrap();
    assert_eq!(refused.code(), 42901, "{}", refused.text());
    assert!(refused.text().contains("retry later"), "{}", refused.text());
    assert_eq!(
        refused.header("retry-after"),
        Some("1"),
        "{:?}",
        refused.headers
    );
    for counted in [
        "<dt>Compile budget spent (429, code 42901)</dt><dd>1</dd>",
        "<dt>429 Too Many Requests</dt><dd>1</dd>",
        "<tr><th scope=\"row\"><code>/subjects/{subject}</code></th><td>2</td><td>2</td><td>0</td><td>404: 1, 429: 1</td></tr>",
    ] {
        assert!(server_page.contains(counted), "no {counted} in {server_page}");
    }
}

/// 260 unauthenticated clients each dripping a lookup's body (more than
/// the 256 concurrency slots) hold no slot: a cached read answers at once
/// meanwhile, and so does a publish.
#[test]
fn dripping_bodies_hold_no_slots() {
    let running = start_with(config(), false);
    assert_eq!(publish(&running, URN, V1, &[]).status, 201);
    let url = running.url(&format!("/schemas/{URN}"));
    assert_eq!(get(&url).status, 200); // now cached
    let body = format!(
        r#"{{"schemaType":"JSON","schema":{}}}"#,
        serde_json::Value::from(V1)
    );
    let mut drips: Vec<TcpStream> = (0..260)
        .map(|_| {
            let mut stream = TcpStream::connect(running.addr).unwrap();
            write!(
                stream,
                "POST /subjects/orders.created HTTP/1.1\r\nHost: x\r\n\
                 Content-Type: application/vnd.schemaregistry.v1+json\r\n\
                 Content-Length: {}\r\n\r\n{}",
                body.len(),
                &body[..4]
            )
            .unwrap();
            stream
        })
        .collect();
    // Let every request reach the server and start its body.
    std::thread::sleep(Duration::from_millis(500));
    let mut slowest = Duration::ZERO;
    for round in 0..6 {
        for stream in &mut drips {
            let _ = stream.write_all(&body.as_bytes()[4 + round..5 + round]);
        }
        let started = std::time::Instant::now();
        let read = get(&url);
        slowest = slowest.max(started.elapsed());
        assert_eq!(read.status, 200, "{}", read.text());
        assert_eq!(read.text(), V1);
        std::thread::sleep(Duration::from_millis(200));
    }
    let started = std::time::Instant::now();
    let other = "urn:acme:schema:during.drips:1";
    assert_eq!(publish(&running, other, V1, &[]).status, 201);
    slowest = slowest.max(started.elapsed());
    println!("260 dripping bodies: the slowest read or publish took {slowest:?}");
    assert!(
        slowest < Duration::from_secs(1),
        "a request waited {slowest:?} behind the dripping bodies"
    );
    // The drips finish: each is answered (its lookup found the schema).
    let mut answered = 0;
    for mut stream in drips.drain(..200) {
        stream.write_all(&body.as_bytes()[10..]).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut head = [0u8; 12];
        if stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200") {
            answered += 1;
        }
    }
    assert_eq!(answered, 200, "every finished lookup is answered");
}

#[test]
fn many_concurrent_clients_all_get_answers() {
    let running = start_with(config().with_concurrency_limit(4), false);
    assert_eq!(publish(&running, URN, V1, &[]).status, 201);
    let url = running.url(&format!("/schemas/{URN}"));
    let publish_url = running.url("/publish/schemas");
    let threads: Vec<_> = (0..16)
        .map(|t| {
            let url = url.clone();
            let publish_url = publish_url.clone();
            std::thread::spawn(move || {
                for i in 0..10 {
                    assert_eq!(get(&url).text(), V1);
                    if i == 0 {
                        let schema = format!(r#"{{"description": "thread {t}"}}"#);
                        let reply = call(
                            "PUT",
                            &format!("{publish_url}/urn:acme:schema:t{t}:1"),
                            &[("Authorization", &bearer())],
                            schema.as_bytes(),
                        );
                        assert_eq!(reply.status, 201, "{}", reply.text());
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let mut ids: Vec<u32> = running
        .registry
        .list()
        .unwrap()
        .iter()
        .map(|urn| running.registry.id_of(urn).unwrap())
        .collect();
    assert_eq!(ids.len(), 17);
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 17, "one id per content");
}

#[test]
fn a_connection_that_does_not_finish_its_headers_is_closed() {
    let running = start_with(
        config().with_header_read_timeout(Duration::from_millis(300)),
        false,
    );
    let mut stream = TcpStream::connect(running.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
        .write_all(b"GET /schemas HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut reply = Vec::new();
    let closed = stream.read_to_end(&mut reply);
    // Closed by the server (EOF or reset), not by our 20 s read timeout.
    match closed {
        Ok(_) => {}
        Err(err) => assert!(
            !matches!(
                err.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "the server kept the connection open: {err}"
        ),
    }
    let text = String::from_utf8_lossy(&reply);
    assert!(!text.contains("200 OK"), "{text}");
}

#[test]
fn shutdown_finishes_the_requests_in_flight() {
    let mut running = start();
    let stream = slow_publish(&running, URN);
    std::thread::sleep(Duration::from_millis(200));
    running.begin_stop();
    std::thread::sleep(Duration::from_millis(200));
    let reply = finish(stream);
    assert!(reply.starts_with("HTTP/1.1 201"), "{reply}");
    let registry = running.registry.clone();
    running.stop();
    assert_eq!(registry.list().unwrap().len(), 1);
}

#[test]
fn unknown_routes_are_json_404() {
    let running = start();
    let reply = get(&running.url("/nothing/here"));
    assert_eq!(reply.status, 404);
    assert_eq!(reply.code(), 404);
    let reply = call("PATCH", &running.url("/subjects/x/versions"), &[], b"");
    assert_eq!(reply.status, 405);
    let reply = get(&running.url(&format!("/publish/schemas/{URN}")));
    assert_eq!(reply.status, 405);
}

#[test]
fn the_routers_alone_answer_without_a_socket() {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use dataschema::server::read_router;
    use dataschema::{Compatibility, Schema};
    use tower::ServiceExt;

    let registry = Registry::new(MemoryStore::new());
    registry
        .publish(Schema::json(URN.parse().unwrap(), V1), Compatibility::None)
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let reads = read_router(registry.clone(), &config());
        let read = reads
            .clone()
            .oneshot(
                Request::get(format!("/schemas/{URN}"))
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(read.status(), StatusCode::OK);
        let refused = reads
            .oneshot(
                Request::put("/publish/schemas/urn:acme:schema:y:1")
                    .body(Body::from(V1))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);

        let publishes = publish_router(registry.clone(), &config(), Auth::new(TOKEN).unwrap());
        let without = publishes
            .clone()
            .oneshot(
                Request::put("/publish/schemas/urn:acme:schema:y:1")
                    .body(Body::from(V1))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(without.status(), StatusCode::UNAUTHORIZED);
        let with = publishes
            .oneshot(
                Request::put("/publish/schemas/urn:acme:schema:y:1")
                    .header("authorization", bearer())
                    .body(Body::from(V1))
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(with.status(), StatusCode::CREATED);
    });
    assert_eq!(registry.list().unwrap().len(), 2);
}

/// A store whose every read fails with the driver's text naming a file:
/// what an anonymous client sees of it on either API is that the store
/// failed, never the path or the driver's words (the log keeps them).
#[test]
fn a_failing_store_shows_anonymous_clients_no_path_or_driver_text() {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use dataschema::server::read_router;
    use dataschema::store::{Check, SchemaId, Stored, Version};
    use dataschema::{Compatibility, Error, Schema, Store, Urn};
    use tower::ServiceExt;

    const SECRET: &str = "unable to open /var/lib/secret/registry.db: disk I/O error";
    struct Failing;
    fn fail<T>() -> Result<T, Error> {
        Err(Error::Store {
            source: SECRET.into(),
        })
    }
    impl Store for Failing {
        fn get(&self, _: &Urn) -> Result<Option<Schema>, Error> {
            fail()
        }
        fn publish(&self, _: &Schema, _: Version, _: Check<'_>) -> Result<Stored, Error> {
            fail()
        }
        fn versions(&self, _: &str, _: &str) -> Result<Vec<u32>, Error> {
            fail()
        }
        fn list(&self) -> Result<Vec<Urn>, Error> {
            fail()
        }
        fn id_of(&self, _: &Urn) -> Result<Option<SchemaId>, Error> {
            fail()
        }
        fn urns_of(&self, _: SchemaId) -> Result<Vec<Urn>, Error> {
            fail()
        }
        fn compatibility(&self, _: Option<&str>) -> Result<Option<Compatibility>, Error> {
            fail()
        }
        fn set_compatibility(
            &self,
            _: Option<&str>,
            _: Option<Compatibility>,
        ) -> Result<(), Error> {
            fail()
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let reads = read_router(Registry::new(Failing), &config());
        for path in [
            format!("/schemas/{URN}"),
            "/urns".to_owned(),
            "/schemas".to_owned(),
            "/subjects".to_owned(),
            "/subjects/x/versions".to_owned(),
            "/schemas/ids/1".to_owned(),
        ] {
            let answer = reads
                .clone()
                .oneshot(Request::get(&path).body(Body::empty()).unwrap())
                .await
                .unwrap();
            assert_eq!(answer.status(), StatusCode::INTERNAL_SERVER_ERROR, "{path}");
            let body = axum::body::to_bytes(answer.into_body(), 1 << 20)
                .await
                .unwrap();
            let text = String::from_utf8_lossy(&body);
            assert!(text.contains("schema store failed"), "{path}: {text}");
            for secret in ["/var/lib/secret", "registry.db", "disk I/O"] {
                assert!(!text.contains(secret), "{path} shows {secret:?}: {text}");
            }
        }
    });
}

/// Request bodies held at once are bounded in bytes: while one client's
/// unfinished 30 kB holds a 64 kB budget, another's whole 40 kB body is
/// not read: it is answered only once the first one's time has run out
/// (408) and its bytes are let go.
#[test]
fn bodies_held_at_once_are_bounded_in_bytes() {
    let running = start_with(
        config()
            .with_max_body_bytes(48 * 1024)
            .with_body_buffer_bytes(64 * 1024)
            .with_body_read_timeout(Duration::from_millis(1000)),
        false,
    );
    let schema = format!(r#"{{"description": "{}"}}"#, "x".repeat(40 * 1024));
    let open = |urn: &str, sent: usize| {
        let mut stream = TcpStream::connect(running.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "PUT /publish/schemas/{urn} HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            bearer(),
            schema.len()
        )
        .unwrap();
        stream.write_all(&schema.as_bytes()[..sent]).unwrap();
        stream
    };
    fn reply(mut stream: TcpStream) -> String {
        let mut reply = String::new();
        let _ = stream.read_to_string(&mut reply);
        reply
    }
    let started = std::time::Instant::now();
    let first = open("urn:acme:schema:held:1", 30 * 1024);
    std::thread::sleep(Duration::from_millis(200));
    let second = open("urn:acme:schema:waiting:1", schema.len());
    let second = std::thread::spawn(move || {
        let text = reply(second);
        (text, started.elapsed())
    });
    let refused = reply(first);
    assert!(refused.starts_with("HTTP/1.1 408"), "{refused}");
    let (published, at) = second.join().unwrap();
    assert!(published.starts_with("HTTP/1.1 201"), "{published}");
    assert!(
        at >= Duration::from_millis(900),
        "the second body was read at {at:?}, while the first held the budget"
    );
    assert_eq!(running.registry.list().unwrap().len(), 1);
}
