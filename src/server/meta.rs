//! The routes about the server itself, on every router and without a
//! credential: `GET /healthz` (the process answers), `GET /readyz` (the
//! store answers within the ready timeout and its tables are at the
//! expected layout) and `GET /openapi.json` (the description of both
//! APIs, `docs/openapi.json`).

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::state::AppState;
use super::wire::answer;
use super::wire::confluent::{ApiError, ErrorCode};
use super::wire::native::JSON;

/// The OpenAPI description of both APIs, as kept in the repository.
pub(crate) const OPENAPI: &str = include_str!("../../docs/openapi.json");

pub(crate) fn routes(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/openapi.json", get(openapi))
        .with_state(state)
}

/// The process answers: nothing else is asked.
async fn healthz() -> Response {
    answer(
        StatusCode::OK,
        JSON,
        Body::from(Bytes::from_static(b"{\"status\":\"ok\"}")),
    )
}

/// `200` when the store answered within the bound and its tables are at
/// the expected layout, else `503` (`50301`) with the reason.
async fn readyz(State(state): State<AppState>) -> Response {
    match state.ready().await {
        Ok(()) => answer(
            StatusCode::OK,
            JSON,
            Body::from(Bytes::from_static(b"{\"status\":\"ready\"}")),
        ),
        Err(reason) => ApiError::new(ErrorCode::NotReady, reason).into_response(),
    }
}

async fn openapi() -> Response {
    answer(
        StatusCode::OK,
        JSON,
        Body::from(Bytes::from_static(OPENAPI.as_bytes())),
    )
}
