//! Answers shared by both APIs: JSON bodies, the compatibility report as
//! JSON, query flags.

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use dataschema_core::compat::CompatReport;
use dataschema_core::Error;

/// Confluent's content type, used for every JSON answer.
pub(crate) const CONFLUENT_JSON: &str = "application/vnd.schemaregistry.v1+json";

/// A JSON answer with `status`.
pub(crate) fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut response = Response::new(Body::from(value.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(CONFLUENT_JSON),
    );
    response
}

/// A Confluent error: `{"error_code": N, "message": ...}` under `status`.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) code: u32,
    pub(crate) message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: u32, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// 42201: the schema is not one this server accepts.
    pub(crate) fn invalid_schema(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, 42201, message)
    }

    /// 42205: refused, whoever asks.
    pub(crate) fn not_permitted(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, 42205, message)
    }

    /// 400 for a request this server cannot read.
    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, 400, message)
    }

    /// 50001, with the whole cause chain (the store's error is no secret
    /// worth keeping from the operator, and it is logged too).
    pub(crate) fn store(err: &Error) -> ApiError {
        tracing::error!(error = %err.chain(), "store failed");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            50001,
            err.chain().to_string(),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_response(
            self.status,
            &json!({"error_code": self.code, "message": self.message}),
        )
    }
}

/// The report of a compatibility check as JSON: the mode, the verdict, and
/// per prior version each change with its kind, path, direction and
/// whether it breaks.
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
        "mode": report.mode().as_str(),
        "compatible": report.is_compatible(),
        "versions": versions,
    })
}

/// The query of a request, read the way Confluent clients write it: keys
/// compared case-insensitively and without `_` (`deleted_only` is
/// `deletedOnly`), booleans in any case (`False`, `true`).
pub(crate) struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    pub(crate) fn parse(raw: Option<&str>) -> Query {
        let pairs = raw
            .map(|raw| {
                form_urlencoded::parse(raw.as_bytes())
                    .map(|(k, v)| (normalize_key(&k), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Query { pairs }
    }

    /// The last value given for `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        let key = normalize_key(key);
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A boolean flag: `true`/`false` in any case (also `1`/`0`); absent is
    /// `default`.
    pub(crate) fn flag(&self, key: &str, default: bool) -> Result<bool, ApiError> {
        match self.get(key) {
            None => Ok(default),
            Some(value) if value.eq_ignore_ascii_case("true") || value == "1" => Ok(true),
            Some(value)
                if value.eq_ignore_ascii_case("false") || value == "0" || value.is_empty() =>
            {
                Ok(false)
            }
            Some(value) => Err(ApiError::bad_request(format!(
                "query parameter {key}: expected true or false, not {:?}",
                dataschema_core::clip(value, 40)
            ))),
        }
    }

    /// A non-negative integer (absent is `default`; Confluent's `-1` means
    /// no limit, read as `None`).
    pub(crate) fn count(
        &self,
        key: &str,
        default: Option<usize>,
    ) -> Result<Option<usize>, ApiError> {
        match self.get(key) {
            None | Some("") => Ok(default),
            Some(value) => match value.parse::<i64>() {
                Ok(n) if n < 0 => Ok(None),
                Ok(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
                Err(_) => Err(ApiError::bad_request(format!(
                    "query parameter {key}: expected an integer, not {:?}",
                    dataschema_core::clip(value, 40)
                ))),
            },
        }
    }
}

fn normalize_key(key: &str) -> String {
    key.chars()
        .filter(|&c| c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// `offset` and `limit` from the query, applied to a list.
pub(crate) fn page<T>(items: Vec<T>, query: &Query) -> Result<Vec<T>, ApiError> {
    let offset = query.count("offset", Some(0))?.unwrap_or(0);
    let limit = query.count("limit", None)?;
    let items = items.into_iter().skip(offset);
    Ok(match limit {
        Some(limit) if limit > 0 => items.take(limit).collect(),
        _ => items.collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_keys_and_flags_ignore_case_and_underscores() {
        let query = Query::parse(Some(
            "normalize=False&deleted_only=TRUE&verbose=True&limit=-1",
        ));
        assert!(!query.flag("normalize", true).unwrap());
        assert!(query.flag("deletedOnly", false).unwrap());
        assert!(query.flag("VERBOSE", false).unwrap());
        assert_eq!(query.count("limit", Some(3)).unwrap(), None);
        assert!(Query::parse(Some("verbose=maybe"))
            .flag("verbose", false)
            .is_err());
        assert!(!Query::parse(None).flag("verbose", false).unwrap());
    }
}
