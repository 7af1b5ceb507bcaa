//! Validation's dispatch over the languages: a schema is compiled once
//! ([`compile`]) into a [`Compiled`] value the guard caches for the life of
//! the process (a URN's bytes never change). Dispatch is a `match` on an
//! enum, not a trait object: the hot path has one predictable branch per
//! message.

// Without a validator every schema fails open with `no_validator`, and the
// payload-checking half of this module has nothing to do.
#![cfg_attr(
    not(any(feature = "json", feature = "protobuf", feature = "avro")),
    allow(unused_imports, unused_variables, dead_code)
)]

use std::sync::Arc;

#[cfg(feature = "avro")]
use crate::avro::validate as avro;
use crate::error::Error;
#[cfg(any(feature = "json", feature = "proto-text", feature = "avro"))]
use crate::error::MissingRef;
#[cfg(feature = "json")]
use crate::json::validate as json;
#[cfg(feature = "protobuf")]
use crate::protobuf::validate as protobuf;
use crate::resolver::Resolver;
use crate::schema::{Language, Schema};
use crate::violation::{JsonEngine, Options, Report, Violation};

/// Why a schema did not compile, sorted by what a guard does about it.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[derive(Debug)]
#[cfg_attr(not(feature = "json"), allow(dead_code))] // only `$ref`s pass
#[doc(hidden)]
pub enum CompileError {
    /// No validator for the language is compiled in: lasting.
    NoValidator(Error),
    /// The schema itself cannot be used: lasting.
    Unusable(Error),
    /// A `$ref` names a URN no resolver holds (yet): passes once it is
    /// published.
    MissingRef(Error),
    /// A `$ref`'s registry could not be asked: passes when it is back.
    Unreachable(Error),
}

impl From<CompileError> for Error {
    fn from(error: CompileError) -> Error {
        match error {
            CompileError::NoValidator(error)
            | CompileError::Unusable(error)
            | CompileError::MissingRef(error)
            | CompileError::Unreachable(error) => error,
        }
    }
}

/// A compiled schema, ready to check payloads.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[doc(hidden)]
pub enum Compiled {
    #[cfg(feature = "json")]
    Json(json::JsonValidator),
    #[cfg(feature = "protobuf")]
    Protobuf(protobuf::ProtobufValidator),
    #[cfg(feature = "avro")]
    Avro(avro::AvroValidator),
}

