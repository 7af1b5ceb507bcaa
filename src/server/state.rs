//! What every handler shares: the registry, the settings, the cache, and
//! the lookups both APIs make through them (a URN's entry, an id's entry,
//! a name's versions).

use std::sync::Arc;
use std::time::Duration;

use super::cache::{Cache, IdEntry, UrnEntry};
use super::config::Config;
use super::metrics::Metrics;
use crate::registry::Registry;
use crate::store::SchemaId;
use dataschema_core::{Error, Urn};

/// The state of one server: cloned into every handler (a reference
/// count).
#[derive(Clone)]
pub(crate) struct AppState {
    inner: Arc<Shared>,
}

struct Shared {
    registry: Registry,
    namespace: String,
    max_schema_bytes: usize,
    cache: Cache,
    metrics: Arc<Metrics>,
    ready_timeout: Duration,
    /// Held by the readiness check in flight, until its store call returns
    /// (even past the bound): at most one waits on a stuck store.
    readiness: Arc<tokio::sync::Mutex<()>>,
    /// The settings the server was built with (the web console shows them).
    config: Config,
    /// When the state was built: the server's start, for its uptime.
    started: std::time::Instant,
}

impl AppState {
    pub(crate) fn new(registry: Registry, config: &Config) -> AppState {
        AppState {
            inner: Arc::new(Shared {
                registry,
                namespace: config.namespace().to_owned(),
                max_schema_bytes: config.max_schema_bytes(),
                cache: Cache::new(config.cache_bytes()),
                metrics: Arc::new(Metrics::new(config.metrics())),
                ready_timeout: config.ready_timeout(),
                readiness: Arc::new(tokio::sync::Mutex::new(())),
                config: config.clone(),
                started: std::time::Instant::now(),
            }),
        }
    }

    /// The namespace of Confluent subjects.
    pub(crate) fn namespace(&self) -> &str {
        &self.inner.namespace
    }

    /// The largest schema published.
    pub(crate) fn max_schema_bytes(&self) -> usize {
        self.inner.max_schema_bytes
    }

