//! The Avro schema model: a schema's JSON text (`.avsc`) read into a flat
//! table of types ([`AvroSchema`]), which the validating scanner
//! ([`super::scan`]) and the compatibility engine ([`super::compat`]) both
//! start from.
//!
//! The reading follows the specification and Java's `Schema.Parser`, the
//! implementation Confluent runs: names and namespaces (a named type's full
//! name, its aliases resolved in its namespace, a reference by short name
//! found in the enclosing namespace first, then in the null namespace),
//! named types defined once and referenced by name (a record may name
//! itself: recursion), unions without a nested union or two branches of one
//! kind, enum symbols unique and the enum default one of them, fixed sizes,
//! field defaults checked against their type (a union's against its first
//! branch), and logical types on the types they annotate (an invalid
//! logical type is ignored, as Java ignores it: the value is its underlying
//! type). Every refusal names the place in the schema's JSON, as a JSON
//! pointer (`/fields/2/type`), and the rule.
//!
//! The schema is then parsed by `apache-avro` too, which must accept it, and
//! whose Parsing Canonical Form is the schema's canonical form; its 64-bit
//! Rabin fingerprint ([`rabin`]) is computed here.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

/// The index of a type in [`AvroSchema::nodes`].
pub(crate) type NodeId = u32;

/// A logical type, on the type it annotates (already checked: one on a
/// type it cannot annotate is not kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Logical {
    /// No logical type.
    None,
    /// `decimal` on `bytes` or `fixed`.
    Decimal { precision: u32, scale: u32 },
    /// `uuid` on `string` (the text is a UUID) or `fixed` of 16.
    Uuid,
    /// `date` on `int`.
    Date,
    /// `time-millis` on `int`.
    TimeMillis,
    /// `time-micros` on `long`.
    TimeMicros,
    /// `timestamp-millis` on `long`.
    TimestampMillis,
    /// `timestamp-micros` on `long`.
    TimestampMicros,
    /// `timestamp-nanos` on `long`.
    TimestampNanos,
    /// `local-timestamp-millis` on `long`.
    LocalTimestampMillis,
    /// `local-timestamp-micros` on `long`.
    LocalTimestampMicros,
    /// `local-timestamp-nanos` on `long`.
    LocalTimestampNanos,
    /// `duration` on `fixed` of 12.
    Duration,
}

/// One type of a schema.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Null,
    Boolean,
    Int(Logical),
    Long(Logical),
    Float,
    Double,
    Bytes(Logical),
    String(Logical),
    Array(NodeId),
    Map(NodeId),
    Union(Box<[NodeId]>),
    Record(Box<Record>),
    Enum(Box<Enum>),
    Fixed(Box<Fixed>),
}

/// A record's definition.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) name: String,
    pub(crate) aliases: Vec<String>,
    pub(crate) fields: Vec<Field>,
}

/// A field of a record.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) aliases: Vec<String>,
    pub(crate) ty: NodeId,
    pub(crate) default: Option<Value>,
    /// Its `confluent:tags` (data contracts' field rules select by them).
    pub(crate) tags: Vec<String>,
}

/// An enum's definition.
#[derive(Debug, Clone)]
pub(crate) struct Enum {
    pub(crate) name: String,
    pub(crate) aliases: Vec<String>,
    pub(crate) symbols: Vec<String>,
    pub(crate) default: Option<String>,
}

/// A fixed's definition.
#[derive(Debug, Clone)]
pub(crate) struct Fixed {
    pub(crate) name: String,
    pub(crate) aliases: Vec<String>,
    pub(crate) size: usize,
    pub(crate) logical: Logical,
}

impl Node {
    /// The full name of a named type.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Node::Record(r) => Some(&r.name),
            Node::Enum(e) => Some(&e.name),
            Node::Fixed(f) => Some(&f.name),
            _ => None,
        }
    }

    /// The aliases (full names) of a named type.
    pub(crate) fn aliases(&self) -> &[String] {
        match self {
            Node::Record(r) => &r.aliases,
            Node::Enum(e) => &e.aliases,
            Node::Fixed(f) => &f.aliases,
            _ => &[],
        }
    }

    /// The type's name as the specification writes it (`int`, `record`).
    pub(crate) fn kind_name(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Boolean => "boolean",
            Node::Int(_) => "int",
            Node::Long(_) => "long",
            Node::Float => "float",
            Node::Double => "double",
            Node::Bytes(_) => "bytes",
            Node::String(_) => "string",
            Node::Array(_) => "array",
            Node::Map(_) => "map",
            Node::Union(_) => "union",
            Node::Record(_) => "record",
            Node::Enum(_) => "enum",
            Node::Fixed(_) => "fixed",
        }
    }
}

