//! The examples' own binaries, for the tests that run them.
//!
//! `cargo test` builds examples (without a `--test` filter), but `cargo
//! test --test cli nats_consumer::` does not, and an old binary would be
//! tested silently: so a test runs `cargo build --example NAME` itself
//! (cargo's `CARGO`), with this test's features (`--all-features` when it
//! has them all, as `.ci/test` runs), into this test's target directory.
//! When the binary is up to date that is a no-op of a second; otherwise
//! only the example compiles (the library is shared with this test's
//! build; a run with another package selection, such as `-p dataschema`,
//! unifies features differently and may rebuild a few dependencies once).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The binary of example `name`, built once per test process with this
/// test's features.
pub fn example_binary(name: &'static str) -> PathBuf {
    static BUILT: Mutex<BTreeMap<&'static str, Result<PathBuf, String>>> =
        Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(|poison| poison.into_inner());
    built
        .entry(name)
        .or_insert_with(|| {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            // target/<profile>/deps/nats_consumer-<hash>
            let profile_dir = exe
                .parent()
                .and_then(Path::parent)
                .ok_or("no target directory above the test binary")?;
            let target_dir = profile_dir
                .parent()
                .ok_or("no target directory above the profile directory")?;
            let features: Vec<(&str, bool)> = [
                ("json", cfg!(feature = "json")),
                ("protobuf", cfg!(feature = "protobuf")),
                ("build", cfg!(feature = "build")),
                ("cli", cfg!(feature = "cli")),
                ("server", cfg!(feature = "server")),
                ("http", cfg!(feature = "http")),
                ("cloudevents", cfg!(feature = "cloudevents")),
                ("sqlite", cfg!(feature = "sqlite")),
                ("postgres", cfg!(feature = "postgres")),
                ("samples", cfg!(feature = "samples")),
                ("kafka-example", cfg!(feature = "kafka-example")),
            ]
            .into();
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
            let mut build = Command::new(cargo);
            build.args(["build", "--example", name]);
            // Cargo sets these for a running test; a build script watching
            // one (ring's watches CARGO_MANIFEST_DIR and OUT_DIR) would rerun, and
            // everything above it rebuild, on each flip between the two.
            for (name, _) in std::env::vars_os() {
                let name = name.to_string_lossy();
                if name.starts_with("CARGO_PKG_")
                    || name.starts_with("CARGO_BIN_EXE_")
                    || [
                        "CARGO_MANIFEST_DIR",
                        "CARGO_MANIFEST_PATH",
                        "CARGO_CRATE_NAME",
                        "CARGO_PRIMARY_PACKAGE",
                        "CARGO_TARGET_TMPDIR",
                        "CARGO_RUSTC_CURRENT_DIR",
                        "OUT_DIR",
                    ]
                    .contains(&name.as_ref())
                {
                    build.env_remove(name.as_ref());
                }
            }
            if features.iter().all(|(_, on)| *on) {
                // As `cargo test --all-features` (.ci/test) selected the
                // workspace's default members: the same feature
                // unification, so the dependencies are not rebuilt.
                build.arg("--all-features");
            } else {
                let on: Vec<&str> = features
                    .iter()
                    .filter_map(|(name, on)| on.then_some(*name))
                    .collect();
                build
                    .arg("--no-default-features")
                    .arg("--features")
                    .arg(on.join(","));
            }
            build
                .arg("--manifest-path")
                .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
                .arg("--target-dir")
                .arg(target_dir);
            if profile_dir
                .file_name()
                .is_some_and(|name| name == "release")
            {
                build.arg("--release");
            }
            let out = build.output().map_err(|e| format!("running cargo: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "cargo build --example {name} failed:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            let binary = profile_dir
                .join("examples")
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
            if !binary.is_file() {
                return Err(format!("{} is missing after the build", binary.display()));
            }
            Ok(binary)
        })
        .clone()
        .unwrap_or_else(|why| panic!("{why}"))
}
