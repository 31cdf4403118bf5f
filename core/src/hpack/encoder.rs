//! The HPACK encoder.

use super::table::{DEFAULT_TABLE_SIZE, DynamicTable, find_static};
use super::{HuffmanMode, Indexing, huffman, integer};
use crate::ConfigError;
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
    ///
    /// ```
    /// let h = wirelab::hpack::Header::new(b"accept", b"*/*");
    /// assert!(!h.sensitive);
    /// ```
    pub fn new(name: &'a [u8], value: &'a [u8]) -> Self {
        Self {
            name,
            value,
            sensitive: false,
        }
    }

    /// A sensitive field (for example `authorization`, or a short `cookie`).
    ///
    /// ```
    /// let h = wirelab::hpack::Header::sensitive(b"authorization", b"secret");
    /// assert!(h.sensitive);
    /// ```
    pub fn sensitive(name: &'a [u8], value: &'a [u8]) -> Self {
        Self {
            name,
            value,
            sensitive: true,
        }
    }
}

/// Settings of an [`Encoder`] (see the crate docs, "Settings").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncoderConfig {
    /// When strings are Huffman-coded (default [`HuffmanMode::Auto`]).
    pub huffman: HuffmanMode,
    /// Whether literals enter the dynamic table (default [`Indexing::Incremental`]).
    pub indexing: Indexing,
    /// The dynamic table's maximum size, at most the peer's SETTINGS_HEADER_TABLE_SIZE
    /// (default [`DEFAULT_TABLE_SIZE`], up to [`MAX_INT`](super::MAX_INT)). Another value than the
    /// default is announced at the start of the first block.
    pub max_table_size: usize,
}

impl EncoderConfig {
    /// Checks every setting (what [`Encoder::with_config`] and the naive twin's run).
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `max_table_size` exceeds [`MAX_INT`](super::MAX_INT).
    ///
    /// ```
    /// assert!(wirelab::hpack::EncoderConfig::default().validate().is_ok());
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        let size = self.max_table_size as u64;
        ConfigError::check("max_table_size", size, 0, integer::MAX_INT)
    }
}

