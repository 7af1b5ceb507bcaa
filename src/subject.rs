//! Confluent subjects as URN names, reversibly.
//!
//! A Confluent subject is any string without control characters
//! (`Orders-value`, `com.acme.Order`, `proto/orders.proto`, the
//! context-qualified `:.staging:orders-value`); a URN name is lowercase
//! ASCII letters, digits, `.`, `_` and `-`, starting with a letter or digit
//! ([`Urn::check_name`]). [`name_of`] writes a subject as a name and
//! [`subject_of`] reads it back; the two are inverse on every subject and
//! every name that is the writing of one:
//!
//! * A subject that is a URN name already and holds no `..` is its own
//!   name: `orders-value`, `test_register.v2` (every subject this server
//!   took before the mapping keeps its URN).
//! * Any other subject is written `x..` followed by the subject, each
//!   character kept when it is a lowercase letter, a digit, `.` or `-`,
//!   else escaped with `_`: an upper case letter as `_` and the letter in
//!   lower case (`O` is `_o`), `_` as `__`, and every other byte of its
//!   UTF-8 as `_-` and two lowercase hex digits (`:` is `_-3a`, `/` is
//!   `_-2f`). So `Orders-value` is `x.._orders-value`, `com.acme.Order`
//!   is `x..com.acme._order` and `:.staging:orders-value` is
//!   `x.._-3a.staging_-3aorders-value`.
//!
//! A plain name never holds `..`, and a written one always starts with
//! `x..`: the two forms cannot meet. A name holding `..` that is not the
//! exact writing of a subject (a native publish may choose any name) is no
//! subject's: [`subject_of`] answers `None` and the Confluent API does not
//! list it.
//!
//! A context-qualified subject in the default context (`:.:orders-value`)
//! is the plain subject (`orders-value`), as in Confluent.
//!
//! ```
//! use dataschema::subject::{name_of, subject_of};
//!
//! assert_eq!(name_of("orders-value").unwrap(), "orders-value");
//! assert_eq!(name_of("Orders-value").unwrap(), "x.._orders-value");
//! assert_eq!(subject_of("x.._orders-value").as_deref(), Some("Orders-value"));
//! assert_eq!(name_of(":.:orders-value").unwrap(), "orders-value");
//! ```

use std::fmt;

use dataschema_core::Urn;

/// The longest URN name (`dataschema_core`'s bound).
const MAX_NAME_LEN: usize = 200;

/// The start of every written (escaped) name.
const ESCAPED: &str = "x..";

/// Why a subject has no URN name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubjectError {
    /// The subject is empty.
    Empty,
    /// The subject holds a control character (Confluent refuses those too).
    Control,
    /// Written as a name, the subject is longer than a URN name may be.
    TooLong {
        /// The length of the written name.
        len: usize,
    },
}

impl fmt::Display for SubjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubjectError::Empty => f.write_str("the subject is empty"),
            SubjectError::Control => f.write_str("the subject holds a control character"),
            SubjectError::TooLong { len } => write!(
                f,
                "written as a URN name the subject is {len} characters, more than the \
                 {MAX_NAME_LEN} a name may have"
            ),
        }
    }
}

impl std::error::Error for SubjectError {}

/// Confluent's subject name strategies: the subject a Kafka serializer
/// registers (and looks up) a record's schema under, from the topic and
/// the record's fully-qualified name (Confluent's
/// `io.confluent.kafka.serializers.subject` classes of the same names).
/// A producer that addresses schemas by topic finds the URN with
/// [`name_of`] (and, for the latest version a bundle holds,
/// [`Framer::latest`](crate::Framer::latest)).
///
/// ```
/// use dataschema::subject::SubjectNameStrategy;
///
/// let record = "com.acme.Order";
/// assert_eq!(SubjectNameStrategy::TopicName.subject("orders", false, record), "orders-value");
/// assert_eq!(SubjectNameStrategy::TopicName.subject("orders", true, record), "orders-key");
/// assert_eq!(SubjectNameStrategy::RecordName.subject("orders", false, record), "com.acme.Order");
/// assert_eq!(
///     SubjectNameStrategy::TopicRecordName.subject("orders", false, record),
///     "orders-com.acme.Order"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SubjectNameStrategy {
    /// `<topic>-key` or `<topic>-value` (Confluent's default): one schema
    /// a topic.
    #[default]
    TopicName,
    /// The record's fully-qualified name: one schema a record type, on
    /// any topic.
    RecordName,
    /// `<topic>-<record>`: one schema a record type and topic.
    TopicRecordName,
}

