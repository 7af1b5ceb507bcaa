//! The URN grammar, equivalence, ordering and display.

use dataschema::{Error, Urn, UrnError};
use proptest::prelude::*;

fn reason(input: &str) -> UrnError {
    match input.parse::<Urn>() {
        Err(Error::InvalidUrn {
            reason,
            input: echoed,
        }) => {
            assert!(echoed.chars().count() <= 101, "the echoed input is clipped");
            reason
        }
        other => panic!("{input:?} should be refused, got {other:?}"),
    }
}

#[test]
fn parses_the_parts() {
    let urn: Urn = "urn:acme:schema:orders.created:3".parse().unwrap();
    assert_eq!(urn.namespace(), "acme");
    assert_eq!(urn.name(), "orders.created");
    assert_eq!(urn.version(), 3);
    assert_eq!(urn.to_string(), "urn:acme:schema:orders.created:3");
    assert_eq!(Urn::new("acme", "orders.created", 3).unwrap(), urn);
}

#[test]
fn names_may_use_digits_dots_underscores_and_dashes() {
    for name in ["a", "0", "9lives", "a.b_c-d", "x-", "a..b"] {
        let urn = Urn::new("acme", name, 1).unwrap();
        assert_eq!(urn.name(), name);
    }
    let longest = "a".repeat(200);
    assert_eq!(Urn::new("acme", &longest, 1).unwrap().name(), longest);
}

#[test]
fn version_bounds() {
    assert_eq!(Urn::new("acme", "a", 1).unwrap().version(), 1);
    assert_eq!(
        "urn:acme:schema:a:4294967295"
            .parse::<Urn>()
            .unwrap()
            .version(),
        u32::MAX
    );
    assert_eq!(reason("urn:acme:schema:a:4294967296"), UrnError::Version);
    assert_eq!(reason("urn:acme:schema:a:0"), UrnError::Version);
    assert_eq!(reason("urn:acme:schema:a:01"), UrnError::Version);
    assert_eq!(reason("urn:acme:schema:a:+1"), UrnError::Version);
    assert_eq!(reason("urn:acme:schema:a:-1"), UrnError::Version);
    assert_eq!(reason("urn:acme:schema:a:1.0"), UrnError::Version);
    assert!(
        matches!(reason("urn:acme:schema:a: 1"), UrnError::Syntax(_)),
        "a space is not URN syntax"
    );
    assert_eq!(reason("urn:acme:schema:a:"), UrnError::MissingVersion);
    assert_eq!(reason("urn:acme:schema:a"), UrnError::MissingVersion);
}

#[test]
fn every_rejection_names_the_part() {
    assert!(matches!(reason(""), UrnError::Syntax(_)));
    assert!(matches!(reason("orders.created:3"), UrnError::Syntax(_)));
    assert!(matches!(
        reason("http://acme/schema/a/1"),
        UrnError::Syntax(_)
    ));
    assert!(
        matches!(reason("urn:a:schema:x:1"), UrnError::Syntax(_)),
        "NID too short"
    );
    assert!(matches!(
        reason("urn:-acme:schema:x:1"),
        UrnError::Syntax(_)
    ));
    assert!(matches!(
        reason(&format!("urn:{}:schema:x:1", "a".repeat(33))),
        UrnError::Syntax(_)
    ));
    assert_eq!(reason("urn:acme:schemas:a:1"), UrnError::NotSchema);
    assert_eq!(
        reason("urn:acme:SCHEMA:a:1"),
        UrnError::NotSchema,
        "after the NID, case matters"
    );
    assert_eq!(reason("urn:acme:schema::1"), UrnError::EmptyName);
    assert_eq!(reason("urn:acme:schema:Orders:1"), UrnError::NameStart);
    assert_eq!(reason("urn:acme:schema:.a:1"), UrnError::NameStart);
    assert_eq!(reason("urn:acme:schema:_a:1"), UrnError::NameStart);
    assert_eq!(reason("urn:acme:schema:a/b:1"), UrnError::NameCharacter);
    assert_eq!(reason("urn:acme:schema:a:b:1"), UrnError::NameCharacter);
    assert_eq!(reason("urn:acme:schema:aB:1"), UrnError::NameCharacter);
    assert_eq!(reason("urn:acme:schema:a%20b:1"), UrnError::NameCharacter);
    assert_eq!(
        reason(&format!("urn:acme:schema:{}:1", "a".repeat(201))),
        UrnError::NameTooLong
    );
    assert_eq!(reason("urn:acme:schema:a:1#frag"), UrnError::Components);
    assert_eq!(reason("urn:acme:schema:a:1?=q"), UrnError::Components);
    assert_eq!(reason("urn:acme:schema:a:1?+r"), UrnError::Components);
    let err = "urn:acme:schema:Orders:1".parse::<Urn>().unwrap_err();
    let message = err.chain().to_string();
    assert!(
        message.contains("urn:acme:schema:Orders:1") && message.contains("start"),
        "{message}"
    );
    // Each cause once: Display leaves the reason to the source chain.
    assert!(!err.to_string().contains("start"), "{err}");
    assert_eq!(message.matches("start").count(), 1, "{message}");
}

