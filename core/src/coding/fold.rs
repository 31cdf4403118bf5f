//! CRC-32 folding whose state outlives a call: 16 streams of 16 octets, four chunks of 64,
//! each chunk folded forward by 256 octets with carry-less multiplication (PCLMULQDQ, or
//! VPCLMULQDQ over 512-bit registers with AVX-512, or over 256-bit ones with AVX2), and
//! collapsed to a CRC only when one is asked for. A fragment is folded in 64-octet chunks into
//! the chunk of streams its position falls on (the phase), so a fragment of whole chunks is
//! folded in place, whatever its length; only the octets of an incomplete chunk wait in a small
//! buffer.
//!
//! The method is the one of Gopal et al., "Fast CRC computation for generic polynomials using
//! PCLMULQDQ instruction" (Intel, 2009), for the bit-reflected gzip polynomial: a stream's 128
//! bits are multiplied by x^2048 mod P (split into two 64-bit halves and two constants) and
//! added to the stream's bits 2048 bits further on. crc32fast folds the same way inside one
//! call and reduces to 32 bits at its end; keeping the streams between calls is what makes a
//! rope of short fragments cost about what one contiguous buffer costs.

use std::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm_and_si128, _mm_clmulepi64_si128, _mm_extract_epi32,
    _mm_loadu_si128, _mm_set_epi32, _mm_set_epi64x, _mm_srli_si128, _mm_storeu_si128,
    _mm_xor_si128, _mm256_clmulepi64_epi128, _mm256_loadu_si256, _mm256_set_epi64x,
    _mm256_storeu_si256, _mm256_xor_si256, _mm512_clmulepi64_epi128, _mm512_loadu_si512,
    _mm512_set_epi64, _mm512_storeu_si512, _mm512_ternarylogic_epi64,
};

/// Octets folded per round: 16 streams of 16 octets.
pub(super) const BLOCK: usize = 256;
/// Octets folded at once: the four streams of one phase.
const CHUNK: usize = 64;

/// Folding constants: for a distance of D bits the pair (x^(D+32) mod P, x^(D-32) mod P),
/// bit-reflected, for D = 2048 (one block) and D = 128 (one stream onto the next).
const K_2048_LOW: i64 = 0x1_1542_778a;
const K_2048_HIGH: i64 = 0x1_322d_1430;
const K3: i64 = 0x1_7519_97d0;
const K4: i64 = 0x0_ccaa_009e;
/// x^64 mod P, for the 96 to 64 bit step.
const K5: i64 = 0x1_63cd_6124;
/// The polynomial and its Barrett constant, bit-reflected.
const P_X: i64 = 0x1_DB71_0641;
const U_PRIME: i64 = 0x1_F701_1641;

/// The folding code the CPU can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// VPCLMULQDQ over four 512-bit registers (four streams per multiply).
    Avx512,
    /// VPCLMULQDQ over eight 256-bit registers (two streams per multiply), for CPUs with
    /// VPCLMULQDQ and AVX2 but not AVX-512 (AMD Zen 3).
    Avx2,
    /// PCLMULQDQ over sixteen 128-bit registers.
    Pclmul,
}

impl Kernel {
    /// The best kernel this CPU has, or `None` (then crc32fast does the work).
    pub(super) fn detect() -> Option<Kernel> {
        if std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("sse4.1")
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("vpclmulqdq")
            {
                return Some(Kernel::Avx512);
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("vpclmulqdq")
            {
                return Some(Kernel::Avx2);
            }
            return Some(Kernel::Pclmul);
        }
        None
    }
}

/// The 16 streams: stream i holds octets 16i..16i+16 (mod 256) of the latest 256 octets,
/// with every earlier 256-octet period folded into it.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Streams([u8; BLOCK]);

impl Streams {
    /// Streams over a first block, the CRC of what came before (`crc`, 0 for nothing) folded
    /// into its first four octets. The next chunk has phase 0.
    fn start(block: &[u8], crc: u32) -> Streams {
        let mut s = Streams([0; BLOCK]);
        s.0.copy_from_slice(block);
        let head = u32::from_le_bytes(s.0[..4].try_into().expect("4 octets")) ^ !crc;
        s.0[..4].copy_from_slice(&head.to_le_bytes());
        s
    }

