//! `inflate`: Pekko HTTP's "coding stages" change, borrowing the remaining input instead of
//! copying it. Measured with both of flate2's backends (`inflate`, `inflate-zlib-rs`).

use super::common::pushed::{self, Pushed};
use super::common::{compressible, pieces, random};
use crate::catalog::LoadError;
use crate::catalog::{Backend, Ladder, Meta, Original, Role, Variant, Workload};
use crate::data;
use std::rc::Rc;
use wirelab::coding::Format;

/// The experiment.
pub static EXPERIMENT: Ladder<Pushed> = Ladder {
    meta: Meta {
        id: "inflate",
        title: "Inflating a stream pushed in pieces",
        origin: "Pekko HTTP coding stages pull request (borrow the remaining input instead of copying it)",
        docs: "core/src/coding/mod.rs",
        originals: &[
            Original {
                workload: "incompressible-64k",
                figures: "34 -> 12 ms",
                ratio: Some(34.0 / 12.0),
            },
            Original {
                workload: "incompressible-8k",
                figures: "40 -> 28 ms",
                ratio: Some(40.0 / 28.0),
            },
            Original {
                workload: "compressible-8m",
                figures: "155 vs 154 ms",
                ratio: Some(155.0 / 154.0),
            },
        ],
        notes: "The original's simulation: 4 MiB of incompressible data, compressed (zlib), its \
compressed form pushed in 64 KiB and in 8 KiB pieces; 8 MiB of compressible text pushed in 64 \
KiB pieces. Each run builds a fresh decoder and decodes the whole stream. The allocation table \
gives bytes allocated per run; the Output table gives them per MiB decoded, beside the bytes \
copied per MiB decoded (the original's measure) as each decoder counts them: the naive twin \
copies every piece into its buffer and then all remaining input before every round; the \
optimized decoder copies none (the inflater reads the zlib header itself). Copies inside the \
inflater are not counted, and flate2's own loops do not count theirs. The optimized decoder \
zeroes its output memory once and reuses it without zeroing while the consumer drops the pieces \
it was handed (until 2026-11-30 it zeroed each reclaimed 64 KiB piece again: 4.3 M of its \
16.0 M instructions at incompressible-64k). \
The flate2-oneshot limit is one `Decompress::decompress` call with `FlushDecompress::Finish` \
into an initialised buffer of the output's size, sized outside the measured run (until 2026-11-30 \
it used `decompress_vec`, which zero-fills spare capacity on every call). On a first call with \
`Finish`, miniz_oxide inflates straight into the caller's buffer; a streaming decoder, which \
gets output room in `max_chunk` slices, makes miniz_oxide inflate through its 32 KiB window \
and copy out (miniz_oxide's `inflate::stream::inflate`). The flate2-stream peer measures that streaming mode alone, over contiguous \
input and without output copies. The flate2-pieces peer is flate2 fed the same pieces as the decoders, one call per piece as it \
arrives: with 8 KiB pieces any streaming inflater pays for more calls and (zlib-rs) for copying each call's output into its window, \
so flate2-stream is a limit there, not the same task. The optimized decoder takes back the start of its output buffer as soon as \
the consumer has dropped the pieces it was handed (`BytesMut::try_reclaim`; until 2026-12-04 only once less than a quarter was \
left), so the inflater writes into memory the cache holds. Where the output buffer lies against the inflater's window matters as \
much: measured outside the lab, flate2 fed 8 KiB pieces took 430 us with its output buffer at page offsets 512-3584 and 500 us at \
offsets 0, 64 and 4032 (miniz_oxide; zlib-rs: 260 against 325-370 us), the cost of the window copy's loads and stores falling on \
the same offsets within a 4 KiB page. The decoder's 64 KiB buffer and the inflater's state are allocated one after the other, \
so their page offsets are a fixed distance apart (96 octets with glibc here; where the window lies within the state is the \
inflater's). Once a stream has given 1 MiB of output at twice its input or more, the optimized decoder inflates into 256 KiB \
of room, handed out in 64 KiB pieces (since 2026-12-07; compressible-8m's allocations include that buffer): zlib-rs copies up \
to 32 KiB of each call's output into its window, half of what a call with 64 KiB of room writes, an eighth with 256 KiB; \
miniz_oxide, which inflates through its window, gains nothing from it.",
        headline: "incompressible-64k",
        result: Some("octets decoded per run"),
        backends: &[Backend::MinizOxide, Backend::ZlibRs],
        backend_notes: &[(
            Backend::ZlibRs,
            "The `inflate` experiment (same workloads, same variants), with every variant \
inflating through flate2's zlib-rs backend (built with `--features wirelab-bench/zlib-rs`, as \
`gzip-zlib-rs`). Unlike miniz_oxide, which in streaming mode inflates into its own 32 KiB \
window and copies out, zlib-rs inflates straight into the caller's output and keeps its window \
apart, so streaming costs less against the one-shot limit: compare with the miniz_oxide page, \
`inflate`, for what the targets (borrowed at least 2.5x faster than copy-per-round at 64 KiB, \
within 1.15x of the one-shot decode) owe to the backend. Copies per MiB as in `inflate`.",
        )],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "copy-per-round",
            role: Role::Baseline,
            about: "all remaining input copied into a fresh Vec before every inflate round (wirelab_baselines::coding::NaiveDecoder)",
            build: pushed::naive,
        },
        Variant {
            name: "borrowed",
            role: Role::Optimized,
            about: "the inflater is handed borrowed slices of the buffered pieces (wirelab::coding::Decoder)",
            build: pushed::optimized,
        },
        Variant {
            name: "flate2-stream",
            role: Role::Peer,
            about: "flate2 Decompress::decompress over the contiguous input in a loop, into one reused, initialised 64 KiB buffer (a streaming inflater without pieces or output copies)",
            build: pushed::flate2_stream,
        },
        Variant {
            name: "flate2-pieces",
            role: Role::Peer,
            about: "flate2 Decompress::decompress fed each piece as it arrives (a slice of the piece), into one reused, initialised 64 KiB buffer: a streaming inflater given the same pieces",
            build: pushed::flate2_pieces,
        },
        Variant {
            name: "flate2-oneshot",
            role: Role::Limit,
            about: "one flate2 Decompress::decompress call over the whole compressed input, already contiguous, into an initialised buffer of the output's size",
            build: pushed::flate2_oneshot,
        },
    ],
    workloads,
};

