//! CEL expressions (the `cel` crate), bounded: rules are outside input.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use cel::common::ast::Expr;
use cel::common::types::{CelBool, CelString};
use cel::{Context, Env, ExecutionError, Program, Value};

use super::cost::{Bound, Plan, EVAL_BUDGET, MAX_REGEX_BYTES};
use super::{MAX_EXPR_BYTES, MAX_EXPR_DEPTH};

/// The standard environment, built once for every rule, with the guard's
/// `matches` (see [`compiled_matches`]).
fn env() -> &'static (Arc<Env>, bool) {
    static ENV: OnceLock<(Arc<Env>, bool)> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        let ours = cel::add_overload!(env, fn matches: (CelString, CelString) -> Result<CelBool>,
            id = "matches")
        .and_then(|()| {
            cel::add_member_overload!(env, fn matches: (CelString, CelString) -> Result<CelBool>)
        })
        .is_ok();
        (Arc::new(env), ours)
    })
}

/// Whether `matches` is the guard's own, on patterns compiled once with
/// the rule. The `cel` crate's (its `regex` feature, off here) compiles
/// the pattern on every call, some 40 us for a short one; should another
/// crate in the build turn that feature on, the crate's is declared
/// first, ours cannot be, and the crate's runs, its cost counted as such
/// ([`REGEX_STEPS`](super::REGEX_STEPS)).
pub(crate) fn compiled_matches() -> bool {
    env().1
}

/// A rule's `matches` patterns, each with its compiled regex.
type Compiled = Arc<[(Box<str>, regex::Regex)]>;

thread_local! {
    /// The patterns of the rule this thread is evaluating.
    static PATTERNS: RefCell<Option<Compiled>> =
        const { RefCell::new(None) };
}

/// `text.matches(pattern)` and `matches(text, pattern)`: the pattern
/// compiled with the rule being evaluated (every `matches` pattern of a
/// rule is a literal, `cost.rs`).
fn matches(text: &CelString<'_>, pattern: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    PATTERNS.with(|patterns| {
        let patterns = patterns.borrow();
        let compiled = patterns
            .as_deref()
            .and_then(|all| all.iter().find(|(p, _)| **p == *pattern.inner()));
        match compiled {
            Some((_, regex)) => Ok(CelBool::from(regex.is_match(text.inner()))),
            None => Err(ExecutionError::function_error(
                "matches",
                format!(
                    "the pattern {:?} was not compiled with the rule",
                    crate::text::clip(pattern.inner(), 60)
                ),
            )),
        }
    })
}

/// Sets [`PATTERNS`] for the evaluation it lives through.
struct Patterns(Option<Compiled>);

impl Patterns {
    fn set(patterns: &Option<Compiled>) -> Patterns {
        Patterns(PATTERNS.with(|p| p.replace(patterns.clone())))
    }
}

impl Drop for Patterns {
    fn drop(&mut self) {
        PATTERNS.with(|p| *p.borrow_mut() = self.0.take());
    }
}

/// A compiled CEL expression, and its guard (the part before the first
/// `;`, as Confluent's `CelExecutor.evaluateWithGuard` splits it).
pub(crate) struct Cel {
    guard: Option<Program>,
    body: Program,
    /// The cost bound of an evaluation, for a rule that can cost more
    /// than a small multiple of what it reads (`cost.rs`).
    plan: Option<Plan>,
    /// Its `matches` patterns, compiled (with the guard's `matches`).
    patterns: Option<Compiled>,
}

/// What a run of a rule over one payload has spent of
/// [`EVAL_BUDGET`]: a field rule's evaluations, one per field, share it.
#[derive(Default)]
pub(crate) struct Budget {
    spent: u64,
}

impl std::fmt::Debug for Cel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cel").finish_non_exhaustive()
    }
}

/// What an expression gave.
pub(crate) enum Eval {
    /// A value: `true`, `false`, or anything else.
    Value(Value),
    /// The guard was not `true`: the body did not run.
    Guarded,
}

