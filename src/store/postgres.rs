//! [`PostgresStore`]: schemas in PostgreSQL, shared by several replicas.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use postgres::error::SqlState;
use postgres::{Client, Config, GenericClient, NoTls};

use super::association;
use super::{
    content_digest, corrupt, decide, failure, given_id_row, id_from_row, ids_exhausted, live,
    schema_from_row, urn_from_row, with_contract_row, Check, Decision, Held, IdRow, Mode, Options,
    SchemaId, Store, Stored, Version, MAX_ID,
};
use super::{Association, AssociationChange, AssociationPlan, AssociationsHeld, AssociationsOf};
use dataschema_core::sha256_hex;
use dataschema_core::{Compatibility, Error, Schema, Urn};

/// The key of the advisory lock migrations run under ("dataschema" in
/// ASCII, truncated to 8 bytes).
const MIGRATION_LOCK: i64 = 0x6461_7461_7363_6865;

/// The key of the advisory lock association changes run under ("assocs"
/// in ASCII): one for the whole database, so the plans of replicas take
/// turns.
const ASSOCIATION_LOCK: i64 = 0x6173_736f_6373;

/// How many times a transaction that failed for a reason worth retrying
/// (serialization failure, deadlock, unique violation, a pooled connection
/// found closed) is run in all.
const ATTEMPTS: u32 = 5;

/// The migrations, in order: each runs once, in the transaction that
/// records it in `dataschema_migrations`.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE dataschema_contents (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY CHECK (id BETWEEN 1 AND 2147483647),
    digest TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    root TEXT,
    bytes BYTEA NOT NULL
);
CREATE TABLE dataschema_urns (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    version BIGINT NOT NULL CHECK (version BETWEEN 1 AND 4294967295),
    content_id BIGINT NOT NULL REFERENCES dataschema_contents (id),
    published_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, name, version)
);
CREATE INDEX dataschema_urns_by_content ON dataschema_urns (content_id);
CREATE TABLE dataschema_modes (
    name TEXT PRIMARY KEY,
    mode TEXT NOT NULL
);
",
    CONFLUENT_MODES_AND_DELETES,
    CONTRACTS,
    ASSOCIATIONS,
];

/// Migration 2: Confluent's registry modes (the name `''` holds the
/// store-wide one), and the soft-deleted versions.
const CONFLUENT_MODES_AND_DELETES: &str = "
CREATE TABLE dataschema_registry_modes (
    name TEXT PRIMARY KEY,
    mode TEXT NOT NULL
);
CREATE TABLE dataschema_deleted_versions (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    version BIGINT NOT NULL,
    deleted_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, name, version),
    FOREIGN KEY (namespace, name, version) REFERENCES dataschema_urns (namespace, name, version)
);
";
/// Migration 3: a content's references, metadata and rule set
/// ([`Schema::contract_json`]), and a subject's settings beside its
/// compatibility mode (Confluent's config), as JSON text.
const CONTRACTS: &str = "
CREATE TABLE dataschema_contracts (
    content_id BIGINT PRIMARY KEY REFERENCES dataschema_contents (id),
    contract TEXT NOT NULL
);
CREATE TABLE dataschema_configs (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL
);
";

/// Migration 4: Confluent's associations between resources and subjects,
/// one row per resource id, resource type and association type.
const ASSOCIATIONS: &str = "
CREATE TABLE dataschema_associations (
    resource_id TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    association_type TEXT NOT NULL,
    subject TEXT NOT NULL,
    guid TEXT NOT NULL,
    resource_name TEXT NOT NULL,
    resource_namespace TEXT NOT NULL,
    lifecycle TEXT NOT NULL,
    frozen BOOLEAN NOT NULL,
    PRIMARY KEY (resource_id, resource_type, association_type)
);
CREATE INDEX dataschema_associations_by_subject ON dataschema_associations (subject);
CREATE INDEX dataschema_associations_by_name
    ON dataschema_associations (resource_name, resource_namespace);
CREATE INDEX dataschema_associations_by_namespace
    ON dataschema_associations (resource_namespace);
";

