//! Patterns that spell a few words with every letter in both cases.
//!
//! Generated schemas write case-insensitive enums as patterns, one class
//! per letter: `tsconfig`'s `lib` items (`^[Ee][Ss]2017(\.([Ii][Nn][Tt][Ll]|
//! ...))?$`, 30-odd such `anyOf` branches), Microsoft's `utcm-monitor`
//! (`^([Pp][Rr][Ee][Ss][Ee][Nn][Tt]|[Aa][Bb][Ss][Ee][Nn][Tt])$`, and one
//! alternation of hundreds of resource names), file suffixes
//! (`\.([Yy][Aa][Mm][Ll]|[Jj][Ss][Oo][Nn])$`). The regex engines run
//! such a pattern as an automaton over every byte, behind a prefilter that
//! case pairs defeat. Its language is a finite set of words once letters
//! are folded: a text matches exactly when its ASCII letters, lowered,
//! spell one of the words (at the text's start, end, or as the whole
//! text, as the pattern is anchored), which is a length check and a
//! binary search over [`Strings`].
//!
//! The set is read from `regex-syntax`'s parse of the pattern as the
//! linear engine is handed it (`jsonschema_regex::to_rust_regex`), so a
//! class means exactly what it means there. Each letter of the pattern
//! must be a class of its two cases and nothing else (`[Ee]`): a letter
//! written in one case, a class holding other letters or a Unicode case
//! variant (`(?i)k` holds the Kelvin sign) leaves the pattern to the
//! engines. Other characters may be literals or small classes (`[567]`),
//! expanded, with `?`, alternation and bounded repetition, up to
//! [`MAX_WORDS`] words of at most [`MAX_LEN`] bytes.

use regex_syntax::hir::ClassUnicode;

use super::spell::{self, Anchor, Spelling};
use super::strings::Strings;
use crate::json::validate::tokenizer::{zero_bytes, ONES};

/// The most words a folded pattern expands to.
const MAX_WORDS: usize = 4096;
/// The longest word (in bytes): a text is lowered into a buffer this long
/// on the stack.
const MAX_LEN: usize = 128;
/// The most words [`Folded::disjoint`] compares, pair by pair.
const MAX_DISJOINT: usize = 512;
/// The most characters a class of non-letters expands to.
const MAX_CLASS: usize = 16;

/// A pattern whose matches are the texts that spell (at their start, end,
/// or whole) one of a finite set of words, ASCII letters in either case.
#[derive(Clone)]
pub(in crate::json::validate) struct Folded {
    anchor: Anchor,
    /// The words, letters lowered.
    words: Strings,
    /// The distinct lengths of the words, shortest first.
    lengths: Box<[usize]>,
    /// With [`Anchor::End`], from `^.*word$`: the characters the text
    /// before the word must not hold (`.` as the translation writes it,
    /// `[^\n\r\u{2028}\u{2029}]`).
    before: Option<Box<[char]>>,
}

impl Folded {
    /// The folded form of `translated` (a pattern as the `regex` crate is
    /// handed it), or `None` when it is not of that shape.
    pub(super) fn new(translated: &str) -> Option<Folded> {
        let hir = regex_syntax::Parser::new().parse(translated).ok()?;
        let spell::Anchored {
            anchor,
            body,
            before,
        } = spell::anchored(&hir)?;
        let words = spell::concat::<Words>(body)?;
        // Spelling nothing, the pattern matches every text (or only "").
        if words.iter().any(Vec::is_empty) && anchor != Anchor::Whole {
            return None;
        }
        let mut lengths: Vec<usize> = words.iter().map(Vec::len).collect();
        lengths.sort_unstable();
        lengths.dedup();
        let words = words
            .into_iter()
            .map(|w| String::from_utf8(w).ok().map(String::into_boxed_str))
            .collect::<Option<Vec<_>>>()?;
        Some(Folded {
            anchor,
            words: Strings::new(words),
            lengths: lengths.into(),
            before,
        })
    }

    /// One pattern matching exactly the texts some of `all` match, when
    /// they are anchored alike (and, for `^.*word$`, leave out the same
    /// characters before the word) and spell at most [`MAX_WORDS`] words
    /// together: a text then matches one of them exactly when it spells
    /// one of their words where the anchor puts it.
    pub(super) fn union(all: &[&Folded]) -> Option<Folded> {
        let (first, rest) = all.split_first()?;
        if !rest.iter().all(|f| first.joins(f)) {
            return None;
        }
        let words: Vec<Box<str>> = all
            .iter()
            .flat_map(|f| f.words.iter().map(Box::from))
            .collect();
        if words.len() > MAX_WORDS {
            return None;
        }
        let mut lengths: Vec<usize> = all.iter().flat_map(|f| f.lengths.iter().copied()).collect();
        lengths.sort_unstable();
        lengths.dedup();
        Some(Folded {
            anchor: first.anchor,
            words: Strings::new(words),
            lengths: lengths.into(),
            before: first.before.clone(),
        })
    }

