//! A `dataschema serve` process (the binary itself) for the tests of the
//! command line.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use super::TOKEN;

/// A `dataschema serve` process and what it wrote to standard error.
pub struct Serve {
    pub child: Child,
    pub addr: SocketAddr,
    pub stderr: Arc<Mutex<String>>,
    /// Standard output after its first line.
    pub stdout: Arc<Mutex<String>>,
    /// The working directory, where the default store (`sqlite:dataschema.db`) lands.
    pub cwd: Arc<tempfile::TempDir>,
    /// The thread copying standard error into `stderr`, which ends when
    /// the process has exited (the pipe's end of file).
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Serve {
    pub fn start(args: &[&str]) -> Serve {
        Serve::start_in(Arc::new(tempfile::tempdir().unwrap()), args)
    }

    /// Started in `cwd` (a restart over the default store reuses it).
    pub fn start_in(cwd: Arc<tempfile::TempDir>, args: &[&str]) -> Serve {
        Serve::start_at(cwd, "127.0.0.1:0", args)
    }

    /// Started in `cwd`, listening on `listen` (a restart on the same
    /// address, for clients that keep it).
    pub fn start_at(cwd: Arc<tempfile::TempDir>, listen: &str, args: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dataschema"))
            .current_dir(cwd.path())
            .arg("serve")
            .args(["--listen", listen, "--namespace", "acme"])
            .args(args)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = stderr.clone();
        let stderr_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => sink
                        .lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n])),
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut line).unwrap();
        // The rest of standard output (the metrics line), kept.
        let rest = Arc::new(Mutex::new(String::new()));
        let sink = rest.clone();
        std::thread::spawn(move || {
            let mut next = String::new();
            while stdout.read_line(&mut next).is_ok_and(|n| n > 0) {
                sink.lock().unwrap().push_str(&next);
                next.clear();
            }
        });
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!(
                    "no address on stdout: {line:?}; stderr: {}",
                    stderr.lock().unwrap()
                )
            })
            .parse()
            .unwrap();
        Serve {
            child,
            addr,
            stderr,
            stdout: rest,
            cwd,
            stderr_reader: Some(stderr_reader),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The metrics URL its second line names (`--metrics`), waited for.
    pub fn metrics_url(&self) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let out = self.stdout.lock().unwrap().clone();
            if let Some(line) = out.lines().find(|l| l.starts_with("metrics on ")) {
                return line["metrics on ".len()..].trim().to_owned();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no metrics line on stdout: {out:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// A line of `/proc/PID/status` (`VmRSS`, `VmHWM`), in KiB.
    pub fn memory_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|value| value.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc status"))
    }

    /// SIGTERM, then the exit status and the log.
    pub fn terminate(mut self) -> (std::process::ExitStatus, String) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = self.child.wait().unwrap();
        // Everything the process wrote, read to the pipe's end (a fixed
        // pause here lost the last lines on a loaded machine).
        if let Some(reader) = self.stderr_reader.take() {
            reader.join().unwrap();
        }
        let log = self.stderr.lock().unwrap().clone();
        (exit, log)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn token_file(dir: &Path) -> String {
    let path = dir.join("token");
    std::fs::write(&path, format!("{TOKEN}\n")).unwrap();
    path.to_str().unwrap().to_owned()
}
