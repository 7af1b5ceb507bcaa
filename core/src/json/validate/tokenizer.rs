//! The tokenizer of the JSON scanner: a cursor over the payload bytes
//! that reads tokens exactly as `serde_json::from_slice::<Value>` accepts
//! them (see [`super::scanner`] for what that means), and skips values.

use serde_json::Number;

use super::plan::{Member, Node};
use super::MAX_NESTING;

/// Why a scan stopped before its verdict.
pub(crate) enum Stop {
    /// The bytes are not JSON (as serde_json reads it): invalid.
    NotJson,
    /// Past the look-ahead budget: ask `jsonschema`.
    Unsure,
    /// A backtracking `pattern` match ran out of its budget: no verdict
    /// (the scanner does not ask `jsonschema`, which would run out of it
    /// again, once per such match in the payload).
    Undecided,
}

pub(crate) type Scan<T> = Result<T, Stop>;

/// The bytes are not JSON: [`Stop::NotJson`], for the token readers, whose
/// small results come back in registers.
pub(crate) struct NotJson;

/// A number as serde_json reads it into a `Number` (one of three kinds).
#[derive(Clone, Copy)]
pub(crate) enum Num {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

impl From<Num> for Number {
    #[inline(always)]
    fn from(n: Num) -> Number {
        match n {
            Num::Unsigned(n) => Number::from(n),
            Num::Signed(n) => Number::from(n),
            // Finite: the scanner's own floats are, and serde_json's too.
            Num::Float(x) => Number::from_f64(x).unwrap_or_else(|| Number::from(0u64)),
        }
    }
}

/// A string token: its body between the quotes (valid UTF-8, escapes not
/// yet decoded) and whether it holds an escape.
#[derive(Clone, Copy)]
pub(crate) struct Str<'a> {
    pub(crate) body: &'a str,
    pub(crate) escaped: bool,
}

impl Str<'_> {
    /// The text into `out`, escapes decoded.
    pub(crate) fn decode_into(&self, out: &mut String) {
        out.clear();
        if !self.escaped {
            out.push_str(self.body);
            return;
        }
        // The runs between escapes copied whole, each escape decoded alone.
        out.reserve(self.body.len());
        for (run, escaped) in runs(self.body) {
            out.push_str(run);
            out.extend(escaped);
        }
    }

    /// Length in Unicode code points, as `jsonschema` counts it.
    pub(crate) fn chars(&self) -> u64 {
        let count = |run: &str| run.bytes().filter(|&b| (b & 0xC0) != 0x80).count() as u64;
        if !self.escaped {
            return count(self.body);
        }
        runs(self.body)
            .map(|(run, escaped)| count(run) + u64::from(escaped.is_some()))
            .sum()
    }

    pub(crate) fn same_text(&self, other: &Str<'_>) -> bool {
        if !self.escaped && !other.escaped {
            return self.body == other.body;
        }
        Unescape::new(self.body).eq(Unescape::new(other.body))
    }
}

/// A checked string body as its runs of plain text (a backslash found by
/// `str::find`'s byte search), each with the character of the escape that
/// ends it (`None` for the last run).
fn runs(body: &str) -> impl Iterator<Item = (&str, Option<char>)> {
    let mut rest = Some(body);
    std::iter::from_fn(move || {
        let text = rest?;
        let Some(at) = text.find('\\') else {
            rest = None;
            return Some((text, None));
        };
        let (c, len) = escape(&text[at + 1..]);
        rest = Some(&text[at + 1 + len..]);
        Some((&text[..at], Some(c)))
    })
}

