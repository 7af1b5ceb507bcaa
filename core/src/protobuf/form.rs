//! A protobuf message in the form data contracts' rules see
//! ([`PayloadForm`]), read and written with `prost-reflect`'s JSON
//! mapping (confluent-kafka-python v2.16.1, the version
//! `tests/python/requirements.txt` pins and the interop tests run):
//!
//! * for domain rules ([`Reading::Rules`]) the message's fields by their
//!   `.proto` names, 64-bit integers and enums as numbers, every field
//!   written out: what `CEL` reads of the message Confluent's CEL
//!   executor binds (`message.amount_cents`);
//! * for migrations ([`Reading::Migration`]) what
//!   `json_format.MessageToDict(msg, True)` gives `_sync/protobuf.py`
//!   before the `JSONATA` rules run (JSON names, 64-bit integers as
//!   strings, enums by name, fields without presence written out), read
//!   back as the reader's message as `json_format.ParseDict` reads it.
//!
//! The walk follows `common/protobuf.py`'s `transform`: a field's
//! `fullName` is the field descriptor's full name
//! (`acme.Order.email`), its `typeName` `get_type`'s (`INT` for the
//! 32-bit integers, `LONG` for the 64-bit ones), its tags its
//! `(confluent.field_meta).tags`; a repeated field's items are walked as
//! the field, a map field (`MAP`) and an enum (`ENUM`) are not
//! primitives and are passed over (the messages a map maps to are
//! walked), as is a field with presence left unset (a `oneof` member, a
//! proto3 `optional`, a message). A nested message is walked with its
//! own descriptor (confluent-kafka-python v2.16.1, `_child_descriptor`;
//! v2.15.0 handed the enclosing one down).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use prost::Message as _;
use prost_reflect::{
    DeserializeOptions, DynamicMessage, Kind, MessageDescriptor, SerializeOptions,
    Value as ProtoValue,
};
use serde_json::Value;

use crate::rules::form::{FieldSite, FieldStop, FieldVisit, PayloadForm, Reading, ITEM};

/// How deep nested messages are walked.
const MAX_WALK_DEPTH: u32 = 100;

/// A protobuf message's form for rules.
#[derive(Debug)]
pub(crate) struct ProtobufForm {
    message: MessageDescriptor,
    /// Each field's `(confluent.field_meta).tags`, by its full name.
    tags: HashMap<String, Vec<String>>,
}

impl ProtobufForm {
    pub(crate) fn new(message: MessageDescriptor) -> ProtobufForm {
        let pool = message.parent_pool();
        let mut tags = HashMap::new();
        if let Some(meta) = pool.get_extension_by_name("confluent.field_meta") {
            for m in pool.all_messages() {
                for field in m.fields() {
                    let options = field.options();
                    if !options.has_extension(&meta) {
                        continue;
                    }
                    if let ProtoValue::Message(meta) = &*options.get_extension(&meta) {
                        if let Some(ProtoValue::List(list)) =
                            meta.get_field_by_name("tags").as_deref()
                        {
                            let found: Vec<String> = list
                                .iter()
                                .filter_map(|t| t.as_str().map(str::to_owned))
                                .collect();
                            if !found.is_empty() {
                                tags.insert(field.full_name().to_owned(), found);
                            }
                        }
                    }
                }
            }
        }
        ProtobufForm { message, tags }
    }
}

impl PayloadForm for ProtobufForm {
    fn decode(&self, payload: &[u8], reading: Reading) -> Result<Value, String> {
        let message = DynamicMessage::decode(self.message.clone(), payload)
            .map_err(|error| format!("the payload does not decode: {error}"))?;
        let options = match reading {
            Reading::Rules => SerializeOptions::new()
                .use_proto_field_name(true)
                .stringify_64_bit_integers(false)
                .use_enum_numbers(true)
                .skip_default_fields(false),
            Reading::Migration => SerializeOptions::new().skip_default_fields(false),
        };
        message
            .serialize_with_options(serde_json::value::Serializer, &options)
            .map_err(|error| format!("the message does not write as JSON: {error}"))
    }

    fn encode(&self, value: &Value) -> Result<Vec<u8>, String> {
        let message = DynamicMessage::deserialize_with_options(
            self.message.clone(),
            value.clone(),
            &DeserializeOptions::new(),
        )
        .map_err(|error| {
            format!(
                "the value is not a {}: {}",
                self.message.full_name(),
                crate::text::clip(&error.to_string(), 200)
            )
        })?;
        Ok(message.encode_to_vec())
    }

    fn walk(&self, value: &mut Value, visit: &mut FieldVisit<'_>) -> Result<(), FieldStop> {
        let mut walk = Walk { form: self, visit };
        walk.message(&self.message, value, "$", 0)
    }

