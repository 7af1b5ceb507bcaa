//! `dataschema serve`: the binary itself, and Confluent's own Python client
//! driving it.
#![cfg(feature = "cli")]

use crate::common;
use crate::server;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use server::process::{token_file, Serve};
use server::{call, get, TOKEN};

#[test]
fn refuses_to_start_without_a_credential() {
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--token-file"), "{stderr}");
    assert!(stderr.contains("--read-only"), "{stderr}");

    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["serve", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "an empty credential is none");
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--read-only",
            "--namespace",
            "x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a bad namespace");
}

#[test]
fn serves_publishes_logs_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--token-file", &token_file(dir.path())]);
    let urn = "urn:acme:schema:greeting:1";
    let published = call(
        "PUT",
        &serve.url(&format!("/publish/schemas/{urn}")),
        &[("Authorization", &format!("Bearer {TOKEN}"))],
        br#"{"type": "string"}"#,
    );
    assert_eq!(published.status, 201, "{}", published.text());
    let unauthorized = call(
        "PUT",
        &serve.url(&format!("/publish/schemas/{urn}")),
        &[],
        br#"{"type": "string"}"#,
    );
    assert_eq!(unauthorized.status, 401);
    assert_eq!(
        get(&serve.url(&format!("/schemas/{urn}"))).text(),
        r#"{"type": "string"}"#
    );
    assert_eq!(
        get(&serve.url("/subjects")).json(),
        serde_json::json!(["greeting"])
    );
    let (exit, log) = serve.terminate();
    assert!(exit.success(), "{exit:?}: {log}");
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" request ")).collect();
    assert!(lines.len() >= 4, "one line per request: {log}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("path=/publish/schemas/") && l.contains("status=201")),
        "{log}"
    );
    assert!(lines.iter().any(|l| l.contains("status=401")), "{log}");
}

#[test]
fn a_read_only_server_needs_no_credential_and_writes_nothing() {
    // The default store (`sqlite:dataschema.db`), migrated by a read-write
    // open first: a read-only server migrates nothing.
    let cwd = Arc::new(tempfile::tempdir().unwrap());
    let db = cwd.path().join("dataschema.db");
    drop(dataschema::store::SqliteStore::open(&db).unwrap());
    let before = std::fs::read(&db).unwrap();
    let serve = Serve::start_in(cwd.clone(), &["--read-only"]);
    let reply = call(
        "POST",
        &serve.url("/subjects/orders/versions"),
        &[("Content-Type", "application/vnd.schemaregistry.v1+json")],
        br#"{"schema": "{}", "schemaType": "JSON"}"#,
    );
    assert_eq!((reply.status, reply.code()), (422, 42205));
    assert_eq!(get(&serve.url("/subjects")).json(), serde_json::json!([]));
    drop(serve);
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file is unchanged");
}

/// `--read-only` over a store never migrated (here, no file at all) does
/// not start, and says why; it creates nothing.
#[test]
fn a_read_only_server_refuses_an_unmigrated_store() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .current_dir(dir.path())
        .args(["serve", "--listen", "127.0.0.1:0", "--read-only"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("read-only"), "{stderr}");
    assert!(
        !dir.path().join("dataschema.db").exists(),
        "a file was created"
    );
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["serve", "--listen", "127.0.0.1:0", "--read-only", "--store"])
        .arg(format!("sqlite:{}", empty.display()))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("never opened for writing"), "{stderr}");
}

