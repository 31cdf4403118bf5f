//! Deliberately naive: HPACK in the shape of the twitter/hpack code Pekko HTTP started from. The
//! Huffman encoder walks a `&str` one char at a time, computes the length in one pass and
//! encodes in a second; every output byte goes through a [`LockingWriter`]; the finished block
//! is copied out; the Huffman decoder walks a binary tree one bit at a time; the dynamic table
//! is a `Vec` that shifts on every insert. Leaves out everything `wirelab::hpack` does.
//!
//! Shared with `wirelab::hpack` (constant data and contract types only): the RFC 7541 tables
//! (`CODES`, `CODE_LENGTHS`, `STATIC`), and `HuffmanMode`, `Indexing`, `DecodeError`,
//! `HuffmanError`, `EncoderConfig`, `DecoderConfig`. The twins' constructors and methods
//! mirror the optimized ones' (`new`, `with_config`, `set_max_table_size`, ...).

use crate::block::LockingWriter;
use bytes::Bytes;
use std::sync::LazyLock;
use wirelab::ConfigError;
use wirelab::hpack::huffman::{CODE_LENGTHS, CODES, EOS, HuffmanError};
use wirelab::hpack::table::STATIC;
use wirelab::hpack::{DEFAULT_TABLE_SIZE, ENTRY_OVERHEAD, MAX_INT};
use wirelab::hpack::{DecodeError, DecoderConfig, EncoderConfig, HuffmanMode, Indexing};

/// Deliberately naive Huffman coding.
pub mod huffman {
    use super::*;

    /// Deliberately naive: the encoded length of `s`, one char at a time (`c as u32 & 0xFF`).
    pub fn encoded_len_chars(s: &str) -> usize {
        let mut bits = 0usize;
        for c in s.chars() {
            bits += CODE_LENGTHS[(c as u32 & 0xFF) as usize] as usize;
        }
        bits.div_ceil(8)
    }

    /// Deliberately naive: a second pass over the chars, each output byte written through the
    /// locking writer.
    pub fn encode_chars(s: &str, w: &LockingWriter) {
        let mut acc: u64 = 0;
        let mut bits = 0u32;
        for c in s.chars() {
            let sym = (c as u32 & 0xFF) as usize;
            let len = u32::from(CODE_LENGTHS[sym]);
            acc = (acc << len) | u64::from(CODES[sym]);
            bits += len;
            while bits >= 8 {
                bits -= 8;
                w.put_u8((acc >> bits) as u8);
            }
        }
        if bits > 0 {
            let pad = 8 - bits;
            w.put_u8(((acc << pad) | ((1 << pad) - 1)) as u8);
        }
    }

    /// A node of the decoding tree: children for bit 0 and 1, or a symbol.
    #[derive(Clone, Copy)]
    enum Node {
        Branch([u16; 2]),
        Leaf(u16),
    }

    static TREE: LazyLock<Vec<Node>> = LazyLock::new(|| {
        let mut nodes = vec![Node::Branch([0, 0])];
        for sym in 0..=EOS {
            let (code, len) = (CODES[sym], CODE_LENGTHS[sym]);
            let mut at = 0usize;
            for i in (0..len).rev() {
                let bit = ((code >> i) & 1) as usize;
                let Node::Branch(children) = nodes[at] else {
                    unreachable!("the code is prefix-free")
                };
                if i == 0 {
                    nodes.push(Node::Leaf(sym as u16));
                } else if children[bit] == 0 {
                    nodes.push(Node::Branch([0, 0]));
                } else {
                    at = children[bit] as usize;
                    continue;
                }
                let new = (nodes.len() - 1) as u16;
                if let Node::Branch(c) = &mut nodes[at] {
                    c[bit] = new;
                }
                at = new as usize;
            }
        }
        nodes
    });

    /// Deliberately naive: walks the code tree one bit at a time.
    ///
    /// # Errors
    ///
    /// EOS in the string, padding longer than 7 bits or not all ones.
    pub fn decode(src: &[u8], dst: &mut Vec<u8>) -> Result<(), HuffmanError> {
        let tree = &*TREE;
        let mut at = 0usize;
        let mut depth = 0u32;
        let mut all_ones = true;
        for &byte in src {
            for i in (0..8).rev() {
                let bit = ((byte >> i) & 1) as usize;
                let Node::Branch(children) = tree[at] else {
                    unreachable!("a walk restarts at the root after a leaf")
                };
                at = children[bit] as usize;
                depth += 1;
                all_ones &= bit == 1;
                if let Node::Leaf(sym) = tree[at] {
                    if sym as usize == EOS {
                        return Err(HuffmanError::Eos);
                    }
                    dst.push(sym as u8);
                    at = 0;
                    depth = 0;
                    all_ones = true;
                }
            }
        }
        if depth > 7 {
            return Err(HuffmanError::PaddingTooLong);
        }
        if !all_ones {
            return Err(HuffmanError::PaddingNotOnes);
        }
        Ok(())
    }
}

