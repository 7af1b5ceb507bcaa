use std::collections::{BTreeMap, HashMap};

use parking_lot::{Mutex, RwLock};

use std::collections::HashSet;

use super::association::sorted;
use super::{
    content_digest, decide, given_id_row, ids_exhausted, live, Association, AssociationChange,
    AssociationKey, AssociationPlan, AssociationsHeld, AssociationsOf, Check, Decision, Held,
    IdRow, Mode, SchemaId, Store, Stored, Version, MAX_ID,
};
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
    /// Each content row's id, by its key (the content's digest, or an
    /// alias key for an id an import gave beside the content's own).
    ids: HashMap<String, SchemaId>,
    /// Each id's row key.
    keys: HashMap<SchemaId, String>,
    /// The URNs holding each content, by its id.
    urns: HashMap<SchemaId, Vec<Urn>>,
    /// The next id handed out: above every id held, imported ones
    /// included (past [`MAX_ID`] once an import gave the largest).
    next_id: SchemaId,
    /// Where the search for an unused id starts once `next_id` is past
    /// [`MAX_ID`]: every id below it is held (ids are never freed).
    free_from: SchemaId,
    modes: HashMap<Option<String>, Compatibility>,
    /// Registry modes, by name (`None`: the store-wide one).
    registry_modes: HashMap<Option<String>, Mode>,
    /// The soft-deleted URNs.
    deleted: HashSet<Urn>,
    /// The settings beside the modes (JSON text), by name (`None`: the
    /// default).
    configs: HashMap<Option<String>, String>,
    /// Confluent's associations, by row.
    associations: BTreeMap<AssociationKey, Association>,
}

/// A version held: its schema, its content row's key and id.
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

    /// A publish, with the content's id given (`Some`) or allocated.
    fn publish_as(
        &self,
        schema: &Schema,
        version: Version,
        given: Option<SchemaId>,
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
                    deleted: state.deleted.contains(entry.schema.urn()),
                })
                .collect()
        };
        let schema = match decide(schema, version, &digest, given, &held)? {
            Decision::Held(stored) => return Ok(stored),
            Decision::Insert(schema) => schema,
        };
        let row = match given {
            Some(id) => {
                let state = self.state.read();
                let id_row = state.keys.get(&id).map(|key| {
                    let holder = state.urns.get(&id).and_then(|urns| urns.first()).cloned();
                    (key.clone(), holder)
                });
                Some((
                    id,
                    given_id_row(
                        &schema,
                        &digest,
                        id,
                        id_row,
                        state.ids.contains_key(&digest),
                    )?,
                ))
            }
            None => None,
        };
        check(&schema, &live(held))?;
        let mut state = self.state.write();
        let (id, key) = match row {
            Some((id, IdRow::Held)) => (id, state.keys.get(&id).cloned().unwrap_or_default()),
            Some((id, IdRow::Insert(key))) => {
                state.ids.insert(key.clone(), id);
                state.keys.insert(id, key.clone());
                state.urns.insert(id, Vec::new());
                state.next_id = state.next_id.max(id.saturating_add(1));
                (id, key)
            }
            None => match state.ids.get(&digest) {
                Some(&id) => (id, digest),
                None => {
                    let id = state.unused_id()?;
                    state.ids.insert(digest.clone(), id);
                    state.keys.insert(id, digest.clone());
                    state.urns.insert(id, Vec::new());
                    (id, digest)
                }
            },
        };
        let digest = key;
        let urn = schema.urn().clone();
        let holders = state.urns.entry(id).or_default();
        let at = holders.partition_point(|held| *held < urn);
        holders.insert(at, urn.clone());
        state
            .schemas
            .insert(urn.clone(), Entry { schema, digest, id });
        Ok(Stored::new(urn, id, true))
    }
}

