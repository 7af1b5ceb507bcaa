//! Arbitrary descriptor sets (schema bytes) through every protobuf entry
//! point: compiling a validator (`Registry::embed`), validating payload
//! bytes and a JSON value through a `Guard`, the scan plan against the
//! reference decode, and the compatibility engine against another version.
//! Checks: no panic, anywhere; on a set the descriptor check accepts, the
//! scanner's verdict equals the reference's and `violations()` is empty
//! exactly when `is_valid()`.
//!
//! Input: two bytes of length `n`, `n` bytes of descriptor set, then the
//! payload. The prior version for the compatibility check is the same set
//! with its last message's last field removed. Seed it with
//! `fuzz/scan_descriptors.binpb` and the sets `tests/validate/hostile_protobuf.rs`
//! builds (see the seeds in `fuzz/seeds/descriptors/`).
//!
//! `cargo +nightly fuzz run descriptors seeds/descriptors` (from `fuzz/`)

use dataschema::compat::protobuf as compat;
use dataschema::validate::protobuf_scan::{
    check_descriptor_set, check_descriptors, reference_is_valid, Plan, ScanOptions,
};
use dataschema::{Compatibility, Guard, Registry, Schema, Urn};
use prost::Message as _;
use prost_reflect::prost_types::FileDescriptorSet;
use prost_reflect::DescriptorPool;

/// At most this many messages of one set are driven (a set can hold many).
const MAX_MESSAGES: usize = 8;

/// The same set with one field fewer: a second version to compare with.
fn previous_version(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut set = FileDescriptorSet::decode(bytes).ok()?;
    let message = set.file.last_mut()?.message_type.last_mut()?;
    message.field.pop();
    Some(set.encode_to_vec())
}

/// The target.
pub fn run(data: &[u8]) {
    let Some((head, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let split = usize::from(u16::from_le_bytes(*head)).min(rest.len());
    let (descriptors, payload) = rest.split_at(split);
    let urn: Urn = "urn:fuzz:schema:descriptors:1".parse().unwrap();
    if check_descriptor_set(descriptors).is_err() {
        // Not to be linked at all (prost-reflect's linker would panic):
        // every entry point refuses it.
        let schema = Schema::protobuf(urn, descriptors.to_vec(), "a.B");
        assert!(Registry::embed([schema]).is_err());
        assert!(compat::check(Compatibility::Full, descriptors, &[(1, descriptors)]).is_err());
        return;
    }
    let Ok(pool) = DescriptorPool::decode(descriptors) else {
        return;
    };
    let usable = check_descriptors(&pool).is_ok();
    for message in pool.all_messages().take(MAX_MESSAGES) {
        let schema = Schema::protobuf(urn.clone(), descriptors.to_vec(), message.full_name());
        let embedded = Registry::embed([schema]);
        assert_eq!(embedded.is_ok(), usable, "embed and the check disagree");
        if let Ok(registry) = embedded {
            let guard = Guard::new(registry);
            let _ = guard.validate(urn.as_str(), payload);
            if let Ok(value) = serde_json::from_slice::<serde_json::Value>(payload) {
                let _ = guard.validate_json(urn.as_str(), &value);
            }
        }
        for options in [
            ScanOptions::default(),
            ScanOptions::default().with_reject_unknown_fields(true),
        ] {
            match Plan::compile(&message, options) {
                Ok(plan) => {
                    let valid = plan.is_valid(payload);
                    assert_eq!(valid, plan.violations(payload).is_empty());
                    assert_eq!(
                        valid,
                        reference_is_valid(&message, payload, options),
                        "verdict differs from the reference for {}",
                        message.full_name()
                    );
                }
                Err(_) => assert!(!usable),
            }
        }
    }
    if let Some(previous) = previous_version(descriptors) {
        let _ = compat::check(
            Compatibility::FullTransitive,
            descriptors,
            &[(1, &previous)],
        );
        let _ = compat::check(Compatibility::Full, &previous, &[(1, descriptors)]);
        let linkable = check_descriptor_set(&previous).is_ok();
        if let Some(old) = linkable
            .then(|| DescriptorPool::decode(previous.as_slice()).ok())
            .flatten()
        {
            // `diff` on pools nobody checked.
            let _ = compat::diff(&old, &pool);
            let _ = compat::diff(&pool, &old);
        }
    }
}
