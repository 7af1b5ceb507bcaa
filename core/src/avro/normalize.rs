//! Confluent's `normalize=true` for Avro: the schema written in one form,
//! so that two texts of one schema register as one.
//!
//! The form is the one Confluent's `AvroSchemaUtils.toNormalizedString`
//! writes (adapted from Avro's `SchemaNormalization`): every named type
//! under its full name (no `namespace` member), members in a fixed order —
//! a named type's `name`, `type`, then `symbols`, `size` or `fields`, its
//! logical type, `doc`, `aliases` (full names, sorted), an enum's
//! `default`, then every other property sorted by key; a field's `name`,
//! `type`, `order`, `doc`, `aliases` (sorted), `default`, then its other
//! properties sorted; a primitive as its name unless it has a logical type
//! (`{"type":"int","logicalType":"date"}`) or other properties; a type met
//! again, or defined by a reference, as its full name. The normalized
//! schema's references are its own, sorted.
//!
//! Where this form differs from the Java code's output, on purpose: a
//! logical type's members (`logicalType`, `precision`, `scale`) are
//! written once (Java also writes them again among the properties, as its
//! parser keeps them as properties); `order` is written only when it is
//! not `ascending` (Java's stored form, its `toString`, omits it too); a
//! default is the JSON as written, compact (Java writes its value as read
//! into Java types); every type a reference defines is written as a name
//! (Java does so for each reference's top-level type only, and writes a
//! nested one out again).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::model::{self, Logical};
use super::names;
use crate::error::Error;
use crate::resolver::Resolver;
use crate::schema::{Language, Schema};

const PRIMITIVES: [&str; 8] = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

/// The members of a named type or other complex type that are not
/// properties.
const TYPE_RESERVED: [&str; 10] = [
    "doc",
    "fields",
    "items",
    "name",
    "namespace",
    "size",
    "symbols",
    "values",
    "type",
    "aliases",
];

/// The members of a field that are not properties.
const FIELD_RESERVED: [&str; 6] = ["default", "doc", "name", "order", "type", "aliases"];

/// The members a valid logical type writes itself.
const LOGICAL: [&str; 3] = ["logicalType", "precision", "scale"];

/// `schema` normalized, when it is Avro: the same URN, references,
/// metadata and rule set, its bytes the normalized text. The schema must
/// be readable over its references (resolved through `refs`):
/// [`Error::SchemaUnusable`] otherwise. Other languages are answered as
/// they are.
///
/// ```
/// use dataschema::{avsc, Resolver, Schema, Urn};
///
/// struct Nothing;
/// impl Resolver for Nothing {
///     fn resolve(&self, urn: &Urn) -> Result<Schema, dataschema::Error> {
///         Err(dataschema::Error::NotFound { urn: urn.clone() })
///     }
/// }
/// let urn: Urn = "urn:acme:schema:payment:1".parse()?;
/// let a = Schema::avro(urn.clone(), r#"{"namespace": "acme", "type": "record", "name": "P",
///     "fields": [{"type": {"type": "string"}, "name": "id"}]}"#);
/// let b = Schema::avro(urn, r#"{"type": "record", "name": "acme.P",
///     "fields": [{"name": "id", "type": "string"}]}"#);
/// let (a, b) = (avsc::normalize(&a, &Nothing)?, avsc::normalize(&b, &Nothing)?);
/// assert_eq!(a.bytes(), b.bytes());
/// assert_eq!(
///     std::str::from_utf8(a.bytes()).unwrap(),
///     r#"{"name":"acme.P","type":"record","fields":[{"name":"id","type":"string"}]}"#
/// );
/// # Ok::<(), dataschema::Error>(())
/// ```
pub fn normalize(schema: &Schema, refs: &dyn Resolver) -> Result<Schema, Error> {
    if schema.language() != Language::Avro {
        return Ok(schema.clone());
    }
    let unusable = |message: String| Error::SchemaUnusable {
        urn: schema.urn().clone(),
        source: message.into(),
    };
    let original = names::read(schema, refs).map_err(|err| unusable(err.to_string()))?;
    let definitions = if schema.references().is_empty() {
        names::Definitions::default()
    } else {
        match names::collect(schema, refs) {
            Ok(definitions) => definitions,
            Err(err) => return Err(unusable(names::ReadError::Definitions(err).to_string())),
        }
    };
    let json: Value = serde_json::from_slice(schema.bytes())
        .map_err(|err| unusable(format!("the schema is not JSON: {err}")))?;
    let mut writer = Writer {
        defined: definitions.names().into_iter().map(str::to_owned).collect(),
        out: String::with_capacity(schema.bytes().len()),
    };
    writer.schema(&json, "");
    let normalized = Schema::new(schema.urn().clone(), Language::Avro, writer.out, None)
        .with_references(schema.references().iter().cloned())
        .with_metadata(schema.metadata().cloned())
        .with_rule_set(schema.rule_set().cloned());
    // The same schema, or the text as it was: normalizing never changes
    // what a schema means.
    match names::read(&normalized, refs) {
        Ok(read) if read.canonical_form() == original.canonical_form() => Ok(normalized),
        _ => Ok(schema.clone()),
    }
}

