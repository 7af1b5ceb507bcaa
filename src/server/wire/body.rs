//! Answers as bytes: a body under a status with a content type, and the
//! compatibility report as JSON, for both APIs.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use dataschema_core::compat::CompatReport;

/// `body` under `status`, with `content_type`.
pub(crate) fn answer(status: StatusCode, content_type: &'static str, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// `value` serialized under `status`, with `content_type`.
pub(crate) fn json_answer(
    status: StatusCode,
    content_type: &'static str,
    value: &Value,
) -> Response {
    answer(status, content_type, Body::from(value.to_string()))
}

/// Prebuilt bytes as a `200` with `content_type` (a cached answer: the
/// bytes are shared, not copied).
pub(crate) fn bytes_answer(content_type: &'static str, bytes: Bytes) -> Response {
    answer(StatusCode::OK, content_type, Body::from(bytes))
}

/// The report of a compatibility check as JSON (a native incompatible
/// publish, a verbose Confluent compatibility test): the mode, the
/// verdict, and per prior version each change with its kind, path,
/// direction and whether it breaks.
pub(crate) fn report_json(report: &CompatReport) -> Value {
    let versions: Vec<Value> = report
        .versions()
        .iter()
        .map(|version| {
            let changes: Vec<Value> = version
                .changes()
                .iter()
                .map(|change| {
                    let mut value = json!({
                        "kind": change.kind().name(),
                        "path": change.path(),
                        "direction": change.direction().as_str(),
                        "breaking": change.is_breaking(),
                    });
                    if let Some(label) = change.label() {
                        value["label"] = Value::from(label);
                    }
                    value
                })
                .collect();
            json!({
                "version": version.version(),
                "passed": version.passed(),
                "directions": version
                    .directions()
                    .iter()
                    .map(|d| d.as_str())
                    .collect::<Vec<_>>(),
                "changes": changes,
            })
        })
        .collect();
    json!({
        "mode": report.level().as_str(),
        "compatible": report.is_compatible(),
        "versions": versions,
    })
}
