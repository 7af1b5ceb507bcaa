//! `format`s the scanner checks on a string's text itself, without asking
//! `jsonschema` (which would need the string as a `serde_json::Value`).
//!
//! Each check accepts exactly the strings `jsonschema` 0.61 accepts for that
//! format and draft (its documented RFC 3339 / RFC 4122 / RFC 6901 readings,
//! including its leap-second rule); the differential test
//! (`tests/validate/json_formats.rs`) holds the two equal over generated and
//! hand-picked strings. `regex` is `jsonschema`'s own ECMA-262 syntax check
//! (`jsonschema_regex::is_valid_ecma_regex`, the function its format
//! calls), asked directly rather than through a validator per string. The
//! formats whose checks are large grammars (`email`, `hostname`, `uri`,
//! `iri`, `uri-template`, the `idn-` ones) stay with `jsonschema`, on the
//! string alone; `email` and `hostname` first
//! get a quick check ([`Quick`]) that accepts their plain strings (an
//! ASCII `local@host.name`, a host name of letters, digits and hyphens)
//! without asking it, and leaves every other string to it.

use super::draft::Draft;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// A `format` the scanner checks on the raw text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::json::validate) enum Format {
    Date,
    DateTime,
    Time,
    Duration,
    Uuid,
    Ipv4,
    Ipv6,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    /// The format `name` names in `draft`, when `jsonschema` asserts it
    /// there and the scanner checks it; `None` leaves it to `jsonschema`
    /// (or to nothing: a format the draft does not know is ignored).
    pub(super) fn named(name: &str, draft: Draft) -> Option<Format> {
        Some(match name {
            "date" => Format::Date,
            "date-time" => Format::DateTime,
            "time" => Format::Time,
            "duration" if draft >= Draft::D2019 => Format::Duration,
            "uuid" if draft >= Draft::D2019 => Format::Uuid,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "json-pointer" if draft >= Draft::D6 => Format::JsonPointer,
            "relative-json-pointer" if draft >= Draft::D7 => Format::RelativeJsonPointer,
            "regex" => Format::Regex,
            _ => return None,
        })
    }

    /// Whether `text` (a string's decoded value, as UTF-8) is of this
    /// format.
    pub(in crate::json::validate) fn accepts(self, text: &[u8]) -> bool {
        match self {
            Format::Date => date(text),
            Format::DateTime => match text.iter().position(|&b| b == b'T' || b == b't') {
                Some(at) => date(&text[..at]) && time(&text[at + 1..]),
                None => false,
            },
            Format::Time => time(text),
            Format::Duration => duration(text),
            Format::Uuid => uuid(text),
            Format::Ipv4 => std::str::from_utf8(text).is_ok_and(|s| Ipv4Addr::from_str(s).is_ok()),
            Format::Ipv6 => std::str::from_utf8(text).is_ok_and(|s| Ipv6Addr::from_str(s).is_ok()),
            Format::JsonPointer => {
                text.is_empty() || (text[0] == b'/' && pointer_tokens(&text[1..]))
            }
            Format::RelativeJsonPointer => relative_pointer(text),
            Format::Regex => {
                std::str::from_utf8(text).is_ok_and(jsonschema_regex::is_valid_ecma_regex)
            }
        }
    }
}

/// Two ASCII digits as a number.
fn two(bytes: &[u8]) -> Option<u8> {
    match bytes {
        [a @ b'0'..=b'9', b @ b'0'..=b'9'] => Some((a - b'0') * 10 + (b - b'0')),
        _ => None,
    }
}

/// `YYYY-MM-DD`, a real calendar day (leap years by the Gregorian rule).
fn date(text: &[u8]) -> bool {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *text else {
        return false;
    };
    let (Some(century), Some(yy), Some(month), Some(day)) = (
        two(&[y0, y1]),
        two(&[y2, y3]),
        two(&[m0, m1]),
        two(&[d0, d1]),
    ) else {
        return false;
    };
    let year = u16::from(century) * 100 + u16::from(yy);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let last = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=last).contains(&day)
}