    /// Folds `chunks` (whole chunks) into the streams with `kernel`, the first at `phase`;
    /// returns the phase of the chunk after them.
    #[inline]
    fn fold(&mut self, kernel: Kernel, phase: usize, chunks: &[u8]) -> usize {
        debug_assert_eq!(chunks.len() % CHUNK, 0);
        // SAFETY: `kernel` comes from `Kernel::detect`, which returns a kernel only once the CPU
        // has every feature its function enables.
        unsafe {
            match kernel {
                Kernel::Avx512 => fold_avx512(&mut self.0, phase, chunks),
                Kernel::Avx2 => fold_avx2(&mut self.0, phase, chunks),
                Kernel::Pclmul => fold_pclmul(&mut self.0, phase, chunks),
            }
        }
    }

    /// The CRC-32 of everything folded so far, the next chunk having `phase` (the streams are
    /// left as they are).
    ///
    /// Only called on streams that a kernel folded, so the CPU has PCLMULQDQ and SSE4.1.
    fn crc(&self, phase: usize) -> u32 {
        // SAFETY: streams exist only in a `Folding`, whose kernel `Kernel::detect` returned
        // after checking for PCLMULQDQ and SSE4.1, the features `collapse` enables.
        unsafe { collapse(&self.0, phase) }
    }
}

/// A CRC-32 in progress: the streams once 256 octets have arrived (until then the octets
/// wait in `pending`), the phase of the next chunk, and the octets of an incomplete chunk.
#[derive(Clone)]
pub(super) struct Folding {
    kernel: Kernel,
    streams: Option<Streams>,
    phase: usize,
    pending: [u8; BLOCK],
    pending_len: usize,
}

impl Folding {
    /// An empty CRC, folded with `kernel`.
    pub(super) fn new(kernel: Kernel) -> Self {
        Self {
            kernel,
            streams: None,
            phase: 0,
            pending: [0; BLOCK],
            pending_len: 0,
        }
    }

    /// Octets held back until their chunk (or the first 256 octets) is complete.
    pub(super) fn pending(&self) -> usize {
        self.pending_len
    }

    /// Adds a fragment: completes the pending chunk, folds the fragment's whole chunks in
    /// place, and keeps the rest (under 64 octets) for the next call.
    ///
    /// Inlined into its callers: with three kernels, the compiler's choice no longer inlined
    /// it into the loop over a rope's pieces, which cost a call per 64-octet piece (+27 %
    /// instructions at `crc/frag-64`).
    #[inline(always)]
    pub(super) fn update(&mut self, mut piece: &[u8]) {
        if self.streams.is_none() || self.pending_len > 0 {
            piece = self.fill_pending(piece);
            if self.pending_len > 0 {
                return;
            }
        }
        let whole = piece.len() / CHUNK * CHUNK;
        if whole > 0 {
            let streams = self.streams.as_mut().expect("started by fill_pending");
            self.phase = streams.fold(self.kernel, self.phase, &piece[..whole]);
        }
        let rest = &piece[whole..];
        if !rest.is_empty() {
            self.pending[..rest.len()].copy_from_slice(rest);
            self.pending_len = rest.len();
        }
    }

    /// Adds every piece of `pieces`, in order: as [`update`](Self::update) piece by piece,
    /// except that with AVX-512 the streams stay in registers from one piece to the next
    /// (a rope of 64-octet pieces then costs a fold per piece, not a call and a round trip
    /// of the streams through memory).
    pub(super) fn update_all<'a, I: Iterator<Item = &'a [u8]>>(&mut self, mut pieces: I) {
        while self.streams.is_none() {
            let Some(piece) = pieces.next() else { return };
            self.update(piece);
        }
        match self.kernel {
            // SAFETY: `kernel` comes from `Kernel::detect`, which returns `Avx512` only once
            // the CPU has AVX-512F and VPCLMULQDQ, the features `fold_rope_avx512` enables.
            Kernel::Avx512 => unsafe { fold_rope_avx512(self, pieces) },
            Kernel::Avx2 | Kernel::Pclmul => pieces.for_each(|piece| self.update(piece)),
        }
    }

