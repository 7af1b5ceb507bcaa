//! The query of a request, read the way Confluent clients write it. The
//! native publish reads its settings (`language`, `root`, `mode`) through
//! it too; flags and counts are Confluent's and refuse as Confluent does.

use super::wire::confluent::{ApiError, ErrorCode};

/// A request's query: keys compared case-insensitively and without `_`
/// (`deleted_only` is `deletedOnly`), booleans in any case (`False`,
/// `true`).
pub(crate) struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    pub(crate) fn parse(raw: Option<&str>) -> Query {
        let pairs = raw
            .map(|raw| {
                form_urlencoded::parse(raw.as_bytes())
                    .map(|(k, v)| (normalize_key(&k), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Query { pairs }
    }

    /// Every value given for `key`, in order (`key=a&key=b`).
    pub(crate) fn all(&self, key: &str) -> Vec<&str> {
        let key = normalize_key(key);
        self.pairs
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The last value given for `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        let key = normalize_key(key);
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A boolean flag: `true`/`false` in any case (also `1`/`0`); absent is
    /// `default`.
    pub(crate) fn flag(&self, key: &str, default: bool) -> Result<bool, ApiError> {
        match self.get(key) {
            None => Ok(default),
            Some(value) if value.eq_ignore_ascii_case("true") || value == "1" => Ok(true),
            Some(value)
                if value.eq_ignore_ascii_case("false") || value == "0" || value.is_empty() =>
            {
                Ok(false)
            }
            Some(value) => Err(ApiError::new(
                ErrorCode::BadRequest,
                format!(
                    "query parameter {key}: expected true or false, not {:?}",
                    dataschema_core::clip(value, 40)
                ),
            )),
        }
    }

    /// A non-negative integer (absent is `default`; Confluent's `-1` means
    /// no limit, read as `None`).
    pub(crate) fn count(
        &self,
        key: &str,
        default: Option<usize>,
    ) -> Result<Option<usize>, ApiError> {
        match self.get(key) {
            None | Some("") => Ok(default),
            Some(value) => match value.parse::<i64>() {
                Ok(n) if n < 0 => Ok(None),
                Ok(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
                Err(_) => Err(ApiError::new(
                    ErrorCode::BadRequest,
                    format!(
                        "query parameter {key}: expected an integer, not {:?}",
                        dataschema_core::clip(value, 40)
                    ),
                )),
            },
        }
    }

    /// `offset` and `limit` applied to a list.
    pub(crate) fn page<T>(&self, items: Vec<T>) -> Result<Vec<T>, ApiError> {
        let offset = self.count("offset", Some(0))?.unwrap_or(0);
        let limit = self.count("limit", None)?;
        let items = items.into_iter().skip(offset);
        Ok(match limit {
            Some(limit) if limit > 0 => items.take(limit).collect(),
            _ => items.collect(),
        })
    }
}

fn normalize_key(key: &str) -> String {
    key.chars()
        .filter(|&c| c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_keys_and_flags_ignore_case_and_underscores() {
        let query = Query::parse(Some(
            "normalize=False&deleted_only=TRUE&verbose=True&limit=-1",
        ));
        assert!(!query.flag("normalize", true).unwrap());
        assert!(query.flag("deletedOnly", false).unwrap());
        assert!(query.flag("VERBOSE", false).unwrap());
        assert_eq!(query.count("limit", Some(3)).unwrap(), None);
        assert!(Query::parse(Some("verbose=maybe"))
            .flag("verbose", false)
            .is_err());
        assert!(!Query::parse(None).flag("verbose", false).unwrap());
    }

    #[test]
    fn pages_by_offset_and_limit() {
        let page = |raw: &str| Query::parse(Some(raw)).page(vec![1, 2, 3, 4]);
        assert_eq!(page("offset=1&limit=2").unwrap(), [2, 3]);
        assert_eq!(page("limit=-1").unwrap(), [1, 2, 3, 4]);
        assert_eq!(page("limit=0&offset=3").unwrap(), [4]);
        assert_eq!(page("offset=x").unwrap_err().code, ErrorCode::BadRequest);
    }
}
