//! Schemas read for compatibility checks, kept by content so that a
//! publish does not read its prior versions again.
//!
//! A publish checks its candidate against the prior versions of its name;
//! reading a protobuf schema at the size cap (decoding its descriptor set
//! into a `prost-reflect` pool) is a large part of the check. A schema's
//! bytes never change, so neither does its reading: an entry, keyed by the
//! language and the digest of the bytes, is true for ever, whoever stored
//! the schema (another replica included). Bounded by an estimate of what
//! the readings hold (`limits::held_estimate`: a reading takes tens to
//! hundreds of times its schema's bytes, so a bound on the bytes let a
//! 1,000-file import chain keep 1.8 GB); the entry used longest ago goes
//! first. A large reading (freeing a pool
//! of 20,000 messages was measured at about 0.27 s, BENCHMARKS.md) is
//! freed on a thread of its own, off the publisher's path.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use dataschema_core::compat::{CompatError, Reading};
use dataschema_core::{Language, Schema};

/// How many bytes of readings (as `limits::held_estimate` counts them) a
/// registry keeps by default.
pub(crate) const DEFAULT_BYTES: usize = 64 * 1024 * 1024;

/// Readings of at least this many schema bytes are freed off the caller's
/// thread.
const FREE_APART: usize = 256 * 1024;

pub(crate) struct Readings {
    inner: Mutex<Inner>,
}

struct Inner {
    max_bytes: usize,
    bytes: usize,
    clock: u64,
    entries: HashMap<(Language, String), Entry>,
}

struct Entry {
    reading: Arc<Reading>,
    /// What it is counted as holding.
    bytes: usize,
    /// Its schema's bytes (a large one is freed apart).
    schema_bytes: usize,
    used: u64,
}

impl Readings {
    pub(crate) fn new(max_bytes: usize) -> Readings {
        Readings {
            inner: Mutex::new(Inner {
                max_bytes,
                bytes: 0,
                clock: 0,
                entries: HashMap::new(),
            }),
        }
    }

    /// Keeps at most `max_bytes` of schemas' readings from now on (0: none).
    pub(crate) fn set_max_bytes(&self, max_bytes: usize) {
        let evicted = {
            let mut inner = self.inner.lock();
            inner.max_bytes = max_bytes;
            inner.evict(0)
        };
        free(evicted);
    }

    /// The reading of `schema`: kept, or read now (and kept).
    /// A protobuf schema's references resolve through `refs`.
    pub(crate) fn read(
        &self,
        schema: &Schema,
        refs: &dyn dataschema_core::Resolver,
    ) -> Result<Arc<Reading>, CompatError> {
        let key = (schema.language(), schema.digest().to_owned());
        if let Some(hit) = self.inner.lock().get(&key) {
            return Ok(hit);
        }
        // Read outside the lock: other publishes go on meanwhile.
        let reading = Arc::new(Reading::read_with(schema, refs)?);
        self.keep_keyed(key, schema, reading.clone());
        Ok(reading)
    }

    /// Keeps `reading` as the reading of `schema` (its candidate's, after
    /// a publish: the prior version of the next one).
    pub(crate) fn keep(&self, schema: &Schema, reading: Arc<Reading>) {
        let key = (schema.language(), schema.digest().to_owned());
        self.keep_keyed(key, schema, reading);
    }

    fn keep_keyed(&self, key: (Language, String), schema: &Schema, reading: Arc<Reading>) {
        let bytes = held(schema);
        let schema_bytes = schema.bytes().len();
        let evicted = {
            let mut inner = self.inner.lock();
            if bytes > inner.max_bytes || inner.entries.contains_key(&key) {
                Vec::new()
            } else {
                let evicted = inner.evict(bytes);
                inner.clock += 1;
                let used = inner.clock;
                inner.bytes += bytes;
                inner.entries.insert(
                    key,
                    Entry {
                        reading,
                        bytes,
                        schema_bytes,
                        used,
                    },
                );
                evicted
            }
        };
        free(evicted);
    }
}

/// What the reading of `schema` is counted as holding.
fn held(schema: &Schema) -> usize {
    dataschema_core::limits::held_estimate(schema.bytes())
}

impl Inner {
    fn get(&mut self, key: &(Language, String)) -> Option<Arc<Reading>> {
        self.clock += 1;
        let clock = self.clock;
        let entry = self.entries.get_mut(key)?;
        entry.used = clock;
        Some(entry.reading.clone())
    }

    /// Removes the entries used longest ago until `room` more bytes fit;
    /// answers them with their schemas' bytes, to be freed outside the
    /// lock.
    fn evict(&mut self, room: usize) -> Vec<(Arc<Reading>, usize)> {
        let mut evicted = Vec::new();
        while self.bytes + room > self.max_bytes {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, entry)| entry.used)
                .map(|(key, _)| key.clone())
            else {
                break;
            };
            if let Some(entry) = self.entries.remove(&oldest) {
                self.bytes -= entry.bytes;
                evicted.push((entry.reading, entry.schema_bytes));
            }
        }
        evicted
    }
}

