//! The guard's resolver chain: the primary, then the fallback.

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
            (Err(Error::IdNotFound { .. }), Some(fallback)) => fallback.resolve_id(id),
            (result, _) => result,
        }
    }
}
