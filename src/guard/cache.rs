//! The compiled-validator cache.
//!
//! A URN's bytes never change, so a compiled validator is kept for the life
//! of the process and never invalidated. Unusable schemas are remembered too
//! (a broken schema costs one compile, not one per message). Only URNs some
//! resolver actually holds get an entry, so hostile `dataschema` strings
//! cannot grow the cache.
//!
//! Reads load a snapshot of the map without taking a lock (`arc-swap`);
//! the rare insert copies the map under a mutex. Each entry is a `OnceLock`
//! filled under its slot's own mutex, so concurrent first uses of a URN
//! compile it once. Failures that may pass (a `$ref`'s registry down) are
//! not cached.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwap;
use parking_lot::Mutex;

use super::metrics::SchemaKeys;
use super::outcome::Unvalidated;
use crate::urn::Urn;
use crate::validate::Compiled;

/// What compiling a URN's schema gave: a validator, or why there is none.
// One entry a URN, kept in its own `Arc`'d slot: its size does not matter,
// and boxing `Ready` would add a pointer chase to every validation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Entry {
    Ready {
        urn: Urn,
        compiled: Compiled,
        keys: SchemaKeys,
    },
    Failed(Unvalidated),
}

/// One URN's entry: empty until its first compile succeeds or fails for a
/// lasting reason. `init` makes concurrent first uses compile once; a
/// compile that failed for a passing reason (a `$ref`'s registry
/// unreachable) leaves the slot empty, so a later message tries again.
#[derive(Default)]
pub(crate) struct Slot {
    pub(crate) entry: OnceLock<Entry>,
    pub(crate) init: Mutex<()>,
}
pub(crate) type Snapshot = arc_swap::Guard<Arc<HashMap<Box<str>, Arc<Slot>>>>;

#[derive(Default)]
pub(crate) struct Cache {
    map: ArcSwap<HashMap<Box<str>, Arc<Slot>>>,
    insert: Mutex<()>,
}

impl Cache {
    /// A snapshot of the map, for [`Cache::get`]. Lock-free.
    #[inline]
    pub(crate) fn snapshot(&self) -> Snapshot {
        self.map.load()
    }

    /// The entry for a canonical URN in a snapshot, if compiled already.
    #[inline]
    pub(crate) fn get<'a>(snapshot: &'a Snapshot, canonical: &str) -> Option<&'a Entry> {
        snapshot.get(canonical).and_then(|slot| slot.entry.get())
    }

    /// The slot for a URN a resolver holds, created empty when absent.
    pub(crate) fn slot(&self, urn: &Urn) -> Arc<Slot> {
        if let Some(slot) = self.map.load().get(urn.as_str()) {
            return Arc::clone(slot);
        }
        let _guard = self.insert.lock();
        let current = self.map.load_full();
        if let Some(slot) = current.get(urn.as_str()) {
            return Arc::clone(slot);
        }
        let slot = Arc::new(Slot::default());
        let mut next = HashMap::clone(&current);
        next.insert(urn.as_str().into(), Arc::clone(&slot));
        self.map.store(Arc::new(next));
        slot
    }

    /// How many URNs have an entry.
    pub(crate) fn len(&self) -> usize {
        self.map.load().len()
    }
}
