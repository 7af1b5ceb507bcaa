//! [`HttpResolverBuilder`]: the resolver's settings, checked at `build`.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use dataschema_core::{Error, Urn};

use super::fetch::Fetcher;
use super::flight::Shared;
use super::policy::{Limits, Pins, Policy};
use super::{
    Api, HttpResolver, DEFAULT_BUDGET, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_CACHED_BYTES,
    DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_MISSES, DEFAULT_MISS_DELAY, DEFAULT_RETRY_AFTER,
    DEFAULT_TIMEOUT,
};
use crate::protocol::{BaseUrl, BaseUrlError, Client, Credentials};

/// Configures an [`HttpResolver`]: see [`HttpResolver::builder`].
pub struct HttpResolverBuilder {
    base: Result<BaseUrl, BaseUrlError>,
    api: Api,
    connect_timeout: Duration,
    timeout: Duration,
    blocking_wait: Option<Duration>,
    credentials: Option<Credentials>,
    limits: Limits,
    pins: HashMap<Urn, String>,
    id_pins: HashMap<Urn, u32>,
    register: Option<Credentials>,
}

impl fmt::Debug for HttpResolverBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = match &self.base {
            Ok(base) => base.as_str(),
            Err(err) => err.url(),
        };
        f.debug_struct("HttpResolverBuilder")
            .field("base", &base)
            .field("api", &self.api)
            .field("timeout", &self.timeout)
            .field("credentials", &self.credentials)
            .field("auto_register", &self.register.is_some())
            .finish_non_exhaustive()
    }
}

impl HttpResolverBuilder {
    pub(super) fn new(base_url: &str) -> HttpResolverBuilder {
        HttpResolverBuilder {
            base: BaseUrl::parse(base_url),
            api: Api::Native,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            blocking_wait: None,
            credentials: None,
            limits: Limits {
                budget: DEFAULT_BUDGET,
                max_in_flight: DEFAULT_MAX_IN_FLIGHT,
                max_misses: DEFAULT_MAX_MISSES,
                miss_delay: DEFAULT_MISS_DELAY,
                retry_after: DEFAULT_RETRY_AFTER,
                max_cached_bytes: DEFAULT_MAX_CACHED_BYTES,
            },
            pins: HashMap::new(),
            id_pins: HashMap::new(),
            register: None,
        }
    }

    /// Which API to speak (default [`Api::Native`]).
    pub fn api(mut self, api: Api) -> Self {
        self.api = api;
        self
    }

    /// The connect timeout (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The total timeout of a request, body included (default
    /// [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long [`Resolver::resolve`](dataschema_core::Resolver::resolve)
    /// waits for a fetch (default: the total timeout). `Duration::ZERO`
    /// never waits: a miss starts the fetch in the background and answers
    /// [`Error::Unreachable`] at once, the way to use a guard inside an
    /// async executor.
    pub fn blocking_wait(mut self, wait: Duration) -> Self {
        self.blocking_wait = Some(wait);
        self
    }

