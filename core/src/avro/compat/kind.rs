//! The kinds of Avro incompatibility, declared once.

use crate::change::kind::change_kinds;
use crate::schema::Language;

change_kinds! {
    /// Why a reader schema cannot read data written with a writer schema:
    /// one variant per Java `SchemaCompatibility.SchemaIncompatibilityType`,
    /// the checker Confluent runs for Avro. An Avro diff lists
    /// incompatibilities only, so every kind breaks compatibility.
    ///
    /// [`AvroChangeKind::name`] gives Java's name (`FromStr` reads it back).
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
}