impl Default for EncoderConfig {
    fn default() -> Self {
        Self {
            huffman: HuffmanMode::Auto,
            indexing: Indexing::Incremental,
            max_table_size: DEFAULT_TABLE_SIZE,
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
    /// An encoder with the default [`EncoderConfig`]: Huffman [`HuffmanMode::Auto`],
    /// [`Indexing::Incremental`], a 4096-octet table.
    ///
    /// ```
    /// let enc = wirelab::hpack::Encoder::new();
    /// assert_eq!(enc.table().max_size(), 4096);
    /// ```
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

    /// An encoder with `config`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `max_table_size` exceeds [`MAX_INT`](super::MAX_INT).
    ///
    /// ```
    /// use wirelab::hpack::{Encoder, EncoderConfig, Header, HuffmanMode, Indexing};
    ///
    /// let config = EncoderConfig {
    ///     huffman: HuffmanMode::Never,
    ///     indexing: Indexing::None,
    ///     ..EncoderConfig::default()
    /// };
    /// let mut enc = Encoder::with_config(config)?;
    /// let block = enc.encode([Header::new(b"x-id", b"42")]);
    /// assert_eq!(&block[..], b"\x00\x04x-id\x0242");
    /// # Ok::<(), wirelab::ConfigError>(())
    /// ```
    pub fn with_config(config: EncoderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut enc = Self {
            huffman: config.huffman,
            indexing: config.indexing,
            ..Self::new()
        };
        if config.max_table_size != DEFAULT_TABLE_SIZE {
            enc.set_max_table_size(config.max_table_size);
        }
        Ok(enc)
    }

    /// The dynamic table.
    ///
    /// ```
    /// use wirelab::hpack::{Encoder, Header};
    ///
    /// let mut enc = Encoder::new();
    /// enc.encode([Header::new(b"x-id", b"42")]);
    /// assert_eq!(enc.table().get(0), Some((&b"x-id"[..], &b"42"[..])));
    /// ```
    pub fn table(&self) -> &DynamicTable {
        &self.table
    }

    /// Changes the maximum dynamic table size (at most the peer's SETTINGS_HEADER_TABLE_SIZE).
    /// The next block starts with the Dynamic Table Size Update(s) that announce it.
    ///
    /// ```
    /// let mut enc = wirelab::hpack::Encoder::new();
    /// enc.set_max_table_size(0);
    /// assert_eq!(&enc.encode([])[..], [0x20]); // a size update to 0
    /// ```
    pub fn set_max_table_size(&mut self, size: usize) {
        self.table.set_max_size(size);
        self.pending_min = Some(self.pending_min.map_or(size, |m| m.min(size)));
        self.pending_final = Some(size);
    }

    /// Encodes a header list into one header block.
    ///
    /// ```
    /// use wirelab::hpack::{Encoder, Header};
    ///
    /// let mut enc = Encoder::new();
    /// let block = enc.encode([Header::new(b":method", b"GET")]);
    /// assert_eq!(&block[..], [0x82]); // static table entry 2
    /// ```
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
    ///
    /// ```
    /// let mut enc = wirelab::hpack::Encoder::new();
    /// let block = enc.encode_str([(":method", "GET"), (":path", "/")]);
    /// assert_eq!(&block[..], [0x82, 0x84]);
    /// ```
    pub fn encode_str<'a, I>(&mut self, headers: I) -> Bytes
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        self.size_updates();
        let mut scratch = std::mem::take(&mut self.scratch);
        for (name, value) in headers {
            if name.is_ascii() && value.is_ascii() {
                // ASCII text is its own Latin-1 octets.
                self.field(name.as_bytes(), value.as_bytes(), false);
                continue;
            }
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
        let found = find_static(name, value);
        let static_name = found.name;
        if !sensitive && let Some(i) = found.field {
            integer::encode(&mut self.out, i, 7, 0x80);
            return;
        }
        if sensitive || self.indexing == Indexing::None {
            let flags = if sensitive { 0x10 } else { 0x00 };
            self.literal(static_name, name, value, 4, flags);
            return;
        }
        let dynamic = self.table.find_or_insert(name, value);
        if let Some(i) = dynamic.field {
            integer::encode(&mut self.out, i, 7, 0x80);
            return;
        }
        self.literal(static_name.or(dynamic.name), name, value, 6, 0x40);
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
        let mode = self.huffman;
        let huffman_len = match mode {
            HuffmanMode::Never => None,
            HuffmanMode::Always => Some(huffman::encoded_len(s)),
            HuffmanMode::Auto if self.huffman_shorter(s) => return,
            HuffmanMode::Auto => None,
        };
        match huffman_len {
            Some(n) => {
                integer::encode(&mut self.out, n, 7, 0x80);
                huffman::encode_into(s, self.out.put_zeroed(n))
                    .expect("encoded_len gives the exact length");
            }
            None => {
                integer::encode(&mut self.out, s.len(), 7, 0x00);
                self.out.put_slice(s);
            }
        }
    }

    /// Writes `s` Huffman-coded with its length prefix and returns true if the code is
    /// strictly shorter than `s`, in one pass: the code goes into room for `s.len() - 1`
    /// octets after a one-octet placeholder prefix and gives up as soon as it does not fit. A
    /// code of 127 octets or more needs a longer prefix, so it is written again after that.
    /// Returns false, having written nothing, when the code is not shorter (the caller then
    /// writes `s` raw).
    #[inline]
    fn huffman_shorter(&mut self, s: &[u8]) -> bool {
        if s.is_empty() {
            return false;
        }
        let start = self.out.len();
        let room = self.out.put_zeroed(s.len());
        match huffman::encode_within(s, &mut room[1..]) {
            Some(n) if n < 127 => {
                room[0] = 0x80 | n as u8;
                self.out.truncate(start + 1 + n);
                true
            }
            Some(n) => {
                // A prefix of two or more octets: write it and the encoding afresh.
                self.out.truncate(start);
                integer::encode(&mut self.out, n, 7, 0x80);
                huffman::encode_into(s, self.out.put_zeroed(n))
                    .expect("encode_within gave the length");
                true
            }
            None => {
                self.out.truncate(start);
                false
            }
        }
    }
}
