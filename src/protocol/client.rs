//! The client side of the native API (feature `http`): the registry URL's
//! check, the credentials, and the one configuration of the HTTP agent.

use std::fmt;
use std::time::Duration;

use dataschema_core::BoxError;

/// A registry's base URL, checked: `http` or `https`, a host, no
/// credential, no query, no fragment; without its trailing `/`.
///
/// **The policy on credentials**: a URL holding `user:password@` (or
/// `user@`) is refused, before anything else is looked at. The HTTP client
/// would send it as basic authentication, in the clear on `http`, and a URL
/// is shown wherever it goes (a command line, `ps`, a log line, an error
/// message, a `Debug` print). Credentials are given on their own instead
/// ([`Credentials`]: `HttpResolverBuilder::bearer` or `::basic`,
/// `dataschema publish --token-file`), sent in `Authorization` and never
/// printed. An error about a URL never repeats its credential.
#[derive(Clone, PartialEq, Eq)]
pub struct BaseUrl(String);

impl BaseUrl {
    /// Checks `url` (see the [type docs](BaseUrl)).
    pub fn parse(url: &str) -> Result<BaseUrl, BaseUrlError> {
        let base = url.trim_end_matches('/');
        // Looked for first, in the text itself: every other message
        // repeats the URL, and the part before `@` is a credential.
        if authority_credential(base).is_some() {
            return Err(BaseUrlError {
                shown: without_credential(base),
                problem: BaseUrlProblem::Credential,
            });
        }
        let refuse = |problem| BaseUrlError {
            shown: dataschema_core::clip(base, 100),
            problem,
        };
        let uri: ureq::http::Uri = base.parse().map_err(|err: ureq::http::uri::InvalidUri| {
            refuse(BaseUrlProblem::Unparsable(err.to_string()))
        })?;
        match uri.scheme_str() {
            Some("http") | Some("https") => {}
            _ => return Err(refuse(BaseUrlProblem::Scheme)),
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(refuse(BaseUrlProblem::NoHost));
        }
        if uri.query().is_some() || base.contains('#') {
            return Err(refuse(BaseUrlProblem::QueryOrFragment));
        }
        Ok(BaseUrl(base.to_owned()))
    }

    /// The URL, without its trailing `/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The URL of `path` (which starts with `/`) at this registry.
    pub fn join(&self, path: &str) -> String {
        format!("{}{path}", self.0)
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// The `user:password` (or `user`) of `url`'s authority, if any.
fn authority_credential(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    authority.rfind('@').map(|at| &authority[..at])
}

/// `url` as it may be shown: a `user:password@` in its authority replaced
/// by `***@`, clipped to 100 characters.
fn without_credential(url: &str) -> String {
    let shown = match authority_credential(url) {
        Some(credential) => {
            let start = credential.as_ptr() as usize - url.as_ptr() as usize;
            format!("{}***{}", &url[..start], &url[start + credential.len()..])
        }
        None => url.to_owned(),
    };
    dataschema_core::clip(&shown, 100)
}

/// A registry URL [`BaseUrl::parse`] refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrlError {
    shown: String,
    problem: BaseUrlProblem,
}

impl BaseUrlError {
    /// The URL as it may be shown: clipped, its credential (if any)
    /// replaced by `***`.
    pub fn url(&self) -> &str {
        &self.shown
    }

    /// What is wrong with it.
    pub fn problem(&self) -> &BaseUrlProblem {
        &self.problem
    }
}

impl fmt::Display for BaseUrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "registry URL {:?} refused: {}", self.shown, self.problem)
    }
}

impl std::error::Error for BaseUrlError {}

/// What is wrong with a registry URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BaseUrlProblem {
    /// It holds a credential (`user:password@`): see [`BaseUrl`] for why
    /// that is refused.
    Credential,
    /// It is not a URL (the parser's reason).
    Unparsable(String),
    /// Its scheme is not `http` or `https`.
    Scheme,
    /// It names no host.
    NoHost,
    /// It has a query or a fragment.
    QueryOrFragment,
}

