//! Streaming gzip (RFC 1952), zlib (RFC 1950) and raw deflate (RFC 1951) over a [`Rope`] of
//! input pieces, with per-fragment CRC-32.
//!
//! # Motivation / Change / Result
//!
//! *Motivation.* Pekko HTTP's coding stages copied all remaining input into a fresh array
//! before every inflate round (`remainingData.toArray`), re-parsed the gzip header from its
//! start after every push, and checksummed a concatenated copy of the input. The naive twins
//! in `wirelab_baselines::coding` keep those shapes.
//!
//! *Change.* The "coding stages" pull request kept the input as a rope of the byte strings as
//! they arrived and handed the inflater slices of them, parsed the header incrementally, and
//! updated the CRC per fragment. The same here: [`Decoder`] feeds flate2's `Decompress`
//! borrowed slices of the buffered pieces and inflates into a reused, initialised buffer;
//! [`crc`] updates per fragment, and (beyond the original) keeps its folding state across
//! fragments, so that short ones cost about what contiguous octets cost.
//!
//! *Result.* The original measured inflate 34 → 12 ms (64 KiB pieces) and 40 → 28 ms (8 KiB),
//! 155 vs 154 ms on compressible data, CRC sliced 221 → 154 ms. See `reports/crc.md`,
//! `reports/inflate.md`, `reports/deflate.md`, `reports/gzip.md`.
//!
//! # Wire formats
//!
//! ```text
//! gzip member:  +---+---+---+---+---+---+---+---+---+---+
//!               |ID1|ID2|CM |FLG|     MTIME     |XFL|OS |  then, by FLG: FEXTRA (XLEN + data),
//!               +---+---+---+---+---+---+---+---+---+---+  FNAME (zero-terminated), FCOMMENT
//!               ...deflate data...                          (zero-terminated), FHCRC (2 bytes)
//!               +---+---+---+---+---+---+---+---+
//!               |     CRC32     |     ISIZE     |          little-endian
//!               +---+---+---+---+---+---+---+---+
//!
//! zlib stream:  +---+---+=====================+---+---+---+---+
//!               |CMF|FLG| ...deflate data...  |    ADLER32    |  big-endian
//!               +---+---+=====================+---+---+---+---+
//! ```

use bytes::Bytes;
use std::fmt;

pub mod crc;
mod decoder;
mod encoder;
#[cfg(target_arch = "x86_64")]
mod fold;
mod gzip_header;
mod rope;

pub use decoder::{
    DEFAULT_MAX_CHUNK, DEFAULT_MAX_OUTPUT, Decoder, DecoderConfig, MAX_CHUNK, Trailing,
    is_zlib_header,
};
pub use encoder::{Encoder, EncoderConfig, MIN_ENCODER_CHUNK};
pub use rope::Rope;

