use std::collections::BTreeMap;

use parking_lot::RwLock;

use super::Store;
use dataschema_core::{Error, Schema, Urn};

/// A [`Store`] in memory: what an embedded registry uses.
///
/// Reads take a shared lock and never wait on each other; `put` takes the
/// write lock for the check-and-insert, so immutability holds under races.
#[derive(Debug, Default)]
pub struct MemoryStore {
    schemas: RwLock<BTreeMap<Urn, Schema>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
}

impl Store for MemoryStore {
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
        Ok(self.schemas.read().get(urn).cloned())
    }

    fn put(&self, schema: &Schema) -> Result<(), Error> {
        let mut schemas = self.schemas.write();
        match schemas.get(schema.urn()) {
            Some(held) if held == schema => Ok(()),
            Some(_) => Err(Error::Immutable {
                urn: schema.urn().clone(),
            }),
            None => {
                schemas.insert(schema.urn().clone(), schema.clone());
                Ok(())
            }
        }
    }

    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        let mut versions: Vec<u32> = self
            .schemas
            .read()
            .keys()
            .filter(|urn| urn.name() == name && urn.namespace().eq_ignore_ascii_case(namespace))
            .map(Urn::version)
            .collect();
        versions.sort_unstable();
        versions.dedup();
        Ok(versions)
    }

    fn list(&self) -> Result<Vec<Urn>, Error> {
        Ok(self.schemas.read().keys().cloned().collect())
    }
}