/// A [`Store`] in PostgreSQL: several registry servers (replicas) over
/// one database share it, and see one history.
///
/// [`connect`](PostgresStore::connect) applies the schema migrations under
/// an advisory lock (`pg_advisory_xact_lock`), so replicas starting at once
/// migrate once; the tables are `dataschema_contents`, `dataschema_urns`,
/// `dataschema_modes` and `dataschema_migrations`.
///
/// Ids come from an identity column of `dataschema_contents` (a database
/// sequence) under a `UNIQUE` content digest: one content has one id
/// across replicas and restarts, and an id is never reused. A publish is
/// one transaction that first takes the transaction-level advisory lock
/// on a hash of the namespace and name (released at commit), so the
/// compatibility check
/// and the insert it allows cannot interleave with another replica's
/// publish of the same name; the URN's primary key refuses a second insert
/// whatever happens. A transaction failing with a serialization failure,
/// a deadlock or a unique violation (two replicas inserting one content at
/// once) is retried, 5 attempts in all.
///
/// Every wait is bounded ([`Options`]): a publish waits for its name's lock
/// up to the lock timeout (`lock_timeout`, 10 s by default), a statement
/// runs up to the statement timeout (`statement_timeout`, 30 s), and a
/// transaction left idle (a replica stopped mid-publish, holding the lock)
/// is ended by the server after the statement timeout too
/// (`idle_in_transaction_session_timeout`), which frees the lock.
///
/// Waiting for a name's lock holds no connection. Within the process, at
/// most one publish per name is on the database at a time; the others of
/// that name wait in the process. That one asks for the lock without
/// waiting (`pg_try_advisory_xact_lock`) and, when another replica holds
/// it, rolls back, gives its connection back and asks again a little later
/// (every 2 ms at first, then at most every 64 ms), until the lock timeout.
/// So a stopped replica costs the publishes of the names it locked, each
/// for a bounded time, and nothing else: reads and the publishes of every
/// other name keep the whole pool.
///
/// Read-only ([`connect_with`](PostgresStore::connect_with) and
/// [`Options::read_only`]): no migration runs; the database must hold
/// this version's migrations (one never migrated is refused, saying so),
/// and every transaction is read-only (`default_transaction_read_only`),
/// so a `SELECT`-only role and a hot standby work.
///
/// Connections: the sync `postgres` client, in a pool of at most 8 (see
/// [`Options::max_connections`]), of which publishes use at most half; a
/// caller waits for a free one up to the acquire timeout (10 s by
/// default). The sync client runs a small runtime of its own
/// per connection, so from async code call the store through
/// `tokio::task::spawn_blocking` (as the server does), never directly on
/// a runtime's worker thread. Dropping the store anywhere is fine: its
/// connections are closed on a thread of their own.
pub struct PostgresStore {
    config: Config,
    what: String,
    options: Options,
    /// The session settings each new connection runs.
    setup: String,
    pool: Mutex<Pool>,
    freed: Condvar,
    max: usize,
    /// How many publishes may hold a connection at once.
    max_publishing: usize,
    /// The lock keys of the names a publish of this store is on (asking
    /// the database for the name's lock, or holding it): one per name.
    names: Mutex<HashSet<i64>>,
    /// Signalled when a name leaves `names`.
    name_freed: Condvar,
}

/// A name's turn among this store's publishes (see
/// [`PostgresStore::name_turn`]); the next publish of the name gets it
/// when this drops.
struct NameTurn<'a> {
    store: &'a PostgresStore,
    key: i64,
}

impl Drop for NameTurn<'_> {
    fn drop(&mut self) {
        self.store.names.lock().remove(&self.key);
        self.store.name_freed.notify_all();
    }
}

/// A connection taken from the pool by [`PostgresStore::run_as`], while
/// an attempt runs on it. Settled, the connection goes back to the pool.
/// Dropped unsettled (the attempt panicked: a caller's check, say), it is
/// forgotten: the unwinding closes it, and the pool's counts drop with it,
/// so a panic costs no connection for good.
struct Lease<'a> {
    store: &'a PostgresStore,
    publishing: bool,
    settled: bool,
}

impl Lease<'_> {
    fn settle(mut self) {
        self.settled = true;
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let mut pool = self.store.pool.lock();
        pool.open -= 1;
        if self.publishing {
            pool.publishing -= 1;
        }
        drop(pool);
        self.store.freed.notify_all();
    }
}

struct Pool {
    idle: Vec<Client>,
    open: usize,
    publishing: usize,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("database", &self.what)
            .finish_non_exhaustive()
    }
}

/// Why one attempt of a transaction ended.
enum Attempt {
    /// The database failed: maybe worth another attempt.
    Database(postgres::Error),
    /// A final answer (immutability, a refused check, an unreadable row).
    Final(Error),
    /// The name's lock is held elsewhere (another replica's publish): the
    /// transaction is rolled back, and asked again later, up to the lock
    /// timeout, holding no connection meanwhile.
    Locked,
}

impl From<postgres::Error> for Attempt {
    fn from(err: postgres::Error) -> Attempt {
        Attempt::Database(err)
    }
}

