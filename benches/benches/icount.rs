//! Instruction-count harness (gungraun, callgrind). One benchmark per case of the manifest the
//! lab writes (`WIRELAB_MANIFEST`: a JSON list of case ids with the output digests the run's
//! verification recorded, in the order gungraun numbers its benchmarks); the lab joins
//! gungraun's summaries to case ids through that same manifest. The setup (the walk to the
//! case, one run whose output must have the verified digest, which is also the warm-up run) is
//! not counted; the benchmark is exactly one run of the variant. The baseline is not run
//! again here: under valgrind every setup instruction is emulated.
//!
//! Results land in `<target>/gungraun/wirelab-bench/icount/lab/case.catalog_<n>/summary.json`.
#![allow(missing_docs)]

use gungraun::{
    Callgrind, LibraryBenchmarkConfig, library_benchmark, library_benchmark_group, main,
};
use std::collections::BTreeMap;
use std::hint::black_box;
use wirelab_bench::catalog::{self, Runner, Sink};
use wirelab_bench::data::ENV_INPUTS;
use wirelab_bench::selection::Selection;

/// Environment variable naming the manifest file.
const ENV_MANIFEST: &str = "WIRELAB_MANIFEST";

/// One entry of the manifest.
#[derive(serde::Deserialize)]
struct Entry {
    case: String,
    digest: String,
}

fn cases() -> Vec<(String, String)> {
    let path = std::env::var_os(ENV_MANIFEST).unwrap_or_else(|| {
        wirelab_bench::fail(format!(
            "{ENV_MANIFEST} is not set; `cargo lab bench` sets it"
        ))
    });
    let entries: Vec<Entry> = wirelab_bench::records::read_json(std::path::Path::new(&path))
        .unwrap_or_else(|e| wirelab_bench::fail(e));
    entries.into_iter().map(|e| (e.case, e.digest)).collect()
}

fn setup((id, digest): (String, String)) -> (Runner, Sink) {
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

main!(
    config = LibraryBenchmarkConfig::default()
        .pass_through_envs([ENV_MANIFEST, "WIRELAB_DATA", ENV_INPUTS])
        // Only `Ir` is used; without the cache simulation valgrind runs about twice as fast.
        .tool(Callgrind::with_args(["--cache-sim=no"]));
    library_benchmark_groups = lab
);