/// An Avro schema, read and checked.
#[derive(Debug, Clone)]
pub struct AvroSchema {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
    canonical: String,
    fingerprint: i64,
}

impl AvroSchema {
    /// The schema's Parsing Canonical Form (Avro's specification; computed
    /// by `apache-avro`).
    pub fn canonical_form(&self) -> &str {
        &self.canonical
    }

    /// The 64-bit Rabin fingerprint of the canonical form (the CRC-64-AVRO
    /// of the specification), as Avro's Java `SchemaNormalization` gives it.
    pub fn fingerprint(&self) -> i64 {
        self.fingerprint
    }

    /// The full names of the named types the schema defines, in order.
    pub fn named_types(&self) -> impl Iterator<Item = &str> {
        self.nodes.iter().filter_map(Node::name)
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }
}

/// Why bytes are not a usable Avro schema: where (a JSON pointer into the
/// schema's JSON, empty for the whole) and the rule broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    location: String,
    reason: String,
}

impl SchemaError {
    pub(crate) fn new(location: &str, reason: impl Into<String>) -> SchemaError {
        SchemaError {
            location: location.to_owned(),
            reason: reason.into(),
        }
    }

    /// Where in the schema's JSON, as a JSON pointer (`/fields/1/type`);
    /// empty for the whole schema.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The rule broken, in words.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "at the schema's root: {}", self.reason)
        } else {
            write!(f, "at {}: {}", self.location, self.reason)
        }
    }
}

impl std::error::Error for SchemaError {}

/// The deepest nesting of types a schema may have (each array, map, union,
/// record field and inline named type counts one), so that reading it, and
/// everything that walks it, stays within the stack.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;

/// Reads an Avro schema's JSON text into the model (public for the
/// differential tests and benches; behind `unstable`).
#[cfg(feature = "unstable")]
pub fn parse_schema(bytes: &[u8]) -> Result<AvroSchema, SchemaError> {
    parse(bytes)
}

/// Reads a schema's JSON text.
pub(crate) fn parse(bytes: &[u8]) -> Result<AvroSchema, SchemaError> {
    let json: Value = serde_json::from_slice(bytes)
        .map_err(|err| SchemaError::new("", format!("the schema is not JSON: {err}")))?;
    parse_value(&json)
}

/// Reads a schema already parsed as JSON.
pub(crate) fn parse_value(json: &Value) -> Result<AvroSchema, SchemaError> {
    let mut reader = Reader {
        nodes: Vec::new(),
        names: HashMap::new(),
        primitives: [0; 8],
        depth: 0,
    };
    for (i, node) in [
        Node::Null,
        Node::Boolean,
        Node::Int(Logical::None),
        Node::Long(Logical::None),
        Node::Float,
        Node::Double,
        Node::Bytes(Logical::None),
        Node::String(Logical::None),
    ]
    .into_iter()
    .enumerate()
    {
        reader.primitives[i] = reader.push(node);
    }
    let root = reader.read(json, "")?;
    // The walk above bounds the nesting apache-avro recurses through; a
    // panic inside the crate on a shape it does not expect is a refusal,
    // never a crash. The JSON is handed over parsed: written out and read
    // again, a schema with its references' types written in (a chain of
    // 43 references) would pass `serde_json`'s 128 levels, and be refused
    // for a nesting no one wrote.
    std::panic::catch_unwind(|| apache_avro::Schema::parse(json).map(drop))
        .map_err(|_| SchemaError::new("", "Avro (apache-avro) fails on the schema"))?
        .map_err(|err| {
            SchemaError::new(
                "",
                format!(
                    "Avro (apache-avro) refuses the schema: {}",
                    crate::text::clip(&err.to_string(), 300)
                ),
            )
        })?;
    // The specification's form, not apache-avro's (which keeps `order`).
    let canonical = super::canonical::canonical_form(json);
    let fingerprint = rabin(canonical.as_bytes());
    Ok(AvroSchema {
        nodes: reader.nodes,
        root,
        canonical,
        fingerprint,
    })
}

