//! The Confluent Schema Registry API as a fallback: the subject of a URN
//! name ([`crate::subject`]), version = URN version; JSON Schema, Avro, and
//! protobuf as Confluent answers it (`.proto` text and references: a
//! schema without a root).

use dataschema_core::{Language, Metadata, Reference, RuleSet, Schema, Urn};

use super::get::get;
use super::policy::{Fetched, Miss};
use crate::protocol::{content_type, Client};

/// `GET /subjects/{name}/versions/{version}`, checked to name them (and
/// `id`, when given).
pub(crate) fn version(client: &Client, urn: &Urn, id: Option<u32>) -> Fetched {
    let subject = crate::subject::subject_of(urn.name()).unwrap_or_else(|| urn.name().to_owned());
    let path = format!(
        "/subjects/{}/versions/{}",
        crate::subject::path_segment(&subject),
        urn.version()
    );
    let answer = get(client, &path, content_type::CONFLUENT_JSON)?;
    let nonsense = |why: &str| Miss::Transient(format!("GET {path}: {why}"));
    let value: serde_json::Value =
        serde_json::from_slice(answer.body()).map_err(|_| nonsense("the body is not JSON"))?;
    if value["subject"].as_str() != Some(subject.as_str())
        || value["version"].as_u64() != Some(u64::from(urn.version()))
    {
        return Err(nonsense("the answer names another subject or version"));
    }
    let answered = value["id"]
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .ok_or_else(|| nonsense("no id"))?;
    if id.is_some_and(|id| id != answered) {
        return Err(nonsense("the answer has another id"));
    }
    let text = value["schema"]
        .as_str()
        .ok_or_else(|| nonsense("no schema"))?;
    // Confluent leaves `schemaType` out for Avro, its default.
    let language =
        match value["schemaType"].as_str() {
            Some("JSON") => Language::JsonSchema,
            None | Some("AVRO") => Language::Avro,
            // A schema without a root: its text, its imports by reference.
            Some("PROTOBUF") => Language::Protobuf,
            Some(_) => return Err(nonsense(
                "only JSON Schema, Avro and protobuf schemas are read from a Confluent registry",
            )),
        };
    // The version's references, each a subject version in the URN's
    // namespace: the guard's compile follows them as it follows a `$ref`
    // by URN (asking this resolver for them).
    let mut references = Vec::new();
    for reference in value["references"].as_array().into_iter().flatten() {
        let name = reference["name"].as_str();
        let target = reference["subject"]
            .as_str()
            .zip(reference["version"].as_u64())
            .and_then(|(subject, version)| reference_urn(urn, subject, version));
        match (name, target) {
            (Some(name), Some(target)) => {
                // A name stands for one schema: given for two, the
                // schema's references would keep one and drop the other
                // silently (the server refuses such a registration, 42201).
                let twice = references
                    .iter()
                    .any(|held: &Reference| held.name() == name && *held.urn() != target);
                if twice {
                    return Err(nonsense("a reference name stands for two schemas"));
                }
                references.push(Reference::new(name, target));
            }
            _ => return Err(nonsense("a reference is not a name, subject and version")),
        }
    }
    let (metadata, rule_set) = contract(&value).map_err(|why| nonsense(&why))?;
    Ok((
        Schema::new(urn.clone(), language, text.as_bytes().to_vec(), None)
            .with_references(references)
            .with_metadata(metadata)
            .with_rule_set(rule_set),
        Some(answered),
    ))
}

/// The version's data contract as the answer carries it: `metadata` and
/// `ruleSet`, which a guard enforces as it enforces a bundled version's.
/// Confluent's `GET /subjects/{s}/versions/{v}` answers them (its
/// `Schema` entity), and so does `GET /schemas/ids/{id}` (its
/// `SchemaString`, copying both since v7.4.0, `client/.../rest/entities/
/// SchemaString.java` in confluentinc/schema-registry); the
/// registry merged the subject's `defaultRuleSet` and `overrideRuleSet`
/// (and metadata) into them at registration
/// (`AbstractSchemaRegistry.register` there, and
/// `server::confluent::contracts` here), so the answer is the contract in
/// force. `null` or absent is no contract; anything else malformed is
/// refused, never dropped: a guard that silently lost a rule would
/// accept what the registry's own clients refuse.
fn contract(value: &serde_json::Value) -> Result<(Option<Metadata>, Option<RuleSet>), String> {
    let metadata = match &value["metadata"] {
        serde_json::Value::Null => None,
        metadata => Some(Metadata::from_json(metadata)?),
    };
    let rule_set = match &value["ruleSet"] {
        serde_json::Value::Null => None,
        rule_set => Some(RuleSet::from_json(rule_set)?),
    };
    Ok((metadata, rule_set))
}

/// The URN a reference's subject version stands for, in `urn`'s namespace
/// (the subject mapped to its URN name, [`crate::subject::name_of`]).
fn reference_urn(urn: &Urn, subject: &str, version: u64) -> Option<Urn> {
    let name = crate::subject::name_of(subject).ok()?;
    Urn::new(urn.namespace(), &name, u32::try_from(version).ok()?).ok()
}

/// `GET /schemas/ids/{id}/versions`, then the first subject version it
/// names (in `namespace`).
pub(crate) fn id(client: &Client, namespace: &str, id: u32) -> Fetched {
    let path = format!("/schemas/ids/{id}/versions");
    let answer = get(client, &path, content_type::CONFLUENT_JSON)?;
    let nonsense = |why: &str| Miss::Transient(format!("GET {path}: {why}"));
    let value: serde_json::Value =
        serde_json::from_slice(answer.body()).map_err(|_| nonsense("the body is not JSON"))?;
    let first = value
        .as_array()
        .and_then(|pairs| pairs.first())
        .ok_or_else(|| nonsense("no subject version"))?;
    let subject = first["subject"]
        .as_str()
        .ok_or_else(|| nonsense("no subject"))?;
    let number = first["version"]
        .as_u64()
        .ok_or_else(|| nonsense("no version"))?;
    let name =
        crate::subject::name_of(subject).map_err(|_| nonsense("the subject has no URN name"))?;
    let number = u32::try_from(number).map_err(|_| nonsense("the version is no URN version"))?;
    let urn = Urn::new(namespace, &name, number)
        .map_err(|_| nonsense("the subject version is no URN"))?;
    version(client, &urn, Some(id))
}