impl From<Error> for Attempt {
    fn from(err: Error) -> Attempt {
        Attempt::Final(err)
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (a `postgres://` URL or a
    /// `key=value` connection string), and applies the migrations it
    /// lacks. A server that cannot be reached, refused credentials or a
    /// database that does not exist is [`Error::Store`]. Without a
    /// `connect_timeout` in the URL, connecting gives up after 10 s.
    pub fn connect(url: &str) -> Result<PostgresStore, Error> {
        PostgresStore::connect_with(url, &Options::default())
    }

    /// [`connect`](PostgresStore::connect), with at most `max_connections`
    /// connections open at once (at least 1).
    pub fn connect_with_pool(url: &str, max_connections: usize) -> Result<PostgresStore, Error> {
        PostgresStore::connect_with(url, &Options::default().max_connections(max_connections))
    }

    /// [`connect`](PostgresStore::connect) with `options`: read-only (no
    /// migration; the database must be migrated), the bounds on each wait,
    /// the pool's size. The URL's password appears in no message.
    pub fn connect_with(url: &str, options: &Options) -> Result<PostgresStore, Error> {
        let mut config: Config = url
            .parse()
            .map_err(|err| failure("PostgreSQL store: the connection URL is not valid", err))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        if config.get_application_name().is_none() {
            config.application_name("dataschema");
        }
        let what = format!(
            "PostgreSQL store (database {:?})",
            config.get_dbname().unwrap_or("")
        );
        let millis = |d: Duration| d.as_millis().clamp(1, i32::MAX as u128);
        let setup = format!(
            "SET lock_timeout = {}; SET statement_timeout = {}; \
             SET idle_in_transaction_session_timeout = {}; \
             SET default_transaction_read_only = {}",
            millis(options.lock_timeout),
            millis(options.statement_timeout),
            millis(options.statement_timeout),
            if options.read_only { "on" } else { "off" },
        );
        let max = options.max_connections.max(1);
        let store = PostgresStore {
            config,
            what,
            options: options.clone(),
            setup,
            pool: Mutex::new(Pool {
                idle: Vec::new(),
                open: 0,
                publishing: 0,
            }),
            freed: Condvar::new(),
            max,
            max_publishing: max.div_ceil(2),
            names: Mutex::new(HashSet::new()),
            name_freed: Condvar::new(),
        };
        if options.read_only {
            store.check_migrated()?;
        } else {
            store.migrate()?;
        }
        Ok(store)
    }

    fn failed(&self, doing: &str, err: impl Into<dataschema_core::BoxError>) -> Error {
        failure(format!("{}: {doing}", self.what), err)
    }

    /// What a lock that stayed held past the lock timeout is.
    fn lock_not_free(&self) -> String {
        format!(
            "a lock was not free within the lock timeout ({} ms): another publish of \
             the name holds it, perhaps on a replica that stopped",
            self.options.lock_timeout.as_millis()
        )
    }

    /// A database error, saying which bound ran out when one did.
    fn failed_database(&self, doing: &str, err: postgres::Error) -> Error {
        let bound = match err.code() {
            Some(&SqlState::LOCK_NOT_AVAILABLE) => Some(self.lock_not_free()),
            Some(&SqlState::QUERY_CANCELED) => Some(format!(
                "a statement ran past the statement timeout ({} ms)",
                self.options.statement_timeout.as_millis()
            )),
            Some(&SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT) => Some(format!(
                "the transaction stayed idle past the statement timeout ({} ms)",
                self.options.statement_timeout.as_millis()
            )),
            Some(&SqlState::READ_ONLY_SQL_TRANSACTION) => {
                Some("the database is read-only here".to_owned())
            }
            _ => None,
        };
        match bound {
            Some(bound) => self.failed(&format!("{doing}: {bound}"), err),
            None => self.failed(doing, err),
        }
    }

    /// A connection: an idle one (`true`), else a new one when fewer than
    /// the maximum are open, else the next one freed, waited for up to the
    /// acquire timeout. A publish (`publishing`) also waits for one of the
    /// publishes' share of the pool.
    fn take(&self, publishing: bool) -> Result<(Client, bool), Error> {
        let deadline = std::time::Instant::now() + self.options.acquire_timeout;
        let mut pool = self.pool.lock();
        if publishing {
            while pool.publishing >= self.max_publishing {
                if self.freed.wait_until(&mut pool, deadline).timed_out()
                    && pool.publishing >= self.max_publishing
                {
                    return Err(self.busy(true));
                }
            }
            pool.publishing += 1;
        }
        let taken = loop {
            if let Some(client) = pool.idle.pop() {
                break Ok((client, true));
            }
            if pool.open < self.max {
                pool.open += 1;
                drop(pool);
                let connected = self.new_connection();
                pool = self.pool.lock();
                if connected.is_err() {
                    pool.open -= 1;
                    self.freed.notify_all();
                }
                break connected.map(|client| (client, false));
            }
            if self.freed.wait_until(&mut pool, deadline).timed_out()
                && pool.idle.is_empty()
                && pool.open >= self.max
            {
                break Err(self.busy(false));
            }
        };
        if taken.is_err() && publishing {
            pool.publishing -= 1;
            self.freed.notify_all();
        }
        taken
    }

    /// No connection (or, for a publish, no publish's share) came free in
    /// time.
    fn busy(&self, publishing: bool) -> Error {
        let what = if publishing {
            format!(
                "all {} connections publishes may use are in use (publishes waiting for a \
                 name's lock, perhaps)",
                self.max_publishing
            )
        } else {
            format!("all {} connections are in use", self.max)
        };
        corrupt(format!(
            "{}: no connection came free within the acquire timeout ({} ms): {what}",
            self.what,
            self.options.acquire_timeout.as_millis()
        ))
    }

    /// A new connection, with the session's bounds set.
    fn new_connection(&self) -> Result<Client, Error> {
        let mut client = self
            .config
            .connect(NoTls)
            .map_err(|err| self.failed("connecting", err))?;
        client
            .batch_execute(&self.setup)
            .map_err(|err| self.failed("setting the session's timeouts up", err))?;
        Ok(client)
    }

    /// Gives `client` back (or, when its connection is closed, forgets it).
    fn give_back(&self, client: Client, publishing: bool) {
        let mut pool = self.pool.lock();
        if publishing {
            pool.publishing -= 1;
        }
        if client.is_closed() {
            pool.open -= 1;
            drop(pool);
            drop(client);
        } else {
            pool.idle.push(client);
        }
        // Waiters wait for different things (a connection, a publish's
        // share): wake them all to look.
        self.freed.notify_all();
    }

    /// The turn of the name whose lock key is `key` among this store's
    /// publishes, waited for in the process (holding no connection) up to
    /// `deadline`.
    fn name_turn(&self, key: i64, doing: &str, deadline: Instant) -> Result<NameTurn<'_>, Error> {
        let mut names = self.names.lock();
        while names.contains(&key) {
            if self.name_freed.wait_until(&mut names, deadline).timed_out() && names.contains(&key)
            {
                return Err(corrupt(format!(
                    "{}: {doing}: {}",
                    self.what,
                    self.lock_not_free()
                )));
            }
        }
        names.insert(key);
        Ok(NameTurn { store: self, key })
    }

    /// Runs `attempt` on a pooled connection, again (up to [`ATTEMPTS`] in
    /// all) when it failed for a reason a new attempt can cure.
    fn run<T>(
        &self,
        doing: &str,
        attempt: impl FnMut(&mut Client) -> Result<T, Attempt>,
    ) -> Result<T, Error> {
        self.run_as(doing, false, None, attempt)
    }

    /// [`run`](PostgresStore::run), as a publish (`publishing`) or not;
    /// an attempt that found a lock held ([`Attempt::Locked`]) is run
    /// again, on a connection taken anew, until `lock_deadline`.
    fn run_as<T>(
        &self,
        doing: &str,
        publishing: bool,
        lock_deadline: Option<Instant>,
        mut attempt: impl FnMut(&mut Client) -> Result<T, Attempt>,
    ) -> Result<T, Error> {
        let mut tries = 0;
        let mut pause = Duration::from_millis(2);
        loop {
            tries += 1;
            let (mut client, pooled) = self.take(publishing)?;
            let lease = Lease {
                store: self,
                publishing,
                settled: false,
            };
            let result = attempt(&mut client);
            lease.settle();
            self.give_back(client, publishing);
            match result {
                Ok(value) => return Ok(value),
                Err(Attempt::Final(err)) => return Err(err),
                Err(Attempt::Locked) => {
                    tries -= 1;
                    let now = Instant::now();
                    let left = lock_deadline.map_or(Duration::ZERO, |deadline| {
                        deadline.saturating_duration_since(now)
                    });
                    if left.is_zero() {
                        return Err(corrupt(format!(
                            "{}: {doing}: {}",
                            self.what,
                            self.lock_not_free()
                        )));
                    }
                    std::thread::sleep(pause.min(left));
                    pause = (pause * 2).min(Duration::from_millis(64));
                }
                Err(Attempt::Database(err)) => {
                    // A pooled connection the server closed (a restart, an
                    // idle timeout) is worth one more try on a new one.
                    let again = matches!(
                        err.code(),
                        Some(&SqlState::T_R_SERIALIZATION_FAILURE)
                            | Some(&SqlState::T_R_DEADLOCK_DETECTED)
                            | Some(&SqlState::UNIQUE_VIOLATION)
                            // The sequence passed the largest id between
                            // the look and the insert (a replica took the
                            // last one): the next attempt takes a free id.
                            | Some(&SqlState::CHECK_VIOLATION)
                    ) || (pooled && err.is_closed());
                    if !again || tries >= ATTEMPTS {
                        return Err(self.failed_database(doing, err));
                    }
                    std::thread::sleep(Duration::from_millis(5 << tries));
                }
            }
        }
    }

    /// Applies the migrations this database lacks, under an advisory lock
    /// held until the transaction commits.
    fn migrate(&self) -> Result<(), Error> {
        self.run("applying migrations", |client| {
            let mut transaction = client.transaction()?;
            transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
            transaction.batch_execute(
                "CREATE TABLE IF NOT EXISTS dataschema_migrations (
                     version INTEGER PRIMARY KEY,
                     applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                 )",
            )?;
            let applied: Option<i32> = transaction
                .query_one("SELECT max(version) FROM dataschema_migrations", &[])?
                .get(0);
            let applied = applied.unwrap_or(0);
            let known = MIGRATIONS.len() as i32;
            if applied > known {
                return Err(Attempt::Final(corrupt(format!(
                    "{}: the database has migration {applied}, newer than this version \
                     of dataschema knows ({known}): upgrade dataschema",
                    self.what
                ))));
            }
            for (version, sql) in (1..).zip(MIGRATIONS).skip(applied as usize) {
                transaction.batch_execute(sql)?;
                transaction.execute(
                    "INSERT INTO dataschema_migrations (version) VALUES ($1)",
                    &[&version],
                )?;
            }
            transaction.commit()?;
            Ok(())
        })
    }

