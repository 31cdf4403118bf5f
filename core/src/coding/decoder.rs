//! The streaming decoder: gzip (RFC 1952), zlib (RFC 1950), raw deflate (RFC 1951).

use super::gzip_header::{GzipHeader, gather};
use super::{CodingError, Format, PushDecoder, Rope};
use crate::ConfigError;
use bytes::{Buf, Bytes, BytesMut};
use flate2::{Decompress, FlushDecompress, Status};

/// The default largest output piece.
pub const DEFAULT_MAX_CHUNK: usize = 64 * 1024;

/// The largest `max_chunk` a decoder or encoder accepts (1 GiB).
pub const MAX_CHUNK: usize = 1 << 30;

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
    /// Largest output piece, 1 octet to [`MAX_CHUNK`] (default [`DEFAULT_MAX_CHUNK`]).
    pub max_chunk: usize,
    /// Total output limit (`None`: unlimited; default [`DEFAULT_MAX_OUTPUT`]).
    pub max_output: Option<u64>,
    /// Bytes after the end of the data.
    pub trailing: Trailing,
}

impl DecoderConfig {
    /// Defaults for `format`: 64 KiB pieces, a 256 MiB output limit, trailing bytes rejected.
    ///
    /// ```
    /// use wirelab::coding::{DecoderConfig, Format, Trailing};
    ///
    /// assert_eq!(DecoderConfig::new(Format::Gzip).trailing, Trailing::Reject);
    /// ```
    pub fn new(format: Format) -> Self {
        Self {
            format,
            max_chunk: DEFAULT_MAX_CHUNK,
            max_output: Some(DEFAULT_MAX_OUTPUT),
            trailing: Trailing::Reject,
        }
    }

    /// Checks every setting (what [`Decoder::with_config`] and the naive twin's run).
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `max_chunk` is 0 or above [`MAX_CHUNK`].
    ///
    /// ```
    /// use wirelab::coding::{DecoderConfig, Format};
    ///
    /// let config = DecoderConfig { max_chunk: 0, ..DecoderConfig::new(Format::Zlib) };
    /// assert_eq!(config.validate().unwrap_err().setting, "max_chunk");
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check("max_chunk", self.max_chunk as u64, 1, MAX_CHUNK as u64)
    }
}

/// What one step of the decoder's state machine did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The state changed: take the next step.
    Next,
    /// More input is needed before anything can change, and no output is waiting.
    NeedInput,
    /// More input is needed (or the data has ended): hand over the output decoded so far.
    Flush,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Deciding between zlib and raw (Format::Deflate): needs 2 bytes.
    Probe,
    /// Checking a zlib header: needs 2 bytes.
    ZlibHeader,
    /// Parsing a gzip member header.
    Header,
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
///   flate2's `decompress_vec`) and handed over as `Bytes` without a copy; past 1 MiB of
///   output at twice the input or more, the buffer is 256 KiB (or `max_chunk` if larger),
///   handed over in pieces of at most `max_chunk`, because a call that writes more copies
///   less of its output into the inflater's window;
/// * the CRC-32 is updated over each output piece.
///
/// ```
/// use bytes::Bytes;
/// use wirelab::coding::{Decoder, Encoder, Format};
///
/// let mut enc = Encoder::new(Format::Gzip);
/// let mut gz = Vec::new();
/// enc.push(b"hello, ", &mut |b| gz.extend_from_slice(&b)).unwrap();
/// enc.push(b"world", &mut |b| gz.extend_from_slice(&b)).unwrap();
/// enc.finish(&mut |b| gz.extend_from_slice(&b)).unwrap();
///
/// let mut dec = Decoder::new(Format::Gzip);
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
    /// The gzip member header being parsed.
    header: GzipHeader,
    /// The gzip trailer gathered so far.
    trailer: [u8; 8],
    /// Member CRC-32 and length of the output so far.
    crc: crc32fast::Hasher,
    member_len: u64,
    total_out: u64,
    out: BytesMut,
    filled: usize,
    /// The output room a flush makes: [`FIRST_ROOM`] (or `max_chunk` when smaller) at first,
    /// `max_chunk` once the inflater has filled that, [`LONG_ROOM`] once a long, compressible
    /// stream has (see [`Decoder::full_room`]). A short stream thus never zeroes a whole
    /// `max_chunk` of output memory (64 KiB by default: most of the cost of setting up a
    /// decoder).
    room: usize,
    /// Addresses of output memory that this decoder initialised, in the allocation `out` holds
    /// (see [`Decoder::flush_out`]).
    initialised: std::ops::Range<usize>,
    /// Bytes of trailers gathered one at a time into `trailer` (the lab's `CopyCount`; the
    /// header parser counts its own).
    copied: u64,
}

