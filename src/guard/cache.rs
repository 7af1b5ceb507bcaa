//! The compiled-validator cache.
//!
//! A URN's bytes never change, so a compiled validator never needs
//! invalidating. Unusable schemas are remembered too (a broken schema
//! costs one compile, not one per message). Only URNs some resolver
//! actually holds get an entry, so hostile `dataschema` strings cannot
//! grow the cache.
//!
//! What the cache holds is bounded: a schema the primary resolver (a
//! bundle's `Registry`) holds is pinned, kept for the life of the cache;
//! every other entry (a fallback registry's) is counted by an estimate of
//! what it holds ([`weight`]), and once they count more than the bound
//! ([`GuardBuilder::cache_bytes`](super::GuardBuilder::cache_bytes)), the
//! oldest not looked up since the last pass are evicted (a clock: each
//! lookup gives its entry a second chance), and compiled again if a
//! message names them again.
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
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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
        /// The version's data-contract rules that run on read, if any.
        rules: Option<Box<dataschema_core::rules::ReadRules>>,
    },
    Failed(Unvalidated),
}

/// One URN's entry: empty until its first compile succeeds or fails for a
/// lasting reason. `pending` makes concurrent first uses compile once and
/// remembers a passing failure until its retry time.
pub(crate) struct Slot {
    pub(crate) entry: OnceLock<Entry>,
    pending: Mutex<Pending>,
    done: Condvar,
    /// Kept for the life of the cache (a schema the primary holds): never
    /// evicted, and the only slots a thread remembers as its hot one.
    pinned: bool,
    /// Looked up since the eviction hand last passed it.
    used: AtomicBool,
}

impl Slot {
    fn new(pinned: bool) -> Slot {
        Slot {
            entry: OnceLock::new(),
            pending: Mutex::default(),
            done: Condvar::new(),
            pinned,
            used: AtomicBool::new(false),
        }
    }

