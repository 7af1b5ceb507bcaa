//! The compiled-validator cache.
//!
//! A URN's bytes never change, so a compiled validator is kept for the life
//! of the process and never invalidated. Unusable schemas are remembered too
//! (a broken schema costs one compile, not one per message). Only URNs some
//! resolver actually holds get an entry, so hostile `dataschema` strings
//! cannot grow the cache.
//!
//! Reads load a snapshot of the map without taking a lock (`arc-swap`);
//! new URNs go to a second, locked map that is merged into the snapshot
//! each time it doubles it, so inserts cost amortized O(1). Each entry is a `OnceLock`
//! filled by one compile at a time per URN: callers that arrive while a
//! compile runs wait for it and share its result, failure included.
//! Failures that may pass (a `$ref`'s registry down, a `$ref` not published
//! yet) are kept only for a retry delay that doubles with each consecutive
//! failure, so a URN is compiled again after a bounded time, and not once
//! per message meanwhile.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use parking_lot::{Condvar, Mutex, RwLock};

use super::metrics::SchemaCounters;
use super::outcome::Unvalidated;
use dataschema_core::validate::Compiled;
use dataschema_core::Urn;

/// What compiling a URN's schema gave: a validator, or why there is none.
// One entry a URN, kept in its own `Arc`'d slot: its size does not matter,
// and boxing `Ready` would add a pointer chase to every validation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Entry {
    Ready {
        /// Shared with each `Invalid` (no copy of the URN per refusal).
        urn: Arc<Urn>,
        compiled: Compiled,
        counters: SchemaCounters,
    },
    Failed(Unvalidated),
}

/// One URN's entry: empty until its first compile succeeds or fails for a
/// lasting reason. `pending` makes concurrent first uses compile once and
/// remembers a passing failure until its retry time.
#[derive(Default)]
pub(crate) struct Slot {
    pub(crate) entry: OnceLock<Entry>,
    pending: Mutex<Pending>,
    done: Condvar,
}

#[derive(Default)]
struct Pending {
    /// A compile is running (outside the lock).
    compiling: bool,
    /// The last compile failed for a passing reason.
    retry: Option<Retry>,
}

struct Retry {
    /// Until then, callers get `unvalidated` without a compile.
    at: Instant,
    /// Consecutive passing failures so far.
    failures: u32,
    unvalidated: Unvalidated,
}

/// What a compile gave, as the slot keeps it. Built once per compile and
/// moved straight into the slot: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Compile {
    /// A validator, or a failure that will not pass: kept for good.
    Lasting(Entry),
    /// A failure that may pass: shared with the callers waiting for this
    /// compile, then kept until the retry delay ends.
    Passing(Unvalidated),
}

/// The longest a passing failure is kept, however often it repeats.
pub(crate) const MAX_RETRY_DELAY: Duration = Duration::from_secs(60);

