//! `pattern`s the linear engine cannot run (lookaround, backreferences):
//! matched on `fancy-regex`, the backtracking ECMA-262 engine `jsonschema`
//! offers, compiled as `jsonschema` compiles them (its own translation of
//! the pattern, the same limits), each match stopped after
//! [`PATTERN_BACKTRACK_LIMIT`] backtracks.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value;

use crate::json::validate::{PATTERN_BACKTRACK_LIMIT, PATTERN_SIZE_LIMIT};

/// A pattern on the backtracking engine.
#[derive(Clone)]
pub(in crate::json::validate) struct Backtracking(fancy_regex::Regex);

impl Backtracking {
    /// `pattern` (ECMA-262, as a schema writes it) for the backtracking
    /// engine, or `None` if it does not compile there either.
    pub(super) fn compile(pattern: &str) -> Option<Backtracking> {
        let translated = jsonschema_regex::to_rust_regex(pattern).ok()?;
        let mut builder = fancy_regex::RegexBuilder::new(&translated);
        builder
            .backtrack_limit(PATTERN_BACKTRACK_LIMIT)
            .delegate_size_limit(PATTERN_SIZE_LIMIT)
            .delegate_dfa_size_limit(PATTERN_SIZE_LIMIT);
        builder.build().ok().map(Backtracking)
    }

    /// Whether `text` matches; `None` when the match ran out of its budget
    /// (or the engine failed), and the scanner cannot tell.
    #[inline]
    pub(in crate::json::validate) fn is_match(&self, text: &str) -> Option<bool> {
        // `jsonschema` catches a panic of the engine the same way
        // (regex-automata issue 1344).
        match catch_unwind(AssertUnwindSafe(|| self.0.is_match(text))) {
            Ok(Ok(matched)) => Some(matched),
            _ => None,
        }
    }
}

/// A `patternProperties` pattern, asked about a key.
#[derive(Clone)]
pub(in crate::json::validate) enum Matcher {
    /// A `{"pattern": ..}` validator on the linear engine.
    Linear(jsonschema::Validator),
    Backtracking(Backtracking),
}

impl Matcher {
    /// Whether the key (a `Value::String`) matches; `None` when the
    /// scanner cannot tell.
    #[inline]
    pub(in crate::json::validate) fn matches(&self, key: &Value) -> Option<bool> {
        match self {
            Matcher::Linear(validator) => Some(validator.is_valid(key)),
            Matcher::Backtracking(regex) => regex.is_match(key.as_str().unwrap_or_default()),
        }
    }
}
