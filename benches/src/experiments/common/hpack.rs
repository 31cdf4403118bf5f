//! What the HPACK experiments share: the browser request, the Huffman modes, and how header
//! output is emitted and compared.

use crate::catalog::Sink;
use wirelab::hpack::{Decoder, HuffmanMode};

/// The 10-header browser request of the `hpack-encode` experiment.
pub const BROWSER_REQUEST: [(&str, &str); 10] = [
    (":method", "GET"),
    (":scheme", "https"),
    (":authority", "www.example.com"),
    (
        ":path",
        "/search/results?q=rust+hpack+huffman&page=2&sort=relevance",
    ),
    (
        "user-agent",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    ),
    (
        "accept",
        "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
    ),
    ("accept-language", "en-US,en;q=0.9,de;q=0.8"),
    ("accept-encoding", "gzip, deflate, br"),
    (
        "cookie",
        "session=8f14e45fceea167a5a36dedd4bea2543; theme=dark; _ga=GA1.2.1234567.1700000000",
    ),
    ("referer", "https://www.example.com/search?q=rust"),
];

/// The three browser-request modes: name, Huffman mode, what the original measured.
pub const MODES: [(&str, HuffmanMode); 3] = [
    ("browser-default", HuffmanMode::Auto),
    ("browser-huffman", HuffmanMode::Always),
    ("browser-raw", HuffmanMode::Never),
];

/// Emits one decoded header field as text (only while verifying).
pub fn emit_header(sink: &mut Sink, name: &[u8], value: &[u8]) {
    if sink.is_collecting() {
        sink.emit(name);
        sink.emit(b": ");
        sink.emit(value);
        sink.emit(b"\n");
    }
}

/// Emits one encoded block, framed by its length (only while verifying).
pub fn emit_block(sink: &mut Sink, block: &[u8]) {
    if sink.is_collecting() {
        sink.emit(&(block.len() as u32).to_le_bytes());
        sink.emit(block);
    }
}

/// Marks the end of a story among framed blocks (only while verifying).
pub fn story_boundary(sink: &mut Sink) {
    if sink.is_collecting() {
        sink.emit(&u32::MAX.to_le_bytes());
    }
}

/// Decodes emitted blocks (framed by [`emit_block`] and [`story_boundary`]) into header text,
/// so that encoders that choose different representations can be compared.
pub fn decode_framed(out: &[u8]) -> Vec<u8> {
    let mut text = Vec::new();
    let mut dec = Decoder::new();
    let mut pos = 0;
    while pos + 4 <= out.len() {
        let len = u32::from_le_bytes(out[pos..pos + 4].try_into().expect("4 bytes"));
        pos += 4;
        if len == u32::MAX {
            dec = Decoder::new();
            text.extend_from_slice(b"--\n");
            continue;
        }
        let block = &out[pos..pos + len as usize];
        pos += len as usize;
        match dec.decode(block, |n, v| {
            text.extend_from_slice(n);
            text.extend_from_slice(b": ");
            text.extend_from_slice(v);
            text.push(b'\n');
        }) {
            Ok(()) => text.extend_from_slice(b"\n"),
            Err(e) => text.extend_from_slice(format!("error: {e}\n").as_bytes()),
        }
    }
    text
}

/// The strings both Huffman experiments code: (name, what, octets).
pub fn huffman_inputs() -> Vec<(&'static str, String, Vec<u8>)> {
    let ua = BROWSER_REQUEST[4].1;
    let authority = BROWSER_REQUEST[2].1;
    let all: Vec<u8> = (0..=255u8).collect();
    vec![
        (
            "authority",
            format!(
                "the browser request's :authority value, a header-sized string ({} octets)",
                authority.len()
            ),
            authority.as_bytes().to_vec(),
        ),
        (
            "user-agent",
            format!(
                "the browser request's user-agent value ({} octets)",
                ua.len()
            ),
            ua.as_bytes().to_vec(),
        ),
        (
            "all-octets",
            "the 256 octet values in order".to_owned(),
            all,
        ),
    ]
}
