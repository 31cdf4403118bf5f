//! What several experiments share: a deterministic generator, input builders, the
//! hpack-test-case loader and the streaming-decoder runners.

pub mod hpack;
pub mod pushed;
pub mod stories;

use bytes::Bytes;

pub use crate::rng::Rng;

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
