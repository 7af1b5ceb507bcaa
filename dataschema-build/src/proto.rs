//! Compiling a schemas folder's `.proto` files with `protox`, confined to
//! the folder: an import may not leave it, by `..`, an absolute name or a
//! symbolic link to a file elsewhere. The well-known files resolve without
//! a copy in the folder, as the server resolves them: `google/protobuf/*`
//! (`protox`'s), `google/type/*` and Confluent's (`confluent/meta.proto`,
//! `confluent/type/decimal.proto`) from the shared module the server uses
//! ([`dataschema_core::well_known`]). A folder's own copy of one is read
//! first (a lock's digest of a folder that holds copies stays as it was).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use protox::file::{
    ChainFileResolver, File, FileResolver, GoogleFileResolver, IncludeFileResolver,
};

/// The well-known files of [`dataschema_core::well_known`], by import
/// path.
struct WellKnownResolver;

impl FileResolver for WellKnownResolver {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match dataschema_core::well_known::WELL_KNOWN
            .iter()
            .find(|(path, _)| *path == name)
        {
            Some((_, text)) => File::from_source(name, text),
            None => Err(protox::Error::file_not_found(name)),
        }
    }
}

/// Resolves imports inside one folder, then the well-known files.
struct FolderResolver {
    folder: PathBuf,
    canonical: Option<PathBuf>,
    inner: ChainFileResolver,
}

impl FolderResolver {
    fn new(folder: &Path) -> FolderResolver {
        let mut inner = ChainFileResolver::new();
        inner.add(IncludeFileResolver::new(folder.to_owned()));
        inner.add(WellKnownResolver);
        inner.add(GoogleFileResolver::new());
        FolderResolver {
            folder: folder.to_owned(),
            canonical: folder.canonicalize().ok(),
            inner,
        }
    }
}

impl FileResolver for FolderResolver {
    fn resolve_path(&self, path: &Path) -> Option<String> {
        self.inner.resolve_path(path)
    }

    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        let leaves = name.contains('\\')
            || Path::new(name)
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if leaves {
            return Err(protox::Error::new(format!(
                "import {name:?} leaves {}: imports are resolved inside the schemas folder only \
                 (name them relative to it, without `..`)",
                self.folder.display()
            )));
        }
        // Checked before anything is opened: a file outside the folder is
        // never read, so none of it can reach an error message.
        let candidate = self.folder.join(name);
        if std::fs::symlink_metadata(&candidate).is_ok() {
            let Some(folder) = &self.canonical else {
                return Err(protox::Error::new(format!(
                    "cannot resolve {}: the schemas folder has no canonical path",
                    self.folder.display()
                )));
            };
            let real = candidate.canonicalize().map_err(|err| {
                protox::Error::new(format!("cannot resolve {}: {err}", candidate.display()))
            })?;
            if !real.starts_with(folder) {
                return Err(protox::Error::new(format!(
                    "{name:?} is a symbolic link to {}, outside {}: a bundle holds only \
                     files inside the schemas folder",
                    real.display(),
                    self.folder.display()
                )));
            }
            if !real.is_file() {
                return Err(protox::Error::new(format!(
                    "{name:?} is not a regular file"
                )));
            }
        }
        // The parser recurses as deep as the text nests: the nesting is
        // bounded before it reads (`dataschema_core::limits`).
        if let Ok(text) = std::fs::read_to_string(&candidate) {
            dataschema_core::limits::check_proto_nesting(&text)
                .map_err(|why| protox::Error::new(format!("{name}: {why}")))?;
        }
        let file = self.inner.open_file(name)?;
        Ok(file)
    }
}

/// A compiler whose imports resolve inside `folder` only.
pub(super) fn compiler(folder: &Path) -> protox::Compiler {
    let mut compiler = protox::Compiler::with_file_resolver(FolderResolver::new(folder));
    compiler.include_imports(true).include_source_info(false);
    compiler
}

/// Compiles `path` (a `.proto` file) with its folder as the only include
/// path, into a serialized `FileDescriptorSet` holding it and its imports.
/// What `dataschema diff` reads a `.proto` with.
///
/// Errors name the file: it does not exist, does not compile, or imports a
/// file outside its folder.
pub fn compile_proto(path: &Path) -> Result<Vec<u8>, String> {
    if !path.is_file() {
        return Err(format!("{}: no such file", path.display()));
    }
    let folder = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| format!("{}: the file name is not UTF-8", path.display()))?;
    let mut compiler = compiler(folder);
    compiler.open_file(name).map_err(|err| {
        format!(
            "{}: does not compile: {}",
            path.display(),
            explain(folder, &err)
        )
    })?;
    Ok(compiler.encode_file_descriptor_set())
}

/// protox's message for `err`, or a clearer one where protox's is
/// misleading: its parser refuses an import with `..`, `.`, `//` or `\\`
/// as "invalid group name".
pub(super) fn explain(folder: &Path, err: &protox::Error) -> String {
    let bad = err
        .file()
        .and_then(|file| std::fs::read_to_string(folder.join(file)).ok())
        .and_then(|text| bad_import(&text).map(str::to_owned));
    match (bad, err.file()) {
        (Some(import), Some(file)) => format!(
            "{file} imports {import:?}, which leaves {}: imports are named relative to the \
             schemas folder, without `..`, `.`, `//` or backslashes",
            folder.display()
        ),
        _ => err.to_string(),
    }
}

