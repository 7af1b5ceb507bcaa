//! JSONata, the subset Confluent's migration rules use (feature
//! `jsonata`): written here because no Rust implementation on crates.io
//! fits (see `docs/architecture.md`).
//!
//! What it reads: literals (numbers, `'…'` and `"…"` strings, `true`,
//! `false`, `null`), `$` (the context), `$$` (the input), `$name`
//! variables and `$name := …` bindings, blocks `(a; b)`, paths
//! (`a.b.c`, `` `a field` ``, `$.'quoted'`, `*`) mapping over arrays,
//! filters and indexes (`items[price > 0]`, `items[0]`), object and array
//! constructors, the operators `+ - * / % & = != < <= > >= and or in ?:
//! ~>` and unary `-`, lambdas (`function($v, $k) { … }`), and the
//! functions `$merge`, `$sift`, `$each`, `$map`, `$filter`, `$keys`,
//! `$lookup`, `$exists`, `$string`, `$number`, `$boolean`, `$not`,
//! `$count`, `$sum`, `$max`, `$min`, `$append`, `$length`, `$uppercase`,
//! `$lowercase`, `$trim`, `$substring`, `$contains`, `$split`, `$join`,
//! `$type`, `$abs`, `$floor`, `$ceil`, `$round`. Anything else (regular
//! expressions, `$now`, transforms `|…|`, the parent operator `%`,
//! ranges) is refused when the rule is compiled, naming it.
//!
//! Bounded, since a registry's rules are input: the text is at most
//! [`MAX_EXPR_BYTES`] and nests at most
//! [`MAX_EXPR_DEPTH`]; an evaluation takes at most
//! [`MAX_STEPS`] steps, calls lambdas at most [`MAX_CALL_DEPTH`] deep,
//! nests evaluations at most [`MAX_EVAL_NESTING`] deep, and builds
//! strings and arrays no larger than [`MAX_BUILT`].

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::{weight, MAX_EXPR_BYTES, MAX_EXPR_DEPTH};

/// The most evaluation steps one run takes.
pub const MAX_STEPS: u64 = 1_000_000;

/// An evaluation over a payload of more than [`MAX_STEPS`] /
/// `BUDGET_PER_INPUT_NODE` nodes may take this many steps per node of it.
/// Steps count the nodes of every value copied (a field read, a variable
/// bound, `$` and `$$` taken whole), so the budget bounds the work and the
/// memory of a rule that copies its input over and over, not only its
/// operations.
pub const BUDGET_PER_INPUT_NODE: u64 = 32;

/// The deepest lambda calls nest.
pub const MAX_CALL_DEPTH: usize = 24;

/// The deepest evaluations nest, across lambda calls: an expression is at
/// most [`MAX_EXPR_DEPTH`] deep, but a lambda calling itself
/// [`MAX_CALL_DEPTH`] times through a body that deep would recurse some
/// 1,200 levels, past a 2 MiB thread's stack in a debug build (so did
/// 256; `evaluation_recurses_a_bounded_depth` runs the deepest there).
pub const MAX_EVAL_NESTING: usize = 128;

/// The most elements (array items, object members, string bytes) one
/// value built by an expression holds.
pub const MAX_BUILT: usize = 16 << 20;

/// A compiled expression.
#[derive(Debug)]
pub struct Jsonata {
    root: Node,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Num(f64),
    Str(String),
    Bool(bool),
    Null,
    /// `$` (empty name), `$$` (`"$"`), `$name`.
    Var(String),
    /// A field name as a path step.
    Name(String),
    /// `*`.
    Wildcard,
    Path(Box<Node>, Box<Node>),
    /// `expr[predicate]`.
    Filter(Box<Node>, Box<Node>),
    Binary(&'static str, Box<Node>, Box<Node>),
    Neg(Box<Node>),
    Object(Vec<(Node, Node)>),
    Array(Vec<Node>),
    Call(Box<Node>, Vec<Node>),
    Lambda(Arc<LambdaDef>),
    Cond(Box<Node>, Box<Node>, Option<Box<Node>>),
    Block(Vec<Node>),
    Bind(String, Box<Node>),
    /// `lhs ~> rhs`.
    Chain(Box<Node>, Box<Node>),
}

#[derive(Debug, PartialEq)]
struct LambdaDef {
    params: Vec<String>,
    body: Node,
    /// Whether the body reads the context it was made in (`$`, a field,
    /// `*`, or a lambda inside that does): one that does not captures
    /// none.
    reads_context: bool,
}

const BUILTINS: &[&str] = &[
    "merge",
    "sift",
    "each",
    "map",
    "filter",
    "keys",
    "lookup",
    "exists",
    "string",
    "number",
    "boolean",
    "not",
    "count",
    "sum",
    "max",
    "min",
    "append",
    "length",
    "uppercase",
    "lowercase",
    "trim",
    "substring",
    "contains",
    "split",
    "join",
    "type",
    "abs",
    "floor",
    "ceil",
    "round",
];

// ---------------------------------------------------------------- tokens

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Str(String),
    /// A name; `true` when it was quoted with backticks.
    Name(String, bool),
    Var(String),
    Op(&'static str),
}

const OPS: &[&str] = &[
    ":=", "~>", "!=", "<=", ">=", ".", "[", "]", "{", "}", "(", ")", ",", ":", ";", "?", "+", "-",
    "*", "/", "%", "&", "=", "<", ">",
];

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if text[i..].starts_with("/*") {
            let end = text[i + 2..]
                .find("*/")
                .ok_or("a comment that does not end")?;
            i += end + 4;
            continue;
        }
        if c == b'\'' || c == b'"' {
            let (s, next) = string_literal(text, i)?;
            out.push(Tok::Str(s));
            i = next;
            continue;
        }
        if c == b'`' {
            let end = text[i + 1..]
                .find('`')
                .ok_or("a `name` that does not end")?;
            out.push(Tok::Name(text[i + 1..i + 1 + end].to_owned(), true));
            i += end + 2;
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                // `1..3` is a range, not a number.
                if bytes[i] == b'.' && (i + 1 >= bytes.len() || !bytes[i + 1].is_ascii_digit()) {
                    break;
                }
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                i += 1;
                if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
                    i += 1;
                }
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let n: f64 = text[start..i]
                .parse()
                .map_err(|_| format!("{:?} is not a number", &text[start..i]))?;
            out.push(Tok::Num(n));
            continue;
        }
        if c == b'$' {
            i += 1;
            if i < bytes.len() && bytes[i] == b'$' {
                out.push(Tok::Var("$".to_owned()));
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Var(text[start..i].to_owned()));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Tok::Name(text[start..i].to_owned(), false));
            continue;
        }
        if text[i..].starts_with("..") {
            return Err("ranges (`..`) are not supported".to_owned());
        }
        if text[i..].starts_with("**") {
            return Err("the descendant operator `**` is not supported".to_owned());
        }
        match OPS.iter().find(|op| text[i..].starts_with(**op)) {
            Some(op) => {
                out.push(Tok::Op(op));
                i += op.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(format!("{ch:?} is not supported (at byte {i})"));
            }
        }
    }
    Ok(out)
}