impl SubjectNameStrategy {
    /// The subject of a record of `record` (its fully-qualified name: an
    /// Avro record's `namespace.name`, a protobuf message's full name, a
    /// JSON Schema's `title`) on `topic`, as a key (`key`) or a value.
    pub fn subject(self, topic: &str, key: bool, record: &str) -> String {
        match self {
            SubjectNameStrategy::TopicName => {
                format!("{topic}-{}", if key { "key" } else { "value" })
            }
            SubjectNameStrategy::RecordName => record.to_owned(),
            SubjectNameStrategy::TopicRecordName => format!("{topic}-{record}"),
        }
    }
}

/// The subject as Confluent reads it: a default-context qualification
/// (`:.:`) dropped.
fn unqualified(subject: &str) -> &str {
    subject.strip_prefix(":.:").unwrap_or(subject)
}

/// The URN name of `subject` (see the [module](self) documentation).
pub fn name_of(subject: &str) -> Result<String, SubjectError> {
    let subject = unqualified(subject);
    if subject.is_empty() {
        return Err(SubjectError::Empty);
    }
    if subject.chars().any(char::is_control) {
        return Err(SubjectError::Control);
    }
    if Urn::check_name(subject).is_ok() && !subject.contains("..") {
        return Ok(subject.to_owned());
    }
    let mut name = String::with_capacity(ESCAPED.len() + subject.len() + 8);
    name.push_str(ESCAPED);
    for c in subject.chars() {
        match c {
            'a'..='z' | '0'..='9' | '.' | '-' => name.push(c),
            'A'..='Z' => {
                name.push('_');
                name.push(c.to_ascii_lowercase());
            }
            '_' => name.push_str("__"),
            _ => {
                let mut utf8 = [0; 4];
                for byte in c.encode_utf8(&mut utf8).bytes() {
                    name.push_str("_-");
                    name.push(hex_digit(byte >> 4));
                    name.push(hex_digit(byte & 0xf));
                }
            }
        }
    }
    if name.len() > MAX_NAME_LEN {
        return Err(SubjectError::TooLong { len: name.len() });
    }
    Ok(name)
}

/// The subject whose URN name is `name`, or `None` when `name` is the
/// writing of no subject.
pub fn subject_of(name: &str) -> Option<String> {
    let Some(body) = name.strip_prefix(ESCAPED) else {
        if name.contains("..") || Urn::check_name(name).is_err() {
            return None;
        }
        return Some(name.to_owned());
    };
    let mut bytes = Vec::with_capacity(body.len());
    let mut rest = body.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'_' {
            bytes.push(b);
            continue;
        }
        let (&kind, tail) = rest.split_first()?;
        rest = tail;
        match kind {
            b'a'..=b'z' => bytes.push(kind.to_ascii_uppercase()),
            b'_' => bytes.push(b'_'),
            b'-' => {
                let (&high, tail) = rest.split_first()?;
                let (&low, tail) = tail.split_first()?;
                rest = tail;
                bytes.push(hex_value(high)? << 4 | hex_value(low)?);
            }
            _ => return None,
        }
    }
    let subject = String::from_utf8(bytes).ok()?;
    // Only the exact writing of a subject is its name.
    match name_of(&subject) {
        Ok(written) if written == name => Some(subject),
        _ => None,
    }
}

/// The context of a subject: `.staging` for `:.staging:orders-value`, `.`
/// (the default context) for any subject not qualified by one.
pub fn context_of(subject: &str) -> &str {
    if let Some(rest) = subject.strip_prefix(":.") {
        if let Some(end) = rest.find(':') {
            let context = &subject[1..2 + end];
            if context != "." {
                return context;
            }
        }
    }
    "."
}

/// `subject` as one segment of a URL path: every byte but the unreserved
/// ones (`A-Z a-z 0-9 - . _ ~`) percent-encoded, so a subject with `/`,
/// `:` or `%` names one path segment.
pub fn path_segment(subject: &str) -> String {
    let mut out = String::with_capacity(subject.len());
    for byte in subject.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(hex_digit(byte >> 4).to_ascii_uppercase());
            out.push(hex_digit(byte & 0xf).to_ascii_uppercase());
        }
    }
    out
}

