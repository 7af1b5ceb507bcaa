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

mod association;
mod memory;
mod mode;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;

pub use association::{
    Association, AssociationChange, AssociationKey, AssociationPlan, AssociationsHeld,
    AssociationsOf, Lifecycle,
};
pub use memory::MemoryStore;
pub use mode::Mode;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use dataschema_core::sha256_hex;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use dataschema_core::BoxError;
use dataschema_core::{Compatibility, Error, Schema, Urn};

/// A schema id: a small positive integer (at most `i32::MAX`, as in
/// Confluent's wire format), assigned once by the store to a schema
/// content and stable forever.
pub type SchemaId = u32;

/// The largest schema id, `2^31-1`: Confluent's ids are Java `int`s, and
/// its wire format carries them as 4 signed bytes.
pub const MAX_ID: SchemaId = i32::MAX as u32;

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

    /// Whether the store answers and its tables are at the layout this
    /// version of dataschema reads: `Ok` when it is ready to serve, else
    /// the reason ([`Error::Store`]). A server's `/readyz` asks it, under
    /// a time bound of its own. By default, one read of the default mode;
    /// [`SqliteStore`] and [`PostgresStore`] check their layout version.
    fn ready(&self) -> Result<(), Error> {
        self.compatibility(None).map(drop)
    }

    // Confluent's registry modes, imported ids and soft deletes (kept
    // apart from the methods above).

    /// The registry [`Mode`] set for `name` (or, for `None`, the
    /// store-wide one), if one was set.
    ///
    /// The default implementation keeps none: `None`.
    fn mode(&self, name: Option<&str>) -> Result<Option<Mode>, Error> {
        let _ = name;
        Ok(None)
    }

    /// Sets (or, with `None`, clears) the registry [`Mode`] of `name` (or,
    /// for `None`, the store-wide one). Kept as durably as a publish.
    ///
    /// The default implementation refuses ([`Error::Store`]).
    fn set_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        let _ = (name, mode);
        Err(unsupported("keeping registry modes"))
    }

    /// [`publish`](Store::publish), with the content's id given (a schema
    /// imported from another registry with the id its messages carry):
    ///
    /// * the URN held already with the same schema and this id answers its
    ///   [`Stored`] (`created == false`); with another id, it is
    ///   [`Error::IdConflict`] (a version carries one id);
    /// * `id` held by another content is [`Error::IdConflict`]: an id never
    ///   moves to other bytes;
    /// * else the schema is stored with id `id`, also when its content is
    ///   held under another id already (an imported registry may hold one
    ///   content under two ids, as Confluent's does after imports into
    ///   contexts): each id, and each URN, resolves to the same bytes,
    ///   and the store's own allocation never hands `id` (nor any id
    ///   below the largest imported) out later. The store's own ids keep
    ///   one content, one id.
    ///
    /// With [`Version::Next`], a version (not soft-deleted) of the name
    /// holding the same content under `id` answers that version.
    ///
    /// The default implementation refuses ([`Error::Store`]).
    fn publish_with_id(
        &self,
        schema: &Schema,
        version: Version,
        id: SchemaId,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        let _ = (schema, version, id, check);
        Err(unsupported("storing a schema under a given id"))
    }

    /// The soft-deleted versions of `name` in `namespace`, ascending.
    ///
    /// A soft-deleted version is held as before (its URN and id resolve
    /// for ever), but a [`Version::Next`] publish neither answers it for
    /// the same content nor checks compatibility against it.
    ///
    /// The default implementation deletes nothing: empty.
    fn deleted(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        let _ = (namespace, name);
        Ok(Vec::new())
    }

    /// Marks every URN of `urns` soft-deleted, atomically (a URN marked
    /// already stays so). A URN not held is [`Error::NotFound`] and marks
    /// nothing.
    ///
    /// The default implementation refuses ([`Error::Store`]).
    fn delete_versions(&self, urns: &[Urn]) -> Result<(), Error> {
        let _ = urns;
        Err(unsupported("soft-deleting versions"))
    }

    /// The settings kept for `name` (or, for `None`, the store-wide
    /// default) beside its compatibility mode, as the JSON text
    /// [`set_config`](Store::set_config) was given (see
    /// [`crate::Settings`]), if any.
    ///
    /// The default keeps none: `None`. Every store of this crate keeps
    /// them.
    fn config(&self, name: Option<&str>) -> Result<Option<String>, Error> {
        let _ = name;
        Ok(None)
    }

    /// Sets (or, with `None`, clears) the settings of `name` (or, for
    /// `None`, the store-wide default): JSON text the store keeps as it is.
    ///
    /// The default keeps none: setting any is [`Error::Store`] (saying
    /// so), clearing them succeeds.
    fn set_config(&self, name: Option<&str>, config: Option<&str>) -> Result<(), Error> {
        let _ = name;
        match config {
            None => Ok(()),
            Some(_) => Err(Error::Store {
                source: "this store keeps no settings beside the compatibility modes".into(),
            }),
        }
    }

    /// The id of the first content whose [`content_digest`] starts with
    /// `prefix` (a guid's digest, [`guid_digest_prefix`]), or `None`. The
    /// default reads every URN held; the persistent stores ask their
    /// digest index.
    fn id_of_digest_prefix(&self, prefix: &str) -> Result<Option<SchemaId>, Error> {
        let mut found: Option<SchemaId> = None;
        for urn in self.list()? {
            if let (Some(schema), Some(id)) = (self.get(&urn)?, self.id_of(&urn)?) {
                if content_digest(&schema).starts_with(prefix) && found.is_none_or(|f| id < f) {
                    found = Some(id);
                }
            }
        }
        Ok(found)
    }

    /// Every id whose content's [`content_digest`] starts with `prefix`,
    /// ascending: a content's own id, and the ids imports gave it beside
    /// (see [`publish_with_id`](Store::publish_with_id)). The default reads
    /// every URN held; the persistent stores ask their digest index.
    fn ids_of_digest_prefix(&self, prefix: &str) -> Result<Vec<SchemaId>, Error> {
        let mut ids = Vec::new();
        for urn in self.list()? {
            if let (Some(schema), Some(id)) = (self.get(&urn)?, self.id_of(&urn)?) {
                if content_digest(&schema).starts_with(prefix) {
                    ids.push(id);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    /// Every URN whose version carries a [reference](dataschema_core::Reference)
    /// to `urn`, ordered as [`list`](Store::list). The default reads every
    /// URN held.
    fn referrers(&self, urn: &Urn) -> Result<Vec<Urn>, Error> {
        let all = self.list()?;
        confirm_referrers(self, urn, all)
    }

    // Confluent's associations between resources and subjects.

    /// The associations `of` names, in [`Association::order`].
    ///
    /// The default keeps none: empty. Every store of this crate keeps
    /// them.
    fn associations(&self, of: AssociationsOf<'_>) -> Result<Vec<Association>, Error> {
        let _ = of;
        Ok(Vec::new())
    }

    /// Changes associations atomically: under the store's associations
    /// lock (one for the whole store; a database lock for the persistent
    /// stores, so replicas over one database take turns), reads the
    /// associations of `resource_id`, those naming any of `subjects`, and
    /// how many the store holds, runs `plan` on them, and makes the
    /// changes it answers, all or none, as durably as a publish. Answers
    /// the changes made. An error from `plan` is returned and changes
    /// nothing.
    ///
    /// The default implementation refuses ([`Error::Store`]).
    fn change_associations(
        &self,
        resource_id: &str,
        subjects: &[&str],
        plan: AssociationPlan<'_>,
    ) -> Result<Vec<AssociationChange>, Error> {
        let _ = (resource_id, subjects, plan);
        Err(unsupported("keeping associations"))
    }
}

/// The text a [`Schema::contract_json`] holds when it references `urn`
/// (a store's first filter, confirmed by [`confirm_referrers`]).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn reference_needle(urn: &Urn) -> String {
    format!("\"urn\":{}", serde_json::Value::from(urn.to_string()))
}

/// The URNs of `candidates` whose schema references `urn`.
pub(crate) fn confirm_referrers<S: Store + ?Sized>(
    store: &S,
    urn: &Urn,
    candidates: Vec<Urn>,
) -> Result<Vec<Urn>, Error> {
    let mut referrers = Vec::new();
    for candidate in candidates {
        if let Some(schema) = store.get(&candidate)? {
            if schema.references().iter().any(|r| r.urn() == urn) {
                referrers.push(candidate);
            }
        }
    }
    Ok(referrers)
}

/// A stored row's schema with the contract stored beside it.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn with_contract_row(
    what: &str,
    schema: Schema,
    contract: Option<&str>,
) -> Result<Schema, Error> {
    match contract {
        None => Ok(schema),
        Some(text) => schema
            .with_contract_json(text)
            .map_err(|why| corrupt(format!("{what}: {why}"))),
    }
}

/// What a store without a capability answers.
fn unsupported(what: &str) -> Error {
    Error::Store {
        source: format!("{what} is not supported by this store").into(),
    }
}

/// How a persistent store ([`SqliteStore`], [`PostgresStore`]) is opened:
/// read-only or not, and the bound on each of its waits, so that a peer
/// holding a lock (a publish in progress, or a replica that stopped while
/// holding one) costs the requests that need that lock only, each for a
/// bounded time, and never the store's other requests.
///
/// ```
/// use std::time::Duration;
/// use dataschema::store::Options;
///
/// let options = Options::default()
///     .read_only(true)
///     .lock_timeout(Duration::from_secs(2));
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct Options {
    pub(crate) read_only: bool,
    pub(crate) lock_timeout: std::time::Duration,
    pub(crate) statement_timeout: std::time::Duration,
    pub(crate) acquire_timeout: std::time::Duration,
    pub(crate) max_connections: usize,
}

impl Default for Options {
    /// Read-write; locks waited for up to 10 s, statements up to 30 s, a
    /// pooled connection up to 10 s; at most 8 connections.
    fn default() -> Options {
        Options {
            read_only: false,
            lock_timeout: std::time::Duration::from_secs(10),
            statement_timeout: std::time::Duration::from_secs(30),
            acquire_timeout: std::time::Duration::from_secs(10),
            max_connections: 8,
        }
    }
}

impl Options {
    /// Opens the store read-only (`false` by default): nothing is
    /// created or migrated, the store's layout must be the one this
    /// version of dataschema writes (a store never opened read-write is
    /// refused, saying so), and every publish or mode change is refused.
    /// SQLite opens the file with `SQLITE_OPEN_READONLY` (a file on a
    /// read-only volume works); PostgreSQL runs every transaction read-only
    /// (a `SELECT`-only role and a hot standby work).
    pub fn read_only(mut self, read_only: bool) -> Options {
        self.read_only = read_only;
        self
    }

    /// How long a publish waits for the lock on its name (or, for SQLite,
    /// on the database) before failing with [`Error::Store`] (10 s by
    /// default). PostgreSQL: the wait for the name's turn among this
    /// store's publishes and for its advisory lock (asked for without
    /// waiting, again and again, holding no connection between asks), and
    /// `lock_timeout` for any other lock. SQLite: the wait for the store's
    /// own writer connection, and the busy timeout.
    pub fn lock_timeout(mut self, timeout: std::time::Duration) -> Options {
        self.lock_timeout = timeout;
        self
    }

    /// PostgreSQL: how long one statement may run (`statement_timeout`),
    /// and how long a transaction may stay idle between statements
    /// (`idle_in_transaction_session_timeout`: a publish's compatibility
    /// check runs there), so that a replica that stopped mid-publish
    /// releases its lock on the name after this long (30 s by default).
    pub fn statement_timeout(mut self, timeout: std::time::Duration) -> Options {
        self.statement_timeout = timeout;
        self
    }

    /// PostgreSQL: how long a request waits for a pooled connection when
    /// all are in use, before failing with [`Error::Store`] (10 s by
    /// default).
    pub fn acquire_timeout(mut self, timeout: std::time::Duration) -> Options {
        self.acquire_timeout = timeout;
        self
    }

    /// PostgreSQL: at most this many connections open at once (8 by
    /// default, at least 1). Publishes use at most half of them (rounded
    /// up), so reads are never all queued behind publishes. A publish
    /// waiting for its name's lock holds none of them.
    pub fn max_connections(mut self, max: usize) -> Options {
        self.max_connections = max.max(1);
        self
    }
}

/// `url` with the password it may hold replaced by `***`, for logs and
/// messages: the password of a URL's user information
/// (`postgres://user:***@host/db`) and the value of every `password=` pair
/// (a URL's query, or a `key=value` connection string). Everything else
/// is kept, so the result still says which database is meant.
///
/// ```
/// use dataschema::store::redact;
///
/// assert_eq!(
///     redact("postgres://app:secret@db.internal:5432/registry"),
///     "postgres://app:***@db.internal:5432/registry"
/// );
/// assert_eq!(
///     redact("host=db user=app password='se cret' dbname=registry"),
///     "host=db user=app password=*** dbname=registry"
/// );
/// assert_eq!(redact("sqlite:/var/lib/registry.db"), "sqlite:/var/lib/registry.db");
/// // A raw `/` or `?` in the password (not percent-encoded) is hidden too.
/// assert_eq!(redact("postgres://u:p/w@h/db"), "postgres://u:***@h/db");
/// assert_eq!(redact("postgres://u:p?w@h/db"), "postgres://u:***@h/db");
/// assert_eq!(redact("postgres://u:p#w@h"), "postgres://u:***@h");
/// ```
pub fn redact(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    // The user information of a URL: between `://` and the last `@` of
    // the authority.
    if let Some(scheme_end) = rest.find("://") {
        let authority_start = scheme_end + 3;
        let tail = &rest[authority_start..];
        let authority_len = tail.find(['/', '?', '#']).unwrap_or(tail.len());
        // A well-formed URL's user information ends at the authority's
        // last `@`. A password holding a raw `/`, `?` or `#` (not
        // percent-encoded) ends the authority early: then the user
        // information runs to the URL's last `@`, which may hide more
        // than the password (a query value holding `@`), never less.
        let authority = match tail[..authority_len].rfind('@') {
            Some(_) => &tail[..authority_len],
            None => tail,
        };
        if let Some(at) = authority.rfind('@') {
            let user_info = &authority[..at];
            if let Some(colon) = user_info.find(':') {
                out.push_str(&rest[..authority_start + colon + 1]);
                out.push_str("***");
                rest = &rest[authority_start + at..];
            }
        }
    }
    // Every `password=` pair: the value runs to `&` or whitespace, or is
    // quoted.
    loop {
        let lower = rest.to_ascii_lowercase();
        let Some(at) = lower.find("password=") else {
            out.push_str(rest);
            return out;
        };
        let value_start = at + "password=".len();
        out.push_str(&rest[..value_start]);
        out.push_str("***");
        let value = &rest[value_start..];
        let value_len = if let Some(quoted) = value.strip_prefix('\'') {
            // Up to the closing quote not escaped by a backslash.
            let mut end = quoted.len();
            let mut escaped = false;
            for (i, c) in quoted.char_indices() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '\'' if !escaped => {
                        end = i + 1;
                        break;
                    }
                    _ => escaped = false,
                }
            }
            1 + end
        } else {
            value
                .find(|c: char| c == '&' || c.is_whitespace())
                .unwrap_or(value.len())
        };
        rest = &value[value_len.min(value.len())..];
    }
}

