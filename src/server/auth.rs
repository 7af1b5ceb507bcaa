//! The publish credential.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine as _;
use subtle::ConstantTimeEq;

use super::wire;
use dataschema_core::sha256_hex;

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
    /// [`CredentialError::Empty`].
    pub fn new(credential: impl AsRef<[u8]>) -> Result<Auth, CredentialError> {
        let credential = credential.as_ref();
        if credential.is_empty() {
            return Err(CredentialError::Empty);
        }
        Ok(Auth {
            digest: sha256_hex(credential).into(),
        })
    }

    /// The credential held in a file: its content without the ASCII white
    /// space (spaces, tabs, line breaks) that begins or ends it, the same
    /// for a bearer token and for Basic auth's password, as `dataschema
    /// publish --token-file` reads it. Read bounded: a file over
    /// [`MAX_CREDENTIAL_FILE_BYTES`] (a `/dev/zero`, a log given by
    /// mistake) is [`CredentialError::TooLarge`], not read until memory
    /// runs out. An empty file is [`CredentialError::Empty`]; one that
    /// cannot be read is [`CredentialError::Unreadable`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Auth, CredentialError> {
        use std::io::Read as _;
        let mut bytes = Vec::new();
        std::fs::File::open(path.as_ref())
            .and_then(|file| {
                file.take(MAX_CREDENTIAL_FILE_BYTES + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(CredentialError::Unreadable)?;
        if bytes.len() as u64 > MAX_CREDENTIAL_FILE_BYTES {
            return Err(CredentialError::TooLarge);
        }
        Auth::new(trim(&bytes))
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

/// Why a credential cannot be had.
#[derive(Debug)]
#[non_exhaustive]
pub enum CredentialError {
    /// The credential is empty (or, in a file, only white space): it would
    /// let anyone publish.
    Empty,
    /// The credential's file cannot be read: the I/O error.
    Unreadable(std::io::Error),
    /// The credential's file is over [`MAX_CREDENTIAL_FILE_BYTES`]: not a
    /// token file.
    TooLarge,
}

/// The largest credential file [`Auth::from_file`] reads (16 KiB).
pub const MAX_CREDENTIAL_FILE_BYTES: u64 = 16 * 1024;

impl std::fmt::Display for CredentialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CredentialError::Empty => {
                f.write_str("the publish credential is empty: publishing needs a non-empty token")
            }
            CredentialError::Unreadable(err) => err.fmt(f),
            CredentialError::TooLarge => write!(
                f,
                "over {MAX_CREDENTIAL_FILE_BYTES} bytes: not a token file"
            ),
        }
    }
}

impl std::error::Error for CredentialError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CredentialError::Empty | CredentialError::TooLarge => None,
            // Shown by `Display` already, as `Error::Other` showed it.
            CredentialError::Unreadable(err) => err.source(),
        }
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
    wire::unauthorized(message)
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
        assert!(matches!(Auth::new(""), Err(CredentialError::Empty)));
    }
}
