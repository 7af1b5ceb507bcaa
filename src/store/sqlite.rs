//! [`SqliteStore`]: schemas in one SQLite file.

use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::association;
use super::{
    content_digest, decide, failure, given_id_row, id_from_row, ids_exhausted, live,
    schema_from_row, urn_from_row, with_contract_row, Check, Decision, Held, IdRow, Mode, Options,
    SchemaId, Store, Stored, Version, MAX_ID,
};
use super::{Association, AssociationChange, AssociationPlan, AssociationsHeld, AssociationsOf};
use dataschema_core::{Compatibility, Error, Schema, Urn};

/// The layout this code writes, kept in the file's `user_version`: the
/// number of [`MIGRATIONS`] applied.
const LAYOUT: i64 = MIGRATIONS.len() as i64;

/// The layout's steps, in order: a file of layout `n` has had the first
/// `n` applied.
const MIGRATIONS: &[&str] = &[
    SCHEMA_V1,
    CONFLUENT_MODES_AND_DELETES,
    CONTRACTS,
    ASSOCIATIONS,
];

/// Idle read connections kept open.
const IDLE_READERS: usize = 8;

const SCHEMA_V1: &str = "
CREATE TABLE contents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    root TEXT,
    bytes BLOB NOT NULL
);
CREATE TABLE urns (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    version INTEGER NOT NULL CHECK (version BETWEEN 1 AND 4294967295),
    content_id INTEGER NOT NULL REFERENCES contents (id),
    PRIMARY KEY (namespace, name, version)
) WITHOUT ROWID;
CREATE INDEX urns_by_content ON urns (content_id);
CREATE TABLE modes (
    name TEXT PRIMARY KEY,
    mode TEXT NOT NULL
) WITHOUT ROWID;
";