/// How the naive encoder Huffman-codes a string: the char-walking coder, or (in the lab) the
/// original change's intermediate step, a byte-slice coder.
pub trait StringCoder {
    /// The encoded length of `s`.
    fn huffman_len(&mut self, s: &str) -> usize;
    /// Writes the encoding of `s` through `w`.
    fn huffman_encode(&mut self, s: &str, w: &LockingWriter);
}

/// Deliberately naive: [`huffman::encoded_len_chars`] and [`huffman::encode_chars`].
#[derive(Clone, Copy, Debug, Default)]
pub struct CharHuffman;

impl StringCoder for CharHuffman {
    fn huffman_len(&mut self, s: &str) -> usize {
        huffman::encoded_len_chars(s)
    }
    fn huffman_encode(&mut self, s: &str, w: &LockingWriter) {
        huffman::encode_chars(s, w);
    }
}

/// Deliberately naive: a dynamic table as a `Vec`, newest first, shifting on every insert.
#[derive(Clone, Debug)]
pub struct NaiveTable {
    /// Entries, newest first.
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    /// Current size (section 4.1).
    size: usize,
    /// Maximum size.
    max_size: usize,
}

impl NaiveTable {
    /// An empty table.
    pub fn new(max_size: usize) -> Self {
        Self {
            entries: Vec::new(),
            size: 0,
            max_size,
        }
    }

    /// Current size (section 4.1).
    pub fn size(&self) -> usize {
        self.size
    }

    /// Current maximum size.
    pub fn max_size(&self) -> usize {
        self.max_size
    }

    /// Entries, newest first.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.entries.iter().map(|(n, v)| (&n[..], &v[..]))
    }

    /// Changes the maximum size, evicting the oldest entries.
    pub fn set_max_size(&mut self, max: usize) {
        self.max_size = max;
        while self.size > max {
            let (n, v) = self.entries.pop().expect("size > 0");
            self.size -= n.len() + v.len() + ENTRY_OVERHEAD;
        }
    }

    /// Inserts at the front (section 4.4).
    pub fn insert(&mut self, name: Vec<u8>, value: Vec<u8>) {
        let size = name.len() + value.len() + ENTRY_OVERHEAD;
        if size > self.max_size {
            self.entries.clear();
            self.size = 0;
            return;
        }
        while self.size + size > self.max_size {
            let (n, v) = self.entries.pop().expect("size > 0");
            self.size -= n.len() + v.len() + ENTRY_OVERHEAD;
        }
        self.entries.insert(0, (name, value));
        self.size += size;
    }

    /// The entry at a 1-based HPACK index (static table first).
    pub fn get(&self, index: usize) -> Option<(Vec<u8>, Vec<u8>)> {
        if index == 0 {
            return None;
        }
        if index <= STATIC.len() {
            let (n, v) = STATIC[index - 1];
            return Some((n.to_vec(), v.to_vec()));
        }
        self.entries.get(index - STATIC.len() - 1).cloned()
    }
}

/// Deliberately naive: the HPACK encoder with a locking writer and a copied-out block.
#[derive(Debug)]
pub struct NaiveEncoder<C: StringCoder = CharHuffman> {
    huffman: HuffmanMode,
    indexing: Indexing,
    table: NaiveTable,
    /// Size updates to announce at the start of the next block: (smallest, final).
    pending: Option<(usize, usize)>,
    coder: C,
    out: LockingWriter,
}

impl Default for NaiveEncoder<CharHuffman> {
    fn default() -> Self {
        Self::new()
    }
}

impl NaiveEncoder<CharHuffman> {
    /// A naive encoder with the default [`EncoderConfig`] and the char-walking Huffman coder.
    pub fn new() -> Self {
        Self::with_coder(EncoderConfig::default(), CharHuffman)
            .expect("the default configuration is valid")
    }

    /// A naive encoder with `config` and the char-walking Huffman coder.
    ///
    /// # Errors
    ///
    /// As `wirelab::hpack::Encoder::with_config` ([`EncoderConfig::validate`]).
    pub fn with_config(config: EncoderConfig) -> Result<Self, ConfigError> {
        Self::with_coder(config, CharHuffman)
    }
}

fn put_int(w: &LockingWriter, value: usize, bits: u8, flags: u8) {
    let max = (1usize << bits) - 1;
    if value < max {
        w.put_u8(flags | value as u8);
    } else {
        w.put_u8(flags | max as u8);
        let mut rest = value - max;
        while rest >= 128 {
            w.put_u8((rest % 128 + 128) as u8);
            rest /= 128;
        }
        w.put_u8(rest as u8);
    }
}

