//! `String` ⇄ ISO-8859-1 (Latin-1) octets.
//!
//! HTTP/1.1 header values and HPACK string literals are octet strings. Servers that keep headers
//! as text convert them to octets on every request, so this conversion is one of the hottest
//! loops in a protocol stack.
//!
//! # Motivation / Change / Result
//!
//! *Motivation.* Pekko HTTP's `EnhancedString.getAsciiBytes` (and `asciiStringBytes`) converted a
//! header value one char at a time, with a bounds-checked store per char. The naive twin of this
//! module, `wirelab_baselines::latin1`, keeps that shape.
//!
//! *Change.* The original change copied the string in bulk (`String.getBytes(0, len, dst, off)`,
//! which keeps the low 8 bits of each char) into a fresh array, then into an existing buffer
//! without any temporary. Here an all-ASCII string of up to 64 bytes is checked and copied with
//! overlapping word moves (no loop, no call); text with other chars is, up to 128 bytes, one or
//! two blocks of the AVX-512 kernel with no call on the way, or under 64 bytes with AVX2 (from
//! 20 bytes) blocks of 16 stored exactly, or else narrowed a char at a time, the chars of
//! U+0080..U+00FF without decoding them. Longer text goes to a SIMD kernel that narrows UTF-8
//! to Latin-1 many chars at a time
//! (AVX-512 VBMI2: 64 bytes a step, `vpcompressb`; AVX2: 16 bytes a step, `pshufb`; the
//! `narrow` submodule), copying all-ASCII runs 256 bytes per branch; a block holding a char
//! above U+00FF goes char by char. Without those CPU features, an all-ASCII string is checked a
//! block at a time and copied with one `copy_from_slice`, and text with non-ASCII chars moves
//! 8 bytes per step, decoding only the non-ASCII chars, so a single `é` does not send the rest
//! of the string down a per-char loop.
//!
//! *Result.* The original measured 21.97 / 16.00 / 8.36 ns at 7 chars and 229.63 / 151.66 /
//! 26.86 ns at 1024 chars (about 8.5x). Our figures are in `reports/latin1.md`.
//!
//! # Semantics
//!
//! * [`encode_truncating_into`] / [`encode_truncating`]: each char becomes its low 8 bits
//!   (`'€'` U+20AC becomes `0xAC`), exactly like Java's deprecated `String.getBytes(int, int,
//!   byte[], int)` that the original used.
//! * [`encode_lossy`]: chars above U+00FF become `?` (what HPACK's `&str` entry points send).
//! * [`decode`]: each octet becomes the char with that code point, the exact inverse of
//!   [`encode_lossy`] on Latin-1 text.

mod narrow;

/// Length of the block that is tested for ASCII in one go. 32 bytes are two SSE2 vectors; the
/// loop below compiles to a load, an OR and a `movemask` per 16 bytes.
const BLOCK: usize = 32;

/// Text with a non-ASCII char at least this long (in bytes, under 64) goes through the AVX2
/// kernel's exact blocks of 16; shorter text a char at a time. Measured on a Zen 3 (German
/// and French text, about 9 % non-ASCII, min of 300 batches): a block costs about 12.6 ns
/// for up to 16 bytes and 4-5 ns more for each further 16; the char loop about 1.1 ns a char
/// (10.2 ns at 10 bytes, 17.0 ns at 19, 23.1 ns at 24, where the blocks take 17.6 ns).
const SHORT_BLOCKS_FROM: usize = 20;

/// Returns the length of the longest ASCII prefix of `bytes`.
///
/// Logically equivalent to `bytes.iter().position(|b| *b >= 0x80).unwrap_or(bytes.len())`,
/// but tests a block of [`BLOCK`] bytes per step.
#[inline]
fn ascii_prefix_len(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(BLOCK);
    let mut done = 0;
    for chunk in &mut chunks {
        if chunk.iter().fold(0u8, |acc, b| acc | b) >= 0x80 {
            break;
        }
        done += BLOCK;
    }
    done + bytes[done..]
        .iter()
        .position(|b| *b >= 0x80)
        .unwrap_or(bytes.len() - done)
}