impl Cel {
    /// Compiles `expr`; `split_guard` is false when the rule's
    /// `cel.ignore.guard.separator` param is `true`; `field`: the rule is
    /// evaluated once per field (`CEL_FIELD`).
    pub(crate) fn compile(expr: &str, split_guard: bool, field: bool) -> Result<Cel, String> {
        if expr.len() > MAX_EXPR_BYTES {
            return Err(format!(
                "the expression is {} bytes, more than the {MAX_EXPR_BYTES} a rule may have",
                expr.len()
            ));
        }
        let (guard, body) = match expr.find(';') {
            Some(at) if split_guard => {
                let guard = &expr[..at];
                let guard = (!guard.trim().is_empty()).then_some(guard);
                (guard, &expr[at + 1..])
            }
            _ => (None, expr),
        };
        let guard = guard.map(compile_one).transpose()?;
        let body = compile_one(body)?;
        let plan = Plan::of(guard.iter().chain([&body]).map(Program::expression))?;
        let patterns = if compiled_matches() && !plan.patterns().is_empty() {
            let compiled = plan
                .patterns()
                .iter()
                .map(|p| {
                    regex::RegexBuilder::new(p)
                        .size_limit(MAX_REGEX_BYTES)
                        .build()
                        .map(|regex| (p.clone().into_boxed_str(), regex))
                        .map_err(|e| format!("the `matches` pattern {p:?} does not compile: {e}"))
                })
                .collect::<Result<Vec<_>, String>>()?;
            Some(compiled.into())
        } else {
            None
        };
        let plan = plan.needed(field).then_some(plan);
        Ok(Cel {
            guard,
            body,
            plan,
            patterns,
        })
    }

    /// Evaluates with `bind` adding the variables to a fresh scope, once
    /// its cost bound on the values `bound` gives for them (the same
    /// values, by name) fits in what is left of `budget`.
    pub(crate) fn eval<'v>(
        &self,
        budget: &mut Budget,
        bound: impl Fn(&str) -> Bound<'v>,
        bind: impl Fn(&mut Context<'_, '_>),
    ) -> Result<Eval, String> {
        if let Some(plan) = &self.plan {
            let left = EVAL_BUDGET.saturating_sub(budget.spent);
            let cost = plan.cost(&bound, left);
            budget.spent = budget.spent.saturating_add(cost.steps);
            if cost.steps > left {
                return Err(format!(
                    "over its evaluation budget: its cost on this payload is bounded at {}+ \
                     steps, past the {EVAL_BUDGET} a rule may take ({})",
                    budget.spent,
                    cost.heaviest.as_deref().unwrap_or("its reads")
                ));
            }
        }
        let mut context = Context::with_env(Arc::clone(&env().0));
        bind(&mut context);
        let _patterns = self
            .patterns
            .is_some()
            .then(|| Patterns::set(&self.patterns));
        if let Some(guard) = &self.guard {
            // An error in the guard is `false` (Confluent: "exception in
            // guard is treated as false").
            if !matches!(guard.execute(&context), Ok(Value::Bool(true))) {
                return Ok(Eval::Guarded);
            }
        }
        self.body
            .execute(&context)
            .map(Eval::Value)
            .map_err(|error| error.to_string())
    }
}

