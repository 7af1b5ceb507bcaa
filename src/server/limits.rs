//! Limits and the serve loop: body cap, body read timeout, request
//! timeout, concurrency limits (general, compatibility tests), one log
//! line and the metrics per request, header-read timeout, graceful
//! shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_layer::Layer;
use tower_service::Service;

use super::config::Config;
use super::metrics::{Metrics, UNMATCHED};
use super::wire::confluent::{ApiError, ErrorCode};

/// The limits every request runs under, the request log and the request
/// metrics: one layer, one boxed future per request (two
/// `middleware::from_fn` layers cost a boxed service clone and two boxed
/// futures each).
///
/// One shared allocation: a request's future holds one reference, not a
/// copy of every field and a count on each semaphore.
#[derive(Clone)]
struct Limits(Arc<Settings>);

/// What [`Limits`] shares between its routes and requests.
struct Settings {
    timeout: Duration,
    body_timeout: Duration,
    max_body: usize,
    /// The general concurrency slots.
    slots: Arc<Semaphore>,
    /// The compile budget of requests that compile what they send
    /// (`compiles`), which take from it instead of a general slot: one
    /// permit a byte of their bodies ([`Config::compile_budget_bytes`]).
    checks: Arc<Semaphore>,
    /// How many permits `checks` has.
    check_budget: u32,
    /// The least a compiling request takes: the budget shared by
    /// [`Config::check_concurrency`] requests.
    check_share: u32,
    /// What a compiling request without a body (a read in another
    /// `format`, `GET /schemas`) takes: as much as the largest schema
    /// stored may be (the schema cap), at most the budget, since it
    /// cannot tell its schema's size before it reads it.
    read_weight: u32,
    /// How long a compiling request waits for its permits.
    compile_wait: Duration,
    /// The bytes of request bodies held at once, one permit a byte.
    buffered: Arc<Semaphore>,
    buffer_bytes: usize,
    body: DefaultBodyLimit,
    metrics: Arc<Metrics>,
}

/// Whether a request compiles the schema it sends, and so takes its
/// share of the compile budget ([`Config::compile_budget_bytes`], shared
/// by at most [`Config::check_concurrency`] requests) instead of a
/// general slot: a compatibility test, a lookup (`POST /subjects/{s}`),
/// a read asking for a schema in another `format` (`serialized` compiles
/// a `.proto` text to its descriptor), and `GET /schemas` (every version
/// it answers read, a protobuf schema's text printed from its
/// descriptor), and the web console's compatibility form (`POST
/// /ui/check`, the compatibility test's code), its diff and version pages
/// (`/ui/diff` compiles both versions, `/ui/version` reads a protobuf
/// schema's text and canonical form by compiling it). Each costs tens to hundreds of times its schema's bytes
/// while it runs, and these are open to anyone: the budget bounds what
/// they cost together. Registrations and native
/// publishes, which need a token, keep general slots: they wait on the
/// store's lock on their name, and holding a compile slot while they
/// wait made every other name's write queue behind a name a replica
/// held (a frozen peer delayed another name's publish by 6 s).
fn compiles(method: &axum::http::Method, template: &str, query: Option<&str>) -> bool {
    use axum::http::Method;
    let formatted = || {
        query.is_some_and(|query| {
            query
                .split('&')
                .any(|pair| pair.starts_with("format=") && pair.len() > "format=".len())
        })
    };
    template.starts_with("/compatibility/")
        || (*method == Method::GET && (formatted() || template == "/schemas"))
        || (*method == Method::POST && template == "/subjects/{subject}")
        || (*method == Method::POST && template == "/ui/check")
        || (*method == Method::GET && (template == "/ui/diff" || template == "/ui/version"))
}

