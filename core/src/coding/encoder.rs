//! The streaming encoder: gzip, zlib, raw deflate.

use super::{CodingError, Format, crc::Adaptive};
use bytes::{Bytes, BytesMut};
use flate2::{Compress, Compression, FlushCompress, Status};

/// Encoder settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncoderConfig {
    /// Gzip, zlib or raw ([`Format::Deflate`] means zlib here).
    pub format: Format,
    /// Compression level, 0-9.
    pub level: u32,
    /// Flush after every push (a sync flush), so that each push's output can be decoded on
    /// its own, like an auto-flushing stream stage.
    pub flush_per_push: bool,
    /// Largest output piece (values below 64 are raised to 64).
    pub max_chunk: usize,
}

impl EncoderConfig {
    /// Level 6, no flush per push, 64 KiB pieces.
    pub fn new(format: Format) -> Self {
        Self {
            format,
            level: 6,
            flush_per_push: false,
            max_chunk: super::DEFAULT_MAX_CHUNK,
        }
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
    /// An encoder with `config`.
    pub fn new(config: EncoderConfig) -> Self {
        let zlib = matches!(config.format, Format::Zlib | Format::Deflate);
        let max_chunk = config.max_chunk.max(64);
        let mut out = BytesMut::with_capacity(max_chunk);
        out.resize(max_chunk, 0);
        Self {
            config: EncoderConfig {
                max_chunk,
                ..config
            },
            deflate: Compress::new(Compression::new(config.level.min(9)), zlib),
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
    /// [`CodingError::Poisoned`] after [`finish`](Encoder::finish).
    pub fn push(&mut self, piece: &[u8], emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        if self.finished {
            return Err(CodingError::Poisoned);
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
    /// [`CodingError::Poisoned`] when called twice.
    pub fn finish(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        if self.finished {
            return Err(CodingError::Poisoned);
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
    ) -> Result<(), CodingError> {
        loop {
            if self.filled == self.out.len() {
                self.flush_out(emit);
            }
            let (in0, out0) = (self.deflate.total_in(), self.deflate.total_out());
            let status = self
                .deflate
                .compress(input, &mut self.out[self.filled..], flush)
                .map_err(|e| CodingError::Corrupt(e.to_string()))?;
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
