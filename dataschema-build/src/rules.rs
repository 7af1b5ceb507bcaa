//! Data contracts checked at `cargo build`, past each rule compiling
//! (`Manifest::apply_rules`): each rule against its schema (a field it
//! reads that the schema lacks, tags no field carries, a metadata tag
//! path matching no field), each change of compatibility group crossed by
//! migration rules both ways, and the manifest's `[samples]` run through
//! every rule and migration of their version, so that a rule is tested
//! before it ships.

use std::collections::BTreeMap;
use std::path::Path;

use dataschema_core::rules::{self, Chain, ReadRules, RuleMode, RuleOutcome};
use dataschema_core::validate::Compiled;
use dataschema_core::{Language, Schema};

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::manifest::{stem, MANIFEST_FILE};
use crate::source::Source;

/// Every check of this module, its problems pushed to `diagnostics`.
/// `compiled` holds each source's compiled schema (`None`: it did not
/// compile, and has its own diagnostic); `groups` each version's
/// compatibility group when the manifest sets `compatibility_group`.
pub(crate) fn check(
    dir: &Path,
    samples: &BTreeMap<String, Vec<String>>,
    sources: &[Source],
    compiled: &[Option<Compiled>],
    groups: Option<&BTreeMap<String, Option<String>>>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (source, compiled) in sources.iter().zip(compiled) {
        let Some(compiled) = compiled else {
            continue;
        };
        if source.schema.rule_set().is_none() && source.schema.metadata().is_none() {
            continue;
        }
        let form = compiled.payload_form();
        for problem in rules::check_against(&source.schema, form.as_deref()) {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Rule,
                &source.path,
                format!("{}: {problem}", source.schema.urn()),
            ));
        }
    }
    if let Some(groups) = groups {
        missing_steps(sources, groups, diagnostics);
    }
    run_samples(dir, samples, sources, compiled, diagnostics);
}

/// A version whose compatibility group differs from the version before
/// it is a breaking change: when its name reads across versions through
/// migration rules (some version of it carries them), a payload read
/// across the change needs the rules of the version that made it
/// (Confluent's deserializers run the `UPGRADE` rules of the versions
/// between writer and reader, `DOWNGRADE` the other way), and without
/// them the chain has a missing step. A name without any migration rule
/// uses its groups for compatibility checks alone (a consumer reads its
/// own group), which is no problem.
fn missing_steps(
    sources: &[Source],
    groups: &BTreeMap<String, Option<String>>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    // `sources` are sorted by URN: a name's versions are adjacent, in order.
    for pair in sources.windows(2) {
        let (older, newer) = (&pair[0], &pair[1]);
        let name = newer.schema.urn().name();
        if older.schema.urn().name() != name {
            continue;
        }
        let migrates = sources.iter().any(|s| {
            s.schema.urn().name() == name
                && s.schema
                    .rule_set()
                    .is_some_and(|set| !set.migration_rules.is_empty())
        });
        if !migrates {
            continue;
        }
        let (was, is) = (groups.get(&stem(older)), groups.get(&stem(newer)));
        if was == is {
            continue;
        }
        let show = |group: Option<&Option<String>>| match group.cloned().flatten() {
            Some(value) => format!("{value:?}"),
            None => "(none)".to_owned(),
        };
        for (mode, way) in [
            (RuleMode::Upgrade, "UPGRADE"),
            (RuleMode::Downgrade, "DOWNGRADE"),
        ] {
            if rules::has_migration_rules(&newer.schema, mode) {
                continue;
            }
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Rule,
                &newer.path,
                format!(
                    "{} starts compatibility group {} ({} is in {}) but has no {way} \
                     migration rule: a payload read across the change has a missing step. \
                     Give it one (mode {way} or UPDOWN) under [rules.\"{}\"] migrationRules \
                     in {MANIFEST_FILE}",
                    newer.schema.urn(),
                    show(is),
                    older.schema.urn(),
                    show(was),
                    stem(newer),
                ),
            ));
        }
    }
}

