//! The kinds of change in a JSON Schema diff.

use crate::compat::ChangeKind;

/// What changed in a JSON Schema, one variant per Confluent `Difference.Type`.
///
/// [`JsonChangeKind::name`] gives Confluent's name; a kind is backward
/// compatible exactly when it is in Confluent's `COMPATIBLE_CHANGES_STRICT`
/// set (the default STRICT policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JsonChangeKind {
    /// `ID_CHANGED` (compatible).
    IdChanged,
    /// `DESCRIPTION_CHANGED` (compatible).
    DescriptionChanged,
    /// `TITLE_CHANGED` (compatible).
    TitleChanged,
    /// `DEFAULT_CHANGED` (compatible).
    DefaultChanged,
    /// `SCHEMA_ADDED` (breaking).
    SchemaAdded,
    /// `SCHEMA_REMOVED` (compatible).
    SchemaRemoved,
    /// `TYPE_EXTENDED` (compatible).
    TypeExtended,
    /// `TYPE_NARROWED` (breaking).
    TypeNarrowed,
    /// `TYPE_CHANGED` (breaking).
    TypeChanged,
    /// `MAX_LENGTH_ADDED` (breaking).
    MaxLengthAdded,
    /// `MAX_LENGTH_REMOVED` (compatible).
    MaxLengthRemoved,
    /// `MAX_LENGTH_INCREASED` (compatible).
    MaxLengthIncreased,
    /// `MAX_LENGTH_DECREASED` (breaking).
    MaxLengthDecreased,
    /// `MIN_LENGTH_ADDED` (breaking).
    MinLengthAdded,
    /// `MIN_LENGTH_REMOVED` (compatible).
    MinLengthRemoved,
    /// `MIN_LENGTH_INCREASED` (breaking).
    MinLengthIncreased,
    /// `MIN_LENGTH_DECREASED` (compatible).
    MinLengthDecreased,
    /// `PATTERN_ADDED` (breaking).
    PatternAdded,
    /// `PATTERN_REMOVED` (compatible).
    PatternRemoved,
    /// `PATTERN_CHANGED` (breaking).
    PatternChanged,
    /// `MAXIMUM_ADDED` (breaking).
    MaximumAdded,
    /// `MAXIMUM_REMOVED` (compatible).
    MaximumRemoved,
    /// `MAXIMUM_INCREASED` (compatible).
    MaximumIncreased,
    /// `MAXIMUM_DECREASED` (breaking).
    MaximumDecreased,
    /// `MINIMUM_ADDED` (breaking).
    MinimumAdded,
    /// `MINIMUM_REMOVED` (compatible).
    MinimumRemoved,
    /// `MINIMUM_INCREASED` (breaking).
    MinimumIncreased,
    /// `MINIMUM_DECREASED` (compatible).
    MinimumDecreased,
    /// `EXCLUSIVE_MAXIMUM_ADDED` (breaking).
    ExclusiveMaximumAdded,
    /// `EXCLUSIVE_MAXIMUM_REMOVED` (compatible).
    ExclusiveMaximumRemoved,
    /// `EXCLUSIVE_MAXIMUM_INCREASED` (compatible).
    ExclusiveMaximumIncreased,
    /// `EXCLUSIVE_MAXIMUM_DECREASED` (breaking).
    ExclusiveMaximumDecreased,
    /// `EXCLUSIVE_MINIMUM_ADDED` (breaking).
    ExclusiveMinimumAdded,
    /// `EXCLUSIVE_MINIMUM_REMOVED` (compatible).
    ExclusiveMinimumRemoved,
    /// `EXCLUSIVE_MINIMUM_INCREASED` (breaking).
    ExclusiveMinimumIncreased,
    /// `EXCLUSIVE_MINIMUM_DECREASED` (compatible).
    ExclusiveMinimumDecreased,
    /// `MULTIPLE_OF_ADDED` (breaking).
    MultipleOfAdded,
    /// `MULTIPLE_OF_REMOVED` (compatible).
    MultipleOfRemoved,
    /// `MULTIPLE_OF_EXPANDED` (breaking).
    MultipleOfExpanded,
    /// `MULTIPLE_OF_REDUCED` (compatible).
    MultipleOfReduced,
    /// `MULTIPLE_OF_CHANGED` (breaking).
    MultipleOfChanged,
    /// `REQUIRED_ATTRIBUTE_ADDED` (breaking).
    RequiredAttributeAdded,
    /// `REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED` (compatible).
    RequiredAttributeWithDefaultAdded,
    /// `REQUIRED_ATTRIBUTE_REMOVED` (compatible).
    RequiredAttributeRemoved,
    /// `MAX_PROPERTIES_ADDED` (breaking).
    MaxPropertiesAdded,
    /// `MAX_PROPERTIES_REMOVED` (compatible).
    MaxPropertiesRemoved,
    /// `MAX_PROPERTIES_INCREASED` (compatible).
    MaxPropertiesIncreased,
    /// `MAX_PROPERTIES_DECREASED` (breaking).
    MaxPropertiesDecreased,
    /// `MIN_PROPERTIES_ADDED` (breaking).
    MinPropertiesAdded,
    /// `MIN_PROPERTIES_REMOVED` (compatible).
    MinPropertiesRemoved,
    /// `MIN_PROPERTIES_INCREASED` (breaking).
    MinPropertiesIncreased,
    /// `MIN_PROPERTIES_DECREASED` (compatible).
    MinPropertiesDecreased,
    /// `ADDITIONAL_PROPERTIES_ADDED` (compatible).
    AdditionalPropertiesAdded,
    /// `ADDITIONAL_PROPERTIES_REMOVED` (breaking).
    AdditionalPropertiesRemoved,
    /// `ADDITIONAL_PROPERTIES_EXTENDED` (compatible).
    AdditionalPropertiesExtended,
    /// `ADDITIONAL_PROPERTIES_NARROWED` (breaking).
    AdditionalPropertiesNarrowed,
    /// `DEPENDENCY_ARRAY_ADDED` (breaking).
    DependencyArrayAdded,
    /// `DEPENDENCY_ARRAY_REMOVED` (compatible).
    DependencyArrayRemoved,
    /// `DEPENDENCY_ARRAY_EXTENDED` (breaking).
    DependencyArrayExtended,
    /// `DEPENDENCY_ARRAY_NARROWED` (compatible).
    DependencyArrayNarrowed,
    /// `DEPENDENCY_ARRAY_CHANGED` (breaking).
    DependencyArrayChanged,
    /// `DEPENDENCY_SCHEMA_ADDED` (breaking).
    DependencySchemaAdded,
    /// `DEPENDENCY_SCHEMA_REMOVED` (compatible).
    DependencySchemaRemoved,
    /// `PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    PropertyAddedToOpenContentModel,
    /// `REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    RequiredPropertyAddedToOpenContentModel,
    /// `REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    RequiredPropertyWithDefaultAddedToOpenContentModel,
    /// `OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    OptionalPropertyAddedToOpenContentModel,
    /// `PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL` (compatible).
    PropertyWithEmptySchemaAddedToOpenContentModel,
    /// `REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL` (breaking).
    RequiredPropertyAddedToUnopenContentModel,
    /// `REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL` (compatible).
    RequiredPropertyWithDefaultAddedToUnopenContentModel,
    /// `OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL` (compatible).
    OptionalPropertyAddedToUnopenContentModel,
    /// `PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL` (compatible).
    PropertyRemovedFromOpenContentModel,
    /// `PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL` (compatible).
    PropertyWithFalseRemovedFromClosedContentModel,
    /// `PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL` (breaking).
    PropertyRemovedFromClosedContentModel,
    /// `PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    PropertyRemovedIsCoveredByPartiallyOpenContentModel,
    /// `PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    PropertyRemovedNotCoveredByPartiallyOpenContentModel,
    /// `PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    PropertyAddedIsCoveredByPartiallyOpenContentModel,
    /// `PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    PropertyAddedNotCoveredByPartiallyOpenContentModel,
    /// `MAX_ITEMS_ADDED` (breaking).
    MaxItemsAdded,
    /// `MAX_ITEMS_REMOVED` (compatible).
    MaxItemsRemoved,
    /// `MAX_ITEMS_INCREASED` (compatible).
    MaxItemsIncreased,
    /// `MAX_ITEMS_DECREASED` (breaking).
    MaxItemsDecreased,
    /// `MIN_ITEMS_ADDED` (breaking).
    MinItemsAdded,
    /// `MIN_ITEMS_REMOVED` (compatible).
    MinItemsRemoved,
    /// `MIN_ITEMS_INCREASED` (breaking).
    MinItemsIncreased,
    /// `MIN_ITEMS_DECREASED` (compatible).
    MinItemsDecreased,
    /// `MAX_CONTAINS_ADDED` (breaking).
    MaxContainsAdded,
    /// `MAX_CONTAINS_REMOVED` (compatible).
    MaxContainsRemoved,
    /// `MAX_CONTAINS_INCREASED` (compatible).
    MaxContainsIncreased,
    /// `MAX_CONTAINS_DECREASED` (breaking).
    MaxContainsDecreased,
    /// `MIN_CONTAINS_ADDED` (breaking).
    MinContainsAdded,
    /// `MIN_CONTAINS_REMOVED` (compatible).
    MinContainsRemoved,
    /// `MIN_CONTAINS_INCREASED` (breaking).
    MinContainsIncreased,
    /// `MIN_CONTAINS_DECREASED` (compatible).
    MinContainsDecreased,
    /// `UNIQUE_ITEMS_ADDED` (breaking).
    UniqueItemsAdded,
    /// `UNIQUE_ITEMS_REMOVED` (compatible).
    UniqueItemsRemoved,
    /// `ADDITIONAL_ITEMS_ADDED` (compatible).
    AdditionalItemsAdded,
    /// `ADDITIONAL_ITEMS_REMOVED` (breaking).
    AdditionalItemsRemoved,
    /// `ADDITIONAL_ITEMS_EXTENDED` (compatible).
    AdditionalItemsExtended,
    /// `ADDITIONAL_ITEMS_NARROWED` (breaking).
    AdditionalItemsNarrowed,
    /// `ITEM_ADDED_TO_OPEN_CONTENT_MODEL` (breaking).
    ItemAddedToOpenContentModel,
    /// `ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL` (compatible).
    ItemWithEmptySchemaAddedToOpenContentModel,
    /// `ITEM_ADDED_TO_CLOSED_CONTENT_MODEL` (compatible).
    ItemAddedToClosedContentModel,
    /// `ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL` (compatible).
    ItemRemovedFromOpenContentModel,
    /// `ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL` (compatible).
    ItemWithFalseRemovedFromClosedContentModel,
    /// `ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL` (breaking).
    ItemRemovedFromClosedContentModel,
    /// `ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    ItemRemovedIsCoveredByPartiallyOpenContentModel,
    /// `ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    ItemRemovedNotCoveredByPartiallyOpenContentModel,
    /// `ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (compatible).
    ItemAddedIsCoveredByPartiallyOpenContentModel,
    /// `ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL` (breaking).
    ItemAddedNotCoveredByPartiallyOpenContentModel,
    /// `ENUM_ARRAY_EXTENDED` (compatible).
    EnumArrayExtended,
    /// `ENUM_ARRAY_NARROWED` (breaking).
    EnumArrayNarrowed,
    /// `ENUM_ARRAY_CHANGED` (breaking).
    EnumArrayChanged,
    /// `COMBINED_TYPE_EXTENDED` (compatible).
    CombinedTypeExtended,
    /// `COMBINED_TYPE_CHANGED` (breaking).
    CombinedTypeChanged,
    /// `PRODUCT_TYPE_EXTENDED` (breaking).
    ProductTypeExtended,
    /// `PRODUCT_TYPE_NARROWED` (compatible).
    ProductTypeNarrowed,
    /// `SUM_TYPE_EXTENDED` (compatible).
    SumTypeExtended,
    /// `SUM_TYPE_NARROWED` (breaking).
    SumTypeNarrowed,
    /// `COMBINED_TYPE_SUBSCHEMAS_CHANGED` (breaking).
    CombinedTypeSubschemasChanged,
    /// `NOT_TYPE_EXTENDED` (breaking).
    NotTypeExtended,
    /// `NOT_TYPE_NARROWED` (compatible).
    NotTypeNarrowed,
    /// `COMPARISON_TOO_DEEP` (breaking): dataschema's own, not Confluent's.
    /// The schemas nest (through `$ref`s) deeper than the comparison
    /// follows (128 levels), so compatibility below that depth is not
    /// proven.
    ComparisonTooDeep,
    /// `COMPARISON_TOO_LARGE` (breaking): dataschema's own, not Confluent's.
    /// Comparing the two schemas took more work than one diff is allowed
    /// (about 100,000 pairwise comparisons of changed subschemas, as large
    /// `anyOf`/`oneOf`s of changed members nested in each other need), so
    /// the comparison stopped: compatibility is not proven. It is then the
    /// diff's only change, at `#/`.
    ComparisonTooLarge,
}