/// `serve --read-only` over a PostgreSQL hot standby (a streaming replica
/// of a primary of the test's own, `tests/common/standby.rs`): it starts,
/// is ready, serves what the primary published (and what it publishes
/// later, once replayed) on both APIs, and refuses writes; without
/// `--read-only` it does not start on a standby, and says why.
#[cfg(feature = "postgres")]
#[test]
fn a_read_only_server_serves_a_hot_standby() {
    use crate::standby::{Cluster, DATABASE};
    use dataschema::{Schema, Store};
    let Some(primary) = Cluster::primary() else {
        return;
    };
    let writer = dataschema::store::PostgresStore::connect(&primary.url(DATABASE)).unwrap();
    let urn = "urn:acme:schema:orders-value:1";
    let bytes = br#"{"type":"object"}"#;
    writer
        .put(&Schema::json(common::urn(urn), bytes.to_vec()))
        .unwrap();
    let standby = primary.standby();
    let url = standby.url(DATABASE);
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["serve", "--listen", "127.0.0.1:0", "--store", &url])
        .args(["--token-file", &token_file(dir.path())])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a read-write server started on a standby"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("read-only"), "{stderr}");
    let serve = Serve::start(&["--read-only", "--store", &url]);
    let ready = get(&serve.url("/readyz"));
    assert_eq!(ready.status, 200, "{}", ready.text());
    let read = get(&serve.url(&format!("/schemas/{urn}")));
    assert_eq!(read.status, 200, "{}", read.text());
    assert_eq!(read.body, bytes);
    assert_eq!(
        get(&serve.url("/subjects")).json(),
        serde_json::json!(["orders-value"])
    );
    let register = call(
        "POST",
        &serve.url("/subjects/orders-value/versions"),
        &[("Content-Type", "application/vnd.schemaregistry.v1+json")],
        br#"{"schema": "{}", "schemaType": "JSON"}"#,
    );
    assert_eq!((register.status, register.code()), (422, 42205));
    let publish = call(
        "PUT",
        &serve.url("/publish/schemas/urn:acme:schema:orders-value:2"),
        &[],
        b"{}",
    );
    assert_eq!(publish.status, 405, "{}", publish.text());
    // Published on the primary now: the standby replays it, the server
    // answers it (a version it never cached).
    writer
        .put(&Schema::json(
            common::urn("urn:acme:schema:orders-value:2"),
            br#"{"type":"object","title":"two"}"#.to_vec(),
        ))
        .unwrap();
    Cluster::eventually("the standby server answers version 2", || {
        get(&serve.url("/subjects/orders-value/versions")).json() == serde_json::json!([1, 2])
    });
    let (status, log) = serve.terminate();
    assert!(status.success(), "{log}");
    assert!(!log.contains("ERROR"), "{log}");
}

/// The start-up line names the store without its password.
#[cfg(feature = "postgres")]
#[test]
fn the_start_up_line_shows_no_store_password() {
    let Some(db) = common::TestDatabase::create() else {
        return;
    };
    let url = db.url.replacen(
        "postgres://postgres@",
        "postgres://postgres:hunter2-not-shown@",
        1,
    );
    drop(dataschema::store::PostgresStore::connect(&db.url).unwrap());
    let serve = Serve::start(&["--read-only", "--store", &url]);
    let (_, log) = serve.terminate();
    let started = log
        .lines()
        .find(|line| line.contains("dataschema serve started"))
        .unwrap_or_else(|| panic!("no start-up line: {log}"));
    assert!(started.contains("postgres://postgres:***@"), "{started}");
    assert!(!log.contains("hunter2-not-shown"), "{log}");
}

/// The store a restart keeps, for the Python test's restart.
fn persistent_store(dir: &Path) -> Option<String> {
    Some(format!("sqlite:{}", dir.join("registry.db").display()))
}

fn python() -> Option<String> {
    common::python_importing("confluent_kafka.schema_registry")
}

fn run_python(python: &str, serve: &Serve, phase: &str, state: &Path) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/confluent_client.py"
    );
    let out = Command::new(python)
        .arg(script)
        .args([&serve.url(""), TOKEN, phase])
        .arg(state)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "confluent-kafka {phase}: {text}");
}

#[test]
fn confluent_kafkas_python_client_works_against_the_server() {
    let Some(python) = python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let token = token_file(dir.path());
    let state = dir.path().join("state.json");
    let store = persistent_store(dir.path());
    let mut args = vec!["--token-file", token.as_str()];
    if let Some(store) = &store {
        args.extend(["--store", store.as_str()]);
    }
    let serve = Serve::start(&args);
    run_python(&python, &serve, "before", &state);
    let (exit, log) = serve.terminate();
    assert!(exit.success(), "{log}");
    match &store {
        Some(_) => {
            let serve = Serve::start(&args);
            run_python(&python, &serve, "after", &state);
        }
        None => eprintln!("note: no persistent store in this build: the restart phase did not run"),
    }
}