/// `[samples]`: each sample of a version validated against it, run
/// through its read rules (conditions and transforms), and read as every
/// other version of its name through the migration rules between.
fn run_samples(
    dir: &Path,
    samples: &BTreeMap<String, Vec<String>>,
    sources: &[Source],
    compiled: &[Option<Compiled>],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let manifest = dir.join(MANIFEST_FILE);
    for (key, files) in samples {
        let Some(index) = sources.iter().position(|s| stem(s) == *key) else {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Manifest,
                &manifest,
                format!(
                    "[samples] names {key:?}, but no schema in the folder is that version \
                     (expected \"<name>.v<version>\")"
                ),
            ));
            continue;
        };
        let (source, Some(validator)) = (&sources[index], &compiled[index]) else {
            continue;
        };
        for file in files {
            let path = dir.join(file);
            let mut problem = |message: String| {
                diagnostics.push(Diagnostic::new(DiagnosticKind::Rule, &path, message));
            };
            let payload = match sample_payload(&path, &source.schema, validator) {
                Ok(payload) => payload,
                Err(why) => {
                    problem(format!("sample of {}: {why}", source.schema.urn()));
                    continue;
                }
            };
            let urn = source.schema.urn();
            if let Err(violations) = validator.validate(&payload) {
                problem(format!(
                    "the sample is not a payload of {urn}: {}",
                    first(&violations)
                ));
                continue;
            }
            let form = validator.payload_form();
            match ReadRules::compile_for(&source.schema, form.clone()) {
                Ok(Some(read)) => {
                    if let Some(why) = verdict(read.run_bytes(&payload)) {
                        problem(format!("the sample of {urn}: {why}"));
                    }
                    if let Err(outcome) = read.transform_bytes(&payload) {
                        if let Some(why) = verdict(*outcome) {
                            problem(format!("the sample of {urn}, transformed: {why}"));
                        }
                    }
                }
                Ok(None) => {}
                Err(error) => problem(format!("the rules of {urn}: {error}")),
            }
            for (reader_index, reader) in sources.iter().enumerate() {
                let ru = reader.schema.urn();
                if ru.name() != urn.name() || ru == urn {
                    continue;
                }
                let Some(reader_validator) = &compiled[reader_index] else {
                    continue;
                };
                let versions = between(sources, index, reader_index);
                let forms = match (&form, reader_validator.payload_form()) {
                    (Some(w), Some(r)) => Some((w.clone(), r)),
                    _ => None,
                };
                match rules::chain_with_forms(&versions, forms) {
                    Chain::None => {}
                    Chain::Unusable(failure) => problem(format!(
                        "the sample of {urn} read as {ru}: rule {}: {}",
                        failure.rule, failure.message
                    )),
                    Chain::Rules(migration) => match migration.migrate(&payload) {
                        Err(violations) => problem(format!(
                            "the sample of {urn} read as {ru}: {}",
                            first(&violations)
                        )),
                        Ok(out) => {
                            if let Err(violations) = reader_validator.validate(&out) {
                                problem(format!(
                                    "the sample of {urn} migrated to {ru} is not a payload of \
                                     {ru}: {}",
                                    first(&violations)
                                ));
                            }
                        }
                    },
                }
            }
        }
    }
}

/// Why an outcome fails the build, if it does.
fn verdict(outcome: RuleOutcome) -> Option<String> {
    match outcome {
        RuleOutcome::Pass { .. } => None,
        RuleOutcome::Refused(f) | RuleOutcome::Unusable(f) => Some(format!(
            "rule {} ({} {}, expr {:?}){} refuses it: {}",
            f.rule,
            f.kind.as_str(),
            f.rule_type,
            f.expr,
            if f.path.is_empty() {
                String::new()
            } else {
                format!(" at {}", f.path)
            },
            f.message
        )),
    }
}

fn first(violations: &[dataschema_core::Violation]) -> String {
    violations
        .first()
        .map_or_else(|| "refused".to_owned(), ToString::to_string)
}

/// Every version of the name from `writer` to `reader`, in that order.
fn between(sources: &[Source], writer: usize, reader: usize) -> Vec<Schema> {
    let name = sources[writer].schema.urn().name();
    let (w, r) = (
        sources[writer].schema.urn().version(),
        sources[reader].schema.urn().version(),
    );
    let (low, high) = (w.min(r), w.max(r));
    let mut versions: Vec<Schema> = sources
        .iter()
        .filter(|s| s.schema.urn().name() == name)
        .filter(|s| (low..=high).contains(&s.schema.urn().version()))
        .map(|s| s.schema.clone())
        .collect();
    versions.sort_by_key(|s| s.urn().version());
    if w > r {
        versions.reverse();
    }
    versions
}

/// A sample file as a payload: a JSON Schema's payload is the file's
/// JSON; an Avro or protobuf payload is written from it, the file holding
/// the payload's JSON form (as `fastavro` reads an Avro datum, as
/// protobuf's JSON mapping writes a message).
fn sample_payload(path: &Path, schema: &Schema, validator: &Compiled) -> Result<Vec<u8>, String> {
    let bytes =
        std::fs::read(path).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|err| format!("{} is not JSON: {err}", path.display()))?;
    if schema.language() == Language::JsonSchema {
        return Ok(bytes);
    }
    let form = validator.payload_form().ok_or_else(|| {
        format!(
            "{} payloads cannot be written from a sample",
            schema.language().as_str()
        )
    })?;
    form.encode(&value)
}