impl JsonChangeKind {
    /// Every kind, in Confluent's declaration order.
    pub const ALL: [JsonChangeKind; 124] = [
        JsonChangeKind::IdChanged,
        JsonChangeKind::DescriptionChanged,
        JsonChangeKind::TitleChanged,
        JsonChangeKind::DefaultChanged,
        JsonChangeKind::SchemaAdded,
        JsonChangeKind::SchemaRemoved,
        JsonChangeKind::TypeExtended,
        JsonChangeKind::TypeNarrowed,
        JsonChangeKind::TypeChanged,
        JsonChangeKind::MaxLengthAdded,
        JsonChangeKind::MaxLengthRemoved,
        JsonChangeKind::MaxLengthIncreased,
        JsonChangeKind::MaxLengthDecreased,
        JsonChangeKind::MinLengthAdded,
        JsonChangeKind::MinLengthRemoved,
        JsonChangeKind::MinLengthIncreased,
        JsonChangeKind::MinLengthDecreased,
        JsonChangeKind::PatternAdded,
        JsonChangeKind::PatternRemoved,
        JsonChangeKind::PatternChanged,
        JsonChangeKind::MaximumAdded,
        JsonChangeKind::MaximumRemoved,
        JsonChangeKind::MaximumIncreased,
        JsonChangeKind::MaximumDecreased,
        JsonChangeKind::MinimumAdded,
        JsonChangeKind::MinimumRemoved,
        JsonChangeKind::MinimumIncreased,
        JsonChangeKind::MinimumDecreased,
        JsonChangeKind::ExclusiveMaximumAdded,
        JsonChangeKind::ExclusiveMaximumRemoved,
        JsonChangeKind::ExclusiveMaximumIncreased,
        JsonChangeKind::ExclusiveMaximumDecreased,
        JsonChangeKind::ExclusiveMinimumAdded,
        JsonChangeKind::ExclusiveMinimumRemoved,
        JsonChangeKind::ExclusiveMinimumIncreased,
        JsonChangeKind::ExclusiveMinimumDecreased,
        JsonChangeKind::MultipleOfAdded,
        JsonChangeKind::MultipleOfRemoved,
        JsonChangeKind::MultipleOfExpanded,
        JsonChangeKind::MultipleOfReduced,
        JsonChangeKind::MultipleOfChanged,
        JsonChangeKind::RequiredAttributeAdded,
        JsonChangeKind::RequiredAttributeWithDefaultAdded,
        JsonChangeKind::RequiredAttributeRemoved,
        JsonChangeKind::MaxPropertiesAdded,
        JsonChangeKind::MaxPropertiesRemoved,
        JsonChangeKind::MaxPropertiesIncreased,
        JsonChangeKind::MaxPropertiesDecreased,
        JsonChangeKind::MinPropertiesAdded,
        JsonChangeKind::MinPropertiesRemoved,
        JsonChangeKind::MinPropertiesIncreased,
        JsonChangeKind::MinPropertiesDecreased,
        JsonChangeKind::AdditionalPropertiesAdded,
        JsonChangeKind::AdditionalPropertiesRemoved,
        JsonChangeKind::AdditionalPropertiesExtended,
        JsonChangeKind::AdditionalPropertiesNarrowed,
        JsonChangeKind::DependencyArrayAdded,
        JsonChangeKind::DependencyArrayRemoved,
        JsonChangeKind::DependencyArrayExtended,
        JsonChangeKind::DependencyArrayNarrowed,
        JsonChangeKind::DependencyArrayChanged,
        JsonChangeKind::DependencySchemaAdded,
        JsonChangeKind::DependencySchemaRemoved,
        JsonChangeKind::PropertyAddedToOpenContentModel,
        JsonChangeKind::RequiredPropertyAddedToOpenContentModel,
        JsonChangeKind::RequiredPropertyWithDefaultAddedToOpenContentModel,
        JsonChangeKind::OptionalPropertyAddedToOpenContentModel,
        JsonChangeKind::PropertyWithEmptySchemaAddedToOpenContentModel,
        JsonChangeKind::RequiredPropertyAddedToUnopenContentModel,
        JsonChangeKind::RequiredPropertyWithDefaultAddedToUnopenContentModel,
        JsonChangeKind::OptionalPropertyAddedToUnopenContentModel,
        JsonChangeKind::PropertyRemovedFromOpenContentModel,
        JsonChangeKind::PropertyWithFalseRemovedFromClosedContentModel,
        JsonChangeKind::PropertyRemovedFromClosedContentModel,
        JsonChangeKind::PropertyRemovedIsCoveredByPartiallyOpenContentModel,
        JsonChangeKind::PropertyRemovedNotCoveredByPartiallyOpenContentModel,
        JsonChangeKind::PropertyAddedIsCoveredByPartiallyOpenContentModel,
        JsonChangeKind::PropertyAddedNotCoveredByPartiallyOpenContentModel,
        JsonChangeKind::MaxItemsAdded,
        JsonChangeKind::MaxItemsRemoved,
        JsonChangeKind::MaxItemsIncreased,
        JsonChangeKind::MaxItemsDecreased,
        JsonChangeKind::MinItemsAdded,
        JsonChangeKind::MinItemsRemoved,
        JsonChangeKind::MinItemsIncreased,
        JsonChangeKind::MinItemsDecreased,
        JsonChangeKind::MaxContainsAdded,
        JsonChangeKind::MaxContainsRemoved,
        JsonChangeKind::MaxContainsIncreased,
        JsonChangeKind::MaxContainsDecreased,
        JsonChangeKind::MinContainsAdded,
        JsonChangeKind::MinContainsRemoved,
        JsonChangeKind::MinContainsIncreased,
        JsonChangeKind::MinContainsDecreased,
        JsonChangeKind::UniqueItemsAdded,
        JsonChangeKind::UniqueItemsRemoved,
        JsonChangeKind::AdditionalItemsAdded,
        JsonChangeKind::AdditionalItemsRemoved,
        JsonChangeKind::AdditionalItemsExtended,
        JsonChangeKind::AdditionalItemsNarrowed,
        JsonChangeKind::ItemAddedToOpenContentModel,
        JsonChangeKind::ItemWithEmptySchemaAddedToOpenContentModel,
        JsonChangeKind::ItemAddedToClosedContentModel,
        JsonChangeKind::ItemRemovedFromOpenContentModel,
        JsonChangeKind::ItemWithFalseRemovedFromClosedContentModel,
        JsonChangeKind::ItemRemovedFromClosedContentModel,
        JsonChangeKind::ItemRemovedIsCoveredByPartiallyOpenContentModel,
        JsonChangeKind::ItemRemovedNotCoveredByPartiallyOpenContentModel,
        JsonChangeKind::ItemAddedIsCoveredByPartiallyOpenContentModel,
        JsonChangeKind::ItemAddedNotCoveredByPartiallyOpenContentModel,
        JsonChangeKind::EnumArrayExtended,
        JsonChangeKind::EnumArrayNarrowed,
        JsonChangeKind::EnumArrayChanged,
        JsonChangeKind::CombinedTypeExtended,
        JsonChangeKind::CombinedTypeChanged,
        JsonChangeKind::ProductTypeExtended,
        JsonChangeKind::ProductTypeNarrowed,
        JsonChangeKind::SumTypeExtended,
        JsonChangeKind::SumTypeNarrowed,
        JsonChangeKind::CombinedTypeSubschemasChanged,
        JsonChangeKind::NotTypeExtended,
        JsonChangeKind::NotTypeNarrowed,
        JsonChangeKind::ComparisonTooDeep,
        JsonChangeKind::ComparisonTooLarge,
    ];