/// A quoted string from `at` (its opening quote): its value and the
/// index past its closing quote.
fn string_literal(text: &str, at: usize) -> Result<(String, usize), String> {
    let quote = text.as_bytes()[at] as char;
    let mut out = String::new();
    let mut chars = text[at + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((out, at + 1 + offset + 1)),
            '\\' => match chars.next().map(|(_, c)| c) {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('b') => out.push('\u{8}'),
                Some('f') => out.push('\u{c}'),
                Some('u') => {
                    let hex: String = (0..4)
                        .filter_map(|_| chars.next().map(|(_, c)| c))
                        .collect();
                    let code = u32::from_str_radix(&hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| format!("\\u{hex} is not a character"))?;
                    out.push(code);
                }
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err("a string that does not end".to_owned())
}

// ---------------------------------------------------------------- parser

struct Parser {
    toks: Vec<Tok>,
    at: usize,
    depth: usize,
}

fn binding_power(op: &str) -> u8 {
    match op {
        "." => 75,
        "[" | "(" => 80,
        "*" | "/" | "%" => 60,
        "+" | "-" | "&" => 50,
        "=" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "~>" => 40,
        "and" => 30,
        "or" => 25,
        "?" => 20,
        ":=" => 10,
        _ => 0,
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let tok = self.toks.get(self.at).cloned();
        self.at += 1;
        tok
    }

    fn expect(&mut self, op: &str) -> Result<(), String> {
        match self.next() {
            Some(Tok::Op(found)) if found == op => Ok(()),
            other => Err(format!("expected {op:?}, found {}", shown(other.as_ref()))),
        }
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(found)) if *found == op)
    }

    /// The infix operator ahead, if any.
    fn infix(&self) -> Option<&'static str> {
        match self.peek()? {
            Tok::Op(op) => Some(op),
            Tok::Name(name, false) => match name.as_str() {
                "and" => Some("and"),
                "or" => Some("or"),
                "in" => Some("in"),
                _ => None,
            },
            _ => None,
        }
    }

    fn expression(&mut self, min: u8) -> Result<Node, String> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(format!(
                "the expression nests deeper than {MAX_EXPR_DEPTH} levels"
            ));
        }
        let mut left = self.prefix()?;
        while let Some(op) = self.infix() {
            let power = binding_power(op);
            if power <= min {
                break;
            }
            self.at += 1;
            left = match op {
                "." => {
                    let right = self.expression(power)?;
                    let right = match right {
                        Node::Str(name) => Node::Name(name),
                        other => other,
                    };
                    Node::Path(Box::new(left), Box::new(right))
                }
                "[" => {
                    if self.is_op("]") {
                        return Err("`[]` (keep arrays) is not supported".to_owned());
                    }
                    let predicate = self.expression(0)?;
                    self.expect("]")?;
                    Node::Filter(Box::new(left), Box::new(predicate))
                }
                "(" => {
                    let args = self.list(")")?;
                    Node::Call(Box::new(left), args)
                }
                "?" => {
                    let then = self.expression(0)?;
                    let otherwise = if self.is_op(":") {
                        self.at += 1;
                        Some(Box::new(self.expression(power - 1)?))
                    } else {
                        None
                    };
                    Node::Cond(Box::new(left), Box::new(then), otherwise)
                }
                ":=" => {
                    let Node::Var(name) = left else {
                        return Err("`:=` binds a $variable only".to_owned());
                    };
                    // Right-associative.
                    let value = self.expression(power - 1)?;
                    Node::Bind(name, Box::new(value))
                }
                "~>" => {
                    let right = self.expression(power)?;
                    Node::Chain(Box::new(left), Box::new(right))
                }
                ":" | "," | ";" | ")" | "]" | "}" => {
                    self.at -= 1;
                    break;
                }
                op => {
                    let right = self.expression(power)?;
                    Node::Binary(op, Box::new(left), Box::new(right))
                }
            };
        }
        self.depth -= 1;
        Ok(left)
    }

    /// Expressions separated by `,` up to `close`.
    fn list(&mut self, close: &str) -> Result<Vec<Node>, String> {
        let mut items = Vec::new();
        if self.is_op(close) {
            self.at += 1;
            return Ok(items);
        }
        loop {
            items.push(self.expression(0)?);
            match self.next() {
                Some(Tok::Op(",")) => continue,
                Some(Tok::Op(op)) if op == close => return Ok(items),
                other => {
                    return Err(format!(
                        "expected \",\" or {close:?}, found {}",
                        shown(other.as_ref())
                    ))
                }
            }
        }
    }

    fn prefix(&mut self) -> Result<Node, String> {
        match self.next() {
            Some(Tok::Num(n)) => Ok(Node::Num(n)),
            Some(Tok::Str(s)) => Ok(Node::Str(s)),
            Some(Tok::Var(name)) => Ok(Node::Var(name)),
            Some(Tok::Name(name, true)) => Ok(Node::Name(name)),
            Some(Tok::Name(name, false)) => match name.as_str() {
                "true" => Ok(Node::Bool(true)),
                "false" => Ok(Node::Bool(false)),
                "null" => Ok(Node::Null),
                "function" | "λ" => self.lambda(),
                "and" | "or" | "in" => Err(format!("{name:?} needs a left operand")),
                _ => Ok(Node::Name(name)),
            },
            Some(Tok::Op("-")) => Ok(Node::Neg(Box::new(self.expression(70)?))),
            Some(Tok::Op("*")) => Ok(Node::Wildcard),
            Some(Tok::Op("(")) => {
                let mut items = Vec::new();
                loop {
                    if self.is_op(")") {
                        self.at += 1;
                        break;
                    }
                    items.push(self.expression(0)?);
                    match self.next() {
                        Some(Tok::Op(";")) => continue,
                        Some(Tok::Op(")")) => break,
                        other => {
                            return Err(format!(
                                "expected \";\" or \")\", found {}",
                                shown(other.as_ref())
                            ))
                        }
                    }
                }
                Ok(Node::Block(items))
            }
            Some(Tok::Op("[")) => Ok(Node::Array(self.list("]")?)),
            Some(Tok::Op("{")) => {
                let mut members = Vec::new();
                if self.is_op("}") {
                    self.at += 1;
                    return Ok(Node::Object(members));
                }
                loop {
                    let key = self.expression(0)?;
                    self.expect(":")?;
                    let value = self.expression(0)?;
                    members.push((key, value));
                    match self.next() {
                        Some(Tok::Op(",")) => continue,
                        Some(Tok::Op("}")) => break,
                        other => {
                            return Err(format!(
                                "expected \",\" or \"}}\", found {}",
                                shown(other.as_ref())
                            ))
                        }
                    }
                }
                Ok(Node::Object(members))
            }
            Some(Tok::Op("%")) => Err("the parent operator `%` is not supported".to_owned()),
            Some(Tok::Op("|")) => Err("transforms `|…|` are not supported".to_owned()),
            other => Err(format!("unexpected {}", shown(other.as_ref()))),
        }
    }

    fn lambda(&mut self) -> Result<Node, String> {
        self.expect("(")?;
        let mut params = Vec::new();
        if self.is_op(")") {
            self.at += 1;
        } else {
            loop {
                match self.next() {
                    Some(Tok::Var(name)) if !name.is_empty() && name != "$" => params.push(name),
                    other => {
                        return Err(format!(
                            "a lambda's parameter is a $name, not {}",
                            shown(other.as_ref())
                        ))
                    }
                }
                match self.next() {
                    Some(Tok::Op(",")) => continue,
                    Some(Tok::Op(")")) => break,
                    other => {
                        return Err(format!(
                            "expected \",\" or \")\", found {}",
                            shown(other.as_ref())
                        ))
                    }
                }
            }
        }
        if self.is_op("<") {
            return Err("function signatures (`<…>`) are not supported".to_owned());
        }
        self.expect("{")?;
        let body = self.expression(0)?;
        self.expect("}")?;
        let reads_context = reads_context(&body);
        Ok(Node::Lambda(Arc::new(LambdaDef {
            params,
            body,
            reads_context,
        })))
    }
}

