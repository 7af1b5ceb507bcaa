//! `pattern`s and `patternProperties` keys, matched on the string's text.
//!
//! A [`Pattern`] takes the form `jsonschema` 0.61 gives the same pattern
//! with the linear engine (`PatternOptions::regex()`, our size limits): a
//! literal form when `jsonschema_regex::analyze_pattern` finds one
//! (`^exact$`, `^prefix`, `^(a|b)$`, `^\S*$`), else the character count of
//! a `^X{m,n}$` class, else `jsonschema_regex`'s sequence matcher with the
//! `regex` crate behind it, else `regex` on the translated (or collapsed)
//! pattern. Of the patterns the linear engine cannot run, leading positive
//! lookaheads become linear patterns that must all match (as `jsonschema`
//! splits them); the rest (other lookaround, backreferences) go to
//! `fancy-regex`, the backtracking ECMA-262 engine `jsonschema` offers,
//! each match stopped after [`PATTERN_BACKTRACK_LIMIT`] backtracks, with
//! the pattern's linear form in front where its lookaround has one
//! ([`Linearized`]: a string it matches matches).
//!
//! Matching a `&str` directly, the scanner asks no `jsonschema::Validator`
//! and fills no `Value` for a pattern: an unescaped string or key is
//! matched on the payload's own bytes.

use std::panic::{catch_unwind, AssertUnwindSafe};

use jsonschema_regex::{PatternAnalysis, RepeatedClass, Search, Sequence};

use super::classes::Classes;
use super::folded::Folded;
use super::lookaround::Linearized;

use crate::json::validate::{PATTERN_BACKTRACK_LIMIT, PATTERN_SIZE_LIMIT};

/// A compiled `pattern` (ECMA-262, as a schema writes it).
#[derive(Clone)]
pub(in crate::json::validate) enum Pattern {
    /// `^exact$`: the text equals it.
    Exact(Box<str>),
    /// `^prefix`: the text starts with it.
    Prefix(Box<str>),
    /// `^(a|b|c)$`: the text equals one of them.
    Alternation(Box<[String]>),
    /// `^\S*$`: no ECMA-262 whitespace.
    NoWhitespace,
    /// A few words, each letter in either case (`^[Ee][Ss]5$`): the
    /// text's letters lowered, looked up.
    Folded(Box<Folded>),
    /// A few runs of characters, a class each (`^\d{4}-(0[1-9]|1[0-2])$`,
    /// `^.*\.x.[yY]$`): each tried character by character.
    Classes(Box<Classes>),
    /// `^X{m,n}$` over one class: counted.
    RepeatedClass(Box<RepeatedClass>),
    /// The sequence matcher, asking the engine when it cannot tell.
    Sequence(Box<Sequence>, regex::Regex),
    /// The linear engine.
    Linear(regex::Regex),
    /// Leading positive lookaheads (`^(?=a)(?=b)c`) as a conjunction of
    /// linear patterns (`^(?:a)`, `^(?:b)`, `^(?:c)`), as `jsonschema`
    /// runs them.
    AllMatch(Box<[Pattern]>),
    /// The `pattern`s of an `anyOf`'s branches (`plan/merge.rs`,
    /// `pattern_branches`): the text matches when one of them matches.
    AnyMatch(Box<[Pattern]>),
    /// The backtracking engine, within its budget, and the pattern's
    /// linear form when its lookaround has one (`plan/lookaround.rs`),
    /// trusted when it says the text matches.
    Backtracking(fancy_regex::Regex, Option<Box<Linearized>>),
}

/// A `patternProperties` key as resolution (`json/resolution.rs`)
/// matches an object's keys: on the linear engine when it runs the
/// pattern, else whole on the backtracking one.
#[derive(Clone)]
pub(in crate::json) struct KeyPattern(Pattern);

impl KeyPattern {
    /// `None` when neither engine compiles `pattern`.
    pub(in crate::json) fn new(pattern: &str) -> Option<KeyPattern> {
        Pattern::linear(pattern)
            .or_else(|| Pattern::backtracking_whole(pattern))
            .map(KeyPattern)
    }

    /// Whether `key` matches; `None` when the match ran out of budget.
    pub(in crate::json) fn is_match(&self, key: &str) -> Option<bool> {
        self.0.is_match(key)
    }
}

