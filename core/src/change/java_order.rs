//! Iteration order of Java's `HashSet`/`HashMap`.
//!
//! Confluent's diff walks property names, message names and field numbers
//! through Java hash sets, so its change lists come in hash order. To give
//! the same lists in the same order, the engine reproduces that order: a
//! key's bucket is its spread hash masked by the final table size, and keys
//! in one bucket keep their insertion order.

/// Java's `String.hashCode` over UTF-16 code units.
pub(crate) fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// Java's `Integer.hashCode`.
#[cfg_attr(not(feature = "protobuf"), allow(dead_code))]
pub(crate) fn int_hash(i: i32) -> i32 {
    i
}

fn spread(h: i32) -> usize {
    let h = h as u32;
    (h ^ (h >> 16)) as usize
}

/// `HashMap.tableSizeFor`: the smallest power of two at least `n` (at least 1).
fn table_size_for(n: usize) -> usize {
    n.max(1).next_power_of_two()
}

/// Up to this many distinct keys, [`java_order`] de-duplicates without a
/// hash set.
const SMALL: usize = 16;

/// The order in which Java iterates a hash set filled with `keys` in this
/// order (duplicates are dropped), starting from a table of `initial_capacity`.
pub(crate) fn java_order<K: Eq + std::hash::Hash + Clone>(
    keys: impl IntoIterator<Item = K>,
    initial_capacity: usize,
    hash: impl Fn(&K) -> i32,
) -> Vec<K> {
    let mut unique: Vec<K> = Vec::new();
    // Small sets (a message's few fields, most often) are de-duplicated by
    // a scan of the few keys kept so far; larger ones through a hash set.
    let mut seen = std::collections::HashSet::new();
    let mut capacity = table_size_for(initial_capacity);
    for key in keys {
        if unique.len() < SMALL {
            if unique.contains(&key) {
                continue;
            }
            if unique.len() + 1 == SMALL {
                seen.extend(unique.iter().cloned());
                seen.insert(key.clone());
            }
        } else if !seen.insert(key.clone()) {
            continue;
        }
        unique.push(key);
        // Java resizes once the size passes three quarters of the table.
        if unique.len() * 4 > capacity * 3 {
            capacity *= 2;
        }
    }
    let mask = capacity - 1;
    let mut indexed: Vec<(usize, K)> = unique
        .into_iter()
        .map(|k| (spread(hash(&k)) & mask, k))
        .collect();
    indexed.sort_by_key(|(bucket, _)| *bucket);
    indexed.into_iter().map(|(_, k)| k).collect()
}

/// The capacity `new HashSet<>(collection)` starts with for `n` elements.
pub(crate) fn copy_capacity(n: usize) -> usize {
    ((n as f64 / 0.75) as usize + 1).max(16)
}

/// Iteration order of `new HashSet<>(a); addAll(b)` over strings.
pub(crate) fn union_order<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    java_order(
        a.iter().chain(b.iter()).copied(),
        copy_capacity(a.len()),
        |s| string_hash(s),
    )
}

/// Iteration order of a `HashMap<String, _>` filled one key at a time.
pub(crate) fn map_order<'a>(keys: &[&'a str]) -> Vec<&'a str> {
    java_order(keys.iter().copied(), 16, |s| string_hash(s))
}

/// Iteration order of `new HashSet<>(a); addAll(b)` over integers.
#[cfg_attr(not(feature = "protobuf"), allow(dead_code))]
pub(crate) fn int_union_order(a: &[i32], b: &[i32]) -> Vec<i32> {
    java_order(
        a.iter().chain(b.iter()).copied(),
        copy_capacity(a.len()),
        |i| int_hash(*i),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_matches_java() {
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        // "hello".hashCode() in Java
        assert_eq!(string_hash("hello"), 99_162_322);
        // overflow wraps like Java's int
        assert_eq!(
            string_hash("TestMessage2"),
            string_hash("TestMessage").wrapping_mul(31) + 50
        );
    }

    #[test]
    fn small_ints_iterate_ascending() {
        assert_eq!(int_union_order(&[3, 1], &[2, 1]), vec![1, 2, 3]);
    }

    #[test]
    fn growth_changes_bucket_count() {
        let keys: Vec<i32> = (0..40).rev().collect();
        let order = int_union_order(&keys, &[]);
        assert_eq!(order, (0..40).collect::<Vec<_>>());
    }
}