/// The default store is `dataschema.db` in the working directory; a
/// publish that answered 201 survives `kill -9` of the server and a
/// restart, with the same id.
#[test]
fn publishes_survive_kill_9_of_the_server_on_the_default_store() {
    let dir = tempfile::tempdir().unwrap();
    let token = token_file(dir.path());
    let serve = Serve::start(&["--token-file", &token]);
    let auth = format!("Bearer {TOKEN}");
    let mut ids = Vec::new();
    for version in 1..=20 {
        let urn = format!("urn:acme:schema:durable:{version}");
        let body = format!(r#"{{"type": "object", "title": "v{version}"}}"#);
        let published = call(
            "PUT",
            &serve.url(&format!("/publish/schemas/{urn}?mode=NONE")),
            &[("Authorization", &auth)],
            body.as_bytes(),
        );
        assert_eq!(published.status, 201, "{}", published.text());
        ids.push((urn, body, published.json()["id"].clone()));
    }
    let cwd = Arc::clone(&serve.cwd);
    assert!(
        cwd.path().join("dataschema.db").exists(),
        "the default store's file"
    );
    let mut serve = serve;
    serve.child.kill().unwrap(); // SIGKILL: no shutdown, no flush
    serve.child.wait().unwrap();

    let serve = Serve::start_in(cwd, &["--token-file", &token]);
    for (urn, body, id) in &ids {
        let read = get(&serve.url(&format!("/schemas/{urn}")));
        assert_eq!(read.status, 200, "{urn} after kill -9");
        assert_eq!(&read.text(), body);
        let again = call(
            "PUT",
            &serve.url(&format!("/publish/schemas/{urn}?mode=NONE")),
            &[("Authorization", &auth)],
            body.as_bytes(),
        );
        assert_eq!(again.status, 200, "same bytes again: {}", again.text());
        assert_eq!(
            &again.json()["id"],
            id,
            "{urn}: the id is stable across restarts"
        );
    }
    let (exit, log) = serve.terminate();
    assert!(exit.success(), "{log}");
}

/// Two `dataschema serve` processes over one PostgreSQL database, taking
/// Confluent registrations of one subject at once (each the next version,
/// checked under BACKWARD): one gap-free history, each content one id, and
/// both replicas answer the same.
#[test]
fn two_servers_over_one_postgres_keep_one_history() {
    let Some(db) = common::TestDatabase::create() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let token = token_file(dir.path());
    let args = ["--token-file", token.as_str(), "--store", db.url.as_str()];
    let replicas = [Serve::start(&args), Serve::start(&args)];
    let auth = format!("Bearer {TOKEN}");
    let per_thread = 6;
    let threads = 4;
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (replicas, auth) = (&replicas, &auth);
            scope.spawn(move || {
                for i in 0..per_thread {
                    let serve = &replicas[(t + i) % 2];
                    let schema = format!(r#"{{"type": "object", "title": "t{t} i{i}"}}"#);
                    let body = serde_json::json!({"schema": schema, "schemaType": "JSON"});
                    let reply = call(
                        "POST",
                        &serve.url("/subjects/orders.created/versions"),
                        &[
                            ("Authorization", auth.as_str()),
                            ("Content-Type", "application/vnd.schemaregistry.v1+json"),
                        ],
                        body.to_string().as_bytes(),
                    );
                    assert_eq!(reply.status, 200, "{}", reply.text());
                }
            });
        }
    });
    let total = threads * per_thread;
    let versions = get(&replicas[0].url("/subjects/orders.created/versions")).json();
    let expected: Vec<usize> = (1..=total).collect();
    assert_eq!(versions, serde_json::json!(expected), "gap-free, in order");
    assert_eq!(
        get(&replicas[1].url("/subjects/orders.created/versions")).json(),
        versions,
        "both replicas answer one history"
    );
    let mut ids = std::collections::BTreeSet::new();
    for version in 1..=total {
        let path = format!("/subjects/orders.created/versions/{version}");
        let a = get(&replicas[0].url(&path)).json();
        let b = get(&replicas[1].url(&path)).json();
        assert_eq!(a, b, "version {version} is the same on both replicas");
        assert!(
            ids.insert(a["id"].as_u64().unwrap()),
            "a new id for each content"
        );
    }
    for serve in replicas {
        let (exit, log) = serve.terminate();
        assert!(exit.success(), "{log}");
    }
}

