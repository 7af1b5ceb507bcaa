//! The conformance suite every [`Store`] must pass, for implementors of
//! their own store (as `object_store` exports its integration suite).
//!
//! Enabled by the `testing` feature. Each function checks one part of the
//! contract [`Store`] documents and panics (with `assert!`) where a store
//! breaks it, so it is called from a test:
//!
//! ```
//! use std::sync::Arc;
//! use dataschema::store::{testing, MemoryStore};
//!
//! // One store shared by every handle: `open` answers handles on it. A
//! // store over a database answers a new connection to the same data.
//! let store = Arc::new(MemoryStore::new());
//! testing::all(|| Arc::clone(&store));
//! ```
//!
//! Run it on an empty store. Each function uses names of its own (under
//! the namespaces `conformance` and `conformance-other`), so they run in
//! any order on one store, but each once: a second run finds its names
//! held. [`all`] runs every one.
//!
//! The functions taking `open` run publishers on several handles at once,
//! each from [`open`'s](all) own call: for a store over a database, make
//! each call a new connection (or pool), so that the store's lock is
//! tested across connections, as replicas would use it.

use std::collections::{BTreeMap, HashSet};
use std::sync::{mpsc, Barrier};
use std::time::Duration;

use parking_lot::Mutex;

use super::{
    Association, AssociationChange, AssociationsHeld, AssociationsOf, Lifecycle, Mode, SchemaId,
    Store, Stored, Version, MAX_ID,
};
use dataschema_core::{Compatibility, Error, Schema, Urn};

/// The namespace of the suite's URNs.
const NS: &str = "conformance";

/// How many publishers race in the concurrent checks.
const RACERS: usize = 8;

/// Every check of the suite, in order, on the store `open` answers
/// handles on (see the [module](self) documentation).
pub fn all<S: Store>(open: impl Fn() -> S + Sync) {
    let store = open();
    immutability(&store);
    retention_and_order(&store);
    ids(&store);
    next_versions(&store);
    last_version(&store);
    modes(&store);
    registry_modes(&store);
    given_ids(&store);
    soft_deletes(&store);
    reads_do_not_wait_for_a_publish(&store);
    a_check_that_panics(&store);
    one_of_many_wins(&open);
    one_content_many_names(&open);
    next_versions_race(&open);
    contracts(&open);
    associations(&store);
    associations_race(&open);
    // Last: past it, the store numbers new contents in its gaps.
    the_largest_id(&store);
}

fn urn(name: &str, version: u32) -> Urn {
    Urn::new(NS, name, version).expect("the suite's URNs are valid")
}

fn json(name: &str, version: u32, body: &str) -> Schema {
    Schema::json(urn(name, version), body.to_owned())
}

fn no_check(_: &Schema, _: &[Schema]) -> Result<(), Error> {
    Ok(())
}

fn refuse(schema: &Schema, _: &[Schema]) -> Result<(), Error> {
    Err(Error::NotFound {
        urn: schema.urn().clone(),
    })
}

