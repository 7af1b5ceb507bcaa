//! The reference the scanner must agree with: `DynamicMessage::decode`, then
//! every proto2 `required` field present in every message of the decoded
//! tree, then (when unknown fields are refused) no undeclared field number
//! anywhere in the bytes.

use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
use prost_reflect::{DynamicMessage, Kind, MapKey, MessageDescriptor, ReflectMessage, Value};

use super::{ScanOptions, Violation, ViolationKind};

/// The reference verdict, computed by decoding into a [`DynamicMessage`].
///
/// Valid when the payload decodes, every `required` field is present in every
/// message of the decoded tree (nested messages, list elements, map values,
/// extensions), and, with [`ScanOptions::reject_unknown_fields`], no field
/// number that the descriptor does not declare occurs anywhere in the bytes,
/// map entries included (see [`has_unknown_fields`]).
///
/// [`Plan::is_valid`](super::Plan::is_valid) must agree with this on every
/// payload; the differential tests hold it to that. It allocates freely.
///
/// A descriptor that fails [`check_descriptors`](super::check_descriptors)
/// has no valid payload (and is never handed to the decoder).
pub fn reference_is_valid(
    message: &MessageDescriptor,
    payload: &[u8],
    options: ScanOptions,
) -> bool {
    if super::check_descriptors(message.parent_pool()).is_err() {
        return false;
    }
    match DynamicMessage::decode(message.clone(), payload) {
        Ok(decoded) => {
            // One problem settles the verdict.
            let mut problems = Vec::new();
            check_tree(&decoded, &mut String::new(), &mut problems, 1);
            problems.is_empty()
                && !(options.reject_unknown_fields && has_unknown_fields(message, payload))
        }
        Err(_) => false,
    }
}

/// Whether a payload that `DynamicMessage::decode` accepts holds a field
/// number its descriptors do not declare, at any depth: in nested messages,
/// groups, map entries and map values, and also in occurrences the decoded
/// tree no longer shows (a map entry replaced by a later one with the same
/// key, a oneof member cleared by another). Written with prost's own
/// primitives, independently of the scanner. Meaningless (false) for a
/// payload that does not decode.
pub fn has_unknown_fields(message: &MessageDescriptor, payload: &[u8]) -> bool {
    let mut buf = payload;
    unknown_in(message, &mut buf, None, 0).unwrap_or(false)
}

fn unknown_in(
    desc: &MessageDescriptor,
    buf: &mut &[u8],
    group: Option<u32>,
    level: u32,
) -> Option<bool> {
    // A decodable payload nests at most 100 messages (with a map entry
    // between any two): stop any other payload early.
    if level > 256 {
        return None;
    }
    while !buf.is_empty() {
        let (number, wire_type) = decode_key(buf).ok()?;
        if wire_type == WireType::EndGroup && group == Some(number) {
            return Some(false);
        }
        let (kind, is_map, is_group) = match desc.get_field(number) {
            Some(field) => (field.kind(), field.is_map(), field.is_group()),
            None => match desc.get_extension(number) {
                Some(ext) => (ext.kind(), ext.is_map(), ext.is_group()),
                None => return Some(true),
            },
        };
        let found = match kind {
            Kind::Message(inner) if is_map || wire_type == WireType::LengthDelimited => {
                // prost-reflect reads a map entry whatever the wire type says.
                let len = usize::try_from(decode_varint(buf).ok()?).ok()?;
                let mut body = buf.get(..len)?;
                *buf = buf.get(len..)?;
                unknown_in(&inner, &mut body, None, level + 1)?
            }
            Kind::Message(inner) if is_group => unknown_in(&inner, buf, Some(number), level + 1)?,
            _ => {
                skip_field(wire_type, number, buf, DecodeContext::default()).ok()?;
                false
            }
        };
        if found {
            return Some(true);
        }
    }
    Some(false)
}

/// Walks a decoded message, recording missing required fields with their
/// paths, until `limit` are recorded (a hostile payload can hold millions).
///
/// The one required-field walk over a decoded tree: the reference verdict
/// uses it, and so does the protobuf validator for a JSON value
/// (`validate_json`), which it decodes in protobuf's JSON mapping first.
pub(crate) fn check_tree(
    msg: &DynamicMessage,
    path: &mut String,
    out: &mut Vec<Violation>,
    limit: usize,
) {
    if out.len() >= limit {
        return;
    }
    let desc = msg.descriptor();
    for field in desc.fields() {
        if out.len() >= limit {
            return;
        }
        if field.is_required() && !msg.has_field(&field) {
            let at = path.len();
            push_name(path, field.name());
            out.push(Violation::new(
                path.clone(),
                ViolationKind::Required,
                "required field missing".to_owned(),
            ));
            path.truncate(at);
        }
    }
    for (field, value) in msg.fields() {
        visit_value(value, field.name(), path, out, limit);
    }
    for (ext, value) in msg.extensions() {
        visit_value(value, &format!("[{}]", ext.full_name()), path, out, limit);
    }
}

fn visit_value(
    value: &Value,
    name: &str,
    path: &mut String,
    out: &mut Vec<Violation>,
    limit: usize,
) {
    if out.len() >= limit {
        return;
    }
    let at = path.len();
    match value {
        Value::Message(inner) => {
            push_name(path, name);
            check_tree(inner, path, out, limit);
        }
        Value::List(items) => {
            for (index, item) in items.iter().enumerate() {
                if out.len() >= limit {
                    break;
                }
                if let Value::Message(inner) = item {
                    push_name(path, name);
                    path.push_str(&format!("[{index}]"));
                    check_tree(inner, path, out, limit);
                    path.truncate(at);
                }
            }
        }
        Value::Map(entries) => {
            for (key, item) in entries {
                if out.len() >= limit {
                    break;
                }
                if let Value::Message(inner) = item {
                    push_name(path, name);
                    path.push_str(&key_segment(key));
                    check_tree(inner, path, out, limit);
                    path.truncate(at);
                }
            }
        }
        _ => {}
    }
    path.truncate(at);
}

/// `.name`, or `name` at the root.
pub(super) fn push_name(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(name);
}

/// `["key"]` for a string key, `[key]` otherwise.
fn key_segment(key: &MapKey) -> String {
    match key {
        MapKey::String(s) => format!("[{s:?}]"),
        MapKey::Bool(b) => format!("[{b}]"),
        MapKey::I32(v) => format!("[{v}]"),
        MapKey::I64(v) => format!("[{v}]"),
        MapKey::U32(v) => format!("[{v}]"),
        MapKey::U64(v) => format!("[{v}]"),
    }
}
