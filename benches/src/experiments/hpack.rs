//! `hpack-encode`, `hpack-decode`, `huffman-encode`, `huffman-decode`: Pekko HTTP's HPACK
//! encoder change (twitter/hpack with a char-at-a-time Huffman coder and a synchronized
//! stream) and the decoder that completes the codec.

use crate::catalog::{Experiment, Original, Role, Runner, Sink, VariantInfo, Workload};
use std::rc::Rc;
use wirelab::hpack::{Decoder, Encoder, HuffmanMode, Indexing};
use wirelab_baselines::block::LockingWriter;
use wirelab_baselines::hpack::{NaiveDecoder, NaiveEncoder, StringCoder};

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
const MODES: [(&str, HuffmanMode); 3] = [
    ("browser-default", HuffmanMode::Auto),
    ("browser-huffman", HuffmanMode::Always),
    ("browser-raw", HuffmanMode::Never),
];

/// One case of an hpack-test-case story.
#[derive(Clone, Debug)]
pub struct Case {
    /// The header block (empty in raw-data).
    pub wire: Vec<u8>,
    /// The header list it decodes to.
    pub headers: Vec<(String, String)>,
    /// The SETTINGS_HEADER_TABLE_SIZE in force, where the story says.
    pub table_size: Option<usize>,
}

/// One story of hpack-test-case: its cases in order, sharing one decoding context.
#[derive(Clone, Debug)]
pub struct Story {
    /// The cases.
    pub cases: Vec<Case>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Loads every story of one hpack-test-case folder, or `None` when the shared data is absent.
pub fn stories(folder: &str) -> Option<Vec<Story>> {
    let dir = crate::shared_data()?.join("hpack-test-case").join(folder);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let stories = files
        .iter()
        .map(|p| {
            let v: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let cases = v["cases"]
                .as_array()
                .expect("cases")
                .iter()
                .map(|c| {
                    let wire = c["wire"].as_str().map(hex).unwrap_or_default();
                    let headers = c["headers"]
                        .as_array()
                        .expect("headers")
                        .iter()
                        .flat_map(|h| {
                            h.as_object()
                                .expect("header object")
                                .iter()
                                .map(|(k, v)| (k.clone(), v.as_str().expect("value").to_owned()))
                                .collect::<Vec<_>>()
                        })
                        .collect();
                    let table_size = c["header_table_size"].as_u64().map(|n| n as usize);
                    Case {
                        wire,
                        headers,
                        table_size,
                    }
                })
                .collect();
            Story { cases }
        })
        .collect();
    Some(stories)
}

fn emit_header(sink: &mut Sink, name: &[u8], value: &[u8]) {
    if sink.is_collecting() {
        sink.emit(name);
        sink.emit(b": ");
        sink.emit(value);
        sink.emit(b"\n");
    }
}

// ---------------------------------------------------------------------------------------------
// hpack-encode

/// The encode ladder.
pub static ENCODE_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "naive",
        role: Role::Baseline,
        about: "char-at-a-time Huffman, locking writer per byte, block copied out (wirelab_baselines::hpack::NaiveEncoder)",
    },
    VariantInfo {
        name: "slice-huffman",
        role: Role::Step,
        about: "the original's intermediate step: byte-slice Huffman, still the locking writer and the copy-out",
    },
    VariantInfo {
        name: "optimized",
        role: Role::Optimized,
        about: "wirelab::hpack::Encoder: Latin-1 once, Huffman into a reserved BlockWriter range, zero-copy take",
    },
    VariantInfo {
        name: "httlib-hpack",
        role: Role::Peer,
        about: "httlib-hpack Encoder with BEST_FORMAT (cannot choose Huffman per string: n/a in default mode)",
    },
    VariantInfo {
        name: "loona-hpack",
        role: Role::Peer,
        about: "loona-hpack (the maintained fork of hpack) Encoder: no Huffman, so raw mode only",
    },
];

