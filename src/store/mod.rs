//! Where schemas are kept: the [`Store`] trait and its implementations.
//!
//! A store enforces immutability itself, atomically: `put` of a URN that is
//! already held succeeds only when the schema is the same (language, bytes
//! and root), so two publishers racing with different bytes see exactly one
//! win. Nothing is ever deleted or overwritten.

mod memory;

pub use memory::MemoryStore;

use dataschema_core::{Error, Schema, Urn};

/// A place that keeps schemas under immutable URNs, every version forever.
///
/// Implementations must be safe to share across threads, and must hand out
/// copies: a `Schema` returned by `get` never aliases the store's own buffer.
pub trait Store: Send + Sync {
    /// The schema held under `urn`, or `None`.
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error>;

    /// Keeps `schema` under its URN. Putting the same schema again succeeds;
    /// a different schema under a URN already held is [`Error::Immutable`].
    fn put(&self, schema: &Schema) -> Result<(), Error>;

    /// The versions held for `name` in `namespace` (compared as URNs
    /// compare it: case-insensitively), ascending; empty for an unknown
    /// name. Prior versions are per namespace: `urn:a:schema:x:1` is no
    /// prior of `urn:b:schema:x:2`.
    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error>;

    /// Every URN held, ordered by namespace, name, then version.
    fn list(&self) -> Result<Vec<Urn>, Error>;
}

impl<S: Store + ?Sized> Store for std::sync::Arc<S> {
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
        (**self).get(urn)
    }
    fn put(&self, schema: &Schema) -> Result<(), Error> {
        (**self).put(schema)
    }
    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        (**self).versions(namespace, name)
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        (**self).list()
    }
}

impl<S: Store + ?Sized> Store for Box<S> {
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
        (**self).get(urn)
    }
    fn put(&self, schema: &Schema) -> Result<(), Error> {
        (**self).put(schema)
    }
    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        (**self).versions(namespace, name)
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        (**self).list()
    }
}
