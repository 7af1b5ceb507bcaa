//! The in-process cache of immutable lookups: URN to schema and id, id to
//! schema. A URN's bytes and an id's content never change, so an entry is
//! true for ever; "latest" and lists are never cached (they change), and
//! neither is "not found" (the schema may be published a moment later).
//! Bounded by the schema bytes it holds: when full, it starts over.

use std::collections::HashMap;

use parking_lot::RwLock;

use crate::store::SchemaId;
use dataschema_core::{Schema, Urn};

pub(crate) struct Cache {
    max_bytes: usize,
    inner: RwLock<Inner>,
}

#[derive(Default)]
struct Inner {
    bytes: usize,
    by_urn: HashMap<Urn, (Schema, SchemaId)>,
    by_id: HashMap<SchemaId, Schema>,
}

impl Cache {
    pub(crate) fn new(max_bytes: usize) -> Cache {
        Cache {
            max_bytes,
            inner: RwLock::new(Inner::default()),
        }
    }

    pub(crate) fn by_urn(&self, urn: &Urn) -> Option<(Schema, SchemaId)> {
        self.inner.read().by_urn.get(urn).cloned()
    }

    pub(crate) fn by_id(&self, id: SchemaId) -> Option<Schema> {
        self.inner.read().by_id.get(&id).cloned()
    }

    pub(crate) fn insert_urn(&self, schema: &Schema, id: SchemaId) {
        let mut inner = self.inner.write();
        if inner.by_urn.contains_key(schema.urn()) || !self.make_room(&mut inner, schema) {
            return;
        }
        inner
            .by_urn
            .insert(schema.urn().clone(), (schema.clone(), id));
    }

    pub(crate) fn insert_id(&self, id: SchemaId, schema: &Schema) {
        let mut inner = self.inner.write();
        if inner.by_id.contains_key(&id) || !self.make_room(&mut inner, schema) {
            return;
        }
        inner.by_id.insert(id, schema.clone());
    }

    /// Counts `schema` in, starting over when it would not fit; `false`
    /// for a schema larger than the whole cache.
    fn make_room(&self, inner: &mut Inner, schema: &Schema) -> bool {
        let size = schema.bytes().len() + schema.urn().as_ref().len();
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
        let cache = Cache::new(150);
        let schema = |v: u32| {
            Schema::json(
                format!("urn:acme:schema:x:{v}").parse().unwrap(),
                vec![b' '; 40],
            )
        };
        cache.insert_urn(&schema(1), 1);
        cache.insert_id(2, &schema(2));
        assert!(cache.by_urn(schema(1).urn()).is_some());
        assert!(cache.by_id(2).is_some());
        cache.insert_urn(&schema(3), 3); // does not fit: starts over
        assert!(cache.by_urn(schema(1).urn()).is_none());
        assert!(cache.by_urn(schema(3).urn()).is_some());
        cache.insert_id(9, &Schema::json(schema(9).urn().clone(), vec![b' '; 200]));
        assert!(cache.by_id(9).is_none());
    }
}