impl Compiled {
    /// The schema read for compatibility checks, when compiling it read it
    /// already: a protobuf schema's descriptor pool (shared, not copied),
    /// so that a publish decodes its candidate once. `None` for JSON
    /// Schema, whose parse is cheap next to its comparison.
    #[doc(hidden)]
    pub fn reading(&self) -> Option<crate::dispatch::reading::Reading> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => None,
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => {
                Some(crate::dispatch::reading::Reading::from_pool(v.pool()))
            }
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => Some(crate::dispatch::reading::Reading::from_avro(v.schema())),
        }
    }

    /// The payload's form for data contracts' rules: Avro datums and
    /// protobuf messages read as the value Confluent's deserializers hand
    /// their rules, and written back (`rules::PayloadForm`). `None` for a
    /// JSON Schema (its payload is JSON already) and for a protobuf
    /// schema without a message to read a payload as.
    pub fn payload_form(&self) -> Option<std::sync::Arc<dyn crate::rules::PayloadForm>> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => None,
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.message().map(|message| {
                std::sync::Arc::new(crate::protobuf::form::ProtobufForm::new(message))
                    as std::sync::Arc<dyn crate::rules::PayloadForm>
            }),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => Some(std::sync::Arc::new(crate::avro::form::AvroForm::new(
                v.schema(),
            ))),
        }
    }

    /// The Rust code of a JSON Schema's scanner plan, for `dataschema-build`
    /// to bundle (`None`: not JSON Schema, no plan, or a plan the
    /// generator does not cover).
    #[cfg(feature = "json")]
    #[doc(hidden)]
    pub fn generate(&self) -> Option<crate::validate::json_plan::GeneratedSource> {
        match *self {
            Compiled::Json(ref v) => v.generate(),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// Whether a JSON Schema's checks run the validator generated for it
    /// at `cargo build` first.
    #[cfg(feature = "json")]
    #[doc(hidden)]
    pub fn runs_generated(&self) -> bool {
        match *self {
            Compiled::Json(ref v) => v.runs_generated(),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// Checks a payload's bytes.
    #[inline]
    pub fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        self.check(payload)
            .map_err(|report| report.violations().to_vec())
    }

    /// Checks a payload's bytes; the verdict is final, the report of a JSON
    /// payload the scanner refused is produced when first read
    /// ([`Report::violations`]).
    #[inline]
    pub fn check(&self, payload: &[u8]) -> Result<(), Report> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.check(payload),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) if v.frames_only() => Err(Report::frames_only()),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate(payload).map_err(Report::found),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => v.validate(payload).map_err(Report::found),
        }
    }

    /// Whether this is a protobuf validator (whose Confluent frames carry
    /// message indexes).
    pub fn is_protobuf(&self) -> bool {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => false,
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(_) => true,
            #[cfg(feature = "avro")]
            Compiled::Avro(_) => false,
        }
    }

    /// Protobuf: whether Confluent message indexes name a message of the
    /// schema's file (see `Guard::validate_framed`); `Err` says why not.
    /// `None` for a JSON Schema or Avro, which take no indexes.
    pub fn check_indexes(&self, indexes: &[u64]) -> Option<Result<(), String>> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(_) => {
                let _ = indexes;
                None
            }
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => Some(v.check_indexes(indexes)),
            #[cfg(feature = "avro")]
            Compiled::Avro(_) => {
                let _ = indexes;
                None
            }
        }
    }

    /// What a producer writes between the schema id and the body of a
    /// Confluent frame: for protobuf, the message indexes of `message` (by
    /// full name; `None`: the root, or a rootless schema's first message),
    /// encoded as Confluent's serializers encode them; nothing for JSON
    /// Schema and Avro, which have no message to choose (`Err` when one is
    /// named). `Err` says why the message cannot be framed: one a consumer's
    /// [`validate_framed_body`](Self::validate_framed_body) would refuse.
    pub fn message_indexes(&self, message: Option<&str>) -> Result<Vec<u8>, String> {
        match *self {
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => {
                let indexes = v.indexes_for(message)?;
                let mut out = Vec::with_capacity(indexes.len() + 1);
                crate::protobuf::frame::write_indexes(&indexes, &mut out);
                Ok(out)
            }
            #[allow(unreachable_patterns)]
            _ => match message {
                None => Ok(Vec::new()),
                Some(name) => Err(format!(
                    "only a protobuf schema has messages to choose from (asked for {name})"
                )),
            },
        }
    }

    /// Checks what follows the schema id in a Confluent frame: for
    /// protobuf, the message indexes (which pick the message of the
    /// schema's file the body is: the root, or any other), then the body as
    /// that message; for JSON Schema and Avro, the body.
    pub fn validate_framed_body(&self, rest: &[u8]) -> Result<(), Report> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.check(rest),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate_framed(rest).map_err(Report::found),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => v.validate(rest).map_err(Report::found),
        }
    }

    /// What follows the schema id in a Confluent frame, its message
    /// indexes read off: the message they name (`None` for the one a
    /// payload without indexes is, the root; else its full name, which
    /// resolution plans for: `PlanOptions::with_message`) and the body;
    /// `Err` says why the indexes name no message. For JSON Schema and
    /// Avro, the body.
    pub fn framed_message<'a>(&self, rest: &'a [u8]) -> Result<(Option<String>, &'a [u8]), String> {
        match *self {
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => {
                let mut inline = [0u64; crate::protobuf::frame::INLINE_INDEXES];
                let mut heap = Vec::new();
                let (indexes, body) =
                    crate::protobuf::frame::read_indexes(rest, &mut inline, &mut heap).map_err(
                        |violations| {
                            violations
                                .first()
                                .map(|v| v.message().to_owned())
                                .unwrap_or_default()
                        },
                    )?;
                let message = v.message_at(indexes)?;
                Ok((message.map(|m| m.full_name().to_owned()), body))
            }
            #[allow(unreachable_patterns)]
            _ => Ok((None, rest)),
        }
    }

    /// For a JSON Schema, which engine checks payload bytes; `None` for
    /// another language.
    pub fn json_engine(&self) -> Option<JsonEngine> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => Some(v.engine()),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(_) => None,
            #[cfg(feature = "avro")]
            Compiled::Avro(_) => None,
        }
    }

    /// Checks a payload the caller has already parsed as JSON.
    #[inline]
    pub fn validate_json(&self, value: &serde_json::Value) -> Result<(), Vec<Violation>> {
        self.check_json(value)
            .map_err(|report| report.violations().to_vec())
    }

    /// Checks a payload the caller has already parsed as JSON; a JSON
    /// Schema's report may be undecided ([`Report::undecided`]).
    #[inline]
    pub fn check_json(&self, value: &serde_json::Value) -> Result<(), Report> {
        match *self {
            #[cfg(feature = "json")]
            Compiled::Json(ref v) => v.validate_value(value),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) if v.frames_only() => Err(Report::frames_only()),
            #[cfg(feature = "protobuf")]
            Compiled::Protobuf(ref v) => v.validate_json(value).map_err(Report::found),
            #[cfg(feature = "avro")]
            Compiled::Avro(ref v) => v.validate_json(value).map_err(Report::found),
        }
    }
}

