//! The in-process cache of immutable lookups: URN to schema and id, id to
//! schema, each with its answers built once. A URN's bytes and an id's
//! content never change, so an entry and the answers made from it are true
//! for ever; "latest" and lists are never cached (they change), and
//! neither is "not found" (the schema may be published a moment later).
//! Bounded by the bytes it holds (schemas and prebuilt answers): when full,
//! it starts over.
//!
//! A cached read answers from an entry without formatting anything: the
//! body is a shared [`Bytes`] (a reference count, not a copy), and the
//! headers a prebuilt [`HeaderMap`](axum::http::HeaderMap) whose values share their bytes too.
//! The answers are built by [`wire`](super::wire), the one module that
//! knows what either API writes; the cache only holds them.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use parking_lot::RwLock;

use super::wire::confluent::{self, ProtoView};
use super::wire::native::SchemaAnswer;
use crate::store::SchemaId;
use dataschema_core::Schema;

/// A schema held under a URN, with the answers of its read routes.
pub(crate) struct UrnEntry {
    pub(crate) schema: Schema,
    /// The native read (`GET /schemas/{urn}`).
    pub(crate) native: SchemaAnswer,
    /// The Confluent answer of `GET /subjects/{s}/versions/{v}`.
    pub(crate) version_json: Bytes,
    /// The schema as Confluent's `schema` string, raw (`.../schema` routes).
    pub(crate) text: Bytes,
}

/// The schema of an id, with the answers of its Confluent read routes.
pub(crate) struct IdEntry {
    /// The answer of `GET /schemas/ids/{id}`.
    pub(crate) id_json: Bytes,
    /// The schema as Confluent's `schema` string, raw
    /// (`GET /schemas/ids/{id}/schema`).
    pub(crate) text: Bytes,
}

impl UrnEntry {
    fn new(schema: &Schema, id: SchemaId, view: Option<&ProtoView>) -> UrnEntry {
        let text = confluent::schema_text(schema, view);
        UrnEntry {
            native: SchemaAnswer::new(schema, id),
            version_json: confluent::version_json(schema, id, view),
            text,
            schema: schema.clone(),
        }
    }

    /// What it holds beyond the schema itself (which an id's entry may
    /// share): its key, the answers, counted as separate buffers.
    fn size(&self) -> usize {
        self.schema.urn().as_ref().len()
            + self.native.size()
            + self.version_json.len()
            + extra(&self.text, &self.schema)
    }
}

impl IdEntry {
    fn new(schema: &Schema, view: Option<&ProtoView>) -> IdEntry {
        let text = confluent::schema_text(schema, view);
        IdEntry {
            id_json: confluent::id_json(schema, view),
            text,
        }
    }

    fn size(&self, schema: &Schema) -> usize {
        self.id_json.len() + extra(&self.text, schema)
    }
}

/// The bytes of `text` unless they are the schema's own (shared).
fn extra(text: &Bytes, schema: &Schema) -> usize {
    if text.as_ptr() == schema.bytes().as_ptr() {
        0
    } else {
        text.len()
    }
}

pub(crate) struct Cache {
    max_bytes: usize,
    inner: RwLock<Inner>,
}

#[derive(Default)]
struct Inner {
    bytes: usize,
    /// Keyed by the canonical URN (`Urn::as_ref`), so a request that spells
    /// it so is answered without parsing it.
    by_urn: HashMap<Box<str>, Arc<UrnEntry>>,
    by_id: HashMap<SchemaId, Arc<IdEntry>>,
}

impl Cache {
    pub(crate) fn new(max_bytes: usize) -> Cache {
        Cache {
            max_bytes,
            inner: RwLock::new(Inner::default()),
        }
    }

    /// (URN entries, id entries, schema bytes) held now.
    pub(crate) fn size(&self) -> (usize, usize, usize) {
        let inner = self.inner.read();
        (inner.by_urn.len(), inner.by_id.len(), inner.bytes)
    }

