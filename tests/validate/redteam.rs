//! What the red-team tests of the JSON scanner share
//! (`pattern_redteam.rs`, `formats_redteam.rs`): a schema in a guard beside
//! `jsonschema`'s validator of it, built with the guard's options, and the
//! disagreements found between their verdicts.

use std::fmt::Write as _;

use dataschema::validate::JsonEngine;
use dataschema::{Error, Guard, Outcome, Reason, Resolver, Schema, Urn};
use serde_json::Value;

use crate::common;

/// The URN each red-team guard holds its one schema under.
const URN: &str = "urn:acme:schema:redteam:1";
/// The guard's pattern limits (core/src/json/validate.rs).
pub(crate) const PATTERN_SIZE_LIMIT: usize = 2 << 20;
pub(crate) const PATTERN_BACKTRACK_LIMIT: usize = 10_000;

pub(crate) const DRAFT4: &str = "http://json-schema.org/draft-04/schema#";
pub(crate) const DRAFT6: &str = "http://json-schema.org/draft-06/schema#";
pub(crate) const DRAFT7: &str = "http://json-schema.org/draft-07/schema#";
pub(crate) const DRAFT2019: &str = "https://json-schema.org/draft/2019-09/schema";
pub(crate) const DRAFT2020: &str = "https://json-schema.org/draft/2020-12/schema";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Valid,
    Invalid,
    /// Depends on a backtracking match that ran out of its budget.
    Undecided,
}

/// `jsonschema` with the guard's options: the linear engine, else (a
/// pattern it cannot run) the backtracking one with the guard's limits.
pub(crate) fn reference(schema: &Value) -> Option<jsonschema::Validator> {
    let linear = jsonschema::PatternOptions::regex()
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT);
    if let Ok(validator) = jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(linear)
        .build(schema)
    {
        return Some(validator);
    }
    let backtracking = jsonschema::PatternOptions::fancy_regex()
        .backtrack_limit(PATTERN_BACKTRACK_LIMIT)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT);
    jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(backtracking)
        .build(schema)
        .ok()
}

/// `jsonschema`'s verdict on `payload`: valid under every outcome of the
/// unfinished matches, invalid, or undecided (its errors name the engine's
/// failure, not a violation).
pub(crate) fn jsonschema_verdict(validator: &jsonschema::Validator, payload: &[u8]) -> Verdict {
    let Ok(value) = serde_json::from_slice::<Value>(payload) else {
        return Verdict::Invalid;
    };
    if validator.is_valid(&value) {
        return Verdict::Valid;
    }
    use jsonschema::error::ValidationErrorKind as K;
    let unfinished = validator.iter_errors(&value).any(|err| {
        matches!(
            err.kind(),
            K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. }
        )
    });
    if unfinished {
        Verdict::Undecided
    } else {
        Verdict::Invalid
    }
}

pub(crate) fn outcome_verdict(
    outcome: Result<Outcome, dataschema::Invalid>,
    what: &str,
) -> Verdict {
    match outcome {
        Ok(Outcome::Validated) => Verdict::Valid,
        Ok(Outcome::Unvalidated(u)) if u.reason() == Reason::PatternBudget => Verdict::Undecided,
        Err(_) => Verdict::Invalid,
        Ok(other) => panic!("{what}: {other:?}"),
    }
}

/// A resolver of one schema, unchecked.
pub(crate) struct One(Schema);

impl Resolver for One {
    fn resolve(&self, urn: &Urn) -> Result<Schema, Error> {
        if self.0.urn() == urn {
            return Ok(self.0.clone());
        }
        Err(Error::NotFound { urn: urn.clone() })
    }
}

/// A schema in a guard, beside `jsonschema`'s validator of it.
pub(crate) struct Subject {
    pub(crate) schema: Value,
    pub(crate) guard: Guard,
    pub(crate) validator: jsonschema::Validator,
}

impl Subject {
    /// `None` when `jsonschema` does not compile the schema (the guard
    /// then fails open: unusable).
    pub(crate) fn new(schema: Value) -> Option<Subject> {
        let validator = reference(&schema)?;
        // Handed to the guard unchecked (a registry would compile it once
        // more to check it): the guard compiles it on first use.
        let guard = Guard::new(One(Schema::json(common::urn(URN), schema.to_string())));
        // The scanner covers pattern schemas: no whole fallback.
        let engine = guard.json_engine(&common::urn(URN));
        assert!(
            matches!(engine, Some(JsonEngine::Scanner | JsonEngine::Mixed { .. })),
            "{schema} is not scanned: {engine:?}"
        );
        Some(Subject {
            schema,
            guard,
            validator,
        })
    }