/// Compiles `schema`. `refs` resolves the URNs a JSON Schema `$ref`
/// names; nothing is ever fetched from the network or the filesystem.
///
/// Errors, sorted as [`CompileError`]: [`Error::NoValidator`] when the
/// language's feature is off; [`Error::SchemaUnusable`] when the schema does
/// not compile, and the shape errors ([`Error::Empty`],
/// [`Error::MissingRoot`]); [`Error::SchemaUnusable`] naming a `$ref` nobody
/// holds yet; [`Error::Unreachable`] when a `$ref`'s schema could not be
/// fetched just now. The last two are not properties of the schema.
///
/// Hidden: the guard's engine, which `dataschema` and `dataschema-build`
/// share with this crate; its shape follows the guard's. Not API, no
/// semver promise: validate through `dataschema::Guard`.
#[doc(hidden)]
pub fn compile(
    schema: &Schema,
    refs: Arc<dyn Resolver>,
    options: Options,
) -> Result<Compiled, CompileError> {
    // Every reader below recurses as deep as the schema nests: on a stack
    // this crate sizes, never the caller's (a Tokio worker's 2 MiB).
    crate::limits::on_compile_stack(|| compile_here(schema, refs, options)).unwrap_or_else(|err| {
        match err {
            crate::limits::StackError::Spawn(_) => {
                Err(CompileError::Unreachable(Error::Unreachable {
                    urn: schema.urn().clone(),
                    source: Box::new(err),
                }))
            }
            crate::limits::StackError::Panicked => {
                Err(CompileError::Unusable(Error::SchemaUnusable {
                    urn: schema.urn().clone(),
                    source: Box::new(err),
                }))
            }
        }
    })
}

