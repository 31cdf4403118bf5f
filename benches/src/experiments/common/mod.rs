//! What several experiments share: a deterministic generator, input builders, the
//! hpack-test-case loader and the streaming-decoder runners.

pub mod hpack;
pub mod pushed;
pub mod stories;

use bytes::Bytes;

/// A small deterministic generator (SplitMix64) so that workloads are the same on every
/// machine and every run.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeds the generator.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let r = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }
}

/// Splits `data` into separately allocated pieces of `size` bytes (the last may be shorter).
pub fn pieces(data: &[u8], size: usize) -> Vec<Bytes> {
    data.chunks(size.max(1))
        .map(|c| Bytes::from(c.to_vec()))
        .collect()
}

/// `n` random bytes.
pub fn random(n: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; n];
    Rng::new(seed).fill(&mut v);
    v
}

/// Compressible text: words drawn from a small vocabulary (compresses about 3:1).
pub fn compressible(n: usize, seed: u64) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "lazy",
        "dog",
        "header",
        "value",
        "stream",
        "frame",
        "window",
        "gzip",
        "deflate",
        "server",
        "client",
        "request",
        "response",
        "content",
        "encoding",
        "transfer",
        "chunked",
        "keep-alive",
    ];
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n + 16);
    while out.len() < n {
        out.extend_from_slice(WORDS[rng.range(0, WORDS.len() - 1)].as_bytes());
        out.push(if rng.range(0, 11) == 0 { b'\n' } else { b' ' });
    }
    out.truncate(n);
    out
}
