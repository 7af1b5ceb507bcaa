//! The store conformance suite (`dataschema::store::testing`, the
//! `testing` feature) run against each implementation (memory; SQLite and
//! PostgreSQL with their features) and through the `Box<dyn Store>` and
//! `Arc` wrappers, plus each persistent store's own behaviour: restarts,
//! failures, durability across a `kill -9`, several processes.
//!
//! PostgreSQL tests each create a database of their own from env
//! `DATASCHEMA_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`); unreachable, they fail
//! under `CI` and say they skip elsewhere.
#![cfg_attr(
    not(all(feature = "json", feature = "sqlite")),
    allow(unused_imports, dead_code)
)]

use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::urn;
use dataschema::store::{testing, Check, Stored, Version};
use dataschema::{Compatibility, Error, MemoryStore, Registry, Schema, SchemaId, Store, Urn};
use parking_lot::Mutex;

fn schema(text: &str, body: &str) -> Schema {
    Schema::json(urn(text), body.to_owned())
}

fn no_check(_: &Schema, _: &[Schema]) -> Result<(), Error> {
    Ok(())
}

/// A store that records, for each version a publish's check ran for,
/// which versions the check was given as held (the last attempt's, when a
/// store retried).
struct Recording<S> {
    inner: S,
    checked: Arc<Mutex<BTreeMap<u32, Vec<u32>>>>,
}

impl<S: Store> Store for Recording<S> {
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
        self.inner.get(urn)
    }
    fn publish(
        &self,
        schema: &Schema,
        version: Version,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        let record = |schema: &Schema, held: &[Schema]| {
            let versions = held.iter().map(|h| h.urn().version()).collect();
            self.checked.lock().insert(schema.urn().version(), versions);
            check(schema, held)
        };
        self.inner.publish(schema, version, &record)
    }
    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        self.inner.versions(namespace, name)
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        self.inner.list()
    }
    fn id_of(&self, urn: &Urn) -> Result<Option<SchemaId>, Error> {
        self.inner.id_of(urn)
    }
    fn urns_of(&self, id: SchemaId) -> Result<Vec<Urn>, Error> {
        self.inner.urns_of(id)
    }
    fn compatibility(&self, name: Option<&str>) -> Result<Option<Compatibility>, Error> {
        self.inner.compatibility(name)
    }
    fn set_compatibility(
        &self,
        name: Option<&str>,
        mode: Option<Compatibility>,
    ) -> Result<(), Error> {
        self.inner.set_compatibility(name, mode)
    }
}

/// The `i`th schema of the next-version races: each is Backward
/// compatible with every other (they differ in a title only).
fn next_schema(name: &str, i: usize) -> Schema {
    schema(
        &format!("urn:acme:schema:{name}:1"),
        &format!(r#"{{"type":"object","title":"publisher {i}"}}"#),
    )
}

/// `name` holds versions 1..=n, each checked against all below it.
fn assert_history(store: &dyn Store, name: &str, n: usize, checked: &BTreeMap<u32, Vec<u32>>) {
    let expected: Vec<u32> = (1..=n as u32).collect();
    assert_eq!(store.versions("acme", name).unwrap(), expected);
    for version in 1..=n as u32 {
        assert_eq!(
            checked.get(&version),
            Some(&(1..version).collect::<Vec<u32>>()),
            "the check of version {version} saw {:?}",
            checked.get(&version)
        );
    }
}

#[test]
fn memory_store() {
    let store = Arc::new(MemoryStore::new());
    testing::all(|| Arc::clone(&store));
}

/// A store behind `Box<dyn Store>` and `Arc<dyn Store>` is a store.
#[test]
fn memory_store_through_box_and_arc_dyn() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    testing::all(|| Box::new(Arc::clone(&store)) as Box<dyn Store>);
}

/// Child processes: run only when a parent test re-executes this binary
/// with `DATASCHEMA_STORE_CHILD` set (ignored otherwise).
#[test]
#[ignore = "a child process of the durability and multi-process tests"]
fn store_child_process() {
    let Ok(mode) = std::env::var("DATASCHEMA_STORE_CHILD") else {
        panic!("run by the durability and multi-process tests only");
    };
    let (kind, target) = mode.split_once(':').expect("kind:target");
    match kind {
        #[cfg(feature = "sqlite")]
        "durable-sqlite" => durable_child(&dataschema::store::SqliteStore::open(target).unwrap()),
        #[cfg(feature = "postgres")]
        "durable-postgres" => {
            durable_child(&dataschema::store::PostgresStore::connect(target).unwrap())
        }
        #[cfg(all(feature = "postgres", feature = "json"))]
        "race-postgres" => postgres::race_child(target),
        #[cfg(feature = "postgres")]
        "hold-postgres" => postgres::hold_child(target),
        other => panic!("unknown child mode {other} (for {target})"),
    }
}

