//! `hpack-decode`: the decoder that completes the codec of Pekko HTTP's HPACK change.

use super::common::hpack::{BROWSER_REQUEST, MODES, emit_header};
use super::common::stories;
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Role, Runner, Variant, Workload, on_copy};
use std::rc::Rc;
use wirelab::hpack::{Decoder, Encoder, EncoderConfig, Indexing};
use wirelab_baselines::hpack::NaiveDecoder;

/// Header blocks grouped by story, each with the SETTINGS_HEADER_TABLE_SIZE in force where the
/// story says.
type Stories = Vec<Vec<(Vec<u8>, Option<usize>)>>;

/// One workload's input: header blocks grouped by story (a fresh decoder per story).
#[derive(Clone)]
pub struct Blocks {
    blocks: Rc<Stories>,
    /// Keep one decoder across runs (blocks without indexing: steady state).
    reuse: bool,
}

const LOONA_UNSEEDED: &str = "loona-hpack's Huffman decoder looks codes up in a `HashMap` with a random seed (`RandomState`), so its probe sequences change from run to run";

/// The experiment.
pub static EXPERIMENT: Ladder<Blocks> = Ladder {
    meta: Meta {
        id: "hpack-decode",
        title: "HPACK header block decoding",
        origin: "completes the codec of the Pekko HTTP HPACK change",
        docs: "core/src/hpack/mod.rs",
        notes: "Each run decodes every block of the workload, a fresh decoder per story (the \
browser blocks are those the optimized encoder produces). Output is the decoded header list. \
Target: faster than every peer on the hpack-test-case stories.",
        headline: "nghttp2",
        unseeded: &[("loona-hpack", LOONA_UNSEEDED)],
        dispatch: &[("optimized", &["huffman decode"])],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "bit-by-bit tree Huffman, Vec table, every field allocated (wirelab_baselines::hpack::NaiveDecoder)",
            build: naive,
        },
        Variant {
            name: "optimized",
            role: Role::Optimized,
            about: "wirelab::hpack::Decoder: 14-bit two-symbol Huffman steps, fields passed to a callback",
            build: optimized,
        },
        Variant {
            name: "httlib-hpack",
            role: Role::Peer,
            about: "httlib-hpack Decoder (5-bit Huffman steps); its API drains a Vec, so each block is copied in",
            build: httlib,
        },
        Variant {
            name: "loona-hpack",
            role: Role::Peer,
            about: "loona-hpack Decoder::decode_with_cb",
            build: loona,
        },
    ],
    workloads,
};

/// Why loona-hpack's Huffman decoding varies from run to run (shared with `huffman-decode`).
pub const LOONA_HUFFMAN_UNSEEDED: &str = LOONA_UNSEEDED;

/// A runner that decodes every block of every story: a fresh decoder per story, except that a
/// workload of blocks without indexing keeps its decoder across runs (steady state). `block`
/// decodes one block (with the table size in force) and returns the fields it decoded.
fn decoding<D: 'static>(
    input: &Blocks,
    make: impl Fn() -> D + 'static,
    mut block: impl FnMut(&mut D, &[u8], Option<usize>, &mut crate::catalog::Sink) -> u64 + 'static,
) -> Option<Runner> {
    let mut kept: Option<D> = None;
    on_copy(input, move |input, sink| {
        let mut n = 0;
        for story in input.blocks.iter() {
            if !input.reuse || kept.is_none() {
                kept = Some(make());
            }
            let dec = kept.as_mut().expect("set above");
            for (b, size) in story {
                n += block(dec, b, *size, sink);
            }
        }
        n
    })
}

fn naive(i: &Blocks) -> Option<Runner> {
    decoding(i, NaiveDecoder::new, |dec, b, size, sink| {
        if let Some(s) = size {
            dec.set_max_table_size(s);
        }
        let mut n = 0;
        for (name, value) in dec.decode_to_vec(b).expect("valid block") {
            n += 1;
            emit_header(sink, &name, &value);
        }
        n
    })
}

fn optimized(i: &Blocks) -> Option<Runner> {
    decoding(i, Decoder::new, |dec, b, size, sink| {
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
}

fn httlib(i: &Blocks) -> Option<Runner> {
    let (mut dst, mut buf) = (Vec::new(), Vec::new());
    decoding(
        i,
        httlib_hpack::Decoder::default,
        move |dec, b, size, sink| {
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
        },
    )
}

fn loona(i: &Blocks) -> Option<Runner> {
    decoding(i, loona_hpack::Decoder::new, |dec, b, size, sink| {
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
    })
}

fn workloads() -> Result<Vec<Workload<Blocks>>, LoadError> {
    let mut out: Vec<Workload<Blocks>> = MODES
        .into_iter()
        .map(|(name, mode)| {
            let mut enc = Encoder::with_config(EncoderConfig {
                huffman: mode,
                indexing: Indexing::None,
                ..EncoderConfig::default()
            })
            .expect("valid config");
            let block = enc.encode_str(BROWSER_REQUEST);
            let len = block.len();
            let input = Blocks {
                blocks: Rc::new(vec![vec![(block.to_vec(), None)]]),
                reuse: true,
            };
            let about = format!("the browser request encoded in {mode:?} mode ({len} octets)");
            Workload::new(name, about, len as u64, 1, input)
        })
        .collect();
    for folder in ["nghttp2", "python-hpack", "swift-nio-hpack-plain-text"] {
        if let Some(stories) = stories::load_wires(folder)? {
            out.push(story_workload(folder, &stories));
        }
    }
    Ok(out)
}

/// Every block of one hpack-test-case folder, a fresh decoder per story.
fn story_workload(folder: &str, stories: &[stories::Story]) -> Workload<Blocks> {
    let blocks: Stories = stories
        .iter()
        .map(|s| {
            s.cases
                .iter()
                .map(|c| (c.wire.clone(), c.table_size))
                .collect()
        })
        .collect();
    let count: usize = blocks.iter().map(Vec::len).sum();
    let bytes: usize = blocks.iter().flatten().map(|b| b.0.len()).sum();
    let name = if folder.starts_with("swift") {
        "swift-nio"
    } else {
        folder.split('-').next().unwrap_or(folder)
    };
    let about = format!(
        "hpack-test-case {folder}: {} stories, {count} blocks",
        stories.len()
    );
    let input = Blocks {
        blocks: Rc::new(blocks),
        reuse: false,
    };
    Workload::new(name, about, bytes as u64, count as u64, input)
}
