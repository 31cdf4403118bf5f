//! Starting the three harnesses on a selection, each in the build that measures it; each writes
//! its per-case records under `target/wirelab/<metric>/<exp>.json`.

use crate::mirror::{fixed_data_link, mirror_workspace, remap_flags};
use crate::tools::{by_backend, cargo_run, preflight_icount, run, run_in};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use wirelab_bench::catalog::{Backend, CaseId};
use wirelab_bench::data::ENV_INPUTS;
use wirelab_bench::paths::{icount_target_dir, inputs_dir, lab_dir, target_dir};
use wirelab_bench::progress::Progress;
use wirelab_bench::records::{
    CacheSim, KernelChoices, Metric, QUICK_COUNT_LIMIT_MS, Verification, read_json, write_json,
};
use wirelab_bench::selection::Selection;
use wirelab_bench::{ENV_CACHE_SIM, ENV_QUICK, ENV_SELECTION};

fn remove(path: &Path) -> Result<()> {
    if path.is_dir() {
        std::fs::remove_dir_all(path).with_context(|| format!("clearing {}", path.display()))?;
    } else if path.exists() {
        std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
    }
    Ok(())
}

/// Wall time: one criterion run per build (backend), over its part of the selection. Returns
/// the seconds it took.
pub fn wall(sel: &Selection, quick: bool, html: bool) -> Result<f64> {
    let started = std::time::Instant::now();
    for exp in sel.experiments() {
        remove(&target_dir().join("criterion").join(exp.id()))?;
        remove(&Metric::Wall.file(&exp.id()))?;
        // What kind of run the page's wall times come from, for a later `--reuse-wall`.
        write_json(&wall_kind_file(&exp.id()), &quick).map_err(anyhow::Error::msg)?;
    }
    for (backend, part) in by_backend(sel) {
        run(
            cargo_run("wall", backend)
                .arg("--bench")
                .env(ENV_SELECTION, part.to_string())
                .env(ENV_QUICK, if quick { "1" } else { "0" })
                .env("WIRELAB_HTML", if html { "1" } else { "0" }),
            "wall-time harness (criterion)",
        )?;
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Whether the wall times kept for `exp` came from a `--quick` run
/// (`target/wirelab/wall-kind/<exp>.json`).
fn wall_kind_file(exp: &str) -> PathBuf {
    lab_dir().join("wall-kind").join(format!("{exp}.json"))
}

/// Fails when `--reuse-wall` would publish the wall times of a `--quick` run (or of a run
/// whose kind is unknown) in a full run's report.
pub fn check_reusable_wall(sel: &Selection) -> Result<()> {
    for exp in sel.experiments() {
        let quick: Option<bool> =
            wirelab_bench::records::read_json_if_present(&wall_kind_file(&exp.id()))
                .map_err(anyhow::Error::msg)?;
        if quick != Some(false) {
            anyhow::bail!(
                "--reuse-wall: the wall times kept for {} come from {}; a full run's report \
                 needs a full run's wall times (run `cargo lab bench {}` without --reuse-wall)",
                exp.id(),
                if quick.is_some() {
                    "a --quick run"
                } else {
                    "a run of unknown kind"
                },
                exp.id()
            );
        }
    }
    Ok(())
}

/// Allocations: one dhat process per experiment page, over the cases [`counted`] keeps.
/// Returns the seconds it took.
pub fn alloc(sel: &Selection, quick: bool) -> Result<f64> {
    let mut progress = Progress::new("allocations", steps(sel, quick)?);
    for exp in sel.experiments() {
        let id = exp.id();
        remove(&Metric::Alloc.file(&id))?;
        progress.step(&id);
        let cases = counted(&id, quick)?;
        if cases.is_empty() {
            continue;
        }
        run(
            cargo_run("alloc", exp.backend).args(cases.iter().map(ToString::to_string)),
            "allocation harness (dhat)",
        )?;
    }
    Ok(progress.finish())
}

/// The case ids of page `exp` whose instructions and allocations a run counts (run verify
/// first): every verified case, or with `quick` the cheap ones (see
/// [`Verification::counted`]); says how many `quick` leaves out.
fn counted(exp: &str, quick: bool) -> Result<Vec<CaseId>> {
    let v: Verification = read_json(&Metric::Verify.file(exp)).map_err(anyhow::Error::msg)?;
    let cases = v.counted(quick);
    let left_out = v.outputs.len() - cases.len();
    if left_out > 0 {
        eprintln!(
            "lab: --quick: {exp}: {left_out} case(s) slower than {QUICK_COUNT_LIMIT_MS} ms a run not counted (a full run or `cargo lab check` counts them)"
        );
    }
    Ok(cases)
}

/// The experiment pages of `sel` with the number of cases a run counts (run verify first).
fn steps(sel: &Selection, quick: bool) -> Result<Vec<(String, usize)>> {
    sel.experiments()
        .iter()
        .map(|e| {
            let v: Verification =
                read_json(&Metric::Verify.file(&e.id())).map_err(anyhow::Error::msg)?;
            Ok((e.id(), v.counted(quick).len()))
        })
        .collect()
}

/// One case of a gungraun run: its id and the output digest its verification recorded.
#[derive(serde::Serialize)]
struct ManifestEntry {
    case: CaseId,
    digest: String,
}

/// The manifest of one gungraun run: a folder with one file per case (`00000.json`, ...), at
/// a fixed path, since the measured process sees it.
fn manifest_dir() -> PathBuf {
    icount_target_dir().join("manifest")
}

/// Writes the manifest of a run over `cases`: each measured process reads its own case's file
/// and nothing else (see icount/benches/icount.rs), so that its count does not depend on the others.
fn write_manifest(cases: &[CaseId], verified: &Verification) -> Result<()> {
    remove(&manifest_dir())?;
    for (n, case) in cases.iter().enumerate() {
        let entry = ManifestEntry {
            case: case.clone(),
            digest: verified.outputs[case].digest.clone(),
        };
        let file = manifest_dir().join(format!("{n:05}.json"));
        write_json(&file, &entry).map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

/// gungraun's output folder.
fn gungraun_dir() -> PathBuf {
    icount_target_dir()
        .join("gungraun")
        .join(ICOUNT_PACKAGE)
        .join("icount")
        .join("lab")
}

/// Instructions: one gungraun run per experiment page (so that a case's count does not depend
/// on which other experiments exist), built and run from the fixed mirror, over the cases the
/// page's verification recorded and [`counted`] keeps (run [`crate::verify::run`] first).
///
/// With `cache_sim`, callgrind also simulates the caches (the `cycles` metric, about twice
/// as slow): each page's cache figures go to `target/wirelab/cycles/<exp>.json`.
pub fn icount(sel: &Selection, quick: bool, cache_sim: bool) -> Result<f64> {
    preflight_icount()?;
    record_kernels()?;
    let data = fixed_data_link()?;
    let workspace = mirror_workspace()?;
    let mut progress = Progress::new("instructions", steps(sel, quick)?);
    for exp in sel.experiments() {
        let id = exp.id();
        progress.step(&id);
        remove(&gungraun_dir())?;
        remove(&Metric::Instructions.file(&id))?;
        remove(&Metric::Cycles.file(&id))?;
        remove(&lab_dir().join("callgrind").join(&id))?;
        let verified: Verification =
            read_json(&Metric::Verify.file(&id)).map_err(anyhow::Error::msg)?;
        let cases = counted(&id, quick)?;
        if cases.is_empty() {
            continue;
        }
        write_manifest(&cases, &verified)?;
        let mut cmd = gungraun_command(exp.backend, data.as_deref());
        cmd.env(ENV_CACHE_SIM, if cache_sim { "1" } else { "0" });
        run_in(&mut cmd, &workspace, "instruction-count harness (gungraun)")?;
        record_counts(&id, &cases)?;
    }
    Ok(progress.finish())
}

/// The kernel each dispatch point picks in this process: the wirelab crate's own, and whether
/// the CPU shows AVX-512 (what peers such as simdutf detect for themselves).
fn kernels_here() -> BTreeMap<String, String> {
    let mut all: BTreeMap<String, String> = wirelab::kernels()
        .into_iter()
        .map(|(point, kernel)| (point.to_owned(), kernel.to_owned()))
        .collect();
    #[cfg(target_arch = "x86_64")]
    let avx512 = std::arch::is_x86_feature_detected!("avx512f");
    #[cfg(not(target_arch = "x86_64"))]
    let avx512 = false;
    all.insert(
        wirelab_bench::records::AVX512_POINT.to_owned(),
        if avx512 { "yes" } else { "no" }.to_owned(),
    );
    all
}

/// `cargo lab kernels`: [`kernels_here`] as JSON on stdout.
pub fn print_kernels() -> Result<()> {
    println!("{}", serde_json::to_string(&kernels_here())?);
    Ok(())
}

/// Records the kernels natively and under valgrind (this binary's `kernels` verb run by
/// `valgrind --tool=none`) in `target/wirelab/kernels.json`.
fn record_kernels() -> Result<()> {
    // A copy of this very binary: the file cargo built may have been replaced since this run
    // started (the other backend's verification rebuilds the lab), /proc/self/exe still reads.
    let exe = icount_target_dir().join("lab-kernels");
    std::fs::create_dir_all(icount_target_dir())?;
    std::fs::copy("/proc/self/exe", &exe).context("copying the lab binary for valgrind")?;
    let out = Command::new("valgrind")
        .args(["--tool=none", "-q"])
        .arg(&exe)
        .arg("kernels")
        .output()
        .context("running `lab kernels` under valgrind")?;
    if !out.status.success() {
        anyhow::bail!(
            "`valgrind --tool=none lab kernels` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let valgrind: BTreeMap<String, String> =
        serde_json::from_slice(&out.stdout).context("reading `lab kernels` under valgrind")?;
    let choices = KernelChoices {
        native: kernels_here(),
        valgrind,
    };
    write_json(&KernelChoices::file(), &choices).map_err(anyhow::Error::msg)
}

/// The package of the instruction-count harness (`icount/`): the lab's library and gungraun.
const ICOUNT_PACKAGE: &str = "wirelab-icount";

/// `cargo bench` of the gungraun harness in a fixed, minimal environment: the measured
/// process's heap layout (and so malloc's instruction counts) depends on what it inherits.
fn gungraun_command(backend: Backend, data: Option<&Path>) -> Command {
    let mut cmd = harness_cargo_bench(backend, data);
    cmd.args(["--", "--save-summary=json"])
        // Several valgrind processes at once: instruction counts do not depend on the load.
        .arg(format!("--parallel={}", icount_parallelism()))
        .env("WIRELAB_MANIFEST", manifest_dir())
        .env(ENV_INPUTS, inputs_dir());
    cmd
}

/// `cargo bench` of the gungraun harness built for `backend` (its arguments may follow).
pub fn harness_cargo_bench(backend: Backend, data: Option<&Path>) -> Command {
    let mut cmd = mirror_cargo_bench(data);
    if let Some(feature) = backend.feature() {
        // The harness's package names its backend features as the lab's package does.
        cmd.args(["--features", feature]);
    }
    cmd.args(["--bench", "icount"]);
    cmd
}

/// `cargo bench` of the instruction-count harness's package as the mirror builds it: the
/// environment cleared to a fixed few variables, the mirror's target folder, registry paths
/// remapped.
fn mirror_cargo_bench(data: Option<&Path>) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.args(["bench", "--package", ICOUNT_PACKAGE])
        .env_clear()
        .envs(
            [
                "PATH",
                "HOME",
                "CARGO_HOME",
                "RUSTUP_HOME",
                "RUSTUP_TOOLCHAIN",
            ]
            .iter()
            .filter_map(|k| std::env::var_os(k).map(|v| (*k, v))),
        )
        .env("CARGO_TARGET_DIR", icount_target_dir())
        .env("CARGO_ENCODED_RUSTFLAGS", remap_flags());
    if let Some(d) = data {
        cmd.env("WIRELAB_DATA", d);
    }
    cmd
}

/// The criterion harness in its test mode (every benchmark run once, nothing timed), in the
/// lab's own build (the default backend): what CI runs to check the harness.
pub fn wall_test_mode() -> Result<()> {
    run(
        cargo_run("wall", Backend::MinizOxide).arg("--test"),
        "criterion harness in test mode",
    )
}

/// How many cases gungraun measures at once: `WIRELAB_ICOUNT_PARALLEL`, else the machine's
/// logical CPUs.
fn icount_parallelism() -> usize {
    std::env::var("WIRELAB_ICOUNT_PARALLEL")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// What gungraun measured of one case: instructions, and the cache simulation when it ran.
struct Counted {
    instructions: u64,
    cycles: Option<CacheSim>,
}

/// Reads one case's `summary.json` (`profiles[0].data.total.metrics.<event>.values.new`).
fn read_summary(path: &Path) -> Result<Counted> {
    let summary: serde_json::Value = read_json(path).map_err(anyhow::Error::msg)?;
    let metrics = &summary["profiles"][0]["data"]["total"]["metrics"];
    let event = |name: &str| metrics[name]["values"]["new"].as_u64();
    let instructions =
        event("Ir").with_context(|| format!("{}: no instruction count (Ir)", path.display()))?;
    let sum = |names: &[&str]| names.iter().map(|n| event(n)).sum::<Option<u64>>();
    let cycles = match (
        sum(&["I1mr", "D1mr", "D1mw"]),
        sum(&["ILmr", "DLmr", "DLmw"]),
        event("EstimatedCycles"),
    ) {
        (Some(l1_misses), Some(ll_misses), Some(estimated_cycles)) => Some(CacheSim {
            l1_misses,
            ll_misses,
            estimated_cycles,
        }),
        _ => None,
    };
    Ok(Counted {
        instructions,
        cycles,
    })
}

/// The folder of benchmark `n`'s files in gungraun's output.
fn bench_dir(n: usize) -> PathBuf {
    gungraun_dir().join(format!("case.catalog_{n}"))
}

/// Joins gungraun's summaries to case ids (benchmark `catalog_<n>` ran manifest file `n`),
/// writes the page's instruction counts (and cache simulations, when they ran), and keeps each
/// case's callgrind profile as `target/wirelab/callgrind/<case id>.out` (what `compare` and
/// `explain` read per function).
fn record_counts(exp: &str, cases: &[CaseId]) -> Result<()> {
    let (mut counts, mut cycles) = (BTreeMap::new(), BTreeMap::new());
    for (n, id) in cases.iter().enumerate() {
        let counted = read_summary(&bench_dir(n).join("summary.json"))
            .with_context(|| format!("gungraun produced no count for {id}"))?;
        counts.insert(id.clone(), counted.instructions);
        if let Some(c) = counted.cycles {
            cycles.insert(id.clone(), c);
        }
        keep_profile(n, id)?;
    }
    write_json(&Metric::Instructions.file(exp), &counts).map_err(anyhow::Error::msg)?;
    if !cycles.is_empty() {
        write_json(&Metric::Cycles.file(exp), &cycles).map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

/// Copies benchmark `n`'s callgrind profile to [`profile_file`] of its case.
fn keep_profile(n: usize, id: &CaseId) -> Result<()> {
    let from = bench_dir(n).join(format!("callgrind.case.catalog_{n}.out"));
    let to = profile_file(&lab_dir(), id);
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::copy(&from, &to)
        .with_context(|| format!("keeping {} as {}", from.display(), to.display()))?;
    Ok(())
}

/// Where a case's callgrind profile is kept under a records folder (`target/wirelab`, or a
/// revision's or a saved run's): `callgrind/<exp>/<workload>/<variant>.out`.
pub fn profile_file(records: &Path, case: &CaseId) -> PathBuf {
    records.join("callgrind").join(format!("{case}.out"))
}