    /// A read-only store's check: the database holds this version's
    /// migrations, all of them.
    fn check_migrated(&self) -> Result<(), Error> {
        let known = MIGRATIONS.len() as i32;
        let applied = self.run("checking the migrations", |client| {
            let exists: bool = client
                .query_one(
                    "SELECT to_regclass('dataschema_migrations') IS NOT NULL",
                    &[],
                )?
                .try_get(0)?;
            if !exists {
                return Ok(None);
            }
            let applied: Option<i32> = client
                .query_one("SELECT max(version) FROM dataschema_migrations", &[])?
                .try_get(0)?;
            Ok(Some(applied.unwrap_or(0)))
        })?;
        match applied {
            Some(applied) if applied == known => Ok(()),
            None | Some(0) => Err(corrupt(format!(
                "{}: the database has no dataschema tables (it was never migrated): a \
                 read-only store needs them; connect once without read-only, as a role \
                 that may create tables, to migrate it",
                self.what
            ))),
            Some(applied) if applied > known => Err(corrupt(format!(
                "{}: the database has migration {applied}, newer than this version of \
                 dataschema knows ({known}): upgrade dataschema",
                self.what
            ))),
            Some(applied) => Err(corrupt(format!(
                "{}: the database has migration {applied} of {known}: connect once without \
                 read-only, as a role that may alter tables, to migrate it",
                self.what
            ))),
        }
    }

    /// A publish or mode change on a read-only store: refused.
    fn writable(&self, doing: &str) -> Result<(), Error> {
        if self.options.read_only {
            return Err(corrupt(format!(
                "{}: {doing}: the store is open read-only",
                self.what
            )));
        }
        Ok(())
    }

