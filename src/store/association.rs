//! Associations between resources (Kafka topics) and subjects, as
//! Confluent Schema Registry keeps them for its Associations API
//! (`/associations/...`, CP 8.0.4, 8.1.2 and 8.2.0 on:
//! `core/.../storage/AssociationValue.java` at `v8.2.0`).
//!
//! A store keeps them as rows, one per resource id, resource type and
//! association type ([`AssociationKey`]); what a row may hold (a strong
//! association is a subject's only one, a frozen one is not changed, ...)
//! is the Confluent API's rule, checked by the plan a caller gives
//! [`Store::change_associations`](super::Store::change_associations)
//! under the store's lock.

use std::cmp::Ordering;

use dataschema_core::Error;

/// How an association binds its subject's life to its resource's:
/// Confluent's `LifecyclePolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lifecycle {
    /// The subject belongs to the resource: its only association; deleting
    /// the association with `cascadeLifecycle` deletes the subject too.
    Strong,
    /// The subject is shared: other weak associations may name it.
    Weak,
}

impl Lifecycle {
    /// Confluent's name: `STRONG` or `WEAK`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lifecycle::Strong => "STRONG",
            Lifecycle::Weak => "WEAK",
        }
    }

    /// The lifecycle Confluent's name (exactly `STRONG` or `WEAK`) names.
    pub fn from_name(name: &str) -> Option<Lifecycle> {
        match name {
            "STRONG" => Some(Lifecycle::Strong),
            "WEAK" => Some(Lifecycle::Weak),
            _ => None,
        }
    }
}

/// One association: a resource (a topic, named by its name, namespace
/// (Kafka cluster) and id) whose keys or values (`association_type`) the
/// subject's schemas describe.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Association {
    /// The subject, as the Confluent API names it (context-qualified
    /// outside the default context).
    pub subject: String,
    /// The association's own id, a UUID, kept across updates.
    pub guid: String,
    /// The resource's name (a topic name).
    pub resource_name: String,
    /// The resource's namespace (a Kafka cluster id).
    pub resource_namespace: String,
    /// The resource's id (unique across namespaces).
    pub resource_id: String,
    /// The resource's type: `topic`.
    pub resource_type: String,
    /// `key` or `value`.
    pub association_type: String,
    /// Strong or weak.
    pub lifecycle: Lifecycle,
    /// A frozen association is neither changed nor deleted without
    /// `cascadeLifecycle`.
    pub frozen: bool,
}

impl Association {
    /// An association (for callers building one to store).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        subject: impl Into<String>,
        guid: impl Into<String>,
        resource_name: impl Into<String>,
        resource_namespace: impl Into<String>,
        resource_id: impl Into<String>,
        resource_type: impl Into<String>,
        association_type: impl Into<String>,
        lifecycle: Lifecycle,
        frozen: bool,
    ) -> Association {
        Association {
            subject: subject.into(),
            guid: guid.into(),
            resource_name: resource_name.into(),
            resource_namespace: resource_namespace.into(),
            resource_id: resource_id.into(),
            resource_type: resource_type.into(),
            association_type: association_type.into(),
            lifecycle,
            frozen,
        }
    }

    /// The row it is kept in.
    pub fn key(&self) -> AssociationKey {
        AssociationKey {
            resource_id: self.resource_id.clone(),
            resource_type: self.resource_type.clone(),
            association_type: self.association_type.clone(),
        }
    }

    /// Confluent's order (`Association.compareTo`, `v8.2.0`): resource
    /// name, namespace, type, association type, subject.
    pub fn order(&self, other: &Association) -> Ordering {
        (
            &self.resource_name,
            &self.resource_namespace,
            &self.resource_type,
            &self.association_type,
            &self.subject,
            &self.resource_id,
        )
            .cmp(&(
                &other.resource_name,
                &other.resource_namespace,
                &other.resource_type,
                &other.association_type,
                &other.subject,
                &other.resource_id,
            ))
    }
}

/// The row an association is kept in: a resource holds one association
/// of each type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub struct AssociationKey {
    /// The resource's id.
    pub resource_id: String,
    /// The resource's type.
    pub resource_type: String,
    /// `key` or `value`.
    pub association_type: String,
}

