//! `huffman-encode`: the HPACK Huffman code alone, encoding one string.

use super::common::hpack::huffman_inputs;
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Role, Runner, Variant, Workload, on_copy};
use std::rc::Rc;
use wirelab_baselines::block::LockingWriter;

/// One workload's input: the string as text (each octet a char U+0000..U+00FF) and as octets.
#[derive(Clone)]
pub struct Text {
    text: Rc<str>,
    bytes: Rc<[u8]>,
}

/// The experiment.
pub static EXPERIMENT: Ladder<Text> = Ladder {
    meta: Meta {
        id: "huffman-encode",
        title: "HPACK Huffman encoding of one string",
        origin: "Pekko HTTP HPACK encoder pull request (Huffman coder on byte arrays)",
        docs: "core/src/hpack/huffman.rs",
        notes: "Encode alone: one string, length computed and coded. The naive variant gets the \
string as text (each octet as a char U+0000..U+00FF), as the original coder did. The optimized \
variant encodes into a reused buffer sized by `encoded_len`, as the peer encodes into a reused \
Vec (until 2026-12-06 it reserved a BlockWriter range and handed the block over, whose shared \
reference counts took more of a 15-octet string's time than the code did: 36.8 ns against \
httlib's 23.0).",
        headline: "user-agent",
        dispatch: &[("optimized", &["huffman encoded_len"])],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "walks a &str char by char, length pass then encode pass, each byte through a LockingWriter",
            build: naive,
        },
        Variant {
            name: "optimized",
            role: Role::Optimized,
            about: "wirelab::hpack::huffman::encoded_len + encode_into a reused Vec sized to it (as the peer's reused Vec)",
            build: optimized,
        },
        Variant {
            name: "httlib-huffman",
            role: Role::Peer,
            about: "httlib_huffman::encode into a reused Vec",
            build: httlib,
        },
    ],
    workloads,
};

fn workloads() -> Result<Vec<Workload<Text>>, LoadError> {
    Ok(huffman_inputs()
        .into_iter()
        .map(|(name, about, bytes)| {
            let text: Rc<str> = wirelab::latin1::decode(&bytes).into();
            let len = bytes.len() as u64;
            let input = Text {
                text,
                bytes: bytes.into(),
            };
            Workload::new(name, about, len, 1, input)
        })
        .collect())
}

fn naive(t: &Text) -> Option<Runner> {
    let w = LockingWriter::new();
    on_copy(t, move |t, sink| {
        let s = std::hint::black_box(&*t.text);
        let n = wirelab_baselines::hpack::huffman::encoded_len_chars(s);
        wirelab_baselines::hpack::huffman::encode_chars(s, &w);
        let out = w.take();
        debug_assert_eq!(out.len(), n);
        sink.emit(&out);
        n as u64
    })
}

fn optimized(t: &Text) -> Option<Runner> {
    let mut dst = Vec::with_capacity(1024);
    on_copy(t, move |t, sink| {
        let src = std::hint::black_box(&*t.bytes);
        let n = wirelab::hpack::huffman::encoded_len(src);
        dst.clear();
        dst.resize(n, 0);
        wirelab::hpack::huffman::encode_into(src, &mut dst).expect("exact length");
        sink.emit(&dst);
        n as u64
    })
}

fn httlib(t: &Text) -> Option<Runner> {
    let mut dst = Vec::with_capacity(1024);
    on_copy(t, move |t, sink| {
        dst.clear();
        httlib_huffman::encode(std::hint::black_box(&t.bytes), &mut dst).expect("encodes");
        sink.emit(&dst);
        dst.len() as u64
    })
}