    fn held(&self, client: &mut impl GenericClient, urn: &Urn) -> Result<Vec<Held>, Attempt> {
        let rows = client.query(
            "SELECT u.version, c.language, c.root, c.bytes, c.digest, c.id,
                    EXISTS (SELECT 1 FROM dataschema_deleted_versions d
                            WHERE d.namespace = u.namespace AND d.name = u.name
                              AND d.version = u.version), k.contract
             FROM dataschema_urns u JOIN dataschema_contents c ON c.id = u.content_id
             LEFT JOIN dataschema_contracts k ON k.content_id = c.id
             WHERE u.namespace = $1 AND u.name = $2 ORDER BY u.version",
            &[&urn.namespace(), &urn.name()],
        )?;
        let mut held = Vec::with_capacity(rows.len());
        for row in rows {
            let schema = schema_from_row(
                &self.what,
                urn.namespace(),
                urn.name(),
                row.try_get(0)?,
                row.try_get(1)?,
                row.try_get(2)?,
                row.try_get(3)?,
            )?;
            let contract: Option<String> = row.try_get(7)?;
            let schema = with_contract_row(&self.what, schema, contract.as_deref())?;
            held.push(Held {
                schema,
                digest: row.try_get(4)?,
                id: id_from_row(&self.what, row.try_get(5)?)?,
                deleted: row.try_get(6)?,
            });
        }
        Ok(held)
    }

    /// Sets (`Some`) or clears (`None`) the text kept for `name` (`None`:
    /// the store-wide entry, kept under `''`) in one of the named-settings
    /// tables (`dataschema_modes`, `dataschema_registry_modes`,
    /// `dataschema_configs`: each `(name, column)`).
    fn set_named(
        &self,
        table: &str,
        column: &str,
        what: &str,
        name: Option<&str>,
        value: Option<&str>,
    ) -> Result<(), Error> {
        self.writable(what)?;
        let key = name.unwrap_or("");
        self.run(what, |client| {
            match value {
                Some(value) => client.execute(
                    &format!(
                        "INSERT INTO {table} (name, {column}) VALUES ($1, $2)
                         ON CONFLICT (name) DO UPDATE SET {column} = excluded.{column}"
                    ),
                    &[&key, &value],
                )?,
                None => client.execute(&format!("DELETE FROM {table} WHERE name = $1"), &[&key])?,
            };
            Ok(())
        })
    }