fn hex_digit(nibble: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(nibble & 0xf)])
}

fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn subjects_confluent_clients_use() {
        let cases = [
            ("orders-value", "orders-value"),
            ("test_register_incompatible", "test_register_incompatible"),
            ("basic_schema.avsc-1f2e", "basic_schema.avsc-1f2e"),
            ("Orders-value", "x.._orders-value"),
            ("com.acme.Order", "x..com.acme._order"),
            ("proto/orders.proto", "x..proto_-2forders.proto"),
            (":.staging:orders-value", "x.._-3a.staging_-3aorders-value"),
            ("my_Topic", "x..my___topic"),
            ("a..b", "x..a..b"),
            ("_private", "x..__private"),
            ("é", "x.._-c3_-a9"),
        ];
        for (subject, name) in cases {
            assert_eq!(name_of(subject).unwrap(), name, "{subject}");
            assert!(Urn::check_name(name).is_ok(), "{name}");
            assert_eq!(subject_of(name).as_deref(), Some(subject), "{name}");
        }
        assert_eq!(name_of(":.:orders-value").unwrap(), "orders-value");
        assert_eq!(name_of(""), Err(SubjectError::Empty));
        assert_eq!(name_of("a\nb"), Err(SubjectError::Control));
        assert!(matches!(
            name_of(&"A".repeat(150)),
            Err(SubjectError::TooLong { .. })
        ));
    }

    #[test]
    fn names_that_write_no_subject() {
        for name in [
            "x..abc",  // abc is plain: its name is abc
            "x.._-61", // `a` escaped needlessly
            "x.._",    // a lone escape
            "x.._-3",  // a short hex escape
            "x.._-zz", // not hex
            "x.._-ff", // not UTF-8
            "x.._1",   // no such escape
            "a..b",    // `..` outside a written name
            "Upper",   // not a URN name at all
        ] {
            assert_eq!(subject_of(name), None, "{name}");
        }
    }

    #[test]
    fn path_segments() {
        assert_eq!(path_segment("orders-value"), "orders-value");
        assert_eq!(
            path_segment(":.staging:a/b c%"),
            "%3A.staging%3Aa%2Fb%20c%25"
        );
    }

    #[test]
    fn contexts() {
        assert_eq!(context_of(":.staging:orders-value"), ".staging");
        assert_eq!(context_of("orders-value"), ".");
        assert_eq!(context_of(":.:orders-value"), ".");
        assert_eq!(context_of(":.nocolon"), ".");
    }

    /// `subject` written as a URN name reads back as itself (a subject
    /// too long once written is refused for that alone).
    fn round_trips(subject: &str) -> Result<(), TestCaseError> {
        let expected = subject.strip_prefix(":.:").unwrap_or(subject);
        if expected.is_empty() {
            return Ok(());
        }
        let name = match name_of(subject) {
            Ok(name) => name,
            Err(SubjectError::TooLong { len }) => {
                prop_assert!(len > MAX_NAME_LEN);
                return Ok(());
            }
            Err(err) => return Err(TestCaseError::fail(err.to_string())),
        };
        prop_assert!(Urn::check_name(&name).is_ok(), "{name}");
        let back = subject_of(&name);
        prop_assert_eq!(back.as_deref(), Some(expected));
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Every subject a Confluent client may send maps to a URN name and
        /// back to itself.
        #[test]
        fn every_subject_round_trips(subject in "\\PC{1,40}") {
            round_trips(&subject)?;
        }

        /// ASCII subjects, where escapes and plain names meet most often.
        #[test]
        fn ascii_subjects_round_trip(subject in "[ -~]{1,60}") {
            round_trips(&subject)?;
        }

        /// A name is the writing of at most one subject: reading any name
        /// back and writing it again gives the name.
        #[test]
        fn names_read_back_only_as_their_own_subject(name in "[a-z0-9._-]{1,40}") {
            if let Some(subject) = subject_of(&name) {
                prop_assert_eq!(name_of(&subject).unwrap(), name);
            }
        }
    }
}
