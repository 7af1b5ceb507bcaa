//! Lookaround patterns answered on the linear engine, where their shape
//! allows it exactly.
//!
//! A pattern with lookaround goes to `fancy-regex`, whose backtracking VM
//! costs far more per string than the `regex` crate's automata, and which
//! stops after its budget. The lookaround real schemas write is mostly of
//! two shapes, both regular and both linear once rewritten:
//!
//! * **At the edges.** `^(?!x-)(?=.{1,253}$)body` and `body(?<!-)$`: a
//!   lookahead right after `^` asks about the text from its start, a
//!   lookbehind right before `$` about the text up to its end. With the
//!   body anchored at both ends, the pattern matches exactly when
//!   `^(?:body)$` does, each positive lookahead `(?=X)` as `^(?:X)` does,
//!   each negative one does not, and likewise each lookbehind `(?<=Y)`
//!   as `(?:Y)$`.
//! * **Next to a run of one character class.** `(?!-)[a-z0-9-]{1,63}` and
//!   `[a-z0-9-]{1,63}(?<!-)`, where the lookaround asks about one
//!   character (a literal, a class, `.`): with the run at least one
//!   character long, the lookahead asks about the run's first character
//!   and the lookbehind about its last, so they narrow those characters'
//!   classes (`[[a-z0-9-]&&[^\-]]`), as a DFA would.
//!
//! Anything else (other lookaround, backreferences, atomic groups, case
//! folding, word boundaries) has no linear form here, and the pattern stays
//! on `fancy-regex` alone.
//!
//! The rewrite reads `fancy-regex`'s own parse of the pattern and writes
//! each lookaround-free part as `fancy-regex` hands such parts to the
//! `regex` crate (`Expr::to_str`), so the parts mean what they mean there.
//! Even so, the linear form is trusted only when it says a text matches:
//! a "no" is asked of `fancy-regex` again (`Pattern::is_match`), so a
//! refusal stays exactly `fancy-regex`'s, and only the common case, a
//! conforming string, is answered here. One difference is deliberate: a
//! string the linear form matches but on which `fancy-regex` would run out
//! of its budget is a match (as it is), where `fancy-regex` alone could only
//! fail open. A range written upside down (`{2,1}`), which `fancy-regex`
//! accepts, has no linear form.

use fancy_regex::{Assertion, Expr, LookAround};

use crate::json::validate::PATTERN_SIZE_LIMIT;

/// A pattern with lookaround as a conjunction of linear regexes: it matches
/// when every one of `holds` matches and none of `fails` does.
#[derive(Clone, Debug)]
pub(in crate::json::validate) struct Linearized {
    holds: Box<[regex::Regex]>,
    fails: Box<[regex::Regex]>,
}

impl Linearized {
    /// The linear form of `pattern` (as `fancy-regex` is handed it), or
    /// `None` when its lookaround has none of the shapes above.
    pub(in crate::json::validate) fn new(pattern: &str) -> Option<Linearized> {
        let tree = Expr::parse_tree(pattern).ok()?;
        if !tree.backrefs.is_empty() {
            return None;
        }
        let items: &[Expr] = match &tree.expr {
            Expr::Concat(items) => items,
            one => std::slice::from_ref(one),
        };
        let [Expr::Assertion(Assertion::StartText), rest @ ..] = items else {
            return None;
        };
        let mut holds = Vec::new();
        let mut fails = Vec::new();
        // Lookaheads at the start.
        let mut body = rest;
        while let [Expr::LookAround(
            inner,
            kind @ (LookAround::LookAhead | LookAround::LookAheadNeg),
        ), tail @ ..] = body
        {
            let text = format!("^(?:{})", linear(inner)?);
            match kind {
                LookAround::LookAhead => holds.push(text),
                _ => fails.push(text),
            }
            body = tail;
        }
        // Lookbehinds at the end, when the body ends with `$`.
        let mut end = "";
        if let [head @ .., Expr::Assertion(Assertion::EndText)] = body {
            end = "$";
            body = head;
            while let [head @ .., Expr::LookAround(
                inner,
                kind @ (LookAround::LookBehind | LookAround::LookBehindNeg),
            )] = body
            {
                let text = format!("(?:{})$", linear(inner)?);
                match kind {
                    LookAround::LookBehind => holds.push(text),
                    _ => fails.push(text),
                }
                body = head;
            }
        }
        let mut whole = String::from("^(?:");
        sequence(body, &mut whole)?;
        whole.push(')');
        whole.push_str(end);
        holds.push(whole);
        let build = |texts: Vec<String>| -> Option<Box<[regex::Regex]>> {
            texts
                .iter()
                .map(|text| {
                    regex::RegexBuilder::new(text)
                        .size_limit(PATTERN_SIZE_LIMIT)
                        .dfa_size_limit(PATTERN_SIZE_LIMIT)
                        .build()
                        .ok()
                })
                .collect()
        };
        Some(Linearized {
            holds: build(holds)?,
            fails: build(fails)?,
        })
    }