#[test]
fn prefix_and_nid_compare_case_insensitively_the_rest_exactly() {
    let canonical: Urn = "urn:acme:schema:orders.created:3".parse().unwrap();
    for variant in [
        "URN:acme:schema:orders.created:3",
        "urn:ACME:schema:orders.created:3",
        "Urn:AcMe:schema:orders.created:3",
    ] {
        let urn: Urn = variant.parse().unwrap();
        assert_eq!(urn, canonical);
        assert_eq!(
            urn.to_string(),
            canonical.to_string(),
            "Display is canonical"
        );
        let mut hasher_a = std::collections::hash_map::DefaultHasher::new();
        let mut hasher_b = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&urn, &mut hasher_a);
        std::hash::Hash::hash(&canonical, &mut hasher_b);
        assert_eq!(
            std::hash::Hasher::finish(&hasher_a),
            std::hash::Hasher::finish(&hasher_b)
        );
    }
    assert_ne!(
        "urn:acme:schema:a:1".parse::<Urn>().unwrap(),
        "urn:acme:schema:a:2".parse::<Urn>().unwrap()
    );
}

#[test]
fn orders_by_namespace_name_then_version_numerically() {
    let mut urns: Vec<Urn> = [
        "urn:zeta:schema:a:1",
        "urn:acme:schema:b:1",
        "urn:acme:schema:a:10",
        "urn:acme:schema:a:9",
        "urn:acme:schema:a:2",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    urns.sort();
    let texts: Vec<String> = urns.iter().map(Urn::to_string).collect();
    assert_eq!(
        texts,
        [
            "urn:acme:schema:a:2",
            "urn:acme:schema:a:9",
            "urn:acme:schema:a:10",
            "urn:acme:schema:b:1",
            "urn:zeta:schema:a:1"
        ]
    );
}

fn nid() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9][a-zA-Z0-9-]{0,30}[a-zA-Z0-9]"
}

fn name() -> impl Strategy<Value = String> {
    "[a-z0-9][a-z0-9._-]{0,40}"
}

proptest! {
    #[test]
    fn display_parse_round_trip(nid in nid(), name in name(), version in 1u32..) {
        let urn = Urn::new(&nid, &name, version).unwrap();
        let again: Urn = urn.to_string().parse().unwrap();
        prop_assert_eq!(&again, &urn);
        prop_assert_eq!(again.to_string(), urn.to_string());
        prop_assert_eq!(urn.namespace(), nid.to_ascii_lowercase());
        prop_assert_eq!(urn.name(), name);
        prop_assert_eq!(urn.version(), version);
    }

    #[test]
    fn parsing_never_panics(input in any::<String>()) {
        let _ = input.parse::<Urn>();
    }

    #[test]
    fn parsing_near_misses_never_panics(input in "(?i)urn:[a-z0-9-]{0,34}:schema:[a-z0-9._:#?=+%-]{0,20}:[0-9+-]{0,12}") {
        if let Ok(urn) = input.parse::<Urn>() {
            prop_assert_eq!(urn.to_string().parse::<Urn>().unwrap(), urn);
        }
    }
}