/// The 64-bit Rabin fingerprint of the specification (CRC-64-AVRO), as a
/// signed number, the way Java's `SchemaNormalization.parsingFingerprint64`
/// returns it.
pub fn rabin(bytes: &[u8]) -> i64 {
    const EMPTY: u64 = 0xc15d_213a_a4d7_a795;
    static TABLE: std::sync::OnceLock<[u64; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = [0u64; 256];
        for (i, slot) in table.iter_mut().enumerate() {
            let mut fp = i as u64;
            for _ in 0..8 {
                fp = (fp >> 1) ^ (EMPTY & (0u64.wrapping_sub(fp & 1)));
            }
            *slot = fp;
        }
        table
    });
    let mut fp = EMPTY;
    for &b in bytes {
        fp = (fp >> 8) ^ table[((fp ^ u64::from(b)) & 0xff) as usize];
    }
    fp as i64
}

const PRIMITIVES: [&str; 8] = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

struct Reader {
    nodes: Vec<Node>,
    names: HashMap<String, NodeId>,
    primitives: [NodeId; 8],
    depth: usize,
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Reader {
    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        (self.nodes.len() - 1) as NodeId
    }

    fn err(&self, at: &str, reason: impl Into<String>) -> SchemaError {
        SchemaError::new(at, reason)
    }

    /// Reads the schema `json` found at `at` (a JSON pointer), in the
    /// enclosing namespace `space`.
    fn read(&mut self, json: &Value, at: &str) -> Result<NodeId, SchemaError> {
        self.read_in(json, at, "")
    }

    fn read_in(&mut self, json: &Value, at: &str, space: &str) -> Result<NodeId, SchemaError> {
        self.depth += 1;
        if self.depth > MAX_SCHEMA_DEPTH {
            return Err(self.err(
                at,
                format!("types nest deeper than {MAX_SCHEMA_DEPTH} levels"),
            ));
        }
        let result = match json {
            Value::String(name) => self.reference(name, at, space),
            Value::Array(branches) => self.union(branches, at, space),
            Value::Object(object) => self.object(object, at, space),
            other => Err(self.err(
                at,
                format!(
                    "a schema is a type name, an object or an array (a union), found {}",
                    json_type(other)
                ),
            )),
        };
        self.depth -= 1;
        result
    }

    fn reference(&mut self, name: &str, at: &str, space: &str) -> Result<NodeId, SchemaError> {
        if let Some(i) = PRIMITIVES.iter().position(|p| *p == name) {
            return Ok(self.primitives[i]);
        }
        let full = full_name(name, space);
        if let Some(&id) = self.names.get(&full) {
            return Ok(id);
        }
        if !name.contains('.') {
            if let Some(&id) = self.names.get(name) {
                return Ok(id);
            }
        }
        Err(self.err(
            at,
            format!(
                "{:?} is not a defined type (a type is named after it is defined, by its full \
                 name or its name in the enclosing namespace)",
                crate::text::clip(name, 100)
            ),
        ))
    }