/// The kernels this module picks on this CPU (only with the `lab` feature): the narrowing and
/// ASCII-copy kernel (`avx512-vbmi2`, `avx2` or `portable`) and the long ASCII check (`avx2`
/// or `portable`). The lab records them natively and under valgrind, which hides AVX-512.
#[cfg(feature = "lab")]
pub fn kernels() -> [(&'static str, &'static str); 2] {
    let narrow = match narrow::Kernel::detect() {
        #[cfg(target_arch = "x86_64")]
        Some(narrow::Kernel::Avx512) => "avx512-vbmi2",
        #[cfg(target_arch = "x86_64")]
        Some(narrow::Kernel::Avx2) => "avx2",
        None => "portable",
    };
    #[cfg(target_arch = "x86_64")]
    let check = if std::is_x86_feature_detected!("avx2") {
        "avx2"
    } else {
        "portable"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let check = "portable";
    [("latin1 narrowing", narrow), ("latin1 ASCII check", check)]
}

/// Whether every byte of `bytes` is ASCII: an OR over all of them, without an early exit, so
/// that it compiles to wide vector loads (AVX2 where the CPU has it, SSE2 otherwise).
/// Below 256 bytes std's early-exit check is as fast and has less set-up.
#[inline]
fn all_ascii(bytes: &[u8]) -> bool {
    if bytes.len() < 256 {
        return bytes.is_ascii();
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { all_ascii_avx2(bytes) };
        }
    }
    or_all(bytes) < 0x80
}

#[inline(always)]
fn or_all(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |acc, b| acc | b)
}

/// [`all_ascii`] compiled for AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn all_ascii_avx2(bytes: &[u8]) -> bool {
    or_all(bytes) < 0x80
}

