//! A bundle holds only regular files from inside the schemas folder, and
//! anything there that looks like a schema but cannot be read as one is a
//! diagnostic, never skipped in silence.
#![cfg(all(feature = "build", unix))]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use dataschema::build::{self, DiagnosticKind as Kind};

const MANIFEST: &str = "namespace = \"acme\"\n";
const SCHEMA: &str = r#"{"type": "object"}"#;

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("dataschema.toml"), MANIFEST).unwrap();
    dir
}

/// Every diagnostic: its file, kind and message.
fn problems(dir: &Path) -> Vec<(String, Kind, String)> {
    match build::check(dir) {
        Ok(checked) => panic!("expected problems, got {} schema(s)", checked.sources.len()),
        Err(err) => err
            .diagnostics()
            .iter()
            .map(|d| {
                let file = d.path().file_name().unwrap().to_string_lossy().into_owned();
                (file, d.kind(), d.message().to_owned())
            })
            .collect(),
    }
}

fn one_problem(dir: &Path, file: &str, kind: Kind, says: &str) {
    let found = problems(dir);
    assert!(
        found
            .iter()
            .any(|(f, k, m)| f == file && *k == kind && m.contains(says)),
        "expected {kind:?} in {file}: ...{says}..., got {found:#?}"
    );
}

#[test]
fn a_symlink_to_a_file_outside_the_folder_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("credentials.json");
    fs::write(&secret, r#"{"password": "hunter2"}"#).unwrap();
    let dir = folder();
    symlink(&secret, dir.path().join("x.v1.json")).unwrap();
    one_problem(
        dir.path(),
        "x.v1.json",
        Kind::NotAFile,
        "outside the schemas folder",
    );
}

#[test]
fn a_symlink_inside_the_folder_is_followed() {
    let dir = folder();
    fs::create_dir(dir.path().join("shared")).unwrap();
    fs::write(dir.path().join("shared/base.json"), SCHEMA).unwrap();
    symlink("shared/base.json", dir.path().join("x.v1.json")).unwrap();
    let checked = build::check(dir.path()).unwrap();
    assert_eq!(checked.sources.len(), 1);
    assert_eq!(checked.sources[0].schema.bytes(), SCHEMA.as_bytes());
}

#[test]
fn a_proto_import_that_is_a_symlink_outside_the_folder_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    // Not even protobuf: were it read, the parser would quote it.
    fs::write(
        outside.path().join("secret.proto"),
        "aws_secret_access_key = hunter2\n",
    )
    .unwrap();
    let dir = folder();
    fs::write(
        dir.path().join("dataschema.toml"),
        format!("{MANIFEST}[roots]\n\"ping.v1\" = \"acme.Ping\"\n"),
    )
    .unwrap();
    fs::create_dir(dir.path().join("lib")).unwrap();
    symlink(
        outside.path().join("secret.proto"),
        dir.path().join("lib/secret.proto"),
    )
    .unwrap();
    fs::write(
        dir.path().join("ping.v1.proto"),
        "syntax = \"proto3\";\npackage acme;\nimport \"lib/secret.proto\";\n\
         message Ping { x.Secret s = 1; }\n",
    )
    .unwrap();
    one_problem(
        dir.path(),
        "ping.v1.proto",
        Kind::ProtoDoesNotCompile,
        "outside",
    );
}

#[test]
fn a_proto_import_with_dot_dot_names_the_import_and_no_spurious_roots_note() {
    let dir = folder();
    fs::write(
        dir.path().join("dataschema.toml"),
        format!("{MANIFEST}[roots]\n\"ping.v1\" = \"acme.Ping\"\n"),
    )
    .unwrap();
    fs::write(
        dir.path().join("ping.v1.proto"),
        "syntax = \"proto3\";\npackage acme;\nimport \"../x.proto\";\nmessage Ping {}\n",
    )
    .unwrap();
    let found = problems(dir.path());
    assert_eq!(found.len(), 1, "one problem, no [roots] note: {found:#?}");
    assert_eq!(found[0].0, "ping.v1.proto");
    assert_eq!(found[0].1, Kind::ProtoDoesNotCompile);
    assert!(
        found[0].2.contains("\"../x.proto\"") && found[0].2.contains("leaves"),
        "{found:#?}"
    );
}

#[test]
fn a_dangling_symlink_is_a_diagnostic() {
    let dir = folder();
    symlink("/nonexistent/x.json", dir.path().join("x.v1.json")).unwrap();
    one_problem(
        dir.path(),
        "x.v1.json",
        Kind::NotAFile,
        "dangling symbolic link",
    );
}

#[test]
fn a_directory_named_like_a_schema_is_a_diagnostic() {
    let dir = folder();
    fs::create_dir(dir.path().join("x.v1.json")).unwrap();
    one_problem(dir.path(), "x.v1.json", Kind::NotAFile, "a directory");
}

#[test]
fn an_upper_case_extension_is_a_diagnostic() {
    let dir = folder();
    fs::write(dir.path().join("x.v1.JSON"), SCHEMA).unwrap();
    one_problem(dir.path(), "x.v1.JSON", Kind::FileName, "lower case");
    let dir = folder();
    fs::write(dir.path().join("x.v1.Proto"), SCHEMA).unwrap();
    one_problem(dir.path(), "x.v1.Proto", Kind::FileName, "lower case");
}

#[test]
fn a_name_that_is_not_utf8_is_a_diagnostic() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = folder();
    let name = OsStr::from_bytes(b"x\xff.v1.json");
    if fs::write(dir.path().join(name), SCHEMA).is_err() {
        // Some filesystems refuse such names outright: nothing to bundle then.
        eprintln!("this filesystem refuses non-UTF-8 names; nothing to check");
        return;
    }
    let found = problems(dir.path());
    assert!(
        found
            .iter()
            .any(|(_, k, m)| *k == Kind::FileName && m.contains("not UTF-8")),
        "{found:#?}"
    );
}

#[test]
fn a_json_and_proto_pair_for_one_urn_is_one_problem_not_a_compatibility_break() {
    let dir = folder();
    fs::write(
        dir.path().join("dataschema.toml"),
        format!("{MANIFEST}[roots]\n\"x.v2\" = \"acme.X\"\n"),
    )
    .unwrap();
    fs::write(dir.path().join("x.v1.json"), SCHEMA).unwrap();
    fs::write(dir.path().join("x.v2.json"), SCHEMA).unwrap();
    fs::write(
        dir.path().join("x.v2.proto"),
        "syntax = \"proto3\";\npackage acme;\nmessage X {}\n",
    )
    .unwrap();
    let found = problems(dir.path());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].1, Kind::Duplicate, "{found:#?}");
}
