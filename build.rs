//! Bundles this crate's sample `schemas/` with the function users call.

fn main() {
    dataschema::build::bundle("schemas").unwrap();
}
