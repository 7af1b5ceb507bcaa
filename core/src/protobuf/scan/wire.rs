//! Wire-format primitives with prost's exact acceptance rules.
//!
//! prost (`encoding::varint::decode_varint`) accepts a varint of at most ten
//! bytes whose tenth byte, if any, is `0x00` or `0x01` (anything more would
//! overflow 64 bits). It accepts non-minimal encodings (`0x80 0x00` is 0).

/// Why a varint could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VarintError {
    /// The input ended inside the varint.
    Truncated,
    /// More than ten bytes, or a tenth byte that overflows 64 bits.
    Overlong,
}

/// A tag with its parts, as prost's `decode_key` accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyError {
    /// The key varint itself is malformed.
    Varint(VarintError),
    /// The key does not fit in 32 bits.
    TooLarge,
    /// Wire type 6 or 7.
    WireType(u8),
    /// Field number 0.
    FieldZero,
}

/// Reads a varint at `pos`; returns the value and the position after it.
#[inline(always)]
pub(super) fn read_varint(buf: &[u8], pos: usize) -> Result<(u64, usize), VarintError> {
    match buf.get(pos) {
        Some(&b) if b < 0x80 => Ok((u64::from(b), pos + 1)),
        Some(_) => read_varint_long(buf, pos),
        None => Err(VarintError::Truncated),
    }
}

#[inline(never)]
fn read_varint_long(buf: &[u8], pos: usize) -> Result<(u64, usize), VarintError> {
    let rest = buf.get(pos..).unwrap_or(&[]);
    let mut value = 0u64;
    for (i, &b) in rest.iter().take(10).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            if i == 9 && b > 1 {
                return Err(VarintError::Overlong);
            }
            return Ok((value, pos + i + 1));
        }
    }
    if rest.len() >= 10 {
        Err(VarintError::Overlong)
    } else {
        Err(VarintError::Truncated)
    }
}

/// Skips a varint at `pos`; returns the position after it.
#[inline(always)]
pub(super) fn skip_varint(buf: &[u8], pos: usize) -> Result<usize, VarintError> {
    match buf.get(pos) {
        Some(&b) if b < 0x80 => Ok(pos + 1),
        Some(_) => skip_varint_long(buf, pos),
        None => Err(VarintError::Truncated),
    }
}

#[inline]
fn skip_varint_long(buf: &[u8], pos: usize) -> Result<usize, VarintError> {
    let rest = buf.get(pos..).unwrap_or(&[]);
    for (i, &b) in rest.iter().take(10).enumerate() {
        if b < 0x80 {
            if i == 9 && b > 1 {
                return Err(VarintError::Overlong);
            }
            return Ok(pos + i + 1);
        }
    }
    if rest.len() >= 10 {
        Err(VarintError::Overlong)
    } else {
        Err(VarintError::Truncated)
    }
}

/// Reads a tag; returns `(field number, wire type, position after it)`.
///
/// Same checks, same order, as prost's `decode_key`: a varint, at most
/// `u32::MAX`, wire type 0 to 5, field number at least 1. (A key within
/// 32 bits cannot carry a field number above 2^29 - 1.)
#[inline(always)]
pub(super) fn read_key(buf: &[u8], pos: usize) -> Result<(u32, u8, usize), KeyError> {
    let (key, pos) = read_varint(buf, pos).map_err(KeyError::Varint)?;
    if key > u64::from(u32::MAX) {
        return Err(KeyError::TooLarge);
    }
    let wire_type = (key & 7) as u8;
    if wire_type > 5 {
        return Err(KeyError::WireType(wire_type));
    }
    let number = (key >> 3) as u32;
    if number == 0 {
        return Err(KeyError::FieldZero);
    }
    Ok((number, wire_type, pos))
}

/// Reads a length prefix at `pos` and checks the bytes are there; returns the
/// body's `(start, end)`.
#[inline(always)]
pub(super) fn read_len(buf: &[u8], pos: usize) -> Result<(usize, usize), LenError> {
    let (len, start) = read_varint(buf, pos).map_err(LenError::Varint)?;
    let remaining = buf.len().saturating_sub(start);
    if len > remaining as u64 {
        return Err(LenError::OutOfBounds { len, remaining });
    }
    Ok((start, start + len as usize))
}

