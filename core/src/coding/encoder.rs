//! The streaming encoder: gzip, zlib, raw deflate.

use super::{EncodeError, Format, MAX_CHUNK, crc::Adaptive};
use crate::ConfigError;
use bytes::{Bytes, BytesMut};
use flate2::{Compress, Compression, FlushCompress, Status};

/// Encoder settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncoderConfig {
    /// Gzip, zlib or raw ([`Format::Deflate`] means zlib here).
    pub format: Format,
    /// Compression level, 0-9 (default 6).
    pub level: u32,
    /// Flush after every push (a sync flush), so that each push's output can be decoded on
    /// its own, like an auto-flushing stream stage.
    pub flush_per_push: bool,
    /// Largest output piece, 64 octets to [`MAX_CHUNK`] (default
    /// [`DEFAULT_MAX_CHUNK`](super::DEFAULT_MAX_CHUNK)).
    pub max_chunk: usize,
}

/// The smallest output piece an [`Encoder`] accepts as its `max_chunk`.
pub const MIN_ENCODER_CHUNK: usize = 64;

impl EncoderConfig {
    /// Level 6, no flush per push, 64 KiB pieces.
    ///
    /// ```
    /// use wirelab::coding::{EncoderConfig, Format};
    ///
    /// assert_eq!(EncoderConfig::new(Format::Gzip).level, 6);
    /// ```
    pub fn new(format: Format) -> Self {
        Self {
            format,
            level: 6,
            flush_per_push: false,
            max_chunk: super::DEFAULT_MAX_CHUNK,
        }
    }

    /// Checks every setting (what [`Encoder::with_config`] and the naive twin's run).
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `level` is above 9 or `max_chunk` is outside
    /// [`MIN_ENCODER_CHUNK`]`..=`[`MAX_CHUNK`].
    ///
    /// ```
    /// use wirelab::coding::{EncoderConfig, Format};
    ///
    /// let config = EncoderConfig { max_chunk: 16, ..EncoderConfig::new(Format::Gzip) };
    /// assert_eq!(config.validate().unwrap_err().setting, "max_chunk");
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check("level", self.level.into(), 0, 9)?;
        let (min, max) = (MIN_ENCODER_CHUNK as u64, MAX_CHUNK as u64);
        ConfigError::check("max_chunk", self.max_chunk as u64, min, max)
    }
}

/// Streaming encoder with a push API.
///
/// The deflater is fed each pushed piece as one contiguous slice (the original kept array
/// input on purpose; the `deflate` experiment measures the alternative), and the gzip CRC-32 is
/// computed over the pieces with [`Adaptive`], without concatenating them.
///
/// Naive twin: `wirelab_baselines::coding::NaiveEncoder`, which concatenates its input before
/// deflating and checksumming.
pub struct Encoder {
    config: EncoderConfig,
    deflate: Compress,
    crc: Adaptive,
    len: u64,
    header_done: bool,
    finished: bool,
    out: BytesMut,
    filled: usize,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("config", &self.config)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// The gzip header the encoder writes: no optional fields, MTIME 0, OS unknown.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

impl Encoder {
    /// An encoder for `format` with the defaults of [`EncoderConfig::new`].
    ///
    /// ```
    /// use wirelab::coding::{Encoder, Format};
    ///
    /// let mut enc = Encoder::new(Format::Zlib);
    /// let mut out = Vec::new();
    /// enc.finish(&mut |b| out.extend_from_slice(&b))?;
    /// assert_eq!(out[0], 0x78); // a zlib header
    /// # Ok::<(), wirelab::coding::EncodeError>(())
    /// ```
    pub fn new(format: Format) -> Self {
        Self::build(EncoderConfig::new(format))
    }

    /// An encoder with `config`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `level` is above 9 or `max_chunk` is outside
    /// [`MIN_ENCODER_CHUNK`]`..=`[`MAX_CHUNK`].
    ///
    /// ```
    /// use wirelab::coding::{Encoder, EncoderConfig, Format};
    ///
    /// let config = EncoderConfig { level: 9, flush_per_push: true, ..EncoderConfig::new(Format::Gzip) };
    /// let mut enc = Encoder::with_config(config)?;
    /// let mut pieces = 0;
    /// enc.push(b"hello", &mut |_| pieces += 1).unwrap();
    /// assert!(pieces > 0); // flushed at once
    /// # Ok::<(), wirelab::ConfigError>(())
    /// ```
    pub fn with_config(config: EncoderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::build(config))
    }

    fn build(config: EncoderConfig) -> Self {
        let zlib = matches!(config.format, Format::Zlib | Format::Deflate);
        let mut out = BytesMut::with_capacity(config.max_chunk);
        out.resize(config.max_chunk, 0);
        Self {
            config,
            deflate: Compress::new(Compression::new(config.level), zlib),
            crc: Adaptive::new(),
            len: 0,
            header_done: false,
            finished: false,
            out,
            filled: 0,
        }
    }