    /// Whether `text` matches the pattern.
    #[inline]
    pub(in crate::json::validate) fn is_match(&self, text: &str) -> bool {
        self.holds.iter().all(|re| re.is_match(text))
            && !self.fails.iter().any(|re| re.is_match(text))
    }
}

/// `expr` in the `regex` crate's syntax, its single-character lookarounds
/// folded into the runs next to them; `None` when it has anything else the
/// linear engine cannot run.
fn linear(expr: &Expr) -> Option<String> {
    let mut out = String::new();
    write(expr, &mut out)?;
    Some(out)
}

fn write(expr: &Expr, out: &mut String) -> Option<()> {
    match expr {
        Expr::Concat(items) => sequence(items, out),
        Expr::Alt(branches) => {
            out.push_str("(?:");
            for (i, branch) in branches.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write(branch, out)?;
            }
            out.push(')');
            Some(())
        }
        Expr::Group(inner) => {
            out.push_str("(?:");
            write(inner, out)?;
            out.push(')');
            Some(())
        }
        // fancy-regex accepts an inverted range (`{2,1}`) the `regex`
        // crate reads differently or not at all: left to fancy-regex.
        Expr::Repeat { lo, hi, .. } if lo > hi => None,
        Expr::Repeat { child, lo, hi, .. } => {
            out.push_str("(?:");
            write(child, out)?;
            out.push(')');
            quantifier(*lo, *hi, out);
            Some(())
        }
        Expr::Empty
        | Expr::Any { crlf: false, .. }
        | Expr::Literal { casei: false, .. }
        | Expr::Delegate { casei: false, .. }
        | Expr::Assertion(Assertion::StartText | Assertion::EndText) => {
            out.push_str("(?:");
            expr.to_str(out, 0);
            out.push(')');
            Some(())
        }
        _ => None,
    }
}

/// A sequence, each single-character lookaround narrowing the first
/// character of the run after it (a lookahead) or the last of the run
/// before it (a lookbehind).
fn sequence(items: &[Expr], out: &mut String) -> Option<()> {
    let mut ahead: Vec<(String, bool)> = Vec::new();
    let mut open: Option<Run> = None;
    for item in items {
        match item {
            Expr::LookAround(inner, kind) => {
                let class = one_char(inner)?;
                match kind {
                    LookAround::LookAhead => ahead.push((class, true)),
                    LookAround::LookAheadNeg => ahead.push((class, false)),
                    LookAround::LookBehind => open.as_mut()?.last.push((class, true)),
                    LookAround::LookBehindNeg => open.as_mut()?.last.push((class, false)),
                }
            }
            _ => {
                if let Some(run) = open.take() {
                    run.write(out)?;
                }
                match Run::of(item) {
                    Some(mut run) => {
                        if !ahead.is_empty() {
                            if run.lo == 0 {
                                return None;
                            }
                            run.first = std::mem::take(&mut ahead);
                        }
                        open = Some(run);
                    }
                    None if ahead.is_empty() => write(item, out)?,
                    None => return None,
                }
            }
        }
    }
    if !ahead.is_empty() {
        return None;
    }
    if let Some(run) = open {
        run.write(out)?;
    }
    Some(())
}

/// `lo` to `hi` characters of one class, its first and last characters
/// narrowed by the lookarounds next to it (each a class and whether the
/// character must be in it).
struct Run {
    class: String,
    lo: usize,
    hi: usize,
    first: Vec<(String, bool)>,
    last: Vec<(String, bool)>,
}

impl Run {
    fn of(expr: &Expr) -> Option<Run> {
        let (child, lo, hi) = match expr {
            Expr::Repeat { child, lo, hi, .. } => (&**child, *lo, *hi),
            one => (one, 1, 1),
        };
        if lo > hi {
            return None;
        }
        Some(Run {
            class: one_char(child)?,
            lo,
            hi,
            first: Vec::new(),
            last: Vec::new(),
        })
    }

