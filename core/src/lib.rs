//! The schema model of [dataschema](https://docs.rs/dataschema): URNs,
//! schemas and their errors, the [`Resolver`] trait, the validators
//! ([`validate`]) and the compatibility checks ([`compat`]).
//!
//! It is its own crate so that `dataschema-build`, which a `build.rs`
//! calls to check and bundle a `schemas/` folder, can compile and compare
//! schemas with the very code the registry and the guard run, without
//! depending on the `dataschema` crate (whose own build script bundles its
//! sample schemas through `dataschema-build`). Depend on `dataschema`: it
//! re-exports everything here.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// The floors, from the ground up (no module imports one above it):
// 1. the model: `urn`, `schema`, `error`, `contract`, `level`, `resolver`, `aliases`,
//    `limits`, `text`, `well_known`;
// 2. the vocabulary of validation (`violation`), of compatibility
//    (`change`) and of resolution (`resolution`), which the languages use;
// 3. the languages, one folder each: `json`, `protobuf`, `avro`;
// 4. the dispatch over the languages: `dispatch`;
// 5. this file: the public faces `validate`, `compat` and `resolve`.
mod aliases;
#[cfg(feature = "avro")]
mod avro;
mod change;
pub mod contract;
mod dispatch;
mod error;
mod json;
mod level;
pub mod limits;
#[cfg(feature = "protobuf")]
mod protobuf;
mod resolution;
mod resolver;
pub mod rules;
mod schema;
mod text;
mod urn;
mod violation;
pub mod well_known;

pub mod resolve {
    //! Reading one version's payloads as another's, and writing them back: the
    //! public face of resolution. A [`Plan`] is made once for a
    //! (writer, reader) pair from the two schemas, refusing a pair that cannot
    //! be resolved with the reader's path ([`Unresolvable`]), then runs over
    //! payload bytes, both ways:
    //!
    //! * [`Direction::Read`]: the writer's payload in the reader's layout
    //!   (`Resolution::transcode` in `dataschema`);
    //! * [`Direction::WriteBack`]: a payload in the reader's layout written
    //!   back in the writer's (`Resolution::write_back`).
    //!
    //! Each language's plan lives in its folder (`json/resolution.rs`,
    //! `avro/resolution.rs`, `protobuf/resolution.rs`), `dispatch/resolution.rs` chooses
    //! among them, and their shared vocabulary lives below them
    //! (`resolution.rs`). The
    //! rules, row by row, are those of the table in `docs/resolution.md`.
    //!
    //! The plans assume their input conforms to its schema (the caller
    //! validates it first: the guard does, `Resolution` does) but never panic
    //! or loop without bound on input that does not: they refuse it. Output is
    //! bounded: at most [`max_output`] bytes, whatever the payload declares.
    //!
    //! **The seam for migration rules.** Confluent's data contracts carry
    //! JSONata `UPGRADE`/`DOWNGRADE` rules (`ruleSet.migrationRules`) that
    //! rewrite a payload between versions. They plug in as a [`Migration`]
    //! (one per pair and direction), which `dataschema`'s `Resolution` runs in
    //! place of the structural plan; its output is validated against the
    //! target schema, since nothing proves it conforms.

    pub use crate::dispatch::resolution::{plan, Plan};
    pub use crate::resolution::{
        max_output, Aliases, Direction, Migration, PlanOptions, Unresolvable,
    };
}

pub mod validate {
    //! Validation: what a payload's check reports ([`Violation`],
    //! [`ViolationKind`]) and the dispatch to each language's validator
    //! (`json::validate`, `protobuf::validate`, `avro::validate`, each in its
    //! language's folder behind its cargo feature).
    //!
    //! A schema is compiled once (`compile`) into a `Compiled` value the
    //! guard caches for the life of the process (a URN's bytes never change).
    //! Dispatch is a `match` on an enum, not a trait object: the hot path has
    //! one predictable branch per message.

    #[doc(hidden)]
    pub use crate::dispatch::compile::{compile, CompileError, Compiled};
    pub use crate::violation::{JsonEngine, Violation, ViolationKind, MAX_VIOLATIONS};
    #[doc(hidden)]
    pub use crate::violation::{Options, Report};

    /// Avro's schema resolution as a plan over the bytes (feature `avro`):
    /// what `dataschema::Registry::resolution` builds. Use it through the
    /// registry; the plan is public for those who hold two schemas outside one.
    #[cfg(feature = "avro")]
    pub mod avro_resolution {
        pub use crate::avro::model::AvroSchema;
        pub use crate::avro::resolution::Transcoder;
        pub use crate::resolution::Unresolvable;

        /// Reads an Avro schema's JSON text (the model the plan is made from).
        pub fn read(bytes: &[u8]) -> Result<AvroSchema, crate::avro::model::SchemaError> {
            crate::avro::model::parse(bytes)
        }

