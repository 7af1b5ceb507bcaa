//! References and data contracts on the Confluent API: what a register
//! sends beside its schema (`references`, `metadata`, `ruleSet`), how it
//! is completed (references resolved to URNs, metadata and rule set
//! inherited from the previous version and merged with the config's),
//! and the routes that read them: `GET /subjects/{s}/metadata`,
//! `GET /schemas/guids/{guid}`, `GET /subjects/{s}/versions/{v}/referencedby`.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use serde_json::Value;

use super::error::{from_error, invalid_schema, subject_not_found, ApiError, ErrorCode, Reply};
use super::format::Format;
use super::request::{subject, subject_version, urn, which, Which};
use crate::registry::Registry;
use crate::server::query::Query;
use crate::server::state::AppState;
use crate::server::wire::confluent::{ok, raw, schema_json};
use dataschema_core::contract::CONFLUENT_VERSION;
use dataschema_core::{clip, Error, Metadata, Reference, RuleSet, Schema, Urn};

/// A reference a request sends: `name` stands for `subject`'s `version`
/// (`-1`: its latest).
struct Requested {
    name: String,
    subject: String,
    version: i64,
}

/// What a register, lookup or compatibility test sends beside the schema.
pub(crate) struct Contract {
    references: Vec<Requested>,
    /// `None`: not sent (or `null`), so a register inherits it.
    metadata: Option<Metadata>,
    rule_set: Option<RuleSet>,
}

/// The members of a request body that make its contract, as sent: each
/// `None` when absent or `null`.
#[derive(Default)]
pub(crate) struct Sent {
    /// `references`.
    pub(crate) references: Option<Value>,
    /// `metadata`.
    pub(crate) metadata: Option<Value>,
    /// `ruleSet`.
    pub(crate) rule_set: Option<Value>,
}

/// The references, metadata and rule set a request body sends (read with
/// the schema, by [`candidate_with_contract`](super::candidate::candidate_with_contract));
/// 42201 for one of the wrong shape.
pub(crate) fn requested(sent: &Sent) -> Result<Contract, ApiError> {
    let mut references = Vec::new();
    if let Some(list) = &sent.references {
        let list = list
            .as_array()
            .ok_or_else(|| invalid_schema("references is not an array"))?;
        for (i, reference) in list.iter().enumerate() {
            let name = reference.get("name").and_then(Value::as_str);
            let subject = reference.get("subject").and_then(Value::as_str);
            let version = reference.get("version").and_then(Value::as_i64);
            match (name, subject, version) {
                (Some(name), Some(subject), Some(version))
                    if !name.is_empty() && (version == -1 || version >= 1) =>
                {
                    references.push(Requested {
                        name: name.to_owned(),
                        subject: subject.to_owned(),
                        version,
                    })
                }
                _ => {
                    return Err(invalid_schema(format!(
                        "references[{i}] is not a reference: expected {{\"name\": a non-empty \
                         string, \"subject\": a string, \"version\": a version number or -1}}"
                    )))
                }
            }
        }
    }
    let metadata = sent
        .metadata
        .as_ref()
        .map(Metadata::from_json)
        .transpose()
        .map_err(|why| invalid_schema(format!("Invalid metadata: {why}")))?;
    let rule_set = sent
        .rule_set
        .as_ref()
        .map(RuleSet::from_json)
        .transpose()
        .map_err(|why| invalid_schema(format!("Invalid rule set: {why}")))?;
    Ok(Contract {
        references,
        metadata,
        rule_set,
    })
}

impl Contract {
    /// The references as `normalize=true` takes them: sorted by subject,
    /// then version, and each once (Confluent's `normalize()` of every
    /// schema type: `references.stream().sorted().distinct()`, with
    /// `SchemaReference.compareTo` by subject then version, v8.2.0).
    pub(crate) fn normalize_references(&mut self) {
        self.references
            .sort_by(|a, b| a.subject.cmp(&b.subject).then(a.version.cmp(&b.version)));
        let mut seen = Vec::with_capacity(self.references.len());
        self.references.retain(|reference| {
            let key = (
                reference.name.clone(),
                reference.subject.clone(),
                reference.version,
            );
            if seen.contains(&key) {
                false
            } else {
                seen.push(key);
                true
            }
        });
    }
}