/// Confluent's registry modes (the name `''` holds the store-wide one),
/// and the soft-deleted versions.
const CONFLUENT_MODES_AND_DELETES: &str = "
CREATE TABLE registry_modes (
    name TEXT PRIMARY KEY,
    mode TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE deleted_versions (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (namespace, name, version),
    FOREIGN KEY (namespace, name, version) REFERENCES urns (namespace, name, version)
) WITHOUT ROWID;
";

/// Layout 3: a content's references, metadata and rule set
/// ([`Schema::contract_json`]), and the settings of a subject beside its
/// compatibility mode (Confluent's config: `compatibilityGroup`,
/// `defaultMetadata`, ...), as JSON text.
const CONTRACTS: &str = "
CREATE TABLE contracts (
    content_id INTEGER PRIMARY KEY REFERENCES contents (id),
    contract TEXT NOT NULL
);
CREATE TABLE configs (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL
) WITHOUT ROWID;
";

/// Layout 4: Confluent's associations between resources and subjects,
/// one row per resource id, resource type and association type.
const ASSOCIATIONS: &str = "
CREATE TABLE associations (
    resource_id TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    association_type TEXT NOT NULL,
    subject TEXT NOT NULL,
    guid TEXT NOT NULL,
    resource_name TEXT NOT NULL,
    resource_namespace TEXT NOT NULL,
    lifecycle TEXT NOT NULL,
    frozen INTEGER NOT NULL,
    PRIMARY KEY (resource_id, resource_type, association_type)
) WITHOUT ROWID;
CREATE INDEX associations_by_subject ON associations (subject);
CREATE INDEX associations_by_name ON associations (resource_name, resource_namespace);
CREATE INDEX associations_by_namespace ON associations (resource_namespace);
";

/// A version held: version, language, root, bytes, digest, content id,
/// soft-deleted, contract.
type HeldRow = (
    i64,
    String,
    Option<String>,
    Vec<u8>,
    String,
    i64,
    bool,
    Option<String>,
);

/// A [`Store`] in one SQLite file: the registry server's embedded default.
///
/// [`open`](SqliteStore::open) creates the file and its tables on first
/// start. The file is in WAL mode with `synchronous = FULL`: a publish that
/// returned `Ok` is on disk, and one interrupted (even by `kill -9` or a
/// power cut) left nothing behind, since each publish is one transaction.
///
/// Writers: each publish runs in a `BEGIN IMMEDIATE` transaction, which
/// takes the database's write lock before reading the versions held, so
/// the compatibility check and the insert it allows cannot interleave with
/// another publish, whether from this store, another `SqliteStore` on the
/// same file, or another process. A writer waits for the store's writer
/// connection, then for the database's lock (SQLite's busy timeout), each
/// up to the [lock timeout](Options::lock_timeout) (10 s by default), then
/// fails with [`Error::Store`].
///
/// Read-only ([`open_with`](SqliteStore::open_with) and
/// [`Options::read_only`]): the file is opened with
/// `SQLITE_OPEN_READONLY`, nothing is created or migrated, and a file
/// without this version's layout is refused, saying so. On a read-only
/// volume, where SQLite cannot create the WAL's shared-memory file, a file
/// without a `-wal` file beside it (every write checkpointed) is read as
/// immutable.
///
/// Readers: a small pool of read connections (one per concurrent reader,
/// up to 8 kept idle). Under WAL, a read never waits for a publish in
/// progress, and sees only committed publishes.
///
/// Tables: `contents(id INTEGER PRIMARY KEY AUTOINCREMENT, digest UNIQUE,
/// language, root, bytes)` (ids are never reused, even for a publish rolled
/// back), `urns(namespace, name, version, content_id)` keyed by the URN, and
/// `modes(name, mode)` where the name `''` holds the store-wide default.
/// The layout's version is the file's `user_version`; a file of a newer
/// layout is refused rather than misread.
pub struct SqliteStore {
    path: PathBuf,
    what: String,
    options: Options,
    /// `None` when read-only.
    writer: Option<Mutex<Connection>>,
    readers: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens the store in the SQLite file at `path`, creating the file and
    /// its tables if there is none (the directory must exist). A file that
    /// is not a SQLite database, a directory the file cannot be created
    /// in, or a file of a newer layout is [`Error::Store`], saying which.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, Error> {
        SqliteStore::open_with(path, &Options::default())
    }

    /// [`open`](SqliteStore::open) with `options`: read-only (the file
    /// must exist, with this version's layout), and the lock timeout.
    pub fn open_with(path: impl AsRef<Path>, options: &Options) -> Result<SqliteStore, Error> {
        let path = path.as_ref().to_path_buf();
        let what = format!("SQLite store {}", path.display());
        let writer = if options.read_only {
            let reader = connect(&path, &what, options)?;
            check_layout(&reader, &what)?;
            let store = SqliteStore {
                path,
                what,
                options: options.clone(),
                writer: None,
                readers: Mutex::new(vec![reader]),
            };
            return Ok(store);
        } else {
            let writer = connect(&path, &what, options)?;
            migrate(&writer, &what)?;
            writer
        };
        Ok(SqliteStore {
            path,
            what,
            options: options.clone(),
            writer: Some(Mutex::new(writer)),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// The file this store is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `read` on a read connection from the pool (a new one when none
    /// is idle), then gives the connection back.
    fn read<T>(
        &self,
        doing: &str,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, Error> {
        let idle = self.readers.lock().pop();
        let connection = match idle {
            Some(connection) => connection,
            None => connect(&self.path, &self.what, &self.options)?,
        };
        let result = read(&connection).map_err(|err| self.failed(doing, err));
        let mut readers = self.readers.lock();
        if readers.len() < IDLE_READERS {
            readers.push(connection);
        }
        result
    }

    fn failed(&self, doing: &str, err: rusqlite::Error) -> Error {
        let busy = matches!(
            err.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        if busy {
            return failure(
                format!(
                    "{}: {doing}: the database's write lock was not free within {} ms \
                     (another publish, perhaps from another process, holds it)",
                    self.what,
                    self.options.lock_timeout.as_millis()
                ),
                err,
            );
        }
        failure(format!("{}: {doing}", self.what), err)
    }

    /// The writer connection, waited for up to the lock timeout; a
    /// read-only store has none.
    fn writer(&self, doing: &str) -> Result<parking_lot::MutexGuard<'_, Connection>, Error> {
        let Some(writer) = &self.writer else {
            return Err(super::corrupt(format!(
                "{}: {doing}: the store is open read-only",
                self.what
            )));
        };
        writer
            .try_lock_for(self.options.lock_timeout)
            .ok_or_else(|| {
                super::corrupt(format!(
                    "{}: {doing}: the store's writer was not free within {} ms (another \
                 publish through this store holds it)",
                    self.what,
                    self.options.lock_timeout.as_millis()
                ))
            })
    }

    fn held(&self, connection: &Connection, urn: &Urn) -> Result<Vec<Held>, Error> {
        let rows: Vec<HeldRow> = (|| {
            let mut statement = connection.prepare_cached(
                "SELECT u.version, c.language, c.root, c.bytes, c.digest, c.id,
                        EXISTS (SELECT 1 FROM deleted_versions d
                                WHERE d.namespace = u.namespace AND d.name = u.name
                                  AND d.version = u.version), k.contract
                 FROM urns u JOIN contents c ON c.id = u.content_id
                 LEFT JOIN contracts k ON k.content_id = c.id
                 WHERE u.namespace = ?1 AND u.name = ?2 ORDER BY u.version",
            )?;
            let rows = statement
                .query_map(params![urn.namespace(), urn.name()], |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                        row.get(5)?,
                        row.get(6)?,
                        row.get(7)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })()
        .map_err(|err| self.failed("reading the versions held", err))?;
        rows.into_iter()
            .map(
                |(version, language, root, bytes, digest, id, deleted, contract)| {
                    let schema = schema_from_row(
                        &self.what,
                        urn.namespace(),
                        urn.name(),
                        version,
                        &language,
                        root.as_deref(),
                        bytes,
                    )?;
                    let schema = with_contract_row(&self.what, schema, contract.as_deref())?;
                    Ok(Held {
                        schema,
                        digest,
                        id: id_from_row(&self.what, id)?,
                        deleted,
                    })
                },
            )
            .collect()
    }

    /// Sets (`Some`) or clears (`None`) the text kept for `name` (`None`:
    /// the store-wide entry, kept under `''`) in one of the named-settings
    /// tables (`modes`, `registry_modes`, `configs`: each `(name, column)`).
    fn set_named(
        &self,
        table: &str,
        column: &str,
        what: &str,
        name: Option<&str>,
        value: Option<&str>,
    ) -> Result<(), Error> {
        let key = name.unwrap_or("");
        let connection = self.writer(what)?;
        match value {
            Some(value) => connection.execute(
                &format!(
                    "INSERT INTO {table} (name, {column}) VALUES (?1, ?2)
                     ON CONFLICT (name) DO UPDATE SET {column} = excluded.{column}"
                ),
                params![key, value],
            ),
            None => connection.execute(
                &format!("DELETE FROM {table} WHERE name = ?1"),
                params![key],
            ),
        }
        .map(drop)
        .map_err(|err| self.failed(what, err))
    }

    /// A publish, with the content's id given (`Some`) or allocated.
    fn publish_as(
        &self,
        schema: &Schema,
        version: Version,
        given: Option<SchemaId>,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        let digest = content_digest(schema);
        let connection = self.writer("publishing")?;
        let transaction = Immediate::begin(&connection)
            .map_err(|err| self.failed("taking the write lock", err))?;
        let result = (|| {
            let held = self.held(&connection, schema.urn())?;
            let schema = match decide(schema, version, &digest, given, &held)? {
                Decision::Held(stored) => return Ok(stored),
                Decision::Insert(schema) => schema,
            };
            let row = match given {
                Some(id) => Some((id, self.given_row(&connection, &schema, &digest, id)?)),
                None => None,
            };
            check(&schema, &live(held))?;
            let fresh = match row {
                Some(_) => None,
                None => self.id_past_the_sequence(&connection, &digest)?,
            };
            let insert = || -> rusqlite::Result<i64> {
                let id: i64 = match (&row, fresh) {
                    (Some((id, IdRow::Held)), _) => i64::from(*id),
                    (Some((id, IdRow::Insert(key))), _) => {
                        // With AUTOINCREMENT, an id inserted as given
                        // raises the sequence past it: the store never
                        // hands it out again.
                        connection
                            .prepare_cached(
                                "INSERT INTO contents (id, digest, language, root, bytes)
                                 VALUES (?1, ?2, ?3, ?4, ?5)",
                            )?
                            .execute(params![
                                id,
                                key,
                                schema.language().as_str(),
                                schema.root(),
                                schema.bytes()
                            ])?;
                        i64::from(*id)
                    }
                    (None, Some(id)) => {
                        connection
                            .prepare_cached(
                                "INSERT INTO contents (id, digest, language, root, bytes)
                                 VALUES (?1, ?2, ?3, ?4, ?5)",
                            )?
                            .execute(params![
                                id,
                                digest,
                                schema.language().as_str(),
                                schema.root(),
                                schema.bytes()
                            ])?;
                        id
                    }
                    (None, None) => {
                        connection
                            .prepare_cached(
                                "INSERT INTO contents (digest, language, root, bytes)
                                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT (digest) DO NOTHING",
                            )?
                            .execute(params![
                                digest,
                                schema.language().as_str(),
                                schema.root(),
                                schema.bytes()
                            ])?;
                        connection
                            .prepare_cached("SELECT id FROM contents WHERE digest = ?1")?
                            .query_row(params![digest], |row| row.get(0))?
                    }
                };
                if let Some(contract) = schema.contract_json() {
                    connection
                        .prepare_cached(
                            "INSERT INTO contracts (content_id, contract) VALUES (?1, ?2)
                             ON CONFLICT (content_id) DO NOTHING",
                        )?
                        .execute(params![id, contract])?;
                }
                Ok(id)
            };
            let id = insert().map_err(|err| self.failed("storing the schema's content", err))?;
            let id = id_from_row(&self.what, id)?;
            let urn = schema.urn();
            connection
                .prepare_cached(
                    "INSERT INTO urns (namespace, name, version, content_id)
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .and_then(|mut statement| {
                    statement.execute(params![urn.namespace(), urn.name(), urn.version(), id])
                })
                .map_err(|err| self.failed("storing the schema's URN", err))?;
            Ok(Stored::new(urn.clone(), id, true))
        })();
        match result {
            Ok(stored) if stored.created => {
                transaction
                    .end(true)
                    .map_err(|err| self.failed("committing the publish", err))?;
                Ok(stored)
            }
            other => {
                // Nothing was written (or it is undone): end the
                // transaction, keeping the first error.
                let ended = transaction
                    .end(false)
                    .map_err(|err| self.failed("ending the publish", err));
                match other {
                    Ok(stored) => ended.map(|()| stored),
                    Err(err) => Err(err),
                }
            }
        }
    }

    /// The id a new content (`digest`, held by no row) takes when
    /// `AUTOINCREMENT` would number it past [`MAX_ID`] (an import gave the
    /// largest id): the lowest id no row holds, found under the write
    /// lock. `None`: the content is held, or the sequence numbers it.
    fn id_past_the_sequence(
        &self,
        connection: &Connection,
        digest: &str,
    ) -> Result<Option<i64>, Error> {
        let fail = |err| self.failed("choosing an id for a new content", err);
        let (held, sequence): (bool, i64) = connection
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM contents WHERE digest = ?1),
                        COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'contents'), 0)",
            )
            .and_then(|mut s| s.query_row(params![digest], |row| Ok((row.get(0)?, row.get(1)?))))
            .map_err(fail)?;
        if held || sequence < i64::from(MAX_ID) {
            return Ok(None);
        }
        // The lowest id with no row: 1, or one above a held id whose next
        // is free (a scan of the primary key, on this rare path only).
        let free: Option<i64> = connection
            .prepare_cached(
                "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM contents WHERE id = 1)
                 UNION ALL
                 SELECT * FROM (SELECT c.id + 1 FROM contents c
                   WHERE c.id < ?1 AND NOT EXISTS (SELECT 1 FROM contents d WHERE d.id = c.id + 1)
                   ORDER BY c.id LIMIT 1)
                 ORDER BY 1 LIMIT 1",
            )
            .and_then(|mut s| s.query_row(params![MAX_ID], |row| row.get(0)).optional())
            .map_err(fail)?;
        free.map(Some).ok_or_else(|| ids_exhausted(&self.what))
    }

    /// Where a publish with the id `id` given keeps its content, under the
    /// write lock ([`given_id_row`]).
    fn given_row(
        &self,
        connection: &Connection,
        schema: &Schema,
        digest: &str,
        id: SchemaId,
    ) -> Result<IdRow, Error> {
        let key: Option<String> = connection
            .prepare_cached("SELECT digest FROM contents WHERE id = ?1")
            .and_then(|mut s| s.query_row(params![id], |row| row.get(0)).optional())
            .map_err(|err| self.failed("reading an id", err))?;
        let id_row = match key {
            Some(key) => {
                let row: Option<(String, String, i64)> = connection
                    .prepare_cached(
                        "SELECT namespace, name, version FROM urns WHERE content_id = ?1
                         ORDER BY namespace, name, version LIMIT 1",
                    )
                    .and_then(|mut s| {
                        s.query_row(params![id], |row| {
                            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                        })
                        .optional()
                    })
                    .map_err(|err| self.failed("reading the URNs of an id", err))?;
                let holder = row
                    .map(|(namespace, name, version)| {
                        urn_from_row(&self.what, &namespace, &name, version)
                    })
                    .transpose()?;
                Some((key, holder))
            }
            None => None,
        };
        let content_held: bool = connection
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM contents WHERE digest = ?1)")
            .and_then(|mut s| s.query_row(params![digest], |row| row.get(0)))
            .map_err(|err| self.failed("reading a content's id", err))?;
        given_id_row(schema, digest, id, id_row, content_held)
    }

    fn urns(&self, rows: Vec<(String, String, i64)>) -> Result<Vec<Urn>, Error> {
        let mut urns = rows
            .into_iter()
            .map(|(namespace, name, version)| urn_from_row(&self.what, &namespace, &name, version))
            .collect::<Result<Vec<Urn>, Error>>()?;
        // Ordered as `Urn` orders (numeric versions), whatever SQLite's
        // collation.
        urns.sort_unstable();
        Ok(urns)
    }
}

/// A connection to the file, with the store's settings.
fn connect(path: &Path, what: &str, options: &Options) -> Result<Connection, Error> {
    if options.read_only {
        return connect_read_only(path, what, options);
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)
        .map_err(|err| failure(format!("{what}: cannot open or create the file"), err))?;
    connection
        .busy_timeout(options.lock_timeout)
        .map_err(|err| failure(format!("{what}: setting the busy timeout"), err))?;
    // The first statement reads the file: one that is not a database fails
    // here ("file is not a database").
    let mode: String = connection
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(|err| {
            failure(
                format!("{what}: cannot use the file as a SQLite database"),
                err,
            )
        })?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(super::corrupt(format!(
            "{what}: the file cannot be put in WAL mode (journal mode {mode})"
        )));
    }
    connection
        .execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
        .map_err(|err| failure(format!("{what}: setting the connection up"), err))?;
    Ok(connection)
}

