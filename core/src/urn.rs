//! Schema URNs: `urn:<nid>:schema:<name>:<version>`.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// The longest schema name accepted.
pub const MAX_NAME_LEN: usize = 200;

/// A permanent schema identifier: `urn:<nid>:schema:<name>:<version>`.
///
/// * `<nid>` is an RFC 8141 namespace identifier (parsed with the `urn`
///   crate): letters, digits and `-`, 2 to 32 characters.
/// * `<name>` is lowercase ASCII letters, digits, `.`, `_` and `-`, starting
///   with a letter or digit, at most 200 characters.
/// * `<version>` is a decimal integer from 1 to `u32::MAX`, with no sign and
///   no leading zeros.
///
/// Equivalence follows RFC 8141: the `urn:` prefix and the NID compare
/// case-insensitively, the rest exactly. [`Display`](fmt::Display) writes the
/// canonical form (lowercase prefix and NID), and equal URNs display equally.
/// URNs order by namespace, then name, then version numerically.
///
/// ```
/// use dataschema::Urn;
///
/// let urn: Urn = "URN:Acme:schema:orders.created:3".parse()?;
/// assert_eq!(urn.to_string(), "urn:acme:schema:orders.created:3");
/// assert_eq!((urn.namespace(), urn.name(), urn.version()), ("acme", "orders.created", 3));
/// assert!("urn:acme:schema:orders.created:03".parse::<Urn>().is_err());
/// # Ok::<(), dataschema::Error>(())
/// ```
#[derive(Clone)]
pub struct Urn {
    /// The canonical form.
    text: Box<str>,
    /// `text[4..nid_end]` is the NID.
    nid_end: usize,
    /// `text[name_start..name_end]` is the name.
    name_start: usize,
    name_end: usize,
    version: u32,
}

/// Which part of a URN was wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrnError {
    /// Not an RFC 8141 URN at all (missing `urn:` prefix, bad NID, bad
    /// characters), with the `urn` crate's reason.
    #[error("not an RFC 8141 URN ({0})")]
    Syntax(&'static str),
    /// The URN has `?+`, `?=` or `#` components, which schema URNs never carry.
    #[error("a schema URN has no `?+`, `?=` or `#` components")]
    Components,
    /// The namespace-specific string does not start with `schema:`.
    #[error("expected `schema` after the namespace: urn:<nid>:schema:<name>:<version>")]
    NotSchema,
    /// The name is empty.
    #[error("the name is empty")]
    EmptyName,
    /// The name is longer than 200 characters.
    #[error("the name is longer than {MAX_NAME_LEN} characters")]
    NameTooLong,
    /// The name does not start with a lowercase letter or digit.
    #[error("the name must start with a lowercase letter or a digit")]
    NameStart,
    /// The name has a character outside `a-z 0-9 . _ -`.
    #[error("the name may hold only lowercase letters, digits, `.`, `_` and `-`")]
    NameCharacter,
    /// There is no `:<version>` after the name.
    #[error("no version: expected `:<version>` after the name")]
    MissingVersion,
    /// The version is not a decimal integer from 1 to 4294967295 without
    /// sign or leading zeros.
    #[error(
        "the version must be a decimal integer from 1 to 4294967295, with no sign or leading zeros"
    )]
    Version,
}

impl UrnError {
    fn from_urn_crate(err: urn::Error) -> UrnError {
        UrnError::Syntax(match err {
            urn::Error::InvalidScheme => "it must start with `urn:`",
            urn::Error::InvalidNid => "the namespace identifier is invalid",
            urn::Error::InvalidNss => "the namespace-specific string is invalid",
            urn::Error::InvalidRComponent
            | urn::Error::InvalidQComponent
            | urn::Error::InvalidFComponent => "a component is invalid",
            _ => "malformed",
        })
    }
}

/// The parts of a URN, borrowed from the canonical form.
pub struct Parsed<'a> {
    /// The canonical form (`urn:` and the NID lowercased).
    pub canonical: Cow<'a, str>,
    /// Where the NID ends in `canonical`.
    pub nid_end: usize,
    /// Where the name starts in `canonical`.
    pub name_start: usize,
    /// Where the name ends in `canonical`.
    pub name_end: usize,
    /// The version.
    pub version: u32,
}