impl Pattern {
    /// `pattern` on the linear engine, as `jsonschema` compiles it, or
    /// `None` when it does not compile there.
    pub(super) fn linear(pattern: &str) -> Option<Pattern> {
        if let Some(analysis) = jsonschema_regex::analyze_pattern(pattern) {
            return Some(match analysis {
                PatternAnalysis::Exact(exact) => Pattern::Exact(exact.into()),
                PatternAnalysis::Prefix(prefix) => Pattern::Prefix(prefix.into()),
                PatternAnalysis::Alternation(options) => Pattern::Alternation(options.into()),
                PatternAnalysis::NoWhitespace => Pattern::NoWhitespace,
            });
        }
        let translated = jsonschema_regex::to_rust_regex(pattern).ok()?;
        if let Some(folded) = Folded::new(&translated) {
            return Some(Pattern::Folded(Box::new(folded)));
        }
        let engine = |text: &str| {
            regex::RegexBuilder::new(text)
                .size_limit(PATTERN_SIZE_LIMIT)
                .dfa_size_limit(PATTERN_SIZE_LIMIT)
                .build()
                .ok()
        };
        let search = jsonschema_regex::search_form(pattern, &translated);
        if let Some(Search::RepeatedClass(class)) = search {
            return Some(Pattern::RepeatedClass(class.into()));
        }
        // (Compiled even where a form below stands in for it: a pattern
        // the engine refuses within its limits is refused as `jsonschema`
        // refuses it.)
        let fallback = match search {
            Some(Search::Collapsed(collapsed)) => engine(&collapsed)?,
            _ => engine(&translated)?,
        };
        if let Some(classes) = Classes::new(&translated) {
            return Some(Pattern::Classes(Box::new(classes)));
        }
        Some(match Sequence::compile(&translated) {
            Some(sequence) => Pattern::Sequence(Box::new(sequence), fallback),
            None => Pattern::Linear(fallback),
        })
    }

    /// A pattern the linear engine cannot run, as `jsonschema` runs it:
    /// leading positive lookaheads split into linear patterns that must
    /// all match, else the backtracking engine (its own translation, the
    /// same limits); `None` when it does not compile there either.
    pub(super) fn backtracking(pattern: &str) -> Option<Pattern> {
        let parts = jsonschema_regex::split_leading_lookaheads(pattern)
            .and_then(|parts| parts.iter().map(|p| Pattern::linear(p)).collect());
        if let Some(parts) = parts {
            return Some(Pattern::AllMatch(parts));
        }
        Pattern::backtracking_whole(pattern)
    }

    /// A `patternProperties` pattern the linear engine cannot run, as
    /// `jsonschema` runs it for `patternProperties`,
    /// `additionalProperties` and `unevaluatedProperties`: whole, on the
    /// backtracking engine, leading lookaheads included. (Only the
    /// `pattern` keyword splits them; the translation leaves a pattern
    /// with lookaround as written, so there `\d`, `\w` and `\s` are
    /// Unicode's and `.` matches `\r`, U+2028 and U+2029.)
    pub(super) fn backtracking_whole(pattern: &str) -> Option<Pattern> {
        let translated = jsonschema_regex::to_rust_regex(pattern).ok()?;
        let mut builder = fancy_regex::RegexBuilder::new(&translated);
        builder
            .backtrack_limit(PATTERN_BACKTRACK_LIMIT)
            .delegate_size_limit(PATTERN_SIZE_LIMIT)
            .delegate_dfa_size_limit(PATTERN_SIZE_LIMIT);
        let engine = builder.build().ok()?;
        Some(Pattern::Backtracking(
            engine,
            Linearized::new(&translated).map(Box::new),
        ))
    }

    /// Whether `text` matches; `None` when a backtracking match ran out
    /// of its budget (or the engine failed), and the scanner cannot tell.
    #[inline]
    pub(in crate::json::validate) fn is_match(&self, text: &str) -> Option<bool> {
        Some(match self {
            Pattern::Exact(exact) => text == &**exact,
            Pattern::Prefix(prefix) => text.starts_with(&**prefix),
            Pattern::Alternation(options) => options.iter().any(|o| o == text),
            Pattern::NoWhitespace => !jsonschema_regex::contains_ecma_whitespace(text),
            Pattern::Folded(folded) => folded.is_match(text),
            Pattern::Classes(classes) => classes.is_match(text),
            Pattern::RepeatedClass(class) => class.is_match(text),
            Pattern::Sequence(sequence, engine) => match sequence.is_match(text.as_bytes()) {
                Some(matched) => matched,
                None => engine.is_match(text),
            },
            Pattern::Linear(engine) => engine.is_match(text),
            Pattern::AllMatch(parts) => {
                for part in parts {
                    if !part.is_match(text)? {
                        return Some(false);
                    }
                }
                true
            }
            Pattern::AnyMatch(parts) => {
                // A part out of its budget leaves the verdict to the
                // others: one match decides, else no one can tell.
                let mut told = true;
                for part in parts {
                    match part.is_match(text) {
                        Some(true) => return Some(true),
                        Some(false) => {}
                        None => told = false,
                    }
                }
                return told.then_some(false);
            }
            Pattern::Backtracking(engine, linear) => {
                // A text the linear form matches matches (even one the
                // backtracking engine would run out of budget on). Else
                // the backtracking engine says: a refusal, or a match out
                // of its budget, stays its own.
                if linear.as_ref().is_some_and(|linear| linear.is_match(text)) {
                    return Some(true);
                }
                // `jsonschema` catches a panic of the engine the same way
                // (regex-automata issue 1344).
                match catch_unwind(AssertUnwindSafe(|| engine.is_match(text))) {
                    Ok(Ok(matched)) => matched,
                    _ => return None,
                }
            }
        })
    }