/// Decodes the non-ASCII UTF-8 sequence that starts at `bytes[0]` (a lead byte, `>= 0xC0`).
/// Returns the code point and the sequence length. `bytes` comes from a `&str`, so the sequence
/// is well-formed and complete.
#[inline]
fn decode_multibyte(bytes: &[u8]) -> (u32, usize) {
    let lead = u32::from(bytes[0]);
    let cont = |i: usize| u32::from(bytes[i] & 0x3F);
    if lead < 0xE0 {
        (((lead & 0x1F) << 6) | cont(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            ((lead & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

/// High bit of every byte of a word.
const HIGH: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn load8(src: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(src[at..at + 8].try_into().expect("8 bytes"))
}

#[inline(always)]
fn load4(src: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(src[at..at + 4].try_into().expect("4 bytes"))
}

/// Copies a short (at most 16 bytes) all-ASCII `src` into `dst` (which has room for it) with
/// two overlapping word loads and stores and no loop; `None` if `src` is not all ASCII.
#[inline(always)]
fn small_ascii(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let n = src.len();
    if n >= 8 {
        let (a, b) = (load8(src, 0), load8(src, n - 8));
        if (a | b) & HIGH != 0 {
            return None;
        }
        dst[..8].copy_from_slice(&a.to_le_bytes());
        dst[n - 8..n].copy_from_slice(&b.to_le_bytes());
    } else if n >= 4 {
        let (a, b) = (load4(src, 0), load4(src, n - 4));
        if (a | b) & 0x8080_8080 != 0 {
            return None;
        }
        dst[..4].copy_from_slice(&a.to_le_bytes());
        dst[n - 4..n].copy_from_slice(&b.to_le_bytes());
    } else {
        if src.iter().any(|b| *b >= 0x80) {
            return None;
        }
        dst[..n].copy_from_slice(src);
    }
    Some(n)
}

/// The shared engine: narrows UTF-8 to one octet per char, mapping each char above U+00FF
/// through `map`, stopping when `dst` is full. Returns the number of octets written.
///
/// Paths, where `dst` holds every char: an all-ASCII string of up to 64 bytes is checked and
/// copied with overlapping word moves (16 bytes each from 17 bytes on); other text up to 128
/// bytes is one or two blocks of the AVX-512 kernel, and under 64 bytes the AVX2 kernel's exact
/// blocks of 16 (from [`SHORT_BLOCKS_FROM`] bytes), or else narrowed a char at a time, the
/// chars of U+0080..U+00FF without decoding ([`short_text`]). Longer, with AVX2 or AVX-512,
/// the string's ASCII start is copied a block at a time (all of an ASCII string, which then
/// returns), and a SIMD kernel ([`narrow`]) narrows the rest many chars a step; blocks with
/// chars above U+00FF go char by char. Below 64 bytes the AVX2 kernel's set-up costs more than
/// it saves. Without a kernel, a long all-ASCII string is one
/// `copy_from_slice`. What remains (and a `dst` too short for every char) continues a word
/// (8 bytes) at a time, storing each word unconditionally and advancing past its ASCII bytes,
/// so a short ASCII run between two accented letters costs a few instructions, not a call.
#[inline]
fn encode_with(s: &str, dst: &mut [u8], map: impl Fn(u32) -> u8) -> usize {
    let src = s.as_bytes();
    let kernel = || narrow::Kernel::detected();
    if src.len() > 64 && src.len() <= dst.len() {
        return match kernel() {
            Some(kernel) => long(src, dst, map, kernel),
            None => encode_detecting(src, dst, map),
        };
    }
    if let Some(n) = short_ascii_whole(src, dst) {
        return n;
    }
    match kernel() {
        Some(kernel) => encode_not_short_ascii(src, dst, map, kernel),
        None => encode_detecting(src, dst, map),
    }
}

/// [`encode_with`] the first time: looks up the kernel (out of line, so that the entry calls
/// nothing before its work and saves no registers).
#[cold]
#[inline(never)]
fn encode_detecting(src: &[u8], dst: &mut [u8], map: impl Fn(u32) -> u8) -> usize {
    encode_not_short_ascii(src, dst, map, narrow::Kernel::detect())
}

/// [`encode_with`] with the SIMD kernel chosen by the caller (tests run each one).
#[cfg(test)]
fn encode_with_kernel(
    s: &str,
    dst: &mut [u8],
    map: impl Fn(u32) -> u8,
    kernel: Option<narrow::Kernel>,
) -> usize {
    let src = s.as_bytes();
    match short_ascii_whole(src, dst) {
        Some(n) => n,
        None => encode_not_short_ascii(src, dst, map, kernel),
    }
}

/// An all-ASCII `src` of at most 64 bytes that `dst` holds whole, copied without a loop or a
/// call ([`small_ascii`] up to 16 bytes, [`short_ascii`] above); `None` (nothing written)
/// otherwise. It comes before the kernel is looked up: the ASCII header values it copies
/// take a few instructions and branches, as a `memcpy` call does.
#[inline(always)]
fn short_ascii_whole(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    if src.len() > 64 || src.len() > dst.len() {
        return None;
    }
    if src.len() > 16 {
        return short_ascii(src, dst);
    }
    small_ascii(src, dst)
}

/// What [`short_ascii_whole`] did not copy, with `kernel`.
///
/// Only the entry is inlined, and it calls nothing but in tail position: what it cannot
/// finish goes to the kernel's short path, its ASCII copy (then the kernel), [`portable`] or
/// [`words_from`]. So it saves no registers: pushes right after a long copy wait for the
/// copy's stores to drain (measured: 2-3 ns on top of a 9 ns copy of 1 KiB).
#[inline(always)]
fn encode_not_short_ascii(
    src: &[u8],
    dst: &mut [u8],
    map: impl Fn(u32) -> u8,
    kernel: Option<narrow::Kernel>,
) -> usize {
    if src.len() > dst.len() {
        return words_from(src, dst, (0, 0), map);
    }
    if src.len() >= 64 {
        return long(src, dst, map, kernel);
    }
    short_text(src, dst, map, kernel)
}

/// Text under 64 bytes with a char above U+007F, which `dst` holds whole: one masked block of
/// the AVX-512 kernel, or from [`SHORT_BLOCKS_FROM`] bytes the AVX2 kernel's exact blocks of 16
/// ([`short_blocks`]); otherwise [`short_chars`].
#[inline(always)]
fn short_text(
    src: &[u8],
    dst: &mut [u8],
    map: impl Fn(u32) -> u8,
    kernel: Option<narrow::Kernel>,
) -> usize {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Some(narrow::Kernel::Avx2) if src.len() < SHORT_BLOCKS_FROM => short_chars(src, dst, map),
        #[cfg(target_arch = "x86_64")]
        Some(kernel @ narrow::Kernel::Avx2) => short_blocks(src, dst, kernel, map),
        // AVX-512: the kernel's one block, a tail call with nothing saved.
        Some(kernel) => short_blocks_inline(src, dst, kernel, map),
        None => short_chars(src, dst, map),
    }
}

/// Short text through the kernel's short path; what follows a char above U+00FF goes on a
/// word at a time ([`words_from`]).
#[inline(always)]
fn short_blocks_inline(
    src: &[u8],
    dst: &mut [u8],
    kernel: narrow::Kernel,
    map: impl Fn(u32) -> u8,
) -> usize {
    kernel.short_then(src, dst, move |src, dst, at| words_from(src, dst, at, map))
}

/// [`short_blocks_inline`] out of line, so that its callers save no registers.
#[inline(never)]
fn short_blocks(
    src: &[u8],
    dst: &mut [u8],
    kernel: narrow::Kernel,
    map: impl Fn(u32) -> u8,
) -> usize {
    short_blocks_inline(src, dst, kernel, map)
}

/// A string of 64 bytes or more that `dst` holds whole: with AVX-512 up to 128 bytes the
/// kernel's short path; longer, the kernel's ASCII copy, then [`narrow_rest`]; without a
/// kernel, [`portable`].
#[inline(always)]
fn long(
    src: &[u8],
    dst: &mut [u8],
    map: impl Fn(u32) -> u8,
    kernel: Option<narrow::Kernel>,
) -> usize {
    match kernel {
        None => portable(src, dst, map),
        // AVX-512 up to 128 bytes: two blocks, without the ASCII copy's set-up.
        Some(kernel) if src.len() <= kernel.short_limit() => {
            short_blocks_inline(src, dst, kernel, map)
        }
        Some(kernel) => kernel.copy_ascii_then(src, dst, move |src, dst, ascii, kernel| {
            narrow_rest(src, dst, ascii, kernel, map)
        }),
    }
}

/// After the ASCII start `src[..i]` that `dst` holds: the kernel to the end, and
/// [`narrow_from`] past each block with a char above U+00FF. Out of line, so that the ASCII
/// copy calls it in tail position and saves no registers.
#[inline(never)]
fn narrow_rest(
    src: &[u8],
    dst: &mut [u8],
    i: usize,
    kernel: narrow::Kernel,
    map: impl Fn(u32) -> u8,
) -> usize {
    kernel.run_then(src, dst, (i, i), move |src, dst, at| {
        narrow_from(src, dst, at, kernel, map)
    })
}

/// Copies an all-ASCII `src` of 16 to 64 bytes into `dst` (which has room for it): checks
/// every byte first with four 16-byte loads (at 0, 16, 32 and `len - 16`, each moved back to
/// end by `len`, so they overlap), then stores them; `None` (nothing written) if `src` is not
/// all ASCII.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn short_ascii(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_storeu_si128,
    };
    let n = src.len();
    assert!((16..=64).contains(&n) && n <= dst.len());
    let at = |k: usize| (16 * k).min(n - 16);
    // SAFETY: every load and store is of 16 bytes at `at(k) <= n - 16`, within `src` and
    // `dst` (`n <= dst.len()`, asserted); `loadu` and `storeu` take any alignment; SSE2 is
    // part of x86-64.
    unsafe {
        let w: [__m128i; 4] =
            std::array::from_fn(|k| _mm_loadu_si128(src.as_ptr().add(at(k)).cast()));
        let any = _mm_or_si128(_mm_or_si128(w[0], w[1]), _mm_or_si128(w[2], w[3]));
        if _mm_movemask_epi8(any) != 0 {
            return None;
        }
        for (k, word) in w.iter().enumerate() {
            _mm_storeu_si128(dst.as_mut_ptr().add(at(k)).cast(), *word);
        }
    }
    Some(n)
}

/// [`short_ascii`] elsewhere: a check, then one copy.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn short_ascii(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    src.is_ascii().then(|| {
        dst[..src.len()].copy_from_slice(src);
        src.len()
    })
}

