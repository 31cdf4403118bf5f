//! Huffman encoding 32 octets a step with AVX-512 (VBMI, BW, VL), for text whose codes are
//! short: every octet ASCII with a code of at most [`VECTOR_MAX`] bits, as in header values.
//!
//! A step looks up the 32 octets' code lengths and the low and high octets of their codes
//! (`vpermi2b` over 128-octet tables, a third one to interleave the code octets into
//! words), joins the codes in pairs within 32-bit lanes and in fours within 64-bit lanes
//! (variable shifts; at most 56 bits a lane), and finds where each lane starts in the
//! output by a prefix sum of the lane lengths. Each lane is then shifted to its bit offset
//! within its first octet, with the bits of that octet that came before it (the end of the
//! lane before, or the pending bits) above it, and the eight lanes are stored big-endian,
//! 8 octets each, in order with one scatter: a later lane's store rewrites the octet it
//! shares with the one before, whole. Steps depend on each other only through the count of
//! pending bits and the output position, so they overlap; a step costs some fifty
//! 512-bit operations on the two ports that run them (about 8.5 ns on an AVX-512 Xeon).

use super::{CODE_LENGTHS, CODES, Progress};
use std::arch::x86_64::*;

/// The longest code a step takes: four fit 56 bits, and with the up to 7 bits of the octet
/// it starts in, a lane's store still fits 64.
const VECTOR_MAX: u8 = 14;

/// The fewest octets a step after the first takes: a step costs about as much whatever it
/// holds (some 10 ns), and the scalar loop encodes fewer octets sooner. Measured against
/// steps to the end (encoded_len and encode_into, min of 200 batches, four link layouts,
/// AVX-512 Xeon): a 70-octet user-agent 0.84-0.89x the time (its last 6 octets), a
/// 67-octet cookie 0.83-0.84x, 37 octets 0.75x; 85 octets (21 left) level at 16, 1.06x
/// with 24.
const STEP_FROM: usize = 16;

/// The step's tables, for each ASCII octet: its code length, and the low and high octets of
/// its code where that is at most 16 bits (0 elsewhere; a step never uses those).
#[repr(align(64))]
struct Tables {
    lengths: [u8; 128],
    low: [u8; 128],
    high: [u8; 128],
}

static TABLES: Tables = {
    let (mut lengths, mut low, mut high) = ([0u8; 128], [0u8; 128], [0u8; 128]);
    let mut i = 0;
    while i < 128 {
        lengths[i] = CODE_LENGTHS[i];
        if CODE_LENGTHS[i] <= 16 {
            low[i] = CODES[i] as u8;
            high[i] = (CODES[i] >> 8) as u8;
        }
        i += 1;
    }
    Tables { lengths, low, high }
};

/// Index of a two-table octet permute that interleaves the first 32 octets of two vectors:
/// word `k` of the result is octet `k` of the first, then octet `k` of the second.
const INTERLEAVE: [u8; 64] = {
    let mut index = [0u8; 64];
    let mut k = 0;
    while k < 32 {
        index[2 * k] = k as u8;
        index[2 * k + 1] = 64 + k as u8;
        k += 1;
    }
    index
};