/// Parses `input`, borrowing it when it is already canonical (the common
/// case on the guard's hot path), allocating only when the prefix or NID
/// had to be lowercased.
#[inline]
pub fn parse(input: &str) -> Result<Parsed<'_>, UrnError> {
    match parse_canonical(input) {
        Some(parsed) => Ok(parsed),
        None => parse_full(input),
    }
}

/// The hot path: a single scan that accepts only canonical schema URNs
/// (lowercase `urn:` and NID, nothing to percent-decode, no components).
/// Everything it accepts the full parse accepts identically (a property
/// test checks it); `None` sends the input to the full parse, which also
/// explains what is wrong.
#[inline]
fn parse_canonical(input: &str) -> Option<Parsed<'_>> {
    let bytes = input.as_bytes();
    let rest = bytes.strip_prefix(b"urn:")?;
    let nid_len = rest.iter().position(|&b| b == b':')?;
    let nid = &rest[..nid_len];
    if !(2..=32).contains(&nid_len)
        || nid[0] == b'-'
        || nid[nid_len - 1] == b'-'
        || !nid
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return None;
    }
    let after_nid = &rest[nid_len..];
    let tail = after_nid.strip_prefix(b":schema:")?;
    let colon = tail.iter().rposition(|&b| b == b':')?;
    let name = &tail[..colon];
    let first = *name.first()?;
    if name.len() > MAX_NAME_LEN
        || !(first.is_ascii_lowercase() || first.is_ascii_digit())
        || !name.iter().all(|&b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        })
    {
        return None;
    }
    let digits = &tail[colon + 1..];
    if digits.is_empty() || digits.len() > 10 || digits[0] == b'0' {
        return None;
    }
    let mut version: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        version = version * 10 + u64::from(b - b'0');
    }
    let version = u32::try_from(version).ok()?;
    let nid_end = 4 + nid_len;
    let name_start = nid_end + ":schema:".len();
    Some(Parsed {
        canonical: Cow::Borrowed(input),
        nid_end,
        name_start,
        name_end: name_start + name.len(),
        version,
    })
}

/// The general parse: RFC 8141 syntax with the `urn` crate, then the
/// schema grammar.
fn parse_full(input: &str) -> Result<Parsed<'_>, UrnError> {
    let slice = urn::UrnSlice::try_from(input).map_err(UrnError::from_urn_crate)?;
    if slice.r_component().is_some()
        || slice.q_component().is_some()
        || slice.f_component().is_some()
    {
        return Err(UrnError::Components);
    }
    // RFC 8141 (unlike RFC 2141, which the `urn` crate also accepts): a
    // NID ends with a letter or digit.
    if slice.nid().ends_with('-') {
        return Err(UrnError::Syntax("the namespace identifier is invalid"));
    }
    let nid_end = 4 + slice.nid().len();
    let nss = slice.nss();
    let rest = nss.strip_prefix("schema:").ok_or(UrnError::NotSchema)?;
    let (name, version) = rest.rsplit_once(':').ok_or(UrnError::MissingVersion)?;
    check_name(name)?;
    let version = parse_version(version)?;
    let name_start = nid_end + 1 + "schema:".len();
    let name_end = name_start + name.len();
    let canonical = if slice.as_str() == input {
        Cow::Borrowed(input)
    } else {
        Cow::Owned(slice.as_str().to_owned())
    };
    Ok(Parsed {
        canonical,
        nid_end,
        name_start,
        name_end,
        version,
    })
}

/// Checks a schema name against the grammar.
pub fn check_name(name: &str) -> Result<(), UrnError> {
    let bytes = name.as_bytes();
    let first = *bytes.first().ok_or(UrnError::EmptyName)?;
    if bytes.len() > MAX_NAME_LEN {
        return Err(UrnError::NameTooLong);
    }
    if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
        return Err(UrnError::NameStart);
    }
    if !bytes
        .iter()
        .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(UrnError::NameCharacter);
    }
    Ok(())
}

fn parse_version(text: &str) -> Result<u32, UrnError> {
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return Err(UrnError::MissingVersion);
    }
    if bytes[0] == b'0' || !bytes.iter().all(u8::is_ascii_digit) {
        return Err(UrnError::Version);
    }
    text.parse::<u32>().map_err(|_| UrnError::Version)
}

