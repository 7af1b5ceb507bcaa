//! Reading one version's bytes as another's (feature `avro`):
//! [`Registry::resolution`](crate::Registry::resolution) and the
//! [`Resolution`] it makes.

use std::sync::Arc;

use dataschema_core::validate::avro_resolution::{read_schema, Transcoder};
use dataschema_core::{Error, Language, Schema, Unresolved, Urn};

use crate::guard::Invalid;

/// A consumer built against one version reading a payload written with
/// another: Avro's schema resolution, compiled once for a (writer, reader)
/// pair and run as a plan over each payload's bytes, no value built.
///
/// [`transcode`](Resolution::transcode) turns the writer's bytes into the
/// bytes the reader's schema would have written for the value read: fields
/// matched by name and by the reader's aliases, reader-only fields at their
/// defaults, writer-only fields skipped, promotions widened (`int` to
/// `long`, `float`, `double`; `long` to `float`, `double`; `float` to
/// `double`; `string` and `bytes` both ways), enums by symbol (a symbol the
/// reader lacks takes the reader's default), union branches matched (a
/// branch of the writer's type first, then the first that reads it),
/// arrays and maps written as one block.
///
/// ```
/// use dataschema::{Compatibility, MemoryStore, Registry, Schema, Urn};
///
/// let registry = Registry::new(MemoryStore::new());
/// let v1: Urn = "urn:acme:schema:payment:1".parse()?;
/// let v2: Urn = "urn:acme:schema:payment:2".parse()?;
/// registry.publish(Schema::avro(v1.clone(),
///     r#"{"type":"record","name":"P","fields":[{"name":"amount","type":"int"}]}"#),
///     Compatibility::Backward)?;
/// registry.publish(Schema::avro(v2.clone(),
///     r#"{"type":"record","name":"P","fields":[{"name":"amount","type":"long"},
///        {"name":"currency","type":"string","default":"EUR"}]}"#),
///     Compatibility::Backward)?;
/// let resolution = registry.resolution(&v1, &v2)?;
/// // amount 21, as v2 writes it: 21, then "EUR".
/// assert_eq!(resolution.transcode(&[42]).unwrap(), [42, 6, b'E', b'U', b'R']);
/// // The other way, v1 cannot read v2's long amount as an int.
/// let refused = registry.resolution(&v2, &v1).unwrap_err();
/// assert_eq!(refused.to_string(),
///     "data of urn:acme:schema:payment:2 cannot be read as urn:acme:schema:payment:1: \
///      cannot read long as int at /amount");
/// # Ok::<(), dataschema::Error>(())
/// ```
#[derive(Clone)]
pub struct Resolution {
    writer: Urn,
    reader: Urn,
    plan: Arc<Transcoder>,
}

impl std::fmt::Debug for Resolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolution")
            .field("writer", &self.writer)
            .field("reader", &self.reader)
            .finish_non_exhaustive()
    }
}

impl Resolution {
    /// The plan for two schemas; see [`Registry::resolution`](crate::Registry::resolution).
    pub(crate) fn new(
        writer: &Schema,
        reader: &Schema,
        refs: &dyn dataschema_core::Resolver,
    ) -> Result<Resolution, Error> {
        for schema in [writer, reader] {
            if schema.language() != Language::Avro {
                return Err(Error::Unresolvable {
                    writer: writer.urn().clone(),
                    refusal: Box::new(Unresolved::new(
                        reader.urn().clone(),
                        "/",
                        format!(
                            "{} is a {} schema: resolution reads Avro data",
                            schema.urn(),
                            schema.language()
                        ),
                    )),
                });
            }
        }
        let model = |schema: &Schema| read_schema(schema, refs);
        let writer_model = Arc::new(model(writer)?);
        let reader_model = model(reader)?;
        let plan =
            Transcoder::new(writer_model, &reader_model).map_err(|err| Error::Unresolvable {
                writer: writer.urn().clone(),
                refusal: Box::new(Unresolved::new(
                    reader.urn().clone(),
                    if err.path().is_empty() {
                        "/"
                    } else {
                        err.path()
                    },
                    err.reason(),
                )),
            })?;
        Ok(Resolution {
            writer: writer.urn().clone(),
            reader: reader.urn().clone(),
            plan: Arc::new(plan),
        })
    }

    /// The schema the payloads are written with.
    pub fn writer(&self) -> &Urn {
        &self.writer
    }

    /// The schema they are read as.
    pub fn reader(&self) -> &Urn {
        &self.reader
    }

    /// The bytes the reader's schema writes for the value `payload` (a
    /// datum of the writer's schema) holds. A payload that is not a datum of
    /// the writer's schema is [`Invalid`], under the writer's URN, with
    /// its path and kind.
    pub fn transcode(&self, payload: &[u8]) -> Result<Vec<u8>, Invalid> {
        self.plan
            .transcode(payload)
            .map_err(|violations| Invalid::new(self.writer.clone(), violations))
    }
}