    /// Confluent's name of the kind (`TYPE_EXTENDED`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            JsonChangeKind::IdChanged => "ID_CHANGED",
            JsonChangeKind::DescriptionChanged => "DESCRIPTION_CHANGED",
            JsonChangeKind::TitleChanged => "TITLE_CHANGED",
            JsonChangeKind::DefaultChanged => "DEFAULT_CHANGED",
            JsonChangeKind::SchemaAdded => "SCHEMA_ADDED",
            JsonChangeKind::SchemaRemoved => "SCHEMA_REMOVED",
            JsonChangeKind::TypeExtended => "TYPE_EXTENDED",
            JsonChangeKind::TypeNarrowed => "TYPE_NARROWED",
            JsonChangeKind::TypeChanged => "TYPE_CHANGED",
            JsonChangeKind::MaxLengthAdded => "MAX_LENGTH_ADDED",
            JsonChangeKind::MaxLengthRemoved => "MAX_LENGTH_REMOVED",
            JsonChangeKind::MaxLengthIncreased => "MAX_LENGTH_INCREASED",
            JsonChangeKind::MaxLengthDecreased => "MAX_LENGTH_DECREASED",
            JsonChangeKind::MinLengthAdded => "MIN_LENGTH_ADDED",
            JsonChangeKind::MinLengthRemoved => "MIN_LENGTH_REMOVED",
            JsonChangeKind::MinLengthIncreased => "MIN_LENGTH_INCREASED",
            JsonChangeKind::MinLengthDecreased => "MIN_LENGTH_DECREASED",
            JsonChangeKind::PatternAdded => "PATTERN_ADDED",
            JsonChangeKind::PatternRemoved => "PATTERN_REMOVED",
            JsonChangeKind::PatternChanged => "PATTERN_CHANGED",
            JsonChangeKind::MaximumAdded => "MAXIMUM_ADDED",
            JsonChangeKind::MaximumRemoved => "MAXIMUM_REMOVED",
            JsonChangeKind::MaximumIncreased => "MAXIMUM_INCREASED",
            JsonChangeKind::MaximumDecreased => "MAXIMUM_DECREASED",
            JsonChangeKind::MinimumAdded => "MINIMUM_ADDED",
            JsonChangeKind::MinimumRemoved => "MINIMUM_REMOVED",
            JsonChangeKind::MinimumIncreased => "MINIMUM_INCREASED",
            JsonChangeKind::MinimumDecreased => "MINIMUM_DECREASED",
            JsonChangeKind::ExclusiveMaximumAdded => "EXCLUSIVE_MAXIMUM_ADDED",
            JsonChangeKind::ExclusiveMaximumRemoved => "EXCLUSIVE_MAXIMUM_REMOVED",
            JsonChangeKind::ExclusiveMaximumIncreased => "EXCLUSIVE_MAXIMUM_INCREASED",
            JsonChangeKind::ExclusiveMaximumDecreased => "EXCLUSIVE_MAXIMUM_DECREASED",
            JsonChangeKind::ExclusiveMinimumAdded => "EXCLUSIVE_MINIMUM_ADDED",
            JsonChangeKind::ExclusiveMinimumRemoved => "EXCLUSIVE_MINIMUM_REMOVED",
            JsonChangeKind::ExclusiveMinimumIncreased => "EXCLUSIVE_MINIMUM_INCREASED",
            JsonChangeKind::ExclusiveMinimumDecreased => "EXCLUSIVE_MINIMUM_DECREASED",
            JsonChangeKind::MultipleOfAdded => "MULTIPLE_OF_ADDED",
            JsonChangeKind::MultipleOfRemoved => "MULTIPLE_OF_REMOVED",
            JsonChangeKind::MultipleOfExpanded => "MULTIPLE_OF_EXPANDED",
            JsonChangeKind::MultipleOfReduced => "MULTIPLE_OF_REDUCED",
            JsonChangeKind::MultipleOfChanged => "MULTIPLE_OF_CHANGED",
            JsonChangeKind::RequiredAttributeAdded => "REQUIRED_ATTRIBUTE_ADDED",
            JsonChangeKind::RequiredAttributeWithDefaultAdded => {
                "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED"
            }
            JsonChangeKind::RequiredAttributeRemoved => "REQUIRED_ATTRIBUTE_REMOVED",
            JsonChangeKind::MaxPropertiesAdded => "MAX_PROPERTIES_ADDED",
            JsonChangeKind::MaxPropertiesRemoved => "MAX_PROPERTIES_REMOVED",
            JsonChangeKind::MaxPropertiesIncreased => "MAX_PROPERTIES_INCREASED",
            JsonChangeKind::MaxPropertiesDecreased => "MAX_PROPERTIES_DECREASED",
            JsonChangeKind::MinPropertiesAdded => "MIN_PROPERTIES_ADDED",
            JsonChangeKind::MinPropertiesRemoved => "MIN_PROPERTIES_REMOVED",
            JsonChangeKind::MinPropertiesIncreased => "MIN_PROPERTIES_INCREASED",
            JsonChangeKind::MinPropertiesDecreased => "MIN_PROPERTIES_DECREASED",
            JsonChangeKind::AdditionalPropertiesAdded => "ADDITIONAL_PROPERTIES_ADDED",
            JsonChangeKind::AdditionalPropertiesRemoved => "ADDITIONAL_PROPERTIES_REMOVED",
            JsonChangeKind::AdditionalPropertiesExtended => "ADDITIONAL_PROPERTIES_EXTENDED",
            JsonChangeKind::AdditionalPropertiesNarrowed => "ADDITIONAL_PROPERTIES_NARROWED",
            JsonChangeKind::DependencyArrayAdded => "DEPENDENCY_ARRAY_ADDED",
            JsonChangeKind::DependencyArrayRemoved => "DEPENDENCY_ARRAY_REMOVED",
            JsonChangeKind::DependencyArrayExtended => "DEPENDENCY_ARRAY_EXTENDED",
            JsonChangeKind::DependencyArrayNarrowed => "DEPENDENCY_ARRAY_NARROWED",
            JsonChangeKind::DependencyArrayChanged => "DEPENDENCY_ARRAY_CHANGED",
            JsonChangeKind::DependencySchemaAdded => "DEPENDENCY_SCHEMA_ADDED",
            JsonChangeKind::DependencySchemaRemoved => "DEPENDENCY_SCHEMA_REMOVED",
            JsonChangeKind::PropertyAddedToOpenContentModel => {
                "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::RequiredPropertyAddedToOpenContentModel => {
                "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::RequiredPropertyWithDefaultAddedToOpenContentModel => {
                "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::OptionalPropertyAddedToOpenContentModel => {
                "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyWithEmptySchemaAddedToOpenContentModel => {
                "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::RequiredPropertyAddedToUnopenContentModel => {
                "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"
            }
            JsonChangeKind::RequiredPropertyWithDefaultAddedToUnopenContentModel => {
                "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL"
            }
            JsonChangeKind::OptionalPropertyAddedToUnopenContentModel => {
                "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyRemovedFromOpenContentModel => {
                "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyWithFalseRemovedFromClosedContentModel => {
                "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyRemovedFromClosedContentModel => {
                "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyRemovedIsCoveredByPartiallyOpenContentModel => {
                "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyRemovedNotCoveredByPartiallyOpenContentModel => {
                "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyAddedIsCoveredByPartiallyOpenContentModel => {
                "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::PropertyAddedNotCoveredByPartiallyOpenContentModel => {
                "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::MaxItemsAdded => "MAX_ITEMS_ADDED",
            JsonChangeKind::MaxItemsRemoved => "MAX_ITEMS_REMOVED",
            JsonChangeKind::MaxItemsIncreased => "MAX_ITEMS_INCREASED",
            JsonChangeKind::MaxItemsDecreased => "MAX_ITEMS_DECREASED",
            JsonChangeKind::MinItemsAdded => "MIN_ITEMS_ADDED",
            JsonChangeKind::MinItemsRemoved => "MIN_ITEMS_REMOVED",
            JsonChangeKind::MinItemsIncreased => "MIN_ITEMS_INCREASED",
            JsonChangeKind::MinItemsDecreased => "MIN_ITEMS_DECREASED",
            JsonChangeKind::MaxContainsAdded => "MAX_CONTAINS_ADDED",
            JsonChangeKind::MaxContainsRemoved => "MAX_CONTAINS_REMOVED",
            JsonChangeKind::MaxContainsIncreased => "MAX_CONTAINS_INCREASED",
            JsonChangeKind::MaxContainsDecreased => "MAX_CONTAINS_DECREASED",
            JsonChangeKind::MinContainsAdded => "MIN_CONTAINS_ADDED",
            JsonChangeKind::MinContainsRemoved => "MIN_CONTAINS_REMOVED",
            JsonChangeKind::MinContainsIncreased => "MIN_CONTAINS_INCREASED",
            JsonChangeKind::MinContainsDecreased => "MIN_CONTAINS_DECREASED",
            JsonChangeKind::UniqueItemsAdded => "UNIQUE_ITEMS_ADDED",
            JsonChangeKind::UniqueItemsRemoved => "UNIQUE_ITEMS_REMOVED",
            JsonChangeKind::AdditionalItemsAdded => "ADDITIONAL_ITEMS_ADDED",
            JsonChangeKind::AdditionalItemsRemoved => "ADDITIONAL_ITEMS_REMOVED",
            JsonChangeKind::AdditionalItemsExtended => "ADDITIONAL_ITEMS_EXTENDED",
            JsonChangeKind::AdditionalItemsNarrowed => "ADDITIONAL_ITEMS_NARROWED",
            JsonChangeKind::ItemAddedToOpenContentModel => "ITEM_ADDED_TO_OPEN_CONTENT_MODEL",
            JsonChangeKind::ItemWithEmptySchemaAddedToOpenContentModel => {
                "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::ItemAddedToClosedContentModel => "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
            JsonChangeKind::ItemRemovedFromOpenContentModel => {
                "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::ItemWithFalseRemovedFromClosedContentModel => {
                "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
            }
            JsonChangeKind::ItemRemovedFromClosedContentModel => {
                "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"
            }
            JsonChangeKind::ItemRemovedIsCoveredByPartiallyOpenContentModel => {
                "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::ItemRemovedNotCoveredByPartiallyOpenContentModel => {
                "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::ItemAddedIsCoveredByPartiallyOpenContentModel => {
                "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::ItemAddedNotCoveredByPartiallyOpenContentModel => {
                "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
            }
            JsonChangeKind::EnumArrayExtended => "ENUM_ARRAY_EXTENDED",
            JsonChangeKind::EnumArrayNarrowed => "ENUM_ARRAY_NARROWED",
            JsonChangeKind::EnumArrayChanged => "ENUM_ARRAY_CHANGED",
            JsonChangeKind::CombinedTypeExtended => "COMBINED_TYPE_EXTENDED",
            JsonChangeKind::CombinedTypeChanged => "COMBINED_TYPE_CHANGED",
            JsonChangeKind::ProductTypeExtended => "PRODUCT_TYPE_EXTENDED",
            JsonChangeKind::ProductTypeNarrowed => "PRODUCT_TYPE_NARROWED",
            JsonChangeKind::SumTypeExtended => "SUM_TYPE_EXTENDED",
            JsonChangeKind::SumTypeNarrowed => "SUM_TYPE_NARROWED",
            JsonChangeKind::CombinedTypeSubschemasChanged => "COMBINED_TYPE_SUBSCHEMAS_CHANGED",
            JsonChangeKind::NotTypeExtended => "NOT_TYPE_EXTENDED",
            JsonChangeKind::NotTypeNarrowed => "NOT_TYPE_NARROWED",
            JsonChangeKind::ComparisonTooDeep => "COMPARISON_TOO_DEEP",
            JsonChangeKind::ComparisonTooLarge => "COMPARISON_TOO_LARGE",
        }
    }

