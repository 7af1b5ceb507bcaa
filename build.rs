//! Bundles this repository's sample `schemas/` with the function users
//! call, for its tests, examples and benches (the internal `samples`
//! feature, which the self dev-dependency turns on). A dependent never
//! runs this: the feature is off there, and `schemas/` is not packaged.
//!
//! It also bundles `tests/data/bundle_ids/` (a folder whose lock records
//! registry ids) into `OUT_DIR/bundle_ids/`, which `tests/cli/bundle.rs`
//! includes: the build of a published folder, end to end.

fn main() {
    #[cfg(feature = "samples")]
    if std::path::Path::new("schemas").is_dir() {
        dataschema_build::bundle("schemas").unwrap();
        let fixture = std::path::Path::new("tests/data/bundle_ids");
        if fixture.is_dir() {
            // `bundle` writes into OUT_DIR: point it at a folder of its own
            // for this second bundle (a build script runs on one thread).
            let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
            let target = std::path::Path::new(&out_dir).join("bundle_ids");
            std::fs::create_dir_all(&target).unwrap();
            std::env::set_var("OUT_DIR", &target);
            dataschema_build::bundle(fixture).unwrap();
            std::env::set_var("OUT_DIR", &out_dir);
        }
    }
}