/// Which associations [`Store::associations`](super::Store::associations)
/// answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AssociationsOf<'a> {
    /// Those naming this subject.
    Subject(&'a str),
    /// Those of the resource with this id.
    ResourceId(&'a str),
    /// Those of the resources with this name, in this namespace (`None`:
    /// in any).
    ResourceName {
        /// The resource name.
        name: &'a str,
        /// The namespace, or any.
        namespace: Option<&'a str>,
    },
    /// Those of every resource of this namespace.
    Namespace(&'a str),
}

impl AssociationsOf<'_> {
    /// Whether `association` is one of these.
    pub fn matches(&self, association: &Association) -> bool {
        match *self {
            AssociationsOf::Subject(subject) => association.subject == subject,
            AssociationsOf::ResourceId(id) => association.resource_id == id,
            AssociationsOf::ResourceName { name, namespace } => {
                association.resource_name == name
                    && namespace.is_none_or(|ns| association.resource_namespace == ns)
            }
            AssociationsOf::Namespace(namespace) => association.resource_namespace == namespace,
        }
    }
}

/// What a plan given to
/// [`Store::change_associations`](super::Store::change_associations)
/// sees, read under the store's lock.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssociationsHeld {
    /// The associations of the resource id (every type), in
    /// [`Association::order`].
    pub of_resource: Vec<Association>,
    /// The associations naming any of the subjects asked for, in
    /// [`Association::order`].
    pub of_subjects: Vec<Association>,
    /// How many associations the store holds in all.
    pub total: u64,
}

/// One change a plan asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AssociationChange {
    /// Keep this association in its row, replacing what the row held.
    Put(Association),
    /// Empty this row (nothing when it holds nothing).
    Remove(AssociationKey),
}

/// The plan [`Store::change_associations`](super::Store::change_associations)
/// runs under the store's lock: from what is held, the changes to make,
/// or an error that changes nothing.
pub type AssociationPlan<'a> =
    &'a (dyn Fn(&AssociationsHeld) -> Result<Vec<AssociationChange>, Error> + Sync);

/// Sorts `associations` in [`Association::order`] (every store answers
/// in it).
pub(crate) fn sorted(mut associations: Vec<Association>) -> Vec<Association> {
    associations.sort_by(Association::order);
    associations
}

/// The lifecycle of a stored row, or the store's corruption error.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn lifecycle_from_row(what: &str, name: &str) -> Result<Lifecycle, Error> {
    Lifecycle::from_name(name).ok_or_else(|| {
        super::corrupt(format!(
            "{what}: a stored association has the unknown lifecycle {:?}",
            dataschema_core::clip(name, 40)
        ))
    })
}

/// The columns an association's row is read from, in [`Association::new`]'s
/// order (the persistent stores' one statement of it).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) const COLUMNS: &str = "subject, guid, resource_name, resource_namespace, \
     resource_id, resource_type, association_type, lifecycle, frozen";

/// The `WHERE` clause of the associations `of` names, with its parameters
/// (`?1`, `?2`: SQLite's; PostgreSQL's store writes them `$1`, `$2`).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn filter<'a>(of: AssociationsOf<'a>) -> (&'static str, Vec<&'a str>) {
    match of {
        AssociationsOf::Subject(subject) => ("subject = ?1", vec![subject]),
        AssociationsOf::ResourceId(id) => ("resource_id = ?1", vec![id]),
        AssociationsOf::ResourceName {
            name,
            namespace: None,
        } => ("resource_name = ?1", vec![name]),
        AssociationsOf::ResourceName {
            name,
            namespace: Some(namespace),
        } => (
            "resource_name = ?1 AND resource_namespace = ?2",
            vec![name, namespace],
        ),
        AssociationsOf::Namespace(namespace) => ("resource_namespace = ?1", vec![namespace]),
    }
}

/// A row read from [`COLUMNS`]: an association with its lifecycle's name
/// not yet checked.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) type Row = (
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    bool,
);

/// The association of a row, or the store's corruption error.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn from_row(what: &str, row: Row) -> Result<Association, Error> {
    let (subject, guid, name, namespace, id, kind, association_type, lifecycle, frozen) = row;
    Ok(Association::new(
        subject,
        guid,
        name,
        namespace,
        id,
        kind,
        association_type,
        lifecycle_from_row(what, &lifecycle)?,
        frozen,
    ))
}
