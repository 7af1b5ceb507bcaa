//! The cost of a CEL rule's evaluation, bounded before it runs: the `cel`
//! crate's interpreter has no step budget, so a rule's cost on a payload
//! is bounded from the sizes of the values it reads.
//!
//! A rule is compiled into a [`Plan`]: for each comprehension (`all`,
//! `exists`, `exists_one`, `map`, `filter`), what it ranges over, the
//! size of its body, and the values from outside its element that the
//! body reads (`message.skus` in `message.items.all(i, i.sku in
//! message.skus)`), each read once per iteration. Before an evaluation,
//! the plan takes the sizes of those values from the variables about to
//! be bound and bounds the work: the sum, over comprehensions, of the
//! iterations times (the body's nodes, plus the weight of each outside
//! value, plus the steps of each `matches`: see [`regex_size`]). A comprehension nested in
//! another ranges over a part of the enclosing one's element
//! (`check_comprehensions`), so its iterations, over all the enclosing
//! ones, are at most the weight of the outermost one's range. The bound
//! is an upper one: a value read is counted whole, as if walked.
//!
//! The crate builds a `map` or `filter` result in place (its
//! `AppendStep`: one list, appended to), so accumulating costs nothing
//! past the iterations. Only rules that can cost more than a small
//! multiple of the payload carry a plan ([`Plan::needed`]): a
//! comprehension whose body reads a value from outside its element,
//! calls `matches`, or is larger than [`LINEAR_BODY`] nodes; and a field
//! rule (`CEL_FIELD`, evaluated once per field) reading `message`,
//! calling `matches` or holding a comprehension. Other rules cost nothing
//! more than before (a message rule's `matches` outside comprehensions
//! cost the same on every payload: checked when compiled).

use cel::common::ast::Expr;
use cel::IdedExpr;
use serde_json::Value;

use super::form::ITEM;
use super::weight;

/// The most the evaluations of one rule over one payload may cost, in
/// steps: a node of the expression evaluated, or a node of a value read
/// (a string of `n` bytes weighs `1 + n / 64`). A payload on which a rule
/// is bounded past it is refused by the rule's `onFailure`, as an
/// evaluation error is.
pub const EVAL_BUDGET: u64 = 1 << 22;

/// The steps a `matches` call counts past the size of its compiled
/// pattern where the `cel` crate's own `matches` runs, which compiles the
/// pattern on every call (some 40 us for a short one, on the machine
/// `BENCHMARKS.md` names): only when another crate in the build turns on
/// the `cel` crate's `regex` feature, so that the guard's `matches`, on
/// patterns compiled with the rule, cannot be declared.
pub const REGEX_STEPS: u64 = 4096;

/// The steps a `matches` call counts on a pattern compiled with the rule
/// (the guard's own `matches`), past a 64th of its compiled size: a match
/// is a scan of the string, no compile.
pub const MATCH_STEPS: u64 = 64;

/// The most the distinct `matches` patterns of one rule may compile to,
/// together, in bytes: they are compiled once, with the rule.
pub const MAX_RULE_REGEX_BYTES: u64 = 4 << 20;

/// The largest compiled pattern a `matches` may take, in bytes (the
/// `regex` crate's `size_limit`): compiling one this size takes some
/// 10 ms, on every call. A larger one is refused when the rule is
/// compiled.
pub const MAX_REGEX_BYTES: usize = 1 << 20;

/// A comprehension body of at most this many nodes, reading nothing from
/// outside its element, costs a small multiple of the payload: no plan.
pub const LINEAR_BODY: u64 = 64;

/// A value a rule reads: a variable and the fields below it
/// ([`ITEM`]: any item of a list, any value of a map).
#[derive(Debug, Clone, PartialEq)]
struct Path {
    root: String,
    steps: Vec<String>,
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::text::clip(&self.root, 24))?;
        for step in self.steps.iter().take(4) {
            if step == ITEM {
                f.write_str("[]")?;
            } else {
                write!(f, ".{}", crate::text::clip(step, 24))?;
            }
        }
        Ok(())
    }
}

/// What a variable about to be bound holds, for its size.
pub(crate) enum Bound<'a> {
    /// A JSON value (`message`, `value`).
    Json(&'a Value),
    /// A string of this many bytes (`name`, `fullName`, `typeName`).
    Text(usize),
    /// A list of this many short strings (`tags`).
    List(usize),
    /// Nothing: the name is not a variable.
    Unbound,
}