    fn write(self, out: &mut String) -> Option<()> {
        let class = format!("[{}]", self.class);
        if self.first.is_empty() && self.last.is_empty() {
            out.push_str(&class);
            quantifier(self.lo, self.hi, out);
            return Some(());
        }
        // A lookaround next to a run that may be empty asks about a
        // character outside it.
        if self.lo == 0 {
            return None;
        }
        let narrowed = |extra: &[&[(String, bool)]]| {
            let mut text = format!("[{}", self.class);
            for (class, inside) in extra.iter().flat_map(|e| e.iter()) {
                text.push_str(if *inside { "&&[" } else { "&&[^" });
                text.push_str(class);
                text.push(']');
            }
            text.push(']');
            text
        };
        // `hi >= lo >= 1` here (inverted ranges were refused in `Run::of`),
        // and `lo >= 2` wherever two are taken off.
        let less = |n: usize, by: usize| {
            if n == usize::MAX {
                Some(n)
            } else {
                n.checked_sub(by)
            }
        };
        match (self.first.is_empty(), self.last.is_empty()) {
            (false, true) => {
                out.push_str(&narrowed(&[&self.first]));
                out.push_str(&class);
                quantifier(self.lo - 1, less(self.hi, 1)?, out);
            }
            (true, false) => {
                out.push_str(&class);
                quantifier(self.lo - 1, less(self.hi, 1)?, out);
                out.push_str(&narrowed(&[&self.last]));
            }
            _ => {
                // One character is both the first and the last; two or
                // more have a first, a middle and a last.
                let both = narrowed(&[&self.first, &self.last]);
                let (first, last) = (narrowed(&[&self.first]), narrowed(&[&self.last]));
                let longer = |out: &mut String, lo: usize| {
                    out.push_str(&first);
                    out.push_str(&class);
                    quantifier(lo, less(self.hi, 2)?, out);
                    out.push_str(&last);
                    Some(())
                };
                match (self.lo, self.hi) {
                    (1, 1) => out.push_str(&both),
                    (1, _) => {
                        out.push_str("(?:");
                        out.push_str(&both);
                        out.push('|');
                        longer(out, 0)?;
                        out.push(')');
                    }
                    (lo, _) => longer(out, lo - 2)?,
                }
            }
        }
        Some(())
    }
}

/// `expr` as the operand of a class (`\-`, `[a-z]`, `\d`, `[^\n]`) when it
/// matches exactly one character as the `regex` crate reads it.
fn one_char(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Literal { val, casei: false } => {
            let mut chars = val.chars();
            let c = chars.next()?;
            chars
                .next()
                .is_none()
                .then(|| regex::escape(c.encode_utf8(&mut [0; 4])))
        }
        Expr::Delegate {
            inner,
            casei: false,
        } => Some(inner.clone()),
        Expr::Any {
            newline: false,
            crlf: false,
        } => Some("[^\\n]".into()),
        Expr::Any {
            newline: true,
            crlf: false,
        } => Some("[\\s\\S]".into()),
        _ => None,
    }
}

fn quantifier(lo: usize, hi: usize, out: &mut String) {
    use std::fmt::Write as _;
    let _ = match (lo, hi) {
        (1, 1) => Ok(()),
        (lo, usize::MAX) => write!(out, "{{{lo},}}"),
        (lo, hi) if lo == hi => write!(out, "{{{lo}}}"),
        (lo, hi) => write!(out, "{{{lo},{hi}}}"),
    };
}

#[cfg(test)]
mod tests {
    use super::Linearized;

