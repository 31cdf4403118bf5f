//! `crc`, `inflate`, `deflate`, `gzip`: Pekko HTTP's "coding stages" change.

use super::Rng;
use crate::catalog::{Experiment, Original, Role, Runner, Sink, VariantInfo, Workload};
use bytes::Bytes;
use std::io::Read;
use std::rc::Rc;
use wirelab::coding::{Decoder, DecoderConfig, Encoder, EncoderConfig, Format, crc};
use wirelab_baselines::coding::{NaiveDecoder, NaiveEncoder, PushDecoder, crc_copy_then_checksum};

/// Splits `data` into separately allocated pieces of `size` bytes (the last may be shorter).
fn pieces(data: &[u8], size: usize) -> Vec<Bytes> {
    data.chunks(size.max(1))
        .map(|c| Bytes::from(c.to_vec()))
        .collect()
}

fn random(n: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; n];
    Rng::new(seed).fill(&mut v);
    v
}

/// Compressible text: words drawn from a small vocabulary (compresses about 3:1).
fn compressible(n: usize, seed: u64) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "lazy",
        "dog",
        "header",
        "value",
        "stream",
        "frame",
        "window",
        "gzip",
        "deflate",
        "server",
        "client",
        "request",
        "response",
        "content",
        "encoding",
        "transfer",
        "chunked",
        "keep-alive",
    ];
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n + 16);
    while out.len() < n {
        out.extend_from_slice(WORDS[rng.range(0, WORDS.len() - 1)].as_bytes());
        out.push(if rng.range(0, 11) == 0 { b'\n' } else { b' ' });
    }
    out.truncate(n);
    out
}

// ---------------------------------------------------------------------------------------------
// crc

/// The CRC ladder.
pub static CRC_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "copy-then-checksum",
        role: Role::Baseline,
        about: "concatenate the pieces into a fresh Vec, one crc32fast call (wirelab_baselines::coding::crc_copy_then_checksum)",
    },
    VariantInfo {
        name: "per-fragment",
        role: Role::Step,
        about: "one crc32fast update per piece, no copy (the original change; wirelab::coding::crc::per_fragment)",
    },
    VariantInfo {
        name: "adaptive",
        role: Role::Optimized,
        about: "pieces under 1 KiB coalesced through an 8 KiB buffer (allocated at the first such piece), larger ones in place (wirelab::coding::crc::Adaptive)",
    },
    VariantInfo {
        name: "contiguous",
        role: Role::Limit,
        about: "one crc32fast call over the same bytes already contiguous",
    },
];

/// The `crc` experiment.
pub static CRC: Experiment = Experiment {
    id: "crc",
    title: "CRC-32 over a rope of input pieces",
    origin: "Pekko HTTP coding stages pull request (per-fragment CRC)",
    docs: "core/src/coding/crc.rs",
    variants: CRC_VARIANTS,
    workloads: crc_workloads,
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
two. valgrind hides AVX-512 from the program, so crc32fast picks a different (narrower) SIMD \
kernel under the instruction counter than under criterion: instruction counts compare \
strategies, not the kernel criterion times.",
    alloc_per: 1,
    headline: "sliced",
    result: None,
    sweep: false,
    feature: None,
};

