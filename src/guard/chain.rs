//! The guard's resolver chain: the primary, then the fallback.

use dataschema_core::resolve::Aliases;
use dataschema_core::{Error, Resolver, Schema, Urn};

/// A primary resolver and an optional fallback consulted only when the
/// primary does not hold the URN.
pub(crate) struct ResolverChain {
    pub(crate) primary: Box<dyn Resolver>,
    pub(crate) fallback: Option<Box<dyn Resolver>>,
}

impl Resolver for ResolverChain {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        match (self.primary.resolve(urn), &self.fallback) {
            (Err(Error::NotFound { .. }), Some(fallback)) => fallback.resolve(urn),
            (result, _) => result,
        }
    }

    fn resolve_id(&self, id: u32) -> Result<Schema, Error> {
        match (self.primary.resolve_id(id), &self.fallback) {
            (Err(Error::IdNotFound { .. }), Some(fallback)) => {
                let answered = fallback.resolve_id(id)?;
                self.agreed(id, answered)
            }
            (result, _) => result,
        }
    }

    /// The primary's id of `urn`; for a URN it does not hold, or holds
    /// without an id, the fallback's, unless it contradicts the primary
    /// (see [`agreed`](ResolverChain::agreed)): an id is only ever
    /// answered for the bytes the primary holds.
    fn id_of(&self, urn: &Urn) -> Result<u32, Error> {
        match (self.primary.id_of(urn), &self.fallback) {
            (Err(Error::NotFound { .. } | Error::NoId { .. }), Some(fallback)) => {
                let id = fallback.id_of(urn)?;
                // The schema the fallback answered the id with (kept by
                // the lookup that found the id).
                let answered = fallback.resolve(urn)?;
                if answered.urn() != urn {
                    return Err(Error::Unreachable {
                        urn: urn.clone(),
                        source: format!(
                            "asked for {urn}, the fallback answered {}",
                            answered.urn()
                        )
                        .into(),
                    });
                }
                self.agreed(id, answered)?;
                Ok(id)
            }
            (result, _) => result,
        }
    }

    /// The primary's aliases of `urn`; the fallback's when the primary
    /// gives none (a version the fallback alone holds).
    fn aliases(&self, urn: &Urn) -> Aliases {
        let given = self.primary.aliases(urn);
        match &self.fallback {
            Some(fallback) if given.is_empty() => fallback.aliases(urn),
            _ => given,
        }
    }
}

impl ResolverChain {
    /// The schema under `urn`, and whether a guard keeps its entry for
    /// good: the primary's answer when the primary is bounded
    /// ([`Resolver::is_bounded`]: a registry, a bundle, whose size bounds
    /// what it holds); a fallback's answer, or any answer of another kind
    /// of primary, may be evicted.
    pub(crate) fn resolve_kept(&self, urn: &Urn) -> Result<(Schema, bool), Error> {
        match (self.primary.resolve(urn), &self.fallback) {
            (Err(Error::NotFound { .. }), Some(fallback)) => {
                fallback.resolve(urn).map(|schema| (schema, false))
            }
            (result, _) => result.map(|schema| (schema, self.primary.is_bounded())),
        }
    }

    /// The fallback's answer for an id the primary lacks, unless it
    /// contradicts the primary: a URN the primary holds with other bytes
    /// (or another language or root), or a URN the primary records under
    /// another id. A contradiction is [`Error::Unreachable`] (the guard
    /// fails open, counted as `unreachable`): the primary is the truth
    /// (a bundle's folder and lock), the fallback only adds to it.
    fn agreed(&self, id: u32, answered: Schema) -> Result<Schema, Error> {
        let urn = answered.urn();
        let refuse = |why: String| -> Result<Schema, Error> {
            Err(Error::Unreachable {
                urn: urn.clone(),
                source: format!("the fallback answered schema id {id} as {urn}, but {why}").into(),
            })
        };
        match self.primary.resolve(urn) {
            Ok(held) => {
                if held.digest() != answered.digest() {
                    return refuse(format!(
                        "the primary holds it with digest {} (the fallback's is {})",
                        held.digest(),
                        answered.digest()
                    ));
                }
                if held.language() != answered.language() || held.root() != answered.root() {
                    return refuse(
                        "the primary holds it with another language or root message".into(),
                    );
                }
            }
            Err(Error::NotFound { .. }) => return Ok(answered),
            Err(other) => return Err(other),
        }
        // The ids the primary records (a bundle's lock, a store) pin the
        // fallback's: asked through the trait, so a wrapped registry (an
        // `Arc`, a caching resolver forwarding `id_of`) pins them too.
        if let Ok(recorded) = self.primary.id_of(urn) {
            if recorded != id {
                return refuse(format!("the primary records it under id {recorded}"));
            }
        }
        Ok(answered)
    }
}