    /// Marks the slot looked up (a load, and a store only when it was not).
    #[inline]
    fn touch(&self) {
        if !self.used.load(Ordering::Relaxed) {
            self.used.store(true, Ordering::Relaxed);
        }
    }
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
    /// A validator, or a failure that will not pass: kept (until evicted,
    /// unless pinned), counted as the given bytes ([`weight`]).
    Lasting(Entry, usize),
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
    /// consecutive one, up to [`MAX_RETRY_DELAY`]. `Ok` carries the bytes
    /// the entry counts when this call stored it ([`Cache::admit`]).
    fn get_or_compile(
        &self,
        first_delay: Duration,
        compile: impl FnOnce() -> Compile,
    ) -> Result<(&Entry, Option<usize>), Unvalidated> {
        let mut pending = self.pending.lock();
        loop {
            if let Some(entry) = self.entry.get() {
                return Ok((entry, None));
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
                    return Ok((entry, None));
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
            Compile::Lasting(entry, weight) => {
                pending.retry = None;
                let mut stored = None;
                let entry = self.entry.get_or_init(|| {
                    stored = Some(weight);
                    entry
                });
                Ok((entry, stored))
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
/// A cache never removes a pinned slot: a merge copies the `Arc`s, and a
/// pinned slot lives as long as its cache. Each thread remembers the
/// pinned slot it last validated with ([`Cache::hot`]), by address, on
/// that promise. Other slots are only ever reached through an `Arc` (a
/// map snapshot holds its slots' `Arc`s), so evicting one (a new map
/// without it) frees it once the last lookup holding it is done.
pub(crate) struct Cache {
    /// Which cache this is, for [`HOT`]: unique in the process, never 0.
    id: u64,
    frozen: ArcSwap<Map>,
    young: RwLock<Map>,
    /// The evictable slots compiled, oldest first, and what they count.
    ledger: Mutex<Ledger>,
    /// What evictable entries may count in all ([`weight`]).
    bound: usize,
    /// Bytes the pinned entries count (reported, never bounded).
    pinned_bytes: AtomicUsize,
    evictions: AtomicU64,
    evicted_counter: ::metrics::Counter,
}

/// The evictable entries, in the order the clock hand visits them.
#[derive(Default)]
struct Ledger {
    queue: VecDeque<(Box<str>, Arc<Slot>, usize)>,
    bytes: usize,
}

/// What the cache holds now ([`Guard::cache_stats`](super::Guard::cache_stats)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// URNs with a slot (compiled, failed, or compiling).
    pub entries: usize,
    /// Bytes the evictable entries (schemas the primary does not hold)
    /// are counted as holding: at most the bound, plus the newest entry.
    pub bytes: usize,
    /// Bytes the pinned entries (schemas the primary holds) are counted as
    /// holding.
    pub pinned_bytes: usize,
    /// Entries evicted since the guard was built.
    pub evictions: u64,
    /// The bound on [`bytes`](CacheStats::bytes).
    pub bound: usize,
    /// Schema ids whose URN the guard remembers (`validate_framed`; at
    /// most 65,536, forgotten all at once past it).
    pub ids: usize,
}

/// What the entry of a schema of these bytes is counted as holding:
/// [`dataschema_core::limits::held_estimate`], the estimate the registry's
/// readings are counted by too.
pub(crate) fn weight(schema: &[u8]) -> usize {
    dataschema_core::limits::held_estimate(schema)
}

impl Cache {
    /// An empty cache whose evictable entries count at most `bound` bytes.
    pub(crate) fn new(bound: usize) -> Cache {
        Cache {
            id: CACHES.fetch_add(1, Ordering::Relaxed),
            frozen: ArcSwap::default(),
            young: RwLock::default(),
            ledger: Mutex::default(),
            bound,
            pinned_bytes: AtomicUsize::new(0),
            evictions: AtomicU64::new(0),
            evicted_counter: super::metrics::register(&::metrics::Key::from_static_name(
                super::metrics::CACHE_EVICTIONS,
            )),
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
        // SAFETY: `slot` is the address of a pinned slot an `Arc` of this
        // cache held when `remember` stored it with this cache's id, which
        // no other cache has (ids are never reused, so a cache dropped and
        // another allocated at its address do not match). A cache never
        // removes a pinned slot (see `Cache`), so the slot lives as long as
        // the cache, which `self` borrows for the lifetime returned.
        let slot = unsafe { &*slot };
        match slot.entry.get()? {
            entry @ Entry::Ready { urn, .. } if urn.as_str() == dataschema => Some(entry),
            _ => None,
        }
    }

    /// Makes `slot` this thread's hot slot when it is pinned (an
    /// evictable one is marked looked up instead). Private, and called
    /// only with a slot of this cache's maps: [`Cache::hot`]'s safety
    /// rests on it.
    #[inline]
    fn remember(&self, slot: &Arc<Slot>) {
        if !slot.pinned {
            slot.touch();
            return;
        }
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
            slot.touch();
            return Some(Arc::clone(slot));
        }
        // Under the read lock `frozen` cannot change: a merge that moved the
        // slot after the load above is seen here.
        let young = self.young.read();
        let frozen = self.frozen.load();
        let slot = frozen
            .get(urn.as_str())
            .or_else(|| young.get(urn.as_str()))
            .cloned()?;
        slot.touch();
        Some(slot)
    }

    /// The entry of `slot` (the slot of `urn`), compiled by `compile`
    /// when it has none (see [`Slot::get_or_compile`]); an entry this
    /// call stored is counted, and may evict others ([`Cache::admit`]).
    pub(crate) fn get_or_compile<'s>(
        &self,
        urn: &Urn,
        slot: &'s Arc<Slot>,
        first_delay: Duration,
        compile: impl FnOnce() -> Compile,
    ) -> Result<&'s Entry, Unvalidated> {
        let (entry, stored) = slot.get_or_compile(first_delay, compile)?;
        if let Some(weight) = stored {
            self.admit(urn, slot, weight);
        }
        Ok(entry)
    }

    /// Counts the entry just stored in `slot` as `weight` bytes: a pinned
    /// one is only reported; an evictable one joins the clock, and when the
    /// evictable entries count more than the bound, the oldest not looked
    /// up since the hand last passed are removed until they count three
    /// quarters of it (the entry just stored is not, so that one entry
    /// larger than the bound still serves its messages).
    fn admit(&self, urn: &Urn, slot: &Arc<Slot>, weight: usize) {
        if slot.pinned {
            self.pinned_bytes.fetch_add(weight, Ordering::Relaxed);
            return;
        }
        let mut victims = Vec::new();
        {
            let mut ledger = self.ledger.lock();
            ledger.bytes = ledger.bytes.saturating_add(weight);
            if ledger.bytes > self.bound {
                // Down to three quarters of the bound at once: the maps
                // are copied once per quarter of the entries, not per
                // entry.
                let low = self.bound - self.bound / 4;
                // Every entry gets one pass of the hand at most: those
                // looked up since lose their mark and go to the back.
                let mut visits = ledger.queue.len();
                while ledger.bytes > low && visits > 0 {
                    visits -= 1;
                    let Some((key, victim, size)) = ledger.queue.pop_front() else {
                        break;
                    };
                    if victim.used.swap(false, Ordering::Relaxed) {
                        ledger.queue.push_back((key, victim, size));
                        continue;
                    }
                    ledger.bytes -= size;
                    victims.push((key, victim));
                }
                // Past one pass, the oldest go whatever their mark.
                while ledger.bytes > low {
                    let Some((key, victim, size)) = ledger.queue.pop_front() else {
                        break;
                    };
                    ledger.bytes -= size;
                    victims.push((key, victim));
                }
            }
            ledger
                .queue
                .push_back((urn.as_str().into(), Arc::clone(slot), weight));
        }
        if !victims.is_empty() {
            self.evict(&victims);
        }
    }

    /// Removes `victims` (keys and the slots they map to) from the maps.
    #[cold]
    fn evict(&self, victims: &[(Box<str>, Arc<Slot>)]) {
        let mut young = self.young.write();
        let frozen = self.frozen.load_full();
        let gone = |key: &str, slot: &Arc<Slot>| {
            victims
                .iter()
                .any(|(k, victim)| &**k == key && Arc::ptr_eq(victim, slot))
        };
        young.retain(|key, slot| !gone(key, slot));
        let mut kept =
            Map::with_capacity_and_hasher(frozen.len() + young.len(), Default::default());
        kept.extend(
            frozen
                .iter()
                .filter(|(key, slot)| !gone(key, slot))
                .map(|(k, v)| (k.clone(), Arc::clone(v))),
        );
        kept.extend(young.drain());
        self.frozen.store(Arc::new(kept));
        self.evictions
            .fetch_add(victims.len() as u64, Ordering::Relaxed);
        self.evicted_counter.increment(victims.len() as u64);
    }

    /// What the cache holds now.
    pub(crate) fn stats(&self) -> CacheStats {
        let bytes = self.ledger.lock().bytes;
        CacheStats {
            entries: self.len(),
            bytes,
            pinned_bytes: self.pinned_bytes.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            bound: self.bound,
            ids: 0,
        }
    }

    /// The slot for a URN a resolver holds, created empty when absent;
    /// `pinned` when the primary holds it (kept for good).
    pub(crate) fn slot(&self, urn: &Urn, pinned: bool) -> Arc<Slot> {
        if let Some(slot) = self.existing(urn) {
            return slot;
        }
        let mut young = self.young.write();
        // Checked again under the write lock: `frozen` only changes under it.
        let frozen = self.frozen.load_full();
        if let Some(slot) = frozen.get(urn.as_str()).or_else(|| young.get(urn.as_str())) {
            return Arc::clone(slot);
        }
        let slot = Arc::new(Slot::new(pinned));
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