/// Why a contract cannot be completed.
pub(crate) enum Refused {
    /// The request's fault (a reference to nothing): 42201.
    Request(ApiError),
    /// The registry's.
    Registry(Error),
}

impl From<Error> for Refused {
    fn from(err: Error) -> Refused {
        Refused::Registry(err)
    }
}

impl Refused {
    /// As a Confluent refusal.
    pub(crate) fn into_api(self) -> ApiError {
        match self {
            Refused::Request(err) => err,
            Refused::Registry(err) => from_error(err),
        }
    }
}

/// `schema` with the request's references resolved to URNs (each must
/// name a version held: 42201 otherwise, as Confluent refuses a reference
/// it cannot resolve), and its metadata and rule set as sent. What a
/// lookup and a compatibility test compare.
pub(crate) fn resolved(
    registry: &Registry,
    namespace: &str,
    schema: Schema,
    contract: &Contract,
) -> Result<Schema, Refused> {
    // A name stands for one schema: the same name for two (one of which a
    // schema's references would silently drop) is refused.
    for (i, reference) in contract.references.iter().enumerate() {
        let twice = contract.references[..i].iter().find(|earlier| {
            earlier.name == reference.name
                && (earlier.subject != reference.subject || earlier.version != reference.version)
        });
        if let Some(earlier) = twice {
            return Err(Refused::Request(invalid_schema(format!(
                "Invalid schema: the reference name {:?} stands for subject {:?} version {} and \
                 for subject {:?} version {}: a name names one schema",
                clip(&reference.name, 100),
                clip(&earlier.subject, 100),
                earlier.version,
                clip(&reference.subject, 100),
                reference.version
            ))));
        }
    }
    let mut references = Vec::with_capacity(contract.references.len());
    for reference in &contract.references {
        let missing = || {
            Refused::Request(invalid_schema(format!(
                "Invalid schema: the reference {:?} names subject {:?} version {}, which is \
                 not registered",
                clip(&reference.name, 100),
                clip(&reference.subject, 100),
                reference.version
            )))
        };
        // The subject as its URN name (`crate::subject`): a subject that
        // maps to none names nothing held.
        let Ok(name) = crate::subject::name_of(&reference.subject) else {
            return Err(missing());
        };
        let versions = registry.versions_in(namespace, &name)?;
        let version = match u32::try_from(reference.version) {
            Ok(version) if versions.contains(&version) => version,
            // The latest live version: a soft-deleted one is out of the
            // subject's sight, as Confluent's `replaceLatestVersion`
            // reads it (`getByVersion(subject, -1, false)`,
            // `AbstractSchemaProvider.java`, v8.2.0).
            _ if reference.version == -1 => {
                let deleted = registry.deleted_versions(namespace, &name)?;
                *versions
                    .iter()
                    .rev()
                    .find(|version| !deleted.contains(version))
                    .ok_or_else(missing)?
            }
            _ => return Err(missing()),
        };
        let urn = Urn::new(namespace, &name, version).map_err(|_| missing())?;
        references.push(Reference::new(reference.name.as_str(), urn));
    }
    Ok(schema
        .with_references(references)
        .with_metadata(contract.metadata.clone())
        .with_rule_set(contract.rule_set.clone()))
}

