//! Text helpers for error messages.

/// Clips untrusted input for an error message: at most `max` characters,
/// and `…` when something was cut.
pub fn clip(input: &str, max: usize) -> String {
    match input.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &input[..end]),
        None => input.to_owned(),
    }
}
