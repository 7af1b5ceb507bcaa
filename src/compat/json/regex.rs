//! A small backtracking regular-expression matcher for `patternProperties`.
//!
//! The engine may use no regex crate, and `patternProperties` patterns are
//! short, so this covers the ECMA-262 subset schemas use: literals, `.`,
//! classes (`[a-z]`, `[^0-9]`, `\d \w \s` and their negations), anchors
//! `^ $`, groups `( )` and `(?: )` with `|`, and greedy or lazy quantifiers
//! `* + ? {n} {n,} {n,m}`. Matching is a search (`find`), as in JSON Schema.
//! A pattern outside the subset does not parse, and the caller treats it as
//! matching nothing. Backtracking is bounded by a step budget, so a
//! pathological pattern gives up instead of running long.

#[derive(Debug, Clone)]
enum Node {
    Char(char),
    Any,
    Class(Vec<ClassItem>, bool),
    Start,
    End,
    Group(Vec<Vec<Node>>),
    Repeat(Box<Node>, u32, Option<u32>, bool),
}

#[derive(Debug, Clone)]
enum ClassItem {
    Range(char, char),
    Digit(bool),
    Word(bool),
    Space(bool),
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(crate) struct Regex {
    alternatives: Vec<Vec<Node>>,
}

const STEP_BUDGET: usize = 100_000;

impl Regex {
    /// Compiles `pattern`, or `None` when it is outside the supported subset.
    pub(crate) fn new(pattern: &str) -> Option<Regex> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut pos = 0;
        let alternatives = parse_alternatives(&chars, &mut pos, 0)?;
        if pos != chars.len() {
            return None;
        }
        Some(Regex { alternatives })
    }

    /// Whether the pattern matches somewhere in `text`.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let mut steps = 0;
        let whole = [Node::Group(self.alternatives.clone())];
        (0..=chars.len())
            .any(|start| match_seq(&whole, &chars, start, &mut steps, &mut |_, _| true))
    }
}

fn parse_alternatives(chars: &[char], pos: &mut usize, depth: usize) -> Option<Vec<Vec<Node>>> {
    if depth > 32 {
        return None;
    }
    let mut alternatives = vec![Vec::new()];
    while *pos < chars.len() {
        let c = chars[*pos];
        match c {
            '|' => {
                *pos += 1;
                alternatives.push(Vec::new());
            }
            ')' => break,
            _ => {
                let atom = parse_atom(chars, pos, depth)?;
                let atom = parse_quantifier(chars, pos, atom)?;
                alternatives.last_mut()?.push(atom);
            }
        }
    }
    Some(alternatives)
}

fn parse_atom(chars: &[char], pos: &mut usize, depth: usize) -> Option<Node> {
    let c = chars[*pos];
    *pos += 1;
    Some(match c {
        '.' => Node::Any,
        '^' => Node::Start,
        '$' => Node::End,
        '(' => {
            if chars.get(*pos) == Some(&'?') {
                if chars.get(*pos + 1) == Some(&':') {
                    *pos += 2;
                } else {
                    return None;
                }
            }
            let inner = parse_alternatives(chars, pos, depth + 1)?;
            if chars.get(*pos) != Some(&')') {
                return None;
            }
            *pos += 1;
            Node::Group(inner)
        }
        '[' => parse_class(chars, pos)?,
        '\\' => {
            let e = *chars.get(*pos)?;
            *pos += 1;
            match escape_class(e) {
                Some(item) => Node::Class(vec![item], false),
                None => Node::Char(escape_char(e)?),
            }
        }
        '*' | '+' | '?' | ')' => return None,
        other => Node::Char(other),
    })
}

fn escape_class(e: char) -> Option<ClassItem> {
    Some(match e {
        'd' => ClassItem::Digit(true),
        'D' => ClassItem::Digit(false),
        'w' => ClassItem::Word(true),
        'W' => ClassItem::Word(false),
        's' => ClassItem::Space(true),
        'S' => ClassItem::Space(false),
        _ => return None,
    })
}

fn escape_char(e: char) -> Option<char> {
    Some(match e {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'f' => '\u{c}',
        'v' => '\u{b}',
        '0' => '\0',
        c if c.is_ascii_alphanumeric() => return None,
        c => c,
    })
}

fn parse_class(chars: &[char], pos: &mut usize) -> Option<Node> {
    let mut negated = false;
    if chars.get(*pos) == Some(&'^') {
        negated = true;
        *pos += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(*pos)?;
        *pos += 1;
        if c == ']' && !first {
            break;
        }
        first = false;
        let lo = if c == '\\' {
            let e = *chars.get(*pos)?;
            *pos += 1;
            if let Some(item) = escape_class(e) {
                items.push(item);
                continue;
            }
            escape_char(e).or(Some(e))?
        } else {
            c
        };
        if chars.get(*pos) == Some(&'-') && chars.get(*pos + 1).is_some_and(|&n| n != ']') {
            *pos += 1;
            let mut hi = *chars.get(*pos)?;
            *pos += 1;
            if hi == '\\' {
                let e = *chars.get(*pos)?;
                *pos += 1;
                hi = escape_char(e).or(Some(e))?;
            }
            if hi < lo {
                return None;
            }
            items.push(ClassItem::Range(lo, hi));
        } else {
            items.push(ClassItem::Range(lo, lo));
        }
    }
    Some(Node::Class(items, negated))
}

