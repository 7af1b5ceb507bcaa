//! The kinds of change in a protobuf diff, declared once.

use crate::change::kind::change_kinds;
use crate::schema::Language;

change_kinds! {
    /// What changed in a protobuf file, one variant per Confluent
    /// protobuf `Difference.Type`.
    ///
    /// [`ProtoChangeKind::name`] gives Confluent's name (`FromStr` reads it
    /// back); a kind is backward compatible exactly when it is in Confluent's
    /// `COMPATIBLE_CHANGES` for protobuf.
    pub enum ProtoChangeKind for Language::Protobuf;
    /// The file's package changed (breaking).
    PackageChanged = "PACKAGE_CHANGED", false;
    /// A message was added (compatible).
    MessageAdded = "MESSAGE_ADDED", true;
    /// A message was removed (breaking: data may name it).
    MessageRemoved = "MESSAGE_REMOVED", false;
    /// A message changed position among its siblings (compatible).
    MessageMoved = "MESSAGE_MOVED", true;
    /// An enum was added (compatible).
    EnumAdded = "ENUM_ADDED", true;
    /// An enum was removed (compatible).
    EnumRemoved = "ENUM_REMOVED", true;
    /// An enum value number was added (compatible).
    EnumConstAdded = "ENUM_CONST_ADDED", true;
    /// An enum value number was renamed (compatible).
    EnumConstChanged = "ENUM_CONST_CHANGED", true;
    /// An enum value number was removed (compatible).
    EnumConstRemoved = "ENUM_CONST_REMOVED", true;
    /// A field number was added (compatible).
    FieldAdded = "FIELD_ADDED", true;
    /// A field number was removed (compatible).
    FieldRemoved = "FIELD_REMOVED", true;
    /// A field kept its number and changed its name (compatible).
    FieldNameChanged = "FIELD_NAME_CHANGED", true;
    /// A field changed between scalar, message and map (breaking).
    FieldKindChanged = "FIELD_KIND_CHANGED", false;
    /// A scalar field changed to a wire-incompatible scalar group (breaking).
    FieldScalarKindChanged = "FIELD_SCALAR_KIND_CHANGED", false;
    /// A message field names another message, or the message it names broke (breaking).
    FieldNamedTypeChanged = "FIELD_NAMED_TYPE_CHANGED", false;
    /// A numeric field changed between singular and repeated (breaking).
    FieldNumericLabelChanged = "FIELD_NUMERIC_LABEL_CHANGED", false;
    /// A string or bytes field changed between singular and repeated (compatible).
    FieldStringOrBytesLabelChanged = "FIELD_STRING_OR_BYTES_LABEL_CHANGED", true;
    /// A proto2 `required` field was added (breaking).
    RequiredFieldAdded = "REQUIRED_FIELD_ADDED", false;
    /// A proto2 `required` field was removed (breaking).
    RequiredFieldRemoved = "REQUIRED_FIELD_REMOVED", false;
    /// A oneof was added (compatible).
    OneofAdded = "ONEOF_ADDED", true;
    /// A oneof was removed (compatible).
    OneofRemoved = "ONEOF_REMOVED", true;
    /// A new field was added to a oneof (compatible).
    OneofFieldAdded = "ONEOF_FIELD_ADDED", true;
    /// A field of a oneof was deleted (breaking).
    OneofFieldRemoved = "ONEOF_FIELD_REMOVED", false;
    /// A field moved out of a oneof to the top level (compatible).
    OneofFieldMovedToTopLevel = "ONEOF_FIELD_MOVED_TO_TOP_LEVEL", true;
    /// A oneof now holds several fields that were independent (breaking).
    MultipleFieldsMovedToOneof = "MULTIPLE_FIELDS_MOVED_TO_ONEOF", false;
    /// A oneof now holds fields from different places, one of them an existing oneof (breaking).
    FieldMovedToExistingOneof = "FIELD_MOVED_TO_EXISTING_ONEOF", false;
    /// dataschema's own, not Confluent's (breaking): imported messages nest
    /// deeper than the comparison follows (128 levels), so compatibility
    /// below that depth is not proven.
    ComparisonTooDeep = "COMPARISON_TOO_DEEP", false;
}
