//! [`BlockWriter`]: an unsynchronized, reusable output buffer that hands finished blocks over
//! as [`Bytes`].
//!
//! # Motivation / Change / Result
//!
//! *Motivation.* Pekko HTTP's HPACK encoder wrote into a `java.io.ByteArrayOutputStream`, whose
//! every `write(int)` takes a monitor lock, and then copied the finished block out with
//! `toByteArray`. The original pull request found that "the per-output-byte lock was where most
//! of the time went". The naive twin, `wirelab_baselines::block::LockingWriter`, is a
//! `Mutex<Vec<u8>>` locked on every write whose block is copied out.
//!
//! *Change.* `ByteStringOutputStream`: no lock (one writer per connection), a range that
//! hands the caller a range to fill directly (the Huffman coder writes into it), and a
//! `toByteString` that wraps the buffer without copying when most of it is used.
//!
//! *Result.* See `reports/block.md`.
//!
//! # Handing blocks over
//!
//! The writer allocates in chunks ([`DEFAULT_CHUNK`] by default) and carves consecutive
//! blocks out of the same allocation, like an arena. [`BlockWriter::take`] splits the written
//! bytes off the underlying [`BytesMut`] and freezes them: no copy, and the writer keeps the
//! unused tail for the next block. When the tail runs out, `BytesMut` reclaims the whole
//! allocation if every block carved from it has been dropped (so a steady stream of blocks
//! that consumers drop allocates nothing), and otherwise allocates one new chunk (so consumers
//! that keep their blocks cost one allocation per chunk, a fraction of one per block).
//!
//! One case is copied instead: a small block in a region much larger than a chunk (a 20-byte
//! block after a 1 MiB one grew the buffer). Handing it over would let a 20-byte block pin the
//! large allocation, so it is copied out and the writer keeps its buffer for the next block.

use crate::ConfigError;
use bytes::buf::UninitSlice;
use bytes::{BufMut, Bytes, BytesMut};
use std::io;

/// An unsynchronized output buffer for building protocol blocks.
///
/// Logically equivalent to a `Vec<u8>` whose contents are copied into a fresh `Bytes` and
/// cleared after each block (the naive twin, `wirelab_baselines::block::LockingWriter`, which
/// also takes a lock on every write), but without the lock and usually without the copy.
///
/// ```
/// use wirelab::block::BlockWriter;
///
/// let mut w = BlockWriter::new();
/// w.put_u8(0x82);
/// w.put_slice(b"abc");
/// w.put_zeroed(2).copy_from_slice(b"de");
/// assert_eq!(&w.take()[..], b"\x82abcde");
/// assert!(w.is_empty());
/// ```
#[derive(Debug)]
pub struct BlockWriter {
    buf: BytesMut,
    chunk: usize,
}

/// The default allocation unit of a [`BlockWriter`].
pub const DEFAULT_CHUNK: usize = 4096;

/// The smallest allocation unit [`BlockWriter::with_chunk`] accepts.
pub const MIN_CHUNK: usize = 64;

/// The largest allocation unit [`BlockWriter::with_chunk`] accepts (1 GiB).
pub const MAX_CHUNK: usize = 1 << 30;

impl Default for BlockWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockWriter {
    /// Creates an empty writer that allocates [`DEFAULT_CHUNK`] bytes at a time.
    ///
    /// ```
    /// let w = wirelab::block::BlockWriter::new();
    /// assert!(w.is_empty());
    /// ```
    pub fn new() -> Self {
        Self {
            buf: BytesMut::with_capacity(DEFAULT_CHUNK),
            chunk: DEFAULT_CHUNK,
        }
    }

    /// Creates an empty writer that allocates `chunk` bytes at a time. A chunk of a few
    /// typical blocks keeps the allocation rate low when consumers keep blocks.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when `chunk` is outside [`MIN_CHUNK`]`..=`[`MAX_CHUNK`].
    ///
    /// ```
    /// use wirelab::block::BlockWriter;
    ///
    /// let w = BlockWriter::with_chunk(16 * 1024)?;
    /// assert!(w.capacity() >= 16 * 1024);
    /// assert!(BlockWriter::with_chunk(8).is_err());
    /// # Ok::<(), wirelab::ConfigError>(())
    /// ```
    pub fn with_chunk(chunk: usize) -> Result<Self, ConfigError> {
        ConfigError::check("chunk", chunk as u64, MIN_CHUNK as u64, MAX_CHUNK as u64)?;
        Ok(Self {
            buf: BytesMut::with_capacity(chunk),
            chunk,
        })
    }