#[derive(Debug)]
struct Loop {
    /// The outermost comprehension whose elements this one walks a part
    /// of; `None`: it is outermost.
    within: Option<usize>,
    /// The values its range reads.
    range: Vec<Path>,
    /// Whether the range is exactly one value (its iterations are that
    /// value's length).
    exact: bool,
    /// The nodes of the range expression (a literal list's items).
    range_nodes: u64,
    /// The nodes of its body, evaluated per iteration.
    body_nodes: u64,
    /// The values from outside its element its body reads per iteration.
    outside: Vec<Path>,
    /// The steps of the `matches` calls in its body.
    regexes: u64,
}

/// A rule's comprehensions and reads, for its cost on a payload.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    loops: Vec<Loop>,
    /// The distinct `matches` patterns, compiled with the rule.
    patterns: Vec<String>,
    /// What they compile within together (their `size_limit`s).
    pattern_bytes: u64,
    /// The values read outside any comprehension, once per evaluation.
    reads: Vec<Path>,
    /// The steps of the `matches` calls outside any comprehension.
    regexes: u64,
}

/// A variable in scope inside a comprehension.
enum Var {
    /// An element of the outermost comprehension at this index (or of a
    /// part of one).
    Element(usize),
    /// An accumulator.
    Accu,
}

/// The bound of one evaluation, and what weighed most in it.
pub(crate) struct Cost {
    pub(crate) steps: u64,
    /// The comprehension that weighed most: its iterations, its range and
    /// the outside values its body reads.
    pub(crate) heaviest: Option<String>,
}

