//! `hpack-encode`: Pekko HTTP's HPACK encoder change (twitter/hpack with a char-at-a-time
//! Huffman coder and a synchronized stream).

use super::common::hpack::{BROWSER_REQUEST, MODES, decode_framed, emit_block, story_boundary};
use super::common::stories;
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Original, Role, Runner, Sink, Variant, Workload, on_copy};
use std::rc::Rc;
use wirelab::hpack::{Encoder, EncoderConfig, HuffmanMode, Indexing};
use wirelab_baselines::block::LockingWriter;
use wirelab_baselines::hpack::{NaiveEncoder, StringCoder};

/// Header lists grouped by story.
type Stories = Vec<Vec<Vec<(String, String)>>>;

/// One workload's input: header lists grouped by story (a fresh encoder per story), each list
/// encoded as one block, in one Huffman mode and indexing policy.
#[derive(Clone)]
pub struct Lists {
    lists: Rc<Stories>,
    mode: HuffmanMode,
    indexing: Indexing,
}

/// The experiment.
pub static EXPERIMENT: Ladder<Lists> = Ladder {
    meta: Meta {
        id: "hpack-encode",
        title: "HPACK header block encoding",
        origin: "Pekko HTTP HPACK encoder pull request (twitter/hpack Huffman coder, ByteStringOutputStream)",
        docs: "core/src/hpack/mod.rs",
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
        headline: "browser-default",
        result: Some("octets of header blocks produced per run"),
        equivalence: Some(decode_framed),
        dispatch: &[("optimized", &["huffman encoded_len"])],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "char-at-a-time Huffman, locking writer per byte, block copied out (wirelab_baselines::hpack::NaiveEncoder)",
            build: naive,
        },
        Variant {
            name: "slice-huffman",
            role: Role::Step,
            about: "the original's intermediate step: byte-slice Huffman, still the locking writer and the copy-out",
            build: slice_huffman,
        },
        Variant {
            name: "optimized",
            role: Role::Optimized,
            about: "wirelab::hpack::Encoder: Latin-1 once, Huffman into a reserved BlockWriter range, zero-copy take",
            build: optimized,
        },
        Variant {
            name: "httlib-hpack",
            role: Role::Peer,
            about: "httlib-hpack Encoder with BEST_FORMAT (cannot choose Huffman per string: n/a in default mode)",
            build: httlib,
        },
        Variant {
            name: "loona-hpack",
            role: Role::Peer,
            about: "loona-hpack (the maintained fork of hpack) Encoder: no Huffman, so raw mode only",
            build: loona,
        },
    ],
    workloads,
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

/// A runner that encodes every list of every story: a fresh encoder per story, except that a
/// single-story workload without indexing keeps its encoder across runs (steady state; its
/// table stays empty). `block` encodes one list and returns the block's length.
fn encoding<E: 'static>(
    input: &Lists,
    make: impl Fn() -> E + 'static,
    mut block: impl FnMut(&mut E, &[(String, String)], &mut Sink) -> usize + 'static,
) -> Option<Runner> {
    let reuse = input.lists.len() == 1 && input.indexing == Indexing::None;
    let mut kept: Option<E> = None;
    on_copy(input, move |input, sink| {
        let mut n = 0;
        for story in input.lists.iter() {
            if !reuse || kept.is_none() {
                kept = Some(make());
            }
            let enc = kept.as_mut().expect("set above");
            for l in story {
                n += block(enc, l, sink);
            }
            story_boundary(sink);
        }
        n as u64
    })
}

fn pairs(l: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    l.iter().map(|(a, b)| (a.as_str(), b.as_str()))
}

fn naive(i: &Lists) -> Option<Runner> {
    let (mode, indexing) = (i.mode, i.indexing);
    encoding(
        i,
        move || NaiveEncoder::with_config(config(mode, indexing)).expect("valid config"),
        |e, l, sink| {
            let b = e.encode_str(pairs(l));
            emit_block(sink, &b);
            b.len()
        },
    )
}

