//! JSON Schema, with the `jsonschema` crate (its HTTP and file retrievers
//! compiled out): drafts 4, 6, 7, 2019-09 and 2020-12, detected from
//! `$schema` (2020-12 when absent).

use std::sync::Arc;

use jsonschema::{Retrieve, Uri};
use parking_lot::Mutex;
use serde_json::Value;

use super::{Options, Violation, MAX_VIOLATIONS};
use crate::error::{BoxError, Error};
use crate::resolver::Resolver;
use crate::schema::Language;
use crate::urn::Urn;

pub struct JsonValidator {
    validator: jsonschema::Validator,
}

/// Resolves a `$ref` that names a schema URN from the registry; refuses
/// every other URI (no network, no filesystem, ever). Remembers whether a
/// resolution failed for a passing reason (a remote registry down), so the
/// compile failure is not taken for a property of the schema.
struct UrnRetriever {
    resolver: Arc<dyn Resolver>,
    transient: Arc<Mutex<Option<Passing>>>,
}

/// A `$ref` resolution that failed for a reason that may pass.
enum Passing {
    /// The registry could not be asked.
    Unreachable(String),
    /// Nobody holds the URN yet.
    Missing(Urn),
}

/// Why a JSON Schema did not compile.
pub(crate) enum CompileError {
    /// The schema itself: not JSON, not a schema, a `$ref` nobody holds.
    Unusable(BoxError),
    /// A `$ref`'s schema could not be fetched just now: try again later.
    Unreachable(BoxError),
    /// A `$ref` names a URN nobody holds (yet): try again later.
    MissingRef(Urn),
}

impl Retrieve for UrnRetriever {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, BoxError> {
        let text = uri.as_str();
        let urn: Urn = text.parse().map_err(|_| {
            format!(
                "$ref {text:?} is not a schema URN, and dataschema never fetches references \
                 from the network or the filesystem"
            )
        })?;
        let schema = self.resolver.resolve(&urn).inspect_err(|err| {
            *self.transient.lock() = Some(match err {
                Error::NotFound { .. } => Passing::Missing(urn.clone()),
                _ => Passing::Unreachable(format!("resolving $ref {urn}: {err}")),
            });
        })?;
        if schema.language() != Language::JsonSchema {
            return Err(format!(
                "$ref {urn} names a {} schema, not a JSON Schema",
                schema.language()
            )
            .into());
        }
        Ok(serde_json::from_slice(schema.bytes())?)
    }
}

impl JsonValidator {
    pub(crate) fn compile(
        bytes: &[u8],
        refs: Arc<dyn Resolver>,
        options: Options,
    ) -> Result<JsonValidator, CompileError> {
        let schema: Value = serde_json::from_slice(bytes).map_err(|err| {
            CompileError::Unusable(format!("the schema is not JSON: {err}").into())
        })?;
        let transient = Arc::new(Mutex::new(None));
        let retriever = UrnRetriever {
            resolver: refs,
            transient: Arc::clone(&transient),
        };
        let built = jsonschema::options()
            .should_validate_formats(options.assert_formats)
            .with_retriever(retriever)
            .build(&schema);
        match built {
            Ok(validator) => Ok(JsonValidator { validator }),
            Err(err) => match transient.lock().take() {
                Some(Passing::Unreachable(cause)) => Err(CompileError::Unreachable(cause.into())),
                Some(Passing::Missing(urn)) => Err(CompileError::MissingRef(urn)),
                None => Err(CompileError::Unusable(
                    format!("the schema does not compile: {err}").into(),
                )),
            },
        }
    }

    #[inline]
    pub(crate) fn validate(&self, payload: &[u8]) -> Result<(), Vec<Violation>> {
        match serde_json::from_slice::<Value>(payload) {
            Ok(value) => self.validate_value(&value),
            Err(err) => Err(vec![Violation::new(
                "",
                format!("the payload is not JSON: {err}"),
            )]),
        }
    }

    #[inline]
    pub(crate) fn validate_value(&self, value: &Value) -> Result<(), Vec<Violation>> {
        if self.validator.is_valid(value) {
            return Ok(());
        }
        Err(self
            .validator
            .iter_errors(value)
            .take(MAX_VIOLATIONS)
            .map(|err| Violation::new(err.instance_path().as_str(), err.to_string()))
            .collect())
    }
}