impl Plan {
    /// The plan of the programs' expressions (a guard and a body), or
    /// why the rule cannot be bounded (a `matches` whose pattern is not
    /// a literal, or compiles past [`MAX_REGEX_BYTES`]).
    pub(crate) fn of<'e>(exprs: impl IntoIterator<Item = &'e IdedExpr>) -> Result<Plan, String> {
        let mut plan = Plan::default();
        for expr in exprs {
            plan.walk(expr, &mut Vec::new(), None)?;
        }
        if plan.pattern_bytes > MAX_RULE_REGEX_BYTES {
            return Err(format!(
                "its `matches` patterns compile to more than {MAX_RULE_REGEX_BYTES} bytes together"
            ));
        }
        if plan.regexes > EVAL_BUDGET {
            return Err(format!(
                "its `matches` patterns take more than the {EVAL_BUDGET} steps a rule may take \
                 to compile, on every evaluation"
            ));
        }
        Ok(plan)
    }

    /// The distinct `matches` patterns, each checked to compile within
    /// [`MAX_REGEX_BYTES`].
    pub(crate) fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether evaluating can cost more than a small multiple of the
    /// values read (`field`: the rule is evaluated once per field, with
    /// `message` the object holding it).
    pub(crate) fn needed(&self, field: bool) -> bool {
        self.loops
            .iter()
            .any(|l| !l.outside.is_empty() || l.regexes > 0 || l.body_nodes > LINEAR_BODY || field)
            || (field && (self.regexes > 0 || self.reads.iter().any(|p| p.root == "message")))
    }

    fn walk(
        &mut self,
        expr: &IdedExpr,
        scope: &mut Vec<(String, Var)>,
        current: Option<usize>,
    ) -> Result<(), String> {
        if let Expr::Select(select) = &expr.expr {
            if select.test {
                // `has(a.b)`: a lookup, nothing walked.
                return Ok(());
            }
        }
        if let Some((root, steps, indexes)) = path(expr) {
            let bound = scope.iter().rev().find(|(name, _)| name == root);
            if bound.is_none() {
                let read = Path {
                    root: root.to_owned(),
                    steps,
                };
                match current {
                    Some(at) => self.loops[at].outside.push(read),
                    None => self.reads.push(read),
                }
            }
            for index in indexes {
                self.walk(index, scope, current)?;
            }
            return Ok(());
        }
        match &expr.expr {
            Expr::Comprehension(c) => {
                let at = self.loops.len();
                let within = path(&c.iter_range)
                    .and_then(|(root, _, _)| scope.iter().rev().find(|(name, _)| name == root))
                    .and_then(|(_, var)| match var {
                        Var::Element(outermost) => Some(*outermost),
                        Var::Accu => None,
                    })
                    // A comprehension inside another whose range is not a
                    // part of its element is refused at compile; counted
                    // as one over the enclosing one's range all the same.
                    .or_else(|| current.map(|e| self.loops[e].within.unwrap_or(e)));
                let mut range = Plan::default();
                range.walk(&c.iter_range, scope, None)?;
                self.loops.push(Loop {
                    within,
                    exact: path(&c.iter_range).is_some() && range.reads.len() == 1,
                    range: range.reads.clone(),
                    range_nodes: nodes(&c.iter_range),
                    body_nodes: nodes(&c.loop_cond) + nodes(&c.loop_step),
                    outside: Vec::new(),
                    regexes: 0,
                });
                // What the range reads from outside an enclosing
                // comprehension's element, it reads per iteration of it.
                match current {
                    Some(enclosing) => {
                        self.loops[enclosing].outside.extend(range.reads);
                        self.loops[enclosing].regexes += range.regexes;
                    }
                    None => {
                        self.reads.extend(range.reads);
                        self.regexes += range.regexes;
                    }
                }
                self.walk(&c.accu_init, scope, current)?;
                let before = scope.len();
                let element = within.unwrap_or(at);
                scope.push((c.iter_var.clone(), Var::Element(element)));
                if let Some(second) = &c.iter_var2 {
                    scope.push((second.clone(), Var::Element(element)));
                }
                scope.push((c.accu_var.clone(), Var::Accu));
                self.walk(&c.loop_cond, scope, Some(at))?;
                self.walk(&c.loop_step, scope, Some(at))?;
                scope.truncate(before);
                scope.push((c.accu_var.clone(), Var::Accu));
                self.walk(&c.result, scope, current)?;
                scope.truncate(before);
            }
            Expr::Call(call) => {
                if call.func_name == "matches" {
                    let (pattern, size) = regex_size(call.args.last())?;
                    let steps = if super::cel::compiled_matches() {
                        MATCH_STEPS + size / 64
                    } else {
                        REGEX_STEPS + size
                    };
                    if !self.patterns.contains(&pattern) {
                        self.pattern_bytes = self.pattern_bytes.saturating_add(size);
                        self.patterns.push(pattern);
                    }
                    let regexes = match current {
                        Some(at) => &mut self.loops[at].regexes,
                        None => &mut self.regexes,
                    };
                    *regexes = regexes.saturating_add(steps);
                }
                for child in super::cel::children(&expr.expr) {
                    self.walk(child, scope, current)?;
                }
            }
            other => {
                for child in super::cel::children(other) {
                    self.walk(child, scope, current)?;
                }
            }
        }
        Ok(())
    }

    /// The bound of one evaluation with the variables `bound` gives,
    /// counted until it passes `cap`.
    pub(crate) fn cost<'v>(&self, bound: &dyn Fn(&str) -> Bound<'v>, cap: u64) -> Cost {
        let weigh = |path: &Path| measure(&bound(&path.root), &path.steps, cap, Measure::Weight);
        let mut steps = self.regexes;
        for read in &self.reads {
            steps = steps.saturating_add(weigh(read));
        }
        let spread = |l: &Loop| {
            l.range
                .iter()
                .map(weigh)
                .fold(l.range_nodes, u64::saturating_add)
        };
        let mut heaviest: Option<(u64, usize, u64)> = None;
        for (at, l) in self.loops.iter().enumerate() {
            if steps > cap {
                break;
            }
            let iterations = match l.within {
                Some(outermost) => spread(&self.loops[outermost]),
                None if l.exact => {
                    let range = &l.range[0];
                    measure(&bound(&range.root), &range.steps, cap, Measure::Length)
                }
                None => spread(l),
            };
            let each = l
                .outside
                .iter()
                .map(weigh)
                .fold(l.body_nodes, u64::saturating_add)
                .saturating_add(l.regexes);
            let term = iterations.saturating_mul(each);
            steps = steps.saturating_add(term);
            if heaviest.is_none_or(|(most, _, _)| term > most) {
                heaviest = Some((term, at, iterations));
            }
        }
        let heaviest = heaviest.map(|(_, at, iterations)| {
            let l = &self.loops[at];
            let over = match l.within {
                Some(outermost) => format!(
                    "the parts of the items of {}",
                    shown(&self.loops[outermost].range)
                ),
                None => shown(&l.range),
            };
            if l.outside.is_empty() {
                format!("{iterations} iterations over {over}")
            } else {
                format!(
                    "{iterations} iterations over {over}, each reading {}",
                    shown(&l.outside)
                )
            }
        });
        Cost { steps, heaviest }
    }
}

