//! Writing the console's HTML: every text from outside (the store's
//! subject names, schema text, metadata; a request's query) goes through
//! [`Page::text`] or [`Page::attr`], which escape it; markup is written
//! from string literals only ([`Page::raw`] takes `&'static str`).

use std::fmt::Write as _;

use super::escape::escape;
use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

/// The console's style sheet (no third-party request: served from the
/// binary at `/ui/console.css`).
pub(crate) const CSS: &str = include_str!("console.css");

/// Where each page sends its requests: this server only, no script, no
/// frame. A store's text that escaped the escaping still could not load
/// or run anything.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
                   form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The sections of the console, in the navigation's order: (path, label).
const NAV: [(&str, &str); 4] = [
    ("/ui/", "Subjects"),
    ("/ui/check", "Would this break anyone?"),
    ("/ui/lookup", "Look up"),
    ("/ui/server", "Server"),
];

/// A console URL: `path` with its query pairs encoded (the caller then
/// writes it with [`Page::attr`], which escapes the `&`).
pub(crate) fn url(path: &str, pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return path.to_owned();
    }
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        query.append_pair(key, value);
    }
    format!("{path}?{}", query.finish())
}

/// One page being written.
pub(crate) struct Page {
    out: String,
    status: StatusCode,
}

impl Page {
    /// A page titled `title` (escaped), the navigation marking `section`
    /// (one of [`NAV`]'s paths) as the current one, its `<main>` open.
    pub(crate) fn new(title: &str, section: &str) -> Page {
        let mut page = Page {
            out: String::with_capacity(16 * 1024),
            status: StatusCode::OK,
        };
        page.raw("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
            .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
            .raw("<title>")
            .text(title)
            .raw(" · dataschema</title>")
            .raw("<link rel=\"stylesheet\" href=\"/ui/console.css\"></head>\n<body>")
            .raw("<a class=\"skip\" href=\"#main\">Skip to content</a>")
            .raw("<header><p class=\"brand\"><a href=\"/ui/\">dataschema</a> console</p>")
            .raw("<nav aria-label=\"Console\"><ul>");
        for (path, label) in NAV {
            page.raw("<li><a href=\"").attr(path).raw("\"");
            if path == section {
                page.raw(" aria-current=\"page\"");
            }
            page.raw(">").text(label).raw("</a></li>");
        }
        page.raw("</ul></nav></header>\n<main id=\"main\" tabindex=\"-1\"><h1>")
            .text(title)
            .raw("</h1>\n");
        page
    }

    /// Markup, written as it is: literals only.
    pub(crate) fn raw(&mut self, markup: &'static str) -> &mut Page {
        self.out.push_str(markup);
        self
    }

    /// Text, escaped.
    pub(crate) fn text(&mut self, text: &str) -> &mut Page {
        escape(text, &mut self.out);
        self
    }

    /// An attribute's value (inside quotes the caller wrote), escaped.
    pub(crate) fn attr(&mut self, value: &str) -> &mut Page {
        escape(value, &mut self.out);
        self
    }

    /// A number (nothing to escape).
    pub(crate) fn num(&mut self, n: impl std::fmt::Display) -> &mut Page {
        let _ = write!(self.out, "{n}");
        self
    }

    /// A link to `href` (escaped) reading `text` (escaped).
    pub(crate) fn link(&mut self, href: &str, text: &str) -> &mut Page {
        self.raw("<a href=\"")
            .attr(href)
            .raw("\">")
            .text(text)
            .raw("</a>")
    }

    /// A paragraph of text.
    pub(crate) fn para(&mut self, text: &str) -> &mut Page {
        self.raw("<p>").text(text).raw("</p>\n")
    }

    /// A message that something went wrong, announced to screen readers.
    pub(crate) fn error(&mut self, text: &str) -> &mut Page {
        self.raw("<p class=\"error\" role=\"alert\">")
            .text(text)
            .raw("</p>\n")
    }

    /// A block of schema text (escaped), labelled for assistive technology
    /// and reachable by keyboard (it scrolls).
    pub(crate) fn code(&mut self, label: &str, text: &str) -> &mut Page {
        self.raw("<pre tabindex=\"0\" aria-label=\"")
            .attr(label)
            .raw("\"><code>")
            .text(text)
            .raw("</code></pre>\n")
    }

    /// A block of schema text in `language`, highlighted
    /// ([`highlight`](super::highlight::highlight): every token escaped),
    /// labelled and reachable by keyboard as [`code`](Page::code) is.
    pub(crate) fn schema(
        &mut self,
        label: &str,
        text: &str,
        language: dataschema_core::Language,
    ) -> &mut Page {
        self.raw("<pre tabindex=\"0\" aria-label=\"")
            .attr(label)
            .raw("\"><code class=\"hl\">");
        super::highlight::highlight(text, language, &mut self.out);
        self.raw("</code></pre>\n")
    }

    /// The page written so far (tests read it).
    #[cfg(test)]
    pub(crate) fn into_string(self) -> String {
        self.out
    }

    /// Sets the status the page is answered with.
    pub(crate) fn status(&mut self, status: StatusCode) -> &mut Page {
        self.status = status;
        self
    }

    /// The page closed and answered, `text/html`, with its security
    /// headers and `Cache-Control: no-store` (a list changes).
    pub(crate) fn finish(mut self) -> Response {
        self.out.push_str("</main>\n<footer><p>dataschema ");
        self.out.push_str(env!("CARGO_PKG_VERSION"));
        self.out
            .push_str(" · this console only reads: nothing here changes the registry</p></footer>\n</body></html>\n");
        respond(
            self.status,
            "text/html; charset=utf-8",
            Body::from(self.out),
        )
    }
}

/// An answer of the console, with its headers.
pub(crate) fn respond(status: StatusCode, content_type: &'static str, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_text_is_escaped() {
        let mut out = String::new();
        escape("<script>alert('x')</script> & \"q\"", &mut out);
        assert_eq!(
            out,
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }

    #[test]
    fn urls_encode_their_query() {
        assert_eq!(
            url("/ui/subject", &[("ns", "acme"), ("name", "a&b <c>")]),
            "/ui/subject?ns=acme&name=a%26b+%3Cc%3E"
        );
    }
}
