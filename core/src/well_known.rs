//! The well-known protobuf files: imports that resolve without a reference,
//! in the server (a Confluent registration, as Confluent's registry
//! resolves them) and in the bundler (a schemas folder's `.proto` files)
//! alike. The texts live in `core/proto/`; `core/proto/README.md` says
//! where each comes from. No feature: the bundler compiles `.proto` files
//! without the protobuf validator (`dataschema-build`'s `protox`).

/// The well-known files bundled here, by import path and text: Confluent's
/// (`confluent/*`) and Google's common types (`google/type/*`); the
/// `google/protobuf/*` ones are `protox`'s. A registration imports them
/// without references, and the bundler resolves them as the server does
/// ([`is_well_known`]).
pub const WELL_KNOWN: &[(&str, &str)] = &[
    (
        "confluent/meta.proto",
        include_str!("../proto/confluent/meta.proto"),
    ),
    (
        "confluent/type/decimal.proto",
        include_str!("../proto/confluent/type/decimal.proto"),
    ),
    (
        "google/type/calendar_period.proto",
        include_str!("../proto/google/type/calendar_period.proto"),
    ),
    (
        "google/type/color.proto",
        include_str!("../proto/google/type/color.proto"),
    ),
    (
        "google/type/date.proto",
        include_str!("../proto/google/type/date.proto"),
    ),
    (
        "google/type/datetime.proto",
        include_str!("../proto/google/type/datetime.proto"),
    ),
    (
        "google/type/dayofweek.proto",
        include_str!("../proto/google/type/dayofweek.proto"),
    ),
    (
        "google/type/decimal.proto",
        include_str!("../proto/google/type/decimal.proto"),
    ),
    (
        "google/type/expr.proto",
        include_str!("../proto/google/type/expr.proto"),
    ),
    (
        "google/type/fraction.proto",
        include_str!("../proto/google/type/fraction.proto"),
    ),
    (
        "google/type/interval.proto",
        include_str!("../proto/google/type/interval.proto"),
    ),
    (
        "google/type/latlng.proto",
        include_str!("../proto/google/type/latlng.proto"),
    ),
    (
        "google/type/localized_text.proto",
        include_str!("../proto/google/type/localized_text.proto"),
    ),
    (
        "google/type/money.proto",
        include_str!("../proto/google/type/money.proto"),
    ),
    (
        "google/type/month.proto",
        include_str!("../proto/google/type/month.proto"),
    ),
    (
        "google/type/phone_number.proto",
        include_str!("../proto/google/type/phone_number.proto"),
    ),
    (
        "google/type/postal_address.proto",
        include_str!("../proto/google/type/postal_address.proto"),
    ),
    (
        "google/type/quaternion.proto",
        include_str!("../proto/google/type/quaternion.proto"),
    ),
    (
        "google/type/timeofday.proto",
        include_str!("../proto/google/type/timeofday.proto"),
    ),
];

/// The `google/protobuf` files `protox` holds itself: exactly these, not
/// every path under `google/protobuf/` (a user's
/// `google/protobuf/acme.proto` is the user's file).
pub const PROTOBUF_WELL_KNOWN: [&str; 12] = [
    "google/protobuf/any.proto",
    "google/protobuf/api.proto",
    "google/protobuf/descriptor.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/source_context.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/type.proto",
    "google/protobuf/wrappers.proto",
    "google/protobuf/compiler/plugin.proto",
];

/// Whether an import path names a well-known file: one of
/// [`PROTOBUF_WELL_KNOWN`] (`protox`'s) or of [`WELL_KNOWN`]. Such an
/// import needs no reference (Confluent's clients skip them, and its
/// registry resolves them itself).
pub fn is_well_known(path: &str) -> bool {
    PROTOBUF_WELL_KNOWN.contains(&path) || WELL_KNOWN.iter().any(|(known, _)| *known == path)
}

#[cfg(test)]
mod tests {
    use super::is_well_known;

    #[test]
    fn well_known_files_are_named_exactly() {
        assert!(is_well_known("google/protobuf/timestamp.proto"));
        assert!(is_well_known("google/protobuf/compiler/plugin.proto"));
        assert!(is_well_known("google/type/money.proto"));
        assert!(is_well_known("confluent/meta.proto"));
        // A user's own file under the same folder is not one.
        assert!(!is_well_known("google/protobuf/acme.proto"));
        assert!(!is_well_known("google/type/acme.proto"));
        assert!(!is_well_known("orders.proto"));
    }
}
