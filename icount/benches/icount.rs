//! Instruction-count harness (gungraun, callgrind). One benchmark per case of the manifest the
//! lab writes (`WIRELAB_MANIFEST`: a folder holding one file per case, `00000.json`,
//! `00001.json`, ..., each with the case id and the output digest the run's verification
//! recorded, in the order gungraun numbers its benchmarks); the lab joins gungraun's summaries
//! to case ids through the same files. The setup (the walk to the case, one run whose output
//! must have the verified digest, which is also the warm-up run) is not counted; the benchmark
//! is exactly one run of the variant. The baseline is not run again here: under valgrind every
//! setup instruction is emulated.
//!
//! A case's count must not depend on which other cases were selected: the measured process
//! reads its own case's file and nothing else of the manifest (see [`Cases`]), and its
//! arguments differ from another selection's only in the digits of a fixed-width index. So
//! what it does before the counted run (arguments, environment, files read, heap use) is the
//! same for a given case in a full run, a `--quick` run, a one-case run, `check` and `compare`.
//!
//! Results land in `<target>/gungraun/wirelab-icount/icount/lab/case.catalog_<n>/summary.json`.
#![allow(missing_docs)]

use gungraun::{
    Callgrind, LibraryBenchmarkConfig, library_benchmark, library_benchmark_group, main,
};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;
use wirelab_bench::catalog::{self, Runner, Sink};
use wirelab_bench::data::ENV_INPUTS;
use wirelab_bench::selection::Selection;

/// A page of read-only data aligned to a page, which makes the binary's `.rodata` start on a
/// page boundary (an output section takes the largest alignment of its inputs).
///
/// glibc's `memcmp` (`__memcmp_avx2_movbe`) takes a longer path when an operand of under 32
/// octets lies within 32 octets of a page's end, so a count that compares against static
/// strings (the HPACK static tables, the peers' own) depended on their page offsets. Those
/// moved with the size of the sections the linker puts before `.rodata`: an edit of the lab's
/// report code grew `.gcc_except_table` by 56 octets, shifted `.rodata` by 64 and moved 15
/// hpack-encode counts by -0.49 % to +0.09 % (all of it in `memcmp`; `.text` kept its size).
/// Aligned, the static strings' page offsets depend only on `.rodata`'s own contents.
#[repr(C, align(4096))]
struct PageAligned([u8; 4096]);

/// See [`PageAligned`]; read once in every setup so that the linker keeps it.
static RODATA_ANCHOR: PageAligned = PageAligned([0; 4096]);

/// Environment variable naming the manifest folder.
const ENV_MANIFEST: &str = "WIRELAB_MANIFEST";

/// One file of the manifest.
#[derive(serde::Deserialize)]
struct Entry {
    case: String,
    digest: String,
}

fn manifest_dir() -> PathBuf {
    std::env::var_os(ENV_MANIFEST)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            wirelab_bench::fail(format!(
                "{ENV_MANIFEST} is not set; `cargo lab bench` sets it"
            ))
        })
}

/// The benchmarks of a run, by index. gungraun counts them in its own process (`count`), and
/// in each measured process takes the one it was started for (`nth`): there this reads
/// nothing and allocates nothing, so that the length of the manifest leaves no trace in the
/// process whose instructions are counted.
struct Cases {
    next: usize,
}

impl Iterator for Cases {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let n = self.next;
        self.next += 1;
        (n < manifest_len()).then_some(n)
    }

    fn nth(&mut self, n: usize) -> Option<usize> {
        self.next = n + 1;
        Some(n)
    }

    fn count(self) -> usize {
        manifest_len().saturating_sub(self.next)
    }
}

fn manifest_len() -> usize {
    let dir = manifest_dir();
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| wirelab_bench::fail(format!("{}: {e}", dir.display())))
        .count()
}

fn cases() -> Cases {
    Cases { next: 0 }
}

fn setup(index: usize) -> (Runner, Sink) {
    black_box(&RODATA_ANCHOR);
    let file = manifest_dir().join(format!("{index:05}.json"));
    let entry: Entry =
        wirelab_bench::records::read_json(&file).unwrap_or_else(|e| wirelab_bench::fail(e));
    let (id, digest) = (entry.case, entry.digest);
    let sel = Selection::parse(&[&id]).unwrap_or_else(|e| wirelab_bench::fail(e));
    let digests = BTreeMap::from([(id.clone(), digest)]);
    let mut group = catalog::walk_verified(&sel, &digests)
        .next()
        .unwrap_or_else(|| wirelab_bench::fail(format!("{id}: not in the catalog")))
        .unwrap_or_else(|e| wirelab_bench::fail(e));
    let mut case = group
        .cases
        .pop()
        .unwrap_or_else(|| wirelab_bench::fail(format!("{id}: does not apply")));
    case.verified().unwrap_or_else(|e| wirelab_bench::fail(e));
    (case.runner, Sink::discard())
}

#[library_benchmark]
#[benches::catalog(iter = cases(), setup = setup)]
fn case(input: (Runner, Sink)) -> (Runner, Sink, u64) {
    let (mut runner, mut sink) = input;
    let n = runner(&mut sink);
    // The runner is handed back so that dropping its state is not counted.
    (runner, sink, black_box(n))
}

library_benchmark_group!(name = lab; benchmarks = case);

/// callgrind's cache simulation, on when the lab asks for the cycles metric (`WIRELAB_CACHE_SIM=1`:
/// L1 and last-level misses and gungraun's estimated cycles); otherwise off, since `Ir` does
/// not need it and valgrind runs about twice as fast without it.
fn callgrind_args() -> [&'static str; 1] {
    if std::env::var_os(wirelab_bench::ENV_CACHE_SIM).is_some_and(|v| v == "1") {
        ["--cache-sim=yes"]
    } else {
        ["--cache-sim=no"]
    }
}

main!(
    config = LibraryBenchmarkConfig::default()
        .pass_through_envs([ENV_MANIFEST, "WIRELAB_DATA", ENV_INPUTS])
        .tool(Callgrind::with_args(callgrind_args()));
    library_benchmark_groups = lab
);
