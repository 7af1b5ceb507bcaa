//! Compiling a schemas folder's `.proto` files with `protox`, confined to
//! the folder: an import may not leave it, by `..`, an absolute name or a
//! symbolic link to a file elsewhere.

use std::path::{Component, Path, PathBuf};

use protox::file::{
    ChainFileResolver, File, FileResolver, GoogleFileResolver, IncludeFileResolver,
};

/// Resolves imports inside one folder (and Google's well-known types).
struct FolderResolver {
    folder: PathBuf,
    canonical: Option<PathBuf>,
    inner: ChainFileResolver,
}

impl FolderResolver {
    fn new(folder: &Path) -> FolderResolver {
        let mut inner = ChainFileResolver::new();
        inner.add(IncludeFileResolver::new(folder.to_owned()));
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