    /// Moves the head of `piece` into `pending` until it holds the first 256 octets (which
    /// start the streams) or a whole chunk (which is folded); returns the rest of `piece`.
    fn fill_pending<'p>(&mut self, piece: &'p [u8]) -> &'p [u8] {
        let goal = if self.streams.is_some() { CHUNK } else { BLOCK };
        let take = piece.len().min(goal - self.pending_len);
        self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&piece[..take]);
        self.pending_len += take;
        if self.pending_len == goal {
            match &mut self.streams {
                None => self.streams = Some(Streams::start(&self.pending, 0)),
                Some(s) => self.phase = s.fold(self.kernel, self.phase, &self.pending[..CHUNK]),
            }
            self.pending_len = 0;
        }
        &piece[take..]
    }

    /// The CRC-32 of everything added (the state is left as it is).
    pub(super) fn value(&self) -> u32 {
        let folded = self.streams.as_ref().map_or(0, |s| s.crc(self.phase));
        let mut tail = crc32fast::Hasher::new_with_initial(folded);
        tail.update(&self.pending[..self.pending_len]);
        tail.finalize()
    }
}

/// Loads 16 octets at `at`.
///
/// # Safety
///
/// `at..at + 16` lies within `block`.
#[inline(always)]
unsafe fn load128(block: &[u8], at: usize) -> __m128i {
    debug_assert!(at + 16 <= block.len());
    // SAFETY: in bounds (the caller's promise); `loadu` takes any alignment.
    unsafe { _mm_loadu_si128(block.as_ptr().add(at).cast()) }
}

/// Loads 64 octets at `at`.
///
/// # Safety
///
/// `at..at + 64` lies within `block`.
#[inline(always)]
unsafe fn load512(block: &[u8], at: usize) -> __m512i {
    debug_assert!(at + 64 <= block.len());
    // SAFETY: in bounds (the caller's promise); `loadu` takes any alignment.
    unsafe { _mm512_loadu_si512(block.as_ptr().add(at).cast()) }
}

/// `a` moved forward by the distance of `k` and added to `b`.
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn fold128(a: __m128i, b: __m128i, k: __m128i) -> __m128i {
    let low = _mm_clmulepi64_si128(a, k, 0x00);
    let high = _mm_clmulepi64_si128(a, k, 0x11);
    _mm_xor_si128(_mm_xor_si128(low, high), b)
}

/// `a` moved forward by the distance of `k` and added to `b`, two streams at once.
#[target_feature(enable = "avx2,vpclmulqdq")]
#[inline]
fn fold256(a: __m256i, b: __m256i, k: __m256i) -> __m256i {
    let low = _mm256_clmulepi64_epi128(a, k, 0x00);
    let high = _mm256_clmulepi64_epi128(a, k, 0x11);
    _mm256_xor_si256(_mm256_xor_si256(low, high), b)
}

/// `a` moved forward by the distance of `k` and added to `b`, four streams at once.
#[target_feature(enable = "avx512f,vpclmulqdq")]
#[inline]
fn fold512(a: __m512i, b: __m512i, k: __m512i) -> __m512i {
    let low = _mm512_clmulepi64_epi128(a, k, 0x00);
    let high = _mm512_clmulepi64_epi128(a, k, 0x11);
    // 0x96: the exclusive or of all three.
    _mm512_ternarylogic_epi64(low, high, b, 0x96)
}

/// The constants for a distance of 2048 bits in each 128-bit lane.
#[target_feature(enable = "avx512f")]
fn k_2048_512() -> __m512i {
    _mm512_set_epi64(
        K_2048_HIGH,
        K_2048_LOW,
        K_2048_HIGH,
        K_2048_LOW,
        K_2048_HIGH,
        K_2048_LOW,
        K_2048_HIGH,
        K_2048_LOW,
    )
}

/// A register of streams, as the folding loop sees it: 16 octets (one stream, PCLMULQDQ) or 64
/// (four streams, VPCLMULQDQ). [`fold_chunks`] is written once over it; each width's kernel
/// ([`fold_pclmul`], [`fold_avx512`]) instantiates it under its own target features.
///
/// # Safety
///
/// Every method may only be called where the width's target features are enabled (inlined
/// into its kernel); the methods are `#[inline(always)]` so that they are.
trait Lanes: Copy {
    /// Octets in one register.
    const BYTES: usize;
    /// The folding constants for a distance of 2048 bits in each 128-bit lane.
    unsafe fn k_2048() -> Self;
    /// Loads `Self::BYTES` octets at `at`, which with them lie within `block`.
    unsafe fn load(block: &[u8], at: usize) -> Self;
    /// Stores the register at `at`, which with its octets lies within `block`.
    unsafe fn store(self, block: &mut [u8], at: usize);
    /// `self` moved forward by the distance of `k` and added to `b`.
    unsafe fn fold(self, b: Self, k: Self) -> Self;
}