impl Slot {
    /// The slot's entry, compiling it with `compile` unless another caller
    /// is doing so (then its result is shared) or a passing failure is
    /// still within its retry delay (then that failure is returned).
    /// `first_delay` is the delay after one failure; it doubles with each
    /// consecutive one, up to [`MAX_RETRY_DELAY`].
    pub(crate) fn get_or_compile(
        &self,
        first_delay: Duration,
        compile: impl FnOnce() -> Compile,
    ) -> Result<&Entry, Unvalidated> {
        let mut pending = self.pending.lock();
        loop {
            if let Some(entry) = self.entry.get() {
                return Ok(entry);
            }
            if pending.compiling {
                // A retry is running: the failure kept so far stands until
                // it ends (callers do not queue behind a slow registry).
                if let Some(retry) = &pending.retry {
                    return Err(retry.unvalidated.clone());
                }
                // A first compile: wait for it and share its result.
                self.done.wait(&mut pending);
                // Share what that compile gave.
                if let Some(entry) = self.entry.get() {
                    return Ok(entry);
                }
                if let Some(retry) = &pending.retry {
                    return Err(retry.unvalidated.clone());
                }
                continue;
            }
            if let Some(retry) = &pending.retry {
                if Instant::now() < retry.at {
                    return Err(retry.unvalidated.clone());
                }
            }
            break;
        }
        pending.compiling = true;
        let failures = pending.retry.as_ref().map_or(0, |retry| retry.failures);
        drop(pending);

        // Whatever happens in `compile` (even a panic), waiters are woken.
        struct Finish<'a>(&'a Slot);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                self.0.pending.lock().compiling = false;
                self.0.done.notify_all();
            }
        }
        let finish = Finish(self);
        let result = compile();
        let mut pending = self.pending.lock();
        let outcome = match result {
            Compile::Lasting(entry) => {
                pending.retry = None;
                Ok(self.entry.get_or_init(|| entry))
            }
            Compile::Passing(unvalidated) => {
                let delay = first_delay
                    .saturating_mul(1u32 << failures.min(16))
                    .min(MAX_RETRY_DELAY);
                pending.retry = Some(Retry {
                    at: Instant::now() + delay,
                    failures: failures.saturating_add(1),
                    unvalidated: unvalidated.clone(),
                });
                Err(unvalidated)
            }
        };
        drop(pending);
        drop(finish);
        outcome
    }
}
/// Keyed by the canonical URN, hashed with `foldhash` (a URN is hashed once
/// per message; SipHash took about 250 instructions of a validation). Its
/// seed is random per process, and keys are only URNs a resolver holds.
pub(crate) type Map = HashMap<Box<str>, Arc<Slot>, foldhash::fast::RandomState>;
/// The frozen map as one load found it, and the cache it is of: its
/// lookups ([`Snapshot::get`]) remember their slot for that cache only.
pub(crate) struct Snapshot<'c> {
    map: arc_swap::Guard<Arc<Map>>,
    cache: &'c Cache,
}

impl Snapshot<'_> {
    /// The entry for a canonical URN, if compiled already, remembered as
    /// this thread's hot slot. A URN whose slot is still young is not
    /// found here; callers then take [`Cache::young`] or [`Cache::slot`].
    #[inline]
    pub(crate) fn get(&self, canonical: &str) -> Option<&Entry> {
        let slot = self.map.get(canonical)?;
        let entry = slot.entry.get()?;
        self.cache.remember(slot);
        Some(entry)
    }
}

/// The slots of every URN seen, in two generations: `frozen`, read without
/// a lock, and `young`, the slots created since `frozen` was last rebuilt.
/// When `young` grows as large as `frozen` (and past a few entries), both
/// are merged into a new `frozen`: each slot is copied O(1) times on
/// average, so tens of thousands of URNs (a fallback registry's) cost
/// linear time in all, not a copy of the map per insert.
///
/// A cache never removes a slot: a merge copies the `Arc`s, and a slot
/// lives as long as its cache. Each thread remembers the slot it last
/// validated with ([`Cache::hot`]), by address, on that promise.
pub(crate) struct Cache {
    /// Which cache this is, for [`HOT`]: unique in the process, never 0.
    id: u64,
    frozen: ArcSwap<Map>,
    young: RwLock<Map>,
}

impl Default for Cache {
    fn default() -> Cache {
        Cache {
            id: CACHES.fetch_add(1, Ordering::Relaxed),
            frozen: ArcSwap::default(),
            young: RwLock::default(),
        }
    }
}

/// The next [`Cache::id`]. A `u64` counted up does not wrap.
static CACHES: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The slot this thread last found a ready entry in, and the id of the
    /// cache holding it (0: none yet). A consumer's thread mostly sees one
    /// URN after another of a few: this spares the map's hash, its probe
    /// and the snapshot's two atomic operations on the hottest path.
    static HOT: Cell<(u64, *const Slot)> = const { Cell::new((0, std::ptr::null())) };
}