/// The character of the escape whose text follows its backslash at the
/// start of `after`, in a checked string body, and how many bytes of
/// `after` it takes (a surrogate pair's two escapes are one character; a
/// lone surrogate, which the scanner refuses, reads as U+FFFD).
#[inline]
fn escape(after: &str) -> (char, usize) {
    let hex4 = |at: usize| {
        let digits = after.get(at..at + 4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(digits, 16).ok()
    };
    let Some(letter) = after.chars().next() else {
        return ('\u{FFFD}', 0);
    };
    let c = match letter {
        'b' => '\u{8}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'u' => {
            let Some(n) = hex4(1) else {
                return ('\u{FFFD}', 1);
            };
            if (0xD800..0xDC00).contains(&n) && after.get(5..7) == Some("\\u") {
                if let Some(low) = hex4(7) {
                    let code = 0x1_0000 + ((n - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                    return (char::from_u32(code).unwrap_or('\u{FFFD}'), 11);
                }
            }
            return (char::from_u32(n).unwrap_or('\u{FFFD}'), 5);
        }
        other => other,
    };
    (c, letter.len_utf8())
}

/// The characters of a checked string body, escapes decoded.
pub(crate) struct Unescape<'a> {
    rest: &'a str,
}

impl<'a> Unescape<'a> {
    pub(crate) fn new(body: &'a str) -> Unescape<'a> {
        Unescape { rest: body }
    }
}

impl Iterator for Unescape<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let mut chars = self.rest.chars();
        let c = chars.next()?;
        let after = chars.as_str();
        if c != '\\' {
            self.rest = after;
            return Some(c);
        }
        if after.is_empty() {
            self.rest = after;
            return None;
        }
        let (c, len) = escape(after);
        self.rest = &after[len..];
        Some(c)
    }
}

