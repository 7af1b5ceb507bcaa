//! A pattern's parse spelled out as the finite set of sequences it
//! matches, for the matchers that take such patterns off the engines:
//! folded words (`folded.rs`, a sequence of bytes) and runs of classes
//! (`classes.rs`, a sequence of character sets). Each says what a literal
//! and a class spell and its bounds ([`Spelling`]); the walk over
//! concatenation, alternation and bounded repetition is this one, and so
//! is the reading of the pattern's anchors ([`anchored`]).

use regex_syntax::hir::{Class, ClassUnicode, Hir, HirKind, Look};

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

/// Where a pattern's sequence must lie in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Anchor {
    /// `^seq$`: the whole text.
    Whole,
    /// `^seq`: the text's start.
    Start,
    /// `seq$`: the text's end.
    End,
}

/// A pattern's parse read at its anchors: where its body must lie, the
/// body, and, from `^.*body$`, the characters the text before the body
/// must not hold (`.` as the translation writes it,
/// `[^\n\r\u{2028}\u{2029}]`; the anchor is then [`Anchor::End`]).
pub(super) struct Anchored<'h> {
    pub(super) anchor: Anchor,
    pub(super) body: &'h [Hir],
    pub(super) before: Option<Box<[char]>>,
}

/// `hir` read at its anchors, or `None` when it is not a concatenation
/// anchored at one end at least.
pub(super) fn anchored(hir: &Hir) -> Option<Anchored<'_>> {
    let HirKind::Concat(items) = hir.kind() else {
        return None;
    };
    let start = matches!(
        items.first().map(Hir::kind),
        Some(HirKind::Look(Look::Start))
    );
    let end = matches!(items.last().map(Hir::kind), Some(HirKind::Look(Look::End)));
    if items.len() < usize::from(start) + usize::from(end) {
        return None;
    }
    let body = &items[usize::from(start)..items.len() - usize::from(end)];
    let (start, body, before) = match body.split_first() {
        Some((first, rest)) if start && end => match excluded_run(first) {
            Some(excluded) => (false, rest, Some(excluded)),
            None => (start, body, None),
        },
        _ => (start, body, None),
    };
    let anchor = match (start, end) {
        (true, true) => Anchor::Whole,
        (true, false) => Anchor::Start,
        (false, true) => Anchor::End,
        (false, false) => return None,
    };
    Some(Anchored {
        anchor,
        body,
        before,
    })
}

/// For `X*` over a class leaving out a few characters (`.`): those
/// characters.
fn excluded_run(hir: &Hir) -> Option<Box<[char]>> {
    let HirKind::Repetition(repetition) = hir.kind() else {
        return None;
    };
    let HirKind::Class(Class::Unicode(class)) = repetition.sub.kind() else {
        return None;
    };
    if repetition.min != 0 || repetition.max.is_some() {
        return None;
    }
    let mut excluded = class.clone();
    excluded.negate();
    let mut chars = Vec::new();
    for range in excluded.iter() {
        if u32::from(range.end()) - u32::from(range.start()) >= 8 || chars.len() >= 8 {
            return None;
        }
        chars
            .extend((u32::from(range.start())..=u32::from(range.end())).filter_map(char::from_u32));
    }
    Some(chars.into())
}
