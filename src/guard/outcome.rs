//! What a guard says about a message.

use std::fmt;
use std::sync::Arc;

use dataschema_core::rules::{RuleAction, RuleKind};
use dataschema_core::validate::Report;
use dataschema_core::{Error, Urn, Violation};

/// The verdict on a message whose payload did not fail its schema.
///
/// A payload that fails its schema is an `Err(`[`Invalid`]`)` instead.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Outcome {
    /// The payload conforms to the schema its `dataschema` names.
    Validated,
    /// The message claims no schema (empty `dataschema`).
    NoSchema,
    /// The schema could not be used, so the payload was let through
    /// unchecked (fail open) and counted in `dataschema_unvalidated_total`.
    Unvalidated(Unvalidated),
}

impl Outcome {
    /// Whether the payload was checked and conforms.
    pub fn is_validated(&self) -> bool {
        matches!(self, Outcome::Validated)
    }
}

/// Declares [`Reason`] once: each variant with its label, in the order of
/// the outcome table; `ALL`, `as_str` and the metric index follow.
macro_rules! reasons {
    ($($(#[$doc:meta])* $variant:ident => $label:literal,)*) => {
        /// Why a payload was let through without being checked.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Reason {
            $($(#[$doc])* $variant,)*
        }

        impl Reason {
            /// How many reasons there are.
            pub(crate) const COUNT: usize = [$($label),*].len();

            /// Every reason, in the order of the outcome table.
            pub const ALL: [Reason; Reason::COUNT] = [$(Reason::$variant),*];

            /// The `reason` label value in `dataschema_unvalidated_total`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Reason::$variant => $label,)*
                }
            }
        }
    };
}

reasons! {
    /// `dataschema` is not a URN of the schema grammar.
    NotAUrn => "not_a_urn",
    /// No resolver holds the URN.
    NotFound => "not_found",
    /// The fallback registry is down, slow, or answered garbage.
    Unreachable => "unreachable",
    /// No validator for the schema's language is compiled in.
    NoValidator => "no_validator",
    /// The schema was found but cannot be used (does not compile, not a
    /// descriptor set, root message missing, a `$ref` not held).
    Unusable => "unusable",
    /// A JSON Schema `pattern` the linear engine cannot run (lookaround,
    /// backreferences) ran out of its backtracking budget on this payload,
    /// and the verdict depends on the match's outcome.
    PatternBudget => "pattern_budget",
    /// A data-contract rule the version carries cannot run here (a rule
    /// type with no executor, such as `ENCRYPT` or `JSONATA`; the `cel`
    /// feature off; an expression that does not compile or is past the
    /// bounds; a malformed rule set; a payload language no executor
    /// binds), and its `onFailure` does not say `ERROR` or `DLQ`.
    RuleUnusable => "rule_unusable",
    /// Read as another version (`Guard::read_as`): the payload conforms to
    /// its own schema, but it cannot be read as the version asked for (that
    /// version is not held or will not compile, or the pair is
    /// unresolvable), so it is handed back as written.
    Unresolvable => "unresolvable",
}

impl Reason {
    /// The position in [`Reason::ALL`].
    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A payload let through unchecked: the reason, and the error behind it.
#[derive(Debug, Clone)]
pub struct Unvalidated {
    reason: Reason,
    error: Arc<Error>,
}

impl Unvalidated {
    pub(crate) fn new(reason: Reason, error: Arc<Error>) -> Unvalidated {
        Unvalidated { reason, error }
    }

    /// Why the payload was not checked.
    pub fn reason(&self) -> Reason {
        self.reason
    }

    /// The error behind the reason (`NotFound`, `SchemaUnusable`, ...).
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The URN concerned, when `dataschema` was one.
    pub fn urn(&self) -> Option<&Urn> {
        self.error.urn()
    }
}

impl fmt::Display for Unvalidated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unvalidated ({}): {}", self.reason, self.error.chain())
    }
}

