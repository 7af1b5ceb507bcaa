//! The OpenAPI description (`docs/openapi.json`, served at
//! `GET /openapi.json`) against the router: every route in the server's
//! source is described, every described operation reaches a handler, and
//! every method a described path does not list is no route. (`.ci/run`
//! fuzzes a live server against it with schemathesis.)
#![cfg(feature = "server")]

use crate::server;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::Request;
use dataschema::server::{router, Access, Auth};
use dataschema::{MemoryStore, Registry};
use tower::ServiceExt;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every path and its methods (upper case) the description holds.
fn described() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(root().join("docs/openapi.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["openapi"].as_str().map(|v| &v[..2]), Some("3."));
    doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, item)| {
            let methods = item
                .as_object()
                .unwrap()
                .keys()
                .filter(|k| ["get", "put", "post", "delete", "patch"].contains(&k.as_str()))
                .map(|k| k.to_ascii_uppercase())
                .collect();
            (path.clone(), methods)
        })
        .collect()
}

/// The path of every `.route("...")` in `dir`'s Rust files, but the web
/// console's (`src/server/console`): HTML pages for people under `/ui`,
/// no API, so not described (and not fuzzed by schemathesis).
fn routed(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && path.ends_with("src/server/console") {
            let mut console = BTreeSet::new();
            routed(&path, &mut console);
            assert!(
                !console.is_empty() && console.iter().all(|route| route.starts_with("/ui")),
                "the console's routes are all under /ui: {console:?}"
            );
        } else if path.is_dir() {
            routed(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for piece in text.split(".route(").skip(1) {
                let piece = piece.trim_start();
                if let Some(rest) = piece.strip_prefix('"') {
                    found.insert(rest[..rest.find('"').unwrap()].to_owned());
                }
            }
        }
    }
}

/// `template` with a value for each parameter.
fn concrete(template: &str) -> String {
    template
        .replace("{key}", "urn:acme:schema:orders.created:1")
        .replace("{subject}", "orders.created")
        .replace("{version}", "1")
        .replace("{id}", "1")
        .replace("{namespace}", "acme")
        .replace("{name}", "orders.created")
}

const NO_ROUTE: &str = r#"{"error_code":404,"message":"HTTP 404 Not Found"}"#;

#[test]
fn the_description_and_the_router_hold_the_same_routes() {
    let described = described();
    let mut in_source = BTreeSet::new();
    routed(&root().join("src/server"), &mut in_source);
    // Confluent's context URL prefix (`confluent/context.rs`) is no
    // operation of its own: it rewrites `/contexts/{context}/...` to the
    // described path it stands for and hands it back to the router.
    assert!(
        in_source.remove("/contexts/{*rest}"),
        "the context prefix route is mounted"
    );
    let paths: BTreeSet<String> = described.keys().cloned().collect();
    assert_eq!(
        in_source, paths,
        "the routes of src/server and the paths of docs/openapi.json differ"
    );
    let operations: usize = described.values().map(BTreeSet::len).sum();
    assert!(operations >= 44, "{operations} operations");

    let registry = Registry::new(MemoryStore::new());
    let app = router(
        registry,
        &server::config(),
        Access::Publish(Auth::new(server::TOKEN).unwrap()),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        for (template, methods) in &described {
            let path = concrete(template);
            for method in ["GET", "POST", "PUT", "DELETE", "PATCH"] {
                let request = Request::builder()
                    .method(method)
                    .uri(&path)
                    .header("authorization", server::bearer())
                    .header("content-type", "application/json")
                    .body(if method == "POST" || method == "PUT" {
                        Body::from("{}")
                    } else {
                        Body::empty()
                    })
                    .unwrap();
                let answer = app.clone().oneshot(request).await.unwrap();
                let status = answer.status().as_u16();
                let body = axum::body::to_bytes(answer.into_body(), 1 << 20)
                    .await
                    .unwrap();
                let text = String::from_utf8_lossy(&body);
                let no_route = status == 405
                    || text == NO_ROUTE
                    || (status == 422 && text.contains("42205") && text.contains("read-only"));
                if methods.contains(method) {
                    assert!(
                        !no_route,
                        "{method} {template} is described, and no route: {status} {text}"
                    );
                } else {
                    assert!(
                        no_route,
                        "{method} {template} is a route the description lacks: {status} {text}"
                    );
                }
            }
        }
        let served = app
            .clone()
            .oneshot(Request::get("/openapi.json").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(served.status(), 200);
        let body = axum::body::to_bytes(served.into_body(), 1 << 22)
            .await
            .unwrap();
        assert_eq!(
            body,
            std::fs::read(root().join("docs/openapi.json")).unwrap(),
            "the server serves the description kept in the repository"
        );
    });
}