/// Whether evaluating `node` may read its context (see
/// [`LambdaDef::reads_context`]); the tree is at most [`MAX_EXPR_DEPTH`]
/// deep.
fn reads_context(node: &Node) -> bool {
    match node {
        Node::Var(name) => name.is_empty(),
        Node::Name(_) | Node::Wildcard => true,
        Node::Num(_) | Node::Str(_) | Node::Bool(_) | Node::Null => false,
        Node::Path(a, b) | Node::Filter(a, b) | Node::Binary(_, a, b) | Node::Chain(a, b) => {
            reads_context(a) || reads_context(b)
        }
        Node::Neg(a) | Node::Bind(_, a) => reads_context(a),
        Node::Object(members) => members
            .iter()
            .any(|(k, v)| reads_context(k) || reads_context(v)),
        Node::Array(items) | Node::Block(items) => items.iter().any(reads_context),
        Node::Call(callee, args) => reads_context(callee) || args.iter().any(reads_context),
        Node::Lambda(def) => def.reads_context,
        Node::Cond(c, t, e) => {
            reads_context(c) || reads_context(t) || e.as_deref().is_some_and(reads_context)
        }
    }
}

fn shown(tok: Option<&Tok>) -> String {
    match tok {
        None => "the end".to_owned(),
        Some(Tok::Num(n)) => format!("{n}"),
        Some(Tok::Str(s)) => format!("{s:?}"),
        Some(Tok::Name(n, _)) => format!("`{n}`"),
        Some(Tok::Var(v)) => format!("${v}"),
        Some(Tok::Op(op)) => format!("{op:?}"),
    }
}

/// Refuses a call to a function this subset does not have, when compiled.
/// The depth of `node`, counted up to one past [`MAX_EXPR_DEPTH`] (the
/// walk never recurses further).
fn depth(node: &Node, at: usize) -> usize {
    if at > MAX_EXPR_DEPTH {
        return at;
    }
    let deeper = |n: &Node| depth(n, at + 1);
    match node {
        Node::Num(_)
        | Node::Str(_)
        | Node::Bool(_)
        | Node::Null
        | Node::Var(_)
        | Node::Name(_)
        | Node::Wildcard => at,
        Node::Path(a, b) | Node::Filter(a, b) | Node::Binary(_, a, b) | Node::Chain(a, b) => {
            deeper(a).max(deeper(b))
        }
        Node::Neg(a) | Node::Bind(_, a) => deeper(a),
        Node::Object(members) => members
            .iter()
            .map(|(k, v)| deeper(k).max(deeper(v)))
            .fold(at, usize::max),
        Node::Array(items) | Node::Block(items) => items.iter().map(deeper).fold(at, usize::max),
        Node::Call(callee, args) => args.iter().map(deeper).fold(deeper(callee), usize::max),
        Node::Lambda(def) => deeper(&def.body),
        Node::Cond(c, then, otherwise) => {
            let most = deeper(c).max(deeper(then));
            otherwise
                .as_deref()
                .map(deeper)
                .map_or(most, |o| most.max(o))
        }
    }
}

