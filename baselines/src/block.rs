//! Deliberately naive: [`LockingWriter`], a `Mutex<Vec<u8>>` locked on every write whose
//! finished block is copied out. Leaves out what `wirelab::block::BlockWriter` does: no lock,
//! a reserved range the caller fills directly, and a zero-copy handover.

use bytes::Bytes;
use std::io;
use std::sync::Mutex;

/// Deliberately naive: the shape of `java.io.ByteArrayOutputStream` (a synchronized `write`
/// per byte, `toByteArray` copying the block out).
#[derive(Debug, Default)]
pub struct LockingWriter {
    buf: Mutex<Vec<u8>>,
}

impl LockingWriter {
    /// Creates an empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        // A poisoned lock still holds well-formed bytes: a panic cannot leave a Vec torn.
        self.buf.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends one byte, taking the lock.
    pub fn put_u8(&self, b: u8) {
        self.lock().push(b);
    }

    /// Appends `src` one byte at a time, taking the lock for every byte.
    pub fn put_slice(&self, src: &[u8]) {
        for &b in src {
            self.put_u8(b);
        }
    }

    /// Number of bytes written since the last [`take`](Self::take).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing was written since the last [`take`](Self::take).
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Copies the block out into a fresh `Bytes` and clears the vector.
    pub fn take(&self) -> Bytes {
        let mut buf = self.lock();
        let block = Bytes::copy_from_slice(&buf);
        buf.clear();
        block
    }
}

impl io::Write for LockingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.put_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
