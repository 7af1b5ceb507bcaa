//! [`Strings`]: the string options of an `enum` (or a literal pattern's
//! words), searched by length and a key of their first bytes. Below the
//! node table and the pattern matchers, which both hold them.

use super::branches::by_length;

/// The string options of an `enum`, distinct, sorted by length and then
/// bytes ([`by_length`]): a short list is searched in order, a long one
/// (SchemaStore's enums of dozens of names) by halves. The options' bytes
/// lie one after another in one buffer, and each option's length and
/// first eight bytes in a small key beside the others: most comparisons
/// end on the key, without reading the bytes (nor a pointer to them).
#[derive(Clone)]
pub(in crate::json::validate) struct Strings {
    keys: Box<[StringKey]>,
    text: Box<str>,
}

/// One of [`Strings`]' options: its length, its first eight bytes as a
/// big-endian word (zero-padded: options of one length compare as their
/// bytes do), and where its bytes start in [`Strings::text`].
#[derive(Clone, Copy)]
struct StringKey {
    len: usize,
    head: u64,
    at: usize,
}

/// The first eight bytes of `bytes`, zero-padded, as a big-endian word.
#[inline(always)]
fn head(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let n = bytes.len().min(8);
    word[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(word)
}

impl Strings {
    /// The options `options`, put in order, each once.
    pub(super) fn new(mut options: Vec<Box<str>>) -> Strings {
        options.sort_unstable_by(|a, b| by_length(a, b));
        options.dedup();
        let mut text = String::with_capacity(options.iter().map(|o| o.len()).sum());
        let keys = options
            .iter()
            .map(|option| {
                let at = text.len();
                text.push_str(option);
                StringKey {
                    len: option.len(),
                    head: head(option.as_bytes()),
                    at,
                }
            })
            .collect();
        Strings {
            keys,
            text: text.into_boxed_str(),
        }
    }

    /// The options, in order.
    pub(in crate::json::validate) fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.keys.iter().map(|k| &self.text[k.at..k.at + k.len])
    }

    /// Whether `text` is one of the options.
    #[inline]
    pub(in crate::json::validate) fn contains(&self, text: &str) -> bool {
        self.contains_bytes(text.as_bytes())
    }

    /// Whether `bytes` are one of the options' bytes.
    #[inline]
    pub(in crate::json::validate) fn contains_bytes(&self, bytes: &[u8]) -> bool {
        let len = bytes.len();
        let first = head(bytes);
        // The bytes past the first eight (of an option as long as `text`).
        let rest = |k: &StringKey| &self.text.as_bytes()[k.at + 8..k.at + k.len];
        if self.keys.len() <= 8 {
            self.keys
                .iter()
                .any(|k| k.len == len && k.head == first && (len <= 8 || rest(k) == &bytes[8..]))
        } else {
            self.keys
                .binary_search_by(|k| {
                    k.len.cmp(&len).then(k.head.cmp(&first)).then_with(|| {
                        if len <= 8 {
                            std::cmp::Ordering::Equal
                        } else {
                            rest(k).cmp(&bytes[8..])
                        }
                    })
                })
                .is_ok()
        }
    }
}
