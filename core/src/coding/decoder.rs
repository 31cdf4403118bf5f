//! The streaming decoder: gzip (RFC 1952), zlib (RFC 1950), raw deflate (RFC 1951).

use super::{CodingError, Format, Rope};
use bytes::{Buf, Bytes, BytesMut};
use flate2::{Decompress, FlushDecompress, Status};

/// The default largest output piece.
pub const DEFAULT_MAX_CHUNK: usize = 64 * 1024;

/// The default output limit: decompressing more than this is treated as a bomb.
pub const DEFAULT_MAX_OUTPUT: u64 = 256 * 1024 * 1024;

/// What to do with bytes after the last gzip member (other than zero padding, which is always
/// accepted) or after the end of a zlib or raw stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trailing {
    /// [`CodingError::TrailingGarbage`] (the default).
    #[default]
    Reject,
    /// Discard them, as `gzip -dc` does with a warning.
    Ignore,
}

/// Decoder settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoderConfig {
    /// The stream format.
    pub format: Format,
    /// Largest output piece.
    pub max_chunk: usize,
    /// Total output limit (`None`: unlimited).
    pub max_output: Option<u64>,
    /// Bytes after the end of the data.
    pub trailing: Trailing,
}

impl DecoderConfig {
    /// Defaults for `format`: 64 KiB pieces, a 256 MiB output limit, trailing bytes rejected.
    pub fn new(format: Format) -> Self {
        Self {
            format,
            max_chunk: DEFAULT_MAX_CHUNK,
            max_output: Some(DEFAULT_MAX_OUTPUT),
            trailing: Trailing::Reject,
        }
    }
}

/// Where the gzip header parser is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeaderStep {
    /// The fixed 10 bytes; `have` of them so far.
    Fixed { have: usize },
    /// FEXTRA's length; `have` of its 2 bytes.
    ExtraLen { have: usize },
    /// FEXTRA's data; `left` bytes to skip.
    Extra { left: usize },
    /// FNAME, up to its zero byte.
    Name,
    /// FCOMMENT, up to its zero byte.
    Comment,
    /// FHCRC; `have` of its 2 bytes.
    HeaderCrc { have: usize },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Deciding between zlib and raw (Format::Deflate): needs 2 bytes.
    Probe,
    /// Checking a zlib header: needs 2 bytes.
    ZlibHeader,
    /// Parsing a gzip header.
    Header(HeaderStep),
    /// Inflating.
    Body,
    /// Reading a gzip trailer; `have` of its 8 bytes.
    Trailer { have: usize },
    /// After a complete gzip member: another member, zero padding, or the end.
    MemberEnd,
    /// After the end of a zlib or raw stream.
    End,
    /// After zero padding: only zeros may follow.
    Padding,
    /// Discarding everything (Trailing::Ignore).
    Discard,
    /// An error was returned; nothing more is accepted.
    Failed,
}

