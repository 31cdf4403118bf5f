//! HPACK integers (RFC 7541 section 5.1).
//!
//! ```text
//!   0   1   2   3   4   5   6   7
//! +---+---+---+---+---+---+---+---+
//! | ? | ? | ? |       Value       |   value < 2^N - 1: fits in the N-bit prefix
//! +---+---+---+-------------------+
//!
//! +---+---+---+---+---+---+---+---+
//! | ? | ? | ? | 1   1   1   1   1 |   otherwise: the prefix is all ones, and
//! +---+---+---+-------------------+
//! | 1 |    Value-(2^N-1) LSB      |   the rest follows 7 bits per octet,
//! +---+---------------------------+   least significant group first, with
//!                ...                  a continuation bit
//! +---+---------------------------+
//! | 0 |    Value-(2^N-1) MSB      |
//! +---+---------------------------+
//! ```

use super::DecodeError;
use bytes::BufMut;

/// Largest integer the decoder accepts: every length and index HPACK carries fits in 32 bits;
/// anything larger is an [`DecodeError::IntegerOverflow`].
pub const MAX_INT: u64 = u32::MAX as u64;

/// Appends `value` with an `prefix_bits`-bit prefix to `w`; `flags` holds the bits above the
/// prefix.
///
/// ```
/// use wirelab::hpack::integer;
///
/// let mut out = Vec::new(); // any bytes::BufMut
/// integer::encode(&mut out, 1337, 5, 0x00); // RFC 7541 C.1.2
/// assert_eq!(out, [0x1f, 0x9a, 0x0a]);
/// ```
#[inline]
pub fn encode<B: BufMut + ?Sized>(w: &mut B, value: usize, prefix_bits: u8, flags: u8) {
    let max = (1usize << prefix_bits) - 1;
    if value < max {
        w.put_u8(flags | value as u8);
        return;
    }
    w.put_u8(flags | max as u8);
    let mut rest = value - max;
    while rest >= 128 {
        w.put_u8((rest & 0x7f) as u8 | 0x80);
        rest >>= 7;
    }
    w.put_u8(rest as u8);
}

/// Decodes an integer with an `prefix_bits`-bit prefix starting at `buf[*pos]`, advancing
/// `*pos` past it.
///
/// # Errors
///
/// [`DecodeError::Truncated`] when `buf` ends inside the integer;
/// [`DecodeError::IntegerOverflow`] when it exceeds [`MAX_INT`] or uses more continuation
/// octets than any such value needs.
///
/// ```
/// use wirelab::hpack::integer;
///
/// let mut pos = 0;
/// assert_eq!(integer::decode(&[0x1f, 0x9a, 0x0a], &mut pos, 5), Ok(1337));
/// assert_eq!(pos, 3);
/// ```
#[inline]
pub fn decode(buf: &[u8], pos: &mut usize, prefix_bits: u8) -> Result<usize, DecodeError> {
    let max = (1u64 << prefix_bits) - 1;
    let first = *buf.get(*pos).ok_or(DecodeError::Truncated)?;
    *pos += 1;
    let mut value = u64::from(first) & max;
    if value < max {
        return Ok(value as usize);
    }
    let mut shift = 0;
    loop {
        let b = *buf.get(*pos).ok_or(DecodeError::Truncated)?;
        *pos += 1;
        value += u64::from(b & 0x7f) << shift;
        if value > MAX_INT {
            return Err(DecodeError::IntegerOverflow);
        }
        if b & 0x80 == 0 {
            return Ok(value as usize);
        }
        shift += 7;
        if shift > 28 {
            // Five continuation octets already carry 35 bits: more is padding with zeros or an
            // overflow, and either way not something a peer needs to send.
            return Err(DecodeError::IntegerOverflow);
        }
    }
}