    /// The settings the server was built with.
    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }

    /// How long ago the server was built.
    pub(crate) fn uptime(&self) -> Duration {
        self.inner.started.elapsed()
    }

    /// How many entries and schema bytes the cache of immutable lookups
    /// holds now: (URN entries, id entries, bytes).
    pub(crate) fn cache_size(&self) -> (usize, usize, usize) {
        self.inner.cache.size()
    }

    /// The server's metric handles.
    pub(crate) fn metrics(&self) -> &Arc<Metrics> {
        &self.inner.metrics
    }

    /// Whether the store answers, and its tables are at the expected
    /// layout, within the ready timeout. One check runs at a time: a
    /// check that finds the previous one still waiting on the store waits
    /// for it within the same bound, so a stuck store ties up one blocking
    /// thread, however often it is asked.
    pub(crate) async fn ready(&self) -> Result<(), String> {
        let bound = self.inner.ready_timeout;
        let lock = self.inner.readiness.clone();
        let registry = self.inner.registry.clone();
        let check = async move {
            let held = lock.lock_owned().await;
            tokio::task::spawn_blocking(move || {
                let ready = registry.ready();
                drop(held);
                ready
            })
            .await
        };
        let outcome = match tokio::time::timeout(bound, check).await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(err))) => {
                tracing::warn!(target: "dataschema::server", error = %err.chain(), "not ready");
                Err(format!("the store is not ready: {err}"))
            }
            Ok(Err(_panicked)) => Err("the store's check failed".to_owned()),
            Err(_) => {
                tracing::warn!(target: "dataschema::server", ms = bound.as_millis() as u64, "not ready: the store did not answer in time");
                Err(format!(
                    "the store did not answer within {} ms",
                    bound.as_millis()
                ))
            }
        };
        self.inner
            .metrics
            .ready
            .set(if outcome.is_ok() { 1.0 } else { 0.0 });
        outcome
    }

    /// Runs a registry call on the blocking pool (stores are synchronous).
    /// A panic there is a store failure, not a crash.
    pub(crate) async fn blocking<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Registry) -> Result<T, Error> + Send + 'static,
    {
        let registry = self.inner.registry.clone();
        tokio::task::spawn_blocking(move || f(&registry))
            .await
            .unwrap_or_else(|join| {
                Err(Error::Store {
                    source: Box::new(join),
                })
            })
    }

    /// The entry of `urn` (its schema, id and answers), from the cache or
    /// the store.
    pub(crate) async fn urn_entry(&self, urn: Urn) -> Result<Arc<UrnEntry>, Error> {
        if let Some(hit) = self.inner.cache.by_urn(urn.as_ref()) {
            self.inner.metrics.urn_hit.increment(1);
            return Ok(hit);
        }
        self.inner.metrics.urn_miss.increment(1);
        let namespace = self.inner.namespace.clone();
        let (schema, id, view) = self
            .blocking(move |registry| {
                let schema = registry.resolve(&urn)?;
                let id = registry.id_of(&urn)?;
                let view = proto_view(registry, &namespace, &schema);
                Ok((schema, id, view))
            })
            .await?;
        Ok(self.inner.cache.insert_urn(&schema, id, view.as_ref()))
    }

    /// The entry of the URN a request spells as `key`. A URN spelled
    /// canonically is looked up as it came, without parsing (a canonical
    /// string parses to itself); any other spelling is parsed into its
    /// canonical form first ([`Error::InvalidUrn`] if it is none).
    pub(crate) async fn urn_entry_of(&self, key: &str) -> Result<Arc<UrnEntry>, Error> {
        match self.inner.cache.by_urn(key) {
            Some(hit) => {
                self.inner.metrics.urn_hit.increment(1);
                Ok(hit)
            }
            None => self.urn_entry(key.parse()?).await,
        }
    }

    /// The entry of `id` (its schema's Confluent answers), from the cache
    /// or the store.
    pub(crate) async fn id_entry(&self, id: SchemaId) -> Result<Arc<IdEntry>, Error> {
        if let Some(entry) = self.inner.cache.by_id(id) {
            self.inner.metrics.id_hit.increment(1);
            return Ok(entry);
        }
        self.inner.metrics.id_miss.increment(1);
        let namespace = self.inner.namespace.clone();
        let (schema, view) = self
            .blocking(move |registry| {
                let schema = registry.schema_by_id(id)?;
                let view = proto_view(registry, &namespace, &schema);
                Ok((schema, view))
            })
            .await?;
        Ok(self.inner.cache.insert_id(id, &schema, view.as_ref()))
    }

    /// Every URN `id` is held under (none for an id no schema has), in the
    /// store's order.
    pub(crate) async fn urns_of_id(&self, id: SchemaId) -> Result<Vec<Urn>, Error> {
        self.blocking(move |registry| registry.urns_of_id(id)).await
    }

    /// The versions of `name` in `namespace`, ascending (empty for none).
    pub(crate) async fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        let namespace = namespace.to_owned();
        let name = name.to_owned();
        self.blocking(move |registry| registry.versions_in(&namespace, &name))
            .await
    }
}

/// What Confluent's answers show of `schema` when it is a protobuf schema:
/// its `.proto` text. For one registered as Confluent's clients register
/// it (no root), the text registered, or printed from the descriptor
/// registered; for a descriptor set with a root (published natively, as
/// `dataschema publish` sends a `.proto` folder), the root's file printed.
/// Its references are the version's own ([`Schema::references`], written
/// by `wire::confluent::contract_members`; `dataschema publish` records
/// the root file's imports so). `None` for any other schema, and for a
/// descriptor set that does not decode. Runs on the blocking pool:
/// printing compiles or decodes the schema, its references resolved
/// through `registry`.
///
/// [`Schema::references`]: dataschema_core::Schema::references
pub(crate) fn proto_view(
    registry: &Registry,
    namespace: &str,
    schema: &dataschema_core::Schema,
) -> Option<super::wire::confluent::ProtoView> {
    #[cfg(feature = "proto-text")]
    {
        let _ = namespace;
        if schema.language() != dataschema_core::Language::Protobuf {
            return None;
        }
        // A schema that no longer compiles (a reference lost) still
        // answers what was registered; a descriptor set that does not
        // decode, in base64 (`schema_string`).
        let text = match dataschema_core::proto::text(schema, registry) {
            Ok(text) => text,
            Err(_) if !dataschema_core::proto::looks_like_source(schema.bytes()) => return None,
            Err(_) => String::from_utf8_lossy(schema.bytes()).into_owned(),
        };
        Some(super::wire::confluent::ProtoView { text })
    }
    #[cfg(not(feature = "proto-text"))]
    {
        let _ = (registry, namespace, schema);
        None
    }
}
