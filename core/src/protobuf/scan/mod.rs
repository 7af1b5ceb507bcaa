//! A validating protobuf scanner: checks a payload against a message
//! descriptor without building the message.
//!
//! [`Plan::compile`] turns a [`MessageDescriptor`] into compact tables once;
//! [`Plan::is_valid`] then walks a payload's bytes against them, allocating
//! nothing, and [`Plan::violations`] explains a rejection with a path per
//! problem (`items[3].sku`, `labels["env"]`).
//!
//! # The verdict
//!
//! A payload is valid exactly when
//!
//! 1. `prost_reflect::DynamicMessage::decode` accepts it (prost-reflect 0.16,
//!    prost 0.14): every tag well formed (a varint of at most ten bytes, within
//!    32 bits, wire type 0 to 5, field number at least 1); every known field's
//!    wire type the one its type needs (a repeated scalar also accepts a packed
//!    run; a map field reads any tag as a length-delimited entry, as
//!    prost-reflect does); lengths within the enclosing message; `string`
//!    values valid UTF-8; groups closed by their own end-group tag; unknown
//!    fields skipped by wire type; no more than 100 nested levels, counted as
//!    prost counts them (a message or group is a level, a map entry is not);
//! 2. every proto2 `required` field is present in every message of the decoded
//!    tree (nested messages, list elements, map values, extensions). A map
//!    entry without a value holds an empty message, so it fails when that
//!    message type has required fields;
//! 3. with [`ScanOptions::reject_unknown_fields`], no field number its
//!    descriptor does not declare occurs anywhere in the payload: nested
//!    messages, groups, map entries, and also occurrences a decoder discards
//!    (a map entry replaced by a later one with the same key).
//!
//! Enum values are open: any `int32` is accepted, as prost-reflect does.
//!
//! # Cost
//!
//! [`Plan::is_valid`] allocates nothing. One case leaves the fast path: an
//! occurrence of a nested message that lacks a required field. Protobuf
//! merges repeated occurrences of a singular message field, a later map
//! entry replaces an earlier one with the same key, and another member of a
//! oneof clears the first; any of these can make such a payload valid after
//! all. The scanner then settles it with a second walk over the bytes that
//! applies those three rules to byte spans, never building the message: it
//! keeps one span per occurrence of a singular message field and one key
//! per map entry, below messages that can lack a required field, so its
//! memory stays a small multiple of the payload and its time linear (the
//! decoded tree would take 15 to 30 times the payload). Payloads whose every
//! message occurrence is complete (all proto3 payloads, and proto2 payloads
//! as producers write them) never take that path. The decoder itself
//! ([`reference_is_valid`]) is only the tests' reference.
//!
//! # Example
//!
//! ```
//! # use prost_reflect::DescriptorPool;
//! # use dataschema::validate::protobuf_scan::{Plan, ScanOptions};
//! # fn pool() -> DescriptorPool {
//! #     use prost_reflect::prost_types::{field_descriptor_proto::{Label, Type}, *};
//! #     let field = FieldDescriptorProto {
//! #         name: Some("sku".into()), number: Some(1),
//! #         label: Some(Label::Optional as i32), r#type: Some(Type::String as i32),
//! #         ..Default::default()
//! #     };
//! #     let file = FileDescriptorProto {
//! #         name: Some("item.proto".into()), package: Some("shop".into()),
//! #         syntax: Some("proto3".into()),
//! #         message_type: vec![DescriptorProto {
//! #             name: Some("Item".into()), field: vec![field], ..Default::default()
//! #         }],
//! #         ..Default::default()
//! #     };
//! #     DescriptorPool::from_file_descriptor_set(FileDescriptorSet { file: vec![file] }).unwrap()
//! # }
//! let item = pool().get_message_by_name("shop.Item").unwrap();
//! let plan = Plan::compile(&item, ScanOptions::default()).expect("a usable descriptor");
//!
//! assert!(plan.is_valid(b"\x0a\x03abc"));
//! assert!(!plan.is_valid(b"\x0a\x02\xff\xfe"));
//!
//! let violations = plan.violations(b"\x0a\x02\xff\xfe");
//! assert_eq!(violations[0].path(), "sku");
//! assert_eq!(violations[0].message(), "invalid UTF-8 in string field");
//! ```

// Without the `unstable` feature only the guard's calls are reachable;
// the rest is the differential tests' surface.
#![cfg_attr(not(feature = "unstable"), allow(dead_code, unused_imports))]

mod explain;
mod merge;
mod plan;
mod reference;
mod verdict;
mod wire;

