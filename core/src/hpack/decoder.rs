//! The HPACK decoder.

use super::table::{DEFAULT_TABLE_SIZE, DynamicTable, ENTRY_OVERHEAD, STATIC};
use super::{DecodeError, huffman, integer};
use crate::ConfigError;

/// The default maximum header list size (SETTINGS_MAX_HEADER_LIST_SIZE semantics: the sum of
/// name length + value length + 32 over all fields of a block).
pub const DEFAULT_MAX_HEADER_LIST_SIZE: usize = 64 * 1024;

/// A decoded header list: `(name, value)` pairs in block order.
pub type HeaderList = Vec<(Vec<u8>, Vec<u8>)>;

/// Settings of a [`Decoder`] (see the crate docs, "Settings").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoderConfig {
    /// The largest table size a Dynamic Table Size Update may ask for: the
    /// SETTINGS_HEADER_TABLE_SIZE we advertise (default [`DEFAULT_TABLE_SIZE`], up to
    /// [`MAX_INT`](super::MAX_INT)).
    pub max_table_size: usize,
    /// The largest decoded header list (name + value + 32 octets per field; default
    /// [`DEFAULT_MAX_HEADER_LIST_SIZE`]).
    pub max_header_list_size: usize,
}

impl DecoderConfig {
    /// Checks every setting (what [`Decoder::with_config`] and the naive twin's run).
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `max_table_size` exceeds [`MAX_INT`](super::MAX_INT).
    ///
    /// ```
    /// use wirelab::hpack::DecoderConfig;
    ///
    /// let config = DecoderConfig { max_table_size: usize::MAX, ..DecoderConfig::default() };
    /// assert_eq!(config.validate().unwrap_err().setting, "max_table_size");
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        let size = self.max_table_size as u64;
        ConfigError::check("max_table_size", size, 0, integer::MAX_INT)
    }
}

impl Default for DecoderConfig {
    fn default() -> Self {
        Self {
            max_table_size: DEFAULT_TABLE_SIZE,
            max_header_list_size: DEFAULT_MAX_HEADER_LIST_SIZE,
        }
    }
}

/// HPACK decoder: one per connection direction.
///
/// Logically equivalent to `wirelab_baselines::hpack::NaiveDecoder` (a bit-by-bit Huffman tree
/// walk and a naive table), but it decodes Huffman strings several symbols per table lookup
/// into a reused scratch buffer and hands the fields to a callback as borrowed slices, so
/// decoding allocates only when the dynamic table takes a new entry.
///
/// Limits: the dynamic table size a peer may ask for ([`Decoder::set_max_table_size`], the
/// SETTINGS_HEADER_TABLE_SIZE we advertised; 4096 by default) and the header list size
/// ([`Decoder::set_max_header_list_size`], [`DEFAULT_MAX_HEADER_LIST_SIZE`] by default).
#[derive(Debug)]
pub struct Decoder {
    table: DynamicTable,
    max_table_size: usize,
    max_header_list_size: usize,
    scratch: Vec<u8>,
    poisoned: bool,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// A decoder with the default [`DecoderConfig`]: a 4096-octet table and a 64 KiB header
    /// list limit.
    ///
    /// ```
    /// let dec = wirelab::hpack::Decoder::new();
    /// assert_eq!(dec.table().max_size(), 4096);
    /// ```
    pub fn new() -> Self {
        Self {
            table: DynamicTable::new(DEFAULT_TABLE_SIZE),
            max_table_size: DEFAULT_TABLE_SIZE,
            max_header_list_size: DEFAULT_MAX_HEADER_LIST_SIZE,
            scratch: Vec::new(),
            poisoned: false,
        }
    }

