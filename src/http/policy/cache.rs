//! The fetched schemas: an LRU bounded in bytes, the lock's pinned URNs
//! kept outside the bound.

use std::collections::{BTreeMap, HashMap, HashSet};

use dataschema_core::{Schema, Urn};

/// What an entry costs beyond its bytes, its URN and its root: the
/// digest (`sha256:` and 64 hex digits), the maps' slots, the reference
/// counts. An estimate, on the high side.
const ENTRY_OVERHEAD: usize = 192;

/// The bytes an entry of `schema` is counted for.
pub(crate) fn weight(schema: &Schema) -> usize {
    // The URN is held twice: as the map's key and in the recency order.
    schema.bytes().len()
        + 2 * schema.urn().as_str().len()
        + schema.root().map_or(0, str::len)
        + ENTRY_OVERHEAD
}

/// Fetched schemas by URN (and by the ids they were answered with).
///
/// Entries the lock does not pin are bounded by `max_bytes` (counted by
/// [`weight`]): the least recently used goes first, and a schema larger
/// than the bound is not kept at all. Entries of a pinned URN are never
/// evicted and not counted: their number and size are the lock's, fixed
/// when the resolver is built, and evicting them would let a stream of
/// other URNs turn each of the lock's lookups back into a request.
pub(crate) struct SchemaCache {
    entries: HashMap<Urn, Entry>,
    ids: HashMap<u32, Urn>,
    /// Unpinned entries by last use, oldest first.
    recency: BTreeMap<u64, Urn>,
    tick: u64,
    /// Bytes of the unpinned entries.
    bytes: usize,
    /// Bytes of the pinned entries.
    pinned_bytes: usize,
    max_bytes: usize,
    pinned: HashSet<Urn>,
}

struct Entry {
    schema: Schema,
    /// The ids answered for it (usually one).
    ids: Vec<u32>,
    weight: usize,
    /// Its key in `recency`; `None` when pinned.
    used: Option<u64>,
}

impl SchemaCache {
    /// An empty cache: unpinned entries within `max_bytes`, those of
    /// `pinned` URNs kept outside the bound.
    pub(crate) fn new(max_bytes: usize, pinned: HashSet<Urn>) -> SchemaCache {
        SchemaCache {
            entries: HashMap::new(),
            ids: HashMap::new(),
            recency: BTreeMap::new(),
            tick: 0,
            bytes: 0,
            pinned_bytes: 0,
            max_bytes,
            pinned,
        }
    }

    /// The schema of `urn` and the first id it was answered with, marked
    /// as used.
    pub(crate) fn get(&mut self, urn: &Urn) -> Option<(Schema, Option<u32>)> {
        let entry = self.entries.get_mut(urn)?;
        if let Some(used) = entry.used {
            self.tick += 1;
            if let Some(urn) = self.recency.remove(&used) {
                self.recency.insert(self.tick, urn);
            }
            entry.used = Some(self.tick);
        }
        Some((entry.schema.clone(), entry.ids.first().copied()))
    }

    /// The schema answered for `id`, marked as used.
    pub(crate) fn get_id(&mut self, id: u32) -> Option<(Schema, Option<u32>)> {
        let urn = self.ids.get(&id)?.clone();
        self.get(&urn)
    }