/// A token file is read the same way for every scheme: the spaces and
/// line breaks that begin or end it are not part of the credential, so it
/// works as a bearer token as it does as Basic auth's password, and
/// `publish --token-file` with the same file gets through.
#[test]
fn a_token_file_with_surrounding_spaces_works_for_every_scheme() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, format!("  \t{TOKEN}  \r\n\n")).unwrap();
    let token = token.to_str().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", token]);
    let put = |urn: &str, authorization: &str| {
        call(
            "PUT",
            &serve.url(&format!("/publish/schemas/{urn}")),
            &[("Authorization", authorization)],
            br#"{"type": "string"}"#,
        )
    };
    let reply = put("urn:acme:schema:bearer:1", &format!("Bearer {TOKEN}"));
    assert_eq!(reply.status, 201, "bearer: {}", reply.text());
    let basic = base64_encode(format!("user:{TOKEN}").as_bytes());
    let reply = put("urn:acme:schema:basic:1", &format!("Basic {basic}"));
    assert_eq!(reply.status, 201, "basic: {}", reply.text());
    let reply = put("urn:acme:schema:spaced:1", &format!("Bearer   {TOKEN}"));
    assert_eq!(reply.status, 201, "{}", reply.text());
    let reply = put("urn:acme:schema:wrong:1", "Bearer not-it");
    assert_eq!(reply.status, 401, "{}", reply.text());

    let folder = dir.path().join("schemas");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("dataschema.toml"), "namespace = \"acme\"\n").unwrap();
    std::fs::write(folder.join("greeting.v1.json"), r#"{"type": "string"}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args([
            "publish",
            "--registry",
            &serve.url(""),
            "--token-file",
            token,
        ])
        .arg(&folder)
        .output()
        .unwrap();
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("published urn:acme:schema:greeting:1"),
        "{shown}"
    );
}

fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

/// `serve --token-file /dev/zero` reads at most 16 KiB and refuses it (as
/// `publish` does), rather than reading until memory runs out.
#[test]
fn an_endless_token_file_is_refused_after_16_kib() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--token-file",
            "/dev/zero",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve --token-file /dev/zero still reading after 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("over 16384 bytes"), "{stderr}");
}

/// A Confluent registry request to a `dataschema serve` process, with the
/// publish credential.
fn confluent_to(
    serve: &Serve,
    method: &str,
    path: &str,
    body: &serde_json::Value,
) -> server::Reply {
    server::confluent(method, &serve.url(path), body)
}

