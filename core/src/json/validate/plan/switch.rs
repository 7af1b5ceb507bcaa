//! `allOf` members that dispatch on one member's string value, read as a
//! switch: the value looked up once instead of each member's `if` probing
//! the object in turn.
//!
//! Generated schemas write a tagged union as an `allOf` of `if`/`then`
//! pairs, one per tag (`utcm-monitor`'s 270 resource types: `{"if":
//! {"properties": {"resourceType": {"const": "microsoft.exchange.
//! accepteddomain"}}}, "then": {"properties": {"properties": {"$ref":
//! ...}}}}`). Each `if` is a [`Probe`] whose value must be one of a few
//! strings ([`Probe::values`]). On an object, such an `if` holds when the
//! member is absent (and the `if` does not require it) or its value is
//! one of those strings, and fails on any other string; so the `then`s
//! that apply are those of the `if`s listing the value, or, the member
//! absent, those of the `if`s not requiring it. Every other `then` is not
//! applied, and an `if` without `else` then asserts nothing. A member
//! whose value is not a string written without an escape, a key with an
//! escape (the bytes cannot tell which key it is), or a value that is not
//! an object: each `if` is read as before.

use super::branches::{sort_texts_by_name, texts_of, Text};
use super::node::{Kind, Node, Probe};

/// The fewest `if`/`then` members of one name read as a [`Switch`].
const MIN_CASES: usize = 2;

/// Some of an `allOf`'s `if`/`then` members on one object member.
#[derive(Clone)]
pub(in crate::json::validate) struct Switch {
    /// The member the `if`s ask about.
    pub(in crate::json::validate) name: Box<str>,
    /// (string, `then`): each `if`'s strings with its `then`, sorted by
    /// string as [`sort_texts_by_name`] orders them ([`texts_of`] reads them).
    pub(in crate::json::validate) by_value: Box<[Text<u32>]>,
    /// The `then`s that apply when the member is absent (their `if` does
    /// not require it), in the `allOf`'s order.
    pub(in crate::json::validate) absent: Box<[u32]>,
    /// The `allOf` members the switch stands for (their nodes), read one
    /// by one when it cannot tell.
    pub(in crate::json::validate) members: Box<[u32]>,
}

/// An `allOf` holding switches: its other members, then the switches.
#[derive(Clone)]
pub(in crate::json::validate) struct Switches {
    /// The members no switch stands for, in the `allOf`'s order.
    pub(in crate::json::validate) rest: Box<[u32]>,
    pub(in crate::json::validate) switches: Box<[Switch]>,
}

impl Switch {
    /// The `then`s that apply to a member whose value is the string
    /// `value` (written without an escape).
    #[inline]
    pub(in crate::json::validate) fn cases(&self, value: &str) -> impl Iterator<Item = u32> + '_ {
        texts_of(&self.by_value, value).iter().map(|t| t.value)
    }
}

/// One `allOf` member of the form the switch reads: nothing but `if` and
/// `then`, the `if` a probe of one member's strings. (name, strings,
/// required, then).
fn case(nodes: &[Node], member: u32) -> Option<(&str, Vec<&str>, bool, u32)> {
    let node = &nodes[member as usize];
    let (condition, Some(then), None) = node.condition? else {
        return None;
    };
    if node.kind != Kind::Check || node.lone_if.is_some() {
        return None;
    }
    let mut rest = node.clone();
    rest.condition = None;
    if !rest.asserts_nothing() {
        return None;
    }
    let condition = &nodes[condition as usize];
    if condition.kind != Kind::Check {
        return None;
    }
    let Probe {
        name,
        schema: Some(_),
        required,
        values: Some(values),
    } = condition.probe.as_deref()?
    else {
        return None;
    };
    Some((name, values.iter().collect(), *required, then))
}

/// The switches of an `allOf` (`members`, node ids) on `nodes` (final, their
/// probes' strings filled), when [`MIN_CASES`] or more members probe one
/// name; `None` otherwise.
pub(super) fn switches(nodes: &[Node], members: &[u32]) -> Option<Switches> {
    if members.len() < MIN_CASES {
        return None;
    }
    let cases: Vec<_> = members.iter().map(|&m| case(nodes, m)).collect();
    // The names, in order of first appearance, with their counts.
    let mut names: Vec<(&str, usize)> = Vec::new();
    for (name, ..) in cases.iter().flatten() {
        match names.iter_mut().find(|(n, _)| n == name) {
            Some((_, count)) => *count += 1,
            None => names.push((name, 1)),
        }
    }
    names.retain(|&(_, count)| count >= MIN_CASES);
    if names.is_empty() {
        return None;
    }
    let mut switches = Vec::new();
    for &(name, _) in &names {
        let mut by_value = Vec::new();
        let mut absent = Vec::new();
        let mut of = Vec::new();
        for (&member, case) in members.iter().zip(&cases) {
            let Some((n, values, required, then)) = case else {
                continue;
            };
            if *n != name {
                continue;
            }
            of.push(member);
            by_value.extend(
                values
                    .iter()
                    .map(|v| Text::new(Box::<str>::from(*v), *then)),
            );
            if !required {
                absent.push(*then);
            }
        }
        // Stable: one string's `then`s stay in the `allOf`'s order.
        sort_texts_by_name(&mut by_value);
        switches.push(Switch {
            name: name.into(),
            by_value: by_value.into(),
            absent: absent.into(),
            members: of.into(),
        });
    }
    let covered = |m: &u32| switches.iter().any(|s| s.members.contains(m));
    let rest = members.iter().copied().filter(|m| !covered(m)).collect();
    Some(Switches {
        rest,
        switches: switches.into(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::json::validate::plan::JsonPlan;

    #[test]
    fn if_then_members_on_one_name_become_a_switch() {
        let case = |kind: &str, then: &str| json!({"if": {"properties": {"kind": {"const": kind}}}, "then": {"required": [then]}});
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            // The root's own `if` keeps the members' out of it (a member
            // merges into its parent where the parent has room).
            "if": {"required": ["q"]},
            "then": {"required": ["r"]},
            "allOf": [
                {"not": {"required": ["no"]}},
                case("a", "x"),
                case("b", "y"),
                {"if": {"properties": {"kind": {"enum": ["b", "c"]}}, "required": ["kind"]},
                 "then": {"required": ["z"]}},
                {"if": {"properties": {"kind": {"const": "d"}}}, "then": {"required": ["w"]},
                 "else": {"required": ["v"]}},
                {"if": {"properties": {"other": {"const": "a"}}}, "then": {"required": ["u"]}}
            ]
        });
        let plan = JsonPlan::compile(&schema, true).unwrap();
        let root = &plan.nodes[plan.root as usize];
        let switches = root.all_switches.as_deref().expect("a switch");
        assert_eq!(switches.switches.len(), 1);
        let switch = &switches.switches[0];
        assert_eq!(&*switch.name, "kind");
        // The three `if`/`then` members on `kind` without `else`; the rest
        // (the `else`, the other name, the `not`) read as before.
        assert_eq!(switch.members.len(), 3);
        assert_eq!(switches.rest.len() + 3, root.all_of.len());
        assert_eq!(switch.cases("a").count(), 1);
        assert_eq!(switch.cases("b").count(), 2);
        assert_eq!(switch.cases("c").count(), 1);
        assert_eq!(switch.cases("d").count(), 0);
        // Absent, the `if` requiring `kind` fails: two `then`s apply.
        assert_eq!(switch.absent.len(), 2);
    }
}
