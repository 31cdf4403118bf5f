//! Instruction-count harness (gungraun, callgrind). One benchmark per applicable cell of the
//! experiments named by `WIRELAB_EXPERIMENTS`, numbered in catalog order
//! (`wirelab_bench::cases`); the lab runs it once per experiment. The setup (workload construction, the check against the baseline,
//! and one warm-up run) is not counted; the benchmark is exactly one run of the variant.
//!
//! Results land in `target/gungraun/wirelab-bench/icount/lab/case.catalog_<n>/summary.json`.
#![allow(missing_docs)]

use gungraun::{
    Callgrind, LibraryBenchmarkConfig, library_benchmark, library_benchmark_group, main,
};
use std::hint::black_box;
use wirelab_bench::catalog::{CaseId, Runner, Sink};

fn cases() -> Vec<CaseId> {
    wirelab_bench::cases(&wirelab_bench::selected_from_env())
}

fn setup(id: CaseId) -> (Runner, Sink) {
    let runner = wirelab_bench::checked_case(&id).unwrap_or_else(|e| panic!("{e}"));
    (runner, Sink::discard())
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
        .pass_through_envs([wirelab_bench::ENV_EXPERIMENTS, "WIRELAB_DATA"])
        // Only `Ir` is used; without the cache simulation valgrind runs about twice as fast.
        .tool(Callgrind::with_args(["--cache-sim=no"]));
    library_benchmark_groups = lab
);
