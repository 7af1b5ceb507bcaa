//! A pattern's parse spelled out as the finite set of sequences it
//! matches, for the matchers that take such patterns off the engines:
//! folded words (`folded.rs`, a sequence of bytes) and runs of classes
//! (`classes.rs`, a sequence of character sets). Each says what a literal
//! and a class spell and its bounds ([`Spelling`]); the walk over
//! concatenation, alternation and bounded repetition is this one.

use regex_syntax::hir::{Class, ClassUnicode, Hir, HirKind};

/// What one matcher's sequences are made of, and their bounds.
pub(super) trait Spelling {
    /// One position of a sequence.
    type Item: Clone;
    /// The most sequences a pattern may spell.
    const MAX_SEQUENCES: usize;
    /// The most items in one sequence.
    const MAX_LEN: usize;
    /// The largest bounded repetition spelled out.
    const MAX_REPEAT: u32;

    /// The sequences a literal spells, or `None`: not this matcher's.
    fn literal(bytes: &[u8]) -> Option<Vec<Vec<Self::Item>>>;

    /// The sequences a Unicode class spells, or `None`.
    fn class(class: &ClassUnicode) -> Option<Vec<Vec<Self::Item>>>;
}

/// Every sequence `hir` matches, or `None` when there are too many, one
/// is too long, or a part is not the matcher's (a byte class, a look, an
/// unbounded repetition).
pub(super) fn expand<S: Spelling>(hir: &Hir) -> Option<Vec<Vec<S::Item>>> {
    match hir.kind() {
        HirKind::Empty => Some(vec![Vec::new()]),
        HirKind::Literal(literal) => S::literal(&literal.0),
        HirKind::Class(Class::Unicode(class)) => S::class(class),
        HirKind::Capture(capture) => expand::<S>(&capture.sub),
        HirKind::Concat(items) => concat::<S>(items),
        HirKind::Alternation(items) => {
            let mut out = Vec::new();
            for item in items {
                out.extend(expand::<S>(item)?);
                if out.len() > S::MAX_SEQUENCES {
                    return None;
                }
            }
            Some(out)
        }
        HirKind::Repetition(repetition) => {
            let max = repetition.max?;
            if max > S::MAX_REPEAT {
                return None;
            }
            let once = expand::<S>(&repetition.sub)?;
            let mut times = vec![Vec::new()];
            let mut out = Vec::new();
            for n in 0..=max {
                if n >= repetition.min {
                    out.extend(times.iter().cloned());
                    if out.len() > S::MAX_SEQUENCES {
                        return None;
                    }
                }
                if n < max {
                    times = product::<S>(&times, &once)?;
                }
            }
            Some(out)
        }
        HirKind::Class(Class::Bytes(_)) | HirKind::Look(_) => None,
    }
}

/// The sequences of `items` one after another.
pub(super) fn concat<S: Spelling>(items: &[Hir]) -> Option<Vec<Vec<S::Item>>> {
    let mut out = vec![Vec::new()];
    for item in items {
        out = product::<S>(&out, &expand::<S>(item)?)?;
    }
    Some(out)
}

/// Each of `left` followed by each of `right`, within the bounds.
fn product<S: Spelling>(
    left: &[Vec<S::Item>],
    right: &[Vec<S::Item>],
) -> Option<Vec<Vec<S::Item>>> {
    if left.len().checked_mul(right.len())? > S::MAX_SEQUENCES {
        return None;
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in left {
        for r in right {
            if l.len() + r.len() > S::MAX_LEN {
                return None;
            }
            let mut one = Vec::with_capacity(l.len() + r.len());
            one.extend_from_slice(l);
            one.extend_from_slice(r);
            out.push(one);
        }
    }
    Some(out)
}