/// The digest that identifies a schema's content for its id: `sha256:` of
/// the language, the root and the bytes, each length-prefixed. Stores keep
/// it under a unique constraint, so one content gets one id.
///
/// A schema carrying references, metadata or a rule set adds a fourth
/// part, its [`Schema::contract_json`]: they are part of its content (as in
/// Confluent, where the same schema with other metadata is another id),
/// and a schema without them keeps the digest it always had.
pub fn content_digest(schema: &Schema) -> String {
    let language = schema.language().to_string();
    let root = schema.root().unwrap_or("");
    let contract = schema.contract_json();
    let contract = contract.as_deref().map(str::as_bytes);
    let mut input = Vec::with_capacity(
        32 + language.len() + root.len() + schema.bytes().len() + contract.map_or(0, <[u8]>::len),
    );
    for part in [language.as_bytes(), root.as_bytes(), schema.bytes()]
        .into_iter()
        .chain(contract)
    {
        input.extend_from_slice(&(part.len() as u64).to_be_bytes());
        input.extend_from_slice(part);
    }
    sha256_hex(&input)
}

/// The `guid` of a content, as Confluent answers it (a UUID per content):
/// the first 128 bits of its [`content_digest`], written as a UUID.
pub fn content_guid(digest: &str) -> String {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    let hex = hex.get(..32).unwrap_or(hex);
    if hex.len() < 32 {
        return hex.to_owned();
    }
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The prefix of the [`content_digest`] a guid names (`None` for a string
/// that is no guid [`content_guid`] writes).
pub fn guid_digest_prefix(guid: &str) -> Option<String> {
    let hex: String = guid.chars().filter(|&c| c != '-').collect();
    let shaped = guid.len() == 36
        && guid
            .char_indices()
            .all(|(i, c)| matches!(i, 8 | 13 | 18 | 23) == (c == '-'));
    (shaped && hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("sha256:{}", hex.to_ascii_lowercase()))
}

/// A persistent store's failure: what it was doing, and the backend's
/// error as the source. Travels inside [`Error::Store`].
#[cfg(any(feature = "sqlite", feature = "postgres"))]
#[derive(Debug)]
pub(crate) struct BackendError {
    what: String,
    source: Option<BoxError>,
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.what)
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl std::error::Error for BackendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

/// [`Error::Store`] saying what failed, with `source` as its cause.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn failure(what: impl Into<String>, source: impl Into<BoxError>) -> Error {
    Error::Store {
        source: Box::new(BackendError {
            what: what.into(),
            source: Some(source.into()),
        }),
    }
}

/// [`Error::Store`] with no cause below it (a row the store cannot read
/// back, an id out of range).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn corrupt(what: impl Into<String>) -> Error {
    Error::Store {
        source: Box::new(BackendError {
            what: what.into(),
            source: None,
        }),
    }
}

