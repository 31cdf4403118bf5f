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
//! 32 bits at a time straight into a range the caller reserved ([`encode_into`]). With
//! AVX-512 (VBMI), header text from 24 octets on goes 32 octets a step instead: table
//! lookups and variable shifts join the codes four to a 64-bit lane, a prefix sum places the
//! lanes, and one scatter stores them (`blocks`). Decoding keeps a
//! 64-bit window refilled 8 octets at a time and steps through it with a 64 KiB table indexed
//! by the next 14 bits: each step drops the bits of the next one or two codes (typical header
//! text has 5- to 7-bit codes, so nearly two per step), and the step's dependency chain is one
//! L1 load and a shift; the same 4-octet entry holds both symbols, stored as one pair. Codes
//! longer than 12 bits take one more lookup keyed by their run of leading ones. The tables take
//! 76 KiB, of which a string touches one entry per distinct step (the earlier decoder's 256 KiB
//! 16-bit table lived in L2). That chain bounds one decoding, so
//! a string of 32 octets or more is decoded as two halves at once, the second from a guessed
//! code start in the middle octet: a Huffman code resynchronises within a few codes, and the
//! halves join at a code start both found, the first half looking for one at its own step
//! starts in whole rounds (`Decoding::run_split`).
//!
//! *Result.* `reports/huffman-encode.md`, `reports/huffman-decode.md` and `reports/hpack-encode.md`.
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
#[cfg(target_arch = "x86_64")]
mod blocks;
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
    #[cfg(target_arch = "x86_64")]
    if src.len() >= LEN_VECTOR_FROM
        && std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512bw")
    {
        // SAFETY: the CPU has AVX-512 VBMI and BW (and so AVX-512F), checked just above.
        return unsafe { encoded_bits_vbmi(src) }.div_ceil(8);
    }
    encoded_bits(src).div_ceil(8)
}

/// Octets from which [`encoded_len`] counts with AVX-512: below, the lookups one by one take
/// less time than loading the tables and summing the vector (an 8-octet header value: 2.3
/// against 4.2 ns on an AVX-512 Xeon; level at 12-15).
const LEN_VECTOR_FROM: usize = 12;

/// The length in bits of the encoding of `src`, a code length at a time.
fn encoded_bits(src: &[u8]) -> usize {
    src.iter().map(|&b| CODE_LENGTHS[b as usize] as usize).sum()
}

/// [`encoded_bits`] 64 octets a step: the code lengths of all 256 octets are four 64-octet
/// registers, two permutes of two registers each look up every octet's length (one for
/// octets below 128, one for the rest, picked by the top bit), and a sum of absolute
/// differences adds them up. The last step loads and counts only the octets left.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn encoded_bits_vbmi(src: &[u8]) -> usize {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi64, _mm512_loadu_si512, _mm512_mask_blend_epi8,
        _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8, _mm512_movepi8_mask,
        _mm512_permutex2var_epi8, _mm512_reduce_add_epi64, _mm512_sad_epu8, _mm512_setzero_si512,
    };
    let table = |at: usize| -> __m512i {
        // SAFETY: `at + 64 <= 256 < 257`, within CODE_LENGTHS.
        unsafe { _mm512_loadu_si512(CODE_LENGTHS[at..at + 64].as_ptr().cast()) }
    };
    let (t0, t1, t2, t3) = (table(0), table(64), table(128), table(192));
    let lengths = |octets: __m512i| {
        let low = _mm512_permutex2var_epi8(t0, octets, t1);
        let high = _mm512_permutex2var_epi8(t2, octets, t3);
        _mm512_mask_blend_epi8(_mm512_movepi8_mask(octets), low, high)
    };
    let mut sum = _mm512_setzero_si512();
    let mut blocks = src.chunks_exact(64);
    for block in &mut blocks {
        // SAFETY: `block` holds 64 octets.
        let octets = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        sum = _mm512_add_epi64(
            sum,
            _mm512_sad_epu8(lengths(octets), _mm512_setzero_si512()),
        );
    }
    let rest = blocks.remainder();
    let live = (1u64 << rest.len()) - 1; // under 64 octets
    // SAFETY: the mask loads only the `rest.len()` octets of `rest`.
    let octets = unsafe { _mm512_maskz_loadu_epi8(live, rest.as_ptr().cast()) };
    let counted = _mm512_maskz_mov_epi8(live, lengths(octets));
    sum = _mm512_add_epi64(sum, _mm512_sad_epu8(counted, _mm512_setzero_si512()));
    _mm512_reduce_add_epi64(sum) as usize
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
#[inline]
pub fn encode_into(src: &[u8], dst: &mut [u8]) -> Result<(), LengthMismatch> {
    // Inlined into the caller, which calls one of two functions: neither path saves
    // registers for the other.
    if src.len() <= JOINED_HALVES_MAX {
        return encode_into_short(src, dst);
    }
    encode_into_long(src, dst)
}

/// [`encode_into`] of up to [`JOINED_HALVES_MAX`] octets: in registers ([`joined`],
/// [`joined_halves`]) where the codes fit them, else [`encode_into_long`].
#[inline(never)]
fn encode_into_short(src: &[u8], dst: &mut [u8]) -> Result<(), LengthMismatch> {
    let fits = |needed: usize| match needed == dst.len() {
        true => Ok(()),
        false => Err(LengthMismatch {
            dst: dst.len(),
            needed,
        }),
    };
    if let Some((code, bits)) = joined(src) {
        fits(bits.div_ceil(8))?;
        store_joined(code, bits, dst);
        return Ok(());
    }
    if let Some(halves) = joined_halves(src) {
        fits((halves[0].1 + halves[1].1).div_ceil(8))?;
        store_halves(halves, dst);
        return Ok(());
    }
    encode_into_long(src, dst)
}

/// [`encode_into`] past the strings it encodes in registers: the AVX-512 steps, then the
/// loop. Out of line, so that the short strings' path saves none of the loop's registers
/// (its prologue pushed six: 2-3 ns of a 13-octet string's 15).
#[inline(never)]
fn encode_into_long(src: &[u8], dst: &mut [u8]) -> Result<(), LengthMismatch> {
    let from = vector_blocks(src, dst);
    encode_into_from(src, dst, from)
}

/// The most octets [`joined`] takes: 12 octets of text (5- and 6-bit codes for most letters
/// and digits) fit 64 bits. In-process A/B against the loop (encoded_len and encode_into,
/// min of 200 batches, three link layouts, AVX-512 Xeon): 8 to 11 octets took 0.71-0.76x
/// the time (level with h2's loop, 0.97-1.08); past 12 octets the codes rarely fit.
const JOINED_MAX: usize = 12;

