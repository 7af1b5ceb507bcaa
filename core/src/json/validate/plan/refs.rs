//! References and borrowed validators: the node a `$ref` (or a
//! `$dynamicRef`) names, the `jsonschema` validators of a few keywords, and
//! the scanner's `pattern`s.

use serde_json::{Map, Value};

use super::build::Builder;
use super::pattern::Pattern;
use super::resources::Resources;
use super::{Built, Draft, PlanRefusal};
use crate::json::validate::analysis::{join, DEFAULT_BASE};
use crate::json::validate::PATTERN_SIZE_LIMIT;

impl Builder<'_> {
    /// The node a `$ref` in the subschema at `from` (of document `doc`)
    /// names: resolved against the base URI of the resource holding it
    /// (`plan/resources.rs`), a resource of this document or of a registry
    /// schema named by its URN (one the analysis fetched, of the same
    /// draft), then a JSON pointer or an anchor inside that resource.
    pub(super) fn reference(&mut self, doc: usize, from: &str, reference: &Value) -> Built<u32> {
        let Value::String(reference) = reference else {
            return Err(PlanRefusal::new("`$ref` is not a string"));
        };
        let not_covered = || PlanRefusal::new(format!("`$ref` {reference:?} is not covered"));
        let (base_root, base) = {
            let resources = self.resources_of(doc)?;
            let (root, uri) = resources.holding(from);
            (root.to_owned(), uri.to_owned())
        };
        let (uri, fragment) = match reference.split_once('#') {
            Some((uri, fragment)) => (uri, fragment),
            None => (reference.as_str(), ""),
        };
        let (doc, root) = if uri.is_empty() {
            (doc, base_root)
        } else {
            let (absolute, _) = join(&base, reference).map_err(PlanRefusal::new)?;
            match self.resource_named(&absolute)? {
                Some(found) => found,
                None if self.dynamic => {
                    // Another resource in the dynamic scope.
                    return Err(PlanRefusal::new(format!(
                        "`$ref` {reference:?} leaves a document with dynamic references"
                    )));
                }
                None => (
                    self.document(&absolute).ok_or_else(not_covered)?,
                    String::new(),
                ),
            }
        };
        let fragment = percent_decode(fragment)
            .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} is not UTF-8")))?;
        if !fragment.is_empty() && !fragment.starts_with('/') {
            let pointer = self.anchor(doc, &fragment).ok_or_else(|| {
                PlanRefusal::new(format!("`$ref` {reference:?} names no single anchor"))
            })?;
            // The anchor must be one of the resource's own.
            if self.resources_of(doc)?.holding(&pointer).0 != root {
                return Err(not_covered());
            }
            let target = self.docs[doc]
                .pointer(&pointer)
                .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} names nothing")))?;
            return self.node(doc, pointer, target);
        }
        let mut target = self.docs[doc]
            .pointer(&root)
            .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} names nothing")))?;
        let mut pointer = root;
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

    /// The resources of document `doc`, read on first use.
    fn resources_of(&mut self, doc: usize) -> Built<&Resources> {
        if !self.resources.contains_key(&doc) {
            let uri = match doc {
                0 => DEFAULT_BASE.to_owned(),
                _ => self.uris[doc - 1].clone(),
            };
            let resources = Resources::of(self.docs[doc], &uri, self.draft)?;
            if self.dynamic && resources.nested() {
                return Err(PlanRefusal::new(
                    "a document with dynamic references holds several resources",
                ));
            }
            self.resources.insert(doc, resources);
        }
        Ok(&self.resources[&doc])
    }

    /// The document and pointer of the resource whose absolute URI is
    /// `uri`, among the documents read so far.
    fn resource_named(&mut self, uri: &str) -> Built<Option<(usize, String)>> {
        for doc in 0..self.docs.len() {
            if let Some(root) = self.resources_of(doc)?.named(uri) {
                return Ok(Some((doc, root.to_owned())));
            }
        }
        Ok(None)
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