    /// Whether `self` and `other` are anchored alike (and leave out the
    /// same characters before a final word): [`Folded::union`] takes them.
    pub(super) fn joins(&self, other: &Folded) -> bool {
        self.anchor == other.anchor && self.before == other.before
    }

    /// Whether no text matches two of `all` (anchored alike, as
    /// [`Folded::union`] takes them): no word of one is another's word, or
    /// for a word at the text's start (end), a prefix (suffix) of
    /// another's. Told for at most [`MAX_DISJOINT`] words in all; `false`
    /// past that.
    pub(super) fn disjoint(all: &[&Folded]) -> bool {
        let words: Vec<(usize, &[u8])> = all
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.words.iter().map(move |w| (i, w.as_bytes())))
            .collect();
        if words.len() > MAX_DISJOINT {
            return false;
        }
        let anchor = all.first().map_or(Anchor::Whole, |f| f.anchor);
        let overlap = |a: &[u8], b: &[u8]| match anchor {
            Anchor::Whole => a == b,
            Anchor::Start => a.starts_with(b) || b.starts_with(a),
            Anchor::End => a.ends_with(b) || b.ends_with(a),
        };
        words.iter().enumerate().all(|(at, &(i, a))| {
            words[at + 1..]
                .iter()
                .all(|&(j, b)| i == j || !overlap(a, b))
        })
    }

    /// Whether `text` matches.
    #[inline]
    pub(in crate::json::validate) fn is_match(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        let mut lowered = [0u8; MAX_LEN];
        // The longest word (at most `MAX_LEN`): no more of the text is read.
        let longest = self.lengths.last().copied().unwrap_or(0);
        match self.anchor {
            Anchor::Whole => {
                let len = bytes.len();
                if len > MAX_LEN || !self.lengths.contains(&len) {
                    return false;
                }
                lower(bytes, &mut lowered[..len]);
                self.words.contains_bytes(&lowered[..len])
            }
            Anchor::Start => {
                let n = bytes.len().min(longest);
                lower(&bytes[..n], &mut lowered[..n]);
                self.lengths
                    .iter()
                    .take_while(|&&len| len <= n)
                    .any(|&len| self.words.contains_bytes(&lowered[..len]))
            }
            Anchor::End => {
                let n = bytes.len().min(longest);
                lower(&bytes[bytes.len() - n..], &mut lowered[..n]);
                let ends = |len: usize| self.words.contains_bytes(&lowered[n - len..n]);
                let mut lengths = self.lengths.iter().take_while(|&&len| len <= n);
                match &self.before {
                    None => lengths.any(|&len| ends(len)),
                    // A word's bytes start a character (a lowered byte
                    // that is not ASCII is the text's own): the text
                    // before it is whole characters.
                    Some(excluded) => lengths.any(|&len| {
                        ends(len)
                            && text
                                .get(..text.len() - len)
                                .is_some_and(|before| !holds_any(before, excluded))
                    }),
                }
            }
        }
    }
}

