//! String and number schemas: lengths, patterns, formats, bounds and
//! `multipleOf`.

use super::*;

pub(super) fn strings(out: &mut Vec<Rel>, o: &StringNode<'_>, u: &StringNode<'_>) {
    bound(
        out,
        "maxLength",
        o.max_length,
        u.max_length,
        [
            K::MaxLengthAdded,
            K::MaxLengthRemoved,
            K::MaxLengthIncreased,
            K::MaxLengthDecreased,
        ],
    );
    bound(
        out,
        "minLength",
        o.min_length,
        u.min_length,
        [
            K::MinLengthAdded,
            K::MinLengthRemoved,
            K::MinLengthIncreased,
            K::MinLengthDecreased,
        ],
    );
    match (o.pattern, u.pattern) {
        (None, Some(_)) => out.push(rel(K::PatternAdded, "pattern")),
        (Some(_), None) => out.push(rel(K::PatternRemoved, "pattern")),
        (Some(a), Some(b)) if a != b => out.push(rel(K::PatternChanged, "pattern")),
        _ => {}
    }
}

pub(super) fn numbers(out: &mut Vec<Rel>, o: &NumberNode, u: &NumberNode) {
    bound(
        out,
        "maximum",
        o.maximum,
        u.maximum,
        [
            K::MaximumAdded,
            K::MaximumRemoved,
            K::MaximumIncreased,
            K::MaximumDecreased,
        ],
    );
    bound(
        out,
        "minimum",
        o.minimum,
        u.minimum,
        [
            K::MinimumAdded,
            K::MinimumRemoved,
            K::MinimumIncreased,
            K::MinimumDecreased,
        ],
    );
    bound(
        out,
        "exclusiveMaximum",
        o.exclusive_maximum,
        u.exclusive_maximum,
        [
            K::ExclusiveMaximumAdded,
            K::ExclusiveMaximumRemoved,
            K::ExclusiveMaximumIncreased,
            K::ExclusiveMaximumDecreased,
        ],
    );
    bound(
        out,
        "exclusiveMinimum",
        o.exclusive_minimum,
        u.exclusive_minimum,
        [
            K::ExclusiveMinimumAdded,
            K::ExclusiveMinimumRemoved,
            K::ExclusiveMinimumIncreased,
            K::ExclusiveMinimumDecreased,
        ],
    );
    let multiple = match (o.multiple_of, u.multiple_of) {
        (None, Some(_)) => Some(K::MultipleOfAdded),
        (Some(_), None) => Some(K::MultipleOfRemoved),
        (Some(a), Some(b)) if a != b => Some(if is_multiple(b, a) {
            K::MultipleOfExpanded
        } else if is_multiple(a, b) {
            K::MultipleOfReduced
        } else {
            K::MultipleOfChanged
        }),
        _ => None,
    };
    if let Some(kind) = multiple {
        out.push(rel(kind, "multipleOf"));
    }
    if o.integer != u.integer {
        out.push(rel(
            if o.integer {
                K::TypeExtended
            } else {
                K::TypeNarrowed
            },
            "",
        ));
    }
}

/// Whether `a` is a whole multiple of `b` (both positive in valid schemas).
pub(super) fn is_multiple(a: f64, b: f64) -> bool {
    if b == 0.0 || !a.is_finite() || !b.is_finite() {
        return false;
    }
    let q = a / b;
    (q - q.round()).abs() < 1e-9 * q.abs().max(1.0)
}