fn crc_workloads() -> Vec<Workload> {
    let data = random(1 << 20, 0xC2C);
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
    specs
        .into_iter()
        .map(|(name, about, rope)| {
            let rope = Rc::new(rope);
            let contiguous = contiguous.clone();
            Workload::new(name, about, 1 << 20, 1, move |v| -> Option<Runner> {
                let rope = rope.clone();
                let contiguous = contiguous.clone();
                let f: Box<dyn Fn() -> u32> = match v {
                    "copy-then-checksum" => Box::new(move || crc_copy_then_checksum(&rope)),
                    "per-fragment" => {
                        Box::new(move || crc::per_fragment(rope.iter().map(|b| &b[..])))
                    }
                    "adaptive" => Box::new(move || crc::adaptive(rope.iter().map(|b| &b[..]))),
                    "contiguous" => Box::new(move || crc32fast::hash(&contiguous)),
                    _ => return None,
                };
                Some(Box::new(move |sink: &mut Sink| {
                    let c = std::hint::black_box(f());
                    sink.emit(&c.to_be_bytes());
                    u64::from(c)
                }))
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// inflate and gzip: decoding pushed pieces

fn decode_runner(variant: &str, format: Format, input: Rc<Vec<Bytes>>) -> Option<Runner> {
    let config = DecoderConfig::new(format);
    Some(match variant {
        "copy-per-round" | "naive" => {
            Box::new(move |sink| decode_all(NaiveDecoder::new(config), &input, sink))
        }
        "borrowed" | "optimized" => {
            Box::new(move |sink| decode_all(Decoder::new(config), &input, sink))
        }
        "flate2-oneshot" => {
            let flat: Vec<u8> = input.iter().flat_map(|b| b.iter().copied()).collect();
            // The output buffer is sized and initialised once, outside the measured run (a
            // `decompress_vec` with spare capacity zero-fills it on every call): one
            // `decompress` call over contiguous input into initialised memory is the floor.
            let mut probe = Vec::new();
            match format {
                Format::Zlib => flate2::read::ZlibDecoder::new(&flat[..]).read_to_end(&mut probe),
                Format::Raw => flate2::read::DeflateDecoder::new(&flat[..]).read_to_end(&mut probe),
                _ => return None,
            }
            .ok()?;
            let mut out = vec![0u8; probe.len() + 1];
            Box::new(move |sink| {
                let mut d = flate2::Decompress::new(format == Format::Zlib);
                let st = d
                    .decompress(&flat, &mut out, flate2::FlushDecompress::Finish)
                    .expect("valid stream");
                assert_eq!(st, flate2::Status::StreamEnd, "the buffer holds the output");
                let n = d.total_out() as usize;
                sink.emit(&out[..n]);
                n as u64
            })
        }
        "flate2-stream" => {
            let flat: Vec<u8> = input.iter().flat_map(|b| b.iter().copied()).collect();
            let mut out = vec![0u8; 64 << 10];
            Box::new(move |sink| {
                let mut d = flate2::Decompress::new(format == Format::Zlib);
                let mut n = 0u64;
                loop {
                    let (in0, out0) = (d.total_in(), d.total_out());
                    let st = d
                        .decompress(
                            &flat[in0 as usize..],
                            &mut out,
                            flate2::FlushDecompress::None,
                        )
                        .expect("valid stream");
                    let produced = (d.total_out() - out0) as usize;
                    sink.emit(&out[..produced]);
                    n += produced as u64;
                    if st == flate2::Status::StreamEnd {
                        break;
                    }
                    assert!(produced > 0 || d.total_in() > in0, "no progress");
                }
                n
            })
        }
        "flate2-gz" | "flate2-multi" => {
            let multi = variant == "flate2-multi";
            let mut out = Vec::new();
            Box::new(move |sink| {
                out.clear();
                let reader = PiecesReader {
                    pieces: &input,
                    at: 0,
                    offset: 0,
                    copied: 0,
                };
                let copied = if multi {
                    let mut d = flate2::read::MultiGzDecoder::new(reader);
                    d.read_to_end(&mut out).expect("valid stream");
                    d.into_inner().copied
                } else {
                    let mut d = flate2::read::GzDecoder::new(reader);
                    d.read_to_end(&mut out).expect("valid stream");
                    d.into_inner().copied
                };
                sink.note_copied(copied);
                sink.emit(&out);
                out.len() as u64
            })
        }
        _ => return None,
    })
}

/// Pushes every piece of `input` into `dec`, finishes it and records its copies; returns the
/// octets decoded.
fn decode_all(mut dec: impl PushDecoder, input: &[Bytes], sink: &mut Sink) -> u64 {
    let mut n = 0u64;
    let mut emit = |b: Bytes| {
        n += b.len() as u64;
        sink.emit(&b);
    };
    for p in input {
        dec.push(p.clone(), &mut emit).expect("valid stream");
    }
    dec.finish(&mut emit).expect("complete stream");
    sink.note_copied(dec.bytes_copied());
    n
}

/// An `io::Read` over the pushed pieces, one piece (at most) per read. It copies each piece
/// into the reader's buffer, and counts those bytes.
struct PiecesReader<'a> {
    pieces: &'a [Bytes],
    at: usize,
    offset: usize,
    copied: u64,
}

impl Read for PiecesReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(p) = self.pieces.get(self.at) else {
            return Ok(0);
        };
        let n = (p.len() - self.offset).min(buf.len());
        buf[..n].copy_from_slice(&p[self.offset..self.offset + n]);
        self.copied += n as u64;
        self.offset += n;
        if self.offset == p.len() {
            self.at += 1;
            self.offset = 0;
        }
        Ok(n)
    }
}

/// The inflate ladder.
pub static INFLATE_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "copy-per-round",
        role: Role::Baseline,
        about: "all remaining input copied into a fresh Vec before every inflate round (wirelab_baselines::coding::NaiveDecoder)",
    },
    VariantInfo {
        name: "borrowed",
        role: Role::Optimized,
        about: "the inflater is handed borrowed slices of the buffered pieces (wirelab::coding::Decoder)",
    },
    VariantInfo {
        name: "flate2-stream",
        role: Role::Peer,
        about: "flate2 Decompress::decompress over the contiguous input in a loop, into one reused, initialised 64 KiB buffer (a streaming inflater without pieces or output copies)",
    },
    VariantInfo {
        name: "flate2-oneshot",
        role: Role::Limit,
        about: "one flate2 Decompress::decompress call over the whole compressed input, already contiguous, into an initialised buffer of the output's size",
    },
];

