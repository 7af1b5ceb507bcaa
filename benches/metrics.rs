//! The guard against the bare validator with a real exporter installed
//! (`metrics-exporter-prometheus`, recorder only, no HTTP listener): the
//! counters are bound once, so counting a message stays an increment on a
//! handle and the guard stays as close to the bare validator as without a
//! recorder (`benches/guard.rs`).
//!
//! ```text
//! cargo bench --bench metrics && python3 benches/ratios.py
//! ```
//!
//! Groups `prometheus_json` and `prometheus_protobuf`, each with `bare`
//! and `guard`, as in `benches/guard.rs`.

mod support;

use criterion::{criterion_group, criterion_main, Criterion};
use metrics_exporter_prometheus::PrometheusBuilder;

fn with_exporter(c: &mut Criterion) {
    let handle = PrometheusBuilder::new()
        .install_recorder()
        .expect("the Prometheus recorder installs");
    support::json(c, "prometheus_json");
    support::protobuf(c, "prometheus_protobuf");
    // The counters really went to the exporter.
    let rendered = handle.render();
    assert!(
        rendered.contains("dataschema_validated_total{schema=\"orders.created\"}"),
        "{rendered}"
    );
    assert!(rendered.contains("dataschema_unvalidated_total{reason=\"not_found\"} 0"));
}

criterion_group!(benches, with_exporter);
criterion_main!(benches);
