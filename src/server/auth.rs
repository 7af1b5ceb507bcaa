//! The publish credential.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::json;
use subtle::ConstantTimeEq;

use super::reply::json_response;
use dataschema_core::sha256_hex;
use dataschema_core::Error;

/// The credential that publishing needs, accepted as a bearer token
/// (`Authorization: Bearer TOKEN`) or as the password of HTTP Basic auth
/// with any user name (`Authorization: Basic base64(USER:TOKEN)`, what
/// Confluent clients send for `basic.auth.user.info`; the user is what
/// comes before the first colon, so the password may hold any character).
///
/// The comparison runs in constant time over SHA-256 digests of both sides,
/// so neither the credential's bytes nor its length leak through timing.
/// A request without the credential, or with a wrong one, is `401` with a
/// `WWW-Authenticate` header naming both schemes.
#[derive(Clone)]
pub struct Auth {
    digest: Arc<str>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Auth(<redacted>)")
    }
}

impl Auth {
    /// Publishing with `credential`. An empty credential is
    /// [`Error::NoAuthentication`].
    pub fn new(credential: impl AsRef<[u8]>) -> Result<Auth, Error> {
        let credential = credential.as_ref();
        if credential.is_empty() {
            return Err(Error::NoAuthentication);
        }
        Ok(Auth {
            digest: sha256_hex(credential).into(),
        })
    }

    /// The credential held in a file (its whole content, without trailing
    /// line breaks or spaces). An empty file is [`Error::NoAuthentication`];
    /// one that cannot be read is [`Error::Other`] with the I/O error.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Auth, Error> {
        let bytes = std::fs::read(path.as_ref()).map_err(|err| Error::Other(Box::new(err)))?;
        let end = bytes
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        Auth::new(&bytes[..end])
    }

    /// Whether `headers` carry the credential.
    fn accepts(&self, headers: &HeaderMap) -> bool {
        let mut accepted = false;
        for value in headers.get_all(header::AUTHORIZATION) {
            if let Some(given) = credential(value) {
                // Every header is compared: no early exit on a match.
                accepted |= bool::from(sha256_hex(&given).as_bytes().ct_eq(self.digest.as_bytes()));
            }
        }
        accepted
    }
}

/// The credential an `Authorization` header carries, if it is a bearer
/// token or HTTP Basic.
fn credential(value: &HeaderValue) -> Option<Vec<u8>> {
    let value = value.as_bytes();
    let space = value.iter().position(|&b| b == b' ')?;
    let (scheme, rest) = value.split_at(space);
    let rest = trim(&rest[1..]);
    if scheme.eq_ignore_ascii_case(b"bearer") {
        return Some(rest.to_vec());
    }
    if scheme.eq_ignore_ascii_case(b"basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(rest)
            .ok()?;
        let colon = decoded.iter().position(|&b| b == b':')?;
        return Some(decoded[colon + 1..].to_vec());
    }
    None
}

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

/// The layer around every publish route.
pub(crate) async fn require(State(auth): State<Auth>, request: Request, next: Next) -> Response {
    if auth.accepts(request.headers()) {
        return next.run(request).await;
    }
    let message = if request.headers().contains_key(header::AUTHORIZATION) {
        "the publish credential is wrong"
    } else {
        "publishing needs the publish credential: a bearer token, or the password of HTTP \
         Basic auth"
    };
    tracing::warn!(path = %request.uri().path(), "publish refused: {message}");
    let mut response = json_response(
        StatusCode::UNAUTHORIZED,
        &json!({"error_code": 40101, "error": "unauthorized", "message": message}),
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
    response.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn bearer_and_basic_with_any_user() {
        let auth = Auth::new("s3cr:et").unwrap();
        assert!(auth.accepts(&headers("Bearer s3cr:et")));
        assert!(auth.accepts(&headers("bearer  s3cr:et ")));
        let basic = base64::engine::general_purpose::STANDARD.encode("anyone:s3cr:et");
        assert!(auth.accepts(&headers(&format!("Basic {basic}"))));
        let wrong = base64::engine::general_purpose::STANDARD.encode("s3cr:et");
        assert!(!auth.accepts(&headers(&format!("Basic {wrong}"))));
        assert!(!auth.accepts(&headers("Bearer s3cr")));
        assert!(!auth.accepts(&headers("Basic !!!")));
        assert!(!auth.accepts(&headers("s3cr:et")));
        assert!(!auth.accepts(&HeaderMap::new()));
        assert!(matches!(Auth::new(""), Err(Error::NoAuthentication)));
    }
}