/// `app` with the limits of `config`, the request log and `metrics`.
pub(crate) fn apply(app: Router, config: &Config, metrics: Arc<Metrics>) -> Router {
    // At most u32::MAX (Config says so): a weight is a u32.
    let budget = config.compile_budget_bytes().min(u32::MAX as usize) as u32;
    app.layer(Limits(Arc::new(Settings {
        timeout: config.request_timeout(),
        body_timeout: config.body_read_timeout(),
        max_body: config.max_body_bytes(),
        slots: Arc::new(Semaphore::new(config.concurrency_limit())),
        checks: Arc::new(Semaphore::new(budget as usize)),
        check_budget: budget,
        check_share: (budget / config.check_concurrency().min(u32::MAX as usize) as u32).max(1),
        read_weight: config
            .max_schema_bytes()
            .clamp(1, budget as usize)
            .min(u32::MAX as usize) as u32,
        compile_wait: config.compile_wait().min(config.request_timeout()),
        buffered: Arc::new(Semaphore::new(config.body_buffer_bytes())),
        buffer_bytes: config.body_buffer_bytes(),
        body: DefaultBodyLimit::max(config.max_body_bytes()),
        metrics,
    })))
}

impl std::ops::Deref for Limits {
    type Target = Settings;

    fn deref(&self) -> &Settings {
        &self.0
    }
}

impl<S> Layer<S> for Limits {
    type Service = Limited<<DefaultBodyLimit as Layer<S>>::Service>;

    fn layer(&self, inner: S) -> Self::Service {
        Limited {
            inner: self.body.layer(inner),
            limits: self.clone(),
        }
    }
}

/// A route under [`Limits`]: its body read whole (up to the cap, within
/// the body read timeout) before anything else, then a concurrency slot
/// and the request timeout around the handler (the body cap itself is
/// axum's `DefaultBodyLimit`, read by the body extractors), and one log
/// line and the metrics when it is done.
#[derive(Clone)]
struct Limited<S> {
    inner: S,
    limits: Limits,
}

impl<S> Service<Request> for Limited<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // What the log line needs, taken only when it is written (a
        // request line filtered out costs one cached interest check). The
        // URI's clone shares its bytes.
        let log =
            tracing::enabled!(target: "dataschema::server", tracing::Level::INFO).then(|| {
                (
                    Instant::now(),
                    request.method().clone(),
                    request.uri().clone(),
                )
            });
        let matched = request.extensions().get::<MatchedPath>();
        let checks = matched
            .is_some_and(|path| compiles(request.method(), path.as_str(), request.uri().query()));
        // The template (a shared string), counted whether or not the
        // metrics are exported (the console's server page reads the
        // counts); the time taken only when they are.
        let metrics = self.limits.metrics.clone();
        let started = metrics.enabled().then(Instant::now);
        let route = matched.cloned();
        let finish = move |response: Response| {
            let template = route.as_ref().map_or(UNMATCHED, MatchedPath::as_str);
            metrics.request(
                template,
                response.status().as_u16(),
                started.map(|started| started.elapsed()),
            );
            if let Some((started, method, uri)) = log {
                tracing::info!(
                    target: "dataschema::server",
                    %method,
                    path = %uri.path(),
                    status = response.status().as_u16(),
                    ms = started.elapsed().as_secs_f64() * 1e3,
                    "request"
                );
            }
            Ok(response)
        };
        let limits = self.limits.clone();
        if request.body().is_end_stream() {
            // No body (a read): the inner service is axum's route, whose
            // future does nothing until polled, so the handler runs inside
            // the slot and the timeout. A read that compiles (another
            // `format`, `GET /schemas`) takes as much of the compile
            // budget as the largest schema stored may need.
            let handled = self.inner.call(request);
            let weight = checks.then_some(limits.read_weight);
            let free = match weight {
                Some(weight) => limits.checks.clone().try_acquire_many_owned(weight),
                None => limits.slots.clone().try_acquire_owned(),
            };
            // A slot free now (the usual case): the handler under the
            // timeout, in one small future holding one copy of each part.
            // (The async path below holds the route's future three times
            // over, and its 1.8 KB took glibc's slower path for large
            // allocations on every request.)
            if let Ok(slot) = free {
                return Box::pin(Finish {
                    timed: tokio::time::timeout(limits.timeout, handled),
                    then: Some(move |timed: Result<Result<Response, Infallible>, _>| {
                        drop(slot);
                        if checks {
                            limits.compile_slot_returned();
                        }
                        finish(match timed {
                            Ok(Ok(response)) => response,
                            Ok(Err(never)) => match never {},
                            Err(_) => limits.timed_out(),
                        })
                    }),
                });
            }
            return Box::pin(async move { finish(limits.bound(handled, weight).await) });
        }
        // A body: read before a slot is taken, by the service that was
        // polled ready (its clone stays for the next request).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let read = tokio::time::timeout(limits.body_timeout, limits.read_body(body));
            let response = match read.await {
                Ok(Ok((bytes, _held))) => {
                    // The body's bytes stay counted until it is answered;
                    // a compiling request takes as many of the compile
                    // budget while it runs.
                    let weight = checks.then(|| limits.weight(bytes.len()));
                    let handled = inner.call(Request::from_parts(parts, Body::from(bytes)));
                    limits.bound(handled, weight).await
                }
                Ok(Err(err)) => ApiError::new(
                    ErrorCode::BadRequest,
                    format!("the request body could not be read: {err}"),
                )
                .into_response(),
                Err(_) => {
                    limits.metrics.body_timeouts.increment();
                    ApiError::new(
                        ErrorCode::BodyTimeout,
                        format!(
                            "the request body was not read within {} ms (sent too slowly, or \
                             the server held as many request bodies as it takes at once)",
                            limits.body_timeout.as_millis()
                        ),
                    )
                    .into_response()
                }
            };
            finish(response)
        })
    }
}

