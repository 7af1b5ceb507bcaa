//! Differential property test: the scanner's verdict equals the reference
//! (`DynamicMessage::decode` plus the required-field check, plus the
//! unknown-field check when refused) on random valid messages of several
//! descriptors, then on mutations of them.
//!
//! Cases: 100,000 by default; set `DATASCHEMA_SCAN_CASES` for more.

use crate::support;

use std::sync::OnceLock;

use dataschema::validate::protobuf_scan::{reference_is_valid, Plan, ScanOptions};
use proptest::prelude::*;
use prost::Message as _;
use prost_reflect::MessageDescriptor;

use support::{deep_node, field_numbers, message, mutate, pool, random_message, Rng};

const TARGETS: &[&str] = &[
    "scan.scalars.Scalars",
    "scan.scalars.Inner",
    "scan.legacy.Holder",
    "scan.legacy.Part",
    "scan.recursive.Node",
    "shop.orders.Order",
];

struct Target {
    desc: MessageDescriptor,
    numbers: Vec<u32>,
    accept: Plan,
    reject: Plan,
}

fn targets() -> &'static [Target] {
    static TARGETS_CELL: OnceLock<Vec<Target>> = OnceLock::new();
    TARGETS_CELL.get_or_init(|| {
        let pool = pool();
        TARGETS
            .iter()
            .map(|name| {
                let desc = message(&pool, name);
                Target {
                    numbers: field_numbers(&desc),
                    accept: Plan::compile(&desc, ScanOptions::default())
                        .expect("a usable descriptor"),
                    reject: Plan::compile(
                        &desc,
                        ScanOptions::default().with_reject_unknown_fields(true),
                    )
                    .expect("a usable descriptor"),
                    desc,
                }
            })
            .collect()
    })
}

fn cases() -> u32 {
    std::env::var("DATASCHEMA_SCAN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// Builds the payload for one case from its seed.
fn payload_for(seed: u64, target: usize) -> (usize, Vec<u8>) {
    let all = targets();
    let mut rng = Rng::new(seed);
    let generated = &all[target];
    let mut payload = if generated.desc.full_name() == "scan.recursive.Node" && rng.chance(30) {
        deep_node(
            &generated.desc.parent_pool().clone(),
            50 + rng.below(55) as u32,
            &mut rng,
        )
    } else {
        random_message(&generated.desc, &mut rng, 0).encode_to_vec()
    };
    // One case in ten validates against another type: wire type mismatches galore.
    let checked = if rng.chance(10) {
        rng.below(all.len())
    } else {
        target
    };
    let mutations = match rng.below(10) {
        0 | 1 => 0,
        2..=6 => 1,
        7 | 8 => 2,
        _ => 1 + rng.below(5),
    };
    for _ in 0..mutations {
        mutate(&mut payload, &all[checked].numbers, &mut rng);
    }
    (checked, payload)
}

fn check(checked: usize, payload: &[u8]) -> Result<(), TestCaseError> {
    let target = &targets()[checked];
    for (plan, options) in [
        (&target.accept, ScanOptions::default()),
        (
            &target.reject,
            ScanOptions::default().with_reject_unknown_fields(true),
        ),
    ] {
        let expected = reference_is_valid(&target.desc, payload, options);
        let actual = plan.is_valid(payload);
        prop_assert_eq!(
            actual,
            expected,
            "verdict differs for {} (reject unknown: {}) on {:02x?}",
            target.desc.full_name(),
            options.reject_unknown_fields,
            payload
        );
        let violations = plan.violations(payload);
        prop_assert_eq!(
            violations.is_empty(),
            actual,
            "violations {:?} disagree with verdict {} for {} on {:02x?}",
            violations,
            actual,
            target.desc.full_name(),
            payload
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn scanner_agrees_with_decode(seed in any::<u64>(), target in 0..TARGETS.len()) {
        let (checked, payload) = payload_for(seed, target);
        check(checked, &payload)?;
    }
}

/// Arbitrary short byte strings, not derived from a valid message.
#[test]
fn scanner_agrees_on_random_bytes() {
    let mut rng = Rng::new(0x5eed);
    for _ in 0..20_000 {
        let len = rng.below(24);
        let payload: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        for checked in 0..targets().len() {
            check(checked, &payload).unwrap();
        }
    }
}