/// Narrows a short string (under 64 bytes) that `dst` holds whole, a char at a time: ASCII
/// bytes as they are, and the two-byte sequences of U+0080..U+00FF (lead byte `0xC2` or
/// `0xC3`) without decoding: the char's 8 bits are the lead's low 2 and the continuation's
/// low 6. At the first char above U+00FF it hands over to [`words_from`] (in tail position,
/// so that this loop calls nothing and saves no registers).
#[inline(never)]
fn short_chars(src: &[u8], dst: &mut [u8], map: impl Fn(u32) -> u8) -> usize {
    let (mut i, mut o) = (0, 0);
    while i < src.len() && o < dst.len() {
        let b = src[i];
        if b < 0x80 {
            dst[o] = b;
            i += 1;
        } else if b < 0xC4 {
            dst[o] = (b << 6) | (src[i + 1] & 0x3F);
            i += 2;
        } else {
            return words_from(src, dst, (i, o), map);
        }
        o += 1;
    }
    o
}

/// Goes on from `at`, in front of a block with a char above U+00FF where a kernel stopped:
/// that block char by char, then `kernel` again, to the end.
#[inline(never)]
fn narrow_from(
    src: &[u8],
    dst: &mut [u8],
    (i, o): (usize, usize),
    kernel: narrow::Kernel,
    map: impl Fn(u32) -> u8,
) -> usize {
    let (mut i, mut o) = chars_until(src, dst, (i, o), i + narrow::BLOCK_LIMIT, &map);
    while kernel.run(src, dst, &mut i, &mut o) == narrow::Stop::Wide {
        (i, o) = chars_until(src, dst, (i, o), i + narrow::BLOCK_LIMIT, &map);
    }
    // A kernel ends with an exact block: nothing is left.
    debug_assert_eq!(i, src.len());
    o
}

