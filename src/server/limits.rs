//! Limits and the serve loop: body cap, request timeout, concurrency
//! limit, one log line per request, header-read timeout, graceful shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, Request};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_layer::Layer;
use tower_service::Service;

use super::config::Config;
use super::wire::confluent::{ApiError, ErrorCode};

/// The limits every request runs under, and the request log: one layer,
/// one boxed future per request (two `middleware::from_fn` layers cost a
/// boxed service clone and two boxed futures each).
#[derive(Clone)]
struct Limits {
    timeout: Duration,
    slots: Arc<Semaphore>,
    body: DefaultBodyLimit,
}

/// `app` with the limits of `config` and the request log.
pub(crate) fn apply(app: Router, config: &Config) -> Router {
    app.layer(Limits {
        timeout: config.request_timeout(),
        slots: Arc::new(Semaphore::new(config.concurrency_limit())),
        body: DefaultBodyLimit::max(config.max_body_bytes()),
    })
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

/// A route under [`Limits`]: the body cap (axum's `DefaultBodyLimit`, read
/// by the body extractors), then a concurrency slot and the request
/// timeout around the handler, and one log line when it is done.
#[derive(Clone)]
struct Limited<S> {
    inner: S,
    limits: Limits,
}

impl<S> Service<Request> for Limited<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Send + 'static,
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
        // The inner service is axum's route, whose future does nothing
        // until polled: the handler runs inside the slot and the timeout.
        let handled = self.inner.call(request);
        let limits = self.limits.clone();
        Box::pin(async move {
            let response = limits.bound(handled).await;
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
        })
    }
}

impl Limits {
    /// One request within its time, waiting for a concurrency slot
    /// included.
    async fn bound(&self, handled: impl Future<Output = Result<Response, Infallible>>) -> Response {
        let run = async {
            // The semaphore is never closed: `acquire` cannot fail.
            let _slot = self.slots.acquire().await;
            match handled.await {
                Ok(response) => response,
                Err(never) => match never {},
            }
        };
        match tokio::time::timeout(self.timeout, run).await {
            Ok(response) => response,
            Err(_) => ApiError::new(
                ErrorCode::Timeout,
                format!(
                    "the request took longer than {} ms",
                    self.timeout.as_millis()
                ),
            )
            .into_response(),
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
/// that `dataschema serve` uses.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
