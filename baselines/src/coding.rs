//! Deliberately naive: gzip / zlib / raw deflate coding in the shape of Pekko HTTP's coding
//! stages before the "coding stages" change. The CRC is computed over a concatenated copy of
//! the input; the decoder copies all remaining input into a fresh `Vec` before every inflate
//! round (`remainingData.toArray`), re-parses the gzip header from the start of the buffered
//! input after every push, and allocates a new output buffer every round; the encoder
//! concatenates its input before deflating and checksumming. Leaves out everything
//! `wirelab::coding` does.
//!
//! Shared with `wirelab::coding` (contract types only): `Format`, `CodingError`,
//! `EncodeError`, `DecoderConfig`, `EncoderConfig`, `Trailing`, `PushDecoder`. The twins'
//! constructors and methods mirror the optimized ones'.

use bytes::Bytes;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use wirelab::ConfigError;
use wirelab::coding::{
    CodingError, DecoderConfig, EncodeError, EncoderConfig, Format, PushDecoder, Trailing,
    is_zlib_header,
};

/// Deliberately naive: concatenates the pieces into a fresh `Vec`, then one CRC-32 call.
pub fn crc_copy_then_checksum(pieces: &[Bytes]) -> u32 {
    let mut all = Vec::new();
    for p in pieces {
        all.extend_from_slice(p);
    }
    crc32fast::hash(&all)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Header,
    Body,
    Trailer,
    MemberEnd,
    /// After zero padding: only zeros may follow.
    Padding,
    End,
    Discard,
    Failed,
}

impl PushDecoder for NaiveDecoder {
    fn push(&mut self, piece: Bytes, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        NaiveDecoder::push(self, piece, emit)
    }

    fn finish(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        NaiveDecoder::finish(self, emit)
    }
}

/// Every piece appended to `pending`, the copy of `pending` before every inflate round, and
/// the bytes moved to the front when consumed input is drained, as `wirelab::coding::Decoder`
/// counts. Copies inside the inflater are not counted.
#[cfg(feature = "lab")]
impl wirelab::coding::CopyCount for NaiveDecoder {
    fn bytes_copied(&self) -> u64 {
        self.copied
    }
}

/// Deliberately naive streaming decoder (same push API and errors as `wirelab::coding::Decoder`).
pub struct NaiveDecoder {
    config: DecoderConfig,
    format: Format,
    stage: Stage,
    /// Every byte received and not consumed, in one contiguous buffer.
    pending: Vec<u8>,
    inflate: Decompress,
    crc: crc32fast::Hasher,
    member_len: u64,
    total_out: u64,
    /// Whether a zlib / deflate stream's first bytes were checked.
    probed: bool,
    /// Bytes copied or moved between buffers (the lab's `CopyCount`).
    copied: u64,
}

impl std::fmt::Debug for NaiveDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NaiveDecoder")
            .field("stage", &self.stage)
            .finish_non_exhaustive()
    }
}

