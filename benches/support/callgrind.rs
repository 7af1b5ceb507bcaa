//! Instructions counted by `valgrind --tool=callgrind`: a bench binary
//! runs itself as the child, told by environment variables which row to
//! run how many times.

use std::process::Command;

/// Whether valgrind runs on this machine.
pub fn available() -> bool {
    Command::new("valgrind").arg("--version").output().is_ok()
}

/// The instructions callgrind counted for this executable run under it
/// with `row_var = row` and `count_var = n` set, inside the functions
/// `toggle` names only (callgrind's `--toggle-collect` pattern) or in the
/// whole run; `None` (the child's standard error printed) when the child
/// failed or callgrind gave no count.
pub fn instructions(
    row_var: &str,
    row: &str,
    count_var: &str,
    n: usize,
    toggle: Option<&str>,
) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let mut valgrind = Command::new("valgrind");
    valgrind.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]);
    if let Some(toggle) = toggle {
        valgrind.args([
            "--collect-atstart=no",
            &format!("--toggle-collect={toggle}"),
        ]);
    }
    let out = valgrind
        .arg(exe)
        .env(row_var, row)
        .env(count_var, n.to_string())
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        eprintln!("{row}: the child failed:\n{stderr}");
        return None;
    }
    stderr
        .lines()
        .find_map(|line| line.split("Collected : ").nth(1))
        .and_then(|count| count.trim().parse().ok())
}