/// The codes of a short `src` (at most [`JOINED_MAX`] octets) joined in one 64-bit register,
/// right-aligned, and their length in bits: a short header value is encoded without the
/// loop's flushes, and stored with two overlapping stores ([`store_joined`]). `None` for a
/// longer `src`, or where the codes exceed 64 bits.
#[inline]
fn joined(src: &[u8]) -> Option<(u64, usize)> {
    if src.len() > JOINED_MAX {
        return None;
    }
    let code = |b: u8| u64::from(CODES[b as usize]);
    let len = |b: u8| usize::from(CODE_LENGTHS[b as usize]);
    let (mut acc, mut bits) = (0u64, 0usize);
    let mut groups = src.chunks_exact(4);
    for g in &mut groups {
        let (four, n) = four_codes(g);
        if bits + n as usize > 64 {
            return None;
        }
        // `n` is 64 only when nothing came before (acc is 0); `wrapping_shl` takes it as 0.
        acc = acc.wrapping_shl(n) | four;
        bits += n as usize;
    }
    for &b in groups.remainder() {
        if bits + len(b) > 64 {
            return None;
        }
        acc = (acc << len(b)) | code(b);
        bits += len(b);
    }
    Some((acc, bits))
}

/// The most octets [`joined_halves`] takes.
const JOINED_HALVES_MAX: usize = 16;

/// The codes of 9 to 16 octets in two registers, where they take more than 64 bits (13 to
/// 16 octets of text: a host, an encoding list, a short path): [`joined`] of the first 8 octets
/// and of the rest, two chains the CPU runs side by side. `None` for another length, where
/// either half's codes exceed 64 bits or the second's 56 (room for the padding), or where
/// they fit one register. Stored by [`store_halves`].
#[inline(always)]
fn joined_halves(src: &[u8]) -> Option<[(u64, usize); 2]> {
    if !(9..=JOINED_HALVES_MAX).contains(&src.len()) {
        return None;
    }
    let (first, rest) = src.split_at(8);
    let (hi, lo) = (joined(first)?, joined(rest)?);
    (lo.1 <= 56 && hi.1 + lo.1 > 64).then_some([hi, lo])
}

/// The codes of the four octets of `g` joined (the first highest, right-aligned) and their
/// length in bits; the joined codes are whole when that is at most 64.
#[inline(always)]
fn four_codes(g: &[u8]) -> (u64, u32) {
    let code = |i: usize| u64::from(CODES[g[i] as usize]);
    let len = |i: usize| u32::from(CODE_LENGTHS[g[i] as usize]);
    let (len01, len23) = (len(0) + len(1), len(2) + len(3));
    let joined = (((code(0) << len(1)) | code(1)) << len23) | (code(2) << len(3)) | code(3);
    (joined, len01 + len23)
}

/// Stores the `bits` of `code` (right-aligned, at most 64) padded with ones to whole octets
/// into `dst`, which holds exactly those octets: two overlapping stores of 4 or 2 octets (the
/// first and the last), or one octet.
#[inline]
fn store_joined(code: u64, bits: usize, dst: &mut [u8]) {
    let n = dst.len();
    debug_assert_eq!(n, bits.div_ceil(8));
    if n == 0 {
        return;
    }
    let pad = 8 * n - bits;
    let padded = (code << pad) | ((1 << pad) - 1);
    let octets = (padded << (64 - 8 * n)).to_be_bytes(); // the n octets first
    match n {
        4.. => {
            dst[..4].copy_from_slice(&octets[..4]);
            dst[n - 4..].copy_from_slice(&octets[n - 4..n]);
        }
        2.. => {
            dst[..2].copy_from_slice(&octets[..2]);
            dst[n - 2..].copy_from_slice(&octets[n - 2..n]);
        }
        _ => dst[0] = octets[0],
    }
}

/// Stores the codes of [`joined_halves`] padded with ones to whole octets into `dst`, which
/// holds exactly those octets (9 to 15): the first 8 octets and the last 8, overlapping.
#[inline]
fn store_halves([(hi, hi_bits), (lo, lo_bits)]: [(u64, usize); 2], dst: &mut [u8]) {
    let n = dst.len();
    debug_assert!(n == (hi_bits + lo_bits).div_ceil(8) && n > 8);
    let pad = 8 * n - hi_bits - lo_bits;
    // The second half and the padding, under 64 bits (lo_bits <= 56): the encoding's end.
    let end = (lo << pad) | ((1 << pad) - 1);
    let last = (hi << (lo_bits + pad)) | end;
    let first = (hi << (64 - hi_bits)) | (end >> (8 * n - 64));
    dst[..8].copy_from_slice(&first.to_be_bytes());
    dst[n - 8..].copy_from_slice(&last.to_be_bytes());
}

/// Where an encoder that goes many octets a step stopped: the next octet of `src`, the next
/// octet of `dst`, and the bits after that octet's start that are pending (`bits < 8`, the
/// low bits of `acc`; `acc`'s higher bits are not cleared).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Progress {
    i: usize,
    o: usize,
    acc: u64,
    bits: u32,
}

/// Octets from which [`encode_into`] and [`encode_within`] try the AVX-512 steps. Measured
/// on an AVX-512 Xeon (a user-agent's first octets into an exact buffer, min of 300
/// batches): a step costs about 8.5 ns whatever it holds, plus about 8 ns once; at 16 octets
/// the scalar loop took 12.1 ns against 16.8, at 24 17.4 against 16.8, at 32 20.1 against
/// 16.5.
const VECTOR_FROM: usize = 24;

/// Where the AVX-512 encoder of short-code text stopped (nothing done without it, or under
/// [`VECTOR_FROM`] octets): the whole of typical header text, 32 octets a step.
#[inline]
fn vector_blocks(src: &[u8], dst: &mut [u8]) -> Progress {
    #[cfg(target_arch = "x86_64")]
    if src.len() >= VECTOR_FROM && blocks::available() {
        // SAFETY: the CPU has the features, checked just above.
        return unsafe { blocks::encode_blocks(src, dst) };
    }
    let _ = dst;
    Progress::default()
}

