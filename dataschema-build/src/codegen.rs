//! Validators generated as Rust code from JSON Schema plans
//! (`codegen = true` in the manifest): see `Checked::generated`.

use dataschema_core::validate::json_plan::JsonPlan;
use dataschema_core::validate::Options;

use crate::check::GeneratedCode;

/// The validator generated from the scanner plan of `schema`, a JSON
/// Schema that `$ref`s nothing outside itself, compiled with the guard's
/// default options: `None` when the scanner does not cover the schema or
/// the generator does not cover its plan. What [`bundle`](crate::bundle)
/// writes for each version of a folder whose manifest says
/// `codegen = true`, for a schema given apart from a folder (the
/// project's differential tests generate the JSON Schema Test Suite's
/// schemas so).
pub fn generate_json(schema: &serde_json::Value) -> Option<GeneratedCode> {
    let plan = JsonPlan::compile(schema, Options::default().assert_formats).ok()?;
    let generated = plan.generate()?;
    Some(GeneratedCode {
        code: generated.code,
        hash: generated.hash,
    })
}
