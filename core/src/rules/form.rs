//! A payload's form for rules: Avro and protobuf payloads read as the
//! JSON-like value Confluent's deserializers hand their rule executors,
//! and written back in their own encoding after a rule rewrote them.
//!
//! Each language implements [`PayloadForm`] in its own folder
//! (`avro/form.rs`, `protobuf/form.rs`) and the dispatch hands it over
//! (`Compiled::payload_form`); the rules see only this trait. JSON Schema
//! payloads are JSON already, and their fields are walked beside the
//! schema document (`field.rs`).
//!
//! Two readings, as Confluent's clients have two
//! (confluent-kafka-python v2.15.0 and v2.16.1):
//!
//! * [`Reading::Rules`], what a domain rule's `message` is: Avro as
//!   `fastavro` decodes it (records as objects, unions unwrapped, enums
//!   as their symbol), protobuf as the message with its fields by their
//!   `.proto` names, 64-bit integers as numbers and enums as numbers (the
//!   CEL executor binds the message itself, `_msg_to_cel`);
//! * [`Reading::Migration`], what a `JSONATA` migration rule reads: Avro
//!   the same, protobuf as `json_format.MessageToDict(msg, True)` gives
//!   it (JSON names, 64-bit integers as strings, enums by name, fields
//!   with no presence written out) in `_sync/protobuf.py`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

/// Which reading of a payload a rule sees (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// What a domain rule (`CEL`, `CEL_FIELD`) binds.
    Rules,
    /// What a migration rule (`JSONATA`) reads and writes.
    Migration,
}

/// A primitive field a field rule may reach: where it is, and what
/// Confluent binds for it (`FieldContext` in its `serde.py`).
#[derive(Debug)]
pub struct FieldSite<'a> {
    /// `fullName`: the record's or message's full name and the field's
    /// (`acme.Order.email`), as Confluent's Avro and protobuf walks name
    /// it; the version's `metadata.tags` match it.
    pub full_name: &'a str,
    /// `name`: the field's own name.
    pub name: &'a str,
    /// `typeName`: Confluent's `FieldType` name of the value's type
    /// (`STRING`, `INT`, `LONG`, `FLOAT`, `DOUBLE`, `BOOLEAN`, `BYTES`,
    /// `NULL`).
    pub type_name: &'static str,
    /// The field's tags written in the schema (Avro `confluent:tags`,
    /// protobuf `(confluent.field_meta).tags`).
    pub inline_tags: &'a [String],
    /// Where in the payload, for a violation (`$.customer.email`).
    pub path: &'a str,
    /// The record or message holding the field (`message`), as it was
    /// when the walk reached it.
    pub message: &'a Value,
}

/// Why a walk stopped: the path of the field, and what happened.
pub type FieldStop = (String, String);

/// What a walk calls on each primitive field: its site and its value,
/// which a transform may replace.
pub type FieldVisit<'a> = dyn FnMut(&FieldSite<'_>, &mut Value) -> Result<(), FieldStop> + 'a;

/// A payload's form for rules (see the module docs), shared by every
/// version's compiled rules and migrations.
pub trait PayloadForm: Send + Sync + fmt::Debug {
    /// Reads a payload's bytes (a datum, a message body: no frame) as
    /// the value rules see.
    fn decode(&self, payload: &[u8], reading: Reading) -> Result<Value, String>;

    /// Writes a value (in either reading) back in the payload's encoding.
    fn encode(&self, value: &Value) -> Result<Vec<u8>, String>;

    /// Calls `visit` on every primitive field of `value` (decoded with
    /// [`Reading::Rules`]), in the schema's order, depth first, as
    /// Confluent's `transform` walks a message (confluent-kafka-python
    /// v2.16.1): an Avro `null` (a union's null branch) is handed over
    /// with `typeName` `NULL`; enums, maps of protobuf and protobuf
    /// fields with presence left unset are passed over.
    fn walk(&self, value: &mut Value, visit: &mut FieldVisit<'_>) -> Result<(), FieldStop>;

    /// Every field of the schema by its full name (what a metadata tag's
    /// path matches), with its tags written in the schema: for the checks
    /// at build.
    fn fields(&self) -> BTreeMap<String, Vec<String>>;

    /// The top-level field names of the root record or message, as a
    /// `CEL` rule's `message.<name>` reads them.
    fn root_fields(&self) -> BTreeSet<String>;

    /// The first step of `path` that names no field of the schema, for
    /// the checks at build: `path` is what a `CEL` rule selects below
    /// `message`, field names from the root record or message, [`ITEM`]
    /// for an array's item or a map's value (`message.items[0].sku`,
    /// or `i.sku` in `message.items.all(i, ..)`, is `items`, `[]`,
    /// `sku`). `None` when every step names a field, or when the form
    /// cannot say (a step below a value that is not a record or
    /// message). This default knows the root's fields only.
    fn missing_step(&self, path: &[&str]) -> Option<usize> {
        let root = self.root_fields();
        match path.first() {
            Some(first) if *first != ITEM && !root.is_empty() && !root.contains(*first) => Some(0),
            _ => None,
        }
    }
}

/// A step of a path (see [`PayloadForm::missing_step`]): an array's item
/// or a map's value.
pub const ITEM: &str = "[]";