/// The original's inflate figures (JVM, zlib), for both backends' pages.
const INFLATE_ORIGINALS: &[Original] = &[
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
];

/// The `inflate` experiment with flate2's zlib-rs backend.
pub static INFLATE_ZLIB_RS: Experiment = Experiment {
    id: "inflate-zlib-rs",
    title: "Inflating a stream pushed in pieces, zlib-rs backend",
    origin: "Pekko HTTP coding stages pull request (borrow the remaining input instead of copying it)",
    docs: "core/src/coding/mod.rs",
    variants: INFLATE_VARIANTS,
    workloads: inflate_workloads,
    originals: INFLATE_ORIGINALS,
    notes: "The `inflate` experiment (same workloads, same variants), with every variant \
inflating through flate2's zlib-rs backend (built with `--features wirelab-bench/zlib-rs`, as \
`gzip-zlib-rs`). Unlike miniz_oxide, which in streaming mode inflates into its own 32 KiB \
window and copies out, zlib-rs inflates straight into the caller's output and keeps its window \
apart, so streaming costs less against the one-shot limit: compare with the miniz_oxide page, \
`inflate`, for what the targets (borrowed at least 2.5x faster than copy-per-round at 64 KiB, \
within 1.15x of the one-shot decode) owe to the backend. Copies per MiB as in `inflate`.",
    alloc_per: 1,
    headline: "incompressible-64k",
    result: Some("octets decoded per run"),
    sweep: false,
    feature: Some("zlib-rs"),
};

/// The `inflate` experiment.
pub static INFLATE: Experiment = Experiment {
    id: "inflate",
    title: "Inflating a stream pushed in pieces",
    origin: "Pekko HTTP coding stages pull request (borrow the remaining input instead of copying it)",
    docs: "core/src/coding/mod.rs",
    variants: INFLATE_VARIANTS,
    workloads: inflate_workloads,
    originals: INFLATE_ORIGINALS,
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
input and without output copies.",
    alloc_per: 1,
    headline: "incompressible-64k",
    result: Some("octets decoded per run"),
    sweep: false,
    feature: None,
};

fn inflate_workloads() -> Vec<Workload> {
    // Compressed by miniz_oxide directly, so that both backends inflate the same octets.
    let incompressible = miniz_oxide::deflate::compress_to_vec_zlib(&random(4 << 20, 0x1F1A7E), 6);
    let compressible =
        miniz_oxide::deflate::compress_to_vec_zlib(&compressible(8 << 20, 0xC0DE), 6);
    [
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
        let input = Rc::new(pieces(data, size));
        let about = format!("{about}: {} compressed bytes", data.len());
        Workload::new(name, about, data.len() as u64, 1, move |v| {
            decode_runner(v, Format::Zlib, input.clone())
        })
    })
    .collect()
}

/// The gzip ladder.
pub static GZIP_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "naive",
        role: Role::Baseline,
        about: "copy per round, header re-parsed per push, fresh output buffers (wirelab_baselines::coding::NaiveDecoder)",
    },
    VariantInfo {
        name: "optimized",
        role: Role::Optimized,
        about: "wirelab::coding::Decoder",
    },
    VariantInfo {
        name: "flate2-gz",
        role: Role::Peer,
        about: "flate2::read::GzDecoder over a reader of the pieces, read_to_end",
    },
    VariantInfo {
        name: "flate2-multi",
        role: Role::Peer,
        about: "flate2::read::MultiGzDecoder over a reader of the pieces, read_to_end",
    },
];

