//! Protobuf: a schema is a serialized `FileDescriptorSet` plus the
//! fully-qualified name of its root message; a payload is valid when it
//! decodes as that message with every proto2 `required` field present.
//!
//! Bytes are checked by the validating scanner ([`super::scan`]), which
//! never builds the message; its detail (paths, messages) is produced only
//! for a payload it refuses. A JSON value (`Guard::validate_json`) is read
//! in protobuf's JSON mapping with `prost-reflect`.

use std::sync::OnceLock;

use prost_reflect::{DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor};

use super::frame;
use super::model::{self, DecodeError};
use super::scan::{check_tree, Plan, ScanOptions};
use crate::error::BoxError;
use crate::violation::{Options, Violation, ViolationKind, MAX_VIOLATIONS};

pub struct ProtobufValidator {
    /// The message a payload validated by URN is: the root, or a rootless
    /// schema's first message; `None` for a rootless file that declares
    /// no message (only `import public` of others, which Confluent takes).
    default: Option<Entry>,
    pool: DescriptorPool,
    reject_unknown_fields: bool,
    /// The messages of the schema's file (the root's file, or a rootless
    /// schema's own), by index: a Confluent frame's message indexes pick
    /// one of them, as Confluent's deserializer does
    /// (`ProtobufSchema.toMessageName`).
    messages: Box<[Node]>,
    /// A descriptor set without a root: no message for a payload without
    /// message indexes (the guard fails open on it, `unusable`).
    frames_only: bool,
}

/// The message a payload validated without message indexes is, and its
/// plan.
struct Entry {
    plan: Plan,
    message: MessageDescriptor,
}

/// A message of a rootless schema's file, its plan compiled when a frame
/// first names it, and its nested messages by index.
struct Node {
    message: MessageDescriptor,
    plan: OnceLock<Plan>,
    children: Box<[Node]>,
}

