//! Avro's Parsing Canonical Form, written from the schema's JSON as the
//! specification defines it (`apache-avro` 0.22's keeps `order`, which the
//! specification strips, so its form and fingerprint differ from Java's on
//! a field with an `order`; Avro's own `schema-tests.txt` is the test).
//!
//! The rules, in the specification's names: `[PRIMITIVES]` a primitive
//! schema is its name (`{"type":"int","logicalType":...}` is `"int"`);
//! `[FULLNAMES]` every name and reference is a full name, under the
//! namespace that applies; `[STRIP]` only `type`, `name`, `fields`,
//! `symbols`, `items`, `values` and `size` are kept; `[ORDER]` in that
//! order; `[STRINGS]` strings as JSON writes them; `[INTEGERS]` sizes as plain
//! integers; `[WHITESPACE]` none. A named type met again is written as its
//! full name only.
//!
//! The schema given is one the model ([`super::model`]) has read without
//! refusal, so its shapes are Avro's; anything else is written as its JSON
//! text rather than refused.

use std::collections::HashSet;

use serde_json::Value;

const PRIMITIVES: [&str; 8] = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

/// The Parsing Canonical Form of a schema's JSON.
pub(crate) fn canonical_form(schema: &Value) -> String {
    let mut out = String::new();
    write(schema, "", &mut HashSet::new(), &mut out);
    out
}

fn quote(text: &str, out: &mut String) {
    out.push_str(&Value::from(text).to_string());
}

/// The full name of `name` under the namespace `namespace` (empty: the
/// null namespace); a name holding a dot is full already.
fn full_name(name: &str, namespace: &str) -> String {
    if name.contains('.') || namespace.is_empty() {
        name.to_owned()
    } else {
        format!("{namespace}.{name}")
    }
}

/// The namespace of a full name: what precedes its last dot.
fn namespace_of(full: &str) -> &str {
    full.rfind('.').map_or("", |dot| &full[..dot])
}

fn write(schema: &Value, namespace: &str, seen: &mut HashSet<String>, out: &mut String) {
    match schema {
        Value::String(name) if PRIMITIVES.contains(&name.as_str()) => quote(name, out),
        Value::String(name) => quote(&full_name(name, namespace), out),
        Value::Array(branches) => {
            out.push('[');
            for (i, branch) in branches.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(branch, namespace, seen, out);
            }
            out.push(']');
        }
        Value::Object(object) => match object.get("type") {
            Some(Value::String(kind)) => match kind.as_str() {
                kind if PRIMITIVES.contains(&kind) => quote(kind, out),
                "record" | "error" | "enum" | "fixed" => {
                    let Some(name) = object.get("name").and_then(Value::as_str) else {
                        out.push_str(&schema.to_string());
                        return;
                    };
                    let space = match object.get("namespace") {
                        Some(Value::String(space)) => space.as_str(),
                        Some(Value::Null) => "",
                        _ => namespace,
                    };
                    let full = full_name(name, space);
                    if !seen.insert(full.clone()) {
                        quote(&full, out);
                        return;
                    }
                    out.push_str("{\"name\":");
                    quote(&full, out);
                    out.push_str(",\"type\":");
                    quote(kind, out);
                    let inner = namespace_of(&full);
                    match kind.as_str() {
                        "enum" => {
                            out.push_str(",\"symbols\":[");
                            let symbols = object.get("symbols").and_then(Value::as_array);
                            for (i, symbol) in symbols.into_iter().flatten().enumerate() {
                                if i > 0 {
                                    out.push(',');
                                }
                                out.push_str(&symbol.to_string());
                            }
                            out.push(']');
                        }
                        "fixed" => {
                            out.push_str(",\"size\":");
                            match object.get("size") {
                                Some(Value::String(size)) => {
                                    let digits = size.trim_start_matches('0');
                                    out.push_str(if digits.is_empty() { "0" } else { digits });
                                }
                                Some(size) => out.push_str(&size.to_string()),
                                None => out.push('0'),
                            }
                        }
                        _ => {
                            out.push_str(",\"fields\":[");
                            let fields = object.get("fields").and_then(Value::as_array);
                            for (i, field) in fields.into_iter().flatten().enumerate() {
                                if i > 0 {
                                    out.push(',');
                                }
                                out.push_str("{\"name\":");
                                quote(field.get("name").and_then(Value::as_str).unwrap_or(""), out);
                                out.push_str(",\"type\":");
                                match field.get("type") {
                                    Some(ty) => write(ty, inner, seen, out),
                                    None => out.push_str("null"),
                                }
                                out.push('}');
                            }
                            out.push(']');
                        }
                    }
                    out.push('}');
                }
                "array" => {
                    out.push_str("{\"type\":\"array\",\"items\":");
                    match object.get("items") {
                        Some(items) => write(items, namespace, seen, out),
                        None => out.push_str("null"),
                    }
                    out.push('}');
                }
                "map" => {
                    out.push_str("{\"type\":\"map\",\"values\":");
                    match object.get("values") {
                        Some(values) => write(values, namespace, seen, out),
                        None => out.push_str("null"),
                    }
                    out.push('}');
                }
                // `{"type": "com.acme.Name"}`: a reference.
                reference => quote(&full_name(reference, namespace), out),
            },
            // `{"type": {...}}` or `{"type": [...]}`: the type it wraps.
            Some(inner) => write(inner, namespace, seen, out),
            None => out.push_str(&schema.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical_form;
    use serde_json::json;

    #[test]
    fn strips_order_and_qualifies_names() {
        let schema = json!({
            "type": "record", "name": "foo", "namespace": "x.y", "doc": "d",
            "fields": [
                {"name": "f1", "type": "boolean", "default": true, "aliases": []},
                {"name": "f2", "type": {"type": "int", "logicalType": "date"}, "order": "descending"},
                {"name": "f3", "type": ["null", "foo"]}
            ]
        });
        assert_eq!(
            canonical_form(&schema),
            r#"{"name":"x.y.foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"},{"name":"f3","type":["null","x.y.foo"]}]}"#
        );
    }
}