impl<C: StringCoder> NaiveEncoder<C> {
    /// A naive encoder with `config` and a given Huffman coder.
    ///
    /// # Errors
    ///
    /// As [`NaiveEncoder::with_config`].
    pub fn with_coder(config: EncoderConfig, coder: C) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut enc = Self {
            huffman: config.huffman,
            indexing: config.indexing,
            table: NaiveTable::new(DEFAULT_TABLE_SIZE),
            pending: None,
            coder,
            out: LockingWriter::new(),
        };
        if config.max_table_size != DEFAULT_TABLE_SIZE {
            enc.set_max_table_size(config.max_table_size);
        }
        Ok(enc)
    }

    /// The dynamic table.
    pub fn table(&self) -> &NaiveTable {
        &self.table
    }

    /// Changes the maximum dynamic table size; the next block announces it (as
    /// `wirelab::hpack::Encoder::set_max_table_size`).
    pub fn set_max_table_size(&mut self, size: usize) {
        self.table.set_max_size(size);
        let min = self.pending.map_or(size, |(m, _)| m.min(size));
        self.pending = Some((min, size));
    }

    /// Deliberately naive: encodes a header list given as text (each char's low 8 bits).
    pub fn encode_str<'a, I>(&mut self, headers: I) -> Bytes
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        if let Some((min, last)) = self.pending.take() {
            if min < last {
                put_int(&self.out, min, 5, 0x20);
            }
            put_int(&self.out, last, 5, 0x20);
        }
        for (name, value) in headers {
            self.field(name, value);
        }
        self.out.take()
    }

    fn field(&mut self, name: &str, value: &str) {
        let nb: Vec<u8> = name.chars().map(|c| (c as u32 & 0xFF) as u8).collect();
        let vb: Vec<u8> = value.chars().map(|c| (c as u32 & 0xFF) as u8).collect();
        let static_name = STATIC
            .iter()
            .position(|(n, _)| *n == &nb[..])
            .map(|i| i + 1);
        let static_exact = STATIC
            .iter()
            .position(|(n, v)| *n == &nb[..] && *v == &vb[..])
            .map(|i| i + 1);
        if let Some(i) = static_exact {
            put_int(&self.out, i, 7, 0x80);
            return;
        }
        if self.indexing == Indexing::None {
            self.literal(static_name, name, value, 4, 0x00);
            return;
        }
        let dyn_exact = self
            .table
            .entries
            .iter()
            .position(|(n, v)| *n == nb && *v == vb);
        if let Some(i) = dyn_exact {
            put_int(&self.out, STATIC.len() + 1 + i, 7, 0x80);
            return;
        }
        let dyn_name = self.table.entries.iter().position(|(n, _)| *n == nb);
        let index = static_name.or(dyn_name.map(|i| STATIC.len() + 1 + i));
        self.literal(index, name, value, 6, 0x40);
        self.table.insert(nb, vb);
    }

    fn literal(&mut self, index: Option<usize>, name: &str, value: &str, bits: u8, flags: u8) {
        match index {
            Some(i) => put_int(&self.out, i, bits, flags),
            None => {
                self.out.put_u8(flags);
                self.string(name);
            }
        }
        self.string(value);
    }

    fn string(&mut self, s: &str) {
        let raw_len = s.chars().count();
        let huffman_len = match self.huffman {
            HuffmanMode::Never => None,
            HuffmanMode::Always => Some(self.coder.huffman_len(s)),
            HuffmanMode::Auto => Some(self.coder.huffman_len(s)).filter(|&n| n < raw_len),
        };
        match huffman_len {
            Some(n) => {
                put_int(&self.out, n, 7, 0x80);
                self.coder.huffman_encode(s, &self.out);
            }
            None => {
                put_int(&self.out, raw_len, 7, 0x00);
                for c in s.chars() {
                    self.out.put_u8((c as u32 & 0xFF) as u8);
                }
            }
        }
    }
}

/// Deliberately naive: the HPACK decoder built on [`huffman::decode`] and [`NaiveTable`],
/// allocating every name and value.
#[derive(Debug)]
pub struct NaiveDecoder {
    table: NaiveTable,
    /// Largest table size a size update may ask for.
    max_table_size: usize,
    /// Maximum header list size.
    max_header_list_size: usize,
}

impl Default for NaiveDecoder {
    fn default() -> Self {
        Self::new()
    }
}

