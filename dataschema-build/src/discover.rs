//! Finding the schema files of a folder and reading each one: names, file
//! kinds, confinement to the folder, JSON, `.avsc` and `.proto` sources.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use dataschema_core::sha256_hex;
use dataschema_core::{Language, Schema, Urn};

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::manifest::Manifest;
#[cfg(feature = "protox")]
use crate::proto;
use crate::source::Source;

/// The stems (`<name>.v<version>`) of the schema files a folder holds,
/// read or not.
#[derive(Default)]
pub(crate) struct Stems {
    /// Every schema file.
    pub(crate) all: BTreeSet<String>,
    /// The `.proto` files that are regular files.
    pub(crate) proto: BTreeSet<String>,
}

/// Finds and reads the schema files of `dir`, with the stems of the
/// `.proto` files found (read or not).
///
/// Only regular files inside the folder are bundled: a symbolic link is
/// followed only when its target lies inside the folder too. Anything that
/// looks like a schema but cannot be one (a name that is not UTF-8, a
/// dangling link, a directory named `x.v1.json`, `x.v1.JSON`) is a
/// diagnostic, never skipped in silence.
pub(crate) fn discover(
    dir: &Path,
    manifest: &Manifest,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<Source>, Stems) {
    let mut found = Stems::default();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::Io,
                dir,
                format!("cannot read the folder: {err}"),
            ));
            return (Vec::new(), found);
        }
    };
    let canonical_dir = fs::canonicalize(dir).ok();
    let mut paths = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(err) => diagnostics.push(Diagnostic::new(
                DiagnosticKind::Io,
                dir,
                format!("cannot read an entry of the folder: {err}"),
            )),
        }
    }
    paths.sort();
    let mut sources = Vec::new();
    for path in paths {
        let Some(file_name) = path.file_name().and_then(|name| name.to_str()) else {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::FileName,
                &path,
                "the file name is not UTF-8: a schema file is named <name>.v<version>.json, \
                 .avsc or .proto, in UTF-8",
            ));
            continue;
        };
        let lower = file_name.to_ascii_lowercase();
        let looks_like_schema =
            lower.ends_with(".json") || lower.ends_with(".proto") || lower.ends_with(".avsc");
        let (stem, language) = if let Some(stem) = file_name.strip_suffix(".json") {
            (stem, Language::JsonSchema)
        } else if let Some(stem) = file_name.strip_suffix(".avsc") {
            (stem, Language::Avro)
        } else if let Some(stem) = file_name.strip_suffix(".proto") {
            (stem, Language::Protobuf)
        } else if looks_like_schema {
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::FileName,
                &path,
                "the extension must be written in lower case: .json, .avsc or .proto",
            ));
            continue;
        } else {
            continue; // the manifest, the lock, a README, a folder of imports...
        };
        // Present, whatever happens next: a file with its own problem is
        // not also reported as gone or unnamed.
        found.all.insert(stem.to_owned());
        if let Err(message) = regular_file_inside(&path, canonical_dir.as_deref()) {
            diagnostics.push(Diagnostic::new(DiagnosticKind::NotAFile, &path, message));
            continue;
        }
        if language == Language::Protobuf {
            found.proto.insert(stem.to_owned());
        }
        let urn = match parse_stem(&manifest.namespace, stem) {
            Ok(urn) => urn,
            Err(message) => {
                diagnostics.push(Diagnostic::new(DiagnosticKind::FileName, &path, message));
                continue;
            }
        };
        let read = if language == Language::Protobuf {
            read_proto(dir, &path, file_name, stem, urn, manifest)
        } else {
            read_json(&path, urn, language)
        };
        match read {
            Ok(source) => sources.push(source),
            Err((kind, message)) => diagnostics.push(Diagnostic::new(kind, &path, message)),
        }
    }
    (sources, found)
}

/// Whether `path` is a regular file, or a symbolic link to one inside
/// `dir` (canonical); otherwise why not.
fn regular_file_inside(path: &Path, dir: Option<&Path>) -> Result<(), String> {
    let meta = fs::symlink_metadata(path).map_err(|err| format!("cannot read: {err}"))?;
    if meta.file_type().is_symlink() {
        let target = fs::canonicalize(path).map_err(|err| {
            format!("a dangling symbolic link (its target cannot be read: {err})")
        })?;
        if !dir.is_some_and(|dir| target.starts_with(dir)) {
            return Err(format!(
                "a symbolic link to {}, outside the schemas folder: a bundle holds only files \
                 inside it (copy the schema in instead)",
                target.display()
            ));
        }
        return match fs::metadata(&target) {
            Ok(meta) if meta.is_file() => Ok(()),
            Ok(_) => Err(format!(
                "a symbolic link to {}, which is not a file",
                target.display()
            )),
            Err(err) => Err(format!("cannot read {}: {err}", target.display())),
        };
    }
    if meta.is_dir() {
        return Err("a directory, not a schema file".to_owned());
    }
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    Ok(())
}

