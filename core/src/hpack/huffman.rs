//! The HPACK Huffman code (RFC 7541 section 5.2 and Appendix B).
//!
//! # Motivation / Change / Result
//!
//! *Motivation.* The twitter/hpack encoder that Pekko HTTP used walked a `CharSequence` one char
//! at a time, computed the encoded length in one pass and encoded in a second, and wrote every
//! output byte through a synchronized stream. Its decoder walked a binary tree one bit at a time.
//! The naive twins, `wirelab_baselines::hpack::huffman`, keep both shapes.
//!
//! *Change.* Encoding works on a byte slice, accumulates codes in a 64-bit register and stores
//! 32 bits at a time straight into a range the caller reserved ([`encode_into`]). Decoding looks
//! up the next 16 bits of input in a table that yields up to three symbols per lookup (typical
//! header text has 5- to 7-bit codes, so two or three per step); codes longer than 16 bits, and
//! the last bits of a string, take a canonical-code slow path.
//!
//! *Result.* `reports/huffman.md` and `reports/hpack-encode.md`.
//!
//! # Wire format
//!
//! A Huffman-coded string is the concatenation of the symbols' codes, most significant bit
//! first, padded to an octet boundary with the most significant bits of the EOS code (all
//! ones). Padding longer than 7 bits, padding that is not all ones, and an EOS symbol inside
//! the string are decoding errors (section 5.2).
//!
//! ```text
//!   'w'       'w'       'w'       '.'     ...   padding
//!   1111000   1111000   1111000   010111        111
//! ```

use std::fmt;
use std::sync::LazyLock;

mod codes {
    include!("huffman_codes.rs");
}
pub use codes::{CODE_LENGTHS, CODES};

/// The EOS symbol's index in [`CODES`].
pub const EOS: usize = 256;

/// Why a Huffman-coded string could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HuffmanError {
    /// The string contains the EOS symbol.
    Eos,
    /// More than 7 bits of padding (or an incomplete code longer than 7 bits) at the end.
    PaddingTooLong,
    /// The padding bits are not all ones.
    PaddingNotOnes,
}

impl fmt::Display for HuffmanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HuffmanError::Eos => f.write_str("Huffman string contains the EOS symbol"),
            HuffmanError::PaddingTooLong => f.write_str("Huffman padding longer than 7 bits"),
            HuffmanError::PaddingNotOnes => f.write_str("Huffman padding is not all ones"),
        }
    }
}

impl std::error::Error for HuffmanError {}

/// [`encode_into`]'s destination is not exactly as long as the encoding (a caller's mistake:
/// size it with [`encoded_len`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthMismatch {
    /// Length of the destination.
    pub dst: usize,
    /// Length the encoding needs.
    pub needed: usize,
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Huffman output is {} bytes, the destination has {}",
            self.needed, self.dst
        )
    }
}

impl std::error::Error for LengthMismatch {}

/// Length in octets of the Huffman encoding of `src`.
///
/// Naive twin: `wirelab_baselines::hpack::huffman::encoded_len_chars`, which walks a `&str`.
///
/// ```
/// assert_eq!(wirelab::hpack::huffman::encoded_len(b"www.example.com"), 12);
/// ```
#[inline]
pub fn encoded_len(src: &[u8]) -> usize {
    let bits: usize = src.iter().map(|&b| CODE_LENGTHS[b as usize] as usize).sum();
    bits.div_ceil(8)
}

/// Huffman-encodes `src` into exactly `dst`, which the caller sized with [`encoded_len`] (for
/// example a range from `BlockWriter::put_zeroed`).
///
/// Never writes outside `dst`.
///
/// # Errors
///
/// [`LengthMismatch`] when the encoding is longer or shorter than `dst`; `dst` may then hold
/// a partial encoding.
///
/// ```
/// use wirelab::hpack::huffman;
///
/// let src = b"www.example.com";
/// let mut dst = vec![0; huffman::encoded_len(src)];
/// huffman::encode_into(src, &mut dst).unwrap();
/// assert_eq!(dst, [0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff]);
/// ```
pub fn encode_into(src: &[u8], dst: &mut [u8]) -> Result<(), LengthMismatch> {
    let mut acc: u64 = 0; // pending bits, right-aligned
    let mut bits: u32 = 0;
    let mut o = 0;
    for &b in src {
        let len = u32::from(CODE_LENGTHS[b as usize]);
        acc = (acc << len) | u64::from(CODES[b as usize]);
        bits += len;
        if bits >= 32 {
            bits -= 32;
            let word = ((acc >> bits) as u32).to_be_bytes();
            match dst.get_mut(o..o + 4) {
                Some(d) => d.copy_from_slice(&word),
                None => {
                    return Err(LengthMismatch {
                        dst: dst.len(),
                        needed: encoded_len(src),
                    });
                }
            }
            o += 4;
        }
    }
    // Flush the remaining whole octets, then pad the last one with ones (the EOS prefix).
    if bits % 8 != 0 {
        let pad = 8 - bits % 8;
        acc = (acc << pad) | ((1 << pad) - 1);
        bits += pad;
    }
    let tail = (bits / 8) as usize;
    if o + tail != dst.len() {
        return Err(LengthMismatch {
            dst: dst.len(),
            needed: o + tail,
        });
    }
    for i in 0..tail {
        dst[o + i] = (acc >> (bits - 8 * (i as u32 + 1))) as u8;
    }
    Ok(())
}