/// The paths an expression selects below `message`, guard and body, for
/// the checks at build: `message.customer.email` is `customer`,
/// `email`; an index (`message.items[0]`) or a comprehension's variable
/// (`i` in `message.items.all(i, i.sku != '')`) steps into an array's
/// item or a map's value ([`ITEM`](super::form::ITEM)). Every prefix of a
/// path is one too.
pub(crate) fn message_paths(expr: &str, split_guard: bool) -> Result<Vec<Vec<String>>, String> {
    let cel = Cel::compile(expr, split_guard, false)?;
    let mut out = Vec::new();
    for program in cel.guard.iter().chain([&cel.body]) {
        selections(program.expression(), &mut Vec::new(), &mut out);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Collects the paths below `message` (`bound`: the comprehension
/// variables in scope, each with the path it stands for). The tree is at
/// most [`MAX_EXPR_DEPTH`] deep (checked when compiled).
fn selections(
    expr: &cel::IdedExpr,
    bound: &mut Vec<(String, Vec<String>)>,
    out: &mut Vec<Vec<String>>,
) {
    if let Expr::Select(_) = &expr.expr {
        if let Some(path) = path_of(expr, bound) {
            out.push(path);
        }
    }
    if let Expr::Comprehension(c) = &expr.expr {
        selections(&c.iter_range, bound, out);
        let before = bound.len();
        if let Some(mut range) = path_of(&c.iter_range, bound) {
            range.push(super::form::ITEM.to_owned());
            if c.iter_var2.is_none() {
                bound.push((c.iter_var.clone(), range));
            }
        }
        for part in [&c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
            selections(part, bound, out);
        }
        bound.truncate(before);
        return;
    }
    for child in children(&expr.expr) {
        selections(child, bound, out);
    }
}

/// The path below `message` that `expr` reads, if it reads one.
fn path_of(expr: &cel::IdedExpr, bound: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    match &expr.expr {
        Expr::Ident(name) if name == "message" && !bound.iter().any(|(b, _)| b == name) => {
            Some(Vec::new())
        }
        Expr::Ident(name) => bound
            .iter()
            .rev()
            .find(|(b, _)| b == name)
            .map(|(_, path)| path.clone()),
        Expr::Select(select) => {
            let mut path = path_of(&select.operand, bound)?;
            path.push(select.field.clone());
            Some(path)
        }
        Expr::Call(call) if call.func_name == "_[_]" => {
            let mut path = path_of(call.args.first()?, bound)?;
            path.push(super::form::ITEM.to_owned());
            Some(path)
        }
        _ => None,
    }
}

/// How deep brackets (`(`, `[`, `{`) and conditionals (`?:`) may nest in
/// a rule's text. The `cel` crate's ANTLR parser recurses several frames
/// per level (its own recursion limit stops it too late for a thread's
/// stack), so the text is measured before the parser sees it.
pub(crate) const MAX_EXPR_NESTING: usize = 12;

/// The nesting of brackets plus the conditionals, outside string
/// literals.
fn nesting(source: &str) -> usize {
    let (mut depth, mut deepest, mut conditionals) = (0usize, 0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c == '\\' {
                    chars.next();
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                '?' => conditionals += 1,
                _ => {}
            },
        }
    }
    deepest + conditionals
}

fn compile_one(source: &str) -> Result<Program, String> {
    if nesting(source) > MAX_EXPR_NESTING {
        return Err(format!(
            "the expression nests brackets and conditionals more than {MAX_EXPR_NESTING} deep"
        ));
    }
    // The parser bounds its own recursion (nested parentheses); a long
    // chain of binary operators is built as deep left-nested calls
    // without recursing, so the tree's depth is bounded here, before
    // anything walks it.
    let program = env()
        .0
        .compile(source)
        .map_err(|errors| crate::text::clip(&errors.to_string(), 400))?;
    let depth = depth(program.expression(), 0);
    if depth > MAX_EXPR_DEPTH {
        return Err(format!(
            "the expression nests more than {MAX_EXPR_DEPTH} deep"
        ));
    }
    check_comprehensions(program.expression(), &[], &[])?;
    Ok(program)
}

/// The depth of `expr`, counted up to one past the bound (the walk never
/// recurses further).
fn depth(expr: &cel::IdedExpr, at: usize) -> usize {
    if at > MAX_EXPR_DEPTH {
        return at;
    }
    let children = children(&expr.expr);
    children
        .into_iter()
        .map(|child| depth(child, at + 1))
        .max()
        .unwrap_or(at)
}

pub(super) fn children(expr: &Expr) -> Vec<&cel::IdedExpr> {
    match expr {
        Expr::Call(call) => call.target.iter().map(|t| &**t).chain(&call.args).collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::List(list) => list.elements.iter().collect(),
        Expr::Map(map) => map
            .entries
            .iter()
            .flat_map(|entry| match &entry.expr {
                cel::common::ast::EntryExpr::MapEntry(e) => vec![&e.key, &e.value],
                cel::common::ast::EntryExpr::StructField(f) => vec![&f.value],
            })
            .collect(),
        Expr::Select(select) => vec![&*select.operand],
        Expr::Struct(s) => s
            .entries
            .iter()
            .flat_map(|entry| match &entry.expr {
                cel::common::ast::EntryExpr::MapEntry(e) => vec![&e.key, &e.value],
                cel::common::ast::EntryExpr::StructField(f) => vec![&f.value],
            })
            .collect(),
        Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => Vec::new(),
    }
}

/// A comprehension (`all`, `exists`, `map`, `filter`, ...) inside another
/// one costs the product of their lists: refused, unless it ranges over
/// a part of an enclosing one's element (`items.all(i, i.tags.exists(t,
/// ..))`), whose lists together are no larger than the payload. A
/// comprehension inside another's range is refused outright. Inside a
/// comprehension, `+` may join the element's parts, literals and the
/// accumulator, not a value from outside the element
/// (`message.items.map(i, message.note + i.sku)` would build a copy of
/// `note` per item: the product of two parts of the payload). `accus`
/// are the enclosing comprehensions' accumulators.
fn check_comprehensions(
    expr: &cel::IdedExpr,
    enclosing: &[&str],
    accus: &[&str],
) -> Result<(), String> {
    if let Expr::Call(call) = &expr.expr {
        if !enclosing.is_empty() && call.func_name == "_+_" {
            for operand in &call.args {
                if let Some(root) = root_ident(operand) {
                    if !enclosing.contains(&root) && !accus.contains(&root) {
                        return Err(format!(
                            "inside a comprehension (all, exists, map, filter), `+` joins \
                             {root}, a value from outside the element: its cost would be the \
                             product of the list and that value"
                        ));
                    }
                }
            }
        }
    }
    match &expr.expr {
        Expr::Comprehension(c) => {
            if !enclosing.is_empty() {
                let root = root_ident(&c.iter_range);
                if !root.is_some_and(|root| enclosing.contains(&root)) {
                    return Err(
                        "a comprehension (all, exists, map, filter) inside another must range \
                         over a part of the enclosing one's element: its cost would be the \
                         product of both lists"
                            .to_owned(),
                    );
                }
            }
            if contains_comprehension(&c.iter_range) {
                return Err(
                    "a comprehension's list may not itself be built by a comprehension".to_owned(),
                );
            }
            let mut inner: Vec<&str> = enclosing.to_vec();
            inner.push(&c.iter_var);
            if let Some(second) = &c.iter_var2 {
                inner.push(second);
            }
            let mut builders: Vec<&str> = accus.to_vec();
            builders.push(&c.accu_var);
            check_comprehensions(&c.accu_init, enclosing, accus)?;
            for part in [&c.loop_cond, &c.loop_step] {
                check_comprehensions(part, &inner, &builders)?;
            }
            check_comprehensions(&c.result, enclosing, &builders)
        }
        other => {
            for child in children(other) {
                check_comprehensions(child, enclosing, accus)?;
            }
            Ok(())
        }
    }
}

fn contains_comprehension(expr: &cel::IdedExpr) -> bool {
    matches!(expr.expr, Expr::Comprehension(_))
        || children(&expr.expr).into_iter().any(contains_comprehension)
}

/// The variable a select/index chain starts from (`i.tags` is `i`).
fn root_ident(expr: &cel::IdedExpr) -> Option<&str> {
    match &expr.expr {
        Expr::Ident(name) => Some(name),
        Expr::Select(select) => root_ident(&select.operand),
        Expr::Call(call) if call.func_name == "_[_]" => call.args.first().and_then(root_ident),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(expr: &str, message: serde_json::Value) -> Result<Eval, String> {
        let cel = Cel::compile(expr, true, false)?;
        let value = cel::to_value(&message).unwrap();
        let bound = |name: &str| match name {
            "message" => Bound::Json(&message),
            _ => Bound::Unbound,
        };
        cel.eval(&mut Budget::default(), bound, |ctx| {
            ctx.add_variable_from_value("message", value.clone())
        })
    }

    #[test]
    fn a_condition_reads_the_message() {
        let yes = run("message.amount > 0", serde_json::json!({"amount": 3})).unwrap();
        assert!(matches!(yes, Eval::Value(Value::Bool(true))));
        let no = run("message.amount > 0", serde_json::json!({"amount": -1})).unwrap();
        assert!(matches!(no, Eval::Value(Value::Bool(false))));
        let guarded = run(
            "message.kind == 'x'; message.amount > 0",
            serde_json::json!({"kind": "y", "amount": -1}),
        )
        .unwrap();
        assert!(matches!(guarded, Eval::Guarded));
    }

    #[test]
    fn matches_runs_on_the_patterns_compiled_with_the_rule() {
        assert!(compiled_matches(), "the guard's matches is declared");
        let email = r"message.email.matches('^[^@ ]+@[^@ ]+$')";
        assert!(matches!(
            run(email, serde_json::json!({"email": "a@example.com"})),
            Ok(Eval::Value(Value::Bool(true)))
        ));
        assert!(matches!(
            run(email, serde_json::json!({"email": "not an email"})),
            Ok(Eval::Value(Value::Bool(false)))
        ));
        // The global form, two patterns in one rule, in a comprehension.
        let both = "matches(message.a, '^x') && message.items.all(i, i.matches('^[0-9]+$'))";
        let message = serde_json::json!({"a": "xy", "items": ["1", "22"]});
        assert!(matches!(
            run(both, message),
            Ok(Eval::Value(Value::Bool(true)))
        ));
        let message = serde_json::json!({"a": "xy", "items": ["1", "b"]});
        assert!(matches!(
            run(both, message),
            Ok(Eval::Value(Value::Bool(false)))
        ));
        // Outside an evaluation no pattern is compiled: `matches` says so
        // rather than compiling one.
        let text = CelString::from("a".to_owned());
        let pattern = CelString::from("^a".to_owned());
        assert!(matches(&text, &pattern)
            .unwrap_err()
            .to_string()
            .contains("not compiled with the rule"));
    }

    #[test]
    fn hostile_expressions_are_refused_at_compile() {
        let long = "1 + ".repeat(1200) + "1";
        assert!(Cel::compile(&long, true, false)
            .unwrap_err()
            .contains("bytes"));
        let chain = "1+".repeat(400) + "1";
        assert!(Cel::compile(&chain, true, false)
            .unwrap_err()
            .contains("deep"));
        let parens = "(".repeat(500) + "1" + &")".repeat(500);
        assert!(Cel::compile(&parens, true, false)
            .unwrap_err()
            .contains("nests"));
        let conditionals = "true ? 1 : ".repeat(40) + "2";
        assert!(Cel::compile(&conditionals, true, false)
            .unwrap_err()
            .contains("nests"));
        // At the bound, on the stack a guard compiles on: it compiles.
        let n = MAX_EXPR_NESTING;
        for deep in [
            "(".repeat(n) + "1" + &")".repeat(n),
            "[".repeat(n) + "1" + &"]".repeat(n),
            "size(".repeat(n) + "'a'" + &")".repeat(n),
            "true ? 1 : ".repeat(n) + "2",
            "-".repeat(200) + "1",
        ] {
            let compiled =
                crate::limits::on_compile_stack(|| Cel::compile(&deep, true, false).map(|_| ()));
            assert!(matches!(compiled, Ok(Ok(()))), "{deep}: {compiled:?}");
        }
        let quadratic = "message.items.all(a, message.items.exists(b, a == b))";
        assert!(Cel::compile(quadratic, true, false)
            .unwrap_err()
            .contains("product"));
        let nested = "message.items.all(i, i.tags.exists(t, t == 'x'))";
        assert!(Cel::compile(nested, true, false).is_ok());
        let built = "message.items.map(a, message.items).all(l, true)";
        assert!(Cel::compile(built, true, false).is_err());
        // `+` inside a comprehension joins the element's parts, not a
        // value from outside it (a copy of it per item).
        let copies = "message.items.map(i, message.note + i.sku)";
        assert!(Cel::compile(copies, true, false)
            .unwrap_err()
            .contains("outside the element"));
        for fine in [
            "message.items.map(i, i.sku + '-' + i.name)",
            "message.items.all(i, i.quantity <= message.max)",
            "message.items.map(i, i.quantity + 1)",
            "message.note + '!'",
        ] {
            assert!(Cel::compile(fine, true, false).is_ok(), "{fine}");
        }
    }

    #[test]
    fn no_function_builds_a_list_or_string_from_a_number() {
        // The crate's `lists.range` and `strings` extensions are not in
        // the environment rules run in: a rule cannot build a list or a
        // string larger than the payload from a literal.
        for expr in [
            "size(lists.range(1000000)) > 0",
            "'ab'.repeat(1000000) != ''",
        ] {
            let outcome = run(expr, serde_json::json!({}));
            assert!(outcome.is_err(), "{expr}");
        }
    }
}
