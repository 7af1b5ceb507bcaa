//! The fuzz target embeds the fixtures' descriptor set
//! (`fuzz/scan_descriptors.binpb`); this keeps it in step with the `.proto`
//! files. Regenerate with `DATASCHEMA_REGENERATE=1 cargo test --test validate scan_fuzz_descriptors::`.

use crate::support;

#[test]
fn fuzz_descriptor_set_matches_fixtures() {
    let fresh = protox::Compiler::new([support::fixture_dir()])
        .expect("include path")
        .open_files([
            "scalars.proto",
            "legacy.proto",
            "recursive.proto",
            "order.proto",
        ])
        .expect("fixtures compile")
        .encode_file_descriptor_set();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/scan_descriptors.binpb");
    if std::env::var_os("DATASCHEMA_REGENERATE").is_some() {
        std::fs::write(&path, &fresh).expect("write descriptor set");
    }
    let embedded = std::fs::read(&path).expect("fuzz/scan_descriptors.binpb exists");
    assert!(
        embedded == fresh,
        "fuzz/scan_descriptors.binpb is stale: rerun with DATASCHEMA_REGENERATE=1"
    );
}
