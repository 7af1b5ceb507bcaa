//! One conformance suite for every `Store`: immutability, retention,
//! ordering, ids, next versions, modes, concurrent publishers from several
//! connections. Run against each implementation (memory; SQLite and
//! PostgreSQL with their features), plus each persistent store's failures
//! and its durability across a `kill -9`.
//!
//! PostgreSQL tests each create a database of their own from env
//! `DATASCHEMA_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`); unreachable, they fail
//! under `CI` and say they skip elsewhere.
#![cfg_attr(not(feature = "json"), allow(unused_imports, dead_code))]

use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::urn;
use dataschema::store::{Check, Stored, Version};
use dataschema::{Compatibility, Error, MemoryStore, Registry, Schema, SchemaId, Store, Urn};
use parking_lot::Mutex;

fn schema(text: &str, body: &str) -> Schema {
    Schema::json(urn(text), body.to_owned())
}

fn no_check(_: &Schema, _: &[Schema]) -> Result<(), Error> {
    Ok(())
}

/// Opens a handle on the store under test: for the persistent stores, a
/// new connection (or set of connections) to the same data.
type Open<'a> = &'a (dyn Fn() -> Arc<dyn Store> + Sync);

/// Every store must pass this. `open` gives handles on one store.
pub fn conformance(open: Open<'_>) {
    let store = open();
    immutability_and_retention(&*store);
    ids(&*store);
    next_versions(&*store);
    modes(&*store);
    reads_do_not_wait_for_a_publish(&store);
    one_of_many_wins(open);
    one_content_many_names(open);
    #[cfg(feature = "json")]
    next_versions_race(open);
}