/// Without a SIMD kernel (or below 64 bytes): an all-ASCII string is one memcpy; otherwise its
/// ASCII start is, and the rest goes a word at a time.
#[inline(never)]
fn portable(src: &[u8], dst: &mut [u8], map: impl Fn(u32) -> u8) -> usize {
    if all_ascii(src) {
        dst[..src.len()].copy_from_slice(src);
        return src.len();
    }
    let i = ascii_prefix_len(src);
    dst[..i].copy_from_slice(&src[..i]);
    words_from(src, dst, (i, i), map)
}

/// Narrows `src[i..]` into `dst[o..]` a word (8 bytes) at a time, storing each word
/// unconditionally and advancing past its ASCII bytes, so a short ASCII run between two
/// accented letters costs a few instructions, not a call; the last bytes char by char.
#[inline(never)]
fn words_from(
    src: &[u8],
    dst: &mut [u8],
    (mut i, mut o): (usize, usize),
    map: impl Fn(u32) -> u8,
) -> usize {
    loop {
        // At least 40 input bytes remain, so at least 8 more chars will be written after this
        // step: the stray bytes a word store leaves past the new end are always overwritten.
        while i + 40 <= src.len() && o + 8 <= dst.len() {
            let w = load8(src, i);
            dst[o..o + 8].copy_from_slice(&w.to_le_bytes());
            let high = w & HIGH;
            if high == 0 {
                i += 8;
                o += 8;
                continue;
            }
            // The bytes after the first non-ASCII one were stored too; they are overwritten.
            let ascii = (high.trailing_zeros() / 8) as usize;
            (i, o) = put_char(src, dst, (i + ascii, o + ascii), &map);
        }
        if i >= src.len() || o >= dst.len() {
            return o;
        }
        (i, o) = put_char(src, dst, (i, o), &map);
    }
}

/// Writes the char at `src[i]` (a char boundary) to `dst[o]`; returns the positions after it.
#[inline(always)]
fn put_char(
    src: &[u8],
    dst: &mut [u8],
    (i, o): (usize, usize),
    map: impl Fn(u32) -> u8,
) -> (usize, usize) {
    let b = src[i];
    if b < 0x80 {
        dst[o] = b;
        (i + 1, o + 1)
    } else {
        let (cp, n) = decode_multibyte(&src[i..]);
        dst[o] = map(cp);
        (i + n, o + 1)
    }
}