/// [`compile`] on the calling thread.
fn compile_here(
    schema: &Schema,
    refs: Arc<dyn Resolver>,
    options: Options,
) -> Result<Compiled, CompileError> {
    schema.check_shape().map_err(CompileError::Unusable)?;
    let unusable = |source| {
        CompileError::Unusable(Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source,
        })
    };
    match schema.language() {
        #[cfg(feature = "json")]
        Language::JsonSchema => {
            json::JsonValidator::compile(schema.bytes(), schema.references(), refs, options)
                .map(|validator| validator.with_generated(schema.generated()))
                .map(Compiled::Json)
                .map_err(|err| match err {
                    json::JsonCompileError::Unusable(source) => unusable(source),
                    json::JsonCompileError::Unreachable(source) => {
                        CompileError::Unreachable(Error::Unreachable {
                            urn: schema.urn().clone(),
                            source,
                        })
                    }
                    json::JsonCompileError::MissingRef(target) => {
                        CompileError::MissingRef(Error::SchemaUnusable {
                            urn: schema.urn().clone(),
                            source: Box::new(MissingRef { target }),
                        })
                    }
                })
        }
        #[cfg(feature = "protobuf")]
        Language::Protobuf => match schema.root() {
            Some(root) => protobuf::ProtobufValidator::compile(schema.bytes(), root, options)
                .map(Compiled::Protobuf)
                .map_err(unusable),
            // A descriptor set without a root: frames only.
            // Not exactly one own file: it must name its root.
            None if crate::protobuf::source::is_rootless_set(schema) => {
                protobuf::ProtobufValidator::rootless_set(schema.bytes(), options)
                    .map(Compiled::Protobuf)
                    .map_err(|err| match err {
                        Some(err) => unusable(err),
                        None => CompileError::Unusable(Error::MissingRoot {
                            urn: schema.urn().clone(),
                        }),
                    })
            }
            // No root: a Confluent registration, `.proto` text or a
            // descriptor with references (`protobuf/source.rs`).
            None => compile_rootless(schema, refs.as_ref(), options),
        },
        #[cfg(feature = "avro")]
        Language::Avro => {
            // Avro payloads have no options: the encoding has no unknown
            // fields and no duplicate keys.
            let _ = options;
            use crate::avro::names::{DefinitionsError, ReadError};
            avro::AvroValidator::compile(schema, refs.as_ref())
                .map(Compiled::Avro)
                .map_err(|err| match err {
                    ReadError::Definitions(DefinitionsError::Missing(target)) => {
                        CompileError::MissingRef(Error::SchemaUnusable {
                            urn: schema.urn().clone(),
                            source: Box::new(MissingRef { target }),
                        })
                    }
                    ReadError::Definitions(DefinitionsError::Unreachable(source)) => {
                        CompileError::Unreachable(Error::Unreachable {
                            urn: schema.urn().clone(),
                            source: Box::new(source),
                        })
                    }
                    err => unusable(format!("not a usable Avro schema: {err}").into()),
                })
        }
        #[allow(unreachable_patterns)]
        language => {
            let _ = (refs, unusable);
            Err(CompileError::NoValidator(Error::NoValidator {
                urn: schema.urn().clone(),
                language,
            }))
        }
    }
}

/// A protobuf schema without a root (a Confluent registration): its text
/// compiled with its references (feature `proto-text`).
#[cfg(feature = "protobuf")]
fn compile_rootless(
    schema: &Schema,
    refs: &dyn Resolver,
    options: Options,
) -> Result<Compiled, CompileError> {
    let unusable = |message: String| {
        CompileError::Unusable(Error::SchemaUnusable {
            urn: schema.urn().clone(),
            source: message.into(),
        })
    };
    #[cfg(feature = "proto-text")]
    {
        use crate::protobuf::source::{self, SourceError};
        let compiled = source::compile(schema, refs).map_err(|err| match err {
            SourceError::Unusable(message) => unusable(message),
            SourceError::MissingRef(target) => CompileError::MissingRef(Error::SchemaUnusable {
                urn: schema.urn().clone(),
                source: Box::new(MissingRef { target }),
            }),
            SourceError::Unreachable(source) => CompileError::Unreachable(Error::Unreachable {
                urn: schema.urn().clone(),
                source: Box::new(source),
            }),
        })?;
        protobuf::ProtobufValidator::rootless(&compiled.pool, &compiled.main, options)
            .map(Compiled::Protobuf)
            .map_err(|err| unusable(err.to_string()))
    }
    #[cfg(not(feature = "proto-text"))]
    {
        let _ = (refs, options);
        Err(unusable(
            "a protobuf schema without a root is .proto text (a Confluent registration), and \
             this build compiles no .proto text: enable the `proto-text` feature"
                .into(),
        ))
    }
}
