//! Protobuf: a schema is a serialized `FileDescriptorSet` plus the
//! fully-qualified name of its root message; a payload is valid when it
//! decodes as that message with every proto2 `required` field present.
//!
//! Bytes are checked by the validating scanner ([`super::scan`]), which
//! never builds the message; its detail (paths, messages) is produced only
//! for a payload it refuses. A JSON value (`Guard::validate_json`) is read
//! in protobuf's JSON mapping with `prost-reflect`.

use prost_reflect::{
    Cardinality, DescriptorPool, DeserializeOptions, DynamicMessage, MapKey, MessageDescriptor,
    ReflectMessage, Value,
};

use super::scan::{check_descriptor_set, check_descriptors, Plan, ScanOptions};
use super::{Options, Violation, MAX_VIOLATIONS};
use crate::error::BoxError;

pub struct ProtobufValidator {
    plan: Plan,
    message: MessageDescriptor,
    reject_unknown_fields: bool,
}

impl ProtobufValidator {
    pub(crate) fn compile(
        bytes: &[u8],
        root: &str,
        options: Options,
    ) -> Result<ProtobufValidator, BoxError> {
        // Before anything else touches the bytes: `prost-reflect` panics on
        // some shapes, while linking (`check_descriptor_set`) and after
        // (`check_descriptors`).
        check_descriptor_set(bytes)
            .map_err(|err| format!("the schema's descriptor set is not usable: {err}"))?;
        let pool = DescriptorPool::decode(bytes)
            .map_err(|err| format!("the schema is not a valid FileDescriptorSet: {err}"))?;
        check_descriptors(&pool)
            .map_err(|err| format!("the schema's descriptor set is not usable: {err}"))?;
        let message = pool.get_message_by_name(root).ok_or_else(|| {
            format!("the root message {root:?} is not in the schema's descriptor set")
        })?;
        let plan = Plan::compile_checked(
            &message,
            ScanOptions::default().with_reject_unknown_fields(options.reject_unknown_fields),
        );
        Ok(ProtobufValidator {
            plan,
            message,
            reject_unknown_fields: options.reject_unknown_fields,
        })
    }

    #[inline]
    pub(crate) fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        if self.plan.is_valid(payload) {
            return Ok(());
        }
        self.explain(payload)
    }

    #[cold]
    fn explain(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        let mut violations: Vec<Violation> = self
            .plan
            .violations(payload)
            .into_iter()
            .take(MAX_VIOLATIONS)
            .map(|v| Violation::new(v.path(), v.message()))
            .collect();
        if violations.is_empty() {
            // The scanner explains every refusal; never report an invalid
            // payload without a reason, all the same.
            violations.push(Violation::new(
                "",
                format!("the payload is not a valid {}", self.message.full_name()),
            ));
        }
        Err(violations)
    }

    pub(crate) fn validate_json(&self, value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        let options = DeserializeOptions::new().deny_unknown_fields(self.reject_unknown_fields);
        let message =
            DynamicMessage::deserialize_with_options(self.message.clone(), value, &options)
                .map_err(|err| {
                    vec![Violation::new(
                        "",
                        format!(
                            "the JSON value is not {} in protobuf's JSON mapping: {err}",
                            self.message.full_name()
                        ),
                    )]
                })?;
        self.check(&message)
    }

    fn check(&self, message: &DynamicMessage) -> Result<(), Vec<Violation>> {
        let mut violations = Vec::new();
        let mut path = String::new();
        check_message(
            message,
            self.reject_unknown_fields,
            &mut path,
            &mut violations,
        );
        if violations.is_empty() {
            Ok(())
        } else {
            violations.truncate(MAX_VIOLATIONS);
            Err(violations)
        }
    }
}

/// Required fields present and (optionally) no unknown fields, recursively.
fn check_message(
    message: &DynamicMessage,
    reject_unknown: bool,
    path: &mut String,
    violations: &mut Vec<Violation>,
) {
    let descriptor = message.descriptor();
    for field in descriptor.fields() {
        if field.cardinality() == Cardinality::Required && !message.has_field(&field) {
            violations.push(Violation::new(
                join(path, field.name()),
                "required field missing",
            ));
        }
    }
    if reject_unknown {
        for unknown in message.unknown_fields() {
            violations.push(Violation::new(
                path.clone(),
                format!(
                    "unknown field number {} in {}",
                    unknown.number(),
                    descriptor.full_name()
                ),
            ));
        }
    }
    for (field, value) in message.fields() {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(field.name());
        check_value(value, reject_unknown, path, violations);
        path.truncate(len);
    }
}

fn check_value(
    value: &Value,
    reject_unknown: bool,
    path: &mut String,
    violations: &mut Vec<Violation>,
) {
    if violations.len() >= MAX_VIOLATIONS {
        return;
    }
    match value {
        Value::Message(message) => check_message(message, reject_unknown, path, violations),
        Value::List(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{index}]"));
                check_value(item, reject_unknown, path, violations);
                path.truncate(len);
            }
        }
        Value::Map(entries) => {
            for (key, item) in entries {
                let len = path.len();
                match key {
                    MapKey::String(key) => path.push_str(&format!("[{key:?}]")),
                    MapKey::Bool(key) => path.push_str(&format!("[{key}]")),
                    MapKey::I32(key) => path.push_str(&format!("[{key}]")),
                    MapKey::I64(key) => path.push_str(&format!("[{key}]")),
                    MapKey::U32(key) => path.push_str(&format!("[{key}]")),
                    MapKey::U64(key) => path.push_str(&format!("[{key}]")),
                }
                check_value(item, reject_unknown, path, violations);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}