impl fmt::Display for BaseUrlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaseUrlProblem::Credential => f.write_str(
                "the URL holds a credential (user:password@), which would be sent in \
                 the clear and shown wherever the URL is: give it separately (a bearer \
                 token or basic credentials of the client, `--token-file`)",
            ),
            BaseUrlProblem::Unparsable(why) => f.write_str(why),
            BaseUrlProblem::Scheme => f.write_str("expected an http:// or https:// URL"),
            BaseUrlProblem::NoHost => f.write_str("no host"),
            BaseUrlProblem::QueryOrFragment => {
                f.write_str("a registry URL has no query or fragment")
            }
        }
    }
}

/// Credentials sent in `Authorization` with each request. `Debug`
/// redacts them.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credentials {
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// HTTP basic authentication.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
}

impl Credentials {
    /// The `Authorization` header's value.
    pub fn header(&self) -> String {
        match self {
            Credentials::Bearer(token) => format!("Bearer {token}"),
            Credentials::Basic { user, password } => {
                format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))
            }
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Credentials::Bearer(_) => "Bearer(<redacted>)",
            Credentials::Basic { .. } => "Basic(<redacted>)",
        })
    }
}

/// Standard base64 with padding (RFC 4648), for basic authentication.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The HTTP transport of the native API's clients (`HttpResolver`,
/// `dataschema publish`): one registry, its credentials, and an agent
/// configured one way: a connect timeout and a total timeout (body
/// included), no proxy from the environment, no redirect followed
/// (requests go to the configured registry only), every status answered
/// as a status (not an error), every body read under a limit.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    base: BaseUrl,
    authorization: Option<String>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field(
                "credentials",
                &self.authorization.as_ref().map(|_| "<redacted>"),
            )
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client of the registry at `base`: `connect` bounds the
    /// connection, `total` the whole request, body included.
    pub fn new(
        base: BaseUrl,
        connect: Duration,
        total: Duration,
        credentials: Option<&Credentials>,
    ) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(connect))
            .timeout_global(Some(total))
            .max_redirects(0)
            .proxy(None)
            .build()
            .into();
        Client {
            agent,
            base,
            authorization: credentials.map(Credentials::header),
        }
    }

    /// The registry's URL.
    pub fn base(&self) -> &BaseUrl {
        &self.base
    }

    /// Whether credentials are sent.
    pub fn has_credentials(&self) -> bool {
        self.authorization.is_some()
    }

    /// `GET path` with `Accept: accept`; a body over `limit` bytes is an
    /// error.
    pub fn get(&self, path: &str, accept: &str, limit: u64) -> Result<Answer, TransportError> {
        let mut request = self
            .agent
            .get(self.base.join(path))
            .header("Accept", accept);
        if let Some(authorization) = &self.authorization {
            request = request.header("Authorization", authorization);
        }
        read(request.call(), limit)
    }

    /// `PUT path` with `headers` and `body`; an answer's body over `limit`
    /// bytes is an error.
    pub fn put(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
        limit: u64,
    ) -> Result<Answer, TransportError> {
        let mut request = self.agent.put(self.base.join(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(authorization) = &self.authorization {
            request = request.header("Authorization", authorization);
        }
        read(request.send(body), limit)
    }

    /// `POST path` with `headers` and `body`; an answer's body over
    /// `limit` bytes is an error.
    pub fn post(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
        limit: u64,
    ) -> Result<Answer, TransportError> {
        let mut request = self.agent.post(self.base.join(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(authorization) = &self.authorization {
            request = request.header("Authorization", authorization);
        }
        read(request.send(body), limit)
    }

    /// `DELETE path`; an answer's body over `limit` bytes is an error.
    pub fn delete(&self, path: &str, limit: u64) -> Result<Answer, TransportError> {
        let mut request = self.agent.delete(self.base.join(path));
        if let Some(authorization) = &self.authorization {
            request = request.header("Authorization", authorization);
        }
        read(request.call(), limit)
    }
}

fn read(
    sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    limit: u64,
) -> Result<Answer, TransportError> {
    let mut response = sent.map_err(|err| TransportError::Send(err.into()))?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(limit)
        .read_to_vec()
        .map_err(|err| TransportError::Read(err.into()))?;
    Ok(Answer {
        status,
        headers: std::mem::take(response.headers_mut()),
        body,
    })
}

/// An answer, read whole: status, headers, body.
#[derive(Debug)]
pub struct Answer {
    status: u16,
    headers: ureq::http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// A header's value, when present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The body.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// Reads it as a schema read's answer (see
    /// [`SchemaAnswer::parse`](super::SchemaAnswer::parse)). The body is
    /// moved, its spare capacity given back first: a kept schema holds no
    /// more memory than its bytes.
    pub fn into_schema(self) -> Result<super::SchemaAnswer, super::AnswerError> {
        let Answer { headers, body, .. } = self;
        let mut body = body;
        body.shrink_to_fit();
        super::SchemaAnswer::parse(
            |name| headers.get(name).and_then(|value| value.to_str().ok()),
            body,
        )
    }
}

/// A request that got no answer to read.
#[derive(Debug)]
#[non_exhaustive]
pub enum TransportError {
    /// It could not be sent, or no HTTP answer came (refused, timed out,
    /// not HTTP).
    Send(BoxError),
    /// The answer's body could not be read whole (cut, too slow, over the
    /// limit).
    Read(BoxError),
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Send(err) => write!(f, "{err}"),
            TransportError::Read(err) => write!(f, "reading the body: {err}"),
        }
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TransportError::Send(err) | TransportError::Read(err) => Some(err.as_ref()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (input, output) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), output);
        }
        assert_eq!(
            Credentials::Basic {
                user: "Aladdin".into(),
                password: "open sesame".into()
            }
            .header(),
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
    }

    #[test]
    fn only_http_and_https_with_a_host_and_nothing_after() {
        for (url, problem) in [
            ("ftp://x", BaseUrlProblem::Scheme),
            ("x", BaseUrlProblem::Scheme),
            // Without its trailing slashes, `http:`.
            ("http://", BaseUrlProblem::Scheme),
            ("http://h/?q=1", BaseUrlProblem::QueryOrFragment),
            ("http://h/#f", BaseUrlProblem::QueryOrFragment),
        ] {
            assert_eq!(
                BaseUrl::parse(url).unwrap_err().problem(),
                &problem,
                "{url}"
            );
        }
        for url in ["file:///etc/passwd", "http://bad host", "http://[::1"] {
            let err = BaseUrl::parse(url).unwrap_err();
            assert!(
                matches!(err.problem(), BaseUrlProblem::Unparsable(_)),
                "{url}: {err}"
            );
        }
        let base = BaseUrl::parse("https://registry.example.invalid/api/").unwrap();
        assert_eq!(base.as_str(), "https://registry.example.invalid/api");
        assert_eq!(
            base.join("/schemas/x"),
            "https://registry.example.invalid/api/schemas/x"
        );
        // An `@` past the authority is no credential.
        assert!(BaseUrl::parse("http://h/a@b").is_ok());
    }

    #[test]
    fn a_credential_is_refused_first_and_never_repeated() {
        for url in [
            "http://u:s3cret@127.0.0.1:1",
            "https://s3cret@h/",
            "ftp://u:s3cret@x",
            "http://u:s3cret@bad host",
            "http://u:s3cret@[::1",
            "http://u:s3cret@h/?q=1",
        ] {
            let err = BaseUrl::parse(url).unwrap_err();
            assert_eq!(err.problem(), &BaseUrlProblem::Credential, "{url}");
            let shown = err.to_string();
            assert!(!shown.contains("s3cret"), "{shown}");
            assert!(shown.contains("***@"), "{shown}");
        }
    }

    #[test]
    fn debug_redacts_credentials() {
        let shown = format!("{:?}", Credentials::Bearer("t0ken".into()));
        assert!(!shown.contains("t0ken"), "{shown}");
        let client = Client::new(
            BaseUrl::parse("http://127.0.0.1:1").unwrap(),
            Duration::from_millis(10),
            Duration::from_millis(10),
            Some(&Credentials::Basic {
                user: "u".into(),
                password: "s3cret".into(),
            }),
        );
        let shown = format!("{client:?}");
        assert!(
            !shown.contains("s3cret") && shown.contains("127.0.0.1:1"),
            "{shown}"
        );
    }
}
