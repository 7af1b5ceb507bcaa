//! Avro datums for the benches: realistic orders (our schema, `SCHEMA`,
//! `order`) and datums generated from the public schemas of
//! `benches/data/avro/` (`public_cases`): a seeded generator writing Avro's
//! binary encoding from a schema's JSON. Shared by `benches/avro_scan.rs`
//! and `benches/resolution.rs`.

use std::collections::HashMap;
use std::path::PathBuf;

pub const MESSAGES: usize = 1_000;

pub const SCHEMA: &str = r#"{
  "type": "record", "name": "Order", "namespace": "shop.orders",
  "fields": [
    {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "placed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
      {"name": "name", "type": "string"},
      {"name": "email", "type": ["null", "string"], "default": null},
      {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
        {"name": "street", "type": "string"},
        {"name": "city", "type": "string"},
        {"name": "zip", "type": "string"},
        {"name": "country", "type": {"type": "enum", "name": "Country", "symbols": ["DE", "FR", "NL", "US", "GB"]}}
      ]}}
    ]}},
    {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item", "fields": [
      {"name": "sku", "type": "string"},
      {"name": "quantity", "type": "int"},
      {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
      {"name": "weight", "type": "double"}
    ]}}},
    {"name": "labels", "type": {"type": "map", "values": "string"}},
    {"name": "gift", "type": "boolean"},
    {"name": "note", "type": ["null", "string"], "default": null}
  ]
}"#;

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

