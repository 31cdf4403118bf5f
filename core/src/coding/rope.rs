//! [`Rope`]: input as the network stack hands it over, a queue of [`Bytes`] pieces.

use bytes::{Buf, Bytes};
use std::collections::VecDeque;
use std::io::IoSlice;

/// A sequence of [`Bytes`] pieces read front to back, never flattened.
///
/// Logically equivalent to a `Vec<u8>` holding the concatenation of the pieces, but pushing a
/// piece is O(1) and copies nothing.
#[derive(Clone, Debug, Default)]
pub struct Rope {
    pieces: VecDeque<Bytes>,
    len: usize,
}

impl Rope {
    /// An empty rope.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a piece (empty pieces are dropped).
    pub fn push(&mut self, piece: Bytes) {
        if !piece.is_empty() {
            self.len += piece.len();
            self.pieces.push_back(piece);
        }
    }

    /// Total bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of pieces.
    pub fn piece_count(&self) -> usize {
        self.pieces.len()
    }

    /// The pieces, front to back.
    pub fn pieces(&self) -> impl Iterator<Item = &Bytes> {
        self.pieces.iter()
    }

    /// The byte at `i`, if there is one.
    pub fn get(&self, mut i: usize) -> Option<u8> {
        for p in &self.pieces {
            if i < p.len() {
                return Some(p[i]);
            }
            i -= p.len();
        }
        None
    }

    /// Drops everything.
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.len = 0;
    }
}

impl Buf for Rope {
    fn remaining(&self) -> usize {
        self.len
    }

    fn chunk(&self) -> &[u8] {
        self.pieces.front().map_or(&[], |p| &p[..])
    }

    fn advance(&mut self, mut cnt: usize) {
        assert!(cnt <= self.len, "advance past the end of the rope");
        self.len -= cnt;
        while cnt > 0 {
            let front = self.pieces.front_mut().expect("len counts the pieces");
            if cnt < front.len() {
                front.advance(cnt);
                return;
            }
            cnt -= front.len();
            self.pieces.pop_front();
        }
    }

    fn chunks_vectored<'a>(&'a self, dst: &mut [IoSlice<'a>]) -> usize {
        let mut n = 0;
        for (slot, p) in dst.iter_mut().zip(&self.pieces) {
            *slot = IoSlice::new(p);
            n += 1;
        }
        n
    }
}

impl From<Vec<Bytes>> for Rope {
    fn from(pieces: Vec<Bytes>) -> Self {
        let mut r = Rope::new();
        for p in pieces {
            r.push(p);
        }
        r
    }
}
