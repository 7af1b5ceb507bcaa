//! Running the `dataschema` binary from a test, and showing what it
//! printed in an assertion's message.

use std::path::Path;
use std::process::{Command, Output};

/// The binary run with `args`, its output captured.
pub fn dataschema(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// What a run printed: its exit code, then standard output and error.
pub fn text(output: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A path as an argument.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}
