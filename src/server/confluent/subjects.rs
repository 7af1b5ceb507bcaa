//! Subjects and their versions: list, read, register, look up, delete
//! (softly).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use serde_json::Value;

use super::candidate::candidate_with_contract;
use super::canonical::canonical;
use super::contracts;
use super::error::{
    from_error, invalid_schema, not_permitted, subject_not_found, version_not_found, ApiError,
    ErrorCode, Reply,
};
use super::format::Format;
use super::request::{subject, subject_version, urn, which, Subject, Which};
use crate::registry::Registry;
use crate::server::cache::UrnEntry;
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{ok, raw, registered_json, schema_json};
use crate::store::{SchemaId, Version};
use dataschema_core::{Error, Language, Schema, Urn};

/// Which versions a read sees: the live ones (not soft-deleted), or all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    Live,
    All,
    DeletedOnly,
}

impl Seen {
    pub(crate) fn of(query: &Query) -> Result<Seen, ApiError> {
        if query.flag("deletedOnly", false)? {
            Ok(Seen::DeletedOnly)
        } else if query.flag("deleted", false)? {
            Ok(Seen::All)
        } else {
            Ok(Seen::Live)
        }
    }
}

/// A subject's versions: every one held, and the soft-deleted ones.
#[derive(Clone, Debug, Default)]
pub(crate) struct History {
    pub(crate) all: Vec<u32>,
    pub(crate) deleted: Vec<u32>,
}

impl History {
    pub(crate) fn read(registry: &Registry, namespace: &str, name: &str) -> Result<History, Error> {
        let all = registry.versions_in(namespace, name)?;
        let deleted = if all.is_empty() {
            Vec::new()
        } else {
            registry.deleted_versions(namespace, name)?
        };
        Ok(History { all, deleted })
    }

    /// The versions `seen` sees, ascending.
    pub(crate) fn seen(&self, seen: Seen) -> Vec<u32> {
        self.all
            .iter()
            .copied()
            .filter(|v| match seen {
                Seen::Live => !self.deleted.contains(v),
                Seen::All => true,
                Seen::DeletedOnly => self.deleted.contains(v),
            })
            .collect()
    }

    pub(crate) fn live(&self) -> Vec<u32> {
        self.seen(Seen::Live)
    }
}

/// The history of `subject` in the server's namespace.
pub(crate) async fn history(state: &AppState, subject: &Subject) -> Result<History, ApiError> {
    let namespace = state.namespace().to_owned();
    let name = subject.name.clone();
    state
        .blocking(move |registry| History::read(registry, &namespace, &name))
        .await
        .map_err(from_error)
}