/// What a register stores: [`resolved`], then Confluent's completion of
/// the metadata and rule set (`maybeSetMetadataRuleSet`): the request's
/// own, or else the previous version's (the subject's latest); the
/// config's `defaultMetadata` below and `overrideMetadata` above it (the
/// same for rule sets); and, when the result has a `confluent:version`
/// property, that property set to the version it is registered as.
///
/// When a version of the subject holds the same schema once
/// `confluent:version` is set aside, that version is answered instead
/// (Confluent's register finds it the same way), so registering a schema
/// again stays idempotent.
pub(crate) fn completed(
    registry: &Registry,
    namespace: &str,
    subject: &str,
    schema: Schema,
    contract: &Contract,
) -> Result<Schema, Refused> {
    let schema = resolved(registry, namespace, schema, contract)?;
    // In import mode a version is kept as sent (Confluent completes none).
    if registry.config().mode_in_effect(subject)? == crate::store::Mode::Import {
        return Ok(schema);
    }
    let all = registry.versions_in(namespace, subject)?;
    // The previous version is the latest not soft-deleted.
    let deleted = registry.deleted_versions(namespace, subject)?;
    let versions: Vec<u32> = all
        .iter()
        .copied()
        .filter(|version| !deleted.contains(version))
        .collect();
    let held: Vec<Schema> = versions
        .iter()
        .map(|&version| registry.resolve(&schema.urn().with_version(version)?))
        .collect::<Result<_, Error>>()?;
    let previous = held.last();
    let settings = registry.config().settings_in_effect(subject)?;
    let specific = contract
        .metadata
        .as_ref()
        .or_else(|| previous.and_then(Schema::metadata));
    let metadata = Metadata::merge(
        Metadata::merge(settings.default_metadata.as_ref(), specific).as_ref(),
        settings.override_metadata.as_ref(),
    );
    let specific = contract
        .rule_set
        .as_ref()
        .or_else(|| previous.and_then(Schema::rule_set));
    let rule_set = RuleSet::merge(
        RuleSet::merge(settings.default_rule_set.as_ref(), specific).as_ref(),
        settings.override_rule_set.as_ref(),
    );
    let mut schema = schema.with_metadata(metadata).with_rule_set(rule_set);
    if schema
        .metadata()
        .is_some_and(|m| m.property(CONFLUENT_VERSION).is_some())
    {
        if let Some(same) = held
            .iter()
            .rev()
            .find(|held| same_but_version(held, &schema))
        {
            return Ok(same.clone());
        }
        let next = all.last().map_or(1, |last| last.saturating_add(1));
        let mut metadata = schema.metadata().cloned().unwrap_or_default();
        metadata
            .properties
            .insert(CONFLUENT_VERSION.to_owned(), next.to_string());
        schema = schema.with_metadata(Some(metadata));
    }
    Ok(schema)
}

/// Whether `a` and `b` are the same version but for `confluent:version`.
fn same_but_version(a: &Schema, b: &Schema) -> bool {
    let without = |schema: &Schema| {
        schema.metadata().cloned().map(|mut metadata| {
            metadata.properties.remove(CONFLUENT_VERSION);
            metadata
        })
    };
    a.language() == b.language()
        && a.root() == b.root()
        && a.bytes() == b.bytes()
        && a.references() == b.references()
        && a.rule_set() == b.rule_set()
        && without(a).filter(|m| !m.is_empty()) == without(b).filter(|m| !m.is_empty())
}

/// `GET /subjects/{s}/metadata?key=..&value=..`: the subject's latest
/// version whose metadata has every property given (`key` and `value`
/// repeated, paired in order); 40403 when none has.
pub(crate) async fn latest_with_metadata(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let subject = subject(path)?;
    let query = Query::parse(raw_query.as_deref());
    query.flag("deleted", false)?;
    let format = Format::of(&query);
    let keys = query.all("key");
    let values = query.all("value");
    if keys.len() != values.len() {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!(
                "{} keys and {} values: each key needs its value",
                keys.len(),
                values.len()
            ),
        ));
    }
    let wanted: Vec<(String, String)> = keys
        .into_iter()
        .zip(values)
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let namespace = state.namespace().to_owned();
    let name = subject.name.clone();
    let found = state
        .blocking(move |registry| {
            let versions = registry.versions_in(&namespace, &name)?;
            if versions.is_empty() {
                return Ok(None);
            }
            for &version in versions.iter().rev() {
                let urn = Urn::new(&namespace, &name, version)?;
                let schema = registry.resolve(&urn)?;
                let matches = wanted.iter().all(|(key, value)| {
                    schema
                        .metadata()
                        .and_then(|m| m.property(key))
                        .is_some_and(|held| held == value)
                });
                if matches {
                    let id = registry.id_of(&urn)?;
                    let view = format.view(registry, &namespace, &schema)?;
                    return Ok(Some(Some((schema, id, view))));
                }
            }
            Ok(Some(None))
        })
        .await
        .map_err(from_error)?;
    match found {
        None => Err(subject_not_found(&subject.text)),
        Some(None) => Err(ApiError::new(
            ErrorCode::SchemaNotFound,
            format!(
                "Schema not found under subject '{}' with the metadata given.",
                subject.text
            ),
        )),
        Some(Some((schema, id, view))) => Ok(ok(&schema_json(&schema, id, view.as_ref()))),
    }
}

