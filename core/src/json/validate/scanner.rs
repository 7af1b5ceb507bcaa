//! The JSON scanner: checks payload bytes against a [`JsonPlan`] while it
//! tokenizes them, without building a `serde_json::Value`.
//!
//! # JSON as serde_json reads it
//!
//! The bytes are accepted exactly when `serde_json::from_slice::<Value>`
//! accepts them: RFC 8259 syntax, whitespace around the root, UTF-8 in
//! strings, no control characters in strings, escapes with paired
//! surrogates, numbers in `f64` range (serde_json's own parser decides any
//! number with a fraction, an exponent or many digits), and arrays and
//! objects nested less than [`MAX_NESTING`] deep.
//!
//! # One pass, and where it is not
//!
//! A value is read once against its subschema; the applicators that apply
//! several subschemas to the same value (`allOf`, `anyOf`, `oneOf`, `not`,
//! `if`, `$ref`, dependent schemas) read its bytes again for each, which
//! is the walk `jsonschema` makes over the `Value` tree. A member that fails
//! its subschema fails its object only if no later member has the same key
//! (the last one wins, as in the `Value` serde_json builds); finding that out
//! reads ahead in the object, within a budget proportional to the payload,
//! past which the scanner says it cannot tell and the guard asks
//! `jsonschema`.

use std::cell::RefCell;

use jsonschema::json::JsonNumber as _;
use serde_json::{Number, Value};

use super::plan::{
    exact_f64, Bound, JsonPlan, Kind, Member, Node, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT,
    STRING,
};
use super::MAX_NESTING;

/// Why a scan stopped before its verdict.
enum Stop {
    /// The bytes are not JSON (as serde_json reads it): invalid.
    NotJson,
    /// Past the look-ahead budget: ask `jsonschema`.
    Unsure,
}

type Scan<T> = Result<T, Stop>;

/// The bytes are not JSON: [`Stop::NotJson`], for the token readers, whose
/// small results come back in registers.
struct NotJson;

/// A number as serde_json reads it into a `Number` (one of three kinds).
#[derive(Clone, Copy)]
enum Num {
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

/// The most subschemas one scan checks nested in one another (in place or
/// through the payload's nesting). A debug build takes at most about
/// 1.5 KiB of stack a subschema (`check`, `own`, `object`, `member`), so
/// this keeps a scan under about 400 KiB; a deeper path is answered by
/// `jsonschema`, within the analysis' bound.
const MAX_FRAMES: usize = 256;

/// Buffers one thread reuses from payload to payload: after the first use
/// (and the longest escaped string), a scan allocates nothing.
struct Scratch {
    /// A `Value::String` the borrowed validators are asked about.
    text: Value,
    /// Bytes of look-ahead left for duplicate keys.
    budget: usize,
    /// Subschemas being checked, nested.
    frames: usize,
}

impl Scratch {
    /// Puts the text of `token` in [`Scratch::text`], reusing its buffer.
    fn fill(&mut self, token: &Str<'_>) {
        let mut text = match std::mem::take(&mut self.text) {
            Value::String(text) => text,
            _ => String::new(),
        };
        token.decode_into(&mut text);
        self.text = Value::String(text);
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch { text: Value::Null, budget: 0, frames: 0 })
    };
}

/// A string token: its body between the quotes (valid UTF-8, escapes not
/// yet decoded) and whether it holds an escape.
#[derive(Clone, Copy)]
struct Str<'a> {
    body: &'a str,
    escaped: bool,
}

impl Str<'_> {
    /// The text into `out`, escapes decoded.
    fn decode_into(&self, out: &mut String) {
        out.clear();
        if !self.escaped {
            out.push_str(self.body);
            return;
        }
        out.extend(Unescape::new(self.body));
    }

    /// Length in Unicode code points, as `jsonschema` counts it.
    fn chars(&self) -> u64 {
        if self.escaped {
            Unescape::new(self.body).count() as u64
        } else {
            self.body
                .as_bytes()
                .iter()
                .filter(|&&b| (b & 0xC0) != 0x80)
                .count() as u64
        }
    }

    fn same_text(&self, other: &Str<'_>) -> bool {
        if !self.escaped && !other.escaped {
            return self.body == other.body;
        }
        Unescape::new(self.body).eq(Unescape::new(other.body))
    }
}