/// Parses a complete gzip header at the start of `buf`: `Ok(Some(len))`, `Ok(None)` if more
/// bytes are needed.
fn parse_header(buf: &[u8]) -> Result<Option<usize>, CodingError> {
    let get = |i: usize| buf.get(i).copied();
    match (get(0), get(1)) {
        (Some(0x1f), Some(0x8b)) | (Some(0x1f), None) | (None, _) => {}
        _ => return Err(CodingError::NotGzip),
    }
    if let Some(m) = get(2)
        && m != 8
    {
        return Err(CodingError::UnsupportedMethod(m));
    }
    let Some(flags) = get(3) else { return Ok(None) };
    if flags & 0xE0 != 0 {
        return Err(CodingError::ReservedFlags(flags));
    }
    if buf.len() < 10 {
        return Ok(None);
    }
    let mut pos = 10;
    if flags & 0x04 != 0 {
        let (Some(a), Some(b)) = (get(pos), get(pos + 1)) else {
            return Ok(None);
        };
        pos += 2 + u16::from_le_bytes([a, b]) as usize;
        if buf.len() < pos {
            return Ok(None);
        }
    }
    for flag in [0x08, 0x10] {
        if flags & flag != 0 {
            match buf[pos..].iter().position(|&b| b == 0) {
                Some(i) => pos += i + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & 0x02 != 0 {
        let (Some(a), Some(b)) = (get(pos), get(pos + 1)) else {
            return Ok(None);
        };
        let expected = u16::from_le_bytes([a, b]);
        let actual = (crc32fast::hash(&buf[..pos]) & 0xffff) as u16;
        if expected != actual {
            return Err(CodingError::HeaderCrcMismatch { expected, actual });
        }
        pos += 2;
    }
    Ok(Some(pos))
}

impl NaiveDecoder {
    /// A decoder for `format` with the defaults of [`DecoderConfig::new`].
    pub fn new(format: Format) -> Self {
        Self::build(DecoderConfig::new(format))
    }

    /// A decoder with `config`.
    ///
    /// # Errors
    ///
    /// As `wirelab::coding::Decoder::with_config` ([`DecoderConfig::validate`]).
    pub fn with_config(config: DecoderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::build(config))
    }

    fn build(config: DecoderConfig) -> Self {
        Self {
            config,
            format: config.format,
            stage: if config.format == Format::Gzip {
                Stage::Header
            } else {
                Stage::Body
            },
            pending: Vec::new(),
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            member_len: 0,
            total_out: 0,
            probed: false,
            copied: 0,
        }
    }

    /// Drops the first `n` pending bytes, counting the move of the rest to the front.
    fn consume(&mut self, n: usize) {
        self.pending.drain(..n);
        if n > 0 {
            self.copied += self.pending.len() as u64;
        }
    }

    /// Deliberately naive: appends the piece to one contiguous buffer and processes it.
    ///
    /// # Errors
    ///
    /// As `wirelab::coding::Decoder::push`.
    pub fn push(&mut self, piece: Bytes, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        if self.stage == Stage::Failed {
            return Err(CodingError::Poisoned);
        }
        self.pending.extend_from_slice(&piece);
        self.copied += piece.len() as u64;
        let r = self.run(emit);
        if r.is_err() {
            self.stage = Stage::Failed;
        }
        r
    }

    /// Ends the input.
    ///
    /// # Errors
    ///
    /// As `wirelab::coding::Decoder::finish`.
    pub fn finish(&mut self, _emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        match self.stage {
            Stage::Failed => Err(CodingError::Poisoned),
            Stage::MemberEnd | Stage::Padding | Stage::End | Stage::Discard => Ok(()),
            _ => {
                self.stage = Stage::Failed;
                Err(CodingError::Truncated)
            }
        }
    }

    fn trailing(&mut self) -> Result<(), CodingError> {
        if self.config.trailing == Trailing::Ignore {
            self.pending.clear();
            self.stage = Stage::Discard;
            return Ok(());
        }
        Err(CodingError::TrailingGarbage)
    }

    fn run(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        loop {
            match self.stage {
                Stage::Header => {
                    // Re-parsed from the start of the member after every push.
                    let Some(len) = parse_header(&self.pending)? else {
                        return Ok(());
                    };
                    self.consume(len);
                    self.crc = crc32fast::Hasher::new();
                    self.member_len = 0;
                    self.inflate.reset(false);
                    self.stage = Stage::Body;
                }
                Stage::Body => {
                    if !self.probed && matches!(self.format, Format::Deflate | Format::Zlib) {
                        let (Some(&a), Some(&b)) = (self.pending.first(), self.pending.get(1))
                        else {
                            return Ok(());
                        };
                        let zlib = is_zlib_header(a, b);
                        // In deflate mode a zlib header found by the probe gets the
                        // same checks as in zlib mode (FDICT included).
                        if self.format == Format::Zlib || zlib {
                            if a & 0x0f != 8 {
                                return Err(CodingError::UnsupportedMethod(a & 0x0f));
                            }
                            if !zlib {
                                return Err(CodingError::BadZlibHeader);
                            }
                            if b & 0x20 != 0 {
                                return Err(CodingError::ZlibDictionary);
                            }
                        }
                        self.format = if zlib { Format::Zlib } else { Format::Raw };
                        self.inflate.reset(zlib);
                        self.probed = true;
                    }
                    if !self.inflate_round(emit)? {
                        return Ok(());
                    }
                }
                Stage::Trailer => {
                    if self.pending.len() < 8 {
                        return Ok(());
                    }
                    let expected = u32::from_le_bytes(self.pending[..4].try_into().expect("4"));
                    let size = u32::from_le_bytes(self.pending[4..8].try_into().expect("4"));
                    self.consume(8);
                    let actual = std::mem::take(&mut self.crc).finalize();
                    if expected != actual {
                        return Err(CodingError::CrcMismatch { expected, actual });
                    }
                    if size != self.member_len as u32 {
                        return Err(CodingError::LengthMismatch {
                            expected: size,
                            actual: self.member_len as u32,
                        });
                    }
                    self.stage = Stage::MemberEnd;
                }
                Stage::MemberEnd => match self.pending.first() {
                    None => return Ok(()),
                    Some(0x1f) => self.stage = Stage::Header,
                    Some(0) => self.stage = Stage::Padding,
                    Some(_) => return self.trailing(),
                },
                Stage::Padding => {
                    if self.pending.iter().all(|&b| b == 0) {
                        self.pending.clear();
                        return Ok(());
                    }
                    return self.trailing();
                }
                Stage::End => {
                    if self.pending.is_empty() {
                        return Ok(());
                    }
                    return self.trailing();
                }
                Stage::Discard => {
                    self.pending.clear();
                    return Ok(());
                }
                Stage::Failed => return Err(CodingError::Poisoned),
            }
        }
    }

    /// Inflate rounds: copies all remaining input into a fresh Vec before each one and
    /// allocates a fresh output buffer. `Ok(true)` when the body ended.
    fn inflate_round(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<bool, CodingError> {
        loop {
            let remaining: Vec<u8> = self.pending.clone();
            self.copied += remaining.len() as u64;
            let mut out = vec![0u8; self.config.max_chunk.max(1)];
            let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self
                .inflate
                .decompress(&remaining, &mut out, FlushDecompress::None)
                .map_err(|e| CodingError::Corrupt(e.to_string()))?;
            let consumed = (self.inflate.total_in() - in0) as usize;
            let produced = (self.inflate.total_out() - out0) as usize;
            self.consume(consumed);
            if produced > 0 {
                out.truncate(produced);
                if self.format == Format::Gzip {
                    self.crc.update(&out);
                }
                self.member_len += produced as u64;
                self.total_out += produced as u64;
                if let Some(limit) = self.config.max_output
                    && self.total_out > limit
                {
                    return Err(CodingError::OutputLimit { limit });
                }
                emit(Bytes::from(out));
            }
            if status == Status::StreamEnd {
                self.stage = if self.config.format == Format::Gzip {
                    Stage::Trailer
                } else {
                    Stage::End
                };
                return Ok(true);
            }
            if consumed == 0 && produced < self.config.max_chunk.max(1) {
                return Ok(false);
            }
        }
    }
}

/// Deliberately naive streaming encoder: concatenates each push's pieces into one `Vec`
/// before deflating and checksumming them, and collects output with `compress_vec` into a
/// fresh vector every round.
pub struct NaiveEncoder {
    format: Format,
    flush_per_push: bool,
    deflate: Compress,
    crc: crc32fast::Hasher,
    len: u64,
    header_done: bool,
    finished: bool,
}

impl std::fmt::Debug for NaiveEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NaiveEncoder")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl NaiveEncoder {
    /// An encoder for `format` with the defaults of [`EncoderConfig::new`].
    pub fn new(format: Format) -> Self {
        Self::build(EncoderConfig::new(format))
    }

    /// An encoder with `config` ([`Format::Deflate`] means zlib). Output pieces are as large
    /// as `compress_vec` makes them; `max_chunk` is only validated.
    ///
    /// # Errors
    ///
    /// As `wirelab::coding::Encoder::with_config` ([`EncoderConfig::validate`]).
    pub fn with_config(config: EncoderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::build(config))
    }

    fn build(config: EncoderConfig) -> Self {
        let zlib = matches!(config.format, Format::Zlib | Format::Deflate);
        Self {
            format: config.format,
            flush_per_push: config.flush_per_push,
            deflate: Compress::new(Compression::new(config.level), zlib),
            crc: crc32fast::Hasher::new(),
            len: 0,
            header_done: false,
            finished: false,
        }
    }

    fn header(&mut self, emit: &mut dyn FnMut(Bytes)) {
        if !self.header_done {
            self.header_done = true;
            if self.format == Format::Gzip {
                emit(Bytes::from_static(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]));
            }
        }
    }

    fn compress_all(&mut self, input: &[u8], flush: FlushCompress, emit: &mut dyn FnMut(Bytes)) {
        let mut input = input;
        loop {
            let mut out = Vec::with_capacity(64 * 1024);
            let in0 = self.deflate.total_in();
            let status = self
                .deflate
                .compress_vec(input, &mut out, flush)
                .expect("deflate does not fail on valid state");
            input = &input[(self.deflate.total_in() - in0) as usize..];
            let full = out.len() == out.capacity();
            if !out.is_empty() {
                emit(Bytes::from(out));
            }
            let done = match flush {
                FlushCompress::Finish => status == Status::StreamEnd,
                _ => input.is_empty() && !full,
            };
            if done {
                return;
            }
        }
    }

    /// Deliberately naive: copies the piece, then checksums and deflates the copy.
    ///
    /// # Errors
    ///
    /// [`EncodeError::Finished`] after [`finish`](Self::finish).
    pub fn push(&mut self, piece: &[u8], emit: &mut dyn FnMut(Bytes)) -> Result<(), EncodeError> {
        self.push_copy(piece.to_vec(), emit)
    }

    /// Deliberately naive: concatenates `pieces` into one array, then checksums and deflates
    /// the copy (the original's array input; the `deflate` experiment's baseline).
    ///
    /// # Errors
    ///
    /// [`EncodeError::Finished`] after [`finish`](Self::finish).
    pub fn push_pieces(
        &mut self,
        pieces: &[Bytes],
        emit: &mut dyn FnMut(Bytes),
    ) -> Result<(), EncodeError> {
        let mut all = Vec::new();
        for p in pieces {
            all.extend_from_slice(p);
        }
        self.push_copy(all, emit)
    }

    fn push_copy(&mut self, all: Vec<u8>, emit: &mut dyn FnMut(Bytes)) -> Result<(), EncodeError> {
        if self.finished {
            return Err(EncodeError::Finished);
        }
        self.header(emit);
        self.crc.update(&all);
        self.len += all.len() as u64;
        self.compress_all(&all, FlushCompress::None, emit);
        if self.flush_per_push {
            self.compress_all(&[], FlushCompress::Sync, emit);
        }
        Ok(())
    }

    /// Ends the stream.
    ///
    /// # Errors
    ///
    /// [`EncodeError::Finished`] when called twice.
    pub fn finish(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), EncodeError> {
        if self.finished {
            return Err(EncodeError::Finished);
        }
        self.finished = true;
        self.header(emit);
        self.compress_all(&[], FlushCompress::Finish, emit);
        if self.format == Format::Gzip {
            let crc = std::mem::take(&mut self.crc).finalize();
            let mut t = Vec::with_capacity(8);
            t.extend_from_slice(&crc.to_le_bytes());
            t.extend_from_slice(&(self.len as u32).to_le_bytes());
            emit(Bytes::from(t));
        }
        Ok(())
    }
}