fn check_calls(node: &Node, bound: &mut Vec<String>) -> Result<(), String> {
    let each = |n: &Node, bound: &mut Vec<String>| check_calls(n, bound);
    match node {
        Node::Call(callee, args) => {
            if let Node::Var(name) = &**callee {
                if !name.is_empty()
                    && !BUILTINS.contains(&name.as_str())
                    && !bound.iter().any(|b| b == name)
                {
                    return Err(format!(
                        "${name} is not a function this guard knows (it runs {})",
                        BUILTINS
                            .iter()
                            .map(|b| format!("${b}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            each(callee, bound)?;
            for arg in args {
                each(arg, bound)?;
            }
        }
        Node::Path(a, b) | Node::Filter(a, b) | Node::Binary(_, a, b) | Node::Chain(a, b) => {
            each(a, bound)?;
            // `x ~> $f(..)`: `$f` is called.
            each(b, bound)?;
        }
        Node::Neg(a) => each(a, bound)?,
        Node::Bind(name, a) => {
            bound.push(name.clone());
            each(a, bound)?;
        }
        Node::Object(members) => {
            for (k, v) in members {
                each(k, bound)?;
                each(v, bound)?;
            }
        }
        Node::Array(items) | Node::Block(items) => {
            for item in items {
                each(item, bound)?;
            }
        }
        Node::Lambda(def) => {
            let before = bound.len();
            bound.extend(def.params.iter().cloned());
            each(&def.body, bound)?;
            bound.truncate(before);
        }
        Node::Cond(c, t, e) => {
            each(c, bound)?;
            each(t, bound)?;
            if let Some(e) = e {
                each(e, bound)?;
            }
        }
        _ => {}
    }
    Ok(())
}

impl Jsonata {
    /// Compiles `expr`, or says why not (a syntax error, or a part of
    /// JSONata this subset does not run, named).
    pub fn compile(expr: &str) -> Result<Jsonata, String> {
        if expr.len() > MAX_EXPR_BYTES {
            return Err(format!(
                "the expression is {} bytes, more than the {MAX_EXPR_BYTES} a rule may have",
                expr.len()
            ));
        }
        let toks = tokenize(expr)?;
        let mut parser = Parser {
            toks,
            at: 0,
            depth: 0,
        };
        let root = parser.expression(0)?;
        if parser.at < parser.toks.len() {
            return Err(format!(
                "unexpected {} after the expression",
                shown(parser.peek())
            ));
        }
        // The parser recurses at most MAX_EXPR_DEPTH deep, but a chain
        // of operators (`1+1+…`, `a.a.…`) is built in its loop, as a tree
        // as deep as the chain is long: measured before anything walks it.
        if depth(&root, 0) > MAX_EXPR_DEPTH {
            return Err(format!(
                "the expression nests deeper than {MAX_EXPR_DEPTH} levels"
            ));
        }
        check_calls(&root, &mut Vec::new())?;
        Ok(Jsonata { root })
    }

    /// Evaluates the expression over `input`: its result, `None` when it
    /// is undefined (JSONata's "no value").
    pub fn evaluate(&self, input: &Value) -> Result<Option<Value>, String> {
        let mut eval = Eval {
            steps: 0,
            budget: budget_for(input),
            calls: 0,
            nesting: 0,
            root: input,
            scopes: Vec::new(),
        };
        let env = Env::root();
        eval.scopes.push(env.clone());
        let out = eval.eval(&self.root, input, &env);
        for scope in eval.scopes.drain(..) {
            scope.vars.borrow_mut().clear();
        }
        match out? {
            V::Undef => Ok(None),
            V::J(value) => Ok(Some(value)),
            V::F(_) => Err("the expression gives a function, not a value".to_owned()),
        }
    }
}

// ------------------------------------------------------------ evaluation

/// A value: undefined, JSON, or a function.
#[derive(Clone, Debug)]
enum V {
    Undef,
    J(Value),
    F(Func),
}

#[derive(Clone, Debug)]
enum Func {
    Builtin(&'static str),
    /// A lambda, its scope, and the context it was made in (shared: a
    /// call reads it, never copies it).
    Lambda(Arc<LambdaDef>, Rc<Env>, Rc<Value>),
}

#[derive(Debug, Default)]
struct Env {
    vars: std::cell::RefCell<HashMap<String, V>>,
    parent: Option<Rc<Env>>,
}

impl Env {
    fn root() -> Rc<Env> {
        Rc::new(Env::default())
    }

    fn child(parent: &Rc<Env>) -> Rc<Env> {
        Rc::new(Env {
            vars: Default::default(),
            parent: Some(parent.clone()),
        })
    }

    fn get(&self, name: &str) -> Option<V> {
        if let Some(v) = self.vars.borrow().get(name) {
            return Some(v.clone());
        }
        self.parent.as_ref()?.get(name)
    }
}

struct Eval<'i> {
    /// Steps taken and nodes of input copied, against `budget`.
    steps: u64,
    budget: u64,
    calls: usize,
    /// Evaluations in progress, one inside the other.
    nesting: usize,
    root: &'i Value,
    /// Every scope a variable was bound in, emptied when the run ends: a
    /// lambda bound in the scope it captures is a cycle of `Rc`s, which
    /// would never be freed.
    scopes: Vec<Rc<Env>>,
}

/// The budget of one evaluation over `input`: [`MAX_STEPS`], or
/// [`BUDGET_PER_INPUT_NODE`] per node of the input when that is more, so
/// that a rule copying a large payload a few times runs.
fn budget_for(input: &Value) -> u64 {
    let nodes = weight(input, u64::MAX);
    MAX_STEPS.max(nodes.saturating_mul(BUDGET_PER_INPUT_NODE))
}

fn num(n: f64) -> Result<Value, String> {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        return Ok(Value::from(n as i64));
    }
    Number::from_f64(n)
        .map(Value::Number)
        .ok_or_else(|| "a number that is not finite".to_owned())
}

fn type_name(v: &V) -> &'static str {
    match v {
        V::Undef => "undefined",
        V::F(_) => "function",
        V::J(Value::Null) => "null",
        V::J(Value::Bool(_)) => "boolean",
        V::J(Value::Number(_)) => "number",
        V::J(Value::String(_)) => "string",
        V::J(Value::Array(_)) => "array",
        V::J(Value::Object(_)) => "object",
    }
}

fn truthy(v: &V) -> bool {
    match v {
        V::Undef => false,
        V::F(_) => true,
        V::J(value) => truthy_json(value),
    }
}

fn truthy_json(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => items.iter().any(truthy_json),
        Value::Object(map) => !map.is_empty(),
    }
}

/// A sequence of values collapsed as JSONata collapses it: none is
/// undefined, one is itself.
fn collapse(mut items: Vec<Value>) -> V {
    match items.len() {
        0 => V::Undef,
        1 => V::J(items.pop().unwrap_or(Value::Null)),
        _ => V::J(Value::Array(items)),
    }
}

/// The items of a value taken as a sequence.
fn items_of(v: V) -> Vec<Value> {
    match v {
        V::Undef | V::F(_) => Vec::new(),
        V::J(Value::Array(items)) => items,
        V::J(value) => vec![value],
    }
}

fn field(value: &Value, name: &str, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            if let Some(found) = map.get(name) {
                match found {
                    Value::Array(items) => out.extend(items.iter().cloned()),
                    other => out.push(other.clone()),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                field(item, name, out);
            }
        }
        _ => {}
    }
}

fn as_str(value: &V) -> Result<String, String> {
    match value {
        V::Undef => Ok(String::new()),
        V::J(Value::String(s)) => Ok(s.clone()),
        V::J(Value::Number(n)) => Ok(number_text(n)),
        V::J(other) => Ok(other.to_string()),
        V::F(_) => Ok(String::new()),
    }
}

fn number_text(n: &Number) -> String {
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i128),
        _ => n.to_string(),
    }
}

fn as_num(value: &V, what: &str) -> Result<Option<f64>, String> {
    match value {
        V::Undef => Ok(None),
        V::J(Value::Number(n)) => Ok(n.as_f64()),
        other => Err(format!("{what} needs a number, not {}", type_name(other))),
    }
}

impl<'i> Eval<'i> {
    fn child(&mut self, parent: &Rc<Env>) -> Rc<Env> {
        Env::child(parent)
    }

    fn step(&mut self) -> Result<(), String> {
        self.charge(1)
    }