    /// Sends `Authorization: Bearer <token>` (never printed).
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.credentials = Some(Credentials::Bearer(token.into()));
        self
    }

    /// Sends HTTP basic authentication (never printed).
    pub fn basic(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.credentials = Some(Credentials::Basic {
            user: user.into(),
            password: password.into(),
        });
        self
    }

    /// Requests started per second at most (default [`DEFAULT_BUDGET`],
    /// at least 1).
    pub fn budget(mut self, per_second: u32) -> Self {
        self.limits.budget = per_second.max(1);
        self
    }

    /// Requests in flight at most (default [`DEFAULT_MAX_IN_FLIGHT`], at
    /// least 1).
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.limits.max_in_flight = requests.max(1);
        self
    }

    /// Misses (and, separately, transient failures) remembered at most
    /// (default [`DEFAULT_MAX_MISSES`], at least 1).
    pub fn max_misses(mut self, entries: usize) -> Self {
        self.limits.max_misses = entries.max(1);
        self
    }

    /// How long a `404` is first remembered (default
    /// [`DEFAULT_MISS_DELAY`]; doubles up to [`MAX_MISS_DELAY`](super::MAX_MISS_DELAY)).
    pub fn miss_delay(mut self, delay: Duration) -> Self {
        self.limits.miss_delay = delay;
        self
    }

    /// How long a URN that failed transiently is first left alone
    /// (default [`DEFAULT_RETRY_AFTER`]; doubles up to
    /// [`MAX_RETRY_AFTER`](super::MAX_RETRY_AFTER)).
    pub fn retry_after(mut self, delay: Duration) -> Self {
        self.limits.retry_after = delay;
        self
    }

    /// The bytes of fetched schemas kept at most (default
    /// [`DEFAULT_MAX_CACHED_BYTES`], 64 MiB): past it, the least recently
    /// used schema is forgotten (and fetched again when next asked for),
    /// and a schema larger than the bound is used but not kept. Each
    /// schema counts its bytes plus its URN and a fixed overhead. Schemas
    /// of URNs pinned with [`expect`](Self::expect) or
    /// [`expect_id`](Self::expect_id) are kept outside the bound: the lock
    /// fixes how many there are, and a stream of other URNs must not turn
    /// each of the lock's lookups back into a request. `0` keeps nothing
    /// but pinned schemas.
    pub fn max_cached_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_cached_bytes = bytes;
        self
    }

    /// Pins the digest (`sha256:<hex>`) a lock recorded for `urn`: an
    /// answer with other bytes is refused as [`Error::Unreachable`].
    pub fn expect(mut self, urn: Urn, digest: impl Into<String>) -> Self {
        self.pins.insert(urn, digest.into());
        self
    }

    /// Pins the registry id a lock's `[ids]` recorded for `urn`: an answer
    /// for `urn` with another id (or none) is refused as
    /// [`Error::Unreachable`], and a lookup of `id` asks for `urn` (by its
    /// URN, then checks the id), so the registry cannot hand another
    /// schema for an id the lock knows.
    pub fn expect_id(mut self, urn: Urn, id: u32) -> Self {
        self.id_pins.insert(urn, id);
        self
    }

    /// Auto-registration (Confluent's `auto.register.schemas`), off by
    /// default: when a [`Framer`](crate::Framer) asks for the id of a
    /// schema the registry does not hold
    /// ([`HttpResolver::id_of_schema`]), it is registered there with
    /// `token` (the registry's publishing token, sent as a bearer only
    /// with the registration): natively `PUT /publish/schemas/{urn}`,
    /// through Confluent's API `POST /subjects/{subject}/versions`.
    /// Nothing else this resolver does writes: a guard's lookups never
    /// register.
    pub fn auto_register(mut self, token: impl Into<String>) -> Self {
        self.register = Some(Credentials::Bearer(token.into()));
        self
    }

    /// The resolver. Only `http://` and `https://` base URLs with a host
    /// and without a credential, query or fragment are accepted (see
    /// [`BaseUrl`] for why a `user:password@` is refused: give it with
    /// [`basic`](Self::basic)).
    pub fn build(self) -> Result<HttpResolver, Error> {
        let base = self.base.map_err(|err| Error::Other(Box::new(err)))?;
        if let Api::Confluent { namespace } = &self.api {
            // The namespace must be one a URN can have.
            format!("urn:{namespace}:schema:probe:1").parse::<Urn>()?;
        }
        let register = self.register.as_ref().map(|credentials| {
            Client::new(
                base.clone(),
                self.connect_timeout,
                self.timeout,
                Some(credentials),
            )
        });
        let client = Client::new(
            base,
            self.connect_timeout,
            self.timeout,
            self.credentials.as_ref(),
        );
        let pins = Pins::new(self.pins, self.id_pins);
        let policy = Policy::new(&self.limits, pins.urns(), Instant::now());
        Ok(HttpResolver {
            shared: Arc::new(Shared {
                fetcher: Fetcher {
                    client,
                    api: self.api,
                    pins,
                    register,
                },
                blocking_wait: self.blocking_wait.unwrap_or(self.timeout),
                policy: Mutex::new(policy),
                landed: Condvar::new(),
            }),
        })
    }
}