    /// Appends one byte.
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_u8(0x82);
    /// assert_eq!(w.as_slice(), [0x82]);
    /// ```
    #[inline]
    pub fn put_u8(&mut self, b: u8) {
        // `BytesMut`'s own `put_u8` is `Vec::push`'s shape: an inlined capacity check and a
        // raw store, without the bounds check that indexing the spare capacity costs.
        BufMut::put_u8(&mut self.buf, b);
    }

    /// Appends `src`.
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_slice(b"abc");
    /// assert_eq!(w.as_slice(), b"abc");
    /// ```
    #[inline]
    pub fn put_slice(&mut self, src: &[u8]) {
        self.buf.extend_from_slice(src);
    }

    /// Appends `len` zero bytes and returns them for the caller to fill directly.
    ///
    /// This is how a coder that knows its output length writes straight into the block
    /// without a temporary buffer.
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_zeroed(3).copy_from_slice(b"xyz");
    /// assert_eq!(w.as_slice(), b"xyz");
    /// ```
    #[inline]
    pub fn put_zeroed(&mut self, len: usize) -> &mut [u8] {
        let start = self.buf.len();
        self.buf.resize(start + len, 0);
        &mut self.buf[start..]
    }

    /// Number of bytes written since the last [`take`](Self::take).
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_slice(b"abc");
    /// assert_eq!(w.len(), 3);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written since the last [`take`](Self::take).
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_u8(1);
    /// w.take();
    /// assert!(w.is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Bytes the current block can grow to before the writer must reclaim or allocate.
    ///
    /// ```
    /// let w = wirelab::block::BlockWriter::new();
    /// assert!(w.capacity() >= wirelab::block::DEFAULT_CHUNK);
    /// ```
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// The bytes written so far.
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_slice(b"ab");
    /// assert_eq!(w.as_slice(), b"ab");
    /// ```
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Drops the bytes written since the last take, keeping the buffer.
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_slice(b"ab");
    /// w.clear();
    /// assert!(w.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    /// Shortens the current block to `len` bytes (no effect if it is already shorter).
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_slice(b"abc");
    /// w.truncate(1);
    /// assert_eq!(w.as_slice(), b"a");
    /// ```
    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(len);
    }

    /// Hands the finished block over and leaves the writer empty for the next one.
    ///
    /// Without a copy, except for a small block in a region larger than a chunk, which is
    /// copied out while the writer keeps its buffer (see the module docs).
    ///
    /// ```
    /// let mut w = wirelab::block::BlockWriter::new();
    /// w.put_slice(b"block");
    /// assert_eq!(&w.take()[..], b"block");
    /// assert!(w.take().is_empty());
    /// ```
    pub fn take(&mut self) -> Bytes {
        let len = self.buf.len();
        if len == 0 {
            return Bytes::new();
        }
        let cap = self.buf.capacity();
        if cap <= self.chunk || len * 2 >= cap {
            self.buf.split().freeze()
        } else {
            let block = Bytes::copy_from_slice(&self.buf);
            self.buf.clear();
            block
        }
    }
}

// SAFETY: every method delegates to the `BytesMut` that holds the block, which upholds
// `BufMut`'s contract (`chunk_mut` is spare capacity; `advance_mut` is only called by callers
// that initialised that many bytes of it, as the trait requires of them).
unsafe impl BufMut for BlockWriter {
    #[inline]
    fn remaining_mut(&self) -> usize {
        self.buf.remaining_mut()
    }

    #[inline]
    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: the caller guarantees that `cnt` bytes of `chunk_mut` were initialised.
        unsafe { self.buf.advance_mut(cnt) }
    }

    #[inline]
    fn chunk_mut(&mut self) -> &mut UninitSlice {
        self.buf.chunk_mut()
    }

    #[inline]
    fn put_u8(&mut self, n: u8) {
        BlockWriter::put_u8(self, n);
    }

    #[inline]
    fn put_slice(&mut self, src: &[u8]) {
        BlockWriter::put_slice(self, src);
    }
}

impl io::Write for BlockWriter {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.put_slice(buf);
        Ok(buf.len())
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.put_slice(buf);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
