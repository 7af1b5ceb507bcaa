//! [`Source`]: a schema found in the folder, with where it came from.

use std::path::PathBuf;

use dataschema_core::Schema;

/// A schema found in the folder, with where it came from.
#[derive(Debug, Clone)]
pub struct Source {
    /// The schema, as the registry will hold it (a `.proto` compiled to a
    /// `FileDescriptorSet`).
    pub schema: Schema,
    /// The file it was read from.
    pub path: PathBuf,
    /// The digest the lock records: the sha256 of the JSON file, or of a
    /// `.proto` file, the sources it imports from the folder and its root
    /// message's name (so it does not move when the compiler's version
    /// does, and does when the root does).
    pub digest: String,
    /// The id the registry assigned to the URN, as the lock's `[ids]`
    /// records it (`None` when it records none).
    pub id: Option<u32>,
}