/// A `matches` call's pattern and the smallest `size_limit` (a power of 4
/// from 1 KiB) it compiles within, which its steps count ([`MATCH_STEPS`]
/// or [`REGEX_STEPS`]). A pattern that is not a literal (the payload would
/// choose what is compiled) or compiles past [`MAX_REGEX_BYTES`] is
/// refused.
fn regex_size(pattern: Option<&IdedExpr>) -> Result<(String, u64), String> {
    let Some(Expr::Literal(cel::common::ast::LiteralValue::String(pattern))) =
        pattern.map(|p| &p.expr)
    else {
        return Err(
            "a `matches` pattern must be a literal string: it is compiled with the rule, and \
             one from the payload would cost what the payload chooses"
                .to_owned(),
        );
    };
    let pattern: &str = pattern.inner();
    let mut limit = 1 << 10;
    while limit <= MAX_REGEX_BYTES {
        if regex::RegexBuilder::new(pattern)
            .size_limit(limit)
            .build()
            .is_ok()
        {
            return Ok((pattern.to_owned(), limit as u64));
        }
        limit <<= 2;
    }
    Err(format!(
        "the `matches` pattern {:?} compiles to more than {MAX_REGEX_BYTES} bytes, or not at all",
        crate::text::clip(pattern, 60)
    ))
}

fn shown(paths: &[Path]) -> String {
    if paths.is_empty() {
        return "a literal".to_owned();
    }
    let mut out: Vec<String> = paths.iter().take(2).map(Path::to_string).collect();
    if paths.len() > 2 {
        out.push("...".to_owned());
    }
    out.join(", ")
}

#[derive(Clone, Copy)]
enum Measure {
    /// The nodes (see [`weight`]).
    Weight,
    /// The items of a list or the entries of a map.
    Length,
}

/// The weight or length of the value at `steps` below `bound` (the
/// largest of the values an [`ITEM`] step reaches), at most a little past
/// `cap`. A value that is not there weighs nothing: reading it fails.
fn measure(bound: &Bound<'_>, steps: &[String], cap: u64, how: Measure) -> u64 {
    match bound {
        Bound::Json(value) => measure_json(value, steps, cap, how),
        Bound::Text(len) if steps.is_empty() => match how {
            Measure::Weight => 1 + *len as u64 / 64,
            Measure::Length => 0,
        },
        Bound::List(len) if steps.is_empty() => *len as u64,
        Bound::List(_) if steps.len() == 1 && steps[0] == ITEM => 1,
        Bound::Text(_) | Bound::List(_) | Bound::Unbound => 0,
    }
}

fn measure_json(value: &Value, steps: &[String], cap: u64, how: Measure) -> u64 {
    let Some((step, rest)) = steps.split_first() else {
        return match how {
            Measure::Weight => weight(value, cap),
            Measure::Length => match value {
                Value::Array(items) => items.len() as u64,
                Value::Object(map) => map.len() as u64,
                _ => 0,
            },
        };
    };
    match value {
        Value::Object(map) if step != ITEM => map
            .get(step.as_str())
            .map_or(0, |v| measure_json(v, rest, cap, how)),
        Value::Object(map) => max_of(map.values(), rest, cap, how),
        Value::Array(items) if step == ITEM => max_of(items.iter(), rest, cap, how),
        _ => 0,
    }
}

fn max_of<'v>(
    values: impl Iterator<Item = &'v Value>,
    rest: &[String],
    cap: u64,
    how: Measure,
) -> u64 {
    let mut most = 0;
    for value in values {
        most = most.max(measure_json(value, rest, cap, how));
        if most > cap {
            break;
        }
    }
    most
}

/// The variable, selections and indexes of a read (`message.items[0].sku`
/// is `message`, `items`, [`ITEM`], `sku`), and the index expressions in
/// it.
fn path(expr: &IdedExpr) -> Option<(&str, Vec<String>, Vec<&IdedExpr>)> {
    match &expr.expr {
        Expr::Ident(name) => Some((name, Vec::new(), Vec::new())),
        Expr::Select(select) => {
            let (root, mut steps, indexes) = path(&select.operand)?;
            steps.push(select.field.clone());
            Some((root, steps, indexes))
        }
        Expr::Call(call) if call.func_name == "_[_]" && call.args.len() == 2 => {
            let (root, mut steps, mut indexes) = path(&call.args[0])?;
            steps.push(ITEM.to_owned());
            indexes.push(&call.args[1]);
            Some((root, steps, indexes))
        }
        _ => None,
    }
}

