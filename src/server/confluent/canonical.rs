//! Confluent's canonical form of a JSON Schema: what a register stores and
//! what a lookup compares.
//!
//! Confluent compares schemas by their canonical string: for JSON Schema,
//! the document re-serialized compactly (no white space between tokens);
//! with `normalize=true`, also with every object's keys sorted. Here the
//! canonical form keeps every number as written (no rounding of a large
//! integer or a long decimal) and writes every string (keys included) as
//! serde_json writes it, so two spellings of one string are one form.

use serde::de::IgnoredAny;
use serde_json::Value;

/// The canonical form of `text`, or why it is not JSON.
pub(crate) fn canonical(text: &str, normalize: bool) -> Result<String, String> {
    // serde_json checks the syntax, so the walk below meets only
    // well-formed JSON; the walk bounds the nesting itself.
    serde_json::from_str::<IgnoredAny>(text).map_err(|err| err.to_string())?;
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut out = String::with_capacity(text.len());
    reader.value(normalize, &mut out, 0)?;
    Ok(out)
}

/// The deepest nesting of arrays and objects walked (serde_json's own
/// bound on a `Value`).
const MAX_DEPTH: usize = 128;

/// A walk over well-formed JSON.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn skip_white(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Result<u8, String> {
        self.skip_white();
        self.bytes
            .get(self.at)
            .copied()
            .ok_or_else(|| "unexpected end of the schema".to_owned())
    }

    /// The string token at the reader, decoded.
    fn string(&mut self) -> Result<String, String> {
        let start = self.at;
        self.at += 1;
        loop {
            match self.bytes.get(self.at) {
                Some(b'\\') => self.at += 2,
                Some(b'"') => {
                    self.at += 1;
                    break;
                }
                Some(_) => self.at += 1,
                None => return Err("an unterminated string".to_owned()),
            }
        }
        let token = std::str::from_utf8(&self.bytes[start..self.at.min(self.bytes.len())])
            .map_err(|err| err.to_string())?;
        serde_json::from_str(token).map_err(|err| err.to_string())
    }

    fn value(&mut self, normalize: bool, out: &mut String, depth: usize) -> Result<(), String> {
        let first = self.peek()?;
        if matches!(first, b'{' | b'[') && depth >= MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        match first {
            b'{' => {
                self.at += 1;
                let mut members: Vec<(String, String)> = Vec::new();
                if self.peek()? == b'}' {
                    self.at += 1;
                } else {
                    loop {
                        self.peek()?;
                        let key = self.string()?;
                        self.peek()?; // the colon
                        self.at += 1;
                        let mut value = String::new();
                        self.value(normalize, &mut value, depth + 1)?;
                        members.push((key, value));
                        let next = self.peek()?;
                        self.at += 1;
                        if next == b'}' {
                            break;
                        }
                    }
                }
                if normalize {
                    members.sort_by(|a, b| a.0.cmp(&b.0));
                }
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    out.push_str(value);
                }
                out.push('}');
            }
            b'[' => {
                self.at += 1;
                out.push('[');
                if self.peek()? == b']' {
                    self.at += 1;
                } else {
                    let mut first = true;
                    loop {
                        if !first {
                            out.push(',');
                        }
                        first = false;
                        self.value(normalize, out, depth + 1)?;
                        let next = self.peek()?;
                        self.at += 1;
                        if next == b']' {
                            break;
                        }
                    }
                }
                out.push(']');
            }
            b'"' => {
                let string = self.string()?;
                out.push_str(&Value::String(string).to_string());
            }
            // A number, true, false or null: as written.
            _ => {
                let start = self.at;
                while let Some(&b) = self.bytes.get(self.at) {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.at += 1;
                }
                let token = std::str::from_utf8(&self.bytes[start..self.at])
                    .map_err(|err| err.to_string())?;
                out.push_str(token);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_keeps_order_numbers_and_duplicates() {
        let pretty = "{\n  \"type\" : \"object\",\n  \"properties\": {\"b\": {\"maximum\": 12345678901234567890123}, \"a\": {\"minimum\": 1.50}}\n}";
        assert_eq!(
            canonical(pretty, false).unwrap(),
            r#"{"type":"object","properties":{"b":{"maximum":12345678901234567890123},"a":{"minimum":1.50}}}"#
        );
        assert_eq!(
            canonical(pretty, true).unwrap(),
            r#"{"properties":{"a":{"minimum":1.50},"b":{"maximum":12345678901234567890123}},"type":"object"}"#
        );
        assert_eq!(
            canonical(r#"{"a":1,"a":2}"#, false).unwrap(),
            r#"{"a":1,"a":2}"#
        );
        assert_eq!(
            canonical(r#" [ "\u0041" , true , null ] "#, false).unwrap(),
            r#"["A",true,null]"#
        );
        assert_eq!(canonical("\"x\"", true).unwrap(), "\"x\"");
    }

    #[test]
    fn not_json_is_refused() {
        for bad in ["", "{", "{\"a\":}", "[1,]", "{} {}", "nope"] {
            assert!(canonical(bad, false).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(canonical(&deep, false).is_err());
    }
}