/// A position in the payload.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    pub(crate) fn ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            // Every JSON whitespace byte is at most a space: one compare
            // passes the common byte (none: compact JSON).
            if b > b' ' || !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.pos += 1;
        }
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    pub(crate) fn literal(&mut self, word: &[u8]) -> Scan<()> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(Stop::NotJson)
        }
    }

    /// After a member or an item: `,` (true) or the closing byte (false).
    #[inline(always)]
    pub(crate) fn next_or_close(&mut self, close: u8) -> Scan<bool> {
        self.ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                self.ws();
                Ok(true)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(Stop::NotJson),
        }
    }

    /// A string token, the cursor on its opening quote. Inlined: the
    /// common token (ASCII, no escape) is found eight bytes at a time and
    /// returned in registers; anything else continues out of line.
    #[inline(always)]
    pub(crate) fn string(&mut self) -> Scan<Str<'a>> {
        let bytes = self.bytes;
        let start = self.pos + 1;
        let mut i = start;
        // Eight bytes at a time, to the first that needs a look.
        while let Some(word) = bytes.get(i..i + 8) {
            let mask = special(word);
            if mask != 0 {
                i += (mask.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        if bytes.get(i) == Some(&b'"') {
            // SAFETY: every byte of `start..i` was checked (by `special`)
            // to be ASCII, and ASCII is valid UTF-8.
            let body = unsafe { std::str::from_utf8_unchecked(&bytes[start..i]) };
            self.pos = i + 1;
            return Ok(Str {
                body,
                escaped: false,
            });
        }
        let (end, escaped) = self.string_rest(i).map_err(|NotJson| Stop::NotJson)?;
        // SAFETY: `string_rest` checked `start..end` to be UTF-8.
        let body = unsafe { std::str::from_utf8_unchecked(&bytes[start..end]) };
        self.pos = end + 1;
        Ok(Str { body, escaped })
    }

    /// The rest of a string token from `i` (the bytes before `i` are plain
    /// ASCII): escapes, non-ASCII, the end of the input. Gives where the
    /// closing quote is and whether the body holds an escape, once the body
    /// is checked to be UTF-8 (a small value, returned in registers).
    #[inline(never)]
    fn string_rest(&self, mut i: usize) -> Result<(usize, bool), NotJson> {
        let bytes = self.bytes;
        let start = i;
        let mut escaped = false;
        let mut ascii = true;
        loop {
            // Eight bytes at a time to the next quote, backslash or control
            // character, non-ASCII bytes included (their high bits noted):
            // the bytes before it are read here, not one at a time below.
            while let Some(word) = bytes.get(i..i + 8) {
                let w = word_of(word);
                let mask = delimiters(w);
                // The bits below the first flagged byte's high bit: the
                // high bits of the bytes before it.
                let before = (mask & mask.wrapping_neg()).wrapping_sub(1);
                ascii &= (w & HIGH & before) == 0;
                if mask != 0 {
                    i += (mask.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            match bytes.get(i) {
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    i += 1;
                    match bytes.get(i) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 1,
                        Some(b'u') => {
                            let n = hex4(bytes, i + 1).map_err(|_| NotJson)?;
                            i += 5;
                            if (0xDC00..=0xDFFF).contains(&n) {
                                return Err(NotJson);
                            }
                            if (0xD800..=0xDBFF).contains(&n) {
                                if bytes.get(i) != Some(&b'\\') || bytes.get(i + 1) != Some(&b'u') {
                                    return Err(NotJson);
                                }
                                let low = hex4(bytes, i + 2).map_err(|_| NotJson)?;
                                if !(0xDC00..=0xDFFF).contains(&low) {
                                    return Err(NotJson);
                                }
                                i += 6;
                            }
                        }
                        _ => return Err(NotJson),
                    }
                }
                Some(&b) if b >= 0x20 => {
                    ascii &= b < 0x80;
                    i += 1;
                }
                // A control character, or the end of the input.
                _ => return Err(NotJson),
            }
        }
        if !ascii {
            std::str::from_utf8(&bytes[start..i]).map_err(|_| NotJson)?;
        }
        Ok((i, escaped))
    }

    /// A number token, as serde_json reads it. One pass gathers the
    /// digits: a plain integer of up to 18 digits (19 when positive) and a
    /// decimal with at most 15 digits and no exponent are read here, exactly
    /// as serde_json reads them; anything else goes to serde_json.
    #[inline]
    pub(crate) fn number(&mut self) -> Result<Num, NotJson> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut i = start;
        let negative = bytes.get(i) == Some(&b'-');
        i += usize::from(negative);
        let mut significand: u64 = 0;
        // Digits of the significand, and those after the point.
        let mut digits = 0usize;
        match bytes.get(i) {
            Some(b'0') => {
                i += 1;
                digits = 1;
            }
            Some(b'1'..=b'9') => {
                while let Some(&d) = bytes.get(i) {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    // Wraps past 19 digits, where the value is not used.
                    significand = significand
                        .wrapping_mul(10)
                        .wrapping_add(u64::from(d - b'0'));
                    digits += 1;
                    i += 1;
                }
            }
            _ => return Err(NotJson),
        }
        let mut decimals = 0usize;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            while let Some(&d) = bytes.get(i) {
                if !d.is_ascii_digit() {
                    break;
                }
                significand = significand
                    .wrapping_mul(10)
                    .wrapping_add(u64::from(d - b'0'));
                decimals += 1;
                i += 1;
            }
            if decimals == 0 {
                return Err(NotJson);
            }
        }
        let mut exponent = false;
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            exponent = true;
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !matches!(bytes.get(i), Some(b'0'..=b'9')) {
                return Err(NotJson);
            }
            while matches!(bytes.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        self.pos = i;
        if !exponent {
            if decimals == 0 {
                if !negative && digits <= 19 {
                    return Ok(Num::Unsigned(significand));
                }
                if negative && digits <= 18 && significand != 0 {
                    // Below 10^18 in magnitude: an `i64`, as serde_json
                    // reads a negative integer (`-0` it reads as a float).
                    return Ok(Num::Signed(-(significand as i64)));
                }
            } else if digits + decimals <= 15 {
                // At most 15 digits: the significand and the power of ten
                // are exact `f64`s, and one division rounds correctly,
                // which is what serde_json's parser gives (with or without
                // its `float_roundtrip` feature, and std's `parse`).
                // (Below 10^15: as an `i64`, the cheaper conversion.)
                let value = significand as i64 as f64 / POW10[decimals];
                let value = if negative { -value } else { value };
                return Ok(Num::Float(value));
            }
        }
        // Fractional past 15 digits, an exponent or long: serde_json's own
        // reading (its float parser, its range errors).
        let n = serde_json::from_slice::<Number>(&bytes[start..i]).map_err(|_| NotJson)?;
        Ok(match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(n), _, _) => Num::Unsigned(n),
            (None, Some(n), _) => Num::Signed(n),
            (None, None, Some(x)) => Num::Float(x),
            // serde_json's `Number` is one of the three.
            (None, None, None) => return Err(NotJson),
        })
    }

    /// Reads a number token whose value is not asked for, checking only
    /// that serde_json reads it: its syntax, and, where serde_json could
    /// refuse it (an exponent, or more than 300 integer digits: a float
    /// past `f64`'s range), [`Cursor::number`]'s whole reading. Neither
    /// the significand nor a float is computed on the common path.
    #[inline]
    pub(crate) fn skip_number(&mut self) -> Result<(), NotJson> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut i = start + usize::from(bytes.get(start) == Some(&b'-'));
        let integer = i;
        match bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                i += 1;
                while matches!(bytes.get(i), Some(b'0'..=b'9')) {
                    i += 1;
                }
            }
            _ => return Err(NotJson),
        }
        let integer_digits = i - integer;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            let fraction = i;
            while matches!(bytes.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
            if i == fraction {
                return Err(NotJson);
            }
        }
        if integer_digits > 300 {
            return self.number().map(drop);
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            // serde_json refuses a number only past `f64`'s range (about
            // 1.8e308; one too small reads as 0). Below 10^(integer digits
            // + exponent) <= 10^307 the value is in range whatever its
            // digits: popxf's `-6.4114343367296264e-09`s are not parsed.
            i += 1;
            let negative = bytes.get(i) == Some(&b'-');
            i += usize::from(matches!(bytes.get(i), Some(b'+' | b'-')));
            let digits = i;
            let mut exponent = 0usize;
            while let Some(&d @ b'0'..=b'9') = bytes.get(i) {
                exponent = exponent
                    .saturating_mul(10)
                    .saturating_add(usize::from(d - b'0'));
                i += 1;
            }
            if i == digits {
                return Err(NotJson);
            }
            if !negative && integer_digits.saturating_add(exponent) > 307 {
                return self.number().map(drop);
            }
        }
        self.pos = i;
        Ok(())
    }

    /// Reads one value, checking only that it is JSON.
    pub(crate) fn skip(&mut self, depth: usize) -> Scan<()> {
        match self.peek() {
            Some(b'[' | b'{') => self.skip_nested(depth),
            _ => self.skip_scalar(),
        }
    }

    /// A value that is not an array or an object (else not JSON).
    #[inline(always)]
    fn skip_scalar(&mut self) -> Scan<()> {
        match self.peek() {
            Some(b'"') => self.string().map(drop),
            Some(b'-' | b'0'..=b'9') => self.skip_number().map_err(|NotJson| Stop::NotJson),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            _ => Err(Stop::NotJson),
        }
    }

    /// An array or an object (the cursor on its opening byte) read to its
    /// end in one loop, without recursion: the containers open around the
    /// cursor are one bit each (an object or an array) of a `u128`, which
    /// holds them all, as [`enter`] refuses nesting at `MAX_NESTING`
    /// (128). A call per value cost more than the value on the usual
    /// skipped content (short strings, small numbers).
    fn skip_nested(&mut self, depth: usize) -> Scan<()> {
        // Bit 0: whether the innermost open container is an object.
        let mut objects: u128 = 0;
        let mut open = 0usize;
        'value: loop {
            match self.peek() {
                Some(b @ (b'[' | b'{')) => {
                    enter(depth + open)?;
                    let object = b == b'{';
                    self.pos += 1;
                    self.ws();
                    if self.peek() != Some(if object { b'}' } else { b']' }) {
                        open += 1;
                        objects = objects << 1 | u128::from(object);
                        if object {
                            self.key()?;
                        }
                        continue 'value;
                    }
                    // Empty: closed at once.
                    self.pos += 1;
                }
                _ => self.skip_scalar()?,
            }
            // After a value: close the containers it ends, to one that
            // goes on (or none is open).
            loop {
                if open == 0 {
                    return Ok(());
                }
                let object = objects & 1 != 0;
                if self.next_or_close(if object { b'}' } else { b']' })? {
                    if object {
                        self.key()?;
                    }
                    continue 'value;
                }
                objects >>= 1;
                open -= 1;
            }
        }
    }

    /// A member's key that is one of `members`' names written plainly (see
    /// `Member::first`), matched on the bytes without tokenizing it: the
    /// key as a token, the member's index, the cursor left on the value.
    /// `None` leaves the cursor where it was, for [`Cursor::key`].
    #[inline(always)]
    pub(super) fn known_key(&mut self, node: &Node) -> Option<(Str<'a>, usize)> {
        let bytes = self.bytes;
        if bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos + 1;
        let first = *bytes.get(start)?;
        // (0: a name not matched on the bytes; no key starts so.)
        if first == 0 {
            return None;
        }
        let (mut offset, mut members) = node.candidates(first);
        if members.first().is_some_and(|m| m.by_length) {
            (offset, members) = of_length(bytes, start, offset, members)?;
        }
        for (at, member) in members.iter().enumerate() {
            if member.first != first {
                continue;
            }
            let name = member.name.as_bytes();
            let end = start + name.len();
            let same = match bytes.get(start..start + 8) {
                // A word of the payload against the name's first eight
                // bytes, then the rest, if any.
                Some(word) => {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(word);
                    u64::from_le_bytes(w) & member.prefix_mask == member.prefix
                        && (name.len() <= 8 || bytes.get(start + 8..end) == Some(&name[8..]))
                }
                None => bytes.get(start..end) == Some(name),
            };
            if !same || bytes.get(end) != Some(&b'"') {
                continue;
            }
            // The token is exactly the name: the first quote after the
            // opening one, with only plain bytes (valid UTF-8) before it.
            let mut after = Cursor {
                bytes,
                pos: end + 1,
            };
            after.ws();
            if after.peek() != Some(b':') {
                return None;
            }
            after.pos += 1;
            after.ws();
            self.pos = after.pos;
            // SAFETY: the bytes are those of `member.name`, a `str`.
            let body = unsafe { std::str::from_utf8_unchecked(&bytes[start..end]) };
            return Some((
                Str {
                    body,
                    escaped: false,
                },
                offset + at,
            ));
        }
        None
    }

    /// A member's key and its colon, the cursor left on the value.
    #[inline(always)]
    pub(crate) fn key(&mut self) -> Scan<Str<'a>> {
        if self.peek() != Some(b'"') {
            return Err(Stop::NotJson);
        }
        let key = self.string()?;
        self.ws();
        if self.peek() != Some(b':') {
            return Err(Stop::NotJson);
        }
        self.pos += 1;
        self.ws();
        Ok(key)
    }
}

