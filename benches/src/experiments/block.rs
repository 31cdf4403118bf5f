//! `block`: Pekko HTTP's `ByteStringOutputStream`, the HPACK encoder's output buffer.

use super::common::Rng;
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Original, Role, Runner, Variant, Workload, on_copy};
use bytes::{BufMut, Bytes, BytesMut};
use std::rc::Rc;

/// Blocks in one run.
pub const BLOCKS: usize = 10_000;

/// One workload's input: the write pattern, how it is written and what the consumer does.
#[derive(Clone)]
pub struct Writes {
    pattern: Rc<Pattern>,
    per_byte: bool,
    keep: bool,
}

/// The experiment.
pub static EXPERIMENT: Ladder<Writes> = Ladder {
    meta: Meta {
        id: "block",
        title: "Output buffer of the HPACK encoder",
        origin: "Pekko HTTP, ByteStringOutputStream (replacing a synchronized ByteArrayOutputStream)",
        docs: "core/src/block.rs",
        originals: &[Original {
            workload: "per-byte-drop",
            figures: "\"the per-output-byte lock was where most of the time went\" (no figure)",
            ratio: None,
        }],
        notes: "Each run writes 10,000 HPACK-shaped blocks (6 to 10 literal header fields each, \
built deterministically from a browser request). `per-byte` writes every octet with a single-byte \
write, as the original encoder did; `fields` writes prefix bytes singly and strings as slices. \
The consumer either drops every block at once or keeps all 10,000 (dropping them at the start \
of the next run). Targets: block-writer at least 5x faster than locking on per-byte-drop; in \
steady state at most 1 allocation per block when blocks are kept, 0 when they are dropped.",
        headline: "per-byte-drop",
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "locking",
            role: Role::Baseline,
            about: "Mutex<Vec<u8>> locked per byte, block copied out (wirelab_baselines::block::LockingWriter)",
            build: |w| writing(wirelab_baselines::block::LockingWriter::new(), w),
        },
        Variant {
            name: "vec-copy",
            role: Role::Step,
            about: "unlocked Vec<u8>, block still copied out into a fresh Bytes",
            build: |w| writing(Vec::new(), w),
        },
        Variant {
            name: "block-writer",
            role: Role::Optimized,
            about: "wirelab::block::BlockWriter: unlocked, zero-copy take when most of the buffer is used",
            build: |w| writing(wirelab::block::BlockWriter::new(), w),
        },
        Variant {
            name: "bytesmut",
            role: Role::Peer,
            about: "bytes::BytesMut with split().freeze() after every block",
            build: |w| writing(BytesMut::new(), w),
        },
    ],
    workloads,
};

/// A block: a list of pieces, each either one octet or a string.
/// The blocks of one run.
pub struct Pattern {
    data: Vec<u8>,
    /// (start, len, is_string) into `data`.
    pieces: Vec<(u32, u32, bool)>,
    /// Ranges into `pieces`.
    blocks: Vec<(u32, u32)>,
}

const FIELDS: &[(&str, &str)] = &[
    (":method", "GET"),
    (":scheme", "https"),
    (":authority", "www.example.com"),
    (":path", "/assets/js/app.bundle.min.js?v=2f9c1e0b"),
    (
        "user-agent",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    ),
    (
        "accept",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    ),
    ("accept-language", "en-US,en;q=0.9,de;q=0.8"),
    ("accept-encoding", "gzip, deflate, br"),
    (
        "cookie",
        "session=8f14e45fceea167a5a36dedd4bea2543; theme=dark",
    ),
    ("referer", "https://www.example.com/index.html"),
];

fn push_int(data: &mut Vec<u8>, pieces: &mut Vec<(u32, u32, bool)>, mut v: usize) {
    // HPACK integer with a 7-bit prefix (section 5.1), each octet one piece.
    if v < 127 {
        pieces.push((data.len() as u32, 1, false));
        data.push(v as u8);
        return;
    }
    pieces.push((data.len() as u32, 1, false));
    data.push(127);
    v -= 127;
    while v >= 128 {
        pieces.push((data.len() as u32, 1, false));
        data.push((v % 128 + 128) as u8);
        v /= 128;
    }
    pieces.push((data.len() as u32, 1, false));
    data.push(v as u8);
}