use prost_reflect::MessageDescriptor;

pub(crate) use self::reference::check_tree;
#[doc(hidden)]
pub use self::reference::{has_unknown_fields, reference_is_valid};
pub use crate::protobuf::model::{check_descriptor_set, check_descriptors, UnusableDescriptor};
pub use crate::violation::{Violation, ViolationKind, MAX_VIOLATIONS};

/// Options fixed when a [`Plan`] is compiled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanOptions {
    /// Refuse a payload holding any field its descriptor does not declare, at
    /// any depth. Off by default: protobuf skips unknown fields, so that old
    /// readers accept new writers.
    pub reject_unknown_fields: bool,
}

impl ScanOptions {
    /// The defaults: unknown fields accepted.
    pub fn new() -> ScanOptions {
        ScanOptions::default()
    }

    /// Sets [`reject_unknown_fields`](ScanOptions::reject_unknown_fields).
    pub fn with_reject_unknown_fields(mut self, reject: bool) -> ScanOptions {
        self.reject_unknown_fields = reject;
        self
    }
}

/// A message descriptor compiled for scanning: per message type, a field
/// number lookup table with each field's wire shape, cardinality and
/// required-field index.
///
/// Compile once per (descriptor, options) and share it: it is `Send + Sync`
/// and immutable.
#[derive(Clone, Debug)]
pub struct Plan {
    tables: self::plan::Tables,
    options: ScanOptions,
    /// The message type checked, for callers (`descriptor()`).
    descriptor: MessageDescriptor,
}

impl Plan {
    /// Compiles the plan for `message` and every message type reachable from
    /// it (fields, extensions, map values, groups).
    ///
    /// Errors: the descriptor's pool holds a shape `protoc` never writes and
    /// `prost-reflect` cannot decode safely (see [`check_descriptors`]), such
    /// as a map entry without a `value` field.
    pub fn compile(
        message: &MessageDescriptor,
        options: ScanOptions,
    ) -> Result<Plan, UnusableDescriptor> {
        check_descriptors(message.parent_pool())?;
        Ok(Plan::compile_checked(message, options))
    }

    /// [`compile`](Plan::compile) for a descriptor whose pool has passed
    /// [`check_descriptors`].
    pub(crate) fn compile_checked(message: &MessageDescriptor, options: ScanOptions) -> Plan {
        Plan {
            tables: self::plan::compile(message),
            options,
            descriptor: message.clone(),
        }
    }

    /// The message type this plan checks.
    pub fn descriptor(&self) -> &MessageDescriptor {
        &self.descriptor
    }

    /// The options this plan was compiled with.
    pub fn options(&self) -> ScanOptions {
        self.options
    }

    /// Whether `payload` is a valid encoding of the message (see the
    /// [module docs](self) for exactly what that means). Allocates nothing
    /// unless an occurrence of a nested message lacks a required field.
    pub fn is_valid(&self, payload: &[u8]) -> bool {
        let mut scan = self::verdict::Fast::new(&self.tables, self.options.reject_unknown_fields);
        match scan.root(payload) {
            Ok(()) if !scan.incomplete => true,
            Ok(()) => self::merge::is_complete(&self.tables, payload),
            Err(_) => false,
        }
    }

    /// Every problem found in `payload`, each a [`Violation`] (the type the
    /// JSON validator reports too) with its path, [`ViolationKind`] and what
    /// was wrong; empty exactly when [`is_valid`](Plan::is_valid) is true.
    ///
    /// This is the slow path, meant for payloads `is_valid` refused: it
    /// allocates freely. After a problem that loses the framing (a truncated
    /// varint, a length past the end) the walk resumes after the enclosing
    /// length-delimited message, so one broken line item does not hide the
    /// next.
    ///
    /// At most [`MAX_VIOLATIONS`] problems are reported.
    pub fn violations(&self, payload: &[u8]) -> Vec<Violation> {
        let mut walk = self::explain::Detail::new(&self.tables, self.options.reject_unknown_fields);
        walk.root(payload);
        let mut found = walk.structural;
        if !found.is_empty() {
            found.extend(walk.required);
            found.truncate(MAX_VIOLATIONS);
            return found;
        }
        // Structurally sound: settle required fields as the decoded tree
        // has them, merged occurrences and replaced map entries resolved.
        if walk.required.is_empty() {
            // Every occurrence is complete, so the tree is.
            return found;
        }
        found = self::merge::explain(&self.tables, payload, MAX_VIOLATIONS);
        found.truncate(MAX_VIOLATIONS);
        found
    }
}
