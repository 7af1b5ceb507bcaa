//! Avro compatibility as Java's `SchemaCompatibility` decides it (feature
//! `avro`): the checker Confluent Schema Registry runs, and Python's
//! `avro.compatibility` ports.
//!
//! `diff(writer, reader)` lists every reason the reader schema cannot read
//! data the writer schema wrote, each with Java's incompatibility type
//! ([`AvroChangeKind`]), Java's location in the reader schema (a JSON
//! pointer such as `/fields/1/type`) and Java's message as the label. An
//! empty diff is compatible. Under the levels, `Backward` reads the prior
//! version (writer) with the candidate (reader), `Forward` the other way.
//!
//! The rules: fields match by name, then by the reader field's aliases; a
//! reader field the writer lacks needs a default; named types match by
//! unqualified name or by a reader alias naming the writer's full name;
//! `int` is promoted to `long`, `float`, `double`, `long` to `float` and
//! `double`, `float` to `double`, `string` and `bytes` both ways; a writer
//! union needs every branch readable, a reader union one branch that reads
//! the writer; an enum needs every writer symbol unless the reader has a
//! default; fixed sizes are equal. Logical types are not compared (Java
//! ignores them). A pair of types already being compared (recursion) is
//! taken as compatible, as in Java.
//!
//! ```
//! use dataschema::compat::{avro, Compatibility};
//!
//! let v1 = br#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#;
//! let v2 = br#"{"type":"record","name":"R","fields":[{"name":"a","type":"long"},
//!                {"name":"b","type":"string"}]}"#;
//! let report = avro::check(Compatibility::Backward, v2, &[(1, v1)]).unwrap();
//! assert!(!report.is_compatible());
//! let change = report.breaking().next().unwrap();
//! assert_eq!(change.kind(), avro::AvroChangeKind::ReaderFieldMissingDefaultValue);
//! assert_eq!(change.path(), "/fields/1");
//! ```

mod changes;
mod compare;
pub(crate) mod kind;

pub use self::kind::AvroChangeKind;
pub use crate::avro::model::{AvroSchema, SchemaError};
use crate::change::check::{check_with, CompatReport};
use crate::change::diff::SchemaDiff;
use crate::change::error::CompatError;
use crate::level::Compatibility;

/// Reads an Avro schema's JSON text, naming the input (`what`) in the
/// error.
pub fn parse(what: &str, bytes: &[u8]) -> Result<AvroSchema, CompatError> {
    crate::avro::model::parse(bytes).map_err(|source| CompatError::NotAnAvroSchema {
        what: what.to_owned(),
        source,
    })
}

/// Every reason `reader` cannot read data written with `writer`, in Java's
/// order; empty when it can.
pub fn diff(writer: &AvroSchema, reader: &AvroSchema) -> SchemaDiff<AvroChangeKind> {
    SchemaDiff::new(compare::compare(writer, reader))
}

/// Every change between `writer` (the old schema) and `reader` (the new
/// one): Java's incompatibilities, as [`diff`] finds them, and the changes
/// the reader still reads (a field added with a default, a promotion, an
/// enum symbol added, ...: [`AvroChangeKind`]'s safe kinds), in the order
/// of their locations in the reader schema. What
/// [`compat::diff`](crate::compat::diff()) lists for Avro; a compatibility
/// check needs [`diff`] only.
///
/// ```
/// use dataschema::compat::avro::{self, AvroChangeKind};
///
/// let v1 = avro::parse("v1", br#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#).unwrap();
/// let v2 = avro::parse("v2", br#"{"type":"record","name":"R","fields":[{"name":"a","type":"long"},
///                {"name":"b","type":"string","default":""}]}"#).unwrap();
/// let diff = avro::changes(&v1, &v2);
/// let kinds: Vec<_> = diff.changes().iter().map(|c| c.kind()).collect();
/// assert_eq!(kinds, [AvroChangeKind::TypePromoted, AvroChangeKind::FieldAdded]);
/// assert!(diff.is_backward_compatible());
/// assert!(avro::diff(&v1, &v2).is_empty());
/// ```
pub fn changes(writer: &AvroSchema, reader: &AvroSchema) -> SchemaDiff<AvroChangeKind> {
    let breaking = compare::compare(writer, reader);
    SchemaDiff::new(changes::changes(writer, reader, breaking))
}

/// Checks `candidate` against `priors` (oldest first, with their version
/// numbers) under `level`; every input is an Avro schema's JSON text.
pub fn check(
    level: Compatibility,
    candidate: &[u8],
    priors: &[(u32, &[u8])],
) -> Result<CompatReport, CompatError> {
    let candidate = parse("candidate", candidate)?;
    let schemas = priors
        .iter()
        .map(|(v, bytes)| Ok((*v, parse(&format!("version {v}"), bytes)?)))
        .collect::<Result<Vec<_>, CompatError>>()?;
    let refs: Vec<(u32, &AvroSchema)> = schemas.iter().map(|(v, s)| (*v, s)).collect();
    Ok(check_schemas(level, &candidate, &refs))
}

/// Checks `candidate` against `priors` (oldest first) under `level`, on read
/// schemas.
pub fn check_schemas(
    level: Compatibility,
    candidate: &AvroSchema,
    priors: &[(u32, &AvroSchema)],
) -> CompatReport {
    check_with(level, candidate, priors, diff)
}