/// The `hpack-encode` experiment.
pub static ENCODE: Experiment = Experiment {
    id: "hpack-encode",
    title: "HPACK header block encoding",
    origin: "Pekko HTTP HPACK encoder pull request (twitter/hpack Huffman coder, ByteStringOutputStream)",
    docs: "core/src/hpack/mod.rs",
    variants: ENCODE_VARIANTS,
    workloads: encode_workloads,
    originals: &[
        Original {
            workload: "browser-default",
            figures: "9619 / 3644 / 3522 ns",
            ratio: Some(9619.0 / 3522.0),
        },
        Original {
            workload: "browser-huffman",
            figures: "9573 / 3819 / 3569 ns",
            ratio: Some(9573.0 / 3569.0),
        },
        Original {
            workload: "browser-raw",
            figures: "2542 / 2525 / 1672 ns",
            ratio: Some(2542.0 / 1672.0),
        },
    ],
    notes: "The browser workloads encode one 10-header request (about 430 octets of values) with \
indexing disabled: static-table exact matches are indexed, every other value is a literal \
without indexing with its name from the static table. The original's figures are naive / \
slice-huffman / optimized on the JVM. The stories workloads encode every header list of \
hpack-test-case's raw-data stories with incremental indexing, a fresh encoder per story. Peers \
are verified by decoding their blocks (their choice of representation may differ; the bytes-out \
table shows the sizes). Targets: optimized at least 3x faster than naive in default mode and \
1.5x in raw mode; faster than every peer in every mode; no allocation per block in steady state \
beyond the handed-over block.",
    alloc_per: 1,
    headline: "browser-default",
    result: Some("octets of header blocks produced per run"),
    sweep: false,
    feature: None,
};

/// The intermediate step's Huffman coder: converts the string to octets once and codes the
/// byte slice with the optimized table, but still writes every output byte through the locking
/// writer.
#[derive(Debug, Default)]
struct SliceHuffman {
    octets: Vec<u8>,
    coded: Vec<u8>,
}

impl SliceHuffman {
    fn octets(&mut self, s: &str) -> &[u8] {
        self.octets.clear();
        self.octets.resize(s.len(), 0);
        let n = wirelab::latin1::encode_truncating_into(s, &mut self.octets);
        &self.octets[..n]
    }
}

impl StringCoder for SliceHuffman {
    fn huffman_len(&mut self, s: &str) -> usize {
        let o = self.octets(s);
        wirelab::hpack::huffman::encoded_len(o)
    }
    fn huffman_encode(&mut self, s: &str, w: &LockingWriter) {
        let n = self.huffman_len(s);
        self.coded.resize(n, 0);
        wirelab::hpack::huffman::encode_into(&self.octets[..s.chars().count()], &mut self.coded)
            .expect("exact length");
        for &b in &self.coded {
            w.put_u8(b);
        }
    }
}

/// A list of header lists, each encoded as one block; lists are grouped by story (a fresh
/// encoder and decoder per story).
type Lists = Rc<Vec<Vec<Vec<(String, String)>>>>;

fn emit_block(sink: &mut Sink, block: &[u8]) {
    if sink.is_collecting() {
        sink.emit(&(block.len() as u32).to_le_bytes());
        sink.emit(block);
    }
}

