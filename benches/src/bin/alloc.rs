//! Allocation harness (dhat). For each applicable cell of the selected experiments: build the
//! runner, check it against the baseline (one run, which is also the warm-up), then count the
//! heap blocks and bytes of `--runs` more runs with dhat, and the peak of live bytes above the
//! level before them.
//!
//! ```text
//! alloc [--runs N] [--variant NAME] [--profile DIR] [EXPERIMENT...]
//! ```
//!
//! Without `--profile`, writes `target/wirelab/alloc/<experiment>.json`. With `--profile DIR`
//! (one experiment, and usually one `--variant`), writes DHAT's `dhat-heap.json` into DIR, for
//! DHAT's viewer. One dhat profiler per process: the lab starts one process per experiment (or
//! per profiled variant).
#![allow(missing_docs)]

use std::alloc::{GlobalAlloc, Layout};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use wirelab_bench::catalog::{self, CaseId, Sink};
use wirelab_bench::results::{self, Alloc, AllocRecord};

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

struct Args {
    runs: u64,
    variant: Option<String>,
    profile: Option<PathBuf>,
    exps: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        runs: DEFAULT_RUNS,
        variant: None,
        profile: None,
        exps: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => {
                args.runs = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or("--runs takes a positive number")?;
            }
            "--variant" => args.variant = Some(it.next().ok_or("--variant takes a name")?),
            "--profile" => args.profile = Some(it.next().ok_or("--profile takes a folder")?.into()),
            "-h" | "--help" => {
                println!("alloc [--runs N] [--variant NAME] [--profile DIR] [EXPERIMENT...]");
                std::process::exit(0);
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => args.exps.push(s.to_owned()),
        }
    }
    Ok(args)
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("alloc: {e}");
        std::process::exit(2);
    });
    let exps = if args.exps.is_empty() {
        wirelab_bench::selected_from_env()
    } else {
        wirelab_bench::resolve(&args.exps).unwrap_or_else(|e| {
            eprintln!("alloc: {e}");
            std::process::exit(2);
        })
    };
    if let Err(e) = wirelab_bench::check_built_for(&exps) {
        eprintln!("alloc: {e}");
        std::process::exit(2);
    }
    if args.profile.is_some() && exps.len() != 1 {
        eprintln!("alloc: --profile takes exactly one experiment");
        std::process::exit(2);
    }
    for exp in exps {
        // Build and check every runner first (the check is the warm-up run), so that the
        // profile below holds the measured runs only.
        let mut cells = Vec::new();
        for w in (exp.workloads)() {
            let expected = catalog::expected_output(exp, &w);
            for v in exp.variants {
                if args.variant.as_deref().is_some_and(|name| name != v.name) {
                    continue;
                }
                match catalog::checked_runner(exp, &w, v, &expected) {
                    Ok(Some(c)) => cells.push((
                        CaseId {
                            exp: exp.id.to_owned(),
                            workload: w.name.clone(),
                            variant: v.name.to_owned(),
                        },
                        c.runner,
                    )),
                    Ok(None) => {}
                    Err(e) => {
                        eprintln!("alloc: {e}");
                        std::process::exit(1);
                    }
                }
            }
        }
        if cells.is_empty() {
            eprintln!("alloc: nothing to measure in {}", exp.id);
            std::process::exit(2);
        }
        let dhat_file = match &args.profile {
            Some(dir) => dir.join("dhat-heap.json"),
            None => results::lab_dir()
                .join("alloc")
                .join(format!("{}.dhat-heap.json", exp.id)),
        };
        if let Some(parent) = dhat_file.parent() {
            std::fs::create_dir_all(parent).expect("create the output folder");
        }
        let profiler = dhat::Profiler::builder()
            .file_name(&dhat_file)
            .trim_backtraces(Some(12))
            .build();
        let mut records = Vec::new();
        let mut sink = Sink::discard();
        for (id, runner) in &mut cells {
            let before = dhat::HeapStats::get();
            let mut peak = 0;
            for _ in 0..args.runs {
                let base = LIVE.load(Ordering::Relaxed);
                PEAK.store(base, Ordering::Relaxed);
                std::hint::black_box(runner(&mut sink));
                peak = peak.max(PEAK.load(Ordering::Relaxed).saturating_sub(base));
            }
            let after = dhat::HeapStats::get();
            let alloc = Alloc {
                runs: args.runs,
                blocks: after.total_blocks - before.total_blocks,
                bytes: after.total_bytes - before.total_bytes,
                peak_bytes: peak,
            };
            println!(
                "alloc {id:<45} {:>9.2} blocks/run {:>12.1} bytes/run  peak {} B",
                alloc.blocks as f64 / alloc.runs as f64,
                alloc.bytes as f64 / alloc.runs as f64,
                alloc.peak_bytes
            );
            records.push(AllocRecord {
                case: id.clone(),
                alloc,
            });
        }
        drop(profiler);
        if args.profile.is_none() {
            let path = results::alloc_path(exp.id);
            let text = serde_json::to_string_pretty(&records).expect("serialize");
            std::fs::write(&path, text).expect("write the allocation results");
        } else {
            println!("dhat profile: {}", dhat_file.display());
        }
    }
}