/// Huffman-encodes `src` into a fresh vector.
///
/// ```
/// let code = wirelab::hpack::huffman::encode(b"no-cache");
/// assert_eq!(code, [0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf]);
/// ```
pub fn encode(src: &[u8]) -> Vec<u8> {
    let mut out = vec![0; encoded_len(src)];
    encode_into(src, &mut out).expect("encoded_len gives the exact length");
    out
}

/// Bits looked up at once by the decoder.
const LOOKUP_BITS: u32 = 16;

/// One decoder table entry, packed: bits 0-23 up to three symbols (first in the low byte),
/// bits 24-25 how many, bits 26-30 how many input bits they use. A count of 0 means the next
/// code is longer than [`LOOKUP_BITS`] (or is EOS): take the slow path.
type Entry = u32;

/// Canonical-code decoding data, per code length: the first code, the number of codes, and
/// where their symbols start in `symbols`.
struct Canonical {
    first: [u32; 31],
    count: [u32; 31],
    start: [u16; 31],
    symbols: [u16; 257],
}

struct Tables {
    canonical: Canonical,
    lookup: Box<[Entry]>,
}

fn canonical() -> Canonical {
    let mut c = Canonical {
        first: [0; 31],
        count: [0; 31],
        start: [0; 31],
        symbols: [0; 257],
    };
    let mut order: Vec<u16> = (0..257).collect();
    order.sort_by_key(|&s| (CODE_LENGTHS[s as usize], CODES[s as usize]));
    for (i, &s) in order.iter().enumerate() {
        c.symbols[i] = s;
        let len = CODE_LENGTHS[s as usize] as usize;
        if c.count[len] == 0 {
            c.first[len] = CODES[s as usize];
            c.start[len] = i as u16;
        }
        c.count[len] += 1;
    }
    c
}

impl Canonical {
    /// Decodes one symbol from the top `avail` bits of `window` (MSB-aligned). Returns the
    /// symbol and its length, or `None` when no complete code fits in `avail` bits.
    #[inline]
    fn decode_one(&self, window: u64, avail: u32) -> Option<(u16, u32)> {
        for len in 5..=avail.min(30) {
            let code = (window >> (64 - len)) as u32;
            let offset = code.wrapping_sub(self.first[len as usize]);
            if offset < self.count[len as usize] {
                let idx = self.start[len as usize] as u32 + offset;
                return Some((self.symbols[idx as usize], len));
            }
        }
        None
    }
}

fn build() -> Tables {
    let canonical = canonical();
    let mut lookup = vec![0u32; 1 << LOOKUP_BITS].into_boxed_slice();
    for (idx, entry) in lookup.iter_mut().enumerate() {
        let window = (idx as u64) << (64 - LOOKUP_BITS);
        let (mut used, mut n, mut syms) = (0u32, 0u32, 0u32);
        while n < 3 {
            match canonical.decode_one(window << used, LOOKUP_BITS - used) {
                Some((sym, len)) if (sym as usize) != EOS => {
                    syms |= u32::from(sym) << (8 * n);
                    n += 1;
                    used += len;
                }
                _ => break,
            }
        }
        *entry = syms | (n << 24) | (used << 26);
    }
    Tables { canonical, lookup }
}

static TABLES: LazyLock<Tables> = LazyLock::new(build);

/// Decodes a Huffman-coded string, appending the octets to `dst`.
///
/// On error `dst` is restored to its length before the call.
///
/// Naive twin: `wirelab_baselines::hpack::huffman::decode`, a bit-by-bit tree walk.
///
/// # Errors
///
/// [`HuffmanError::Eos`], [`HuffmanError::PaddingTooLong`], [`HuffmanError::PaddingNotOnes`].
///
/// ```
/// let mut out = Vec::new();
/// wirelab::hpack::huffman::decode(&[0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff], &mut out).unwrap();
/// assert_eq!(out, b"www.example.com");
/// ```
pub fn decode(src: &[u8], dst: &mut Vec<u8>) -> Result<(), HuffmanError> {
    let start = dst.len();
    let r = decode_inner(src, dst, &mut 0);
    if r.is_err() {
        dst.truncate(start);
    }
    r
}

