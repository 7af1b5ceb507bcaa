//! Confluent's Associations API (`/associations/...`, CP 8.0.4, 8.1.2 and
//! 8.2.0 on): which subject describes the keys and which the values of a
//! resource (a Kafka topic), read by the serializers' `AssociatedNameStrategy`.
//!
//! Confluent's behaviour, read in its source at `v8.2.0` (the same at
//! `v8.0.4`, which introduced it):
//! `core/.../rest/resources/AssociationsResource.java` (the routes),
//! `client/.../rest/entities/requests/AssociationCreateOrUpdateRequest.java`
//! and `AssociationCreateOrUpdateInfo.java` (validation, 42212),
//! `core/.../storage/KafkaSchemaRegistry.java` (`createOrUpdateAssociation`,
//! `mutateAssociations`, `deleteAssociations`: the rules and their order),
//! `core/.../rest/exceptions/Errors.java` (the codes and their words).
//!
//! | route | what |
//! |---|---|
//! | `GET /associations/subjects/{s}` | the subject's associations |
//! | `GET /associations/resources/{id}` | the resource's |
//! | `GET /associations/resources/{ns}/{name}` | by name in a namespace (`-`: any namespace; name `-`: every resource of the namespace, as `v8.0.6`/`v8.1.4` on) |
//! | `GET /associations?resourceName=..` | the same by query, as Confluent's Rust client asks (not Confluent's: [`by_query`]) |
//! | `POST /associations` | creates (40903 when the resource has another of the type) |
//! | `PUT /associations/resources/{id}` | creates or updates |
//! | `POST /associations:batch` | creates, updates and deletes, each request answered apart |
//! | `DELETE /associations/resources/{id}` | deletes (204; 40410 for none) |
//!
//! The reads filter by `resourceType` (default `topic`), `associationType`
//! (repeated) and `lifecycle`, and page by `offset` and `limit`.
//!
//! Where this server differs, on purpose: `cascadeLifecycle` on a strong
//! association soft-deletes the subject's versions (Confluent deletes the
//! subject permanently; this registry keeps every schema); the registry
//! holds at most [`MAX_ASSOCIATIONS`] associations (Confluent's 40902,
//! which it defines and does not raise yet); a batch carries at most
//! [`MAX_BATCH_OPERATIONS`] operations, and a resource id at most 256
//! characters (as Confluent bounds a resource's name and namespace); and
//! the lookup by query ([`by_query`]) is served.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::error::{from_error, not_permitted, ApiError, ErrorCode, Reply};
use super::format::Format;
use super::request::{checked_subject, json_body, Subject};
use super::subjects::{lookup_sent, register_sent, History, Registered, Seen};
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{ok, schema_json};
use crate::store::{
    Association, AssociationChange, AssociationKey, AssociationsHeld, AssociationsOf, Lifecycle,
    Mode,
};
use dataschema_core::{clip, Error};

/// The most associations the registry holds: a create past it is
/// Confluent's 40902 ("A maximum of %d associations already exist").
pub(crate) const MAX_ASSOCIATIONS: u64 = 100_000;

/// The most operations a `POST /associations:batch` carries, over all its
/// requests (42212 past it).
pub(crate) const MAX_BATCH_OPERATIONS: usize = 100;

/// The longest resource name, namespace (Confluent's
/// `RestValidation.NAME_MAX_LENGTH`, `v8.2.0`) and, here, resource id.
const NAME_MAX_LENGTH: usize = 256;

/// The only resource type (`AssociationCreateOrUpdateRequest`,
/// `TOPIC_RESOURCE_TYPE`).
const TOPIC: &str = "topic";

/// Confluent's `SchemaRegistry.RESOURCE_WILDCARD`.
const WILDCARD: &str = "-";

// ---------------------------------------------------------------------
// Requests

/// `AssociationCreateOrUpdateRequest` (and `AssociationOpRequest`, whose
/// operations carry `opType`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateRequest {
    resource_name: Option<String>,
    resource_namespace: Option<String>,
    resource_id: Option<String>,
    resource_type: Option<String>,
    associations: Option<Vec<InfoRequest>>,
}

/// `AssociationCreateOrUpdateInfo` (and the batch's operations).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InfoRequest {
    op_type: Option<String>,
    subject: Option<String>,
    association_type: Option<String>,
    lifecycle: Option<String>,
    frozen: Option<bool>,
    schema: Option<Value>,
    normalize: Option<bool>,
}

/// `AssociationBatchRequest`.
#[derive(Debug, Deserialize)]
struct BatchRequest {
    requests: Option<Vec<CreateRequest>>,
}

/// A request validated: the resource, and its associations.
#[derive(Clone, Debug)]
struct Checked {
    resource_name: String,
    resource_namespace: String,
    resource_id: Option<String>,
    resource_type: String,
    infos: Vec<Info>,
}

/// An association a request asks for, validated.
#[derive(Clone, Debug)]
struct Info {
    subject: Subject,
    association_type: String,
    lifecycle: Option<Lifecycle>,
    frozen: Option<bool>,
    schema: Option<Value>,
    normalize: bool,
}