    /// A decoder with `config`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `max_table_size` exceeds [`MAX_INT`](super::MAX_INT).
    ///
    /// ```
    /// use wirelab::hpack::{DecodeError, Decoder, DecoderConfig};
    ///
    /// let config = DecoderConfig { max_header_list_size: 40, ..DecoderConfig::default() };
    /// let mut dec = Decoder::with_config(config)?;
    /// let err = dec.decode_to_vec(&[0x82, 0x84]).unwrap_err(); // :method GET, :path /
    /// assert_eq!(err, DecodeError::HeaderListTooLarge { limit: 40 });
    /// # Ok::<(), wirelab::ConfigError>(())
    /// ```
    pub fn with_config(config: DecoderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut dec = Self::new();
        dec.set_max_table_size(config.max_table_size);
        dec.set_max_header_list_size(config.max_header_list_size);
        Ok(dec)
    }

    /// Sets the largest table size a Dynamic Table Size Update may ask for (the
    /// SETTINGS_HEADER_TABLE_SIZE we advertised). A smaller bound than the current table size
    /// shrinks the table at once.
    ///
    /// ```
    /// use wirelab::hpack::{DecodeError, Decoder};
    ///
    /// let mut dec = Decoder::new();
    /// dec.set_max_table_size(100);
    /// let err = dec.decode_to_vec(&[0x3f, 0xe1, 0x1f]).unwrap_err(); // size update to 4096
    /// assert_eq!(err, DecodeError::SizeUpdateTooLarge { requested: 4096, max: 100 });
    /// ```
    pub fn set_max_table_size(&mut self, size: usize) {
        self.max_table_size = size;
        if self.table.max_size() > size {
            self.table.set_max_size(size);
        }
    }

    /// Sets the maximum header list size.
    ///
    /// ```
    /// let mut dec = wirelab::hpack::Decoder::new();
    /// dec.set_max_header_list_size(1 << 20);
    /// assert!(dec.decode_to_vec(&[0x82]).is_ok());
    /// ```
    pub fn set_max_header_list_size(&mut self, size: usize) {
        self.max_header_list_size = size;
    }

    /// The dynamic table.
    ///
    /// ```
    /// let mut dec = wirelab::hpack::Decoder::new();
    /// dec.decode_to_vec(b"\x40\x04x-id\x0242").unwrap(); // literal with indexing
    /// assert_eq!(dec.table().len(), 1);
    /// ```
    pub fn table(&self) -> &DynamicTable {
        &self.table
    }

    /// Decodes one header block, calling `f(name, value)` for each field in order.
    ///
    /// # Errors
    ///
    /// See [`DecodeError`]. On [`DecodeError::HeaderListTooLarge`] `f` has seen the fields
    /// up to the limit, the rest of the block was processed for the dynamic table only, and
    /// the decoder stays usable. On any other error the decoder refuses further blocks.
    ///
    /// ```
    /// let mut dec = wirelab::hpack::Decoder::new();
    /// let mut fields = Vec::new();
    /// dec.decode(&[0x82, 0x84], |name, value| fields.push(format!(
    ///     "{}: {}", String::from_utf8_lossy(name), String::from_utf8_lossy(value),
    /// )))?;
    /// assert_eq!(fields, [":method: GET", ":path: /"]);
    /// # Ok::<(), wirelab::hpack::DecodeError>(())
    /// ```
    pub fn decode<F>(&mut self, block: &[u8], mut f: F) -> Result<(), DecodeError>
    where
        F: FnMut(&[u8], &[u8]),
    {
        if self.poisoned {
            return Err(DecodeError::Poisoned);
        }
        let r = self.decode_block(block, &mut f);
        if let Err(e) = r
            && e.is_connection_error()
        {
            self.poisoned = true;
        }
        r
    }