impl PushDecoder for Decoder {
    fn push(&mut self, piece: Bytes, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        Decoder::push(self, piece, emit)
    }

    fn finish(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        Decoder::finish(self, emit)
    }
}

/// Input pieces are never copied (the inflater borrows them) and output pieces are handed over
/// without a copy, so this counts only the gzip header's fixed fields and the trailer,
/// gathered into small arrays: 18 bytes a member, plus 2 with FEXTRA and 2 with FHCRC (FNAME,
/// FCOMMENT and the extra field are checksummed in place). Copies inside the inflater (its
/// window) are not counted. The naive twin counts the same way, so the two compare (the
/// `inflate`, `gzip` and `octet-push` reports show both per MiB decoded).
#[cfg(feature = "lab")]
impl super::CopyCount for Decoder {
    fn bytes_copied(&self) -> u64 {
        self.copied + self.header.copied()
    }
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

/// The output room of a new decoder (see `Decoder::room`).
const FIRST_ROOM: usize = 4096;

/// The output room of a long, compressible stream (see `Decoder::full_room`).
const LONG_ROOM: usize = 256 << 10;

/// Output after which a stream counts as long (see `Decoder::full_room`).
const LONG_AFTER: u64 = 1 << 20;

impl Decoder {
    /// A decoder for `format` with the defaults of [`DecoderConfig::new`].
    ///
    /// ```
    /// let dec = wirelab::coding::Decoder::new(wirelab::coding::Format::Gzip);
    /// assert_eq!(dec.total_out(), 0);
    /// ```
    pub fn new(format: Format) -> Self {
        Self::build(DecoderConfig::new(format))
    }

    /// A decoder with `config`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `max_chunk` is 0 or above [`MAX_CHUNK`].
    ///
    /// ```
    /// use bytes::Bytes;
    /// use wirelab::coding::{CodingError, Decoder, DecoderConfig, Encoder, Format};
    ///
    /// let mut gz = Vec::new();
    /// let mut enc = Encoder::new(Format::Gzip);
    /// enc.push(&[0; 1000], &mut |b| gz.extend_from_slice(&b)).unwrap();
    /// enc.finish(&mut |b| gz.extend_from_slice(&b)).unwrap();
    ///
    /// let config = DecoderConfig { max_output: Some(100), ..DecoderConfig::new(Format::Gzip) };
    /// let mut dec = Decoder::with_config(config).unwrap();
    /// let err = dec.push(Bytes::from(gz), &mut |_| ()).unwrap_err();
    /// assert_eq!(err, CodingError::OutputLimit { limit: 100 });
    /// ```
    pub fn with_config(config: DecoderConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::build(config))
    }

    fn build(config: DecoderConfig) -> Self {
        let max_chunk = config.max_chunk;
        let state = match config.format {
            Format::Gzip => State::Header,
            Format::Zlib => State::ZlibHeader,
            Format::Raw => State::Body,
            Format::Deflate => State::Probe,
        };
        let room = FIRST_ROOM.min(max_chunk);
        let mut out = BytesMut::with_capacity(max_chunk);
        out.resize(room, 0);
        let start = out.as_ptr() as usize;
        Self {
            config,
            state,
            input: Rope::new(),
            inflate: Decompress::new(config.format == Format::Zlib),
            format: config.format,
            header: GzipHeader::new(),
            trailer: [0; 8],
            crc: crc32fast::Hasher::new(),
            member_len: 0,
            total_out: 0,
            out,
            filled: 0,
            room,
            initialised: start..start + room,
            copied: 0,
        }
    }

    /// Total bytes output so far.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use wirelab::coding::{Decoder, Format};
    ///
    /// let mut dec = Decoder::new(Format::Raw);
    /// dec.push(Bytes::from_static(&[0x01, 0x02, 0x00, 0xfd, 0xff, b'h', b'i']), &mut |_| ())?;
    /// assert_eq!(dec.total_out(), 2); // a stored block of two octets
    /// # Ok::<(), wirelab::coding::CodingError>(())
    /// ```
    pub fn total_out(&self) -> u64 {
        self.total_out
    }

    /// Bytes received but not yet consumed.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use wirelab::coding::{Decoder, Format};
    ///
    /// let mut dec = Decoder::new(Format::Gzip);
    /// dec.push(Bytes::from_static(&[0x1f, 0x8b, 8, 0]), &mut |_| ())?; // part of a header
    /// assert_eq!(dec.buffered(), 0); // the header parser took it
    /// # Ok::<(), wirelab::coding::CodingError>(())
    /// ```
    pub fn buffered(&self) -> usize {
        self.input.len()
    }

