//! The kinds of change in a JSON Schema diff, declared once.

use crate::change::kind::change_kinds;
use crate::schema::Language;

change_kinds! {
    /// What changed in a JSON Schema, one variant per Confluent `Difference.Type`.
    ///
    /// [`JsonChangeKind::name`] gives Confluent's name (`FromStr` reads it
    /// back); a kind is backward compatible exactly when it is in Confluent's
    /// `COMPATIBLE_CHANGES_STRICT` set (the default STRICT policy).
    pub enum JsonChangeKind for Language::JsonSchema;
    /// `ID_CHANGED` (compatible).
    IdChanged = "ID_CHANGED", true;
    /// `DESCRIPTION_CHANGED` (compatible).
    DescriptionChanged = "DESCRIPTION_CHANGED", true;
    /// `TITLE_CHANGED` (compatible).
    TitleChanged = "TITLE_CHANGED", true;
    /// `DEFAULT_CHANGED` (compatible).
    DefaultChanged = "DEFAULT_CHANGED", true;
    /// `SCHEMA_ADDED` (breaking).
    SchemaAdded = "SCHEMA_ADDED", false;
    /// `SCHEMA_REMOVED` (compatible).
    SchemaRemoved = "SCHEMA_REMOVED", true;
    /// `TYPE_EXTENDED` (compatible).
    TypeExtended = "TYPE_EXTENDED", true;
    /// `TYPE_NARROWED` (breaking).
    TypeNarrowed = "TYPE_NARROWED", false;
    /// `TYPE_CHANGED` (breaking).
    TypeChanged = "TYPE_CHANGED", false;
    /// `MAX_LENGTH_ADDED` (breaking).
    MaxLengthAdded = "MAX_LENGTH_ADDED", false;
    /// `MAX_LENGTH_REMOVED` (compatible).
    MaxLengthRemoved = "MAX_LENGTH_REMOVED", true;
    /// `MAX_LENGTH_INCREASED` (compatible).
    MaxLengthIncreased = "MAX_LENGTH_INCREASED", true;
    /// `MAX_LENGTH_DECREASED` (breaking).
    MaxLengthDecreased = "MAX_LENGTH_DECREASED", false;
    /// `MIN_LENGTH_ADDED` (breaking).
    MinLengthAdded = "MIN_LENGTH_ADDED", false;
    /// `MIN_LENGTH_REMOVED` (compatible).
    MinLengthRemoved = "MIN_LENGTH_REMOVED", true;
    /// `MIN_LENGTH_INCREASED` (breaking).
    MinLengthIncreased = "MIN_LENGTH_INCREASED", false;
    /// `MIN_LENGTH_DECREASED` (compatible).
    MinLengthDecreased = "MIN_LENGTH_DECREASED", true;
    /// `PATTERN_ADDED` (breaking).
    PatternAdded = "PATTERN_ADDED", false;
    /// `PATTERN_REMOVED` (compatible).
    PatternRemoved = "PATTERN_REMOVED", true;
    /// `PATTERN_CHANGED` (breaking).
    PatternChanged = "PATTERN_CHANGED", false;
    /// `MAXIMUM_ADDED` (breaking).
    MaximumAdded = "MAXIMUM_ADDED", false;
    /// `MAXIMUM_REMOVED` (compatible).
    MaximumRemoved = "MAXIMUM_REMOVED", true;
    /// `MAXIMUM_INCREASED` (compatible).
    MaximumIncreased = "MAXIMUM_INCREASED", true;
    /// `MAXIMUM_DECREASED` (breaking).
    MaximumDecreased = "MAXIMUM_DECREASED", false;
    /// `MINIMUM_ADDED` (breaking).
    MinimumAdded = "MINIMUM_ADDED", false;
    /// `MINIMUM_REMOVED` (compatible).
    MinimumRemoved = "MINIMUM_REMOVED", true;
    /// `MINIMUM_INCREASED` (breaking).
    MinimumIncreased = "MINIMUM_INCREASED", false;
    /// `MINIMUM_DECREASED` (compatible).
    MinimumDecreased = "MINIMUM_DECREASED", true;
    /// `EXCLUSIVE_MAXIMUM_ADDED` (breaking).
    ExclusiveMaximumAdded = "EXCLUSIVE_MAXIMUM_ADDED", false;
    /// `EXCLUSIVE_MAXIMUM_REMOVED` (compatible).
    ExclusiveMaximumRemoved = "EXCLUSIVE_MAXIMUM_REMOVED", true;
    /// `EXCLUSIVE_MAXIMUM_INCREASED` (compatible).
    ExclusiveMaximumIncreased = "EXCLUSIVE_MAXIMUM_INCREASED", true;
    /// `EXCLUSIVE_MAXIMUM_DECREASED` (breaking).
    ExclusiveMaximumDecreased = "EXCLUSIVE_MAXIMUM_DECREASED", false;
    /// `EXCLUSIVE_MINIMUM_ADDED` (breaking).
    ExclusiveMinimumAdded = "EXCLUSIVE_MINIMUM_ADDED", false;
    /// `EXCLUSIVE_MINIMUM_REMOVED` (compatible).
    ExclusiveMinimumRemoved = "EXCLUSIVE_MINIMUM_REMOVED", true;
    /// `EXCLUSIVE_MINIMUM_INCREASED` (breaking).
    ExclusiveMinimumIncreased = "EXCLUSIVE_MINIMUM_INCREASED", false;
    /// `EXCLUSIVE_MINIMUM_DECREASED` (compatible).
    ExclusiveMinimumDecreased = "EXCLUSIVE_MINIMUM_DECREASED", true;
    /// `MULTIPLE_OF_ADDED` (breaking).
    MultipleOfAdded = "MULTIPLE_OF_ADDED", false;
    /// `MULTIPLE_OF_REMOVED` (compatible).
    MultipleOfRemoved = "MULTIPLE_OF_REMOVED", true;
    /// `MULTIPLE_OF_EXPANDED` (breaking).
    MultipleOfExpanded = "MULTIPLE_OF_EXPANDED", false;
    /// `MULTIPLE_OF_REDUCED` (compatible).
    MultipleOfReduced = "MULTIPLE_OF_REDUCED", true;
    /// `MULTIPLE_OF_CHANGED` (breaking).
    MultipleOfChanged = "MULTIPLE_OF_CHANGED", false;
    /// `REQUIRED_ATTRIBUTE_ADDED` (breaking).
    RequiredAttributeAdded = "REQUIRED_ATTRIBUTE_ADDED", false;
    /// `REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED` (compatible).
    RequiredAttributeWithDefaultAdded = "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED", true;
    /// `REQUIRED_ATTRIBUTE_REMOVED` (compatible).
    RequiredAttributeRemoved = "REQUIRED_ATTRIBUTE_REMOVED", true;
    /// `MAX_PROPERTIES_ADDED` (breaking).
    MaxPropertiesAdded = "MAX_PROPERTIES_ADDED", false;
    /// `MAX_PROPERTIES_REMOVED` (compatible).
    MaxPropertiesRemoved = "MAX_PROPERTIES_REMOVED", true;
    /// `MAX_PROPERTIES_INCREASED` (compatible).
    MaxPropertiesIncreased = "MAX_PROPERTIES_INCREASED", true;
    /// `MAX_PROPERTIES_DECREASED` (breaking).
    MaxPropertiesDecreased = "MAX_PROPERTIES_DECREASED", false;
    /// `MIN_PROPERTIES_ADDED` (breaking).
    MinPropertiesAdded = "MIN_PROPERTIES_ADDED", false;
    /// `MIN_PROPERTIES_REMOVED` (compatible).
    MinPropertiesRemoved = "MIN_PROPERTIES_REMOVED", true;
    /// `MIN_PROPERTIES_INCREASED` (breaking).
    MinPropertiesIncreased = "MIN_PROPERTIES_INCREASED", false;
    /// `MIN_PROPERTIES_DECREASED` (compatible).
    MinPropertiesDecreased = "MIN_PROPERTIES_DECREASED", true;
    /// `ADDITIONAL_PROPERTIES_ADDED` (compatible).
    AdditionalPropertiesAdded = "ADDITIONAL_PROPERTIES_ADDED", true;
    /// `ADDITIONAL_PROPERTIES_REMOVED` (breaking).
    AdditionalPropertiesRemoved = "ADDITIONAL_PROPERTIES_REMOVED", false;
    /// `ADDITIONAL_PROPERTIES_EXTENDED` (compatible).
    AdditionalPropertiesExtended = "ADDITIONAL_PROPERTIES_EXTENDED", true;
    /// `ADDITIONAL_PROPERTIES_NARROWED` (breaking).
    AdditionalPropertiesNarrowed = "ADDITIONAL_PROPERTIES_NARROWED", false;
    /// `DEPENDENCY_ARRAY_ADDED` (breaking).
    DependencyArrayAdded = "DEPENDENCY_ARRAY_ADDED", false;
    /// `DEPENDENCY_ARRAY_REMOVED` (compatible).
    DependencyArrayRemoved = "DEPENDENCY_ARRAY_REMOVED", true;
    /// `DEPENDENCY_ARRAY_EXTENDED` (breaking).
    DependencyArrayExtended = "DEPENDENCY_ARRAY_EXTENDED", false;
    /// `DEPENDENCY_ARRAY_NARROWED` (compatible).
    DependencyArrayNarrowed = "DEPENDENCY_ARRAY_NARROWED", true;
    /// `DEPENDENCY_ARRAY_CHANGED` (breaking).
    DependencyArrayChanged = "DEPENDENCY_ARRAY_CHANGED", false;
    /// `DEPENDENCY_SCHEMA_ADDED` (breaking).
    DependencySchemaAdded = "DEPENDENCY_SCHEMA_ADDED", false;
    /// `DEPENDENCY_SCHEMA_REMOVED` (compatible).
    DependencySchemaRemoved = "DEPENDENCY_SCHEMA_REMOVED", true;
    /// `PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    PropertyAddedToOpenContentModel = "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", false;
    /// `REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    RequiredPropertyAddedToOpenContentModel = "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", false;
    /// `REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    RequiredPropertyWithDefaultAddedToOpenContentModel = "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL", false;
    /// `OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    OptionalPropertyAddedToOpenContentModel = "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", false;
    /// `PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL` (compatible).
    PropertyWithEmptySchemaAddedToOpenContentModel = "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", true;
    /// `REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL` (breaking).
    RequiredPropertyAddedToUnopenContentModel = "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", false;
    /// `REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL` (compatible).
    RequiredPropertyWithDefaultAddedToUnopenContentModel = "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL", true;
    /// `OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL` (compatible).
    OptionalPropertyAddedToUnopenContentModel = "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", true;
    /// `PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL` (compatible).
    PropertyRemovedFromOpenContentModel = "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL", true;
    /// `PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL` (compatible).
    PropertyWithFalseRemovedFromClosedContentModel = "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", true;
    /// `PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL` (breaking).
    PropertyRemovedFromClosedContentModel = "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", false;
    /// `PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    PropertyRemovedIsCoveredByPartiallyOpenContentModel = "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true;
    /// `PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    PropertyRemovedNotCoveredByPartiallyOpenContentModel = "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false;
    /// `PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    PropertyAddedIsCoveredByPartiallyOpenContentModel = "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true;
    /// `PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    PropertyAddedNotCoveredByPartiallyOpenContentModel = "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false;
    /// `MAX_ITEMS_ADDED` (breaking).
    MaxItemsAdded = "MAX_ITEMS_ADDED", false;
    /// `MAX_ITEMS_REMOVED` (compatible).
    MaxItemsRemoved = "MAX_ITEMS_REMOVED", true;
    /// `MAX_ITEMS_INCREASED` (compatible).
    MaxItemsIncreased = "MAX_ITEMS_INCREASED", true;
    /// `MAX_ITEMS_DECREASED` (breaking).
    MaxItemsDecreased = "MAX_ITEMS_DECREASED", false;
    /// `MIN_ITEMS_ADDED` (breaking).
    MinItemsAdded = "MIN_ITEMS_ADDED", false;
    /// `MIN_ITEMS_REMOVED` (compatible).
    MinItemsRemoved = "MIN_ITEMS_REMOVED", true;
    /// `MIN_ITEMS_INCREASED` (breaking).
    MinItemsIncreased = "MIN_ITEMS_INCREASED", false;
    /// `MIN_ITEMS_DECREASED` (compatible).
    MinItemsDecreased = "MIN_ITEMS_DECREASED", true;
    /// `MAX_CONTAINS_ADDED` (breaking).
    MaxContainsAdded = "MAX_CONTAINS_ADDED", false;
    /// `MAX_CONTAINS_REMOVED` (compatible).
    MaxContainsRemoved = "MAX_CONTAINS_REMOVED", true;
    /// `MAX_CONTAINS_INCREASED` (compatible).
    MaxContainsIncreased = "MAX_CONTAINS_INCREASED", true;
    /// `MAX_CONTAINS_DECREASED` (breaking).
    MaxContainsDecreased = "MAX_CONTAINS_DECREASED", false;
    /// `MIN_CONTAINS_ADDED` (breaking).
    MinContainsAdded = "MIN_CONTAINS_ADDED", false;
    /// `MIN_CONTAINS_REMOVED` (compatible).
    MinContainsRemoved = "MIN_CONTAINS_REMOVED", true;
    /// `MIN_CONTAINS_INCREASED` (breaking).
    MinContainsIncreased = "MIN_CONTAINS_INCREASED", false;
    /// `MIN_CONTAINS_DECREASED` (compatible).
    MinContainsDecreased = "MIN_CONTAINS_DECREASED", true;
    /// `UNIQUE_ITEMS_ADDED` (breaking).
    UniqueItemsAdded = "UNIQUE_ITEMS_ADDED", false;
    /// `UNIQUE_ITEMS_REMOVED` (compatible).
    UniqueItemsRemoved = "UNIQUE_ITEMS_REMOVED", true;
    /// `ADDITIONAL_ITEMS_ADDED` (compatible).
    AdditionalItemsAdded = "ADDITIONAL_ITEMS_ADDED", true;
    /// `ADDITIONAL_ITEMS_REMOVED` (breaking).
    AdditionalItemsRemoved = "ADDITIONAL_ITEMS_REMOVED", false;
    /// `ADDITIONAL_ITEMS_EXTENDED` (compatible).
    AdditionalItemsExtended = "ADDITIONAL_ITEMS_EXTENDED", true;
    /// `ADDITIONAL_ITEMS_NARROWED` (breaking).
    AdditionalItemsNarrowed = "ADDITIONAL_ITEMS_NARROWED", false;
    /// `ITEM_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    ItemAddedToOpenContentModel = "ITEM_ADDED_TO_OPEN_CONTENT_MODEL", false;
    /// `ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL` (compatible).
    ItemWithEmptySchemaAddedToOpenContentModel = "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", true;
    /// `ITEM_ADDED_TO_CLOSED_CONTENT_MODEL` (compatible).
    ItemAddedToClosedContentModel = "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL", true;
    /// `ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL` (compatible).
    ItemRemovedFromOpenContentModel = "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL", true;
    /// `ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL` (compatible).
    ItemWithFalseRemovedFromClosedContentModel = "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", true;
    /// `ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL` (breaking).
    ItemRemovedFromClosedContentModel = "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL", false;
    /// `ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    ItemRemovedIsCoveredByPartiallyOpenContentModel = "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true;
    /// `ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    ItemRemovedNotCoveredByPartiallyOpenContentModel = "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false;
    /// `ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    ItemAddedIsCoveredByPartiallyOpenContentModel = "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", true;
    /// `ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    ItemAddedNotCoveredByPartiallyOpenContentModel = "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", false;
    /// `ENUM_ARRAY_EXTENDED` (compatible).
    EnumArrayExtended = "ENUM_ARRAY_EXTENDED", true;
    /// `ENUM_ARRAY_NARROWED` (breaking).
    EnumArrayNarrowed = "ENUM_ARRAY_NARROWED", false;
    /// `ENUM_ARRAY_CHANGED` (breaking).
    EnumArrayChanged = "ENUM_ARRAY_CHANGED", false;
    /// `COMBINED_TYPE_EXTENDED` (compatible).
    CombinedTypeExtended = "COMBINED_TYPE_EXTENDED", true;
    /// `COMBINED_TYPE_CHANGED` (breaking).
    CombinedTypeChanged = "COMBINED_TYPE_CHANGED", false;
    /// `PRODUCT_TYPE_EXTENDED` (breaking).
    ProductTypeExtended = "PRODUCT_TYPE_EXTENDED", false;
    /// `PRODUCT_TYPE_NARROWED` (compatible).
    ProductTypeNarrowed = "PRODUCT_TYPE_NARROWED", true;
    /// `SUM_TYPE_EXTENDED` (compatible).
    SumTypeExtended = "SUM_TYPE_EXTENDED", true;
    /// `SUM_TYPE_NARROWED` (breaking).
    SumTypeNarrowed = "SUM_TYPE_NARROWED", false;
    /// `COMBINED_TYPE_SUBSCHEMAS_CHANGED` (breaking).
    CombinedTypeSubschemasChanged = "COMBINED_TYPE_SUBSCHEMAS_CHANGED", false;
    /// `NOT_TYPE_EXTENDED` (breaking).
    NotTypeExtended = "NOT_TYPE_EXTENDED", false;
    /// `NOT_TYPE_NARROWED` (compatible).
    NotTypeNarrowed = "NOT_TYPE_NARROWED", true;
    /// `COMPARISON_TOO_DEEP` (breaking): dataschema's own, not Confluent's.
    /// The schemas nest (through `$ref`s) deeper than the comparison
    /// follows (128 levels), so compatibility below that depth is not
    /// proven.
    ComparisonTooDeep = "COMPARISON_TOO_DEEP", false;
    /// `COMPARISON_TOO_LARGE` (breaking): dataschema's own, not Confluent's.
    /// Comparing the two schemas took more work than one diff is allowed
    /// (about 100,000 pairwise comparisons of changed subschemas, as large
    /// `anyOf`/`oneOf`s of changed members nested in each other need), so
    /// the comparison stopped: compatibility is not proven. It is then the
    /// diff's only change, at `#/`.
    ComparisonTooLarge = "COMPARISON_TOO_LARGE", false;
}