    fn union(&mut self, branches: &[Value], at: &str, space: &str) -> Result<NodeId, SchemaError> {
        let mut ids = Vec::with_capacity(branches.len());
        let mut seen: Vec<String> = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            let here = format!("{at}/{i}");
            let id = self.read_in(branch, &here, space)?;
            let key = match self.node(id) {
                Node::Union(_) => {
                    return Err(self.err(&here, "a union may not immediately hold a union"))
                }
                node => node.name().map_or(node.kind_name(), |n| n).to_owned(),
            };
            if seen.contains(&key) {
                return Err(self.err(
                    &here,
                    format!("the union holds {key} twice (each type at most once)"),
                ));
            }
            seen.push(key);
            ids.push(id);
        }
        Ok(self.push(Node::Union(ids.into_boxed_slice())))
    }

    fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    fn object(
        &mut self,
        object: &Map<String, Value>,
        at: &str,
        space: &str,
    ) -> Result<NodeId, SchemaError> {
        let here = format!("{at}/type");
        let ty = match object.get("type") {
            Some(Value::String(ty)) => ty.as_str(),
            Some(nested @ (Value::Object(_) | Value::Array(_))) => {
                // `{"type": {...}}` is the nested schema (Java and
                // apache-avro read it so).
                return self.read_in(nested, &here, space);
            }
            Some(other) => {
                return Err(self.err(
                    &here,
                    format!("\"type\" is a type name, found {}", json_type(other)),
                ))
            }
            None => return Err(self.err(at, "a schema object needs a \"type\"")),
        };
        let logical = object.get("logicalType").and_then(Value::as_str);
        match ty {
            "record" | "error" => self.record(object, at, space),
            "enum" => self.enumeration(object, at, space),
            "fixed" => self.fixed(object, at, space, logical),
            "array" => {
                let items = object
                    .get("items")
                    .ok_or_else(|| self.err(at, "an array needs \"items\""))?;
                let items = self.read_in(items, &format!("{at}/items"), space)?;
                Ok(self.push(Node::Array(items)))
            }
            "map" => {
                let values = object
                    .get("values")
                    .ok_or_else(|| self.err(at, "a map needs \"values\""))?;
                let values = self.read_in(values, &format!("{at}/values"), space)?;
                Ok(self.push(Node::Map(values)))
            }
            primitive if PRIMITIVES.contains(&primitive) => {
                let base =
                    self.primitives[PRIMITIVES.iter().position(|p| *p == primitive).unwrap_or(0)];
                let logical = logical.map_or(Logical::None, |name| {
                    primitive_logical(primitive, name, object)
                });
                if logical == Logical::None {
                    return Ok(base);
                }
                let node = match primitive {
                    "int" => Node::Int(logical),
                    "long" => Node::Long(logical),
                    "bytes" => Node::Bytes(logical),
                    _ => Node::String(logical),
                };
                Ok(self.push(node))
            }
            // A named type's name as "type": Java and apache-avro read it
            // as that type.
            name => self.reference(name, &here, space),
        }
    }

    /// The name, namespace and aliases of a named type at `at`.
    fn naming(
        &self,
        object: &Map<String, Value>,
        at: &str,
        space: &str,
    ) -> Result<(String, String, Vec<String>), SchemaError> {
        let name = match object.get("name") {
            Some(Value::String(name)) => name.as_str(),
            Some(other) => {
                return Err(self.err(
                    &format!("{at}/name"),
                    format!("a name is a string, found {}", json_type(other)),
                ))
            }
            None => return Err(self.err(at, "a named type needs a \"name\"")),
        };
        let own_space = match object.get("namespace") {
            None | Some(Value::Null) => None,
            Some(Value::String(ns)) => Some(ns.as_str()),
            Some(other) => {
                return Err(self.err(
                    &format!("{at}/namespace"),
                    format!("a namespace is a string, found {}", json_type(other)),
                ))
            }
        };
        let full = if name.contains('.') {
            name.to_owned()
        } else {
            full_name(name, own_space.unwrap_or(space))
        };
        check_full_name(&full).map_err(|why| self.err(&format!("{at}/name"), why))?;
        if PRIMITIVES.contains(&full.as_str()) {
            return Err(self.err(
                &format!("{at}/name"),
                format!("{full:?} is a primitive type's name and cannot be defined"),
            ));
        }
        let type_space = full.rsplit_once('.').map_or("", |(ns, _)| ns).to_owned();
        let aliases = self.aliases(object, at, &type_space)?;
        if self.names.contains_key(&full) {
            return Err(self.err(&format!("{at}/name"), format!("{full:?} is defined twice")));
        }
        Ok((full, type_space, aliases))
    }

    fn aliases(
        &self,
        object: &Map<String, Value>,
        at: &str,
        space: &str,
    ) -> Result<Vec<String>, SchemaError> {
        match object.get("aliases") {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, alias)| match alias {
                    Value::String(alias) => {
                        let full = full_name(alias, space);
                        check_full_name(&full)
                            .map_err(|why| self.err(&format!("{at}/aliases/{i}"), why))?;
                        Ok(full)
                    }
                    other => Err(self.err(
                        &format!("{at}/aliases/{i}"),
                        format!("an alias is a string, found {}", json_type(other)),
                    )),
                })
                .collect(),
            Some(other) => Err(self.err(
                &format!("{at}/aliases"),
                format!(
                    "\"aliases\" is an array of names, found {}",
                    json_type(other)
                ),
            )),
        }
    }

    fn record(
        &mut self,
        object: &Map<String, Value>,
        at: &str,
        space: &str,
    ) -> Result<NodeId, SchemaError> {
        let (name, type_space, aliases) = self.naming(object, at, space)?;
        let fields = match object.get("fields") {
            Some(Value::Array(fields)) => fields,
            Some(other) => {
                return Err(self.err(
                    &format!("{at}/fields"),
                    format!("\"fields\" is an array, found {}", json_type(other)),
                ))
            }
            None => return Err(self.err(at, "a record needs \"fields\"")),
        };
        // Defined before its fields are read: a field may name the record.
        let id = self.push(Node::Record(Box::new(Record {
            name: name.clone(),
            aliases,
            fields: Vec::new(),
        })));
        self.names.insert(name, id);
        let mut read = Vec::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            let here = format!("{at}/fields/{i}");
            let Value::Object(field) = field else {
                return Err(self.err(
                    &here,
                    format!("a field is an object, found {}", json_type(field)),
                ));
            };
            let field_name = match field.get("name") {
                Some(Value::String(n)) => n.clone(),
                Some(other) => {
                    return Err(self.err(
                        &format!("{here}/name"),
                        format!("a field's name is a string, found {}", json_type(other)),
                    ))
                }
                None => return Err(self.err(&here, "a field needs a \"name\"")),
            };
            if !is_name(&field_name) {
                return Err(self.err(
                    &format!("{here}/name"),
                    format!(
                        "{:?} is not a valid field name ([A-Za-z_][A-Za-z0-9_]*)",
                        crate::text::clip(&field_name, 100)
                    ),
                ));
            }
            if read.iter().any(|f: &Field| f.name == field_name) {
                return Err(self.err(
                    &format!("{here}/name"),
                    format!("the record has two fields named {field_name:?}"),
                ));
            }
            let ty = field
                .get("type")
                .ok_or_else(|| self.err(&here, "a field needs a \"type\""))?;
            let ty = self.read_in(ty, &format!("{here}/type"), &type_space)?;
            let field_aliases = match field.get("aliases") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(j, alias)| {
                        alias.as_str().map(str::to_owned).ok_or_else(|| {
                            self.err(&format!("{here}/aliases/{j}"), "a field alias is a string")
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(self.err(
                        &format!("{here}/aliases"),
                        "\"aliases\" is an array of names",
                    ))
                }
            };
            if let Some(order) = field.get("order") {
                if !matches!(order.as_str(), Some("ascending" | "descending" | "ignore")) {
                    return Err(self.err(
                        &format!("{here}/order"),
                        "\"order\" is \"ascending\", \"descending\" or \"ignore\"",
                    ));
                }
            }
            let default = field.get("default").cloned();
            if let Some(value) = &default {
                if let Err(why) = self.valid_default(ty, value, 0) {
                    return Err(self.err(
                        &format!("{here}/default"),
                        format!(
                            "the default of field {field_name:?} is not a {}: {why}",
                            self.describe(ty)
                        ),
                    ));
                }
            }
            let tags = match field.get("confluent:tags") {
                Some(Value::Array(tags)) => tags
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => Vec::new(),
            };
            read.push(Field {
                name: field_name,
                aliases: field_aliases,
                ty,
                default,
                tags,
            });
        }
        if let Node::Record(record) = &mut self.nodes[id as usize] {
            record.fields = read;
        }
        Ok(id)
    }

    fn enumeration(
        &mut self,
        object: &Map<String, Value>,
        at: &str,
        space: &str,
    ) -> Result<NodeId, SchemaError> {
        let (name, _, aliases) = self.naming(object, at, space)?;
        let symbols = match object.get("symbols") {
            Some(Value::Array(symbols)) => symbols,
            Some(other) => {
                return Err(self.err(
                    &format!("{at}/symbols"),
                    format!("\"symbols\" is an array, found {}", json_type(other)),
                ))
            }
            None => return Err(self.err(at, "an enum needs \"symbols\"")),
        };
        let mut read: Vec<String> = Vec::with_capacity(symbols.len());
        for (i, symbol) in symbols.iter().enumerate() {
            let here = format!("{at}/symbols/{i}");
            let Value::String(symbol) = symbol else {
                return Err(self.err(&here, "a symbol is a string"));
            };
            if !is_name(symbol) {
                return Err(self.err(
                    &here,
                    format!(
                        "{:?} is not a valid symbol ([A-Za-z_][A-Za-z0-9_]*)",
                        crate::text::clip(symbol, 100)
                    ),
                ));
            }
            if read.contains(symbol) {
                return Err(self.err(&here, format!("the symbol {symbol:?} is listed twice")));
            }
            read.push(symbol.clone());
        }
        let default = match object.get("default") {
            None | Some(Value::Null) => None,
            Some(Value::String(d)) if read.contains(d) => Some(d.clone()),
            Some(other) => {
                return Err(self.err(
                    &format!("{at}/default"),
                    format!(
                        "an enum's default is one of its symbols, found {}",
                        crate::text::clip(&other.to_string(), 100)
                    ),
                ))
            }
        };
        let id = self.push(Node::Enum(Box::new(Enum {
            name: name.clone(),
            aliases,
            symbols: read,
            default,
        })));
        self.names.insert(name, id);
        Ok(id)
    }

    fn fixed(
        &mut self,
        object: &Map<String, Value>,
        at: &str,
        space: &str,
        logical: Option<&str>,
    ) -> Result<NodeId, SchemaError> {
        let (name, _, aliases) = self.naming(object, at, space)?;
        let size = object
            .get("size")
            .and_then(Value::as_u64)
            .and_then(|s| usize::try_from(s).ok())
            .filter(|s| *s <= i32::MAX as usize)
            .ok_or_else(|| {
                self.err(
                    &format!("{at}/size"),
                    "a fixed needs a \"size\", an integer from 0",
                )
            })?;
        let logical = match logical {
            Some("decimal") => decimal(object, Some(size)),
            Some("duration") if size == 12 => Logical::Duration,
            Some("uuid") if size == 16 => Logical::Uuid,
            _ => Logical::None,
        };
        let id = self.push(Node::Fixed(Box::new(Fixed {
            name: name.clone(),
            aliases,
            size,
            logical,
        })));
        self.names.insert(name, id);
        Ok(id)
    }

    fn describe(&self, id: NodeId) -> String {
        let node = self.node(id);
        match (node.name(), node) {
            (Some(name), _) => format!("{} {name}", node.kind_name()),
            (None, Node::Int(l) | Node::Long(l) | Node::Bytes(l) | Node::String(l))
                if *l != Logical::None =>
            {
                format!("{} ({l:?})", node.kind_name())
            }
            _ => node.kind_name().to_owned(),
        }
    }

    /// Whether `value` is a valid default of type `id` (Java's
    /// `Schema.isValidDefault`); `Err` says why not.
    fn valid_default(&self, id: NodeId, value: &Value, depth: usize) -> Result<(), String> {
        if depth > 2 * MAX_SCHEMA_DEPTH {
            return Err("the value nests too deep".into());
        }
        let found = || format!("found {}", crate::text::clip(&value.to_string(), 60));
        let ok = match (self.node(id), value) {
            (Node::Null, Value::Null) => true,
            (Node::Boolean, Value::Bool(_)) => true,
            (Node::Int(_), Value::Number(n)) => {
                n.as_i64().is_some_and(|n| i32::try_from(n).is_ok())
            }
            (Node::Long(_), Value::Number(n)) => n.as_i64().is_some(),
            (Node::Float | Node::Double, Value::Number(_)) => true,
            (Node::Float | Node::Double, Value::String(s)) => {
                matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity")
            }
            (Node::Bytes(_) | Node::String(_) | Node::Fixed(_), Value::String(_)) => true,
            (Node::Enum(e), Value::String(s)) => e.symbols.contains(s),
            (Node::Array(items), Value::Array(values)) => {
                for (i, v) in values.iter().enumerate() {
                    self.valid_default(*items, v, depth + 1)
                        .map_err(|why| format!("item {i}: {why}"))?;
                }
                true
            }
            (Node::Map(values), Value::Object(map)) => {
                for (k, v) in map {
                    self.valid_default(*values, v, depth + 1)
                        .map_err(|why| format!("key {:?}: {why}", crate::text::clip(k, 60)))?;
                }
                true
            }
            (Node::Union(branches), v) => {
                return match branches.first() {
                    Some(first) => self
                        .valid_default(*first, v, depth + 1)
                        .map_err(|why| format!("a union's default is of its first branch: {why}")),
                    None => Err("an empty union has no value".into()),
                }
            }
            (Node::Record(record), Value::Object(map)) => {
                for field in &record.fields {
                    match (map.get(&field.name), &field.default) {
                        (Some(v), _) => self
                            .valid_default(field.ty, v, depth + 1)
                            .map_err(|why| format!("field {:?}: {why}", field.name))?,
                        (None, Some(_)) => {}
                        (None, None) => {
                            return Err(format!(
                                "field {:?} is missing and has no default",
                                field.name
                            ))
                        }
                    }
                }
                true
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(found())
        }
    }
}

