//! The web console's pages on a registry of 10,000 versions (5,000 names
//! of one version, one name of 5,000), rendered through the real router
//! (`server::router`, driven with `tower::ServiceExt::oneshot`, no
//! socket), beside the baseline of the same run: Confluent's
//! `GET /subjects`, which lists every subject of the same store.
//!
//! ```sh
//! cargo bench --features server --bench console -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! Rows: `confluent/subjects` (the baseline: one store list, 5,001
//! subjects as JSON), `console/names` (`/ui/`: the same list, one page of
//! 50 rows resolved and rendered), `console/names_last` (its last page),
//! `console/names_avro` (a language filter that matches nothing: every
//! latest version read), `console/versions` (`/ui/subject` of the name of
//! 5,000 versions), `console/version` (`/ui/version`, one version).

use axum::body::Body;
use axum::http::Request;
use criterion::{criterion_group, criterion_main, Criterion};
use dataschema::server::{self, Access, Config};
use dataschema::store::Store;
use dataschema::{MemoryStore, Registry, Schema, Urn};
use tower::ServiceExt;

fn app() -> axum::Router {
    let store = MemoryStore::new();
    for n in 0..5_000 {
        let urn = Urn::new("acme", &format!("n{n:05}"), 1).unwrap();
        store
            .put(&Schema::json(urn, "{\"type\": \"object\"}"))
            .unwrap();
    }
    for version in 1..=5_000 {
        let urn = Urn::new("acme", "big", version).unwrap();
        store
            .put(&Schema::json(urn, format!("{{\"title\": \"v{version}\"}}")))
            .unwrap();
    }
    server::router(
        Registry::new(store),
        &Config::new("acme").unwrap(),
        Access::ReadOnly,
    )
}

fn pages(c: &mut Criterion) {
    let app = app();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("console");
    for (row, path) in [
        ("confluent/subjects", "/subjects"),
        ("console/names", "/ui/"),
        ("console/names_last", "/ui/?page=101"),
        ("console/names_avro", "/ui/?language=avro"),
        ("console/versions", "/ui/subject?name=big"),
        ("console/version", "/ui/version?name=big&v=2500"),
    ] {
        group.bench_function(row, |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let answer = app
                        .clone()
                        .oneshot(Request::get(path).body(Body::empty()).unwrap())
                        .await
                        .unwrap();
                    assert_eq!(answer.status(), 200, "{path}");
                    axum::body::to_bytes(answer.into_body(), 1 << 24)
                        .await
                        .unwrap()
                        .len()
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, pages);
criterion_main!(benches);