fn story_boundary(sink: &mut Sink) {
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

/// Runs an encoder over every list of every story: a fresh encoder per story, except that a
/// single-story workload without indexing keeps its encoder across runs (steady state; its
/// table stays empty).
fn encode_lists<E>(
    lists: &Lists,
    kept: &mut Option<E>,
    reuse: bool,
    make: &impl Fn() -> E,
    sink: &mut Sink,
    mut block: impl FnMut(&mut E, &[(String, String)], &mut Sink) -> usize,
) -> u64 {
    let mut n = 0;
    for story in lists.iter() {
        if !reuse || kept.is_none() {
            *kept = Some(make());
        }
        let enc = kept.as_mut().expect("set above");
        for l in story {
            n += block(enc, l, sink);
        }
        story_boundary(sink);
    }
    n as u64
}

fn pairs(l: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    l.iter().map(|(a, b)| (a.as_str(), b.as_str()))
}

fn encode_runner(
    variant: &str,
    lists: Lists,
    mode: HuffmanMode,
    indexing: Indexing,
) -> Option<Runner> {
    let reuse = lists.len() == 1 && indexing == Indexing::None;
    Some(match variant {
        "naive" => {
            let make = move || NaiveEncoder::new(mode, indexing);
            let mut kept = None;
            Box::new(move |sink| {
                encode_lists(&lists, &mut kept, reuse, &make, sink, |e, l, sink| {
                    let b = e.encode_str(pairs(l));
                    emit_block(sink, &b);
                    b.len()
                })
            })
        }
        "slice-huffman" => {
            let make = move || NaiveEncoder::with_coder(mode, indexing, SliceHuffman::default());
            let mut kept = None;
            Box::new(move |sink| {
                encode_lists(&lists, &mut kept, reuse, &make, sink, |e, l, sink| {
                    let b = e.encode_str(pairs(l));
                    emit_block(sink, &b);
                    b.len()
                })
            })
        }
        "optimized" => {
            let make = move || Encoder::new().with_huffman(mode).with_indexing(indexing);
            let mut kept = None;
            Box::new(move |sink| {
                encode_lists(&lists, &mut kept, reuse, &make, sink, |e, l, sink| {
                    let b = e.encode_str(pairs(l));
                    emit_block(sink, &b);
                    b.len()
                })
            })
        }
        "httlib-hpack" => {
            let flags = match mode {
                HuffmanMode::Auto => return None,
                HuffmanMode::Always => 0x1 | 0x2 | 0x10,
                HuffmanMode::Never => 0x10,
            } | if indexing == Indexing::Incremental {
                0x4
            } else {
                0
            };
            let mut dst = Vec::with_capacity(4096);
            let make = httlib_hpack::Encoder::default;
            let mut kept = None;
            Box::new(move |sink| {
                encode_lists(&lists, &mut kept, reuse, &make, sink, |e, l, sink| {
                    dst.clear();
                    for (name, value) in l {
                        // Its API takes owned vectors.
                        e.encode(
                            (name.as_bytes().to_vec(), value.as_bytes().to_vec(), flags),
                            &mut dst,
                        )
                        .expect("httlib-hpack encodes");
                    }
                    emit_block(sink, &dst);
                    dst.len()
                })
            })
        }
        "loona-hpack" => {
            if mode != HuffmanMode::Never {
                return None;
            }
            let mut dst = Vec::with_capacity(4096);
            let make = loona_hpack::Encoder::new;
            let mut kept = None;
            Box::new(move |sink| {
                encode_lists(&lists, &mut kept, reuse, &make, sink, |e, l, sink| {
                    dst.clear();
                    e.encode_into(
                        l.iter().map(|(a, b)| (a.as_bytes(), b.as_bytes())),
                        &mut dst,
                    )
                    .expect("writing to a Vec");
                    emit_block(sink, &dst);
                    dst.len()
                })
            })
        }
        _ => return None,
    })
}

fn browser_lists() -> Lists {
    Rc::new(vec![vec![
        BROWSER_REQUEST
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
    ]])
}

fn encode_workloads() -> Vec<Workload> {
    let mut out = Vec::new();
    let browser = browser_lists();
    let octets: usize = BROWSER_REQUEST.iter().map(|(_, v)| v.len()).sum();
    for (name, mode) in MODES {
        let lists = browser.clone();
        out.push(
            Workload::new(
                name,
                format!("the 10-header browser request ({octets} octets of values), Huffman {mode:?}, indexing off"),
                BROWSER_REQUEST.iter().map(|(a, b)| (a.len() + b.len()) as u64).sum(),
                1,
                move |v| encode_runner(v, lists.clone(), mode, Indexing::None),
            )
            .with_equivalence(decode_framed),
        );
    }
    if let Some(stories) = stories("raw-data") {
        let lists: Lists = Rc::new(
            stories
                .iter()
                .map(|s| s.cases.iter().map(|c| c.headers.clone()).collect())
                .collect(),
        );
        let blocks: usize = lists.iter().map(Vec::len).sum();
        let bytes: usize = lists
            .iter()
            .flatten()
            .flatten()
            .map(|(a, b)| a.len() + b.len())
            .sum();
        for (name, mode) in [
            ("stories-default", HuffmanMode::Auto),
            ("stories-raw", HuffmanMode::Never),
        ] {
            let lists = lists.clone();
            out.push(
                Workload::new(
                    name,
                    format!(
                        "hpack-test-case raw-data: {} stories, {blocks} header lists, Huffman {mode:?}, incremental indexing",
                        lists.len()
                    ),
                    bytes as u64,
                    blocks as u64,
                    move |v| encode_runner(v, lists.clone(), mode, Indexing::Incremental),
                )
                .with_equivalence(decode_framed),
            );
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// hpack-decode

/// The decode ladder.
pub static DECODE_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "naive",
        role: Role::Baseline,
        about: "bit-by-bit tree Huffman, Vec table, every field allocated (wirelab_baselines::hpack::NaiveDecoder)",
    },
    VariantInfo {
        name: "optimized",
        role: Role::Optimized,
        about: "wirelab::hpack::Decoder: 16-bit multi-symbol Huffman table, fields passed to a callback",
    },
    VariantInfo {
        name: "httlib-hpack",
        role: Role::Peer,
        about: "httlib-hpack Decoder (5-bit Huffman steps); its API drains a Vec, so each block is copied in",
    },
    VariantInfo {
        name: "loona-hpack",
        role: Role::Peer,
        about: "loona-hpack Decoder::decode_with_cb",
    },
];

/// The `hpack-decode` experiment.
pub static DECODE: Experiment = Experiment {
    id: "hpack-decode",
    title: "HPACK header block decoding",
    origin: "completes the codec of the Pekko HTTP HPACK change",
    docs: "core/src/hpack/mod.rs",
    variants: DECODE_VARIANTS,
    workloads: decode_workloads,
    originals: &[],
    notes: "Each run decodes every block of the workload, a fresh decoder per story (the \
browser blocks are those the optimized encoder produces). Output is the decoded header list. \
Target: faster than every peer on the hpack-test-case stories.",
    alloc_per: 1,
    headline: "nghttp2",
    result: None,
    sweep: false,
    feature: None,
};

type Blocks = Rc<Vec<Vec<(Vec<u8>, Option<usize>)>>>;

/// Runs a decoder over every block of every story: a fresh decoder per story, except that a
/// workload of blocks without indexing keeps its decoder across runs (steady state).
fn decode_blocks<D>(
    blocks: &Blocks,
    kept: &mut Option<D>,
    reuse: bool,
    make: &impl Fn() -> D,
    mut block: impl FnMut(&mut D, &[u8], Option<usize>) -> u64,
) -> u64 {
    let mut n = 0;
    for story in blocks.iter() {
        if !reuse || kept.is_none() {
            *kept = Some(make());
        }
        let dec = kept.as_mut().expect("set above");
        for (b, size) in story {
            n += block(dec, b, *size);
        }
    }
    n
}

fn decode_runner(variant: &str, blocks: Blocks, reuse: bool) -> Option<Runner> {
    Some(match variant {
        "naive" => {
            let mut kept = None;
            Box::new(move |sink| {
                decode_blocks(
                    &blocks,
                    &mut kept,
                    reuse,
                    &NaiveDecoder::new,
                    |dec, b, size| {
                        if let Some(s) = size {
                            dec.max_table_size = s;
                        }
                        let mut n = 0;
                        for (name, value) in dec.decode(b).expect("valid block") {
                            n += 1;
                            emit_header(sink, &name, &value);
                        }
                        n
                    },
                )
            })
        }
        "optimized" => {
            let mut kept = None;
            Box::new(move |sink| {
                decode_blocks(&blocks, &mut kept, reuse, &Decoder::new, |dec, b, size| {
                    if let Some(s) = size {
                        dec.set_max_table_size(s);
                    }
                    let mut n = 0;
                    dec.decode(b, |name, value| {
                        n += 1;
                        emit_header(sink, name, value);
                    })
                    .expect("valid block");
                    n
                })
            })
        }
        "httlib-hpack" => {
            let (mut dst, mut buf) = (Vec::new(), Vec::new());
            let mut kept = None;
            let make = httlib_hpack::Decoder::default;
            Box::new(move |sink| {
                decode_blocks(&blocks, &mut kept, reuse, &make, |dec, b, size| {
                    if let Some(s) = size {
                        dec.set_max_dynamic_size(s as u32);
                    }
                    // Its API drains a Vec: the block is copied in.
                    buf.clear();
                    buf.extend_from_slice(b);
                    dst.clear();
                    dec.decode(&mut buf, &mut dst).expect("valid block");
                    for (name, value, _) in &dst {
                        emit_header(sink, name, value);
                    }
                    dst.len() as u64
                })
            })
        }
        "loona-hpack" => {
            let mut kept = None;
            Box::new(move |sink| {
                decode_blocks(
                    &blocks,
                    &mut kept,
                    reuse,
                    &loona_hpack::Decoder::new,
                    |dec, b, size| {
                        if let Some(s) = size {
                            dec.set_max_allowed_table_size(s);
                        }
                        let mut n = 0;
                        dec.decode_with_cb(b, |name, value| {
                            n += 1;
                            emit_header(sink, &name, &value);
                        })
                        .expect("valid block");
                        n
                    },
                )
            })
        }
        _ => return None,
    })
}

fn decode_workloads() -> Vec<Workload> {
    let mut out = Vec::new();
    for (name, mode) in MODES {
        let mut enc = Encoder::new()
            .with_huffman(mode)
            .with_indexing(Indexing::None);
        let block = enc.encode_str(BROWSER_REQUEST);
        let len = block.len();
        let blocks: Blocks = Rc::new(vec![vec![(block.to_vec(), None)]]);
        out.push(Workload::new(
            name,
            format!("the browser request encoded in {mode:?} mode ({len} octets)"),
            len as u64,
            1,
            move |v| decode_runner(v, blocks.clone(), true),
        ));
    }
    for folder in ["nghttp2", "python-hpack", "swift-nio-hpack-plain-text"] {
        let Some(stories) = stories(folder) else {
            continue;
        };
        let blocks: Blocks = Rc::new(
            stories
                .iter()
                .map(|s| {
                    s.cases
                        .iter()
                        .map(|c| (c.wire.clone(), c.table_size))
                        .collect()
                })
                .collect(),
        );
        let count: usize = blocks.iter().map(Vec::len).sum();
        let bytes: usize = blocks.iter().flatten().map(|b| b.0.len()).sum();
        let name = folder.split('-').next().unwrap_or(folder);
        let name = if folder.starts_with("swift") {
            "swift-nio"
        } else {
            name
        };
        out.push(Workload::new(
            name,
            format!(
                "hpack-test-case {folder}: {} stories, {count} blocks",
                stories.len()
            ),
            bytes as u64,
            count as u64,
            move |v| decode_runner(v, blocks.clone(), false),
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// huffman-encode / huffman-decode

fn huffman_inputs() -> Vec<(&'static str, String, Vec<u8>)> {
    let ua = BROWSER_REQUEST[4].1;
    let all: Vec<u8> = (0..=255u8).collect();
    vec![
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

/// The Huffman encode ladder.
pub static HUFFMAN_ENCODE_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "naive",
        role: Role::Baseline,
        about: "walks a &str char by char, length pass then encode pass, each byte through a LockingWriter",
    },
    VariantInfo {
        name: "optimized",
        role: Role::Optimized,
        about: "wirelab::hpack::huffman::encoded_len + encode_into a reserved BlockWriter range",
    },
    VariantInfo {
        name: "httlib-huffman",
        role: Role::Peer,
        about: "httlib_huffman::encode into a reused Vec",
    },
];

/// The `huffman-encode` experiment.
pub static HUFFMAN_ENCODE: Experiment = Experiment {
    id: "huffman-encode",
    title: "HPACK Huffman encoding of one string",
    origin: "Pekko HTTP HPACK encoder pull request (Huffman coder on byte arrays)",
    docs: "core/src/hpack/huffman.rs",
    variants: HUFFMAN_ENCODE_VARIANTS,
    workloads: huffman_encode_workloads,
    originals: &[],
    notes: "Encode alone: one string, length computed and coded. The naive variant gets the \
string as text (each octet as a char U+0000..U+00FF), as the original coder did.",
    alloc_per: 1,
    headline: "user-agent",
    result: None,
    sweep: false,
    feature: None,
};

fn huffman_encode_workloads() -> Vec<Workload> {
    huffman_inputs()
        .into_iter()
        .map(|(name, about, bytes)| {
            let text: Rc<str> = wirelab::latin1::decode(&bytes).into();
            let bytes: Rc<[u8]> = bytes.into();
            let len = bytes.len() as u64;
            Workload::new(name, about, len, 1, move |v| -> Option<Runner> {
                let (text, bytes) = (text.clone(), bytes.clone());
                Some(match v {
                    "naive" => {
                        let w = LockingWriter::new();
                        Box::new(move |sink| {
                            let s = std::hint::black_box(&*text);
                            let n = wirelab_baselines::hpack::huffman::encoded_len_chars(s);
                            wirelab_baselines::hpack::huffman::encode_chars(s, &w);
                            let out = w.take();
                            debug_assert_eq!(out.len(), n);
                            sink.emit(&out);
                            n as u64
                        })
                    }
                    "optimized" => {
                        let mut w = wirelab::block::BlockWriter::new();
                        Box::new(move |sink| {
                            let src = std::hint::black_box(&*bytes);
                            let n = wirelab::hpack::huffman::encoded_len(src);
                            wirelab::hpack::huffman::encode_into(src, w.reserve(n))
                                .expect("exact length");
                            let out = w.take();
                            sink.emit(&out);
                            n as u64
                        })
                    }
                    "httlib-huffman" => {
                        let mut dst = Vec::with_capacity(1024);
                        Box::new(move |sink| {
                            dst.clear();
                            httlib_huffman::encode(std::hint::black_box(&bytes), &mut dst)
                                .expect("encodes");
                            sink.emit(&dst);
                            dst.len() as u64
                        })
                    }
                    _ => return None,
                })
            })
        })
        .collect()
}

/// The Huffman decode ladder.
pub static HUFFMAN_DECODE_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "naive",
        role: Role::Baseline,
        about: "bit-by-bit tree walk (wirelab_baselines::hpack::huffman::decode)",
    },
    VariantInfo {
        name: "optimized",
        role: Role::Optimized,
        about: "16-bit lookup yielding up to 3 symbols (wirelab::hpack::huffman::decode)",
    },
    VariantInfo {
        name: "httlib-huffman",
        role: Role::Peer,
        about: "httlib_huffman::decode, 5 bits per step",
    },
    VariantInfo {
        name: "loona-hpack",
        role: Role::Peer,
        about: "loona_hpack::huffman::HuffmanDecoder (bit by bit)",
    },
];

/// The `huffman-decode` experiment.
pub static HUFFMAN_DECODE: Experiment = Experiment {
    id: "huffman-decode",
    title: "HPACK Huffman decoding of one string",
    origin: "completes the codec of the Pekko HTTP HPACK change",
    docs: "core/src/hpack/huffman.rs",
    variants: HUFFMAN_DECODE_VARIANTS,
    workloads: huffman_decode_workloads,
    originals: &[],
    notes: "Decode alone, into a reused Vec. Target: at least 2 symbols per table lookup on \
typical header text (`cargo test` asserts the lookup count of the browser request's values).",
    alloc_per: 1,
    headline: "user-agent",
    result: None,
    sweep: false,
    feature: None,
};

fn huffman_decode_workloads() -> Vec<Workload> {
    huffman_inputs()
        .into_iter()
        .map(|(name, about, bytes)| {
            let coded: Rc<[u8]> = wirelab::hpack::huffman::encode(&bytes).into();
            let len = coded.len() as u64;
            Workload::new(
                name,
                format!("{about}, Huffman-coded ({len} octets)"),
                len,
                1,
                move |v| -> Option<Runner> {
                    let coded = coded.clone();
                    let mut dst: Vec<u8> = Vec::with_capacity(1024);
                    Some(match v {
                        "naive" => Box::new(move |sink| {
                            dst.clear();
                            wirelab_baselines::hpack::huffman::decode(
                                std::hint::black_box(&coded),
                                &mut dst,
                            )
                            .expect("valid");
                            sink.emit(&dst);
                            dst.len() as u64
                        }),
                        "optimized" => Box::new(move |sink| {
                            dst.clear();
                            wirelab::hpack::huffman::decode(std::hint::black_box(&coded), &mut dst)
                                .expect("valid");
                            sink.emit(&dst);
                            dst.len() as u64
                        }),
                        "httlib-huffman" => Box::new(move |sink| {
                            dst.clear();
                            httlib_huffman::decode(
                                std::hint::black_box(&coded),
                                &mut dst,
                                httlib_huffman::DecoderSpeed::FiveBits,
                            )
                            .expect("valid");
                            sink.emit(&dst);
                            dst.len() as u64
                        }),
                        "loona-hpack" => {
                            let mut dec = loona_hpack::huffman::HuffmanDecoder::new();
                            Box::new(move |sink| {
                                let out = dec.decode(std::hint::black_box(&coded)).expect("valid");
                                sink.emit(&out);
                                out.len() as u64
                            })
                        }
                        _ => return None,
                    })
                },
            )
        })
        .collect()
}