    /// The patterns the rewrite takes, as `fancy-regex` is handed them.
    const TAKEN: &[&str] = &[
        // The corpus' deploy-event schema.
        "^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\\.(?!-)[a-z0-9-]{1,63}(?<!-))*$",
        "^(?!root$|admin$)[a-z][a-z0-9._-]{1,31}$",
        "^(?!kubernetes\\.io/)[a-z0-9./-]{1,63}$",
        "^(?!-)(?!.*--)[a-z0-9-]{1,63}(?<!-)$",
        // Edges.
        "^(?!x-).+$",
        "^(?!\\d)\\w+$",
        "^(?=[a-z])(?!.*-$)[a-z-]+$",
        "^(?=.*\\d)(?=.*[a-z]).{8,}$",
        "^(?!.*(?:admin|root)).*$",
        "^[a-z]+(?<!ing)$",
        "^a{0,3}(?<=a)$",
        "^(?!a)",
        "^(?!a)b",
        "^(?!\\s)[\\s\\S]{1,5}(?<!\\s)$",
        // Runs.
        "^(?:(?!-)[a-z-]{2,4}(?<!-)\\.)+[a-z]{2,}$",
        "^x(?!a)[a-c]{1,}(?<=c)y$",
        "^x(?=[ab])(?!a)[a-c](?<!c)y$",
        "^x(?![ab])[a-c]{2}(?<=b)$",
        "^x(?!-)[a-z-]+(?<!-)(?<!z)-?$",
        "^(?:a|(?!b)[a-c]{1,2}(?<=b))$",
        "^(?!-).(?<![.])$",
        "^q(?!\\n)(?s:.){1,3}(?<=\\n)$",
    ];

    /// Shapes the rewrite leaves to `fancy-regex`.
    const LEFT: &[&str] = &[
        "(a)\\1",
        "(?<=a)b",
        "a(?!b)",
        "^x(?!a)b*$",
        "^[a-z](?!.*__)[a-z_]*$",
        "^(\\d{3})(?!\\d)",
        "^(?<!a)b",
        "^(?>a|ab)c$",
        "(?i)^(?!a)[a-z]+$",
        "^\\b(?!a)\\w+$",
        "^[a-z](?!-)[a-z-]?$",
        "^a|(?!b)c$",
        "^[a-z]{1,3}(?<=é)?$",
        // Inverted ranges, which fancy-regex accepts and matches nearly
        // nothing with: once written as unbounded runs (a red-team find).
        "^(?:(?!-)[a-z-]{2,1}(?<!-))$",
        "^x(?!-)[a-z-]{1,0}$",
        "^x(?=a)[a-z]{5,1}(?<=z)y$",
        "^(?!x)(?:ab){3,2}$",
    ];

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) % n as u64) as usize
        }
    }

    /// Strings over the pattern's own characters and a few more, short
    /// and at the lengths patterns bound (63, 253).
    fn texts(pattern: &str, rng: &mut Rng) -> Vec<String> {
        let mut alphabet: Vec<char> = pattern
            .chars()
            .filter(|c| c.is_ascii_graphic() && !"\\[](){}^$*+?|".contains(*c))
            .collect();
        alphabet.extend([
            'a', 'b', 'c', 'z', '0', '9', '-', '.', '_', ' ', '\n', 'é', 'A',
        ]);
        alphabet.sort_unstable();
        alphabet.dedup();
        let mut texts = vec![String::new()];
        for _ in 0..4_000 {
            let len = match rng.below(10) {
                0 => 60 + rng.below(8),
                1 => 250 + rng.below(8),
                _ => rng.below(12),
            };
            let text: String = (0..len)
                .map(|_| match rng.below(4) {
                    // Long strings are mostly one letter, so that they
                    // reach the bounds rather than fail early.
                    0 if len > 20 => 'a',
                    _ => alphabet[rng.below(alphabet.len())],
                })
                .collect();
            texts.push(text);
        }
        texts
    }

    #[test]
    fn the_linear_form_matches_as_fancy_regex_does() {
        let mut rng = Rng(20261203);
        let mut matched = 0;
        for pattern in TAKEN {
            let translated = jsonschema_regex::to_rust_regex(pattern).unwrap();
            let linear = Linearized::new(&translated)
                .unwrap_or_else(|| panic!("{pattern:?} has a linear form"));
            let fancy = fancy_regex::Regex::new(&translated).unwrap();
            for text in texts(pattern, &mut rng) {
                let theirs = fancy.is_match(&text).unwrap();
                assert_eq!(linear.is_match(&text), theirs, "{pattern:?} on {text:?}");
                matched += usize::from(theirs);
            }
        }
        // The strings reach both verdicts, not only refusals.
        assert!(matched > 10_000, "{matched} matches");
    }

    #[test]
    fn other_lookaround_has_no_linear_form() {
        for pattern in LEFT {
            let translated = jsonschema_regex::to_rust_regex(pattern).unwrap_or((*pattern).into());
            assert!(
                Linearized::new(&translated).is_none(),
                "{pattern:?} is left to fancy-regex"
            );
        }
    }
}
