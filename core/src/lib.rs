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
#![deny(missing_docs)]

pub mod block;
pub mod coding;
pub mod hpack;
pub mod latin1;
pub mod write_to;
