//! Text helpers for error messages.

/// Clips untrusted input for an error message: at most `max` characters,
/// and `…` when something was cut. Every error of this crate that quotes
/// its input clips it so; the crates above (the server's and the HTTP
/// client's messages) call this to quote theirs the same way.
///
/// ```
/// assert_eq!(dataschema_core::clip("abcdef", 3), "abc…");
/// assert_eq!(dataschema_core::clip("abc", 3), "abc");
/// ```
pub fn clip(input: &str, max: usize) -> String {
    match input.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &input[..end]),
        None => input.to_owned(),
    }
}
