//! The dispatch of resolution over the languages: a [`Plan`] holds one
//! [`Way`] each way, in its pair's language, and [`plan`] makes it from two
//! schemas. The vocabulary it shares with the languages' plans lives below
//! them, in `resolution.rs`.

#![cfg_attr(
    not(any(feature = "json", feature = "avro", feature = "protobuf")),
    allow(unused_imports, unused_variables, dead_code, unreachable_code)
)]

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::Error;
use crate::resolution::{Direction, PlanOptions, Unresolvable};
use crate::resolver::Resolver;
use crate::schema::{Language, Schema};
use crate::violation::Violation;

/// One way of a pair's plan, in the pair's language.
#[derive(Debug)]
pub(crate) enum Way {
    /// The two layouts are the same: the payload as it is.
    Identity,
    #[cfg(feature = "json")]
    Json(crate::json::resolution::JsonWay),
    #[cfg(feature = "avro")]
    Avro(crate::avro::resolution::Transcoder),
    #[cfg(feature = "protobuf")]
    Protobuf(crate::protobuf::resolution::ProtoWay),
}

/// A resolution plan for one (writer, reader) pair, both ways: made once,
/// run over each payload's bytes.
///
/// A way may be refused on its own: a pair readable one way may not be
/// writable back (a writer field with neither default nor null to write),
/// and the plan keeps the refusal to give when that way is asked for.
#[derive(Debug, Clone)]
pub struct Plan {
    read: Arc<Result<Way, Unresolvable>>,
    back: Arc<Result<Way, Unresolvable>>,
}

impl Plan {
    /// The plan for `writer` read as `reader`, both given as schemas of one
    /// language. `Err` when neither way resolves, with the read way's
    /// refusal; [`Plan::way_refusal`] tells a way refused on its own.
    pub(crate) fn from_ways(
        read: Result<Way, Unresolvable>,
        back: Result<Way, Unresolvable>,
    ) -> Plan {
        Plan {
            read: Arc::new(read),
            back: Arc::new(back),
        }
    }

    /// The identity both ways (identical schemas).
    pub fn identity() -> Plan {
        Plan::from_ways(Ok(Way::Identity), Ok(Way::Identity))
    }

    /// Why the plan cannot run `direction`, if it cannot.
    pub fn way_refusal(&self, direction: Direction) -> Option<&Unresolvable> {
        self.way(direction).as_ref().err()
    }

    /// Whether `direction` is the identity (no copy made).
    pub fn is_identity(&self, direction: Direction) -> bool {
        matches!(*self.way(direction), Ok(Way::Identity))
    }

    fn way(&self, direction: Direction) -> &Result<Way, Unresolvable> {
        match direction {
            Direction::Read => &self.read,
            Direction::WriteBack => &self.back,
        }
    }

    /// Whether the output of `direction` must be validated against its
    /// target schema before it is handed out: the plan could not prove it
    /// conforms (a write back narrowing a value, a union paired by the first
    /// branch that reads, constraints the plan does not compare).
    pub fn checks_output(&self, direction: Direction) -> bool {
        match self.way(direction) {
            Ok(Way::Identity) | Err(_) => false,
            #[cfg(feature = "json")]
            Ok(Way::Json(way)) => way.checks_output(),
            #[cfg(feature = "avro")]
            Ok(Way::Avro(way)) => way.checks_output(),
            #[cfg(feature = "protobuf")]
            Ok(Way::Protobuf(way)) => way.checks_output(),
        }
    }

    /// Runs `direction` over `payload`, which the input schema of that way
    /// validated (the writer's for `Read`, the reader's for `WriteBack`).
    /// Borrowed back for the identity.
    ///
    /// `Err(None)`: the way is refused ([`Plan::way_refusal`]);
    /// `Err(Some(violations))`: this payload cannot be resolved, each
    /// violation saying where in the input and why.
    pub fn run<'p>(
        &self,
        direction: Direction,
        payload: &'p [u8],
    ) -> Result<Cow<'p, [u8]>, Option<Vec<Violation>>> {
        match self.way(direction) {
            Err(_) => Err(None),
            Ok(Way::Identity) => Ok(Cow::Borrowed(payload)),
            #[cfg(feature = "json")]
            Ok(Way::Json(way)) => way.run(payload).map(Cow::Owned).map_err(Some),
            #[cfg(feature = "avro")]
            Ok(Way::Avro(way)) => way.run_checked(payload).map(Cow::Owned).map_err(Some),
            #[cfg(feature = "protobuf")]
            Ok(Way::Protobuf(way)) => way.run(payload).map(Cow::Owned).map_err(Some),
        }
    }
}