/// Confluent's 42212 (`RestInvalidAssociationException`).
fn invalid(property: &str, detail: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidAssociation,
        format!("The association specified an invalid value for property: '{property}', detail: {detail}"),
    )
}

/// `RestValidation.checkName`: 1 to 256 letters, digits, `_` and `-`.
fn check_name(name: Option<&str>, property: &str) -> Result<String, ApiError> {
    let name = name.unwrap_or_default();
    if name.is_empty() {
        return Err(invalid(property, "cannot be null or empty"));
    }
    if name.chars().count() > NAME_MAX_LENGTH {
        return Err(invalid(
            property,
            format!("exceeds max length of {NAME_MAX_LENGTH}"),
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| !(c.is_alphanumeric() || c == '_' || c == '-'))
    {
        return Err(invalid(property, format!("illegal character {c:?}")));
    }
    Ok(name.to_owned())
}

/// A resource id: not empty, at most 256 characters, no control
/// character.
fn check_resource_id(id: &str) -> Result<(), ApiError> {
    if id.is_empty() {
        return Err(invalid("resourceId", "cannot be null or empty"));
    }
    if id.chars().count() > NAME_MAX_LENGTH {
        return Err(invalid(
            "resourceId",
            format!("exceeds max length of {NAME_MAX_LENGTH}"),
        ));
    }
    if id.chars().any(char::is_control) {
        return Err(invalid("resourceId", "must not hold a control character"));
    }
    Ok(())
}

/// `associationType`: `key` or `value` (absent or empty: `value`).
fn check_association_type(kind: Option<&str>) -> Result<String, ApiError> {
    match kind.unwrap_or_default() {
        "" => Ok("value".to_owned()),
        kind @ ("key" | "value") => Ok(kind.to_owned()),
        _ => Err(invalid(
            "associationType",
            "must be either 'key' or 'value'",
        )),
    }
}

/// The subject of `context` (`?context=`): qualified with it, unless it
/// names its own.
fn in_context(subject: &str, context: Option<&str>) -> Result<String, ApiError> {
    match context {
        Some(context) if !super::context::qualified(subject) => {
            let qualifier = super::context::qualifier(context)
                .map_err(|reason| ApiError::new(ErrorCode::InvalidSubject, reason))?;
            Ok(format!("{qualifier}{subject}"))
        }
        _ => Ok(subject.to_owned()),
    }
}

impl Info {
    /// `AssociationCreateOrUpdateInfo.validate`.
    fn checked(request: InfoRequest, context: Option<&str>) -> Result<Info, ApiError> {
        let subject = request.subject.unwrap_or_default();
        if subject.is_empty() || subject.chars().any(char::is_control) {
            return Err(invalid("subject", "must not be empty"));
        }
        let subject = checked_subject(in_context(&subject, context)?)?;
        let association_type = check_association_type(request.association_type.as_deref())?;
        let lifecycle = match request.lifecycle.as_deref() {
            None => None,
            Some(name) => Some(
                Lifecycle::from_name(name)
                    .ok_or_else(|| invalid("lifecycle", "must be either 'STRONG' or 'WEAK'"))?,
            ),
        };
        if lifecycle == Some(Lifecycle::Weak) && request.frozen == Some(true) {
            return Err(weak_frozen());
        }
        Ok(Info {
            subject,
            association_type,
            lifecycle,
            frozen: request.frozen,
            schema: request.schema,
            normalize: request.normalize.unwrap_or(false),
        })
    }
}

fn weak_frozen() -> ApiError {
    invalid(
        "frozen",
        "association with lifecycle of WEAK cannot be frozen",
    )
}

/// The resource of a request, validated (`AssociationCreateOrUpdateRequest
/// .validate`): its name and namespace, id (optional in a dry run), type.
fn checked_resource(
    request: &CreateRequest,
    dry_run: bool,
) -> Result<(String, String, Option<String>, String), ApiError> {
    let name = check_name(request.resource_name.as_deref(), "resourceName")?;
    let namespace = check_name(request.resource_namespace.as_deref(), "resourceNamespace")?;
    let id = match request.resource_id.as_deref() {
        None | Some("") if dry_run => None,
        id => {
            let id = id.unwrap_or_default();
            check_resource_id(id)?;
            Some(id.to_owned())
        }
    };
    let kind = match request.resource_type.as_deref().unwrap_or_default() {
        "" | TOPIC => TOPIC.to_owned(),
        _ => return Err(invalid("resourceType", "must be 'topic'")),
    };
    Ok((name, namespace, id, kind))
}

impl Checked {
    /// A create or update request validated, duplicate types refused
    /// (`createOrUpdateAssociation`'s first check).
    fn of(
        request: CreateRequest,
        dry_run: bool,
        context: Option<&str>,
    ) -> Result<Checked, ApiError> {
        let (resource_name, resource_namespace, resource_id, resource_type) =
            checked_resource(&request, dry_run)?;
        let Some(infos) = request.associations else {
            return Err(invalid("associations", "cannot be null"));
        };
        let infos = infos
            .into_iter()
            .map(|info| Info::checked(info, context))
            .collect::<Result<Vec<Info>, ApiError>>()?;
        let mut seen = HashSet::new();
        for info in &infos {
            if !seen.insert(info.association_type.as_str()) {
                return Err(invalid(
                    "associationType",
                    format!("Duplicate association type: {}", info.association_type),
                ));
            }
        }
        Ok(Checked {
            resource_name,
            resource_namespace,
            resource_id,
            resource_type,
            infos,
        })
    }
}

// ---------------------------------------------------------------------
// Answers

fn association_json(a: &Association) -> Value {
    json!({
        "subject": a.subject,
        "guid": a.guid,
        "resourceName": a.resource_name,
        "resourceNamespace": a.resource_namespace,
        "resourceId": a.resource_id,
        "resourceType": a.resource_type,
        "associationType": a.association_type,
        "lifecycle": a.lifecycle.as_str(),
        "frozen": a.frozen,
    })
}

/// `AssociationResponse` (`Association.toAssociationResponse`): the
/// resource, and the associations given with the schema each registered
/// (members empty or absent left out, as Jackson's `NON_EMPTY` does).
fn response_json(
    name: &str,
    namespace: &str,
    id: Option<&str>,
    kind: &str,
    associations: &[Association],
    schemas: &[(String, Value)],
) -> Value {
    let mut answer = Map::new();
    answer.insert("resourceName".into(), name.into());
    answer.insert("resourceNamespace".into(), namespace.into());
    if let Some(id) = id {
        answer.insert("resourceId".into(), id.into());
    }
    answer.insert("resourceType".into(), kind.into());
    if !associations.is_empty() {
        let infos: Vec<Value> = associations
            .iter()
            .map(|a| {
                let mut info = json!({
                    "subject": a.subject,
                    "associationType": a.association_type,
                    "lifecycle": a.lifecycle.as_str(),
                    "frozen": a.frozen,
                });
                if let Some((_, schema)) =
                    schemas.iter().find(|(kind, _)| *kind == a.association_type)
                {
                    info["schema"] = schema.clone();
                }
                info
            })
            .collect();
        answer.insert("associations".into(), infos.into());
    }
    Value::Object(answer)
}

/// A refusal a plan gives back through the store (as [`Error::Other`]).
#[derive(Debug)]
struct Refused(ApiError);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Refused {}

fn refused(err: ApiError) -> Error {
    Error::Other(Box::new(Refused(err)))
}

/// A registry error, or a plan's refusal, as Confluent's.
fn api_error(err: Error) -> ApiError {
    match err {
        Error::Other(boxed) => match boxed.downcast::<Refused>() {
            Ok(refused) => refused.0,
            Err(other) => from_error(Error::Other(other)),
        },
        err => from_error(err),
    }
}

// ---------------------------------------------------------------------
// The rules

/// What a plan needs to know of each association's subject, read from
/// the registry before the store's lock is taken.
#[derive(Clone, Copy, Debug, Default)]
struct Facts {
    /// The subject has a live version.
    live: bool,
    /// It had one before this request registered its schema (a frozen
    /// association is created only on a subject that had none).
    live_before: bool,
    /// The schema the request carries is a live version of the subject.
    schema_held: bool,
}

/// A process-wide counter, so that two guids made in one instant differ.
static GUIDS: AtomicU64 = AtomicU64::new(0);

/// A new association's guid: a UUID (version 4 layout) from a SHA-256 of
/// its row, the time and a counter.
fn new_guid(key: &AssociationKey) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let count = GUIDS.fetch_add(1, Ordering::Relaxed);
    let hex = dataschema_core::sha256_hex(
        format!(
            "{}\u{0}{}\u{0}{}\u{0}{nanos}\u{0}{count}\u{0}{}",
            key.resource_id,
            key.resource_type,
            key.association_type,
            std::process::id()
        )
        .as_bytes(),
    );
    let variant = ["8", "9", "a", "b"][usize::from(hex.as_bytes()[16] % 4)];
    format!(
        "{}-{}-4{}-{variant}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// `createOrUpdateAssociation`'s checks, in its order, against what is
/// held; the rows to write. `create_only`: `POST /associations` (an
/// association of the type held already is 40903 unless it is the same).
fn plan(
    request: &Checked,
    resource_id: &str,
    create_only: bool,
    facts: &[Facts],
    held: &AssociationsHeld,
    count: bool,
) -> Result<Vec<AssociationChange>, ApiError> {
    let existing = |info: &Info| {
        held.of_resource.iter().find(|a| {
            a.resource_type == request.resource_type && a.association_type == info.association_type
        })
    };
    let mut skip = HashSet::new();
    for (info, facts) in request.infos.iter().zip(facts) {
        let Some(association) = existing(info) else {
            if info.frozen == Some(true) {
                if info.schema.is_none() {
                    return Err(invalid(
                        "schema",
                        "schema must be provided when creating a frozen association",
                    ));
                }
                if facts.live_before {
                    return Err(invalid(
                        "frozen",
                        "cannot create a frozen association when schemas already exist in the \
                         subject",
                    ));
                }
            }
            continue;
        };
        // `Association.isEquivalent`.
        let equivalent = association.subject == info.subject.text
            && info.lifecycle.is_none_or(|l| l == association.lifecycle)
            && info.frozen.is_none_or(|f| f == association.frozen);
        if equivalent {
            if create_only && info.schema.is_some() && !facts.schema_held {
                return Err(resource_exists(association));
            }
            skip.insert(info.association_type.as_str());
            continue;
        }
        if create_only {
            return Err(resource_exists(association));
        }
        if association.subject != info.subject.text {
            return Err(invalid(
                "subject",
                "subject of association cannot be changed",
            ));
        }
        if info.frozen.is_some_and(|f| f != association.frozen) {
            return Err(invalid(
                "frozen",
                "frozen attribute of association cannot be changed",
            ));
        }
        if association.frozen {
            return Err(frozen_error(association));
        }
    }
    for (info, facts) in request.infos.iter().zip(facts) {
        let association = existing(info);
        if info.schema.is_none() && !facts.live {
            return Err(ApiError::new(
                ErrorCode::NoActiveSubjectVersion,
                format!(
                    "No active (non-deleted) version exists for subject '{}'",
                    info.subject.text
                ),
            ));
        }
        let mut others = held.of_subjects.iter().filter(|a| {
            a.subject == info.subject.text
                && association.is_none_or(|held| {
                    !(a.resource_id == held.resource_id
                        && a.resource_type == held.resource_type
                        && a.association_type == held.association_type)
                })
        });
        let lifecycle = info
            .lifecycle
            .or(association.map(|a| a.lifecycle))
            .unwrap_or(Lifecycle::Weak);
        match lifecycle {
            Lifecycle::Strong => {
                if others.next().is_some() {
                    return Err(ApiError::new(
                        ErrorCode::AssociationForSubjectExists,
                        format!(
                            "An association already exists for subject '{}'",
                            info.subject.text
                        ),
                    ));
                }
            }
            _ => {
                if info.frozen == Some(true) {
                    return Err(weak_frozen());
                }
                if others.any(|a| a.lifecycle == Lifecycle::Strong) {
                    return Err(ApiError::new(
                        ErrorCode::StrongAssociationForSubjectExists,
                        format!(
                            "A strong association already exists for subject '{}'",
                            info.subject.text
                        ),
                    ));
                }
            }
        }
    }
    let mut changes = Vec::new();
    let mut new_rows = 0u64;
    for info in &request.infos {
        if skip.contains(info.association_type.as_str()) {
            continue;
        }
        let association = match existing(info) {
            Some(old) => Association::new(
                old.subject.clone(),
                old.guid.clone(),
                old.resource_name.clone(),
                old.resource_namespace.clone(),
                old.resource_id.clone(),
                old.resource_type.clone(),
                info.association_type.clone(),
                info.lifecycle.unwrap_or(old.lifecycle),
                info.frozen.unwrap_or(old.frozen),
            ),
            None => {
                new_rows += 1;
                let key = AssociationKey {
                    resource_id: resource_id.to_owned(),
                    resource_type: request.resource_type.clone(),
                    association_type: info.association_type.clone(),
                };
                Association::new(
                    info.subject.text.clone(),
                    new_guid(&key),
                    request.resource_name.clone(),
                    request.resource_namespace.clone(),
                    resource_id,
                    request.resource_type.clone(),
                    info.association_type.clone(),
                    info.lifecycle.unwrap_or(Lifecycle::Weak),
                    info.frozen.unwrap_or(false),
                )
            }
        };
        changes.push(AssociationChange::Put(association));
    }
    if count && new_rows > 0 && held.total.saturating_add(new_rows) > MAX_ASSOCIATIONS {
        return Err(ApiError::new(
            ErrorCode::TooManyAssociations,
            format!("A maximum of {MAX_ASSOCIATIONS} associations already exist"),
        ));
    }
    Ok(changes)
}

/// 40908, in Confluent's words (its doubled space kept).
fn frozen_error(association: &Association) -> ApiError {
    ApiError::new(
        ErrorCode::AssociationFrozen,
        format!(
            "The association of type  '{}' is frozen for subject '{}'",
            association.association_type, association.subject
        ),
    )
}

fn resource_exists(association: &Association) -> ApiError {
    ApiError::new(
        ErrorCode::AssociationForResourceExists,
        format!(
            "An association of type '{}' already exists for resource '{}'",
            association.association_type, association.resource_name
        ),
    )
}

/// A request's schema as a register body.
fn schema_body(schema: &Value) -> Result<Bytes, BytesRejection> {
    Ok(Bytes::from(schema.to_string()))
}

/// What is held for `resource_id` and `subjects`, read without the
/// store's lock (a dry run's view).
fn read_held(
    registry: &crate::registry::Registry,
    resource_id: Option<&str>,
    subjects: &[String],
) -> Result<AssociationsHeld, Error> {
    let mut held = AssociationsHeld::default();
    if let Some(id) = resource_id {
        held.of_resource = registry.associations(AssociationsOf::ResourceId(id))?;
    }
    for subject in subjects {
        held.of_subjects
            .extend(registry.associations(AssociationsOf::Subject(subject))?);
    }
    Ok(held)
}

/// `createOrUpdateAssociation`: checks, registers the schemas the request
/// carries (not in IMPORT mode), then writes the associations under the
/// store's lock, checked again there; the `AssociationResponse`.
async fn create_or_update(
    state: &AppState,
    request: Checked,
    create_only: bool,
    dry_run: bool,
) -> Result<Value, ApiError> {
    // Each subject's mode and versions, and whether a schema sent to an
    // idempotent create is held already.
    let namespace = state.namespace().to_owned();
    let infos = request.infos.clone();
    let modes: Vec<(Mode, History)> = state
        .blocking(move |registry| {
            infos
                .iter()
                .map(|info| {
                    Ok((
                        registry.config().mode_in_effect(&info.subject.name)?,
                        History::read(registry, &namespace, &info.subject.name)?,
                    ))
                })
                .collect()
        })
        .await
        .map_err(from_error)?;
    let mut facts = Vec::with_capacity(request.infos.len());
    for (info, (mode, history)) in request.infos.iter().zip(&modes) {
        if mode.is_read_only() {
            return Err(not_permitted(format!(
                "Subject {} is in read-only mode",
                info.subject.text
            )));
        }
        let live = !history.live().is_empty();
        let mut fact = Facts {
            live,
            live_before: live,
            schema_held: false,
        };
        if let (true, Some(schema), true) = (create_only, &info.schema, fact.live) {
            fact.schema_held = lookup_sent(
                state,
                &info.subject,
                schema_body(schema),
                info.normalize,
                Format::Default,
                Seen::Live,
            )
            .await
            .is_ok();
        }
        facts.push(fact);
    }
    let subjects: Vec<String> = request
        .infos
        .iter()
        .map(|i| i.subject.text.clone())
        .collect();
    let resource_id = request.resource_id.clone();
    // Every check before anything is registered, as Confluent does.
    {
        let subjects = subjects.clone();
        let id = resource_id.clone();
        let held = state
            .blocking(move |registry| read_held(registry, id.as_deref(), &subjects))
            .await
            .map_err(from_error)?;
        plan(
            &request,
            resource_id.as_deref().unwrap_or_default(),
            create_only,
            &facts,
            &held,
            false,
        )?;
    }
    let empty = || {
        response_json(
            &request.resource_name,
            &request.resource_namespace,
            resource_id.as_deref(),
            &request.resource_type,
            &[],
            &[],
        )
    };
    if dry_run {
        return Ok(empty());
    }
    let Some(resource_id) = resource_id.clone() else {
        return Err(invalid("resourceId", "cannot be null or empty"));
    };
    // The schemas, registered as `POST /subjects/{s}/versions` would.
    let mut schemas: Vec<(String, Value)> = Vec::new();
    for ((info, fact), (mode, _)) in request.infos.iter().zip(facts.iter_mut()).zip(&modes) {
        let Some(schema) = &info.schema else {
            continue;
        };
        if *mode == Mode::Import {
            continue;
        }
        let Registered {
            schema, id, view, ..
        } = register_sent(
            state,
            &info.subject,
            schema_body(schema),
            info.normalize,
            Format::Default,
        )
        .await?;
        fact.live = true;
        schemas.push((
            info.association_type.clone(),
            schema_json(&schema, id, view.as_ref()),
        ));
    }
    let made = state
        .blocking(move |registry| {
            let names: Vec<&str> = subjects.iter().map(String::as_str).collect();
            let changes = registry.change_associations(&resource_id, &names, &|held| {
                plan(&request, &resource_id, create_only, &facts, held, true).map_err(refused)
            })?;
            Ok((request, changes))
        })
        .await
        .map_err(api_error)?;
    let (request, changes) = made;
    let written: Vec<Association> = changes
        .into_iter()
        .filter_map(|change| match change {
            AssociationChange::Put(a) => Some(a),
            _ => None,
        })
        .collect();
    Ok(response_json(
        &request.resource_name,
        &request.resource_namespace,
        request.resource_id.as_deref(),
        &request.resource_type,
        &written,
        &schemas,
    ))
}

/// `deleteAssociations`: the associations of `resource_id` (of the types
/// asked, every type for none) removed; a frozen one only with
/// `cascade`; with `cascade`, a strong one's subject soft-deleted too
/// (not in IMPORT mode). `None` when the resource has none.
async fn delete(
    state: &AppState,
    resource_id: String,
    resource_type: String,
    types: Vec<String>,
    cascade: bool,
    dry_run: bool,
) -> Result<Option<()>, ApiError> {
    let namespace = state.namespace().to_owned();
    let removed = state
        .blocking(move |registry| {
            let chosen = |held: &[Association]| -> Vec<Association> {
                held.iter()
                    .filter(|a| {
                        a.resource_type == resource_type
                            && (types.is_empty() || types.contains(&a.association_type))
                    })
                    .cloned()
                    .collect()
            };
            // `checkDeleteAssociation`: a frozen one goes only with
            // `cascadeLifecycle` (the plan's check: it calls nothing).
            let frozen = |associations: &[Association]| -> Result<(), Error> {
                match associations.iter().find(|a| !cascade && a.frozen) {
                    Some(a) => Err(refused(frozen_error(a))),
                    None => Ok(()),
                }
            };
            let before = chosen(&registry.associations(AssociationsOf::ResourceId(&resource_id))?);
            if before.is_empty() {
                return Ok(None);
            }
            for a in &before {
                let subject = checked_subject(a.subject.clone()).map_err(refused)?;
                if registry
                    .config()
                    .mode_in_effect(&subject.name)?
                    .is_read_only()
                {
                    return Err(refused(not_permitted(format!(
                        "Subject {} is in read-only mode",
                        a.subject
                    ))));
                }
            }
            frozen(&before)?;
            if dry_run {
                return Ok(Some(Vec::new()));
            }
            let changes = registry.change_associations(&resource_id, &[], &|held| {
                let now = chosen(&held.of_resource);
                frozen(&now)?;
                Ok(now
                    .iter()
                    .map(|a| AssociationChange::Remove(a.key()))
                    .collect())
            })?;
            let removed: Vec<AssociationKey> = changes
                .into_iter()
                .filter_map(|change| match change {
                    AssociationChange::Remove(key) => Some(key),
                    _ => None,
                })
                .collect();
            // The subjects of the strong associations removed, with
            // `cascadeLifecycle`: soft-deleted (every version live).
            let mut cascaded = Vec::new();
            if cascade {
                for a in before
                    .iter()
                    .filter(|a| a.lifecycle == Lifecycle::Strong && removed.contains(&a.key()))
                {
                    let subject = checked_subject(a.subject.clone()).map_err(refused)?;
                    if registry.config().mode_in_effect(&subject.name)? == Mode::Import {
                        continue;
                    }
                    let history = History::read(registry, &namespace, &subject.name)?;
                    let urns = history
                        .live()
                        .into_iter()
                        .map(|v| dataschema_core::Urn::new(&namespace, &subject.name, v))
                        .collect::<Result<Vec<_>, Error>>()?;
                    if !urns.is_empty() {
                        registry.delete_versions(&urns)?;
                    }
                    cascaded.push(a.subject.clone());
                }
            }
            Ok(Some(cascaded))
        })
        .await
        .map_err(api_error)?;
    Ok(removed.map(drop))
}

// ---------------------------------------------------------------------
// Routes

/// The filters of the reads: `resourceType` (default `topic`),
/// `associationType` (repeated), `lifecycle`.
fn filtered(query: &Query, associations: Vec<Association>) -> Result<Vec<Association>, ApiError> {
    let kind = match query.get("resourceType") {
        None | Some("") => TOPIC,
        Some(kind) => kind,
    };
    let types = query.all("associationType");
    let lifecycle = match query.get("lifecycle") {
        None | Some("") => None,
        Some(name) => Some(Lifecycle::from_name(name).ok_or_else(|| {
            ApiError::new(
                ErrorCode::BadRequest,
                format!(
                    "query parameter lifecycle: expected STRONG or WEAK, not {:?}",
                    clip(name, 40)
                ),
            )
        })?),
    };
    let kept = associations
        .into_iter()
        .filter(|a| {
            a.resource_type == kind
                && (types.is_empty() || types.contains(&a.association_type.as_str()))
                && lifecycle.is_none_or(|l| a.lifecycle == l)
        })
        .collect();
    query.page(kept)
}

async fn read(state: &AppState, raw_query: Option<String>, of: Of) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    let associations = state
        .blocking(move |registry| registry.associations(of.as_of()))
        .await
        .map_err(from_error)?;
    let kept = filtered(&query, associations)?;
    Ok(ok(&Value::from(
        kept.iter().map(association_json).collect::<Vec<Value>>(),
    )))
}

/// [`AssociationsOf`], owned (sent to a blocking task).
enum Of {
    Subject(String),
    ResourceId(String),
    ResourceName(String, Option<String>),
    Namespace(String),
}

impl Of {
    /// A lookup by name in a namespace: namespace `-` (or empty) is any,
    /// name `-` every resource of the namespace (the path form and the
    /// query form both mean this).
    fn by_name(name: String, namespace: &str) -> Of {
        match (
            namespace.is_empty() || namespace == WILDCARD,
            name == WILDCARD,
        ) {
            (false, true) => Of::Namespace(namespace.to_owned()),
            (false, false) => Of::ResourceName(name, Some(namespace.to_owned())),
            (true, _) => Of::ResourceName(name, None),
        }
    }

    fn as_of(&self) -> AssociationsOf<'_> {
        match self {
            Of::Subject(s) => AssociationsOf::Subject(s),
            Of::ResourceId(id) => AssociationsOf::ResourceId(id),
            Of::ResourceName(name, namespace) => AssociationsOf::ResourceName {
                name,
                namespace: namespace.as_deref(),
            },
            Of::Namespace(namespace) => AssociationsOf::Namespace(namespace),
        }
    }
}

fn path_text(path: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    path.map(|Path(text)| text)
        .map_err(|rejection| ApiError::new(ErrorCode::BadRequest, rejection.body_text()))
}

/// `GET /associations/subjects/{subject}`.
pub(crate) async fn by_subject(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let subject = path_text(path)?;
    let subject = subject.strip_prefix(":.:").unwrap_or(&subject).to_owned();
    read(&state, raw_query, Of::Subject(subject)).await
}

/// `GET /associations/resources/{resourceId}`.
pub(crate) async fn by_resource_id(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let id = path_text(path)?;
    read(&state, raw_query, Of::ResourceId(id)).await
}

/// `GET /associations/resources/{resourceNamespace}/{resourceName}`.
pub(crate) async fn by_resource_name(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let Path((namespace, name)) =
        path.map_err(|rejection| ApiError::new(ErrorCode::BadRequest, rejection.body_text()))?;
    read(&state, raw_query, Of::by_name(name, &namespace)).await
}

/// `GET /associations?resourceName=..&resourceNamespace=..`: the lookup
/// by name that Confluent's Rust client (`schema-registry-client` 0.4.2,
/// `get_associations_by_resource_name`) sends, and its serializers'
/// default subject name strategy (`Associated`) with them. Confluent's
/// own resource serves this lookup at
/// `/associations/resources/{resourceNamespace}/{resourceName}` only
/// (`AssociationsResource.java`, v8.0.4 to master), so that client's
/// default serializers fail against it (405); this server answers the
/// query form as the path form, so they work (a difference the README
/// lists). A missing `resourceNamespace` is the wildcard (`-`), as the
/// client sends it when it knows no cluster id.
pub(crate) async fn by_query(
    State(state): State<AppState>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    let name = match query.get("resourceName") {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "query parameter resourceName: required (or read /associations/resources/{resourceNamespace}/{resourceName})",
            ))
        }
    };
    let namespace = query
        .get("resourceNamespace")
        .unwrap_or(WILDCARD)
        .to_owned();
    read(&state, raw_query, Of::by_name(name, &namespace)).await
}

