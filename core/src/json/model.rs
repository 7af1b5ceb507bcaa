//! The JSON Schema model: a schema's bytes read as a JSON Schema document,
//! a JSON object or a boolean (`serde_json`'s `Value`).

use serde_json::Value;

/// Why bytes are not a JSON Schema document.
#[derive(Debug)]
pub(crate) enum ParseError {
    /// The bytes are not JSON.
    NotJson(serde_json::Error),
    /// The JSON is neither an object nor a boolean; the JSON type found
    /// instead (`"an array"`, `"a string"`, ...).
    NotASchema(&'static str),
}

/// Reads JSON Schema text.
pub(crate) fn parse(text: &[u8]) -> Result<Value, ParseError> {
    let value: Value = serde_json::from_slice(text).map_err(ParseError::NotJson)?;
    check(&value).map_err(ParseError::NotASchema)?;
    Ok(value)
}

/// Whether `value` can be a JSON Schema (an object or a boolean); `Err`
/// names the JSON type found instead.
pub(crate) fn check(value: &Value) -> Result<(), &'static str> {
    Err(match value {
        Value::Object(_) | Value::Bool(_) => return Ok(()),
        Value::Null => "null",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
    })
}