/// Confluent's state in a persistent store (registry modes, imported ids,
/// soft deletes), written through `first`, as `second` (the store
/// reopened after a restart, or another replica) reads it: the same, and
/// `second` never hands an imported id out, nor takes it for other bytes.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn confluent_state_survives(first: &dyn Store, second: &dyn Store) {
    use dataschema::store::Mode;
    let imported = schema(
        "urn:acme:schema:x.._orders-value:3",
        r#"{"title":"imported"}"#,
    );
    first.set_mode(None, Some(Mode::Import)).unwrap();
    first
        .set_mode(Some("x.._orders-value"), Some(Mode::ReadOnly))
        .unwrap();
    assert_eq!(
        first
            .publish_with_id(&imported, Version::Exact, 100_000, &no_check)
            .unwrap()
            .id,
        100_000
    );
    let later = schema("urn:acme:schema:x.._orders-value:4", r#"{"title":"later"}"#);
    first.put(&later).unwrap();
    first.delete_versions(&[later.urn().clone()]).unwrap();

    assert_eq!(second.mode(None).unwrap(), Some(Mode::Import));
    assert_eq!(
        second.mode(Some("x.._orders-value")).unwrap(),
        Some(Mode::ReadOnly)
    );
    assert_eq!(second.id_of(imported.urn()).unwrap(), Some(100_000));
    assert_eq!(second.by_id(100_000).unwrap().as_ref(), Some(&imported));
    assert_eq!(second.deleted("acme", "x.._orders-value").unwrap(), vec![4]);
    assert!(second.get(later.urn()).unwrap().is_some(), "deleted, kept");
    let other = schema("urn:acme:schema:other-value:1", r#"{"title":"other"}"#);
    assert!(matches!(
        second.publish_with_id(&other, Version::Exact, 100_000, &no_check),
        Err(Error::IdConflict { .. })
    ));
    let fresh = second.publish(&other, Version::Exact, &no_check).unwrap();
    assert!(fresh.id > 100_000, "{fresh:?}");
    // And the first sees what the second did.
    assert_eq!(first.id_of(other.urn()).unwrap(), Some(fresh.id));
    second.set_mode(None, None).unwrap();
    assert_eq!(first.mode(None).unwrap(), None);
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
/// The bytes the durability child publishes under version `version`:
/// large enough that a kill lands mid-write now and then.
fn durable_bytes(version: u32) -> String {
    let filler = format!("{version:08}").repeat(8 * 1024);
    format!(r#"{{"title":"durable {version}","description":"{filler}"}}"#)
}

/// Publishes versions 1, 2, ... of `durable` forever, printing each URN
/// once its publish returned.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn durable_child(store: &dyn Store) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for version in 1.. {
        let urn = Urn::new("acme", "durable", version).unwrap();
        store
            .put(&Schema::json(urn.clone(), durable_bytes(version)))
            .unwrap();
        writeln!(out, "PUBLISHED {urn}").unwrap();
        out.flush().unwrap();
    }
}

/// Runs this test binary's child test with `mode`.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn child(mode: &str, extra: &[(&str, String)]) -> std::process::Child {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "stores::store_child_process",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("DATASCHEMA_STORE_CHILD", mode)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit());
    for (key, value) in extra {
        command.env(key, value);
    }
    command.spawn().expect("the test binary re-executes")
}

/// Starts the durability child, kills it (SIGKILL) after it reported
/// `count` publishes, and answers the versions it reported.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn run_and_kill(mode: &str, count: usize) -> Vec<Urn> {
    use std::io::BufRead;
    let mut child = child(mode, &[]);
    let stdout = child.stdout.take().unwrap();
    let mut reported = Vec::new();
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.unwrap();
        // (libtest may print `test store_child_process ... ` before the
        // first line.)
        if let Some(text) = line.split_once("PUBLISHED ").map(|(_, text)| text) {
            reported.push(urn(text));
            if reported.len() == count {
                child.kill().unwrap();
                break;
            }
        }
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "the child was killed: {status:?}");
    assert_eq!(
        reported.len(),
        count,
        "the child reported {count} publishes"
    );
    reported
}

/// After the kill: every reported URN is there with its bytes, and every
/// stored version is whole.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn assert_durable(store: &dyn Store, reported: &[Urn]) {
    for urn in reported {
        let held = store
            .get(urn)
            .unwrap()
            .unwrap_or_else(|| panic!("{urn} lost"));
        assert_eq!(
            held.bytes(),
            durable_bytes(urn.version()).as_bytes(),
            "{urn}"
        );
    }
    let versions = store.versions("acme", "durable").unwrap();
    assert!(versions.len() >= reported.len());
    assert_eq!(versions, (1..=versions.len() as u32).collect::<Vec<u32>>());
    for version in versions {
        let urn = Urn::new("acme", "durable", version).unwrap();
        let held = store.get(&urn).unwrap().unwrap();
        assert_eq!(
            held.bytes(),
            durable_bytes(version).as_bytes(),
            "{urn} is whole"
        );
        let id = store.id_of(&urn).unwrap().unwrap();
        assert_eq!(store.urns_of(id).unwrap(), vec![urn]);
    }
}

#[cfg(feature = "sqlite")]
mod sqlite {
    use super::*;
    use dataschema::store::SqliteStore;

    #[test]
    fn sqlite_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("registry.db");
        assert!(!path.exists());
        let first = SqliteStore::open(&path).unwrap();
        assert!(path.exists(), "created on first start");
        testing::all(|| SqliteStore::open(&path).unwrap());
        // Ids and modes survive a restart.
        let id = first
            .id_of(&urn("urn:conformance:schema:ids.x:1"))
            .unwrap()
            .unwrap();
        first
            .set_compatibility(Some("kept"), Some(Compatibility::Full))
            .unwrap();
        drop(first);
        let reopened = SqliteStore::open(&path).unwrap();
        assert_eq!(
            reopened
                .id_of(&urn("urn:conformance:schema:ids.y:4"))
                .unwrap(),
            Some(id)
        );
        assert_eq!(
            reopened.compatibility(Some("kept")).unwrap(),
            Some(Compatibility::Full)
        );
        // A new content after the restart gets an id no content held (in
        // the gaps: the suite imported the largest id last).
        let before: HashSet<SchemaId> = reopened
            .list()
            .unwrap()
            .iter()
            .map(|u| reopened.id_of(u).unwrap().unwrap())
            .collect();
        let new = reopened
            .publish(
                &schema("urn:acme:schema:after:1", r#"{"title":"after"}"#),
                Version::Exact,
                &no_check,
            )
            .unwrap();
        assert!(!before.contains(&new.id), "ids are never reused");
        // Modes, imported ids and soft deletes survive a restart.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("confluent.db");
        let first = SqliteStore::open(&path).unwrap();
        let writer = SqliteStore::open(&path).unwrap();
        confluent_state_survives(&writer, &first);
        drop((first, writer));
        let first = SqliteStore::open(&path).unwrap();
        let reopened = SqliteStore::open(&path).unwrap();
        assert_eq!(
            reopened.mode(Some("x.._orders-value")).unwrap(),
            Some(dataschema::store::Mode::ReadOnly)
        );
        assert_eq!(
            reopened
                .id_of(&urn("urn:acme:schema:x.._orders-value:3"))
                .unwrap(),
            Some(100_000)
        );
        assert_eq!(
            reopened.deleted("acme", "x.._orders-value").unwrap(),
            vec![4]
        );
        drop(first);
    }