/// Below this many slots in all, every new slot is merged into `frozen` at
/// once (copying a small map is cheap, and a bundle's URNs then all take
/// the lock-free path); past it, `young` is merged once it holds as many
/// slots as `frozen`.
const SMALL: usize = 1024;

impl Cache {
    /// A snapshot of the frozen map, for [`Snapshot::get`]. Lock-free.
    #[inline]
    pub(crate) fn snapshot(&self) -> Snapshot<'_> {
        Snapshot {
            map: self.frozen.load(),
            cache: self,
        }
    }

    /// The entry of `dataschema` when it is this thread's hot slot in this
    /// cache: a ready entry whose canonical URN is `dataschema` as written.
    #[inline]
    pub(crate) fn hot(&self, dataschema: &str) -> Option<&Entry> {
        let (id, slot) = HOT.try_with(Cell::get).ok()?;
        if id != self.id {
            return None;
        }
        // SAFETY: `slot` is the address of a slot an `Arc` of this cache
        // held when `remember` stored it with this cache's id, which no
        // other cache has (ids are never reused, so a cache dropped and
        // another allocated at its address do not match). A cache never
        // removes a slot (see `Cache`), so the slot lives as long as the
        // cache, which `self` borrows for the lifetime returned.
        let slot = unsafe { &*slot };
        match slot.entry.get()? {
            entry @ Entry::Ready { urn, .. } if urn.as_str() == dataschema => Some(entry),
            _ => None,
        }
    }

    /// Makes `slot` this thread's hot slot. Private, and called only with
    /// a slot of this cache's maps: [`Cache::hot`]'s safety rests on it.
    #[inline]
    fn remember(&self, slot: &Arc<Slot>) {
        // A thread being torn down has no hot slot: nothing to remember.
        let _ = HOT.try_with(|hot| hot.set((self.id, Arc::as_ptr(slot))));
    }

    /// The slot of a canonical URN that is still young (a URN in no
    /// snapshot yet): one read lock, no allocation.
    #[inline]
    pub(crate) fn young(&self, canonical: &str) -> Option<Arc<Slot>> {
        let slot = self.young.read().get(canonical).cloned()?;
        if slot.entry.get().is_some() {
            self.remember(&slot);
        }
        Some(slot)
    }

    /// The slot of a URN that has one already.
    pub(crate) fn existing(&self, urn: &Urn) -> Option<Arc<Slot>> {
        if let Some(slot) = self.frozen.load().get(urn.as_str()) {
            return Some(Arc::clone(slot));
        }
        // Under the read lock `frozen` cannot change: a merge that moved the
        // slot after the load above is seen here.
        let young = self.young.read();
        let frozen = self.frozen.load();
        frozen
            .get(urn.as_str())
            .or_else(|| young.get(urn.as_str()))
            .cloned()
    }

    /// The slot for a URN a resolver holds, created empty when absent.
    pub(crate) fn slot(&self, urn: &Urn) -> Arc<Slot> {
        if let Some(slot) = self.existing(urn) {
            return slot;
        }
        let mut young = self.young.write();
        // Checked again under the write lock: `frozen` only changes under it.
        let frozen = self.frozen.load_full();
        if let Some(slot) = frozen.get(urn.as_str()).or_else(|| young.get(urn.as_str())) {
            return Arc::clone(slot);
        }
        let slot = Arc::new(Slot::default());
        young.insert(urn.as_str().into(), Arc::clone(&slot));
        if frozen.len() < SMALL || young.len() >= frozen.len() {
            let mut merged =
                Map::with_capacity_and_hasher(frozen.len() + young.len(), Default::default());
            merged.extend(frozen.iter().map(|(k, v)| (k.clone(), Arc::clone(v))));
            merged.extend(young.drain());
            self.frozen.store(Arc::new(merged));
        }
        slot
    }

    /// How many URNs have an entry.
    pub(crate) fn len(&self) -> usize {
        let young = self.young.read();
        self.frozen.load().len() + young.len()
    }
}
