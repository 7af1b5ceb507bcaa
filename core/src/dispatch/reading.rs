//! A schema read for comparison: its language's schema model, read once
//! from the schema's bytes (a parsed JSON Schema, a checked descriptor
//! pool, an Avro schema). Both dispatches share it: compiling a validator
//! reads a protobuf or Avro schema into the same model
//! ([`Compiled::reading`](super::compile::Compiled::reading)), and the
//! compatibility dispatch ([`super::compare`]) compares readings.

use serde_json::Value;

use crate::change::error::CompatError;
use crate::json::compat::parse as json;
#[cfg(feature = "protobuf")]
use crate::protobuf::compat::decode as descriptors;
use crate::schema::{Language, Schema};

/// A schema read for comparison, in its language: what
/// [`compat::check`](crate::compat::check) reads every schema it is given
/// into, kept by a caller that checks against the same prior versions again
/// ([`compat::check_readings`](crate::compat::check_readings)). A
/// registry keeps the readings of the prior versions it publishes against,
/// by digest: their bytes never change, so their reading never does either.
pub struct Reading(pub(crate) Model);

/// The schema model of each language.
pub(crate) enum Model {
    Json(Value),
    #[cfg(feature = "protobuf")]
    Protobuf(prost_reflect::DescriptorPool),
    #[cfg(feature = "avro")]
    Avro(std::sync::Arc<crate::avro::model::AvroSchema>),
}

impl Reading {
    /// Reads `schema` in its language, as [`compat::check`](crate::compat::check)
    /// reads every schema it is given (errors name `the schema`).
    ///
    /// Errors: [`CompatError::Unusable`] when the bytes are not a schema of
    /// the language, [`CompatError::NoComparer`] when the language's engine
    /// is not compiled in.
    pub fn read(schema: &Schema) -> Result<Reading, CompatError> {
        Model::read(schema, "the schema").map(Reading)
    }

    /// [`read`](Reading::read), a schema's references (a protobuf schema
    /// without a root, registered with references; an Avro schema using
    /// named types its references define) resolved through `refs`.
    pub fn read_with(
        schema: &Schema,
        refs: &dyn crate::resolver::Resolver,
    ) -> Result<Reading, CompatError> {
        Model::read_with(schema, "the schema", refs).map(Reading)
    }

    /// The language read.
    pub fn language(&self) -> Language {
        self.0.language()
    }

    /// An Avro schema already read by the validator's compile.
    #[cfg(feature = "avro")]
    pub(crate) fn from_avro(schema: std::sync::Arc<crate::avro::model::AvroSchema>) -> Reading {
        Reading(Model::Avro(schema))
    }

    /// A protobuf schema already decoded into `pool` by the model's checks
    /// ([`crate::protobuf::model::decode`]), as the validator's compile does.
    #[cfg(feature = "protobuf")]
    pub(crate) fn from_pool(pool: prost_reflect::DescriptorPool) -> Reading {
        Reading(Model::Protobuf(pool))
    }
}

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reading")
            .field("language", &self.language())
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Reads `schema` in its language; `what` names it inside the error.
    /// A protobuf schema's references resolve to nothing.
    pub(crate) fn read(schema: &Schema, what: &str) -> Result<Model, CompatError> {
        Model::read_with(schema, what, &crate::resolver::NoRefs)
    }

    /// [`read`](Model::read), references resolved through `refs`.
    pub(crate) fn read_with(
        schema: &Schema,
        what: &str,
        refs: &dyn crate::resolver::Resolver,
    ) -> Result<Model, CompatError> {
        let unusable = |source| CompatError::Unusable {
            urn: schema.urn().clone(),
            source: Box::new(source),
        };
        // Only protobuf and Avro schemas have references to follow.
        #[cfg(not(any(feature = "protobuf", feature = "avro")))]
        let _ = refs;
        match schema.language() {
            Language::JsonSchema => json(what, schema.bytes())
                .map(Model::Json)
                .map_err(unusable),
            #[cfg(feature = "protobuf")]
            Language::Protobuf
                if schema.root().is_none() && !crate::protobuf::source::is_rootless_set(schema) =>
            {
                rootless(what, schema, refs)
                    .map(Model::Protobuf)
                    .map_err(unusable)
            }
            #[cfg(feature = "protobuf")]
            Language::Protobuf => descriptors(what, schema.bytes())
                .map(Model::Protobuf)
                .map_err(unusable),
            #[cfg(feature = "avro")]
            Language::Avro => avro_over(what, schema, refs)
                .map(|schema| Model::Avro(std::sync::Arc::new(schema)))
                .map_err(unusable),
            #[allow(unreachable_patterns)]
            language => Err(CompatError::NoComparer {
                urn: schema.urn().clone(),
                language,
            }),
        }
    }

    pub(crate) fn language(&self) -> Language {
        match self {
            Model::Json(_) => Language::JsonSchema,
            #[cfg(feature = "protobuf")]
            Model::Protobuf(_) => Language::Protobuf,
            #[cfg(feature = "avro")]
            Model::Avro(_) => Language::Avro,
        }
    }
}

/// A protobuf schema without a root compiled for comparison: its pool
/// (the schema's file and its imports).
#[cfg(feature = "protobuf")]
fn rootless(
    what: &str,
    schema: &Schema,
    refs: &dyn crate::resolver::Resolver,
) -> Result<prost_reflect::DescriptorPool, CompatError> {
    let not_compiled = |reason: String| CompatError::NotCompiled {
        what: what.to_owned(),
        reason,
    };
    #[cfg(feature = "proto-text")]
    {
        use crate::protobuf::source::{compile, SourceError};
        compile(schema, refs)
            .map(|compiled| compiled.pool)
            .map_err(|err| match err {
                SourceError::Unusable(reason) => not_compiled(reason),
                SourceError::MissingRef(urn) => {
                    not_compiled(format!("its reference {urn} is not held"))
                }
                SourceError::Unreachable(err) => not_compiled(err.chain().to_string()),
            })
    }
    #[cfg(not(feature = "proto-text"))]
    {
        let _ = (schema, refs);
        Err(not_compiled(
            "it is .proto text, and this build compiles none (feature `proto-text`)".into(),
        ))
    }
}

/// An Avro schema read for comparison over the named types its references
/// define (resolved through `refs`), naming the input (`what`) in the
/// error.
#[cfg(feature = "avro")]
fn avro_over(
    what: &str,
    schema: &Schema,
    refs: &dyn crate::resolver::Resolver,
) -> Result<crate::avro::model::AvroSchema, CompatError> {
    use crate::avro::names::ReadError;
    crate::avro::names::read(schema, refs).map_err(|err| match err {
        ReadError::Schema(source) => CompatError::NotAnAvroSchema {
            what: what.to_owned(),
            source,
        },
        err => CompatError::AvroReferences {
            what: what.to_owned(),
            reason: err.to_string(),
        },
    })
}