    /// Counts `n` steps against the budget.
    fn charge(&mut self, n: u64) -> Result<(), String> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.budget {
            return Err(format!(
                "the evaluation took more than {} steps (operations and nodes copied)",
                self.budget
            ));
        }
        Ok(())
    }

    /// A copy of `value`, its nodes counted against the budget first.
    fn copy(&mut self, value: &Value) -> Result<Value, String> {
        let left = self.budget.saturating_sub(self.steps);
        self.charge(weight(value, left))?;
        Ok(value.clone())
    }

    /// The values `field` found, their nodes counted against the budget.
    fn copied(&mut self, out: Vec<Value>) -> Result<V, String> {
        for value in &out {
            let left = self.budget.saturating_sub(self.steps);
            self.charge(weight(value, left).saturating_sub(1))?;
        }
        Ok(collapse(out))
    }

    fn built(&self, len: usize) -> Result<(), String> {
        if len > MAX_BUILT {
            return Err(format!(
                "the evaluation built a value of more than {MAX_BUILT} items or bytes"
            ));
        }
        Ok(())
    }

    /// Evaluates `node`, at most [`MAX_EVAL_NESTING`] evaluations deep.
    fn eval(&mut self, node: &Node, ctx: &Value, env: &Rc<Env>) -> Result<V, String> {
        if self.nesting >= MAX_EVAL_NESTING {
            return Err(format!(
                "the evaluation nests more than {MAX_EVAL_NESTING} deep"
            ));
        }
        self.nesting += 1;
        let out = self.eval_node(node, ctx, env);
        self.nesting -= 1;
        out
    }

    fn eval_node(&mut self, node: &Node, ctx: &Value, env: &Rc<Env>) -> Result<V, String> {
        self.step()?;
        Ok(match node {
            Node::Num(n) => V::J(num(*n)?),
            Node::Str(s) => V::J(Value::String(s.clone())),
            Node::Bool(b) => V::J(Value::Bool(*b)),
            Node::Null => V::J(Value::Null),
            Node::Var(name) if name.is_empty() => V::J(self.copy(ctx)?),
            Node::Var(name) if name == "$" => {
                let root: &'i Value = self.root;
                V::J(self.copy(root)?)
            }
            Node::Var(name) => match env.get(name) {
                Some(v) => {
                    if let V::J(value) = &v {
                        let left = self.budget.saturating_sub(self.steps);
                        self.charge(weight(value, left))?;
                    }
                    v
                }
                None if BUILTINS.contains(&name.as_str()) => V::F(Func::Builtin(
                    BUILTINS
                        .iter()
                        .find(|b| **b == name.as_str())
                        .copied()
                        .unwrap_or("merge"),
                )),
                None => V::Undef,
            },
            Node::Name(name) => {
                let mut out = Vec::new();
                field(ctx, name, &mut out);
                self.copied(out)?
            }
            Node::Wildcard => match ctx {
                Value::Object(map) => {
                    let mut out = Vec::new();
                    for value in map.values() {
                        match value {
                            Value::Array(items) => out.extend(items.iter().cloned()),
                            other => out.push(other.clone()),
                        }
                    }
                    self.copied(out)?
                }
                Value::Array(items) => {
                    let mut out = Vec::new();
                    for item in items {
                        if let V::J(v) = self.eval(node, item, env)? {
                            out.push(v);
                        }
                    }
                    collapse(out)
                }
                _ => V::Undef,
            },
            Node::Path(left, right) => {
                // `$.a` and `$$.a` read the context or the input where
                // it is: no copy of the whole of it to take a part.
                let root: &'i Value = self.root;
                let whole = match &**left {
                    Node::Var(name) if name.is_empty() => Some(ctx),
                    Node::Var(name) if name == "$" => Some(root),
                    _ => None,
                };
                let mut out = Vec::new();
                let mut step = |this: &mut Self, item: &Value| -> Result<(), String> {
                    this.step()?;
                    match this.eval(right, item, env)? {
                        V::J(Value::Array(items)) => out.extend(items),
                        V::J(value) => out.push(value),
                        V::Undef => {}
                        V::F(_) => return Err("a path step gives a function".to_owned()),
                    }
                    this.built(out.len())
                };
                match whole {
                    Some(Value::Array(items)) => {
                        for item in items {
                            step(self, item)?;
                        }
                    }
                    Some(value) => step(self, value)?,
                    None => {
                        for item in items_of(self.eval(left, ctx, env)?) {
                            step(self, &item)?;
                        }
                    }
                }
                collapse(out)
            }
            Node::Filter(left, predicate) => {
                let left = self.eval(left, ctx, env)?;
                let items = items_of(left);
                if let Node::Num(index) = &**predicate {
                    let index = index.floor() as i64;
                    let at = if index < 0 {
                        items.len() as i64 + index
                    } else {
                        index
                    };
                    return Ok(usize::try_from(at)
                        .ok()
                        .and_then(|at| items.get(at).cloned())
                        .map_or(V::Undef, V::J));
                }
                let mut out = Vec::new();
                let count = items.len();
                for (i, item) in items.into_iter().enumerate() {
                    let verdict = self.eval(predicate, &item, env)?;
                    let keep = match &verdict {
                        V::J(Value::Number(n)) => {
                            let n = n.as_f64().unwrap_or(f64::NAN).floor();
                            let at = if n < 0.0 { count as f64 + n } else { n };
                            at == i as f64
                        }
                        other => truthy(other),
                    };
                    if keep {
                        out.push(item);
                    }
                }
                collapse(out)
            }
            Node::Binary(op, left, right) => {
                let l = self.eval(left, ctx, env)?;
                // `and` and `or` short-circuit.
                match *op {
                    "and" => {
                        return Ok(V::J(Value::Bool(
                            truthy(&l) && truthy(&self.eval(right, ctx, env)?),
                        )))
                    }
                    "or" => {
                        return Ok(V::J(Value::Bool(
                            truthy(&l) || truthy(&self.eval(right, ctx, env)?),
                        )))
                    }
                    _ => {}
                }
                let r = self.eval(right, ctx, env)?;
                self.binary(op, l, r)?
            }
            Node::Neg(inner) => match as_num(&self.eval(inner, ctx, env)?, "`-`")? {
                None => V::Undef,
                Some(n) => V::J(num(-n)?),
            },
            Node::Object(members) => {
                let mut map = Map::new();
                for (key, value) in members {
                    let key = match self.eval(key, ctx, env)? {
                        V::J(Value::String(s)) => s,
                        other => {
                            return Err(format!(
                                "an object's key must be a string, not {}",
                                type_name(&other)
                            ))
                        }
                    };
                    match self.eval(value, ctx, env)? {
                        V::Undef => {}
                        V::J(value) => {
                            map.insert(key, value);
                        }
                        V::F(_) => return Err("a function cannot be a member's value".to_owned()),
                    }
                }
                V::J(Value::Object(map))
            }
            Node::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match self.eval(item, ctx, env)? {
                        V::Undef => {}
                        // An array constructor's items that are
                        // themselves constructed arrays stay nested; a
                        // path's sequence is flattened.
                        V::J(Value::Array(inner)) if !matches!(item, Node::Array(_)) => {
                            out.extend(inner)
                        }
                        V::J(value) => out.push(value),
                        V::F(_) => return Err("a function cannot be an array item".to_owned()),
                    }
                    self.built(out.len())?;
                }
                V::J(Value::Array(out))
            }
            Node::Call(callee, args) => {
                let f = self.eval(callee, ctx, env)?;
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval(arg, ctx, env)?);
                }
                self.call(&f, values, ctx)?
            }
            Node::Lambda(def) => {
                let input = Rc::new(if def.reads_context {
                    self.copy(ctx)?
                } else {
                    Value::Null
                });
                V::F(Func::Lambda(def.clone(), env.clone(), input))
            }
            Node::Cond(cond, then, otherwise) => {
                if truthy(&self.eval(cond, ctx, env)?) {
                    self.eval(then, ctx, env)?
                } else if let Some(otherwise) = otherwise {
                    self.eval(otherwise, ctx, env)?
                } else {
                    V::Undef
                }
            }
            Node::Block(items) => {
                let scope = self.child(env);
                let mut last = V::Undef;
                for item in items {
                    last = self.eval(item, ctx, &scope)?;
                }
                last
            }
            Node::Bind(name, value) => {
                let value = self.eval(value, ctx, env)?;
                if !self.scopes.last().is_some_and(|last| Rc::ptr_eq(last, env)) {
                    self.scopes.push(env.clone());
                }
                env.vars.borrow_mut().insert(name.clone(), value.clone());
                value
            }
            Node::Chain(left, right) => {
                let l = self.eval(left, ctx, env)?;
                match &**right {
                    // `x ~> $f(a)` is `$f(x, a)`.
                    Node::Call(callee, args) => {
                        let f = self.eval(callee, ctx, env)?;
                        let mut values = vec![l];
                        for arg in args {
                            values.push(self.eval(arg, ctx, env)?);
                        }
                        self.call(&f, values, ctx)?
                    }
                    other => {
                        let f = self.eval(other, ctx, env)?;
                        self.call(&f, vec![l], ctx)?
                    }
                }
            }
        })
    }

    fn binary(&mut self, op: &str, l: V, r: V) -> Result<V, String> {
        Ok(match op {
            "&" => {
                let text = as_str(&l)? + &as_str(&r)?;
                self.built(text.len())?;
                V::J(Value::String(text))
            }
            "+" | "-" | "*" | "/" | "%" => {
                let (Some(a), Some(b)) = (as_num(&l, op)?, as_num(&r, op)?) else {
                    return Ok(V::Undef);
                };
                V::J(num(match op {
                    "+" => a + b,
                    "-" => a - b,
                    "*" => a * b,
                    "/" => a / b,
                    _ => a % b,
                })?)
            }
            "=" | "!=" => {
                let (V::J(a), V::J(b)) = (&l, &r) else {
                    return Ok(V::J(Value::Bool(false)));
                };
                let same = json_eq(a, b);
                V::J(Value::Bool(if op == "=" { same } else { !same }))
            }
            "<" | "<=" | ">" | ">=" => {
                let ordering = match (&l, &r) {
                    (V::Undef, _) | (_, V::Undef) => return Ok(V::J(Value::Bool(false))),
                    (V::J(Value::Number(a)), V::J(Value::Number(b))) => a
                        .as_f64()
                        .partial_cmp(&b.as_f64())
                        .ok_or("numbers that do not compare")?,
                    (V::J(Value::String(a)), V::J(Value::String(b))) => a.cmp(b),
                    (a, b) => {
                        return Err(format!(
                            "`{op}` compares two numbers or two strings, not {} and {}",
                            type_name(a),
                            type_name(b)
                        ))
                    }
                };
                use std::cmp::Ordering::*;
                V::J(Value::Bool(match op {
                    "<" => ordering == Less,
                    "<=" => ordering != Greater,
                    ">" => ordering == Greater,
                    _ => ordering != Less,
                }))
            }
            "in" => {
                let V::J(needle) = &l else {
                    return Ok(V::J(Value::Bool(false)));
                };
                let found = items_of(r).iter().any(|item| json_eq(needle, item));
                V::J(Value::Bool(found))
            }
            other => return Err(format!("the operator {other:?} is not supported")),
        })
    }

    fn call(&mut self, f: &V, args: Vec<V>, ctx: &Value) -> Result<V, String> {
        match f {
            V::F(Func::Lambda(def, env, input)) => {
                self.calls += 1;
                if self.calls > MAX_CALL_DEPTH {
                    return Err(format!(
                        "lambdas call each other more than {MAX_CALL_DEPTH} deep"
                    ));
                }
                let scope = self.child(env);
                {
                    let mut vars = scope.vars.borrow_mut();
                    let mut args = args.into_iter();
                    for param in &def.params {
                        vars.insert(param.clone(), args.next().unwrap_or(V::Undef));
                    }
                }
                let out = self.eval(&def.body, input, &scope);
                self.calls -= 1;
                out
            }
            V::F(Func::Builtin(name)) => self.builtin(name, args, ctx),
            other => Err(format!(
                "called {}, which is not a function",
                type_name(other)
            )),
        }
    }

    /// A copy of an object's members, counted against the budget.
    fn copy_map(&mut self, map: &Map<String, Value>) -> Result<Map<String, Value>, String> {
        let mut out = Map::new();
        for (k, v) in map {
            out.insert(k.clone(), self.copy(v)?);
        }
        Ok(out)
    }

    fn builtin(&mut self, name: &str, args: Vec<V>, ctx: &Value) -> Result<V, String> {
        let mut args = args.into_iter();
        let mut arg = || args.next().unwrap_or(V::Undef);
        let wrong = |what: &str, v: &V| Err(format!("${name} needs {what}, not {}", type_name(v)));
        Ok(match name {
            "merge" => {
                let a = arg();
                let mut map = Map::new();
                let objects = match a {
                    V::Undef => return Ok(V::Undef),
                    V::J(Value::Array(items)) => items,
                    V::J(Value::Object(m)) => vec![Value::Object(m)],
                    other => return wrong("an array of objects", &other),
                };
                for object in objects {
                    self.step()?;
                    match object {
                        Value::Object(m) => {
                            for (k, v) in m {
                                map.insert(k, v);
                            }
                        }
                        other => return wrong("an array of objects", &V::J(other)),
                    }
                    self.built(map.len())?;
                }
                V::J(Value::Object(map))
            }
            "sift" | "each" => {
                let (object, f) = (arg(), arg());
                let map = match object {
                    V::Undef => return Ok(V::Undef),
                    V::J(Value::Object(m)) => m,
                    other => return wrong("an object", &other),
                };
                let mut kept = Map::new();
                let mut each = Vec::new();
                // The object itself, the third argument, only for a
                // function that takes it (a copy a member otherwise).
                let arity = takes(&f);
                let whole = if arity > 2 {
                    Some(Value::Object(self.copy_map(&map)?))
                } else {
                    None
                };
                for (k, v) in map {
                    self.step()?;
                    let mut args = Vec::with_capacity(arity.min(3));
                    if arity > 0 {
                        args.push(V::J(self.copy(&v)?));
                    }
                    if arity > 1 {
                        args.push(V::J(Value::String(k.clone())));
                    }
                    if let Some(whole) = &whole {
                        args.push(V::J(self.copy(whole)?));
                    }
                    let result = self.call(&f, args, ctx)?;
                    if name == "sift" {
                        if truthy(&result) {
                            kept.insert(k, v);
                        }
                    } else if let V::J(value) = result {
                        each.push(value);
                    }
                }
                if name == "sift" {
                    if kept.is_empty() {
                        V::Undef
                    } else {
                        V::J(Value::Object(kept))
                    }
                } else {
                    collapse(each)
                }
            }
            "map" | "filter" => {
                let (items, f) = (arg(), arg());
                if matches!(items, V::Undef) {
                    return Ok(V::Undef);
                }
                let items = items_of(items);
                let arity = takes(&f);
                let whole = if arity > 2 {
                    let whole = Value::Array(items.clone());
                    self.charge(weight(&whole, u64::MAX))?;
                    Some(whole)
                } else {
                    None
                };
                let mut out = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    self.step()?;
                    let mut args = Vec::with_capacity(arity.min(3));
                    if arity > 0 {
                        args.push(V::J(self.copy(&item)?));
                    }
                    if arity > 1 {
                        args.push(V::J(Value::from(i)));
                    }
                    if let Some(whole) = &whole {
                        args.push(V::J(self.copy(whole)?));
                    }
                    let result = self.call(&f, args, ctx)?;
                    if name == "map" {
                        if let V::J(value) = result {
                            out.push(value);
                        }
                    } else if truthy(&result) {
                        out.push(item);
                    }
                }
                collapse(out)
            }
            "keys" => match arg() {
                V::J(Value::Object(m)) => {
                    collapse(m.keys().map(|k| Value::from(k.as_str())).collect())
                }
                V::J(Value::Array(items)) => {
                    let mut keys: Vec<Value> = Vec::new();
                    for item in items {
                        if let Value::Object(m) = item {
                            for k in m.keys() {
                                let k = Value::from(k.as_str());
                                if !keys.contains(&k) {
                                    keys.push(k);
                                }
                            }
                        }
                    }
                    collapse(keys)
                }
                _ => V::Undef,
            },
            "lookup" => {
                let (object, key) = (arg(), arg());
                let V::J(Value::String(key)) = key else {
                    return wrong("a string key", &key);
                };
                match object {
                    V::J(value) => {
                        let mut out = Vec::new();
                        field(&value, &key, &mut out);
                        collapse(out)
                    }
                    _ => V::Undef,
                }
            }
            "exists" => V::J(Value::Bool(!matches!(arg(), V::Undef))),
            "string" => match arg() {
                V::Undef => V::Undef,
                V::J(Value::String(s)) => V::J(Value::String(s)),
                other => V::J(Value::String(as_str(&other)?)),
            },
            "number" => match arg() {
                V::Undef => V::Undef,
                V::J(Value::Number(n)) => V::J(Value::Number(n)),
                V::J(Value::Bool(b)) => V::J(Value::from(u8::from(b))),
                V::J(Value::String(s)) => match s.trim().parse::<f64>() {
                    Ok(n) if n.is_finite() => V::J(num(n)?),
                    _ => {
                        return Err(format!(
                            "$number cannot read {:?} as a number",
                            crate::text::clip(&s, 40)
                        ))
                    }
                },
                other => return wrong("a number, string or boolean", &other),
            },
            "boolean" => match arg() {
                V::Undef => V::Undef,
                other => V::J(Value::Bool(truthy(&other))),
            },
            "not" => match arg() {
                V::Undef => V::Undef,
                other => V::J(Value::Bool(!truthy(&other))),
            },
            "count" => V::J(Value::from(items_of(arg()).len())),
            "sum" | "max" | "min" => {
                let items = items_of(arg());
                if items.is_empty() {
                    return Ok(if name == "sum" {
                        V::J(Value::from(0))
                    } else {
                        V::Undef
                    });
                }
                let mut acc: Option<f64> = None;
                for item in &items {
                    let n = match item {
                        Value::Number(n) => n.as_f64(),
                        other => {
                            return Err(format!(
                                "${name} needs a number, not {}",
                                type_name(&V::J(other.clone()))
                            ))
                        }
                    }
                    .unwrap_or(0.0);
                    acc = Some(match (acc, name) {
                        (None, _) => n,
                        (Some(a), "sum") => a + n,
                        (Some(a), "max") => a.max(n),
                        (Some(a), _) => a.min(n),
                    });
                }
                V::J(num(acc.unwrap_or(0.0))?)
            }
            "append" => {
                let (a, b) = (arg(), arg());
                match (a, b) {
                    (V::Undef, b) => b,
                    (a, V::Undef) => a,
                    (a, b) => {
                        let mut out = items_of(a);
                        out.extend(items_of(b));
                        self.built(out.len())?;
                        V::J(Value::Array(out))
                    }
                }
            }
            "length" => match arg() {
                V::Undef => V::Undef,
                V::J(Value::String(s)) => V::J(Value::from(s.chars().count())),
                other => return wrong("a string", &other),
            },
            "uppercase" | "lowercase" | "trim" => match arg() {
                V::Undef => V::Undef,
                V::J(Value::String(s)) => V::J(Value::String(match name {
                    "uppercase" => s.to_uppercase(),
                    "lowercase" => s.to_lowercase(),
                    _ => s.split_whitespace().collect::<Vec<_>>().join(" "),
                })),
                other => return wrong("a string", &other),
            },
            "substring" => {
                let (s, start, len) = (arg(), arg(), arg());
                let s = match s {
                    V::Undef => return Ok(V::Undef),
                    V::J(Value::String(s)) => s,
                    other => return wrong("a string", &other),
                };
                let chars: Vec<char> = s.chars().collect();
                let start = as_num(&start, "$substring")?.unwrap_or(0.0) as i64;
                let start = if start < 0 {
                    (chars.len() as i64 + start).max(0)
                } else {
                    start.min(chars.len() as i64)
                } as usize;
                let end = match as_num(&len, "$substring")? {
                    None => chars.len(),
                    Some(n) => (start + n.max(0.0) as usize).min(chars.len()),
                };
                V::J(Value::String(chars[start..end].iter().collect()))
            }
            "contains" => {
                let (s, sub) = (arg(), arg());
                match (s, sub) {
                    (V::Undef, _) => V::Undef,
                    (V::J(Value::String(s)), V::J(Value::String(sub))) => {
                        V::J(Value::Bool(s.contains(sub.as_str())))
                    }
                    (_, other) => return wrong("two strings (no regular expressions)", &other),
                }
            }
            "split" => {
                let (s, sep) = (arg(), arg());
                match (s, sep) {
                    (V::Undef, _) => V::Undef,
                    (V::J(Value::String(s)), V::J(Value::String(sep))) => {
                        let parts: Vec<Value> = if sep.is_empty() {
                            s.chars().map(|c| Value::String(c.to_string())).collect()
                        } else {
                            s.split(sep.as_str()).map(Value::from).collect()
                        };
                        V::J(Value::Array(parts))
                    }
                    (_, other) => return wrong("two strings (no regular expressions)", &other),
                }
            }
            "join" => {
                let (items, sep) = (arg(), arg());
                if matches!(items, V::Undef) {
                    return Ok(V::Undef);
                }
                let sep = match sep {
                    V::Undef => String::new(),
                    V::J(Value::String(s)) => s,
                    other => return wrong("a string separator", &other),
                };
                let mut parts = Vec::new();
                for item in items_of(items) {
                    match item {
                        Value::String(s) => parts.push(s),
                        other => return wrong("an array of strings", &V::J(other)),
                    }
                }
                let text = parts.join(&sep);
                self.built(text.len())?;
                V::J(Value::String(text))
            }
            "type" => match arg() {
                V::Undef => V::Undef,
                other => V::J(Value::from(type_name(&other))),
            },
            "abs" | "floor" | "ceil" | "round" => match as_num(&arg(), &format!("${name}"))? {
                None => V::Undef,
                Some(n) => V::J(num(match name {
                    "abs" => n.abs(),
                    "floor" => n.floor(),
                    "ceil" => n.ceil(),
                    // Half to even, as JSONata rounds.
                    _ => {
                        let r = n.round();
                        if (n - n.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
                            r - n.signum()
                        } else {
                            r
                        }
                    }
                })?),
            },
            other => return Err(format!("${other} is not a function this guard knows")),
        })
    }
}