/// Streaming decoder with a push API: feed pieces as they arrive, receive output pieces of at
/// most `max_chunk` bytes, then call [`finish`](Decoder::finish).
///
/// Logically equivalent to `wirelab_baselines::coding::NaiveDecoder` (which copies all
/// remaining input into a fresh `Vec` before every inflate round, re-parses the gzip header
/// from the start after each push, and allocates a new output buffer every round), but:
///
/// * unconsumed input stays a [`Rope`] of the pieces as they arrived; the inflater is handed
///   borrowed slices of them, never a flattened copy;
/// * the gzip header parser is incremental: a header split across many pushes is parsed once;
/// * output is inflated into a reused, initialised buffer (no zero-filling per call, unlike
///   flate2's `decompress_vec`) and handed over as `Bytes` without a copy;
/// * the CRC-32 is updated over each output piece.
///
/// ```
/// use bytes::Bytes;
/// use wirelab::coding::{Decoder, DecoderConfig, Encoder, EncoderConfig, Format};
///
/// let mut enc = Encoder::new(EncoderConfig::new(Format::Gzip));
/// let mut gz = Vec::new();
/// enc.push(b"hello, ", &mut |b| gz.extend_from_slice(&b)).unwrap();
/// enc.push(b"world", &mut |b| gz.extend_from_slice(&b)).unwrap();
/// enc.finish(&mut |b| gz.extend_from_slice(&b)).unwrap();
///
/// let mut dec = Decoder::new(DecoderConfig::new(Format::Gzip));
/// let mut out = Vec::new();
/// for piece in gz.chunks(3) {
///     dec.push(Bytes::copy_from_slice(piece), &mut |b| out.extend_from_slice(&b)).unwrap();
/// }
/// dec.finish(&mut |b| out.extend_from_slice(&b)).unwrap();
/// assert_eq!(out, b"hello, world");
/// ```
pub struct Decoder {
    config: DecoderConfig,
    state: State,
    input: Rope,
    inflate: Decompress,
    /// The format decided (Deflate resolves to Zlib or Raw).
    format: Format,
    /// The header fields collected so far.
    fixed: [u8; 10],
    small: [u8; 8],
    header_crc: crc32fast::Hasher,
    /// Member CRC-32 and length of the output so far.
    crc: crc32fast::Hasher,
    member_len: u64,
    total_out: u64,
    out: BytesMut,
    filled: usize,
    /// Addresses of output memory that this decoder initialised, in the allocation `out` holds
    /// (see [`Decoder::flush_out`]).
    initialised: std::ops::Range<usize>,
    /// Bytes gathered one at a time into `fixed` and `small` (see [`Decoder::bytes_copied`]).
    copied: u64,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("config", &self.config)
            .field("state", &self.state)
            .field("buffered", &self.input.len())
            .field("total_out", &self.total_out)
            .finish_non_exhaustive()
    }
}

const FTEXT_RESERVED: u8 = 0xE0;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;

impl Decoder {
    /// A decoder with `config`.
    pub fn new(config: DecoderConfig) -> Self {
        let max_chunk = config.max_chunk.max(1);
        let state = match config.format {
            Format::Gzip => State::Header(HeaderStep::Fixed { have: 0 }),
            Format::Zlib => State::ZlibHeader,
            Format::Raw => State::Body,
            Format::Deflate => State::Probe,
        };
        let mut out = BytesMut::with_capacity(max_chunk);
        out.resize(max_chunk, 0);
        let start = out.as_ptr() as usize;
        Self {
            config: DecoderConfig {
                max_chunk,
                ..config
            },
            state,
            input: Rope::new(),
            inflate: Decompress::new(config.format == Format::Zlib),
            format: config.format,
            fixed: [0; 10],
            small: [0; 8],
            header_crc: crc32fast::Hasher::new(),
            crc: crc32fast::Hasher::new(),
            member_len: 0,
            total_out: 0,
            out,
            filled: 0,
            initialised: start..start + max_chunk,
            copied: 0,
        }
    }

    /// Total bytes output so far.
    pub fn total_out(&self) -> u64 {
        self.total_out
    }

    /// Bytes this decoder has copied from one buffer into another so far.
    ///
    /// Input pieces are never copied (the inflater borrows them) and output pieces are handed
    /// over without a copy, so this counts only the gzip header's fixed fields and the
    /// trailer, gathered into small arrays: 18 bytes a member, plus 2 with FEXTRA and 2 with
    /// FHCRC (FNAME, FCOMMENT and the extra field are checksummed in place). Copies inside the
    /// inflater (its window) are not counted. The naive twin counts the same way, so the two
    /// compare (the `inflate`, `gzip` and `octet-push` reports show both per MiB decoded).
    pub fn bytes_copied(&self) -> u64 {
        self.copied
    }

    /// Bytes received but not yet consumed.
    pub fn buffered(&self) -> usize {
        self.input.len()
    }

    /// Feeds one piece; calls `emit` with each output piece (at most `max_chunk` bytes).
    ///
    /// # Errors
    ///
    /// Any [`CodingError`] but [`CodingError::Truncated`]; after an error the decoder accepts
    /// nothing more ([`CodingError::Poisoned`]).
    pub fn push(&mut self, piece: Bytes, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        if self.state == State::Failed {
            return Err(CodingError::Poisoned);
        }
        self.input.push(piece);
        let r = self.run(emit);
        if r.is_err() {
            self.state = State::Failed;
            self.input.clear();
        }
        r
    }

