//! `gzip`: end-to-end gzip decoding of the corpus, pushed in pieces. Measured with both of
//! flate2's backends (`gzip`, `gzip-zlib-rs`).

use super::common::pieces;
use super::common::pushed::{self, Pushed};
use crate::catalog::LoadError;
use crate::catalog::{Backend, Ladder, Meta, Role, Variant, Workload};
use crate::data;
use std::path::Path;
use std::rc::Rc;
use wirelab::coding::Format;

/// The experiment.
pub static EXPERIMENT: Ladder<Pushed> = Ladder {
    meta: Meta {
        id: "gzip",
        title: "End-to-end gzip decoding of the corpus",
        origin: "end to end over the coding stages",
        docs: "core/src/coding/mod.rs",
        notes: "Each corpus file of ../shared/data/corpus, gzip-compressed at level 6 (by miniz_oxide \
directly, so that both backends decode the same octets), pushed in 8 KiB \
pieces. Every run decodes the whole member with a fresh decoder. Every variant here inflates \
with flate2's default backend, miniz_oxide; the same experiment with the zlib-rs backend (the \
`zlib-rs` feature of the wirelab crate) is `gzip-zlib-rs`. Target: optimized at least as fast \
as flate2-multi with the same backend. Copies per MiB (Output table): the naive twin's and the \
optimized decoder's as they count them (the optimized one gathers 18 header and trailer bytes \
a member and copies nothing else); flate2-multi's are the bytes our reader adapter copies into \
flate2's buffer (every input byte once). Copies inside the inflater are counted for none.",
        headline: "alice29",
        result: Some("octets decoded per run"),
        backends: &[Backend::MinizOxide, Backend::ZlibRs],
        backend_notes: &[(
            Backend::ZlibRs,
            "The `gzip` experiment (same workloads, same variants), with every variant inflating \
through flate2's zlib-rs backend: the lab builds its harnesses with `--features \
wirelab-bench/zlib-rs`, which turns on the `zlib-rs` feature of the wirelab crate (flate2 picks \
its backend at compile time, for the whole build). Compare with the miniz_oxide page, `gzip`. \
Target: optimized at least as fast as flate2-multi with the same backend.",
        )],
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "copy per round, header re-parsed per push, fresh output buffers (wirelab_baselines::coding::NaiveDecoder)",
            build: pushed::naive,
        },
        Variant {
            name: "optimized",
            role: Role::Optimized,
            about: "wirelab::coding::Decoder",
            build: pushed::optimized,
        },
        Variant {
            name: "flate2-gz",
            role: Role::Peer,
            about: "flate2::read::GzDecoder over a reader of the pieces, read_to_end",
            build: pushed::flate2_gz,
        },
        Variant {
            name: "flate2-multi",
            role: Role::Peer,
            about: "flate2::read::MultiGzDecoder over a reader of the pieces, read_to_end",
            build: pushed::flate2_multi,
        },
    ],
    workloads,
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

fn workloads() -> Result<Vec<Workload<Pushed>>, LoadError> {
    let Some(dir) = data::shared_data()? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for path in data::files(&dir.join("corpus"))? {
        let file = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        if file.ends_with(".md") || file.starts_with("LICENSE") {
            continue;
        }
        out.push(workload(&path, &file)?);
    }
    Ok(out)
}

/// The workload of one corpus file: its gzip member pushed in 8 KiB pieces, named after the
/// file's stem.
fn workload(path: &Path, file: &str) -> Result<Workload<Pushed>, LoadError> {
    let raw = data::read(path)?;
    let key = format!(
        "gzip: member of {file} ({} octets, CRC-32 {:08x}) at level 6 (miniz_oxide)",
        raw.len(),
        crc32fast::hash(&raw)
    );
    let gz = data::cached(&key, || gzip_fixed(&raw));
    let name: String = file
        .split('.')
        .next()
        .unwrap_or(file)
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let about = format!("{file}: {} bytes, {} gzipped", raw.len(), gz.len());
    let input = Pushed {
        format: Format::Gzip,
        pieces: Rc::new(pieces(&gz, 8 << 10)),
    };
    Ok(Workload::new(name, about, gz.len() as u64, 1, input))
}
