//! Deliberately naive: copy a `Buf` into an `io::Write` through a temporary array. Leaves out
//! the direct, vectored write of `wirelab::write_to::write_to`.

use bytes::Buf;
use std::io;

/// Size of Jetty's temporary array.
pub const TEMP_LEN: usize = 4096;

fn copy_through<B: Buf + ?Sized, W: io::Write + ?Sized>(
    buf: &mut B,
    w: &mut W,
    tmp: &mut [u8],
) -> io::Result<()> {
    while buf.has_remaining() {
        let n = buf.remaining().min(tmp.len());
        buf.copy_to_slice(&mut tmp[..n]);
        w.write_all(&tmp[..n])?;
    }
    Ok(())
}

/// Deliberately naive: allocates a 4 KiB temporary array on every call, however small `buf`
/// is, and copies `buf` through it (Jetty's `BufferUtil.writeTo` before the fix). On error,
/// `buf` may have advanced past the bytes the writer accepted.
pub fn write_to_temp_4k<B: Buf + ?Sized, W: io::Write + ?Sized>(
    buf: &mut B,
    w: &mut W,
) -> io::Result<()> {
    let mut tmp = vec![0u8; TEMP_LEN];
    copy_through(buf, w, &mut tmp)
}

/// Deliberately naive, the intermediate step (the Jetty fix): allocates `min(remaining, 4 KiB)`
/// once per call and copies `buf` through it.
pub fn write_to_temp_fitted<B: Buf + ?Sized, W: io::Write + ?Sized>(
    buf: &mut B,
    w: &mut W,
) -> io::Result<()> {
    if !buf.has_remaining() {
        return Ok(());
    }
    let mut tmp = vec![0u8; buf.remaining().min(TEMP_LEN)];
    copy_through(buf, w, &mut tmp)
}
