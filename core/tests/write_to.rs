//! `wirelab::write_to::write_to`.

use bytes::{Buf, Bytes};
use std::io::{self, IoSlice, Write};
use wirelab::write_to::write_to;

#[test]
fn empty() {
    let mut out = Vec::new();
    write_to(&mut &b""[..], &mut out).unwrap();
    assert!(out.is_empty());
}

#[test]
fn tiny_and_exactly_4k() {
    for len in [1, 2, 6, 4095, 4096, 4097, 100_000] {
        let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let mut buf = &data[..];
        let mut out = Vec::new();
        write_to(&mut buf, &mut out).unwrap();
        assert_eq!(out, data);
        assert!(buf.is_empty());
    }
}

#[test]
fn multi_chunk() {
    let a = Bytes::from_static(b"hello, ");
    let b = Bytes::from_static(b"");
    let c = Bytes::from(vec![b'x'; 5000]);
    let mut buf = a.clone().chain(b.clone()).chain(c.clone());
    let mut out = Vec::new();
    write_to(&mut buf, &mut out).unwrap();
    assert_eq!(out.len(), 7 + 5000);
    assert!(out.starts_with(b"hello, "));
    assert!(!buf.has_remaining());
}

/// Accepts at most `max` bytes per call and records how often it was called vectored.
struct Short {
    out: Vec<u8>,
    max: usize,
    vectored_calls: usize,
    interrupt_every: usize,
    calls: usize,
}

impl Write for Short {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt_every > 0 && self.calls.is_multiple_of(self.interrupt_every) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.max);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.vectored_calls += 1;
        let first = bufs
            .iter()
            .find(|b| !b.is_empty())
            .map_or(&[][..], |b| &b[..]);
        self.write(first)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn short_writes_and_interrupts_are_continued() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i % 253) as u8).collect();
    let (a, b) = data.split_at(3333);
    let mut buf = a.chain(b);
    let mut w = Short {
        out: Vec::new(),
        max: 7,
        vectored_calls: 0,
        interrupt_every: 5,
        calls: 0,
    };
    write_to(&mut buf, &mut w).unwrap();
    assert_eq!(w.out, data);
    assert!(
        w.vectored_calls > 0,
        "a two-chunk Buf goes through write_vectored"
    );
}

/// Accepts `budget` bytes in total, then fails.
struct FailsAfter {
    out: Vec<u8>,
    budget: usize,
}

impl Write for FailsAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.budget == 0 {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "peer went away"));
        }
        let n = buf.len().min(self.budget).min(1000);
        self.out.extend_from_slice(&buf[..n]);
        self.budget -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn failure_part_way_leaves_the_buf_at_what_was_written() {
    for budget in [0, 1, 999, 1000, 4096, 5000, 9999] {
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        let mut buf = &data[..];
        let mut w = FailsAfter {
            out: Vec::new(),
            budget,
        };
        let err = write_to(&mut buf, &mut w).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(w.out.len(), budget);
        assert_eq!(
            buf.remaining(),
            data.len() - budget,
            "advanced by exactly what was accepted"
        );
        assert_eq!(&w.out[..], &data[..budget]);
    }
}

struct Zero;
impl Write for Zero {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Ok(0)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_writer_that_accepts_nothing_is_an_error() {
    let mut buf = &b"abc"[..];
    let err = write_to(&mut buf, &mut Zero).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    assert_eq!(buf, b"abc");
}