/// `name` in namespace `space` (a name with a dot is full already).
pub(crate) fn full_name(name: &str, space: &str) -> String {
    if name.contains('.') || space.is_empty() {
        name.to_owned()
    } else {
        format!("{space}.{name}")
    }
}

fn check_full_name(full: &str) -> Result<(), String> {
    if full.split('.').all(is_name) {
        Ok(())
    } else {
        Err(format!(
            "{:?} is not a valid name (dot-separated parts, each [A-Za-z_][A-Za-z0-9_]*)",
            crate::text::clip(full, 100)
        ))
    }
}

/// A logical type on a primitive, as Java reads it (an invalid one is
/// ignored: `Logical::None`).
pub(crate) fn primitive_logical(
    primitive: &str,
    name: &str,
    object: &Map<String, Value>,
) -> Logical {
    match (primitive, name) {
        ("bytes", "decimal") => decimal(object, None),
        ("string", "uuid") => Logical::Uuid,
        ("int", "date") => Logical::Date,
        ("int", "time-millis") => Logical::TimeMillis,
        ("long", "time-micros") => Logical::TimeMicros,
        ("long", "timestamp-millis") => Logical::TimestampMillis,
        ("long", "timestamp-micros") => Logical::TimestampMicros,
        ("long", "timestamp-nanos") => Logical::TimestampNanos,
        ("long", "local-timestamp-millis") => Logical::LocalTimestampMillis,
        ("long", "local-timestamp-micros") => Logical::LocalTimestampMicros,
        ("long", "local-timestamp-nanos") => Logical::LocalTimestampNanos,
        _ => Logical::None,
    }
}

