//! Patterns that spell a short run of characters, each from a class.
//!
//! Key and value patterns of generated schemas are often a fixed shape
//! with an alternation or a wildcard in it: `abc-supply-plan`'s month keys
//! (`^\d{4}-(0[1-9]|1[0-2])-01$`), `vtestunit`'s file suffixes
//! (`^.*\.vtesttree.[yY][aA][mM][lL]$`). Neither is a few folded words
//! (`folded.rs`): the first has digit classes, the second a letter in one
//! case and a `.`. The sequence matcher refuses the alternation, so the
//! first ran on the `regex` automaton; the second it runs, but as a star
//! over every byte of the text. Each is a few runs of at most
//! [`MAX_LEN`] characters, a class per character, to be found at the
//! text's start, end, or as the whole text: a text matches exactly when
//! one run fits there character by character (and, for `^.*run$`, the
//! text before it holds none of the few characters `.` leaves out).
//!
//! The runs are read from `regex-syntax`'s parse of the pattern as the
//! linear engine is handed it (`jsonschema_regex::to_rust_regex`), so a
//! class means exactly what it means there. A class must be ASCII
//! characters, or ASCII characters and every other character but a few
//! (`.` as the translation writes it); anything else, an unbounded
//! repetition, more than [`MAX_RUNS`] runs, leaves the pattern to the
//! engines.

use regex_syntax::hir::ClassUnicode;

use super::folded::holds_any;
use super::spell::{self, Anchor, Spelling};

/// The most runs a pattern expands to.
const MAX_RUNS: usize = 16;
/// The most characters in a run.
const MAX_LEN: usize = 64;
/// The most characters a class may leave out beyond ASCII.
const MAX_EXCLUDED: usize = 8;

/// The characters one position of a run takes.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Set {
    /// Bit `b % 64` of word `b / 64`: ASCII byte `b`.
    ascii: [u64; 2],
    /// Beyond ASCII: none (`None`), or all but these.
    other: Option<Box<[char]>>,
}

impl Set {
    /// The class of one ASCII character.
    fn one(c: u8) -> Set {
        let mut ascii = [0; 2];
        ascii[usize::from(c >> 6)] |= 1 << (c & 63);
        Set { ascii, other: None }
    }

    /// Whether the set takes `b`, an ASCII byte.
    #[inline(always)]
    fn takes_ascii(&self, b: u8) -> bool {
        self.ascii[usize::from(b >> 6) & 1] >> (b & 63) & 1 != 0
    }

    /// Whether the set takes `c`, a character beyond ASCII.
    #[inline]
    fn takes_other(&self, c: char) -> bool {
        self.other.as_ref().is_some_and(|left| !left.contains(&c))
    }
}

/// A pattern whose matches are the texts holding (at their start, end, or
/// whole) one of a few runs of characters, each from its class.
#[derive(Clone)]
pub(in crate::json::validate) struct Classes {
    anchor: Anchor,
    runs: Box<[Box<[Set]>]>,
    /// With [`Anchor::Whole`], when no run takes a character beyond ASCII:
    /// the bit of each run's length (a text of another length in bytes
    /// matches none); all bits otherwise.
    lengths: u128,
    /// With [`Anchor::End`], from `^.*run$`: the characters the text
    /// before the run must not hold.
    before: Option<Box<[char]>>,
}

impl Classes {
    /// The form of `translated` (a pattern as the `regex` crate is handed
    /// it), or `None` when it is not of that shape.
    pub(super) fn new(translated: &str) -> Option<Classes> {
        let hir = regex_syntax::Parser::new().parse(translated).ok()?;
        let spell::Anchored {
            anchor,
            body,
            before,
        } = spell::anchored(&hir)?;
        let runs = spell::concat::<Runs>(body)?;
        // An empty run matches every text (or only "", which `Whole` says;
        // after `^.*`, those without the characters it leaves out).
        if runs.iter().any(Vec::is_empty) && anchor != Anchor::Whole && before.is_none() {
            return None;
        }
        let ascii = runs.iter().flatten().all(|set| set.other.is_none());
        let lengths = if anchor == Anchor::Whole && ascii {
            runs.iter().fold(0, |bits, run| bits | 1 << run.len())
        } else {
            u128::MAX
        };
        Some(Classes {
            anchor,
            runs: runs.into_iter().map(Vec::into_boxed_slice).collect(),
            lengths,
            before,
        })
    }

    /// Whether `text` matches.
    #[inline]
    pub(in crate::json::validate) fn is_match(&self, text: &str) -> bool {
        match self.anchor {
            Anchor::Whole => {
                // (Runs are at most `MAX_LEN` < 128 long.)
                let len = text.len().min(127);
                self.lengths >> len & 1 != 0
                    && self
                        .runs
                        .iter()
                        .any(|run| forward(run, text) == Some(text.len()))
            }
            Anchor::Start => self.runs.iter().any(|run| forward(run, text).is_some()),
            Anchor::End => self.runs.iter().any(|run| match backward(run, text) {
                None => false,
                // `at` starts a character: the text before it is whole ones.
                Some(at) => self
                    .before
                    .as_ref()
                    .is_none_or(|excluded| !holds_any(&text[..at], excluded)),
            }),
        }
    }
}

