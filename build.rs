//! Bundles this repository's sample `schemas/` with the function users
//! call, for its tests, examples and benches (the internal `samples`
//! feature, which the self dev-dependency turns on). A dependent never
//! runs this: the feature is off there, and `schemas/` is not packaged.
//!
//! It also bundles `tests/data/bundle_ids/` (a folder whose lock records
//! registry ids) into `OUT_DIR/bundle_ids/`, which `tests/cli/bundle.rs`
//! includes: the build of a published folder, end to end; and
//! `tests/data/bundle_references/` (a version with references, given by
//! its manifest) into `OUT_DIR/bundle_references/`; and
//! `tests/data/bundle_avro/` (`.avsc` files using each other's named
//! types) into `OUT_DIR/bundle_avro/`; and `tests/data/bundle_aliases/`
//! (a manifest giving a version aliases by path) into
//! `OUT_DIR/bundle_aliases/`.

fn main() {
    #[cfg(feature = "samples")]
    if std::path::Path::new("schemas").is_dir() {
        dataschema_build::bundle("schemas").unwrap();
        for name in [
            "bundle_ids",
            "bundle_references",
            "bundle_avro",
            "bundle_aliases",
        ] {
            let fixture = std::path::Path::new("tests/data").join(name);
            if !fixture.is_dir() {
                continue;
            }
            // Two versions of an Avro schema are checked for compatibility:
            // with the `avro` feature only (its tests need it too).
            if name == "bundle_avro" && std::env::var_os("CARGO_FEATURE_AVRO").is_none() {
                continue;
            }
            // Resolution of JSON Schema versions: with the `json` feature.
            if name == "bundle_aliases" && std::env::var_os("CARGO_FEATURE_JSON").is_none() {
                continue;
            }
            // `bundle` writes into OUT_DIR: point it at a folder of its own
            // for each further bundle (a build script runs on one thread).
            let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
            let target = std::path::Path::new(&out_dir).join(name);
            std::fs::create_dir_all(&target).unwrap();
            std::env::set_var("OUT_DIR", &target);
            dataschema_build::bundle(&fixture).unwrap();
            std::env::set_var("OUT_DIR", &out_dir);
        }
    }
}
