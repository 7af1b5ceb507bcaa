//! A version's references, applied to its JSON Schema: a `$ref` to a
//! reference's name is rewritten to the reference's URN before the schema
//! is analysed and compiled, so everything after (the analysis, the
//! scanner's plan, `jsonschema`'s retriever) follows it as it follows a
//! `$ref` written with the URN. The bytes kept are never rewritten; this
//! is the compile's own copy.
//!
//! A `$ref` names a reference when the URI before its `#` is the
//! reference's name, or is the same URI as the name once both are
//! resolved against the root's `$id` (`id` in draft 4) or, without one,
//! the default base: `other.json`, `./other.json` and, under `"$id":
//! "https://acme.example/a.json"`, `https://acme.example/other.json` all
//! name the reference `other.json` (Confluent registers a reference under
//! its name and under its name resolved against the `$id`). The fragment
//! is kept: `other.json#/$defs/Address` becomes `urn:..#/$defs/Address`.
//! Values that are data, not schemas (`const`, `enum`, `examples`,
//! `default`), are left alone.

use serde_json::Value;

use crate::contract::Reference;

/// The base a schema without `$id` resolves against (`jsonschema`'s).
const DEFAULT_BASE: &str = "json-schema:///";

/// `schema` with every `$ref` to one of `references` rewritten to its URN.
pub(crate) fn apply(schema: &mut Value, references: &[Reference]) {
    if references.is_empty() {
        return;
    }
    let base = schema
        .as_object()
        .and_then(|root| root.get("$id").or_else(|| root.get("id")))
        .and_then(Value::as_str)
        .filter(|id| jsonschema::uri::from_str(id).is_ok())
        .unwrap_or(DEFAULT_BASE)
        .to_owned();
    let resolved: Vec<(Option<String>, &Reference)> = references
        .iter()
        .map(|reference| (absolute(&base, reference.name()), reference))
        .collect();
    let target = |text: &str| -> Option<String> {
        let (uri, fragment) = match text.split_once('#') {
            Some((uri, fragment)) => (uri, Some(fragment)),
            None => (text, None),
        };
        let absolute_uri = absolute(&base, uri);
        let reference = resolved.iter().find_map(|(name, reference)| {
            (reference.name() == uri || (name.is_some() && *name == absolute_uri))
                .then_some(*reference)
        })?;
        let mut urn = reference.urn().to_string();
        if let Some(fragment) = fragment {
            urn.push('#');
            urn.push_str(fragment);
        }
        Some(urn)
    };
    // Iterative: no recursion on outside input.
    let mut stack: Vec<&mut Value> = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, member) in map.iter_mut() {
                    match key.as_str() {
                        "$ref" => {
                            if let Value::String(text) = member {
                                if let Some(urn) = target(text) {
                                    *text = urn;
                                }
                            }
                        }
                        "const" | "enum" | "examples" | "default" => {}
                        _ => stack.push(member),
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// `uri` resolved against `base`, without its fragment.
fn absolute(base: &str, uri: &str) -> Option<String> {
    let base = jsonschema::uri::from_str(base).ok()?;
    let resolved = jsonschema::uri::resolve_against(&base.borrow(), uri).ok()?;
    let text = resolved.as_str();
    Some(text.split_once('#').map_or(text, |(uri, _)| uri).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reference(name: &str, urn: &str) -> Reference {
        Reference::new(name, urn.parse().unwrap())
    }

    #[test]
    fn refs_to_a_name_become_its_urn() {
        let references = [reference("other.json", "urn:acme:schema:other:2")];
        let mut schema = json!({
            "properties": {
                "a": {"$ref": "other.json"},
                "b": {"$ref": "./other.json#/$defs/X"},
                "c": {"$ref": "#/$defs/local"},
                "d": {"const": {"$ref": "other.json"}},
                "e": {"items": [{"$ref": "nothing.json"}]}
            }
        });
        apply(&mut schema, &references);
        assert_eq!(schema["properties"]["a"]["$ref"], "urn:acme:schema:other:2");
        assert_eq!(
            schema["properties"]["b"]["$ref"],
            "urn:acme:schema:other:2#/$defs/X"
        );
        assert_eq!(schema["properties"]["c"]["$ref"], "#/$defs/local");
        assert_eq!(schema["properties"]["d"]["const"]["$ref"], "other.json");
        assert_eq!(
            schema["properties"]["e"]["items"][0]["$ref"],
            "nothing.json"
        );
    }

    #[test]
    fn refs_resolve_against_the_root_id() {
        let references = [reference("other.json", "urn:acme:schema:other:1")];
        let mut schema = json!({
            "$id": "https://acme.example/schemas/a.json",
            "$ref": "https://acme.example/schemas/other.json"
        });
        apply(&mut schema, &references);
        assert_eq!(schema["$ref"], "urn:acme:schema:other:1");
    }
}
