//! What a check of a schemas folder reports: one [`Diagnostic`] a problem,
//! every problem of a folder in one [`BundleError`].

use std::fmt;
use std::path::{Path, PathBuf};

use dataschema_core::compat;

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A file or the folder could not be read or written.
    Io,
    /// `bundle` was called outside a build script (no `OUT_DIR`).
    NotInBuildScript,
    /// The manifest is missing or invalid, or names a file or a name the
    /// folder does not hold.
    Manifest,
    /// A file name does not name a schema version
    /// (`<name>.v<version>.json` or `.proto`, in UTF-8, the extension in
    /// lower case).
    FileName,
    /// Not a regular file inside the folder: a symbolic link out of it or
    /// dangling, a directory, a device.
    NotAFile,
    /// Two files give the same URN.
    Duplicate,
    /// A `.json` file is not JSON.
    NotJson,
    /// A `.proto` file does not compile, or imports a file outside the
    /// folder.
    ProtoDoesNotCompile,
    /// A `.proto` file, and the `protobuf` feature is off.
    NoProtobuf,
    /// A protobuf schema has no root message in the manifest.
    MissingRoot,
    /// The schema does not compile with the validator its language has
    /// (or a `$ref` it needs is not in the folder).
    Unusable,
    /// The lock cannot be read.
    Lock,
    /// A locked URN's bytes changed.
    Changed,
    /// A locked URN's file is gone.
    Removed,
    /// The lock's `[ids]` contradict themselves: one content under two
    /// ids, or one id for two contents.
    IdConflict,
    /// A version breaks compatibility with the versions before it.
    Incompatible,
    /// An `.avsc` uses a named type that more than one schema of the
    /// folder defines, and the manifest does not say which one it means.
    DefinedTwice,
    /// A data-contract rule of a version (the manifest's `[rules]`) is
    /// malformed, or its expression does not compile (a CEL rule without
    /// the `cel` feature does not either): the message names the version
    /// and the rule.
    Rule,
    /// A version cannot be read as its name's latest, which the manifest
    /// asks (`resolve = "latest"`): the reader's path and why.
    Unresolvable,
}

/// One problem found in a schemas folder: the file, the kind, and what is
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    kind: DiagnosticKind,
    path: PathBuf,
    message: String,
    report: Option<Box<compat::CompatReport>>,
}

impl Diagnostic {
    pub(crate) fn new(
        kind: DiagnosticKind,
        path: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            kind,
            path: path.into(),
            message: message.into(),
            report: None,
        }
    }

    /// The same diagnostic with the compatibility report that caused it.
    pub(crate) fn with_report(mut self, report: compat::CompatReport) -> Diagnostic {
        self.report = Some(Box::new(report));
        self
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> DiagnosticKind {
        self.kind
    }

    /// The file concerned.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// For [`DiagnosticKind::Incompatible`], the typed report: each
    /// version checked and each change found, with its kind, path and
    /// direction (the message prints it).
    pub fn report(&self) -> Option<&compat::CompatReport> {
        self.report.as_deref()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Every problem found in a schemas folder.
///
/// Its `Debug` is its `Display` (one problem a line), so
/// `bundle("schemas").unwrap()` in a build script prints readable errors.
#[derive(Clone, PartialEq, Eq)]
pub struct BundleError {
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl BundleError {
    pub(crate) fn one(
        kind: DiagnosticKind,
        path: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> BundleError {
        BundleError {
            diagnostics: vec![Diagnostic::new(kind, path, message)],
        }
    }

    /// The problems, in file order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.diagnostics.len();
        write!(
            f,
            "{n} problem{} in the schemas:",
            if n == 1 { "" } else { "s" }
        )?;
        for diagnostic in &self.diagnostics {
            write!(f, "\n  {diagnostic}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BundleError {}
