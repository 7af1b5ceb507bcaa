//! A child process whose standard output is read line by line while it
//! runs (the streaming examples print one line a message), its standard
//! error kept for the failure messages.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running child: its stdout lines arrive on a channel; killed when
/// dropped.
pub struct Lines {
    child: Child,
    lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    seen: Vec<String>,
    stderr: Arc<Mutex<String>>,
}

impl Lines {
    /// Spawns `command` with its stdout and stderr piped (stdin: none).
    pub fn spawn(command: &mut Command) -> Lines {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("{command:?} starts: {err}"));
        let (tx, lines) = tokio::sync::mpsc::unbounded_channel();
        let stdout = child.stdout.take().expect("stdout is piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let pipe = child.stderr.take().expect("stderr is piped");
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                let mut sink = sink.lock().unwrap_or_else(|p| p.into_inner());
                sink.push_str(&line);
                sink.push('\n');
            }
        });
        Lines {
            child,
            lines,
            seen: Vec::new(),
            stderr,
        }
    }

    /// What the child wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The process id (to signal it).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The next stdout line, within `timeout`.
    pub async fn line(&mut self, timeout: Duration) -> String {
        match tokio::time::timeout(timeout, self.lines.recv()).await {
            Ok(Some(line)) => {
                self.seen.push(line.clone());
                line
            }
            Ok(None) => panic!(
                "the child closed its stdout; it printed {:?}; stderr:\n{}",
                self.seen,
                self.stderr()
            ),
            Err(_) => panic!(
                "no line from the child within {timeout:?}; it printed {:?}; stderr:\n{}",
                self.seen,
                self.stderr()
            ),
        }
    }

    /// The next stdout line if one comes within `timeout`.
    pub async fn maybe_line(&mut self, timeout: Duration) -> Option<String> {
        match tokio::time::timeout(timeout, self.lines.recv()).await {
            Ok(Some(line)) => {
                self.seen.push(line.clone());
                Some(line)
            }
            Ok(None) | Err(_) => None,
        }
    }

    /// Waits for the process to exit, within `timeout`.
    pub async fn exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the child did not exit within {timeout:?}; stderr:\n{}",
                self.stderr()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The rest of stdout after exit.
    pub async fn rest(&mut self) -> Vec<String> {
        let mut rest = Vec::new();
        while let Ok(Some(line)) =
            tokio::time::timeout(Duration::from_secs(5), self.lines.recv()).await
        {
            rest.push(line);
        }
        rest
    }

    /// Kills the child at once (SIGKILL: no clean shutdown) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.kill();
    }
}
