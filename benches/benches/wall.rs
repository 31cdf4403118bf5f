//! Wall-time harness (criterion). Runs every variant of every workload of the experiments named
//! by `WIRELAB_EXPERIMENTS` (all by default), after checking each variant's output against the
//! baseline's. `WIRELAB_QUICK=1` selects short warm-up and measurement times.
//!
//! Results land in `target/criterion/<experiment>/<variant>/<workload>/new/estimates.json`.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use wirelab_bench::catalog::{self, Sink};

fn main() {
    let quick = wirelab_bench::quick_from_env();
    let mut c = Criterion::default();
    if quick {
        c = c
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(700))
            .sample_size(20);
    }
    let mut c = c.without_plots().configure_from_args();
    let exps = wirelab_bench::selected_from_env();
    let mut failed = Vec::new();
    for exp in &exps {
        let mut group = c.benchmark_group(exp.id);
        for w in (exp.workloads)() {
            let expected = catalog::expected_output(exp, &w);
            group.throughput(Throughput::Bytes(w.bytes));
            // Runs that take milliseconds (whole-pattern workloads) get fewer samples.
            let mut probe = w
                .runner(exp.baseline().name)
                .expect("the baseline applies to every workload");
            let t = std::time::Instant::now();
            probe(&mut Sink::discard());
            let slow = t.elapsed() > Duration::from_millis(2);
            group.sample_size(if slow {
                10
            } else if quick {
                20
            } else {
                100
            });
            for v in exp.variants {
                match catalog::checked_runner(exp, &w, v, &expected) {
                    Ok(Some(mut checked)) => {
                        let mut sink = Sink::discard();
                        group.bench_function(BenchmarkId::new(v.name, &w.name), |b| {
                            b.iter(|| black_box((checked.runner)(&mut sink)))
                        });
                    }
                    Ok(None) => {}
                    Err(e) => failed.push(e),
                }
            }
        }
        group.finish();
    }
    c.final_summary();
    if !failed.is_empty() {
        for f in &failed {
            eprintln!("error: {f}");
        }
        std::process::exit(1);
    }
}
