//! The web console in a real browser: a `dataschema serve` on a loopback
//! port the OS picks, seeded with schemas in all three languages (and a
//! hostile subject), clicked through in headless Chromium (Debian's
//! `chromium`) by `tests/browser/console.cjs` with `playwright-core`,
//! each page checked by `axe-core`.
//!
//! `.ci/setup` installs all three: chromium with apt-get, the npm
//! packages of `tests/browser/package-lock.json` into
//! `$DATASCHEMA_BROWSER_DIR` (`$HOME/.cache/dataschema/browser`). A missing one
//! fails this test, in CI and outside it, saying to run `.ci/setup`.
//!
//! Screenshots and `axe.json` land in `$DATASCHEMA_ARTIFACTS_DIR/console`
//! (default `target/artifacts/console` in the repository), CI's artifacts.
#![cfg(all(
    feature = "cli",
    feature = "proto-text",
    feature = "avro",
    feature = "json"
))]

use std::path::PathBuf;
use std::process::Command;

use crate::common::data;
use crate::server::confluent;
use crate::server::process::{token_file, Serve};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(data(&format!("console/{name}"))).unwrap()
}

/// What the browser test needs, each found or the test fails saying how
/// to install it.
fn tools() -> (PathBuf, PathBuf) {
    let setup = "run `source .ci/setup` (as root: it installs Debian's chromium, and \
                 playwright-core and axe-core with npm ci)";
    let chromium = PathBuf::from(
        std::env::var_os("DATASCHEMA_CHROMIUM").unwrap_or_else(|| "/usr/bin/chromium".into()),
    );
    assert!(
        chromium.is_file(),
        "the console's browser test needs Chromium at {} (DATASCHEMA_CHROMIUM): {setup}",
        chromium.display()
    );
    let node_dir = std::env::var_os("DATASCHEMA_BROWSER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/dataschema/browser")
        });
    let modules = node_dir.join("node_modules");
    for package in ["playwright-core/package.json", "axe-core/axe.min.js"] {
        assert!(
            modules.join(package).is_file(),
            "the console's browser test needs {} (DATASCHEMA_BROWSER_DIR): {setup}",
            modules.join(package).display()
        );
    }
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.as_ref().is_ok_and(|out| out.status.success()),
        "the console's browser test needs node (Node.js 20 or later) on PATH: {node:?}"
    );
    (chromium, modules)
}

fn register(serve: &Serve, subject: &str, schema_type: &str, text: &str) {
    let subject_path: String = subject
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let answer = confluent(
        "POST",
        &serve.url(&format!("/subjects/{subject_path}/versions")),
        &serde_json::json!({"schemaType": schema_type, "schema": text}),
    );
    assert_eq!(answer.status, 200, "{subject}: {}", answer.text());
}

fn set_compatibility(serve: &Serve, subject: &str, level: &str) {
    let answer = confluent(
        "PUT",
        &serve.url(&format!("/config/{subject}")),
        &serde_json::json!({"compatibility": level}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
}

/// Every flow of the console clicked through in Chromium, every page
/// screenshotted and checked by axe (no serious or critical violation).
#[test]
fn the_console_passes_in_chromium() {
    let (chromium, modules) = tools();
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(&["--store", "memory", "--token-file", &token_file(dir.path())]);
    for (subject, schema_type, v1, v2) in [
        ("orders-value", "AVRO", "orders_v1.avsc", "orders_v2.avsc"),
        (
            "customer-value",
            "JSON",
            "customer_v1.json",
            "customer_v2.json",
        ),
        (
            "payment-value",
            "PROTOBUF",
            "payment_v1.proto",
            "payment_v2.proto",
        ),
    ] {
        register(&serve, subject, schema_type, &fixture(v1));
        set_compatibility(&serve, subject, "NONE");
        register(&serve, subject, schema_type, &fixture(v2));
        set_compatibility(&serve, subject, "BACKWARD");
    }
    // The type payment_with_money.proto imports, for the check form's
    // references.
    register(&serve, "money-value", "PROTOBUF", &fixture("money.proto"));
    register(
        &serve,
        "<script>alert(\"subject\")</script>",
        "JSON",
        &fixture("hostile.json"),
    );
    let artifacts = std::env::var_os("DATASCHEMA_ARTIFACTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/artifacts"))
        .join("console");
    let _ = std::fs::remove_dir_all(&artifacts);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser/console.cjs");
    let output = Command::new("node")
        .arg(&script)
        .arg(serve.url(""))
        .arg(data("console"))
        .arg(&artifacts)
        .env("NODE_PATH", &modules)
        .env("DATASCHEMA_CHROMIUM", &chromium)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the console's browser flows failed ({}):\n{stdout}\n{stderr}\nserver log:\n{}",
        output.status,
        serve.stderr.lock().unwrap()
    );
    assert!(stdout.contains(", 0 serious or critical"), "{stdout}");
    let shots = std::fs::read_dir(&artifacts)
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "png"))
        })
        .count();
    assert!(
        shots >= 15,
        "{shots} screenshots in {}",
        artifacts.display()
    );
}
