//! Text escaped for HTML: the one function every page and the
//! highlighter write outside text through.

/// `text` with `&`, `<`, `>`, `"` and `'` written as character
/// references: safe in element content and in a quoted attribute value.
pub(crate) fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}