/// A read-only connection: `SQLITE_OPEN_READONLY`, nothing created. A WAL
/// file whose shared memory cannot be set up (a read-only directory) and
/// that has no `-wal` beside it is read as immutable.
fn connect_read_only(path: &Path, what: &str, options: &Options) -> Result<Connection, Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let open = |path: &Path, flags: OpenFlags| -> Result<Connection, Error> {
        let connection = Connection::open_with_flags(path, flags)
            .map_err(|err| failure(format!("{what}: cannot open the file read-only"), err))?;
        connection
            .busy_timeout(options.lock_timeout)
            .map_err(|err| failure(format!("{what}: setting the busy timeout"), err))?;
        Ok(connection)
    };
    let connection = open(path, flags)?;
    // The first read: one that is not a database fails here.
    let probe = connection.query_row("SELECT count(*) FROM sqlite_schema", [], |row| {
        row.get::<_, i64>(0)
    });
    match probe {
        Ok(_) => Ok(connection),
        Err(err) if cannot_set_up_wal(&err) && !wal_beside(path) => {
            drop(connection);
            let uri = immutable_uri(path);
            let connection = open(Path::new(&uri), flags | OpenFlags::SQLITE_OPEN_URI)?;
            connection
                .query_row("SELECT count(*) FROM sqlite_schema", [], |row| {
                    row.get::<_, i64>(0)
                })
                .map_err(|err| {
                    failure(
                        format!("{what}: cannot use the file as a SQLite database"),
                        err,
                    )
                })?;
            Ok(connection)
        }
        Err(err) => Err(failure(
            format!("{what}: cannot use the file as a SQLite database"),
            err,
        )),
    }
}

