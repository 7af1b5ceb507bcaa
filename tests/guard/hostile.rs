//! What a registry serves is input too: a hostile schema from the
//! guard's resolvers fails open, on any caller's thread.
#![cfg(feature = "proto-text")]

use std::sync::Arc;

use dataschema::{Guard, Language, Outcome, Reason, Registry, Schema};

use crate::common::{self, Answers};

fn deep_option(levels: usize) -> String {
    format!(
        "syntax = \"proto3\";\nimport \"google/protobuf/descriptor.proto\";\nmessage M {{ M m = \
         1; }}\nextend google.protobuf.FileOptions {{ M o = 50000; }}\noption (o) = {}{{}}{};\n",
        "{m: ".repeat(levels),
        "}".repeat(levels)
    )
}

/// `.proto` text a fallback serves, its option nested 1,200 deep, asked
/// for by a message on a thread of 256 KiB of stack: the guard fails open
/// (`unusable`, saying how deep), the thread lives. Text at the bound
/// (63 levels, and the innermost `{}`) compiles and validates from the same small thread: the
/// compile runs on a stack of its own. (It overflowed the caller's.)
#[test]
fn a_deeply_nested_proto_from_a_fallback_fails_open_on_a_small_thread() {
    let urn = "urn:acme:schema:deep:1";
    for (levels, usable) in [(1_200, false), (63, true)] {
        let schema = Schema::new(
            common::urn(urn),
            Language::Protobuf,
            deep_option(levels),
            None,
        );
        let guard = Arc::new(
            Guard::builder(Registry::embed([]).unwrap())
                .fallback(Answers(schema))
                .build(),
        );
        let outcome = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn({
                let guard = guard.clone();
                move || guard.validate(urn, b"")
            })
            .unwrap()
            .join()
            .expect("the caller's thread survives");
        match (outcome, usable) {
            (Ok(Outcome::Validated), true) => {}
            (Ok(Outcome::Unvalidated(why)), false) => {
                assert_eq!(why.reason(), Reason::Unusable, "{why:?}");
                let message = why.error().to_string()
                    + &format!("{:?}", std::error::Error::source(why.error()));
                assert!(message.contains("levels deep"), "{message}");
            }
            (outcome, _) => panic!("{levels} levels: {outcome:?}"),
        }
    }
}