/// Writes chars one at a time from `src[i..]` until `until` (or the end); `dst` holds them.
#[inline]
fn chars_until(
    src: &[u8],
    dst: &mut [u8],
    (mut i, mut o): (usize, usize),
    until: usize,
    map: impl Fn(u32) -> u8,
) -> (usize, usize) {
    let until = until.min(src.len());
    while i < until {
        (i, o) = put_char(src, dst, (i, o), &map);
    }
    (i, o)
}

/// Writes the low 8 bits of each char of `s` into `dst` and returns the number of octets
/// written: `min(s.chars().count(), dst.len())`.
///
/// Logically equivalent to
/// `for (d, c) in dst.iter_mut().zip(s.chars()) { *d = c as u8 }` (the naive twin,
/// `wirelab_baselines::latin1::encode_truncating_into`), but ASCII runs are copied in bulk.
///
/// ```
/// let mut buf = [0u8; 8];
/// let n = wirelab::latin1::encode_truncating_into("10 €", &mut buf);
/// assert_eq!(&buf[..n], b"10 \xAC");
/// ```
pub fn encode_truncating_into(s: &str, dst: &mut [u8]) -> usize {
    encode_with(s, dst, |cp| cp as u8)
}

/// Allocating form of [`encode_truncating_into`]: one octet per char, the low 8 bits.
///
/// Naive twin: `wirelab_baselines::latin1::encode_truncating`.
///
/// ```
/// assert_eq!(wirelab::latin1::encode_truncating("café"), b"caf\xE9");
/// ```
pub fn encode_truncating(s: &str) -> Vec<u8> {
    let mut out = vec![0u8; s.len()];
    let n = encode_truncating_into(s, &mut out);
    out.truncate(n);
    out
}

/// Writes `s` into `dst` as ISO-8859-1, replacing chars above U+00FF with `?`; returns the
/// number of octets written, `min(s.chars().count(), dst.len())`.
///
/// Naive twin: `wirelab_baselines::latin1::encode_lossy_into`.
///
/// ```
/// let mut buf = [0u8; 4];
/// let n = wirelab::latin1::encode_lossy_into("a€b", &mut buf);
/// assert_eq!(&buf[..n], b"a?b");
/// ```
pub fn encode_lossy_into(s: &str, dst: &mut [u8]) -> usize {
    encode_with(s, dst, |cp| if cp <= 0xFF { cp as u8 } else { b'?' })
}

/// Encodes `s` as ISO-8859-1, replacing chars above U+00FF with `?`.
///
/// ```
/// assert_eq!(wirelab::latin1::encode_lossy("café €5"), b"caf\xE9 ?5");
/// ```
///
/// Naive twin: `wirelab_baselines::latin1::encode_lossy`.
pub fn encode_lossy(s: &str) -> Vec<u8> {
    let mut out = vec![0u8; s.len()];
    let n = encode_lossy_into(s, &mut out);
    out.truncate(n);
    out
}

/// Returns the number of chars in `s` that [`encode_lossy`] would replace with `?`.
///
/// ```
/// assert_eq!(wirelab::latin1::count_unmappable("café €5 ✓"), 2);
/// ```
pub fn count_unmappable(s: &str) -> usize {
    let src = s.as_bytes();
    let mut i = 0;
    let mut n = 0;
    while i < src.len() {
        i += ascii_prefix_len(&src[i..]);
        if i < src.len() {
            let (cp, len) = decode_multibyte(&src[i..]);
            n += usize::from(cp > 0xFF);
            i += len;
        }
    }
    n
}

