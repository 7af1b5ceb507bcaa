use std::collections::{BTreeMap, HashMap};

use parking_lot::{Mutex, RwLock};

use super::{content_digest, plan, Check, Held, Plan, SchemaId, Store, Stored, Version};
use dataschema_core::{Compatibility, Error, Schema, Urn};

/// A [`Store`] in memory: what an embedded registry uses.
///
/// Reads take a shared lock and never wait on each other, nor on a
/// publish's compatibility check: publishes run one at a time under a
/// mutex of their own, and take the write lock only to insert. Ids count
/// from 1 in the order contents were first stored (a memory store lives as
/// long as its process, and so do its ids).
#[derive(Debug, Default)]
pub struct MemoryStore {
    publishing: Mutex<()>,
    state: RwLock<State>,
}

#[derive(Debug, Default)]
struct State {
    schemas: BTreeMap<Urn, Entry>,
    ids: HashMap<String, SchemaId>,
    /// By id - 1: the URNs holding each content.
    urns: Vec<Vec<Urn>>,
    modes: HashMap<Option<String>, Compatibility>,
    /// The settings beside the modes (JSON text), by name (`None`: the
    /// default).
    configs: HashMap<Option<String>, String>,
}

/// A version held: its schema, its content's digest and id.
#[derive(Debug)]
struct Entry {
    schema: Schema,
    digest: String,
    id: SchemaId,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
}

impl State {
    /// Every version of `name` in `namespace`, ascending.
    fn versions(&self, namespace: &str, name: &str) -> Vec<&Entry> {
        // URNs order by namespace, name, then version: one range holds them.
        let Ok(low) = Urn::new(namespace, name, 1) else {
            return Vec::new();
        };
        self.schemas
            .range(low..)
            .take_while(|(urn, _)| urn.namespace() == namespace && urn.name() == name)
            .map(|(_, entry)| entry)
            .collect()
    }
}

impl Store for MemoryStore {
    fn get(&self, urn: &Urn) -> Result<Option<Schema>, Error> {
        Ok(self
            .state
            .read()
            .schemas
            .get(urn)
            .map(|entry| entry.schema.clone()))
    }

    fn publish(
        &self,
        schema: &Schema,
        version: Version,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        let _one_at_a_time = self.publishing.lock();
        let digest = content_digest(schema);
        let held: Vec<Held> = {
            let state = self.state.read();
            let urn = schema.urn();
            state
                .versions(urn.namespace(), urn.name())
                .into_iter()
                .map(|entry| Held {
                    schema: entry.schema.clone(),
                    digest: entry.digest.clone(),
                    id: entry.id,
                })
                .collect()
        };
        let schema = match plan(schema, version, &digest, &held)? {
            Plan::Held(stored) => return Ok(stored),
            Plan::Insert(schema) => schema,
        };
        let held: Vec<Schema> = held.into_iter().map(|held| held.schema).collect();
        check(&schema, &held)?;
        let mut state = self.state.write();
        let id = match state.ids.get(&digest) {
            Some(&id) => id,
            None => {
                let id = SchemaId::try_from(state.urns.len() + 1)
                    .ok()
                    .filter(|&id| id <= i32::MAX as u32)
                    .ok_or_else(|| Error::Store {
                        source: "the memory store ran out of schema ids".into(),
                    })?;
                state.ids.insert(digest.clone(), id);
                state.urns.push(Vec::new());
                id
            }
        };
        let urn = schema.urn().clone();
        let holders = &mut state.urns[id as usize - 1];
        let at = holders.partition_point(|held| *held < urn);
        holders.insert(at, urn.clone());
        state
            .schemas
            .insert(urn.clone(), Entry { schema, digest, id });
        Ok(Stored::new(urn, id, true))
    }

    fn versions(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        let namespace = namespace.to_ascii_lowercase();
        Ok(self
            .state
            .read()
            .versions(&namespace, name)
            .into_iter()
            .map(|entry| entry.schema.urn().version())
            .collect())
    }

    fn list(&self) -> Result<Vec<Urn>, Error> {
        Ok(self.state.read().schemas.keys().cloned().collect())
    }

    fn id_of(&self, urn: &Urn) -> Result<Option<SchemaId>, Error> {
        Ok(self.state.read().schemas.get(urn).map(|entry| entry.id))
    }

    fn urns_of(&self, id: SchemaId) -> Result<Vec<Urn>, Error> {
        let state = self.state.read();
        Ok(id
            .checked_sub(1)
            .and_then(|index| state.urns.get(index as usize))
            .cloned()
            .unwrap_or_default())
    }

    fn compatibility(&self, name: Option<&str>) -> Result<Option<Compatibility>, Error> {
        Ok(self
            .state
            .read()
            .modes
            .get(&name.map(str::to_owned))
            .copied())
    }

    fn set_compatibility(
        &self,
        name: Option<&str>,
        mode: Option<Compatibility>,
    ) -> Result<(), Error> {
        let mut state = self.state.write();
        let key = name.map(str::to_owned);
        match mode {
            Some(mode) => state.modes.insert(key, mode),
            None => state.modes.remove(&key),
        };
        Ok(())
    }

    fn config(&self, name: Option<&str>) -> Result<Option<String>, Error> {
        Ok(self
            .state
            .read()
            .configs
            .get(&name.map(str::to_owned))
            .cloned())
    }

    fn set_config(&self, name: Option<&str>, config: Option<&str>) -> Result<(), Error> {
        let mut state = self.state.write();
        let key = name.map(str::to_owned);
        match config {
            Some(config) => state.configs.insert(key, config.to_owned()),
            None => state.configs.remove(&key),
        };
        Ok(())
    }

    fn id_of_digest_prefix(&self, prefix: &str) -> Result<Option<SchemaId>, Error> {
        Ok(self
            .state
            .read()
            .ids
            .iter()
            .filter(|(digest, _)| digest.starts_with(prefix))
            .map(|(_, &id)| id)
            .min())
    }
}