/// The push API of a streaming decoder: [`Decoder`] implements it, and so does its naive twin
/// (`wirelab_baselines::coding::NaiveDecoder`), so that code (tests, benchmarks, a server's
/// body stage) can drive either.
///
/// ```
/// use bytes::Bytes;
/// use wirelab::coding::{CodingError, Decoder, Encoder, Format, PushDecoder};
///
/// fn decode_all(mut dec: impl PushDecoder, input: &[u8]) -> Result<Vec<u8>, CodingError> {
///     let mut out = Vec::new();
///     dec.push(Bytes::copy_from_slice(input), &mut |b| out.extend_from_slice(&b))?;
///     dec.finish(&mut |b| out.extend_from_slice(&b))?;
///     Ok(out)
/// }
///
/// let mut zlib = Vec::new();
/// let mut enc = Encoder::new(Format::Zlib);
/// enc.push(b"text", &mut |b| zlib.extend_from_slice(&b)).unwrap();
/// enc.finish(&mut |b| zlib.extend_from_slice(&b)).unwrap();
/// assert_eq!(decode_all(Decoder::new(Format::Zlib), &zlib)?, b"text");
/// # Ok::<(), CodingError>(())
/// ```
pub trait PushDecoder {
    /// Feeds one piece; calls `emit` with each output piece.
    ///
    /// # Errors
    ///
    /// Any [`CodingError`] but [`CodingError::Truncated`]; after an error the decoder accepts
    /// nothing more ([`CodingError::Poisoned`]).
    fn push(&mut self, piece: Bytes, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError>;

    /// Ends the input; fails with [`CodingError::Truncated`] unless the data was complete.
    ///
    /// # Errors
    ///
    /// [`CodingError::Truncated`], or [`CodingError::Poisoned`] after an earlier error.
    fn finish(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError>;
}

/// The CRC-32 folding kernel this CPU gets (only with the `lab` feature): `vpclmulqdq-avx512`,
/// `vpclmulqdq-avx2`, `pclmulqdq`, or `crc32fast` (no carry-less multiply: crc32fast does the
/// work).
#[cfg(feature = "lab")]
pub fn crc_kernel() -> (&'static str, &'static str) {
    #[cfg(target_arch = "x86_64")]
    let kernel = match fold::Kernel::detect() {
        Some(fold::Kernel::Avx512) => "vpclmulqdq-avx512",
        Some(fold::Kernel::Avx2) => "vpclmulqdq-avx2",
        Some(fold::Kernel::Pclmul) => "pclmulqdq",
        None => "crc32fast",
    };
    #[cfg(not(target_arch = "x86_64"))]
    let kernel = "crc32fast";
    ("crc folding", kernel)
}

/// The lab's copy counter (only with the `lab` feature): bytes a decoder copied from one
/// buffer into another so far. See [`Decoder`]'s implementation for what is counted.
#[cfg(feature = "lab")]
pub trait CopyCount {
    /// Bytes copied between buffers so far.
    fn bytes_copied(&self) -> u64;
}

/// Why an [`Encoder`] could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The stream was finished; the encoder accepts nothing more.
    Finished,
    /// The deflater failed (its message); not expected with a valid configuration.
    Deflate(String),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Finished => f.write_str("the stream was already finished"),
            EncodeError::Deflate(e) => write!(f, "deflate failed: {e}"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// The stream format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// gzip (RFC 1952), one or more members.
    Gzip,
    /// zlib (RFC 1950).
    Zlib,
    /// Raw deflate (RFC 1951).
    Raw,
    /// HTTP's `Content-Encoding: deflate`: zlib or raw, probed from the first two bytes when
    /// decoding (zlib when encoding).
    Deflate,
}

/// Why a stream could not be decoded. Every fault has its own variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodingError {
    /// The gzip magic bytes are wrong.
    NotGzip,
    /// A compression method other than deflate (8).
    UnsupportedMethod(u8),
    /// Reserved gzip flag bits are set.
    ReservedFlags(u8),
    /// The gzip header's FHCRC does not match.
    HeaderCrcMismatch {
        /// From the header.
        expected: u16,
        /// Computed.
        actual: u16,
    },
    /// A zlib header whose check bits or window size are wrong.
    BadZlibHeader,
    /// A zlib stream that needs a preset dictionary.
    ZlibDictionary,
    /// The deflate data (or a zlib Adler-32) is corrupt, as the inflater reports it.
    Corrupt(String),
    /// The gzip trailer's CRC-32 does not match the data.
    CrcMismatch {
        /// From the trailer.
        expected: u32,
        /// Computed.
        actual: u32,
    },
    /// The gzip trailer's ISIZE does not match the data's length (mod 2^32).
    LengthMismatch {
        /// From the trailer.
        expected: u32,
        /// Decoded.
        actual: u32,
    },
    /// The input ended before the end of the stream.
    Truncated,
    /// Bytes other than zero padding after the end of the data.
    TrailingGarbage,
    /// The output exceeded the configured limit (a decompression bomb?).
    OutputLimit {
        /// The limit.
        limit: u64,
    },
    /// The decoder failed earlier and accepts nothing more.
    Poisoned,
}

impl fmt::Display for CodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodingError::NotGzip => f.write_str("not gzip data (bad magic bytes)"),
            CodingError::UnsupportedMethod(m) => write!(f, "unsupported compression method {m}"),
            CodingError::ReservedFlags(fl) => write!(f, "reserved gzip flags set ({fl:#04x})"),
            CodingError::HeaderCrcMismatch { expected, actual } => write!(
                f,
                "gzip header CRC {expected:#06x} does not match the computed {actual:#06x}"
            ),
            CodingError::BadZlibHeader => f.write_str("invalid zlib header"),
            CodingError::ZlibDictionary => {
                f.write_str("zlib preset dictionaries are not supported")
            }
            CodingError::Corrupt(e) => write!(f, "corrupt deflate data: {e}"),
            CodingError::CrcMismatch { expected, actual } => {
                write!(
                    f,
                    "CRC-32 {expected:#010x} in the trailer, {actual:#010x} computed"
                )
            }
            CodingError::LengthMismatch { expected, actual } => {
                write!(f, "length {expected} in the trailer, {actual} decoded")
            }
            CodingError::Truncated => f.write_str("the stream is truncated"),
            CodingError::TrailingGarbage => f.write_str("trailing bytes after the end of the data"),
            CodingError::OutputLimit { limit } => {
                write!(f, "output exceeds the limit of {limit} bytes")
            }
            CodingError::Poisoned => f.write_str("the decoder failed earlier"),
        }
    }
}

impl std::error::Error for CodingError {}