    /// A publish, with the content's id given (`Some`) or allocated.
    fn publish_as(
        &self,
        schema: &Schema,
        version: Version,
        given: Option<SchemaId>,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        self.writable("publishing")?;
        let digest = content_digest(schema);
        let lock = name_lock(schema.urn().namespace(), schema.urn().name());
        let deadline = Instant::now() + self.options.lock_timeout;
        let _turn = self.name_turn(lock, "publishing", deadline)?;
        self.run_as("publishing", true, Some(deadline), |client| {
            let mut transaction = client.transaction()?;
            let locked: bool = transaction
                .query_one("SELECT pg_try_advisory_xact_lock($1)", &[&lock])?
                .try_get(0)?;
            if !locked {
                // Dropping the transaction rolls it back.
                return Err(Attempt::Locked);
            }
            let held = self.held(&mut transaction, schema.urn())?;
            let schema = match decide(schema, version, &digest, given, &held)? {
                // Dropping the transaction rolls it back.
                Decision::Held(stored) => return Ok(stored),
                Decision::Insert(schema) => schema,
            };
            let row = match given {
                Some(id) => Some((id, self.given_row(&mut transaction, &schema, &digest, id)?)),
                None => None,
            };
            check(&schema, &live(held))?;
            let id: i64 = match &row {
                Some((id, IdRow::Held)) => i64::from(*id),
                Some((id, IdRow::Insert(key))) => {
                    // No `ON CONFLICT`: a replica that stored the content
                    // or the id meanwhile (under another name's lock)
                    // makes this a unique violation, retried into a decision
                    // that sees it.
                    transaction.execute(
                        "INSERT INTO dataschema_contents (id, digest, language, root, bytes)
                         OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5)",
                        &[
                            &i64::from(*id),
                            key,
                            &schema.language().as_str(),
                            &schema.root(),
                            &schema.bytes(),
                        ],
                    )?;
                    // The sequence is raised past the id given: it never
                    // hands it out (sequences only go up, whoever commits).
                    transaction.execute(
                        "SELECT setval(pg_get_serial_sequence('dataschema_contents', 'id'),
                                GREATEST($1, nextval(pg_get_serial_sequence('dataschema_contents', 'id'))))",
                        &[&i64::from(*id)],
                    )?;
                    i64::from(*id)
                }
                None if self.sequence_spent(&mut transaction, &digest)? => {
                    // The sequence would number it past the largest id
                    // (an import gave it): the lowest id no row holds.
                    // A replica choosing the same id meanwhile makes this
                    // a unique violation, retried into a decision that sees
                    // it.
                    let free = transaction.query_opt(
                        "SELECT 1::BIGINT WHERE NOT EXISTS (SELECT 1 FROM dataschema_contents WHERE id = 1)
                         UNION ALL
                         (SELECT c.id + 1 FROM dataschema_contents c
                          WHERE c.id < $1
                            AND NOT EXISTS (SELECT 1 FROM dataschema_contents d WHERE d.id = c.id + 1)
                          ORDER BY c.id LIMIT 1)
                         ORDER BY 1 LIMIT 1",
                        &[&i64::from(MAX_ID)],
                    )?;
                    let Some(free) = free else {
                        return Err(Attempt::Final(ids_exhausted(&self.what)));
                    };
                    let id: i64 = free.try_get(0)?;
                    transaction.execute(
                        "INSERT INTO dataschema_contents (id, digest, language, root, bytes)
                         OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5)",
                        &[
                            &id,
                            &digest,
                            &schema.language().as_str(),
                            &schema.root(),
                            &schema.bytes(),
                        ],
                    )?;
                    id
                }
                None => {
                    let inserted = transaction.query_opt(
                        "INSERT INTO dataschema_contents (digest, language, root, bytes)
                         VALUES ($1, $2, $3, $4) ON CONFLICT (digest) DO NOTHING RETURNING id",
                        &[
                            &digest,
                            &schema.language().as_str(),
                            &schema.root(),
                            &schema.bytes(),
                        ],
                    )?;
                    match inserted {
                        Some(row) => row.try_get(0)?,
                        None => transaction
                            .query_one(
                                "SELECT id FROM dataschema_contents WHERE digest = $1",
                                &[&digest],
                            )?
                            .try_get(0)?,
                    }
                }
            };
            let id = id_from_row(&self.what, id)?;
            if let Some(contract) = schema.contract_json() {
                transaction.execute(
                    "INSERT INTO dataschema_contracts (content_id, contract) VALUES ($1, $2)
                     ON CONFLICT (content_id) DO NOTHING",
                    &[&i64::from(id), &contract],
                )?;
            }
            let urn = schema.urn();
            transaction.execute(
                "INSERT INTO dataschema_urns (namespace, name, version, content_id)
                 VALUES ($1, $2, $3, $4)",
                &[
                    &urn.namespace(),
                    &urn.name(),
                    &i64::from(urn.version()),
                    &i64::from(id),
                ],
            )?;
            transaction.commit()?;
            Ok(Stored::new(urn.clone(), id, true))
        })
    }

    /// Whether a new content (`digest`, held by no row) would be numbered
    /// past [`MAX_ID`] by the identity sequence (an import gave the
    /// largest id, and the sequence was raised to it).
    fn sequence_spent(
        &self,
        client: &mut impl GenericClient,
        digest: &str,
    ) -> Result<bool, Attempt> {
        let row = client.query_one(
            "SELECT EXISTS (SELECT 1 FROM dataschema_contents WHERE digest = $1),
                    COALESCE(pg_sequence_last_value(
                        pg_get_serial_sequence('dataschema_contents', 'id')::regclass), 0)",
            &[&digest],
        )?;
        let held: bool = row.try_get(0)?;
        let last: i64 = row.try_get(1)?;
        Ok(!held && last >= i64::from(MAX_ID))
    }

    /// Where a publish with the id `id` given keeps its content, under the
    /// name's lock ([`given_id_row`]). A racing import of the same id or
    /// content under another name meets the unique key at the insert, and
    /// is retried into this check.
    fn given_row(
        &self,
        client: &mut impl GenericClient,
        schema: &Schema,
        digest: &str,
        id: SchemaId,
    ) -> Result<IdRow, Attempt> {
        let key = client.query_opt(
            "SELECT digest FROM dataschema_contents WHERE id = $1",
            &[&i64::from(id)],
        )?;
        let id_row = match key {
            Some(row) => {
                let key: String = row.try_get(0)?;
                let holder = client.query_opt(
                    "SELECT namespace, name, version FROM dataschema_urns WHERE content_id = $1
                     ORDER BY namespace, name, version LIMIT 1",
                    &[&i64::from(id)],
                )?;
                let holder = match holder {
                    Some(row) => Some(urn_from_row(
                        &self.what,
                        row.try_get(0)?,
                        row.try_get(1)?,
                        row.try_get(2)?,
                    )?),
                    None => None,
                };
                Some((key, holder))
            }
            None => None,
        };
        let content_held = client
            .query_opt(
                "SELECT id FROM dataschema_contents WHERE digest = $1",
                &[&digest],
            )?
            .is_some();
        Ok(given_id_row(schema, digest, id, id_row, content_held)?)
    }

    /// The associations of the rows `clause` (with `$n` parameters
    /// `values`) selects, in [`Association::order`].
    fn associations_where(
        &self,
        client: &mut impl GenericClient,
        clause: &str,
        values: &[&str],
    ) -> Result<Vec<Association>, Attempt> {
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> = values
            .iter()
            .map(|v| v as &(dyn postgres::types::ToSql + Sync))
            .collect();
        let rows = client.query(
            &format!(
                "SELECT {} FROM dataschema_associations WHERE {clause}",
                association::COLUMNS
            ),
            &params,
        )?;
        let mut associations = Vec::with_capacity(rows.len());
        for row in rows {
            let row: association::Row = (
                row.try_get(0)?,
                row.try_get(1)?,
                row.try_get(2)?,
                row.try_get(3)?,
                row.try_get(4)?,
                row.try_get(5)?,
                row.try_get(6)?,
                row.try_get(7)?,
                row.try_get(8)?,
            );
            associations.push(association::from_row(&self.what, row)?);
        }
        Ok(association::sorted(associations))
    }

    fn urns(&self, rows: Vec<postgres::Row>) -> Result<Vec<Urn>, Attempt> {
        let mut urns = Vec::with_capacity(rows.len());
        for row in rows {
            urns.push(urn_from_row(
                &self.what,
                row.try_get(0)?,
                row.try_get(1)?,
                row.try_get(2)?,
            )?);
        }
        // Ordered as `Urn` orders, whatever the database's collation.
        urns.sort_unstable();
        Ok(urns)
    }
}

/// The advisory lock key of a name: the first 8 bytes of a SHA-256 of it
/// (the same on every replica and every PostgreSQL version).
fn name_lock(namespace: &str, name: &str) -> i64 {
    let digest = sha256_hex(format!("dataschema publish {namespace}/{name}").as_bytes());
    let hex = digest.trim_start_matches("sha256:");
    u64::from_str_radix(&hex[..16], 16).map_or(0, |key| key as i64)
}