    /// Keeps `schema` (answered with `id`), replacing what its URN held,
    /// then evicts the least recently used unpinned entries past the
    /// bound. Answers whether it is kept.
    pub(crate) fn insert(&mut self, schema: Schema, id: Option<u32>) -> bool {
        let urn = schema.urn().clone();
        let mut ids = self.remove(&urn).unwrap_or_default();
        let weight = weight(&schema);
        let pinned = self.pinned.contains(&urn);
        if !pinned && weight > self.max_bytes {
            return false;
        }
        if let Some(id) = id {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        for id in &ids {
            self.ids.insert(*id, urn.clone());
        }
        let used = if pinned {
            self.pinned_bytes += weight;
            None
        } else {
            self.tick += 1;
            self.recency.insert(self.tick, urn.clone());
            self.bytes += weight;
            Some(self.tick)
        };
        self.entries.insert(
            urn,
            Entry {
                schema,
                ids,
                weight,
                used,
            },
        );
        while self.bytes > self.max_bytes {
            let Some((_, oldest)) = self.recency.pop_first() else {
                break;
            };
            if let Some(entry) = self.entries.get_mut(&oldest) {
                // Already out of `recency`.
                entry.used = None;
            }
            self.remove(&oldest);
        }
        true
    }

    /// Drops `urn`'s entry; answers the ids it was answered with.
    fn remove(&mut self, urn: &Urn) -> Option<Vec<u32>> {
        let entry = self.entries.remove(urn)?;
        if self.pinned.contains(urn) {
            self.pinned_bytes -= entry.weight;
        } else {
            self.bytes -= entry.weight;
        }
        if let Some(used) = entry.used {
            self.recency.remove(&used);
        }
        for id in &entry.ids {
            if self.ids.get(id) == Some(urn) {
                self.ids.remove(id);
            }
        }
        Some(entry.ids)
    }

    /// How many schemas are kept.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The bytes the bound counts (the unpinned entries').
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The bytes of the pinned entries (outside the bound).
    pub(crate) fn pinned_bytes(&self) -> usize {
        self.pinned_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(name: &str, size: usize) -> Schema {
        Schema::json(
            format!("urn:acme:schema:{name}:1").parse().unwrap(),
            vec![b' '; size],
        )
    }

    fn urn(name: &str) -> Urn {
        format!("urn:acme:schema:{name}:1").parse().unwrap()
    }

    #[test]
    fn the_least_recently_used_goes_first_within_the_bound() {
        let one = weight(&schema("a", 1000));
        let mut cache = SchemaCache::new(3 * one, HashSet::new());
        assert!(cache.insert(schema("a", 1000), Some(1)));
        assert!(cache.insert(schema("b", 1000), Some(2)));
        assert!(cache.insert(schema("c", 1000), Some(3)));
        assert_eq!(cache.bytes(), 3 * one);
        // `a` used: `b` is now the oldest.
        assert!(cache.get(&urn("a")).is_some());
        assert!(cache.insert(schema("d", 1000), Some(4)));
        assert_eq!(cache.len(), 3);
        assert!(cache.get(&urn("b")).is_none());
        assert!(
            cache.get_id(2).is_none(),
            "an evicted entry's id goes with it"
        );
        // A use by id counts: `a` is the newest again, `c` the oldest.
        assert!(cache.get_id(1).is_some());
        assert_eq!(cache.bytes(), 3 * one);
        assert!(cache.insert(schema("e", 1000), None));
        assert!(cache.get(&urn("c")).is_none());
        assert!(cache.get(&urn("a")).is_some());
        assert!(cache.get(&urn("d")).is_some());
        assert!(cache.get(&urn("e")).is_some());
        assert!(cache.bytes() <= 3 * one);
    }

    #[test]
    fn a_schema_larger_than_the_bound_is_not_kept() {
        let mut cache = SchemaCache::new(10_000, HashSet::new());
        assert!(cache.insert(schema("small", 100), Some(1)));
        assert!(!cache.insert(schema("big", 20_000), Some(2)));
        assert_eq!(cache.len(), 1);
        assert!(cache.get_id(2).is_none());
        assert!(cache.get(&urn("small")).is_some(), "nothing evicted for it");
    }

    #[test]
    fn pinned_entries_stay_and_are_not_counted() {
        let one = weight(&schema("a", 1000));
        let pinned: HashSet<Urn> = [urn("locked")].into_iter().collect();
        let mut cache = SchemaCache::new(2 * one, pinned);
        assert!(cache.insert(schema("locked", 50_000), Some(9)));
        assert_eq!(cache.bytes(), 0);
        assert_eq!(cache.pinned_bytes(), weight(&schema("locked", 50_000)));
        for (i, name) in ["a", "b", "c", "d", "e"].into_iter().enumerate() {
            assert!(cache.insert(schema(name, 1000), Some(i as u32)));
            assert!(cache.bytes() <= 2 * one);
        }
        assert!(cache.get(&urn("locked")).is_some());
        assert!(cache.get_id(9).is_some());
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn a_urn_answered_again_replaces_its_entry_and_keeps_its_ids() {
        let mut cache = SchemaCache::new(1 << 20, HashSet::new());
        assert!(cache.insert(schema("a", 10), Some(1)));
        assert!(cache.insert(schema("a", 20), Some(2)));
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.bytes(), weight(&schema("a", 20)));
        assert_eq!(cache.get_id(1).unwrap().0.bytes().len(), 20);
        assert_eq!(cache.get_id(2).unwrap().0.bytes().len(), 20);
        // An id answered for another URN now points there.
        assert!(cache.insert(schema("b", 10), Some(1)));
        assert_eq!(cache.get_id(1).unwrap().0.urn(), &urn("b"));
        assert_eq!(cache.get_id(2).unwrap().0.urn(), &urn("a"));
    }
}