/// A payload that was checked against its schema and does not conform:
/// the URN and every violation (up to [`MAX_VIOLATIONS`](crate::MAX_VIOLATIONS),
/// for either language), each with its path, kind and message.
///
/// The verdict is final when the guard returns it (and counted then, in
/// `dataschema_invalid_total`). For a JSON payload the validating scanner
/// refused, the violations are found by `jsonschema` when first read
/// ([`violations`](Invalid::violations), `Display`, `Debug`), from a copy of
/// the payload the `Invalid` keeps: a consumer that only counts or
/// dead-letters refused payloads does not pay for their report. A refusal
/// allocates once (the copy, which clones share); a clone carries the
/// violations read so far, and one made before the first read finds the
/// same violations on its own first read.
#[derive(Clone)]
pub struct Invalid {
    urn: Arc<Urn>,
    report: Report,
    dead_letter: bool,
    rule: Option<Arc<RuleRefusal>>,
}

/// The data-contract rule that refused a payload
/// ([`Invalid::rule`]): its name, kind, type and the action taken, as a
/// consumer logs or routes it (the CLI's `--format json` shows them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRefusal {
    name: Box<str>,
    kind: RuleKind,
    rule_type: Box<str>,
    action: RuleAction,
}

impl RuleRefusal {
    pub(crate) fn new(name: &str, kind: RuleKind, rule_type: &str, action: RuleAction) -> Self {
        RuleRefusal {
            name: name.into(),
            kind,
            rule_type: rule_type.into(),
            action,
        }
    }

    /// The rule's `name`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its `kind` (`CONDITION`, `TRANSFORM`).
    pub fn kind(&self) -> RuleKind {
        self.kind
    }

    /// Its `type` (`CEL`, `CEL_FIELD`, ...).
    pub fn rule_type(&self) -> &str {
        &self.rule_type
    }

    /// The action taken: its `onFailure` (or the `onSuccess` that
    /// refuses), `ERROR` when the rule names none.
    pub fn action(&self) -> &RuleAction {
        &self.action
    }
}

impl Invalid {
    pub(crate) fn new(urn: Urn, violations: Vec<Violation>) -> Invalid {
        Invalid::reported(Arc::new(urn), Report::found(violations))
    }

    pub(crate) fn reported(urn: Arc<Urn>, report: Report) -> Invalid {
        Invalid {
            urn,
            report,
            dead_letter: false,
            rule: None,
        }
    }

    /// Refused by the data-contract rule `rule` (routed to the
    /// dead-letter subject when its action is `DLQ`).
    pub(crate) fn refused_by(mut self, rule: RuleRefusal) -> Invalid {
        self.dead_letter = rule.action == RuleAction::Dlq;
        self.rule = Some(Arc::new(rule));
        self
    }

    /// The data-contract rule that refused the payload, when one did
    /// (`None` for a payload that failed its schema): its name, kind,
    /// type and action. Its violation is in
    /// [`violations`](Invalid::violations) too, kind
    /// [`Rule`](crate::ViolationKind::Rule).
    pub fn rule(&self) -> Option<&RuleRefusal> {
        self.rule.as_deref()
    }

    /// Whether the payload was refused by a data-contract rule whose
    /// action is `DLQ` (Confluent's dead-letter action): the consumer
    /// routes it to its dead-letter subject. A payload refused by its
    /// schema, or by a rule whose action is `ERROR`, says `false`; what
    /// a consumer does with those is its own choice.
    pub fn dead_letter(&self) -> bool {
        self.dead_letter
    }

    /// The schema the payload failed.
    pub fn urn(&self) -> &Urn {
        &self.urn
    }

    /// What was wrong, and where: each [`Violation`] has a
    /// [`path`](Violation::path), a [`kind`](Violation::kind) to match on
    /// ([`ViolationKind`](crate::ViolationKind)) and a message for people.
    /// Never empty; at most [`MAX_VIOLATIONS`](crate::MAX_VIOLATIONS).
    ///
    /// The first call may produce the report (see [`Invalid`]); later
    /// calls, on this value or its clones, return the same violations.
    pub fn violations(&self) -> &[Violation] {
        self.report.violations()
    }
}

impl fmt::Debug for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invalid")
            .field("urn", &self.urn)
            .field("violations", &self.violations())
            .field("dead_letter", &self.dead_letter)
            .field("rule", &self.rule)
            .finish()
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "payload does not conform to {}", self.urn)?;
        for violation in self.violations() {
            write!(f, "\n  {violation}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Invalid {}