impl Urn {
    /// Checks a schema name (the `<name>` of `urn:<nid>:schema:<name>:<version>`)
    /// against the grammar: what the registry checks before it lists a
    /// name's versions.
    ///
    /// ```
    /// use dataschema_core::{Urn, UrnError};
    /// assert!(Urn::check_name("order.created").is_ok());
    /// assert_eq!(Urn::check_name(""), Err(UrnError::EmptyName));
    /// ```
    pub fn check_name(name: &str) -> Result<(), UrnError> {
        check_name(name)
    }

    /// The namespace identifier (the NID), lowercase.
    pub fn namespace(&self) -> &str {
        &self.text[4..self.nid_end]
    }

    /// The schema name (`orders.created`).
    pub fn name(&self) -> &str {
        &self.text[self.name_start..self.name_end]
    }

    /// The version, from 1.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The canonical form, as [`Display`](fmt::Display) writes it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The URN of parts [`parse_urn`](crate::parse_urn) found (the guard's
    /// allocation-free lookup; not API).
    #[doc(hidden)]
    pub fn from_parsed(parsed: Parsed<'_>) -> Urn {
        Urn {
            text: parsed.canonical.into_owned().into_boxed_str(),
            nid_end: parsed.nid_end,
            name_start: parsed.name_start,
            name_end: parsed.name_end,
            version: parsed.version,
        }
    }
}

impl fmt::Display for Urn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for Urn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Urn({:?})", &*self.text)
    }
}

impl PartialEq for Urn {
    fn eq(&self, other: &Urn) -> bool {
        self.text == other.text
    }
}

impl Eq for Urn {}

impl Hash for Urn {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl Ord for Urn {
    fn cmp(&self, other: &Urn) -> Ordering {
        (self.namespace(), self.name(), self.version).cmp(&(
            other.namespace(),
            other.name(),
            other.version,
        ))
    }
}

impl PartialOrd for Urn {
    fn partial_cmp(&self, other: &Urn) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl AsRef<str> for Urn {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl serde::Serialize for Urn {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for Urn {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Urn, D::Error> {
        let text = <Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    fn same(a: &Result<Parsed<'_>, UrnError>, b: &Result<Parsed<'_>, UrnError>) -> bool {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                (&a.canonical, a.nid_end, a.name_start, a.name_end, a.version)
                    == (&b.canonical, b.nid_end, b.name_start, b.name_end, b.version)
            }
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        /// Whatever the fast path accepts, the full parse accepts the same way.
        #[test]
        fn the_fast_path_agrees_with_the_full_parse(
            input in "(urn|URN|urx):[a-zA-Z0-9-]{0,34}:(schema|Schema|schemas):[a-z0-9._A-Z:%?#=+-]{0,12}:[0-9+-]{0,12}"
        ) {
            if let Some(fast) = parse_canonical(&input) {
                prop_assert!(same(&Ok(fast), &parse_full(&input)), "{}", input);
            }
        }
    }

    #[test]
    fn the_fast_path_takes_canonical_urns_only() {
        assert!(parse_canonical("urn:acme:schema:orders.created:3").is_some());
        assert!(parse_canonical("urn:acme:schema:a:4294967295").is_some());
        for other in [
            "URN:acme:schema:a:1",
            "urn:Acme:schema:a:1",
            "urn:acme-:schema:a:1",
            "urn:acme:schema:a:4294967296",
            "urn:acme:schema:a:01",
            "urn:acme:schema:a:1#f",
            "urn:a:schema:a:1",
        ] {
            assert!(parse_canonical(other).is_none(), "{other}");
        }
        assert!(
            parse("urn:acme-:schema:a:1").is_err(),
            "RFC 8141: a NID does not end with `-`"
        );
    }

    #[test]
    fn canonical_input_is_borrowed() {
        let parsed = parse("urn:acme:schema:a:1").unwrap();
        assert!(matches!(parsed.canonical, Cow::Borrowed(_)));
        let parsed = parse("URN:ACME:schema:a:1").unwrap();
        assert_eq!(parsed.canonical, "urn:acme:schema:a:1");
    }
}