impl Node {
    fn tree(messages: impl Iterator<Item = MessageDescriptor>) -> Box<[Node]> {
        messages
            .map(|message| Node {
                children: Node::tree(message.child_messages()),
                message,
                plan: OnceLock::new(),
            })
            .collect()
    }
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
        let tree = Node::tree(message.parent_file().messages());
        Ok(ProtobufValidator::with_message(
            pool.clone(),
            Some(message),
            options,
            tree,
        ))
    }

    fn with_message(
        pool: DescriptorPool,
        message: Option<MessageDescriptor>,
        options: Options,
        messages: Box<[Node]>,
    ) -> ProtobufValidator {
        let default = message.map(|message| Entry {
            plan: Plan::compile_checked(
                &message,
                ScanOptions::default().with_reject_unknown_fields(options.reject_unknown_fields),
            ),
            message,
        });
        ProtobufValidator {
            default,
            pool,
            reject_unknown_fields: options.reject_unknown_fields,
            messages,
            frames_only: false,
        }
    }

    /// A descriptor set without a root: its own file is the one no other
    /// file of the set imports (`source::main_file`; not exactly one is
    /// an error). A frame's message indexes pick the message of that file
    /// to validate, as for a Confluent registration; a payload without
    /// indexes names no message ([`frames_only`](Self::frames_only)).
    /// `Err(None)`: not exactly one such file (the set must name its root).
    pub(crate) fn rootless_set(
        bytes: &[u8],
        options: Options,
    ) -> Result<ProtobufValidator, Option<BoxError>> {
        let pool = model::decode(bytes).map_err(|err| {
            Some(BoxError::from(match err {
                DecodeError::Unusable(err) => {
                    format!("the schema's descriptor set is not usable: {err}")
                }
                DecodeError::NotADescriptorSet(err) => {
                    format!("the schema is not a valid FileDescriptorSet: {err}")
                }
            }))
        })?;
        let main = super::source::main_file(&pool).map_err(|_| None)?;
        let file = pool
            .get_file_by_name(&main)
            .ok_or_else(|| Some(format!("the descriptor set has no file {main:?}").into()))?;
        let tree = Node::tree(file.messages());
        let mut validator = ProtobufValidator::with_message(pool.clone(), None, options, tree);
        validator.frames_only = true;
        Ok(validator)
    }

    /// Whether only a Confluent frame's payloads can be validated (a
    /// descriptor set without a root): a payload without message indexes
    /// names no message.
    pub(crate) fn frames_only(&self) -> bool {
        self.frames_only
    }

    /// A schema without a root (a Confluent registration), already compiled
    /// into a checked `pool` whose file `main` is the schema's own: a frame's
    /// message indexes pick the message of that file to validate; a payload
    /// validated by URN (no indexes) is the file's first message, as the
    /// indexes `[0]` say. A file that declares no message (it only imports
    /// others publicly, as Confluent allows) compiles too: no payload is
    /// one of its messages, so every payload is refused, with that reason.
    #[cfg_attr(not(feature = "proto-text"), allow(dead_code))]
    pub(crate) fn rootless(
        pool: &DescriptorPool,
        main: &str,
        options: Options,
    ) -> Result<ProtobufValidator, BoxError> {
        let file = pool
            .get_file_by_name(main)
            .ok_or_else(|| format!("the compiled schema has no file {main:?}"))?;
        let first = file.messages().next();
        let tree = Node::tree(file.messages());
        Ok(ProtobufValidator::with_message(
            pool.clone(),
            first,
            options,
            tree,
        ))
    }

    /// The message a payload without message indexes is (the root, or a
    /// rootless schema's first message), if any.
    pub(crate) fn message(&self) -> Option<MessageDescriptor> {
        self.default.as_ref().map(|entry| entry.message.clone())
    }

    /// The descriptor pool the schema was decoded into (shared).
    pub(crate) fn pool(&self) -> DescriptorPool {
        self.pool.clone()
    }

    /// The message validated without indexes, or why there is none.
    fn default(&self) -> Result<&Entry, Vec<Violation>> {
        self.default.as_ref().ok_or_else(|| {
            vec![Violation::new(
                "",
                ViolationKind::Other,
                "the schema declares no message (its file only imports others), so no payload \
                 is one of its messages",
            )]
        })
    }

    /// The plan of the message Confluent message indexes name in the
    /// schema's file (top-level index, then nested indexes): the root's
    /// own plan when they name the root.
    fn pick(&self, indexes: &[u64]) -> Result<&Plan, String> {
        let node = self.node_at(indexes)?;
        if let Some(entry) = self.default.as_ref().filter(|e| e.message == node.message) {
            return Ok(&entry.plan);
        }
        let options = ScanOptions::default().with_reject_unknown_fields(self.reject_unknown_fields);
        Ok(node
            .plan
            .get_or_init(|| Plan::compile_checked(&node.message, options)))
    }

    /// The message Confluent message indexes name in the schema's file:
    /// `None` when it is the one a payload without indexes is (the root),
    /// else its descriptor; `Err` says why they name none.
    pub(crate) fn message_at(&self, indexes: &[u64]) -> Result<Option<MessageDescriptor>, String> {
        let node = self.node_at(indexes)?;
        if self
            .default
            .as_ref()
            .is_some_and(|e| e.message == node.message)
        {
            return Ok(None);
        }
        Ok(Some(node.message.clone()))
    }

    /// The node of the message the indexes name.
    fn node_at(&self, indexes: &[u64]) -> Result<&Node, String> {
        let mut level = &self.messages[..];
        let mut named: Option<&Node> = None;
        for (depth, &index) in indexes.iter().enumerate() {
            let node = usize::try_from(index)
                .ok()
                .and_then(|i| level.get(i))
                .ok_or_else(|| {
                    let of = named.map_or_else(
                        || format!("{} top-level messages", level.len()),
                        |node| {
                            format!(
                                "{} nested messages in {}",
                                level.len(),
                                node.message.full_name()
                            )
                        },
                    );
                    format!(
                        "the frame's message indexes {} name no message of the schema: index \
                         {depth} is {index}, and there are {of}",
                        clipped(indexes),
                    )
                })?;
            level = &node.children;
            named = Some(node);
        }
        named.ok_or_else(|| "the frame's message index list is empty".to_owned())
    }

    /// Whether Confluent message indexes (the path of a message type in
    /// the schema's file: top-level index, then nested indexes) name a
    /// message of that file; `Err` says why not.
    #[inline]
    pub(crate) fn check_indexes(&self, indexes: &[u64]) -> Result<(), String> {
        self.pick(indexes).map(|_| ())
    }

    /// The Confluent message indexes (the path of a message type in its
    /// file) of the message a producer frames: `message` by its full name,
    /// or the message a payload without indexes is (the root; a rootless
    /// schema's first message). Any message of the schema's file (the
    /// root's, or a rootless schema's own) can be framed, as a consumer
    /// validates a frame of any of them; `Err` says why not.
    pub(crate) fn indexes_for(&self, message: Option<&str>) -> Result<Vec<u64>, String> {
        let descriptor = match message {
            None => match &self.default {
                Some(entry) => entry.message.clone(),
                None if self.frames_only => {
                    return Err("the schema is a descriptor set without a root message: \
                                name the message a payload is"
                        .into())
                }
                None => return Err("the schema declares no message".into()),
            },
            Some(name) => self
                .pool
                .get_message_by_name(name)
                .ok_or_else(|| format!("the schema has no message {name}"))?,
        };
        // The message's source path alternates a field number of the
        // descriptor (4 `message_type`, 3 `nested_type`) and an index.
        let indexes: Vec<u64> = descriptor
            .path()
            .iter()
            .skip(1)
            .step_by(2)
            .map(|&index| u64::try_from(index).unwrap_or(u64::MAX))
            .collect();
        // A message of another file of the set: its path is of its own
        // file, and a frame's indexes are read in the schema's.
        let mut level = &self.messages[..];
        let mut named = None;
        for &index in &indexes {
            let node = usize::try_from(index).ok().and_then(|i| level.get(i));
            named = node.map(|node| &node.message);
            level = node.map_or(&[][..], |node| &node.children[..]);
        }
        if named != Some(&descriptor) {
            return Err(format!(
                "message {} is not declared in the schema's own file",
                descriptor.full_name()
            ));
        }
        Ok(indexes)
    }

    /// Checks what follows the schema id in a Confluent frame: the message
    /// indexes, which pick the message of the schema's file the body is,
    /// then the body, as that message.
    pub(crate) fn validate_framed(&self, rest: &[u8]) -> Result<(), Vec<Violation>> {
        let mut inline = [0u64; frame::INLINE_INDEXES];
        let mut heap = Vec::new();
        let (indexes, body) = frame::read_indexes(rest, &mut inline, &mut heap)?;
        let plan = self
            .pick(indexes)
            .map_err(|why| vec![Violation::new("", ViolationKind::Wire, why)])?;
        if plan.is_valid(body) {
            return Ok(());
        }
        explain(plan, body)
    }

    pub(crate) fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        let default = self.default()?;
        if default.plan.is_valid(payload) {
            return Ok(());
        }
        explain(&default.plan, payload)
    }

    /// A JSON value in protobuf's JSON mapping: decoded with
    /// `prost-reflect` (refusing unknown field names when unknown fields are
    /// refused), then checked for required fields by the scanner's own walk
    /// over a decoded tree ([`check_tree`]). A message decoded from JSON holds
    /// no unknown field numbers, so there is nothing else to check.
    pub(crate) fn validate_json(&self, value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        let root = &self.default()?.message;
        let options = DeserializeOptions::new().deny_unknown_fields(self.reject_unknown_fields);
        let message = DynamicMessage::deserialize_with_options(root.clone(), value, &options)
            .map_err(|err| {
                vec![Violation::new(
                    "",
                    ViolationKind::Mapping,
                    format!(
                        "the JSON value is not {} in protobuf's JSON mapping: {err}",
                        root.full_name()
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

/// Why `plan` refuses `payload`: the scanner's explaining walk.
#[cold]
fn explain(plan: &Plan, payload: &[u8]) -> Result<(), Vec<Violation>> {
    let mut violations = plan.violations(payload);
    if violations.is_empty() {
        // The scanner explains every refusal; never report an invalid
        // payload without a reason, all the same.
        violations.push(Violation::new(
            "",
            ViolationKind::Other,
            format!(
                "the payload is not a valid {}",
                plan.descriptor().full_name()
            ),
        ));
    }
    Err(violations)
}

/// Message indexes as an error shows them: at most the first 8.
fn clipped(indexes: &[u64]) -> String {
    if indexes.len() <= 8 {
        format!("{indexes:?}")
    } else {
        format!("{:?} (and {} more)", &indexes[..8], indexes.len() - 8)
    }
}