fn slice_huffman(i: &Lists) -> Option<Runner> {
    let (mode, indexing) = (i.mode, i.indexing);
    let make = move || {
        NaiveEncoder::with_coder(config(mode, indexing), SliceHuffman::default())
            .expect("valid config")
    };
    encoding(i, make, |e, l, sink| {
        let b = e.encode_str(pairs(l));
        emit_block(sink, &b);
        b.len()
    })
}

fn optimized(i: &Lists) -> Option<Runner> {
    let (mode, indexing) = (i.mode, i.indexing);
    let make = move || Encoder::with_config(config(mode, indexing)).expect("valid config");
    encoding(i, make, |e, l, sink| {
        let b = e.encode_str(pairs(l));
        emit_block(sink, &b);
        b.len()
    })
}

/// The encoders' configuration for a workload: its Huffman mode and indexing policy.
fn config(huffman: HuffmanMode, indexing: Indexing) -> EncoderConfig {
    EncoderConfig {
        huffman,
        indexing,
        ..EncoderConfig::default()
    }
}

fn httlib(i: &Lists) -> Option<Runner> {
    let flags = match i.mode {
        HuffmanMode::Auto => return None,
        HuffmanMode::Always => 0x1 | 0x2 | 0x10,
        HuffmanMode::Never => 0x10,
    } | if i.indexing == Indexing::Incremental {
        0x4
    } else {
        0
    };
    let mut dst = Vec::with_capacity(4096);
    encoding(i, httlib_hpack::Encoder::default, move |e, l, sink| {
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
}

fn loona(i: &Lists) -> Option<Runner> {
    if i.mode != HuffmanMode::Never {
        return None;
    }
    let mut dst = Vec::with_capacity(4096);
    encoding(i, loona_hpack::Encoder::new, move |e, l, sink| {
        dst.clear();
        e.encode_into(
            l.iter().map(|(a, b)| (a.as_bytes(), b.as_bytes())),
            &mut dst,
        )
        .expect("writing to a Vec");
        emit_block(sink, &dst);
        dst.len()
    })
}

fn workloads() -> Result<Vec<Workload<Lists>>, LoadError> {
    let browser = Rc::new(vec![vec![
        BROWSER_REQUEST
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
    ]]);
    let octets: usize = BROWSER_REQUEST.iter().map(|(_, v)| v.len()).sum();
    let bytes: u64 = BROWSER_REQUEST
        .iter()
        .map(|(a, b)| (a.len() + b.len()) as u64)
        .sum();
    let mut out: Vec<Workload<Lists>> = MODES
        .into_iter()
        .map(|(name, mode)| {
            let about = format!(
                "the 10-header browser request ({octets} octets of values), Huffman {mode:?}, indexing off"
            );
            let input = Lists {
                lists: browser.clone(),
                mode,
                indexing: Indexing::None,
            };
            Workload::new(name, about, bytes, 1, input)
        })
        .collect();
    if let Some(stories) = stories::load("raw-data")? {
        out.extend(story_workloads(&stories));
    }
    Ok(out)
}

/// Every header list of hpack-test-case's raw-data stories, with incremental indexing, in
/// default and raw mode.
fn story_workloads(stories: &[stories::Story]) -> Vec<Workload<Lists>> {
    let lists: Rc<Stories> = Rc::new(
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
    [
        ("stories-default", HuffmanMode::Auto),
        ("stories-raw", HuffmanMode::Never),
    ]
    .into_iter()
    .map(|(name, mode)| {
        let about = format!(
            "hpack-test-case raw-data: {} stories, {blocks} header lists, Huffman {mode:?}, incremental indexing",
            lists.len()
        );
        let input = Lists {
            lists: lists.clone(),
            mode,
            indexing: Indexing::Incremental,
        };
        Workload::new(name, about, bytes as u64, blocks as u64, input)
    })
    .collect()
}