/// The `gzip` experiment.
pub static GZIP: Experiment = Experiment {
    id: "gzip",
    title: "End-to-end gzip decoding of the corpus",
    origin: "end to end over the coding stages",
    docs: "core/src/coding/mod.rs",
    variants: GZIP_VARIANTS,
    workloads: gzip_workloads,
    originals: &[],
    notes: "Each corpus file of ../shared/data/corpus, gzip-compressed at level 6 (by miniz_oxide \
directly, so that both backends decode the same octets), pushed in 8 KiB \
pieces. Every run decodes the whole member with a fresh decoder. Every variant here inflates \
with flate2's default backend, miniz_oxide; the same experiment with the zlib-rs backend (the \
`zlib-rs` feature of the wirelab crate) is `gzip-zlib-rs`. Target: optimized at least as fast \
as flate2-multi with the same backend. Copies per MiB (Output table): the naive twin's and the \
optimized decoder's as they count them (the optimized one gathers 18 header and trailer bytes \
a member and copies nothing else); flate2-multi's are the bytes our reader adapter copies into \
flate2's buffer (every input byte once). Copies inside the inflater are counted for none.",
    alloc_per: 1,
    headline: "alice29",
    result: Some("octets decoded per run"),
    sweep: false,
    feature: None,
};

/// The `gzip` experiment again, built with flate2's zlib-rs backend.
pub static GZIP_ZLIB_RS: Experiment = Experiment {
    id: "gzip-zlib-rs",
    title: "End-to-end gzip decoding of the corpus, zlib-rs backend",
    origin: "end to end over the coding stages",
    docs: "core/src/coding/mod.rs",
    variants: GZIP_VARIANTS,
    workloads: gzip_workloads,
    originals: &[],
    notes: "The `gzip` experiment (same workloads, same variants), with every variant inflating \
through flate2's zlib-rs backend: the lab builds its harnesses with `--features \
wirelab-bench/zlib-rs`, which turns on the `zlib-rs` feature of the wirelab crate (flate2 picks \
its backend at compile time, for the whole build). Compare with the miniz_oxide page, `gzip`. \
Target: optimized at least as fast as flate2-multi with the same backend.",
    alloc_per: 1,
    headline: "alice29",
    result: Some("octets decoded per run"),
    sweep: false,
    feature: Some("zlib-rs"),
};

/// A gzip member of `raw` deflated by miniz_oxide directly at level 6: the same octets in every
/// build, whichever backend flate2 was built with (`gzip` and `gzip-zlib-rs` decode the same
/// input).
fn gzip_fixed(raw: &[u8]) -> Vec<u8> {
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    gz.extend_from_slice(&miniz_oxide::deflate::compress_to_vec(raw, 6));
    gz.extend_from_slice(&crc32fast::hash(raw).to_le_bytes());
    gz.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    gz
}

fn gzip_workloads() -> Vec<Workload> {
    let Some(dir) = crate::shared_data() else {
        return Vec::new();
    };
    let mut files: Vec<_> = std::fs::read_dir(dir.join("corpus"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.is_file()
            && !p.file_name().is_some_and(|n| {
                n.to_string_lossy().ends_with(".md") || n.to_string_lossy().starts_with("LICENSE")
            })
    });
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let gz = gzip_fixed(&raw);
            let stem = path
                .file_name()
                .expect("file")
                .to_string_lossy()
                .to_string();
            let name: String = stem
                .split('.')
                .next()
                .unwrap_or(&stem)
                .to_lowercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            let input = Rc::new(pieces(&gz, 8 << 10));
            Workload::new(
                name,
                format!("{stem}: {} bytes, {} gzipped", raw.len(), gz.len()),
                gz.len() as u64,
                1,
                move |v| decode_runner(v, Format::Gzip, input.clone()),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// deflate

/// The deflate ladder.
pub static DEFLATE_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "contiguous",
        role: Role::Baseline,
        about: "the pieces concatenated, then deflated and checksummed as one array (wirelab_baselines::coding::NaiveEncoder)",
    },
    VariantInfo {
        name: "per-fragment",
        role: Role::Optimized,
        about: "each piece deflated and checksummed where it lies (wirelab::coding::Encoder, one push per piece)",
    },
];