/// The characters of a checked string body, escapes decoded.
struct Unescape<'a> {
    rest: std::str::Chars<'a>,
}

impl<'a> Unescape<'a> {
    fn new(body: &'a str) -> Unescape<'a> {
        Unescape { rest: body.chars() }
    }

    fn hex4(&mut self) -> u32 {
        let mut n = 0;
        for _ in 0..4 {
            n = n * 16 + self.rest.next().and_then(|c| c.to_digit(16)).unwrap_or(0);
        }
        n
    }
}

impl Iterator for Unescape<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let c = self.rest.next()?;
        if c != '\\' {
            return Some(c);
        }
        Some(match self.rest.next()? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let n = self.hex4();
                let code = if (0xD800..0xDC00).contains(&n) {
                    // The scanner checked the pair: `\uDC00`-`\uDFFF` follows.
                    self.rest.next();
                    self.rest.next();
                    let low = self.hex4();
                    0x1_0000 + ((n - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
                } else {
                    n
                };
                char::from_u32(code).unwrap_or('\u{FFFD}')
            }
            other => other,
        })
    }
}

/// A position in the payload.
#[derive(Clone)]
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn literal(&mut self, word: &[u8]) -> Scan<()> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(Stop::NotJson)
        }
    }

    /// After a member or an item: `,` (true) or the closing byte (false).
    #[inline(always)]
    fn next_or_close(&mut self, close: u8) -> Scan<bool> {
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
    fn string(&mut self) -> Scan<Str<'a>> {
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
            while let Some(word) = bytes.get(i..i + 8) {
                if special(word) != 0 {
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
    fn number(&mut self) -> Result<Num, NotJson> {
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

    /// Reads one value, checking only that it is JSON.
    fn skip(&mut self, depth: usize) -> Scan<()> {
        match self.peek() {
            Some(b'"') => self.string().map(drop),
            Some(b'-' | b'0'..=b'9') => self.number().map(drop).map_err(|NotJson| Stop::NotJson),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'[') => {
                let depth = enter(depth)?;
                self.pos += 1;
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    self.skip(depth)?;
                    if !self.next_or_close(b']')? {
                        return Ok(());
                    }
                }
            }
            Some(b'{') => {
                let depth = enter(depth)?;
                self.pos += 1;
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    self.key()?;
                    self.skip(depth)?;
                    if !self.next_or_close(b'}')? {
                        return Ok(());
                    }
                }
            }
            _ => Err(Stop::NotJson),
        }
    }

    /// A member's key that is one of `members`' names written plainly (see
    /// `Member::first`), matched on the bytes without tokenizing it: the
    /// key as a token, the member's index, the cursor left on the value.
    /// `None` leaves the cursor where it was, for [`Cursor::key`].
    #[inline(always)]
    fn known_key(&mut self, members: &[Member]) -> Option<(Str<'a>, usize)> {
        let bytes = self.bytes;
        if bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos + 1;
        let first = *bytes.get(start)?;
        for (at, member) in members.iter().enumerate() {
            // (0: a name not matched on the bytes.)
            if member.first != first || first == 0 {
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
                at,
            ));
        }
        None
    }

    /// A member's key and its colon, the cursor left on the value.
    #[inline]
    fn key(&mut self) -> Scan<Str<'a>> {
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
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(word);
    let w = u64::from_le_bytes(bytes);
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    quote | backslash | control | (w & HIGH)
}

