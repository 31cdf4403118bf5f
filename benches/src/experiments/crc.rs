//! `crc`: Pekko HTTP's "coding stages" change, CRC-32 over a rope of input pieces.

use super::common::{pieces, random};
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Original, Role, Scaling, Sink, Variant, Workload, on_copy};
use crate::data;
use bytes::Bytes;
use std::rc::Rc;
use wirelab::coding::crc;
use wirelab_baselines::coding::crc_copy_then_checksum;

/// One workload's input: 1 MiB as a rope of pieces, and the same bytes contiguous.
#[derive(Clone)]
pub struct Rope {
    rope: Rc<Vec<Bytes>>,
    contiguous: Rc<[u8]>,
}

/// The experiment.
pub static EXPERIMENT: Ladder<Rope> = Ladder {
    meta: Meta {
        id: "crc",
        title: "CRC-32 over a rope of input pieces",
        origin: "Pekko HTTP coding stages pull request (per-fragment CRC)",
        docs: "core/src/coding/crc.rs",
        originals: &[
            Original {
                workload: "sliced",
                figures: "221 -> 154 ms",
                ratio: Some(221.0 / 154.0),
            },
            Original {
                workload: "compact",
                figures: "102 -> 98 ms",
                ratio: Some(102.0 / 98.0),
            },
        ],
        notes: "Each run checksums 1 MiB of random bytes: `compact` is one piece, `sliced` 200 \
pieces (the original's rope), the `frag-*` workloads pieces of 64 B to 64 KiB, each a separate \
allocation. The original's figures are copy-then-checksum -> per-fragment for 200 updates of \
1 MiB on the JVM. Targets: per-fragment within 1.1x of contiguous at 4 KiB and up, at least \
1.4x faster than copy-then-checksum on sliced; adaptive never slower than the better of the \
two, within 1.1x of contiguous at 4 KiB and 3x at 64 B. valgrind hides AVX-512 from the \
program, so under the instruction counter both crc32fast and adaptive run narrower kernels \
(adaptive: PCLMULQDQ over 16 128-bit streams instead of VPCLMULQDQ over four 512-bit \
registers) than under criterion: instruction counts compare strategies, not the kernels \
criterion times.",
        headline: "sliced",
        scaling: &[Scaling {
            name: "fragments",
            axis: "fragment size (octets, log scale)",
            sizes: &[
                ("frag-64", 64.0),
                ("frag-1k", 1024.0),
                ("frag-4k", 4096.0),
                ("frag-64k", 65536.0),
            ],
        }],
        dispatch: &[("adaptive", &["crc folding"])],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "copy-then-checksum",
            role: Role::Baseline,
            about: "concatenate the pieces into a fresh Vec, one crc32fast call (wirelab_baselines::coding::crc_copy_then_checksum)",
            build: |r| on_copy(r, |r, sink| emit_crc(sink, crc_copy_then_checksum(&r.rope))),
        },
        Variant {
            name: "per-fragment",
            role: Role::Step,
            about: "one crc32fast update per piece, no copy (the original change; wirelab::coding::crc::per_fragment)",
            build: |r| {
                on_copy(r, |r, sink| {
                    emit_crc(sink, crc::per_fragment(r.rope.iter().map(|b| &b[..])))
                })
            },
        },
        Variant {
            name: "adaptive",
            role: Role::Optimized,
            about: "folding state kept across pieces: 16 streams folded a 256-octet block at a time (VPCLMULQDQ with AVX-512, the streams in registers over the whole rope), partial chunks held back, one reduction at the end (wirelab::coding::crc::adaptive, Adaptive::extend)",
            build: |r| {
                on_copy(r, |r, sink| {
                    emit_crc(sink, crc::adaptive(r.rope.iter().map(|b| &b[..])))
                })
            },
        },
        Variant {
            name: "contiguous",
            role: Role::Limit,
            about: "one crc32fast call over the same bytes already contiguous",
            build: |r| on_copy(r, |r, sink| emit_crc(sink, crc32fast::hash(&r.contiguous))),
        },
    ],
    workloads,
};

/// Emits the checksum `c` (passed through `black_box`, so that it is computed) and returns it.
fn emit_crc(sink: &mut Sink, c: u32) -> u64 {
    let c = std::hint::black_box(c);
    sink.emit(&c.to_be_bytes());
    u64::from(c)
}

fn workloads() -> Result<Vec<Workload<Rope>>, LoadError> {
    let data = data::cached("crc: random(1 MiB, 0xC2C)", || random(1 << 20, 0xC2C));
    let mut specs: Vec<(String, String, Vec<Bytes>)> = vec![
        (
            "compact".into(),
            "1 MiB in one piece".into(),
            vec![Bytes::from(data.clone())],
        ),
        (
            "sliced".into(),
            "1 MiB in 200 pieces (about 5 KiB each)".into(),
            pieces(&data, (1 << 20) / 200 + 1),
        ),
    ];
    for (name, size) in [
        ("frag-64", 64),
        ("frag-1k", 1024),
        ("frag-4k", 4096),
        ("frag-64k", 65536),
    ] {
        specs.push((
            name.into(),
            format!("1 MiB in pieces of {size} bytes"),
            pieces(&data, size),
        ));
    }
    let contiguous: Rc<[u8]> = data.into();
    Ok(specs
        .into_iter()
        .map(|(name, about, rope)| {
            let input = Rope {
                rope: Rc::new(rope),
                contiguous: contiguous.clone(),
            };
            Workload::new(name, about, 1 << 20, 1, input)
        })
        .collect())
}