    /// Decodes one header block into a list.
    ///
    /// # Errors
    ///
    /// As [`Decoder::decode`].
    ///
    /// ```
    /// let mut dec = wirelab::hpack::Decoder::new();
    /// let fields = dec.decode_to_vec(&[0x82])?;
    /// assert_eq!(fields, [(b":method".to_vec(), b"GET".to_vec())]);
    /// # Ok::<(), wirelab::hpack::DecodeError>(())
    /// ```
    pub fn decode_to_vec(&mut self, block: &[u8]) -> Result<HeaderList, DecodeError> {
        let mut out = Vec::new();
        self.decode(block, |n, v| out.push((n.to_vec(), v.to_vec())))?;
        Ok(out)
    }

    /// Appends a string literal at `block[*pos..]` to the scratch buffer.
    #[inline]
    fn string(&mut self, block: &[u8], pos: &mut usize) -> Result<(), DecodeError> {
        let huffman = block.get(*pos).ok_or(DecodeError::Truncated)? & 0x80 != 0;
        let len = integer::decode(block, pos, 7)?;
        let end = pos.checked_add(len).ok_or(DecodeError::Truncated)?;
        let bytes = block.get(*pos..end).ok_or(DecodeError::Truncated)?;
        *pos = end;
        if huffman {
            huffman::decode(bytes, &mut self.scratch)?;
        } else {
            self.scratch.extend_from_slice(bytes);
        }
        Ok(())
    }

    fn decode_block<F>(&mut self, block: &[u8], f: &mut F) -> Result<(), DecodeError>
    where
        F: FnMut(&[u8], &[u8]),
    {
        let mut pos = 0;
        let mut seen_field = false;
        let mut list_size = 0usize;
        let limit = self.max_header_list_size;
        let mut over = false;
        let mut emit = |f: &mut F, name: &[u8], value: &[u8]| {
            if over {
                return;
            }
            list_size += name.len() + value.len() + ENTRY_OVERHEAD;
            if list_size > limit {
                over = true;
            } else {
                f(name, value);
            }
        };
        while let Some(&b) = block.get(pos) {
            if b & 0x80 != 0 {
                // Indexed Header Field.
                let index = integer::decode(block, &mut pos, 7)?;
                let (name, value) = entry(&self.table, index)?;
                emit(f, name, value);
            } else if b & 0xE0 == 0x20 {
                // Dynamic Table Size Update.
                if seen_field {
                    return Err(DecodeError::SizeUpdateNotFirst);
                }
                let size = integer::decode(block, &mut pos, 5)?;
                if size > self.max_table_size {
                    return Err(DecodeError::SizeUpdateTooLarge {
                        requested: size,
                        max: self.max_table_size,
                    });
                }
                self.table.set_max_size(size);
                continue;
            } else {
                // Literal: with incremental indexing (01), without (0000), never (0001).
                let (bits, index_it) = if b & 0xC0 == 0x40 {
                    (6, true)
                } else {
                    (4, false)
                };
                let index = integer::decode(block, &mut pos, bits)?;
                self.scratch.clear();
                if index == 0 {
                    self.string(block, &mut pos)?;
                } else {
                    // Copied out of the table: inserting this field may evict its entry.
                    let (name, _) = entry(&self.table, index)?;
                    self.scratch.extend_from_slice(name);
                }
                let name_len = self.scratch.len();
                self.string(block, &mut pos)?;
                let (name, value) = self.scratch.split_at(name_len);
                emit(f, name, value);
                if index_it {
                    self.table.insert(name, value);
                }
            }
            seen_field = true;
        }
        if over {
            return Err(DecodeError::HeaderListTooLarge { limit });
        }
        Ok(())
    }
}

/// The field at 1-based `index` of the static table followed by the dynamic table.
#[inline]
fn entry(table: &DynamicTable, index: usize) -> Result<(&[u8], &[u8]), DecodeError> {
    match index {
        0 => Err(DecodeError::InvalidIndex(0)),
        i if i <= STATIC.len() => Ok(STATIC[i - 1]),
        i => table
            .get(i - STATIC.len() - 1)
            .ok_or(DecodeError::InvalidIndex(i)),
    }
}
