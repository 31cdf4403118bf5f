//! `write-to`: Jetty's `BufferUtil.writeTo`, a buffer written out to a stream.

use super::common::Rng;
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Original, Role, Runner, Variant, Workload, on_copy};
use crate::rope::Chunks;
use bytes::{Buf, Bytes};
use std::io::{self, Write};
use std::rc::Rc;

/// One workload's input: a list of frames, each a list of chunks written with one call.
#[derive(Clone)]
pub struct Frames {
    frames: Rc<Vec<Vec<Bytes>>>,
    bytes: usize,
}

/// The experiment.
pub static EXPERIMENT: Ladder<Frames> = Ladder {
    meta: Meta {
        id: "write-to",
        title: "Writing a buffer out to a stream",
        origin: "Eclipse Jetty, BufferUtil.writeTo(ByteBuffer, OutputStream)",
        docs: "core/src/write_to.rs",
        originals: &[Original {
            workload: "tiny-frames",
            figures: "fewer young-GC cycles; 3 ms -> 2 ms",
            ratio: Some(1.5),
        }],
        notes: "The writer is a Vec<u8> with enough capacity, cleared at the start of each run. \
The original reported garbage collection, so the allocation table also gives bytes allocated \
per 1,000 operations (frames, messages). Targets: direct makes 0 heap allocations per call \
(temp-4k: one 4 KiB block per call) and is faster than temp-4k on 2-6 byte frames.",
        alloc_per: 1000,
        headline: "tiny-frames",
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "temp-4k",
            role: Role::Baseline,
            about: "4 KiB temporary array per call (wirelab_baselines::write_to::write_to_temp_4k)",
            build: |f| {
                writing(f, |b, w| {
                    wirelab_baselines::write_to::write_to_temp_4k(b, w)
                })
            },
        },
        Variant {
            name: "temp-fitted",
            role: Role::Step,
            about: "min(remaining, 4 KiB) temporary once per call (the Jetty fix)",
            build: |f| {
                writing(f, |b, w| {
                    wirelab_baselines::write_to::write_to_temp_fitted(b, w)
                })
            },
        },
        Variant {
            name: "direct",
            role: Role::Optimized,
            about: "no temporary: chunks written directly, vectored (wirelab::write_to::write_to)",
            build: |f| writing(f, |b, w| wirelab::write_to::write_to(b, w)),
        },
        Variant {
            name: "io-copy",
            role: Role::Peer,
            about: "std::io::copy from Buf::reader()",
            build: |f| writing(f, |b, w| io::copy(&mut b.reader(), w).map(|_| ())),
        },
        Variant {
            name: "extend",
            role: Role::Limit,
            about: "Vec::extend_from_slice of each chunk (the sink's own copy)",
            build: |f| writing(f, extend),
        },
    ],
    workloads,
};

fn workloads() -> Result<Vec<Workload<Frames>>, LoadError> {
    let mut rng = Rng::new(0x3E77);
    let mut tiny = Vec::with_capacity(10_000);
    for _ in 0..10_000 {
        let mut f = vec![0u8; rng.range(2, 6)];
        rng.fill(&mut f);
        tiny.push(Bytes::from(f));
    }
    let messages: Vec<Bytes> = (0..1000)
        .map(|_| {
            let mut m = vec![0u8; 1024];
            rng.fill(&mut m);
            Bytes::from(m)
        })
        .collect();
    let mut big = vec![0u8; 1 << 20];
    rng.fill(&mut big);
    let big = Bytes::from(big);
    let big_chunks: Vec<Bytes> = (0..16).map(|i| big.slice(i << 16..(i + 1) << 16)).collect();

    // Each workload is a list of frames; a frame is a list of chunks written with one call.
    let specs: Vec<(&str, String, Vec<Vec<Bytes>>)> = vec![
        (
            "tiny-frames",
            "10,000 frames of 2-6 bytes, one call each".into(),
            tiny.into_iter().map(|b| vec![b]).collect(),
        ),
        (
            "messages-1k",
            "1,000 messages of 1 KiB, one call each".into(),
            messages.into_iter().map(|b| vec![b]).collect(),
        ),
        (
            "multi-chunk-1m",
            "one 1 MiB message of 16 chunks of 64 KiB, one call".into(),
            vec![big_chunks],
        ),
    ];
    Ok(specs
        .into_iter()
        .map(|(name, about, frames)| {
            let bytes: usize = frames.iter().flatten().map(Bytes::len).sum();
            let ops = frames.len() as u64;
            let frames = Rc::new(frames);
            Workload::new(name, about, bytes as u64, ops, Frames { frames, bytes })
        })
        .collect())
}

type WriteFn = fn(&mut Chunks<'_>, &mut Vec<u8>) -> io::Result<()>;

fn extend(b: &mut Chunks<'_>, w: &mut Vec<u8>) -> io::Result<()> {
    while b.has_remaining() {
        let n = b.chunk().len();
        w.extend_from_slice(b.chunk());
        b.advance(n);
    }
    w.flush()
}

/// Writes every frame of the workload with `f` into a reused Vec.
fn writing(input: &Frames, f: WriteFn) -> Option<Runner> {
    let mut out: Vec<u8> = Vec::with_capacity(input.bytes);
    on_copy(input, move |input, sink| {
        out.clear();
        for frame in input.frames.iter() {
            let mut buf = Chunks::new(std::hint::black_box(frame));
            f(&mut buf, &mut out).expect("a Vec<u8> writer does not fail");
        }
        sink.emit(&out);
        out.len() as u64
    })
}
