//! What an Avro datum's values must be, below the plan and the scanner
//! that both check them: how deep types nest, how many items a collection
//! may declare, whether a `decimal` fits its precision, whether a `uuid`
//! string has a UUID's form.

/// How deep types may nest in a payload (records, arrays, maps and unions
/// each count one), so that a payload of a recursive schema cannot exhaust
/// the stack.
pub const MAX_DEPTH: u32 = 128;

/// The most items one array, and entries one map, of a datum may declare
/// across its blocks: `apache-avro`'s bound
/// ([`crate::limits::max_avro_collection_bytes`] over the size of the
/// value it decodes each item into, `safe_collection_len` in its
/// `decode.rs`), read when a schema is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    /// An array's items.
    pub(crate) array: u64,
    /// A map's entries.
    pub(crate) map: u64,
}

impl Counts {
    /// The bound as the process's limit sets it now.
    pub(crate) fn from_limit() -> Counts {
        let bytes = crate::limits::max_avro_collection_bytes();
        Counts {
            array: (bytes / std::mem::size_of::<apache_avro::types::Value>()) as u64,
            map: (bytes / std::mem::size_of::<(String, apache_avro::types::Value)>()) as u64,
        }
    }
}

/// Whether the big-endian two's-complement integer `bytes` has at most
/// `precision` decimal digits.
pub(crate) fn decimal_fits(bytes: &[u8], precision: u32) -> bool {
    if bytes.is_empty() {
        return true;
    }
    let negative = bytes[0] & 0x80 != 0;
    // Drop the sign-extension bytes.
    let fill = if negative { 0xff } else { 0x00 };
    let mut start = 0;
    while start + 1 < bytes.len()
        && bytes[start] == fill
        && (bytes[start + 1] & 0x80 != 0) == negative
    {
        start += 1;
    }
    let bytes = &bytes[start..];
    if bytes.len() <= 16 {
        let mut value: i128 = if negative { -1 } else { 0 };
        for &b in bytes {
            value = (value << 8) | i128::from(b);
        }
        let magnitude = value.unsigned_abs();
        return match 10u128.checked_pow(precision) {
            Some(limit) => magnitude < limit,
            None => true, // 10^precision > 2^128 > magnitude
        };
    }
    // Longer: count the digits of the magnitude on 32-bit limbs.
    const LIMBS: usize = 128;
    if bytes.len() > LIMBS * 4 {
        // Over 4,096 bits: more than 1,232 digits.
        return precision > 1232
            && (bytes.len() as f64 * 8.0 * 2f64.log10()) < f64::from(precision);
    }
    let mut limbs = [0u32; LIMBS];
    let mut n = 0;
    // Magnitude of the two's complement, limbs little-endian.
    let mut chunk_end = bytes.len();
    while chunk_end > 0 {
        let chunk_start = chunk_end.saturating_sub(4);
        let mut limb = 0u32;
        for &b in &bytes[chunk_start..chunk_end] {
            limb = (limb << 8) | u32::from(b);
        }
        if chunk_end - chunk_start < 4 && negative {
            limb |= u32::MAX << (8 * (chunk_end - chunk_start));
        }
        limbs[n] = limb;
        n += 1;
        chunk_end = chunk_start;
    }
    if negative {
        // Negate: invert and add one.
        let mut carry = 1u64;
        for limb in &mut limbs[..n] {
            let v = u64::from(!*limb) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
    }
    let mut digits = 0u32;
    while n > 0 {
        let mut rem = 0u64;
        for limb in limbs[..n].iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*limb);
            *limb = (cur / 1_000_000_000) as u32;
            rem = cur % 1_000_000_000;
        }
        while n > 0 && limbs[n - 1] == 0 {
            n -= 1;
        }
        digits += if n == 0 {
            if rem == 0 {
                0
            } else {
                rem.ilog10() + 1
            }
        } else {
            9
        };
        if digits > precision {
            return false;
        }
    }
    true
}

/// The 8-4-4-4-12 hexadecimal form of a UUID.
#[inline]
pub(crate) fn is_uuid(bytes: &[u8]) -> bool {
    let Ok(bytes) = <&[u8; 36]>::try_from(bytes) else {
        return false;
    };
    let hex = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_hexdigit);
    bytes[8] == b'-'
        && bytes[13] == b'-'
        && bytes[18] == b'-'
        && bytes[23] == b'-'
        && hex(0..8)
        && hex(9..13)
        && hex(14..18)
        && hex(19..23)
        && hex(24..36)
}
