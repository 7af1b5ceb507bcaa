//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use dataschema::{Registry, Schema, Urn};

pub mod example;
pub mod lines;
pub mod rng;
pub mod stream;

/// A file under tests/data.
pub fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// The bytes of a file under tests/data.
pub fn read(path: &str) -> Vec<u8> {
    std::fs::read(data(path)).unwrap_or_else(|err| panic!("tests/data/{path}: {err}"))
}
pub fn urn(text: &str) -> Urn {
    text.parse().unwrap_or_else(|err| panic!("{text}: {err}"))
}

/// The registry of the crate's sample schemas, bundled at build.
pub fn samples() -> Registry {
    Registry::from_bundle(dataschema::include_bundle!()).expect("the bundle loads")
}

/// A JSON Schema from tests/data/schemas under the given URN.
pub fn json_schema(urn_text: &str, file: &str) -> Schema {
    Schema::json(urn(urn_text), read(&format!("schemas/{file}")))
}

/// A folder of test input kept outside the repository (the shared
/// conformance corpus, the JSON Schema Test Suite): `$var`, or else
/// `fallback` relative to the crate's root. Under `CI` its absence fails
/// the test with a message; elsewhere the test says it skips.
pub fn external_dir(var: &str, fallback: &str, what: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os(var) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(fallback),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    let message = format!(
        "{what} not found at {} (set {var}, or place it at {fallback} beside the repository)",
        dir.display()
    );
    if std::env::var_os("CI").is_some() {
        panic!("{message}: under CI every test input must be present");
    }
    eprintln!("SKIPPED: {message}");
    None
}

/// A PostgreSQL database of its own for one test, dropped when the value
/// is: created from env `DATASCHEMA_POSTGRES_URL` (else
/// `postgres://postgres@127.0.0.1:5432/test`) as
/// `dataschema_test_<pid>_<n>`. When the server cannot be reached: under
/// `CI` the test fails with a message; elsewhere it says it skips (`None`).
#[cfg(feature = "postgres")]
pub struct TestDatabase {
    admin: String,
    /// The database's name.
    pub name: String,
    /// A URL of the database.
    pub url: String,
}

#[cfg(feature = "postgres")]
impl TestDatabase {
    pub fn create() -> Option<TestDatabase> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let admin = std::env::var("DATASCHEMA_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
        let mut client = match postgres::Client::connect(&admin, postgres::NoTls) {
            Ok(client) => client,
            Err(err) => {
                let message = format!(
                    "PostgreSQL not reachable at {admin} (set DATASCHEMA_POSTGRES_URL): {err}"
                );
                if std::env::var_os("CI").is_some() {
                    panic!("{message}: under CI the PostgreSQL tests must run");
                }
                eprintln!("SKIPPED: {message}");
                return None;
            }
        };
        let name = format!(
            "dataschema_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        // CREATE DATABASE copies a template and fails while anyone is
        // connected to it ("being accessed by other users"): template0
        // takes no connections; one at a time here, and tries for a
        // while against other processes (a loaded machine runs many).
        static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one_at_a_time = CREATING.lock().unwrap_or_else(|poison| poison.into_inner());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        // (Two statements: together they would be one transaction, which
        // CREATE DATABASE refuses.)
        while let Err(err) = client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .and_then(|()| {
                client.batch_execute(&format!("CREATE DATABASE {name} TEMPLATE template0"))
            })
        {
            if std::time::Instant::now() >= deadline {
                panic!("creating database {name}: {err:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let url = with_database(&admin, &name);
        Some(TestDatabase { admin, name, url })
    }

    /// Drops the database now, closing its connections.
    pub fn drop_now(&self) {
        if let Ok(mut client) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

#[cfg(feature = "postgres")]
impl Drop for TestDatabase {
    fn drop(&mut self) {
        self.drop_now();
    }
}

/// `url` (a `postgres://` URL) naming database `name` instead.
#[cfg(feature = "postgres")]
pub fn with_database(url: &str, name: &str) -> String {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    let path = url[after_scheme..]
        .find(['/', '?'])
        .map_or(url.len(), |at| after_scheme + at);
    let query = url[path..].find('?').map_or("", |at| &url[path + at..]);
    format!("{}/{name}{query}", &url[..path])
}

/// The Python interpreter `DATASCHEMA_PYTHON` names (`.ci/setup` makes a
/// virtualenv with `tests/python/requirements.txt`), if it imports
/// `module`. Under `CI` a missing one fails the test; elsewhere the test
/// is skipped, saying so.
pub fn python_importing(module: &str) -> Option<String> {
    let missing = |why: String| {
        if std::env::var_os("CI").is_some() {
            panic!(
                "{why}: set DATASCHEMA_PYTHON to a Python with \
                 tests/python/requirements.txt installed (source .ci/setup)"
            );
        }
        eprintln!("SKIPPED: {why} (set DATASCHEMA_PYTHON: source .ci/setup)");
        None
    };
    let Some(python) = std::env::var("DATASCHEMA_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
    else {
        return missing("DATASCHEMA_PYTHON is not set".to_owned());
    };
    let probe = std::process::Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .output();
    match probe {
        Ok(out) if out.status.success() => Some(python),
        Ok(out) => missing(format!(
            "{python} cannot import {module}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(err) => missing(format!("{python} does not run: {err}")),
    }
}

/// A resolver that answers one schema for its URN and nothing else: a
/// fallback registry serving what a test (or an attacker) chose.
pub struct Answers(pub Schema);

impl dataschema::Resolver for Answers {
    fn resolve(&self, urn: &Urn) -> Result<Schema, dataschema::Error> {
        if urn == self.0.urn() {
            Ok(self.0.clone())
        } else {
            Err(dataschema::Error::NotFound { urn: urn.clone() })
        }
    }
}
