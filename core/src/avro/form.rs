//! An Avro datum in the form data contracts' rules see
//! ([`PayloadForm`]): the value `fastavro`'s `schemaless_reader` gives
//! Confluent's Python deserializer (confluent-kafka-python v2.16.1,
//! `_sync/avro.py`), records as objects, a union's value unwrapped, an
//! enum as its symbol, `bytes` and `fixed` as a string of one character
//! per byte (Avro's JSON encoding, since JSON has no bytes), a float that
//! is not finite as `"NaN"`, `"Infinity"`, `"-Infinity"`; and written back
//! with a schema as `fastavro`'s writer writes a dict: each union value
//! in the first branch that takes it, a missing field by its default.
//!
//! The walk follows `common/avro.py`'s `transform`: a field's `fullName`
//! is its record's full name and its own (`acme.Order.email`), its
//! `typeName` the type of the value (a union's branch: `NULL` for the
//! null branch, which reaches the rule), its tags its `confluent:tags`;
//! array items and map values are walked as the field itself.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::model::{AvroSchema, Node, NodeId};
use super::values::MAX_DEPTH;
use super::write::{self, takes, Branch};
use crate::rules::form::{FieldSite, FieldStop, FieldVisit, PayloadForm, Reading, ITEM};

/// The most values one datum may decode into (items of zero bytes, such
/// as `null`s, cost nothing on the wire).
const MAX_VALUES: usize = 1 << 24;

/// An Avro schema's form for rules.
#[derive(Debug)]
pub(crate) struct AvroForm {
    schema: Arc<AvroSchema>,
}

impl AvroForm {
    pub(crate) fn new(schema: Arc<AvroSchema>) -> AvroForm {
        AvroForm { schema }
    }
}

impl PayloadForm for AvroForm {
    fn decode(&self, payload: &[u8], _reading: Reading) -> Result<Value, String> {
        let mut reader = Decoder {
            schema: &self.schema,
            bytes: payload,
            pos: 0,
            values: 0,
        };
        let value = reader.value(self.schema.root, 0)?;
        if reader.pos != payload.len() {
            return Err(format!(
                "{} bytes follow the datum",
                payload.len() - reader.pos
            ));
        }
        Ok(value)
    }

    fn encode(&self, value: &Value) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        write::encode(
            &self.schema,
            self.schema.root,
            value,
            &mut out,
            Branch::Matching,
        )?;
        Ok(out)
    }

    fn walk(&self, value: &mut Value, visit: &mut FieldVisit<'_>) -> Result<(), FieldStop> {
        let mut walk = Walk {
            schema: &self.schema,
            visit,
        };
        walk.value(self.schema.root, value, None, "$", 0)
    }

    fn fields(&self) -> BTreeMap<String, Vec<String>> {
        let mut names = BTreeMap::new();
        for node in &self.schema.nodes {
            if let Node::Record(record) = node {
                for field in &record.fields {
                    names.insert(
                        format!("{}.{}", record.name, field.name),
                        field.tags.clone(),
                    );
                }
            }
        }
        names
    }

    fn root_fields(&self) -> BTreeSet<String> {
        match self.schema.node(self.schema.root) {
            Node::Record(record) => record.fields.iter().map(|f| f.name.clone()).collect(),
            _ => BTreeSet::new(),
        }
    }

    fn missing_step(&self, path: &[&str]) -> Option<usize> {
        // The types a step may be at: a union is each of its branches.
        let mut at = vec![self.schema.root];
        for (i, step) in path.iter().enumerate() {
            let (mut next, mut records, mut opaque) = (Vec::new(), false, false);
            let mut stack = at;
            while let Some(id) = stack.pop() {
                match self.schema.node(id) {
                    Node::Union(branches) => stack.extend(branches.iter().copied()),
                    Node::Null => {}
                    Node::Record(record) => {
                        records = true;
                        next.extend(
                            record
                                .fields
                                .iter()
                                .filter(|field| field.name == *step)
                                .map(|field| field.ty),
                        );
                    }
                    Node::Array(items) if *step == ITEM => next.push(*items),
                    Node::Map(values) => next.push(*values),
                    // A selection on a primitive, an enum, `fixed` or an
                    // array by name: no field name to check.
                    _ => opaque = true,
                }
            }
            if next.is_empty() {
                return (records && !opaque).then_some(i);
            }
            next.sort_unstable();
            next.dedup();
            at = next;
        }
        None
    }
}

