//! CRC-32 (IEEE, as in gzip) over a rope, one fragment at a time.
//!
//! # Motivation / Change / Result
//!
//! *Motivation.* Pekko HTTP's gzip stage concatenated the input fragments into one array
//! before checksumming them ("copy-then-checksum"). The naive twin,
//! `wirelab_baselines::coding::crc_copy_then_checksum`, keeps that.
//!
//! *Change.* The original change updated the CRC fragment by fragment ([`per_fragment`]),
//! which avoids the copy but pays crc32fast's per-call overhead on every fragment: each call
//! folds its input down to 32 bits at its end, and below about 1 KiB that overhead makes it
//! slower than one big call over a copy. Beyond the original, [`Adaptive`] keeps the folding
//! state between fragments: 16 streams of 16 octets folded forward a 256-octet block at a time
//! (VPCLMULQDQ over 512-bit registers where the CPU has AVX-512, PCLMULQDQ otherwise), with an
//! incomplete block held back until the next fragment completes it, and one reduction to 32
//! bits when the CRC is asked for. Short fragments cost a copy into that block; long ones fold
//! in place. Without PCLMULQDQ (or off x86-64) it is crc32fast fragment by fragment.
//!
//! *Result.* The original measured sliced 221 → 154 ms and compact 102 → 98 ms; ours are in
//! `reports/crc.md`.

#[cfg(target_arch = "x86_64")]
use super::fold::{Folding, Kernel};
use crc32fast::Hasher;

/// CRC-32 of the concatenation of `pieces`, one `update` per piece.
///
/// Logically equivalent to copying the pieces into one buffer and checksumming it (the naive
/// twin), without the copy.
///
/// ```
/// let crc = wirelab::coding::crc::per_fragment([&b"1234"[..], b"56789"]);
/// assert_eq!(crc, 0xCBF4_3926); // the CRC-32 check value of "123456789"
/// ```
pub fn per_fragment<'a, I>(pieces: I) -> u32
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut h = Hasher::new();
    for p in pieces {
        h.update(p);
    }
    h.finalize()
}

/// CRC-32 of the concatenation of `pieces` with [`Adaptive`].
///
/// ```
/// let crc = wirelab::coding::crc::adaptive([&b"1234"[..], b"56789"]);
/// assert_eq!(crc, 0xCBF4_3926);
/// ```
pub fn adaptive<'a, I>(pieces: I) -> u32
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut a = Adaptive::new();
    a.extend(pieces);
    a.finalize()
}

/// A CRC-32 hasher that keeps its folding state across fragments (see the module's *Change*):
/// a rope of short fragments costs about what the same octets cost contiguous.
///
/// Under valgrind, which hides AVX-512 from the program, the PCLMULQDQ kernel runs: the lab's
/// instruction counts measure that path.
#[derive(Clone)]
pub struct Adaptive {
    /// The folding state, where the CPU has a kernel for it.
    #[cfg(target_arch = "x86_64")]
    fold: Option<Folding>,
    /// crc32fast fragment by fragment, where it has none.
    plain: Hasher,
}

impl std::fmt::Debug for Adaptive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(target_arch = "x86_64")]
        let pending = self.fold.as_ref().map_or(0, Folding::pending);
        #[cfg(not(target_arch = "x86_64"))]
        let pending = 0;
        f.debug_struct("Adaptive")
            .field("pending", &pending)
            .finish()
    }
}

impl<'a> Extend<&'a [u8]> for Adaptive {
    /// Adds every piece, in order: what [`update`](Adaptive::update) piece by piece does, and
    /// with AVX-512 faster on a rope of short pieces (the folding state stays in registers
    /// from one piece to the next).
    ///
    /// ```
    /// let mut crc = wirelab::coding::crc::Adaptive::new();
    /// crc.extend([&b"1234"[..], b"5", b"6789"]);
    /// assert_eq!(crc.finalize(), 0xCBF4_3926);
    /// ```
    fn extend<T: IntoIterator<Item = &'a [u8]>>(&mut self, pieces: T) {
        #[cfg(target_arch = "x86_64")]
        if let Some(fold) = &mut self.fold {
            return fold.update_all(pieces.into_iter());
        }
        pieces
            .into_iter()
            .for_each(|piece| self.plain.update(piece));
    }
}

impl Default for Adaptive {
    fn default() -> Self {
        Self::new()
    }
}

impl Adaptive {
    /// A fresh hasher.
    ///
    /// ```
    /// assert_eq!(wirelab::coding::crc::Adaptive::new().value(), 0);
    /// ```
    pub fn new() -> Self {
        Self {
            #[cfg(target_arch = "x86_64")]
            fold: Kernel::detect().map(Folding::new),
            plain: Hasher::new(),
        }
    }

    /// Adds a fragment.
    ///
    /// ```
    /// let mut crc = wirelab::coding::crc::Adaptive::new();
    /// for piece in [&b"123"[..], b"456", b"789"] {
    ///     crc.update(piece);
    /// }
    /// assert_eq!(crc.finalize(), 0xCBF4_3926);
    /// ```
    #[inline]
    pub fn update(&mut self, piece: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(fold) = &mut self.fold {
            return fold.update(piece);
        }
        self.plain.update(piece);
    }

    /// The CRC of everything added so far (the hasher can keep going).
    ///
    /// ```
    /// let mut crc = wirelab::coding::crc::Adaptive::new();
    /// crc.update(b"123456789");
    /// assert_eq!(crc.value(), 0xCBF4_3926);
    /// crc.update(b"0");
    /// assert_ne!(crc.value(), 0xCBF4_3926);
    /// ```
    pub fn value(&self) -> u32 {
        #[cfg(target_arch = "x86_64")]
        if let Some(fold) = &self.fold {
            return fold.value();
        }
        self.plain.clone().finalize()
    }

    /// The CRC of everything added.
    ///
    /// ```
    /// let mut crc = wirelab::coding::crc::Adaptive::new();
    /// crc.update(b"123456789");
    /// assert_eq!(crc.finalize(), 0xCBF4_3926);
    /// ```
    pub fn finalize(self) -> u32 {
        self.value()
    }

    /// Starts over.
    ///
    /// ```
    /// let mut crc = wirelab::coding::crc::Adaptive::new();
    /// crc.update(b"junk");
    /// crc.reset();
    /// crc.update(b"123456789");
    /// assert_eq!(crc.finalize(), 0xCBF4_3926);
    /// ```
    pub fn reset(&mut self) {
        *self = Self::new();
    }
}