fn immutability_and_retention(store: &dyn Store) {
    let a1 = schema("urn:acme:schema:a:1", r#"{"type":"string"}"#);
    assert_eq!(store.get(a1.urn()).unwrap(), None);
    store.put(&a1).unwrap();
    store.put(&a1).unwrap(); // idempotent
    assert_eq!(store.get(a1.urn()).unwrap().as_ref(), Some(&a1));

    // Different bytes, language or root under a held URN: refused, and the
    // held schema is unchanged.
    let changed = schema("urn:acme:schema:a:1", r#"{"type":"integer"}"#);
    assert!(matches!(store.put(&changed), Err(Error::Immutable { .. })));
    let other_language = Schema::protobuf(urn("urn:acme:schema:a:1"), a1.shared_bytes(), "x.Y");
    assert!(matches!(
        store.put(&other_language),
        Err(Error::Immutable { .. })
    ));
    let root_a = Schema::protobuf(urn("urn:acme:schema:proto:1"), &b"\x0a\x00"[..], "x.A");
    let root_b = Schema::protobuf(urn("urn:acme:schema:proto:1"), &b"\x0a\x00"[..], "x.B");
    store.put(&root_a).unwrap();
    assert!(matches!(store.put(&root_b), Err(Error::Immutable { .. })));
    assert_eq!(store.get(root_a.urn()).unwrap().as_ref(), Some(&root_a));
    assert_eq!(store.get(a1.urn()).unwrap().as_ref(), Some(&a1));

    // What is read back is the schema put, byte for byte, root included.
    let read = store.get(a1.urn()).unwrap().unwrap();
    assert_eq!(read.bytes(), a1.bytes());
    assert_eq!(read.digest(), a1.digest());
    assert_eq!(read.root(), None);
    assert_eq!(
        store.get(root_a.urn()).unwrap().unwrap().root(),
        Some("x.A")
    );

    // Versions ascending (numerically), per namespace; list ordered.
    for text in [
        "urn:acme:schema:a:10",
        "urn:acme:schema:a:2",
        "urn:zeta:schema:a:3",
        "urn:acme:schema:b:1",
    ] {
        store.put(&schema(text, "{}")).unwrap();
    }
    assert_eq!(store.versions("acme", "a").unwrap(), vec![1, 2, 10]);
    assert_eq!(store.versions("zeta", "a").unwrap(), vec![3]);
    assert_eq!(store.versions("ACME", "a").unwrap(), vec![1, 2, 10]);
    assert_eq!(
        store.versions("acme", "nothing").unwrap(),
        Vec::<u32>::new()
    );
    let listed: Vec<String> = store
        .list()
        .unwrap()
        .iter()
        .map(|u| u.to_string())
        .collect();
    assert_eq!(
        listed,
        [
            "urn:acme:schema:a:1",
            "urn:acme:schema:a:2",
            "urn:acme:schema:a:10",
            "urn:acme:schema:b:1",
            "urn:acme:schema:proto:1",
            "urn:zeta:schema:a:3"
        ]
    );
    // Every version is kept.
    for urn in store.list().unwrap() {
        assert!(store.get(&urn).unwrap().is_some(), "{urn}");
    }
}

fn ids(store: &dyn Store) {
    let first = schema("urn:acme:schema:ids.x:1", r#"{"title":"ids"}"#);
    let same_elsewhere = schema("urn:acme:schema:ids.y:4", r#"{"title":"ids"}"#);
    let other = schema("urn:acme:schema:ids.x:2", r#"{"title":"other ids"}"#);
    let stored = store.publish(&first, Version::Exact, &no_check).unwrap();
    assert!(stored.created);
    assert_eq!(stored.urn, *first.urn());
    assert!(stored.id >= 1 && stored.id <= i32::MAX as u32);
    // Again: the same id, nothing created.
    let again = store.publish(&first, Version::Exact, &no_check).unwrap();
    assert_eq!((again.id, again.created), (stored.id, false));
    // The same content under another URN: the same id.
    let elsewhere = store
        .publish(&same_elsewhere, Version::Exact, &no_check)
        .unwrap();
    assert_eq!((elsewhere.id, elsewhere.created), (stored.id, true));
    // Different content: a new id.
    let new = store.publish(&other, Version::Exact, &no_check).unwrap();
    assert_ne!(new.id, stored.id);
    assert!(new.id >= 1);
    // A protobuf content with the same bytes and another root is another
    // content.
    let proto = store
        .id_of(&urn("urn:acme:schema:proto:1"))
        .unwrap()
        .unwrap();
    let proto_other_root =
        Schema::protobuf(urn("urn:acme:schema:proto:2"), &b"\x0a\x00"[..], "x.B");
    let other_root = store
        .publish(&proto_other_root, Version::Exact, &no_check)
        .unwrap();
    assert_ne!(other_root.id, proto);

    assert_eq!(store.id_of(first.urn()).unwrap(), Some(stored.id));
    assert_eq!(store.id_of(same_elsewhere.urn()).unwrap(), Some(stored.id));
    assert_eq!(store.id_of(other.urn()).unwrap(), Some(new.id));
    assert_eq!(store.id_of(&urn("urn:acme:schema:ids.x:99")).unwrap(), None);
    assert_eq!(
        store.urns_of(stored.id).unwrap(),
        vec![first.urn().clone(), same_elsewhere.urn().clone()]
    );
    assert_eq!(store.urns_of(new.id).unwrap(), vec![other.urn().clone()]);
    assert_eq!(store.urns_of(0).unwrap(), Vec::<Urn>::new());
    assert_eq!(store.urns_of(i32::MAX as u32).unwrap(), Vec::<Urn>::new());
    let by_id = store.by_id(stored.id).unwrap().unwrap();
    assert_eq!(by_id, first);
    assert_eq!(store.by_id(new.id).unwrap().as_ref(), Some(&other));
    assert_eq!(store.by_id(i32::MAX as u32).unwrap(), None);

    // Every URN's id is positive, and ids are per content.
    let mut by_content = BTreeMap::new();
    for urn in store.list().unwrap() {
        let held = store.get(&urn).unwrap().unwrap();
        let id = store.id_of(&urn).unwrap().unwrap();
        assert!(id >= 1);
        let content = (
            held.language(),
            held.root().map(str::to_owned),
            held.bytes().to_vec(),
        );
        assert_eq!(*by_content.entry(content).or_insert(id), id, "{urn}");
    }
    let distinct: HashSet<SchemaId> = by_content.values().copied().collect();
    assert_eq!(distinct.len(), by_content.len(), "one id per content");
}

fn next_versions(store: &dyn Store) {
    let v = |body: &str| schema("urn:acme:schema:next:77", body);
    // The first: version 1, whatever the URN's version.
    let one = store
        .publish(&v(r#"{"title":"1"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!(
        (one.urn.to_string().as_str(), one.created),
        ("urn:acme:schema:next:1", true)
    );
    let two = store
        .publish(&v(r#"{"title":"2"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!(two.urn, urn("urn:acme:schema:next:2"));
    // Same content again: the version holding it, nothing stored.
    let again = store
        .publish(&v(r#"{"title":"1"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!(
        (again.urn.clone(), again.id, again.created),
        (one.urn.clone(), one.id, false)
    );
    // max + 1 even past a gap.
    store
        .put(&schema("urn:acme:schema:next:9", r#"{"title":"9"}"#))
        .unwrap();
    let ten = store
        .publish(&v(r#"{"title":"10"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!(ten.urn, urn("urn:acme:schema:next:10"));
    assert_eq!(store.versions("acme", "next").unwrap(), vec![1, 2, 9, 10]);
    // The check sees the schema under its final URN and every version held.
    let seen = Mutex::new(None);
    let record = |schema: &Schema, held: &[Schema]| {
        let versions: Vec<u32> = held.iter().map(|h| h.urn().version()).collect();
        *seen.lock() = Some((schema.urn().clone(), versions));
        Ok(())
    };
    store
        .publish(&v(r#"{"title":"11"}"#), Version::Next, &record)
        .unwrap();
    assert_eq!(
        seen.lock().take(),
        Some((urn("urn:acme:schema:next:11"), vec![1, 2, 9, 10]))
    );
    // A refused check stores nothing.
    let refuse = |schema: &Schema, _: &[Schema]| {
        Err(Error::NotFound {
            urn: schema.urn().clone(),
        })
    };
    assert!(matches!(
        store.publish(&v(r#"{"title":"12"}"#), Version::Next, &refuse),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        store.publish(
            &schema("urn:acme:schema:next:50", "{}"),
            Version::Exact,
            &refuse
        ),
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        store.versions("acme", "next").unwrap(),
        vec![1, 2, 9, 10, 11]
    );
    // A held URN is answered without running the check.
    let held = store
        .publish(
            &schema("urn:acme:schema:next:9", r#"{"title":"9"}"#),
            Version::Exact,
            &refuse,
        )
        .unwrap();
    assert!(!held.created);
}

fn modes(store: &dyn Store) {
    assert_eq!(store.compatibility(None).unwrap(), None);
    assert_eq!(store.compatibility(Some("m")).unwrap(), None);
    store
        .set_compatibility(Some("m"), Some(Compatibility::Full))
        .unwrap();
    store
        .set_compatibility(None, Some(Compatibility::None))
        .unwrap();
    assert_eq!(
        store.compatibility(Some("m")).unwrap(),
        Some(Compatibility::Full)
    );
    assert_eq!(
        store.compatibility(None).unwrap(),
        Some(Compatibility::None)
    );
    store
        .set_compatibility(Some("m"), Some(Compatibility::ForwardTransitive))
        .unwrap();
    assert_eq!(
        store.compatibility(Some("m")).unwrap(),
        Some(Compatibility::ForwardTransitive)
    );
    store.set_compatibility(Some("m"), None).unwrap();
    store.set_compatibility(Some("never.set"), None).unwrap();
    assert_eq!(store.compatibility(Some("m")).unwrap(), None);
    assert_eq!(
        store.compatibility(None).unwrap(),
        Some(Compatibility::None)
    );
    store.set_compatibility(None, None).unwrap();
    assert_eq!(store.compatibility(None).unwrap(), None);
    for mode in Compatibility::ALL {
        store.set_compatibility(Some("all"), Some(mode)).unwrap();
        assert_eq!(store.compatibility(Some("all")).unwrap(), Some(mode));
    }
}

/// A publish held in its check does not hold up reads.
fn reads_do_not_wait_for_a_publish(store: &Arc<dyn Store>) {
    let (in_check, wait_in_check) = mpsc::channel();
    let (go, wait_go) = mpsc::channel::<()>();
    let wait_go = Mutex::new(wait_go);
    let publisher = {
        let store = Arc::clone(store);
        std::thread::spawn(move || {
            let check = |_: &Schema, _: &[Schema]| {
                in_check.send(()).unwrap();
                let _ = wait_go.lock().recv_timeout(Duration::from_secs(60));
                Ok(())
            };
            store.publish(
                &schema("urn:acme:schema:slow:1", "{}"),
                Version::Exact,
                &check,
            )
        })
    };
    wait_in_check.recv_timeout(Duration::from_secs(60)).unwrap();
    let (read, wait_read) = mpsc::channel();
    {
        let store = Arc::clone(store);
        std::thread::spawn(move || {
            let result = (|| {
                let a1 = store.get(&urn("urn:acme:schema:a:1"))?;
                let slow = store.get(&urn("urn:acme:schema:slow:1"))?;
                let listed = store.list()?.len();
                let versions = store.versions("acme", "a")?;
                Ok::<_, Error>((a1.is_some(), slow.is_some(), listed > 0, versions.len()))
            })();
            let _ = read.send(result);
        });
    }
    let result = wait_read.recv_timeout(Duration::from_secs(30));
    go.send(()).unwrap();
    let stored = publisher.join().unwrap().unwrap();
    assert!(stored.created);
    let result = result.expect("reads waited for a publish in progress");
    // The read saw what was committed, and not the publish in progress.
    assert_eq!(result.unwrap(), (true, false, true, 3));
}

/// Racing writers of different bytes under one URN, each on its own
/// handle: exactly one wins, the rest are `Immutable`.
fn one_of_many_wins(open: Open<'_>) {
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let (store, barrier) = (open(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                store.put(&schema(
                    "urn:acme:schema:race:1",
                    &format!("{{\"maxLength\":{i}}}"),
                ))
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .filter_map(|r| r.as_ref().err())
            .all(|e| matches!(e, Error::Immutable { .. })),
        "{results:?}"
    );
}

/// One content published under many names at once, each on its own
/// handle: every publish succeeds, with one id.
fn one_content_many_names(open: Open<'_>) {
    let threads = 8;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let (store, barrier) = (open(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                store.publish(
                    &schema(
                        &format!("urn:acme:schema:shared.{i}:1"),
                        r#"{"title":"shared"}"#,
                    ),
                    Version::Exact,
                    &no_check,
                )
            })
        })
        .collect();
    let stored: Vec<Stored> = handles
        .into_iter()
        .map(|h| h.join().unwrap().unwrap())
        .collect();
    let ids: HashSet<SchemaId> = stored.iter().map(|s| s.id).collect();
    assert_eq!(ids.len(), 1, "{stored:?}");
    assert!(stored.iter().all(|s| s.created));
    let id = stored[0].id;
    assert_eq!(open().urns_of(id).unwrap().len(), threads);
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

/// Many publishers of next versions of one name under a checked mode,
/// each on its own handle: versions end gap-free 1..=N, and each check
/// saw every version stored before it.
#[cfg(feature = "json")]
fn next_versions_race(open: Open<'_>) {
    let threads = 8;
    let checked = Arc::new(Mutex::new(BTreeMap::new()));
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let registry = Registry::new(Recording {
                inner: open(),
                checked: Arc::clone(&checked),
            });
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                registry.register_next(next_schema("nextrace", i), Compatibility::Backward)
            })
        })
        .collect();
    let stored: Vec<Stored> = handles
        .into_iter()
        .map(|h| h.join().unwrap().unwrap())
        .collect();
    let store = open();
    assert_history(&*store, "nextrace", threads, &checked.lock());
    let ids: HashSet<SchemaId> = stored.iter().map(|s| s.id).collect();
    assert_eq!(ids.len(), threads, "every content its own id");
    assert!(stored.iter().all(|s| s.created));
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
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    conformance(&|| Arc::clone(&store));
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
        other => panic!("unknown child mode {other} (for {target})"),
    }
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
        conformance(&|| Arc::new(SqliteStore::open(&path).unwrap()));
        // Ids and modes survive a restart.
        let id = first
            .id_of(&urn("urn:acme:schema:ids.x:1"))
            .unwrap()
            .unwrap();
        first
            .set_compatibility(Some("kept"), Some(Compatibility::Full))
            .unwrap();
        drop(first);
        let reopened = SqliteStore::open(&path).unwrap();
        assert_eq!(
            reopened.id_of(&urn("urn:acme:schema:ids.y:4")).unwrap(),
            Some(id)
        );
        assert_eq!(
            reopened.compatibility(Some("kept")).unwrap(),
            Some(Compatibility::Full)
        );
        // A new content after the restart gets a new id, above all before.
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
        assert!(
            before.iter().all(|&old| old < new.id),
            "ids are never reused"
        );
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
        conformance(&|| Arc::new(PostgresStore::connect(&db.url).unwrap()));
        // Ids and modes survive a new connection (a restart, a replica).
        let id = first
            .id_of(&urn("urn:acme:schema:ids.x:1"))
            .unwrap()
            .unwrap();
        first
            .set_compatibility(Some("kept"), Some(Compatibility::Full))
            .unwrap();
        drop(first);
        let replica = PostgresStore::connect(&db.url).unwrap();
        assert_eq!(
            replica.id_of(&urn("urn:acme:schema:ids.y:4")).unwrap(),
            Some(id)
        );
        assert_eq!(
            replica.compatibility(Some("kept")).unwrap(),
            Some(Compatibility::Full)
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
        let migrations: i64 = client
            .query_one("SELECT count(*) FROM dataschema_migrations", &[])
            .unwrap()
            .get(0);
        assert_eq!(migrations, 1);
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
                        Some(registry.register(
                            schema("urn:acme:schema:prace:1", &format!(r#"{{"title":"{i}"}}"#)),
                            Compatibility::None,
                        ))
                    } else {
                        None
                    };
                    let stored =
                        registry.register_next(next_schema("procs", i), Compatibility::Backward);
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
