//! The framer's counters, through the `metrics` crate, bound as the
//! guard's are: the per-reason ones when a framer is built, a schema's
//! when its first frame's prefix is made. Install the exporter first.

use metrics::{Counter, Key, Label};

use super::error::FrameReason;
use crate::guard::metrics::register;

/// Payloads framed (label `schema`).
pub const FRAMED: &str = "dataschema_framed_total";
/// Payloads not framed (label `reason`).
pub const FRAME_ERRORS: &str = "dataschema_frame_errors_total";
/// Prefixes (id and message indexes) forgotten because the framer kept
/// as many as its bound ([`FramerBuilder::max_prefixes`](super::FramerBuilder::max_prefixes)).
pub const PREFIX_EVICTIONS: &str = "dataschema_frame_prefix_evictions_total";

/// The `dataschema_frame_errors_total` counter of each reason, in
/// [`FrameReason::ALL`] order.
pub(crate) fn error_counters() -> [Counter; FrameReason::COUNT] {
    FrameReason::ALL.map(|reason| {
        register(&Key::from_parts(
            FRAME_ERRORS,
            vec![Label::from_static_parts("reason", reason.as_str())],
        ))
    })
}

/// The `dataschema_frame_prefix_evictions_total` counter.
pub(crate) fn evictions_counter() -> Counter {
    register(&Key::from_name(PREFIX_EVICTIONS))
}

/// The `dataschema_framed_total` counter of the schema `name`.
pub(crate) fn framed_counter(name: &str) -> Counter {
    register(&Key::from_parts(
        FRAMED,
        vec![Label::new("schema", name.to_owned())],
    ))
}