/// The first `import "..."` of a `.proto` text whose name protobuf refuses
/// (a `..` or `.` component, an empty component, a backslash, absolute).
fn bad_import(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim_start)
        .filter_map(|line| line.strip_prefix("import"))
        .filter_map(|rest| {
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix("public")
                .or_else(|| rest.strip_prefix("weak"))
                .unwrap_or(rest)
                .trim_start();
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let body = &rest[1..];
            body.find(quote).map(|end| &body[..end])
        })
        .find(|name| {
            name.contains('\\')
                || name.starts_with('/')
                || name
                    .split('/')
                    .any(|part| part.is_empty() || part == "." || part == "..")
        })
}

/// A file of a schemas folder that a `.proto` schema imports, as
/// `dataschema publish` registers it: under its import path, as a
/// protobuf schema without a root (its text, its own imports by
/// reference), as Confluent's clients register an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoImport {
    /// The import path: the file's name relative to the folder.
    pub name: String,
    /// Its source text, as in the folder.
    pub text: String,
    /// The folder's files it imports itself (import paths, in the order
    /// it imports them; well-known files aside).
    pub imports: Vec<String>,
}

/// The folder's files that a protobuf schema with a root imports: what
/// its root's file imports (directly, by import path) and every such file
/// it reaches, each listed after those it imports. Well-known imports
/// (`google/protobuf/*`, `google/type/*`, Confluent's) are left out: they
/// resolve without references ([`dataschema_core::well_known`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtoImports {
    /// The file that declares the root message (its import path).
    pub root_file: String,
    /// The files the root's file imports, in its order.
    pub root_imports: Vec<String>,
    /// Every file reached, each after those it imports.
    pub files: Vec<ProtoImport>,
}

/// The imports of `source`, a protobuf schema of the folder `dir` (as
/// [`check`](fn@crate::check) read it: a descriptor set, with its root or
/// listed `rootless`, whose own file is then the one no other imports),
/// their texts read from the folder. Empty for any other schema.
///
/// Errors name the file: the descriptor set does not decode, the root is
/// not in it, or an imported file cannot be read.
pub fn proto_imports(dir: &Path, source: &crate::source::Source) -> Result<ProtoImports, String> {
    use protox::prost_reflect::DescriptorPool;

    let schema = &source.schema;
    // A folder's `.proto` schema is always a descriptor set.
    if schema.language() != dataschema_core::Language::Protobuf {
        return Ok(ProtoImports::default());
    }
    let pool = DescriptorPool::decode(schema.bytes())
        .map_err(|err| format!("{}: its descriptor set: {err}", source.path.display()))?;
    let root_file = match schema.root() {
        Some(root) => pool
            .get_message_by_name(root)
            .map(|message| message.parent_file())
            .ok_or_else(|| {
                format!(
                    "{}: no root message {root:?} in its files",
                    source.path.display()
                )
            })?,
        // Rootless: the one file no other imports.
        // (Not `dataschema_core::proto::top_files`: the bundler compiles
        // `.proto` files with the `protox` feature alone, without core's
        // protobuf validator.)
        None => {
            let imported: BTreeSet<String> = pool
                .files()
                .flat_map(|file| {
                    file.dependencies()
                        .map(|dependency| dependency.name().to_owned())
                        .collect::<Vec<_>>()
                })
                .collect();
            let mut top = pool.files().filter(|file| !imported.contains(file.name()));
            match (top.next(), top.next()) {
                (Some(main), None) => main,
                _ => {
                    return Err(format!(
                        "{}: not exactly one file of its descriptor set is imported by no other",
                        source.path.display()
                    ))
                }
            }
        }
    };
    let own = |file: &protox::prost_reflect::FileDescriptor| -> Vec<String> {
        file.dependencies()
            .map(|dependency| dependency.name().to_owned())
            .filter(|name| !dataschema_core::well_known::is_well_known(name))
            .collect()
    };
    let mut imports = ProtoImports {
        root_file: root_file.name().to_owned(),
        root_imports: own(&root_file),
        files: Vec::new(),
    };
    // Depth first, each file after its imports (protobuf refuses a cycle
    // of imports, so the walk ends).
    let mut done = BTreeSet::new();
    let mut stack: Vec<(String, bool)> = imports
        .root_imports
        .iter()
        .rev()
        .map(|name| (name.clone(), false))
        .collect();
    while let Some((name, expanded)) = stack.pop() {
        if done.contains(&name) {
            continue;
        }
        let file = pool.get_file_by_name(&name).ok_or_else(|| {
            format!(
                "{}: no file {name:?} in its descriptor set",
                source.path.display()
            )
        })?;
        let below = own(&file);
        if !expanded {
            stack.push((name.clone(), true));
            stack.extend(
                below
                    .iter()
                    .rev()
                    .filter(|import| !done.contains(*import))
                    .map(|import| (import.clone(), false)),
            );
            continue;
        }
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path)
            .map_err(|err| format!("{}: cannot read it: {err}", path.display()))?;
        done.insert(name.clone());
        imports.files.push(ProtoImport {
            name,
            text,
            imports: below,
        });
    }
    Ok(imports)
}

#[cfg(test)]
mod tests {
    use super::bad_import;

    #[test]
    fn imports_that_leave_the_folder_are_found() {
        assert_eq!(bad_import("import \"../x.proto\";"), Some("../x.proto"));
        assert_eq!(
            bad_import("  import public 'a//b.proto';"),
            Some("a//b.proto")
        );
        assert_eq!(bad_import("import \"/etc/x.proto\";"), Some("/etc/x.proto"));
        assert_eq!(bad_import("import \"acme/common.proto\";"), None);
        assert_eq!(bad_import("message Import {}"), None);
    }
}
