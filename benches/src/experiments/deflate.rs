//! `deflate`: Pekko HTTP's "coding stages" change measured deflating contiguous against
//! per-fragment input (and deliberately not changed).

use super::common::{compressible, pieces};
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Original, Role, Runner, Variant, Workload, on_copy};
use crate::data;
use bytes::Bytes;
use std::io::Read;
use std::rc::Rc;
use wirelab::coding::{Encoder, Format};
use wirelab_baselines::coding::NaiveEncoder;

/// One workload's input: 1 MiB of text as a rope of pieces.
#[derive(Clone)]
pub struct Rope(Rc<Vec<Bytes>>);

/// The experiment.
pub static EXPERIMENT: Ladder<Rope> = Ladder {
    meta: Meta {
        id: "deflate",
        title: "Deflating contiguous against per-fragment input",
        origin: "Pekko HTTP coding stages pull request (measured, and deliberately not changed)",
        docs: "core/src/coding/mod.rs",
        originals: &[
            Original {
                workload: "compact",
                figures: "162 vs 194 ms (per-fragment worse)",
                ratio: Some(162.0 / 194.0),
            },
            Original {
                workload: "sliced",
                figures: "362 vs 346 ms (a wash)",
                ratio: Some(362.0 / 346.0),
            },
        ],
        notes: "1 MiB of compressible text gzipped at level 6 per run (the original ran 20 rounds; \
these figures are per round): `compact` is one piece, `sliced` 200 pieces. The original found \
per-fragment input slower on compact data and kept the old code; a negative result is a \
result.",
        headline: "sliced",
        equivalence: Some(gunzip),
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "contiguous",
            role: Role::Baseline,
            about: "the pieces concatenated, then deflated and checksummed as one array (wirelab_baselines::coding::NaiveEncoder)",
            build: contiguous,
        },
        Variant {
            name: "per-fragment",
            role: Role::Optimized,
            about: "each piece deflated and checksummed where it lies (wirelab::coding::Encoder, one push per piece)",
            build: per_fragment,
        },
    ],
    workloads,
};

fn workloads() -> Result<Vec<Workload<Rope>>, LoadError> {
    let data = data::cached("deflate: compressible(1 MiB, 0xDEF1A7E)", || {
        compressible(1 << 20, 0xDEF1A7E)
    });
    Ok([
        (
            "compact",
            "1 MiB of text in one piece",
            vec![Bytes::from(data.clone())],
        ),
        (
            "sliced",
            "1 MiB of text in 200 pieces",
            pieces(&data, (1 << 20) / 200 + 1),
        ),
    ]
    .into_iter()
    .map(|(name, about, rope)| Workload::new(name, about, 1 << 20, 1, Rope(Rc::new(rope))))
    .collect())
}

fn contiguous(r: &Rope) -> Option<Runner> {
    on_copy(r, |r, sink| {
        let mut enc = NaiveEncoder::new(Format::Gzip);
        let mut n = 0u64;
        let mut emit = |b: Bytes| {
            n += b.len() as u64;
            sink.emit(&b);
        };
        enc.push_pieces(&r.0, &mut emit).expect("push");
        enc.finish(&mut emit).expect("finish");
        n
    })
}

fn per_fragment(r: &Rope) -> Option<Runner> {
    on_copy(r, |r, sink| {
        let mut enc = Encoder::new(Format::Gzip);
        let mut n = 0u64;
        let mut emit = |b: Bytes| {
            n += b.len() as u64;
            sink.emit(&b);
        };
        for p in r.0.iter() {
            enc.push(p, &mut emit).expect("push");
        }
        enc.finish(&mut emit).expect("finish");
        n
    })
}

/// Decompresses a gzip stream (for comparing encoders whose bytes may differ).
fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out) {
        Ok(_) => out,
        Err(e) => format!("error: {e}").into_bytes(),
    }
}
