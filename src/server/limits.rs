//! Limits and the serve loop: body cap, request timeout, concurrency
//! limit, one log line per request, header-read timeout, graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::reply::ApiError;
use super::Config;

#[derive(Clone)]
struct Limits {
    timeout: Duration,
    slots: Arc<Semaphore>,
}

/// `app` with the limits of `config` and the request log.
pub(crate) fn apply(app: Router, config: &Config) -> Router {
    let limits = Limits {
        timeout: config.request_timeout(),
        slots: Arc::new(Semaphore::new(config.concurrency_limit())),
    };
    app.layer(DefaultBodyLimit::max(config.max_body_bytes()))
        .layer(middleware::from_fn_with_state(limits, bound))
        .layer(middleware::from_fn(log))
}

/// One request within its time, waiting for a concurrency slot included.
async fn bound(State(limits): State<Limits>, request: Request, next: Next) -> Response {
    let run = async {
        // The semaphore is never closed: `acquire` cannot fail.
        let _slot = limits.slots.acquire().await;
        next.run(request).await
    };
    match tokio::time::timeout(limits.timeout, run).await {
        Ok(response) => response,
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            50002,
            format!(
                "the request took longer than {} ms",
                limits.timeout.as_millis()
            ),
        )
        .into_response(),
    }
}

/// One `tracing` line per request (target `dataschema::server`, level
/// INFO): method, path as it arrived, status, milliseconds.
async fn log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    tracing::info!(
        target: "dataschema::server",
        %method,
        %path,
        status = response.status().as_u16(),
        ms = started.elapsed().as_secs_f64() * 1e3,
        "request"
    );
    response
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
