//! Named types across the folder's `.avsc` files: a schema that uses a
//! record, enum or fixed another `.avsc` defines, by full name, gets that
//! schema as a reference (Confluent's Avro references: `name` a full
//! name, the first type the defining schema defines, the URN the defining
//! schema's; one reference a defining schema).
//!
//! A schema's references are the manifest's `[references."<name>.v<N>"]`
//! table when it has one (`"acme.Money" = "urn:acme:schema:money:1"`);
//! otherwise each name it uses and does not define is looked up among the
//! named types the folder's other `.avsc` files define (nested ones too),
//! by the full name its namespace gives it, then by the name as written.
//! A name no file defines is left to the compile, which refuses it with its
//! location; a name two files define (two versions of one schema too) is a
//! diagnostic naming both, since picking one would make the schema's
//! meaning hang on which files the folder holds: the manifest names the
//! one meant.

use std::collections::{BTreeMap, BTreeSet};

use dataschema_core::avsc::{defined_names, used_names};
use dataschema_core::{Language, Reference};

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::manifest::stem;
use crate::manifest::MANIFEST_FILE;
use crate::source::Source;

/// Gives each Avro source without references of its own (the manifest's)
/// the folder's schemas defining the names it uses.
pub(crate) fn find_references(sources: &mut [Source], diagnostics: &mut Vec<Diagnostic>) {
    let parsed: Vec<Option<serde_json::Value>> = sources
        .iter()
        .map(|source| {
            (source.schema.language() == Language::Avro)
                .then(|| serde_json::from_slice(source.schema.bytes()).ok())
                .flatten()
        })
        .collect();
    // Full name to the sources defining it.
    let mut defined: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, json) in parsed.iter().enumerate() {
        if let Some(json) = json {
            let names: BTreeSet<String> = defined_names(json).into_iter().collect();
            for name in names {
                defined.entry(name).or_default().push(i);
            }
        }
    }
    let mut found: Vec<Option<Vec<Reference>>> = vec![None; sources.len()];
    for (i, json) in parsed.iter().enumerate() {
        let Some(json) = json else { continue };
        if !sources[i].schema.references().is_empty() {
            continue;
        }
        let mut references = Vec::new();
        for forms in used_names(json) {
            let Some((name, definers)) = forms.iter().find_map(|form| {
                let definers: Vec<usize> = defined
                    .get(form)?
                    .iter()
                    .copied()
                    .filter(|&j| j != i)
                    .collect();
                (!definers.is_empty()).then(|| (form.clone(), definers))
            }) else {
                continue;
            };
            if let [j] = definers[..] {
                // One reference a defining schema, named (as Confluent's
                // serializers name it) by the first type it defines, its
                // own when it is a named type.
                let urn = sources[j].schema.urn();
                if !references.iter().any(|r: &Reference| r.urn() == urn) {
                    let label = parsed[j]
                        .as_ref()
                        .and_then(|json| defined_names(json).into_iter().next())
                        .unwrap_or(name);
                    references.push(Reference::new(label, urn.clone()));
                }
                continue;
            }
            let places: Vec<String> = definers
                .iter()
                .map(|&j| {
                    format!(
                        "{} ({})",
                        sources[j].path.display(),
                        sources[j].schema.urn()
                    )
                })
                .collect();
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::DefinedTwice,
                &sources[i].path,
                format!(
                    "uses {name:?}, which more than one schema of the folder defines: {}; name \
                     the one meant in {MANIFEST_FILE}: [references.\"{}\"] {name:?} = \"<URN>\"",
                    places.join(" and "),
                    stem(&sources[i]),
                ),
            ));
        }
        if !references.is_empty() {
            found[i] = Some(references);
        }
    }
    for (source, references) in sources.iter_mut().zip(found) {
        if let Some(references) = references {
            source.schema = source.schema.with_references(references);
        }
    }
}

/// A diagnostic for each Avro source whose references lead back to it: a
/// registry takes a schema after the schemas it references, so a cycle
/// can never be published.
pub(crate) fn check_cycles(sources: &[Source], diagnostics: &mut Vec<Diagnostic>) {
    let index: BTreeMap<&dataschema_core::Urn, usize> = sources
        .iter()
        .enumerate()
        .map(|(i, source)| (source.schema.urn(), i))
        .collect();
    for (start, source) in sources.iter().enumerate() {
        if source.schema.language() != Language::Avro {
            continue;
        }
        let mut pending: Vec<usize> = source
            .schema
            .references()
            .iter()
            .filter_map(|r| index.get(r.urn()).copied())
            .collect();
        let mut seen = BTreeSet::new();
        while let Some(i) = pending.pop() {
            if i == start {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::Unusable,
                    &source.path,
                    format!(
                        "{}'s references lead back to it (a cycle of schemas using each \
                         other's types): a registry takes a schema after those it references, \
                         so none of them could be published",
                        source.schema.urn()
                    ),
                ));
                break;
            }
            if seen.insert(i) {
                pending.extend(
                    sources[i]
                        .schema
                        .references()
                        .iter()
                        .filter_map(|r| index.get(r.urn()).copied()),
                );
            }
        }
    }
}