/// `orders.created.v3` in namespace `acme` is `urn:acme:schema:orders.created:3`.
fn parse_stem(namespace: &str, stem: &str) -> Result<Urn, String> {
    const EXPECTED: &str = "a schema file is named <name>.v<version>.json, .avsc or .proto";
    let (name, version) = stem
        .rsplit_once(".v")
        .ok_or_else(|| format!("no version in the file name: {EXPECTED}"))?;
    let version: u32 = Some(version)
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) && !v.starts_with('0'))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("the version {version:?} is not an integer from 1: {EXPECTED}"))?;
    Urn::new(namespace, name, version).map_err(|err| format!("{} ({EXPECTED})", err.chain()))
}

/// A problem reading one schema file: its kind and message.
type Problem = (DiagnosticKind, String);

/// A JSON Schema (`.json`) or an Avro schema (`.avsc`): JSON text, bundled
/// as it is.
fn read_json(path: &Path, urn: Urn, language: Language) -> Result<Source, Problem> {
    let bytes =
        fs::read(path).map_err(|err| (DiagnosticKind::Io, format!("cannot read: {err}")))?;
    serde_json::from_slice::<serde_json::Value>(&bytes)
        .map_err(|err| (DiagnosticKind::NotJson, format!("not JSON: {err}")))?;
    Ok(Source {
        digest: sha256_hex(&bytes),
        schema: Schema::new(urn, language, bytes, None),
        path: path.to_path_buf(),
        id: None,
    })
}

/// Without the `protobuf` feature a `.proto` file cannot be compiled.
#[cfg(not(feature = "protox"))]
fn read_proto(
    _dir: &Path,
    _path: &Path,
    _file_name: &str,
    _stem: &str,
    _urn: Urn,
    _manifest: &Manifest,
) -> Result<Source, Problem> {
    Err((
        DiagnosticKind::NoProtobuf,
        "a .proto schema needs the `protobuf` feature of dataschema (or dataschema-build) \
         in [build-dependencies] to be compiled and checked"
            .to_owned(),
    ))
}

#[cfg(feature = "protox")]
fn read_proto(
    dir: &Path,
    path: &Path,
    file_name: &str,
    stem: &str,
    urn: Urn,
    manifest: &Manifest,
) -> Result<Source, Problem> {
    let mut compiler = proto::compiler(dir);
    compiler.open_file(file_name).map_err(|err| {
        (
            DiagnosticKind::ProtoDoesNotCompile,
            format!("does not compile: {}", proto::explain(dir, &err)),
        )
    })?;
    // The digest covers the file and what it imports from the folder (and
    // the shared well-known files, `google/protobuf/*` aside), by source
    // text, so it does not move when protox's output does.
    let mut hashed = Vec::new();
    let mut files: Vec<_> = compiler.files().collect();
    files.sort_by(|a, b| a.name().cmp(b.name()));
    for file in files {
        hashed.extend_from_slice(file.name().as_bytes());
        hashed.push(0);
        if let Some(source_path) = file.path() {
            let source = fs::read(source_path).map_err(|err| {
                (
                    DiagnosticKind::Io,
                    format!("cannot read {}: {err}", source_path.display()),
                )
            })?;
            hashed.extend_from_slice(&source);
        } else if let Some((_, text)) = dataschema_core::well_known::WELL_KNOWN
            .iter()
            .find(|(path, _)| *path == file.name())
        {
            // A shared well-known file, hashed as a copy of it in the
            // folder would be: the digest is the same either way.
            hashed.extend_from_slice(text.as_bytes());
        }
        hashed.push(0);
    }
    // The root decides which message a payload must be: part of what the
    // URN means, so part of what the lock pins. A schema listed `rootless`
    // has none (its descriptor set alone; its own file is the one no
    // other imports).
    let set = compiler.encode_file_descriptor_set();
    let schema = if manifest.rootless.iter().any(|listed| listed == stem)
        && !manifest.roots.contains_key(stem)
    {
        hashed.extend_from_slice(b"rootless\0");
        Schema::new(urn, Language::Protobuf, set, None)
    } else {
        let root = manifest.roots.get(stem).cloned().unwrap_or_default();
        hashed.extend_from_slice(b"root\0");
        hashed.extend_from_slice(root.as_bytes());
        Schema::protobuf(urn, set, root)
    };
    Ok(Source {
        digest: sha256_hex(&hashed),
        schema,
        path: path.to_path_buf(),
        id: None,
    })
}