    /// Ends the input; fails with [`CodingError::Truncated`] unless the data was complete.
    ///
    /// # Errors
    ///
    /// [`CodingError::Truncated`], or [`CodingError::Poisoned`] after an earlier error.
    pub fn finish(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        match self.state {
            State::Failed => Err(CodingError::Poisoned),
            State::MemberEnd | State::End | State::Padding | State::Discard => {
                self.flush_out(emit);
                Ok(())
            }
            _ => {
                self.state = State::Failed;
                Err(CodingError::Truncated)
            }
        }
    }

    /// Hands the filled output over as one piece and makes sure there is room for the next.
    ///
    /// The room is `max_chunk` initialised bytes (flate2 writes into `&mut [u8]`). When the
    /// consumer has dropped the earlier pieces, `reserve` reclaims the same allocation; its
    /// memory was initialised by this decoder before (zeroed once, then written by the
    /// inflater), so it is not zeroed again: re-zeroing 64 KiB per output piece cost a quarter
    /// of the instructions of inflating incompressible data.
    fn flush_out(&mut self, emit: &mut dyn FnMut(Bytes)) {
        if self.filled > 0 {
            emit(self.out.split_to(self.filled).freeze());
            self.filled = 0;
        }
        let max = self.config.max_chunk;
        if self.out.len() < max / 4 || self.out.is_empty() {
            // Reclaims the buffer when the consumer dropped the earlier pieces.
            self.out.clear();
            self.out.reserve(max);
            let start = self.out.as_ptr() as usize;
            if self.initialised.start <= start && start + max <= self.initialised.end {
                // SAFETY: `reserve` left room for `max` bytes, so `set_len(max)` stays within
                // the capacity. The bytes are initialised: `initialised` covers memory of the
                // allocation `self.out` has held since it was recorded (a `reserve` that moves
                // to another allocation makes the new one while the old one is still held, so
                // the new range lies outside the recorded one and is zeroed below), and every
                // byte of that range was zeroed by `resize` and since then only written with
                // initialised bytes by the inflater. Nothing else could write to it: the pieces
                // handed out are immutable `Bytes`, and they cannot become a `BytesMut`
                // (`Bytes::try_into_mut`) while `self.out` still shares the allocation.
                unsafe { self.out.set_len(max) };
            } else {
                self.out.resize(max, 0);
                self.initialised = start..start + max;
            }
        }
    }

    /// Takes one byte from the input.
    #[inline]
    fn take_u8(&mut self) -> Option<u8> {
        if self.input.is_empty() {
            return None;
        }
        let b = self.input.chunk()[0];
        self.input.advance(1);
        // Every caller stores the byte into `fixed` or `small`.
        self.copied += 1;
        Some(b)
    }