fn pattern() -> Pattern {
    let mut rng = Rng::new(0xB10C);
    let mut p = Pattern {
        data: Vec::new(),
        pieces: Vec::new(),
        blocks: Vec::with_capacity(BLOCKS),
    };
    for _ in 0..BLOCKS {
        let first = p.pieces.len() as u32;
        let fields = rng.range(6, 10);
        for f in 0..fields {
            let (name, value) = FIELDS[(f + rng.range(0, 2)) % FIELDS.len()];
            let value = &value[..rng.range(value.len() / 2, value.len())];
            p.pieces.push((p.data.len() as u32, 1, false));
            p.data.push(0x00); // literal header field without indexing, new name
            for s in [name, value] {
                push_int(&mut p.data, &mut p.pieces, s.len());
                p.pieces.push((p.data.len() as u32, s.len() as u32, true));
                p.data.extend_from_slice(s.as_bytes());
            }
        }
        p.blocks.push((first, p.pieces.len() as u32 - first));
    }
    p
}

/// The write side of a variant: one octet, a string, and the handover of a finished block.
trait Out {
    fn byte(&mut self, b: u8);
    fn string(&mut self, s: &[u8]);
    fn take(&mut self) -> Bytes;
}

impl Out for wirelab_baselines::block::LockingWriter {
    fn byte(&mut self, b: u8) {
        self.put_u8(b);
    }
    fn string(&mut self, s: &[u8]) {
        self.put_slice(s);
    }
    fn take(&mut self) -> Bytes {
        wirelab_baselines::block::LockingWriter::take(self)
    }
}

impl Out for Vec<u8> {
    fn byte(&mut self, b: u8) {
        self.push(b);
    }
    fn string(&mut self, s: &[u8]) {
        self.extend_from_slice(s);
    }
    fn take(&mut self) -> Bytes {
        let block = Bytes::copy_from_slice(self);
        self.clear();
        block
    }
}

impl Out for wirelab::block::BlockWriter {
    fn byte(&mut self, b: u8) {
        self.put_u8(b);
    }
    fn string(&mut self, s: &[u8]) {
        self.put_slice(s);
    }
    fn take(&mut self) -> Bytes {
        wirelab::block::BlockWriter::take(self)
    }
}

impl Out for BytesMut {
    fn byte(&mut self, b: u8) {
        self.put_u8(b);
    }
    fn string(&mut self, s: &[u8]) {
        self.extend_from_slice(s);
    }
    fn take(&mut self) -> Bytes {
        self.split().freeze()
    }
}

/// A runner that writes the pattern through `out`.
fn writing<O: Out + 'static>(mut out: O, w: &Writes) -> Option<Runner> {
    let mut kept: Vec<Bytes> = Vec::with_capacity(if w.keep { BLOCKS } else { 0 });
    on_copy(w, move |w, sink| {
        let (p, per_byte, keep) = (&w.pattern, w.per_byte, w.keep);
        kept.clear();
        let mut total = 0u64;
        for &(first, n) in &p.blocks {
            for &(start, len, is_string) in &p.pieces[first as usize..(first + n) as usize] {
                let bytes = &p.data[start as usize..(start + len) as usize];
                if is_string && !per_byte {
                    out.string(bytes);
                } else {
                    for &b in bytes {
                        out.byte(b);
                    }
                }
            }
            let block = out.take();
            sink.emit(&block);
            total += block.len() as u64;
            if keep {
                kept.push(block);
            }
        }
        total
    })
}

fn workloads() -> Result<Vec<Workload<Writes>>, LoadError> {
    let p = Rc::new(pattern());
    let bytes = p.data.len() as u64;
    Ok([
        (
            "per-byte-drop",
            true,
            false,
            "every octet written singly; blocks dropped",
        ),
        (
            "per-byte-keep",
            true,
            true,
            "every octet written singly; all blocks kept",
        ),
        (
            "fields-drop",
            false,
            false,
            "strings written as slices; blocks dropped",
        ),
        (
            "fields-keep",
            false,
            true,
            "strings written as slices; all blocks kept",
        ),
    ]
    .into_iter()
    .map(|(name, per_byte, keep, about)| {
        let about = format!("{BLOCKS} blocks, {bytes} octets: {about}");
        let input = Writes {
            pattern: p.clone(),
            per_byte,
            keep,
        };
        Workload::new(name, about, bytes, BLOCKS as u64, input)
    })
    .collect())
}