/// Which of eight string bytes need a look (a quote, a backslash, a
/// control character or a non-ASCII byte): the high bit of each such byte,
/// by the usual bit tricks (a byte below `n` sets its high bit in `w - n`
/// where it is clear in `w`). Exact as to whether any does, and the lowest
/// bit set marks the first that does (a borrow only flags bytes above a
/// flagged one).
#[inline(always)]
fn special(word: &[u8]) -> u64 {
    let w = word_of(word);
    delimiters(w) | (w & HIGH)
}

/// A byte of ones in each of a word's eight bytes.
pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of each of a word's eight bytes.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each zero byte of `v`, by the usual bit trick (the
/// lowest one exact: a borrow flags only bytes above a zero byte). `w ^
/// (ONES * b)` has a zero byte where `w` holds `b`.
#[inline(always)]
pub(crate) fn zero_bytes(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & HIGH
}

/// Eight bytes as a little-endian word.
#[inline(always)]
fn word_of(word: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(word);
    u64::from_le_bytes(bytes)
}

/// The members of `members` (those of one first byte, from `offset` of the
/// node's, sorted by length: [`Member::by_length`]) as long as the key body
/// at `start`, and where they start among the node's; `None` for a key not
/// written plainly. Many of these names share their first eight bytes
/// (jscsrc's seventy `disallow...`): the key's length tells them apart.
#[cold]
#[inline(never)]
fn of_length<'m>(
    bytes: &[u8],
    start: usize,
    offset: usize,
    members: &'m [Member],
) -> Option<(usize, &'m [Member])> {
    let len = plain_length(bytes, start)?;
    let from = members.partition_point(|m| m.name.len() < len);
    let to = from + members[from..].partition_point(|m| m.name.len() == len);
    Some((offset + from, &members[from..to]))
}