/// SQLite could not open or create the WAL's shared memory (a read-only
/// directory or volume).
fn cannot_set_up_wal(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
    )
}

/// A `-wal` file is beside the database (writes not yet checkpointed).
fn wal_beside(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    Path::new(&wal).exists()
}

/// The `file:` URI of `path` with `immutable=1`.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'?' | b'#' | b'%' => uri.push_str(&format!("%{byte:02X}")),
            _ => uri.push(byte as char),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// A read-only store's check: the file holds this version's layout.
fn check_layout(connection: &Connection, what: &str) -> Result<(), Error> {
    let layout: i64 = connection
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(|err| failure(format!("{what}: reading the layout"), err))?;
    layout_is_known(layout, what)
}

/// `Ok` for the layout this code reads, else why not.
fn layout_is_known(layout: i64, what: &str) -> Result<(), Error> {
    match layout {
        LAYOUT => Ok(()),
        0 => Err(super::corrupt(format!(
            "{what}: the file has no dataschema tables (it was never opened for writing): \
             a read-only store needs them; open it once without read-only to create them"
        ))),
        newer if newer > LAYOUT => Err(super::corrupt(format!(
            "{what}: the file has layout {newer}, newer than this version of dataschema \
             knows ({LAYOUT}): upgrade dataschema"
        ))),
        older => Err(super::corrupt(format!(
            "{what}: the file has layout {older}, older than this version of dataschema \
             reads ({LAYOUT}): open it once without read-only to migrate it"
        ))),
    }
}

