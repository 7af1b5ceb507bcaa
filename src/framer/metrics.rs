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

/// The `dataschema_framed_total` counter of the schema `name`.
pub(crate) fn framed_counter(name: &str) -> Counter {
    register(&Key::from_parts(
        FRAMED,
        vec![Label::new("schema", name.to_owned())],
    ))
}
