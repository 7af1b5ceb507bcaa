//! The kinds of Avro incompatibility, declared once.

use crate::change::kind::change_kinds;
use crate::schema::Language;

change_kinds! {
    /// A change between two Avro schemas. The breaking kinds are Java's
    /// `SchemaCompatibility.SchemaIncompatibilityType` (the checker
    /// Confluent runs for Avro), and a compatibility check
    /// ([`avro::diff`](crate::compat::avro::diff)) finds those only; the
    /// safe kinds are dataschema's, what [`compat::diff`](crate::compat::diff())
    /// lists beside them so that a person sees every change (a field
    /// added with a default, a promotion, an enum symbol added, ...).
    ///
    /// [`AvroChangeKind::name`] gives the name (`FromStr` reads it back).
    pub enum AvroChangeKind for Language::Avro;
    /// A named type's name differs, and no reader alias names the writer's
    /// type (breaking).
    NameMismatch = "NAME_MISMATCH", false;
    /// A fixed's size differs (breaking).
    FixedSizeMismatch = "FIXED_SIZE_MISMATCH", false;
    /// The writer's enum has symbols the reader's lacks, and the reader's
    /// enum has no default (breaking).
    MissingEnumSymbols = "MISSING_ENUM_SYMBOLS", false;
    /// A reader field the writer lacks has no default (breaking).
    ReaderFieldMissingDefaultValue = "READER_FIELD_MISSING_DEFAULT_VALUE", false;
    /// The reader's type cannot read the writer's (breaking).
    TypeMismatch = "TYPE_MISMATCH", false;
    /// A type the writer may write is no branch of the reader's union
    /// (breaking).
    MissingUnionBranch = "MISSING_UNION_BRANCH", false;
    /// dataschema's own, not Java's (breaking): the schemas nest deeper
    /// than the comparison follows (256 levels), so compatibility below
    /// that depth is not proven.
    ComparisonTooDeep = "COMPARISON_TOO_DEEP", false;
    /// A field the writer lacks, with a default the reader uses (safe).
    FieldAdded = "FIELD_ADDED", true;
    /// A writer field the reader no longer has: its data is skipped (safe).
    FieldRemoved = "FIELD_REMOVED", true;
    /// A field renamed, the reader's alias naming the writer's field (safe).
    FieldRenamed = "FIELD_RENAMED", true;
    /// A field's default added, removed or changed (safe for a reader of
    /// data that has the field).
    FieldDefaultChanged = "FIELD_DEFAULT_CHANGED", true;
    /// A named type renamed, a reader alias naming the writer's type (safe).
    NameChanged = "NAME_CHANGED", true;
    /// A type the reader promotes the writer's to: `int` to `long`,
    /// `float` or `double`, `long` to `float` or `double`, `float` to
    /// `double`, `string` to `bytes` and back (safe).
    TypePromoted = "TYPE_PROMOTED", true;
    /// A type made a union with a branch that reads it (safe).
    TypeChangedToUnion = "TYPE_CHANGED_TO_UNION", true;
    /// A union made one type that reads each of its branches (safe).
    TypeChangedFromUnion = "TYPE_CHANGED_FROM_UNION", true;
    /// A union branch added (safe: the writer never wrote it).
    UnionBranchAdded = "UNION_BRANCH_ADDED", true;
    /// A union branch removed whose data another branch reads (safe).
    UnionBranchRemoved = "UNION_BRANCH_REMOVED", true;
    /// An enum symbol added (safe: the writer never wrote it).
    EnumSymbolAdded = "ENUM_SYMBOL_ADDED", true;
    /// An enum symbol removed, read as the reader enum's default (safe).
    EnumSymbolRemoved = "ENUM_SYMBOL_REMOVED", true;
    /// An enum's default added, removed or changed (safe).
    EnumDefaultChanged = "ENUM_DEFAULT_CHANGED", true;
    /// A logical type added, removed or changed on the same underlying
    /// type (safe to decode, as Java's checker ignores logical types; the
    /// value's meaning may differ).
    LogicalTypeChanged = "LOGICAL_TYPE_CHANGED", true;
}