/// A `BEGIN IMMEDIATE` transaction on the writer (the file's write lock),
/// ended by [`end`](Immediate::end). Dropped without it, when a panic (a
/// caller's check, say) unwinds through a publish, it is rolled back: the
/// writer's connection never stays inside a transaction, holding the
/// file's write lock and refusing every later `BEGIN`.
struct Immediate<'c> {
    connection: &'c Connection,
    ended: bool,
}

impl<'c> Immediate<'c> {
    fn begin(connection: &'c Connection) -> rusqlite::Result<Immediate<'c>> {
        connection.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Immediate {
            connection,
            ended: false,
        })
    }

    /// Commits (`true`) or rolls back. A commit that fails is rolled
    /// back, so the transaction is over either way.
    fn end(mut self, commit: bool) -> rusqlite::Result<()> {
        self.ended = true;
        if !commit {
            return self.connection.execute_batch("ROLLBACK");
        }
        let committed = self.connection.execute_batch("COMMIT");
        if committed.is_err() && !self.connection.is_autocommit() {
            let _ = self.connection.execute_batch("ROLLBACK");
        }
        committed
    }
}

impl Drop for Immediate<'_> {
    fn drop(&mut self) {
        if !self.ended && !self.connection.is_autocommit() {
            let _ = self.connection.execute_batch("ROLLBACK");
        }
    }
}

/// Creates the tables on first start; refuses a newer layout.
fn migrate(connection: &Connection, what: &str) -> Result<(), Error> {
    let failed = |err| failure(format!("{what}: creating the tables"), err);
    // The write lock first: two processes opening a new file at once
    // create its tables once.
    let transaction = Immediate::begin(connection).map_err(failed)?;
    let result = (|| {
        let layout: i64 = connection
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(failed)?;
        if layout > LAYOUT {
            return Err(super::corrupt(format!(
                "{what}: the file has layout {layout}, newer than this version of \
                 dataschema knows ({LAYOUT}): upgrade dataschema"
            )));
        }
        if layout == 0 {
            let tables: i64 = connection
                .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
                .map_err(failed)?;
            if tables != 0 {
                return Err(super::corrupt(format!(
                    "{what}: the file is a SQLite database of something else \
                     (it has tables, and no dataschema layout)"
                )));
            }
        }
        if layout < LAYOUT {
            for step in &MIGRATIONS[layout as usize..] {
                connection.execute_batch(step).map_err(failed)?;
            }
            connection
                .pragma_update(None, "user_version", LAYOUT)
                .map_err(failed)?;
        }
        Ok(())
    })();
    let ended = transaction.end(result.is_ok()).map_err(failed);
    result.and(ended)
}

