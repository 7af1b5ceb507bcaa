//! A PostgreSQL primary of the tests' own and hot standbys of it: for
//! `--read-only` on a standby.
//!
//! The machine's shared PostgreSQL (`DATASCHEMA_POSTGRES_URL`) takes no
//! replication connection (its `pg_hba.conf` has no `replication` line:
//! `pg_basebackup` against it is refused with "no pg_hba.conf entry for
//! replication connection"), so the primary is a cluster of its own:
//! `initdb` into a temporary folder, started with `pg_ctl` on a free
//! loopback port, and a standby made of it with `pg_basebackup -R` (a
//! streaming replica), started on another port. As root, every
//! PostgreSQL program runs as the `postgres` user (`runuser`), as the
//! server refuses to run as root. The PostgreSQL programs are found in
//! `DATASCHEMA_PG_BINDIR`, or `pg_config --bindir`, or the newest
//! `/usr/lib/postgresql/*/bin`; when they are missing the test says it
//! skips, and fails under `CI`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A running cluster (the primary, or a standby of it), stopped and
/// removed when dropped.
pub struct Cluster {
    bin: PathBuf,
    as_postgres: bool,
    /// Holds the clusters' folders; a standby shares its primary's.
    dir: std::sync::Arc<tempfile::TempDir>,
    data: PathBuf,
    /// The loopback port it listens on.
    pub port: u16,
}

/// The database the primary creates for the tests.
pub const DATABASE: &str = "registry";

impl Cluster {
    /// A new primary with the database [`DATABASE`], or `None` (said) when
    /// the PostgreSQL programs are not here (outside `CI`).
    pub fn primary() -> Option<Cluster> {
        let Some(bin) = bindir() else {
            let message = "the PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) are \
                           not installed (set DATASCHEMA_PG_BINDIR)";
            if std::env::var_os("CI").is_some() {
                panic!("{message}: under CI the standby tests must run");
            }
            eprintln!("SKIPPED: {message}");
            return None;
        };
        let as_postgres = is_root();
        let dir = tempfile::tempdir().expect("a temporary folder");
        if as_postgres {
            run(Command::new("chown")
                .args(["postgres:postgres"])
                .arg(dir.path()));
        }
        let data = dir.path().join("primary");
        let cluster = Cluster {
            bin,
            as_postgres,
            dir: std::sync::Arc::new(dir),
            data,
            port: free_port(),
        };
        cluster.program(
            "initdb",
            &[
                "-D",
                path(&cluster.data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        cluster.start();
        let mut client = cluster.client("postgres");
        client
            .batch_execute(&format!("CREATE DATABASE {DATABASE}"))
            .expect("the test database is created");
        Some(cluster)
    }

    /// A hot standby of this primary (`pg_basebackup -R`, streaming), on a
    /// port of its own, once it answers queries in recovery.
    pub fn standby(&self) -> Cluster {
        let data = self.dir.path().join(format!("standby-{}", free_port()));
        let port = self.port.to_string();
        self.program(
            "pg_basebackup",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-D",
                path(&data),
                "-R",
                "-X",
                "stream",
                // (The default, a spread checkpoint, waits minutes.)
                "--checkpoint=fast",
                "--no-sync",
            ],
        );
        let standby = Cluster {
            bin: self.bin.clone(),
            as_postgres: self.as_postgres,
            dir: self.dir.clone(),
            data,
            port: free_port(),
        };
        standby.start();
        let in_recovery: bool = standby
            .client("postgres")
            .query_one("SELECT pg_is_in_recovery()", &[])
            .expect("the standby answers")
            .get(0);
        assert!(in_recovery, "the standby is in recovery");
        standby
    }

    /// The URL of `database` on this cluster.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// A client of `database`.
    pub fn client(&self, database: &str) -> postgres::Client {
        postgres::Client::connect(&self.url(database), postgres::NoTls)
            .unwrap_or_else(|err| panic!("connecting to {}: {err}", self.url(database)))
    }

    /// Waits (up to 30 s) until `check` holds, polling every 100 ms: what a
    /// standby replays arrives a moment after the primary commits it.
    pub fn eventually(what: &str, mut check: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !check() {
            assert!(Instant::now() < deadline, "never: {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn start(&self) {
        let log = self.data.with_extension("log");
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off \
             -c wal_level=replica -c max_wal_senders=4 -c hot_standby=on -c shared_buffers=16MB \
             -c max_connections=40",
            self.port,
            path(self.dir.path())
        );
        self.program(
            "pg_ctl",
            &[
                "-D",
                path(&self.data),
                "-l",
                path(&log),
                "-w",
                "-t",
                "60",
                "-o",
                &options,
                "start",
            ],
        );
    }

    /// Runs the PostgreSQL program `name` with `args` (as `postgres` when
    /// root); panics with its output when it fails.
    fn program(&self, name: &str, args: &[&str]) {
        let program = self.bin.join(name);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        };
        command.args(args);
        run(&mut command);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Stopped at once: nothing here needs a clean shutdown.
        let program = self.bin.join("pg_ctl");
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        };
        let _ = command
            .args(["-D", path(&self.data), "-m", "immediate", "-w", "stop"])
            .output();
    }
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

fn run(command: &mut Command) {
    let out = command
        .output()
        .unwrap_or_else(|err| panic!("{command:?}: {err}"));
    assert!(
        out.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0\n"))
}

/// A loopback port free a moment ago.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Where `initdb`, `pg_ctl` and `pg_basebackup` are.
fn bindir() -> Option<PathBuf> {
    let has = |dir: &Path| {
        ["initdb", "pg_ctl", "pg_basebackup"]
            .iter()
            .all(|name| dir.join(name).is_file())
    };
    if let Some(dir) = std::env::var_os("DATASCHEMA_PG_BINDIR") {
        return Some(PathBuf::from(dir)).filter(|dir| has(dir));
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has(&dir) {
            return Some(dir);
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, dir)| has(dir))
        .collect();
    versions.sort();
    versions.pop().map(|(_, dir)| dir)
}