    fn run(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        loop {
            match self.state {
                State::Probe => {
                    let (Some(a), Some(b)) = (self.input.get(0), self.input.get(1)) else {
                        return Ok(());
                    };
                    if is_zlib_header(a, b) {
                        self.format = Format::Zlib;
                        self.state = State::ZlibHeader;
                    } else {
                        self.format = Format::Raw;
                        self.inflate.reset(false);
                        self.state = State::Body;
                    }
                }
                State::ZlibHeader => {
                    let (Some(a), Some(b)) = (self.input.get(0), self.input.get(1)) else {
                        return Ok(());
                    };
                    if a & 0x0f != 8 {
                        return Err(CodingError::UnsupportedMethod(a & 0x0f));
                    }
                    if !is_zlib_header(a, b) {
                        return Err(CodingError::BadZlibHeader);
                    }
                    if b & 0x20 != 0 {
                        return Err(CodingError::ZlibDictionary);
                    }
                    // flate2 reads the header itself (and checks the Adler-32 trailer).
                    self.inflate.reset(true);
                    self.state = State::Body;
                }
                State::Header(step) => {
                    if !self.header(step)? {
                        return Ok(());
                    }
                }
                State::Body => {
                    if !self.body(emit)? {
                        self.flush_out(emit);
                        return Ok(());
                    }
                }
                State::Trailer { mut have } => {
                    while have < 8 {
                        let Some(b) = self.take_u8() else {
                            self.state = State::Trailer { have };
                            self.flush_out(emit);
                            return Ok(());
                        };
                        self.small[have] = b;
                        have += 1;
                    }
                    let expected = u32::from_le_bytes(self.small[..4].try_into().expect("4"));
                    let size = u32::from_le_bytes(self.small[4..8].try_into().expect("4"));
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
                    self.state = State::MemberEnd;
                    // The member is verified: hand its output over now, before whatever
                    // follows it (another member's header, padding, garbage) is looked at.
                    self.flush_out(emit);
                }
                State::MemberEnd => match self.input.get(0) {
                    None => {
                        self.flush_out(emit);
                        return Ok(());
                    }
                    Some(0x1f) => {
                        self.member_len = 0;
                        self.inflate.reset(false);
                        self.state = State::Header(HeaderStep::Fixed { have: 0 });
                    }
                    Some(0) => self.state = State::Padding,
                    Some(_) => self.trailing()?,
                },
                State::Padding => {
                    while !self.input.is_empty() {
                        let chunk = self.input.chunk();
                        match chunk.iter().position(|&b| b != 0) {
                            Some(_) => return self.trailing(),
                            None => {
                                let n = chunk.len();
                                self.input.advance(n);
                            }
                        }
                    }
                    self.flush_out(emit);
                    return Ok(());
                }
                State::End => {
                    if self.input.is_empty() {
                        self.flush_out(emit);
                        return Ok(());
                    }
                    self.trailing()?;
                }
                State::Discard => {
                    self.input.clear();
                    self.flush_out(emit);
                    return Ok(());
                }
                State::Failed => return Err(CodingError::Poisoned),
            }
        }
    }

    fn trailing(&mut self) -> Result<(), CodingError> {
        match self.config.trailing {
            Trailing::Reject => Err(CodingError::TrailingGarbage),
            Trailing::Ignore => {
                self.input.clear();
                self.state = State::Discard;
                Ok(())
            }
        }
    }

    /// Advances the gzip header parser; `Ok(false)` when it needs more input.
    fn header(&mut self, step: HeaderStep) -> Result<bool, CodingError> {
        let next = match step {
            HeaderStep::Fixed { mut have } => {
                while have < 10 {
                    let Some(b) = self.take_u8() else {
                        self.state = State::Header(HeaderStep::Fixed { have });
                        return Ok(false);
                    };
                    match (have, b) {
                        (0, 0x1f) | (1, 0x8b) => {}
                        (0 | 1, _) => return Err(CodingError::NotGzip),
                        (2, m) if m != 8 => return Err(CodingError::UnsupportedMethod(m)),
                        (3, f) if f & FTEXT_RESERVED != 0 => {
                            return Err(CodingError::ReservedFlags(f));
                        }
                        _ => {}
                    }
                    self.fixed[have] = b;
                    have += 1;
                }
                self.header_crc = crc32fast::Hasher::new();
                self.header_crc.update(&self.fixed);
                self.after(HeaderStep::Fixed { have: 10 })
            }
            HeaderStep::ExtraLen { mut have } => {
                while have < 2 {
                    let Some(b) = self.take_u8() else {
                        self.state = State::Header(HeaderStep::ExtraLen { have });
                        return Ok(false);
                    };
                    self.small[have] = b;
                    have += 1;
                }
                self.header_crc.update(&self.small[..2]);
                let len = u16::from_le_bytes([self.small[0], self.small[1]]) as usize;
                Some(HeaderStep::Extra { left: len })
            }
            HeaderStep::Extra { mut left } => {
                while left > 0 {
                    if self.input.is_empty() {
                        self.state = State::Header(HeaderStep::Extra { left });
                        return Ok(false);
                    }
                    let chunk = self.input.chunk();
                    let n = chunk.len().min(left);
                    self.header_crc.update(&chunk[..n]);
                    self.input.advance(n);
                    left -= n;
                }
                self.after(HeaderStep::Extra { left: 0 })
            }
            HeaderStep::Name | HeaderStep::Comment => loop {
                if self.input.is_empty() {
                    self.state = State::Header(step);
                    return Ok(false);
                }
                let chunk = self.input.chunk();
                match chunk.iter().position(|&b| b == 0) {
                    Some(i) => {
                        self.header_crc.update(&chunk[..=i]);
                        self.input.advance(i + 1);
                        break self.after(step);
                    }
                    None => {
                        let n = chunk.len();
                        self.header_crc.update(chunk);
                        self.input.advance(n);
                    }
                }
            },
            HeaderStep::HeaderCrc { mut have } => {
                while have < 2 {
                    let Some(b) = self.take_u8() else {
                        self.state = State::Header(HeaderStep::HeaderCrc { have });
                        return Ok(false);
                    };
                    self.small[have] = b;
                    have += 1;
                }
                let expected = u16::from_le_bytes([self.small[0], self.small[1]]);
                let actual = (self.header_crc.clone().finalize() & 0xffff) as u16;
                if expected != actual {
                    return Err(CodingError::HeaderCrcMismatch { expected, actual });
                }
                None
            }
        };
        self.state = match next {
            Some(step) => State::Header(step),
            None => {
                self.crc = crc32fast::Hasher::new();
                State::Body
            }
        };
        Ok(true)
    }