struct Writer {
    /// The full names defined so far (a reference's types first).
    defined: HashSet<String>,
    out: String,
}

fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

fn namespace_of(full: &str) -> &str {
    full.rfind('.').map_or("", |dot| &full[..dot])
}

impl Writer {
    fn push(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// The full name `name`, used in namespace `space`, stands for (the
    /// model's lookup: the full name in the namespace, then the name as
    /// written).
    fn reference(&self, name: &str, space: &str) -> String {
        let full = model::full_name(name, space);
        if self.defined.contains(&full) || name.contains('.') || !self.defined.contains(name) {
            full
        } else {
            name.to_owned()
        }
    }

    fn schema(&mut self, json: &Value, space: &str) {
        match json {
            Value::String(name) if PRIMITIVES.contains(&name.as_str()) => self.push(&quoted(name)),
            Value::String(name) => {
                let full = self.reference(name, space);
                self.push(&quoted(&full));
            }
            Value::Array(branches) => {
                self.push("[");
                for (i, branch) in branches.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.schema(branch, space);
                }
                self.push("]");
            }
            Value::Object(object) => self.object(object, space),
            // Not a schema: the model refused it before.
            other => self.push(&other.to_string()),
        }
    }

    fn object(&mut self, object: &Map<String, Value>, space: &str) {
        let kind = match object.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            Some(inner) => return self.schema(inner, space),
            None => return self.push(&Value::Object(object.clone()).to_string()),
        };
        let logical_name = object.get("logicalType").and_then(Value::as_str);
        match kind {
            "record" | "error" | "enum" | "fixed" => self.named(object, kind, space),
            "array" | "map" => {
                let key = if kind == "array" { "items" } else { "values" };
                self.push(&format!("{{\"type\":{},{}:", quoted(kind), quoted(key)));
                match object.get(key) {
                    Some(inner) => self.schema(inner, space),
                    None => self.push("null"),
                }
                self.properties(object, &TYPE_RESERVED, &[]);
                self.push("}");
            }
            primitive if PRIMITIVES.contains(&primitive) => {
                let logical = logical_name.map_or(Logical::None, |name| {
                    model::primitive_logical(primitive, name, object)
                });
                let has_properties = object.keys().any(|key| key != "type");
                if logical == Logical::None && !has_properties {
                    return self.push(&quoted(primitive));
                }
                self.push(&format!("{{\"type\":{}", quoted(primitive)));
                let skip = self.logical(object, logical);
                self.properties(object, &TYPE_RESERVED, skip);
                self.push("}");
            }
            // `{"type": "acme.Money"}`: a reference.
            name => {
                let full = self.reference(name, space);
                self.push(&quoted(&full));
            }
        }
    }

    /// Writes a valid logical type's members; the members then not
    /// written again as properties.
    fn logical(
        &mut self,
        object: &Map<String, Value>,
        logical: Logical,
    ) -> &'static [&'static str] {
        if logical == Logical::None {
            return &[];
        }
        let name = object
            .get("logicalType")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.push(&format!(",\"logicalType\":{}", quoted(name)));
        if let Logical::Decimal { precision, scale } = logical {
            self.push(&format!(",\"precision\":{precision}"));
            if scale != 0 {
                self.push(&format!(",\"scale\":{scale}"));
            }
        }
        &LOGICAL
    }

    fn named(&mut self, object: &Map<String, Value>, kind: &str, space: &str) {
        let name = object
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let own_space = match object.get("namespace") {
            Some(Value::String(ns)) => ns.as_str(),
            Some(Value::Null) => "",
            _ => space,
        };
        let full = if name.contains('.') {
            name.to_owned()
        } else {
            model::full_name(name, own_space)
        };
        if !self.defined.insert(full.clone()) {
            return self.push(&quoted(&full));
        }
        let inner = namespace_of(&full).to_owned();
        self.push(&format!(
            "{{\"name\":{},\"type\":{}",
            quoted(&full),
            quoted(kind)
        ));
        let mut logical = Logical::None;
        match kind {
            "enum" => {
                self.push(",\"symbols\":");
                let symbols = object.get("symbols").cloned().unwrap_or(Value::Null);
                self.push(&symbols.to_string());
            }
            "fixed" => {
                let size = object.get("size").and_then(Value::as_u64).unwrap_or(0);
                self.push(&format!(",\"size\":{size}"));
                logical = match object.get("logicalType").and_then(Value::as_str) {
                    Some("decimal") => model::decimal(object, usize::try_from(size).ok()),
                    Some("duration") if size == 12 => Logical::Duration,
                    Some("uuid") if size == 16 => Logical::Uuid,
                    _ => Logical::None,
                };
            }
            _ => {
                self.push(",\"fields\":[");
                let fields = object.get("fields").and_then(Value::as_array);
                for (i, field) in fields.into_iter().flatten().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.field(field, &inner);
                }
                self.push("]");
            }
        }
        let skip = self.logical(object, logical);
        if let Some(doc) = object.get("doc").and_then(Value::as_str) {
            if !doc.is_empty() {
                self.push(&format!(",\"doc\":{}", quoted(doc)));
            }
        }
        let mut aliases: Vec<String> = object
            .get("aliases")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|alias| model::full_name(alias, &inner))
            .collect();
        aliases.sort();
        aliases.dedup();
        if !aliases.is_empty() {
            self.push(&format!(",\"aliases\":{}", Value::from(aliases)));
        }
        let mut reserved: Vec<&str> = TYPE_RESERVED.to_vec();
        if kind == "enum" {
            if let Some(default) = object.get("default").filter(|d| !d.is_null()) {
                self.push(&format!(",\"default\":{default}"));
            }
            reserved.push("default");
        }
        self.properties(object, &reserved, skip);
        self.push("}");
    }

    fn field(&mut self, field: &Value, space: &str) {
        let Some(field) = field.as_object() else {
            return self.push(&field.to_string());
        };
        let name = field
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.push(&format!("{{\"name\":{},\"type\":", quoted(name)));
        match field.get("type") {
            Some(ty) => self.schema(ty, space),
            None => self.push("null"),
        }
        if let Some(order) = field.get("order").and_then(Value::as_str) {
            if order != "ascending" {
                self.push(&format!(",\"order\":{}", quoted(order)));
            }
        }
        if let Some(doc) = field.get("doc").and_then(Value::as_str) {
            self.push(&format!(",\"doc\":{}", quoted(doc)));
        }
        let mut aliases: Vec<&str> = field
            .get("aliases")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        aliases.sort_unstable();
        aliases.dedup();
        if !aliases.is_empty() {
            self.push(&format!(",\"aliases\":{}", Value::from(aliases)));
        }
        if let Some(default) = field.get("default") {
            self.push(&format!(",\"default\":{default}"));
        }
        self.properties(field, &FIELD_RESERVED, &[]);
        self.push("}");
    }

    /// The members of `object` that are neither `reserved` nor `skip`,
    /// sorted by key.
    fn properties(&mut self, object: &Map<String, Value>, reserved: &[&str], skip: &[&str]) {
        let mut keys: Vec<&String> = object
            .keys()
            .filter(|key| !reserved.contains(&key.as_str()) && !skip.contains(&key.as_str()))
            .collect();
        keys.sort();
        for key in keys {
            self.push(&format!(",{}:{}", quoted(key), object[key]));
        }
    }
}
