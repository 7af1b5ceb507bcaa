//! `deploy/`: the systemd unit passes `systemd-analyze verify`, and the
//! container file's steps (its `RUN` scripts, then its `ENTRYPOINT` and
//! `CMD`) run here, outside a container, on the binary the tests built.
#![cfg(feature = "cli")]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_dataschema");

fn deploy(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join("deploy").join(path)).unwrap()
}

/// The unit, its binary the one built here, checked by
/// `systemd-analyze verify`: exit 0 and not one warning (an unknown key
/// or a bad value is only a warning to systemd).
#[test]
fn the_systemd_unit_verifies() {
    let unit = deploy("systemd/dataschema.service");
    assert!(unit.contains("ExecStart=/usr/local/bin/dataschema serve"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dataschema.service");
    std::fs::write(&file, unit.replace("/usr/local/bin/dataschema", BIN)).unwrap();
    let verified = match Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&file)
        .output()
    {
        Ok(out) => out,
        Err(err) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: systemd-analyze cannot run ({err}); .ci/setup installs it");
            return;
        }
        Err(err) => panic!("systemd-analyze is needed under CI (.ci/setup installs it): {err}"),
    };
    let stderr = String::from_utf8_lossy(&verified.stderr);
    assert!(
        verified.status.success() && stderr.trim().is_empty(),
        "systemd-analyze verify: {:?}\n{stderr}",
        verified.status
    );
    // Every flag the unit passes is one `serve` takes.
    let help = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--namespace",
        "--listen",
        "--metrics",
        "--store",
        "--token-file",
    ] {
        assert!(unit.contains(flag) && help.contains(flag), "{flag}");
    }
}

/// A JSON array instruction of the container file (`ENTRYPOINT [...]`).
fn instruction(file: &str, name: &str) -> Vec<String> {
    let line = file
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} in the container file"));
    serde_json::from_str(line).unwrap()
}

/// The build stage's script lays the image out (binary, man pages,
/// completions, install.sh), the final stage's script installs it under
/// a root of the test's, and the image's ENTRYPOINT and CMD (paths moved
/// under that root, ports to free ones) serve `/healthz`.
#[test]
fn the_container_files_steps_run() {
    let file = deploy("container/Containerfile");
    let runs: Vec<&str> = file
        .lines()
        .filter_map(|line| line.strip_prefix("RUN "))
        .collect();
    assert_eq!(
        runs,
        [
            "deploy/container/build.sh /out",
            "/usr/local/lib/dataschema/install.sh /"
        ],
        "the steps this test runs"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let built = Command::new(Path::new(ROOT).join("deploy/container/build.sh"))
        .arg(&out)
        .env("DATASCHEMA_BIN", BIN)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    for laid in [
        "usr/local/bin/dataschema",
        "usr/local/share/man/man1/dataschema.1",
        "usr/local/share/man/man1/dataschema-serve.1",
        "usr/share/bash-completion/completions/dataschema",
        "usr/share/zsh/vendor-completions/_dataschema",
        "usr/share/fish/vendor_completions.d/dataschema.fish",
        "usr/local/lib/dataschema/install.sh",
    ] {
        assert!(out.join(laid).is_file(), "{laid} missing");
    }
    // `COPY --from=build /out/ /`: the root is the build's output.
    let installed = Command::new(out.join("usr/local/lib/dataschema/install.sh"))
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        installed.status.success(),
        "{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    assert!(String::from_utf8_lossy(&installed.stdout).contains("dataschema"));
    let state = out.join("var/lib/dataschema");
    assert!(state.is_dir());
    std::fs::write(out.join("run/secrets/publish.token"), "s3cret\n").unwrap();

    let entrypoint = instruction(&file, "ENTRYPOINT");
    let cmd = instruction(&file, "CMD");
    let root = out.to_str().unwrap();
    let args: Vec<String> = entrypoint
        .iter()
        .chain(&cmd)
        .map(|arg| match arg.as_str() {
            "0.0.0.0:8081" | "0.0.0.0:9464" => "127.0.0.1:0".to_owned(),
            arg if arg.starts_with('/') => format!("{root}{arg}"),
            arg if arg.starts_with("sqlite:/") => format!("sqlite:{root}{}", &arg[7..]),
            arg => arg.to_owned(),
        })
        .collect();
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .current_dir(&state)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut line).unwrap();
    // The rest (the metrics line) read too: a closed pipe would fail the
    // server's next print.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let url = line.trim().strip_prefix("listening on ").map(str::to_owned);
    let health = url.as_ref().map(|url| {
        ureq::get(&format!("{url}/healthz"))
            .call()
            .map(|r| r.status().as_u16())
    });
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        url.is_some(),
        "the server did not start: {line:?} ({args:?})"
    );
    assert_eq!(health.unwrap().unwrap(), 200);
    assert!(
        state.join("dataschema.db").is_file(),
        "the store in the volume"
    );
}
