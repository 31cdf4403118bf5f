//! SIMD narrowing of UTF-8 to Latin-1: many chars per step instead of one.
//!
//! A `&str` is valid UTF-8, so nothing needs validating. A char up to U+00FF is either one
//! ASCII byte or the lead `0xC2`/`0xC3` followed by one continuation byte `10xxxxxx`, and that
//! continuation byte is already the char's Latin-1 octet (U+0080..U+00BF) or is 0x40 below it
//! (after 0xC3: U+00C0..U+00FF). A kernel therefore adds 0x40 where the byte before is 0xC3,
//! keeps ASCII and continuation bytes, drops lead bytes, and packs what it keeps to the front.
//!
//! * AVX-512 (VBMI2): 64 bytes a step; `vpcompressb` packs them, masked loads and stores
//!   handle the end exactly, so the whole string goes through the kernel. Text up to 128
//!   bytes takes a short path of one or two blocks with no call (which bytes follow a 0xC3
//!   comes from a mask shifted by one lane, as simdutf does), its last block loaded and
//!   stored 16 or 32 bytes wide when that holds it (VL), so that a short string and its
//!   output close by in memory do not wait on each other. The main loop issues eight
//!   operations a block to the two ports that run 512-bit work (the compare for wide chars,
//!   the keep mask, the 0xC3 compare, the masked add, `vpcompressb`'s two, the mask test and
//!   the mask move for the count).
//! * AVX2 (the common denominator; also what runs under valgrind, which hides AVX-512): 16 bytes
//!   a step, packed as two halves of 8 with `pshufb` and a 2 KiB table. The main loop's 8-byte
//!   stores run past the packed octets, so it stops 48 bytes before the end; the rest goes 16
//!   bytes a step with exact stores (the first and the last 8 packed octets, each by its own
//!   shuffle), the last block read as the string's last 16 bytes, or as two overlapping words
//!   when the string is shorter, with the lanes already done masked off. Short text (from 20
//!   bytes) goes straight to those exact blocks.
//!
//! A step whose bytes include a lead of a char above U+00FF (`>= 0xC4`) is not narrowed: the
//! kernel stops in front of it and the caller maps that block's chars one at a time.
//! Modelled on simdutf's `utf8_to_latin1` kernels; written for this crate.

use std::sync::atomic::{AtomicU8, Ordering};

/// Why a kernel returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// At the end of the input, or as near it as the kernel goes.
    End,
    /// In front of a block of [`BLOCK_LIMIT`] bytes or less that holds a char above U+00FF.
    Wide,
}

/// The longest block a kernel stops in front of with [`Stop::Wide`].
pub(super) const BLOCK_LIMIT: usize = 64;

/// A narrowing kernel the CPU can run.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kernel {
    /// 64 bytes a step with `vpcompressb`.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// 16 bytes a step with `pshufb`.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

/// What [`Kernel::detect`] found: 0 while not yet looked up, otherwise a code of
/// [`Kernel::look_up`].
static FOUND: AtomicU8 = AtomicU8::new(0);

impl Kernel {
    /// The fastest kernel this CPU runs, if any: found once, then read from a cache.
    #[inline]
    pub(super) fn detect() -> Option<Kernel> {
        Self::detected().unwrap_or_else(|| {
            let found = Self::look_up();
            FOUND.store(found, Ordering::Relaxed);
            Self::from_code(found)
        })
    }

    /// What [`detect`](Self::detect) found, or `None` before its first call: a load, with no
    /// call that would make its caller save registers.
    #[inline]
    pub(super) fn detected() -> Option<Option<Kernel>> {
        match FOUND.load(Ordering::Relaxed) {
            0 => None,
            found => Some(Self::from_code(found)),
        }
    }

    /// The kernel a code of [`look_up`](Self::look_up) names.
    #[inline]
    fn from_code(found: u8) -> Option<Kernel> {
        match found {
            #[cfg(target_arch = "x86_64")]
            1 => Some(Kernel::Avx512),
            #[cfg(target_arch = "x86_64")]
            2 => Some(Kernel::Avx2),
            _ => None,
        }
    }