/// `HH:MM:SS[.frac](Z|±HH:MM)`; second 60 only at 23:59 UTC.
fn time(text: &[u8]) -> bool {
    if text.len() < 9 || text[2] != b':' || text[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (two(&text[..2]), two(&text[3..5]), two(&text[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &text[8..];
    if let [b'.', tail @ ..] = rest {
        let digits = tail.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &tail[digits..];
    }
    let (sign, offset) = match rest {
        [b'Z' | b'z'] => return second != 60 || (hour == 23 && minute == 59),
        [sign @ (b'+' | b'-'), offset @ ..] => (*sign, offset),
        _ => return false,
    };
    let [h0, h1, b':', m0, m1] = *offset else {
        return false;
    };
    let (Some(off_hour), Some(off_minute)) = (two(&[h0, h1]), two(&[m0, m1])) else {
        return false;
    };
    if off_hour > 23 || off_minute > 59 {
        return false;
    }
    if second != 60 {
        return true;
    }
    // A leap second is at 23:59:60 UTC: take the offset back out.
    let local = i32::from(hour) * 60 + i32::from(minute);
    let offset = i32::from(off_hour) * 60 + i32::from(off_minute);
    let utc = if sign == b'+' {
        local - offset
    } else {
        local + offset
    };
    utc.rem_euclid(24 * 60) == 23 * 60 + 59
}

/// RFC 3339's `duration`: `P` then date units in the order Y, M, W, D
/// (weeks alone), then optionally `T` and time units in the order H, M, S,
/// each at most once, none skipped between two present ones (Y..D without
/// M, H..S without M).
fn duration(text: &[u8]) -> bool {
    let [b'P', rest @ ..] = text else {
        return false;
    };
    if rest.is_empty() {
        return false;
    }
    // Bits 0-3: Y M W D; bits 4-6: H M S.
    let mut seen = 0u8;
    let (mut last_date, mut last_time) = (0usize, 0usize);
    let mut in_time = false;
    let mut any = false;
    let mut time_any = false;
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == b'T' {
            if in_time || seen & 0b0100 != 0 {
                return false;
            }
            in_time = true;
            i += 1;
            continue;
        }
        let digits = rest[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        i += digits;
        if digits == 0 || i == rest.len() {
            return false;
        }
        let unit = rest[i];
        if !in_time {
            let Some(at) = b"YMWD".iter().position(|&u| u == unit) else {
                return false;
            };
            let weeks = seen & 0b0100 != 0;
            if (unit == b'W' && any) || (unit != b'W' && weeks) {
                return false;
            }
            if at < last_date || seen & (1 << at) != 0 {
                return false;
            }
            seen |= 1 << at;
            last_date = at;
        } else {
            let Some(at) = b"HMS".iter().position(|&u| u == unit) else {
                return false;
            };
            if at < last_time || seen & (1 << (at + 4)) != 0 {
                return false;
            }
            seen |= 1 << (at + 4);
            last_time = at;
            time_any = true;
        }
        any = true;
        i += 1;
    }
    let has = |bit: u8| seen & (1 << bit) != 0;
    any && (!in_time || time_any)
        && !(has(0) && has(3) && !has(1))
        && !(has(4) && has(6) && !has(5))
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hex digits of either case.
fn uuid(text: &[u8]) -> bool {
    text.len() == 36
        && text.iter().enumerate().all(|(at, b)| match at {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// A JSON pointer's reference tokens after their first `/`: `~` only as
/// `~0` or `~1`.
fn pointer_tokens(text: &[u8]) -> bool {
    let mut escaped = false;
    for &b in text {
        match b {
            b'0' | b'1' if escaped => escaped = false,
            _ if escaped => return false,
            b'~' => escaped = true,
            _ => {}
        }
    }
    !escaped
}

/// A relative JSON pointer: a non-negative integer without leading zeros,
/// then nothing, `#`, or a JSON pointer.
fn relative_pointer(text: &[u8]) -> bool {
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || (text[0] == b'0' && digits > 1) {
        return false;
    }
    match &text[digits..] {
        [] | [b'#'] => true,
        [b'/', tokens @ ..] => pointer_tokens(tokens),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_follow_rfc_3339_and_the_leap_second_rule() {
        let yes = |f: Format, s: &str| assert!(f.accepts(s.as_bytes()), "{f:?} refused {s:?}");
        let no = |f: Format, s: &str| assert!(!f.accepts(s.as_bytes()), "{f:?} accepted {s:?}");
        yes(Format::Date, "2024-02-29");
        no(Format::Date, "2023-02-29");
        no(Format::Date, "1900-02-29");
        yes(Format::Date, "2000-02-29");
        no(Format::Date, "2024-13-01");
        no(Format::Date, "2024-1-01");
        yes(Format::DateTime, "2024-05-01T10:00:00.123+02:00");
        yes(Format::DateTime, "2024-05-01t10:00:00z");
        no(Format::DateTime, "2024-05-01 10:00:00Z");
        yes(Format::Time, "23:59:60Z");
        no(Format::Time, "22:59:60Z");
        yes(Format::Time, "15:59:60-08:00");
        no(Format::Time, "10:00:00.Z");
        no(Format::Time, "10:00:00+2:00");
        yes(Format::Duration, "P1Y2M3DT4H5M6S");
        yes(Format::Duration, "P4W");
        no(Format::Duration, "P1Y1D");
        no(Format::Duration, "PT1H1S");
        no(Format::Duration, "P1W1D");
        no(Format::Duration, "PT");
        no(Format::Duration, "P");
        yes(Format::Uuid, "2EB8AA08-AA98-11EA-B4AA-73B441D16380");
        no(Format::Uuid, "2eb8aa08aa9811eab4aa73b441d16380");
        yes(Format::JsonPointer, "/a~1b/~0");
        no(Format::JsonPointer, "/a~2");
        no(Format::JsonPointer, "a");
        yes(Format::RelativeJsonPointer, "0#");
        yes(Format::RelativeJsonPointer, "12/a");
        no(Format::RelativeJsonPointer, "01/a");
    }
}

/// A `format` whose check stays with `jsonschema` (a large grammar), with
/// a quick check that accepts a common subset of its strings: every string
/// the quick check accepts, `jsonschema` accepts; any other string is
/// asked about. Email addresses and host names in events are mostly the
/// plain ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::json::validate) enum Quick {
    /// `email`: `jsonschema` parses it with `email_address` (default
    /// options) and checks its domain as a `hostname`.
    Email,
    /// `hostname`, in every draft (drafts 4 and 6 check the ASCII rules
    /// only, the later ones A-labels too).
    Hostname,
}

impl Quick {
    /// The quick check of the format `name`, when it has one.
    pub(super) fn named(name: &str) -> Option<Quick> {
        match name {
            "email" => Some(Quick::Email),
            "hostname" => Some(Quick::Hostname),
            _ => None,
        }
    }

    /// Whether `text` (a string's text, as UTF-8) is surely of this
    /// format; `false` says nothing.
    #[inline]
    pub(in crate::json::validate) fn surely_accepts(self, text: &[u8]) -> bool {
        match self {
            Quick::Email => match text.iter().rposition(|&b| b == b'@') {
                Some(at) => dot_atom(&text[..at]) && plain_hostname(&text[at + 1..]),
                None => false,
            },
            Quick::Hostname => plain_hostname(text),
        }
    }
}

/// An unquoted local part: atoms of ASCII `atext` (RFC 5322: letters,
/// digits and ``!#$%&'*+-/=?^_`{|}~``) joined by single dots, 1 to 64
/// bytes. No space, quote, `<` or `@`: `email_address` finds no display
/// name in the address and splits it at its only `@`.
fn dot_atom(local: &[u8]) -> bool {
    (1..=64).contains(&local.len())
        && local.split(|&b| b == b'.').all(|atom| {
            !atom.is_empty()
                && atom
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b))
        })
}

/// A host name of ASCII letters, digits and hyphens: 1 to 253 bytes,
/// labels of 1 to 63 bytes, none starting or ending with a hyphen nor
/// holding hyphens in its third and fourth places (the A-labels, `xn--`,
/// which `jsonschema` decodes, and the names RFC 5891 reserves).
fn plain_hostname(host: &[u8]) -> bool {
    (1..=253).contains(&host.len())
        && host.split(|&b| b == b'.').all(|label| {
            (1..=63).contains(&label.len())
                && label[0] != b'-'
                && label[label.len() - 1] != b'-'
                && !(label.len() >= 4 && label[2] == b'-' && label[3] == b'-')
                && label
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'-')
        })
}
