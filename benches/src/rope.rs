//! [`Chunks`]: a `bytes::Buf` over a borrowed list of `Bytes`, so that a multi-chunk input can
//! be replayed on every run without allocating (a `VecDeque<Bytes>` would have to be cloned).

use bytes::{Buf, Bytes};
use std::io::IoSlice;

/// A cursor over `&[Bytes]` that implements [`Buf`], with vectored chunks.
#[derive(Clone, Debug)]
pub struct Chunks<'a> {
    rest: &'a [Bytes],
    /// Offset into `rest[0]`.
    offset: usize,
    remaining: usize,
}

impl<'a> Chunks<'a> {
    /// A cursor at the start of `chunks`.
    pub fn new(chunks: &'a [Bytes]) -> Self {
        let mut c = Self {
            rest: chunks,
            offset: 0,
            remaining: chunks.iter().map(Bytes::len).sum(),
        };
        c.skip_empty();
        c
    }

    fn skip_empty(&mut self) {
        while let Some(first) = self.rest.first() {
            if self.offset < first.len() {
                break;
            }
            self.rest = &self.rest[1..];
            self.offset = 0;
        }
    }
}

impl Buf for Chunks<'_> {
    fn remaining(&self) -> usize {
        self.remaining
    }

    fn chunk(&self) -> &[u8] {
        self.rest.first().map_or(&[], |c| &c[self.offset..])
    }

    fn advance(&mut self, mut cnt: usize) {
        assert!(cnt <= self.remaining, "advance past the end of Chunks");
        self.remaining -= cnt;
        while cnt > 0 {
            let left = self.rest[0].len() - self.offset;
            if cnt < left {
                self.offset += cnt;
                break;
            }
            cnt -= left;
            self.rest = &self.rest[1..];
            self.offset = 0;
        }
        self.skip_empty();
    }

    fn chunks_vectored<'b>(&'b self, dst: &mut [IoSlice<'b>]) -> usize {
        let mut n = 0;
        let mut offset = self.offset;
        for c in self.rest {
            if n == dst.len() {
                break;
            }
            if offset < c.len() {
                dst[n] = IoSlice::new(&c[offset..]);
                n += 1;
            }
            offset = 0;
        }
        n
    }
}
