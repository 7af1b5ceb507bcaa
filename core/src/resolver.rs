//! The [`Resolver`] trait: what a `dataschema::Guard` reads schemas through.

use std::sync::Arc;

use crate::aliases::Aliases;
use crate::error::Error;
use crate::schema::Schema;
use crate::urn::Urn;

/// Something that can hand out the schema held under a URN.
///
/// `dataschema::Registry` implements it; so can a remote registry
/// client or a user's own source. Return [`Error::NotFound`] for a URN you do
/// not hold (a guard then asks its fallback), [`Error::Unreachable`] when
/// the source could not be asked, and put anything else in [`Error::Other`].
pub trait Resolver: Send + Sync {
    /// The schema held under `urn`.
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error>;

    /// Every URN this resolver holds, for
    /// `Guard::prepare` to compile at start-up. The default lists none: a
    /// remote resolver need not list what it could fetch. `Registry` lists
    /// everything it holds.
    fn list(&self) -> Result<Vec<Urn>, Error> {
        Ok(Vec::new())
    }

    /// The schema whose content has the registry-assigned id `id` (the id
    /// a Confluent-framed payload carries), under a URN holding it. The
    /// default holds no ids: [`Error::IdNotFound`].
    fn resolve_id(&self, id: u32) -> Result<Schema, Error> {
        Err(Error::IdNotFound { id })
    }

    /// The registry-assigned id of the schema held under `urn` (the id a
    /// producer writes into a Confluent frame): the dual of
    /// [`resolve_id`](Resolver::resolve_id). [`Error::NotFound`] for a URN
    /// not held, [`Error::NoId`] for one held without an id here (the
    /// default: this resolver records no ids), [`Error::Unreachable`]
    /// when the source could not be asked.
    fn id_of(&self, urn: &Urn) -> Result<u32, Error> {
        Err(Error::NoId { urn: urn.clone() })
    }

    /// Whether what this resolver holds is bounded and in the process's
    /// hands (an embedded registry, a bundle), so that a guard whose
    /// primary it is keeps every schema it compiles from it for good,
    /// never evicted. The default: no (a remote registry's answers, a
    /// user's source, may be evicted). `Registry` answers yes; a wrapper
    /// answers what it wraps.
    fn is_bounded(&self) -> bool {
        false
    }

    /// The aliases given to the version `urn` outside its schema (a
    /// bundle's or a folder's manifest, `[aliases."<name>.v<version>"]`),
    /// which resolution honours when `urn` is the version read as: a reader
    /// path to the writer names its field also reads. The default gives
    /// none; `Registry` gives those its bundle or folder carried; a
    /// wrapper gives what it wraps.
    fn aliases(&self, urn: &Urn) -> Aliases {
        let _ = urn;
        Aliases::new()
    }
}

impl<R: Resolver + ?Sized> Resolver for Arc<R> {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        (**self).resolve(urn)
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        (**self).list()
    }
    fn resolve_id(&self, id: u32) -> Result<Schema, Error> {
        (**self).resolve_id(id)
    }
    fn id_of(&self, urn: &Urn) -> Result<u32, Error> {
        (**self).id_of(urn)
    }
    fn is_bounded(&self) -> bool {
        (**self).is_bounded()
    }
    fn aliases(&self, urn: &Urn) -> Aliases {
        (**self).aliases(urn)
    }
}

impl<R: Resolver + ?Sized> Resolver for Box<R> {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        (**self).resolve(urn)
    }
    fn list(&self) -> Result<Vec<Urn>, Error> {
        (**self).list()
    }
    fn resolve_id(&self, id: u32) -> Result<Schema, Error> {
        (**self).resolve_id(id)
    }
    fn id_of(&self, urn: &Urn) -> Result<u32, Error> {
        (**self).id_of(urn)
    }
    fn is_bounded(&self) -> bool {
        (**self).is_bounded()
    }
    fn aliases(&self, urn: &Urn) -> Aliases {
        (**self).aliases(urn)
    }
}

/// A resolver holding nothing: what a schema read without a registry
/// resolves its references through.
pub(crate) struct NoRefs;

impl Resolver for NoRefs {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        Err(Error::NotFound { urn: urn.clone() })
    }
}