fn parse_number(chars: &[char], pos: &mut usize) -> Option<u32> {
    let start = *pos;
    while chars.get(*pos).is_some_and(char::is_ascii_digit) {
        *pos += 1;
    }
    if start == *pos {
        return None;
    }
    chars[start..*pos].iter().collect::<String>().parse().ok()
}

fn parse_quantifier(chars: &[char], pos: &mut usize, atom: Node) -> Option<Node> {
    let (min, max) = match chars.get(*pos) {
        Some('*') => (0, None),
        Some('+') => (1, None),
        Some('?') => (0, Some(1)),
        Some('{') => {
            let save = *pos;
            *pos += 1;
            let Some(min) = parse_number(chars, pos) else {
                // A `{` that starts no quantifier is a literal, as in ECMA-262 Annex B.
                *pos = save;
                return Some(atom);
            };
            let max = if chars.get(*pos) == Some(&',') {
                *pos += 1;
                if chars.get(*pos) == Some(&'}') {
                    None
                } else {
                    Some(parse_number(chars, pos)?)
                }
            } else {
                Some(min)
            };
            if chars.get(*pos) != Some(&'}') {
                return None;
            }
            (min, max)
        }
        _ => return Some(atom),
    };
    *pos += 1;
    if matches!(atom, Node::Start | Node::End) {
        return None;
    }
    let lazy = chars.get(*pos) == Some(&'?');
    if lazy {
        *pos += 1;
    }
    Some(Node::Repeat(Box::new(atom), min, max, lazy))
}

fn class_matches(items: &[ClassItem], negated: bool, c: char) -> bool {
    let hit = items.iter().any(|item| match *item {
        ClassItem::Range(lo, hi) => lo <= c && c <= hi,
        ClassItem::Digit(yes) => c.is_ascii_digit() == yes,
        ClassItem::Word(yes) => (c.is_ascii_alphanumeric() || c == '_') == yes,
        ClassItem::Space(yes) => c.is_whitespace() == yes,
    });
    hit != negated
}

/// Matches `seq` at `at`, then calls `k` with the end position.
fn match_seq(
    seq: &[Node],
    text: &[char],
    at: usize,
    steps: &mut usize,
    k: &mut dyn FnMut(usize, &mut usize) -> bool,
) -> bool {
    *steps += 1;
    if *steps > STEP_BUDGET {
        return false;
    }
    let Some((first, rest)) = seq.split_first() else {
        return k(at, steps);
    };
    match first {
        Node::Char(c) => text.get(at) == Some(c) && match_seq(rest, text, at + 1, steps, k),
        Node::Any => {
            text.get(at).is_some_and(|&c| c != '\n') && match_seq(rest, text, at + 1, steps, k)
        }
        Node::Class(items, negated) => {
            text.get(at)
                .is_some_and(|&c| class_matches(items, *negated, c))
                && match_seq(rest, text, at + 1, steps, k)
        }
        Node::Start => at == 0 && match_seq(rest, text, at, steps, k),
        Node::End => at == text.len() && match_seq(rest, text, at, steps, k),
        Node::Group(alternatives) => alternatives.iter().any(|alt| {
            match_seq(alt, text, at, steps, &mut |end, steps| {
                match_seq(rest, text, end, steps, k)
            })
        }),
        Node::Repeat(atom, min, max, lazy) => {
            repeat(atom, *min, *max, *lazy, 0, rest, text, at, steps, k)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn repeat(
    atom: &Node,
    min: u32,
    max: Option<u32>,
    lazy: bool,
    count: u32,
    rest: &[Node],
    text: &[char],
    at: usize,
    steps: &mut usize,
    k: &mut dyn FnMut(usize, &mut usize) -> bool,
) -> bool {
    let can_stop = count >= min;
    let can_go = max.is_none_or(|m| count < m);
    if lazy && can_stop && match_seq(rest, text, at, steps, k) {
        return true;
    }
    let more = can_go
        && match_seq(
            std::slice::from_ref(atom),
            text,
            at,
            steps,
            &mut |end, steps| {
                // An empty iteration cannot make progress: stop repeating.
                end != at && repeat(atom, min, max, lazy, count + 1, rest, text, end, steps, k)
            },
        );
    if more {
        return true;
    }
    !lazy && can_stop && match_seq(rest, text, at, steps, k)
}

#[cfg(test)]
mod tests {
    use super::Regex;

    fn m(p: &str, t: &str) -> bool {
        Regex::new(p).is_some_and(|r| r.is_match(t))
    }

    #[test]
    fn common_patterns() {
        assert!(m("^S_", "S_abc"));
        assert!(!m("^S_", "xS_"));
        assert!(m("^I_", "I_123"));
        assert!(m("foo", "a foo b"));
        assert!(m("^[a-z]+$", "abc"));
        assert!(!m("^[a-z]+$", "abC"));
        assert!(m("^\\d{2,3}$", "123"));
        assert!(!m("^\\d{2,3}$", "1234"));
        assert!(m("^(a|bc)*$", "abcbca"));
        assert!(m("^x-(?:foo|bar)$", "x-bar"));
        assert!(m(".*", ""));
        assert!(m("^[^0-9]+$", "abc"));
        assert!(m("a{", "a{"));
        assert!(Regex::new("(").is_none());
        assert!(Regex::new("\\p{L}").is_none());
    }

    #[test]
    fn pathological_pattern_gives_up() {
        let r = Regex::new("^(a*)*b$").unwrap();
        assert!(!r.is_match(&"a".repeat(40)));
    }
}
