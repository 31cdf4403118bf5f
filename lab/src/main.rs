//! `cargo lab`: the wirelab command line. One file per verb under `lab/`.
//!
//! ```text
//! cargo lab list [SELECTION...]              experiments, workloads, variants
//! cargo lab verify [SELECTION...]            every case once, compared with the baseline
//! cargo lab bench [SELECTION...] [--quick]   verify, wall time, instructions, allocations, report
//! cargo lab report                           re-render reports/ from reports/data alone
//! cargo lab data [--from DIR] [--check]     the data folder, from pinned sources
//! cargo lab check [SELECTION...]             re-measure instructions and allocations against reports/data
//! cargo lab compare BASE [NEW] [SELECTION...] two revisions case by case (instructions, allocations, wall time, outputs)
//! cargo lab profile SELECTION...             dhat-heap.json per case, for DHAT's viewer
//! cargo lab explain SELECTION...             top functions and a flamegraph per case (callgrind)
//! cargo lab fuzz TARGET [SECONDS] / fuzz-smoke
//! cargo lab api [--check]                    the wirelab crate's public API in core/public-api.txt
//! cargo lab harness-test                     every criterion benchmark once (test mode)
//! ```
//!
//! A selection is `EXP[/WORKLOAD[/VARIANT]]` (see `wirelab_bench::selection`).
#![allow(missing_docs)]

use anyhow::Result;
use clap::{Parser, Subcommand};
use wirelab_bench::selection::Selection;

mod api;
mod bench;
mod bmf;
mod check;
mod cmp_folders;
mod compare;
mod data;
mod dual;
mod explain;
mod fuzz;
mod harness;
mod idle;
mod ladder;
mod list;
mod mirror;
mod prebuild;
mod profile;
mod receipt;
mod report;
mod tools;
mod verify;

#[derive(Parser)]
#[command(
    name = "cargo lab",
    version,
    about = "wirelab: benchmark laboratory for protocol hot paths",
    after_help = "SELECTION is EXP[/WORKLOAD[/VARIANT]] (for example `crc`, `crc/frag-4k`, \
`hpack-encode/browser-default/optimized`, `gzip/*/optimized`); none selects everything.\n\
Exit status: 0 success; 1 a check or gate found a difference (check drift, verify mismatch, \
--fail-if, public API, a fuzz finding); 2 usage, environment or build error. Results go to \
stdout, everything else (progress, cargo, criterion, gungraun) to stderr."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print experiments, their workloads and variants.
    List {
        /// What to list (everything when none given).
        selection: Vec<String>,
    },
    /// Run every selected case once and compare its output with the baseline's.
    Verify {
        /// What to verify (everything when none given).
        selection: Vec<String>,
    },
    /// Verify, then measure allocations (dhat, while the instruction-count harness builds),
    /// wall time (criterion and the ladder) and instructions (gungraun), then write the reports
    /// of the experiments measured whole.
    Bench(bench::Args),
    /// Render reports/ and the README's generated tables from reports/data/*.json alone.
    Report,
    /// Compare two revisions (git revisions, the working tree, or runs saved with
    /// `bench --save`) case by case: instructions and allocations exactly, wall time as a
    /// ratio with its 95 % interval, and whether the output changed.
    Compare(compare::Args),
    /// Assemble the data folder (corpus, hpack-test-case stories, gzip files, RFC 7541
    /// Appendix C) from pinned, checksummed sources into `data/`, or check a data folder.
    Data(data::Args),
    /// Re-measure instructions and allocations and compare them with reports/data.
    Check {
        /// What to check (everything when none given).
        selection: Vec<String>,
    },
    /// Where each selected case spends its instructions: its top functions (self and
    /// inclusive) from one callgrind run, and a flamegraph SVG under target/wirelab/explain/.
    Explain {
        /// The cases (for example `hpack-decode/nghttp2` or `latin1/*/naive`).
        #[arg(required = true)]
        selection: Vec<String>,
    },
    /// Write a DHAT heap profile per selected case, for DHAT's viewer.
    Profile {
        /// The cases (for example `latin1/ascii-1024` or `gzip/*/optimized`).
        #[arg(required = true)]
        selection: Vec<String>,
    },
    /// Fuzz one target (or `all`, one after another) with cargo-fuzz, which is installed when
    /// missing. Findings land in `fuzz/artifacts/<target>/` and fail the command.
    Fuzz {
        /// A target of fuzz/Cargo.toml, or `all`.
        target: String,
        /// Seconds per target.
        #[arg(default_value_t = 600)]
        seconds: u64,
        /// With AddressSanitizer (about 5x slower; uses RUSTC_BOOTSTRAP=1 on stable).
        #[arg(long)]
        asan: bool,
    },
    /// Every fuzz target for a short time, with a fixed mutation seed (reproducible); prints
    /// `fuzz: N passed, N failed` and exits non-zero on any finding (CI runs it).
    FuzzSmoke {
        /// Seconds per target.
        #[arg(long, default_value_t = 15)]
        seconds: u64,
        /// With AddressSanitizer.
        #[arg(long)]
        asan: bool,
    },
    /// Run every criterion benchmark once in test mode (nothing timed), in the lab's own build.
    HarnessTest,
    /// Print the kernel each CPU-dependent dispatch point picks in this process, as JSON (the
    /// lab runs it natively and under valgrind; see `reports/*.md`'s † marks).
    #[command(hide = true)]
    Kernels,
    /// Time two workspace folders against each other with the dual harness (what `compare`
    /// does for git revisions), writing each case's pairs per layout as JSON.
    #[command(hide = true)]
    Dual(dual::Args),
    /// Write the wirelab crate's public API (default features) to core/public-api.txt, from
    /// rustdoc's JSON output; with --check, fail when the file differs from the code.
    Api {
        /// Compare with the committed file instead of writing it.
        #[arg(long)]
        check: bool,
    },
}

