//! Confluent-framed payloads: `Guard::validate_framed`.
//!
//! The frame (Confluent's wire format, version 0): byte `0x00`, the schema
//! id as 4 bytes big-endian, then, for protobuf, the message indexes (a
//! zigzag-varint count, then that many zigzag-varint indexes; a count of 0
//! means `[0]`, the first message), then the body.

use std::sync::Arc;

use dataschema_core::{Error, Resolver as _, Urn, Violation, ViolationKind};

use super::outcome::{Invalid, Outcome, Reason, Unvalidated};
use super::Guard;

/// The URN an [`Invalid`] names when the frame itself is broken (too
/// short, or a magic byte other than 0), so no schema is named at all.
pub const FRAME_URN: &str = "urn:confluent:schema:frame:1";

impl Guard {
    /// Validates a Confluent-framed payload (as Kafka serializers write
    /// it) against the schema its id names, with the outcome table of
    /// [`validate`](Guard::validate):
    ///
    /// * a frame shorter than 5 bytes, a magic byte other than 0, or (for a
    ///   protobuf schema) a message-index list that is truncated, too long,
    ///   or names no message of the schema's file, is [`Invalid`] (for a
    ///   broken frame, under [`FRAME_URN`]);
    /// * for protobuf, the message indexes decide which message of the
    ///   schema's file the body is (the root, or any other: Confluent's
    ///   serializers frame any message of a file, and its deserializer
    ///   reads the indexes so, `ProtobufSchema.toMessageName`); the root
    ///   is only the default of a payload addressed by URN;
    /// * an id held by no resolver fails open as `not_found`, counted; a
    ///   resolver that could not be asked, as `unreachable`;
    /// * otherwise the body is validated against the schema.
    ///
    /// Ids come from the resolvers' [`Resolver::resolve_id`](crate::Resolver::resolve_id):
    /// a [`Registry`](crate::Registry) over a store answers its store's
    /// ids; a bundled one ([`from_bundle`](crate::Registry::from_bundle))
    /// answers the ids its folder's lock records (written by `dataschema
    /// publish`), and only those, so frames of published schemas validate
    /// offline; [`embed`](crate::Registry::embed) answers none; and a
    /// fallback registry is asked. An id once resolved is remembered for
    /// the life of the guard (an id's content never changes).
    pub fn validate_framed(&self, payload: &[u8]) -> Result<Outcome, Invalid> {
        if payload.len() < 5 {
            return Err(frame_invalid(format!(
                "a Confluent frame is at least 5 bytes (magic byte 0, a 4-byte schema id); \
                 this payload has {}",
                payload.len()
            )));
        }
        if payload[0] != 0 {
            return Err(frame_invalid(format!(
                "the frame's magic byte is 0x{:02x}, not 0 (Confluent wire format v0)",
                payload[0]
            )));
        }
        let id = u32::from_be_bytes([payload[1], payload[2], payload[3], payload[4]]);
        let rest = &payload[5..];
        let urn = match self.urn_of_id(id) {
            Ok(urn) => urn,
            Err(unvalidated) => {
                return Ok(self.fail_open(&format!("schema id {id}"), unvalidated));
            }
        };
        self.run(urn.as_str(), super::Payload::Frame(rest), |compiled| {
            compiled.validate_framed_body(rest)
        })
    }

    /// The URN of a schema id, from the guard's memory or its resolvers.
    pub(super) fn urn_of_id(&self, id: u32) -> Result<Urn, Unvalidated> {
        if let Some(urn) = self.inner.ids.read().get(&id) {
            return Ok(urn.clone());
        }
        match self.inner.resolver.resolve_id(id) {
            Ok(schema) => {
                let urn = schema.urn().clone();
                let mut ids = self.inner.ids.write();
                // Bounded: a fallback may answer any number of ids. Past
                // the bound the ids are forgotten and asked again (the
                // resolvers keep their own answers).
                if ids.len() >= MAX_IDS {
                    ids.clear();
                }
                ids.insert(id, urn.clone());
                Ok(urn)
            }
            Err(error) => {
                let reason = match error {
                    Error::IdNotFound { .. } | Error::NotFound { .. } => Reason::NotFound,
                    _ => Reason::Unreachable,
                };
                Err(Unvalidated::new(reason, Arc::new(error)))
            }
        }
    }
}

/// The most schema ids a guard remembers the URN of (about 100 bytes
/// each).
pub(crate) const MAX_IDS: usize = 1 << 16;

fn frame_invalid(message: String) -> Invalid {
    // A constant, tested to parse (tests/guard/framed.rs): not reachable
    // from input.
    let urn: Urn = FRAME_URN.parse().expect("FRAME_URN is a URN");
    Invalid::new(urn, vec![Violation::new("", ViolationKind::Wire, message)])
}