/// Whether this CPU runs [`encode_blocks`] (looked up once by std, then a load).
#[inline]
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// Encodes `src` 32 octets a step into `dst` while its octets' codes are all short (see the
/// module) and a step's whole octets fit `dst` (a step near the end of `dst` goes through a
/// spill block); the last step may be shorter than 32, but a step after the first takes at
/// least [`STEP_FROM`] octets. Returns where it stopped; the caller encodes the rest, from
/// the pending bits on.
///
/// # Safety
///
/// The CPU has AVX-512 F, BW, VL and VBMI ([`available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
pub(super) unsafe fn encode_blocks(src: &[u8], dst: &mut [u8]) -> Progress {
    let table = |t: &[u8; 128], at: usize| {
        // SAFETY: `at + 64 <= 128` octets of a 64-octet aligned table.
        unsafe { _mm512_load_si512(t.as_ptr().add(at).cast()) }
    };
    let t = &TABLES;
    let tables = [
        table(&t.lengths, 0),
        table(&t.lengths, 64),
        table(&t.low, 0),
        table(&t.low, 64),
        table(&t.high, 0),
        table(&t.high, 64),
    ];
    // SAFETY: 64 octets.
    let interleave = unsafe { _mm512_loadu_si512(INTERLEAVE.as_ptr().cast()) };
    let mut at = Progress::default();
    let mut fewest = 1; // the first step takes what there is
    while src.len() - at.i >= fewest {
        fewest = STEP_FROM;
        let live = u32::MAX >> (32 - (src.len() - at.i).min(32)); // at least one octet
        // SAFETY: the mask reads src[i..] up to 32 octets, all within `src`.
        let octets = unsafe { _mm256_maskz_loadu_epi8(live, src.as_ptr().add(at.i).cast()) };
        let wide = _mm512_zextsi256_si512(octets);
        let length8 = _mm512_permutex2var_epi8(tables[0], wide, tables[1]);
        let long = _mm512_mask_cmpgt_epu8_mask(
            u64::from(live),
            length8,
            _mm512_set1_epi8(VECTOR_MAX as i8),
        );
        if _mm256_movemask_epi8(octets) != 0 || long != 0 {
            break;
        }
        let (code, length) = lanes(wide, length8, live, &tables, interleave);
        let room = dst.len() - at.o;
        let (bits, streams) = if room >= 64 {
            // SAFETY: 64 octets of room, and a lane holds at most 4 * 14 bits.
            unsafe { store_lanes(dst.as_mut_ptr().add(at.o), code, length, at) }
        } else {
            // Near the end of `dst`: the step goes to a spill block, and its whole octets
            // to `dst` if they fit (if not, the caller's rest finds the encoding too long).
            let mut spill = [0u8; 64];
            // SAFETY: as above, into the 64 octets of `spill`.
            let (bits, streams) = unsafe { store_lanes(spill.as_mut_ptr(), code, length, at) };
            let whole = (bits / 8) as usize;
            if whole > room {
                break;
            }
            // SAFETY: `spill` holds 64 octets; the mask stores `whole <= room` of them.
            unsafe {
                let octets = _mm512_loadu_si512(spill.as_ptr().cast());
                let keep = (1u64 << whole) - 1; // whole <= 57
                _mm512_mask_storeu_epi8(dst.as_mut_ptr().add(at.o).cast(), keep, octets);
            }
            (bits, streams)
        };
        // The pending bits: a whole last lane holds 20 bits at least, so its own end; a
        // shorter one may hold fewer than are pending, so its end with the octet before.
        at.acc = if src.len() - at.i >= 32 {
            last_lane(code)
        } else {
            last_end(streams, length)
        };
        at.bits = (bits % 8) as u32;
        at.o += (bits / 8) as usize;
        at.i = (at.i + 32).min(src.len());
    }
    at
}

/// The step's codes joined four to a 64-bit lane (right-aligned; the first octet's code
/// highest), and each lane's length in bits (0 for lanes past the end).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn lanes(
    octets: __m512i,
    length8: __m512i,
    live: u32,
    tables: &[__m512i; 6],
    interleave: __m512i,
) -> (__m512i, __m512i) {
    let length16 = _mm512_maskz_cvtepu8_epi16(live, _mm512_castsi512_si256(length8));
    let low = _mm512_permutex2var_epi8(tables[2], octets, tables[3]);
    let high = _mm512_permutex2var_epi8(tables[4], octets, tables[5]);
    let code16 = _mm512_maskz_mov_epi16(live, _mm512_permutex2var_epi8(low, interleave, high));
    // Pairs in 32-bit lanes, then fours in 64-bit lanes: (first << second's length) | second.
    let low16 = _mm512_set1_epi32(0xFFFF);
    let code32 = _mm512_or_si512(
        _mm512_sllv_epi32(
            _mm512_and_si512(code16, low16),
            _mm512_srli_epi32(length16, 16),
        ),
        _mm512_srli_epi32(code16, 16),
    );
    let length32 = _mm512_add_epi32(
        _mm512_and_si512(length16, low16),
        _mm512_srli_epi32(length16, 16),
    );
    let low32 = _mm512_set1_epi64(0xFFFF_FFFF);
    let code64 = _mm512_or_si512(
        _mm512_sllv_epi64(
            _mm512_and_si512(code32, low32),
            _mm512_srli_epi64(length32, 32),
        ),
        _mm512_srli_epi64(code32, 32),
    );
    let length64 = _mm512_add_epi64(
        _mm512_and_si512(length32, low32),
        _mm512_srli_epi64(length32, 32),
    );
    (code64, length64)
}

