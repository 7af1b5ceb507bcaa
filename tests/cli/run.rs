//! Running the `dataschema` binary from a test, and showing what it
//! printed in an assertion's message.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The binary run with `args`, its output captured.
pub fn dataschema(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The binary run with `args`, `input` on its standard input.
pub fn dataschema_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dataschema"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
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
