//! Object schemas: properties, pattern and additional properties,
//! dependencies, property counts.

use super::*;

impl<'m, 'a> Comparer<'m, 'a> {
    pub(super) fn objects(
        &mut self,
        side: Side,
        out: &mut Vec<Rel>,
        o: &ObjectNode<'a>,
        u: &ObjectNode<'a>,
    ) {
        let (om, um) = self.pair(side);
        let okeys: Vec<&str> = o.properties.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.properties.iter().map(|(k, _)| *k).collect();
        let oprops: HashMap<&str, Id> = o.properties.iter().copied().collect();
        let uprops: HashMap<&str, Id> = u.properties.iter().copied().collect();
        let oprop = |k: &str| oprops.get(k).copied();
        let uprop = |k: &str| uprops.get(k).copied();
        let okeys_ordered = map_order(&okeys);
        let ukeys_ordered = map_order(&ukeys);
        let orequired: HashSet<&str> = o.required.iter().copied().collect();
        let urequired: HashSet<&str> = u.required.iter().copied().collect();
        let names = okeys.len() + ukeys.len() + o.required.len() + u.required.len();
        if !self.charge(names) {
            return;
        }

        // required
        for &key in &okeys_ordered {
            let Some(up) = uprop(key) else { continue };
            let was = orequired.contains(key);
            let is = urequired.contains(key);
            let path = format!("required/{key}");
            if was && !is {
                out.push(rel(K::RequiredAttributeRemoved, &path));
            } else if !was && is {
                out.push(rel(
                    if um.has_default(up) {
                        K::RequiredAttributeWithDefaultAdded
                    } else {
                        K::RequiredAttributeAdded
                    },
                    &path,
                ));
            }
        }

        // properties
        for key in union_order(&okeys_ordered, &ukeys_ordered) {
            let path = format!("properties/{key}");
            match (oprop(key), uprop(key)) {
                (Some(op), None) => {
                    if object_is_open(u) {
                        out.push(rel(K::PropertyRemovedFromOpenContentModel, &path));
                    } else if let Some(partial) = self.partial_schema(u, key) {
                        let sub = self.compare(side, Some(op), Some(partial));
                        extend_under(out, &path, &sub);
                        out.push(rel(
                            if compatible(&sub) {
                                K::PropertyRemovedIsCoveredByPartiallyOpenContentModel
                            } else {
                                K::PropertyRemovedNotCoveredByPartiallyOpenContentModel
                            },
                            &path,
                        ));
                    } else if matches!(om.schema(op).node, Node::False) {
                        out.push(rel(
                            K::PropertyWithFalseRemovedFromClosedContentModel,
                            &path,
                        ));
                    } else {
                        out.push(rel(K::PropertyRemovedFromClosedContentModel, &path));
                    }
                }
                (None, Some(up)) => {
                    let required = urequired.contains(key);
                    let with_default = um.has_default(up);
                    if object_is_open(o) {
                        let kind = if matches!(um.schema(up).node, Node::Empty) {
                            K::PropertyWithEmptySchemaAddedToOpenContentModel
                        } else if required && with_default {
                            K::RequiredPropertyWithDefaultAddedToOpenContentModel
                        } else if required {
                            K::RequiredPropertyAddedToOpenContentModel
                        } else {
                            K::OptionalPropertyAddedToOpenContentModel
                        };
                        out.push(rel(kind, &path));
                    } else {
                        if let Some(partial) = self.partial_schema(o, key) {
                            let sub = self.compare(side, Some(partial), Some(up));
                            extend_under(out, &path, &sub);
                            out.push(rel(
                                if compatible(&sub) {
                                    K::PropertyAddedIsCoveredByPartiallyOpenContentModel
                                } else {
                                    K::PropertyAddedNotCoveredByPartiallyOpenContentModel
                                },
                                &path,
                            ));
                        }
                        let kind = if required && with_default {
                            K::RequiredPropertyWithDefaultAddedToUnopenContentModel
                        } else if required {
                            K::RequiredPropertyAddedToUnopenContentModel
                        } else {
                            K::OptionalPropertyAddedToUnopenContentModel
                        };
                        out.push(rel(kind, &path));
                    }
                }
                (Some(op), Some(up)) => {
                    let sub = self.compare(side, Some(op), Some(up));
                    extend_under(out, &path, &sub);
                }
                (None, None) => {}
            }
        }

        // dependencies
        let okeys: Vec<&str> = o.property_dependencies.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.property_dependencies.iter().map(|(k, _)| *k).collect();
        let odeps = first_by_key(&o.property_dependencies);
        let udeps = first_by_key(&u.property_dependencies);
        let names = o
            .property_dependencies
            .iter()
            .chain(&u.property_dependencies);
        if !self.charge(names.map(|(_, n)| n.len() + 1).sum()) {
            return;
        }
        for key in union_order(&map_order(&okeys), &map_order(&ukeys)) {
            let path = format!("dependencies/{key}");
            match (odeps.get(key), udeps.get(key)) {
                (_, None) => out.push(rel(K::DependencyArrayRemoved, &path)),
                (None, Some(_)) => out.push(rel(K::DependencyArrayAdded, &path)),
                (Some(a), Some(b)) => {
                    if let Some(kind) = set_change(
                        a,
                        b,
                        K::DependencyArrayExtended,
                        K::DependencyArrayNarrowed,
                        K::DependencyArrayChanged,
                    ) {
                        out.push(rel(kind, &path));
                    }
                }
            }
        }
        let okeys: Vec<&str> = o.schema_dependencies.iter().map(|(k, _)| *k).collect();
        let ukeys: Vec<&str> = u.schema_dependencies.iter().map(|(k, _)| *k).collect();
        let odeps = first_by_key(&o.schema_dependencies);
        let udeps = first_by_key(&u.schema_dependencies);
        if !self.charge(okeys.len() + ukeys.len()) {
            return;
        }
        for key in union_order(&map_order(&okeys), &map_order(&ukeys)) {
            let path = format!("dependencies/{key}");
            match (odeps.get(key).map(|id| **id), udeps.get(key).map(|id| **id)) {
                (_, None) => out.push(rel(K::DependencySchemaRemoved, &path)),
                (None, Some(_)) => out.push(rel(K::DependencySchemaAdded, &path)),
                (Some(a), Some(b)) => {
                    let sub = self.compare(side, Some(a), Some(b));
                    extend_under(out, &path, &sub);
                }
            }
        }

        // additionalProperties
        let path = "additionalProperties";
        if o.permits_additional != u.permits_additional {
            out.push(rel(
                if u.permits_additional {
                    K::AdditionalPropertiesAdded
                } else {
                    K::AdditionalPropertiesRemoved
                },
                path,
            ));
        } else if o.additional.is_none() && u.additional.is_some() {
            out.push(rel(K::AdditionalPropertiesNarrowed, path));
        } else if u.additional.is_none() && o.additional.is_some() {
            out.push(rel(K::AdditionalPropertiesExtended, path));
        } else {
            let sub = self.compare(side, o.additional, u.additional);
            extend_under(out, path, &sub);
        }

        bound(
            out,
            "maxProperties",
            o.max_properties,
            u.max_properties,
            [
                K::MaxPropertiesAdded,
                K::MaxPropertiesRemoved,
                K::MaxPropertiesIncreased,
                K::MaxPropertiesDecreased,
            ],
        );
        bound(
            out,
            "minProperties",
            o.min_properties,
            u.min_properties,
            [
                K::MinPropertiesAdded,
                K::MinPropertiesRemoved,
                K::MinPropertiesIncreased,
                K::MinPropertiesDecreased,
            ],
        );
    }

    /// The schema a partially open object gives an undeclared property:
    /// the first matching `patternProperties` entry, else `additionalProperties`.
    pub(super) fn partial_schema(&mut self, o: &ObjectNode<'a>, key: &str) -> Option<Id> {
        for &(pattern, id) in &o.pattern_properties {
            if !self.charge(1) {
                return None;
            }
            let regex = self
                .regexes
                .entry(pattern)
                .or_insert_with(|| Regex::new(pattern).ok());
            if regex.as_ref().is_some_and(|r| r.is_match(key)) {
                return Some(id);
            }
        }
        o.additional
    }
}

fn object_is_open(o: &ObjectNode<'_>) -> bool {
    o.pattern_properties.is_empty() && o.additional.is_none() && o.permits_additional
}