        /// Reads an Avro schema over the named types its references define,
        /// resolved through `refs` ([`Error::SchemaUnusable`](crate::Error::SchemaUnusable) naming the
        /// schema, with the reason, when it cannot be read).
        pub fn read_schema(
            schema: &crate::schema::Schema,
            refs: &dyn crate::resolver::Resolver,
        ) -> Result<AvroSchema, crate::error::Error> {
            crate::avro::names::read(schema, refs).map_err(|err| {
                crate::error::Error::SchemaUnusable {
                    urn: schema.urn().clone(),
                    source: err.to_string().into(),
                }
            })
        }
    }

    /// The Avro validating scanner and schema model (features `avro` and
    /// `unstable`): the guard's engine for Avro payloads, public for the
    /// differential tests, the benches and the fuzz targets.
    ///
    /// **Unstable**: behind the `unstable` feature, with no semver promise.
    /// Validate through `dataschema::Guard`.
    #[cfg(all(feature = "avro", feature = "unstable"))]
    pub mod avro_scan {
        pub use crate::avro::model::{parse_schema, rabin, AvroSchema, SchemaError};
        pub use crate::avro::scan::{Plan, MAX_DEPTH};
    }

    /// The protobuf validating scanner (features `protobuf` and `unstable`):
    /// the guard's engine for protobuf payloads, public for the differential
    /// tests, the benches and the fuzz targets.
    ///
    /// **Unstable**: behind the `unstable` feature, with no semver promise;
    /// its items may change or go in any release. Validate through
    /// `dataschema::Guard`.
    #[cfg(all(feature = "protobuf", feature = "unstable"))]
    pub use crate::protobuf::scan as protobuf_scan;

    /// The former name of [`protobuf_scan`]: the scanner of one language
    /// among three, named now as `avro_scan` and `json_plan` are.
    #[cfg(all(feature = "protobuf", feature = "unstable"))]
    #[deprecated(note = "renamed validate::protobuf_scan")]
    #[doc(hidden)]
    pub mod scan {
        pub use crate::protobuf::scan::*;
    }

    /// The JSON scanner's compiled plan: a JSON Schema checked on the payload
    /// bytes without building a `serde_json::Value` (feature `json`). The guard
    /// uses it on its own; it is public for the differential tests and for
    /// those who want the verdict alone.
    ///
    /// Covered: drafts 4 to 2020-12; boolean schemas, `type`, `properties`,
    /// `patternProperties`, `additionalProperties`, `required`,
    /// `dependentRequired`, `dependentSchemas`, `dependencies`,
    /// `propertyNames`, `items`/`prefixItems`/`additionalItems`,
    /// `minItems`/`maxItems`, `minLength`/`maxLength`, `pattern`, `format`,
    /// scalar `enum`/`const`, numeric bounds, `multipleOf`,
    /// `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`, and `$ref` to a JSON
    /// pointer in the document or to a registry schema by URN. Anything else
    /// `jsonschema` acts on makes [`JsonPlan::compile`](json_plan::JsonPlan::compile)
    /// refuse the schema, which the guard then validates with `jsonschema`.
    #[cfg(feature = "json")]
    pub mod json_plan {
        pub use crate::json::validate::codegen::GeneratedSource;
        pub use crate::json::validate::plan::{JsonPlan, PlanRefusal};
    }

    /// What the validators `dataschema-build` generates for bundled JSON
    /// Schema versions call (`codegen = true` in the folder's manifest):
    /// the scanner's tokenizer and the plan's checkers by node id.
    ///
    /// Hidden: the generated code's side of a contract with the generator
    /// of the same version, no semver promise.
    #[cfg(feature = "json")]
    #[doc(hidden)]
    pub mod generated {
        pub use crate::json::validate::scanner::generated::{
            unsure, Candidates, Checks, Generated, Input, Numeral, Step, Stop, Text,
        };
    }
}

pub mod compat {
    //! Schema compatibility: a diff engine per language and one checker for the
    //! seven [`Compatibility`] levels.
    //!
    //! Every check is built on a diff. [`json::diff`] and [`protobuf::diff`]
    //! (feature `protobuf`) list every change between an old and a new schema,
    //! each with a kind named after Confluent Schema Registry's difference types,
    //! a path, and whether it breaks backward compatibility. The checkers
    //! ([`json::check`], [`protobuf::check`]) run those diffs under a level against
    //! prior versions through one language-agnostic driver, [`check_with`].
    //! Over [`Schema`](crate::Schema)s of any language, [`diff()`] and [`check()`]
    //! share one per-language dispatch; their kinds are [`AnyChangeKind`].
    //!
    //! Reports are typed: a [`CompatReport`] holds a [`VersionReport`] per
    //! prior version checked, each with every [`VersionChange`] found (its
    //! version, [`Direction`], kind, path and verdict). Text comes from
    //! `Display` only.
    //!
    //! | level | what is checked |
    //! |---|---|
    //! | `Backward` | `diff(latest prior, new)` has no breaking change |
    //! | `Forward` | `diff(new, latest prior)` has no breaking change |
    //! | `Full` | both |
    //! | `*Transitive` | the same against every prior version, oldest first |
    //! | `None` | nothing |
    //!
    //! ```
    //! use dataschema::compat::{json, Compatibility};
    //! use serde_json::json;
    //!
    //! let v1 = json!({"type": "object", "properties": {"id": {"type": "integer"}}});
    //! let v2 = json!({"type": "object", "properties": {"id": {"type": "number"}}});
    //! let report = json::check(Compatibility::Backward, &v2, &[(1, &v1)]).unwrap();
    //! assert!(report.is_compatible());
    //!
    //! let diff = json::diff(&v1, &v2);
    //! assert_eq!(diff.to_string().lines().count(), 2);
    //! ```
    //!
    //! The rules per language, and where they differ from Confluent, are in
    //! `docs/compatibility.md`.