fn selection(args: &[String]) -> Result<Selection> {
    Selection::parse(args).map_err(anyhow::Error::msg)
}

/// Starts a run's folder of generated inputs (see `wirelab_bench::data::cached`): emptied, and
/// named in the environment of everything the run starts. A lab started by another lab (the
/// other backend's verification) shares its parent's.
fn begin_inputs() -> Result<()> {
    use wirelab_bench::data::ENV_INPUTS;
    if std::env::var_os(ENV_INPUTS).is_some() {
        return Ok(());
    }
    let dir = wirelab_bench::paths::inputs_dir();
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    // SAFETY: called at the start of `main`, before the lab starts any thread, so no other
    // thread can be reading the environment.
    unsafe { std::env::set_var(ENV_INPUTS, &dir) };
    Ok(())
}

/// Names `data/` (what `cargo lab data` assembles) as the data folder of everything the lab
/// starts, when neither `WIRELAB_DATA` nor `../shared/data` says otherwise.
fn use_assembled_data() {
    let assembled = wirelab_bench::paths::workspace_root().join("data");
    if std::env::var_os("WIRELAB_DATA").is_none()
        && !wirelab_bench::data::shared_data_dir().is_dir()
        && assembled.is_dir()
    {
        // SAFETY: called at the start of `main`, before the lab starts any thread.
        unsafe { std::env::set_var("WIRELAB_DATA", &assembled) };
    }
}

fn main() {
    let cli = Cli::parse();
    use_assembled_data();
    let uses_icount_folder = matches!(
        cli.cmd,
        Cmd::Verify { .. }
            | Cmd::Bench(_)
            | Cmd::Check { .. }
            | Cmd::Profile { .. }
            | Cmd::Explain { .. }
    );
    // A lab started by another lab (ENV_INPUTS set) runs under its parent's lock.
    let started_by_a_lab = std::env::var_os(wirelab_bench::data::ENV_INPUTS).is_some();
    let _lock = if uses_icount_folder && !started_by_a_lab {
        match tools::lock_folder(&wirelab_bench::paths::icount_target_dir()) {
            Ok(lock) => Some(lock),
            Err(e) => {
                eprintln!("error: {e:#}");
                std::process::exit(2);
            }
        }
    } else {
        None
    };
    if uses_icount_folder && let Err(e) = begin_inputs() {
        eprintln!("error: the run's input folder: {e:#}");
        std::process::exit(2);
    }
    let result = match cli.cmd {
        Cmd::List { selection: s } => selection(&s).and_then(|s| list::run(&s)),
        Cmd::Verify { selection: s } => selection(&s).and_then(|s| verify::run(&s)),
        Cmd::Bench(args) => bench::run(&args),
        Cmd::Report => report::run(),
        Cmd::Compare(args) => compare::run(&args),
        Cmd::Check { selection: s } => selection(&s).and_then(|s| check::run(&s)),
        Cmd::Data(args) => data::run(&args),
        Cmd::Profile { selection: s } => selection(&s).and_then(|s| profile::run(&s)),
        Cmd::Explain { selection: s } => selection(&s).and_then(|s| explain::run(&s)),
        Cmd::Fuzz {
            target,
            seconds,
            asan,
        } => fuzz::run_targets(&target, seconds, asan, None),
        Cmd::FuzzSmoke { seconds, asan } => fuzz::run_targets("all", seconds, asan, Some(1)),
        Cmd::HarnessTest => harness::wall_test_mode(),
        Cmd::Kernels => harness::print_kernels(),
        Cmd::Dual(args) => dual::run_verb(&args),
        Cmd::Api { check } => api::run(check),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(e.downcast_ref::<tools::Exit>().map_or(2, |x| x.code));
    }
}