    /// Whether a match may run out of its budget (the scanner then cannot
    /// tell, and `jsonschema` decides).
    #[cfg(test)]
    fn backtracks(&self) -> bool {
        matches!(self, Pattern::Backtracking(..) | Pattern::AllMatch(_))
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    /// Each form, and the engine behind it, against `jsonschema`'s own
    /// verdict for `{"pattern": ..}`.
    #[test]
    fn every_form_matches_as_jsonschema_does() {
        let patterns = [
            "^x-",
            "^[a-zA-Z0-9._-]+$",
            "^.+$",
            "^\\S*$",
            "^(get|put|post)$",
            "^exact$",
            "^[a-z]{2,5}$",
            "^\\d{1,3}(\\.\\d{1,3}){3}$",
            "[0-9]+",
            "^\\p{L}+$",
            "a{2}",
            "^(?!x-)",
            "^(?=.*[0-9])[a-z0-9]{3,}$",
            "^(?=a)(?=.{2})\\w+",
            "(a)\\1",
            "",
            "^$",
            "\\u00e9",
            "^[Ee][Ss][567]$",
            "^([Gg][Ee][Tt]|[Pp][Oo][Ss][Tt])$",
            "\\.([Yy][Aa][Mm][Ll]|[Jj][Ss][Oo][Nn])$",
            "^[Xx]-[0-9]?",
            "^[Ee]\\u00e9[Ee]$",
            "^.*\\.[dD][lL][lL]$",
            "^\\d{4}-(0[1-9]|1[0-2])-01$",
            "^.*\\.vtesttree.[yY][aA][mM][lL]$",
            "^2.1.0$",
            "^v[0-9](\\.[0-9]{1,2})?",
            "\\.(json|ya?ml)$",
            "^[^/]{2}\\.x$",
            "^.*$",
        ];
        let texts = [
            "",
            "x-",
            "x-y",
            "abc",
            "ABC1.2_3-",
            "a b",
            "get",
            "post",
            "gets",
            "exact",
            "exactly",
            "ab",
            "abcdef",
            "1.2.3.4",
            "1.2.3",
            "12",
            "ab1",
            "é",
            "aa",
            "\u{a0}",
            "\u{2028}",
            "x",
            "aéb",
            "ES5",
            "es6",
            "eS7",
            "es8",
            "ES5 ",
            "GeT",
            "pOsT",
            "a.YaMl",
            "x.json",
            ".JSONx",
            "X-",
            "x-1",
            "eée",
            "EÉE",
            ".dll",
            "a.DlL",
            "a\nb.dll",
            "a\u{2028}.dll",
            "é.DLL",
            "2020-03-01",
            "2020-13-01",
            "2020-12-01",
            "202a-10-01",
            "2020-10-011",
            "x.vtesttree.yaml",
            "a/b.vtesttreeéYAML",
            "a\nb.vtesttree.yaml",
            "a.vtesttree\n.yaml",
            ".VTESTTREE.yaml",
            "2.1.0",
            "2é1.0",
            "2.1.0\n",
            "v1.23",
            "v1.2x",
            "va",
            "a.yml",
            "a.json",
            "é.yaml",
            "éé.x",
            "a/.x",
            "\u{2028}b.x",
            "abcdefghij\nk.dll",
            "abcdefghijklmnop\u{2028}.dll",
            "abcdefghijklmnop/q.vtesttree.yaml",
        ];
        let options = || {
            jsonschema::PatternOptions::regex()
                .size_limit(crate::json::validate::PATTERN_SIZE_LIMIT)
                .dfa_size_limit(crate::json::validate::PATTERN_SIZE_LIMIT)
        };
        for pattern in patterns {
            let schema = serde_json::json!({ "pattern": pattern });
            let ours = Pattern::linear(pattern)
                .or_else(|| Pattern::backtracking(pattern))
                .unwrap_or_else(|| panic!("{pattern:?} compiles"));
            let theirs = jsonschema::options()
                .with_pattern_options(options())
                .build(&schema)
                .ok();
            assert_eq!(
                theirs.is_none(),
                ours.backtracks(),
                "{pattern:?}: the linear engine refuses exactly what goes to the backtracking one"
            );
            let theirs = theirs.unwrap_or_else(|| {
                let backtracking = jsonschema::PatternOptions::fancy_regex();
                jsonschema::options()
                    .with_pattern_options(backtracking)
                    .build(&schema)
                    .unwrap()
            });
            for text in texts {
                assert_eq!(
                    ours.is_match(text),
                    Some(theirs.is_valid(&serde_json::Value::String(text.into()))),
                    "{pattern:?} on {text:?}"
                );
            }
        }
    }
}
