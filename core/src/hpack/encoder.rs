//! The HPACK encoder.

use super::table::{DEFAULT_TABLE_SIZE, DynamicTable, STATIC, find_static};
use super::{HuffmanMode, Indexing, huffman, integer};
use crate::block::BlockWriter;
use bytes::Bytes;

/// A header field to encode: name and value as octets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// Field name (lower case for HTTP/2).
    pub name: &'a [u8],
    /// Field value.
    pub value: &'a [u8],
    /// Sensitive fields are sent as "never indexed" literals (section 6.2.3) and never enter
    /// the dynamic table.
    pub sensitive: bool,
}

impl<'a> Header<'a> {
    /// A regular field.
    pub fn new(name: &'a [u8], value: &'a [u8]) -> Self {
        Self {
            name,
            value,
            sensitive: false,
        }
    }

    /// A sensitive field (for example `authorization`, or a short `cookie`).
    pub fn sensitive(name: &'a [u8], value: &'a [u8]) -> Self {
        Self {
            name,
            value,
            sensitive: true,
        }
    }
}

/// HPACK encoder: one per connection direction.
///
/// Logically equivalent to `wirelab_baselines::hpack::NaiveEncoder` with the same
/// configuration (they produce identical bytes), but it writes into an unsynchronized
/// [`BlockWriter`], Huffman-codes each string straight into a reserved range, and hands the
/// block over without copying it.
///
/// ```
/// use wirelab::hpack::{Decoder, Encoder, Header};
///
/// let mut enc = Encoder::new();
/// let block = enc.encode([Header::new(b":method", b"GET"), Header::new(b"x-id", b"42")]);
/// let mut dec = Decoder::new();
/// let headers = dec.decode_to_vec(&block).unwrap();
/// assert_eq!(headers[1], (b"x-id".to_vec(), b"42".to_vec()));
/// ```
#[derive(Debug)]
pub struct Encoder {
    huffman: HuffmanMode,
    indexing: Indexing,
    table: DynamicTable,
    /// Size updates to announce at the start of the next block: the smallest size set since
    /// the last block (if below the final one), then the final size (section 4.2).
    pending_min: Option<usize>,
    pending_final: Option<usize>,
    out: BlockWriter,
    scratch: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Encoder {
    /// Huffman [`HuffmanMode::Auto`], [`Indexing::Incremental`], a 4096-octet table.
    pub fn new() -> Self {
        Self {
            huffman: HuffmanMode::Auto,
            indexing: Indexing::Incremental,
            table: DynamicTable::with_lookup(DEFAULT_TABLE_SIZE),
            pending_min: None,
            pending_final: None,
            out: BlockWriter::new(),
            scratch: Vec::new(),
        }
    }

    /// Sets the Huffman mode.
    pub fn with_huffman(mut self, mode: HuffmanMode) -> Self {
        self.huffman = mode;
        self
    }

    /// Sets the indexing policy.
    pub fn with_indexing(mut self, indexing: Indexing) -> Self {
        self.indexing = indexing;
        self
    }

    /// The dynamic table.
    pub fn table(&self) -> &DynamicTable {
        &self.table
    }

    /// Changes the maximum dynamic table size (at most the peer's SETTINGS_HEADER_TABLE_SIZE).
    /// The next block starts with the Dynamic Table Size Update(s) that announce it.
    pub fn set_max_table_size(&mut self, size: usize) {
        self.table.set_max_size(size);
        self.pending_min = Some(self.pending_min.map_or(size, |m| m.min(size)));
        self.pending_final = Some(size);
    }

    /// Encodes a header list into one header block.
    pub fn encode<'a, I>(&mut self, headers: I) -> Bytes
    where
        I: IntoIterator<Item = Header<'a>>,
    {
        self.size_updates();
        for h in headers {
            self.field(h.name, h.value, h.sensitive);
        }
        self.out.take()
    }

    /// Encodes a header list given as text: each name and value is converted to octets once,
    /// as ISO-8859-1 with `?` for chars above U+00FF ([`crate::latin1::encode_lossy_into`]).
    pub fn encode_str<'a, I>(&mut self, headers: I) -> Bytes
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        self.size_updates();
        let mut scratch = std::mem::take(&mut self.scratch);
        for (name, value) in headers {
            scratch.clear();
            scratch.resize(name.len() + value.len(), 0);
            let n = crate::latin1::encode_lossy_into(name, &mut scratch);
            let v = crate::latin1::encode_lossy_into(value, &mut scratch[n..]);
            let (name, value) = scratch[..n + v].split_at(n);
            self.field(name, value, false);
        }
        self.scratch = scratch;
        self.out.take()
    }

    fn size_updates(&mut self) {
        if let Some(last) = self.pending_final.take() {
            let min = self.pending_min.take().unwrap_or(last);
            if min < last {
                integer::encode(&mut self.out, min, 5, 0x20);
            }
            integer::encode(&mut self.out, last, 5, 0x20);
        }
    }

    #[inline]
    fn field(&mut self, name: &[u8], value: &[u8], sensitive: bool) {
        let (static_name, static_exact) = find_static(name, value);
        if !sensitive && let Some(i) = static_exact {
            integer::encode(&mut self.out, i, 7, 0x80);
            return;
        }
        if sensitive || self.indexing == Indexing::None {
            let flags = if sensitive { 0x10 } else { 0x00 };
            self.literal(static_name, name, value, 4, flags);
            return;
        }
        let (dyn_name, dyn_exact) = self.table.find(name, value);
        if let Some(i) = dyn_exact {
            integer::encode(&mut self.out, STATIC.len() + 1 + i, 7, 0x80);
            return;
        }
        let name_index = static_name.or(dyn_name.map(|i| STATIC.len() + 1 + i));
        self.literal(name_index, name, value, 6, 0x40);
        self.table.insert(name, value);
    }

    #[inline]
    fn literal(&mut self, index: Option<usize>, name: &[u8], value: &[u8], bits: u8, flags: u8) {
        match index {
            Some(i) => integer::encode(&mut self.out, i, bits, flags),
            None => {
                self.out.put_u8(flags);
                self.string(name);
            }
        }
        self.string(value);
    }

    #[inline]
    fn string(&mut self, s: &[u8]) {
        let huffman_len = match self.huffman {
            HuffmanMode::Never => None,
            HuffmanMode::Always => Some(huffman::encoded_len(s)),
            HuffmanMode::Auto => Some(huffman::encoded_len(s)).filter(|&n| n < s.len()),
        };
        match huffman_len {
            Some(n) => {
                integer::encode(&mut self.out, n, 7, 0x80);
                huffman::encode_into(s, self.out.reserve(n))
                    .expect("encoded_len gives the exact length");
            }
            None => {
                integer::encode(&mut self.out, s.len(), 7, 0x00);
                self.out.put_slice(s);
            }
        }
    }
}