/// Like [`decode`], and also returns how many table lookups it made (for the lab's
/// symbols-per-lookup figure; only with the `lab` feature).
///
/// # Errors
///
/// As [`decode`].
#[cfg(feature = "lab")]
pub fn decode_counting(src: &[u8], dst: &mut Vec<u8>) -> Result<usize, HuffmanError> {
    let start = dst.len();
    let mut lookups = 0;
    match decode_inner(src, dst, &mut lookups) {
        Ok(()) => Ok(lookups),
        Err(e) => {
            dst.truncate(start);
            Err(e)
        }
    }
}

#[inline]
fn decode_inner(src: &[u8], dst: &mut Vec<u8>, lookups: &mut usize) -> Result<(), HuffmanError> {
    let t = &*TABLES;
    // A string of n octets holds at most 8n/5 symbols.
    dst.reserve(src.len() * 8 / 5 + 1);
    let mut acc: u64 = 0; // MSB-aligned bit window
    let mut nbits: u32 = 0;
    let mut i = 0;
    loop {
        // Refill whole octets while they fit.
        if i + 4 <= src.len() && nbits <= 32 {
            let word = u32::from_be_bytes([src[i], src[i + 1], src[i + 2], src[i + 3]]);
            acc |= u64::from(word) << (32 - nbits);
            nbits += 32;
            i += 4;
        }
        while nbits <= 56 && i < src.len() {
            acc |= u64::from(src[i]) << (56 - nbits);
            nbits += 8;
            i += 1;
        }
        if nbits == 0 {
            return Ok(());
        }
        *lookups += 1;
        let entry = t.lookup[(acc >> (64 - LOOKUP_BITS)) as usize];
        let used = entry >> 26;
        let n = (entry >> 24) & 3;
        if n > 0 && used <= nbits {
            dst.push(entry as u8);
            if n > 1 {
                dst.push((entry >> 8) as u8);
                if n > 2 {
                    dst.push((entry >> 16) as u8);
                }
            }
            acc <<= used;
            nbits -= used;
            continue;
        }
        // Slow path: a long code, or the last bits of the string.
        match t.canonical.decode_one(acc, nbits) {
            Some((sym, _)) if sym as usize == EOS => return Err(HuffmanError::Eos),
            Some((sym, len)) => {
                dst.push(sym as u8);
                acc <<= len;
                nbits -= len;
            }
            None => {
                // No complete code left: what remains must be padding.
                debug_assert!(i == src.len());
                if nbits > 7 {
                    return Err(HuffmanError::PaddingTooLong);
                }
                let pad = (acc >> (64 - nbits)) as u32;
                if pad != (1 << nbits) - 1 {
                    return Err(HuffmanError::PaddingNotOnes);
                }
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_canonical() {
        // Re-derive every code from the lengths alone: canonical order is (length, symbol).
        let mut order: Vec<usize> = (0..257).collect();
        order.sort_by_key(|&s| (CODE_LENGTHS[s], s));
        let mut code = 0u32;
        let mut prev = CODE_LENGTHS[order[0]];
        for (i, &s) in order.iter().enumerate() {
            let len = CODE_LENGTHS[s];
            if i > 0 {
                code = (code + 1) << (len - prev);
            }
            prev = len;
            assert_eq!(CODES[s], code, "symbol {s}");
        }
        assert_eq!(CODES[EOS], 0x3fff_ffff);
        assert_eq!(CODE_LENGTHS[EOS], 30);
    }

    #[test]
    fn every_table_entry_decodes_consistently() {
        let t = &*TABLES;
        for (idx, &e) in t.lookup.iter().enumerate() {
            let n = (e >> 24) & 3;
            let used = e >> 26;
            assert!(used <= LOOKUP_BITS);
            // The first symbol is what the canonical decoder finds.
            let window = (idx as u64) << (64 - LOOKUP_BITS);
            match t.canonical.decode_one(window, LOOKUP_BITS) {
                Some((sym, _)) if (sym as usize) != EOS => {
                    assert!(n >= 1);
                    assert_eq!(e as u8 as u16, sym);
                }
                _ => assert_eq!(n, 0),
            }
        }
    }
}