/// Immutability: the same schema again is fine; different bytes, language
/// or root under a held URN is [`Error::Immutable`] and changes nothing;
/// what is read back is the schema put, byte for byte, root included.
pub fn immutability(store: &dyn Store) {
    let first = json("immutable", 1, r#"{"type":"string"}"#);
    assert_eq!(store.get(first.urn()).unwrap(), None, "nothing held yet");
    store.put(&first).unwrap();
    store.put(&first).unwrap(); // idempotent
    assert_eq!(store.get(first.urn()).unwrap().as_ref(), Some(&first));

    let changed = json("immutable", 1, r#"{"type":"integer"}"#);
    assert!(
        matches!(store.put(&changed), Err(Error::Immutable { .. })),
        "other bytes under a held URN"
    );
    let other_language = Schema::protobuf(first.urn().clone(), first.shared_bytes(), "x.Y");
    assert!(
        matches!(store.put(&other_language), Err(Error::Immutable { .. })),
        "another language under a held URN"
    );
    let root_a = Schema::protobuf(urn("immutable.proto", 1), &b"\x0a\x00"[..], "x.A");
    let root_b = Schema::protobuf(urn("immutable.proto", 1), &b"\x0a\x00"[..], "x.B");
    store.put(&root_a).unwrap();
    assert!(
        matches!(store.put(&root_b), Err(Error::Immutable { .. })),
        "another root under a held URN"
    );
    // Refused with a check that would refuse too: immutability first.
    assert!(matches!(
        store.publish(&changed, Version::Exact, &refuse),
        Err(Error::Immutable { .. })
    ));
    assert_eq!(store.get(root_a.urn()).unwrap().as_ref(), Some(&root_a));
    assert_eq!(store.get(first.urn()).unwrap().as_ref(), Some(&first));

    let read = store.get(first.urn()).unwrap().unwrap();
    assert_eq!(read.bytes(), first.bytes());
    assert_eq!(read.digest(), first.digest());
    assert_eq!(read.root(), None);
    assert_eq!(
        store.get(root_a.urn()).unwrap().unwrap().root(),
        Some("x.A")
    );
}

/// Retention and order: versions ascending numerically and per namespace
/// (compared case-insensitively), `list` ordered by namespace, name and
/// version, every version kept.
pub fn retention_and_order(store: &dyn Store) {
    let other_ns = "conformance-other";
    for (namespace, version) in [(NS, 10), (NS, 2), (other_ns, 3), (NS, 1)] {
        let urn = Urn::new(namespace, "ordered", version).unwrap();
        store.put(&Schema::json(urn, "{}")).unwrap();
    }
    store.put(&json("ordered.b", 1, "{}")).unwrap();
    assert_eq!(store.versions(NS, "ordered").unwrap(), vec![1, 2, 10]);
    assert_eq!(store.versions(other_ns, "ordered").unwrap(), vec![3]);
    assert_eq!(
        store.versions("CONFORMANCE", "ordered").unwrap(),
        vec![1, 2, 10],
        "namespaces compare case-insensitively"
    );
    assert_eq!(
        store.versions(NS, "ordered.nothing").unwrap(),
        Vec::<u32>::new()
    );
    let listed: Vec<String> = store
        .list()
        .unwrap()
        .iter()
        .filter(|urn| urn.name().starts_with("ordered"))
        .map(Urn::to_string)
        .collect();
    assert_eq!(
        listed,
        [
            "urn:conformance:schema:ordered:1",
            "urn:conformance:schema:ordered:2",
            "urn:conformance:schema:ordered:10",
            "urn:conformance:schema:ordered.b:1",
            "urn:conformance-other:schema:ordered:3",
        ]
    );
    let all = store.list().unwrap();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "list is ordered as URNs order");
    for urn in all {
        assert!(store.get(&urn).unwrap().is_some(), "{urn} is kept");
    }
}

/// Registry modes: none set at first; set, read back, changed and cleared,
/// per name and store-wide, apart from compatibility modes.
pub fn registry_modes(store: &dyn Store) {
    let name = "conformance.registry-mode";
    assert_eq!(store.mode(Some(name)).unwrap(), None);
    store.set_mode(Some(name), Some(Mode::ReadOnly)).unwrap();
    assert_eq!(store.mode(Some(name)).unwrap(), Some(Mode::ReadOnly));
    assert_eq!(
        store.compatibility(Some(name)).unwrap(),
        None,
        "a registry mode is no compatibility mode"
    );
    for mode in [Mode::Import, Mode::ReadOnlyOverride, Mode::ReadWrite] {
        store.set_mode(Some(name), Some(mode)).unwrap();
        assert_eq!(store.mode(Some(name)).unwrap(), Some(mode));
    }
    store.set_mode(None, Some(Mode::Import)).unwrap();
    assert_eq!(store.mode(None).unwrap(), Some(Mode::Import));
    assert_eq!(store.mode(Some(name)).unwrap(), Some(Mode::ReadWrite));
    store.set_mode(None, None).unwrap();
    store.set_mode(Some(name), None).unwrap();
    assert_eq!(store.mode(None).unwrap(), None);
    assert_eq!(store.mode(Some(name)).unwrap(), None);
}

/// Given ids ([`Store::publish_with_id`]): kept as given, at any version;
/// the same again is fine; an id held by other bytes, or a held URN asked
/// for another id, is [`Error::IdConflict`] and stores nothing; a content
/// held under another id is kept under the id given too (one content, two
/// ids, each resolving to the same bytes); ids the store hands out
/// afterwards are above every id given, and a content the store numbers
/// itself keeps one id.
pub fn given_ids(store: &dyn Store) {
    let imported = json("given-ids", 5, r#"{"title":"imported 1000"}"#);
    let stored = store
        .publish_with_id(&imported, Version::Exact, 1000, &no_check)
        .unwrap();
    assert_eq!((stored.id, stored.created), (1000, true));
    assert_eq!(store.id_of(imported.urn()).unwrap(), Some(1000));
    assert_eq!(store.urns_of(1000).unwrap(), vec![imported.urn().clone()]);
    let again = store
        .publish_with_id(&imported, Version::Exact, 1000, &no_check)
        .unwrap();
    assert_eq!((again.id, again.created), (1000, false));
    // A gap, and the same content under another name.
    let gap = json("given-ids", 9, r#"{"title":"imported 1500"}"#);
    assert_eq!(
        store
            .publish_with_id(&gap, Version::Exact, 1500, &no_check)
            .unwrap()
            .id,
        1500
    );
    let shared = json("given-ids.other", 1, r#"{"title":"imported 1000"}"#);
    assert_eq!(
        store
            .publish_with_id(&shared, Version::Exact, 1000, &no_check)
            .unwrap()
            .id,
        1000
    );
    // The id held by other bytes.
    let other = json("given-ids.other", 2, r#"{"title":"not 1000"}"#);
    assert!(
        matches!(
            store.publish_with_id(&other, Version::Exact, 1000, &no_check),
            Err(Error::IdConflict { id: 1000, .. })
        ),
        "an id never moves to other bytes"
    );
    assert_eq!(store.get(other.urn()).unwrap(), None);
    // A held URN asked for another id: a version carries one id.
    assert!(matches!(
        store.publish_with_id(&gap, Version::Exact, 1700, &no_check),
        Err(Error::IdConflict { id: 1700, .. })
    ));
    assert_eq!(store.urns_of(1700).unwrap(), Vec::<Urn>::new());
    // The content held under another id: kept under the id given too.
    let second = json("given-ids.other", 3, r#"{"title":"imported 1500"}"#);
    let stored = store
        .publish_with_id(&second, Version::Exact, 1600, &no_check)
        .unwrap();
    assert_eq!((stored.id, stored.created), (1600, true));
    assert_eq!(store.id_of(second.urn()).unwrap(), Some(1600));
    assert_eq!(store.id_of(gap.urn()).unwrap(), Some(1500), "unchanged");
    assert_eq!(store.urns_of(1600).unwrap(), vec![second.urn().clone()]);
    assert_eq!(store.urns_of(1500).unwrap(), vec![gap.urn().clone()]);
    for id in [1500, 1600] {
        let by_id = store.by_id(id).unwrap().expect("each id resolves");
        assert_eq!(by_id.bytes(), gap.bytes(), "id {id}: the same bytes");
    }
    assert_eq!(store.get(second.urn()).unwrap().as_ref(), Some(&second));
    // Both ids are the content's (its guid's digest prefix).
    let prefix = super::content_digest(&gap)[..39].to_owned();
    assert_eq!(
        store.ids_of_digest_prefix(&prefix).unwrap(),
        vec![1500, 1600]
    );
    assert_eq!(store.id_of_digest_prefix(&prefix).unwrap(), Some(1500));
    // Its second id again: held; the same content at the next version of a
    // name with yet another id: a new version.
    let again = store
        .publish_with_id(&second, Version::Exact, 1600, &no_check)
        .unwrap();
    assert_eq!((again.id, again.created), (1600, false));
    let third = store
        .publish_with_id(&gap, Version::Next, 1650, &no_check)
        .unwrap();
    assert_eq!(
        (third.urn.version(), third.id, third.created),
        (10, 1650, true)
    );
    let same = store
        .publish_with_id(&gap, Version::Next, 1650, &no_check)
        .unwrap();
    assert_eq!((same.urn.version(), same.created), (10, false));
    // A publish without an id finds the content's first id.
    let plain = json("given-ids.plain", 1, r#"{"title":"imported 1500"}"#);
    assert_eq!(
        store.publish(&plain, Version::Exact, &no_check).unwrap().id,
        1500
    );
    // The next version, with an id.
    let next = json("given-ids", 1, r#"{"title":"imported 1200"}"#);
    let stored = store
        .publish_with_id(&next, Version::Next, 1200, &no_check)
        .unwrap();
    assert_eq!((stored.urn.version(), stored.id), (11, 1200));
    // The store's own ids come after every id given.
    let own = json("given-ids.own", 1, r#"{"title":"allocated"}"#);
    let allocated = store.publish(&own, Version::Exact, &no_check).unwrap();
    assert!(allocated.id > 1650, "{allocated:?}");
}

/// The largest id, `2^31-1`, given at an import (a valid Confluent id):
/// the store goes on numbering new contents, each with an id no content
/// holds, within `1..=2^31-1`; the id past it is refused. Run it last on
/// a store: from then on, new contents take the store's unused ids.
pub fn the_largest_id(store: &dyn Store) {
    let top = json("largest-id", 1, r#"{"title":"the largest id"}"#);
    let stored = store
        .publish_with_id(&top, Version::Exact, MAX_ID, &no_check)
        .unwrap();
    assert_eq!((stored.id, stored.created), (MAX_ID, true));
    assert!(matches!(
        store.publish_with_id(
            &json("largest-id", 2, r#"{"title":"past it"}"#),
            Version::Exact,
            MAX_ID + 1,
            &no_check
        ),
        Err(Error::IdNotFound { .. })
    ));
    let mut held: HashSet<SchemaId> = HashSet::new();
    for urn in store.list().unwrap() {
        held.insert(store.id_of(&urn).unwrap().unwrap());
    }
    for n in 0..5 {
        let fresh = json(
            "largest-id.after",
            n + 1,
            &format!(r#"{{"title":"new {n}"}}"#),
        );
        let stored = store
            .publish(&fresh, Version::Exact, &no_check)
            .unwrap_or_else(|err| panic!("a new content after the largest id: {err:?}"));
        assert!(stored.created);
        assert!(
            (1..MAX_ID).contains(&stored.id),
            "a new content's id is within 1..2^31-1: {stored:?}"
        );
        assert!(held.insert(stored.id), "an id no content held: {stored:?}");
        assert_eq!(
            store.by_id(stored.id).unwrap().map(|s| s.bytes().to_vec()),
            Some(fresh.bytes().to_vec())
        );
        // Held again: the same id.
        let again = store.publish(&fresh, Version::Exact, &no_check).unwrap();
        assert_eq!((again.id, again.created), (stored.id, false));
    }
    assert_eq!(
        store.by_id(MAX_ID).unwrap().map(|s| s.bytes().to_vec()),
        Some(top.bytes().to_vec()),
        "the largest id still names its content"
    );
}

/// Soft deletes: a deleted version is listed by [`Store::deleted`], still
/// held and resolvable with its id; a [`Version::Next`] publish of the same
/// content makes a new version (same id), and checks compatibility against
/// the live versions only; deleting a URN not held is
/// [`Error::NotFound`] and marks nothing.
pub fn soft_deletes(store: &dyn Store) {
    let v1 = json("soft-deletes", 1, r#"{"title":"one"}"#);
    let v2 = json("soft-deletes", 2, r#"{"title":"two"}"#);
    store.put(&v1).unwrap();
    let id2 = store.publish(&v2, Version::Exact, &no_check).unwrap().id;
    assert_eq!(
        store.deleted(NS, "soft-deletes").unwrap(),
        Vec::<u32>::new()
    );
    store.delete_versions(&[v2.urn().clone()]).unwrap();
    store.delete_versions(&[v2.urn().clone()]).unwrap(); // idempotent
    assert_eq!(store.deleted(NS, "soft-deletes").unwrap(), vec![2]);
    assert_eq!(store.versions(NS, "soft-deletes").unwrap(), vec![1, 2]);
    assert_eq!(store.get(v2.urn()).unwrap().as_ref(), Some(&v2));
    assert_eq!(store.id_of(v2.urn()).unwrap(), Some(id2));
    assert!(store.by_id(id2).unwrap().is_some());
    // The same content again: a new version, the same id, checked against
    // version 1 alone.
    let seen = Mutex::new(Vec::new());
    let again = store
        .publish(&v2, Version::Next, &|_, held| {
            seen.lock().extend(held.iter().map(|s| s.urn().version()));
            Ok(())
        })
        .unwrap();
    assert_eq!(
        (again.urn.version(), again.id, again.created),
        (3, id2, true)
    );
    assert_eq!(
        *seen.lock(),
        vec![1],
        "deleted versions are not checked against"
    );
    // Not held: nothing marked.
    let missing = urn("soft-deletes", 99);
    assert!(matches!(
        store.delete_versions(&[v1.urn().clone(), missing]),
        Err(Error::NotFound { .. })
    ));
    assert_eq!(store.deleted(NS, "soft-deletes").unwrap(), vec![2]);
}

/// Ids: positive, at most `i32::MAX`, one per content (language, bytes and
/// root) whatever the URN, stable; `id_of`, `urns_of` and `by_id` agree.
pub fn ids(store: &dyn Store) {
    let first = json("ids.x", 1, r#"{"title":"ids"}"#);
    let same_elsewhere = json("ids.y", 4, r#"{"title":"ids"}"#);
    let other = json("ids.x", 2, r#"{"title":"other ids"}"#);
    let stored = store.publish(&first, Version::Exact, &no_check).unwrap();
    assert!(stored.created);
    assert_eq!(stored.urn, *first.urn());
    assert!(stored.id >= 1 && stored.id <= i32::MAX as u32, "{stored:?}");
    let again = store.publish(&first, Version::Exact, &no_check).unwrap();
    assert_eq!((again.id, again.created), (stored.id, false), "held again");
    let elsewhere = store
        .publish(&same_elsewhere, Version::Exact, &no_check)
        .unwrap();
    assert_eq!(
        (elsewhere.id, elsewhere.created),
        (stored.id, true),
        "the same content under another URN has the same id"
    );
    let new = store.publish(&other, Version::Exact, &no_check).unwrap();
    assert_ne!(new.id, stored.id, "another content, another id");
    assert!(new.id >= 1);
    let root_a = Schema::protobuf(urn("ids.proto", 1), &b"\x0a\x00"[..], "x.A");
    let root_b = Schema::protobuf(urn("ids.proto", 2), &b"\x0a\x00"[..], "x.B");
    let a = store.publish(&root_a, Version::Exact, &no_check).unwrap();
    let b = store.publish(&root_b, Version::Exact, &no_check).unwrap();
    assert_ne!(a.id, b.id, "the same bytes under another root: another id");

    assert_eq!(store.id_of(first.urn()).unwrap(), Some(stored.id));
    assert_eq!(store.id_of(same_elsewhere.urn()).unwrap(), Some(stored.id));
    assert_eq!(store.id_of(other.urn()).unwrap(), Some(new.id));
    assert_eq!(store.id_of(&urn("ids.x", 99)).unwrap(), None);
    assert_eq!(
        store.urns_of(stored.id).unwrap(),
        vec![first.urn().clone(), same_elsewhere.urn().clone()]
    );
    assert_eq!(store.urns_of(new.id).unwrap(), vec![other.urn().clone()]);
    assert_eq!(store.urns_of(0).unwrap(), Vec::<Urn>::new());
    assert_eq!(store.urns_of(i32::MAX as u32).unwrap(), Vec::<Urn>::new());
    assert_eq!(store.by_id(stored.id).unwrap().as_ref(), Some(&first));
    assert_eq!(store.by_id(new.id).unwrap().as_ref(), Some(&other));
    assert_eq!(store.by_id(i32::MAX as u32).unwrap(), None);

    // Over everything held: ids positive and one per content.
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

/// Next versions: 1 for a new name, one above the highest held (past a
/// gap), the held version for content already held; the check sees the
/// schema under its final URN and every version held; a refused check
/// stores nothing; a held URN is answered without running the check.
pub fn next_versions(store: &dyn Store) {
    let v = |body: &str| json("next", 77, body);
    let one = store
        .publish(&v(r#"{"title":"1"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!((one.urn.clone(), one.created), (urn("next", 1), true));
    let two = store
        .publish(&v(r#"{"title":"2"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!(two.urn, urn("next", 2));
    let again = store
        .publish(&v(r#"{"title":"1"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!(
        (again.urn.clone(), again.id, again.created),
        (one.urn.clone(), one.id, false),
        "the same content again: the version holding it"
    );
    store.put(&json("next", 9, r#"{"title":"9"}"#)).unwrap();
    let ten = store
        .publish(&v(r#"{"title":"10"}"#), Version::Next, &no_check)
        .unwrap();
    assert_eq!(ten.urn, urn("next", 10), "the highest + 1, past a gap");
    assert_eq!(store.versions(NS, "next").unwrap(), vec![1, 2, 9, 10]);

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
        Some((urn("next", 11), vec![1, 2, 9, 10])),
        "the check sees the final URN and every version held"
    );
    assert!(matches!(
        store.publish(&v(r#"{"title":"12"}"#), Version::Next, &refuse),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        store.publish(&json("next", 50, "{}"), Version::Exact, &refuse),
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        store.versions(NS, "next").unwrap(),
        vec![1, 2, 9, 10, 11],
        "a refused check stores nothing"
    );
    let held = store
        .publish(
            &json("next", 9, r#"{"title":"9"}"#),
            Version::Exact,
            &refuse,
        )
        .unwrap();
    assert!(!held.created, "a held URN is answered without the check");
}

/// The largest version: a store holds version 4294967295, and the next
/// version of a name holding it is [`Error::LastVersion`] naming that URN
/// (no wrap, no panic, nothing stored); content already held is still
/// answered.
pub fn last_version(store: &dyn Store) {
    let last = json("last", u32::MAX, r#"{"title":"last"}"#);
    store.put(&last).unwrap();
    assert_eq!(store.versions(NS, "last").unwrap(), vec![u32::MAX]);
    for check in [&no_check as super::Check<'_>, &refuse] {
        match store.publish(
            &json("last", 1, r#"{"title":"after"}"#),
            Version::Next,
            check,
        ) {
            Err(Error::LastVersion { urn }) => assert_eq!(urn, *last.urn()),
            other => panic!("the next version after 4294967295: {other:?}"),
        }
    }
    assert_eq!(store.versions(NS, "last").unwrap(), vec![u32::MAX]);
    let held = store.publish(&last, Version::Next, &no_check).unwrap();
    assert_eq!((held.urn, held.created), (last.urn().clone(), false));
}

/// Compatibility modes: per name and store-wide, set, replaced, cleared,
/// each of the seven kept.
pub fn modes(store: &dyn Store) {
    let name = Some("conformance.modes");
    assert_eq!(store.compatibility(None).unwrap(), None);
    assert_eq!(store.compatibility(name).unwrap(), None);
    store
        .set_compatibility(name, Some(Compatibility::Full))
        .unwrap();
    store
        .set_compatibility(None, Some(Compatibility::None))
        .unwrap();
    assert_eq!(
        store.compatibility(name).unwrap(),
        Some(Compatibility::Full)
    );
    assert_eq!(
        store.compatibility(None).unwrap(),
        Some(Compatibility::None)
    );
    store
        .set_compatibility(name, Some(Compatibility::ForwardTransitive))
        .unwrap();
    assert_eq!(
        store.compatibility(name).unwrap(),
        Some(Compatibility::ForwardTransitive)
    );
    store.set_compatibility(name, None).unwrap();
    store
        .set_compatibility(Some("conformance.never-set"), None)
        .unwrap();
    assert_eq!(store.compatibility(name).unwrap(), None);
    assert_eq!(
        store.compatibility(None).unwrap(),
        Some(Compatibility::None)
    );
    store.set_compatibility(None, None).unwrap();
    assert_eq!(store.compatibility(None).unwrap(), None);
    for mode in Compatibility::ALL {
        store
            .set_compatibility(Some("conformance.all"), Some(mode))
            .unwrap();
        assert_eq!(
            store.compatibility(Some("conformance.all")).unwrap(),
            Some(mode)
        );
    }
}

/// A check that panics unwinds out of the publish, which stores nothing,
/// and costs the store nothing: after more such publishes than a store
/// over a database has connections, of one name and of several, a publish
/// of that name goes through, as do reads. (A store that kept a
/// connection, a slot or the name's lock for each would refuse it here.)
pub fn a_check_that_panics(store: &dyn Store) {
    fn panics(_: &Schema, _: &[Schema]) -> Result<(), Error> {
        panic!("the conformance suite's check panics on purpose");
    }
    let name = "panicking";
    store.put(&json(name, 1, r#"{"type":"string"}"#)).unwrap();
    for i in 0..2 * RACERS {
        // Half on the one name, half each on a name of its own.
        let schema = if i % 2 == 0 {
            json(name, 2, r#"{"type":"integer"}"#)
        } else {
            json(&format!("panicking.{i}"), 1, r#"{"type":"integer"}"#)
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.publish(&schema, Version::Exact, &panics)
        }));
        assert!(outcome.is_err(), "publish {i}: the check's panic unwinds");
        assert_eq!(
            store.get(schema.urn()).unwrap(),
            None,
            "publish {i}: nothing is stored"
        );
    }
    let next = json(name, 2, r#"{"type":"number"}"#);
    store.publish(&next, Version::Exact, &no_check).unwrap();
    assert_eq!(store.get(next.urn()).unwrap().as_ref(), Some(&next));
    assert_eq!(store.versions(NS, name).unwrap(), vec![1, 2]);
}

/// A publish held in its check does not hold up reads, which see what was
/// committed and not the publish in progress.
pub fn reads_do_not_wait_for_a_publish(store: &dyn Store) {
    store.put(&json("reads", 1, "{}")).unwrap();
    let (in_check, wait_in_check) = mpsc::channel();
    let (go, wait_go) = mpsc::channel::<()>();
    let wait_go = Mutex::new(wait_go);
    std::thread::scope(|scope| {
        let publisher = scope.spawn(|| {
            let check = |_: &Schema, _: &[Schema]| {
                let _ = in_check.send(());
                let _ = wait_go.lock().recv_timeout(Duration::from_secs(60));
                Ok(())
            };
            store.publish(&json("reads.slow", 1, "{}"), Version::Exact, &check)
        });
        wait_in_check
            .recv_timeout(Duration::from_secs(60))
            .expect("the publish reached its check");
        let (read, wait_read) = mpsc::channel();
        scope.spawn(move || {
            let result = (|| {
                let held = store.get(&urn("reads", 1))?;
                let slow = store.get(&urn("reads.slow", 1))?;
                let listed = store.list()?.len();
                let versions = store.versions(NS, "reads")?;
                Ok::<_, Error>((held.is_some(), slow.is_some(), listed > 0, versions))
            })();
            let _ = read.send(result);
        });
        let result = wait_read.recv_timeout(Duration::from_secs(30));
        go.send(()).unwrap();
        let stored = publisher.join().unwrap().unwrap();
        assert!(stored.created);
        let result = result.expect("reads waited for a publish in progress");
        assert_eq!(result.unwrap(), (true, false, true, vec![1]));
    });
}

/// Racing publishers of different bytes under one URN, each on its own
/// handle: exactly one wins, the others are [`Error::Immutable`].
pub fn one_of_many_wins<S: Store>(open: impl Fn() -> S + Sync) {
    let barrier = Barrier::new(RACERS);
    let results: Vec<Result<(), Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (store, barrier) = (open(), &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    store.put(&json("race", 1, &format!("{{\"maxLength\":{i}}}")))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
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
/// handle: every publish succeeds, all with one id.
pub fn one_content_many_names<S: Store>(open: impl Fn() -> S + Sync) {
    let barrier = Barrier::new(RACERS);
    let stored: Vec<Stored> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (store, barrier) = (open(), &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    store.publish(
                        &json(&format!("shared.{i}"), 1, r#"{"title":"shared"}"#),
                        Version::Exact,
                        &no_check,
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().unwrap())
            .collect()
    });
    let ids: HashSet<SchemaId> = stored.iter().map(|s| s.id).collect();
    assert_eq!(ids.len(), 1, "{stored:?}");
    assert!(stored.iter().all(|s| s.created));
    assert_eq!(open().urns_of(stored[0].id).unwrap().len(), RACERS);
}

/// Many publishers of next versions of one name, each on its own handle:
/// the versions end gap-free 1..=N, each publish's check saw every
/// version stored before it, and each content has its own id.
pub fn next_versions_race<S: Store>(open: impl Fn() -> S + Sync) {
    let checked: Mutex<BTreeMap<u32, Vec<u32>>> = Mutex::new(BTreeMap::new());
    let barrier = Barrier::new(RACERS);
    let stored: Vec<Stored> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (store, barrier, checked) = (open(), &barrier, &checked);
                scope.spawn(move || {
                    // (The last attempt's view, when a store retries.)
                    let record = |schema: &Schema, held: &[Schema]| {
                        let versions = held.iter().map(|h| h.urn().version()).collect();
                        checked.lock().insert(schema.urn().version(), versions);
                        Ok(())
                    };
                    barrier.wait();
                    let body = format!(r#"{{"type":"object","title":"publisher {i}"}}"#);
                    store.publish(&json("nextrace", 1, &body), Version::Next, &record)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().unwrap())
            .collect()
    });
    let expected: Vec<u32> = (1..=RACERS as u32).collect();
    let store = open();
    assert_eq!(store.versions(NS, "nextrace").unwrap(), expected);
    let checked = checked.lock();
    for version in 1..=RACERS as u32 {
        assert_eq!(
            checked.get(&version),
            Some(&(1..version).collect::<Vec<u32>>()),
            "the check of version {version} saw every version before it"
        );
    }
    let ids: HashSet<SchemaId> = stored.iter().map(|s| s.id).collect();
    assert_eq!(ids.len(), RACERS, "every content its own id");
    assert!(stored.iter().all(|s| s.created));
}

/// A version's references, metadata and rule set are kept with it,
/// immutable, part of its content (its id), and read back by another
/// handle (for a persistent store: a restart or a replica), by URN, by id
/// and in the versions a publish's check is given; `referrers` and the
/// guid lookup find them; settings (`config`) are kept and cleared.
pub fn contracts<S: Store>(open: impl Fn() -> S + Sync) {
    use crate::store::{content_digest, content_guid, guid_digest_prefix};
    use dataschema_core::{Metadata, Reference, RuleSet};

    let writer = open();
    let target = json("contracts.target", 1, r#"{"type": "string"}"#);
    writer.put(&target).unwrap();
    let mut metadata = Metadata::default();
    metadata
        .properties
        .insert("owner".to_owned(), "team-a".to_owned());
    metadata
        .tags
        .insert("$.id".to_owned(), ["PII".to_owned()].into_iter().collect());
    metadata.sensitive.insert("secret".to_owned());
    let rules = RuleSet::from_json(&serde_json::json!({
        "domainRules": [{"name": "r1", "kind": "CONDITION", "expr": "true"}],
        "enableAt": "CLIENT"
    }))
    .unwrap();
    let bytes = r#"{"$ref": "target.json"}"#;
    let plain = json("contracts.plain", 1, bytes);
    let with = json("contracts.with", 1, bytes)
        .with_references([Reference::new("target.json", target.urn().clone())])
        .with_metadata(Some(metadata.clone()))
        .with_rule_set(Some(rules.clone()));
    writer.put(&plain).unwrap();
    let stored = writer.publish(&with, Version::Exact, &no_check).unwrap();
    let plain_id = writer.id_of(plain.urn()).unwrap().unwrap();
    assert_ne!(
        stored.id, plain_id,
        "the same bytes with a contract are another content"
    );
    // Immutable: the same URN with other metadata is refused.
    let other = with.with_metadata(None);
    assert!(matches!(
        writer.publish(&other, Version::Exact, &no_check),
        Err(Error::Immutable { .. })
    ));
    writer
        .set_config(
            Some("contracts.with"),
            Some(r#"{"compatibilityGroup":"major"}"#),
        )
        .unwrap();
    writer
        .set_config(None, Some(r#"{"normalize":true}"#))
        .unwrap();
    drop(writer);

    let reader = open();
    let read = reader.get(with.urn()).unwrap().unwrap();
    assert_eq!(read, with, "references, metadata and rule set read back");
    assert_eq!(read.metadata(), Some(&metadata));
    assert_eq!(read.rule_set(), Some(&rules));
    assert_eq!(read.references()[0].urn(), target.urn());
    assert_eq!(reader.get(plain.urn()).unwrap().unwrap().references(), &[]);
    let by_id = reader.by_id(stored.id).unwrap().unwrap();
    assert_eq!(by_id.metadata(), Some(&metadata));
    assert_eq!(
        reader.referrers(target.urn()).unwrap(),
        vec![with.urn().clone()]
    );
    assert_eq!(reader.referrers(plain.urn()).unwrap(), Vec::<Urn>::new());
    let guid = content_guid(&content_digest(&with));
    let prefix = guid_digest_prefix(&guid).unwrap();
    assert_eq!(
        reader.id_of_digest_prefix(&prefix).unwrap(),
        Some(stored.id)
    );
    assert_eq!(
        reader
            .id_of_digest_prefix(
                &guid_digest_prefix("00000000-0000-0000-0000-000000000000").unwrap()
            )
            .unwrap(),
        None
    );
    // A publish's check is given the held versions with their contracts.
    let seen = Mutex::new(None);
    let next = json("contracts.with", 2, r#"{"type": "integer"}"#);
    reader
        .publish(&next, Version::Exact, &|_, held| {
            *seen.lock() = held.first().and_then(|h| h.metadata().cloned());
            Ok(())
        })
        .unwrap();
    assert_eq!(seen.lock().as_ref(), Some(&metadata));
    assert_eq!(
        reader.config(Some("contracts.with")).unwrap().as_deref(),
        Some(r#"{"compatibilityGroup":"major"}"#)
    );
    assert_eq!(
        reader.config(None).unwrap().as_deref(),
        Some(r#"{"normalize":true}"#)
    );
    assert_eq!(reader.config(Some("contracts.plain")).unwrap(), None);
    reader.set_config(Some("contracts.with"), None).unwrap();
    reader.set_config(None, None).unwrap();
    assert_eq!(reader.config(Some("contracts.with")).unwrap(), None);
    assert_eq!(reader.config(None).unwrap(), None);
}

/// An association of the suite's resource `resource` (namespace `lkc-1`).
fn association(resource: &str, kind: &str, subject: &str, lifecycle: Lifecycle) -> Association {
    Association::new(
        subject,
        format!("guid-{resource}-{kind}"),
        format!("topic-{resource}"),
        "lkc-1",
        format!("conformance-{resource}"),
        "topic",
        kind,
        lifecycle,
        false,
    )
}

/// Associations: none at first; a plan's changes kept, all of them, and
/// read back by subject, resource id, resource name (in a namespace or
/// any) and namespace, in Confluent's order (name, namespace, type,
/// association type, subject); the plan sees the resource's and the
/// subjects' associations and the count held; a `Put` replaces its row
/// (the guid as given), a `Remove` empties it (an empty row is fine); a
/// plan's error changes nothing.
pub fn associations(store: &dyn Store) {
    let id = "conformance-a";
    assert_eq!(
        store.associations(AssociationsOf::ResourceId(id)).unwrap(),
        []
    );
    let key = association("a", "key", "conformance-a-key", Lifecycle::Weak);
    let value = association("a", "value", "conformance-a-value", Lifecycle::Strong);
    let seen: Mutex<Vec<AssociationsHeld>> = Mutex::new(Vec::new());
    let puts = vec![
        AssociationChange::Put(value.clone()),
        AssociationChange::Put(key.clone()),
    ];
    let made = store
        .change_associations(id, &["conformance-a-key"], &|held| {
            seen.lock().push(held.clone());
            Ok(puts.clone())
        })
        .unwrap();
    assert_eq!(made, puts);
    let first = seen.lock().pop().unwrap();
    assert_eq!(first.of_resource, []);
    assert_eq!(first.of_subjects, []);
    let both = vec![key.clone(), value.clone()];
    assert_eq!(
        store.associations(AssociationsOf::ResourceId(id)).unwrap(),
        both
    );
    assert_eq!(
        store
            .associations(AssociationsOf::Subject("conformance-a-value"))
            .unwrap(),
        std::slice::from_ref(&value)
    );
    assert_eq!(
        store
            .associations(AssociationsOf::ResourceName {
                name: "topic-a",
                namespace: None
            })
            .unwrap(),
        both
    );
    assert_eq!(
        store
            .associations(AssociationsOf::ResourceName {
                name: "topic-a",
                namespace: Some("lkc-1")
            })
            .unwrap(),
        both
    );
    assert_eq!(
        store
            .associations(AssociationsOf::ResourceName {
                name: "topic-a",
                namespace: Some("lkc-2")
            })
            .unwrap(),
        []
    );
    assert!(store
        .associations(AssociationsOf::Namespace("lkc-1"))
        .unwrap()
        .contains(&key));

    // The plan sees what is held; a refusal changes nothing.
    let refused = store.change_associations(id, &["conformance-a-value", "nobody"], &|held| {
        seen.lock().push(held.clone());
        Err(Error::Store {
            source: "refused by the plan".into(),
        })
    });
    assert!(matches!(refused, Err(Error::Store { .. })), "{refused:?}");
    let second = seen.lock().pop().unwrap();
    assert_eq!(second.of_resource, both);
    assert_eq!(second.of_subjects, std::slice::from_ref(&value));
    assert!(second.total >= 2, "{}", second.total);
    assert_eq!(
        store.associations(AssociationsOf::ResourceId(id)).unwrap(),
        both
    );

    // A put replaces its row; a remove empties it, twice is fine.
    let mut frozen = value.clone();
    frozen.frozen = true;
    frozen.guid = "guid-kept".to_owned();
    store
        .change_associations(id, &[], &|_| {
            Ok(vec![
                AssociationChange::Put(frozen.clone()),
                AssociationChange::Remove(key.key()),
                AssociationChange::Remove(key.key()),
            ])
        })
        .unwrap();
    assert_eq!(
        store.associations(AssociationsOf::ResourceId(id)).unwrap(),
        std::slice::from_ref(&frozen)
    );
    assert_eq!(
        store
            .associations(AssociationsOf::Subject("conformance-a-key"))
            .unwrap(),
        []
    );
}

/// Plans racing on several handles, each creating the same resource's
/// `value` association unless one is held: exactly one creates it, the
/// others see it (the plans take turns under the store's lock, across
/// connections).
pub fn associations_race<S: Store>(open: impl Fn() -> S + Sync) {
    let id = "conformance-race";
    let barrier = Barrier::new(RACERS);
    let results: Vec<Result<Vec<AssociationChange>, Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|i| {
                let (store, barrier) = (open(), &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    let subject = format!("conformance-race-{i}");
                    store.change_associations(id, &[subject.as_str()], &|held| {
                        if held.of_resource.is_empty() {
                            Ok(vec![AssociationChange::Put(association(
                                "race",
                                "value",
                                &subject,
                                Lifecycle::Strong,
                            ))])
                        } else {
                            Err(Error::Store {
                                source: "held already".into(),
                            })
                        }
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    let store = open();
    assert_eq!(
        store
            .associations(AssociationsOf::ResourceId(id))
            .unwrap()
            .len(),
        1
    );
}
