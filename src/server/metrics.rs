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
//! answers. With metrics off, the handles are no-ops.
//!
//! Whether or not they are exported, the requests by route and status and
//! the refusals (timeouts, the compile budget) are also counted in the
//! process (a `Tally` beside each handle): the web console's server page
//! shows them (`Metrics::requests`). Counting one is an atomic add beside
//! the handle's.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
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
/// Compiling requests refused because the compile budget stayed spent for
/// the compile wait (`429`, code `42901`; no label).
pub const COMPILE_BUDGET_REFUSALS: &str = "dataschema_server_compile_budget_refusals_total";

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

/// A count kept in the process, and its exported counter (a no-op with
/// metrics off).
pub(crate) struct Tally {
    counter: Counter,
    count: AtomicU64,
}

impl Tally {
    fn new(counter: Counter) -> Tally {
        Tally {
            counter,
            count: AtomicU64::new(0),
        }
    }

    /// One more.
    pub(crate) fn increment(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.counter.increment(1);
    }

    /// How many so far.
    pub(crate) fn get(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

/// The handles of one server.
pub(crate) struct Metrics {
    enabled: bool,
    routes: RwLock<HashMap<Box<str>, Arc<Route>, foldhash::fast::RandomState>>,
    pub(crate) urn_hit: Counter,
    pub(crate) urn_miss: Counter,
    pub(crate) id_hit: Counter,
    pub(crate) id_miss: Counter,
    pub(crate) body_timeouts: Tally,
    pub(crate) handling_timeouts: Tally,
    pub(crate) compile_budget_refusals: Tally,
    pub(crate) ready: Gauge,
}

/// One route's latency, and its tally per status.
struct Route {
    template: Box<str>,
    latency: Histogram,
    statuses: RwLock<Vec<(u16, Tally)>>,
}

/// The requests one route answered, by status (ascending).
pub(crate) struct RouteCounts {
    /// The route template (`unmatched` for none).
    pub(crate) route: String,
    /// (status, requests answered with it).
    pub(crate) statuses: Vec<(u16, u64)>,
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
            Tally::new(if enabled {
                counter(TIMEOUTS, vec![Label::from_static_parts("phase", phase)])
            } else {
                Counter::noop()
            })
        };
        // Exported from the start, at 0 (the alerts read it).
        let compile_budget_refusals = Tally::new(if enabled {
            counter(COMPILE_BUDGET_REFUSALS, Vec::new())
        } else {
            Counter::noop()
        });
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
            routes: RwLock::new(HashMap::default()),
            urn_hit: pair("urn", "hit"),
            urn_miss: pair("urn", "miss"),
            id_hit: pair("id", "hit"),
            id_miss: pair("id", "miss"),
            body_timeouts: timeouts("body"),
            handling_timeouts: timeouts("handling"),
            compile_budget_refusals,
            ready,
        }
    }

    /// Whether the metrics are exported (requests are counted in the
    /// process either way).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// One request on `template` answered `status`, after `took` (timed
    /// only when the metrics are exported): under read locks, a lookup
    /// and the updates of kept handles.
    pub(crate) fn request(&self, template: &str, status: u16, took: Option<Duration>) {
        if let Some(route) = self.routes.read().get(template) {
            if let Some((_, tally)) = route.statuses.read().iter().find(|(s, _)| *s == status) {
                if let Some(took) = took {
                    route.latency.record(took.as_secs_f64());
                }
                tally.increment();
                return;
            }
        }
        self.first(template, status, took);
    }

    /// A route's first request with `status`: its handles bound, then
    /// counted.
    fn first(&self, template: &str, status: u16, took: Option<Duration>) {
        let route = self.route(template);
        if let Some(took) = took {
            route.latency.record(took.as_secs_f64());
        }
        let mut statuses = route.statuses.write();
        if let Some((_, tally)) = statuses.iter().find(|(held, _)| *held == status) {
            tally.increment();
            return;
        }
        let tally = Tally::new(if self.enabled {
            counter(
                REQUESTS,
                vec![
                    Label::new("route", route.template.to_string()),
                    Label::new("status", status.to_string()),
                ],
            )
        } else {
            Counter::noop()
        });
        tally.increment();
        statuses.push((status, tally));
    }

    /// The requests answered so far, by route template (sorted) and
    /// status.
    pub(crate) fn requests(&self) -> Vec<RouteCounts> {
        let mut routes: Vec<RouteCounts> = self
            .routes
            .read()
            .values()
            .map(|route| {
                let mut statuses: Vec<(u16, u64)> = route
                    .statuses
                    .read()
                    .iter()
                    .map(|(status, tally)| (*status, tally.get()))
                    .collect();
                statuses.sort_unstable();
                RouteCounts {
                    route: route.template.to_string(),
                    statuses,
                }
            })
            .collect();
        routes.sort_by(|a, b| a.route.cmp(&b.route));
        routes
    }

    /// The handles of a route seen for the first time.
    fn route(&self, template: &str) -> Arc<Route> {
        let mut routes = self.routes.write();
        if let Some(route) = routes.get(template) {
            return route.clone();
        }
        let latency = if self.enabled {
            let key = Key::from_parts(DURATION, vec![Label::new("route", template.to_owned())]);
            metrics::with_recorder(|recorder| recorder.register_histogram(&key, &METADATA))
        } else {
            Histogram::noop()
        };
        let route = Arc::new(Route {
            template: template.into(),
            latency,
            statuses: RwLock::new(Vec::new()),
        });
        routes.insert(template.into(), route.clone());
        route
    }
}