/// Frees evicted readings: large ones on a thread of their own (a
/// reading is plain owned data, `Send`, that nothing else needs once it is
/// dropped; whoever still holds a clone keeps it alive as before).
fn free(evicted: Vec<(Arc<Reading>, usize)>) {
    let large: usize = evicted.iter().map(|(_, bytes)| bytes).sum();
    free_apart(evicted, large);
}

/// Drops `value` on a thread of its own when `bytes` (the schema bytes it
/// was made from) is large, else here. If no thread can be started, here.
pub(crate) fn free_apart<T: Send + 'static>(value: T, bytes: usize) {
    if bytes < FREE_APART {
        return drop(value);
    }
    // When no thread can be started, the closure, value included, is
    // dropped by `spawn` itself, here.
    let _ = std::thread::Builder::new()
        .name("dataschema-free".into())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resolves nothing: these JSON Schemas have no references.
    struct Nothing;

    impl dataschema_core::Resolver for Nothing {
        fn resolve(&self, urn: &dataschema_core::Urn) -> Result<Schema, dataschema_core::Error> {
            Err(dataschema_core::Error::NotFound { urn: urn.clone() })
        }
    }

    const NOTHING: Nothing = Nothing;

    fn schema(v: u32, size: usize) -> Schema {
        // One digit of `v` in the title: each version's bytes differ.
        let text = format!(
            "{{\"title\": \"{v}{}\"}}",
            "x".repeat(size.saturating_sub(14))
        );
        Schema::json(format!("urn:acme:schema:x:{v}").parse().unwrap(), text)
    }

    #[test]
    fn keeps_within_its_bytes_and_evicts_the_least_recently_used() {
        let (a, b, c) = (schema(1, 100), schema(2, 100), schema(3, 100));
        let readings = Readings::new(2 * held(&a) + held(&a) / 2);
        let first = readings.read(&a, &NOTHING).unwrap();
        readings.read(&b, &NOTHING).unwrap();
        // `a` used again: `b` is now the oldest.
        assert!(Arc::ptr_eq(&first, &readings.read(&a, &NOTHING).unwrap()));
        readings.read(&c, &NOTHING).unwrap(); // evicts b
        assert!(Arc::ptr_eq(&first, &readings.read(&a, &NOTHING).unwrap()));
        let inner = readings.inner.lock();
        assert_eq!(inner.entries.len(), 2);
        assert!(inner.bytes <= 2 * held(&a) + held(&a) / 2);
        assert!(!inner
            .entries
            .contains_key(&(Language::JsonSchema, b.digest().to_owned())));
    }

    #[test]
    fn off_keeps_nothing_and_a_bad_schema_is_an_error() {
        let readings = Readings::new(0);
        let a = schema(1, 100);
        let first = readings.read(&a, &NOTHING).unwrap();
        assert!(!Arc::ptr_eq(&first, &readings.read(&a, &NOTHING).unwrap()));
        let bad = Schema::json("urn:acme:schema:x:9".parse().unwrap(), "{not json");
        assert!(Readings::new(1000).read(&bad, &NOTHING).is_err());
    }

    #[test]
    fn a_reading_is_counted_by_what_it_holds_not_by_its_bytes() {
        // 20 KB of JSON Schema: 2,000 small properties, each a few nodes
        // once read. Kept by its bytes, it would fit a 1 MiB bound many
        // times over; what it holds does not fit.
        let properties: Vec<String> = (0..2_000).map(|i| format!("\"{i}\":{{}}")).collect();
        let text = format!("{{\"properties\":{{{}}}}}", properties.join(","));
        assert!(text.len() < 20_000);
        let wide = Schema::json("urn:acme:schema:x:1".parse().unwrap(), text);
        assert!(held(&wide) > 1 << 20);
        let readings = Readings::new(1 << 20);
        readings.read(&wide, &NOTHING).unwrap();
        assert!(readings.inner.lock().entries.is_empty());
        // A small one is kept.
        readings.read(&schema(2, 300), &NOTHING).unwrap();
        assert_eq!(readings.inner.lock().entries.len(), 1);
    }

    #[test]
    fn shrinking_evicts() {
        let one = held(&schema(1, 300));
        let readings = Readings::new(3 * one);
        readings.read(&schema(1, 300), &NOTHING).unwrap();
        readings.read(&schema(2, 300), &NOTHING).unwrap();
        readings.set_max_bytes(one + one / 2);
        assert_eq!(readings.inner.lock().entries.len(), 1);
        readings.set_max_bytes(0);
        assert!(readings.inner.lock().entries.is_empty());
    }
}