    /// The guard's verdict on the parsed payload (`Guard::validate_json`).
    pub(crate) fn value_verdict(&self, payload: &[u8]) -> Option<Verdict> {
        let what = String::from_utf8_lossy(payload);
        serde_json::from_slice::<Value>(payload)
            .ok()
            .map(|value| outcome_verdict(self.guard.validate_json(URN, &value), &what))
    }

    /// Records a disagreement of the bytes path with `jsonschema` (or, with
    /// `findings.value_path`, of the value path).
    pub(crate) fn check(&self, payload: &str, findings: &mut Findings) {
        self.check_bytes(payload.as_bytes(), findings);
    }

    /// [`Subject::check`] on any bytes.
    pub(crate) fn check_bytes(&self, payload: &[u8], findings: &mut Findings) {
        findings.checked += 1;
        let what = String::from_utf8_lossy(payload);
        let bytes = outcome_verdict(self.guard.validate(URN, payload), &what);
        let theirs = jsonschema_verdict(&self.validator, payload);
        findings.valid += usize::from(theirs == Verdict::Valid);
        let value = if findings.value_path || bytes != theirs {
            self.value_verdict(payload)
        } else {
            None
        };
        if bytes != theirs || value.is_some_and(|v| v != theirs) {
            findings.push(
                &self.schema,
                format!(
                    "{what:?}: guard {bytes:?}, jsonschema {theirs:?}, guard on the value {value:?}"
                ),
            );
        }
    }
}

/// Disagreements, by schema.
#[derive(Default)]
pub(crate) struct Findings {
    /// Whether the guard's value path is compared too (else only shown
    /// beside a disagreement of the bytes path).
    pub(crate) value_path: bool,
    pub(crate) checked: usize,
    /// Verdicts `jsonschema` found valid (the sweep must see both).
    pub(crate) valid: usize,
    pub(crate) found: Vec<(String, Vec<String>)>,
}

impl Findings {
    pub(crate) fn push(&mut self, schema: &Value, finding: String) {
        let schema = schema.to_string();
        match self.found.iter_mut().find(|(s, _)| *s == schema) {
            Some((_, list)) => list.push(finding),
            None => self.found.push((schema, vec![finding])),
        }
    }

    pub(crate) fn extend(&mut self, other: Findings) {
        self.checked += other.checked;
        self.valid += other.valid;
        self.found.extend(other.found);
    }

    /// That the sweep told something: at least `at_least` verdicts, each
    /// verdict (valid, invalid) at least one in ten.
    pub(crate) fn assert_telling(&self, at_least: usize) {
        assert!(self.checked >= at_least, "{} verdicts", self.checked);
        assert!(
            self.valid * 10 >= self.checked && self.valid * 10 <= self.checked * 9,
            "{} valid of {}",
            self.valid,
            self.checked
        );
    }

    pub(crate) fn assert_none(&self, what: &str) {
        if self.found.is_empty() {
            return;
        }
        let mut text = String::new();
        let mut total = 0;
        for (schema, list) in &self.found {
            total += list.len();
            let _ = writeln!(text, "schema {schema}: {} payloads, e.g.", list.len());
            for finding in list.iter().take(4) {
                let _ = writeln!(text, "    {finding}");
            }
        }
        panic!(
            "{what}: {total} disagreements in {} verdicts, {} schemas:\n{text}",
            self.checked,
            self.found.len()
        );
    }
}

/// `text` as a JSON string, written several ways: plain, every character
/// escaped (`\uXXXX`, surrogate pairs past the BMP), the first character
/// escaped, `/` as `\/`.
pub(crate) fn encodings(text: &str) -> Vec<String> {
    let plain = serde_json::to_string(text).unwrap();
    let mut all = String::from("\"");
    for c in text.chars() {
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            let _ = write!(all, "\\u{unit:04x}");
        }
    }
    all.push('"');
    let mut first = String::from("\"");
    let mut chars = text.chars();
    if let Some(c) = chars.next() {
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            let _ = write!(first, "\\u{unit:04X}");
        }
        let rest = serde_json::to_string(chars.as_str()).unwrap();
        first.push_str(&rest[1..]);
    } else {
        first.push('"');
    }
    let slashes = plain.replace('/', "\\/");
    let mut out = vec![plain, all, first, slashes];
    out.sort();
    out.dedup();
    out
}
