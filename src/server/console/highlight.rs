//! Schema text highlighted for reading: each token of a JSON document
//! (JSON Schema, Avro) or of `.proto` text wrapped in a `<span>` whose
//! class the style sheet colours. Every token's text is escaped
//! ([`escape`]); the only markup written is the span tags with fixed
//! class names. Text it cannot read (a descriptor set in base64, a
//! broken document) is still written whole, escaped: highlighting never
//! drops or reorders a character.

use super::escape::escape;
use dataschema_core::Language;

/// `.proto` keywords.
const PROTO_KEYWORDS: [&str; 22] = [
    "syntax",
    "edition",
    "package",
    "import",
    "public",
    "weak",
    "option",
    "message",
    "enum",
    "service",
    "rpc",
    "returns",
    "stream",
    "repeated",
    "optional",
    "required",
    "oneof",
    "map",
    "reserved",
    "extend",
    "extensions",
    "to",
];

/// `.proto` scalar types.
const PROTO_TYPES: [&str; 15] = [
    "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32",
    "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes",
];

/// Writes `text`, highlighted as `language`'s text, into `out`.
pub(crate) fn highlight(text: &str, language: Language, out: &mut String) {
    match language {
        Language::Protobuf => proto(text, out),
        _ => json(text, out),
    }
}

fn span(class: &'static str, text: &str, out: &mut String) {
    out.push_str("<span class=\"");
    out.push_str(class);
    out.push_str("\">");
    escape(text, out);
    out.push_str("</span>");
}

/// The end (exclusive) of the string starting with the quote at `start`:
/// past its closing quote, or the text's end when it has none.
fn string_end(text: &str, start: usize, quote: u8) -> usize {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of the run of bytes from `start` that `keep` accepts.
fn run_end(text: &str, start: usize, keep: impl Fn(u8) -> bool) -> usize {
    text.as_bytes()[start..]
        .iter()
        .position(|&b| !keep(b))
        .map_or(text.len(), |n| start + n)
}

fn json(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut plain = 0;
    while i < bytes.len() {
        let (end, class) = match bytes[i] {
            b'"' => {
                let end = string_end(text, i, b'"').min(text.len());
                let next = text[end..].trim_start().as_bytes().first().copied();
                (end, if next == Some(b':') { "k" } else { "s" })
            }
            b'-' | b'0'..=b'9' => (
                run_end(text, i + 1, |b| b.is_ascii_digit() || b"eE+-.".contains(&b)),
                "n",
            ),
            b't' | b'f' | b'n' => {
                let end = run_end(text, i, |b| b.is_ascii_alphabetic());
                if matches!(&text[i..end], "true" | "false" | "null") {
                    (end, "l")
                } else {
                    i = end;
                    continue;
                }
            }
            _ => {
                i += 1;
                continue;
            }
        };
        escape(&text[plain..i], out);
        span(class, &text[i..end], out);
        i = end;
        plain = end;
    }
    escape(&text[plain..], out);
}

fn proto(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut plain = 0;
    while i < bytes.len() {
        let (end, class) = match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                (text[i..].find('\n').map_or(text.len(), |n| i + n), "c")
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => (
                text[i + 2..]
                    .find("*/")
                    .map_or(text.len(), |n| i + 2 + n + 2),
                "c",
            ),
            quote @ (b'"' | b'\'') => (string_end(text, i, quote).min(text.len()), "s"),
            b'0'..=b'9' => (
                run_end(text, i, |b| b.is_ascii_alphanumeric() || b == b'.'),
                "n",
            ),
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let end = run_end(text, i, |b| {
                    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
                });
                let word = &text[i..end];
                if PROTO_KEYWORDS.contains(&word) {
                    (end, "k")
                } else if PROTO_TYPES.contains(&word) {
                    (end, "t")
                } else {
                    i = end;
                    continue;
                }
            }
            _ => {
                i += 1;
                continue;
            }
        };
        escape(&text[plain..i], out);
        span(class, &text[i..end], out);
        i = end;
        plain = end;
    }
    escape(&text[plain..], out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text back from the highlighted HTML: tags dropped, references
    /// read.
    fn text_of(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    #[test]
    fn every_character_survives_and_markup_stays_text() {
        let samples = [
            (Language::JsonSchema, r#"{"type": "object", "description": "</span><script>x</script>", "minimum": -1.5e3, "x": [true, null, false], "bad": "unterminated"#),
            (Language::Avro, r#"{"type": "record", "name": "A\"<b>", "fields": []}"#),
            (Language::Protobuf, "syntax = \"proto3\";\n// <script>\nmessage A { string id = 1; /* <img> */ map<string, int64> m = 2; }\n/* open"),
            (Language::Protobuf, "CgtzaG9wLnByb3RvEgRzaG9w"),
            (Language::JsonSchema, "ünïcode \"ü\": 1 <"),
        ];
        for (language, text) in samples {
            let mut html = String::new();
            highlight(text, language, &mut html);
            assert_eq!(text_of(&html), text, "{html}");
            assert!(
                !html.contains("<script") && !html.contains("<img") && !html.contains("<b>"),
                "{html}"
            );
        }
    }

    #[test]
    fn tokens_get_their_classes() {
        let mut html = String::new();
        highlight(
            r#"{"type": "string", "n": 3, "b": true}"#,
            Language::JsonSchema,
            &mut html,
        );
        assert!(
            html.contains("<span class=\"k\">&quot;type&quot;</span>"),
            "{html}"
        );
        assert!(html.contains("<span class=\"s\">&quot;string&quot;</span>"));
        assert!(html.contains("<span class=\"n\">3</span>"));
        assert!(html.contains("<span class=\"l\">true</span>"));
        let mut html = String::new();
        highlight(
            "message A { int64 id = 1; } // c",
            Language::Protobuf,
            &mut html,
        );
        assert!(html.contains("<span class=\"k\">message</span>"), "{html}");
        assert!(html.contains("<span class=\"t\">int64</span>"));
        assert!(html.contains("<span class=\"n\">1</span>"));
        assert!(html.contains("<span class=\"c\">// c</span>"));
    }
}
