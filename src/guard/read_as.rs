//! Reading a message as the version a consumer codes against:
//! `Guard::read_as` and `Guard::read_framed_as`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use dataschema_core::resolve::{Direction, Migration, Plan, PlanOptions};
use dataschema_core::rules::Chain;
use dataschema_core::{Error, Resolver as _, Schema, Urn, Violation, ViolationKind};
use parking_lot::Mutex;

use super::outcome::{Invalid, Outcome, Reason, Unvalidated};
use super::Guard;

/// How many (writer, reader) plans a guard keeps; past it the oldest half
/// is forgotten (plans are made again on use). Pairs are few (a name's
/// versions read as its latest), so the bound is only against a stream of
/// many names.
pub(crate) const MAX_PLANS: usize = 4096;

/// How a pair is read: by the schemas (the structural plan), or through
/// the migration rules of the versions between (Confluent's data
/// contracts), whose output is then validated against the reader.
#[derive(Debug)]
pub(crate) enum PairPlan {
    Structural(Plan),
    Migrated(Arc<dyn Migration>),
}

type PlanResult = Result<Arc<PairPlan>, Unvalidated>;

/// A pair: (writer, reader), and the protobuf message resolved when a
/// frame names another than the root (its full name).
type Pair = (Urn, Urn, Option<Arc<str>>);

/// The guard's resolution plans, by (writer, reader), beside its compiled
/// validators: made once per pair, refusals kept too (a pair's schemas
/// never change).
#[derive(Default)]
pub(crate) struct Plans {
    /// The plans, and the pairs in the order they were made.
    map: Mutex<(HashMap<Pair, PlanResult>, Vec<Pair>)>,
}

impl Plans {
    fn get_or_make(
        &self,
        writer: &Urn,
        reader: &Urn,
        message: Option<&Arc<str>>,
        make: impl FnOnce() -> PlanResult,
    ) -> PlanResult {
        let key = (writer.clone(), reader.clone(), message.cloned());
        if let Some(found) = self.map.lock().0.get(&key) {
            return found.clone();
        }
        let made = make();
        // A passing failure (a registry unreachable) is not kept.
        let lasting = match &made {
            Ok(_) => true,
            Err(u) => u.reason() != Reason::Unreachable,
        };
        if lasting {
            let mut guard = self.map.lock();
            let (map, order) = &mut *guard;
            if map.len() >= MAX_PLANS {
                let old: Vec<_> = order.drain(..MAX_PLANS / 2).collect();
                for k in old {
                    map.remove(&k);
                }
            }
            if map.insert(key.clone(), made.clone()).is_none() {
                order.push(key);
            }
        }
        made
    }

    /// How many plans are kept.
    pub(crate) fn len(&self) -> usize {
        self.map.lock().0.len()
    }
}

/// A message read as another version: the guard's [`Outcome`] on the
/// payload as written, and the bytes in the reader's layout (the payload
/// itself, not copied, when it was written with the reader's version, or
/// when it could not be read across and was handed back as written).
#[derive(Debug, Clone)]
pub struct ReadAs<'p> {
    outcome: Outcome,
    bytes: Cow<'p, [u8]>,
    crossed: bool,
}

impl<'p> ReadAs<'p> {
    /// The guard's verdict: `Validated` when the payload conformed to the
    /// schema it names (and was then read as the reader); `Unvalidated`
    /// when it was let through unchecked or could not be read across
    /// ([`Reason::Unresolvable`]), its bytes then as written.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// The payload in the reader's layout (JSON text, Avro binary,
    /// protobuf binary; without a Confluent frame), or, when it could not
    /// be read across and failed open (its writer or its pair), the input
    /// as written (a frame whole).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes.into_owned()
    }

    /// Whether the payload was written with another version than the
    /// reader and read across.
    pub fn crossed(&self) -> bool {
        self.crossed
    }
}

