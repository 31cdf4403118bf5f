//! HPACK, header compression for HTTP/2 (RFC 7541): [`Encoder`], [`Decoder`], the Huffman code
//! they use ([`huffman`]), their [`DynamicTable`], and the limits and sizes their settings are
//! given in ([`DEFAULT_TABLE_SIZE`], [`ENTRY_OVERHEAD`], [`MAX_INT`]).
//!
//! # Motivation / Change / Result
//!
//! *Motivation.* Pekko HTTP's HPACK encoder (from twitter/hpack) Huffman-coded header values
//! a char at a time, wrote every output byte through a synchronized `ByteArrayOutputStream`,
//! and copied each finished block out. The naive twins in `wirelab_baselines::hpack` keep that
//! shape.
//!
//! *Change.* The original pull request made the Huffman coder work on byte arrays, replaced the
//! stream with an unsynchronized `ByteStringOutputStream` whose buffer the coder writes into
//! directly, and handed the block over without a copy. Here: headers given as `&str` are
//! converted to octets once ([`crate::latin1`]); strings are Huffman-coded straight into a range
//! reserved in a [`BlockWriter`](crate::block::BlockWriter), and in the default mode (Huffman
//! only when shorter) in one pass, without counting the code's length first: the code goes
//! into room for one octet less than the string and gives up when it does not fit; the block
//! is handed over as `Bytes`. The decoder uses a multi-symbol Huffman table and decodes into a
//! reused scratch buffer, calling back with borrowed slices.
//!
//! *Result.* The original measured 9619 / 3644 / 3522 ns (default mode), 9573 / 3819 / 3569 ns
//! (Huffman) and 2542 / 2525 / 1672 ns (raw): 2.7x and 1.5x. Ours: `reports/hpack-encode.md`.
//!
//! # Header field representations (section 6)
//!
//! ```text
//!   Indexed Header Field           Literal with Incremental Indexing
//!   +---+---------------------+    +---+---+-----------------+
//!   | 1 |      Index (7+)     |    | 0 | 1 |   Index (6+)    |  (0: new name follows)
//!   +---+---------------------+    +---+---+-----------------+
//!
//!   Literal without Indexing       Literal Never Indexed          Dynamic Table Size Update
//!   +---+---+---+---+---------+    +---+---+---+---+---------+    +---+---+---+-----------+
//!   | 0 | 0 | 0 | 0 |Index(4+)|    | 0 | 0 | 0 | 1 |Index(4+)|    | 0 | 0 | 1 | Max (5+)  |
//!   +---+---+---+---+---------+    +---+---+---+---+---------+    +---+---+---+-----------+
//!
//!   String Literal (section 5.2)
//!   +---+---------------------+
//!   | H |    Length (7+)      |
//!   +---+---------------------+
//!   |  String Data (Length octets)
//!   +-------------------------+
//! ```

use std::fmt;

mod decoder;
mod encoder;
pub mod huffman;
// The integer coding and the static table are the codec's internals. They are public only for
// the naive twins in `wirelab_baselines` (which share the RFC's static table) and the RFC 7541
// Appendix C conformance test (integer examples): hidden from the documentation, not part of
// the API. The dynamic table, which `Decoder::table` and `Encoder::table` show, is re-exported
// below.
#[doc(hidden)]
pub mod integer;
#[doc(hidden)]
pub mod table;

pub use decoder::{DEFAULT_MAX_HEADER_LIST_SIZE, Decoder, DecoderConfig, HeaderList};
pub use encoder::{Encoder, EncoderConfig, Header};
pub use huffman::HuffmanError;
pub use integer::MAX_INT;
pub use table::{DEFAULT_TABLE_SIZE, DynamicTable, ENTRY_OVERHEAD, Match};

/// When string literals are Huffman-coded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HuffmanMode {
    /// Only when strictly shorter than the raw string (the production default).
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Whether the encoder adds literal fields to the dynamic table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Indexing {
    /// Never: every field is sent as a literal without indexing (names still come from the
    /// static table where they are there).
    None,
    /// Literals are sent with incremental indexing and looked up in the static and dynamic
    /// tables.
    #[default]
    Incremental,
}

/// Why a header block could not be decoded.
///
/// [`DecodeError::Truncated`] means the block ended in the middle of a field (more input was
/// needed); every other variant means the block is malformed. Except for
/// [`DecodeError::HeaderListTooLarge`], after which the decoding context is intact, any error
/// is a connection error (RFC 9113 section 4.3): the [`Decoder`] refuses further blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The block ends inside a field representation.
    Truncated,
    /// An integer exceeds [`MAX_INT`].
    IntegerOverflow,
    /// Index 0, or an index past the static and dynamic tables.
    InvalidIndex(usize),
    /// A Huffman-coded string is invalid.
    Huffman(HuffmanError),
    /// A Dynamic Table Size Update above the allowed maximum.
    SizeUpdateTooLarge {
        /// The size the block asked for.
        requested: usize,
        /// The SETTINGS_HEADER_TABLE_SIZE in force.
        max: usize,
    },
    /// A Dynamic Table Size Update after the first header field of the block.
    SizeUpdateNotFirst,
    /// The decoded header list exceeds the maximum header list size. The rest of the block
    /// was still processed for the dynamic table, so the connection can continue (the stream
    /// should be refused).
    HeaderListTooLarge {
        /// The limit.
        limit: usize,
    },
    /// An earlier block failed with a connection error; this decoder is unusable.
    Poisoned,
}

impl DecodeError {
    /// Whether the connection must be closed (everything but an oversized header list).
    ///
    /// ```
    /// use wirelab::hpack::DecodeError;
    ///
    /// assert!(DecodeError::Truncated.is_connection_error());
    /// assert!(!DecodeError::HeaderListTooLarge { limit: 10 }.is_connection_error());
    /// ```
    pub fn is_connection_error(&self) -> bool {
        !matches!(self, DecodeError::HeaderListTooLarge { .. })
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated => f.write_str("header block ends inside a field"),
            DecodeError::IntegerOverflow => f.write_str("integer overflow"),
            DecodeError::InvalidIndex(i) => write!(f, "invalid table index {i}"),
            DecodeError::Huffman(e) => write!(f, "{e}"),
            DecodeError::SizeUpdateTooLarge { requested, max } => {
                write!(
                    f,
                    "table size update to {requested} above the maximum {max}"
                )
            }
            DecodeError::SizeUpdateNotFirst => {
                f.write_str("table size update after the first header field")
            }
            DecodeError::HeaderListTooLarge { limit } => {
                write!(f, "header list larger than {limit} octets")
            }
            DecodeError::Poisoned => f.write_str("decoder unusable after a connection error"),
        }
    }
}

impl std::error::Error for DecodeError {}

impl From<HuffmanError> for DecodeError {
    fn from(e: HuffmanError) -> Self {
        DecodeError::Huffman(e)
    }
}