/// Stores the lanes at `d` (the octet the pending bits of `at` start), each big-endian at
/// its first octet with the bits of that octet before it; returns the bits from `d` on to
/// the end of the step, and each lane's stream from its first octet on (right-aligned).
///
/// # Safety
///
/// `d` is valid for writes of 64 octets, and the lanes hold at most 56 bits.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
unsafe fn store_lanes(d: *mut u8, code: __m512i, length: __m512i, at: Progress) -> (u64, __m512i) {
    let zero = _mm512_setzero_si512();
    // Inclusive prefix sum of the lengths (lanes moved up by one, two, four), from the
    // pending bits on: where each lane ends, in bits from `d`.
    let mut end = _mm512_add_epi64(length, _mm512_alignr_epi64(length, zero, 7));
    end = _mm512_add_epi64(end, _mm512_alignr_epi64(end, zero, 6));
    end = _mm512_add_epi64(end, _mm512_alignr_epi64(end, zero, 4));
    end = _mm512_add_epi64(end, _mm512_set1_epi64(i64::from(at.bits)));
    let start = _mm512_sub_epi64(end, length);
    let within = _mm512_and_si512(start, _mm512_set1_epi64(7));
    let octet = _mm512_srli_epi64(start, 3);
    // The bits of each lane's first octet before it: the low `within` bits of the lane
    // before (a whole lane holds 20 bits or more), or the pending bits for the first.
    let previous = _mm512_alignr_epi64(code, _mm512_set1_epi64(at.acc as i64), 7);
    let room = _mm512_sub_epi64(_mm512_set1_epi64(64), within);
    let head = _mm512_sllv_epi64(previous, room);
    let body = _mm512_sllv_epi64(code, _mm512_sub_epi64(room, length));
    let joined = _mm512_or_si512(head, body);
    let big_endian = _mm512_shuffle_epi8(
        joined,
        _mm512_set4_epi32(0x0809_0a0b, 0x0c0d_0e0f, 0x0001_0203, 0x0405_0607),
    );
    let live = _mm512_test_epi64_mask(length, length);
    // SAFETY: every lane's octet offset is under 57 (at most 7 + 7 * 56 bits before it), so
    // each 8-octet store is within the 64 octets at `d`. Overlapping stores land in lane
    // order.
    unsafe { _mm512_mask_i64scatter_epi64(d.cast(), live, octet, big_endian, 1) };
    // The last lane ends where the step does (a lane past the end adds nothing).
    let streams = _mm512_srlv_epi64(joined, _mm512_sub_epi64(room, length));
    (last_lane(end), streams)
}

/// After a step shorter than 32 octets: the last live lane of `streams` (a lane's stream
/// from its first octet on, right-aligned: its low bits end the output, and it holds more
/// bits than are pending, which a lane alone may not).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn last_end(streams: __m512i, length: __m512i) -> u64 {
    let last = 7 - _mm512_test_epi64_mask(length, length).leading_zeros();
    let lane = _mm512_permutexvar_epi64(_mm512_set1_epi64(i64::from(last)), streams);
    _mm_cvtsi128_si64(_mm512_castsi512_si128(lane)) as u64
}

/// The last lane of `code` (a whole step's pending bits are its low bits).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
fn last_lane(code: __m512i) -> u64 {
    _mm_extract_epi64(_mm512_extracti32x4_epi32(code, 3), 1) as u64
}