    /// Compresses one piece; calls `emit` with each output piece.
    ///
    /// # Errors
    ///
    /// [`EncodeError::Finished`] after [`finish`](Encoder::finish).
    ///
    /// ```
    /// use wirelab::coding::{Encoder, Format};
    ///
    /// let mut enc = Encoder::new(Format::Raw);
    /// let mut out = Vec::new();
    /// enc.push(b"abcabcabc", &mut |b| out.extend_from_slice(&b))?;
    /// enc.finish(&mut |b| out.extend_from_slice(&b))?;
    /// assert!(!out.is_empty());
    /// # Ok::<(), wirelab::coding::EncodeError>(())
    /// ```
    pub fn push(&mut self, piece: &[u8], emit: &mut dyn FnMut(Bytes)) -> Result<(), EncodeError> {
        if self.finished {
            return Err(EncodeError::Finished);
        }
        self.header(emit);
        if self.config.format == Format::Gzip {
            self.crc.update(piece);
        }
        self.len += piece.len() as u64;
        self.run(piece, FlushCompress::None, emit)?;
        if self.config.flush_per_push {
            self.run(&[], FlushCompress::Sync, emit)?;
            self.flush_out(emit);
        }
        Ok(())
    }

    /// Ends the stream: the rest of the compressed data and the trailer.
    ///
    /// # Errors
    ///
    /// [`EncodeError::Finished`] when called twice.
    ///
    /// ```
    /// use wirelab::coding::{EncodeError, Encoder, Format};
    ///
    /// let mut enc = Encoder::new(Format::Gzip);
    /// let mut out = Vec::new();
    /// enc.finish(&mut |b| out.extend_from_slice(&b))?;
    /// assert_eq!(out.len(), 20); // header, an empty final block, trailer
    /// assert_eq!(enc.finish(&mut |_| ()), Err(EncodeError::Finished));
    /// # Ok::<(), EncodeError>(())
    /// ```
    pub fn finish(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), EncodeError> {
        if self.finished {
            return Err(EncodeError::Finished);
        }
        self.header(emit);
        self.run(&[], FlushCompress::Finish, emit)?;
        self.finished = true;
        if self.config.format == Format::Gzip {
            let crc = std::mem::take(&mut self.crc).finalize();
            let mut trailer = [0u8; 8];
            trailer[..4].copy_from_slice(&crc.to_le_bytes());
            trailer[4..].copy_from_slice(&(self.len as u32).to_le_bytes());
            self.put(&trailer, emit);
        }
        self.flush_out(emit);
        Ok(())
    }

    fn header(&mut self, emit: &mut dyn FnMut(Bytes)) {
        if !self.header_done {
            self.header_done = true;
            if self.config.format == Format::Gzip {
                self.put(&GZIP_HEADER, emit);
            }
        }
    }

    fn put(&mut self, bytes: &[u8], emit: &mut dyn FnMut(Bytes)) {
        for b in bytes {
            if self.filled == self.out.len() {
                self.flush_out(emit);
            }
            self.out[self.filled] = *b;
            self.filled += 1;
        }
    }

    fn flush_out(&mut self, emit: &mut dyn FnMut(Bytes)) {
        if self.filled > 0 {
            emit(self.out.split_to(self.filled).freeze());
            self.filled = 0;
        }
        if self.out.len() < self.config.max_chunk / 4 {
            self.out.clear();
            self.out.reserve(self.config.max_chunk);
            self.out.resize(self.config.max_chunk, 0);
        }
    }

    fn run(
        &mut self,
        mut input: &[u8],
        flush: FlushCompress,
        emit: &mut dyn FnMut(Bytes),
    ) -> Result<(), EncodeError> {
        loop {
            if self.filled == self.out.len() {
                self.flush_out(emit);
            }
            let (in0, out0) = (self.deflate.total_in(), self.deflate.total_out());
            let status = self
                .deflate
                .compress(input, &mut self.out[self.filled..], flush)
                .map_err(|e| EncodeError::Deflate(e.to_string()))?;
            let consumed = (self.deflate.total_in() - in0) as usize;
            let produced = (self.deflate.total_out() - out0) as usize;
            input = &input[consumed..];
            self.filled += produced;
            let room = self.filled < self.out.len();
            match flush {
                FlushCompress::Finish if status == Status::StreamEnd => return Ok(()),
                FlushCompress::Finish => {}
                // Done when all input is taken and the deflater left room in the buffer
                // (it has nothing more to say for this flush).
                _ if input.is_empty() && room => return Ok(()),
                _ => {}
            }
        }
    }
}
