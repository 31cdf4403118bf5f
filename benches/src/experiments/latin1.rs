//! `latin1`: Pekko HTTP's `EnhancedString.getAsciiBytes`, a header value to ISO-8859-1 octets.

use crate::catalog::LoadError;
use crate::catalog::{Ladder, Meta, Original, Role, Runner, Scaling, Variant, Workload, on_copy};
use crate::records::AVX512_POINT;
use std::hint::black_box;
use std::rc::Rc;

/// One workload's input: the text, and its Latin-1 octets (for the memcpy limit).
#[derive(Clone)]
pub struct Text {
    text: Rc<str>,
    encoded: Rc<[u8]>,
    /// Whether the original's intermediate steps are measured on it: on the original's
    /// workloads, not on the size sweep (which compares naive, optimized, peer and limit).
    steps: bool,
}

/// The experiment.
pub static EXPERIMENT: Ladder<Text> = Ladder {
    meta: Meta {
        id: "latin1",
        title: "Latin-1 encoding of header text",
        origin: "Pekko HTTP, EnhancedString.getAsciiBytes / asciiStringBytes",
        docs: "core/src/latin1.rs",
        originals: &[
            Original {
                workload: "chunked",
                figures: "21.97 / 16.00 / 8.36 ns",
                ratio: Some(21.97 / 8.36),
            },
            Original {
                workload: "content-type",
                figures: "31.71 / 16.37 / 9.00 ns",
                ratio: Some(31.71 / 9.00),
            },
            Original {
                workload: "ascii-1024",
                figures: "229.63 / 151.66 / 26.86 ns",
                ratio: Some(229.63 / 26.86),
            },
        ],
        notes: "The original's figures are naive / bulk / bulk-into on the JVM. The `ascii-*` and \
`latin1-*` workloads sweep the text's size from 8 to 65,536 chars (the Scaling charts; 16 and 32 because most header values are that short), for \
the naive, optimized, peer and limit variants; the intermediate steps are measured at the \
original's sizes. \
Target: bulk-into at least 8x faster than naive on ascii-1024, and within 1.5x of memcpy. \
The encoding-rs and simdutf peers require Latin-1 input (their output is unspecified for \
chars above U+00FF), which every workload here is; simdutf's `convert_valid_utf8_to_latin1` \
skips validation, as a `&str` needs none. \
Target (issue 14): bulk-into within 1.25x of simdutf on latin1-1024 and latin1-64k, and \
within 1.3x of memcpy on ascii-1024. Target (issue 28): bulk-into at least as fast as the faster \
of encoding-rs and simdutf on every workload, and within 1.3x of memcpy on every ASCII workload.",
        headline: "ascii-1024",
        scaling: &[
            Scaling {
                name: "ascii",
                axis: "ASCII text (chars, log scale)",
                sizes: &[
                    ("ascii-8", 8.0),
                    ("ascii-16", 16.0),
                    ("ascii-32", 32.0),
                    ("ascii-64", 64.0),
                    ("ascii-512", 512.0),
                    ("ascii-1024", 1024.0),
                    ("ascii-4k", 4096.0),
                    ("ascii-64k", 65536.0),
                ],
            },
            Scaling {
                name: "latin1",
                axis: "Latin-1 text, about 9 % non-ASCII (chars, log scale)",
                sizes: &[
                    ("latin1-8", 8.0),
                    ("latin1-16", 16.0),
                    ("latin1-32", 32.0),
                    ("latin1-64", 64.0),
                    ("latin1-512", 512.0),
                    ("latin1-1024", 1024.0),
                    ("latin1-4k", 4096.0),
                    ("latin1-64k", 65536.0),
                ],
            },
        ],
        dispatch: &[
            ("bulk", &["latin1 narrowing", "latin1 ASCII check"]),
            ("bulk-into", &["latin1 narrowing", "latin1 ASCII check"]),
            ("simdutf", &[AVX512_POINT]),
        ],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "per-char loop into a fresh Vec (wirelab_baselines::latin1::encode_truncating)",
            build: naive,
        },
        Variant {
            name: "naive-into",
            role: Role::Step,
            about: "per-char loop into an existing buffer",
            build: naive_into,
        },
        Variant {
            name: "bulk",
            role: Role::Step,
            about: "bulk ASCII copy into a fresh Vec (wirelab::latin1::encode_truncating)",
            build: bulk,
        },
        Variant {
            name: "bulk-into",
            role: Role::Optimized,
            about: "bulk ASCII copy into an existing buffer (wirelab::latin1::encode_truncating_into)",
            build: bulk_into,
        },
        Variant {
            name: "encoding-rs",
            role: Role::Peer,
            about: "encoding_rs::mem::convert_utf8_to_latin1_lossy into an existing buffer",
            build: encoding_rs_peer,
        },
        Variant {
            name: "simdutf",
            role: Role::Peer,
            about: "simdutf::convert_valid_utf8_to_latin1 (the C++ simdutf library) into an existing buffer",
            build: simdutf_peer,
        },
        Variant {
            name: "memcpy",
            role: Role::Limit,
            about: "copy_from_slice of the already-encoded octets into an existing buffer",
            build: memcpy,
        },
    ],
    workloads,
};

