//! Protobuf: a schema is a serialized `FileDescriptorSet` plus the
//! fully-qualified name of its root message; a payload is valid when it
//! decodes as that message with every proto2 `required` field present.
//!
//! Bytes are checked by the validating scanner ([`super::scan`]), which
//! never builds the message; its detail (paths, messages) is produced only
//! for a payload it refuses. A JSON value (`Guard::validate_json`) is read
//! in protobuf's JSON mapping with `prost-reflect`.

use prost_reflect::{DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor};

use super::frame;
use super::model::{self, DecodeError};
use super::scan::{check_tree, Plan, ScanOptions};
use crate::error::BoxError;
use crate::validate::{Options, Violation, ViolationKind, MAX_VIOLATIONS};

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
        // The model's checks come before anything else touches the bytes:
        // `prost-reflect` panics on some shapes, while linking and after.
        let pool = model::decode(bytes).map_err(|err| match err {
            DecodeError::Unusable(err) => {
                format!("the schema's descriptor set is not usable: {err}")
            }
            DecodeError::NotADescriptorSet(err) => {
                format!("the schema is not a valid FileDescriptorSet: {err}")
            }
        })?;
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

    /// The descriptor pool the schema was decoded into (shared).
    pub(crate) fn pool(&self) -> DescriptorPool {
        self.message.parent_pool().clone()
    }

    #[inline]
    /// Whether Confluent message indexes (the path of a message type in
    /// the file that defines the root: top-level index, then nested
    /// indexes) name the root message; `Err` names what they name instead.
    pub(crate) fn check_indexes(&self, indexes: &[u64]) -> Result<(), String> {
        let file = self.message.parent_file();
        let mut named: Option<MessageDescriptor> = None;
        for (depth, &index) in indexes.iter().enumerate() {
            let next = match &named {
                None => usize::try_from(index)
                    .ok()
                    .and_then(|i| file.messages().nth(i)),
                Some(parent) => usize::try_from(index)
                    .ok()
                    .and_then(|i| parent.child_messages().nth(i)),
            };
            named = Some(next.ok_or_else(|| {
                format!(
                    "the frame's message indexes {indexes:?} name no message of {} (index {} \
                     of {index} is out of range)",
                    file.name(),
                    depth
                )
            })?);
        }
        match named {
            Some(message) if message.full_name() == self.message.full_name() => Ok(()),
            Some(message) => Err(format!(
                "the frame names message {}, and the schema's root is {}: only the root is \
                 validated",
                message.full_name(),
                self.message.full_name()
            )),
            None => Err("the frame's message index list is empty".into()),
        }
    }

    /// Checks what follows the schema id in a Confluent frame: the message
    /// indexes, which must name the root message, then the body.
    pub(crate) fn validate_framed(&self, rest: &[u8]) -> Result<(), Vec<Violation>> {
        let mut inline = [0u64; frame::INLINE_INDEXES];
        let mut heap = Vec::new();
        let (indexes, body) = frame::read_indexes(rest, &mut inline, &mut heap)?;
        if let Err(why) = self.check_indexes(indexes) {
            return Err(vec![Violation::new("", ViolationKind::Wire, why)]);
        }
        self.validate(body)
    }

    pub(crate) fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        if self.plan.is_valid(payload) {
            return Ok(());
        }
        self.explain(payload)
    }

    #[cold]
    fn explain(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        let mut violations = self.plan.violations(payload);
        if violations.is_empty() {
            // The scanner explains every refusal; never report an invalid
            // payload without a reason, all the same.
            violations.push(Violation::new(
                "",
                ViolationKind::Other,
                format!("the payload is not a valid {}", self.message.full_name()),
            ));
        }
        Err(violations)
    }

    /// A JSON value in protobuf's JSON mapping: decoded with
    /// `prost-reflect` (refusing unknown field names when unknown fields are
    /// refused), then checked for required fields by the scanner's own walk
    /// over a decoded tree ([`check_tree`]). A message decoded from JSON holds
    /// no unknown field numbers, so there is nothing else to check.
    pub(crate) fn validate_json(&self, value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        let options = DeserializeOptions::new().deny_unknown_fields(self.reject_unknown_fields);
        let message =
            DynamicMessage::deserialize_with_options(self.message.clone(), value, &options)
                .map_err(|err| {
                    vec![Violation::new(
                        "",
                        ViolationKind::Mapping,
                        format!(
                            "the JSON value is not {} in protobuf's JSON mapping: {err}",
                            self.message.full_name()
                        ),
                    )]
                })?;
        let mut violations = Vec::new();
        check_tree(
            &message,
            &mut String::new(),
            &mut violations,
            MAX_VIOLATIONS,
        );
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }
}