/// `GET /subjects`: the subjects held in the server's namespace (with a
/// live version; `deleted=true` also those all of whose versions are
/// soft-deleted, `deletedOnly=true` those alone).
pub(crate) async fn subjects(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Reply {
    let query = Query::parse(raw.as_deref());
    let seen = Seen::of(&query)?;
    let prefix = query.get("subjectPrefix").unwrap_or("").to_owned();
    let namespace = state.namespace().to_owned();
    let subjects = state
        .blocking(move |registry| {
            let mut subjects = Vec::new();
            for (subject, name) in subject_names(registry, &namespace)? {
                if !subject.starts_with(&prefix) {
                    continue;
                }
                let history = History::read(registry, &namespace, &name)?;
                let live = !history.live().is_empty();
                let keep = match seen {
                    Seen::Live => live,
                    Seen::All => true,
                    Seen::DeletedOnly => !live,
                };
                if keep {
                    subjects.push(subject);
                }
            }
            subjects.sort();
            Ok(subjects)
        })
        .await
        .map_err(from_error)?;
    Ok(ok(&Value::from(query.page(subjects)?)))
}

/// `GET /subjects/{s}/versions`.
pub(crate) async fn versions(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Reply {
    let subject = subject(path)?;
    let query = Query::parse(raw.as_deref());
    let seen = Seen::of(&query)?;
    let history = history(&state, &subject).await?;
    let versions = history.seen(seen);
    if history.all.is_empty() || (seen == Seen::Live && versions.is_empty()) {
        return Err(subject_not_found(&subject.text));
    }
    Ok(ok(&Value::from(query.page(versions)?)))
}

/// The version a route names, among those `seen` sees: `latest` is the
/// newest, a number one of them (40402 when it is not); when `seen` sees
/// no version at all, the subject is not found (40401), so a version of a
/// subject whose every version is soft-deleted is 40401 without
/// `deleted=true`, as Confluent's `getSchemaByVersion` answers
/// (`SubjectVersionsResource.java`, v8.2.0: a version not found is 40401
/// when `hasSubjects(subject, lookupDeletedSchema)` is false).
pub(crate) fn pick(
    history: &History,
    subject: &Subject,
    which: Which,
    seen: Seen,
) -> Result<u32, ApiError> {
    let versions = history.seen(seen);
    match which {
        Which::Latest => versions
            .last()
            .copied()
            .ok_or_else(|| subject_not_found(&subject.text)),
        Which::Exact(v) if versions.contains(&v) => Ok(v),
        Which::Exact(_) if versions.is_empty() => Err(subject_not_found(&subject.text)),
        Which::Exact(v) => Err(version_not_found(&subject.text, v)),
    }
}

/// The cached entry of a subject's version.
pub(crate) async fn find_version(
    state: &AppState,
    subject: &Subject,
    version: &str,
    seen: Seen,
) -> Result<Arc<UrnEntry>, ApiError> {
    let which = which(version)?;
    let history = history(state, subject).await?;
    let number = pick(&history, subject, which, seen)?;
    let urn = urn(state, subject, number)?;
    state.urn_entry(urn).await.map_err(|err| match err {
        Error::NotFound { .. } => version_not_found(&subject.text, number),
        err => from_error(err),
    })
}

/// `GET /subjects/{s}/versions/{v}` (`deleted=true`: a soft-deleted
/// version too; `?format=serialized`: a protobuf schema as base64 of its
/// `FileDescriptorProto`).
pub(crate) async fn version(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let query = Query::parse(raw_query.as_deref());
    let seen = Seen::of(&query)?;
    let entry = find_version(&state, &subject, &version, seen).await?;
    let format = Format::of(&query);
    if !format.is_default() {
        let (schema, cached) = (entry.schema.clone(), entry.version_json.clone());
        let answer = state
            .blocking(move |registry| format.reformat(registry, &schema, &cached))
            .await
            .map_err(from_error)?;
        if let Some(answer) = answer {
            return Ok(ok(&answer));
        }
    }
    Ok(raw(entry.version_json.clone()))
}

/// `GET /subjects/{s}/versions/{v}/schema`: the schema string raw (in the
/// `?format` asked for).
pub(crate) async fn version_schema(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let query = Query::parse(raw_query.as_deref());
    let seen = Seen::of(&query)?;
    let entry = find_version(&state, &subject, &version, seen).await?;
    let format = Format::of(&query);
    if !format.is_default() {
        let schema = entry.schema.clone();
        let text = state
            .blocking(move |registry| format.text(registry, &schema))
            .await
            .map_err(from_error)?;
        if let Some(text) = text {
            return Ok(raw(Bytes::from(text)));
        }
    }
    Ok(raw(entry.text.clone()))
}

/// What a registration ended in.
enum Registration {
    /// Stored, or found held: the subject's version, its schema, its id.
    Done {
        version: u32,
        schema: Schema,
        id: SchemaId,
    },
    /// Refused by the registry's mode or the request's own terms.
    Refused(ApiError),
}

/// Whether two protobuf schemas compile to the same files (feature
/// `proto-text`; without it, no protobuf registration is taken).
fn same_protobuf(registry: &Registry, held: &Schema, sent: &Schema) -> bool {
    #[cfg(feature = "proto-text")]
    {
        super::protobuf::same_files(registry, held, sent)
    }
    #[cfg(not(feature = "proto-text"))]
    {
        let _ = (registry, held, sent);
        false
    }
}

/// How a held version was found equal to a registration: by its text
/// (or canonical JSON), or, for protobuf, by its compiled files (whose
/// references then need not be the same ones: they resolve to the same
/// files).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Identity {
    Text,
    Files,
}

/// The version of `history` (among `versions`, newest first) holding a
/// schema whose canonical form is `form`, with the id `id` when one is
/// given, and whose references, metadata and rule set `contract` accepts.
// Each argument is one term of the lookup (a register's, a lookup's).
#[allow(clippy::too_many_arguments)]
fn same_canonical(
    registry: &Registry,
    template: &Urn,
    language: Language,
    versions: &[u32],
    form: &str,
    normalize: bool,
    id: Option<SchemaId>,
    candidate: &Schema,
    contract: &dyn Fn(&Schema, Identity) -> bool,
) -> Result<Option<(u32, Schema, SchemaId)>, Error> {
    for &version in versions.iter().rev() {
        let urn = template.with_version(version)?;
        let held = registry.resolve(&urn)?;
        if held.language() != language {
            continue;
        }
        // A descriptor set (a protobuf schema published natively) is no
        // text: only its compiled files can equal a registration.
        let text = std::str::from_utf8(held.bytes()).unwrap_or("");
        // A text that is no JSON (`.proto`) is compared as it is. A held
        // JSON Schema is compared by its canonical form as it was stored,
        // never normalized again: Confluent's `canLookup` compares the
        // candidate (normalized, with `normalize=true`) with the held
        // schema as parsed (`JsonSchema.equals` on `canonicalString()`,
        // `AbstractSchemaRegistry.lookUpSchemaUnderSubject`, v8.2.0), so a
        // version registered without `normalize` is no match for its
        // keys sorted. An Avro schema is compared by its structure there
        // (`AvroSchema.equivalent`), which its normalized form keeps.
        let held_form = match language {
            Language::JsonSchema => canonical(text, false).ok(),
            _ => canonical(text, normalize).ok(),
        };
        let same = text == form
            || held_form.as_deref() == Some(form)
            || (normalize && normalizes_to(registry, &held, form));
        let identity = if same {
            Identity::Text
        } else if same_protobuf(registry, &held, candidate) {
            Identity::Files
        } else {
            continue;
        };
        if !contract(&held, identity) {
            continue;
        }
        let held_id = registry.id_of(&urn)?;
        if id.is_none_or(|id| id == held_id) {
            return Ok(Some((version, held, held_id)));
        }
    }
    Ok(None)
}

/// Whether `held`, an Avro version registered without `normalize=true`,
/// normalized is `form`.
fn normalizes_to(registry: &Registry, held: &Schema, form: &str) -> bool {
    #[cfg(feature = "avro")]
    if held.language() == Language::Avro {
        return dataschema_core::avsc::normalize(held, registry)
            .is_ok_and(|normalized| normalized.bytes() == form.as_bytes());
    }
    let _ = (registry, held, form);
    false
}

/// `POST /subjects/{s}/versions`: registers the schema as the subject's
/// next version, stored in its canonical form; a schema equal to a live
/// version after canonicalization answers that version. In import mode
/// the `id` (and `version`) sent are kept.
pub(crate) async fn register(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let query = Query::parse(raw_query.as_deref());
    let normalize = query.flag("normalize", false)?;
    let format = Format::of(&query);
    let registered = register_sent(&state, &subject, body, normalize, format).await?;
    Ok(ok(&registered_json(
        registered.id,
        &subject.text,
        registered.version,
        &registered.schema,
        registered.view.as_ref(),
    )))
}

/// What a registration stored (or found held): the version, its schema
/// and id, and the protobuf view `format` asked for.
pub(crate) struct Registered {
    pub(crate) version: u32,
    pub(crate) schema: Schema,
    pub(crate) id: SchemaId,
    pub(crate) view: Option<crate::server::wire::confluent::ProtoView>,
}

/// Registers the schema a register body sends under `subject`, as
/// `POST /subjects/{s}/versions` does (the association routes register
/// the schemas their requests carry through it too).
pub(crate) async fn register_sent(
    state: &AppState,
    subject: &Subject,
    body: Result<Bytes, BytesRejection>,
    normalize: bool,
    format: Format,
) -> Result<Registered, ApiError> {
    let (candidate, contract) = candidate_with_contract(state, subject, 1, body, Some(normalize))?;
    let namespace = state.namespace().to_owned();
    let who = subject.clone();
    let (registration, view) = state
        .blocking(move |registry| {
            let schema = match contracts::completed(
                registry,
                &namespace,
                &who.name,
                candidate.schema,
                &contract,
            ) {
                Ok(schema) => schema,
                Err(refused) => return Ok((Registration::Refused(refused.into_api()), None)),
            };
            // Normalized once its references are resolved (a protobuf
            // schema compiles with them).
            let schema = normalized(registry, schema, normalize)?;
            let registration = register_in(
                registry,
                &namespace,
                &who,
                schema,
                candidate.given,
                normalize,
            )?;
            let view = match &registration {
                Registration::Done { schema, .. } => format.view(registry, &namespace, schema)?,
                Registration::Refused(_) => None,
            };
            Ok((registration, view))
        })
        .await
        .map_err(|err| registration_error(err, subject))?;
    match registration {
        Registration::Refused(err) => Err(err),
        Registration::Done {
            version,
            schema,
            id,
        } => Ok(Registered {
            version,
            schema,
            id,
            view,
        }),
    }
}

/// A registry error of a registration, as Confluent says it.
fn registration_error(err: Error, subject: &Subject) -> ApiError {
    match &err {
        Error::IdConflict { id, other, .. } => not_permitted(format!(
            "Overwrite new schema with id {id} is not permitted: the id is held by other \
             bytes, or the version by another id ({other}); an id never moves to other bytes"
        )),
        Error::Incompatible { report, .. } => ApiError::new(
            ErrorCode::Conflict,
            format!(
                "Schema being registered is incompatible with an earlier schema for subject \
                 '{}': {report}",
                subject.text
            ),
        ),
        _ => from_error(err),
    }
}

fn register_in(
    registry: &Registry,
    namespace: &str,
    subject: &Subject,
    schema: Schema,
    given: super::candidate::Given,
    normalize: bool,
) -> Result<Registration, Error> {
    // The registry's mode rules, before anything is looked up (a held
    // schema is not answered either in a read-only subject, as in
    // Confluent, whose `register` checks the mode first).
    registry.writable(schema.urn(), given.id)?;
    let history = History::read(registry, namespace, &subject.name)?;
    let form = String::from_utf8_lossy(schema.bytes()).into_owned();
    if given.version.is_none() {
        if let Some((version, held, id)) = same_canonical(
            registry,
            schema.urn(),
            schema.language(),
            &history.live(),
            &form,
            normalize,
            given.id,
            &schema,
            &|held, identity| {
                (identity == Identity::Files || held.references() == schema.references())
                    && held.metadata() == schema.metadata()
                    && held.rule_set() == schema.rule_set()
            },
        )? {
            return Ok(Registration::Done {
                version,
                schema: held,
                id,
            });
        }
    }
    let next = history.all.last().map_or(1, |v| v.saturating_add(1));
    let stored = match (given.id, given.version) {
        (Some(id), Some(version)) => {
            let schema = at_version(&schema, version)?;
            registry.import(schema, Version::Exact, id)?
        }
        (Some(id), None) => registry.import(schema, Version::Next, id)?,
        (None, Some(version)) if version != next => {
            return Ok(Registration::Refused(invalid_schema(format!(
                "Version {version} is not one more than the previous version ({})",
                next - 1
            ))));
        }
        (None, _) => registry.register(schema, Version::Next, None)?,
    };
    let held = registry.resolve(&stored.urn)?;
    Ok(Registration::Done {
        version: stored.urn.version(),
        schema: held,
        id: stored.id,
    })
}

/// `schema` under its URN's name at `version`.
fn at_version(schema: &Schema, version: u32) -> Result<Schema, Error> {
    Ok(schema.with_urn(schema.urn().with_version(version)?))
}

/// `POST /subjects/{s}`: the newest live version of the subject (with
/// `deleted=true`, any version) whose schema equals the one sent after
/// canonicalization (`normalize=true`: keys sorted too). A schema that is
/// not usable is 42201.
pub(crate) async fn lookup(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let subject = subject(path)?;
    let query = Query::parse(raw_query.as_deref());
    let normalize = query.flag("normalize", false)?;
    let format = Format::of(&query);
    let seen = if query.flag("deleted", false)? {
        Seen::All
    } else {
        Seen::Live
    };
    let found = lookup_sent(&state, &subject, body, normalize, format, seen).await?;
    Ok(ok(&schema_json(
        &found.schema,
        found.id,
        found.view.as_ref(),
    )))
}

/// Finds the version of `subject` (among those `seen` sees) whose schema
/// equals the one a register body sends, as `POST /subjects/{s}` does:
/// 40401 for a subject with no such version, 40403 for none equal, 42201
/// for a schema that is not usable. (Its `version` is its URN's.)
pub(crate) async fn lookup_sent(
    state: &AppState,
    subject: &Subject,
    body: Result<Bytes, BytesRejection>,
    normalize: bool,
    format: Format,
    seen: Seen,
) -> Result<Registered, ApiError> {
    let (candidate, contract) = candidate_with_contract(state, subject, 1, body, Some(normalize))?;
    let candidate = candidate.schema;
    let namespace = state.namespace().to_owned();
    let name = subject.name.clone();
    let found = state
        .blocking(move |registry| {
            // The cheap refusal first: a subject holding no version (that
            // the lookup may see) answers 404 before anything is resolved
            // or compiled (anyone may ask, with a body of the size cap).
            let history = History::read(registry, &namespace, &name)?;
            let versions = history.seen(seen);
            if versions.is_empty() {
                return Ok(Ok(None));
            }
            let candidate = match contracts::resolved(registry, &namespace, candidate, &contract) {
                Ok(candidate) => candidate,
                Err(refused) => return Ok(Err(refused.into_api())),
            };
            let candidate = normalized(registry, candidate, normalize)?;
            let form = String::from_utf8_lossy(candidate.bytes()).into_owned();
            let found = same_canonical(
                registry,
                candidate.urn(),
                candidate.language(),
                &versions,
                &form,
                normalize,
                None,
                &candidate,
                &|held, identity| same_contract(held, &candidate, identity),
            )?;
            let unusable = match found {
                Some(_) => None,
                None => registry.check_compiles(&candidate).err(),
            };
            let view = match &found {
                Some((_, held, _)) => format.view(registry, &namespace, held)?,
                None => None,
            };
            Ok(Ok(Some((found, unusable, view))))
        })
        .await
        .map_err(from_error)??;
    let Some((found, unusable, view)) = found else {
        return Err(subject_not_found(&subject.text));
    };
    if let Some(err) = unusable {
        return Err(invalid_schema(format!("Invalid schema: {}", err.chain())));
    }
    match found {
        Some((version, schema, id)) => Ok(Registered {
            version,
            schema,
            id,
            view,
        }),
        None => Err(ApiError::new(
            ErrorCode::SchemaNotFound,
            format!("Schema not found under subject '{}'.", subject.text),
        )),
    }
}

/// The refusal of `permanent=true`.
fn permanent_refused() -> ApiError {
    not_permitted(
        "a permanent delete is refused: this registry keeps every schema for ever, because a \
         stored message may name it by its id or its URN; a soft delete (without \
         permanent=true) hides a version from its subject",
    )
}

/// Soft-deletes `versions` of `subject`, refused in a read-only mode.
async fn soft_delete(
    state: &AppState,
    subject: &Subject,
    versions: Vec<u32>,
) -> Result<(), ApiError> {
    let urns = versions
        .iter()
        .map(|&v| urn(state, subject, v))
        .collect::<Result<Vec<Urn>, ApiError>>()?;
    // A read-only subject deletes nothing: `Registry::delete_versions`.
    state
        .blocking(move |registry| registry.delete_versions(&urns))
        .await
        .map_err(from_error)
}

/// `DELETE /subjects/{s}`: soft-deletes every live version, answering
/// them; `permanent=true` is refused (42205).
pub(crate) async fn delete_subject(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let subject = subject(path)?;
    if Query::parse(raw_query.as_deref()).flag("permanent", false)? {
        return Err(permanent_refused());
    }
    let history = history(&state, &subject).await?;
    if history.all.is_empty() {
        return Err(subject_not_found(&subject.text));
    }
    let live = history.live();
    if live.is_empty() {
        return Err(ApiError::new(
            ErrorCode::SubjectSoftDeleted,
            format!(
                "Subject '{}' was soft deleted. Set permanent=true to delete permanently",
                subject.text
            ),
        ));
    }
    // Confluent refuses while associations name the subject
    // (`deleteSubject`, `KafkaSchemaRegistry.java`, v8.2.0): 40904.
    if let Some(refusal) =
        super::delete_guard::delete_refusal(&state, &subject, true, false).await?
    {
        return Err(refusal);
    }
    soft_delete(&state, &subject, live.clone()).await?;
    Ok(ok(&Value::from(live)))
}

/// `DELETE /subjects/{s}/versions/{v}`: soft-deletes the version,
/// answering its number; `permanent=true` is refused (42205).
pub(crate) async fn delete_version(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let which = which(&version)?;
    if Query::parse(raw_query.as_deref()).flag("permanent", false)? {
        return Err(permanent_refused());
    }
    let history = history(&state, &subject).await?;
    if let Which::Exact(v) = which {
        // Confluent's `validateDeleteSchemaVersion` looks among every
        // version, soft-deleted ones too (`AbstractSchemaRegistry.java`,
        // v8.2.0): a version not held of a subject held is 40402.
        if !history.all.contains(&v) {
            return Err(if history.all.is_empty() {
                subject_not_found(&subject.text)
            } else {
                version_not_found(&subject.text, v)
            });
        }
        if history.deleted.contains(&v) {
            return Err(ApiError::new(
                ErrorCode::VersionSoftDeleted,
                format!(
                    "Subject '{}' Version {v} was soft deleted. Set permanent=true to delete \
                     permanently",
                    subject.text
                ),
            ));
        }
    }
    let number = pick(&history, &subject, which, Seen::Live)?;
    // An associated subject keeps a live version (`deleteSchemaVersion`,
    // `KafkaSchemaRegistry.java`, v8.2.0: `NoActiveSubjectVersionExists`,
    // 40907; Confluent's resource lets that exception through as a 500,
    // this server answers its own code).
    let remaining = history.live().iter().any(|&v| v != number);
    if let Some(refusal) =
        super::delete_guard::delete_refusal(&state, &subject, false, remaining).await?
    {
        return Err(refusal);
    }
    soft_delete(&state, &subject, vec![number]).await?;
    Ok(ok(&Value::from(number)))
}

/// The subjects of the URN names held in `namespace`, each with its name
/// (a name that writes no subject, published natively, is left out).
fn subject_names(registry: &Registry, namespace: &str) -> Result<Vec<(String, String)>, Error> {
    let mut names: Vec<String> = registry
        .list()?
        .iter()
        .filter(|urn| urn.namespace() == namespace)
        .map(|urn| urn.name().to_owned())
        .collect();
    names.dedup();
    Ok(names
        .into_iter()
        .filter_map(|name| crate::subject::subject_of(&name).map(|subject| (subject, name)))
        .collect())
}

/// Every live subject version of the namespace, by subject (`GET
/// /schemas`, `/contexts`): subject, its URN name, its versions seen.
pub(crate) fn every_subject(
    registry: &Registry,
    namespace: &str,
    seen: Seen,
) -> Result<BTreeMap<String, (String, Vec<u32>)>, Error> {
    let mut subjects = BTreeMap::new();
    for (subject, name) in subject_names(registry, namespace)? {
        let versions = History::read(registry, namespace, &name)?.seen(seen);
        if !versions.is_empty() {
            subjects.insert(subject, (name, versions));
        }
    }
    Ok(subjects)
}

/// Whether `held` carries the contract a lookup sent: the same
/// references, and, when the lookup sent metadata or a rule set, the same
/// ones (a lookup without them matches any, as Confluent's does).
fn same_contract(held: &Schema, sent: &Schema, identity: Identity) -> bool {
    (identity == Identity::Files || held.references() == sent.references())
        && sent.metadata().is_none_or(|m| held.metadata() == Some(m))
        && sent.rule_set().is_none_or(|r| held.rule_set() == Some(r))
}

/// `schema` as `normalize=true` registers it: a protobuf schema registered
/// as Confluent's clients do, its text normalized
/// (`dataschema::proto::normalize`); an Avro schema in Confluent's
/// normalized form (`dataschema::avsc::normalize`); anything else as it is.
fn normalized(registry: &Registry, schema: Schema, normalize: bool) -> Result<Schema, Error> {
    #[cfg(feature = "avro")]
    if normalize && schema.language() == Language::Avro {
        return dataschema_core::avsc::normalize(&schema, registry);
    }
    #[cfg(feature = "proto-text")]
    if normalize {
        return dataschema_core::proto::normalize(&schema, registry);
    }
    let _ = (registry, normalize);
    Ok(schema)
}