/// `?dryRun=` and `?context=`.
fn write_options(query: &Query) -> Result<(bool, Option<String>), ApiError> {
    Ok((
        query.flag("dryRun", false)?,
        query.get("context").map(str::to_owned),
    ))
}

/// `POST /associations`: creates the associations (40903 when the resource
/// holds another of a type).
pub(crate) async fn create(
    State(state): State<AppState>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    let (dry_run, context) = write_options(&query)?;
    let request: CreateRequest = json_body(body)?;
    let checked = Checked::of(request, dry_run, context.as_deref())?;
    let answer = create_or_update(&state, checked, true, dry_run).await?;
    Ok(ok(&answer))
}

/// `PUT /associations/resources/{resourceId}`: creates or updates.
pub(crate) async fn upsert(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let id = path_text(path)?;
    let query = Query::parse(raw_query.as_deref());
    let (dry_run, context) = write_options(&query)?;
    let mut request: CreateRequest = json_body(body)?;
    if request.resource_id.is_none() {
        request.resource_id = Some(id);
    } else if request.resource_id.as_deref() != Some(id.as_str()) {
        return Err(invalid(
            "resourceId",
            "Resource ID in the path parameter does not match the resource ID in the request \
             body",
        ));
    }
    let checked = Checked::of(request, dry_run, context.as_deref())?;
    let answer = create_or_update(&state, checked, false, dry_run).await?;
    Ok(ok(&answer))
}