fn get_int(buf: &[u8], pos: &mut usize, bits: u8) -> Result<usize, DecodeError> {
    let max = (1u64 << bits) - 1;
    let first = *buf.get(*pos).ok_or(DecodeError::Truncated)?;
    *pos += 1;
    let mut value = u64::from(first) & max;
    if value < max {
        return Ok(value as usize);
    }
    let mut m = 0;
    loop {
        let b = *buf.get(*pos).ok_or(DecodeError::Truncated)?;
        *pos += 1;
        value += u64::from(b & 127) << m;
        if value > MAX_INT {
            return Err(DecodeError::IntegerOverflow);
        }
        if b & 128 == 0 {
            return Ok(value as usize);
        }
        m += 7;
        if m > 28 {
            return Err(DecodeError::IntegerOverflow);
        }
    }
}

fn get_string(buf: &[u8], pos: &mut usize) -> Result<Vec<u8>, DecodeError> {
    let huffman = *buf.get(*pos).ok_or(DecodeError::Truncated)? & 0x80 != 0;
    let len = get_int(buf, pos, 7)?;
    if buf.len() - *pos < len {
        return Err(DecodeError::Truncated);
    }
    let bytes = &buf[*pos..*pos + len];
    *pos += len;
    if huffman {
        let mut out = Vec::new();
        huffman::decode(bytes, &mut out)?;
        Ok(out)
    } else {
        Ok(bytes.to_vec())
    }
}

impl NaiveDecoder {
    /// A decoder with the default limits (4096-octet table, 64 KiB header list).
    pub fn new() -> Self {
        Self {
            table: NaiveTable::new(DEFAULT_TABLE_SIZE),
            max_table_size: DEFAULT_TABLE_SIZE,
            max_header_list_size: wirelab::hpack::DEFAULT_MAX_HEADER_LIST_SIZE,
        }
    }

    /// A decoder with `config`.
    ///
    /// # Errors
    ///
    /// As `wirelab::hpack::Decoder::with_config` ([`DecoderConfig::validate`]).
    pub fn with_config(config: DecoderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut dec = Self::new();
        dec.set_max_table_size(config.max_table_size);
        dec.set_max_header_list_size(config.max_header_list_size);
        Ok(dec)
    }

    /// Sets the largest table size a size update may ask for, shrinking the table at once if
    /// it is larger (as `wirelab::hpack::Decoder::set_max_table_size`).
    pub fn set_max_table_size(&mut self, size: usize) {
        self.max_table_size = size;
        if self.table.max_size > size {
            self.table.set_max_size(size);
        }
    }

    /// Sets the maximum header list size.
    pub fn set_max_header_list_size(&mut self, size: usize) {
        self.max_header_list_size = size;
    }

    /// The dynamic table.
    pub fn table(&self) -> &NaiveTable {
        &self.table
    }

    /// Deliberately naive: decodes a block into a freshly allocated list.
    ///
    /// # Errors
    ///
    /// The same [`DecodeError`]s as `wirelab::hpack::Decoder` for the same input.
    pub fn decode_to_vec(
        &mut self,
        block: &[u8],
    ) -> Result<wirelab::hpack::HeaderList, DecodeError> {
        let mut out = Vec::new();
        let mut pos = 0;
        let mut seen_field = false;
        let mut list_size = 0;
        let mut over = false;
        while pos < block.len() {
            let b = block[pos];
            let field = if b & 0x80 != 0 {
                let index = get_int(block, &mut pos, 7)?;
                self.table
                    .get(index)
                    .ok_or(DecodeError::InvalidIndex(index))?
            } else if b & 0xE0 == 0x20 {
                if seen_field {
                    return Err(DecodeError::SizeUpdateNotFirst);
                }
                let size = get_int(block, &mut pos, 5)?;
                if size > self.max_table_size {
                    return Err(DecodeError::SizeUpdateTooLarge {
                        requested: size,
                        max: self.max_table_size,
                    });
                }
                self.table.set_max_size(size);
                continue;
            } else {
                let (bits, index_it) = if b & 0xC0 == 0x40 {
                    (6, true)
                } else {
                    (4, false)
                };
                let index = get_int(block, &mut pos, bits)?;
                let name = if index == 0 {
                    get_string(block, &mut pos)?
                } else {
                    self.table
                        .get(index)
                        .ok_or(DecodeError::InvalidIndex(index))?
                        .0
                };
                let value = get_string(block, &mut pos)?;
                if index_it {
                    self.table.insert(name.clone(), value.clone());
                }
                (name, value)
            };
            seen_field = true;
            if !over {
                list_size += field.0.len() + field.1.len() + ENTRY_OVERHEAD;
                if list_size > self.max_header_list_size {
                    over = true;
                } else {
                    out.push(field);
                }
            }
        }
        if over {
            return Err(DecodeError::HeaderListTooLarge {
                limit: self.max_header_list_size,
            });
        }
        Ok(out)
    }
}