/// The plan for data of `writer` read as `reader` (both ways), made from
/// the two schemas; references resolve through `refs`, and the aliases
/// `refs` gives the reader outside its schema
/// ([`Resolver::aliases`], a manifest's) are honoured after `options`'.
///
/// [`Error::Unresolvable`] when the writer's data cannot be read as the
/// reader (with the reader's path and why); a pair readable but not
/// writable back gives a plan whose write-back way is refused
/// ([`Plan::way_refusal`]). [`Error::SchemaUnusable`] for a schema that
/// does not read, [`Error::NoValidator`] for a language compiled out or
/// two languages.
pub fn plan(
    writer: &Schema,
    reader: &Schema,
    refs: Arc<dyn Resolver>,
    options: &PlanOptions,
) -> Result<Plan, Error> {
    let unresolvable = |err: Unresolvable| Error::Unresolvable {
        writer: writer.urn().clone(),
        refusal: Box::new(crate::error::Unresolved::new(
            reader.urn().clone(),
            if err.path().is_empty() {
                "/"
            } else {
                err.path()
            },
            err.reason(),
        )),
    };
    if writer.language() != reader.language() {
        return Err(unresolvable(Unresolvable::new(
            "",
            format!(
                "{} is a {} schema and {} a {} one",
                writer.urn(),
                writer.language(),
                reader.urn(),
                reader.language()
            ),
        )));
    }
    let given = refs.aliases(reader.urn());
    let aliases = if given.is_empty() {
        Cow::Borrowed(&options.aliases)
    } else {
        Cow::Owned(options.aliases.clone().and(&given))
    };
    if writer.bytes() == reader.bytes()
        && writer.references() == reader.references()
        && aliases.is_empty()
    {
        return Ok(Plan::identity());
    }
    let _ = refs;
    #[allow(clippy::type_complexity)]
    let (read, back): (Result<Way, Unresolvable>, Result<Way, Unresolvable>) =
        match writer.language() {
            #[cfg(feature = "json")]
            Language::JsonSchema => {
                let doc = |schema: &Schema| {
                    crate::json::model::parse(schema.bytes()).map_err(|err| Error::SchemaUnusable {
                        urn: schema.urn().clone(),
                        source: format!("{err:?}").into(),
                    })
                };
                let (w, r) = (doc(writer)?, doc(reader)?);
                let way = |s, t, d| {
                    crate::json::resolution::JsonWay::new(s, t, d, &aliases).map(|way| {
                        if way.is_copy() {
                            Way::Identity
                        } else {
                            Way::Json(way)
                        }
                    })
                };
                (
                    way(&w, &r, Direction::Read),
                    way(&r, &w, Direction::WriteBack),
                )
            }
            #[cfg(feature = "avro")]
            Language::Avro => {
                let read_schema = |schema: &Schema| {
                    crate::avro::names::read(schema, &*refs).map_err(|err| Error::SchemaUnusable {
                        urn: schema.urn().clone(),
                        source: err.to_string().into(),
                    })
                };
                let w = Arc::new(read_schema(writer)?);
                let r = Arc::new(read_schema(reader)?);
                (
                    crate::avro::resolution::Transcoder::way(w.clone(), &r, Direction::Read)
                        .map(Way::Avro),
                    crate::avro::resolution::Transcoder::way(r, &w, Direction::WriteBack)
                        .map(Way::Avro),
                )
            }
            #[cfg(feature = "protobuf")]
            Language::Protobuf => {
                let message = |schema: &Schema| {
                    let compiled = crate::dispatch::compile::compile(
                        schema,
                        refs.clone(),
                        crate::violation::Options::default(),
                    )
                    .map_err(Error::from)?;
                    match compiled {
                        crate::dispatch::compile::Compiled::Protobuf(v) => match &options.message {
                            None => v.message().ok_or_else(|| Error::SchemaUnusable {
                                urn: schema.urn().clone(),
                                source: "the schema declares no message to resolve".into(),
                            }),
                            Some(name) => v.pool().get_message_by_name(name).ok_or_else(|| {
                                unresolvable(Unresolvable::new(
                                    "",
                                    format!("{} has no message {name}", schema.urn()),
                                ))
                            }),
                        },
                        #[allow(unreachable_patterns)]
                        _ => Err(Error::SchemaUnusable {
                            urn: schema.urn().clone(),
                            source: "not a protobuf schema".into(),
                        }),
                    }
                };
                let (w, r) = (message(writer)?, message(reader)?);
                let way = |s, t, d| {
                    crate::protobuf::resolution::ProtoWay::new(s, t, d, options.drop_unknown_fields)
                        .map(|way| {
                            if way.is_identity() {
                                Way::Identity
                            } else {
                                Way::Protobuf(way)
                            }
                        })
                };
                (
                    way(&w, &r, Direction::Read),
                    way(&r, &w, Direction::WriteBack),
                )
            }
            #[allow(unreachable_patterns)]
            other => {
                return Err(Error::NoValidator {
                    urn: writer.urn().clone(),
                    language: other,
                })
            }
        };
    let read = read.map_err(unresolvable)?;
    Ok(Plan::from_ways(Ok(read), back))
}