pub fn zigzag(value: i64, out: &mut Vec<u8>) {
    let mut n = ((value << 1) ^ (value >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

pub fn string(rng: &mut Rng, min: usize, spread: u64, out: &mut Vec<u8>) {
    let len = min + (rng.next() % spread) as usize;
    zigzag(len as i64, out);
    for _ in 0..len {
        out.push(b'a' + (rng.next() % 26) as u8);
    }
}

pub fn order(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let uuid = format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        rng.next() as u32,
        rng.next() as u16,
        rng.next() as u16,
        rng.next() as u16,
        rng.next() & 0xffff_ffff_ffff
    );
    zigzag(36, &mut out);
    out.extend_from_slice(uuid.as_bytes());
    zigzag(
        1_764_000_000_000 + (rng.next() % 1_000_000) as i64,
        &mut out,
    );
    string(rng, 8, 12, &mut out); // name
    if rng.next() & 1 == 0 {
        zigzag(1, &mut out);
        string(rng, 10, 15, &mut out);
    } else {
        zigzag(0, &mut out);
    }
    string(rng, 10, 20, &mut out); // street
    string(rng, 4, 10, &mut out); // city
    string(rng, 5, 1, &mut out); // zip
    zigzag((rng.next() % 5) as i64, &mut out);
    let items = 1 + rng.next() % 6;
    zigzag(items as i64, &mut out);
    for _ in 0..items {
        string(rng, 6, 6, &mut out);
        zigzag(1 + (rng.next() % 9) as i64, &mut out);
        let cents = (rng.next() % 100_000) as u32;
        let bytes = cents.to_be_bytes();
        zigzag(4, &mut out);
        out.extend_from_slice(&bytes);
        out.extend_from_slice(&((rng.next() % 10_000) as f64 / 100.0).to_le_bytes());
    }
    zigzag(0, &mut out);
    let labels = rng.next() % 3;
    if labels > 0 {
        zigzag(labels as i64, &mut out);
        for _ in 0..labels {
            string(rng, 3, 5, &mut out);
            string(rng, 3, 8, &mut out);
        }
    }
    zigzag(0, &mut out);
    out.push((rng.next() % 2) as u8);
    zigzag(0, &mut out);
    out
}

/// Random datums of a schema given as its JSON, written straight in Avro's
/// binary encoding (apache-avro then checks each one decodes).
pub struct Datums<'a> {
    named: HashMap<String, &'a serde_json::Value>,
    rng: Rng,
}

pub const PRIMITIVES: [&str; 8] = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

pub fn full_name(name: &str, space: &str) -> String {
    if name.contains('.') || space.is_empty() {
        name.to_owned()
    } else {
        format!("{space}.{name}")
    }
}

/// The namespace a named type's definition sets for what it holds.
pub fn space_of(def: &serde_json::Map<String, serde_json::Value>, enclosing: &str) -> String {
    let name = def.get("name").and_then(|n| n.as_str()).unwrap_or("");
    if let Some((space, _)) = name.rsplit_once('.') {
        return space.to_owned();
    }
    match def.get("namespace").and_then(|n| n.as_str()) {
        Some(space) => space.to_owned(),
        None => enclosing.to_owned(),
    }
}

impl<'a> Datums<'a> {
    pub fn new(schema: &'a serde_json::Value, seed: u64) -> Datums<'a> {
        let mut datums = Datums {
            named: HashMap::new(),
            rng: Rng(seed),
        };
        datums.collect(schema, "");
        datums
    }

    fn collect(&mut self, schema: &'a serde_json::Value, space: &str) {
        match schema {
            serde_json::Value::Array(branches) => {
                for b in branches {
                    self.collect(b, space);
                }
            }
            serde_json::Value::Object(def) => {
                let inner = space_of(def, space);
                if let Some(name) = def.get("name").and_then(|n| n.as_str()) {
                    let kind = def["type"].as_str().unwrap_or("");
                    if matches!(kind, "record" | "error" | "enum" | "fixed") {
                        self.named.insert(full_name(name, &inner), schema);
                    }
                }
                if let Some(fields) = def.get("fields").and_then(|f| f.as_array()) {
                    for field in fields {
                        self.collect(&field["type"], &inner);
                    }
                }
                for key in ["items", "values"] {
                    if let Some(inner_schema) = def.get(key) {
                        self.collect(inner_schema, &inner);
                    }
                }
                if let Some(t) = def.get("type").filter(|t| !t.is_string()) {
                    self.collect(t, &inner);
                }
            }
            _ => {}
        }
    }

    fn lookup(&self, name: &str, space: &str) -> (&'a serde_json::Value, String) {
        let def = self
            .named
            .get(&full_name(name, space))
            .or_else(|| self.named.get(name))
            .unwrap_or_else(|| panic!("the type {name} is defined"));
        let def_space = space_of(def.as_object().expect("a definition"), space);
        (*def, def_space)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.rng.next() % n.max(1)
    }

    fn text(&mut self, out: &mut Vec<u8>, min: u64, spread: u64) {
        let len = min + self.below(spread);
        zigzag(len as i64, out);
        for _ in 0..len {
            out.push(b'a' + self.below(26) as u8);
        }
    }

    /// A small or, now and then, large integer (so that some varints take
    /// several bytes).
    fn number(&mut self, bits: u32) -> i64 {
        let raw = self.rng.next() as i64;
        match self.below(4) {
            0 => raw >> (64 - bits),
            _ => (raw % 1000).abs(),
        }
    }

    /// One of the datagen schemas' `arg.properties.options`, when the type
    /// lists them and the value is of the type.
    fn option(
        &mut self,
        def: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<serde_json::Value> {
        let options = def.get("arg.properties")?.get("options")?.as_array()?;
        if options.is_empty() {
            return None;
        }
        Some(options[self.below(options.len() as u64) as usize].clone())
    }

    pub fn datum(
        &mut self,
        schema: &'a serde_json::Value,
        space: &str,
        depth: u32,
        out: &mut Vec<u8>,
    ) {
        match schema {
            serde_json::Value::String(name) => {
                if PRIMITIVES.contains(&name.as_str()) {
                    self.primitive(name, None, out);
                } else {
                    let (def, def_space) = self.lookup(name, space);
                    self.datum(def, &def_space, depth, out);
                }
            }
            serde_json::Value::Array(branches) => {
                // Deep in a recursive type, the null branch ends it.
                let index = match branches.iter().position(|b| b == "null") {
                    Some(null) if depth > 3 => null,
                    _ => self.below(branches.len() as u64) as usize,
                };
                zigzag(index as i64, out);
                self.datum(&branches[index], space, depth + 1, out);
            }
            serde_json::Value::Object(def) => {
                let kind = def["type"].clone();
                match kind.as_str() {
                    Some("record" | "error") => {
                        let inner = space_of(def, space);
                        for field in def["fields"].as_array().expect("fields") {
                            self.datum(&field["type"], &inner, depth + 1, out);
                        }
                    }
                    Some("enum") => {
                        let n = def["symbols"].as_array().expect("symbols").len();
                        zigzag(self.below(n as u64) as i64, out);
                    }
                    Some("fixed") => {
                        let size = def["size"].as_u64().expect("size") as usize;
                        if def.get("logicalType").and_then(|l| l.as_str()) == Some("decimal") {
                            let precision = def["precision"].as_u64().unwrap_or(1) as u32;
                            let bytes = self.decimal(precision);
                            let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
                            let pad = size.saturating_sub(bytes.len());
                            out.extend(std::iter::repeat_n(fill, pad));
                            out.extend_from_slice(&bytes[bytes.len().saturating_sub(size)..]);
                        } else {
                            for _ in 0..size {
                                out.push(self.rng.next() as u8);
                            }
                        }
                    }
                    Some("array") | Some("map") => {
                        let is_map = kind == "map";
                        let count = if depth > 3 { 0 } else { self.below(5) };
                        if count > 0 {
                            zigzag(count as i64, out);
                            for i in 0..count {
                                if is_map {
                                    let key = format!("key-{i}");
                                    zigzag(key.len() as i64, out);
                                    out.extend_from_slice(key.as_bytes());
                                }
                                let inner = if is_map {
                                    &def["values"]
                                } else {
                                    &def["items"]
                                };
                                self.datum(inner, space, depth + 1, out);
                            }
                        }
                        zigzag(0, out);
                    }
                    Some(primitive) if PRIMITIVES.contains(&primitive) => {
                        let primitive = primitive.to_owned();
                        self.primitive(&primitive, Some(def), out);
                    }
                    Some(name) => {
                        let (def, def_space) = self.lookup(name, space);
                        self.datum(def, &def_space, depth, out);
                    }
                    None => self.datum(&def["type"], space, depth, out),
                }
            }
            other => panic!("not a schema: {other}"),
        }
    }

    /// The big-endian two's complement of a value of at most `precision`
    /// digits (and 18).
    fn decimal(&mut self, precision: u32) -> Vec<u8> {
        let limit = 10i64.pow(precision.min(18));
        let value = (self.rng.next() as i64 % limit) / if self.below(2) == 0 { 1 } else { 1000 };
        let bytes = value.to_be_bytes();
        let mut start = 0;
        while start < 7
            && ((bytes[start] == 0 && bytes[start + 1] & 0x80 == 0)
                || (bytes[start] == 0xff && bytes[start + 1] & 0x80 != 0))
        {
            start += 1;
        }
        bytes[start..].to_vec()
    }

    fn primitive(
        &mut self,
        name: &str,
        def: Option<&serde_json::Map<String, serde_json::Value>>,
        out: &mut Vec<u8>,
    ) {
        let logical = def
            .and_then(|d| d.get("logicalType"))
            .and_then(|l| l.as_str());
        let option = def.and_then(|d| self.option(d));
        match (name, logical) {
            ("null", _) => {}
            ("boolean", _) => {
                let value = option
                    .and_then(|o| o.as_bool())
                    .unwrap_or(self.below(2) == 1);
                out.push(u8::from(value));
            }
            // Dates and times within their types' ranges (a reader that
            // makes dates of them, as fastavro does, can).
            ("int", Some("date")) => zigzag(18_000 + self.below(3_000) as i64, out),
            ("int", Some("time-millis")) => zigzag(self.below(86_400_000) as i64, out),
            ("long", Some("time-micros")) => zigzag(self.below(86_400_000_000) as i64, out),
            ("long", Some(l)) if l.ends_with("-millis") => {
                zigzag(1_700_000_000_000 + self.below(100_000_000_000) as i64, out)
            }
            ("long", Some(l)) if l.ends_with("-micros") => zigzag(
                1_700_000_000_000_000 + self.below(100_000_000_000_000) as i64,
                out,
            ),
            ("int", _) => {
                let value = option
                    .and_then(|o| o.as_i64())
                    .unwrap_or_else(|| self.number(32));
                zigzag(value, out);
            }
            ("long", _) => {
                let value = option
                    .and_then(|o| o.as_i64())
                    .unwrap_or_else(|| self.number(64));
                zigzag(value, out);
            }
            ("float", _) => out.extend_from_slice(&(self.below(10_000) as f32 / 7.0).to_le_bytes()),
            ("double", _) => {
                out.extend_from_slice(&(self.below(1_000_000) as f64 / 7.0).to_le_bytes())
            }
            ("bytes", Some("decimal")) => {
                let precision = def
                    .and_then(|d| d.get("precision"))
                    .and_then(|p| p.as_u64())
                    .unwrap_or(1) as u32;
                let bytes = self.decimal(precision);
                zigzag(bytes.len() as i64, out);
                out.extend_from_slice(&bytes);
            }
            ("bytes", _) => self.text(out, 0, 32),
            ("string", Some("uuid")) => {
                let uuid = format!(
                    "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                    self.rng.next() as u32,
                    self.rng.next() as u16,
                    self.rng.next() as u16,
                    self.rng.next() as u16,
                    self.rng.next() & 0xffff_ffff_ffff
                );
                zigzag(36, out);
                out.extend_from_slice(uuid.as_bytes());
            }
            ("string", _) => match option.as_ref().and_then(|o| o.as_str()) {
                Some(text) => {
                    zigzag(text.len() as i64, out);
                    out.extend_from_slice(text.as_bytes());
                }
                None => self.text(out, 4, 28),
            },
            (other, _) => panic!("not a primitive: {other}"),
        }
    }
}

/// A schema and its datums, with the name the table gives it.
pub struct Case {
    pub name: String,
    pub schema: String,
    pub payloads: Vec<Vec<u8>>,
}

/// The public schemas of `benches/data/avro/`, each with generated datums.
pub fn public_cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/data/avro");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("benches/data/avro")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "avsc"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{} schemas", files.len());
    files
        .iter()
        .map(|path| {
            let schema = std::fs::read_to_string(path).expect("readable");
            let json: serde_json::Value = serde_json::from_str(&schema).expect("JSON");
            let mut datums = Datums::new(&json, 7);
            let payloads = (0..MESSAGES)
                .map(|_| {
                    let mut out = Vec::new();
                    datums.datum(&json, "", 0, &mut out);
                    out
                })
                .collect();
            Case {
                name: path
                    .file_stem()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned(),
                schema,
                payloads,
            }
        })
        .collect()
}
