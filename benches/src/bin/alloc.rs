//! Allocation harness (dhat). For each applicable cell of the selected experiments: build the
//! runner, check it against the baseline (one run, which is also the warm-up), then count the
//! heap blocks and bytes of `--runs` more runs with dhat, and the peak of live bytes above the
//! level before them.
//!
//! ```text
//! alloc [--runs N] [--profile DIR] [SELECTION...]
//! ```
//!
//! Without `--profile`, writes `target/wirelab/alloc/<exp>.json` (case id -> allocations). With
//! `--profile DIR` (one case), writes DHAT's `dhat-heap.json` into DIR, for DHAT's viewer. One
//! dhat profiler per process: the lab starts one process per experiment (or per profiled case).
#![allow(missing_docs)]

use clap::Parser;
use std::alloc::{GlobalAlloc, Layout};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use wirelab_bench::catalog::{self, Case, Sink};
use wirelab_bench::records::{Alloc, Metric, write_json};
use wirelab_bench::selection::Selection;
use wirelab_bench::{fail, paths};

/// dhat's allocator, plus a live-bytes gauge with a resettable peak.
struct Gauge;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

fn grew(by: u64) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every method forwards to dhat::Alloc (a correct GlobalAlloc) with the caller's
// arguments unchanged; the gauge only does atomic arithmetic.
unsafe impl GlobalAlloc for Gauge {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { dhat::Alloc.alloc(layout) };
        if !p.is_null() {
            grew(layout.size() as u64);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { dhat::Alloc.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size() as u64);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { dhat::Alloc.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as u64, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { dhat::Alloc.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size() as u64, Ordering::Relaxed);
            grew(new_size as u64);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Gauge = Gauge;

/// Measured runs per cell. Allocation counts are deterministic, so a few runs suffice; the
/// number is fixed so that `cargo lab check` compares like with like.
const DEFAULT_RUNS: u64 = 4;

/// The dhat allocation harness of the wirelab lab.
#[derive(Parser)]
#[command(name = "alloc")]
struct Args {
    /// Measured runs per case (after one warm-up run).
    #[arg(long, default_value_t = DEFAULT_RUNS, value_parser = clap::value_parser!(u64).range(1..))]
    runs: u64,
    /// Write DHAT's dhat-heap.json into this folder instead of the allocation records (the
    /// selection must be one case).
    #[arg(long)]
    profile: Option<PathBuf>,
    /// EXP[/WORKLOAD[/VARIANT]] (everything this build measures when none is given).
    selection: Vec<String>,
}

fn main() {
    let args = Args::parse();
    let sel = if args.selection.is_empty() {
        wirelab_bench::selection_from_env()
    } else {
        Selection::parse(&args.selection)
    }
    .unwrap_or_else(|e| fail(e));
    for group in catalog::walk(&sel) {
        let group = group.unwrap_or_else(|e| fail(e));
        let exp = group.exp.id();
        let mut cases = group.cases;
        if cases.is_empty() {
            fail(format!("nothing to measure in {exp}"));
        }
        // Verify every case first (the check is the warm-up run), so that the profile below
        // holds the measured runs only.
        for case in &mut cases {
            case.verified().unwrap_or_else(|e| fail(e));
        }
        match &args.profile {
            Some(dir) => profile(dir, &mut cases, args.runs),
            None => {
                let dhat_file = paths::lab_dir()
                    .join("alloc")
                    .join(format!("{exp}.dhat-heap.json"));
                let records = measure(&dhat_file, &mut cases, args.runs);
                write_json(&Metric::Alloc.file(&exp), &records).unwrap_or_else(|e| fail(e));
            }
        }
    }
}

/// Writes the DHAT profile of one case into `dir`.
fn profile(dir: &std::path::Path, cases: &mut [Case], runs: u64) {
    if cases.len() != 1 {
        fail("--profile takes a selection of exactly one case");
    }
    measure(&dir.join("dhat-heap.json"), cases, runs);
    println!("dhat profile: {}", dir.join("dhat-heap.json").display());
}

/// Measures every case under one dhat profiler that writes `dhat_file`.
fn measure(dhat_file: &std::path::Path, cases: &mut [Case], runs: u64) -> BTreeMap<String, Alloc> {
    if let Some(parent) = dhat_file.parent() {
        std::fs::create_dir_all(parent)
            .unwrap_or_else(|e| fail(format!("{}: {e}", parent.display())));
    }
    let profiler = dhat::Profiler::builder()
        .file_name(dhat_file)
        .trim_backtraces(Some(12))
        .build();
    let mut records = BTreeMap::new();
    let mut sink = Sink::discard();
    for case in cases.iter_mut() {
        let alloc = measure_case(case, &mut sink, runs);
        println!(
            "alloc {:<45} {:>9.2} blocks/run {:>12.1} bytes/run  peak {} B",
            case.id.to_string(),
            alloc.blocks as f64 / alloc.runs as f64,
            alloc.bytes as f64 / alloc.runs as f64,
            alloc.peak_bytes
        );
        records.insert(case.id.to_string(), alloc);
    }
    drop(profiler);
    records
}

/// The heap blocks and bytes of `runs` runs of one case, and the peak of live bytes above the
/// level before each run.
fn measure_case(case: &mut Case, sink: &mut Sink, runs: u64) -> Alloc {
    let before = dhat::HeapStats::get();
    let mut peak = 0;
    for _ in 0..runs {
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        std::hint::black_box((case.runner)(sink));
        peak = peak.max(PEAK.load(Ordering::Relaxed).saturating_sub(base));
    }
    let after = dhat::HeapStats::get();
    Alloc {
        runs,
        blocks: after.total_blocks - before.total_blocks,
        bytes: after.total_bytes - before.total_bytes,
        peak_bytes: peak,
    }
}