/// `dataschema import` (problem 1 of issue 16: a Confluent registry moved
/// here with its ids): a source `dataschema serve` whose ids start at
/// 1,000 and have gaps, copied into a second one, every subject, version,
/// id, delete and config kept; a second run changes nothing.
#[test]
fn import_copies_a_registry_with_its_ids() {
    use serde_json::json;
    let source_dir = Arc::new(tempfile::tempdir().unwrap());
    let source_token = token_file(source_dir.path());
    let source = Serve::start_in(
        source_dir.clone(),
        &["--store", "memory", "--token-file", &source_token],
    );
    assert_eq!(
        confluent_to(&source, "PUT", "/mode", &json!({"mode": "IMPORT"})).status,
        200
    );
    let schemas = [
        ("Orders-value", 1, 1000, r#"{"type": "object"}"#),
        (
            "Orders-value",
            2,
            1003,
            r#"{"type": "object", "title": "v2"}"#,
        ),
        (
            "Orders-value",
            3,
            1010,
            r#"{"type": "object", "title": "v3"}"#,
        ),
        (
            "com.acme.Payment",
            4,
            1003,
            r#"{"type": "object", "title": "v2"}"#,
        ),
        ("other-value", 1, 1500, r#"{"type": "string"}"#),
        // One content under a second id, as a Confluent registry holds
        // after imports (issue 44): kept with both ids.
        ("twin-value", 1, 1700, r#"{"type": "string"}"#),
    ];
    for (subject, version, id, schema) in schemas {
        let reply = confluent_to(
            &source,
            "POST",
            &format!("/subjects/{subject}/versions"),
            &json!({"schema": schema, "schemaType": "JSON", "id": id, "version": version}),
        );
        assert_eq!(reply.status, 200, "{subject} {version}: {}", reply.text());
    }
    assert_eq!(
        confluent_to(&source, "PUT", "/mode", &json!({"mode": "READWRITE"})).status,
        200
    );
    assert_eq!(
        confluent_to(
            &source,
            "DELETE",
            "/subjects/Orders-value/versions/2",
            &json!(null)
        )
        .status,
        200
    );
    assert_eq!(
        confluent_to(
            &source,
            "PUT",
            "/config/Orders-value",
            &json!({"compatibility": "FULL"})
        )
        .status,
        200
    );
    assert_eq!(
        confluent_to(&source, "PUT", "/config", &json!({"compatibility": "NONE"})).status,
        200
    );

    let target_dir = Arc::new(tempfile::tempdir().unwrap());
    let target_token = token_file(target_dir.path());
    let target = Serve::start_in(target_dir.clone(), &["--token-file", &target_token]);
    let import = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_dataschema"))
            .args(["import", "--from", &source.url(""), "--to", &target.url("")])
            .args([
                "--token-file",
                &target_token,
                "--from-token-file",
                &source_token,
                "--copy-settings",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = import(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("imported 4 subject(s), 6 version(s): 6 copied, 0 skipped"),
        "{stdout}"
    );
    for (subject, version, id, _) in schemas {
        let read = get(&target.url(&format!(
            "/subjects/{subject}/versions/{version}?deleted=true"
        )));
        assert_eq!(read.status, 200, "{subject} {version}: {}", read.text());
        assert_eq!(read.json()["id"], id, "{subject} {version}");
        assert_eq!(
            get(&target.url(&format!("/schemas/ids/{id}"))).json()["schema"],
            get(&source.url(&format!("/schemas/ids/{id}"))).json()["schema"]
        );
    }
    assert_eq!(
        get(&target.url("/subjects/Orders-value/versions")).json(),
        json!([1, 3]),
        "the source's soft delete is kept"
    );
    assert_eq!(
        get(&target.url("/config/Orders-value")).json()["compatibilityLevel"],
        "FULL"
    );
    assert_eq!(
        get(&target.url("/config")).json()["compatibilityLevel"],
        "NONE"
    );
    // The subjects' modes are set back.
    assert_eq!(get(&target.url("/mode/Orders-value")).code(), 40409);

    // Idempotent.
    let again = import(&[]);
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(
        again.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(
        stdout.contains("0 copied, 6 skipped (held already), 0 refused"),
        "{stdout}"
    );

    // The target hands out new ids above the imported ones, and an
    // imported id never goes to other bytes.
    let new = confluent_to(
        &target,
        "POST",
        "/subjects/fresh-value/versions",
        &json!({"schema": r#"{"type": "integer"}"#, "schemaType": "JSON"}),
    );
    assert_eq!(new.status, 200, "{}", new.text());
    assert!(new.json()["id"].as_u64().unwrap() > 1700, "{}", new.text());

    // A prefix copies only its subjects; a target holding an id with
    // other bytes refuses, and the import says so (exit 1).
    let third_dir = Arc::new(tempfile::tempdir().unwrap());
    let third_token = token_file(third_dir.path());
    let third = Serve::start_in(
        third_dir.clone(),
        &["--store", "memory", "--token-file", &third_token],
    );
    assert_eq!(
        confluent_to(&third, "PUT", "/mode", &json!({"mode": "IMPORT"})).status,
        200
    );
    let clash = confluent_to(
        &third,
        "POST",
        "/subjects/clash/versions",
        &json!({"schema": r#"{"type": "null"}"#, "schemaType": "JSON", "id": 1500, "version": 1}),
    );
    assert_eq!(clash.status, 200, "{}", clash.text());
    let prefixed = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["import", "--from", &source.url(""), "--to", &third.url("")])
        .args([
            "--token-file",
            &third_token,
            "--from-token-file",
            &source_token,
        ])
        .args(["--subject-prefix", "Orders"])
        .output()
        .unwrap();
    assert!(
        prefixed.status.success(),
        "{}",
        String::from_utf8_lossy(&prefixed.stderr)
    );
    assert!(
        String::from_utf8_lossy(&prefixed.stdout).contains("imported 1 subject(s), 3 version(s)"),
        "{}",
        String::from_utf8_lossy(&prefixed.stdout)
    );
    let refused = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(["import", "--from", &source.url(""), "--to", &third.url("")])
        .args([
            "--token-file",
            &third_token,
            "--from-token-file",
            &source_token,
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("1500"), "{stderr}");
}
