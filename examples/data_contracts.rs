//! Data contracts in the guard: a version's CEL rules run on read.
//!
//! ```text
//! cargo run --example data_contracts --features cel
//! ```

use dataschema::{Guard, Outcome, Registry, RuleSet, Schema, Urn};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let urn: Urn = "urn:acme:schema:payment:1".parse()?;
    let schema = Schema::json(
        urn,
        r#"{"type": "object",
            "properties": {"amount": {"type": "number"},
                           "email": {"type": "string", "confluent:tags": ["PII"]}},
            "required": ["amount"]}"#,
    )
    .with_rule_set(Some(RuleSet::from_json(&serde_json::json!({
        "domainRules": [
            {"name": "positiveAmount", "kind": "CONDITION", "type": "CEL",
             "expr": "message.amount > 0"},
            {"name": "piiNotEmpty", "kind": "CONDITION", "type": "CEL_FIELD",
             "tags": ["PII"], "expr": "value != ''", "onFailure": "DLQ"}
        ]
    }))?));
    let guard = Guard::new(Registry::embed([schema])?);
    let dataschema = "urn:acme:schema:payment:1";
    for payload in [
        r#"{"amount": 12.5, "email": "a@example.com"}"#,
        r#"{"amount": -1}"#,
        r#"{"amount": 3, "email": ""}"#,
    ] {
        match guard.validate(dataschema, payload.as_bytes()) {
            Ok(Outcome::Validated) => println!("{payload}: validated"),
            Ok(other) => println!("{payload}: {other:?}"),
            Err(invalid) => println!(
                "{payload}: refused{} ({})",
                if invalid.dead_letter() {
                    ", to the dead-letter subject"
                } else {
                    ""
                },
                invalid.violations()[0]
            ),
        }
    }
    Ok(())
}