impl Guard {
    /// Validates `payload` against the schema `dataschema` names (as
    /// [`validate`](Guard::validate) does, same counters), then reads it as
    /// the `reader` version: the [`Resolution`](crate::Resolution) of the
    /// pair, planned once and cached beside the compiled validators.
    ///
    /// * A payload that does not conform to its own schema is
    ///   `Err(Invalid)` (fails closed).
    /// * A payload let through unchecked (no schema, not a URN, not held,
    ///   ...) is handed back as written with that outcome.
    /// * A reader not held or unusable, or a pair that cannot be resolved,
    ///   fails open: counted under [`Reason::Unresolvable`], the payload
    ///   handed back as written.
    /// * A conforming value the reader cannot hold (a dropped enum member
    ///   with no default) is `Err(Invalid)` under the reader's URN.
    pub fn read_as<'p>(
        &self,
        dataschema: &str,
        payload: &'p [u8],
        reader: &Urn,
    ) -> Result<ReadAs<'p>, Invalid> {
        let outcome = self.validate(dataschema, payload)?;
        if !outcome.is_validated() {
            return Ok(ReadAs {
                outcome,
                bytes: Cow::Borrowed(payload),
                crossed: false,
            });
        }
        // Validated: `dataschema` is a URN a resolver holds.
        let writer: Urn = match dataschema.parse() {
            Ok(urn) => urn,
            Err(_) => {
                return Ok(ReadAs {
                    outcome,
                    bytes: Cow::Borrowed(payload),
                    crossed: false,
                })
            }
        };
        self.read_across(dataschema, &writer, payload, payload, reader, None, outcome)
    }

    /// [`read_as`](Guard::read_as) for a Confluent frame: the writer is
    /// the schema the frame's id names (the bundle's lock ids, or the
    /// fallback), the body validated as
    /// [`validate_framed`](Guard::validate_framed) validates it; the bytes
    /// handed back are the body in the reader's layout, unframed. Where it
    /// cannot be read across and fails open (a frame let through
    /// unchecked, a writer id not resolved, a pair that cannot be read
    /// across: the outcome `Unvalidated`), the frame is handed back whole,
    /// as written, as
    /// [`read_as`](Guard::read_as) hands back its payload: the consumer
    /// keeps the id that says which version wrote it. A protobuf frame's
    /// message indexes name the message read: the reader's message of the
    /// same full name (the root's plan when they name the root); a reader
    /// without it fails open as [`Reason::Unresolvable`].
    pub fn read_framed_as<'p>(&self, frame: &'p [u8], reader: &Urn) -> Result<ReadAs<'p>, Invalid> {
        let outcome = self.validate_framed(frame)?;
        if !outcome.is_validated() {
            return Ok(ReadAs {
                outcome,
                bytes: Cow::Borrowed(frame),
                crossed: false,
            });
        }
        // Validated: a frame of at least 5 bytes whose id resolved.
        let id = u32::from_be_bytes([frame[1], frame[2], frame[3], frame[4]]);
        let writer = match self.urn_of_id(id) {
            Ok(urn) => urn,
            Err(unvalidated) => {
                let outcome = self.fail_open(&format!("schema id {id}"), unvalidated);
                return Ok(ReadAs {
                    outcome,
                    bytes: Cow::Borrowed(frame),
                    crossed: false,
                });
            }
        };
        let body = self.with_compiled(&writer, |compiled| compiled.framed_message(&frame[5..]));
        let (message, body) = match body {
            Ok(Ok((message, body))) => (message.map(Arc::<str>::from), body),
            Ok(Err(why)) => {
                let error = Error::Unresolvable {
                    writer: writer.clone(),
                    refusal: Box::new(dataschema_core::Unresolved::new(reader.clone(), "/", why)),
                };
                let outcome = self.fail_open(
                    writer.as_str(),
                    Unvalidated::new(Reason::Unresolvable, Arc::new(error)),
                );
                return Ok(ReadAs {
                    outcome,
                    bytes: Cow::Borrowed(frame),
                    crossed: false,
                });
            }
            Err(unvalidated) => {
                let outcome = self.fail_open(writer.as_str(), unvalidated);
                return Ok(ReadAs {
                    outcome,
                    bytes: Cow::Borrowed(frame),
                    crossed: false,
                });
            }
        };
        self.read_across(
            writer.as_str(),
            &writer,
            body,
            frame,
            reader,
            message,
            outcome,
        )
    }

    /// The plan of (writer, reader) for `message` (protobuf: a frame's
    /// message other than the root), from the cache or made now.
    fn plan_of(&self, writer: &Urn, reader: &Urn, message: Option<&Arc<str>>) -> PlanResult {
        self.inner.plans.get_or_make(writer, reader, message, || {
            let resolve = |urn: &Urn| {
                self.inner.resolver.resolve(urn).map_err(|error| {
                    let reason = match error {
                        Error::NotFound { .. } => Reason::Unresolvable,
                        _ => Reason::Unreachable,
                    };
                    Unvalidated::new(reason, Arc::new(error))
                })
            };
            let (w, r) = (resolve(writer)?, resolve(reader)?);
            match self.migrations(w.clone(), r.clone(), message.is_some())? {
                Chain::None => {}
                Chain::Rules(migration) => return Ok(Arc::new(PairPlan::Migrated(migration))),
                Chain::Unusable(failure) => {
                    let error = Error::SchemaUnusable {
                        urn: reader.clone(),
                        source: format!(
                            "reading {writer} as {reader}: rule {}: {}",
                            failure.rule, failure.message
                        )
                        .into(),
                    };
                    return Err(Unvalidated::new(Reason::RuleUnusable, Arc::new(error)));
                }
            }
            let refs: Arc<dyn dataschema_core::Resolver> = self.inner.resolver.clone();
            let mut options = PlanOptions::default();
            if let Some(message) = message {
                options = options.with_message(&**message);
            }
            dataschema_core::resolve::plan(&w, &r, refs, &options)
                .map(|plan| Arc::new(PairPlan::Structural(plan)))
                .map_err(|error| {
                    let reason = match error {
                        Error::Unreachable { .. } => Reason::Unreachable,
                        _ => Reason::Unresolvable,
                    };
                    Unvalidated::new(reason, Arc::new(error))
                })
        })
    }

    /// The migration rules between two versions of a name: every version
    /// from the writer to the reader the resolver holds (one it does not
    /// hold is passed over), their rule sets chained as Confluent's
    /// deserializers chain them.
    fn migrations(
        &self,
        writer: Schema,
        reader: Schema,
        other_message: bool,
    ) -> Result<Chain, Unvalidated> {
        let versions = match crate::registry::resolution::chain_versions(
            &*self.inner.resolver,
            &writer,
            &reader,
        ) {
            Ok(Some(versions)) => versions,
            Ok(None) => return Ok(Chain::None),
            Err(error) => return Err(Unvalidated::new(Reason::Unreachable, Arc::new(error))),
        };
        // An Avro or protobuf payload is read into its JSON form for the
        // rules, with the writer's and the reader's compiled schemas.
        let ruled = crate::registry::resolution::ruled(&versions);
        let forms = if ruled && writer.language() != dataschema_core::Language::JsonSchema {
            if other_message {
                // A frame naming another message than the root: the forms
                // read the root, so the rules cannot run on it here.
                return Err(Unvalidated::new(
                    Reason::RuleUnusable,
                    Arc::new(Error::SchemaUnusable {
                        urn: writer.urn().clone(),
                        source: "migration rules run on frames of the schema's root message \
                                 only"
                            .into(),
                    }),
                ));
            }
            let form = |urn: &Urn| match self.with_compiled(urn, |c| c.payload_form()) {
                Ok(Some(form)) => Ok(form),
                Ok(None) => Err(Unvalidated::new(
                    Reason::RuleUnusable,
                    Arc::new(Error::SchemaUnusable {
                        urn: urn.clone(),
                        source: "its payloads have no form for migration rules".into(),
                    }),
                )),
                Err(unvalidated) => Err(unvalidated),
            };
            let (first, last) = (versions[0].urn(), versions[versions.len() - 1].urn());
            Some((form(first)?, form(last)?))
        } else {
            None
        };
        Ok(dataschema_core::rules::chain_with_forms(&versions, forms))
    }

    /// The bytes handed back, through the reader version's read
    /// transforms (data contracts' `TRANSFORM` rules: masking), when it
    /// has any: written back in the payload's encoding. A transform that
    /// fails with an action that refuses is `Err(Invalid)` under the
    /// reader; one that cannot run fails open (`rule_unusable`), the
    /// bytes handed back untransformed.
    fn transformed<'p>(
        &self,
        dataschema: &str,
        reader: &Urn,
        read: ReadAs<'p>,
    ) -> Result<ReadAs<'p>, Invalid> {
        if !self
            .inner
            .transforms
            .load(std::sync::atomic::Ordering::Relaxed)
            || !read.outcome.is_validated()
        {
            return Ok(read);
        }
        let ran = self.with_ready(reader, |_, rules| {
            rules.map(|rules| rules.transform_bytes(&read.bytes))
        });
        let failed = match ran {
            Ok(Some(Ok(Some(bytes)))) => {
                return Ok(ReadAs {
                    bytes: Cow::Owned(bytes),
                    ..read
                })
            }
            Ok(Some(Err(outcome))) => *outcome,
            _ => return Ok(read),
        };
        self.reader_rules_ran(dataschema, reader, read, failed)
    }

    /// What the reader version's rules said of `read`: a refusal is
    /// `Err(Invalid)` under the reader; rules that cannot run fail open
    /// (`rule_unusable`), `read` handed back as it is; a pass hands it back.
    fn reader_rules_ran<'p>(
        &self,
        dataschema: &str,
        reader: &Urn,
        read: ReadAs<'p>,
        ran: dataschema_core::rules::RuleOutcome,
    ) -> Result<ReadAs<'p>, Invalid> {
        match ran {
            dataschema_core::rules::RuleOutcome::Refused(failure) => {
                Err(super::rule_refusal(&Arc::new(reader.clone()), failure))
            }
            dataschema_core::rules::RuleOutcome::Unusable(failure) => {
                let error = Error::SchemaUnusable {
                    urn: reader.clone(),
                    source: format!("rule {}: {}", failure.rule, failure.message).into(),
                };
                let outcome = self.fail_open(
                    dataschema,
                    Unvalidated::new(Reason::RuleUnusable, Arc::new(error)),
                );
                Ok(ReadAs { outcome, ..read })
            }
            dataschema_core::rules::RuleOutcome::Pass { .. } => Ok(read),
        }
    }

    /// `payload` (the body) read as `reader`; where the pair fails open,
    /// `as_written` is handed back (the frame whole, for a frame).
    #[allow(clippy::too_many_arguments)]
    fn read_across<'p>(
        &self,
        dataschema: &str,
        writer: &Urn,
        payload: &'p [u8],
        as_written: &'p [u8],
        reader: &Urn,
        message: Option<Arc<str>>,
        outcome: Outcome,
    ) -> Result<ReadAs<'p>, Invalid> {
        let read = self.read_across_plain(
            dataschema, writer, payload, as_written, reader, message, outcome,
        )?;
        let read = self.reader_conditions(dataschema, reader, read)?;
        self.transformed(dataschema, reader, read)
    }

    /// A payload read across versions meets the reader version's read
    /// conditions too, as Confluent's deserializers run the READ rules
    /// of the version they read as on what they return, after the
    /// migrations (confluent-kafka-python v2.16.1, `_sync/avro.py`,
    /// `_sync/protobuf.py`, `_sync/json_schema.py` `__deserialize`:
    /// `_execute_rules(ctx, subject, RuleMode.READ, None,
    /// reader_schema_raw, ..)`, `_sync/avro.py` lines 974-975,
    /// `_sync/protobuf.py` lines 942-943): a refusal names the reader's rule. A
    /// payload read as its own version met them in its verdict.
    fn reader_conditions<'p>(
        &self,
        dataschema: &str,
        reader: &Urn,
        read: ReadAs<'p>,
    ) -> Result<ReadAs<'p>, Invalid> {
        if !read.crossed
            || !read.outcome.is_validated()
            || !self.inner.rules.load(std::sync::atomic::Ordering::Relaxed)
        {
            return Ok(read);
        }
        let ran = self.with_ready(reader, |_, rules| {
            rules.map(|rules| rules.run_bytes(&read.bytes))
        });
        match ran {
            Ok(Some(ran)) => self.reader_rules_ran(dataschema, reader, read, ran),
            _ => Ok(read),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn read_across_plain<'p>(
        &self,
        dataschema: &str,
        writer: &Urn,
        payload: &'p [u8],
        as_written: &'p [u8],
        reader: &Urn,
        message: Option<Arc<str>>,
        outcome: Outcome,
    ) -> Result<ReadAs<'p>, Invalid> {
        if writer == reader {
            return Ok(ReadAs {
                outcome,
                bytes: Cow::Borrowed(payload),
                crossed: false,
            });
        }
        let plan = match self.plan_of(writer, reader, message.as_ref()) {
            Ok(plan) => plan,
            Err(unvalidated) => {
                let outcome = self.fail_open(dataschema, unvalidated);
                return Ok(ReadAs {
                    outcome,
                    bytes: Cow::Borrowed(as_written),
                    crossed: false,
                });
            }
        };
        let plan = match &*plan {
            PairPlan::Structural(plan) => plan,
            PairPlan::Migrated(migration) => {
                let bytes = migration
                    .migrate(payload)
                    .map_err(|violations| Invalid::new(reader.clone(), violations))?;
                let checked = self.with_compiled(reader, |compiled| compiled.validate(&bytes));
                return match checked {
                    Ok(Ok(())) => Ok(ReadAs {
                        outcome,
                        bytes: Cow::Owned(bytes),
                        crossed: true,
                    }),
                    Ok(Err(violations)) => Err(Invalid::new(reader.clone(), violations)),
                    Err(unvalidated) => Ok(ReadAs {
                        outcome: self.fail_open(dataschema, unvalidated),
                        bytes: Cow::Borrowed(as_written),
                        crossed: false,
                    }),
                };
            }
        };
        let bytes = plan.run(Direction::Read, payload).map_err(|found| {
            Invalid::new(
                reader.clone(),
                found.unwrap_or_else(|| {
                    vec![Violation::new(
                        "",
                        ViolationKind::Unrepresentable,
                        "the pair cannot be read this way",
                    )]
                }),
            )
        })?;
        if plan.checks_output(Direction::Read) {
            let checked = self.with_compiled(reader, |compiled| compiled.validate(&bytes));
            match checked {
                Ok(Ok(())) => {}
                Ok(Err(violations)) => return Err(Invalid::new(reader.clone(), violations)),
                Err(unvalidated) => {
                    let outcome = self.fail_open(dataschema, unvalidated);
                    return Ok(ReadAs {
                        outcome,
                        bytes: Cow::Borrowed(payload),
                        crossed: false,
                    });
                }
            }
        }
        Ok(ReadAs {
            outcome,
            bytes,
            crossed: true,
        })
    }

    /// How many resolution plans the guard keeps (for its tests).
    #[doc(hidden)]
    pub fn cached_plans(&self) -> usize {
        self.inner.plans.len()
    }
}