/// `DELETE /associations/resources/{resourceId}`: 204, or 40410 when the
/// resource has none of the types asked.
pub(crate) async fn delete_resource(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let id = path_text(path)?;
    let query = Query::parse(raw_query.as_deref());
    let kind = match query.get("resourceType") {
        None | Some("") => TOPIC.to_owned(),
        Some(kind) => kind.to_owned(),
    };
    let types: Vec<String> = query
        .all("associationType")
        .into_iter()
        .map(str::to_owned)
        .collect();
    let cascade = query.flag("cascadeLifecycle", false)?;
    let dry_run = query.flag("dryRun", false)?;
    match delete(&state, id.clone(), kind, types, cascade, dry_run).await? {
        Some(()) => Ok(StatusCode::NO_CONTENT.into_response()),
        None => Err(ApiError::new(
            ErrorCode::AssociationNotFound,
            format!("Association for '{}' not found.", clip(&id, 256)),
        )),
    }
}

/// One batch request's answer: `{"result": ...}` or `{"error": ...}`
/// (`AssociationResult`).
fn batch_error(err: ApiError) -> Value {
    json!({"error": {"error_code": err.code.number(), "message": err.message}})
}

/// `POST /associations:batch`: each request's operations (`CREATE`,
/// `UPSERT`, `DELETE`) in turn, each request answered apart
/// (`mutateAssociations`): its resource's associations after it, or its
/// first refusal. Answered `200`, as Confluent's resource does.
pub(crate) async fn batch(
    State(state): State<AppState>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let query = Query::parse(raw_query.as_deref());
    let (dry_run, context) = write_options(&query)?;
    let request: BatchRequest = json_body(body)?;
    let requests = request.requests.unwrap_or_default();
    let operations: usize = requests
        .iter()
        .map(|r| r.associations.as_ref().map_or(0, Vec::len))
        .sum();
    if operations > MAX_BATCH_OPERATIONS {
        return Err(invalid(
            "requests",
            format!("a batch carries at most {MAX_BATCH_OPERATIONS} operations, not {operations}"),
        ));
    }
    let mut results = Vec::with_capacity(requests.len());
    for request in requests {
        let answer = batch_one(&state, request, dry_run, context.as_deref()).await;
        results.push(match answer {
            Ok(result) => json!({ "result": result }),
            Err(err) => batch_error(err),
        });
    }
    Ok(ok(&json!({ "results": results })))
}