    /// The entry of the URN whose canonical form is `canonical`.
    pub(crate) fn by_urn(&self, canonical: &str) -> Option<Arc<UrnEntry>> {
        self.inner.read().by_urn.get(canonical).cloned()
    }

    pub(crate) fn by_id(&self, id: SchemaId) -> Option<Arc<IdEntry>> {
        self.inner.read().by_id.get(&id).cloned()
    }

    /// Caches `schema` under its URN (when it fits), and answers its entry
    /// either way.
    /// `view`: what Confluent's answers show of a rootless protobuf schema.
    pub(crate) fn insert_urn(
        &self,
        schema: &Schema,
        id: SchemaId,
        view: Option<&ProtoView>,
    ) -> Arc<UrnEntry> {
        // Built outside the lock: readers are not held up by the
        // formatting of a large schema.
        let entry = Arc::new(UrnEntry::new(schema, id, view));
        let mut inner = self.inner.write();
        if let Some(held) = inner.by_urn.get(schema.urn().as_ref()) {
            return held.clone();
        }
        let size = schema.bytes().len() + entry.size();
        if self.make_room(&mut inner, size) {
            inner
                .by_urn
                .insert(schema.urn().as_ref().into(), entry.clone());
        }
        entry
    }

    /// Caches the schema of `id` (when it fits), and answers its entry
    /// either way.
    pub(crate) fn insert_id(
        &self,
        id: SchemaId,
        schema: &Schema,
        view: Option<&ProtoView>,
    ) -> Arc<IdEntry> {
        let entry = Arc::new(IdEntry::new(schema, view));
        let mut inner = self.inner.write();
        if let Some(held) = inner.by_id.get(&id) {
            return held.clone();
        }
        let size = schema.bytes().len() + entry.size(schema);
        if self.make_room(&mut inner, size) {
            inner.by_id.insert(id, entry.clone());
        }
        entry
    }

    /// Counts `size` bytes in, starting over when they would not fit;
    /// `false` for an entry larger than the whole cache.
    fn make_room(&self, inner: &mut Inner, size: usize) -> bool {
        if size > self.max_bytes {
            return false;
        }
        if inner.bytes + size > self.max_bytes {
            *inner = Inner::default();
        }
        inner.bytes += size;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_within_its_bytes() {
        let schema = |v: u32| {
            Schema::json(
                format!("urn:acme:schema:x:{v}").parse().unwrap(),
                vec![b' '; 40],
            )
        };
        // What one entry of each kind counts, measured on the real answers.
        let urn_size = 40 + UrnEntry::new(&schema(1), 1, None).size();
        let id_size = 40 + IdEntry::new(&schema(2), None).size(&schema(2));
        let cache = Cache::new(urn_size + id_size + 10);
        cache.insert_urn(&schema(1), 1, None);
        cache.insert_id(2, &schema(2), None);
        assert!(cache.by_urn("urn:acme:schema:x:1").is_some());
        assert!(cache.by_id(2).is_some());
        let third = cache.insert_urn(&schema(3), 3, None); // does not fit: starts over
        assert_eq!(third.schema.urn().version(), 3);
        assert!(cache.by_urn("urn:acme:schema:x:1").is_none());
        assert!(cache.by_urn("urn:acme:schema:x:3").is_some());
        let huge = Schema::json(schema(9).urn().clone(), vec![b' '; 10 * urn_size]);
        // Too large to keep, answered all the same.
        assert!(!cache.insert_id(9, &huge, None).id_json.is_empty());
        assert!(cache.by_id(9).is_none());
    }

    #[test]
    fn a_second_insert_answers_the_first_entry() {
        let cache = Cache::new(1 << 20);
        let schema = Schema::json("urn:acme:schema:x:1".parse().unwrap(), "{}");
        let first = cache.insert_urn(&schema, 1, None);
        let second = cache.insert_urn(&schema, 1, None);
        assert!(Arc::ptr_eq(&first, &second));
    }
}
