//! The JSON Schema Test Suite (read in place from
//! `../shared/json-schema-test-suite`, or `$DATASCHEMA_JSON_SCHEMA_TEST_SUITE`)
//! through the JSON scanner: for every case whose schema the scanner's plan
//! accepts, its verdict on the case's bytes (compact and pretty-printed)
//! equals `jsonschema`'s on the parsed value, built with the guard's
//! options (formats asserted). The cases where both deviate from the suite
//! are printed (they are `jsonschema`'s deviations, which the guard keeps).

use crate::common;

use std::path::{Path, PathBuf};

use dataschema::validate::json_plan::JsonPlan;
use serde_json::Value;

/// The guard's pattern limits (core/src/validate/json.rs).
const PATTERN_SIZE_LIMIT: usize = 2 << 20;
/// The guard's backtrack limit per match (core/src/json/validate.rs).
const PATTERN_BACKTRACK_LIMIT: usize = 10_000;

pub(crate) fn reference(schema: &Value) -> Option<jsonschema::Validator> {
    let patterns = jsonschema::PatternOptions::regex()
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT);
    jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(patterns)
        .build(schema)
        .or_else(|_| {
            // A pattern the linear engine cannot run: the guard's
            // backtracking engine and limits.
            let patterns = jsonschema::PatternOptions::fancy_regex()
                .backtrack_limit(PATTERN_BACKTRACK_LIMIT)
                .size_limit(PATTERN_SIZE_LIMIT)
                .dfa_size_limit(PATTERN_SIZE_LIMIT);
            jsonschema::options()
                .should_validate_formats(true)
                .with_pattern_options(patterns)
                .build(schema)
        })
        .ok()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn the_scanner_answers_what_jsonschema_answers_on_the_test_suite() {
    let Some(root) = common::external_dir(
        "DATASCHEMA_JSON_SCHEMA_TEST_SUITE",
        "../shared/json-schema-test-suite",
        "the JSON Schema Test Suite",
    ) else {
        return;
    };
    let mut paths = Vec::new();
    files(&root.join("tests"), &mut paths);
    assert!(paths.len() > 100, "suite files found: {}", paths.len());

    let (mut groups, mut planned, mut cases, mut scanned, mut unsure) = (0, 0, 0, 0, 0);
    let mut mismatches = Vec::new();
    let mut deviations = Vec::new();
    // Per draft folder: groups, planned, planned with no subschema left
    // to `jsonschema`; and why the plan refused, with how many groups.
    let mut drafts: std::collections::BTreeMap<String, (usize, usize, usize)> = Default::default();
    let mut refusals: std::collections::BTreeMap<String, usize> = Default::default();
    for path in &paths {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read(path).expect("readable");
        let Ok(Value::Array(file_groups)) = serde_json::from_slice::<Value>(&text) else {
            panic!("{name}: not an array of groups");
        };
        // The draft comes from the folder; a schema without `$schema` gets it.
        let draft = match path.components().find_map(|c| {
            let c = c.as_os_str().to_str()?;
            c.starts_with("draft").then_some(c)
        }) {
            Some("draft4") => "http://json-schema.org/draft-04/schema#",
            Some("draft6") => "http://json-schema.org/draft-06/schema#",
            Some("draft7") => "http://json-schema.org/draft-07/schema#",
            Some("draft2019-09") => "https://json-schema.org/draft/2019-09/schema",
            _ => "https://json-schema.org/draft/2020-12/schema",
        };
        let folder = path
            .components()
            .find_map(|c| {
                let c = c.as_os_str().to_str()?;
                c.starts_with("draft").then(|| c.to_owned())
            })
            .unwrap_or_else(|| "other".into());
        for group in file_groups {
            groups += 1;
            let tally = drafts.entry(folder.clone()).or_default();
            tally.0 += 1;
            let mut schema = group["schema"].clone();
            if let Value::Object(map) = &mut schema {
                map.entry("$schema").or_insert_with(|| draft.into());
            }
            let Some(validator) = reference(&schema) else {
                *refusals
                    .entry("(jsonschema does not compile it)".into())
                    .or_default() += 1;
                continue;
            };
            let plan = match JsonPlan::compile(&schema, true) {
                Ok(plan) => plan,
                Err(refusal) => {
                    // The reason, each quoted value it names as `".."`.
                    let why: String = refusal
                        .to_string()
                        .split('"')
                        .enumerate()
                        .map(|(i, part)| if i % 2 == 1 { ".." } else { part })
                        .collect::<Vec<_>>()
                        .join("\"");
                    *refusals.entry(why).or_default() += 1;
                    continue;
                }
            };
            planned += 1;
            let tally = drafts.entry(folder.clone()).or_default();
            tally.1 += 1;
            if plan.fallback_subschemas() == 0 {
                tally.2 += 1;
            }
            let Some(tests) = group["tests"].as_array() else {
                continue;
            };
            for test in tests {
                cases += 1;
                let label = format!(
                    "{name}: {} / {}",
                    group["description"].as_str().unwrap_or("?"),
                    test["description"].as_str().unwrap_or("?")
                );
                let compact = serde_json::to_vec(&test["data"]).expect("serializable");
                let pretty = serde_json::to_vec_pretty(&test["data"]).expect("serializable");
                let parsed: Value = serde_json::from_slice(&compact).expect("round trip");
                let expected = validator.is_valid(&parsed);
                for bytes in [&compact, &pretty] {
                    match plan.scan(bytes) {
                        None => unsure += 1,
                        Some(verdict) => {
                            scanned += 1;
                            if verdict != expected {
                                mismatches.push(format!(
                                    "{label}: scanner {verdict}, jsonschema {expected}"
                                ));
                            }
                        }
                    }
                }
                if test["valid"].as_bool() != Some(expected) {
                    deviations.push(label);
                }
            }
        }
    }
    eprintln!(
        "{groups} groups, {planned} planned; {cases} cases, {scanned} scans agreed or not, \
         {unsure} undecided"
    );
    for (draft, (all, planned, native)) in &drafts {
        eprintln!(
            "  {draft}: {all} groups, {planned} planned, {native} with no fallback subschema"
        );
    }
    eprintln!("groups the plan refused, by reason:");
    for (why, n) in &refusals {
        eprintln!("  {n:>4}  {why}");
    }
    eprintln!(
        "{} cases where jsonschema (and so the scanner) deviates from the suite:",
        deviations.len()
    );
    for deviation in &deviations {
        eprintln!("  {deviation}");
    }
    assert!(planned > 500, "the plan covers too few groups: {planned}");
    assert_eq!(unsure, 0, "the scanner could not tell on a suite case");
    assert!(
        mismatches.is_empty(),
        "{} verdicts differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