/// [`encode_into`] code by code from where `from` says, four codes joined per step.
fn encode_into_from(src: &[u8], dst: &mut [u8], from: Progress) -> Result<(), LengthMismatch> {
    let mut acc: u64 = from.acc & ((1 << from.bits) - 1); // pending bits, right-aligned
    let mut bits: u32 = from.bits; // below 32 between steps
    let mut o = from.o;
    let src_all = src;
    let src = &src[from.i..];
    let mut flush = |acc: u64, bits: &mut u32, o: &mut usize| {
        if *bits >= 32 {
            *bits -= 32;
            let word = ((acc >> *bits) as u32).to_be_bytes();
            let Some(d) = dst.get_mut(*o..*o + 4) else {
                return Err(LengthMismatch {
                    dst: dst.len(),
                    needed: encoded_len(src_all),
                });
            };
            d.copy_from_slice(&word);
            *o += 4;
        }
        Ok(())
    };
    // Four codes at a time: they are joined apart from the accumulator, which then takes one
    // shift, one or and one flush check per four codes instead of per code. Text's codes
    // (5-8 bits) join within 32 bits; longer groups go code by code.
    let mut groups = src.chunks_exact(4);
    for g in &mut groups {
        let code = |i: usize| u64::from(CODES[g[i] as usize]);
        let len = |i: usize| u32::from(CODE_LENGTHS[g[i] as usize]);
        let (joined, n) = four_codes(g);
        if n <= 32 {
            acc = (acc << n) | joined;
            bits += n;
            flush(acc, &mut bits, &mut o)?;
        } else {
            for i in 0..4 {
                acc = (acc << len(i)) | code(i);
                bits += len(i);
                flush(acc, &mut bits, &mut o)?;
            }
        }
    }
    for &b in groups.remainder() {
        let len = u32::from(CODE_LENGTHS[b as usize]);
        acc = (acc << len) | u64::from(CODES[b as usize]);
        bits += len;
        flush(acc, &mut bits, &mut o)?;
    }
    // Flush the remaining whole octets, then pad the last one with ones (the EOS prefix).
    if !bits.is_multiple_of(8) {
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

/// Huffman-encodes `src` into the start of `dst` and returns the encoding's length, or `None`
/// when it is longer than `dst` (which then holds a partial encoding). One pass: the HPACK
/// encoder's "Huffman when shorter" bounds `dst` by the raw length instead of counting first.
/// Never writes outside `dst`. The loop is [`encode_into`]'s; the two differ in their ends
/// (a bound instead of an exact length), and folding them into one function moved the
/// compiler's layout of the long-code path (+15 % instructions on all 256 octets).
pub(crate) fn encode_within(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    // Two tail calls (the result comes back in registers): the HPACK encoder's code around
    // the call stays as it was.
    if src.len() <= JOINED_HALVES_MAX {
        return encode_within_short(src, dst);
    }
    encode_within_long(src, dst)
}

/// [`encode_within`] of up to [`JOINED_HALVES_MAX`] octets, as [`encode_into_short`].
#[inline(never)]
fn encode_within_short(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    if let Some((code, bits)) = joined(src) {
        let n = bits.div_ceil(8);
        store_joined(code, bits, dst.get_mut(..n)?);
        return Some(n);
    }
    if let Some(halves) = joined_halves(src) {
        let n = (halves[0].1 + halves[1].1).div_ceil(8);
        store_halves(halves, dst.get_mut(..n)?);
        return Some(n);
    }
    encode_within_long(src, dst)
}

/// [`encode_within`] past the strings it encodes in registers, out of line as
/// [`encode_into_long`].
#[inline(never)]
fn encode_within_long(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let from = vector_blocks(src, dst);
    encode_within_from(src, dst, from)
}

/// [`encode_within`] code by code from where `from` says.
fn encode_within_from(src: &[u8], dst: &mut [u8], from: Progress) -> Option<usize> {
    let mut acc: u64 = from.acc & ((1 << from.bits) - 1); // pending bits, right-aligned
    let mut bits: u32 = from.bits; // below 32 between steps
    let mut o = from.o;
    let src = &src[from.i..];
    let mut flush = |acc: u64, bits: &mut u32, o: &mut usize| {
        if *bits >= 32 {
            *bits -= 32;
            let word = ((acc >> *bits) as u32).to_be_bytes();
            dst.get_mut(*o..*o + 4)?.copy_from_slice(&word);
            *o += 4;
        }
        Some(())
    };
    let mut groups = src.chunks_exact(4);
    for g in &mut groups {
        let code = |i: usize| u64::from(CODES[g[i] as usize]);
        let len = |i: usize| u32::from(CODE_LENGTHS[g[i] as usize]);
        let (joined, n) = four_codes(g);
        if n <= 32 {
            acc = (acc << n) | joined;
            bits += n;
            flush(acc, &mut bits, &mut o)?;
        } else {
            for i in 0..4 {
                acc = (acc << len(i)) | code(i);
                bits += len(i);
                flush(acc, &mut bits, &mut o)?;
            }
        }
    }
    for &b in groups.remainder() {
        let len = u32::from(CODE_LENGTHS[b as usize]);
        acc = (acc << len) | u64::from(CODES[b as usize]);
        bits += len;
        flush(acc, &mut bits, &mut o)?;
    }
    if !bits.is_multiple_of(8) {
        let pad = 8 - bits % 8;
        acc = (acc << pad) | ((1 << pad) - 1);
        bits += pad;
    }
    let tail = (bits / 8) as usize;
    for (i, d) in dst.get_mut(o..o + tail)?.iter_mut().enumerate() {
        *d = (acc >> (bits - 8 * (i as u32 + 1))) as u8;
    }
    Some(o + tail)
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

/// Bits the decoder's step table looks at: enough for two codes of the common lengths (5-7 bits).
const STEP_BITS: u32 = 14;
/// Strings from this many octets decode as two halves at once ([`Decoding::run_split`]).
/// Measured against 48 (in-process A/B, min of 200 batches, two link layouts, AVX-512
/// Xeon): a 43-octet URL 0.84x the time, a 34-octet path 0.92x; from 24, strings of 26 and
/// 30 octets took 1.4x (their halves rarely meet within the marks).
const SPLIT_FROM: usize = 32;
/// Bits from the middle of a split string within which the two halves must meet (a power
/// of two: marks are stored modulo it, without a bounds check).
const SYNC_BITS: usize = 128;
/// How far past a marking round's first code start its last mark can lie: its fourth step
/// starts at most three steps of [`STEP_BITS`] later, and that step's second code at most
/// [`SYMBOL_BITS`] after.
const MARKED_LAST: usize = 3 * STEP_BITS as usize + SYMBOL_BITS as usize;
#[cfg(test)]
thread_local! {
    /// Split decodings on this thread whose halves met (for the tests).
    static JOINS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}
/// Bits the symbol table looks at: codes up to this long decode in the fast step.
const SYMBOL_BITS: u32 = 12;
/// Bits after a long code's run of leading ones (and the zero that ends it) that settle it.
const TAIL_BITS: u32 = 6;
/// The longest run of leading ones the long-code table tells apart (the EOS code is 30 ones).
const MAX_ONES: u32 = 30;

/// Canonical-code decoding data, per code length: the first code, the number of codes, and
/// where their symbols start in `symbols`. Used to build the tables (and, in tests, to check
/// them); the decoder itself never walks it.
struct Canonical {
    first: [u32; 31],
    count: [u32; 31],
    start: [u16; 31],
    symbols: [u16; 257],
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

/// The decoder's tables, 76 KiB in all (a string touches one `step` entry per distinct step).
///
/// - `step`, indexed by the next [`STEP_BITS`] bits: one step. Bits 0-5 are the bits used by
///   the next one or two codes (each at most [`SYMBOL_BITS`] long, together at most
///   [`STEP_BITS`]), bits 8-15 the first code's symbol, bits 16-23 the second's, and bits
///   24-25 how many codes the step decodes. 0: the next code is longer than [`SYMBOL_BITS`] (or is EOS);
///   take the long step. The step's dependency chain is only this load and a shift. With the
///   symbols in the same entry (instead of two lookups in `symbol`, 28 KiB of tables in all),
///   a step is about a third fewer instructions: `cargo lab compare` read the user-agent
///   0.906x and the browser request's blocks 0.91x the time, the hpack-test-case stories
///   unchanged (8 % fewer instructions; their many strings touch more of the larger table).
/// - `symbol`, indexed by the next [`SYMBOL_BITS`] bits: the first code's symbol (bits 0-7)
///   and length (bits 8-11), where a code's length is needed on its own (the split
///   decoding's code starts, the last codes of a string).
/// - `long`, indexed by the number of leading ones (capped at [`MAX_ONES`]) and the
///   [`TAIL_BITS`] bits after the zero that ends them: any code's symbol (bits 0-8, EOS
///   included) and length (bits 9-13). Every HPACK code has at most 6 bits after its run of
///   ones, which the tests check.
struct Tables {
    step: [u32; 1 << STEP_BITS],
    symbol: [u16; 1 << SYMBOL_BITS],
    long: [u16; ((MAX_ONES + 1) << TAIL_BITS) as usize],
}

/// The first code in the top `avail` bits of `window` if it is at most [`SYMBOL_BITS`] long.
fn short_code(c: &Canonical, window: u64, avail: u32) -> Option<(u16, u32)> {
    c.decode_one(window, avail.min(SYMBOL_BITS))
        .filter(|&(sym, _)| sym as usize != EOS)
}

fn build() -> Box<Tables> {
    let c = canonical();
    let mut t = Box::new(Tables {
        step: [0; 1 << STEP_BITS],
        symbol: [0; 1 << SYMBOL_BITS],
        long: [0; ((MAX_ONES + 1) << TAIL_BITS) as usize],
    });
    for (idx, entry) in t.step.iter_mut().enumerate() {
        let window = (idx as u64) << (64 - STEP_BITS);
        if let Some((sym1, len1)) = short_code(&c, window, STEP_BITS) {
            *entry = match short_code(&c, window << len1, STEP_BITS - len1) {
                Some((sym2, len2)) => (len1 + len2) | 2 << 24 | u32::from(sym2) << 16,
                None => len1 | 1 << 24,
            } | u32::from(sym1) << 8;
        }
    }
    for (idx, entry) in t.symbol.iter_mut().enumerate() {
        let window = (idx as u64) << (64 - SYMBOL_BITS);
        if let Some((sym, len)) = short_code(&c, window, SYMBOL_BITS) {
            *entry = sym | (len as u16) << 8;
        }
    }
    for (idx, entry) in t.long.iter_mut().enumerate() {
        let ones = idx as u32 >> TAIL_BITS;
        let tail = idx as u64 & ((1 << TAIL_BITS) - 1);
        let window = !(u64::MAX >> ones) | tail << (64 - ones - 1 - TAIL_BITS);
        let (sym, len) = c
            .decode_one(window, MAX_ONES)
            .expect("the HPACK code is complete: every 30 bits start with a code");
        *entry = sym | (len as u16) << 9;
    }
    t
}

static TABLES: LazyLock<Box<Tables>> = LazyLock::new(build);

/// Decodes a Huffman-coded string, appending the octets to `dst`.
///
/// On error `dst` is left as it was.
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
    decode_dispatched::<false>(src, dst).map(|_| ())
}

/// The kernels this module picks on this CPU (only with the `lab` feature): `encoded_len`'s
/// (`avx512-vbmi` or `portable`) and the decoder's (`bmi2` or `portable`), as the dispatch
/// in [`encoded_len`] and [`decode`] chooses them.
#[cfg(feature = "lab")]
pub fn kernels() -> [(&'static str, &'static str); 2] {
    #[cfg(target_arch = "x86_64")]
    let (len, dec) = (
        if std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512bw")
        {
            "avx512-vbmi"
        } else {
            "portable"
        },
        if std::arch::is_x86_feature_detected!("bmi2") {
            "bmi2"
        } else {
            "portable"
        },
    );
    #[cfg(not(target_arch = "x86_64"))]
    let (len, dec) = ("portable", "portable");
    [("huffman encoded_len", len), ("huffman decode", dec)]
}

/// Like [`decode`], and also returns how many table steps it took (for the lab's
/// symbols-per-step figure; only with the `lab` feature).
///
/// # Errors
///
/// As [`decode`].
#[cfg(feature = "lab")]
pub fn decode_counting(src: &[u8], dst: &mut Vec<u8>) -> Result<usize, HuffmanError> {
    decode_dispatched::<true>(src, dst)
}

/// [`Decoding::run`] compiled for BMI2 where the CPU has it: the step's variable shift is then
/// one `shlx` instead of a three-micro-op `shl` by `cl` (about 8 % off the user-agent's time).
/// The number of steps taken with `COUNT`, else 0: then nothing counts them.
#[inline]
fn decode_dispatched<const COUNT: bool>(
    src: &[u8],
    dst: &mut Vec<u8>,
) -> Result<usize, HuffmanError> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2, checked just above.
        return unsafe { decode_bmi2::<COUNT>(src, dst) };
    }
    Decoding::run(src, dst).map(counted::<COUNT>)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn decode_bmi2<const COUNT: bool>(src: &[u8], dst: &mut Vec<u8>) -> Result<usize, HuffmanError> {
    Decoding::run(src, dst).map(counted::<COUNT>)
}

/// `steps` when counting, else 0 (so that the counter is dead code and compiled out).
#[inline(always)]
fn counted<const COUNT: bool>(steps: usize) -> usize {
    if COUNT { steps } else { 0 }
}

/// One call's decoding state: the input, a bit window over it, and the output written so far
/// into `dst`'s spare capacity (committed with `set_len` only on success).
struct Decoding<'a> {
    t: &'a Tables,
    src: &'a [u8],
    /// Next input octet not yet in `window`.
    next: usize,
    /// Input bits, most significant first; the top `avail` are valid, the rest are zeros or
    /// copies of the input octets from `next` on.
    window: u64,
    avail: u32,
    out: *mut u8,
    written: usize,
    steps: usize,
}

impl<'a> Decoding<'a> {
    /// Decodes `src` onto `dst`, returning the number of steps taken.
    #[inline(always)]
    fn run(src: &'a [u8], dst: &mut Vec<u8>) -> Result<usize, HuffmanError> {
        if src.len() >= SPLIT_FROM {
            return Self::run_split(src, dst);
        }
        // A string of n octets holds at most 8n/5 symbols; a step writes two octets even when
        // it decodes one, so one more octet of room.
        dst.reserve(src.len() * 8 / 5 + 2);
        let mut d = Decoding::at(src, 0, dst.spare_capacity_mut().as_mut_ptr().cast());
        d.bulk()?;
        d.tail()?;
        let len = dst.len() + d.written;
        // SAFETY: `emit` wrote (initialized) the `written` octets after `dst.len()`, all
        // within the capacity reserved above (see `emit`).
        unsafe { dst.set_len(len) };
        Ok(d.steps)
    }

    /// A decoding of `src` from octet `next` on (taken as the start of a code), writing to
    /// `out`.
    #[inline(always)]
    fn at(src: &'a [u8], next: usize, out: *mut u8) -> Self {
        Decoding {
            t: &TABLES,
            src,
            next,
            window: 0,
            avail: 0,
            out,
            written: 0,
            steps: 0,
        }
    }

    /// [`run`](Self::run) for a string of [`SPLIT_FROM`] octets or more, as two halves at
    /// once: the first half's decoding (`a`) and, guessing that a code starts at the middle
    /// octet, the second half's (`b`) take their steps in turns, so that the CPU runs the two
    /// dependency chains side by side. A Huffman code resynchronises within a few codes: `b`
    /// marks where its codes start in its first [`SYNC_BITS`] bits, and once `a` reaches
    /// the middle, the first code start they share joins them (from there both see the same
    /// codes, and `b`'s outcome is the string's). `a`'s symbols, then `b`'s from that point,
    /// are the string. When they share none, `a` decodes the rest alone: the guess only ever
    /// costs time.
    #[inline(always)]
    fn run_split(src: &'a [u8], dst: &mut Vec<u8>) -> Result<usize, HuffmanError> {
        let middle = src.len() / 2;
        let start = 8 * middle;
        // `a` writes at most one symbol per 5 bits of what it decodes before it meets `b`
        // (below `start + SYNC_BITS`, plus the last code of at most 30 bits) and one octet
        // after a step's last; `b` the same from `start` to the end. Alone, `a` writes
        // over `b`'s room: 8n/5 + 2 octets fit in the two.
        let a_room = (start + SYNC_BITS + 30) / 5 + 2;
        let b_room = (8 * (src.len() - middle)) / 5 + 2;
        dst.reserve(a_room + b_room);
        let out: *mut u8 = dst.spare_capacity_mut().as_mut_ptr().cast();
        let mut a = Decoding::at(src, 0, out);
        let mut b = Split {
            // SAFETY: `a_room < a_room + b_room`, within the capacity reserved above.
            lane: Decoding::at(src, middle, unsafe { out.add(a_room) }),
            start,
            starts: [0; SYNC_BITS],
            end: None,
        };
        let written = match a.meet(&mut b)? {
            Some(from) => {
                #[cfg(test)]
                JOINS.set(JOINS.get() + 1);
                let end = loop {
                    if let Some(end) = b.end {
                        break end;
                    }
                    b.end = b.lane.advance();
                };
                end?;
                let len = b.lane.written - from;
                // SAFETY: `b` wrote `b.lane.written` octets at `out + a_room`; `a` wrote
                // `a.written <= a_room` at `out`. Both ranges are within the reservation;
                // `copy` allows them to overlap.
                unsafe { std::ptr::copy(b.lane.out.add(from), out.add(a.written), len) };
                a.written + len
            }
            None => {
                a.bulk()?;
                a.tail()?;
                a.written
            }
        };
        // SAFETY: the `written` octets after `dst.len()` were written (initialized) above,
        // within the capacity reserved.
        unsafe { dst.set_len(dst.len() + written) };
        Ok(a.steps + b.lane.steps)
    }

    /// The bit this decoding has reached in `src`.
    #[inline(always)]
    fn position(&self) -> usize {
        8 * self.next - self.avail as usize
    }

    /// Decodes `self` (from the string's start) and `b` in turns, a round each, until `self`
    /// is about to reach `b.start`; then goes on in turns, `self` looking before each of
    /// its steps whether `b` marked a code start there: `Some(symbols b wrote before it)`,
    /// `self` stopped there. `None` when `self` passes `b`'s marks without one (or nears the
    /// string's end). `b` is ahead (it started at the middle), so it has marked the bits
    /// `self` looks at; were it not, a start is missed, which costs time, never the output.
    /// Looking at step starts only, in whole rounds, rather than at every code start one
    /// code at a time: user-agent strings 0.92x the time on average (in-process A/B over
    /// prefixes of three user-agents, three link layouts; the Firefox one 0.91-0.93x), as
    /// a meeting is found at most a step later.
    #[inline(always)]
    fn meet(&mut self, b: &mut Split<'a>) -> Result<Option<usize>, HuffmanError> {
        // A round moves at most 56 bits: `self` stays before `start`, and its 8-octet
        // refills within the string. One loop per kind of round `b` takes: without the first
        // two (the general loop alone), all 256 octets decoded 1.019x [1.014, 1.025] slower
        // (`cargo lab compare` over 16 link layouts; the user-agent 0.998x, unchanged).
        while self.position() + 56 < b.start && b.end.is_none() && b.marking() {
            self.round()?;
            b.end = b.marking_round().err().map(Err);
        }
        while self.position() + 56 < b.start
            && b.end.is_none()
            && b.lane.next + 8 <= b.lane.src.len()
        {
            self.round()?;
            b.end = b.lane.round().err().map(Err);
        }
        while self.position() + 56 < b.start {
            self.round()?;
            b.go_on();
        }
        while self.next + 8 <= self.src.len() {
            self.refill8();
            for _ in 0..4 {
                match b.started_at(self.position()) {
                    Ok(Some(from)) => return Ok(Some(from)),
                    Ok(None) => {}
                    Err(()) => return Ok(None),
                }
                let step = self.t.step[(self.window >> (64 - STEP_BITS)) as usize];
                if step == 0 {
                    self.long_step()?;
                    break;
                }
                self.emit(step);
            }
            b.go_on();
        }
        Ok(None)
    }

    /// One round of [`bulk`](Self::bulk): a refill of 8 octets (which must be there), then
    /// up to four short steps.
    #[inline(always)]
    fn round(&mut self) -> Result<(), HuffmanError> {
        self.refill8();
        for _ in 0..4 {
            let step = self.t.step[(self.window >> (64 - STEP_BITS)) as usize];
            if step == 0 {
                // A long code takes up to 30 bits: when fewer are left, `long_step`
                // leaves it for the next round, after the refill.
                self.long_step()?;
                break;
            }
            self.emit(step);
        }
        Ok(())
    }

    /// Decodes while 8 input octets remain: refill 8 at a time, then up to four short
    /// steps (at most 14 bits each) from the 56 or more bits in the window.
    #[inline(always)]
    fn bulk(&mut self) -> Result<(), HuffmanError> {
        while self.next + 8 <= self.src.len() {
            self.round()?;
        }
        Ok(())
    }

    /// Decodes the last octets, loading them a word at a time: whole steps while the window holds
    /// a step table index of valid bits, then every code checked against the bits left.
    #[inline(always)]
    fn tail(&mut self) -> Result<(), HuffmanError> {
        loop {
            if let Some(end) = self.tail_step() {
                return end;
            }
        }
    }

    /// One step of [`tail`](Self::tail): `Some` with the outcome once the string has ended.
    #[inline(always)]
    fn tail_step(&mut self) -> Option<Result<(), HuffmanError>> {
        if self.avail <= 56 && self.next < self.src.len() {
            self.refill_end();
        }
        if self.avail >= STEP_BITS {
            let step = self.t.step[(self.window >> (64 - STEP_BITS)) as usize];
            if step != 0 {
                self.emit(step);
                return None;
            }
        }
        if self.avail == 0 {
            return Some(Ok(()));
        }
        match self.checked_step() {
            Ok(true) => None,
            Ok(false) => Some(self.padding()),
            Err(e) => Some(Err(e)),
        }
    }

    /// One piece of a decoding to the end: a [`round`](Self::round) while 8 octets are
    /// left, else a [`tail_step`](Self::tail_step). `Some` with the outcome once it ended.
    #[inline(always)]
    fn advance(&mut self) -> Option<Result<(), HuffmanError>> {
        if self.next + 8 <= self.src.len() {
            return self.round().err().map(Err);
        }
        self.tail_step()
    }

    /// Loads the next 8 input octets into the window, keeping the whole ones that fit.
    #[inline(always)]
    fn refill8(&mut self) {
        let octets: [u8; 8] = self.src[self.next..self.next + 8].try_into().unwrap();
        self.window |= u64::from_be_bytes(octets) >> self.avail;
        let taken = (63 - self.avail) >> 3;
        self.next += taken as usize;
        self.avail += taken << 3;
    }

    /// Loads what fits of the last (fewer than 8) input octets into the window: at once when
    /// the input has 8 octets to load a word from, else one octet at a time.
    #[inline(always)]
    fn refill_end(&mut self) {
        let len = self.src.len();
        let Some(last8) = len.checked_sub(8).map(|start| &self.src[start..]) else {
            while self.avail <= 56 && self.next < len {
                self.window |= u64::from(self.src[self.next]) << (56 - self.avail);
                self.avail += 8;
                self.next += 1;
            }
            return;
        };
        // The octets left, at the top of a word (`bulk` left 1 to 7 of them).
        let left = len - self.next;
        debug_assert!((1..8).contains(&left));
        let word = u64::from_be_bytes(last8.try_into().expect("8 octets")) << (64 - 8 * left);
        self.window |= word >> self.avail;
        let taken = left.min((64 - self.avail as usize) / 8);
        self.next += taken;
        self.avail += 8 * taken as u32;
    }

    /// Writes the one or two symbols of `step` (a `step` table entry) and drops their bits.
    #[inline(always)]
    fn emit(&mut self, step: u32) {
        debug_assert!(self.written + 2 <= self.src.len() * 8 / 5 + 2);
        // Both symbols in one store. A step of one code stores a 0 after its symbol, which
        // the next step overwrites or which lies past the string's octets.
        // SAFETY: `run` reserved 8n/5 + 2 octets for n input octets (`run_split` as much
        // for the bits each of its decodings can reach, see there). Every emitted symbol
        // used at least 5 input bits, so before this step at most 8n/5 - 1 symbols were
        // written when a symbol is still to come, and the two octets written here end within
        // the reservation.
        unsafe {
            let pair = ((step >> 8) as u16).to_le_bytes();
            self.out
                .add(self.written)
                .cast::<[u8; 2]>()
                .write_unaligned(pair);
        }
        self.written += (step >> 24) as usize;
        // `wrapping_shl` takes the shift modulo 64, that is bits 0-5 of the step: the same
        // shift without a mask on the chain (x86's shifts mask their count themselves).
        // (Bits 6 and 7 are zero, so `step & 63` is the step's first octet.)
        self.window = self.window.wrapping_shl(step);
        self.avail -= step & 63;
        self.steps += 1;
    }

    /// Decodes one code of any length; it must lie within the valid bits.
    #[inline(always)]
    fn long_step(&mut self) -> Result<(), HuffmanError> {
        match self.long_code() {
            Some((sym, _)) if sym as usize == EOS => Err(HuffmanError::Eos),
            Some((sym, len)) => {
                self.emit_one(sym as u8, len);
                Ok(())
            }
            // Not enough bits left in the window: the caller refills.
            None => Ok(()),
        }
    }

    /// The next code of any length, if it lies within the valid bits.
    #[inline(always)]
    fn long_code(&self) -> Option<(u16, u32)> {
        let ones = (!self.window | 1 << (63 - MAX_ONES)).leading_zeros();
        let tail = (self.window << ones << 1) >> (64 - TAIL_BITS);
        let entry = self.t.long[((ones << TAIL_BITS) | tail as u32) as usize];
        let len = u32::from(entry >> 9);
        (len <= self.avail).then_some((entry & 0x1ff, len))
    }

    /// Writes one symbol of `len` bits and drops them.
    #[inline(always)]
    fn emit_one(&mut self, sym: u8, len: u32) {
        // SAFETY: as in `emit`.
        unsafe { self.out.add(self.written).write(sym) };
        self.written += 1;
        self.window <<= len;
        self.avail -= len;
        self.steps += 1;
    }

    /// One step near the end of the input, where the window may hold fewer bits than a step
    /// table index. Returns `false` when no complete code is left.
    #[inline(always)]
    fn checked_step(&mut self) -> Result<bool, HuffmanError> {
        let step = self.t.step[(self.window >> (64 - STEP_BITS)) as usize];
        if step != 0 {
            if step & 63 <= self.avail {
                self.emit(step);
                return Ok(true);
            }
            let first = self.t.symbol[(self.window >> (64 - SYMBOL_BITS)) as usize];
            let len = u32::from(first >> 8);
            if len <= self.avail {
                self.emit_one(first as u8, len);
                return Ok(true);
            }
            return Ok(false);
        }
        match self.long_code() {
            Some((sym, _)) if sym as usize == EOS => Err(HuffmanError::Eos),
            Some((sym, len)) => {
                self.emit_one(sym as u8, len);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Checks what is left when no complete code is: at most 7 bits, all ones (section 5.2).
    fn padding(&self) -> Result<(), HuffmanError> {
        debug_assert!(self.next == self.src.len());
        if self.avail > 7 {
            return Err(HuffmanError::PaddingTooLong);
        }
        let pad = (self.window >> (64 - self.avail)) as u32;
        if pad != (1 << self.avail) - 1 {
            return Err(HuffmanError::PaddingNotOnes);
        }
        Ok(())
    }
}

/// The second half of a split decoding ([`Decoding::run_split`]): its decoding from the
/// middle octet, the code starts it marked, and its outcome once it ended.
struct Split<'a> {
    lane: Decoding<'a>,
    /// The bit the lane started at.
    start: usize,
    /// At `start + i`: 0, or one more than the symbols written before a code that starts there.
    starts: [u8; SYNC_BITS],
    /// The lane's outcome, once it has ended (an error ends it too).
    end: Option<Result<(), HuffmanError>>,
}

impl Split<'_> {
    /// Whether the lane still marks code starts: a round's marks (at most [`MARKED_LAST`]
    /// bits on) stay below [`SYNC_BITS`], and it has 8 octets to refill from.
    #[inline(always)]
    fn marking(&self) -> bool {
        self.lane.position() + MARKED_LAST < self.start + SYNC_BITS
            && self.lane.next + 8 <= self.lane.src.len()
    }

    /// The lane's next piece of work, unless it has ended: a marking round while
    /// [`marking`](Self::marking), else [`Decoding::advance`].
    #[inline(always)]
    fn go_on(&mut self) {
        if self.end.is_some() {
            return;
        }
        self.end = if self.marking() {
            self.marking_round().err().map(Err)
        } else {
            self.lane.advance()
        };
    }

    /// `Ok(Some(symbols written before it))` if the lane marked a code start at bit `at`;
    /// `Err` when `at` is past the marks (from `start` on, [`SYNC_BITS`] of them).
    #[inline(always)]
    fn started_at(&self, at: usize) -> Result<Option<usize>, ()> {
        match at.checked_sub(self.start).map(|i| self.starts.get(i)) {
            None | Some(Some(&0)) => Ok(None),
            Some(None) => Err(()),
            Some(Some(&n)) => Ok(Some(usize::from(n) - 1)),
        }
    }

    /// [`Decoding::round`] that also marks where each code starts. Only while
    /// [`marking`](Self::marking): the round's marks then lie below `SYNC_BITS`.
    #[inline(always)]
    fn marking_round(&mut self) -> Result<(), HuffmanError> {
        let d = &mut self.lane;
        d.refill8();
        let mut at = d.position() - self.start;
        for _ in 0..4 {
            // At most SYNC_BITS / 5 + 1 symbols before a start within SYNC_BITS: an octet.
            self.starts[at % SYNC_BITS] = d.written as u8 + 1;
            let step = d.t.step[(d.window >> (64 - STEP_BITS)) as usize];
            if step == 0 {
                d.long_step()?;
                break;
            }
            let first = d.t.symbol[(d.window >> (64 - SYMBOL_BITS)) as usize];
            if step >> 24 == 2 {
                self.starts[(at + usize::from(first >> 8)) % SYNC_BITS] = d.written as u8 + 2;
            }
            d.emit(step);
            at += (step & 63) as usize;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The AVX-512 length count agrees with the scalar sum on any octets of any length
        /// (whole 64-octet steps and every size of last step).
        #[test]
        #[cfg(target_arch = "x86_64")]
        fn encoded_bits_kernel_agrees_with_the_scalar_sum(
            src in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        ) {
            if std::arch::is_x86_feature_detected!("avx512vbmi")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                // SAFETY: the CPU has the features, checked just above.
                let simd = unsafe { encoded_bits_vbmi(&src) };
                proptest::prop_assert_eq!(simd, encoded_bits(&src));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The AVX-512 steps then the scalar rest give what the scalar encoder alone gives,
        /// byte for byte, into an exact destination and into a bounded one: header text
        /// (short codes), text with a long code now and then (a step falls back), any octets.
        #[test]
        #[cfg(target_arch = "x86_64")]
        fn vector_steps_encode_like_the_scalar_encoder(
            src in proptest::collection::vec(
                proptest::prop_oneof![
                    12 => 0x20u8..0x7f,
                    1 => proptest::prelude::any::<u8>(),
                ],
                0..400,
            ),
            slack in -20isize..80,
        ) {
            if blocks::available() {
                let code = encode(&src);
                let mut scalar = vec![0u8; code.len()];
                encode_into_from(&src, &mut scalar, Progress::default()).unwrap();
                let mut dst = vec![0u8; code.len()];
                // SAFETY: the CPU has the features, checked just above.
                let from = unsafe { blocks::encode_blocks(&src, &mut dst) };
                proptest::prop_assert!(from.bits < 8 && from.i <= src.len());
                encode_into_from(&src, &mut dst, from).unwrap();
                proptest::prop_assert_eq!(&dst, &scalar);
                let room = (code.len() as isize + slack).max(0) as usize;
                let mut bounded = vec![0u8; room];
                // SAFETY: as above.
                let from = unsafe { blocks::encode_blocks(&src, &mut bounded) };
                let n = encode_within_from(&src, &mut bounded, from);
                proptest::prop_assert_eq!(n, (code.len() <= room).then_some(code.len()));
                if n.is_some() {
                    proptest::prop_assert_eq!(&bounded[..code.len()], &scalar[..]);
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Short strings, joined in one or two registers and stored whole, encode as the loop
        /// does; a destination one octet off either way is refused (`encode_into`) or too
        /// short (`encode_within`), and one octet more is enough.
        #[test]
        fn joined_codes_encode_like_the_loop(
            src in proptest::collection::vec(
                proptest::prop_oneof![12 => 0x20u8..0x7f, 1 => proptest::prelude::any::<u8>()],
                0..=JOINED_HALVES_MAX + 2,
            ),
        ) {
            let n = encoded_len(&src);
            let mut looped = vec![0u8; n];
            encode_into_from(&src, &mut looped, Progress::default()).unwrap();
            let mut dst = vec![0u8; n];
            encode_into(&src, &mut dst).unwrap();
            proptest::prop_assert_eq!(&dst, &looped);
            let mut longer = vec![0u8; n + 1];
            proptest::prop_assert!(encode_into(&src, &mut longer).is_err());
            proptest::prop_assert_eq!(encode_within(&src, &mut longer), Some(n));
            proptest::prop_assert_eq!(&longer[..n], &looped[..]);
            if n > 0 {
                let mut shorter = vec![0u8; n - 1];
                proptest::prop_assert!(encode_into(&src, &mut shorter).is_err());
                proptest::prop_assert_eq!(encode_within(&src, &mut shorter), None);
            }
        }
    }

    proptest::proptest! {
        /// The one-pass encoder gives the encoding and its length when it fits the room and
        /// `None` when it does not, whatever the room.
        #[test]
        fn encode_within_fits_exactly_when_the_encoding_does(
            src in proptest::collection::vec(
                proptest::prop_oneof![8 => 0x20u8..0x7f, 2 => proptest::prelude::any::<u8>()],
                0..300,
            ),
            slack in -40isize..8,
        ) {
            let code = encode(&src);
            let room = (code.len() as isize + slack).max(0) as usize;
            let fits = (code.len() <= room).then_some(code.len());
            let mut dst = vec![0u8; room];
            proptest::prop_assert_eq!(encode_within(&src, &mut dst), fits);
            if fits.is_some() {
                proptest::prop_assert_eq!(&dst[..code.len()], &code[..]);
            }
        }
    }

    /// Header values of 13 to 16 octets of text take the two-register path (a change that
    /// sent them back to the loop would still encode them right).
    #[test]
    fn header_sized_text_is_joined_in_halves() {
        for s in [
            &b"gzip, deflate"[..],
            b"www.example.com",
            b"application/json",
        ] {
            let [hi, lo] = joined_halves(s).expect("two registers hold it");
            assert!(joined(s).is_none() && hi.1 + lo.1 > 64, "{s:?}");
        }
    }

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
    fn every_step_entry_matches_the_canonical_decoder() {
        let (c, t) = (canonical(), &*TABLES);
        for (idx, &step) in t.step.iter().enumerate() {
            let window = (idx as u64) << (64 - STEP_BITS);
            let first = c.decode_one(window, STEP_BITS);
            match first {
                Some((sym, len)) if sym as usize != EOS && len <= SYMBOL_BITS => {
                    let second = c
                        .decode_one(window << len, STEP_BITS - len)
                        .filter(|&(s, l)| s as usize != EOS && l <= SYMBOL_BITS);
                    let (count, used) = match second {
                        Some((_, len2)) => (2, len + len2),
                        None => (1, len),
                    };
                    assert_eq!((step >> 24, step & 63), (count, used), "{idx:#x}");
                    assert_eq!((step >> 8) as u8, sym as u8, "{idx:#x}: first symbol");
                    if let Some((sym2, _)) = second {
                        assert_eq!((step >> 16) as u8, sym2 as u8, "{idx:#x}: second symbol");
                    }
                }
                _ => assert_eq!(step, 0, "{idx:#x}: long code or EOS"),
            }
        }
    }

    #[test]
    fn every_symbol_entry_matches_the_canonical_decoder() {
        let (c, t) = (canonical(), &*TABLES);
        for (idx, &entry) in t.symbol.iter().enumerate() {
            let window = (idx as u64) << (64 - SYMBOL_BITS);
            match c.decode_one(window, SYMBOL_BITS) {
                Some((sym, len)) if sym as usize != EOS => {
                    assert_eq!((entry & 0xff, u32::from(entry >> 8)), (sym, len));
                }
                _ => {}
            }
        }
    }

    #[test]
    fn every_long_entry_is_settled_by_its_index_whatever_follows() {
        let (c, t) = (canonical(), &*TABLES);
        for (idx, &entry) in t.long.iter().enumerate() {
            let ones = idx as u32 >> TAIL_BITS;
            let (sym, len) = (entry & 0x1ff, u32::from(entry >> 9));
            // The index covers the whole code: the bits after it cannot change the symbol.
            assert!(
                ones == MAX_ONES || len <= ones + 1 + TAIL_BITS,
                "{idx}: {len} bits"
            );
            let prefix = !(u64::MAX >> ones) | ((idx as u64 & 63) << (64 - ones - 1 - TAIL_BITS));
            for follow in [0, u64::MAX, 0x5555_5555_5555_5555, 0xaaaa_aaaa_aaaa_aaaa] {
                let keep = ones + 1 + TAIL_BITS;
                let window = if keep >= 64 {
                    prefix
                } else {
                    prefix | (follow >> keep)
                };
                assert_eq!(c.decode_one(window, 30), Some((sym, len)), "{idx}");
            }
        }
    }

    #[test]
    fn every_code_decodes_alone_and_after_every_other() {
        for a in 0..256u16 {
            for b in [0u16, 1, 48, 97, 255, a] {
                let src = [a as u8, b as u8];
                let mut out = vec![7];
                decode(&encode(&src), &mut out).unwrap();
                assert_eq!(out, [7, a as u8, b as u8]);
            }
        }
    }

    /// [`decode`] without the split: one decoding from the first octet to the last.
    fn decode_one_lane(src: &[u8], dst: &mut Vec<u8>) -> Result<(), HuffmanError> {
        dst.reserve(src.len() * 8 / 5 + 2);
        let mut d = Decoding::at(src, 0, dst.spare_capacity_mut().as_mut_ptr().cast());
        d.bulk()?;
        d.tail()?;
        // SAFETY: as in `Decoding::run`.
        unsafe { dst.set_len(dst.len() + d.written) };
        Ok(())
    }

    /// Octets from a fixed generator: `kind` 0 header-like text, 1 any octet, 2 text with an
    /// octet above 0x7F (a long code) now and then.
    fn octets(kind: u32, len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let r = (x >> 32) as u8;
                match kind {
                    0 => b"abcdefghijklmnopqrstuvwxyz0123456789/.;=-_ ()ABCXYZ,"[r as usize % 52],
                    1 => r,
                    _ if r < 16 => r | 0x80,
                    _ => 0x20 + r % 0x5F,
                }
            })
            .collect()
    }

    /// Split strings decode as one decoding from the start does, octet for octet and error
    /// for error: encoded text of every kind and length around the split, cut short or with a
    /// stray octet after, and arbitrary octets (where the second half's guess is often wrong).
    #[test]
    fn split_decoding_matches_one_lane() {
        let mut joined = 0;
        let mut split = 0;
        for len in (SPLIT_FROM / 2..260).chain([400, 1000]) {
            for seed in 0..12u64 {
                for kind in 0..3 {
                    let text = octets(kind, len, seed * 3 + u64::from(kind));
                    let code = encode(&text);
                    for variant in 0..4 {
                        let mut src = code.clone();
                        match variant {
                            0 => {}
                            1 => src.truncate(src.len().saturating_sub(1)),
                            2 => src.push((seed * 37) as u8),
                            _ => src = octets(1, code.len(), seed + 1000),
                        }
                        let (mut a, mut b) = (vec![9], vec![9]);
                        let before = JOINS.get();
                        let ra = decode(&src, &mut a);
                        let rb = decode_one_lane(&src, &mut b);
                        assert_eq!(ra, rb, "{kind} {len} {seed} {variant}");
                        assert_eq!(a, if ra.is_ok() { b } else { vec![9] });
                        if variant == 0 {
                            assert_eq!(ra, Ok(()));
                            assert_eq!(a[1..], text[..]);
                            if src.len() >= SPLIT_FROM && kind == 0 {
                                split += 1;
                                joined += JOINS.get() - before;
                            }
                        }
                    }
                }
            }
        }
        // Random letters resynchronise: the halves meet in most strings (84 % at 128 bits).
        assert!(
            joined * 100 >= split * 80,
            "{joined} of {split} split strings joined"
        );
    }

    /// The halves of header values meet (when they do not, the split costs time).
    #[test]
    fn split_header_values_join() {
        for text in [
            &b"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"[..],
            b"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0",
            b"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
            b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
            b"session=8f14e45fceea167a5a36dedd4bea2543; theme=dark; _ga=GA1.2.1234567.1700000000",
            b"/search/results?q=rust+hpack+huffman&page=2&sort=relevance&lang=en-US&utm_source=newsletter",
            b"https://www.example.com/articles/2026/12/06/the-long-title-of-an-article-with-words",
            b"https://www.example.org/articles/2023/12/how-to-decode-hpack",
            b"/static/js/vendor.bundle.min.js?v=20231204a1b2c",
            b"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
            b"session=4f2a9c1e7b3d8a6f; theme=dark; lang=en-US; _ga=GA1.2.1234567",
        ] {
            let code = encode(text);
            assert!(code.len() >= SPLIT_FROM, "{}", code.len());
            let before = JOINS.get();
            let mut out = Vec::new();
            decode(&code, &mut out).unwrap();
            assert_eq!(out, text);
            assert_eq!(JOINS.get(), before + 1, "{:?}", std::str::from_utf8(text));
        }
    }

    #[test]
    fn tables_take_76_kib() {
        // The step table's 64 KiB, the symbol table's 8 and the long table's 4 (rounded).
        assert_eq!(std::mem::size_of::<Tables>().div_ceil(1024), 76);
    }
}
