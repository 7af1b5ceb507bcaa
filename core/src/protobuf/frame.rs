//! Confluent's wire format: the message indexes a protobuf frame carries
//! between the schema id and the body.

use crate::validate::{Violation, ViolationKind};

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
