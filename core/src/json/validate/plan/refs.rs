//! References and borrowed validators: the node a `$ref` (or a
//! `$dynamicRef`) names, the `jsonschema` validators of a few keywords, and
//! the scanner's `pattern`s.

use serde_json::{Map, Value};

use super::build::Builder;
use super::pattern::Pattern;
use super::{Built, Draft, PlanRefusal};
use crate::json::validate::PATTERN_SIZE_LIMIT;

impl Builder<'_> {
    /// The node a `$ref` names: a JSON pointer into this document, or
    /// into a registry schema named by its URN (one the analysis fetched,
    /// of the same draft).
    pub(super) fn reference(&mut self, doc: usize, reference: &Value) -> Built<u32> {
        let Value::String(reference) = reference else {
            return Err(PlanRefusal::new("`$ref` is not a string"));
        };
        let (uri, fragment) = match reference.split_once('#') {
            Some((uri, fragment)) => (uri, fragment),
            None => (reference.as_str(), ""),
        };
        let doc = if uri.is_empty() || (doc == 0 && self.is_root_id(uri)) {
            doc
        } else if self.dynamic {
            // Another resource in the dynamic scope.
            return Err(PlanRefusal::new(format!(
                "`$ref` {reference:?} leaves a document with dynamic references"
            )));
        } else {
            self.document(uri)
                .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} is not covered")))?
        };
        let fragment = percent_decode(fragment)
            .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} is not UTF-8")))?;
        if !fragment.is_empty() && !fragment.starts_with('/') {
            let pointer = self.anchor(doc, &fragment).ok_or_else(|| {
                PlanRefusal::new(format!("`$ref` {reference:?} names no single anchor"))
            })?;
            let target = self.docs[doc]
                .pointer(&pointer)
                .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} names nothing")))?;
            return self.node(doc, pointer, target);
        }
        let mut target = self.docs[doc];
        let mut pointer = String::new();
        for token in fragment.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            target = match target {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            }
            .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} names nothing")))?;
            pointer.push('/');
            pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
        }
        self.node(doc, pointer, target)
    }

    /// Whether `uri` is the root document's own absolute `$id` (`id` in
    /// draft 4), fragment aside: a `$ref` through it stays in the root.
    fn is_root_id(&self, uri: &str) -> bool {
        let key = if self.draft == Draft::D4 { "id" } else { "$id" };
        let Some(Value::String(id)) = self.docs[0].get(key) else {
            return false;
        };
        let id = id.split('#').next().unwrap_or_default();
        id.contains(':') && id == uri
    }

    /// The JSON pointer (escaped as the builder keys nodes) of the one
    /// subschema of document `doc` declaring the anchor `name` (`$anchor`,
    /// from 2020-12 `$dynamicAnchor` too; before 2019-09 an `$id`, `id` in
    /// draft 4, of `#name`); `None` when none or several do.
    fn anchor(&self, doc: usize, name: &str) -> Option<String> {
        let id = format!("#{name}");
        let declares = |map: &Map<String, Value>| {
            let text = |key: &str| map.get(key).and_then(Value::as_str);
            match self.draft {
                Draft::D4 => text("id") == Some(&id),
                Draft::D6 | Draft::D7 => text("$id") == Some(&id),
                Draft::D2019 => text("$anchor") == Some(name),
                Draft::D2020 => {
                    text("$anchor") == Some(name) || text("$dynamicAnchor") == Some(name)
                }
            }
        };
        let mut found = Vec::new();
        let mut open = vec![(self.docs[doc], String::new())];
        while let Some((value, pointer)) = open.pop() {
            match value {
                Value::Object(map) => {
                    if declares(map) {
                        found.push(pointer.clone());
                    }
                    for (key, child) in map {
                        // Values, not subschemas: an anchor there names nothing.
                        if matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
                            continue;
                        }
                        let token = key.replace('~', "~0").replace('/', "~1");
                        open.push((child, format!("{pointer}/{token}")));
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        open.push((child, format!("{pointer}/{i}")));
                    }
                }
                _ => {}
            }
        }
        (found.len() == 1).then(|| found.remove(0))
    }

    /// The index of the registry document `uri` names, if the analysis
    /// fetched it and it has the root's `$schema`.
    pub(super) fn document(&mut self, uri: &str) -> Option<usize> {
        if uri.parse::<crate::urn::Urn>().is_err() {
            return None;
        }
        if let Some(at) = self.uris.iter().position(|u| u == uri) {
            return Some(at + 1);
        }
        let value = self.fetched.get(uri)?;
        if value.get("$schema") != self.schema_uri.as_ref() {
            return None;
        }
        self.uris.push(uri.to_owned());
        self.docs.push(value);
        Some(self.docs.len() - 1)
    }

    /// A `jsonschema` validator for a few keywords of one subschema, with
    /// the root's `$schema` and the guard's options.
    pub(super) fn mini(&self, mut keywords: Map<String, Value>) -> Built<jsonschema::Validator> {
        if let Some(uri) = &self.schema_uri {
            keywords.insert("$schema".into(), uri.clone());
        }
        let patterns = jsonschema::PatternOptions::regex()
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT);
        jsonschema::options()
            .should_validate_formats(self.assert_formats)
            .with_pattern_options(patterns)
            .build(&Value::Object(keywords))
            .map_err(|err| PlanRefusal::new(format!("a keyword does not compile: {err}")))
    }

    /// A `pattern` (of `pattern`, or a key of `patternProperties` when
    /// `key`) as the scanner matches it: on the linear engine when
    /// `jsonschema` compiles it there (a tiny validator tells, with the
    /// guard's limits), else on the backtracking one, in the form
    /// `jsonschema` gives that keyword.
    pub(super) fn pattern(&self, pattern: &str, key: bool) -> Built<Pattern> {
        let mut keywords = Map::new();
        keywords.insert("pattern".into(), Value::String(pattern.into()));
        match self.mini(keywords) {
            Ok(_) => Pattern::linear(pattern).ok_or_else(|| {
                PlanRefusal::new(format!(
                    "the pattern {pattern:?} compiles in `jsonschema` but not in the scanner"
                ))
            }),
            Err(refusal) if key => Pattern::backtracking_whole(pattern).ok_or(refusal),
            Err(refusal) => Pattern::backtracking(pattern).ok_or(refusal),
        }
    }
}

fn percent_decode(text: &str) -> Option<String> {
    String::from_utf8(crate::json::validate::analysis::percent_decoded(text)).ok()
}
