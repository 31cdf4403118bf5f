//! `octet-push`: hostile input, one octet per push; work against input size.

use super::common::compressible;
use super::common::pieces;
use super::common::pushed::{self, Pushed};
use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Role, Scaling, Variant, Workload};
use crate::data;
use std::rc::Rc;
use wirelab::coding::Format;

/// The experiment: the size sweep of the fuzzing issue's resource bounds.
pub static EXPERIMENT: Ladder<Pushed> = Ladder {
    meta: Meta {
        id: "octet-push",
        title: "One-octet pushes: work against input size",
        origin: "hostile-input bounds (a peer that sends one octet per packet)",
        docs: "core/src/coding/decoder.rs",
        notes: "A gzip member whose header carries an FNAME of n octets and whose body is n octets \
of text, pushed one octet at a time (each octet its own allocation), for n = 2, 4, 8 and 16 KiB. \
Target: the optimized decoder's work grows linearly (about 2x per doubling in the growth \
table) and its allocations per run stay the same at every size (also asserted exactly by \
baselines/tests/linear_work_alloc.rs). The naive twin re-parses the header from its start \
after every push, so its header work is quadratic in the FNAME length. Copies per MiB \
(Output table) are counted as in `gzip`: the optimized decoder's 18 header and trailer bytes, \
the naive twin's appends, per-round copies and moves, and the octets flate2-multi's reader \
adapter copies into flate2's buffer.",
        headline: "fname-16k",
        result: Some("octets decoded per run"),
        sweep: true,
        scaling: &[Scaling {
            name: "fname",
            axis: "FNAME and text size (octets each, log scale)",
            sizes: &[
                ("fname-2k", 2048.0),
                ("fname-4k", 4096.0),
                ("fname-8k", 8192.0),
                ("fname-16k", 16384.0),
            ],
        }],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "header re-parsed from the start after every push, remaining input copied every round (wirelab_baselines::coding::NaiveDecoder)",
            build: pushed::naive,
        },
        Variant {
            name: "optimized",
            role: Role::Optimized,
            about: "incremental header parser, borrowed input (wirelab::coding::Decoder)",
            build: pushed::optimized,
        },
        Variant {
            name: "flate2-multi",
            role: Role::Peer,
            about: "flate2::read::MultiGzDecoder over a reader that yields one octet per read",
            build: pushed::flate2_multi,
        },
    ],
    workloads,
};

/// A gzip member with an FNAME of `n` octets and `n` octets of text.
fn fname_member(n: usize) -> Vec<u8> {
    use std::io::Write;
    let name: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
    let mut enc = flate2::GzBuilder::new()
        .filename(name)
        .write(Vec::new(), flate2::Compression::default());
    enc.write_all(&compressible(n, 0x0C7E7))
        .expect("writing to a Vec");
    enc.finish().expect("writing to a Vec")
}

fn workloads() -> Result<Vec<Workload<Pushed>>, LoadError> {
    Ok([2usize, 4, 8, 16]
        .into_iter()
        .map(|k| {
            let key = format!(
                "octet-push: fname_member({k} KiB, flate2 {:?} default level, 0x0C7E7)",
                crate::catalog::Backend::BUILT
            );
            let gz = data::cached(&key, || fname_member(k << 10));
            let about = format!(
                "FNAME of {k} KiB and {k} KiB of text: {} gzipped octets, one push each",
                gz.len()
            );
            let input = Pushed {
                format: Format::Gzip,
                pieces: Rc::new(pieces(&gz, 1)),
            };
            Workload::new(format!("fname-{k}k"), about, gz.len() as u64, 1, input)
        })
        .collect())
}
