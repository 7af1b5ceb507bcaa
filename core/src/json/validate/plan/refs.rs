//! References and borrowed validators: the node a `$ref` names, the
//! `jsonschema` validators of a few keywords or of a whole subschema.

use serde_json::{Map, Value};

use super::build::Builder;
use super::{Built, Draft, PlanRefusal};
use crate::json::validate::PATTERN_SIZE_LIMIT;

/// The URI the root document is served under to a [`Node::whole`]
/// validator (its `$ref` names the subschema by JSON pointer in it).
const ROOT_URI: &str = "urn:dataschema:json-plan:root";

/// Serves the root document to a [`Node::whole`] validator, and nothing else.
struct RootDocument(std::sync::Arc<Value>);

impl jsonschema::Retrieve for RootDocument {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.as_str() == ROOT_URI {
            Ok((*self.0).clone())
        } else {
            Err(format!("{uri} is not served to a subschema's validator").into())
        }
    }
}

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
        let doc = if uri.is_empty() {
            doc
        } else {
            self.document(uri)
                .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} is not covered")))?
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return Err(PlanRefusal::new(format!(
                "`$ref` {reference:?} names an anchor"
            )));
        }
        let fragment = percent_decode(fragment)
            .ok_or_else(|| PlanRefusal::new(format!("`$ref` {reference:?} is not UTF-8")))?;
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

    /// A `jsonschema` validator of the whole subschema at `pointer` in the
    /// root document (the document served to it, the subschema named by
    /// `$ref`), with the root's `$schema` and the guard's options.
    pub(super) fn whole(&mut self, pointer: &str) -> Built<jsonschema::Validator> {
        let root = match &self.root_value {
            Some(root) => std::sync::Arc::clone(root),
            None => {
                let mut root = self.docs[0].clone();
                // A relative root `$id` (`compose_spec.json`) does not
                // resolve against the URN the document is served under; the
                // root's own pointers (`#/$defs/..`) resolve without it.
                let id = if self.draft == Draft::D4 { "id" } else { "$id" };
                if let Value::Object(map) = &mut root {
                    if matches!(map.get(id), Some(Value::String(uri)) if !uri.contains(':')) {
                        map.remove(id);
                    }
                }
                let root = std::sync::Arc::new(root);
                self.root_value = Some(std::sync::Arc::clone(&root));
                root
            }
        };
        let mut wrapper = Map::new();
        if let Some(uri) = &self.schema_uri {
            wrapper.insert("$schema".into(), uri.clone());
        }
        let mut reference = format!("{ROOT_URI}#");
        for c in pointer.chars() {
            // A URI fragment: the pointer percent-encoded where it must be.
            if c.is_ascii_alphanumeric() || "/~-._".contains(c) {
                reference.push(c);
            } else {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    reference.push_str(&format!("%{b:02X}"));
                }
            }
        }
        wrapper.insert("$ref".into(), Value::String(reference));
        let patterns = jsonschema::PatternOptions::regex()
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT);
        jsonschema::options()
            .should_validate_formats(self.assert_formats)
            .with_pattern_options(patterns)
            .with_retriever(RootDocument(root))
            .build(&Value::Object(wrapper))
            .map_err(|err| PlanRefusal::new(format!("a subschema does not compile: {err}")))
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
}

fn percent_decode(text: &str) -> Option<String> {
    String::from_utf8(crate::json::validate::analysis::percent_decoded(text)).ok()
}