/// Whether `text` holds any of `chars` (a few): its bytes scanned eight
/// at a time for their first bytes, and at each such byte (which starts
/// a character: a first byte is never a continuation byte) the characters
/// compared. Text beyond ASCII is scanned as fast as ASCII (venvironment's
/// file paths of emoji and CJK before `.vmodule`, checked for `.`'s line
/// terminators).
#[inline]
pub(super) fn holds_any(text: &str, chars: &[char]) -> bool {
    let mut firsts = [0u8; 4];
    let mut distinct = 0;
    for c in chars {
        let first = c.encode_utf8(&mut [0; 4]).as_bytes()[0];
        if !firsts[..distinct].contains(&first) {
            if distinct == firsts.len() {
                return text.contains(chars);
            }
            firsts[distinct] = first;
            distinct += 1;
        }
    }
    let firsts = &firsts[..distinct];
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = first_of(&bytes[from..], firsts) {
        let at = from + at;
        let rest = &text[at..];
        if chars.iter().any(|&c| rest.starts_with(c)) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// Where the first of `bytes` that is one of `firsts` (at most four) is:
/// eight bytes at a time, each word tested for each byte by the usual bit
/// tricks (`w ^ b` has a zero byte where `w` holds `b`; the lowest flagged
/// byte is exact).
#[inline(always)]
fn first_of(bytes: &[u8], firsts: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        let mut found = 0;
        for &b in firsts {
            let v = w ^ (ONES * u64::from(b));
            found |= zero_bytes(v);
        }
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|b| firsts.contains(b))
        .map(|at| i + at)
}

/// `from` with its ASCII letters lowered, into `to` (as long).
#[inline(always)]
fn lower(from: &[u8], to: &mut [u8]) {
    for (to, from) in to.iter_mut().zip(from) {
        *to = from.to_ascii_lowercase();
    }
}

/// Folded words, for [`spell::expand`].
struct Words;

impl Spelling for Words {
    type Item = u8;
    const MAX_SEQUENCES: usize = MAX_WORDS;
    const MAX_LEN: usize = MAX_LEN;
    const MAX_REPEAT: u32 = 8;

    /// A letter written as itself matches one case only.
    fn literal(bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        (!bytes.iter().any(u8::is_ascii_alphabetic)).then(|| vec![bytes.to_vec()])
    }

    fn class(class: &ClassUnicode) -> Option<Vec<Vec<u8>>> {
        let mut chars = Vec::new();
        for range in class.iter() {
            let (start, end) = (u32::from(range.start()), u32::from(range.end()));
            if end - start >= MAX_CLASS as u32 || chars.len() + (end - start) as usize >= MAX_CLASS
            {
                return None;
            }
            chars.extend((start..=end).filter_map(char::from_u32));
        }
        // Each letter in both of its cases (`[Ee]`, `[AaUu]`) matches
        // as its lowered self does in a lowered text; a letter without
        // its other case matches as written, which a lowered text
        // cannot tell.
        let folds = |c: &char| {
            !c.is_ascii_alphabetic()
                || chars.contains(&c.to_ascii_lowercase())
                    && chars.contains(&c.to_ascii_uppercase())
        };
        if !chars.iter().all(folds) {
            return None;
        }
        Some(
            chars
                .iter()
                .filter(|c| !c.is_ascii_uppercase())
                .map(|c| c.encode_utf8(&mut [0; 4]).as_bytes().to_vec())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{holds_any, Anchor, Folded};

    #[test]
    fn holds_any_is_str_contains() {
        let sets: [&[char]; 5] = [
            // `.`'s line terminators, as the translation excludes them.
            &['\n', '\r', '\u{2028}', '\u{2029}'],
            &['/'],
            &['a', 'é', '😀'],
            // Five first bytes: past what the word scan takes.
            &['a', 'b', 'c', 'd', 'e'],
            &[],
        ];
        let texts = [
            "",
            "plain ascii text past eight bytes",
            "Inputs/Nodes/MyECU1_😀😀坏街.can",
            "Inputs 入力/CANdb 断続器/easy лёгкий.dbc",
            "before\u{2028}after",
            "\u{2027}\u{202A}\u{2030}…—",
            "line\nbreak",
            "ends with a carriage return\r",
            "é",
            "xxxxxxxxxxxxxxxé",
            "xxxxxxx😀",
            "zzzzzzzzzzzzzzzzzzzzzzzzzzzze",
        ];
        for chars in sets {
            for text in texts {
                assert_eq!(
                    holds_any(text, chars),
                    text.contains(chars),
                    "{text:?} {chars:?}"
                );
            }
        }
    }

    fn folded(pattern: &str) -> Option<Folded> {
        Folded::new(&jsonschema_regex::to_rust_regex(pattern).unwrap())
    }

    #[test]
    fn case_pairs_fold_and_anything_else_stays_with_the_engines() {
        let lib = folded(r"^[Ee][Ss]2016(\.([Ii][Nn][Tt][Ll]|[Aa][Rr][Rr][Aa][Yy]\.[Ii][Nn][Cc][Ll][Uu][Dd][Ee]))?$")
            .unwrap();
        assert_eq!(lib.anchor, Anchor::Whole);
        assert_eq!(
            lib.words.iter().collect::<Vec<_>>(),
            ["es2016", "es2016.intl", "es2016.array.include"]
        );
        assert_eq!(
            folded(r"^[Ee][Ss][567]$")
                .unwrap()
                .words
                .iter()
                .collect::<Vec<_>>(),
            ["es5", "es6", "es7"]
        );
        assert_eq!(
            folded(r"\.([Yy][Aa][Mm][Ll]|[Jj][Ss][Oo][Nn])$")
                .unwrap()
                .anchor,
            Anchor::End
        );
        assert_eq!(folded(r"^[Xx]-").unwrap().anchor, Anchor::Start);
        let dll = folded(r"^.*\.[dD][lL][lL]$").unwrap();
        assert_eq!(
            (dll.anchor, dll.before.as_deref()),
            (Anchor::End, Some(&['\n', '\r', '\u{2028}', '\u{2029}'][..]))
        );
        assert_eq!(
            folded(r"^[AaUu][Mm][Dd]$")
                .unwrap()
                .words
                .iter()
                .collect::<Vec<_>>(),
            ["amd", "umd"]
        );
        // A letter in one case, a letter without its other case in a
        // class, a run, no anchor, an unbounded prefix.
        for pattern in [
            r"^[Ee]s$",
            r"^[Eeb]$",
            r"^[a-z]$",
            r"^[Ee]+$",
            r"[Ee]",
            r"^.+\.[Jj][Ss]$",
            r"^[Kk]{9}$",
        ] {
            assert!(folded(pattern).is_none(), "{pattern}");
        }
    }
}
