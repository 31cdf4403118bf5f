//! wirelab: optimized byte-level codecs for the hot paths of network protocol code.
//!
//! Every item here has a deliberately naive twin in the `wirelab-baselines` crate, under the same
//! module path, which serves as its test oracle and as the baseline of its benchmark in the
//! wirelab lab (`cargo lab bench`). Each module's docs carry the Motivation / Change / Result
//! note of the optimization it re-creates.
//!
//! * [`latin1`]: `&str` ⇄ ISO-8859-1 octets, ASCII runs copied in bulk.
//! * [`block`]: [`block::BlockWriter`], an unsynchronized reusable output buffer.
//! * [`write_to`]: copy a [`bytes::Buf`] into an [`std::io::Write`] without a temporary buffer.
//! * [`hpack`]: HPACK (RFC 7541) encoder and decoder with a table-driven Huffman code.
//! * [`coding`]: streaming gzip / zlib / raw deflate over a rope of pieces, per-fragment CRC-32.
//!
//! # Settings
//!
//! Every type with settings follows one style. `new` takes only what is required (a format,
//! nothing at all) and uses the documented defaults; it cannot fail. The settings themselves
//! are a plain config struct with public fields (`hpack::EncoderConfig`,
//! `coding::DecoderConfig`, ...) whose `Default` or `new` holds the defaults, and
//! `with_config` checks every value and returns a [`ConfigError`] naming the first one out of
//! range. Nothing is clamped silently. Plain structs keep a configuration easy to store, print,
//! compare and change field by field; one checked constructor keeps every invariant in one
//! place. Limits that a peer may change on a live connection (HPACK's table sizes) also have
//! `set_*` methods.
//!
//! # Features
//!
//! * `zlib-rs`: flate2's zlib-rs backend instead of miniz_oxide.
//! * `lab`: the counters the wirelab lab reports (`hpack::huffman::decode_counting`,
//!   `coding::Decoder::bytes_copied`). They are not part of the API otherwise.
#![deny(missing_docs)]

use std::fmt;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

pub mod block;
pub mod coding;
pub mod hpack;
pub mod latin1;
pub mod write_to;

/// Every CPU-dependent kernel choice of this crate on this CPU, as (dispatch point, kernel)
/// (only with the `lab` feature): the lab records it natively and under valgrind, which hides
/// AVX-512, to mark the instruction counts that measure another path than the wall time.
#[cfg(feature = "lab")]
pub fn kernels() -> Vec<(&'static str, &'static str)> {
    let mut all = latin1::kernels().to_vec();
    all.extend(hpack::huffman::kernels());
    all.push(coding::crc_kernel());
    all
}

/// A setting out of its allowed range, as a `with_config` constructor reports it.
///
/// ```
/// use wirelab::coding::{Encoder, EncoderConfig, Format};
///
/// let config = EncoderConfig { level: 12, ..EncoderConfig::new(Format::Gzip) };
/// let err = Encoder::with_config(config).unwrap_err();
/// assert_eq!(err.setting, "level");
/// assert_eq!(err.to_string(), "level is 12, allowed 0..=9");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting's field name.
    pub setting: &'static str,
    /// The value given.
    pub value: u64,
    /// The smallest allowed value.
    pub min: u64,
    /// The largest allowed value.
    pub max: u64,
}

impl ConfigError {
    /// Checks that `value` lies in `min..=max`.
    pub(crate) fn check(setting: &'static str, value: u64, min: u64, max: u64) -> Result<(), Self> {
        if (min..=max).contains(&value) {
            Ok(())
        } else {
            Err(Self {
                setting,
                value,
                min,
                max,
            })
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is {}, allowed {}..={}",
            self.setting, self.value, self.min, self.max
        )
    }
}

impl std::error::Error for ConfigError {}
