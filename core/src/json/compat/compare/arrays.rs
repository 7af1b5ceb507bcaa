//! Array schemas: items, tuples, additional items, item counts,
//! uniqueness, `contains`.

use super::*;

impl<'m, 'a> Comparer<'m, 'a> {
    pub(super) fn arrays(&mut self, side: Side, out: &mut Vec<Rel>, o: &ArrayNode, u: &ArrayNode) {
        let (om, _) = self.pair(side);
        let sub = self.compare(side, o.all_items, u.all_items);
        extend_under(out, "items", &sub);

        let common = o.item_schemas.len().min(u.item_schemas.len());
        for i in 0..common {
            let sub = self.compare(side, Some(o.item_schemas[i]), Some(u.item_schemas[i]));
            extend_under(out, &format!("items/{i}"), &sub);
        }
        for (i, &oi) in o.item_schemas.iter().enumerate().skip(common) {
            let path = format!("items/{i}");
            if array_is_open(u) {
                out.push(rel(K::ItemRemovedFromOpenContentModel, &path));
            } else if let Some(partial) = u.additional {
                let sub = self.compare(side, Some(oi), Some(partial));
                extend_under(out, &path, &sub);
                out.push(rel(
                    if compatible(&sub) {
                        K::ItemRemovedIsCoveredByPartiallyOpenContentModel
                    } else {
                        K::ItemRemovedNotCoveredByPartiallyOpenContentModel
                    },
                    &path,
                ));
            } else if matches!(om.schema(oi).node, Node::False) {
                out.push(rel(K::ItemWithFalseRemovedFromClosedContentModel, &path));
            } else {
                out.push(rel(K::ItemRemovedFromClosedContentModel, &path));
            }
        }
        for (i, &ui) in u.item_schemas.iter().enumerate().skip(common) {
            let path = format!("items/{i}");
            let (_, um) = self.pair(side);
            if array_is_open(o) {
                out.push(rel(
                    if matches!(um.schema(ui).node, Node::Empty) {
                        K::ItemWithEmptySchemaAddedToOpenContentModel
                    } else {
                        K::ItemAddedToOpenContentModel
                    },
                    &path,
                ));
            } else if let Some(partial) = o.additional {
                let sub = self.compare(side, Some(partial), Some(ui));
                extend_under(out, &path, &sub);
                out.push(rel(
                    if compatible(&sub) {
                        K::ItemAddedIsCoveredByPartiallyOpenContentModel
                    } else {
                        K::ItemAddedNotCoveredByPartiallyOpenContentModel
                    },
                    &path,
                ));
            } else {
                out.push(rel(K::ItemAddedToClosedContentModel, &path));
            }
        }

        let path = "additionalItems";
        if o.permits_additional != u.permits_additional {
            out.push(rel(
                if o.permits_additional {
                    K::AdditionalItemsRemoved
                } else {
                    K::AdditionalItemsAdded
                },
                path,
            ));
        } else if o.additional.is_none() && u.additional.is_some() {
            out.push(rel(K::AdditionalItemsNarrowed, path));
        } else if u.additional.is_none() && o.additional.is_some() {
            out.push(rel(K::AdditionalItemsExtended, path));
        } else {
            let sub = self.compare(side, o.additional, u.additional);
            extend_under(out, path, &sub);
        }

        bound(
            out,
            "maxItems",
            o.max_items,
            u.max_items,
            [
                K::MaxItemsAdded,
                K::MaxItemsRemoved,
                K::MaxItemsIncreased,
                K::MaxItemsDecreased,
            ],
        );
        bound(
            out,
            "minItems",
            o.min_items,
            u.min_items,
            [
                K::MinItemsAdded,
                K::MinItemsRemoved,
                K::MinItemsIncreased,
                K::MinItemsDecreased,
            ],
        );
        if o.unique_items != u.unique_items {
            out.push(rel(
                if o.unique_items {
                    K::UniqueItemsRemoved
                } else {
                    K::UniqueItemsAdded
                },
                "uniqueItems",
            ));
        }
        bound(
            out,
            "maxContains",
            o.max_contains,
            u.max_contains,
            [
                K::MaxContainsAdded,
                K::MaxContainsRemoved,
                K::MaxContainsIncreased,
                K::MaxContainsDecreased,
            ],
        );
        bound(
            out,
            "minContains",
            o.min_contains,
            u.min_contains,
            [
                K::MinContainsAdded,
                K::MinContainsRemoved,
                K::MinContainsIncreased,
                K::MinContainsDecreased,
            ],
        );
    }
}

fn array_is_open(a: &ArrayNode) -> bool {
    a.permits_additional && a.additional.is_none()
}