impl Limits {
    /// `body` read whole, or its first `max_body + 1` bytes when it is
    /// longer (the body extractors, under the same cap, then refuse it
    /// with their own API's `413`), with the permits that count its bytes
    /// in the body budget (each chunk waits for its permits: when the
    /// budget is spent, bodies wait, within the body read timeout). One
    /// chunk is kept as it came, without a copy.
    async fn read_body(
        &self,
        mut body: Body,
    ) -> Result<(Bytes, Option<OwnedSemaphorePermit>), axum::Error> {
        let mut chunks: Vec<Bytes> = Vec::new();
        let mut total = 0usize;
        let mut held: Option<OwnedSemaphorePermit> = None;
        // Bytes are counted as they arrive, not as declared: a client that
        // declares a large body and sends little holds little. (When the
        // budget is full, bodies half-read may wait on each other; their
        // read timeout ends that.)
        let mut counted = 0usize;
        while total <= self.max_body {
            let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
            let Some(frame) = frame else { break };
            if let Ok(data) = frame?.into_data() {
                total += data.len();
                chunks.push(data);
                self.count(&mut held, &mut counted, total).await;
            }
        }
        Ok((whole(chunks, total), held))
    }
}

impl Limits {
    /// Waits until `held` counts `bytes` of the body budget (at most the
    /// body cap plus one, and the whole budget).
    async fn count(
        &self,
        held: &mut Option<OwnedSemaphorePermit>,
        counted: &mut usize,
        bytes: usize,
    ) {
        let target = bytes
            .min(self.max_body.saturating_add(1))
            .min(self.buffer_bytes);
        if target <= *counted {
            return;
        }
        let more = (target - *counted).min(u32::MAX as usize) as u32;
        // The semaphore is never closed: this cannot fail.
        if let Ok(permit) = self.buffered.clone().acquire_many_owned(more).await {
            *counted += more as usize;
            match held {
                Some(held) => held.merge(permit),
                None => *held = Some(permit),
            }
        }
    }
}