impl State {
    /// The id for a new content: the next one above every id held while
    /// that is at most [`MAX_ID`]; past it (an import gave the largest),
    /// the lowest id no content holds.
    fn unused_id(&mut self) -> Result<SchemaId, Error> {
        let next = self.next_id.max(1);
        if next <= MAX_ID {
            self.next_id = next + 1;
            return Ok(next);
        }
        let mut id = self.free_from.max(1);
        loop {
            if id > MAX_ID {
                return Err(ids_exhausted("the memory store"));
            }
            if !self.keys.contains_key(&id) {
                self.free_from = id + 1;
                return Ok(id);
            }
            id += 1;
        }
    }

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
        self.publish_as(schema, version, None, check)
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
        Ok(self.state.read().urns.get(&id).cloned().unwrap_or_default())
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

    fn mode(&self, name: Option<&str>) -> Result<Option<Mode>, Error> {
        Ok(self
            .state
            .read()
            .registry_modes
            .get(&name.map(str::to_owned))
            .copied())
    }

    fn set_mode(&self, name: Option<&str>, mode: Option<Mode>) -> Result<(), Error> {
        let mut state = self.state.write();
        let key = name.map(str::to_owned);
        match mode {
            Some(mode) => state.registry_modes.insert(key, mode),
            None => state.registry_modes.remove(&key),
        };
        Ok(())
    }

    fn publish_with_id(
        &self,
        schema: &Schema,
        version: Version,
        id: SchemaId,
        check: Check<'_>,
    ) -> Result<Stored, Error> {
        self.publish_as(schema, version, Some(id), check)
    }

    fn deleted(&self, namespace: &str, name: &str) -> Result<Vec<u32>, Error> {
        let namespace = namespace.to_ascii_lowercase();
        let state = self.state.read();
        Ok(state
            .versions(&namespace, name)
            .into_iter()
            .map(|entry| entry.schema.urn())
            .filter(|urn| state.deleted.contains(*urn))
            .map(Urn::version)
            .collect())
    }

    fn delete_versions(&self, urns: &[Urn]) -> Result<(), Error> {
        let _one_at_a_time = self.publishing.lock();
        let mut state = self.state.write();
        if let Some(missing) = urns.iter().find(|urn| !state.schemas.contains_key(*urn)) {
            return Err(Error::NotFound {
                urn: missing.clone(),
            });
        }
        state.deleted.extend(urns.iter().cloned());
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

    fn associations(&self, of: AssociationsOf<'_>) -> Result<Vec<Association>, Error> {
        let state = self.state.read();
        Ok(sorted(
            state
                .associations
                .values()
                .filter(|a| of.matches(a))
                .cloned()
                .collect(),
        ))
    }

    fn change_associations(
        &self,
        resource_id: &str,
        subjects: &[&str],
        plan: AssociationPlan<'_>,
    ) -> Result<Vec<AssociationChange>, Error> {
        // The write lock is the associations lock: the plan sees what it
        // changes, and nothing changes between.
        let mut state = self.state.write();
        let held = AssociationsHeld {
            of_resource: sorted(
                state
                    .associations
                    .values()
                    .filter(|a| a.resource_id == resource_id)
                    .cloned()
                    .collect(),
            ),
            of_subjects: sorted(
                state
                    .associations
                    .values()
                    .filter(|a| subjects.contains(&a.subject.as_str()))
                    .cloned()
                    .collect(),
            ),
            total: state.associations.len() as u64,
        };
        let changes = plan(&held)?;
        for change in &changes {
            match change {
                AssociationChange::Put(association) => {
                    state
                        .associations
                        .insert(association.key(), association.clone());
                }
                AssociationChange::Remove(key) => {
                    state.associations.remove(key);
                }
            }
        }
        Ok(changes)
    }

    fn ids_of_digest_prefix(&self, prefix: &str) -> Result<Vec<SchemaId>, Error> {
        let mut ids: Vec<SchemaId> = self
            .state
            .read()
            .ids
            .iter()
            .filter(|(digest, _)| digest.starts_with(prefix))
            .map(|(_, &id)| id)
            .collect();
        ids.sort_unstable();
        Ok(ids)
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