fn workloads() -> Result<Vec<Workload<Pushed>>, LoadError> {
    // Compressed by miniz_oxide directly, so that both backends inflate the same octets.
    let incompressible = data::cached(
        "inflate: zlib level 6 (miniz_oxide) of random(4 MiB, 0x1F1A7E)",
        || miniz_oxide::deflate::compress_to_vec_zlib(&random(4 << 20, 0x1F1A7E), 6),
    );
    let compressible = data::cached(
        "inflate: zlib level 6 (miniz_oxide) of compressible(8 MiB, 0xC0DE)",
        || miniz_oxide::deflate::compress_to_vec_zlib(&compressible(8 << 20, 0xC0DE), 6),
    );
    Ok([
        (
            "incompressible-64k",
            "4 MiB of random bytes (zlib), pushed in 64 KiB pieces",
            &incompressible,
            64 << 10,
        ),
        (
            "incompressible-8k",
            "4 MiB of random bytes (zlib), pushed in 8 KiB pieces",
            &incompressible,
            8 << 10,
        ),
        (
            "compressible-8m",
            "8 MiB of text (zlib), pushed in 64 KiB pieces",
            &compressible,
            64 << 10,
        ),
    ]
    .into_iter()
    .map(|(name, about, data, size)| {
        let input = Pushed {
            format: Format::Zlib,
            pieces: Rc::new(pieces(data, size)),
        };
        let about = format!("{about}: {} compressed bytes", data.len());
        Workload::new(name, about, data.len() as u64, 1, input)
    })
    .collect())
}