/// The length of the key body at `start` when it is written plainly (its
/// closing quote before any backslash or control character), `None`
/// otherwise or at the end of the bytes. Non-ASCII bytes are not checked:
/// a key matched on them is a member's name, which is UTF-8.
#[inline]
fn plain_length(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    while let Some(word) = bytes.get(i..i + 8) {
        let mask = delimiters(word_of(word));
        if mask != 0 {
            i += (mask.trailing_zeros() / 8) as usize;
            return (bytes[i] == b'"').then_some(i - start);
        }
        i += 8;
    }
    loop {
        match *bytes.get(i)? {
            b'"' => return Some(i - start),
            b'\\' | 0..=0x1f => return None,
            _ => i += 1,
        }
    }
}

/// [`special`] without the non-ASCII bytes: the high bit of each quote,
/// backslash and control character, exact as to the lowest (a byte at or
/// above 0x80 is never flagged, nor a byte below the first flagged one).
#[inline(always)]
fn delimiters(w: u64) -> u64 {
    let quote = zero_bytes(w ^ (ONES * u64::from(b'"')));
    let backslash = zero_bytes(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    quote | backslash | control
}

/// Powers of ten exactly representable as `f64`.
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// One more level of nesting, refused at serde_json's limit.
#[inline]
pub(crate) fn enter(depth: usize) -> Scan<usize> {
    let depth = depth + 1;
    if depth >= MAX_NESTING {
        Err(Stop::NotJson)
    } else {
        Ok(depth)
    }
}

fn hex4(bytes: &[u8], at: usize) -> Scan<u32> {
    let digits = bytes.get(at..at + 4).ok_or(Stop::NotJson)?;
    let mut n = 0;
    for &d in digits {
        n = n * 16 + (d as char).to_digit(16).ok_or(Stop::NotJson)?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::{Cursor, Stop};

    /// Whether `skip` reads `text` as one JSON value to its end, as
    /// `serde_json` reads it.
    fn skips(text: &str) -> bool {
        let mut cur = Cursor {
            bytes: text.as_bytes(),
            pos: 0,
        };
        match cur.skip(0) {
            Ok(()) => cur.pos == text.len(),
            Err(Stop::NotJson) => false,
            Err(_) => panic!("{text:?}: skip gave no verdict"),
        }
    }

    /// As the guard's `jsonschema` path reads a payload (into a `Value`:
    /// `1e400` is out of range there, not for `IgnoredAny`).
    fn serde_reads(text: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(text).is_ok()
    }

    #[test]
    fn skip_reads_what_serde_json_reads() {
        let mut texts: Vec<String> = [
            "1",
            "-0.5e3",
            "\"a\\u00e9\"",
            "true",
            "null",
            "[]",
            "{}",
            "[[]]",
            "[{}]",
            "{\"a\":[]}",
            "[1,[2,[3,{}]],{\"b\":{\"c\":[true,false,null]}}]",
            "{\"a\":1,\"b\":{}}",
            "[ 1 , { \"x\" : [ ] } ]",
            "[1,]",
            "[,1]",
            "{\"a\"}",
            "{\"a\":}",
            "{1:2}",
            "[1 2]",
            "{\"a\":1,}",
            "[}",
            "{]",
            "[[]",
            "[]]",
            "",
            "[",
            "{",
            "[1e400]",
            "[01]",
            "9e306",
            "99e306",
            "9.99e307",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "-1.8e308",
            "1e-400",
            "-1E-99999999999999999999",
            "0e99999",
            "0.0000001e310",
            "1e00000000000000000000000307",
            "1e00000000000000000000000309",
            "1e+308",
            "1e+309",
            "-6.4114343367296264e-09",
            "[1e, 2]",
            "1e+",
            "1e-",
            "1.e5",
            "1e5.0",
            "1E5",
            "[\"\\x\"]",
            "{\"a\":[1,{\"b\":2]}}",
            "[tru]",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        // Nesting about serde_json's limit, around empty containers too
        // (each closed container gives its level back).
        for depth in 120..=130 {
            texts.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            texts.push(format!(
                "{}1{}",
                "{\"a\":[".repeat(depth / 2),
                "]}".repeat(depth / 2)
            ));
        }
        texts.push(format!("[{}]", vec!["[]"; 300].join(",")));
        texts.push(format!("[{}]", vec!["{\"a\":{}}"; 300].join(",")));
        texts.push(format!("{}{}", "[[],".repeat(126), "1]".repeat(126)));
        for text in &texts {
            assert_eq!(skips(text), serde_reads(text), "{text:?}");
        }
    }

    /// Strings of escapes, non-ASCII text (valid or not), control
    /// characters and plain runs, at every offset from an eight-byte word:
    /// a string is read to its closing quote, and refused, exactly as
    /// serde_json reads and refuses it; read, its text (escapes decoded)
    /// and length are serde_json's.
    #[test]
    fn strings_read_as_serde_json_reads_them() {
        let pieces: [&[u8]; 15] = [
            b"a",
            b"\\\\",
            b"\\/\\b\\f\\r",
            b"\\uD834\\uDD1E\\u0000",
            b"abcdefghij",
            "é".as_bytes(),
            "日本語のテキスト".as_bytes(),
            b"\\\"",
            b"\\n",
            b"\\u00e9",
            b"\\ud83d\\ude00",
            b"\x01",
            b"\xff",
            b"\xc3",
            b"\xc3\x28",
        ];
        let tails: [&[u8]; 4] = [b"", b"xyz", "ü".as_bytes(), b"\\t"];
        for pad in 0..9 {
            for a in &pieces {
                for b in &pieces {
                    for c in tails {
                        let mut text = b"[\"".to_vec();
                        text.extend(std::iter::repeat_n(b'x', pad));
                        text.extend_from_slice(a);
                        text.extend_from_slice(b);
                        text.extend_from_slice(c);
                        text.extend_from_slice(b"\",1]");
                        let mut cur = Cursor {
                            bytes: &text,
                            pos: 0,
                        };
                        let read = match cur.skip(0) {
                            Ok(()) => cur.pos == text.len(),
                            Err(Stop::NotJson) => false,
                            Err(_) => panic!("{text:?}: skip gave no verdict"),
                        };
                        let serde = serde_json::from_slice::<serde_json::Value>(&text);
                        assert_eq!(read, serde.is_ok(), "{:?}", String::from_utf8_lossy(&text));
                        // Read: its text and length are serde_json's.
                        if let Ok(serde_json::Value::Array(items)) = serde {
                            let mut cur = Cursor {
                                bytes: &text,
                                pos: 1,
                            };
                            let token = cur.string().unwrap_or_else(|_| panic!("{text:?}"));
                            let mut decoded = String::from("left over");
                            token.decode_into(&mut decoded);
                            assert_eq!(Some(decoded.as_str()), items[0].as_str(), "{text:?}");
                            assert_eq!(token.chars(), decoded.chars().count() as u64);
                        }
                    }
                }
            }
        }
    }
}