    /// What [`detect`](Self::detect) caches: 1 AVX-512, 2 AVX2, 3 neither.
    #[cold]
    fn look_up() -> u8 {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512vbmi2")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vl")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("popcnt")
            {
                return 1;
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
                return 2;
            }
        }
        3
    }

    /// Copies the ASCII start of `src` into `dst` a block at a time: returns `src.len()` when
    /// `src` is all ASCII, otherwise what `rest` returns, given `src`, `dst`, how many bytes
    /// were copied (a char boundary at or before the first non-ASCII byte) and `self`.
    ///
    /// The entry's path for the commonest long input, all-ASCII text: a plain checked copy,
    /// without the narrowing kernel's state, and `rest` called last, so neither this nor its
    /// caller spills registers to a stack whose stores would queue behind the copy's.
    ///
    /// # Panics
    ///
    /// If `src` is shorter than 64 bytes or `dst` shorter than `src`.
    #[inline]
    pub(super) fn copy_ascii_then(
        self,
        src: &[u8],
        dst: &mut [u8],
        rest: impl FnOnce(&[u8], &mut [u8], usize, Kernel) -> usize,
    ) -> usize {
        assert!(src.len() >= 64 && dst.len() >= src.len());
        match self {
            // SAFETY: `detect` found the features each copy is compiled for, and the
            // assertion above is what the copies require of their arguments.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::copy_ascii_then_avx512(src, dst, rest) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::copy_ascii_then_avx2(src, dst, rest) },
        }
    }

    /// The longest `src` [`short_then`](Self::short_then) takes: two blocks of 64 with
    /// AVX-512; with AVX2 63 bytes (four blocks of 16 at most: from 64 bytes, text goes
    /// through the ASCII copy first).
    #[inline]
    pub(super) fn short_limit(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => 128,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => 63,
        }
    }

    /// Narrows a short `src` (at most [`short_limit`](Self::short_limit) bytes) into `dst`
    /// in one call: the number of octets written; in front of a block with a char above
    /// U+00FF, what `wide` returns, given `src`, `dst` and where it stopped (a char boundary,
    /// and the octets written up to it).
    ///
    /// AVX-512 takes `src` as one or two blocks, the last one masked, with no call on the
    /// way; AVX2 goes through its exact blocks of 16.
    ///
    /// # Panics
    ///
    /// If `src` is longer than the limit or `dst` shorter than `src` (it must hold every
    /// char).
    #[inline]
    pub(super) fn short_then(
        self,
        src: &[u8],
        dst: &mut [u8],
        wide: impl FnOnce(&[u8], &mut [u8], (usize, usize)) -> usize,
    ) -> usize {
        assert!(src.len() <= self.short_limit() && dst.len() >= src.len());
        match self {
            // SAFETY: `detect` found the features each kernel is compiled for, and the
            // assertion above is what they require of their arguments.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::short_then_avx512(src, dst, wide) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => self.run_then(src, dst, (0, 0), wide),
        }
    }

    /// Narrows `src[i..]` into `dst[o..]` to the end: the number of octets `dst` then holds;
    /// in front of a block with a char above U+00FF, what `wide` returns, given where it
    /// stopped (a char boundary, and the octets written up to it). `i` must be at a char
    /// boundary.
    ///
    /// # Panics
    ///
    /// If `dst` is shorter than `src` (it must hold every char), or not `o <= i <= src.len()`.
    #[inline]
    pub(super) fn run_then(
        self,
        src: &[u8],
        dst: &mut [u8],
        (i, o): (usize, usize),
        wide: impl FnOnce(&[u8], &mut [u8], (usize, usize)) -> usize,
    ) -> usize {
        assert!(dst.len() >= src.len() && o <= i && i <= src.len());
        match self {
            // SAFETY: `detect` found the features each kernel is compiled for, and the
            // assertion above is what they require of their arguments.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::narrow_then_avx512(src, dst, (i, o), wide) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                let (mut i, mut o) = (i, o);
                // SAFETY: as above.
                match unsafe { x86::narrow_avx2(src, dst, &mut i, &mut o) } {
                    Stop::End => o,
                    Stop::Wide => wide(src, dst, (i, o)),
                }
            }
        }
    }

    /// Narrows `src[*i..]` into `dst[*o..]`, advancing both, until the end or a block with a
    /// char above U+00FF. `*i` must be at a char boundary; it is left at one.
    ///
    /// # Panics
    ///
    /// If `dst` is shorter than `src` (it must hold every char).
    #[inline]
    pub(super) fn run(self, src: &[u8], dst: &mut [u8], i: &mut usize, o: &mut usize) -> Stop {
        assert!(dst.len() >= src.len() && *o <= *i && *i <= src.len());
        match self {
            // SAFETY: `detect` found the features each kernel is compiled for, and the
            // assertion above is what the kernels require of their arguments.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::narrow_avx512(src, dst, i, o) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::narrow_avx2(src, dst, i, o) },
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Stop;
    use std::arch::x86_64::*;

    /// For each 8-bit keep mask, the positions of its set bits in order (the rest zero).
    static PACK: [[u8; 8]; 256] = pack_table();

    const fn pack_table() -> [[u8; 8]; 256] {
        let mut table = [[0u8; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut bit, mut n) = (0, 0);
            while bit < 8 {
                if mask & (1 << bit) != 0 {
                    table[mask][n] = bit as u8;
                    n += 1;
                }
                bit += 1;
            }
            mask += 1;
        }
        table
    }

    /// The AVX-512 kernel ([`super::Kernel::Avx512`]) for [`super::Kernel::run`]: where it
    /// stopped, through `at_i` and `at_o`.
    ///
    /// # Safety
    ///
    /// As [`narrow_then_avx512`], from `(*at_i, *at_o)`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
    pub(super) unsafe fn narrow_avx512(
        src: &[u8],
        dst: &mut [u8],
        at_i: &mut usize,
        at_o: &mut usize,
    ) -> Stop {
        let mut stop = Stop::End;
        // SAFETY: the contract.
        *at_o = unsafe {
            narrow_then_avx512(src, dst, (*at_i, *at_o), |_, _, (i, o)| {
                (*at_i, stop) = (i, Stop::Wide);
                o
            })
        };
        if stop == Stop::End {
            *at_i = src.len();
        }
        stop
    }

    /// The AVX-512 kernel for [`super::Kernel::run_then`]: narrows `src[i..]` into
    /// `dst[o..]` to the end (the number of octets `dst` then holds), or to a block with a
    /// char above U+00FF (then what `wide` returns, given where it stopped).
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 BW, VBMI2, BMI2 and POPCNT; `dst.len() >= src.len()`,
    /// `o <= i <= src.len()`, and `i` is at a char boundary of the UTF-8 text `src`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
    pub(super) unsafe fn narrow_then_avx512(
        src: &[u8],
        dst: &mut [u8],
        (mut i, mut o): (usize, usize),
        wide: impl FnOnce(&[u8], &mut [u8], (usize, usize)) -> usize,
    ) -> usize {
        let (len, s, d) = (src.len(), src.as_ptr(), dst.as_mut_ptr());
        // Bounds, for every block below: src[i - 1..i + 64] is in bounds for a whole block
        // after the first, and a partial one is read through masks that cover src[i..len]
        // and the byte before; stores go to dst[o..o + 64] with
        // o + 64 <= i + 64 <= len <= dst.len(), or through a mask within that.
        //
        // No ASCII copy first: the callers come from one ([`copy_ascii_avx512`], which stopped
        // in front of a block with a lead byte) or from a wide char. Its four-block check
        // before the loop cost about 4 ns of 26 on 512 chars of mixed text.
        //
        // Which bytes follow a 0xC3 comes from a second load one byte back, not from the
        // block's own compare shifted by one lane as the short path does: moving the mask
        // back into a mask register is one more operation for port 5, which runs the
        // compares and `vpcompressb` (tried: 512 chars of mixed text 0.90x, but 4,096 chars
        // 1.09x slower over 24 layouts).
        while i + 64 <= len {
            // SAFETY: the bounds above.
            let cur = unsafe { _mm512_loadu_si512(s.add(i).cast()) };
            // SAFETY: the bounds above.
            let prev = unsafe { bytes_before(s, i, u64::MAX) };
            let Some((packed, count)) = pack_block(cur, is_c3(prev), u64::MAX) else {
                return wide(src, dst, (char_start(src, i), o));
            };
            // A whole store leaves stray bytes after the packed ones; with 256 more bytes
            // of input (64 chars at least) to come, later stores cover them.
            // SAFETY: the bounds above.
            unsafe {
                if len - i >= 64 + 256 {
                    _mm512_storeu_si512(d.add(o).cast(), packed)
                } else {
                    _mm512_mask_storeu_epi8(d.add(o).cast(), _bzhi_u64(u64::MAX, count), packed)
                }
            };
            (i, o) = (i + 64, o + count as usize);
            if count == 64 {
                // No lead byte: perhaps the start of an ASCII run, which goes on in bulk.
                // SAFETY: the bounds above.
                (i, o) = unsafe { ascii_blocks(s, d, i, o, len) };
            }
        }
        if i < len {
            let lanes = _bzhi_u64(u64::MAX, (len - i) as u32);
            // SAFETY: the bounds above.
            let cur = unsafe { _mm512_maskz_loadu_epi8(lanes, s.add(i).cast()) };
            if _mm512_movepi8_mask(cur) == 0 {
                // An ASCII tail is copied as it is.
                // SAFETY: the bounds above.
                unsafe { _mm512_mask_storeu_epi8(d.add(o).cast(), lanes, cur) };
                return o + (len - i);
            }
            // SAFETY: the bounds above.
            let prev = unsafe { bytes_before(s, i, lanes) };
            let Some((packed, count)) = pack_block(cur, is_c3(prev), lanes) else {
                return wide(src, dst, (char_start(src, i), o));
            };
            // SAFETY: the bounds above.
            unsafe { _mm512_mask_storeu_epi8(d.add(o).cast(), _bzhi_u64(u64::MAX, count), packed) };
            o += count as usize;
        }
        o
    }

    /// [`super::Kernel::short_then`] with AVX-512: a whole block of 64 bytes if `src` is
    /// longer, then the rest as one masked block. Which bytes follow a 0xC3 comes from the
    /// blocks themselves (the last lane of the first carried into the second; the byte before
    /// `src` ends a char, so it is never a lead).
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 BW, VL, VBMI2, BMI2 and POPCNT; `src.len() <= 128`,
    /// `dst.len() >= src.len()`, and `src` starts at a char boundary of UTF-8 text.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]
    pub(super) unsafe fn short_then_avx512(
        src: &[u8],
        dst: &mut [u8],
        wide: impl FnOnce(&[u8], &mut [u8], (usize, usize)) -> usize,
    ) -> usize {
        let (len, s, d) = (src.len(), src.as_ptr(), dst.as_mut_ptr());
        let c3 = _mm512_set1_epi8(0xC3u8 as i8);
        let (mut i, mut o, mut carry) = (0, 0, 0);
        if len > 64 {
            // SAFETY: 64 < len bytes are read.
            let cur = unsafe { _mm512_loadu_si512(s.cast()) };
            let tail = _bzhi_u64(u64::MAX, (len - 64) as u32);
            // SAFETY: the lanes cover src[64..len]; a masked-off lane is not accessed.
            let next = unsafe { _mm512_maskz_loadu_epi8(tail, s.add(64).cast()) };
            if _mm512_movepi8_mask(_mm512_or_si512(cur, next)) == 0 {
                // All ASCII (the entry checks shorter text itself): copied as it is.
                // SAFETY: len <= dst.len() bytes are stored.
                unsafe {
                    _mm512_storeu_si512(d.cast(), cur);
                    _mm512_mask_storeu_epi8(d.add(64).cast(), tail, next);
                }
                return len;
            }
            let at_c3 = _mm512_cmpeq_epi8_mask(cur, c3);
            let Some((packed, count)) = pack_block(cur, at_c3 << 1, u64::MAX) else {
                return wide(src, dst, (0, 0));
            };
            // SAFETY: count <= 64 < len <= dst.len() lanes are stored.
            unsafe { _mm512_mask_storeu_epi8(d.cast(), _bzhi_u64(u64::MAX, count), packed) };
            (i, o, carry) = (64, count as usize, at_c3 >> 63);
        }
        // SAFETY: the contract, and `i <= len`, `o <= i`, `carry` as the callee takes them.
        unsafe {
            match len - i {
                0..=16 => short_last::<16>(src, dst, (i, o, carry), wide),
                17..=32 => short_last::<32>(src, dst, (i, o, carry), wide),
                33..=48 => short_last::<48>(src, dst, (i, o, carry), wide),
                _ => short_last::<64>(src, dst, (i, o, carry), wide),
            }
        }
    }

    /// The short path's last block, `src[i..]` (at most `W` bytes), loaded and stored `W`
    /// bytes wide (16, 32, 48 or 64: the narrowest that holds it; 48 and 64 as 32 bytes and
    /// then 16 or 32); `carry` is 1 when the byte before `src[i]` is 0xC3.
    ///
    /// A masked load or store counts at its whole width when the CPU checks loads against
    /// the stores in flight: with 64-byte ones, a short string waited for the previous call's
    /// store to an output within 64 bytes of it, as two small blocks from malloc often lie
    /// (10 bytes of text: 5 ns a call, 12 ns with the output 16 to 48 bytes after or before
    /// the input).
    ///
    /// # Safety
    ///
    /// As [`short_then_avx512`], with `len - i <= W`, `o <= i`, and `i` at a char boundary.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]
    unsafe fn short_last<const W: usize>(
        src: &[u8],
        dst: &mut [u8],
        (i, o, carry): (usize, usize, u64),
        wide: impl FnOnce(&[u8], &mut [u8], (usize, usize)) -> usize,
    ) -> usize {
        let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
        let lanes = _bzhi_u64(u64::MAX, (src.len() - i) as u32);
        // SAFETY: the lanes cover src[i..len], within W bytes; a masked-off lane is not
        // accessed, and where W > 32, src[i..i + 32] lies within src (32 < len - i). The CPU
        // has the features (the contract).
        let cur = unsafe {
            match W {
                16 => _mm512_zextsi128_si512(_mm_maskz_loadu_epi8(lanes as u16, s.add(i).cast())),
                32 => {
                    _mm512_zextsi256_si512(_mm256_maskz_loadu_epi8(lanes as u32, s.add(i).cast()))
                }
                // 32 < len - i: the first 32 bytes whole, the rest masked.
                48 => _mm512_inserti64x4::<1>(
                    _mm512_castsi256_si512(_mm256_loadu_si256(s.add(i).cast())),
                    _mm256_zextsi128_si256(_mm_maskz_loadu_epi8(
                        (lanes >> 32) as u16,
                        s.add(i + 32).cast(),
                    )),
                ),
                _ => _mm512_inserti64x4::<1>(
                    _mm512_castsi256_si512(_mm256_loadu_si256(s.add(i).cast())),
                    _mm256_maskz_loadu_epi8((lanes >> 32) as u32, s.add(i + 32).cast()),
                ),
            }
        };
        let after_c3 = _mm512_cmpeq_epi8_mask(cur, _mm512_set1_epi8(0xC3u8 as i8)) << 1 | carry;
        let Some((packed, count)) = pack_block(cur, after_c3, lanes) else {
            return wide_from_block(src, dst, (i, o), wide);
        };
        let keep = _bzhi_u64(u64::MAX, count);
        // SAFETY: o + count <= len <= dst.len(): the stored lanes are within dst, and count
        // <= W; a masked-off lane is not accessed.
        unsafe {
            match W {
                16 => _mm_mask_storeu_epi8(
                    d.add(o).cast(),
                    keep as u16,
                    _mm512_castsi512_si128(packed),
                ),
                32 => _mm256_mask_storeu_epi8(
                    d.add(o).cast(),
                    keep as u32,
                    _mm512_castsi512_si256(packed),
                ),
                // Lanes 32.. go 32 bytes on, within dst: o + 32 <= i + 32 < len here.
                48 => {
                    let (low, high) = split_halves(packed);
                    _mm256_mask_storeu_epi8(d.add(o).cast(), keep as u32, low);
                    let rest = _mm256_castsi256_si128(high);
                    _mm_mask_storeu_epi8(d.add(o + 32).cast(), (keep >> 32) as u16, rest);
                }
                _ => {
                    let (low, high) = split_halves(packed);
                    _mm256_mask_storeu_epi8(d.add(o).cast(), keep as u32, low);
                    _mm256_mask_storeu_epi8(d.add(o + 32).cast(), (keep >> 32) as u32, high);
                }
            }
        }
        o + count as usize
    }

    /// The two 32-byte halves of `v`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn split_halves(v: __m512i) -> (__m256i, __m256i) {
        (_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v))
    }

    /// Which lanes of `prev` hold 0xC3.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn is_c3(prev: __m512i) -> u64 {
        _mm512_cmpeq_epi8_mask(prev, _mm512_set1_epi8(0xC3u8 as i8))
    }

    /// [`super::Kernel::copy_ascii_then`] with AVX-512.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 BW; `64 <= src.len() <= dst.len()`.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn copy_ascii_then_avx512(
        src: &[u8],
        dst: &mut [u8],
        rest: impl FnOnce(&[u8], &mut [u8], usize, super::Kernel) -> usize,
    ) -> usize {
        // SAFETY: the contract.
        match unsafe { copy_ascii_avx512(src, dst) } {
            all if all == src.len() => all,
            copied => rest(src, dst, copied, super::Kernel::Avx512),
        }
    }

    /// Copies the ASCII start of `src` to `dst`: the first 64 bytes, then whole blocks from
    /// where the output is 64-byte aligned, then the last 64 bytes (the bytes stored twice
    /// get the same values). Returns how many bytes it copied: all when all are ASCII.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512 BW; `64 <= src.len() <= dst.len()`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn copy_ascii_avx512(src: &[u8], dst: &mut [u8]) -> usize {
        let (len, s, d) = (src.len(), src.as_ptr(), dst.as_mut_ptr());
        // SAFETY: 64 <= len <= dst.len() (the contract) for the first and the last block, and
        // `ascii_blocks` gets the same `i` and `o`, within that length.
        unsafe {
            let first = _mm512_loadu_si512(s.cast());
            if _mm512_movepi8_mask(first) != 0 {
                return 0;
            }
            _mm512_storeu_si512(d.cast(), first);
            let aligned = 64 - d as usize % 64;
            let (i, _) = ascii_blocks(s, d, aligned, aligned, len);
            if i == len || i + 64 <= len {
                // All ASCII, or in front of the first block that is not.
                return i;
            }
            let last = _mm512_loadu_si512(s.add(len - 64).cast());
            if _mm512_movepi8_mask(last) != 0 {
                return i;
            }
            _mm512_storeu_si512(d.add(len - 64).cast(), last);
        }
        len
    }

    /// [`super::Kernel::copy_ascii_then`] with AVX2.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2; `64 <= src.len() <= dst.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn copy_ascii_then_avx2(
        src: &[u8],
        dst: &mut [u8],
        rest: impl FnOnce(&[u8], &mut [u8], usize, super::Kernel) -> usize,
    ) -> usize {
        // SAFETY: the contract.
        match unsafe { copy_ascii_avx2(src, dst) } {
            all if all == src.len() => all,
            copied => rest(src, dst, copied, super::Kernel::Avx2),
        }
    }

    /// Copies the ASCII start of `src` to `dst`: 128 bytes per branch, then 32, then the last
    /// 32 (the bytes stored twice get the same values). Returns how many bytes it copied: all
    /// when all are ASCII.
    ///
    /// # Safety
    ///
    /// The CPU has AVX2; `64 <= src.len() <= dst.len()`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn copy_ascii_avx2(src: &[u8], dst: &mut [u8]) -> usize {
        let (len, s, d) = (src.len(), src.as_ptr(), dst.as_mut_ptr());
        let mut i = 0;
        while i + 128 <= len {
            // SAFETY: [i, i + 128) is within len <= dst.len() (the contract).
            unsafe {
                let [a, b, c, e] =
                    [0, 32, 64, 96].map(|at| _mm256_loadu_si256(s.add(i + at).cast()));
                let any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, e));
                if _mm256_movemask_epi8(any) != 0 {
                    break;
                }
                for (at, v) in [(0, a), (32, b), (64, c), (96, e)] {
                    _mm256_storeu_si256(d.add(i + at).cast(), v);
                }
            }
            i += 128;
        }
        // Blocks of 32 from i, then the last 32 bytes (after the blocks, all checked).
        for at in (i..len - 31).step_by(32).chain([len - 32]) {
            // SAFETY: at + 32 <= len <= dst.len() (the contract; len >= 64).
            unsafe {
                let v = _mm256_loadu_si256(s.add(at).cast());
                if _mm256_movemask_epi8(v) != 0 {
                    return i.max(at);
                }
                _mm256_storeu_si256(d.add(at).cast(), v);
            }
        }
        len
    }

    /// The bytes `s[i - 1..i + 63]` in the lanes of `lanes`; lane 0 is zero when `i == 0`.
    ///
    /// # Safety
    ///
    /// `s[i - 1..]` is readable in those lanes (the byte before `s` is never read).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn bytes_before(s: *const u8, i: usize, lanes: u64) -> __m512i {
        let at = s.wrapping_add(i).wrapping_sub(1);
        // SAFETY: the caller's contract; lane 0 (address s - 1) is masked off when i == 0,
        // and a masked-off lane is not accessed.
        unsafe {
            if i > 0 && lanes == u64::MAX {
                _mm512_loadu_si512(at.cast())
            } else {
                _mm512_maskz_loadu_epi8(lanes & !u64::from(i == 0), at.cast())
            }
        }
    }

    /// Copies whole all-ASCII blocks of 64 bytes from `s + i` to `d + o` while there are
    /// any, four at a time while it can (one branch per 256 bytes); returns the positions
    /// after them.
    ///
    /// After the first four, it steps back to where the output is 64-byte aligned (the bytes
    /// after that point are stored again, with the same values): later stores then never
    /// split a cache line.
    ///
    /// # Safety
    ///
    /// `s` is valid for reads up to `len`, `d` for writes up to `len - i + o` bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn ascii_blocks(
        s: *const u8,
        d: *mut u8,
        mut i: usize,
        mut o: usize,
        len: usize,
    ) -> (usize, usize) {
        // SAFETY: i + 256 <= len, and o + 256 <= i + 256 writable (the contract).
        if i + 256 <= len && unsafe { copy_four(s.add(i), d.add(o)) } {
            let step = 256 - d.wrapping_add(o) as usize % 64;
            (i, o) = (i + step, o + step);
            // SAFETY: as above.
            while i + 256 <= len && unsafe { copy_four(s.add(i), d.add(o)) } {
                (i, o) = (i + 256, o + 256);
            }
        }
        while i + 64 <= len {
            // SAFETY: i + 64 <= len, and o + 64 <= i + 64 writable (the contract).
            unsafe {
                let cur = _mm512_loadu_si512(s.add(i).cast());
                if _mm512_movepi8_mask(cur) != 0 {
                    break;
                }
                _mm512_storeu_si512(d.add(o).cast(), cur);
            }
            (i, o) = (i + 64, o + 64);
        }
        (i, o)
    }

    /// Copies the 256 bytes at `s` to `d` if they are all ASCII; whether it did.
    ///
    /// # Safety
    ///
    /// `s` is valid for reads and `d` for writes of 256 bytes.
    #[inline(always)]
    unsafe fn copy_four(s: *const u8, d: *mut u8) -> bool {
        // SAFETY: the contract.
        unsafe {
            let [a, b, c, e] = [0, 64, 128, 192].map(|at| _mm512_loadu_si512(s.add(at).cast()));
            // a | b | c, then | e.
            let any = _mm512_or_si512(_mm512_ternarylogic_epi32(a, b, c, 0xFE), e);
            if _mm512_movepi8_mask(any) != 0 {
                return false;
            }
            for (at, v) in [(0, a), (64, b), (128, c), (192, e)] {
                _mm512_storeu_si512(d.add(at).cast(), v);
            }
        }
        true
    }

    /// One block (its lanes in `lanes`) and which of its bytes follow a 0xC3 (`after_c3`): its
    /// Latin-1 octets packed to the front and how many; `None` if it holds a char above
    /// U+00FF.
    ///
    /// A continuation byte `10xxxxxx` after 0xC2 is its Latin-1 octet already (U+0080..U+00BF);
    /// after 0xC3 it is that plus 0x40 (U+00C0..U+00FF). Lead bytes are dropped. Only bytes
    /// `>= 0xC4` would make a char above U+00FF.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    fn pack_block(cur: __m512i, after_c3: u64, lanes: u64) -> Option<(__m512i, u32)> {
        // cur - 0x44, saturating, has its top bit set exactly where cur >= 0xC4.
        let wide = _mm512_movepi8_mask(_mm512_subs_epu8(cur, _mm512_set1_epi8(0x44)));
        if wide != 0 {
            return None;
        }
        let lead = _mm512_cmpge_epu8_mask(cur, _mm512_set1_epi8(0xC0u8 as i8));
        let value = _mm512_mask_add_epi8(cur, after_c3, cur, _mm512_set1_epi8(0x40));
        let keep = lanes & !lead;
        Some((_mm512_maskz_compress_epi8(keep, value), keep.count_ones()))
    }

    /// The AVX2 kernel ([`super::Kernel::Avx2`]).
    ///
    /// # Safety
    ///
    /// The CPU has AVX2 and POPCNT; `dst.len() >= src.len()`, `*o <= *i <= src.len()`, and
    /// `*i` is at a char boundary of the UTF-8 text `src`.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn narrow_avx2(
        src: &[u8],
        dst: &mut [u8],
        i: &mut usize,
        o: &mut usize,
    ) -> Stop {
        let (len, s, d) = (src.len(), src.as_ptr(), dst.as_mut_ptr());
        let (c0, c3, x40) = (
            _mm_set1_epi8(0xC0u8 as i8),
            _mm_set1_epi8(0xC3u8 as i8),
            _mm_set1_epi8(0x40),
        );
        let mut before = _mm_setzero_si128();
        // Each step stores 8 bytes at the packed end; 32 bytes left after it are at least 8
        // chars, which the caller writes over whatever a store left past the end.
        while *i + 48 <= len {
            // SAFETY: *i + 16 <= len.
            let cur = unsafe { _mm_loadu_si128(s.add(*i).cast()) };
            if _mm_movemask_epi8(cur) == 0 {
                // SAFETY: *o + 16 <= *i + 16 <= dst.len().
                unsafe { _mm_storeu_si128(d.add(*o).cast(), cur) };
                (*i, *o, before) = (*i + 16, *o + 16, cur);
                continue;
            }
            let above_c3 = _mm_cmpeq_epi8(_mm_subs_epu8(cur, c3), _mm_setzero_si128());
            if _mm_movemask_epi8(above_c3) != 0xFFFF {
                return stop_wide(src, i);
            }
            let lead = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(cur, c0), c0)) as u32;
            // A continuation byte after 0xC3 is its octet minus 0x40 (see `pack_block`).
            let after_c3 = _mm_cmpeq_epi8(_mm_alignr_epi8(cur, before, 15), c3);
            let value = _mm_add_epi8(cur, _mm_and_si128(after_c3, x40));
            let keep = !lead & 0xFFFF;
            let (lo, hi) = ((keep & 0xFF) as usize, (keep >> 8) as usize);
            // SAFETY: PACK rows are 8 bytes; each store writes 8 bytes at most 8 past *o,
            // and *o + 16 <= *i + 16 <= len.
            unsafe {
                let lo_idx = _mm_loadl_epi64(PACK[lo].as_ptr().cast());
                _mm_storel_epi64(d.add(*o).cast(), _mm_shuffle_epi8(value, lo_idx));
                *o += lo.count_ones() as usize;
                let hi_idx =
                    _mm_add_epi8(_mm_loadl_epi64(PACK[hi].as_ptr().cast()), _mm_set1_epi8(8));
                _mm_storel_epi64(d.add(*o).cast(), _mm_shuffle_epi8(value, hi_idx));
                *o += hi.count_ones() as usize;
            }
            (*i, before) = (*i + 16, cur);
        }
        // SAFETY: the contract; `before` holds the byte before `*i` in its last lane.
        unsafe { narrow_tail_avx2(src, dst, i, o, before) }
    }

    /// The AVX2 kernel's last bytes, `src[*i..]`, with exact stores (nothing is written past
    /// the packed octets): blocks of 16 while more than 16 bytes are left, then one last
    /// block read as the last 16 bytes of `src` (built from two overlapping words when `src`
    /// is shorter), only its lanes from `*i` on kept. `before` holds the byte before `*i` in
    /// its last lane (zero at a char boundary: a char never ends with a lead byte).
    ///
    /// # Safety
    ///
    /// As [`narrow_avx2`].
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn narrow_tail_avx2(
        src: &[u8],
        dst: &mut [u8],
        i: &mut usize,
        o: &mut usize,
        mut before: __m128i,
    ) -> Stop {
        let (len, s, d) = (src.len(), src.as_ptr(), dst.as_mut_ptr());
        // Bounds: every block read is within src; a block's store of `count` octets at *o
        // ends at most at *o + (len - *i) <= len <= dst.len(), as the output is never longer
        // than its input.
        while *i + 16 < len {
            // SAFETY: *i + 16 < len.
            let cur = unsafe { _mm_loadu_si128(s.add(*i).cast()) };
            let Some((value, keep)) = pack16(cur, before, 0xFFFF) else {
                return stop_wide(src, i);
            };
            // SAFETY: the bounds above.
            unsafe { store_packed(d.add(*o), value, keep) };
            (*i, *o, before) = (*i + 16, *o + keep.count_ones() as usize, cur);
        }
        if *i == len {
            return Stop::End;
        }
        // SAFETY: `last_block` reads only src[..len].
        let (cur, lanes) = unsafe { last_block(s, len, *i) };
        let Some((value, keep)) = pack16(cur, before, lanes) else {
            return stop_wide(src, i);
        };
        // SAFETY: the bounds above.
        unsafe { store_packed(d.add(*o), value, keep) };
        (*i, *o) = (len, *o + keep.count_ones() as usize);
        Stop::End
    }

    /// One block of 16 bytes (those of `lanes` taken; before each, the byte before it: lane
    /// 0's is `before`'s last), ready to pack: the octets of its chars where the continuation
    /// bytes are, and which lanes to keep (not the leads); `None` if a lane taken holds a char
    /// above U+00FF (see [`pack_block`]).
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn pack16(cur: __m128i, before: __m128i, lanes: u32) -> Option<(__m128i, u32)> {
        // cur - 0x44, saturating, has its top bit set exactly where cur >= 0xC4.
        let wide = _mm_movemask_epi8(_mm_subs_epu8(cur, _mm_set1_epi8(0x44))) as u32;
        if wide & lanes != 0 {
            return None;
        }
        let c0 = _mm_set1_epi8(0xC0u8 as i8);
        let lead = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(cur, c0), c0)) as u32;
        let c3 = _mm_set1_epi8(0xC3u8 as i8);
        let after_c3 = _mm_cmpeq_epi8(_mm_alignr_epi8(cur, before, 15), c3);
        let value = _mm_add_epi8(cur, _mm_and_si128(after_c3, _mm_set1_epi8(0x40)));
        Some((value, lanes & !lead))
    }

    /// The last block: lanes holding `s[i..len]` (`i < len`), and which they are. From 16
    /// bytes on, the last 16 bytes of `s` (the lanes before those of `s[i..]` hold the bytes
    /// before them); below, two overlapping words at 0 and `len - 8` (or `len - 4`), each
    /// lane after a byte it follows in `s` where it is taken.
    ///
    /// # Safety
    ///
    /// `s` is valid for reads of `len` bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn last_block(s: *const u8, len: usize, i: usize) -> (__m128i, u32) {
        // The lanes of a word at 0 and a word of `w` bytes ending at `len` (lanes w..2w) that
        // hold bytes from `i` on.
        let two = |w: usize| {
            let first = (0xFF >> (8 - w)) & (0xFF << i.min(w)) & 0xFF;
            let second = (0xFF >> (8 - w)) & (0xFF << (i.max(w) + w - len)) & 0xFF;
            first | second << w
        };
        // SAFETY: every read is within s[..len] (the contract).
        unsafe {
            if len >= 16 {
                let cur = _mm_loadu_si128(s.add(len - 16).cast());
                (cur, 0xFFFF << (16 - (len - i)) & 0xFFFF)
            } else if len >= 8 {
                let lo = _mm_loadl_epi64(s.cast());
                let cur =
                    _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(lo), s.add(len - 8).cast()));
                (cur, two(8))
            } else if len >= 4 {
                let pair = u64::from(s.cast::<u32>().read_unaligned())
                    | u64::from(s.add(len - 4).cast::<u32>().read_unaligned()) << 32;
                (_mm_cvtsi64_si128(pair as i64), two(4))
            } else {
                let bytes = (0..len).fold(0u64, |w, k| w | u64::from(*s.add(k)) << (8 * k));
                (
                    _mm_cvtsi64_si128(bytes as i64),
                    (0x7 >> (3 - len)) & (0x7 << i) & 0x7,
                )
            }
        }
    }

    /// Packs the lanes of `keep` of `value` to `d` and writes nothing after them: the first
    /// and the last 8 (or 4) of them, each by its own shuffle.
    ///
    /// # Safety
    ///
    /// `d` is valid for writes of `keep.count_ones()` bytes.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn store_packed(d: *mut u8, value: __m128i, keep: u32) {
        let (lo, hi) = ((keep & 0xFF) as usize, (keep >> 8 & 0xFF) as usize);
        // The shuffle's indices: the low half's kept lanes, then (from where they end) the
        // high half's, 8 added. PACK pads a row with zeros, so the OR leaves the first ones
        // alone; indices after the last kept lane are stray and not stored.
        let lo_idx = u64::from_le_bytes(PACK[lo]);
        let hi_idx = u64::from_le_bytes(PACK[hi]) + 0x0808_0808_0808_0808;
        let idx = u128::from(lo_idx) | u128::from(hi_idx) << (8 * lo.count_ones());
        let n = keep.count_ones() as usize;
        let at = |k: usize| _mm_shuffle_epi8(value, _mm_cvtsi64_si128((idx >> (8 * k)) as i64));
        // SAFETY: every store is within d[..n] (the contract).
        unsafe {
            if n >= 8 {
                _mm_storel_epi64(d.cast(), at(0));
                _mm_storel_epi64(d.add(n - 8).cast(), at(n - 8));
            } else if n >= 4 {
                d.cast::<i32>().write_unaligned(_mm_cvtsi128_si32(at(0)));
                d.add(n - 4)
                    .cast::<i32>()
                    .write_unaligned(_mm_cvtsi128_si32(at(n - 4)));
            } else {
                let word = _mm_cvtsi128_si32(at(0)) as u32;
                for k in 0..n {
                    *d.add(k) = (word >> (8 * k)) as u8;
                }
            }
        }
    }

    /// `wide` from the char boundary at or before `i` (the start of the block the short path
    /// stopped at). Out of line, so that the short path saves no registers for the call to
    /// [`char_start`] (with it inlined, the entry pushed five).
    #[cold]
    #[inline(never)]
    fn wide_from_block(
        src: &[u8],
        dst: &mut [u8],
        (i, o): (usize, usize),
        wide: impl FnOnce(&[u8], &mut [u8], (usize, usize)) -> usize,
    ) -> usize {
        let i = if i < src.len() { char_start(src, i) } else { i };
        wide(src, dst, (i, o))
    }

    /// The char boundary at or just before `i` (`< src.len()`, see [`resume_at_char`]).
    /// Out of line: inlined, its read of `src[i]` was hoisted into the AVX-512 loop as a
    /// byte extract, two more vector operations a block on the two ports that run them.
    #[cold]
    #[inline(never)]
    fn char_start(src: &[u8], mut i: usize) -> usize {
        resume_at_char(src, &mut i);
        i
    }

    /// Stops in front of the block at `*i` (see [`resume_at_char`]).
    #[inline(always)]
    fn stop_wide(src: &[u8], i: &mut usize) -> Stop {
        resume_at_char(src, i);
        Stop::Wide
    }

    /// Moves `*i` (`< src.len()`) back to a char boundary: a continuation byte there belongs
    /// to the lead (`0xC2`/`0xC3`) just before it, which a step dropped without output.
    #[inline(always)]
    fn resume_at_char(src: &[u8], i: &mut usize) {
        if src[*i] & 0xC0 == 0x80 {
            *i -= 1;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every kernel this CPU can run (both on an AVX-512 machine).
    pub(in crate::latin1) fn kernels() -> Vec<Kernel> {
        let mut all = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if matches!(Kernel::detect(), Some(Kernel::Avx512)) {
                all.push(Kernel::Avx512);
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
                all.push(Kernel::Avx2);
            }
        }
        all
    }

    /// Runs `kernel` from `start` (a char boundary) and checks what it wrote and where it
    /// stopped against the chars of `s`.
    fn check(kernel: Kernel, s: &str, start: usize) {
        let src = s.as_bytes();
        let mut dst = vec![0x55u8; src.len()];
        let (mut i, mut o) = (start, s[..start].chars().count());
        let o0 = o;
        let stop = kernel.run(src, &mut dst, &mut i, &mut o);
        assert!(
            s.is_char_boundary(i),
            "{kernel:?} stopped inside a char at {i}"
        );
        let want: Vec<u8> = s[start..i].chars().map(|c| c as u8).collect();
        assert_eq!(&dst[o0..o], &want[..], "{kernel:?} from {start} to {i}");
        assert!(
            dst[..o0].iter().all(|&b| b == 0x55),
            "{kernel:?} wrote before {o0}"
        );
        match stop {
            Stop::End => {
                assert_eq!(i, src.len(), "{kernel:?} ended early");
                assert!(
                    dst[o..].iter().all(|&b| b == 0x55),
                    "{kernel:?} wrote past {o}"
                );
            }
            Stop::Wide => {
                // The block it stopped in front of (one more byte if it backed up to a lead).
                let block = &src[i..(i + BLOCK_LIMIT + 1).min(src.len())];
                assert!(
                    block.iter().any(|&b| b >= 0xC4),
                    "{kernel:?} stopped at {i}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn kernels_narrow_latin1_text(
            chars in proptest::collection::vec(
                prop_oneof![4 => 0x20u32..0x7F, 2 => 0x80u32..0x100, 1 => 0x100u32..0x800,
                    1 => 0x800u32..0xD800, 1 => 0x10000u32..0x10FFFF],
                0..400),
            wide_free in any::<bool>(),
            start_char in 0usize..40,
        ) {
            let s: String = chars
                .iter()
                .filter_map(|&c| char::from_u32(if wide_free { c & 0xFF } else { c }))
                .collect();
            let start = s.char_indices().nth(start_char).map_or(s.len(), |(at, _)| at);
            for kernel in kernels() {
                check(kernel, &s, start);
            }
        }
    }

    /// Long ASCII runs go through the 256-byte copy, which steps back to align its output:
    /// every output alignment (`start` Latin-1 chars first, two bytes each), and runs whose
    /// ends fall on every offset of a block.
    #[test]
    fn long_ascii_runs_at_every_alignment() {
        for k in kernels() {
            for start in 0..64 {
                for run in [256, 300, 511, 575, 700] {
                    let s = format!(
                        "{}{}é{}ü",
                        "ä".repeat(start),
                        "x".repeat(run),
                        "y".repeat(run / 2)
                    );
                    check(k, &s, 0);
                    check(k, &s, 2 * start);
                }
            }
        }
    }

    /// The entry's ASCII copy at every output alignment: an all-ASCII string whole, and one
    /// with an `é` up to at most that char, `dst` holding what it says it copied.
    #[test]
    fn copy_ascii_at_every_alignment() {
        for k in kernels() {
            for len in [64, 65, 127, 128, 319, 320, 511, 700] {
                for wide_at in [
                    None,
                    Some(0),
                    Some(63),
                    Some(64),
                    Some(len / 2),
                    Some(len - 1),
                ] {
                    if wide_at.is_some_and(|at| at >= len) {
                        continue;
                    }
                    let mut s = "x".repeat(len);
                    if let Some(at) = wide_at {
                        s.replace_range(at..at + 1, "é");
                    }
                    for offset in 0..64 {
                        let mut buf = vec![0x55u8; len + 64];
                        let dst = &mut buf[offset..offset + s.len()];
                        let n = k.copy_ascii_then(s.as_bytes(), dst, |_, _, copied, _| copied);
                        assert!(n <= wide_at.unwrap_or(len), "{k:?} {len} {wide_at:?}");
                        if wide_at.is_none() {
                            assert_eq!(n, len, "{k:?} {len} at {offset}");
                        }
                        assert_eq!(&dst[..n], &s.as_bytes()[..n], "{k:?} {len} at {offset}");
                    }
                }
            }
        }
    }

    /// The exact last block at every length under 80 bytes (under 16 it is built from words):
    /// a two-byte char at every position, from every char boundary before it; and text of
    /// two-byte chars with one above U+00FF at every position.
    #[test]
    fn every_short_length_and_position() {
        for k in kernels() {
            for len in 1..80 {
                for at in 0..len {
                    let s = format!("{}é{}", "x".repeat(at), "y".repeat(len - at - 1));
                    for start in (0..=at).chain([at + 2]) {
                        check(k, &s, start);
                    }
                    let s = format!("{}Ā{}", "é".repeat(at / 2), "ü".repeat(len - at));
                    check(k, &s, 0);
                }
            }
        }
    }

    /// Runs `kernel`'s short path on `s` and checks what it wrote, and where it handed over
    /// to `wide`, against the chars of `s`.
    fn check_short(kernel: Kernel, s: &str) {
        let src = s.as_bytes();
        let mut dst = vec![0x55u8; src.len()];
        let want: Vec<u8> = s.chars().map(|c| c as u8).collect();
        let handed_over = usize::MAX;
        let n = kernel.short_then(src, &mut dst, |src, dst, (i, o)| {
            assert!(
                s.is_char_boundary(i),
                "{kernel:?} stopped inside a char at {i}"
            );
            let before: Vec<u8> = s[..i].chars().map(|c| c as u8).collect();
            assert_eq!(&dst[..o], &before[..], "{kernel:?} up to {i} of {s:?}");
            let block = &src[i..(i + BLOCK_LIMIT + 1).min(src.len())];
            assert!(
                block.iter().any(|&b| b >= 0xC4),
                "{kernel:?} stopped at {i} of {s:?}"
            );
            handed_over
        });
        if n == handed_over {
            assert!(
                s.chars().any(|c| c > '\u{FF}'),
                "{kernel:?} handed over {s:?}"
            );
            return;
        }
        assert_eq!(&dst[..n], &want[..], "{kernel:?} on {s:?}");
        assert!(
            dst[n..].iter().all(|&b| b == 0x55),
            "{kernel:?} wrote past {n}"
        );
    }

    /// The short path at every length it takes: all ASCII, a two-byte char at every
    /// position (so a 0xC3 lead at the end of the first block of 64 too), and two-byte text
    /// with one char above U+00FF at every position.
    #[test]
    fn short_path_every_length_and_position() {
        for k in kernels() {
            for len in 0..=k.short_limit() {
                check_short(k, &"x".repeat(len));
                for at in 0..len.saturating_sub(1) {
                    for c in ['é', '\u{80}'] {
                        let s = format!("{}{c}{}", "x".repeat(at), "y".repeat(len - at - 2));
                        check_short(k, &s);
                    }
                    let s = format!("{}Ā{}", "é".repeat(at / 2), "ü".repeat((len - at) / 2));
                    let end = (0..=len.min(s.len()))
                        .rev()
                        .find(|&e| s.is_char_boundary(e));
                    check_short(k, &s[..end.expect("0 is a boundary")]);
                }
            }
        }
    }

    #[test]
    fn every_alignment_of_a_two_byte_char() {
        for k in kernels() {
            for at in 0..200 {
                let mut s = "x".repeat(at);
                s.push('é');
                s.push_str(&"y".repeat(200 - at));
                check(k, &s, 0);
            }
        }
    }
}