/// The workloads the intermediate steps are measured on.
const ORIGINAL_WORKLOADS: [&str; 4] = ["chunked", "content-type", "ascii-1024", "latin1-1024"];

/// German and French text, about 9 % of its chars non-ASCII Latin-1.
const LATIN1_TEXT: &str = "Grüße aus Köln: café crème, naïve façade, smörgåsbord. ";

/// `chars` chars of `pattern`, repeated.
fn repeat(pattern: &str, chars: usize) -> String {
    let mut s: String = pattern.chars().cycle().take(chars).collect();
    s.shrink_to_fit();
    s
}

/// The workloads: (name, text, what it is).
fn texts() -> Vec<(String, String, String)> {
    let mut out = vec![
        (
            "chunked".into(),
            "chunked".into(),
            "`chunked`, a Transfer-Encoding value".into(),
        ),
        (
            "content-type".into(),
            "Content-Type: application/json; charset=UTF-8\r\n".into(),
            "a Content-Type header line with CRLF".into(),
        ),
    ];
    // The size sweep: ASCII and Latin-1 text from 8 chars to 64 Ki chars.
    const SIZES: [(&str, usize); 8] = [
        ("8", 8),
        ("16", 16),
        ("32", 32),
        ("64", 64),
        ("512", 512),
        ("1024", 1024),
        ("4k", 4096),
        ("64k", 65536),
    ];
    for (name, chars) in SIZES {
        out.push((
            format!("ascii-{name}"),
            "x".repeat(chars),
            format!("{chars} x `x`"),
        ));
    }
    for (name, chars) in SIZES {
        out.push((
            format!("latin1-{name}"),
            repeat(LATIN1_TEXT, chars),
            format!("{chars} chars of German/French text, about 9 % non-ASCII Latin-1"),
        ));
    }
    out
}

fn workloads() -> Result<Vec<Workload<Text>>, LoadError> {
    Ok(texts()
        .into_iter()
        .map(|(name, text, about)| {
            let s: Rc<str> = text.into();
            let chars = s.chars().count();
            let encoded: Rc<[u8]> = wirelab_baselines::latin1::encode_truncating(&s).into();
            let steps = ORIGINAL_WORKLOADS.contains(&name.as_str());
            Workload::new(
                name,
                format!("{about} ({chars} chars, {} UTF-8 bytes)", s.len()),
                s.len() as u64,
                1,
                Text {
                    text: s,
                    encoded,
                    steps,
                },
            )
        })
        .collect())
}

fn naive(t: &Text) -> Option<Runner> {
    on_copy(t, |t, sink| {
        let out = wirelab_baselines::latin1::encode_truncating(black_box(&t.text));
        sink.emit(&out);
        out.len() as u64
    })
}

fn naive_into(t: &Text) -> Option<Runner> {
    if !t.steps {
        return None;
    }
    let mut buf = vec![0u8; t.text.len()];
    on_copy(t, move |t, sink| {
        let n = wirelab_baselines::latin1::encode_truncating_into(black_box(&t.text), &mut buf);
        sink.emit(&buf[..n]);
        n as u64
    })
}

fn bulk(t: &Text) -> Option<Runner> {
    if !t.steps {
        return None;
    }
    on_copy(t, |t, sink| {
        let out = wirelab::latin1::encode_truncating(black_box(&t.text));
        sink.emit(&out);
        out.len() as u64
    })
}

fn bulk_into(t: &Text) -> Option<Runner> {
    let mut buf = vec![0u8; t.text.len()];
    on_copy(t, move |t, sink| {
        let n = wirelab::latin1::encode_truncating_into(black_box(&t.text), &mut buf);
        sink.emit(&buf[..n]);
        n as u64
    })
}

fn encoding_rs_peer(t: &Text) -> Option<Runner> {
    if t.text.chars().any(|c| c as u32 > 0xFF) {
        return None;
    }
    let mut buf = vec![0u8; t.text.len()];
    on_copy(t, move |t, sink| {
        let src = black_box(t.text.as_bytes());
        let n = encoding_rs::mem::convert_utf8_to_latin1_lossy(src, &mut buf);
        sink.emit(&buf[..n]);
        n as u64
    })
}

fn simdutf_peer(t: &Text) -> Option<Runner> {
    if t.text.chars().any(|c| c as u32 > 0xFF) {
        return None;
    }
    let mut buf = vec![0u8; t.text.len()];
    on_copy(t, move |t, sink| {
        let src = black_box(t.text.as_bytes());
        // SAFETY: `src` is valid UTF-8 (a `str`) whose chars are all at most U+00FF (checked
        // above), so it converts to one octet per char: at most `src.len()` octets, which
        // `buf` holds; the two do not overlap.
        let n = unsafe {
            simdutf::convert_valid_utf8_to_latin1(src.as_ptr(), src.len(), buf.as_mut_ptr())
        };
        sink.emit(&buf[..n]);
        n as u64
    })
}

fn memcpy(t: &Text) -> Option<Runner> {
    let mut buf = vec![0u8; t.text.len()];
    on_copy(t, move |t, sink| {
        let src = black_box(&t.encoded[..]);
        buf[..src.len()].copy_from_slice(src);
        sink.emit(&buf[..src.len()]);
        src.len() as u64
    })
}