impl Store for SqliteStore {
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
        type Row = (String, Option<String>, Vec<u8>, Option<String>);
        let row: Option<Row> = self.read("reading a schema", |c| {
            c.prepare_cached(
                "SELECT c.language, c.root, c.bytes, k.contract
                 FROM urns u JOIN contents c ON c.id = u.content_id
                 LEFT JOIN contracts k ON k.content_id = c.id
                 WHERE u.namespace = ?1 AND u.name = ?2 AND u.version = ?3",
            )?
            .query_row(params![urn.namespace(), urn.name(), urn.version()], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .optional()
        })?;
        row.map(|(language, root, bytes, contract)| {
            let schema = schema_from_row(
                &self.what,
                urn.namespace(),
                urn.name(),
                i64::from(urn.version()),
                &language,
                root.as_deref(),
                bytes,
            )?;
            with_contract_row(&self.what, schema, contract.as_deref())
        })
        .transpose()
    }

    fn publish(
        &self,
        schema: &Schema,
        version: Version,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        self.publish_as(schema, version, None, check)
    }

    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        let namespace = namespace.to_ascii_lowercase();
        let rows: Vec<i64> = self.read("listing versions", |c| {
            c.prepare_cached(
                "SELECT version FROM urns WHERE namespace = ?1 AND name = ?2 ORDER BY version",
            )?
            .query_map(params![namespace, name], |row| row.get(0))?
            .collect()
        })?;
        rows.into_iter()
            .map(|version| urn_from_row(&self.what, &namespace, name, version).map(|u| u.version()))
            .collect()
    }

    fn list(&self) -> Result<Vec<Urn>, Error> {
        let rows = self.read("listing URNs", |c| {
            c.prepare_cached("SELECT namespace, name, version FROM urns")?
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect()
        })?;
        self.urns(rows)
    }

    fn id_of(&self, urn: &Urn) -> Result<Option<SchemaId>, Error> {
        let id: Option<i64> = self.read("reading an id", |c| {
            c.prepare_cached(
                "SELECT content_id FROM urns WHERE namespace = ?1 AND name = ?2 AND version = ?3",
            )?
            .query_row(params![urn.namespace(), urn.name(), urn.version()], |row| {
                row.get(0)
            })
            .optional()
        })?;
        id.map(|id| id_from_row(&self.what, id)).transpose()
    }

    fn urns_of(&self, id: SchemaId) -> Result<Vec<Urn>, Error> {
        let rows = self.read("listing the URNs of an id", |c| {
            c.prepare_cached("SELECT namespace, name, version FROM urns WHERE content_id = ?1")?
                .query_map(params![id], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                })?
                .collect()
        })?;
        self.urns(rows)
    }

    fn compatibility(&self, name: Option<&str>) -> Result<Option<Compatibility>, Error> {
        let key = name.unwrap_or("");
        let mode: Option<String> = self.read("reading a compatibility mode", |c| {
            c.prepare_cached("SELECT mode FROM modes WHERE name = ?1")?
                .query_row(params![key], |row| row.get(0))
                .optional()
        })?;
        mode.map(|mode| {
            mode.parse().map_err(|err| {
                failure(
                    format!("{}: the stored mode of {key:?} is unreadable", self.what),
                    format!("{err}"),
                )
            })
        })
        .transpose()
    }

    fn set_compatibility(
        &self,
        name: Option<&str>,
        mode: Option<Compatibility>,
    ) -> Result<(), Error> {
        let mode = mode.map(Compatibility::as_str);
        self.set_named("modes", "mode", "setting a compatibility mode", name, mode)
    }

    /// One read of the file's layout version, on a reader connection.
    fn ready(&self) -> Result<(), Error> {
        let layout: i64 = self.read("reading the layout", |connection| {
            connection.pragma_query_value(None, "user_version", |row| row.get(0))
        })?;
        layout_is_known(layout, &self.what)
    }

    fn mode(&self, name: Option<&str>) -> Result<Option<Mode>, Error> {
        let key = name.unwrap_or("");
        let mode: Option<String> = self.read("reading a registry mode", |c| {
            c.prepare_cached("SELECT mode FROM registry_modes WHERE name = ?1")?
                .query_row(params![key], |row| row.get(0))
                .optional()
        })?;
        mode.map(|mode| {
            mode.parse().map_err(|err| {
                failure(
                    format!(
                        "{}: the stored registry mode of {key:?} is unreadable",
                        self.what
                    ),
                    err,
                )
            })
        })
        .transpose()
    }

    fn set_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        let mode = mode.map(Mode::as_str);
        self.set_named(
            "registry_modes",
            "mode",
            "setting a registry mode",
            name,
            mode,
        )
    }

    fn publish_with_id(
        &self,
        schema: &Schema,
        version: Version,
        id: SchemaId,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        self.publish_as(schema, version, Some(id), check)
    }

    fn deleted(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        let namespace = namespace.to_ascii_lowercase();
        let rows: Vec<i64> = self.read("listing deleted versions", |c| {
            c.prepare_cached(
                "SELECT version FROM deleted_versions WHERE namespace = ?1 AND name = ?2
                 ORDER BY version",
            )?
            .query_map(params![namespace, name], |row| row.get(0))?
            .collect()
        })?;
        rows.into_iter()
            .map(|version| urn_from_row(&self.what, &namespace, name, version).map(|u| u.version()))
            .collect()
    }

    fn delete_versions(&self, urns: &[Urn]) -> Result<(), Error> {
        let connection = self.writer("deleting versions")?;
        let transaction = Immediate::begin(&connection)
            .map_err(|err| self.failed("taking the write lock", err))?;
        let result = (|| {
            for urn in urns {
                let held: bool = connection
                    .prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM urns
                         WHERE namespace = ?1 AND name = ?2 AND version = ?3)",
                    )
                    .and_then(|mut s| {
                        s.query_row(params![urn.namespace(), urn.name(), urn.version()], |row| {
                            row.get(0)
                        })
                    })
                    .map_err(|err| self.failed("reading a URN", err))?;
                if !held {
                    return Err(Error::NotFound { urn: urn.clone() });
                }
                connection
                    .prepare_cached(
                        "INSERT INTO deleted_versions (namespace, name, version)
                         VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                    )
                    .and_then(|mut s| {
                        s.execute(params![urn.namespace(), urn.name(), urn.version()])
                    })
                    .map_err(|err| self.failed("deleting a version", err))?;
            }
            Ok(())
        })();
        let ended = transaction
            .end(result.is_ok())
            .map_err(|err| self.failed("ending the delete", err));
        result.and(ended)
    }

    fn config(&self, name: Option<&str>) -> Result<Option<String>, Error> {
        let key = name.unwrap_or("");
        self.read("reading a config", |c| {
            c.prepare_cached("SELECT config FROM configs WHERE name = ?1")?
                .query_row(params![key], |row| row.get(0))
                .optional()
        })
    }

    fn set_config(&self, name: Option<&str>, config: Option<&str>) -> Result<(), Error> {
        self.set_named("configs", "config", "setting a config", name, config)
    }

    fn ids_of_digest_prefix(&self, prefix: &str) -> Result<Vec<SchemaId>, Error> {
        // The range of `id_of_digest_prefix`: alias keys (`<digest>#id:N`)
        // sort inside it too.
        let upper = format!("{prefix}~");
        let ids: Vec<i64> = self.read("finding the ids of a guid", |c| {
            c.prepare_cached(
                "SELECT id FROM contents WHERE digest >= ?1 AND digest < ?2 ORDER BY id",
            )?
            .query_map(params![prefix, upper], |row| row.get(0))?
            .collect()
        })?;
        ids.into_iter()
            .map(|id| id_from_row(&self.what, id))
            .collect()
    }

    fn id_of_digest_prefix(&self, prefix: &str) -> Result<Option<SchemaId>, Error> {
        // A range on the unique digest's index: every digest with the
        // prefix sorts between the prefix and the prefix followed by the
        // highest character a digest holds.
        let upper = format!("{prefix}~");
        let id: Option<i64> = self.read("finding a content by its guid", |c| {
            c.prepare_cached(
                "SELECT id FROM contents WHERE digest >= ?1 AND digest < ?2 ORDER BY id LIMIT 1",
            )?
            .query_row(params![prefix, upper], |row| row.get(0))
            .optional()
        })?;
        id.map(|id| id_from_row(&self.what, id)).transpose()
    }

    fn associations(&self, of: AssociationsOf<'_>) -> Result<Vec<Association>, Error> {
        let (clause, values) = association::filter(of);
        let rows: Vec<association::Row> = self.read("reading associations", |c| {
            c.prepare_cached(&format!(
                "SELECT {} FROM associations WHERE {clause}",
                association::COLUMNS
            ))?
            .query_map(rusqlite::params_from_iter(values), association_row)?
            .collect()
        })?;
        rows_to_associations(&self.what, rows)
    }

    fn change_associations(
        &self,
        resource_id: &str,
        subjects: &[&str],
        plan: AssociationPlan<'_>,
    ) -> Result<Vec<AssociationChange>, Error> {
        let connection = self.writer("changing associations")?;
        let transaction = Immediate::begin(&connection)
            .map_err(|err| self.failed("taking the write lock", err))?;
        let result = (|| {
            let read = |clause: &str, values: &[&str]| -> Result<Vec<Association>, Error> {
                let rows: Vec<association::Row> =
                    (|| -> rusqlite::Result<Vec<association::Row>> {
                        connection
                            .prepare_cached(&format!(
                                "SELECT {} FROM associations WHERE {clause}",
                                association::COLUMNS
                            ))?
                            .query_map(rusqlite::params_from_iter(values), association_row)?
                            .collect()
                    })()
                    .map_err(|err| self.failed("reading associations", err))?;
                rows_to_associations(&self.what, rows)
            };
            let of_resource = read("resource_id = ?1", &[resource_id])?;
            let mut of_subjects = Vec::new();
            for subject in subjects {
                of_subjects.extend(read("subject = ?1", &[*subject])?);
            }
            let mut of_subjects = association::sorted(of_subjects);
            of_subjects.dedup_by(|a, b| a.key() == b.key());
            let total: i64 = connection
                .prepare_cached("SELECT count(*) FROM associations")
                .and_then(|mut s| s.query_row([], |row| row.get(0)))
                .map_err(|err| self.failed("counting associations", err))?;
            let held = AssociationsHeld {
                of_resource,
                of_subjects,
                total: u64::try_from(total).unwrap_or(0),
            };
            let changes = plan(&held)?;
            for change in &changes {
                let written = match change {
                    AssociationChange::Put(a) => connection
                        .prepare_cached(
                            "INSERT INTO associations (subject, guid, resource_name,
                                 resource_namespace, resource_id, resource_type,
                                 association_type, lifecycle, frozen)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                             ON CONFLICT (resource_id, resource_type, association_type)
                             DO UPDATE SET subject = excluded.subject, guid = excluded.guid,
                                 resource_name = excluded.resource_name,
                                 resource_namespace = excluded.resource_namespace,
                                 lifecycle = excluded.lifecycle, frozen = excluded.frozen",
                        )
                        .and_then(|mut s| {
                            s.execute(params![
                                a.subject,
                                a.guid,
                                a.resource_name,
                                a.resource_namespace,
                                a.resource_id,
                                a.resource_type,
                                a.association_type,
                                a.lifecycle.as_str(),
                                a.frozen
                            ])
                        }),
                    AssociationChange::Remove(key) => connection
                        .prepare_cached(
                            "DELETE FROM associations WHERE resource_id = ?1
                             AND resource_type = ?2 AND association_type = ?3",
                        )
                        .and_then(|mut s| {
                            s.execute(params![
                                key.resource_id,
                                key.resource_type,
                                key.association_type
                            ])
                        }),
                };
                written.map_err(|err| self.failed("writing an association", err))?;
            }
            Ok(changes)
        })();
        let ended = transaction
            .end(result.is_ok())
            .map_err(|err| self.failed("committing the associations", err));
        match (result, ended) {
            (Ok(changes), Ok(())) => Ok(changes),
            (Err(err), _) | (Ok(_), Err(err)) => Err(err),
        }
    }

    fn referrers(&self, urn: &Urn) -> Result<Vec<Urn>, Error> {
        let needle = super::reference_needle(urn);
        let rows = self.read("listing the referrers of a URN", |c| {
            c.prepare_cached(
                "SELECT u.namespace, u.name, u.version FROM urns u
                 JOIN contracts k ON k.content_id = u.content_id
                 WHERE instr(k.contract, ?1) > 0",
            )?
            .query_map(params![needle], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })?
            .collect()
        })?;
        let candidates = self.urns(rows)?;
        super::confirm_referrers(self, urn, candidates)
    }
}

