//! Immutability: publishing the same bytes again is fine (start-up and CI
//! registration stay idempotent); different bytes under a published URN are
//! refused; a change is a new version.
//!
//! ```text
//! cargo run --example publish
//! ```

use dataschema::{Compatibility, Error, MemoryStore, Registry, Schema, Urn};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::new(MemoryStore::new());
    let v1: Urn = "urn:acme:schema:greeting:1".parse()?;

    let schema = Schema::json(
        v1.clone(),
        r#"{"type":"object","properties":{"text":{"type":"string"}}}"#,
    );
    registry.publish(schema.clone(), Compatibility::None)?;
    println!("published {v1}");
    registry.publish(schema, Compatibility::None)?;
    println!("published {v1} again with the same bytes: fine");

    let changed = Schema::json(v1.clone(), r#"{"type":"object","required":["text"]}"#);
    match registry.publish(changed.clone(), Compatibility::None) {
        Err(err @ Error::Immutable { .. }) => println!("refused: {err}"),
        other => return Err(format!("expected a refusal, got {other:?}").into()),
    }

    let v2 = v1.with_version(2)?;
    registry.publish(
        Schema::json(v2.clone(), changed.shared_bytes()),
        Compatibility::None,
    )?;
    println!("published the change as {v2}");
    println!("versions of greeting: {:?}", registry.versions("greeting")?);
    Ok(())
}