/// The chunks of a body as one buffer.
fn whole(mut chunks: Vec<Bytes>, total: usize) -> Bytes {
    match chunks.len() {
        0 => Bytes::new(),
        1 => chunks.pop().unwrap_or_default(),
        _ => {
            let mut whole = Vec::with_capacity(total);
            for chunk in &chunks {
                whole.extend_from_slice(chunk);
            }
            Bytes::from(whole)
        }
    }
}

impl Limits {
    /// The permits of the compile budget a request whose body has `bytes`
    /// takes: its bytes, at least the share of one of the
    /// `check_concurrency` slots, at most the whole budget (a body at the
    /// cap compiles alone).
    fn weight(&self, bytes: usize) -> u32 {
        let bytes = bytes.min(u32::MAX as usize) as u32;
        bytes.max(self.check_share).min(self.check_budget)
    }

    /// One request within its time, waiting for a concurrency slot
    /// included: a general one, or for a request that compiles what it
    /// sends (`weight`) that many permits of the compile budget, within
    /// the compile wait (`429` past it: the budget is a refusal, not a
    /// failure of the server).
    async fn bound(
        &self,
        handled: impl Future<Output = Result<Response, Infallible>>,
        weight: Option<u32>,
    ) -> Response {
        let run = async {
            // The semaphores are never closed: `acquire` cannot fail.
            let slot = match weight {
                Some(weight) => {
                    let waited =
                        tokio::time::timeout(self.compile_wait, self.checks.acquire_many(weight));
                    match waited.await {
                        Ok(slot) => slot.ok(),
                        Err(_) => return self.compile_budget_spent(),
                    }
                }
                None => self.slots.acquire().await.ok(),
            };
            let response = match handled.await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            drop(slot);
            if weight.is_some() {
                self.compile_slot_returned();
            }
            response
        };
        match tokio::time::timeout(self.timeout, run).await {
            Ok(response) => response,
            Err(_) => self.timed_out(),
        }
    }

    /// The answer to a compiling request that waited the compile wait for
    /// its share of the compile budget: `429` (`42901`) with
    /// `Retry-After`, which Confluent's clients retry. Counted
    /// ([`COMPILE_BUDGET_REFUSALS`](super::metrics::COMPILE_BUDGET_REFUSALS)).
    fn compile_budget_spent(&self) -> Response {
        self.metrics.compile_budget_refusals.increment();
        let mut response = ApiError::new(
            ErrorCode::TooManyCompiles,
            format!(
                "too many schemas are compiling: the compile budget ({} bytes of request \
                 bodies compiling at once) stayed spent for {} ms; retry later",
                self.check_budget,
                self.compile_wait.as_millis()
            ),
        )
        .into_response();
        let retry = self.compile_wait.as_secs().clamp(1, 60);
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from(retry),
        );
        response
    }

    /// After a compile slot is given back: when it was the last one taken
    /// (a burst of compiles has ended), the allocator's free memory goes
    /// back to the system, off the async workers
    /// ([`dataschema_core::limits::release_free_memory`]): a compile's
    /// memory is freed on the thread it ran on, and glibc would otherwise
    /// keep it for that thread's arena, leaving the server at the burst's
    /// peak.
    fn compile_slot_returned(&self) {
        if self.checks.available_permits() == self.check_budget as usize {
            tokio::task::spawn_blocking(dataschema_core::limits::release_free_memory);
        }
    }

    /// The answer to a request that outlived the request timeout, counted.
    fn timed_out(&self) -> Response {
        self.metrics.handling_timeouts.increment();
        ApiError::new(
            ErrorCode::Timeout,
            format!(
                "the request took longer than {} ms",
                self.timeout.as_millis()
            ),
        )
        .into_response()
    }
}

pin_project_lite::pin_project! {
    /// `timed`, then `then` applied to its output: an async block's map,
    /// without the copies of its captures an async block keeps.
    struct Finish<F, T> {
        #[pin]
        timed: F,
        then: Option<T>,
    }
}