/// Powers of ten exactly representable as `f64`.
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// One more level of nesting, refused at serde_json's limit.
#[inline]
fn enter(depth: usize) -> Scan<usize> {
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

impl JsonPlan {
    /// Scans `payload` against the plan: `Some(true)` when
    /// `serde_json::from_slice` and `jsonschema`'s `is_valid` would accept
    /// it, `Some(false)` when they would not, `None` when the scanner cannot
    /// tell within its budget (many failing members with duplicate keys) and
    /// `jsonschema` must be asked. Allocates nothing on a thread's later
    /// calls, except to grow its buffer for a longer escaped string.
    pub fn scan(&self, payload: &[u8]) -> Option<bool> {
        let run = |scratch: &mut Scratch| {
            scratch.budget = payload.len().saturating_mul(4).saturating_add(4096);
            scratch.frames = 0;
            let mut cur = Cursor {
                bytes: payload,
                pos: 0,
            };
            cur.ws();
            let verdict = self.check(self.root, &mut cur, scratch, 0)?;
            cur.ws();
            if cur.pos != payload.len() {
                return Err(Stop::NotJson);
            }
            Ok(verdict)
        };
        let result = SCRATCH
            .try_with(|cell| match cell.try_borrow_mut() {
                Ok(mut scratch) => run(&mut scratch),
                Err(_) => run(&mut new_scratch()),
            })
            .unwrap_or_else(|_| run(&mut new_scratch()));
        match result {
            Ok(verdict) => Some(verdict),
            Err(Stop::NotJson) => Some(false),
            Err(Stop::Unsure) => None,
        }
    }

    /// Reads one value (the cursor on its first byte) and says whether it
    /// conforms to node `id`.
    fn check(&self, id: u32, cur: &mut Cursor<'_>, sc: &mut Scratch, depth: usize) -> Scan<bool> {
        // The stack this scan may use: past it, `jsonschema` (whose depth
        // the analysis bounds) answers instead.
        if sc.frames >= MAX_FRAMES {
            return Err(Stop::Unsure);
        }
        sc.frames += 1;
        let verdict = self.check_node(id, cur, sc, depth);
        sc.frames -= 1;
        verdict
    }

    fn check_node(
        &self,
        id: u32,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let node = &self.nodes[id as usize];
        match node.kind {
            Kind::Any => return cur.skip(depth).map(|()| true),
            Kind::Never => return cur.skip(depth).map(|()| false),
            Kind::Check => {}
        }
        let start = cur.pos;
        if node.only_in_place {
            // Each applicator reads the whole value (its syntax too), and
            // leaves the cursor after it.
            return self.in_place(node, start, cur, sc, depth);
        }
        let mut ok = self.own(node, cur, sc, depth)?;
        if ok && node.in_place() {
            let end = cur.pos;
            ok = self.in_place(node, start, cur, sc, depth)?;
            cur.pos = end;
        }
        Ok(ok)
    }

    /// The applicators that read the value at `start` again.
    fn in_place(
        &self,
        node: &Node,
        start: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let again = |id: u32, cur: &mut Cursor<'_>, sc: &mut Scratch| -> Scan<bool> {
            cur.pos = start;
            self.check(id, cur, sc, depth)
        };
        for &id in &node.all_of {
            if !again(id, cur, sc)? {
                return Ok(false);
            }
        }
        if !node.any_of.is_empty() {
            let mut any = false;
            for &id in &node.any_of {
                if again(id, cur, sc)? {
                    any = true;
                    break;
                }
            }
            if !any {
                return Ok(false);
            }
        }
        if !node.one_of.is_empty() {
            let mut valid = 0;
            for &id in &node.one_of {
                if again(id, cur, sc)? {
                    valid += 1;
                    if valid > 1 {
                        return Ok(false);
                    }
                }
            }
            if valid != 1 {
                return Ok(false);
            }
        }
        if let Some(id) = node.not {
            if again(id, cur, sc)? {
                return Ok(false);
            }
        }
        if let Some((condition, then, otherwise)) = node.condition {
            let branch = if again(condition, cur, sc)? {
                then
            } else {
                otherwise
            };
            if let Some(id) = branch {
                if !again(id, cur, sc)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The node's own keywords, for the value's type.
    fn own(&self, node: &Node, cur: &mut Cursor<'_>, sc: &mut Scratch, depth: usize) -> Scan<bool> {
        match cur.peek() {
            Some(b'"') => {
                let text = cur.string()?;
                Ok(node.types & STRING != 0 && self.string(node, text, sc))
            }
            Some(b'-' | b'0'..=b'9') => {
                let n = Number::from(cur.number().map_err(|NotJson| Stop::NotJson)?);
                let typed = node.types & NUMBER != 0
                    || (node.types & INTEGER != 0
                        && if node.draft4_integers {
                            n.is_written_as_integer()
                        } else {
                            n.is_integer()
                        });
                if !typed {
                    return Ok(false);
                }
                if node.numeric.is_none() && node.choice.is_none() {
                    return Ok(true);
                }
                let bounded = match (&node.bounds, exact_f64(&n)) {
                    (Some(bounds), Some(x)) => within(bounds, x),
                    _ => {
                        let value = Value::Number(n.clone());
                        node.numeric.as_ref().is_none_or(|v| v.is_valid(&value))
                    }
                };
                if !bounded {
                    return Ok(false);
                }
                Ok(node
                    .choice
                    .as_ref()
                    .is_none_or(|v| v.is_valid(&Value::Number(n))))
            }
            Some(b't') => {
                cur.literal(b"true")?;
                Ok(scalar(node, BOOLEAN, || Value::Bool(true)))
            }
            Some(b'f') => {
                cur.literal(b"false")?;
                Ok(scalar(node, BOOLEAN, || Value::Bool(false)))
            }
            Some(b'n') => {
                cur.literal(b"null")?;
                Ok(scalar(node, NULL, || Value::Null))
            }
            Some(b'[') => self.array(node, cur, sc, depth),
            Some(b'{') => self.object(node, cur, sc, depth),
            _ => Err(Stop::NotJson),
        }
    }

    fn string(&self, node: &Node, text: Str<'_>, sc: &mut Scratch) -> bool {
        if node.min_length > 0 || node.max_length < u64::MAX {
            // A code point takes 1 to 4 bytes of UTF-8, and 1 to 12 of
            // escapes (a surrogate pair): the byte length often decides.
            let bytes = text.body.len() as u64;
            let least = if text.escaped {
                bytes / 12
            } else {
                bytes.div_ceil(4)
            };
            if bytes < node.min_length {
                return false;
            }
            if bytes > node.max_length || least < node.min_length {
                let length = text.chars();
                if length < node.min_length || length > node.max_length {
                    return false;
                }
            }
        }
        if let Some(options) = &node.strings {
            if !text.escaped {
                if !options.iter().any(|option| **option == *text.body) {
                    return false;
                }
                if node.text.is_none() {
                    return true;
                }
            }
        } else if node.text.is_none() && node.choice.is_none() {
            return true;
        }
        sc.fill(&text);
        let chosen = match &node.strings {
            Some(_) if !text.escaped => true,
            Some(options) => {
                let text = sc.text.as_str().unwrap_or_default();
                options.iter().any(|option| **option == *text)
            }
            None => node.choice.as_ref().is_none_or(|v| v.is_valid(&sc.text)),
        };
        chosen && node.text.as_ref().is_none_or(|v| v.is_valid(&sc.text))
    }

    fn array(
        &self,
        node: &Node,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let depth = enter(depth)?;
        cur.pos += 1;
        cur.ws();
        let mut ok = node.types & ARRAY != 0 && node.choice.is_none();
        let mut count: usize = 0;
        if cur.peek() == Some(b']') {
            cur.pos += 1;
        } else {
            loop {
                if ok {
                    let schema = match node.prefix.get(count) {
                        Some(&id) => Some(id),
                        None => node.rest,
                    };
                    match schema {
                        Some(id) => ok = self.check(id, cur, sc, depth)?,
                        None => cur.skip(depth)?,
                    }
                } else {
                    cur.skip(depth)?;
                }
                count += 1;
                if !cur.next_or_close(b']')? {
                    break;
                }
            }
        }
        let count = count as u64;
        Ok(ok && count >= node.min_items && count <= node.max_items)
    }

    fn object(
        &self,
        node: &Node,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let start = cur.pos;
        let depth = enter(depth)?;
        cur.pos += 1;
        cur.ws();
        let mut ok = node.types & OBJECT != 0 && node.choice.is_none();
        let mut present: u64 = 0;
        if cur.peek() == Some(b'}') {
            cur.pos += 1;
        } else {
            loop {
                let key_at = cur.pos;
                let (key, known) = match cur.known_key(&node.members) {
                    Some((key, at)) => (key, Some(at)),
                    None => (cur.key()?, None),
                };
                if !ok {
                    cur.skip(depth)?;
                } else if !self.member(node, key, known, key_at, cur, sc, depth, &mut present)? {
                    // Fails, unless a later member with the same key wins.
                    if !self.overridden(key, cur, sc, depth)? {
                        ok = false;
                    }
                }
                if !cur.next_or_close(b'}')? {
                    break;
                }
            }
        }
        if !ok {
            return Ok(false);
        }
        if present & node.required != node.required {
            return Ok(false);
        }
        for &(trigger, needed) in &node.dependent_required {
            if present & trigger != 0 && present & needed != needed {
                return Ok(false);
            }
        }
        if !node.dependent_schemas.is_empty() {
            let end = cur.pos;
            for &(trigger, id) in &node.dependent_schemas {
                if present & trigger != 0 {
                    cur.pos = start;
                    if !self.check(id, cur, sc, depth - 1)? {
                        cur.pos = end;
                        return Ok(false);
                    }
                }
            }
            cur.pos = end;
        }
        Ok(true)
    }

    /// One member: its key (at `key_at`) and its value (at the cursor),
    /// against the subschemas its key selects.
    #[allow(clippy::too_many_arguments)]
    fn member(
        &self,
        node: &Node,
        key: Str<'_>,
        known: Option<usize>,
        key_at: usize,
        cur: &mut Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
        present: &mut u64,
    ) -> Scan<bool> {
        // Which subschemas apply, decided before any value check reuses
        // the scratch text.
        let name: &str = if key.escaped || !node.patterns.is_empty() {
            sc.fill(&key);
            sc.text.as_str().unwrap_or_default()
        } else {
            key.body
        };
        let mut property = None;
        let found = match known {
            Some(at) => node.members.get(at),
            None => node.members.iter().find(|m| &*m.name == name),
        };
        if let Some(m) = found {
            *present |= m.bit;
            property = m.schema;
        }
        let mut matched: u64 = 0;
        for (i, (pattern, _)) in node.patterns.iter().enumerate() {
            if pattern.is_valid(&sc.text) {
                matched |= 1 << i;
            }
        }
        let mut ok = true;
        if let Some(names) = node.names {
            let mut at = Cursor {
                bytes: cur.bytes,
                pos: key_at,
            };
            ok = self.check(names, &mut at, sc, depth)?;
        }
        let value_at = cur.pos;
        let mut end = None;
        let mut apply = |id: u32, cur: &mut Cursor<'_>, sc: &mut Scratch| -> Scan<bool> {
            cur.pos = value_at;
            let ok = self.check(id, cur, sc, depth)?;
            end = Some(cur.pos);
            Ok(ok)
        };
        if ok {
            if let Some(id) = property {
                ok = apply(id, cur, sc)?;
            }
        }
        for (i, &(_, id)) in node.patterns.iter().enumerate() {
            if ok && matched & (1 << i) != 0 {
                ok = apply(id, cur, sc)?;
            }
        }
        if ok && property.is_none() && matched == 0 {
            if let Some(id) = node.additional {
                ok = apply(id, cur, sc)?;
            }
        }
        match end {
            Some(end) => cur.pos = end,
            None => {
                cur.pos = value_at;
                cur.skip(depth)?;
            }
        }
        Ok(ok)
    }

    /// Whether a later member of the object (the cursor after the current
    /// member's value) has the key `key`: the current one then does not
    /// count. Reads ahead within the scratch budget.
    fn overridden(
        &self,
        key: Str<'_>,
        cur: &Cursor<'_>,
        sc: &mut Scratch,
        depth: usize,
    ) -> Scan<bool> {
        let mut ahead = cur.clone();
        let found = loop {
            if !ahead.next_or_close(b'}')? {
                break false;
            }
            let other = ahead.key()?;
            if other.same_text(&key) {
                break true;
            }
            ahead.skip(depth)?;
        };
        let read = ahead.pos - cur.pos;
        if read > sc.budget {
            return Err(Stop::Unsure);
        }
        sc.budget -= read;
        Ok(found)
    }
}

/// `x` within exact bounds.
#[inline]
fn within(bounds: &[(Bound, f64)], x: f64) -> bool {
    bounds.iter().all(|&(kind, limit)| match kind {
        Bound::Minimum => x >= limit,
        Bound::Maximum => x <= limit,
        Bound::ExclusiveMinimum => x > limit,
        Bound::ExclusiveMaximum => x < limit,
    })
}

/// A null or a boolean against `type` and `enum`/`const`.
#[inline]
fn scalar(node: &Node, bit: u8, value: impl FnOnce() -> Value) -> bool {
    node.types & bit != 0 && node.choice.as_ref().is_none_or(|v| v.is_valid(&value()))
}

fn new_scratch() -> Scratch {
    Scratch {
        text: Value::String(String::new()),
        budget: 0,
        frames: 0,
    }
}