impl Lanes for __m128i {
    const BYTES: usize = 16;
    #[inline(always)]
    unsafe fn k_2048() -> Self {
        // SAFETY: SSE2, part of x86-64.
        unsafe { _mm_set_epi64x(K_2048_HIGH, K_2048_LOW) }
    }
    #[inline(always)]
    unsafe fn load(block: &[u8], at: usize) -> Self {
        // SAFETY: in bounds (the caller's promise).
        unsafe { load128(block, at) }
    }
    #[inline(always)]
    unsafe fn store(self, block: &mut [u8], at: usize) {
        debug_assert!(at + 16 <= block.len());
        // SAFETY: in bounds (the caller's promise); `storeu` takes any alignment.
        unsafe { _mm_storeu_si128(block.as_mut_ptr().add(at).cast(), self) }
    }
    #[inline(always)]
    unsafe fn fold(self, b: Self, k: Self) -> Self {
        // SAFETY: PCLMULQDQ and SSE4.1 are enabled (the trait's contract).
        unsafe { fold128(self, b, k) }
    }
}

impl Lanes for __m256i {
    const BYTES: usize = 32;
    #[inline(always)]
    unsafe fn k_2048() -> Self {
        // SAFETY: AVX is enabled (the trait's contract: AVX2).
        unsafe { _mm256_set_epi64x(K_2048_HIGH, K_2048_LOW, K_2048_HIGH, K_2048_LOW) }
    }
    #[inline(always)]
    unsafe fn load(block: &[u8], at: usize) -> Self {
        debug_assert!(at + 32 <= block.len());
        // SAFETY: in bounds (the caller's promise); `loadu` takes any alignment; AVX is
        // enabled (the trait's contract).
        unsafe { _mm256_loadu_si256(block.as_ptr().add(at).cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, block: &mut [u8], at: usize) {
        debug_assert!(at + 32 <= block.len());
        // SAFETY: in bounds (the caller's promise); `storeu` takes any alignment; AVX is
        // enabled (the trait's contract).
        unsafe { _mm256_storeu_si256(block.as_mut_ptr().add(at).cast(), self) }
    }
    #[inline(always)]
    unsafe fn fold(self, b: Self, k: Self) -> Self {
        // SAFETY: AVX2 and VPCLMULQDQ are enabled (the trait's contract).
        unsafe { fold256(self, b, k) }
    }
}

impl Lanes for __m512i {
    const BYTES: usize = 64;
    #[inline(always)]
    unsafe fn k_2048() -> Self {
        // SAFETY: AVX-512F is enabled (the trait's contract).
        unsafe { k_2048_512() }
    }
    #[inline(always)]
    unsafe fn load(block: &[u8], at: usize) -> Self {
        // SAFETY: in bounds (the caller's promise).
        unsafe { load512(block, at) }
    }
    #[inline(always)]
    unsafe fn store(self, block: &mut [u8], at: usize) {
        debug_assert!(at + 64 <= block.len());
        // SAFETY: in bounds (the caller's promise); `storeu` takes any alignment; AVX-512F is
        // enabled (the trait's contract).
        unsafe { _mm512_storeu_si512(block.as_mut_ptr().add(at).cast(), self) }
    }
    #[inline(always)]
    unsafe fn fold(self, b: Self, k: Self) -> Self {
        // SAFETY: AVX-512F and VPCLMULQDQ are enabled (the trait's contract).
        unsafe { fold512(self, b, k) }
    }
}

/// One chunk folded into the four streams of `phase`, in memory.
///
/// # Safety
///
/// `V`'s target features are enabled.
#[inline(always)]
unsafe fn fold_chunk<V: Lanes>(streams: &mut [u8; BLOCK], phase: usize, chunk: &[u8], k: V) {
    assert!(phase < 4 && chunk.len() == CHUNK);
    for i in 0..CHUNK / V::BYTES {
        let at = CHUNK * phase + V::BYTES * i;
        // SAFETY: `at + V::BYTES <= 256` (phase < 4, i < CHUNK / V::BYTES) and
        // `V::BYTES * (i + 1) <= 64 = chunk.len()`; the features are the caller's promise.
        unsafe {
            let folded = V::load(streams, at).fold(V::load(chunk, V::BYTES * i), k);
            folded.store(streams, at);
        }
    }
}

/// Folds `chunks` into `streams` by 256 octets, the first at `phase`: chunk by chunk up to a
/// 256-octet boundary, then whole periods in `N = 256 / V::BYTES` registers, then chunk by
/// chunk again. Returns the phase of the chunk after them.
///
/// # Safety
///
/// `V`'s target features are enabled, and `N * V::BYTES == BLOCK`.
#[inline(always)]
unsafe fn fold_chunks<V: Lanes, const N: usize>(
    streams: &mut [u8; BLOCK],
    mut phase: usize,
    mut chunks: &[u8],
) -> usize {
    debug_assert_eq!(N * V::BYTES, BLOCK);
    // SAFETY: the features are the caller's promise.
    let k = unsafe { V::k_2048() };
    if chunks.len() == CHUNK {
        // A lone chunk (the common case of a rope of 64-octet pieces) needs no loop.
        // SAFETY: as above; `fold_chunk` checks its chunk's length.
        unsafe { fold_chunk(streams, phase, chunks, k) };
        return (phase + 1) % 4;
    }
    while phase != 0 && !chunks.is_empty() {
        // SAFETY: as above; `fold_chunk` checks its chunk's length.
        unsafe { fold_chunk(streams, phase, &chunks[..CHUNK], k) };
        (phase, chunks) = ((phase + 1) % 4, &chunks[CHUNK..]);
    }
    if chunks.len() >= BLOCK {
        let periods = chunks.len() / BLOCK * BLOCK;
        // SAFETY: the features are the caller's promise; every load and store is at
        // `V::BYTES * i` for i < N, within the 256 octets of `streams` or of a period from
        // `chunks_exact(BLOCK)`.
        unsafe {
            let mut s: [V; N] = std::array::from_fn(|i| V::load(streams, V::BYTES * i));
            for period in chunks[..periods].chunks_exact(BLOCK) {
                for (i, stream) in s.iter_mut().enumerate() {
                    *stream = stream.fold(V::load(period, V::BYTES * i), k);
                }
            }
            for (i, stream) in s.iter().enumerate() {
                stream.store(streams, V::BYTES * i);
            }
        }
        chunks = &chunks[periods..];
    }
    while !chunks.is_empty() {
        // SAFETY: as for the first chunks.
        unsafe { fold_chunk(streams, phase, &chunks[..CHUNK], k) };
        (phase, chunks) = ((phase + 1) % 4, &chunks[CHUNK..]);
    }
    phase
}

/// [`fold_chunks`] with PCLMULQDQ over sixteen 128-bit registers.
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn fold_pclmul(streams: &mut [u8; BLOCK], phase: usize, chunks: &[u8]) -> usize {
    // SAFETY: this function enables the features of `__m128i`'s `Lanes`; 16 * 16 = 256.
    unsafe { fold_chunks::<__m128i, 16>(streams, phase, chunks) }
}

/// [`fold_chunks`] with VPCLMULQDQ over eight 256-bit registers (two streams per multiply).
/// Sixteen 128-bit streams and the constant do not fit the sixteen vector registers, so
/// [`fold_pclmul`]'s loop keeps some of them on the stack; eight of 256 bits do fit.
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,sse4.1")]
fn fold_avx2(streams: &mut [u8; BLOCK], phase: usize, chunks: &[u8]) -> usize {
    // SAFETY: this function enables the features of `__m256i`'s `Lanes`; 8 * 32 = 256.
    unsafe { fold_chunks::<__m256i, 8>(streams, phase, chunks) }
}

/// [`fold_chunks`] with VPCLMULQDQ over four 512-bit registers (four streams per multiply).
#[target_feature(enable = "avx512f,vpclmulqdq,pclmulqdq,sse4.1")]
fn fold_avx512(streams: &mut [u8; BLOCK], phase: usize, chunks: &[u8]) -> usize {
    // SAFETY: this function enables the features of `__m512i`'s `Lanes`; 4 * 64 = 256.
    unsafe { fold_chunks::<__m512i, 4>(streams, phase, chunks) }
}

/// [`Folding::update_all`] with AVX-512, once the streams have started: `s[0]` holds the
/// streams of the phase the next chunk folds into, `s[1]` the next phase's, and so on; a
/// single chunk folds into `s[0]` and rotates the four, four chunks fold one into each.
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn fold_rope_avx512<'a, I: Iterator<Item = &'a [u8]>>(f: &mut Folding, pieces: I) {
    let k = k_2048_512();
    let streams = f.streams.as_mut().expect("the caller started the streams");
    let at = |phase: usize, i: usize| CHUNK * ((phase + i) % 4);
    // SAFETY: `at` is a multiple of 64 below 256, within the 256 octets of `streams`.
    let mut s: [__m512i; 4] =
        std::array::from_fn(|i| unsafe { load512(&streams.0, at(f.phase, i)) });
    let mut phase = f.phase;
    let mut one = |s: &mut [__m512i; 4], chunk: &[u8]| {
        // SAFETY: `chunk` holds 64 octets (a whole chunk of a piece, or the full pending).
        let folded = fold512(s[0], unsafe { load512(chunk, 0) }, k);
        *s = [s[1], s[2], s[3], folded];
        phase = (phase + 1) % 4;
    };
    for mut piece in pieces {
        if piece.len() == CHUNK && f.pending_len == 0 {
            one(&mut s, piece);
            continue;
        }
        if f.pending_len > 0 {
            let take = piece.len().min(CHUNK - f.pending_len);
            f.pending[f.pending_len..f.pending_len + take].copy_from_slice(&piece[..take]);
            f.pending_len += take;
            piece = &piece[take..];
            if f.pending_len < CHUNK {
                continue;
            }
            one(&mut s, &f.pending[..CHUNK]);
            f.pending_len = 0;
        }
        let mut periods = piece.chunks_exact(BLOCK);
        for period in &mut periods {
            // SAFETY: the loads are at 64i for i < 4, within the period's 256 octets.
            s = std::array::from_fn(|i| fold512(s[i], unsafe { load512(period, CHUNK * i) }, k));
        }
        let mut chunks = periods.remainder().chunks_exact(CHUNK);
        for chunk in &mut chunks {
            one(&mut s, chunk);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // (A call to copy: the branch keeps whole pieces clear of its register spills.)
            f.pending[..rest.len()].copy_from_slice(rest);
            f.pending_len = rest.len();
        }
    }
    for (i, stream) in s.iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe { _mm512_storeu_si512(streams.0.as_mut_ptr().add(at(phase, i)).cast(), *stream) };
    }
    f.phase = phase;
}

/// Folds the 16 streams into one, oldest first (the chunk at `phase` holds the oldest of the
/// latest 256 octets), then reduces its 128 bits to the CRC-32 (the paper's steps 2 and 3,
/// with a Barrett reduction for the last 64 bits).
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn collapse(streams: &[u8; BLOCK], phase: usize) -> u32 {
    let k3k4 = _mm_set_epi64x(K4, K3);
    let at = |i: usize| (CHUNK * phase + 16 * i) % BLOCK;
    // SAFETY: the loads are at multiples of 16 below 256, within the octets of `streams`.
    let mut x = unsafe { load128(streams, at(0)) };
    for i in 1..16 {
        // SAFETY: as above.
        x = fold128(x, unsafe { load128(streams, at(i)) }, k3k4);
    }
    let low32 = _mm_set_epi32(0, 0, 0, !0);
    // 128 to 96 bits, then 96 to 64.
    let x = _mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x10), _mm_srli_si128(x, 8));
    let x = _mm_xor_si128(
        _mm_clmulepi64_si128(_mm_and_si128(x, low32), _mm_set_epi64x(0, K5), 0x00),
        _mm_srli_si128(x, 4),
    );
    // Barrett: T1 = (R mod x^32) * mu, T2 = (T1 mod x^32) * P, CRC = (R + T2) / x^32.
    let pu = _mm_set_epi64x(U_PRIME, P_X);
    let t1 = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pu, 0x10);
    let t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), pu, 0x00);
    !(_mm_extract_epi32(_mm_xor_si128(x, t2), 1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernels() -> Vec<Kernel> {
        match Kernel::detect() {
            Some(Kernel::Avx512) => vec![Kernel::Avx512, Kernel::Avx2, Kernel::Pclmul],
            Some(Kernel::Avx2) => vec![Kernel::Avx2, Kernel::Pclmul],
            Some(Kernel::Pclmul) => vec![Kernel::Pclmul],
            None => vec![],
        }
    }

    #[test]
    fn folded_blocks_give_crc32fasts_crc() {
        let data: Vec<u8> = (0..BLOCK * 9).map(|i| (i * 131 + i / 7) as u8).collect();
        for kernel in kernels() {
            for blocks in 1..=9 {
                let part = &data[..blocks * BLOCK];
                let mut s = Streams::start(&part[..BLOCK], 0);
                let phase = s.fold(kernel, 0, &part[BLOCK..]);
                assert_eq!(phase, 0);
                assert_eq!(s.crc(phase), crc32fast::hash(part), "{kernel:?} {blocks}");
            }
        }
    }

    #[test]
    fn any_fragmentation_gives_crc32fasts_crc() {
        let data: Vec<u8> = (0..5000).map(|i| (i * 31 + i / 3) as u8).collect();
        for kernel in kernels() {
            for size in [
                1, 7, 63, 64, 65, 100, 128, 192, 255, 256, 257, 320, 1000, 4096,
            ] {
                let mut f = Folding::new(kernel);
                for piece in data.chunks(size) {
                    f.update(piece);
                }
                assert_eq!(f.value(), crc32fast::hash(&data), "{kernel:?} {size}");
            }
        }
    }

    #[test]
    fn a_start_from_an_earlier_crc_continues_it() {
        let data: Vec<u8> = (0..BLOCK * 2 + CHUNK * 3 + 5)
            .map(|i| (i * 7) as u8)
            .collect();
        for kernel in kernels() {
            let earlier = crc32fast::hash(&data[..5]);
            let mut s = Streams::start(&data[5..5 + BLOCK], earlier);
            let phase = s.fold(kernel, 0, &data[5 + BLOCK..]);
            assert_eq!(s.crc(phase), crc32fast::hash(&data));
        }
    }

    #[test]
    fn a_rope_at_once_gives_crc32fasts_crc() {
        let data: Vec<u8> = (0..5000).map(|i| (i * 31 + i / 3) as u8).collect();
        for kernel in kernels() {
            for size in [1, 7, 63, 64, 65, 100, 255, 256, 257, 320, 1000, 4096] {
                let mut f = Folding::new(kernel);
                f.update_all(data.chunks(size));
                assert_eq!(f.value(), crc32fast::hash(&data), "{kernel:?} {size}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Each kernel, given a random head piece by piece and then random pieces at once
        /// (`update_all`), then one more piece, agrees with crc32fast after each.
        #[test]
        fn a_rope_at_once_continues_and_is_continued(
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..3000),
            head in 0usize..700,
            cuts in proptest::collection::vec(0usize..300, 0..40),
            tail in 0usize..200,
        ) {
            let head = head.min(data.len());
            let tail_at = data.len() - tail.min(data.len() - head);
            let mut pieces = Vec::new();
            let mut at = head;
            for cut in cuts.iter().chain([&usize::MAX]) {
                let end = at.saturating_add(*cut).min(tail_at);
                pieces.push(&data[at..end]);
                at = end;
            }
            for kernel in kernels() {
                let mut f = Folding::new(kernel);
                f.update(&data[..head]);
                f.update_all(pieces.iter().copied());
                proptest::prop_assert_eq!(f.value(), crc32fast::hash(&data[..tail_at]));
                f.update(&data[tail_at..]);
                proptest::prop_assert_eq!(f.value(), crc32fast::hash(&data));
            }
        }

        /// Each kernel, on random octets cut at random places, agrees with crc32fast (the
        /// portable path and the peer) after every fragment.
        #[test]
        fn kernels_agree_with_crc32fast_after_every_fragment(
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..3000),
            cuts in proptest::collection::vec(0usize..700, 0..12),
        ) {
            for kernel in kernels() {
                let mut f = Folding::new(kernel);
                let mut at = 0usize;
                for cut in cuts.iter().chain([&usize::MAX]) {
                    let end = at.saturating_add(*cut).min(data.len());
                    f.update(&data[at..end]);
                    at = end;
                    proptest::prop_assert_eq!(f.value(), crc32fast::hash(&data[..at]));
                }
            }
        }
    }
}