    #[test]
    fn sqlite_file_that_is_not_a_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "these are notes, not a database\n".repeat(64)).unwrap();
        let err = SqliteStore::open(&path).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
        let message = err.chain().to_string();
        assert!(message.contains("not a database"), "{message}");
        assert!(message.contains("notes.txt"), "{message}");
        // The file is left as it was.
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "these are notes, not a database\n".repeat(64)
        );
    }

    #[test]
    fn sqlite_database_of_something_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.db");
        foreign_database(&path);
        let err = SqliteStore::open(&path).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
        let message = err.chain().to_string();
        assert!(message.contains("database of something else"), "{message}");
    }

    /// A SQLite database with a table of its own, made by a store on
    /// another file and copied (the tests do not use SQLite directly).
    fn foreign_database(path: &std::path::Path) {
        let store = SqliteStore::open(path).unwrap();
        drop(store);
        // Same file, layout marker cleared: it now looks like someone
        // else's database with tables.
        let bytes = std::fs::read(path).unwrap();
        let mut bytes = bytes;
        // user_version lives at offset 60 of the header, big-endian.
        bytes[60..64].copy_from_slice(&0u32.to_be_bytes());
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn sqlite_directory_it_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let locked = dir.path().join("locked");
        std::fs::create_dir(&locked).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        // As root, permissions do not stop a write: /proc takes no new
        // files for anyone.
        let probe = locked.join("probe");
        let target = if std::fs::write(&probe, b"").is_ok() {
            eprintln!("running as root: a read-only directory is /proc instead");
            std::path::PathBuf::from("/proc/dataschema-test/registry.db")
        } else {
            locked.join("registry.db")
        };
        let err = SqliteStore::open(&target).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
        let message = err.chain().to_string();
        assert!(
            message.contains("cannot open or create the file"),
            "{message}"
        );
        assert!(message.contains("registry.db"), "{message}");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// A publish waits a bounded time for the store's writer and for the
    /// database's lock, then fails saying which; reads go on meanwhile.
    #[test]
    fn sqlite_waits_are_bounded() {
        use dataschema::store::Options;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bounded.db");
        let options = Options::default().lock_timeout(Duration::from_millis(300));
        let store = SqliteStore::open_with(&path, &options).unwrap();
        let other = SqliteStore::open_with(&path, &options).unwrap();
        store.put(&schema("urn:acme:schema:held:1", "{}")).unwrap();
        let (in_check, wait_in_check) = std::sync::mpsc::channel();
        let (go, wait_go) = std::sync::mpsc::channel::<()>();
        let wait_go = Mutex::new(wait_go);
        std::thread::scope(|scope| {
            let slow = scope.spawn(|| {
                let check = |_: &Schema, _: &[Schema]| {
                    in_check.send(()).unwrap();
                    let _ = wait_go.lock().recv_timeout(Duration::from_secs(30));
                    Ok(())
                };
                store.publish(
                    &schema("urn:acme:schema:slow:1", "{}"),
                    Version::Exact,
                    &check,
                )
            });
            wait_in_check.recv_timeout(Duration::from_secs(30)).unwrap();
            for (handle, expected) in [
                (&store, "writer was not free within 300 ms"),
                (&other, "write lock was not free within 300 ms"),
            ] {
                let started = std::time::Instant::now();
                let err = handle
                    .put(&schema("urn:acme:schema:other:1", "{}"))
                    .unwrap_err();
                let waited = started.elapsed();
                assert!(matches!(err, Error::Store { .. }), "{err:?}");
                let message = err.chain().to_string();
                assert!(message.contains(expected), "{message}");
                assert!(waited < Duration::from_secs(5), "waited {waited:?}");
                // Reads do not wait.
                assert!(handle
                    .get(&urn("urn:acme:schema:held:1"))
                    .unwrap()
                    .is_some());
            }
            go.send(()).unwrap();
            assert!(slow.join().unwrap().unwrap().created);
        });
        store.put(&schema("urn:acme:schema:other:1", "{}")).unwrap();
    }

    /// Read-only: the file opened `SQLITE_OPEN_READONLY`, nothing created
    /// or migrated; an unmigrated file is refused, saying so; writes are
    /// refused; a read-only file (and directory) works.
    #[test]
    fn sqlite_read_only() {
        use dataschema::store::Options;
        use std::os::unix::fs::PermissionsExt;
        let read_only = Options::default().read_only(true);
        let dir = tempfile::tempdir().unwrap();
        // No file: an error, and none created.
        let missing = dir.path().join("missing.db");
        let err = SqliteStore::open_with(&missing, &read_only).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
        assert!(!missing.exists(), "a read-only open created the file");
        // An empty database (never opened read-write): refused, unchanged.
        let empty = dir.path().join("empty.db");
        std::fs::write(&empty, b"").unwrap();
        let err = SqliteStore::open_with(&empty, &read_only).unwrap_err();
        let message = err.chain().to_string();
        assert!(message.contains("never opened for writing"), "{message}");
        assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
        // A migrated file, made read-only with its directory.
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let path = data.join("registry.db");
        let held = schema("urn:acme:schema:ro:1", r#"{"title":"ro"}"#);
        {
            let store = SqliteStore::open(&path).unwrap();
            store.put(&held).unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555)).unwrap();
        let store = SqliteStore::open_with(&path, &read_only).unwrap();
        assert_eq!(store.get(held.urn()).unwrap().as_ref(), Some(&held));
        assert_eq!(store.list().unwrap(), vec![held.urn().clone()]);
        let err = store
            .put(&schema("urn:acme:schema:ro:2", "{}"))
            .unwrap_err();
        assert!(err.chain().to_string().contains("read-only"), "{err:?}");
        let err = store
            .set_compatibility(None, Some(Compatibility::Full))
            .unwrap_err();
        assert!(err.chain().to_string().contains("read-only"), "{err:?}");
        drop(store);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "the file is unchanged"
        );
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn sqlite_survives_kill_9() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("durable.db");
        SqliteStore::open(&path).unwrap();
        let reported = run_and_kill(&format!("durable-sqlite:{}", path.display()), 40);
        let store = SqliteStore::open(&path).unwrap();
        assert_durable(&store, &reported);
    }
}

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;
    use common::TestDatabase;
    use dataschema::store::PostgresStore;

    #[test]
    fn postgres_store() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let first = PostgresStore::connect(&db.url).unwrap();
        testing::all(|| PostgresStore::connect(&db.url).unwrap());
        // Ids and modes survive a new connection (a restart, a replica).
        let id = first
            .id_of(&urn("urn:conformance:schema:ids.x:1"))
            .unwrap()
            .unwrap();
        first
            .set_compatibility(Some("kept"), Some(Compatibility::Full))
            .unwrap();
        drop(first);
        let replica = PostgresStore::connect(&db.url).unwrap();
        assert_eq!(
            replica
                .id_of(&urn("urn:conformance:schema:ids.y:4"))
                .unwrap(),
            Some(id)
        );
        assert_eq!(
            replica.compatibility(Some("kept")).unwrap(),
            Some(Compatibility::Full)
        );
        // Two replicas agree on modes, imported ids and soft deletes, and
        // a restart keeps them.
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let a = PostgresStore::connect(&db.url).unwrap();
        let b = PostgresStore::connect(&db.url).unwrap();
        confluent_state_survives(&a, &b);
        drop((a, b));
        let restarted = PostgresStore::connect(&db.url).unwrap();
        assert_eq!(
            restarted.mode(Some("x.._orders-value")).unwrap(),
            Some(dataschema::store::Mode::ReadOnly)
        );
        assert_eq!(
            restarted
                .id_of(&urn("urn:acme:schema:x.._orders-value:3"))
                .unwrap(),
            Some(100_000)
        );
        assert_eq!(
            restarted.deleted("acme", "x.._orders-value").unwrap(),
            vec![4]
        );
    }

    #[test]
    fn postgres_replicas_migrate_once_when_started_at_once() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let threads = 8;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (url, barrier) = (db.url.clone(), Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    let store = PostgresStore::connect(&url)?;
                    store.put(&schema(&format!("urn:acme:schema:start:{}", i + 1), "{}"))?;
                    Ok::<_, Error>(store)
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap().unwrap();
        }
        let mut client = ::postgres::Client::connect(&db.url, ::postgres::NoTls).unwrap();
        // Each migration applied once: as many rows as the highest.
        let row = client
            .query_one(
                "SELECT count(*), max(version)::BIGINT FROM dataschema_migrations",
                &[],
            )
            .unwrap();
        let (migrations, highest): (i64, i64) = (row.get(0), row.get(1));
        // The tables, the Confluent modes and deletes, the contracts and configs.
        assert!(highest >= 3, "{highest}");
        assert_eq!(migrations, highest);
        let store = PostgresStore::connect(&db.url).unwrap();
        assert_eq!(
            store.versions("acme", "start").unwrap(),
            (1..=8).collect::<Vec<u32>>()
        );
    }

    #[test]
    fn postgres_from_spawn_blocking_on_a_multi_thread_runtime() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            let url = db.url.clone();
            let store = tokio::task::spawn_blocking(move || PostgresStore::connect(&url))
                .await
                .unwrap()
                .unwrap();
            let store = Arc::new(store);
            let tasks: Vec<_> = (1..=16u32)
                .map(|version| {
                    let store = Arc::clone(&store);
                    tokio::spawn(async move {
                        tokio::task::spawn_blocking(move || {
                            let schema = schema(
                                &format!("urn:acme:schema:tokio:{version}"),
                                &format!(r#"{{"title":"{version}"}}"#),
                            );
                            store.put(&schema)?;
                            store.get(schema.urn())
                        })
                        .await
                        .unwrap()
                    })
                })
                .collect();
            for task in tasks {
                assert!(task.await.unwrap().unwrap().is_some());
            }
            let listed = {
                let store = Arc::clone(&store);
                tokio::task::spawn_blocking(move || store.list())
                    .await
                    .unwrap()
                    .unwrap()
            };
            assert_eq!(listed.len(), 16);
            // Dropped on a worker thread of the runtime: no panic.
            drop(store);
        });
    }

    #[test]
    fn postgres_unreachable_is_a_store_error() {
        let err = PostgresStore::connect("postgres://postgres@127.0.0.1:1/test").unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
        let message = err.chain().to_string();
        assert!(message.contains("connecting"), "{message}");
        let err = PostgresStore::connect("postgres://[not a url").unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "{err:?}");
    }

    #[test]
    fn postgres_database_dropped_midway_is_a_store_error() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let store = PostgresStore::connect(&db.url).unwrap();
        let held = schema("urn:acme:schema:gone:1", "{}");
        store.put(&held).unwrap();
        db.drop_now();
        for result in [
            store.get(held.urn()).map(drop),
            store.put(&schema("urn:acme:schema:gone:2", "{}")),
            store.list().map(drop),
            store.id_of(held.urn()).map(drop),
            store.versions("acme", "gone").map(drop),
            store.compatibility(None).map(drop),
        ] {
            let err = result.unwrap_err();
            assert!(matches!(err, Error::Store { .. }), "{err:?}");
        }
        let registry = Registry::new(store);
        let err = registry.resolve(held.urn()).unwrap_err();
        assert!(matches!(err, Error::Store { .. }), "not NotFound: {err:?}");
    }

    /// No message and no `Debug` shows the URL's password.
    #[test]
    fn postgres_password_appears_in_no_message() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let secret = "hunter2-not-shown";
        let with_password = db.url.replacen(
            "postgres://postgres@",
            &format!("postgres://postgres:{secret}@"),
            1,
        );
        assert!(with_password.contains(secret), "{with_password}");
        // (Trust authentication: the password is accepted and unused.)
        let store = PostgresStore::connect(&with_password).unwrap();
        assert!(!format!("{store:?}").contains(secret));
        db.drop_now();
        let err = store.list().unwrap_err();
        assert!(!err.chain().to_string().contains(secret), "{}", err.chain());
        assert!(!format!("{err:?}").contains(secret));
        for url in [
            format!("postgres://postgres:{secret}@127.0.0.1:1/test"),
            format!("postgres://postgres:{secret}@[not a url/test"),
            format!("host=127.0.0.1 port=1 user=postgres password={secret} dbname=test"),
        ] {
            let err = PostgresStore::connect(&url).unwrap_err();
            assert!(!err.chain().to_string().contains(secret), "{}", err.chain());
            assert!(!format!("{err:?}").contains(secret), "{err:?}");
            assert!(!dataschema::store::redact(&url).contains(secret));
        }
    }

    /// Read-only: no migration; a database never migrated is refused,
    /// saying so; a `SELECT`-only role reads, and its writes are refused.
    #[test]
    fn postgres_read_only_with_a_select_only_role() {
        use dataschema::store::Options;
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let read_only = Options::default().read_only(true);
        let err = PostgresStore::connect_with(&db.url, &read_only).unwrap_err();
        let message = err.chain().to_string();
        assert!(message.contains("never migrated"), "{message}");
        let mut admin = ::postgres::Client::connect(&db.url, ::postgres::NoTls).unwrap();
        let tables: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'dataschema%'",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(tables, 0, "a read-only connect created tables");
        let held = schema("urn:acme:schema:ro:1", r#"{"title":"ro"}"#);
        PostgresStore::connect(&db.url).unwrap().put(&held).unwrap();
        let role = format!("{}_reader", db.name);
        admin
            .batch_execute(&format!(
                "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN; \
                 GRANT CONNECT ON DATABASE {db} TO {role}; \
                 GRANT USAGE ON SCHEMA public TO {role}; \
                 GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};",
                db = db.name
            ))
            .unwrap();
        let reader_url = db
            .url
            .replacen("postgres://postgres@", &format!("postgres://{role}@"), 1);
        let result = std::panic::catch_unwind(|| {
            // Read-write, the role cannot run the migrations' statements.
            assert!(PostgresStore::connect(&reader_url).is_err());
            let store = PostgresStore::connect_with(&reader_url, &read_only).unwrap();
            assert_eq!(store.get(held.urn()).unwrap().as_ref(), Some(&held));
            assert_eq!(store.list().unwrap(), vec![held.urn().clone()]);
            assert!(store.id_of(held.urn()).unwrap().is_some());
            let err = store
                .put(&schema("urn:acme:schema:ro:2", "{}"))
                .unwrap_err();
            assert!(
                err.chain().to_string().contains("read-only"),
                "{}",
                err.chain()
            );
            let err = store.set_compatibility(None, None).unwrap_err();
            assert!(
                err.chain().to_string().contains("read-only"),
                "{}",
                err.chain()
            );
        });
        drop(admin);
        db.drop_now();
        if let Ok(mut admin) = ::postgres::Client::connect(
            &common::with_database(&db.url, "postgres"),
            ::postgres::NoTls,
        ) {
            let _ = admin.batch_execute(&format!("DROP ROLE IF EXISTS {role}"));
        }
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    }

    /// A replica stopped (SIGSTOP) while its publish holds a name's lock
    /// costs the publishes of that name only, each for the lock timeout:
    /// waiting for the lock holds no pooled connection, so reads and a
    /// publish of another name answer promptly meanwhile, even with a pool
    /// of two (one for publishes); once the server ends the stopped
    /// replica's idle transaction, the name publishes again.
    #[test]
    fn postgres_frozen_replica_costs_its_own_requests_only() {
        use dataschema::store::Options;
        use std::io::BufRead;
        use std::time::Instant;
        let Some(db) = TestDatabase::create() else {
            return;
        };
        PostgresStore::connect(&db.url)
            .unwrap()
            .put(&schema("urn:acme:schema:frozen:1", "{}"))
            .unwrap();
        // The server ends the stopped child's transaction after 8 s idle:
        // the publishes below (3 s each at most) all end before.
        let mut frozen = child(
            &format!("hold-postgres:{}", db.url),
            &[("DATASCHEMA_HOLD_SECONDS", "8".to_owned())],
        );
        let stdout = frozen.stdout.take().unwrap();
        let mut lines = std::io::BufReader::new(stdout).lines();
        let holding = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|line| line.contains("HOLDING"));
        assert!(holding, "the child reached its check");
        let pid = frozen.id().to_string();
        let stop = std::process::Command::new("kill")
            .args(["-STOP", &pid])
            .status()
            .unwrap();
        assert!(stop.success());
        let lock_timeout = Duration::from_secs(3);
        let options = Options::default()
            .lock_timeout(lock_timeout)
            .acquire_timeout(Duration::from_secs(5))
            .max_connections(2);
        let store = PostgresStore::connect_with(&db.url, &options).unwrap();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::thread::scope(|scope| {
                let publishers: Vec<_> = (0..8)
                    .map(|i| {
                        let store = &store;
                        scope.spawn(move || {
                            let started = Instant::now();
                            let result = store.publish(
                                &schema(
                                    "urn:acme:schema:frozen:1",
                                    &format!(r#"{{"title":"{i}"}}"#),
                                ),
                                Version::Next,
                                &no_check,
                            );
                            (result, started.elapsed())
                        })
                    })
                    .collect();
                std::thread::sleep(Duration::from_millis(200));
                // Reads meanwhile: each prompt.
                for _ in 0..5 {
                    let started = Instant::now();
                    assert_eq!(store.versions("acme", "frozen").unwrap(), vec![1]);
                    assert!(store
                        .get(&urn("urn:acme:schema:frozen:1"))
                        .unwrap()
                        .is_some());
                    let took = started.elapsed();
                    assert!(took < Duration::from_secs(1), "a read took {took:?}");
                    std::thread::sleep(Duration::from_millis(50));
                }
                // Another name publishes meanwhile, promptly (well within
                // the lock timeout the held name's publishes wait for).
                for n in 1..=3 {
                    let started = Instant::now();
                    let stored = store
                        .publish(
                            &schema(&format!("urn:acme:schema:thawed{n}:1"), "{}"),
                            Version::Next,
                            &no_check,
                        )
                        .unwrap();
                    assert_eq!(stored.urn, urn(&format!("urn:acme:schema:thawed{n}:1")));
                    let took = started.elapsed();
                    assert!(
                        took < Duration::from_millis(1500),
                        "a publish of another name took {took:?}"
                    );
                }
                for publisher in publishers {
                    let (result, took) = publisher.join().unwrap();
                    let err = result.unwrap_err();
                    let message = err.chain().to_string();
                    assert!(message.contains("lock timeout"), "{message}");
                    // Each waited for the lock timeout, and not much longer.
                    assert!(
                        took >= lock_timeout - Duration::from_millis(100),
                        "a publish gave up after {took:?}"
                    );
                    assert!(
                        took < lock_timeout + Duration::from_secs(2),
                        "a publish waited {took:?}"
                    );
                }
            });
            // The stopped replica's transaction is ended by the server
            // (its idle timeout, 8 s in the child): the name publishes again.
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                match store.publish(
                    &schema("urn:acme:schema:frozen:1", r#"{"title":"after"}"#),
                    Version::Next,
                    &no_check,
                ) {
                    Ok(stored) => {
                        assert_eq!(stored.urn, urn("urn:acme:schema:frozen:2"));
                        break;
                    }
                    Err(err) if Instant::now() < deadline => {
                        let _ = err;
                        std::thread::sleep(Duration::from_millis(200));
                    }
                    Err(err) => panic!("the lock was never freed: {}", err.chain()),
                }
            }
        }));
        let _ = frozen.kill();
        let _ = frozen.wait();
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    }

    /// A replica's server beside a peer stopped (SIGSTOP) while it holds a
    /// name's advisory lock: `/readyz` keeps answering ready, promptly,
    /// while eight publishes of that name wait for the lock (holding no
    /// pooled connection), each answered with a retryable 503 within its
    /// bound (the lock timeout, in the log); reads of the name and a
    /// publish of another name answer promptly meanwhile, and another name
    /// publishes afterwards. (A replica whose database does not answer
    /// reports not ready: `tests/server/operate.rs`.)
    #[cfg(feature = "server")]
    #[test]
    fn postgres_frozen_peer_leaves_the_replica_ready() {
        use crate::server;
        use dataschema::store::Options;
        use std::io::BufRead;
        use std::time::Instant;
        let Some(db) = TestDatabase::create() else {
            return;
        };
        PostgresStore::connect(&db.url)
            .unwrap()
            .put(&schema("urn:acme:schema:frozen:1", "{}"))
            .unwrap();
        // The peer's transaction is ended by the server after 10 s idle:
        // the publishes below all end before.
        let mut frozen = child(
            &format!("hold-postgres:{}", db.url),
            &[("DATASCHEMA_HOLD_SECONDS", "10".to_owned())],
        );
        let stdout = frozen.stdout.take().unwrap();
        let holding = std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains("HOLDING"));
        assert!(holding, "the child reached its check");
        let pid = frozen.id().to_string();
        let stop = std::process::Command::new("kill")
            .args(["-STOP", &pid])
            .status()
            .unwrap();
        assert!(stop.success());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let options = Options::default()
                .lock_timeout(Duration::from_secs(3))
                .acquire_timeout(Duration::from_secs(3))
                .max_connections(4);
            let store = PostgresStore::connect_with(&db.url, &options).unwrap();
            let config = server::config().with_ready_timeout(Duration::from_millis(800));
            let running = server::start_on(store, config);
            let publish_url = |urn: &str| running.url(&format!("/publish/schemas/{urn}"));
            let auth = server::bearer();
            std::thread::scope(|scope| {
                let publishers: Vec<_> = (0..8)
                    .map(|i| {
                        let (url, auth) = (publish_url("urn:acme:schema:frozen:2"), &auth);
                        scope.spawn(move || {
                            let started = Instant::now();
                            let body = format!(r#"{{"title":"{i}"}}"#);
                            let reply = server::call(
                                "PUT",
                                &url,
                                &[("Authorization", auth)],
                                body.as_bytes(),
                            );
                            (reply, started.elapsed())
                        })
                    })
                    .collect();
                std::thread::sleep(Duration::from_millis(200));
                // Another name publishes while they wait, promptly (well
                // within the lock timeout they wait for).
                let started = Instant::now();
                let other = server::call(
                    "PUT",
                    &publish_url("urn:acme:schema:meanwhile:1"),
                    &[("Authorization", &auth)],
                    b"{}",
                );
                let took = started.elapsed();
                assert_eq!(other.status, 201, "another name: {}", other.text());
                assert!(
                    took < Duration::from_millis(1500),
                    "a publish of another name took {took:?}"
                );
                // Probes while the publishes wait: ready, each prompt.
                for probe in 0..12 {
                    let started = Instant::now();
                    let ready = server::get(&running.url("/readyz"));
                    let took = started.elapsed();
                    assert_eq!(ready.status, 200, "probe {probe}: {}", ready.text());
                    assert_eq!(ready.json()["status"], "ready");
                    assert!(
                        took < Duration::from_millis(800),
                        "probe {probe} took {took:?}"
                    );
                    let read = server::get(&running.url("/schemas/urn:acme:schema:frozen:1"));
                    assert_eq!(read.status, 200, "{}", read.text());
                    std::thread::sleep(Duration::from_millis(100));
                }
                for publisher in publishers {
                    let (reply, took) = publisher.join().unwrap();
                    // A bounded wait that ran out: retryable (503), its
                    // cause (the lock timeout) in the log only.
                    assert_eq!(
                        reply.status,
                        503,
                        "a publish of the held name: {}",
                        reply.text()
                    );
                    assert_eq!(reply.json()["error"], "store_timeout", "{}", reply.text());
                    assert!(
                        !reply.text().contains("lock timeout"),
                        "the driver's words stay in the log: {}",
                        reply.text()
                    );
                    assert!(took < Duration::from_secs(8), "a publish waited {took:?}");
                }
            });
            // Ready still, once the publishes gave up; another name
            // publishes.
            assert_eq!(server::get(&running.url("/readyz")).status, 200);
            let other = server::call(
                "PUT",
                &publish_url("urn:acme:schema:thawed:1"),
                &[("Authorization", &auth)],
                b"{}",
            );
            assert_eq!(other.status, 201, "another name: {}", other.text());
            running.stop();
        }));
        let _ = frozen.kill();
        let _ = frozen.wait();
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    }

    /// `--read-only` on a hot standby (a streaming replica made with
    /// `pg_basebackup` of a primary of the test's own, see
    /// `tests/common/standby.rs`): a read-write connect is refused (the
    /// standby runs no migration); a read-only store reads what the primary
    /// wrote, is ready, refuses writes, and sees what the primary publishes
    /// later once the standby replays it.
    #[test]
    fn postgres_read_only_on_a_hot_standby() {
        use crate::standby::{Cluster, DATABASE};
        use dataschema::store::Options;
        let Some(primary) = Cluster::primary() else {
            return;
        };
        let writer = PostgresStore::connect(&primary.url(DATABASE)).unwrap();
        let first = schema("urn:acme:schema:standby:1", r#"{"title":"one"}"#);
        writer.put(&first).unwrap();
        let standby = primary.standby();
        let url = standby.url(DATABASE);
        let err = PostgresStore::connect(&url).unwrap_err();
        assert!(
            err.chain().to_string().contains("read-only"),
            "a read-write connect to a standby: {}",
            err.chain()
        );
        let read_only = Options::default().read_only(true);
        let store = PostgresStore::connect_with(&url, &read_only).unwrap();
        store.ready().unwrap();
        assert_eq!(store.get(first.urn()).unwrap().as_ref(), Some(&first));
        assert_eq!(store.list().unwrap(), vec![first.urn().clone()]);
        assert_eq!(
            store.id_of(first.urn()).unwrap(),
            writer.id_of(first.urn()).unwrap()
        );
        let err = store
            .put(&schema("urn:acme:schema:standby:2", "{}"))
            .unwrap_err();
        assert!(
            err.chain().to_string().contains("read-only"),
            "{}",
            err.chain()
        );
        let err = store
            .set_compatibility(None, Some(Compatibility::Full))
            .unwrap_err();
        assert!(
            err.chain().to_string().contains("read-only"),
            "{}",
            err.chain()
        );
        // Published on the primary afterwards: replayed on the standby.
        let second = schema("urn:acme:schema:standby:2", r#"{"title":"two"}"#);
        writer.put(&second).unwrap();
        Cluster::eventually("the standby replays the second version", || {
            store.versions("acme", "standby").unwrap() == vec![1, 2]
        });
        assert_eq!(store.get(second.urn()).unwrap().as_ref(), Some(&second));
        // Nothing was written on the standby: the primary's history is
        // the one the standby shows.
        assert_eq!(store.list().unwrap(), writer.list().unwrap());
    }

    /// The child of `postgres_frozen_replica_costs_its_own_requests_only`:
    /// a publish that holds the name's lock in its check, for ever (the
    /// server ends its transaction after its statement timeout, 4 s or
    /// `DATASCHEMA_HOLD_SECONDS`).
    pub(super) fn hold_child(url: &str) {
        use dataschema::store::Options;
        let seconds = std::env::var("DATASCHEMA_HOLD_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(4);
        let options = Options::default().statement_timeout(Duration::from_secs(seconds));
        let store = PostgresStore::connect_with(url, &options).unwrap();
        let check = |_: &Schema, _: &[Schema]| {
            println!("HOLDING");
            std::thread::sleep(Duration::from_secs(120));
            Ok(())
        };
        let _ = store.publish(
            &schema("urn:acme:schema:frozen:1", r#"{"title":"held"}"#),
            Version::Next,
            &check,
        );
    }

    #[test]
    fn postgres_survives_kill_9() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        PostgresStore::connect(&db.url).unwrap();
        let reported = run_and_kill(&format!("durable-postgres:{}", db.url), 40);
        let store = PostgresStore::connect(&db.url).unwrap();
        assert_durable(&store, &reported);
    }

    const PROCESSES: usize = 4;
    const PER_PROCESS: usize = 3;

    /// Several processes publish at once: one of different bytes under one
    /// URN wins; next versions end gap-free, each checked against all the
    /// versions before it; ids unique per content.
    #[cfg(feature = "json")]
    #[test]
    fn postgres_several_processes() {
        use std::io::BufRead;
        let Some(db) = TestDatabase::create() else {
            return;
        };
        PostgresStore::connect(&db.url).unwrap();
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
            + 3000;
        let children: Vec<_> = (0..PROCESSES)
            .map(|i| {
                child(
                    &format!("race-postgres:{}", db.url),
                    &[
                        ("DATASCHEMA_CHILD_INDEX", i.to_string()),
                        ("DATASCHEMA_CHILD_START", start.to_string()),
                    ],
                )
            })
            .collect();
        let mut checked = BTreeMap::new();
        let mut winners = 0;
        let mut ids = BTreeMap::new();
        for mut child in children {
            let stdout = child.stdout.take().unwrap();
            for line in std::io::BufReader::new(stdout).lines() {
                let line = line.unwrap();
                // (libtest may print `test store_child_process ... `
                // before the first line.)
                let words: Vec<&str> = line
                    .split_whitespace()
                    .skip_while(|word| !matches!(*word, "RACE" | "CHECKED" | "STORED"))
                    .collect();
                match words.as_slice() {
                    ["RACE", "won"] => winners += 1,
                    ["RACE", "immutable"] => {}
                    ["CHECKED", version, held] => {
                        let held: Vec<u32> = held
                            .trim_matches(['[', ']'])
                            .split(',')
                            .filter(|v| !v.is_empty())
                            .map(|v| v.parse().unwrap())
                            .collect();
                        assert!(checked
                            .insert(version.parse::<u32>().unwrap(), held)
                            .is_none());
                    }
                    ["STORED", urn, id] => {
                        assert!(
                            ids.insert(id.parse::<u32>().unwrap(), urn.to_string())
                                .is_none(),
                            "{line}"
                        );
                    }
                    _ => {}
                }
            }
            assert!(child.wait().unwrap().success());
        }
        assert_eq!(winners, 1, "one of the racing processes wins");
        let store = PostgresStore::connect(&db.url).unwrap();
        assert_history(&store, "procs", PROCESSES * PER_PROCESS, &checked);
        assert_eq!(ids.len(), PROCESSES * PER_PROCESS);
        for (id, urn_text) in ids {
            assert_eq!(store.urns_of(id).unwrap(), vec![urn(&urn_text)]);
        }
    }

    /// One process of `postgres_several_processes`.
    #[cfg(feature = "json")]
    pub(super) fn race_child(url: &str) {
        let index: usize = std::env::var("DATASCHEMA_CHILD_INDEX")
            .unwrap()
            .parse()
            .unwrap();
        let start: u128 = std::env::var("DATASCHEMA_CHILD_START")
            .unwrap()
            .parse()
            .unwrap();
        let checked = Arc::new(Mutex::new(BTreeMap::new()));
        let registries: Vec<Registry> = (0..PER_PROCESS)
            .map(|_| {
                Registry::new(Recording {
                    inner: PostgresStore::connect(url).unwrap(),
                    checked: Arc::clone(&checked),
                })
            })
            .collect();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        std::thread::sleep(Duration::from_millis(start.saturating_sub(now) as u64));
        let handles: Vec<_> = registries
            .into_iter()
            .enumerate()
            .map(|(thread, registry)| {
                std::thread::spawn(move || {
                    let i = index * PER_PROCESS + thread;
                    let race = if thread == 0 {
                        Some(registry.publish(
                            schema("urn:acme:schema:prace:1", &format!(r#"{{"title":"{i}"}}"#)),
                            Compatibility::None,
                        ))
                    } else {
                        None
                    };
                    let stored =
                        registry.publish_next(next_schema("procs", i), Compatibility::Backward);
                    (race, stored)
                })
            })
            .collect();
        for handle in handles {
            let (race, stored) = handle.join().unwrap();
            match race {
                Some(Ok(_)) => println!("RACE won"),
                Some(Err(Error::Immutable { .. })) => println!("RACE immutable"),
                Some(Err(err)) => panic!("{}", err.chain()),
                None => {}
            }
            let stored = stored.unwrap_or_else(|err| panic!("{}", err.chain()));
            println!("STORED {} {}", stored.urn, stored.id);
            let held = checked.lock().get(&stored.urn.version()).cloned().unwrap();
            let held: Vec<String> = held.iter().map(u32::to_string).collect();
            println!("CHECKED {} [{}]", stored.urn.version(), held.join(","));
        }
    }
}
