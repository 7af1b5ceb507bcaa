//! A remote registry's words, as the CLI shows them: every command that
//! prints what a registry answered (`publish`, `import`, `validate` and
//! `frame` with `--registry`) passes it through here, so an answer cannot
//! write escape sequences to the terminal or the CI log, reorder what is
//! shown, or fill the screen.

/// How many characters of a registry's words are shown, at most: a
/// message, a subject's name, a body that is no answer.
pub(crate) const MAX_SHOWN: usize = 300;

/// `text` safe for a terminal or a CI log: each control character but a
/// line break (ESC and so OSC and CSI sequences, BEL, carriage return),
/// and each invisible formatting character (bidi overrides and isolates
/// such as U+202E, the line and paragraph separators U+2028 and U+2029,
/// zero-width spaces and joiners, which reorder or hide what is shown),
/// escaped as `\u{..}`.
pub(crate) fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if (c.is_control() && c != '\n') || invisible(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// A remote's words on one line: clipped to [`MAX_SHOWN`] characters
/// (`…` when cut), then [`printable`], line breaks escaped too.
pub(crate) fn remote(text: &str) -> String {
    let clipped = dataschema_core::clip(text, MAX_SHOWN);
    printable(&clipped).replace('\n', "\\u{a}")
}

/// A remote's answer body that is no answer of the API asked (a `5xx`
/// page, an error of a proxy): its text, [`remote`], or its size when it
/// is not text.
pub(crate) fn body(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => remote(text.trim()),
        Err(_) => format!("({} bytes, not text)", bytes.len()),
    }
}

/// Unicode's format characters (category Cf) and the other invisible
/// ones a terminal shows as nothing, or that reorder the text around them.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{061c}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        let hostile = "a\u{1b}]0;owned\u{7}b\u{1b}[2Jc\u{202e}d\u{2028}e\rf";
        let shown = printable(hostile);
        assert!(!shown.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{2028}', '\r']));
        assert!(shown.contains("\\u{1b}]0;owned\\u{7}"), "{shown}");
        assert_eq!(printable("line\nnext"), "line\nnext");
        assert_eq!(remote("line\nnext"), "line\\u{a}next");
        let long = "x".repeat(10_000);
        assert_eq!(remote(&long).chars().count(), MAX_SHOWN + 1);
        assert_eq!(body(&[0xff, 0xfe]), "(2 bytes, not text)");
    }
}