/// A decimal's precision and scale, checked as Java checks them (on a
/// fixed, the precision its size can hold); invalid: `Logical::None`.
pub(crate) fn decimal(object: &Map<String, Value>, fixed_size: Option<usize>) -> Logical {
    let Some(precision) = object
        .get("precision")
        .and_then(Value::as_u64)
        .and_then(|p| u32::try_from(p).ok())
        .filter(|p| *p > 0)
    else {
        return Logical::None;
    };
    let scale = match object.get("scale") {
        None => 0,
        Some(scale) => match scale.as_u64().and_then(|s| u32::try_from(s).ok()) {
            Some(scale) => scale,
            None => return Logical::None,
        },
    };
    if scale > precision {
        return Logical::None;
    }
    if let Some(size) = fixed_size {
        // floor(log10(2^(8 * size - 1) - 1))
        let max = if size == 0 {
            0.0
        } else {
            ((8 * size - 1) as f64 * 2f64.log10()).floor()
        };
        if f64::from(precision) > max {
            return Logical::None;
        }
    }
    Logical::Decimal { precision, scale }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rabin_of_null() {
        assert_eq!(rabin(b"\"null\""), 7195948357588979594);
    }

    #[test]
    fn refusals_name_their_place() {
        let err = parse(
            br#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}"#,
        )
        .unwrap_err();
        assert_eq!(err.location(), "/fields/0/default");
        let err = parse(br#"{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}"#)
            .unwrap_err();
        assert_eq!(err.location(), "/fields/0/type");
        let err = parse(br#"["int","int"]"#).unwrap_err();
        assert_eq!(err.location(), "/1");
    }

    #[test]
    fn recursion_is_a_reference() {
        let schema = parse(
            br#"{"type":"record","name":"Node","fields":[
                {"name":"next","type":["null","Node"],"default":null}]}"#,
        )
        .unwrap();
        let Node::Record(record) = schema.node(schema.root) else {
            panic!()
        };
        let Node::Union(branches) = schema.node(record.fields[0].ty) else {
            panic!()
        };
        assert_eq!(branches[1], schema.root);
    }
}