    #[cfg(feature = "avro")]
    pub use crate::avro::compat as avro;
    pub use crate::json::compat as json;
    #[cfg(feature = "protobuf")]
    pub use crate::protobuf::compat as protobuf;

    pub use crate::change::any_kind::AnyChangeKind;
    pub use crate::change::check::{
        check_with, CompatReport, Direction, VersionChange, VersionReport,
    };
    pub use crate::change::diff::{Change, SchemaDiff};
    pub use crate::change::error::CompatError;
    pub use crate::change::kind::{ChangeKind, UnknownChangeKind};
    pub use crate::change::policy::{Policy, UnknownPolicy};
    pub use crate::dispatch::compare::{check, check_readings, diff};
    pub use crate::dispatch::reading::Reading;
    pub use crate::level::{Compatibility, UnknownCompatibility};

    /// The former name of [`UnknownCompatibility`]: "mode" is the
    /// registry's mode (`READWRITE`, `IMPORT`, ...), a compatibility
    /// setting is a level.
    #[deprecated(note = "renamed UnknownCompatibility")]
    pub type UnknownMode = UnknownCompatibility;

    /// The seven compatibility levels of Confluent Schema Registry
    /// ([`Compatibility`]), as this path named them before.
    pub mod mode {
        pub use crate::level::{Compatibility, UnknownCompatibility};

        /// The former name of [`UnknownCompatibility`].
        #[deprecated(note = "renamed UnknownCompatibility")]
        pub type UnknownMode = UnknownCompatibility;
    }
}

/// Protobuf schemas as Confluent's clients register them, without a root
/// message (their bytes the `schema` string registered, their imports
/// [`Schema::references`](crate::Schema::references)), and descriptors printed
/// back to `.proto` text ([`print_file`](proto::print_file)). Feature
/// `protobuf`; compiling such a schema's text needs `proto-text`.
#[cfg(feature = "protobuf")]
pub mod proto {
    pub use crate::protobuf::print::{print_file, print_file_normalized};
    #[cfg(feature = "proto-text")]
    pub use crate::protobuf::source::{
        check_references, file_descriptor, is_descriptor, message_by_urn, normalize, same_files,
        same_version, text,
    };
    pub use crate::protobuf::source::{
        is_rootless_set, is_well_known, looks_like_source, top_files, Form, PROTOBUF_WELL_KNOWN,
        WELL_KNOWN,
    };
}

/// Avro schemas across schemas (feature `avro`): the named types a
/// schema's JSON defines and the names it uses from elsewhere (what a
/// `schemas/` folder indexes to find the schema defining a type), and
/// Confluent's `normalize=true` for Avro.
#[cfg(feature = "avro")]
pub mod avsc {
    pub use crate::avro::names::{defined_names, used_names};
    pub use crate::avro::normalize::normalize;
}

pub use crate::contract::{Metadata, Reference, RuleSet};
pub use crate::error::{BoxError, Chain, Error, ErrorKind, ModeRefusal, Unresolved};
pub use crate::level::Compatibility;
pub use crate::resolver::Resolver;
#[doc(hidden)]
pub use crate::schema::GeneratedValidator;
pub use crate::schema::{Bytes, IntoSchemaBytes, Language, Schema, MAX_SCHEMA_BYTES};
pub use crate::urn::{Urn, UrnError};
pub use crate::violation::{Violation, ViolationKind, MAX_VIOLATIONS};

pub use crate::schema::sha256_hex;
pub use crate::text::clip;

/// The guard's allocation-free URN lookup: `dataschema::Guard` parses the
/// URN of every message on its hot path into borrowed parts and looks its
/// canonical form up before it builds a [`Urn`]. Hidden because its shape
/// follows the guard's cache: not API, no semver promise (use
/// [`Urn`]'s `FromStr`).
#[doc(hidden)]
pub use crate::urn::{parse as parse_urn, Parsed as ParsedUrn};
