//! Confluent's wire format: the message indexes a protobuf frame carries
//! between the schema id and the body.

use crate::violation::{Violation, ViolationKind};

/// Python's decoder refuses more indexes than this; so do we.
const MAX_INDEXES: u64 = 100_000;

/// Indexes kept on the stack; more go to a heap buffer.
pub(crate) const INLINE_INDEXES: usize = 16;

fn wire(message: impl Into<String>) -> Vec<Violation> {
    vec![Violation::new("", ViolationKind::Wire, message.into())]
}

/// A varint (at most 10 bytes), and the bytes after it.
fn varint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, &bytes[i + 1..]));
        }
    }
    None
}

/// Appends `value` as a varint.
fn write_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends `value` zigzag-encoded, as a varint.
fn write_zigzag(value: i64, out: &mut Vec<u8>) {
    write_varint(((value << 1) ^ (value >> 63)) as u64, out);
}

/// Appends the message indexes of a Confluent protobuf frame: `[0]` (the
/// first message of the file) as the single byte `0x00`, as Confluent's
/// serializers write it; any other path as its zigzag-varint count, then
/// each index zigzag-varint. [`read_indexes`] reads both back.
pub(crate) fn write_indexes(indexes: &[u64], out: &mut Vec<u8>) {
    if indexes == [0] {
        out.push(0);
        return;
    }
    // Paths come from descriptors: far below i64::MAX each.
    write_zigzag(indexes.len() as i64, out);
    for &index in indexes {
        write_zigzag(index as i64, out);
    }
}

fn zigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// The message indexes at the start of `bytes`, and the body after them.
pub(crate) fn read_indexes<'a, 'b>(
    bytes: &'a [u8],
    inline: &'b mut [u64; INLINE_INDEXES],
    heap: &'b mut Vec<u64>,
) -> Result<(&'b [u64], &'a [u8]), Vec<Violation>> {
    let truncated = || wire("the frame's message-index list is truncated");
    let (count, mut rest) = varint(bytes).ok_or_else(truncated)?;
    let count = zigzag(count);
    if count == 0 {
        inline[0] = 0;
        return Ok((&inline[..1], rest));
    }
    if count < 0 || count as u64 > MAX_INDEXES {
        return Err(wire(format!(
            "the frame's message-index count is {count}: it must be 0 to {MAX_INDEXES}"
        )));
    }
    let count = count as usize;
    for i in 0..count {
        let (index, after) = varint(rest).ok_or_else(truncated)?;
        rest = after;
        let index = zigzag(index);
        if index < 0 {
            return Err(wire(format!(
                "the frame's message index {i} is {index}: indexes are not negative"
            )));
        }
        if let Some(slot) = inline.get_mut(i).filter(|_| count <= INLINE_INDEXES) {
            *slot = index as u64;
        } else {
            heap.push(index as u64);
        }
    }
    if count <= INLINE_INDEXES {
        Ok((&inline[..count], rest))
    } else {
        Ok((heap.as_slice(), rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(indexes: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        write_indexes(indexes, &mut out);
        out.extend_from_slice(b"body");
        let mut inline = [0u64; INLINE_INDEXES];
        let mut heap = Vec::new();
        let (read, body) = read_indexes(&out, &mut inline, &mut heap).unwrap();
        assert_eq!(read, indexes);
        assert_eq!(body, b"body");
        out.truncate(out.len() - 4);
        out
    }

    #[test]
    fn indexes_are_written_as_confluent_writes_them_and_read_back() {
        // The first message: one byte 0 (count 0 means [0]).
        assert_eq!(round_trip(&[0]), [0x00]);
        // Count 1 (zigzag 2), index 1 (zigzag 2).
        assert_eq!(round_trip(&[1]), [0x02, 0x02]);
        // Count 2, indexes 0 and 3: a nested message.
        assert_eq!(round_trip(&[0, 3]), [0x04, 0x00, 0x06]);
        // An index past one varint byte (zigzag 300 = 600).
        assert_eq!(round_trip(&[300]), [0x02, 0xd8, 0x04]);
        // More indexes than fit inline.
        let deep: Vec<u64> = (0..20).collect();
        assert_eq!(round_trip(&deep)[0], 40);
    }
}