/// The `deflate` experiment.
pub static DEFLATE: Experiment = Experiment {
    id: "deflate",
    title: "Deflating contiguous against per-fragment input",
    origin: "Pekko HTTP coding stages pull request (measured, and deliberately not changed)",
    docs: "core/src/coding/mod.rs",
    variants: DEFLATE_VARIANTS,
    workloads: deflate_workloads,
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
    alloc_per: 1,
    headline: "sliced",
    result: None,
    sweep: false,
    feature: None,
};

fn deflate_workloads() -> Vec<Workload> {
    let data = compressible(1 << 20, 0xDEF1A7E);
    [
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
    .map(|(name, about, rope)| {
        let rope = Rc::new(rope);
        Workload::new(name, about, 1 << 20, 1, move |v| -> Option<Runner> {
            let rope = rope.clone();
            Some(match v {
                "contiguous" => Box::new(move |sink| {
                    let mut enc = NaiveEncoder::new(Format::Gzip, 6, false);
                    let mut n = 0u64;
                    let mut emit = |b: Bytes| {
                        n += b.len() as u64;
                        sink.emit(&b);
                    };
                    enc.push(&rope, &mut emit);
                    enc.finish(&mut emit);
                    n
                }),
                "per-fragment" => Box::new(move |sink| {
                    let mut enc = Encoder::new(EncoderConfig::new(Format::Gzip));
                    let mut n = 0u64;
                    let mut emit = |b: Bytes| {
                        n += b.len() as u64;
                        sink.emit(&b);
                    };
                    for p in rope.iter() {
                        enc.push(p, &mut emit).expect("push");
                    }
                    enc.finish(&mut emit).expect("finish");
                    n
                }),
                _ => return None,
            })
        })
        .with_equivalence(gunzip)
    })
    .collect()
}

/// Decompresses a gzip stream (for comparing encoders whose bytes may differ).
fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out) {
        Ok(_) => out,
        Err(e) => format!("error: {e}").into_bytes(),
    }
}

// ---------------------------------------------------------------------------------------------
// octet-push: linear work under one-octet pushes

/// The octet-push ladder.
pub static OCTET_PUSH_VARIANTS: &[VariantInfo] = &[
    VariantInfo {
        name: "naive",
        role: Role::Baseline,
        about: "header re-parsed from the start after every push, remaining input copied every round (wirelab_baselines::coding::NaiveDecoder)",
    },
    VariantInfo {
        name: "optimized",
        role: Role::Optimized,
        about: "incremental header parser, borrowed input (wirelab::coding::Decoder)",
    },
    VariantInfo {
        name: "flate2-multi",
        role: Role::Peer,
        about: "flate2::read::MultiGzDecoder over a reader that yields one octet per read",
    },
];

/// The `octet-push` experiment: the size sweep of the fuzzing issue's resource bounds.
pub static OCTET_PUSH: Experiment = Experiment {
    id: "octet-push",
    title: "One-octet pushes: work against input size",
    origin: "hostile-input bounds (a peer that sends one octet per packet)",
    docs: "core/src/coding/decoder.rs",
    variants: OCTET_PUSH_VARIANTS,
    workloads: octet_push_workloads,
    originals: &[],
    notes: "A gzip member whose header carries an FNAME of n octets and whose body is n octets \
of text, pushed one octet at a time (each octet its own allocation), for n = 2, 4, 8 and 16 KiB. \
Target: the optimized decoder's work grows linearly (about 2x per doubling in the growth \
table) and its allocations per run stay the same at every size (also asserted exactly by \
baselines/tests/linear_work_alloc.rs). The naive twin re-parses the header from its start \
after every push, so its header work is quadratic in the FNAME length. Copies per MiB \
(Output table) are counted as in `gzip`: the optimized decoder's 18 header and trailer bytes, \
the naive twin's appends, per-round copies and moves, and the octets flate2-multi's reader \
adapter copies into flate2's buffer.",
    alloc_per: 1,
    headline: "fname-16k",
    result: Some("octets decoded per run"),
    sweep: true,
    feature: None,
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

fn octet_push_workloads() -> Vec<Workload> {
    [2usize, 4, 8, 16]
        .into_iter()
        .map(|k| {
            let gz = fname_member(k << 10);
            let input = Rc::new(pieces(&gz, 1));
            Workload::new(
                format!("fname-{k}k"),
                format!(
                    "FNAME of {k} KiB and {k} KiB of text: {} gzipped octets, one push each",
                    gz.len()
                ),
                gz.len() as u64,
                1,
                move |v| decode_runner(v, Format::Gzip, input.clone()),
            )
        })
        .collect()
}
