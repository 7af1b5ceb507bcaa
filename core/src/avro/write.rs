//! JSON values written in Avro's binary encoding: a reader's field
//! defaults when a resolution plan is made (`resolution.rs`), and a
//! payload rebuilt after data-contract rules changed it (`form.rs`). One
//! encoder for both, so a value means the same bytes wherever it is
//! written; they differ only in how a union's branch is picked.

use serde_json::{Number, Value};

use super::model::{AvroSchema, Node, NodeId};
use super::values::MAX_DEPTH;

/// How a union's branch is picked for a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Branch {
    /// The first branch, as the specification writes a field's default.
    First,
    /// The first branch that takes the value ([`takes`]), as a writer
    /// picks one for a datum.
    Matching,
}

/// `value` written as type `id` of `schema` onto `out`; an error names
/// where (`$.field[2]`) and why.
pub(crate) fn encode(
    schema: &AvroSchema,
    id: NodeId,
    value: &Value,
    out: &mut Vec<u8>,
    branch: Branch,
) -> Result<(), String> {
    encode_at(schema, id, value, out, branch, "$", 0)
}

fn encode_at(
    schema: &AvroSchema,
    id: NodeId,
    value: &Value,
    out: &mut Vec<u8>,
    branch: Branch,
    path: &str,
    depth: u32,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "at {path}: the value nests more than {MAX_DEPTH} deep"
        ));
    }
    let node = schema.node(id);
    let bad = || {
        format!(
            "at {path}: {} is not a {}",
            crate::text::clip(&value.to_string(), 80),
            node.name().unwrap_or(node.kind_name())
        )
    };
    match (node, value) {
        (Node::Null, Value::Null) => {}
        (Node::Boolean, Value::Bool(b)) => out.push(u8::from(*b)),
        (Node::Int(_), Value::Number(n)) => {
            let i = integer(n).filter(|i| i32::try_from(*i).is_ok());
            zigzag(i.ok_or_else(bad)?, out);
        }
        (Node::Long(_), Value::Number(n)) => zigzag(integer(n).ok_or_else(bad)?, out),
        (Node::Float, v) => {
            out.extend_from_slice(&(json_float(v).ok_or_else(bad)? as f32).to_le_bytes());
        }
        (Node::Double, v) => out.extend_from_slice(&json_float(v).ok_or_else(bad)?.to_le_bytes()),
        (Node::String(_), Value::String(s)) => {
            zigzag(s.len() as i64, out);
            out.extend_from_slice(s.as_bytes());
        }
        (Node::Bytes(_), Value::String(s)) => {
            let bytes = latin1(s).ok_or_else(bad)?;
            zigzag(bytes.len() as i64, out);
            out.extend_from_slice(&bytes);
        }
        (Node::Fixed(f), Value::String(s)) => {
            let bytes = latin1(s).filter(|b| b.len() == f.size).ok_or_else(bad)?;
            out.extend_from_slice(&bytes);
        }
        (Node::Enum(e), Value::String(s)) => {
            let i = e.symbols.iter().position(|x| x == s).ok_or_else(bad)?;
            zigzag(i as i64, out);
        }
        (Node::Union(branches), v) => {
            let picked = match branch {
                Branch::First => branches.first().map(|b| (0, b)),
                Branch::Matching => branches
                    .iter()
                    .enumerate()
                    .find(|&(_, &b)| takes(schema, b, v)),
            };
            let (i, &picked) = picked.ok_or_else(bad)?;
            zigzag(i as i64, out);
            encode_at(schema, picked, v, out, branch, path, depth + 1)?;
        }
        (Node::Array(items), Value::Array(values)) => {
            if !values.is_empty() {
                zigzag(values.len() as i64, out);
                for (i, v) in values.iter().enumerate() {
                    encode_at(
                        schema,
                        *items,
                        v,
                        out,
                        branch,
                        &format!("{path}[{i}]"),
                        depth + 1,
                    )?;
                }
            }
            out.push(0);
        }
        (Node::Map(values), Value::Object(map)) => {
            if !map.is_empty() {
                zigzag(map.len() as i64, out);
                for (k, v) in map {
                    zigzag(k.len() as i64, out);
                    out.extend_from_slice(k.as_bytes());
                    encode_at(
                        schema,
                        *values,
                        v,
                        out,
                        branch,
                        &format!("{path}.{k}"),
                        depth + 1,
                    )?;
                }
            }
            out.push(0);
        }
        (Node::Record(record), Value::Object(map)) => {
            for field in &record.fields {
                let here = format!("{path}.{}", field.name);
                match map.get(&field.name).or(field.default.as_ref()) {
                    Some(v) => {
                        // A default is written in the first branch of a
                        // union, which `takes` finds first for it too.
                        encode_at(schema, field.ty, v, out, branch, &here, depth + 1)?;
                    }
                    None if nullable(schema, field.ty) => {
                        encode_at(
                            schema,
                            field.ty,
                            &Value::Null,
                            out,
                            branch,
                            &here,
                            depth + 1,
                        )?;
                    }
                    None => {
                        return Err(format!(
                            "at {here}: the field is missing and has no default"
                        ))
                    }
                }
            }
        }
        _ => return Err(bad()),
    }
    Ok(())
}

/// Whether `value` is one of type `id`, as the writer picks a union's
/// branch (`fastavro`'s `validate`, one level deep for records).
pub(crate) fn takes(schema: &AvroSchema, id: NodeId, value: &Value) -> bool {
    match (schema.node(id), value) {
        (Node::Null, Value::Null) | (Node::Boolean, Value::Bool(_)) => true,
        (Node::Int(_), Value::Number(n)) => integer(n).is_some_and(|i| i32::try_from(i).is_ok()),
        (Node::Long(_), Value::Number(n)) => integer(n).is_some(),
        (Node::Float | Node::Double, v) => json_float(v).is_some(),
        (Node::String(_), Value::String(_)) => true,
        (Node::Bytes(_), Value::String(s)) => latin1(s).is_some(),
        (Node::Fixed(f), Value::String(s)) => latin1(s).is_some_and(|b| b.len() == f.size),
        (Node::Enum(e), Value::String(s)) => e.symbols.contains(s),
        (Node::Array(_), Value::Array(_)) => true,
        (Node::Map(_), Value::Object(_)) => true,
        (Node::Record(record), Value::Object(map)) => record.fields.iter().all(|f| {
            map.get(&f.name).is_some_and(|v| !v.is_null())
                || f.default.is_some()
                || map.contains_key(&f.name) && nullable(schema, f.ty)
        }),
        _ => false,
    }
}

pub(crate) fn nullable(schema: &AvroSchema, id: NodeId) -> bool {
    match schema.node(id) {
        Node::Null => true,
        Node::Union(branches) => branches
            .iter()
            .any(|&b| matches!(schema.node(b), Node::Null)),
        _ => false,
    }
}

/// A JSON number as an integer: an integral float too (a migration's
/// arithmetic gives floats).
fn integer(n: &Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)
            .map(|f| f as i64)
    })
}

#[inline]
pub(crate) fn zigzag(value: i64, out: &mut Vec<u8>) {
    let mut n = ((value << 1) ^ (value >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A float as JSON gives it, or the strings `NaN`, `Infinity` and
/// `-Infinity`.
pub(crate) fn json_float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// A `bytes` or `fixed` default: each code point of the string one byte
/// (the specification's ISO-8859-1 mapping).
pub(crate) fn latin1(text: &str) -> Option<Vec<u8>> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect()
}
