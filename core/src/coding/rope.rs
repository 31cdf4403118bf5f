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
    /// The first piece; empty exactly when the rope is. Kept out of `rest` so that a rope
    /// that holds one piece at a time (the usual streaming case) never touches the deque.
    front: Bytes,
    /// The pieces after `front`.
    rest: VecDeque<Bytes>,
    len: usize,
}

impl Rope {
    /// An empty rope.
    ///
    /// ```
    /// assert!(wirelab::coding::Rope::new().is_empty());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a piece (empty pieces are dropped).
    ///
    /// ```
    /// use bytes::Bytes;
    ///
    /// let mut rope = wirelab::coding::Rope::new();
    /// rope.push(Bytes::from_static(b"ab"));
    /// rope.push(Bytes::new());
    /// assert_eq!(rope.piece_count(), 1);
    /// ```
    pub fn push(&mut self, piece: Bytes) {
        if piece.is_empty() {
            return;
        }
        self.len += piece.len();
        if self.front.is_empty() {
            self.front = piece;
        } else {
            self.rest.push_back(piece);
        }
    }

    /// Total bytes.
    ///
    /// ```
    /// use bytes::Bytes;
    ///
    /// let rope = wirelab::coding::Rope::from(vec![Bytes::from_static(b"ab"), Bytes::from_static(b"c")]);
    /// assert_eq!(rope.len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bytes.
    ///
    /// ```
    /// assert!(wirelab::coding::Rope::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of pieces.
    ///
    /// ```
    /// use bytes::Bytes;
    ///
    /// let rope = wirelab::coding::Rope::from(vec![Bytes::from_static(b"ab"), Bytes::from_static(b"c")]);
    /// assert_eq!(rope.piece_count(), 2);
    /// ```
    pub fn piece_count(&self) -> usize {
        usize::from(!self.front.is_empty()) + self.rest.len()
    }

    /// The pieces, front to back.
    ///
    /// ```
    /// use bytes::Bytes;
    ///
    /// let rope = wirelab::coding::Rope::from(vec![Bytes::from_static(b"ab"), Bytes::from_static(b"c")]);
    /// assert_eq!(rope.pieces().map(|p| p.len()).sum::<usize>(), 3);
    /// ```
    pub fn pieces(&self) -> impl Iterator<Item = &Bytes> {
        std::iter::once(&self.front)
            .filter(|p| !p.is_empty())
            .chain(&self.rest)
    }

    /// The byte at `i`, if there is one.
    ///
    /// ```
    /// use bytes::Bytes;
    ///
    /// let rope = wirelab::coding::Rope::from(vec![Bytes::from_static(b"ab"), Bytes::from_static(b"c")]);
    /// assert_eq!((rope.get(2), rope.get(3)), (Some(b'c'), None));
    /// ```
    pub fn get(&self, mut i: usize) -> Option<u8> {
        for p in self.pieces() {
            if i < p.len() {
                return Some(p[i]);
            }
            i -= p.len();
        }
        None
    }

    /// Drops everything.
    ///
    /// ```
    /// use bytes::Bytes;
    ///
    /// let mut rope = wirelab::coding::Rope::from(vec![Bytes::from_static(b"ab")]);
    /// rope.clear();
    /// assert!(rope.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.front = Bytes::new();
        self.rest.clear();
        self.len = 0;
    }
}

impl Buf for Rope {
    fn remaining(&self) -> usize {
        self.len
    }

    fn chunk(&self) -> &[u8] {
        &self.front
    }

    fn advance(&mut self, mut cnt: usize) {
        assert!(cnt <= self.len, "advance past the end of the rope");
        self.len -= cnt;
        while cnt > 0 {
            if cnt < self.front.len() {
                self.front.advance(cnt);
                return;
            }
            cnt -= self.front.len();
            self.front = self.rest.pop_front().unwrap_or_default();
        }
    }

    fn chunks_vectored<'a>(&'a self, dst: &mut [IoSlice<'a>]) -> usize {
        let mut n = 0;
        for (slot, p) in dst.iter_mut().zip(self.pieces()) {
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