struct Decoder<'a> {
    schema: &'a AvroSchema,
    bytes: &'a [u8],
    pos: usize,
    values: usize,
}

impl Decoder<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| format!("the datum ends early, at byte {}", self.bytes.len()))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn long(&mut self) -> Result<i64, String> {
        let mut n: u64 = 0;
        for shift in (0..70).step_by(7) {
            let byte = *self.take(1)?.first().unwrap_or(&0);
            if shift == 63 && byte > 1 {
                return Err(format!("a varint at byte {} is too long", self.pos));
            }
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(((n >> 1) as i64) ^ -((n & 1) as i64));
            }
        }
        Err(format!("a varint at byte {} is too long", self.pos))
    }

    fn len(&mut self) -> Result<usize, String> {
        let n = self.long()?;
        usize::try_from(n).map_err(|_| format!("a negative length {n} at byte {}", self.pos))
    }

    fn float(value: f64) -> Value {
        match Number::from_f64(value) {
            Some(n) => Value::Number(n),
            None if value.is_nan() => Value::String("NaN".to_owned()),
            None if value > 0.0 => Value::String("Infinity".to_owned()),
            None => Value::String("-Infinity".to_owned()),
        }
    }

    fn value(&mut self, id: NodeId, depth: u32) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("the datum nests more than {MAX_DEPTH} deep"));
        }
        self.values += 1;
        if self.values > MAX_VALUES {
            return Err(format!("the datum holds more than {MAX_VALUES} values"));
        }
        let schema = self.schema;
        Ok(match schema.node(id) {
            Node::Null => Value::Null,
            Node::Boolean => match self.take(1)?[0] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                other => return Err(format!("{other} is not a boolean")),
            },
            Node::Int(_) | Node::Long(_) => Value::from(self.long()?),
            Node::Float => {
                let b = self.take(4)?;
                Decoder::float(f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            }
            Node::Double => {
                let b = self.take(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                Decoder::float(f64::from_le_bytes(a))
            }
            Node::Bytes(_) => {
                let n = self.len()?;
                Value::String(self.take(n)?.iter().map(|&b| char::from(b)).collect())
            }
            Node::Fixed(fixed) => Value::String(
                self.take(fixed.size)?
                    .iter()
                    .map(|&b| char::from(b))
                    .collect(),
            ),
            Node::String(_) => {
                let n = self.len()?;
                let at = self.pos;
                let text = std::str::from_utf8(self.take(n)?)
                    .map_err(|_| format!("the string at byte {at} is not UTF-8"))?;
                Value::String(text.to_owned())
            }
            Node::Enum(e) => {
                let i = self.long()?;
                let symbol = usize::try_from(i)
                    .ok()
                    .and_then(|i| e.symbols.get(i))
                    .ok_or_else(|| format!("{i} is no symbol of enum {}", e.name))?;
                Value::String(symbol.clone())
            }
            Node::Union(branches) => {
                let i = self.long()?;
                let branch = usize::try_from(i)
                    .ok()
                    .and_then(|i| branches.get(i))
                    .ok_or_else(|| format!("{i} is no branch of the union"))?;
                self.value(*branch, depth + 1)?
            }
            Node::Array(items) => {
                let mut out = Vec::new();
                while let Some(count) = self.block()? {
                    for _ in 0..count {
                        out.push(self.value(*items, depth + 1)?);
                    }
                }
                Value::Array(out)
            }
            Node::Map(values) => {
                let mut out = Map::new();
                while let Some(count) = self.block()? {
                    for _ in 0..count {
                        let n = self.len()?;
                        let at = self.pos;
                        let key = std::str::from_utf8(self.take(n)?)
                            .map_err(|_| format!("the map key at byte {at} is not UTF-8"))?
                            .to_owned();
                        let value = self.value(*values, depth + 1)?;
                        out.insert(key, value);
                    }
                }
                Value::Object(out)
            }
            Node::Record(record) => {
                let mut out = Map::new();
                for field in &record.fields {
                    let value = self.value(field.ty, depth + 1)?;
                    out.insert(field.name.clone(), value);
                }
                Value::Object(out)
            }
        })
    }

    /// The count of the next block of an array or map, `None` at the end.
    fn block(&mut self) -> Result<Option<u64>, String> {
        let count = self.long()?;
        if count == 0 {
            return Ok(None);
        }
        if count < 0 {
            self.long()?; // the block's size in bytes
        }
        let count = count.unsigned_abs();
        if count > MAX_VALUES as u64 {
            return Err(format!("a block declares {count} items"));
        }
        Ok(Some(count))
    }
}