/// Where `run` ends when `text` starts with it.
#[inline]
fn forward(run: &[Set], text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    for set in run {
        let b = *bytes.get(at)?;
        if b < 0x80 {
            if !set.takes_ascii(b) {
                return None;
            }
            at += 1;
        } else {
            // `at` starts a character: every step is a whole one.
            let c = text[at..].chars().next()?;
            if !set.takes_other(c) {
                return None;
            }
            at += c.len_utf8();
        }
    }
    Some(at)
}

/// Where `run` starts when `text` ends with it.
#[inline]
fn backward(run: &[Set], text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = bytes.len();
    for set in run.iter().rev() {
        let b = *bytes.get(at.checked_sub(1)?)?;
        if b < 0x80 {
            if !set.takes_ascii(b) {
                return None;
            }
            at -= 1;
        } else {
            let c = text[..at].chars().next_back()?;
            if !set.takes_other(c) {
                return None;
            }
            at -= c.len_utf8();
        }
    }
    Some(at)
}

/// A class as a [`Set`]: its ASCII characters, and beyond ASCII nothing
/// or all but a few.
fn set(class: &regex_syntax::hir::ClassUnicode) -> Option<Set> {
    let mut ascii = [0u64; 2];
    let mut beyond = false;
    for range in class.iter() {
        let (start, end) = (u32::from(range.start()), u32::from(range.end()));
        for c in start..=end.min(0x7F) {
            ascii[(c >> 6) as usize] |= 1 << (c & 63);
        }
        beyond |= end > 0x7F;
    }
    if !beyond {
        return Some(Set { ascii, other: None });
    }
    let mut left_out = class.clone();
    left_out.negate();
    let mut excluded = Vec::new();
    for range in left_out.iter() {
        let (start, end) = (u32::from(range.start()).max(0x80), u32::from(range.end()));
        if end < start {
            continue;
        }
        if end - start >= MAX_EXCLUDED as u32 || excluded.len() >= MAX_EXCLUDED {
            return None;
        }
        excluded.extend((start..=end).filter_map(char::from_u32));
    }
    Some(Set {
        ascii,
        other: Some(excluded.into()),
    })
}

/// Runs of character sets, for [`spell::expand`].
struct Runs;

impl Spelling for Runs {
    type Item = Set;
    const MAX_SEQUENCES: usize = MAX_RUNS;
    const MAX_LEN: usize = MAX_LEN;
    const MAX_REPEAT: u32 = MAX_LEN as u32;

    fn literal(bytes: &[u8]) -> Option<Vec<Vec<Set>>> {
        if bytes.len() > MAX_LEN || !bytes.is_ascii() {
            return None;
        }
        Some(vec![bytes.iter().map(|&b| Set::one(b)).collect()])
    }

    fn class(class: &ClassUnicode) -> Option<Vec<Vec<Set>>> {
        Some(vec![vec![set(class)?]])
    }
}

#[cfg(test)]
mod tests {
    use super::{Anchor, Classes};

    fn classes(pattern: &str) -> Option<Classes> {
        Classes::new(&jsonschema_regex::to_rust_regex(pattern).unwrap())
    }

    #[test]
    fn fixed_shapes_take_this_form_and_runs_stay_with_the_engines() {
        let month = classes(r"^\d{4}-(0[1-9]|1[0-2])-01$").unwrap();
        assert_eq!((month.anchor, month.runs.len()), (Anchor::Whole, 2));
        let suffix = classes(r"^.*\.vtesttree.[yY][aA][mM][lL]$").unwrap();
        assert_eq!(
            (suffix.anchor, suffix.before.as_deref()),
            (Anchor::End, Some(&['\n', '\r', '\u{2028}', '\u{2029}'][..]))
        );
        assert_eq!(classes(r"^v[0-9]").unwrap().anchor, Anchor::Start);
        let line = classes(r"^.*$").unwrap();
        assert_eq!(
            (line.anchor, &*line.runs),
            (Anchor::End, &[Box::from([])][..])
        );
        assert_eq!(classes(r"\.json$").unwrap().anchor, Anchor::End);
        // Unbounded, unanchored, a class of a few characters beyond
        // ASCII, a non-ASCII literal, too many runs.
        for pattern in [
            r"^[a-z]+$",
            r"^a.*b$",
            r"[0-9]",
            r"^[é-ë]$",
            r"^é$",
            r"^\p{L}$",
            r"^(ab|cd)(ef|gh)(ij|kl)(mn|op)(qr|st)$",
        ] {
            assert!(classes(pattern).is_none(), "{pattern}");
        }
    }
}