/// Decodes ISO-8859-1 octets: each octet becomes the char with the same code point.
///
/// Logically equivalent to `bytes.iter().map(|&b| b as char).collect::<String>()` (the naive
/// twin, `wirelab_baselines::latin1::decode`), but ASCII runs are copied in bulk.
///
/// ```
/// assert_eq!(wirelab::latin1::decode(b"caf\xE9"), "café");
/// ```
pub fn decode(bytes: &[u8]) -> String {
    let high = bytes.iter().filter(|b| **b >= 0x80).count();
    let mut out = Vec::with_capacity(bytes.len() + high);
    let mut i = 0;
    while i < bytes.len() {
        let run = ascii_prefix_len(&bytes[i..]);
        out.extend_from_slice(&bytes[i..i + run]);
        i += run;
        if let Some(&b) = bytes.get(i) {
            // U+0080..U+00FF is the two-byte UTF-8 sequence 110000xx 10xxxxxx.
            out.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)]);
            i += 1;
        }
    }
    // SAFETY: `out` holds ASCII bytes copied from ASCII runs and, for every other octet, the
    // well-formed two-byte UTF-8 encoding of U+0080..U+00FF built just above, so it is UTF-8.
    unsafe { String::from_utf8_unchecked(out) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_prefix_len_matches_position() {
        let mut v = vec![b'a'; 100];
        for i in 0..100 {
            v[i] = 0xC3;
            assert_eq!(ascii_prefix_len(&v), i);
            v[i] = b'a';
        }
        assert_eq!(ascii_prefix_len(&v), 100);
        assert_eq!(ascii_prefix_len(&[]), 0);
    }

    proptest::proptest! {
        // Stray stores show only where a string ends just after a kernel's step: many cases.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Every kernel end to end (stray stores, wide blocks, the scalar tail) against the
        /// chars one by one, with destinations that hold every char or fall short.
        #[test]
        fn every_kernel_encodes_like_the_chars(
            chars in proptest::collection::vec(proptest::prop_oneof![
                6 => 0x20u32..0x7F, 3 => 0x80u32..0x100, 1 => 0x100u32..0x800,
                1 => 0x800u32..0xD800, 1 => 0x10000u32..0x110000], 0..700),
            spare in 0usize..20,
            short in 0usize..3,
            latin1_only in proptest::prelude::any::<bool>(),
        ) {
            let low = if latin1_only { 0xFF } else { u32::MAX };
            let s: String = chars.iter().filter_map(|&c| char::from_u32(c & low)).collect();
            let want: Vec<u8> = s.chars().map(|c| c as u8).collect();
            let cap = if short == 0 { want.len() / 2 } else { s.len() + spare };
            for kernel in narrow::tests::kernels().into_iter().map(Some).chain([None]) {
                let mut buf = vec![0x55u8; cap];
                let n = encode_with_kernel(&s, &mut buf, |cp| cp as u8, kernel);
                proptest::prop_assert_eq!(&buf[..n], &want[..n.min(want.len())], "{:?}", kernel);
                proptest::prop_assert_eq!(n, cap.min(want.len()));
                proptest::prop_assert!(buf[n..].iter().all(|&b| b == 0x55), "{:?}", kernel);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Short strings (the word copies, the char loop and the kernels' short paths, up to
        /// 128 bytes with AVX-512): every kernel against the chars one by one, into a
        /// destination that holds them or more.
        #[test]
        fn short_strings_encode_like_the_chars(
            chars in proptest::collection::vec(proptest::prop_oneof![
                8 => 0x20u32..0x7F, 3 => 0x80u32..0x100, 1 => 0x100u32..0x800,
                1 => 0x800u32..0xD800, 1 => 0x10000u32..0x110000], 0..64),
            spare in 0usize..4,
        ) {
            let s: String = chars.iter().filter_map(|&c| char::from_u32(c)).collect();
            let want: Vec<u8> = s.chars().map(|c| c as u8).collect();
            for kernel in narrow::tests::kernels().into_iter().map(Some).chain([None]) {
                let mut buf = vec![0x55u8; s.len() + spare];
                let n = encode_with_kernel(&s, &mut buf, |cp| cp as u8, kernel);
                proptest::prop_assert_eq!(&buf[..n], &want[..], "{:?}", kernel);
                proptest::prop_assert!(buf[n..].iter().all(|&b| b == 0x55), "{:?}", kernel);
            }
        }
    }

    #[test]
    fn decode_multibyte_all_lengths() {
        for c in ['é', 'ÿ', '\u{100}', '€', '\u{FFFF}', '😀', '\u{10FFFF}'] {
            let s = c.to_string();
            assert_eq!(decode_multibyte(s.as_bytes()), (c as u32, s.len()));
        }
    }
}