    fn fields(&self) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        for m in self.message.parent_pool().all_messages() {
            for f in m.fields() {
                let tags = self.tags.get(f.full_name()).cloned().unwrap_or_default();
                out.insert(f.full_name().to_owned(), tags);
            }
        }
        out
    }

    fn root_fields(&self) -> BTreeSet<String> {
        self.message.fields().map(|f| f.name().to_owned()).collect()
    }

    fn missing_step(&self, path: &[&str]) -> Option<usize> {
        /// What a step is at: a message, a repeated field's or a map's
        /// elements, or a value with no fields to name.
        enum At {
            Message(MessageDescriptor),
            Elements(Kind),
            Other,
        }
        // A well-known type (`Timestamp`, wrappers) is bound as a value.
        let kind = |kind: Kind| match kind {
            Kind::Message(m) if !m.full_name().starts_with("google.protobuf.") => At::Message(m),
            _ => At::Other,
        };
        let mut at = At::Message(self.message.clone());
        for (i, step) in path.iter().enumerate() {
            at = match at {
                At::Message(_) if *step == ITEM => return None,
                At::Message(message) => {
                    let Some(field) = message.get_field_by_name(step) else {
                        return Some(i);
                    };
                    if field.is_map() {
                        match field.kind() {
                            Kind::Message(entry) => {
                                At::Elements(entry.map_entry_value_field().kind())
                            }
                            _ => At::Other,
                        }
                    } else if field.is_list() {
                        At::Elements(field.kind())
                    } else {
                        kind(field.kind())
                    }
                }
                // A map's value by its key, a list's item by `[]`.
                At::Elements(element) => kind(element),
                At::Other => return None,
            };
        }
        None
    }
}

struct Walk<'a, 'v, 'f> {
    form: &'a ProtobufForm,
    visit: &'v mut FieldVisit<'f>,
}

impl Walk<'_, '_, '_> {
    fn message(
        &mut self,
        desc: &MessageDescriptor,
        value: &mut Value,
        path: &str,
        depth: u32,
    ) -> Result<(), FieldStop> {
        if depth > MAX_WALK_DEPTH || !value.is_object() {
            return Ok(());
        }
        let holder = value.clone();
        for field in desc.fields() {
            let Some(member) = value.get_mut(field.name()) else {
                continue;
            };
            if member.is_null() {
                continue;
            }
            let here = format!("{path}.{}", field.name());
            if field.is_map() {
                // A map is no primitive (`MAP`), but the messages it maps
                // to are walked with their own descriptor, as
                // confluent-kafka-python v2.16.1 walks them
                // (`common/protobuf.py` `_child_descriptor`, lines
                // 477-489: a map's value type); scalar values are left.
                if let Kind::Message(entry) = field.kind() {
                    if let Kind::Message(inner) = entry.map_entry_value_field().kind() {
                        if let Value::Object(entries) = member {
                            for (key, item) in entries.iter_mut() {
                                self.message(&inner, item, &format!("{here}.{key}"), depth + 1)?;
                            }
                        }
                    }
                }
                continue;
            }
            let type_name = match field.kind() {
                Kind::Message(inner) => {
                    match member {
                        Value::Array(items) => {
                            for (i, item) in items.iter_mut().enumerate() {
                                self.message(&inner, item, &format!("{here}[{i}]"), depth + 1)?;
                            }
                        }
                        other => self.message(&inner, other, &here, depth + 1)?,
                    }
                    continue;
                }
                Kind::Enum(_) => continue,
                Kind::Int32 | Kind::Sint32 | Kind::Uint32 | Kind::Fixed32 | Kind::Sfixed32 => "INT",
                Kind::Int64 | Kind::Sint64 | Kind::Uint64 | Kind::Fixed64 | Kind::Sfixed64 => {
                    "LONG"
                }
                Kind::Float => "FLOAT",
                Kind::Double => "DOUBLE",
                Kind::Bool => "BOOLEAN",
                Kind::String => "STRING",
                Kind::Bytes => "BYTES",
            };
            let tags = self
                .form
                .tags
                .get(field.full_name())
                .map_or(&[][..], Vec::as_slice);
            match member {
                Value::Array(items) => {
                    for (i, item) in items.iter_mut().enumerate() {
                        let at = format!("{here}[{i}]");
                        let site = FieldSite {
                            full_name: field.full_name(),
                            name: field.name(),
                            type_name,
                            inline_tags: tags,
                            path: &at,
                            message: &holder,
                        };
                        (self.visit)(&site, item)?;
                    }
                }
                other => {
                    let site = FieldSite {
                        full_name: field.full_name(),
                        name: field.name(),
                        type_name,
                        inline_tags: tags,
                        path: &here,
                        message: &holder,
                    };
                    (self.visit)(&site, other)?;
                }
            }
        }
        Ok(())
    }
}