struct Walk<'s, 'v, 'f> {
    schema: &'s AvroSchema,
    visit: &'v mut FieldVisit<'f>,
}

/// The field being walked: its names, tags and holder.
struct At<'a> {
    full_name: &'a str,
    name: &'a str,
    tags: &'a [String],
    message: &'a Value,
}

impl Walk<'_, '_, '_> {
    fn value(
        &mut self,
        id: NodeId,
        value: &mut Value,
        field: Option<&At<'_>>,
        path: &str,
        depth: u32,
    ) -> Result<(), FieldStop> {
        // Only depth stops the walk, not a null value: a `null` (the null
        // branch of a `["null", T]` union) reaches the rule as `value`
        // null with `typeName` `NULL`, as confluent-kafka-python v2.16.1's
        // `common/avro.py` `transform` hands it over (lines 147-152: "A
        // `None` *value* is the null branch ... and has to reach the
        // rule"), and its `CelFieldExecutor` runs it (no null guard since
        // v2.16.1, `rules/cel/cel_field_executor.py` lines 36-39), as
        // Java's client does. A null record has no fields to walk.
        if depth > MAX_DEPTH {
            return Ok(());
        }
        let schema = self.schema;
        let type_name = match schema.node(id) {
            Node::Union(branches) => {
                let Some(&branch) = branches.iter().find(|&&b| takes(schema, b, value)) else {
                    return Ok(());
                };
                return self.value(branch, value, field, path, depth + 1);
            }
            Node::Array(items) => {
                if let Value::Array(values) = value {
                    for (i, v) in values.iter_mut().enumerate() {
                        self.value(*items, v, field, &format!("{path}[{i}]"), depth + 1)?;
                    }
                }
                return Ok(());
            }
            Node::Map(values) => {
                if let Value::Object(map) = value {
                    for (k, v) in map.iter_mut() {
                        self.value(*values, v, field, &format!("{path}.{k}"), depth + 1)?;
                    }
                }
                return Ok(());
            }
            Node::Record(record) => {
                let Value::Object(_) = value else {
                    return Ok(());
                };
                // The holder as the walk reached it (one copy a record,
                // not one a field).
                let holder = value.clone();
                for f in &record.fields {
                    // A field the datum lacks is passed over
                    // (`common/avro.py` line 192); a null one is walked.
                    if value.get(&f.name).is_none() {
                        continue;
                    }
                    let full_name = format!("{}.{}", record.name, f.name);
                    let at = At {
                        full_name: &full_name,
                        name: &f.name,
                        tags: &f.tags,
                        message: &holder,
                    };
                    let here = format!("{path}.{}", f.name);
                    if let Some(v) = value.get_mut(&f.name) {
                        self.value(f.ty, v, Some(&at), &here, depth + 1)?;
                    }
                }
                return Ok(());
            }
            Node::Enum(_) | Node::Fixed(_) => return Ok(()),
            Node::Null => "NULL",
            Node::Boolean => "BOOLEAN",
            Node::Int(_) => "INT",
            Node::Long(_) => "LONG",
            Node::Float => "FLOAT",
            Node::Double => "DOUBLE",
            Node::Bytes(_) => "BYTES",
            Node::String(_) => "STRING",
        };
        let Some(at) = field else {
            return Ok(());
        };
        let site = FieldSite {
            full_name: at.full_name,
            name: at.name,
            type_name,
            inline_tags: at.tags,
            path,
            message: at.message,
        };
        (self.visit)(&site, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(schema: &str) -> AvroForm {
        AvroForm::new(Arc::new(
            super::super::model::parse(schema.as_bytes()).unwrap(),
        ))
    }

    const ORDER: &str = r#"{"type":"record","name":"Order","namespace":"acme","fields":[
        {"name":"id","type":"long"},
        {"name":"email","type":["null","string"],"default":null,"confluent:tags":["PII"]},
        {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
        {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line",
            "fields":[{"name":"sku","type":"string","confluent:tags":["SKU"]},{"name":"qty","type":"int"}]}}},
        {"name":"raw","type":"bytes"},
        {"name":"ratio","type":"float"}]}"#;

    #[test]
    fn a_datum_reads_and_writes_back_the_same_bytes() {
        let form = form(ORDER);
        let value = serde_json::json!({
            "id": 7, "email": "a@b.c", "kind": "B",
            "lines": [{"sku": "x", "qty": 2}, {"sku": "y", "qty": -1}],
            "raw": "\u{0}\u{ff}", "ratio": "NaN"
        });
        let bytes = form.encode(&value).unwrap();
        let back = form.decode(&bytes, Reading::Rules).unwrap();
        assert_eq!(back, value);
        assert_eq!(form.encode(&back).unwrap(), bytes);
        // A missing nullable field with a default is written as it.
        let mut short = value.clone();
        short.as_object_mut().unwrap().remove("email");
        let decoded = form
            .decode(&form.encode(&short).unwrap(), Reading::Rules)
            .unwrap();
        assert_eq!(decoded["email"], Value::Null);
        // A missing field without a default is refused, naming it.
        short.as_object_mut().unwrap().remove("id");
        assert!(form.encode(&short).unwrap_err().contains("$.id"));
        // Trailing bytes, truncation.
        let mut long = bytes.clone();
        long.push(0);
        assert!(form
            .decode(&long, Reading::Rules)
            .unwrap_err()
            .contains("follow"));
        assert!(form
            .decode(&bytes[..3], Reading::Rules)
            .unwrap_err()
            .contains("ends"));
    }

    #[test]
    fn the_walk_names_fields_as_confluent_does() {
        let form = form(ORDER);
        let mut value = serde_json::json!({
            "id": 7, "email": "a@b.c", "kind": "B",
            "lines": [{"sku": "x", "qty": 2}], "raw": "", "ratio": 1.5
        });
        let mut seen = Vec::new();
        form.walk(&mut value, &mut |site, v| {
            seen.push(format!(
                "{} {} {} {:?} {}",
                site.full_name, site.name, site.type_name, site.inline_tags, site.path
            ));
            if site.type_name == "STRING" {
                *v = Value::String("XXX".to_owned());
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                "acme.Order.id id LONG [] $.id",
                "acme.Order.email email STRING [\"PII\"] $.email",
                "acme.Line.sku sku STRING [\"SKU\"] $.lines[0].sku",
                "acme.Line.qty qty INT [] $.lines[0].qty",
                "acme.Order.raw raw BYTES [] $.raw",
                "acme.Order.ratio ratio FLOAT [] $.ratio",
            ]
        );
        assert_eq!(value["email"], "XXX");
        assert_eq!(value["lines"][0]["sku"], "XXX");
        assert_eq!(form.fields()["acme.Line.sku"], ["SKU"]);
        assert!(form.root_fields().contains("lines"));
    }

    /// A union's null branch reaches the rule (`typeName` `NULL`, value
    /// null), as confluent-kafka-python v2.16.1's walk hands it over
    /// (`common/avro.py` `transform`, lines 147-152); v2.15.0 and this
    /// walk before skipped it, so a rule such as `value != null` never
    /// ran on an absent email.
    #[test]
    fn a_null_union_branch_reaches_the_rule() {
        let form = form(ORDER);
        let mut value = serde_json::json!({
            "id": 7, "email": null, "kind": "B", "lines": [], "raw": "", "ratio": 1.5
        });
        let mut seen = Vec::new();
        form.walk(&mut value, &mut |site, v| {
            seen.push(format!("{} {} {v}", site.full_name, site.type_name));
            Ok(())
        })
        .unwrap();
        assert!(
            seen.contains(&"acme.Order.email NULL null".to_owned()),
            "{seen:?}"
        );
        // A field the datum lacks is still passed over.
        value.as_object_mut().unwrap().remove("email");
        let mut seen = Vec::new();
        form.walk(&mut value, &mut |site, _| {
            seen.push(site.name.to_owned());
            Ok(())
        })
        .unwrap();
        assert!(!seen.contains(&"email".to_owned()), "{seen:?}");
    }
}
