//! `huffman-decode`: the HPACK Huffman code alone, decoding one string.

use super::common::hpack::huffman_inputs;
use super::hpack_decode::LOONA_HUFFMAN_UNSEEDED;
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Role, Runner, Variant, Workload, on_copy};
use std::hint::black_box;
use std::rc::Rc;

/// One workload's input: a Huffman-coded string.
#[derive(Clone)]
pub struct Coded(Rc<[u8]>);

/// The experiment.
pub static EXPERIMENT: Ladder<Coded> = Ladder {
    meta: Meta {
        id: "huffman-decode",
        title: "HPACK Huffman decoding of one string",
        origin: "completes the codec of the Pekko HTTP HPACK change",
        docs: "core/src/hpack/huffman.rs",
        notes: "Decode alone, into a reused Vec. Target: 1.5x h2's speed (h2 0.4.20 measured \
outside the lab at 0.75x the time of our earlier 16-bit decoder on a user-agent and 0.46x on \
all octets: about 2x and 3.3x over that decoder), with tables within 32 KiB; nearly 2 symbols \
per step on typical header text (`cargo test` asserts 1.8 on the browser request's values).",
        headline: "user-agent",
        unseeded: &[("loona-hpack", LOONA_HUFFMAN_UNSEEDED)],
        dispatch: &[("optimized", &["huffman decode"])],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "bit-by-bit tree walk (wirelab_baselines::hpack::huffman::decode)",
            build: naive,
        },
        Variant {
            name: "optimized",
            role: Role::Optimized,
            about: "14-bit step table, 1-2 symbols a step, 76 KiB of tables; from 32 octets two halves at once (wirelab::hpack::huffman::decode)",
            build: optimized,
        },
        Variant {
            name: "httlib-huffman",
            role: Role::Peer,
            about: "httlib_huffman::decode, 5 bits per step",
            build: httlib,
        },
        Variant {
            name: "loona-hpack",
            role: Role::Peer,
            about: "loona_hpack::huffman::HuffmanDecoder (bit by bit)",
            build: loona,
        },
    ],
    workloads,
};

fn workloads() -> Result<Vec<Workload<Coded>>, LoadError> {
    Ok(huffman_inputs()
        .into_iter()
        .map(|(name, about, bytes)| {
            let coded: Rc<[u8]> = wirelab::hpack::huffman::encode(&bytes).into();
            let len = coded.len() as u64;
            let about = format!("{about}, Huffman-coded ({len} octets)");
            Workload::new(name, about, len, 1, Coded(coded))
        })
        .collect())
}

fn naive(c: &Coded) -> Option<Runner> {
    let mut dst = Vec::with_capacity(1024);
    on_copy(c, move |c, sink| {
        dst.clear();
        wirelab_baselines::hpack::huffman::decode(black_box(&c.0), &mut dst).expect("valid");
        sink.emit(&dst);
        dst.len() as u64
    })
}

fn optimized(c: &Coded) -> Option<Runner> {
    let mut dst = Vec::with_capacity(1024);
    on_copy(c, move |c, sink| {
        dst.clear();
        wirelab::hpack::huffman::decode(black_box(&c.0), &mut dst).expect("valid");
        sink.emit(&dst);
        dst.len() as u64
    })
}

fn httlib(c: &Coded) -> Option<Runner> {
    let mut dst = Vec::with_capacity(1024);
    on_copy(c, move |c, sink| {
        dst.clear();
        let speed = httlib_huffman::DecoderSpeed::FiveBits;
        httlib_huffman::decode(black_box(&c.0), &mut dst, speed).expect("valid");
        sink.emit(&dst);
        dst.len() as u64
    })
}

fn loona(c: &Coded) -> Option<Runner> {
    let mut dec = loona_hpack::huffman::HuffmanDecoder::new();
    on_copy(c, move |c, sink| {
        let out = dec.decode(black_box(&c.0)).expect("valid");
        sink.emit(&out);
        out.len() as u64
    })
}
