//! What a lock pins: digests and ids of URNs, checked against each answer.

use std::collections::{HashMap, HashSet};

use dataschema_core::{Schema, Urn};

/// The digests and ids a lock recorded.
#[derive(Default)]
pub(crate) struct Pins {
    /// URN -> the digest a lock recorded for it.
    digests: HashMap<Urn, String>,
    /// URN -> the id a lock recorded for it.
    ids: HashMap<Urn, u32>,
    /// Id -> a URN the lock records it for (the least, when several).
    by_id: HashMap<u32, Urn>,
}

impl Pins {
    /// The pins of `digests` and `ids`.
    pub(crate) fn new(digests: HashMap<Urn, String>, ids: HashMap<Urn, u32>) -> Pins {
        // An id pinned for several URNs (one content) is asked by the least.
        let mut by_id: HashMap<u32, Urn> = HashMap::new();
        for (urn, id) in &ids {
            match by_id.get(id) {
                Some(held) if held <= urn => {}
                _ => {
                    by_id.insert(*id, urn.clone());
                }
            }
        }
        Pins {
            digests,
            ids,
            by_id,
        }
    }

    /// The URN a lookup of `id` asks for, when the lock knows the id.
    pub(crate) fn urn_of(&self, id: u32) -> Option<&Urn> {
        self.by_id.get(&id)
    }

    /// Every URN pinned (by digest or id).
    pub(crate) fn urns(&self) -> HashSet<Urn> {
        self.digests
            .keys()
            .chain(self.ids.keys())
            .cloned()
            .collect()
    }

    /// Refuses an answer of `schema` with `id` that contradicts a pin.
    pub(crate) fn check(&self, schema: &Schema, id: Option<u32>) -> Result<(), String> {
        if let Some(pinned) = self.ids.get(schema.urn()) {
            if id != Some(*pinned) {
                return Err(format!(
                    "the registry answered {} with id {}, the lock pins id {pinned}",
                    schema.urn(),
                    id.map_or_else(|| "none".to_owned(), |id| id.to_string()),
                ));
            }
        }
        if let Some(pinned) = self.digests.get(schema.urn()) {
            if pinned != schema.digest() {
                return Err(format!(
                    "the registry answered {} with digest {}, the lock pins {pinned}",
                    schema.urn(),
                    schema.digest()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urn(name: &str) -> Urn {
        format!("urn:acme:schema:{name}:1").parse().unwrap()
    }

    #[test]
    fn answers_are_checked_against_the_pins() {
        let good = Schema::json(urn("a"), r#"{"type": "string"}"#);
        let other = Schema::json(urn("a"), r#"{"type": "integer"}"#);
        let pins = Pins::new(
            [(urn("a"), good.digest().to_owned())].into_iter().collect(),
            [(urn("a"), 7)].into_iter().collect(),
        );
        assert_eq!(pins.check(&good, Some(7)), Ok(()));
        let err = pins.check(&good, Some(8)).unwrap_err();
        assert!(err.contains("the lock pins id 7"), "{err}");
        let err = pins.check(&good, None).unwrap_err();
        assert!(err.contains("with id none"), "{err}");
        let err = pins.check(&other, Some(7)).unwrap_err();
        assert!(err.contains("the lock pins sha256:"), "{err}");
        // A URN the lock does not know passes.
        assert_eq!(pins.check(&Schema::json(urn("b"), "{}"), None), Ok(()));
    }

    #[test]
    fn an_id_pinned_for_several_urns_is_asked_by_the_least() {
        let pins = Pins::new(
            HashMap::new(),
            [(urn("c"), 3), (urn("b"), 3), (urn("d"), 3)]
                .into_iter()
                .collect(),
        );
        assert_eq!(pins.urn_of(3), Some(&urn("b")));
        assert_eq!(pins.urn_of(4), None);
        assert_eq!(pins.urns().len(), 3);
    }
}