/// How many arguments a function is handed: a lambda its parameters (at
/// most 3, what the higher-order functions pass), a built-in all 3.
fn takes(f: &V) -> usize {
    match f {
        V::F(Func::Lambda(def, ..)) => def.params.len().min(3),
        _ => 3,
    }
}

/// JSONata's `=`: deep equality, numbers by value.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(expr: &str, input: Value) -> Option<Value> {
        Jsonata::compile(expr)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
            .evaluate(&input)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
    }

    #[test]
    fn confluents_rename_rules() {
        // Confluent's own migration rules (confluent-kafka-python v2.15.0,
        // tests/schema_registry/_sync/test_json_serdes.py).
        let up = "$merge([$sift($, function($v, $k) {$k != 'size'}), {'height': $.'size'}])";
        assert_eq!(
            run(up, json!({"name": "alice", "size": 123, "version": 1})),
            Some(json!({"name": "alice", "height": 123, "version": 1}))
        );
        // A missing field leaves the new one absent, not null.
        assert_eq!(run(up, json!({"name": "bo"})), Some(json!({"name": "bo"})));
        let ssn =
            "$merge([$sift($, function($v, $k) {$k != 'ssn'}), {'socialSecurityNumber': $.'ssn'}])";
        assert_eq!(
            run(ssn, json!({"ssn": "123-45-6789", "name": "x"})),
            Some(json!({"socialSecurityNumber": "123-45-6789", "name": "x"}))
        );
    }

    #[test]
    fn paths_operators_and_functions() {
        let order = json!({"id": 7, "items": [{"sku": "a", "price": 2}, {"sku": "b", "price": 3.5}],
                           "customer": {"first": "Ada", "last": "Lovelace"}});
        assert_eq!(run("items.sku", order.clone()), Some(json!(["a", "b"])));
        assert_eq!(run("$sum(items.price)", order.clone()), Some(json!(5.5)));
        assert_eq!(run("items[price > 2].sku", order.clone()), Some(json!("b")));
        assert_eq!(run("items[0].sku", order.clone()), Some(json!("a")));
        assert_eq!(run("items[-1].sku", order.clone()), Some(json!("b")));
        assert_eq!(
            run("customer.first & ' ' & customer.last", order.clone()),
            Some(json!("Ada Lovelace"))
        );
        assert_eq!(run("id * 2 + 1", order.clone()), Some(json!(15)));
        assert_eq!(
            run("id = 7 ? 'seven' : 'other'", order.clone()),
            Some(json!("seven"))
        );
        assert_eq!(run("nothing", order.clone()), None);
        assert_eq!(
            run(
                "($x := id; {'twice': $x * 2, 'name': $uppercase(customer.first)})",
                order.clone()
            ),
            Some(json!({"twice": 14, "name": "ADA"}))
        );
        assert_eq!(
            run("$map(items, function($i) {$i.sku & '!'})", order.clone()),
            Some(json!(["a!", "b!"]))
        );
        assert_eq!(
            run("$keys(customer)", order.clone()),
            Some(json!(["first", "last"]))
        );
        assert_eq!(
            run("customer ~> $keys()", order.clone()),
            Some(json!(["first", "last"]))
        );
        assert_eq!(run("'b' in items.sku", order.clone()), Some(json!(true)));
        assert_eq!(run("$string(id)", order.clone()), Some(json!("7")));
        assert_eq!(run("$number('2.5') + 1", order.clone()), Some(json!(3.5)));
        assert_eq!(
            run("$exists(customer.middle)", order.clone()),
            Some(json!(false))
        );
        assert_eq!(
            run("$substring('abcdef', 1, 3)", order.clone()),
            Some(json!("bcd"))
        );
        assert_eq!(
            run("$join(items.sku, ',')", order.clone()),
            Some(json!("a,b"))
        );
        assert_eq!(run("`id`", order.clone()), Some(json!(7)));
        assert_eq!(
            run("$lookup(customer, 'last')", order),
            Some(json!("Lovelace"))
        );
    }

    #[test]
    fn what_is_not_supported_is_refused_when_compiled() {
        for (expr, said) in [
            ("$now()", "$now is not a function"),
            ("[1..5]", "ranges"),
            ("a.**.b", "descendant"),
            ("$sift($, function($v, $k)<s-:b> {true})", "signatures"),
            ("$merge([$", "found the end"),
            ("a | b", "'|' is not supported"),
        ] {
            let error = Jsonata::compile(expr).expect_err(expr);
            assert!(error.contains(said), "{expr}: {error}");
        }
    }

    #[test]
    fn hostile_expressions_are_bounded() {
        // Deep nesting: refused when compiled, not a stack overflow.
        let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert!(Jsonata::compile(&deep).unwrap_err().contains("deeper"));
        // Unbounded recursion: stopped at the call depth.
        let forever = "($f := function($x) {$f($x + 1)}; $f(0))";
        assert!(run_err(forever).contains("deep"));
        // Exponential work: stopped by the step budget or the size bound.
        let doubling =
            "($d := function($s, $n) {$n = 0 ? $s : $d($s & $s, $n - 1)}; $d('abc', 30))";
        let error = run_err(doubling);
        assert!(error.contains("built a value"), "{error}");
        let fan = "($f := function($n) {$n = 0 ? 1 : $f($n - 1) + $f($n - 1)}; $f(22))";
        assert!(run_err(fan).contains("steps"));
        // Too long.
        let long = format!("'{}'", "a".repeat(5000));
        assert!(Jsonata::compile(&long).unwrap_err().contains("bytes"));
    }

    #[test]
    fn evaluation_recurses_a_bounded_depth() {
        // A chain of operators is parsed in a loop, not a recursion: the
        // tree it builds is measured before anything walks it.
        for chain in ["1+".repeat(1500) + "1", "a.".repeat(1500) + "a"] {
            let error = Jsonata::compile(&chain).unwrap_err();
            assert!(error.contains("deeper"), "{error}");
        }
        // The deepest a rule recurses: a lambda whose body nests as deep
        // as a rule may, calling itself as deep as calls may nest, on a
        // thread of 2 MiB (a spawned thread's, a tokio worker's).
        let mut deepest = None;
        for levels in (1..MAX_EXPR_DEPTH).rev() {
            let expr = format!(
                "($f := function($n) {{$n = 0 ? 0 : {}$f($n - 1){}}}; $f(1000))",
                "[".repeat(levels),
                "]".repeat(levels)
            );
            if Jsonata::compile(&expr).is_ok() {
                deepest = Some(expr);
                break;
            }
        }
        let deepest = deepest.expect("some nesting compiles");
        let error = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || run_err(&deepest))
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert!(error.contains("deep"), "{error}");
    }

    #[test]
    fn copying_the_input_over_and_over_is_bounded() {
        // A copy of the whole input per item: the product of the two,
        // counted against the budget node by node.
        let items: Vec<Value> = (0..2000).map(|i| json!({"n": i, "s": "abc"})).collect();
        let input = json!({"items": items});
        for expr in [
            "$map(items, function($i) {$$})",
            "$map(items, function($i) {$})",
            "items.($$.items)",
            "$count(items.($x := $$; $x))",
        ] {
            let error = Jsonata::compile(expr)
                .unwrap()
                .evaluate(&input)
                .expect_err(expr);
            assert!(error.contains("steps"), "{expr}: {error}");
        }
        // A rule over a large input gets a budget in proportion: a rename
        // over 50,000 members runs.
        let wide: Map<String, Value> = (0..50_000).map(|i| (format!("k{i}"), json!(i))).collect();
        let out = run(
            "$merge([$sift($, function($v, $k) {$k != 'k0'}), {'first': $.'k0'}])",
            Value::Object(wide),
        )
        .unwrap();
        assert_eq!(out.as_object().unwrap().len(), 50_000);
        assert_eq!(out["first"], json!(0));
    }

    #[test]
    fn a_lambda_reads_the_context_it_was_made_in() {
        let input = json!({"limit": 2, "items": [{"n": 1}, {"n": 3}]});
        assert_eq!(
            run("$filter(items, function($i) {$i.n < limit})", input.clone()),
            Some(json!({"n": 1}))
        );
        assert_eq!(
            run(
                "$map(items, function($i, $k, $all) {$count($all)})",
                input.clone()
            ),
            Some(json!([2, 2]))
        );
        assert_eq!(
            run(
                "$sift($, function($v, $k, $o) {$k = 'limit' and $count($keys($o)) = 2})",
                input
            ),
            Some(json!({"limit": 2}))
        );
    }

    fn run_err(expr: &str) -> String {
        Jsonata::compile(expr)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
            .evaluate(&json!({}))
            .err()
            .unwrap_or_else(|| panic!("{expr} evaluated"))
    }
}