async fn batch_one(
    state: &AppState,
    request: CreateRequest,
    dry_run: bool,
    context: Option<&str>,
) -> Result<Value, ApiError> {
    let (name, namespace, id, kind) = checked_resource(&request, dry_run)?;
    let operations = request.associations.clone().unwrap_or_default();
    // `AssociationOpRequest.validate`: every operation before any runs.
    let mut checked = Vec::with_capacity(operations.len());
    for op in operations {
        let op_type = op.op_type.clone().unwrap_or_default();
        match op_type.as_str() {
            "CREATE" | "UPSERT" => {
                let info = Info::checked(op, context)?;
                checked.push((op_type.clone(), Some(info), String::new()));
            }
            "DELETE" => {
                let kind = check_association_type(op.association_type.as_deref())?;
                checked.push((op_type.clone(), None, kind));
            }
            _ => {
                return Err(invalid(
                    "opType",
                    "must be one of 'CREATE', 'UPSERT' or 'DELETE'",
                ))
            }
        }
    }
    for (op_type, info, delete_type) in checked {
        match info {
            Some(info) => {
                let one = Checked {
                    resource_name: name.clone(),
                    resource_namespace: namespace.clone(),
                    resource_id: id.clone(),
                    resource_type: kind.clone(),
                    infos: vec![info],
                };
                create_or_update(state, one, op_type == "CREATE", dry_run).await?;
            }
            None => {
                let Some(id) = id.clone() else {
                    continue;
                };
                delete(state, id, kind.clone(), vec![delete_type], false, dry_run).await?;
            }
        }
    }
    let associations = match (&id, dry_run) {
        (Some(id), false) => {
            let id = id.clone();
            let kind = kind.clone();
            state
                .blocking(move |registry| {
                    Ok(registry
                        .associations(AssociationsOf::ResourceId(&id))?
                        .into_iter()
                        .filter(|a| a.resource_type == kind)
                        .collect::<Vec<_>>())
                })
                .await
                .map_err(from_error)?
        }
        _ => Vec::new(),
    };
    Ok(response_json(
        &name,
        &namespace,
        id.as_deref(),
        &kind,
        &associations,
        &[],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_confluent_checks_them() {
        assert!(check_name(Some("orders_v1-2"), "resourceName").is_ok());
        for bad in [None, Some(""), Some("orders.v1"), Some("a b")] {
            assert_eq!(
                check_name(bad, "resourceName").unwrap_err().code,
                ErrorCode::InvalidAssociation,
                "{bad:?}"
            );
        }
        let long = "x".repeat(257);
        assert!(check_name(Some(&long), "resourceName").is_err());
        assert!(check_name(Some(&long[..256]), "resourceName").is_ok());
        assert_eq!(check_association_type(None).unwrap(), "value");
        assert_eq!(check_association_type(Some("key")).unwrap(), "key");
        assert!(check_association_type(Some("KEY")).is_err());
    }

    /// Past [`MAX_ASSOCIATIONS`], a new row is Confluent's 40902; an
    /// update of a held row is not counted.
    #[test]
    fn the_registry_holds_a_bounded_number() {
        let request = Checked {
            resource_name: "t".into(),
            resource_namespace: "n".into(),
            resource_id: Some("t".into()),
            resource_type: TOPIC.into(),
            infos: vec![Info {
                subject: checked_subject("s".into()).unwrap(),
                association_type: "value".into(),
                lifecycle: Some(Lifecycle::Weak),
                frozen: None,
                schema: None,
                normalize: false,
            }],
        };
        let facts = [Facts {
            live: true,
            live_before: true,
            schema_held: false,
        }];
        let mut held = AssociationsHeld {
            total: MAX_ASSOCIATIONS - 1,
            ..AssociationsHeld::default()
        };
        assert_eq!(
            plan(&request, "t", true, &facts, &held, true)
                .unwrap()
                .len(),
            1
        );
        held.total = MAX_ASSOCIATIONS;
        let refused = plan(&request, "t", true, &facts, &held, true).unwrap_err();
        assert_eq!(refused.code, ErrorCode::TooManyAssociations);
        assert_eq!(refused.code.number(), 40902);
        held.of_resource = vec![Association::new(
            "s",
            "g",
            "t",
            "n",
            "t",
            TOPIC,
            "value",
            Lifecycle::Strong,
            false,
        )];
        assert_eq!(
            plan(&request, "t", false, &facts, &held, true)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn guids_are_uuids_and_differ() {
        let key = AssociationKey {
            resource_id: "r".into(),
            resource_type: "topic".into(),
            association_type: "value".into(),
        };
        let (a, b) = (new_guid(&key), new_guid(&key));
        assert_ne!(a, b);
        let parts: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(parts, [8, 4, 4, 4, 12], "{a}");
        assert_eq!(a.as_bytes()[14], b'4');
    }
}