    /// Feeds one piece; calls `emit` with each output piece (at most `max_chunk` bytes).
    ///
    /// # Errors
    ///
    /// Any [`CodingError`] but [`CodingError::Truncated`]; after an error the decoder accepts
    /// nothing more ([`CodingError::Poisoned`]).
    ///
    /// ```
    /// use bytes::Bytes;
    /// use wirelab::coding::{CodingError, Decoder, Format};
    ///
    /// let mut dec = Decoder::new(Format::Gzip);
    /// let err = dec.push(Bytes::from_static(b"not gzip"), &mut |_| ()).unwrap_err();
    /// assert_eq!(err, CodingError::NotGzip);
    /// assert_eq!(dec.push(Bytes::new(), &mut |_| ()), Err(CodingError::Poisoned));
    /// ```
    #[inline(always)]
    pub fn push(&mut self, piece: Bytes, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        // (A failed decoder is never in a header field: `push_piece` reports it.)
        if self.input.is_empty()
            && self.state == State::Header
            && self.header.field_continues(&piece)
        {
            return Ok(());
        }
        self.push_piece(piece, emit)
    }

    /// [`push`](Self::push) through the rope and the state machine.
    fn push_piece(&mut self, piece: Bytes, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
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
    ///
    /// ```
    /// use bytes::Bytes;
    /// use wirelab::coding::{CodingError, Decoder, Format};
    ///
    /// let mut dec = Decoder::new(Format::Gzip);
    /// dec.push(Bytes::from_static(&[0x1f, 0x8b]), &mut |_| ())?;
    /// assert_eq!(dec.finish(&mut |_| ()), Err(CodingError::Truncated));
    /// # Ok::<(), CodingError>(())
    /// ```
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
    /// The room is `room` initialised bytes (flate2 writes into `&mut [u8]`). When the
    /// consumer has dropped the earlier pieces, `try_reclaim` takes back the same allocation; its
    /// memory was initialised by this decoder before (zeroed once, then written by the
    /// inflater), so it is not zeroed again: re-zeroing 64 KiB per output piece cost a quarter
    /// of the instructions of inflating incompressible data.
    fn flush_out(&mut self, emit: &mut dyn FnMut(Bytes)) {
        if self.filled > 0 {
            if self.filled == self.out.len() {
                // Straight to the full size: the initialised range (below) must stay one
                // range of one allocation.
                self.room = self.full_room();
            }
            while self.filled > 0 {
                let piece = self.filled.min(self.config.max_chunk);
                emit(self.out.split_to(piece).freeze());
                self.filled -= piece;
            }
        }
        let max = self.room;
        let left = self.out.len();
        if left < max {
            // Back to the start of the allocation when the consumer has dropped every piece
            // handed out (`try_reclaim` never allocates): the inflater then writes into the
            // same first octets, which the cache holds, instead of walking through all of
            // `max_chunk` before it comes back (a quarter of the time with 8 KiB pieces).
            self.out.clear();
            if !self.out.try_reclaim(max) {
                if left >= max / 4 {
                    // SAFETY: the `left` octets were the initialised length just before.
                    unsafe { self.out.set_len(left) };
                    return;
                }
                self.out.reserve(max);
            }
            let start = self.out.as_ptr() as usize;
            if self.initialised.start <= start && start + max <= self.initialised.end {
                // SAFETY: `try_reclaim` or `reserve` left room for `max` bytes, so
                // `set_len(max)` stays within the capacity. The bytes are initialised:
                // `initialised` covers memory of the allocation `self.out` has held since it
                // was recorded (a `reserve` that moves to another allocation makes the new one
                // while the old one is still held, so the new range lies outside the recorded
                // one and is zeroed below), and every
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

    /// The room once the inflater has filled what it had: `max_chunk`, and [`LONG_ROOM`] once
    /// the stream has given [`LONG_AFTER`] octets, at least twice what it took.
    ///
    /// zlib-rs copies the end of each call's output, up to its 32 KiB window, into that window:
    /// with 64 KiB of room a call that fills it copies half of what it wrote, with 256 KiB an
    /// eighth. Measured on 8 MiB of text (zlib, level 6) inflated in a loop over contiguous
    /// input: 5.2 ms with 64 KiB, 4.9 with 128, 4.8 with 256, wherever the room lay within a
    /// page (miniz_oxide inflates through its own window and copies out, so the room changes
    /// nothing there). Only a call that fills its room gains: one that runs out of input first
    /// (incompressible data, short streams) would only hold more memory, so the room grows for
    /// streams that have shown they are long and compressible, once, into a new allocation.
    fn full_room(&self) -> usize {
        if self.total_out >= LONG_AFTER && self.total_out >= 2 * self.inflate.total_in() {
            self.config.max_chunk.max(LONG_ROOM)
        } else {
            self.config.max_chunk
        }
    }

    fn run(&mut self, emit: &mut dyn FnMut(Bytes)) -> Result<(), CodingError> {
        loop {
            let step = match self.state {
                State::Probe => self.probe(),
                State::ZlibHeader => self.zlib_header()?,
                State::Header => self.header()?,
                State::Body => match self.body(emit)? {
                    true => Step::Next,
                    false => Step::Flush,
                },
                State::Trailer { have } => self.trailer(have, emit)?,
                State::MemberEnd => self.member_end()?,
                State::Padding => self.padding()?,
                State::End => self.end()?,
                State::Discard => {
                    self.input.clear();
                    Step::Flush
                }
                State::Failed => return Err(CodingError::Poisoned),
            };
            match step {
                Step::Next => {}
                Step::NeedInput => return Ok(()),
                Step::Flush => {
                    self.flush_out(emit);
                    return Ok(());
                }
            }
        }
    }

    /// `Format::Deflate`: zlib or raw, from the first two bytes.
    fn probe(&mut self) -> Step {
        let (Some(a), Some(b)) = (self.input.get(0), self.input.get(1)) else {
            return Step::NeedInput;
        };
        if is_zlib_header(a, b) {
            self.format = Format::Zlib;
            self.state = State::ZlibHeader;
        } else {
            self.format = Format::Raw;
            self.inflate.reset(false);
            self.state = State::Body;
        }
        Step::Next
    }

    /// Checks a zlib header; flate2 then reads it itself (and checks the Adler-32 trailer).
    fn zlib_header(&mut self) -> Result<Step, CodingError> {
        let (Some(a), Some(b)) = (self.input.get(0), self.input.get(1)) else {
            return Ok(Step::NeedInput);
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
        self.inflate.reset(true);
        self.state = State::Body;
        Ok(Step::Next)
    }

    /// Reads and checks a gzip trailer. A verified member's output is handed over at once,
    /// before whatever follows it (another member, padding, garbage) is looked at.
    fn trailer(
        &mut self,
        mut have: usize,
        emit: &mut dyn FnMut(Bytes),
    ) -> Result<Step, CodingError> {
        if !gather(
            &mut self.input,
            &mut self.trailer,
            &mut have,
            &mut self.copied,
        ) {
            self.state = State::Trailer { have };
            return Ok(Step::Flush);
        }
        let expected = u32::from_le_bytes(self.trailer[..4].try_into().expect("4"));
        let size = u32::from_le_bytes(self.trailer[4..8].try_into().expect("4"));
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
        self.flush_out(emit);
        Ok(Step::Next)
    }

    /// After a gzip member: another member, zero padding, or the end.
    fn member_end(&mut self) -> Result<Step, CodingError> {
        match self.input.get(0) {
            None => return Ok(Step::Flush),
            Some(0x1f) => {
                self.member_len = 0;
                self.inflate.reset(false);
                self.header.restart();
                self.state = State::Header;
            }
            Some(0) => self.state = State::Padding,
            Some(_) => self.trailing()?,
        }
        Ok(Step::Next)
    }

    /// Zero padding after the last member: only zeros may follow.
    fn padding(&mut self) -> Result<Step, CodingError> {
        while !self.input.is_empty() {
            let chunk = self.input.chunk();
            if chunk.iter().any(|&b| b != 0) {
                self.trailing()?;
                return Ok(Step::Next);
            }
            let n = chunk.len();
            self.input.advance(n);
        }
        Ok(Step::Flush)
    }

    /// After the end of a zlib or raw stream.
    fn end(&mut self) -> Result<Step, CodingError> {
        if self.input.is_empty() {
            return Ok(Step::Flush);
        }
        self.trailing()?;
        Ok(Step::Next)
    }

    /// Bytes after the data: an error, or from now on discarded ([`Trailing::Ignore`]).
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

    /// Parses the gzip member header as far as the input goes.
    fn header(&mut self) -> Result<Step, CodingError> {
        if !self.header.parse(&mut self.input)? {
            return Ok(Step::NeedInput);
        }
        self.crc = crc32fast::Hasher::new();
        self.state = State::Body;
        Ok(Step::Next)
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
            if self.filled < self.out.len() && (self.input.is_empty() || consumed + produced == 0) {
                // Room to write left over: the inflater has written all it could and wants
                // more input (asking again without any would only cost a call).
                return Ok(false);
            }
        }
    }
}

/// Whether two bytes form a valid zlib header for deflate (CM 8, window at most 32 KiB, check
/// bits right).
///
/// ```
/// use wirelab::coding::is_zlib_header;
///
/// assert!(is_zlib_header(0x78, 0x9c)); // zlib's default header
/// assert!(!is_zlib_header(0x1f, 0x8b)); // gzip's magic
/// ```
pub fn is_zlib_header(cmf: u8, flg: u8) -> bool {
    cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}