/// A stored row back into a schema: `what` names the store in errors.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn schema_from_row(
    what: &str,
    namespace: &str,
    name: &str,
    version: i64,
    language: &str,
    root: Option<&str>,
    bytes: Vec<u8>,
) -> Result<Schema, Error> {
    let urn = urn_from_row(what, namespace, name, version)?;
    let language: dataschema_core::Language = language
        .parse()
        .map_err(|err| failure(format!("{what}: a stored row of {urn} is unreadable"), err))?;
    Ok(Schema::new(urn, language, bytes, root))
}

/// A stored row's URN.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn urn_from_row(
    what: &str,
    namespace: &str,
    name: &str,
    version: i64,
) -> Result<Urn, Error> {
    let version = u32::try_from(version).map_err(|_| {
        corrupt(format!(
            "{what}: a stored version is out of range: {version}"
        ))
    })?;
    Urn::new(namespace, name, version).map_err(|err| {
        failure(
            format!("{what}: a stored URN is unreadable ({namespace}/{name}/{version})"),
            err,
        )
    })
}

/// A stored id as a [`SchemaId`].
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn id_from_row(what: &str, id: i64) -> Result<SchemaId, Error> {
    u32::try_from(id)
        .ok()
        .filter(|&id| (1..=MAX_ID).contains(&id))
        .ok_or_else(|| corrupt(format!("{what}: schema id {id} is out of range 1..=2^31-1")))
}

