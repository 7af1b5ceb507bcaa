//! The server's metrics, through the `metrics` facade (see
//! [`Config::with_metrics`](super::Config::with_metrics) for the list).
//!
//! Handles are bound in the recorder installed when the router is built
//! (the cache's, the store's, readiness), or on a route's first request
//! with a status (the request counters and latency histograms), and kept:
//! counting a request is then a read lock, a lookup keyed by the route
//! template and the status, and an increment; no key is built or hashed
//! by the recorder. Label values are bounded: a route template of the
//! router (never the raw path), `unmatched`, and the statuses the server
//! answers. With metrics off, the handles are no-ops and the layer records
//! nothing.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use metrics::{Counter, Gauge, Histogram, Key, Label, Level, Metadata};
use parking_lot::RwLock;

/// Requests answered (labels `route`, `status`).
pub const REQUESTS: &str = "dataschema_server_requests_total";
/// Time from routing to the answer, in seconds (label `route`).
pub const DURATION: &str = "dataschema_server_request_duration_seconds";
/// Requests that ran out of time (label `phase`: `body`, `handling`).
pub const TIMEOUTS: &str = "dataschema_server_request_timeouts_total";
/// Store failures (label `kind`: `timeout`, `failure`).
pub const STORE_ERRORS: &str = "dataschema_server_store_errors_total";
/// Lookups of the cache of immutable answers (labels `lookup`, `result`).
pub const CACHE: &str = "dataschema_server_cache_total";
/// 1 when the last `/readyz` found the store ready, else 0.
pub const READY: &str = "dataschema_server_ready";

/// The route label of a request that matched no route.
pub(crate) const UNMATCHED: &str = "unmatched";

static METADATA: Metadata<'static> =
    Metadata::new("dataschema::server", Level::INFO, Some(module_path!()));

fn counter(name: &'static str, labels: Vec<Label>) -> Counter {
    let key = Key::from_parts(name, labels);
    metrics::with_recorder(|recorder| recorder.register_counter(&key, &METADATA))
}

/// Whether a store failure is a wait that ran out (a lock, a statement,
/// an idle transaction, a pooled connection): the store's own words name
/// each a timeout. A retry may succeed where another failure would not.
pub(crate) fn timed_out(err: &dataschema_core::Error) -> bool {
    err.chain().to_string().contains("timeout")
}

/// The store failures counted, by kind.
pub(crate) fn store_error(err: &dataschema_core::Error) {
    let kind = if timed_out(err) { "timeout" } else { "failure" };
    metrics::counter!(STORE_ERRORS, "kind" => kind).increment(1);
}

/// The handles of one server.
pub(crate) struct Metrics {
    enabled: bool,
    routes: RwLock<HashMap<Box<str>, Arc<Route>>>,
    pub(crate) urn_hit: Counter,
    pub(crate) urn_miss: Counter,
    pub(crate) id_hit: Counter,
    pub(crate) id_miss: Counter,
    pub(crate) body_timeouts: Counter,
    pub(crate) handling_timeouts: Counter,
    pub(crate) ready: Gauge,
}

/// One route's latency, and its counter per status.
struct Route {
    template: Box<str>,
    latency: Histogram,
    statuses: RwLock<Vec<(u16, Counter)>>,
}

impl Metrics {
    /// Handles in the recorder installed now (`enabled`), or no-ops.
    pub(crate) fn new(enabled: bool) -> Metrics {
        let pair = |lookup: &'static str, result: &'static str| {
            if enabled {
                counter(
                    CACHE,
                    vec![
                        Label::from_static_parts("lookup", lookup),
                        Label::from_static_parts("result", result),
                    ],
                )
            } else {
                Counter::noop()
            }
        };
        let timeouts = |phase: &'static str| {
            if enabled {
                counter(TIMEOUTS, vec![Label::from_static_parts("phase", phase)])
            } else {
                Counter::noop()
            }
        };
        let ready = if enabled {
            let key = Key::from_name(READY);
            metrics::with_recorder(|recorder| recorder.register_gauge(&key, &METADATA))
        } else {
            Gauge::noop()
        };
        if enabled {
            // Exported from the start, at 0 (the alerts read them).
            for kind in ["timeout", "failure"] {
                drop(counter(
                    STORE_ERRORS,
                    vec![Label::from_static_parts("kind", kind)],
                ));
            }
        }
        Metrics {
            enabled,
            routes: RwLock::new(HashMap::new()),
            urn_hit: pair("urn", "hit"),
            urn_miss: pair("urn", "miss"),
            id_hit: pair("id", "hit"),
            id_miss: pair("id", "miss"),
            body_timeouts: timeouts("body"),
            handling_timeouts: timeouts("handling"),
            ready,
        }
    }

    /// Whether requests are recorded.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// One request on `template` answered `status` after `took`: under
    /// read locks, a lookup and two updates on kept handles.
    pub(crate) fn request(&self, template: &str, status: u16, took: Duration) {
        if let Some(route) = self.routes.read().get(template) {
            if let Some((_, counter)) = route.statuses.read().iter().find(|(s, _)| *s == status) {
                route.latency.record(took.as_secs_f64());
                counter.increment(1);
                return;
            }
        }
        self.first(template, status, took);
    }

    /// A route's first request with `status`: its handles bound, then
    /// counted.
    fn first(&self, template: &str, status: u16, took: Duration) {
        let route = self.route(template);
        route.latency.record(took.as_secs_f64());
        let mut statuses = route.statuses.write();
        if let Some((_, counter)) = statuses.iter().find(|(held, _)| *held == status) {
            counter.increment(1);
            return;
        }
        let counter = counter(
            REQUESTS,
            vec![
                Label::new("route", route.template.to_string()),
                Label::new("status", status.to_string()),
            ],
        );
        counter.increment(1);
        statuses.push((status, counter));
    }

    /// The handles of a route seen for the first time.
    fn route(&self, template: &str) -> Arc<Route> {
        let mut routes = self.routes.write();
        if let Some(route) = routes.get(template) {
            return route.clone();
        }
        let key = Key::from_parts(DURATION, vec![Label::new("route", template.to_owned())]);
        let latency =
            metrics::with_recorder(|recorder| recorder.register_histogram(&key, &METADATA));
        let route = Arc::new(Route {
            template: template.into(),
            latency,
            statuses: RwLock::new(Vec::new()),
        });
        routes.insert(template.into(), route.clone());
        route
    }
}