/// Why a length-delimited value could not be framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LenError {
    /// The length varint is malformed.
    Varint(VarintError),
    /// The length runs past the end of the enclosing message.
    OutOfBounds {
        /// The declared length.
        len: u64,
        /// The bytes actually left.
        remaining: usize,
    },
}

/// Whether a packed run of varints is well formed: every varint complete and
/// within ten bytes, the run ending exactly at the end of `body`.
#[inline]
pub(super) fn packed_varints_ok(body: &[u8]) -> bool {
    let mut run = 0u32;
    for &b in body {
        if b >= 0x80 {
            run += 1;
            if run > 9 {
                return false;
            }
        } else {
            if run == 9 && b > 1 {
                return false;
            }
            run = 0;
        }
    }
    run == 0
}

/// Wire type names for messages.
pub(super) fn wire_type_name(wire_type: u8) -> &'static str {
    match wire_type {
        0 => "varint",
        1 => "64-bit",
        2 => "length-delimited",
        3 => "start-group",
        4 => "end-group",
        5 => "32-bit",
        _ => "invalid",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_as_prost_reads_them() {
        assert_eq!(read_varint(&[0x00], 0), Ok((0, 1)));
        assert_eq!(read_varint(&[0x96, 0x01], 0), Ok((150, 2)));
        // Non-minimal encodings are fine.
        assert_eq!(read_varint(&[0x80, 0x80, 0x00], 0), Ok((0, 3)));
        // Ten bytes: the last may be 0 or 1 only.
        let mut max = [0xff; 10];
        max[9] = 0x01;
        assert_eq!(read_varint(&max, 0), Ok((u64::MAX, 10)));
        max[9] = 0x02;
        assert_eq!(read_varint(&max, 0), Err(VarintError::Overlong));
        assert_eq!(skip_varint(&max, 0), Err(VarintError::Overlong));
        assert_eq!(read_varint(&[0x80; 11], 0), Err(VarintError::Overlong));
        assert_eq!(read_varint(&[0x80; 9], 0), Err(VarintError::Truncated));
        assert_eq!(skip_varint(&[0x80; 9], 0), Err(VarintError::Truncated));
        assert_eq!(read_varint(&[], 0), Err(VarintError::Truncated));
        assert_eq!(read_varint(&[0x01], 5), Err(VarintError::Truncated));
    }

    #[test]
    fn keys_as_prost_decodes_them() {
        assert_eq!(read_key(&[0x08], 0), Ok((1, 0, 1)));
        assert_eq!(read_key(&[0x00], 0), Err(KeyError::FieldZero));
        assert_eq!(read_key(&[0x0e], 0), Err(KeyError::WireType(6)));
        assert_eq!(read_key(&[0x0f], 0), Err(KeyError::WireType(7)));
        assert_eq!(
            read_key(&[0xf8, 0xff, 0xff, 0xff, 0x0f], 0),
            Ok(((1 << 29) - 1, 0, 5))
        );
        assert_eq!(
            read_key(&[0x80, 0x80, 0x80, 0x80, 0x10], 0),
            Err(KeyError::TooLarge)
        );
    }

    #[test]
    fn lengths_stay_in_bounds() {
        assert_eq!(read_len(&[0x02, 1, 2], 0), Ok((1, 3)));
        assert_eq!(
            read_len(&[0x03, 1, 2], 0),
            Err(LenError::OutOfBounds {
                len: 3,
                remaining: 2
            })
        );
        let huge = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert!(matches!(
            read_len(&huge, 0),
            Err(LenError::OutOfBounds { .. })
        ));
    }

    #[test]
    fn packed_runs() {
        assert!(packed_varints_ok(&[]));
        assert!(packed_varints_ok(&[0x01, 0xac, 0x02]));
        assert!(!packed_varints_ok(&[0x01, 0xac]));
        let mut ten = vec![0xff; 9];
        ten.push(0x01);
        assert!(packed_varints_ok(&ten));
        *ten.last_mut().unwrap() = 0x02;
        assert!(!packed_varints_ok(&ten));
    }
}