/// Every id of `1..=`[`MAX_ID`] is held: a store can number no new
/// content.
pub(crate) fn ids_exhausted(what: &str) -> Error {
    Error::Store {
        source: format!(
            "{what}: every schema id from 1 to {MAX_ID} is held: no new content can be numbered"
        )
        .into(),
    }
}

/// A version of a name a store holds, as a publish decides with it.
pub(crate) struct Held {
    /// The schema, under its URN.
    pub(crate) schema: Schema,
    /// The key of its content's row: the content's digest
    /// ([`content_digest`]), or an [`alias_key`] for an id an import gave.
    pub(crate) digest: String,
    /// Its content's id.
    pub(crate) id: SchemaId,
    /// Soft-deleted ([`Store::delete_versions`]).
    pub(crate) deleted: bool,
}

impl Held {
    /// Its content's digest.
    pub(crate) fn content(&self) -> &str {
        content_of_key(&self.digest)
    }
}

/// What a publish does once the versions held for the name are known.
pub(crate) enum Decision {
    /// The schema is held already: answer this, store nothing.
    Held(Stored),
    /// Check this (the schema under its final URN), then insert it.
    Insert(Schema),
}

/// The steps 1 and 2 of [`Store::publish`], the one decision of every store of
/// this crate: `held` is every version of the name (ascending) with its
/// content's digest and id, read under the store's lock on the name;
/// `given` is the id a [`Store::publish_with_id`] gives.
///
/// With an id given, a version holding the same content under another id
/// is not the same version: an import keeps every id it is given
/// (Confluent's register in IMPORT mode skips the versions whose id
/// differs, `KafkaSchemaRegistry.register`, v8.2.0), so [`Version::Next`]
/// makes a new version, and the URN of [`Version::Exact`], which carries
/// one id, is [`Error::IdConflict`].
///
/// A next version after 4294967295 (the largest a URN carries) is
/// [`Error::LastVersion`], never a wrap or a panic.
pub(crate) fn decide(
    schema: &Schema,
    version: Version,
    digest: &str,
    given: Option<SchemaId>,
    held: &[Held],
) -> Result<Decision, Error> {
    let same_id = |held: &Held| given.is_none_or(|id| held.id == id);
    let schema = match version {
        Version::Exact => schema.clone(),
        Version::Next => {
            if let Some(same) = held
                .iter()
                .find(|held| held.content() == digest && !held.deleted && same_id(held))
            {
                return Ok(Decision::Held(Stored::new(
                    same.schema.urn().clone(),
                    same.id,
                    false,
                )));
            }
            let next = match held.last() {
                None => 1,
                Some(last) => {
                    let last = last.schema.urn();
                    last.version()
                        .checked_add(1)
                        .ok_or_else(|| Error::LastVersion { urn: last.clone() })?
                }
            };
            with_urn(schema, schema.urn().with_version(next)?)
        }
    };
    let version = schema.urn().version();
    if let Some(same) = held
        .iter()
        .find(|held| held.schema.urn().version() == version)
    {
        return if same.content() != digest {
            Err(Error::Immutable {
                urn: schema.urn().clone(),
            })
        } else if let Some(id) = given.filter(|&id| id != same.id) {
            Err(Error::IdConflict {
                urn: schema.urn().clone(),
                id,
                other: schema.urn().clone(),
                other_id: same.id,
            })
        } else {
            Ok(Decision::Held(Stored::new(
                schema.urn().clone(),
                same.id,
                false,
            )))
        };
    }
    Ok(Decision::Insert(schema))
}