    /// Whether the kind is in Confluent's `COMPATIBLE_CHANGES_STRICT`.
    pub const fn is_backward_compatible(self) -> bool {
        matches!(
            self,
            JsonChangeKind::IdChanged
                | JsonChangeKind::DescriptionChanged
                | JsonChangeKind::TitleChanged
                | JsonChangeKind::DefaultChanged
                | JsonChangeKind::SchemaRemoved
                | JsonChangeKind::TypeExtended
                | JsonChangeKind::MaxLengthRemoved
                | JsonChangeKind::MaxLengthIncreased
                | JsonChangeKind::MinLengthRemoved
                | JsonChangeKind::MinLengthDecreased
                | JsonChangeKind::PatternRemoved
                | JsonChangeKind::MaximumRemoved
                | JsonChangeKind::MaximumIncreased
                | JsonChangeKind::MinimumRemoved
                | JsonChangeKind::MinimumDecreased
                | JsonChangeKind::ExclusiveMaximumRemoved
                | JsonChangeKind::ExclusiveMaximumIncreased
                | JsonChangeKind::ExclusiveMinimumRemoved
                | JsonChangeKind::ExclusiveMinimumDecreased
                | JsonChangeKind::MultipleOfRemoved
                | JsonChangeKind::MultipleOfReduced
                | JsonChangeKind::RequiredAttributeWithDefaultAdded
                | JsonChangeKind::RequiredAttributeRemoved
                | JsonChangeKind::MaxPropertiesRemoved
                | JsonChangeKind::MaxPropertiesIncreased
                | JsonChangeKind::MinPropertiesRemoved
                | JsonChangeKind::MinPropertiesDecreased
                | JsonChangeKind::AdditionalPropertiesAdded
                | JsonChangeKind::AdditionalPropertiesExtended
                | JsonChangeKind::DependencyArrayRemoved
                | JsonChangeKind::DependencyArrayNarrowed
                | JsonChangeKind::DependencySchemaRemoved
                | JsonChangeKind::PropertyWithEmptySchemaAddedToOpenContentModel
                | JsonChangeKind::RequiredPropertyWithDefaultAddedToUnopenContentModel
                | JsonChangeKind::OptionalPropertyAddedToUnopenContentModel
                | JsonChangeKind::PropertyRemovedFromOpenContentModel
                | JsonChangeKind::PropertyWithFalseRemovedFromClosedContentModel
                | JsonChangeKind::PropertyRemovedIsCoveredByPartiallyOpenContentModel
                | JsonChangeKind::PropertyAddedIsCoveredByPartiallyOpenContentModel
                | JsonChangeKind::MaxItemsRemoved
                | JsonChangeKind::MaxItemsIncreased
                | JsonChangeKind::MinItemsRemoved
                | JsonChangeKind::MinItemsDecreased
                | JsonChangeKind::MaxContainsRemoved
                | JsonChangeKind::MaxContainsIncreased
                | JsonChangeKind::MinContainsRemoved
                | JsonChangeKind::MinContainsDecreased
                | JsonChangeKind::UniqueItemsRemoved
                | JsonChangeKind::AdditionalItemsAdded
                | JsonChangeKind::AdditionalItemsExtended
                | JsonChangeKind::ItemWithEmptySchemaAddedToOpenContentModel
                | JsonChangeKind::ItemAddedToClosedContentModel
                | JsonChangeKind::ItemRemovedFromOpenContentModel
                | JsonChangeKind::ItemWithFalseRemovedFromClosedContentModel
                | JsonChangeKind::ItemRemovedIsCoveredByPartiallyOpenContentModel
                | JsonChangeKind::ItemAddedIsCoveredByPartiallyOpenContentModel
                | JsonChangeKind::EnumArrayExtended
                | JsonChangeKind::CombinedTypeExtended
                | JsonChangeKind::ProductTypeNarrowed
                | JsonChangeKind::SumTypeExtended
                | JsonChangeKind::NotTypeNarrowed
        )
    }
}

impl ChangeKind for JsonChangeKind {
    fn name(self) -> &'static str {
        JsonChangeKind::name(self)
    }

    fn is_backward_compatible(self) -> bool {
        JsonChangeKind::is_backward_compatible(self)
    }
}