/// The nodes of an expression (at most [`MAX_EXPR_DEPTH`](super::MAX_EXPR_DEPTH)
/// deep: checked when compiled).
fn nodes(expr: &IdedExpr) -> u64 {
    let literal = match &expr.expr {
        // A literal string is compared or searched byte by byte.
        Expr::Literal(cel::common::ast::LiteralValue::String(s)) => s.inner().len() as u64 / 64,
        _ => 0,
    };
    1 + literal
        + super::cel::children(&expr.expr)
            .into_iter()
            .map(nodes)
            .sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(expr: &str) -> Plan {
        let program = cel::Program::compile(expr).unwrap();
        Plan::of([program.expression()]).unwrap()
    }

    fn cost(plan: &Plan, message: &Value) -> Cost {
        let bound = |name: &str| match name {
            "message" => Bound::Json(message),
            _ => Bound::Unbound,
        };
        plan.cost(&bound, u64::MAX)
    }

    fn order(items: usize, skus: usize) -> Value {
        json!({
            "items": (0..items).map(|i| json!({"sku": format!("s{i}"), "tags": ["a", "b"]})).collect::<Vec<_>>(),
            "skus": (0..skus).map(|i| format!("s{i}")).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn only_rules_that_can_cost_more_than_linear_carry_a_plan() {
        for linear in [
            "message.amount > 0",
            "message.items.all(i, i.quantity > 0)",
            "message.items.map(i, i.sku + '-x')",
            "message.items.all(i, i.tags.exists(t, t == 'x'))",
            "message.items.filter(i, has(i.sku)).size() > 0",
        ] {
            assert!(!plan(linear).needed(false), "{linear}");
        }
        for costly in [
            "message.items.all(i, i.sku in message.skus)",
            "message.items.exists(i, i.sku == message.featured)",
            "message.items.all(i, i.tags.exists(t, t in message.skus))",
            "message.items.all(i, i.sku.matches('^[a-z]+$'))",
            &format!(
                "message.items.all(i, i.sku in [{}])",
                vec!["'x'"; 80].join(", ")
            ),
        ] {
            assert!(plan(costly).needed(false), "{costly}");
        }
        // A field rule runs once per field: a comprehension, or a read
        // of the message holding the field, is counted on each.
        assert!(plan("message.items.all(i, i.quantity > 0)").needed(true));
        assert!(plan("message.kind == 'x'").needed(true));
        assert!(!plan("value.size() < 10").needed(true));
    }

    #[test]
    fn the_bound_is_the_iterations_times_what_each_reads() {
        let quadratic = plan("message.items.all(i, i.sku in message.skus)");
        let small = cost(&quadratic, &order(10, 10)).steps;
        let large = cost(&quadratic, &order(1000, 1000));
        // 1,000 iterations, each reading 1,001 nodes, and the range.
        assert!(large.steps >= 1000 * 1001, "{}", large.steps);
        assert!(large.steps < 1000 * 1100, "{}", large.steps);
        assert!(small < 10 * 100, "{small}");
        assert_eq!(
            large.heaviest.as_deref(),
            Some("1000 iterations over message.items, each reading message.skus")
        );
        // The nested comprehension's iterations, over all items, are
        // bounded by the weight of the outer one's range.
        let nested = plan("message.items.all(i, i.tags.exists(t, t in message.skus))");
        let bound = cost(&nested, &order(100, 1000)).steps;
        let items_weight = weight(&order(100, 0)["items"], u64::MAX);
        assert!(bound >= items_weight * 1001, "{bound}");
        // An index reads one item: the largest.
        let indexed = plan("message.items.all(i, i.sku == message.skus[0])");
        assert!(cost(&indexed, &order(1000, 1000)).steps < 1000 * 64);
    }

    #[test]
    fn a_matches_pattern_is_a_literal_that_compiles_small() {
        let refused = |expr: &str| {
            let program = cel::Program::compile(expr).unwrap();
            Plan::of([program.expression()]).unwrap_err()
        };
        assert!(refused("message.a.matches(message.p)").contains("literal"));
        assert!(refused("message.a.matches('\\\\w{100}')").contains("compiles to more than"));
        // A short one, compiled with the rule, counts a scan per call,
        // not a compile (the crate's `matches` is not in this build).
        assert!(super::super::cel::compiled_matches());
        let each = plan("message.items.all(i, i.sku.matches('^[a-z]+$'))");
        let steps = cost(&each, &order(1000, 0)).steps;
        assert!(
            steps > 1000 * MATCH_STEPS && steps < 1000 * REGEX_STEPS,
            "{steps}"
        );
        // Distinct patterns together compile within a bound.
        // (`\w{10}`, Unicode, compiles within 1 MiB; five of them do not.)
        let many = |n: usize| {
            (0..n)
                .map(|i| format!("message.a.matches('\\\\w{{10}}x{i}')"))
                .collect::<Vec<_>>()
                .join(" && ")
        };
        let program = cel::Program::compile(&many(4)).unwrap();
        assert!(Plan::of([program.expression()]).is_ok());
        assert!(
            refused(&many(5)).contains("together"),
            "{}",
            refused(&many(5))
        );
    }
}
