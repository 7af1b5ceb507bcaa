//! Values compared on the bytes: `uniqueItems` over an array's items
//! (numbers by value, strings by text, arrays and objects by a hash) and
//! the distinct keys of an object.

use serde_json::Number;

use crate::json::validate::plan::exact_f64;
use crate::json::validate::tokenizer::{zero_bytes, Cursor, ONES};
use crate::json::validate::MAX_NESTING;

use super::scratch::{Item, Scratch};

/// `uniqueItems` on the bytes of an array (checked to be JSON): `None` when
/// a number is not exactly an `f64`, or two arrays or objects hash alike
/// ([`hash_value`]; the parsed array is asked then). Numbers are equal by
/// value (`1` and `1.0`, `0` and `-0.0`), strings by their text (decoded
/// when they hold an escape: linutil's scripts), arrays and objects by a
/// hash equal values share, as `jsonschema` compares them: items of
/// different hashes differ.
pub(super) fn unique_items(bytes: &[u8], sc: &mut Scratch) -> Option<bool> {
    const NUM: u8 = 0;
    const STR: u8 = 1;
    const TRUE: u8 = 2;
    const FALSE: u8 = 3;
    const NIL: u8 = 4;
    const COMPOUND: u8 = 5;
    let items = &mut sc.items;
    items.clear();
    let unescaped = &mut sc.unescaped;
    unescaped.clear();
    let decoding = &mut sc.decoding;
    let mut cur = Cursor { bytes, pos: 1 };
    cur.ws();
    if cur.peek() == Some(b']') {
        return Some(true);
    }
    loop {
        let at = cur.pos;
        let item = match cur.peek()? {
            b'"' => {
                let text = cur.string().ok()?;
                if text.escaped {
                    text.decode_into(decoding);
                    let at = unescaped.len();
                    unescaped.push_str(decoding);
                    Item {
                        kind: STR,
                        bits: 1,
                        at,
                        len: decoding.len(),
                    }
                } else {
                    Item {
                        kind: STR,
                        bits: 0,
                        at: at + 1,
                        len: text.body.len(),
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let n = Number::from(cur.number().ok()?);
                let x = exact_f64(&n)?;
                // `0.0 == -0.0`: one key for both.
                let x = if x == 0.0 { 0.0 } else { x };
                Item {
                    kind: NUM,
                    bits: x.to_bits(),
                    at: 0,
                    len: 0,
                }
            }
            b't' => {
                cur.literal(b"true").ok()?;
                Item {
                    kind: TRUE,
                    bits: 0,
                    at: 0,
                    len: 0,
                }
            }
            b'f' => {
                cur.literal(b"false").ok()?;
                Item {
                    kind: FALSE,
                    bits: 0,
                    at: 0,
                    len: 0,
                }
            }
            b'n' => {
                cur.literal(b"null").ok()?;
                Item {
                    kind: NIL,
                    bits: 0,
                    at: 0,
                    len: 0,
                }
            }
            b'[' | b'{' => Item {
                kind: COMPOUND,
                bits: hash_value(&mut cur, 0, decoding)?,
                at: 0,
                len: 0,
            },
            _ => return None,
        };
        items.push(item);
        if !cur.next_or_close(b']').ok()? {
            break;
        }
    }
    let unescaped = unescaped.as_bytes();
    let text = |item: &Item| match (item.kind, item.bits) {
        (STR, 1) => &unescaped[item.at..item.at + item.len],
        _ => &bytes[item.at..item.at + item.len],
    };
    // A string's `bits` only says where its text is.
    let bits = |item: &Item| if item.kind == STR { 0 } else { item.bits };
    let same = |a: &Item, b: &Item| a.kind == b.kind && bits(a) == bits(b) && text(a) == text(b);
    // Two arrays or objects of one hash may be equal or collide: only
    // `jsonschema` can tell.
    let verdict = |a: &Item| {
        if a.kind == COMPOUND {
            None
        } else {
            Some(false)
        }
    };
    if items.len() <= 16 {
        for (i, a) in items.iter().enumerate() {
            if items[..i].iter().any(|b| same(a, b)) {
                return verdict(a);
            }
        }
        return Some(true);
    }
    items.sort_unstable_by(|a, b| (a.kind, bits(a), text(a)).cmp(&(b.kind, bits(b), text(b))));
    match items.windows(2).find(|pair| same(&pair[0], &pair[1])) {
        Some(pair) => verdict(&pair[0]),
        None => Some(true),
    }
}

/// A hash of the value at the cursor (checked to be JSON) that values
/// equal as JSON Schema defines it share (`1` and `1.0`, members in any
/// order), so that values of different hashes differ; `None` for a value
/// the bytes cannot hash so (a number not exactly an `f64`, an object
/// repeating a key or of more than 16 members, more than [`MAX_NESTING`]
/// deep). A string or key with an escape is hashed decoded (`decoding`
/// its buffer).
pub(super) fn hash_value(cur: &mut Cursor<'_>, depth: usize, decoding: &mut String) -> Option<u64> {
    if depth >= MAX_NESTING {
        return None;
    }
    Some(match cur.peek()? {
        b'"' => {
            let text = cur.string().ok()?;
            if text.escaped {
                text.decode_into(decoding);
                hash_bytes(1, decoding.as_bytes())
            } else {
                hash_bytes(1, text.body.as_bytes())
            }
        }
        b'-' | b'0'..=b'9' => {
            let n = Number::from(cur.number().ok()?);
            let x = exact_f64(&n)?;
            let x = if x == 0.0 { 0.0 } else { x };
            finish(mix(2, x.to_bits()))
        }
        b't' => {
            cur.literal(b"true").ok()?;
            3
        }
        b'f' => {
            cur.literal(b"false").ok()?;
            4
        }
        b'n' => {
            cur.literal(b"null").ok()?;
            5
        }
        b'[' => {
            cur.pos += 1;
            cur.ws();
            let mut h = 6;
            if cur.peek() == Some(b']') {
                cur.pos += 1;
            } else {
                loop {
                    h = mix(h, hash_value(cur, depth + 1, decoding)?);
                    if !cur.next_or_close(b']').ok()? {
                        break;
                    }
                }
            }
            finish(h)
        }
        b'{' => {
            cur.pos += 1;
            cur.ws();
            // Members in any order: their hashes are added.
            let mut keys = [0u64; 16];
            let mut n = 0;
            let mut sum = 0u64;
            if cur.peek() == Some(b'}') {
                cur.pos += 1;
            } else {
                loop {
                    let key = cur.key().ok()?;
                    if n == keys.len() {
                        return None;
                    }
                    let k = if key.escaped {
                        key.decode_into(decoding);
                        hash_bytes(7, decoding.as_bytes())
                    } else {
                        hash_bytes(7, key.body.as_bytes())
                    };
                    // A repeated key (or two of one hash): the parsed
                    // object keeps the last, which the sum cannot.
                    if keys[..n].contains(&k) {
                        return None;
                    }
                    keys[n] = k;
                    n += 1;
                    sum = sum.wrapping_add(finish(mix(k, hash_value(cur, depth + 1, decoding)?)));
                    if !cur.next_or_close(b'}').ok()? {
                        break;
                    }
                }
            }
            finish(mix(8 ^ ((n as u64) << 8), sum))
        }
        _ => return None,
    })
}

#[inline]
pub(super) fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(31)
}

/// splitmix64's finalizer.
#[inline]
pub(super) fn finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub(super) fn hash_bytes(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = mix(seed, bytes.len() as u64);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        h = mix(h, u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    finish(mix(h, u64::from_le_bytes(last)))
}

/// How many distinct keys the object at the start of `bytes` (checked to
/// be JSON) has, as its parsed `Value` would: `None` when a key holds an
/// escape (the parsed object is asked then). Reads keys, skips values.
pub(super) fn distinct_keys(bytes: &[u8], sc: &mut Scratch) -> Option<u64> {
    let keys = &mut sc.items;
    keys.clear();
    let mut cur = Cursor { bytes, pos: 1 };
    cur.ws();
    if cur.peek() == Some(b'}') {
        return Some(0);
    }
    loop {
        let key = cur.key().ok()?;
        if key.escaped {
            return None;
        }
        let body_at = key.body.as_ptr() as usize - bytes.as_ptr() as usize;
        keys.push(Item {
            kind: 0,
            bits: 0,
            at: body_at,
            len: key.body.len(),
        });
        cur.pos = end_of_checked(bytes, cur.pos);
        if !cur.next_or_close(b'}').ok()? {
            break;
        }
    }
    let text = |item: &Item| &bytes[item.at..item.at + item.len];
    let n = keys.len();
    if n <= 16 {
        let repeated = (0..n)
            .filter(|&i| keys[..i].iter().any(|k| text(k) == text(&keys[i])))
            .count();
        return Some((n - repeated) as u64);
    }
    keys.sort_unstable_by(|a, b| text(a).cmp(text(b)));
    let repeated = keys
        .windows(2)
        .filter(|p| text(&p[0]) == text(&p[1]))
        .count();
    Some((n - repeated) as u64)
}

/// Where the value at `i` ends, in bytes already read as JSON (their
/// syntax checked): strings passed over to their closing quote, brackets
/// counted, and inside an array or an object the bytes between skipped
/// eight at a time to the next quote or bracket. Numbers and literals are
/// not read by their syntax again: `distinct_keys` reads again an object
/// the scan has read whole (popxf-corr's 3,000 floats, for a
/// `minProperties`), and only its keys are asked.
fn end_of_checked(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    loop {
        match bytes.get(i) {
            None => return i,
            // A scalar's end (a string's is its closing quote).
            Some(b',' | b':' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t') if depth == 0 => {
                return i
            }
            Some(b'"') => {
                i = after_string(bytes, i + 1);
                if depth == 0 {
                    return i;
                }
            }
            Some(b'[' | b'{') => {
                depth += 1;
                i += 1;
            }
            Some(b']' | b'}') => {
                i += 1;
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            Some(_) if depth == 0 => i += 1,
            Some(_) => i = next_of(bytes, i + 1, |w| quote(w) | brackets(w)),
        }
    }
}

/// Past the closing quote of a string whose body starts at `i` (checked
/// to be JSON: an escape is a backslash and the byte after it, then
/// bytes that are no quote).
fn after_string(bytes: &[u8], mut i: usize) -> usize {
    loop {
        i = next_of(bytes, i, |w| {
            quote(w) | zero_bytes(w ^ (ONES * u64::from(b'\\')))
        });
        match bytes.get(i) {
            Some(b'\\') => i += 2,
            Some(_) => return i + 1,
            None => return i,
        }
    }
}

/// The first byte from `i` on that `test` flags in its word (the high bit
/// of each flagged byte; the lowest flag exact), or the end.
#[inline(always)]
fn next_of(bytes: &[u8], mut i: usize, test: impl Fn(u64) -> u64) -> usize {
    while let Some(word) = bytes.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let found = test(u64::from_le_bytes(w));
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(word) = bytes
        .get(i..(i + 8).min(bytes.len()))
        .filter(|w| !w.is_empty())
    {
        let mut w = [0xffu8; 8];
        w[..word.len()].copy_from_slice(word);
        let found = test(u64::from_le_bytes(w));
        if found != 0 {
            return (i + (found.trailing_zeros() / 8) as usize).min(bytes.len());
        }
        i += word.len();
    }
    i
}

#[inline(always)]
fn quote(w: u64) -> u64 {
    zero_bytes(w ^ (ONES * u64::from(b'"')))
}

/// `[`, `{`, `]` and `}`: with bit 5 set, `[` and `{` are `{`, `]` and `}`
/// are `}` (and no other byte is either).
#[inline(always)]
fn brackets(w: u64) -> u64 {
    let w = w | (ONES * 0x20);
    zero_bytes(w ^ (ONES * u64::from(b'{'))) | zero_bytes(w ^ (ONES * u64::from(b'}')))
}

#[cfg(test)]
mod tests {
    use super::end_of_checked;
    use crate::json::validate::tokenizer::Cursor;

    #[test]
    fn end_of_checked_ends_where_skip_ends() {
        let values = [
            r#"0"#,
            r#"-12.5e3"#,
            r#"true"#,
            r#"null"#,
            r#""""#,
            r#""plain""#,
            r#""a \" quote, a \\ backslash\\""#,
            r#""\\""#,
            r#""[{ not brackets }]""#,
            r#"[]"#,
            r#"{}"#,
            r#"[1, 2.5, -3e2, true, null, "x]"]"#,
            r#"{"a": [[[[0.4071, -0.3893]]]], "b": {"c\"}": "{["}}"#,
            r#"[[[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]]]]"#,
            r#"{"é": "ü😀", "k": ["\u005d", "\\"]}"#,
        ];
        for value in values {
            // Alone, and followed by what may follow a value in an object.
            for after in ["", ",", " , ", "}", ":"] {
                let text = format!("{value}{after}");
                let mut cur = Cursor {
                    bytes: text.as_bytes(),
                    pos: 0,
                };
                assert!(cur.skip(0).is_ok(), "{text}");
                assert_eq!(end_of_checked(text.as_bytes(), 0), cur.pos, "{text}");
            }
        }
    }
}
