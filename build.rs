//! Bundles this repository's sample `schemas/` with the function users
//! call, for its tests, examples and benches (the internal `samples`
//! feature, which the self dev-dependency turns on). A dependent never
//! runs this: the feature is off there, and `schemas/` is not packaged.

fn main() {
    #[cfg(feature = "samples")]
    if std::path::Path::new("schemas").is_dir() {
        dataschema_build::bundle("schemas").unwrap();
    }
}