/// `GET /schemas/guids/{guid}`: the schema of that content, as
/// `GET /schemas/ids/{id}` answers it, `?format` too (40403 for a guid no
/// content has).
pub(crate) async fn by_guid(
    State(state): State<AppState>,
    Path(guid): Path<String>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let format = Format::of(&Query::parse(raw_query.as_deref()));
    let not_found = || {
        ApiError::new(
            ErrorCode::SchemaNotFound,
            format!("Schema {} not found", clip(&guid, 60)),
        )
    };
    let key = guid.clone();
    let id = state
        .blocking(move |registry| registry.id_of_guid(&key))
        .await
        .map_err(from_error)?
        .ok_or_else(not_found)?;
    let entry = state.id_entry(id).await.map_err(from_error)?;
    if !format.is_default() {
        let cached = entry.id_json.clone();
        let answer = state
            .blocking(move |registry| {
                let schema = registry.schema_by_id(id)?;
                format.reformat(registry, &schema, &cached)
            })
            .await
            .map_err(from_error)?;
        if let Some(answer) = answer {
            return Ok(ok(&answer));
        }
    }
    Ok(raw(entry.id_json.clone()))
}

/// `GET /schemas/guids/{guid}/ids`: the ids of that content, each with its
/// context, `[{"context": ".", "id": N}]`, ordered by context then id; `[]`
/// for a guid no content has (Confluent's `getIdsByGuid`,
/// `SchemasResource.java`, v8.0.0 on, `listIdsForGuid`).
pub(crate) async fn guid_ids(State(state): State<AppState>, Path(guid): Path<String>) -> Reply {
    let ids = state
        .blocking(move |registry| registry.ids_of_guid(&guid))
        .await
        .map_err(from_error)?;
    let answer: Vec<Value> = ids
        .into_iter()
        .map(|id| serde_json::json!({"context": ".", "id": id}))
        .collect();
    Ok(ok(&Value::from(answer)))
}

/// `GET /subjects/{s}/versions/{v}/referencedby`: the ids of the versions
/// whose references name this one, ascending: those with a live version
/// (`deleted=true`: soft-deleted ones too).
pub(crate) async fn referenced_by(
    State(state): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw_query): RawQuery,
) -> Reply {
    let (subject, version) = subject_version(path)?;
    let query = Query::parse(raw_query.as_deref());
    let deleted = query.flag("deleted", false)?;
    let number = match which(&version)? {
        Which::Exact(v) => Some(v),
        Which::Latest => None,
    };
    let namespace = state.namespace().to_owned();
    let target = urn(&state, &subject, number.unwrap_or(1))?;
    let text = subject.text.clone();
    let ids = state
        .blocking(move |registry| {
            let versions = registry.versions_in(&namespace, target.name())?;
            let Some(&latest) = versions.last() else {
                return Ok(Err(subject_not_found(&text)));
            };
            let target = target.with_version(number.unwrap_or(latest))?;
            if !versions.contains(&target.version()) {
                return Ok(Err(super::error::version_not_found(
                    &text,
                    target.version(),
                )));
            }
            let mut ids = Vec::new();
            for referrer in registry.referrers(&target)? {
                // Only referrers with a live version, unless `deleted=true`
                // (Confluent's `getReferencedBy(key, lookupDeletedSchema)`).
                if referrer.namespace() == namespace
                    && (deleted || registry.live_beside(&referrer, &[])?)
                {
                    ids.push(registry.id_of(&referrer)?);
                }
            }
            ids.sort_unstable();
            ids.dedup();
            Ok(Ok(ids))
        })
        .await
        .map_err(from_error)??;
    Ok(ok(&Value::from(query.page(ids)?)))
}