/// The key a content's row is kept under when an import gives the content
/// another id beside the one it has (`<digest>#id:<id>`): one row per id of
/// a content, each under a unique key, so the digest's `UNIQUE` keeps "one
/// content, one id" for the ids a store assigns itself, and an id given
/// names its content's bytes as the first one does.
pub(crate) fn alias_key(digest: &str, id: SchemaId) -> String {
    format!("{digest}#id:{id}")
}

/// The content digest a row's key holds (an [`alias_key`]'s suffix off).
pub(crate) fn content_of_key(key: &str) -> &str {
    key.split_once("#id:").map_or(key, |(digest, _)| digest)
}

/// Where a publish with an id given keeps its content, decided under the
/// store's lock ([`given_id_row`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum IdRow {
    /// The row of the id given holds the content already: the URN names
    /// it.
    Held,
    /// A new row, with the id given, under this key: the content's digest
    /// when no row holds the content, else an [`alias_key`].
    Insert(String),
}

/// The row a publish of `schema` (its content `digest`) with the id `id`
/// given goes to: `id_row` is the key of the row holding `id`, if one
/// does, with a URN naming it; `content_held` whether a row is kept under
/// `digest` itself. An id held by another content is
/// [`Error::IdConflict`] (an id never moves to other bytes); an id outside
/// `1..=2^31-1` is [`Error::IdNotFound`].
pub(crate) fn given_id_row(
    schema: &Schema,
    digest: &str,
    id: SchemaId,
    id_row: Option<(String, Option<Urn>)>,
    content_held: bool,
) -> Result<IdRow, Error> {
    if id == 0 || id > MAX_ID {
        return Err(Error::IdNotFound { id });
    }
    match id_row {
        Some((key, _)) if content_of_key(&key) == digest => Ok(IdRow::Held),
        Some((_, holder)) => Err(Error::IdConflict {
            urn: schema.urn().clone(),
            id,
            other: holder.unwrap_or_else(|| schema.urn().clone()),
            other_id: id,
        }),
        None if content_held => Ok(IdRow::Insert(alias_key(digest, id))),
        None => Ok(IdRow::Insert(digest.to_owned())),
    }
}

