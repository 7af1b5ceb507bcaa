//! Where schemas are kept: the [`Store`] trait and its implementations.
//!
//! A store enforces immutability itself, atomically: publishing a URN that
//! is already held succeeds only when the schema is the same (language,
//! bytes and root), so two publishers racing with different bytes see
//! exactly one win. The compatibility check and the insert it allows run
//! under one lock the store holds for the name (a database lock for the
//! persistent stores, so replicas over one database cannot race either).
//! Nothing is ever deleted or overwritten.
//!
//! Every distinct schema content (language, bytes and root) gets a small
//! positive integer id, assigned once by the store and shared by every URN
//! that holds the same content, as Confluent Schema Registry does.

mod memory;

pub use memory::MemoryStore;

use dataschema_core::__private::sha256_hex;
use dataschema_core::{Compatibility, Error, Schema, Urn};

/// A schema id: a small positive integer (at most `i32::MAX`, as in
/// Confluent's wire format), assigned once by the store to a schema
/// content and stable forever.
pub type SchemaId = u32;

/// Which version a publish stores its schema under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Version {
    /// The version of the schema's URN.
    Exact,
    /// The next version of the name (one above the highest held in the
    /// namespace, or 1), chosen under the store's lock; the version of the
    /// schema's URN is ignored. When a version of the name already holds
    /// the same content, that version is returned instead (Confluent's
    /// register is idempotent the same way).
    Next,
}

/// What a publish stored (or found already stored).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stored {
    /// The URN the schema is held under.
    pub urn: Urn,
    /// The id of its content.
    pub id: SchemaId,
    /// `false` when the same schema was already held.
    pub created: bool,
}

impl Stored {
    /// A `Stored` (for implementors of [`Store`]).
    pub fn new(urn: Urn, id: SchemaId, created: bool) -> Stored {
        Stored { urn, id, created }
    }
}

/// The check a publish runs under the store's lock: given every version of
/// the name held in the namespace (ascending), `Ok` lets the insert go on.
pub type Check<'a> = &'a (dyn Fn(&Schema, &[Schema]) -> Result<(), Error> + Sync);

/// A place that keeps schemas under immutable URNs, every version forever.
///
/// Implementations must be safe to share across threads. Their errors are
/// [`Error::Store`] with the backend's error as the source, never a panic,
/// and never [`Error::NotFound`] for a failure.
pub trait Store: Send + Sync {
    /// The schema held under `urn`, or `None`.
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error>;

    /// Keeps `schema`, atomically:
    ///
    /// 1. under a lock on the schema's namespace and name (held until the
    ///    insert is durable), find the URN it goes under (`version`);
    /// 2. if that URN is held: the same schema returns its [`Stored`] with
    ///    `created == false`, without running `check`; a different one is
    ///    [`Error::Immutable`];
    /// 3. else run `check(schema, held)` with the schema under its final
    ///    URN and every version of the name held in the namespace
    ///    (ascending); an error is returned and nothing is stored;
    /// 4. else store it, with its content's id (a new id for a content not
    ///    held under any URN, the existing one otherwise).
    ///
    /// A publish that returned `Ok` is durable; one that failed or was
    /// interrupted stored nothing.
    fn publish(&self, schema: &Schema, version: Version, check: Check<'_>)
        -> Result<Stored, Error>;

    /// Keeps `schema` under its URN with no check (see
    /// [`publish`](Store::publish)).
    fn put(&self, schema: &Schema) -> Result<(), Error> {
        self.publish(schema, Version::Exact, &|_, _| Ok(()))
            .map(drop)
    }

    /// The versions held for `name` in `namespace` (compared as URNs
    /// compare it: case-insensitively), ascending; empty for an unknown
    /// name. Prior versions are per namespace: `urn:a:schema:x:1` is no
    /// prior of `urn:b:schema:x:2`.
    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error>;

    /// Every URN held, ordered by namespace, name, then version.
    fn list(&self) -> Result<Vec<Urn>, Error>;

    /// The id of the content held under `urn`, or `None`.
    fn id_of(&self, urn: &Urn) -> Result<Option<SchemaId>, Error>;

    /// Every URN holding the content `id` names, ordered as
    /// [`list`](Store::list); empty for an unknown id.
    fn urns_of(&self, id: SchemaId) -> Result<Vec<Urn>, Error>;

    /// The schema of content `id`, under the first URN holding it (see
    /// [`urns_of`](Store::urns_of)), or `None`.
    fn by_id(&self, id: SchemaId) -> Result<Option<Schema>, Error> {
        match self.urns_of(id)?.first() {
            Some(urn) => self.get(urn),
            None => Ok(None),
        }
    }

    /// The compatibility mode set for `name` (or, for `None`, the
    /// store-wide default), if one was set.
    fn compatibility(&self, name: Option<&str>) -> Result<Option<Compatibility>, Error>;

    /// Sets (or, with `None`, clears) the mode for `name` (or, for `None`,
    /// the store-wide default).
    fn set_compatibility(
        &self,
        name: Option<&str>,
        mode: Option<Compatibility>,
    ) -> Result<(), Error>;
}

/// The digest that identifies a schema's content for its id: `sha256:` of
/// the language, the root and the bytes, each length-prefixed. Stores keep
/// it under a unique constraint, so one content gets one id.
pub fn content_digest(schema: &Schema) -> String {
    let language = schema.language().to_string();
    let root = schema.root().unwrap_or("");
    let mut input = Vec::with_capacity(24 + language.len() + root.len() + schema.bytes().len());
    for part in [language.as_bytes(), root.as_bytes(), schema.bytes()] {
        input.extend_from_slice(&(part.len() as u64).to_be_bytes());
        input.extend_from_slice(part);
    }
    sha256_hex(&input)
}

macro_rules! forward_store {
    ($($ty:ty),*) => {$(
        impl<S: Store + ?Sized> Store for $ty {
            fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
                (**self).get(urn)
            }
            fn publish(
                &self,
                schema: &Schema,
                version: Version,
                check: Check<'_>,
            ) -> Result<Stored, Error> {
                (**self).publish(schema, version, check)
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
            fn id_of(&self, urn: &Urn) -> Result<Option<SchemaId>, Error> {
                (**self).id_of(urn)
            }
            fn urns_of(&self, id: SchemaId) -> Result<Vec<Urn>, Error> {
                (**self).urns_of(id)
            }
            fn by_id(&self, id: SchemaId) -> Result<Option<Schema>, Error> {
                (**self).by_id(id)
            }
            fn compatibility(&self, name: Option<&str>) -> Result<Option<Compatibility>, Error> {
                (**self).compatibility(name)
            }
            fn set_compatibility(
                &self,
                name: Option<&str>,
                mode: Option<Compatibility>,
            ) -> Result<(), Error> {
                (**self).set_compatibility(name, mode)
            }
        }
    )*};
}

forward_store!(std::sync::Arc<S>, Box<S>);