/// An association's row, as [`association::COLUMNS`] reads it.
fn association_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<association::Row> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
        row.get(7)?,
        row.get(8)?,
    ))
}

/// The associations of rows, in [`Association::order`].
fn rows_to_associations(
    what: &str,
    rows: Vec<association::Row>,
) -> Result<Vec<Association>, Error> {
    let associations = rows
        .into_iter()
        .map(|row| association::from_row(what, row))
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(association::sorted(associations))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of the first layout (before Confluent's modes and soft
    /// deletes) opens migrated: its schemas, ids and modes as they were,
    /// the new tables working.
    #[test]
    fn a_first_layout_file_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            let connection = Connection::open(&path).unwrap();
            connection.execute_batch(SCHEMA_V1).unwrap();
            connection
                .execute_batch(
                    "INSERT INTO contents (id, digest, language, root, bytes)
                     VALUES (7, 'sha256:x', 'jsonschema', NULL, CAST('{}' AS BLOB));
                     INSERT INTO urns VALUES ('acme', 'old', 1, 7);
                     INSERT INTO modes VALUES ('old', 'full');",
                )
                .unwrap();
            connection.pragma_update(None, "user_version", 1).unwrap();
        }
        let read_only = SqliteStore::open_with(&path, &Options::default().read_only(true));
        let message = read_only.unwrap_err().chain().to_string();
        assert!(message.contains("older"), "{message}");

        let store = SqliteStore::open(&path).unwrap();
        let urn = Urn::new("acme", "old", 1).unwrap();
        assert_eq!(store.id_of(&urn).unwrap(), Some(7));
        assert_eq!(store.get(&urn).unwrap().unwrap().bytes(), b"{}");
        assert_eq!(
            store.compatibility(Some("old")).unwrap(),
            Some(Compatibility::Full)
        );
        store.set_mode(Some("old"), Some(Mode::ReadOnly)).unwrap();
        store.delete_versions(std::slice::from_ref(&urn)).unwrap();
        assert_eq!(store.deleted("acme", "old").unwrap(), vec![1]);
        drop(store);
        let layout: i64 = Connection::open(&path)
            .unwrap()
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(layout, LAYOUT);
        let reopened = SqliteStore::open_with(&path, &Options::default().read_only(true)).unwrap();
        assert_eq!(reopened.mode(Some("old")).unwrap(), Some(Mode::ReadOnly));
    }
}