impl Store for PostgresStore {
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
        self.run("reading a schema", |client| {
            let row = client.query_opt(
                "SELECT c.language, c.root, c.bytes, k.contract
                 FROM dataschema_urns u JOIN dataschema_contents c ON c.id = u.content_id
                 LEFT JOIN dataschema_contracts k ON k.content_id = c.id
                 WHERE u.namespace = $1 AND u.name = $2 AND u.version = $3",
                &[&urn.namespace(), &urn.name(), &i64::from(urn.version())],
            )?;
            let Some(row) = row else { return Ok(None) };
            let schema = schema_from_row(
                &self.what,
                urn.namespace(),
                urn.name(),
                i64::from(urn.version()),
                row.try_get(0)?,
                row.try_get(1)?,
                row.try_get(2)?,
            )?;
            let contract: Option<String> = row.try_get(3)?;
            Ok(Some(with_contract_row(
                &self.what,
                schema,
                contract.as_deref(),
            )?))
        })
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
        self.run("listing versions", |client| {
            let rows = client.query(
                "SELECT version FROM dataschema_urns
                 WHERE namespace = $1 AND name = $2 ORDER BY version",
                &[&namespace, &name],
            )?;
            let mut versions = Vec::with_capacity(rows.len());
            for row in rows {
                let urn = urn_from_row(&self.what, &namespace, name, row.try_get(0)?)?;
                versions.push(urn.version());
            }
            Ok(versions)
        })
    }

    fn list(&self) -> Result<Vec<Urn>, Error> {
        self.run("listing URNs", |client| {
            let rows = client.query("SELECT namespace, name, version FROM dataschema_urns", &[])?;
            self.urns(rows)
        })
    }

    fn id_of(&self, urn: &Urn) -> Result<Option<SchemaId>, Error> {
        self.run("reading an id", |client| {
            let row = client.query_opt(
                "SELECT content_id FROM dataschema_urns
                 WHERE namespace = $1 AND name = $2 AND version = $3",
                &[&urn.namespace(), &urn.name(), &i64::from(urn.version())],
            )?;
            match row {
                Some(row) => Ok(Some(id_from_row(&self.what, row.try_get(0)?)?)),
                None => Ok(None),
            }
        })
    }

    fn urns_of(&self, id: SchemaId) -> Result<Vec<Urn>, Error> {
        self.run("listing the URNs of an id", |client| {
            let rows = client.query(
                "SELECT namespace, name, version FROM dataschema_urns WHERE content_id = $1",
                &[&i64::from(id)],
            )?;
            self.urns(rows)
        })
    }

    fn compatibility(&self, name: Option<&str>) -> Result<Option<Compatibility>, Error> {
        let key = name.unwrap_or("");
        self.run("reading a compatibility mode", |client| {
            let row =
                client.query_opt("SELECT mode FROM dataschema_modes WHERE name = $1", &[&key])?;
            let Some(row) = row else { return Ok(None) };
            let mode: String = row.try_get(0)?;
            let mode = mode.parse().map_err(|err| {
                self.failed(
                    &format!("the stored mode of {key:?} is unreadable"),
                    format!("{err}"),
                )
            })?;
            Ok(Some(mode))
        })
    }

    fn set_compatibility(
        &self,
        name: Option<&str>,
        mode: Option<Compatibility>,
    ) -> Result<(), Error> {
        let mode = mode.map(Compatibility::as_str);
        self.set_named(
            "dataschema_modes",
            "mode",
            "setting a compatibility mode",
            name,
            mode,
        )
    }

    /// A pooled connection (within the acquire timeout), then the
    /// migrations read back: all of this version's, none newer.
    fn ready(&self) -> Result<(), Error> {
        self.check_migrated()
    }

    fn mode(&self, name: Option<&str>) -> Result<Option<Mode>, Error> {
        let key = name.unwrap_or("");
        self.run("reading a registry mode", |client| {
            let row = client.query_opt(
                "SELECT mode FROM dataschema_registry_modes WHERE name = $1",
                &[&key],
            )?;
            let Some(row) = row else { return Ok(None) };
            let mode: String = row.try_get(0)?;
            let mode = mode.parse().map_err(|err| {
                self.failed(
                    &format!("the stored registry mode of {key:?} is unreadable"),
                    err,
                )
            })?;
            Ok(Some(mode))
        })
    }

    fn set_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        let mode = mode.map(Mode::as_str);
        self.set_named(
            "dataschema_registry_modes",
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
        self.run("listing deleted versions", |client| {
            let rows = client.query(
                "SELECT version FROM dataschema_deleted_versions
                 WHERE namespace = $1 AND name = $2 ORDER BY version",
                &[&namespace, &name],
            )?;
            let mut versions = Vec::with_capacity(rows.len());
            for row in rows {
                let urn = urn_from_row(&self.what, &namespace, name, row.try_get(0)?)?;
                versions.push(urn.version());
            }
            Ok(versions)
        })
    }

    fn delete_versions(&self, urns: &[Urn]) -> Result<(), Error> {
        self.writable("deleting versions")?;
        self.run_as("deleting versions", true, None, |client| {
            let mut transaction = client.transaction()?;
            for urn in urns {
                let held = transaction.query_opt(
                    "SELECT 1 FROM dataschema_urns
                     WHERE namespace = $1 AND name = $2 AND version = $3",
                    &[&urn.namespace(), &urn.name(), &i64::from(urn.version())],
                )?;
                if held.is_none() {
                    return Err(Attempt::Final(Error::NotFound { urn: urn.clone() }));
                }
                transaction.execute(
                    "INSERT INTO dataschema_deleted_versions (namespace, name, version)
                     VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    &[&urn.namespace(), &urn.name(), &i64::from(urn.version())],
                )?;
            }
            transaction.commit()?;
            Ok(())
        })
    }

    fn config(&self, name: Option<&str>) -> Result<Option<String>, Error> {
        let key = name.unwrap_or("");
        self.run("reading a config", |client| {
            let row = client.query_opt(
                "SELECT config FROM dataschema_configs WHERE name = $1",
                &[&key],
            )?;
            match row {
                Some(row) => Ok(Some(row.try_get(0)?)),
                None => Ok(None),
            }
        })
    }

    fn set_config(&self, name: Option<&str>, config: Option<&str>) -> Result<(), Error> {
        self.set_named(
            "dataschema_configs",
            "config",
            "setting a config",
            name,
            config,
        )
    }

    fn ids_of_digest_prefix(&self, prefix: &str) -> Result<Vec<SchemaId>, Error> {
        self.run("finding the ids of a guid", |client| {
            let rows = client.query(
                "SELECT id FROM dataschema_contents
                 WHERE left(digest, char_length($1)) = $1 ORDER BY id",
                &[&prefix],
            )?;
            let mut ids = Vec::with_capacity(rows.len());
            for row in rows {
                ids.push(id_from_row(&self.what, row.try_get(0)?)?);
            }
            Ok(ids)
        })
    }

    fn id_of_digest_prefix(&self, prefix: &str) -> Result<Option<SchemaId>, Error> {
        // Compared as text (not a range, which a database's collation
        // may order otherwise).
        self.run("finding a content by its guid", |client| {
            let row = client.query_opt(
                "SELECT id FROM dataschema_contents
                 WHERE left(digest, char_length($1)) = $1 ORDER BY id LIMIT 1",
                &[&prefix],
            )?;
            match row {
                Some(row) => Ok(Some(id_from_row(&self.what, row.try_get(0)?)?)),
                None => Ok(None),
            }
        })
    }

    fn associations(&self, of: AssociationsOf<'_>) -> Result<Vec<Association>, Error> {
        let (clause, values) = association::filter(of);
        let clause = clause.replace('?', "$");
        self.run("reading associations", |client| {
            self.associations_where(client, &clause, &values)
        })
    }

    fn change_associations(
        &self,
        resource_id: &str,
        subjects: &[&str],
        plan: AssociationPlan<'_>,
    ) -> Result<Vec<AssociationChange>, Error> {
        self.writable("changing associations")?;
        let deadline = Instant::now() + self.options.lock_timeout;
        self.run_as("changing associations", true, Some(deadline), |client| {
            let mut transaction = client.transaction()?;
            let locked: bool = transaction
                .query_one("SELECT pg_try_advisory_xact_lock($1)", &[&ASSOCIATION_LOCK])?
                .try_get(0)?;
            if !locked {
                // Dropping the transaction rolls it back.
                return Err(Attempt::Locked);
            }
            let of_resource =
                self.associations_where(&mut transaction, "resource_id = $1", &[resource_id])?;
            let mut of_subjects = Vec::new();
            for subject in subjects {
                of_subjects.extend(self.associations_where(
                    &mut transaction,
                    "subject = $1",
                    &[*subject],
                )?);
            }
            let mut of_subjects = association::sorted(of_subjects);
            of_subjects.dedup_by(|a, b| a.key() == b.key());
            let total: i64 = transaction
                .query_one("SELECT count(*) FROM dataschema_associations", &[])?
                .try_get(0)?;
            let held = AssociationsHeld {
                of_resource,
                of_subjects,
                total: u64::try_from(total).unwrap_or(0),
            };
            let changes = plan(&held)?;
            for change in &changes {
                match change {
                    AssociationChange::Put(a) => transaction.execute(
                        "INSERT INTO dataschema_associations (subject, guid, resource_name,
                             resource_namespace, resource_id, resource_type, association_type,
                             lifecycle, frozen)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                         ON CONFLICT (resource_id, resource_type, association_type)
                         DO UPDATE SET subject = excluded.subject, guid = excluded.guid,
                             resource_name = excluded.resource_name,
                             resource_namespace = excluded.resource_namespace,
                             lifecycle = excluded.lifecycle, frozen = excluded.frozen",
                        &[
                            &a.subject,
                            &a.guid,
                            &a.resource_name,
                            &a.resource_namespace,
                            &a.resource_id,
                            &a.resource_type,
                            &a.association_type,
                            &a.lifecycle.as_str(),
                            &a.frozen,
                        ],
                    )?,
                    AssociationChange::Remove(key) => transaction.execute(
                        "DELETE FROM dataschema_associations WHERE resource_id = $1
                         AND resource_type = $2 AND association_type = $3",
                        &[&key.resource_id, &key.resource_type, &key.association_type],
                    )?,
                };
            }
            transaction.commit()?;
            Ok(changes)
        })
    }

    fn referrers(&self, urn: &Urn) -> Result<Vec<Urn>, Error> {
        let needle = super::reference_needle(urn);
        let candidates = self.run("listing the referrers of a URN", |client| {
            let rows = client.query(
                "SELECT u.namespace, u.name, u.version FROM dataschema_urns u
                 JOIN dataschema_contracts k ON k.content_id = u.content_id
                 WHERE strpos(k.contract, $1) > 0",
                &[&needle],
            )?;
            self.urns(rows)
        })?;
        super::confirm_referrers(self, urn, candidates)
    }
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        // A sync client closes its connection by blocking on its own
        // runtime, which panics on an async runtime's worker thread: close
        // them on a thread of their own.
        let idle = std::mem::take(&mut self.pool.get_mut().idle);
        if !idle.is_empty() {
            let closing = std::thread::Builder::new()
                .name("dataschema-postgres-close".into())
                .spawn(move || drop(idle));
            if let Ok(closing) = closing {
                let _ = closing.join();
            }
        }
    }
}
