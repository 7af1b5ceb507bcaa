//! Bundling at `cargo build` (feature `build`).
//!
//! A crate keeps its schemas in one folder:
//!
//! ```text
//! schemas/
//!   dataschema.toml             namespace = "acme", and the root of each protobuf schema
//!                               (or `rootless = ["<name>.v<version>"]`: frames name the message)
//!   dataschema.lock             each published URN's sha256 (written by `dataschema lock`),
//!                               and its registry id (written by `dataschema publish`)
//!   orders.created.v1.json      JSON Schema: urn:acme:schema:orders.created:1
//!   orders.shipped.v1.proto     protobuf:    urn:acme:schema:orders.shipped:1
//!   payments.made.v1.avsc       Avro:        urn:acme:schema:payments.made:1
//!   acme/common.proto           (sub-folders: files a .proto imports)
//! ```
//!
//! Its `build.rs` calls [`bundle`]; the code then loads the schemas with
//! `Registry::from_bundle(dataschema::include_bundle!())`. At build time
//! every schema is compiled (`.proto` in pure Rust, with `protox`), and
//! when a lock exists, a URN whose bytes no longer match its recorded digest
//! fails the build: a mis-published schema is caught by `cargo build`.
//! The build never writes into the source tree; [`lock()`] (and the
//! `dataschema lock` command) does.

#![warn(missing_docs)]

#[cfg(feature = "avro")]
mod avro;
mod check;
#[cfg(feature = "json")]
mod codegen;
mod diagnostic;
mod discover;
mod generate;
mod lock;
mod manifest;
#[cfg(feature = "protox")]
mod proto;
mod rules;
mod source;

use std::fs;
use std::path::{Path, PathBuf};

use dataschema_core::{Schema, Urn};

pub use self::check::{check, read, Checked, GeneratedCode};
#[cfg(feature = "json")]
pub use self::codegen::generate_json;
pub use self::diagnostic::{BundleError, Diagnostic, DiagnosticKind};
use self::lock::Lock;
pub use self::lock::LOCK_FILE;
pub use self::manifest::MANIFEST_FILE;
#[cfg(feature = "protox")]
pub use self::proto::{compile_proto, proto_imports, ProtoImport, ProtoImports};
pub use self::source::Source;
/// The `serde_json` [`generate_json`] takes values of, for a build script
/// that builds them (this repository's, which generates the JSON Schema
/// Test Suite's schemas for its differential test).
#[cfg(feature = "json")]
#[doc(hidden)]
pub use serde_json;

/// The schemas of `dir`, checked as [`check()`] checks them: what the
/// command-line tool validates against.
pub fn load(dir: impl AsRef<Path>) -> Result<Vec<Schema>, BundleError> {
    check(dir).map(|checked| checked.schemas())
}

/// Writes `dir/dataschema.lock`, recording the digest of every schema in
/// the folder. Refuses (and writes nothing) when the folder does not pass
/// [`check()`], in particular when a URN already locked changed: a published
/// URN never changes. Returns the URNs newly recorded.
pub fn lock(dir: impl AsRef<Path>) -> Result<Vec<Urn>, BundleError> {
    let dir = dir.as_ref();
    let checked = check(dir)?;
    let mut lock = Lock::read(dir)?.unwrap_or_default();
    let added = lock.record(&checked.sources);
    lock.write(dir)?;
    Ok(added)
}

/// Records in `dir/dataschema.lock` that each `(urn, id)` of `published`
/// is published under the registry id `id`: its digest (as in [`lock()`])
/// and its id, in the `[ids]` table. `checked` is what [`check()`] answered
/// for `dir`; every URN must be one of its sources.
///
/// Refuses, writing nothing, when the lock already records another id (or
/// another digest) for one of them, or when the ids would contradict each
/// other (one content under two ids, one id for two contents): the lock's
/// ids then come from two registries. Writes nothing either when nothing
/// is new, so a second run leaves the file's bytes as they were. Returns
/// the URNs whose id was newly recorded.
pub fn record_published(
    dir: impl AsRef<Path>,
    checked: &Checked,
    published: &[(Urn, u32)],
) -> Result<Vec<Urn>, BundleError> {
    let dir = dir.as_ref();
    let lock_path = dir.join(LOCK_FILE);
    let mut lock = Lock::read(dir)?.unwrap_or_default();
    let mut added = Vec::new();
    let mut diagnostics = Vec::new();
    for (urn, id) in published {
        let Some(source) = checked.sources.iter().find(|s| s.schema.urn() == urn) else {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Lock,
                &lock_path,
                format!("{urn} is not a schema of {}", dir.display()),
            ));
            continue;
        };
        match lock.record_published(source, *id) {
            Ok(true) => added.push(urn.clone()),
            Ok(false) => {}
            Err((kind, message)) => diagnostics.push(Diagnostic::new(kind, &source.path, message)),
        }
    }
    for conflict in lock::id_conflicts(&checked.sources, |urn| lock.id(urn)) {
        diagnostics.push(conflict.diagnostic(&lock_path));
    }
    if !diagnostics.is_empty() {
        return Err(BundleError { diagnostics });
    }
    if !added.is_empty() {
        lock.write(dir)?;
    }
    Ok(added)
}

/// Checks `dir` and bundles it into the crate being built: call it from
/// `build.rs`, then load the result with
/// `Registry::from_bundle(dataschema::include_bundle!())`.
///
/// ```no_run
/// // in build.rs, fn main(), with dataschema's `build` feature:
/// // dataschema::build::bundle("schemas").unwrap();
/// // which is this function:
/// dataschema_build::bundle("schemas").unwrap();
/// ```
///
/// A relative `dir` is taken from the crate's root (`CARGO_MANIFEST_DIR`).
/// Cargo re-runs the build script when anything in `dir` changes. Any
/// problem fails the build, naming the file.
pub fn bundle(dir: impl AsRef<Path>) -> Result<(), BundleError> {
    let mut dir = dir.as_ref().to_path_buf();
    if dir.is_relative() {
        if let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR") {
            dir = PathBuf::from(root).join(dir);
        }
    }
    println!("cargo:rerun-if-changed={}", dir.display());
    let out_dir = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| {
            BundleError::one(
                DiagnosticKind::NotInBuildScript,
                &dir,
                "OUT_DIR is not set: call bundle() from a build script",
            )
        })?;
    let checked = check(&dir)?;
    if !checked.has_lock {
        println!(
            "cargo:warning=dataschema: {} has no {LOCK_FILE}: run `dataschema lock {}` and commit it, \
             so a published schema cannot change unnoticed",
            dir.display(),
            dir.display()
        );
    } else if !checked.unlocked.is_empty() {
        let urns: Vec<String> = checked.unlocked.iter().map(Urn::to_string).collect();
        println!(
            "cargo:warning=dataschema: not in {LOCK_FILE} yet: {}: run `dataschema lock {}` when you publish them",
            urns.join(", "),
            dir.display()
        );
    }
    let code = generate::generate(&checked, &out_dir)?;
    let target = out_dir.join(BUNDLE_FILE);
    fs::write(&target, code).map_err(|err| {
        BundleError::one(
            DiagnosticKind::Io,
            &target,
            format!("cannot write the bundle: {err}"),
        )
    })
}

/// The file name [`bundle`] writes into `OUT_DIR`, which
/// `dataschema::include_bundle!` includes.
pub const BUNDLE_FILE: &str = "dataschema_bundle.rs";