/// The held versions a publish checks compatibility against: those not
/// soft-deleted.
pub(crate) fn live(held: Vec<Held>) -> Vec<Schema> {
    held.into_iter()
        .filter(|held| !held.deleted)
        .map(|held| held.schema)
        .collect()
}

/// `schema` under another URN (its bytes shared, not copied; its
/// references, metadata and rule set kept).
fn with_urn(schema: &Schema, urn: Urn) -> Schema {
    schema.with_urn(urn)
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
            fn ready(&self) -> Result<(), Error> {
                (**self).ready()
            }

            fn mode(&self, name: Option<&str>) -> Result<Option<Mode>, Error> {
                (**self).mode(name)
            }
            fn set_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
                (**self).set_mode(name, mode)
            }
            fn publish_with_id(
                &self,
                schema: &Schema,
                version: Version,
                id: SchemaId,
                check: Check<'_>,
            ) -> Result<Stored, Error> {
                (**self).publish_with_id(schema, version, id, check)
            }
            fn deleted(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
                (**self).deleted(namespace, name)
            }
            fn delete_versions(&self, urns: &[Urn]) -> Result<(), Error> {
                (**self).delete_versions(urns)
            }
            fn config(&self, name: Option<&str>) -> Result<Option<String>, Error> {
                (**self).config(name)
            }
            fn set_config(&self, name: Option<&str>, config: Option<&str>) -> Result<(), Error> {
                (**self).set_config(name, config)
            }
            fn id_of_digest_prefix(&self, prefix: &str) -> Result<Option<SchemaId>, Error> {
                (**self).id_of_digest_prefix(prefix)
            }
            fn ids_of_digest_prefix(&self, prefix: &str) -> Result<Vec<SchemaId>, Error> {
                (**self).ids_of_digest_prefix(prefix)
            }
            fn referrers(&self, urn: &Urn) -> Result<Vec<Urn>, Error> {
                (**self).referrers(urn)
            }
            fn associations(&self, of: AssociationsOf<'_>) -> Result<Vec<Association>, Error> {
                (**self).associations(of)
            }
            fn change_associations(
                &self,
                resource_id: &str,
                subjects: &[&str],
                plan: AssociationPlan<'_>,
            ) -> Result<Vec<AssociationChange>, Error> {
                (**self).change_associations(resource_id, subjects, plan)
            }
        }
    )*};
}

forward_store!(std::sync::Arc<S>, Box<S>);
