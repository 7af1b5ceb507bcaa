//! Everything the server puts on the wire, for both APIs: content types,
//! header names, the native API's answers and refusals, Confluent's JSON
//! bodies and error codes, and the compatibility report as JSON.
//!
//! The bottom of the server: the cache builds its prebuilt answers from
//! here, the handlers and the layers (credential check, limits) answer
//! through it, and it uses nothing of the API modules, the state or the
//! cache. A change to what a client reads is a change here.

mod body;
pub(crate) mod confluent;
pub(crate) mod native;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::json;

pub(crate) use self::body::{answer, report_json};

/// The refusal of a publish without the credential, the same for both
/// APIs (a Confluent client reads `error_code`, a native one `error`),
/// with a `WWW-Authenticate` header naming both schemes.
pub(crate) fn unauthorized(message: &str) -> Response {
    let mut response = body::json_answer(
        StatusCode::UNAUTHORIZED,
        confluent::CONTENT_TYPE,
        &json!({
            "error_code": confluent::ErrorCode::Unauthorized.number(),
            "error": "unauthorized",
            "message": message,
        }),
    );
    let headers = response.headers_mut();
    headers.append(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"dataschema\""),
    );
    headers.append(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"dataschema\", charset=\"UTF-8\""),
    );
    response
}

/// The message a client gets, on either API, for a failure of the
/// server's own: the error's first line (`schema store failed`), never its
/// causes (a database file's path, the driver's text), which go to the
/// log: the client may be anonymous.
pub(crate) fn server_failure(err: &dataschema_core::Error) -> String {
    format!("{err}: the server's log has the cause")
}