impl<F, T> Future for Finish<F, T>
where
    F: Future,
    T: FnOnce(F::Output) -> Result<Response, Infallible>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let output = std::task::ready!(this.timed.poll(cx));
        match this.then.take() {
            Some(then) => Poll::Ready(then(output)),
            // Polled again after it answered: a caller's bug; it answers
            // nothing more.
            None => Poll::Pending,
        }
    }
}

/// Serves `router` on `listener` over HTTP/1.1 until `shutdown` completes,
/// then stops accepting and waits for the requests in flight to finish
/// (each is bounded by the request timeout). A connection that does not
/// send its request headers within
/// [`Config::header_read_timeout`] is closed.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    config: &Config,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(config.header_read_timeout());
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _peer)) => stream,
                    Err(err) => {
                        // Out of file descriptors and the like: wait, go on.
                        tracing::warn!(target: "dataschema::server", error = %err, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // Answers are small and written whole: no Nagle delay.
                let _ = stream.set_nodelay(true);
                let io = hyper_util::rt::TokioIo::new(stream);
                let service = hyper_util::service::TowerToHyperService::new(router.clone());
                let connection = graceful.watch(builder.serve_connection(io, service));
                tokio::spawn(async move {
                    if let Err(err) = connection.await {
                        tracing::debug!(target: "dataschema::server", error = %err, "connection ended");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    tracing::info!(target: "dataschema::server", "shutting down: finishing requests in flight");
    graceful.shutdown().await;
    Ok(())
}

/// Completes on ctrl-c or (on Unix) SIGTERM: the `shutdown` of [`serve`]
/// that `dataschema serve` uses. Called inside a Tokio runtime, it catches
/// the signals from the call on (not from its first poll): a SIGTERM that
/// arrives before the serve loop starts still stops it cleanly.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, Signal, SignalKind};
        let now = tokio::runtime::Handle::try_current().is_ok();
        let early = |kind: SignalKind| if now { signal(kind).ok() } else { None };
        let terminate = early(SignalKind::terminate());
        let interrupt = early(SignalKind::interrupt());
        async fn next(signal: Option<Signal>, kind: SignalKind) {
            match signal.or_else(|| signal_of(kind)) {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        fn signal_of(kind: SignalKind) -> Option<Signal> {
            signal(kind).ok()
        }
        async move {
            tokio::select! {
                () = next(terminate, SignalKind::terminate()) => {}
                () = next(interrupt, SignalKind::interrupt()) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::compiles;
    use axum::http::Method;

    #[test]
    fn every_route_that_compiles_what_it_is_sent_takes_a_compile_slot() {
        for (method, template) in [
            (Method::POST, "/compatibility/subjects/{subject}/versions"),
            (
                Method::POST,
                "/compatibility/subjects/{subject}/versions/{version}",
            ),
            (Method::POST, "/subjects/{subject}"),
            (Method::GET, "/schemas"),
            (Method::POST, "/ui/check"),
            (Method::GET, "/ui/diff"),
            (Method::GET, "/ui/version"),
        ] {
            assert!(compiles(&method, template, None), "{method} {template}");
        }
        for template in [
            "/schemas/ids/{id}",
            "/subjects/{subject}/versions/{version}",
        ] {
            let query = Some("deleted=true&format=serialized");
            assert!(compiles(&Method::GET, template, query), "{template}");
            assert!(!compiles(&Method::GET, template, Some("format=")));
        }
        for (method, template) in [
            (Method::GET, "/subjects/{subject}/versions"),
            (Method::DELETE, "/subjects/{subject}"),
            (Method::GET, "/schemas/ids/{id}"),
            (Method::GET, "/publish/schemas/{key}"),
            (Method::GET, "/ui/"),
            (Method::GET, "/ui/check"),
            // Writes need a token and wait on their name's lock.
            (Method::POST, "/subjects/{subject}/versions"),
            (Method::PUT, "/publish/schemas/{key}"),
            (Method::POST, "/publish/schemas/{key}"),
        ] {
            assert!(!compiles(&method, template, None), "{method} {template}");
        }
    }
}