    /// The header step after `done`, following the flags; `None` when the header is complete.
    fn after(&self, done: HeaderStep) -> Option<HeaderStep> {
        let flags = self.fixed[3];
        let order = [
            (FEXTRA, HeaderStep::ExtraLen { have: 0 }),
            (FNAME, HeaderStep::Name),
            (FCOMMENT, HeaderStep::Comment),
            (FHCRC, HeaderStep::HeaderCrc { have: 0 }),
        ];
        let start = match done {
            HeaderStep::Fixed { .. } => 0,
            HeaderStep::ExtraLen { .. } | HeaderStep::Extra { .. } => 1,
            HeaderStep::Name => 2,
            HeaderStep::Comment => 3,
            HeaderStep::HeaderCrc { .. } => 4,
        };
        order[start..]
            .iter()
            .find(|(flag, _)| flags & flag != 0)
            .map(|(_, step)| *step)
    }

    /// Inflates what the input allows. `Ok(true)` when the body ended (state moved on),
    /// `Ok(false)` when more input is needed.
    fn body(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<bool, CodingError> {
        loop {
            if self.filled == self.out.len() {
                self.flush_out(emit);
            }
            let input = self.input.chunk();
            let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self
                .inflate
                .decompress(input, &mut self.out[self.filled..], FlushDecompress::None)
                .map_err(|e| CodingError::Corrupt(e.to_string()))?;
            let consumed = (self.inflate.total_in() - in0) as usize;
            let produced = (self.inflate.total_out() - out0) as usize;
            self.input.advance(consumed);
            if produced > 0 {
                let new = &self.out[self.filled..self.filled + produced];
                if self.format == Format::Gzip {
                    self.crc.update(new);
                }
                self.filled += produced;
                self.member_len += produced as u64;
                self.total_out += produced as u64;
                if let Some(limit) = self.config.max_output
                    && self.total_out > limit
                {
                    return Err(CodingError::OutputLimit { limit });
                }
            }
            if status == Status::StreamEnd {
                self.state = match self.format {
                    Format::Gzip => State::Trailer { have: 0 },
                    _ => {
                        // flate2 has checked a zlib stream's Adler-32 (raw deflate has no
                        // check): the output is final, so it goes out before trailing input
                        // is looked at.
                        self.flush_out(emit);
                        State::End
                    }
                };
                return Ok(true);
            }
            if consumed == 0 && produced == 0 && self.filled < self.out.len() {
                // No progress with room to write: the inflater wants more input.
                return Ok(false);
            }
        }
    }
}

/// Whether two bytes form a valid zlib header for deflate (CM 8, window at most 32 KiB, check
/// bits right).
pub fn is_zlib_header(cmf: u8, flg: u8) -> bool {
    cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}
