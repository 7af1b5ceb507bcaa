//! One fetch: which request a lookup sends for its key, the native API's
//! answer checked as [`protocol`] reads it, and the lock's
//! pins checked on whatever came back.

use dataschema_core::{Schema, Urn};

use super::get::get;
use super::policy::{Fetched, Key, Miss, Pins};
use super::Api;
use super::{confluent, content as by_content};
use crate::protocol::{self, Client};

/// Sends a lookup's request and checks its answer.
pub(crate) struct Fetcher {
    pub(crate) client: Client,
    pub(crate) api: Api,
    pub(crate) pins: Pins,
    /// A client with the publishing credential: auto-registration on.
    pub(crate) register: Option<Client>,
}

impl Fetcher {
    /// The schema of `key`, checked (as the API answers it and against the
    /// pins), or why not; `content`, the schema of a [`Key::Content`].
    pub(crate) fn fetch(&self, key: &Key, content: Option<&Schema>) -> Fetched {
        let (schema, id) = match (&self.api, key) {
            (Api::Native, Key::Urn(urn)) => self.native_urn(urn)?,
            // An id the lock knows: asked by its URN, whose id must match.
            (Api::Native, Key::Id(id)) => match self.pins.urn_of(*id) {
                Some(urn) => self.native_urn(urn)?,
                None => {
                    let path = protocol::id_path(*id);
                    let answer = self.native(&path)?;
                    answer
                        .check_id(*id)
                        .map_err(|err| Miss::Transient(err.to_string()))?
                        .into_parts()
                }
            },
            (Api::Confluent { .. }, Key::Urn(urn)) => confluent::version(&self.client, urn, None)?,
            (Api::Confluent { namespace }, Key::Id(id)) => match self.pins.urn_of(*id) {
                Some(urn) => confluent::version(&self.client, urn, Some(*id))?,
                None => confluent::id(&self.client, namespace, *id)?,
            },
            (api, Key::Content(..)) => {
                let schema =
                    content.ok_or_else(|| Miss::Transient("no schema to look up".into()))?;
                by_content::id(&self.client, api, self.register.as_ref(), schema)?
            }
        };
        self.pins.check(&schema, id).map_err(Miss::Transient)?;
        Ok((schema, id))
    }

    /// `GET /schemas/{urn}`, checked to be `urn`'s.
    fn native_urn(&self, urn: &Urn) -> Fetched {
        let answer = self.native(&protocol::schema_path(urn))?;
        Ok(answer
            .check_urn(urn)
            .map_err(|err| Miss::Transient(err.to_string()))?
            .into_parts())
    }

    /// A native schema read at `path`, its digest checked.
    fn native(&self, path: &str) -> Result<protocol::SchemaAnswer, Miss> {
        let answer = get(&self.client, path, "*/*")?;
        answer
            .into_schema()
            .map_err(|err| Miss::Transient(format!("GET {path}: {err}")))
    }
}
