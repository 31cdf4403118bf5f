//! `cargo lab`: the wirelab command line.
//!
//! ```text
//! cargo lab list                      experiments, workloads, variants
//! cargo lab verify [EXP...]           every variant on every workload, compared with the baseline
//! cargo lab bench [EXP...] [--quick]  wall time, instructions, allocations, then report
//! cargo lab report                    re-render reports/ from the latest raw results
//! cargo lab check [EXP...]            re-measure instructions and allocations against reports/data
//! cargo lab profile EXP [VARIANT]     dhat-heap.json per variant, for DHAT's viewer
//! ```
#![allow(missing_docs)]

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use wirelab_bench::catalog::{self, Check, Experiment};
use wirelab_bench::report;
use wirelab_bench::results::{self, ExperimentData, Receipt};

#[path = "lab/fuzz.rs"]
mod fuzz;

/// The gungraun-runner version that matches the gungraun library in Cargo.lock.
const GUNGRAUN_VERSION: &str = "0.20.0";

#[derive(Parser)]
#[command(
    name = "cargo lab",
    about = "wirelab: benchmark laboratory for protocol hot paths"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print experiments, their workloads and variants.
    List,
    /// Run every variant on every workload once and compare its output with the baseline's.
    Verify {
        /// Experiments (all when none given).
        exps: Vec<String>,
    },
    /// Measure wall time (criterion), instructions (gungraun) and allocations (dhat), then
    /// write the reports.
    Bench {
        /// Experiments (all when none given).
        exps: Vec<String>,
        /// Short wall-time measurements (rough numbers, for development).
        #[arg(long)]
        quick: bool,
        /// Measure without rewriting reports/ (the raw results stay under target/).
        #[arg(long)]
        no_report: bool,
        /// Keep the wall times of the last run (under target/criterion) and re-measure only
        /// instructions and allocations; the receipt records this flag.
        #[arg(long)]
        reuse_wall: bool,
    },
    /// Render reports/ from the latest raw results under target/.
    Report,
    /// Re-measure instructions and allocations and compare them with reports/data.
    Check {
        /// Experiments (all when none given).
        exps: Vec<String>,
    },
    /// Fuzz one target (or `all`, one after another) with cargo-fuzz, which is installed when
    /// missing. Findings land in fuzz/artifacts/<target>/ and fail the command.
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
    /// Write a DHAT heap profile per variant of an experiment.
    Profile {
        /// The experiment.
        exp: String,
        /// One variant (all when omitted).
        variant: Option<String>,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::List => list(),
        Cmd::Verify { exps } => verify(&resolve(&exps)).map(|_| ()),
        Cmd::Bench {
            exps,
            quick,
            no_report,
            reuse_wall,
        } => bench(&resolve(&exps), quick, no_report, reuse_wall),
        Cmd::Report => report_all(None),
        Cmd::Check { exps } => check(&resolve(&exps)),
        Cmd::Profile { exp, variant } => profile(resolve(&[exp])[0], variant.as_deref()),
        Cmd::Fuzz {
            target,
            seconds,
            asan,
        } => fuzz_targets(&[target.as_str()], seconds, asan, None),
        Cmd::FuzzSmoke { seconds, asan } => fuzz_targets(&["all"], seconds, asan, Some(1)),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn fuzz_targets(targets: &[&str], seconds: u64, asan: bool, seed: Option<u64>) -> Result<()> {
    let root = root();
    fuzz::ensure_cargo_fuzz(&root)?;
    let targets: Vec<&str> = if targets == ["all"] {
        fuzz::TARGETS.to_vec()
    } else {
        targets.to_vec()
    };
    fuzz::build(&root, asan)?;
    let mut outcomes = Vec::new();
    for (n, target) in targets.iter().enumerate() {
        eprintln!("lab: fuzz target {} of {}", n + 1, targets.len());
        outcomes.push(fuzz::run(&root, target, seconds, asan, seed)?);
    }
    fuzz::summarize(&outcomes)
}

fn resolve(ids: &[String]) -> Vec<&'static Experiment> {
    wirelab_bench::resolve(ids).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    })
}

fn root() -> PathBuf {
    results::workspace_root()
}

fn list() -> Result<()> {
    for exp in wirelab_bench::experiments::ALL {
        println!("{}: {}", exp.id, exp.title);
        println!("  from: {}", exp.origin);
        println!("  variants:");
        for v in exp.variants {
            println!("    {:<14} {:<10} {}", v.name, v.role.to_string(), v.about);
        }
        println!("  workloads:");
        for w in (exp.workloads)() {
            let na: Vec<&str> = exp
                .variants
                .iter()
                .filter(|v| w.runner(v.name).is_none())
                .map(|v| v.name)
                .collect();
            let na = if na.is_empty() {
                String::new()
            } else {
                format!(" [n/a: {}]", na.join(", "))
            };
            println!("    {:<16} {}{na}", w.name, w.about);
        }
        println!();
    }
    Ok(())
}

/// Prints a pass/fail table per experiment; fails on any mismatch.
fn verify(exps: &[&'static Experiment]) -> Result<usize> {
    let mut mismatches = 0;
    let mut checked = 0;
    for exp in exps {
        if !wirelab_bench::built_for(exp) {
            // Another feature set (gzip-zlib-rs): verify it with a lab built for it.
            println!(
                "{}: verified by a lab built with {}",
                exp.id,
                wirelab_bench::feature_args(exp).join(" ")
            );
            run(
                Command::new("cargo")
                    .args(["run", "--release", "--quiet", "--package", "wirelab-bench"])
                    .args(wirelab_bench::feature_args(exp))
                    .args(["--bin", "lab", "--", "verify", exp.id]),
                "verification in the feature build",
            )?;
            continue;
        }
        println!("{}", exp.id);
        let names: Vec<&str> = exp.variants.iter().map(|v| v.name).collect();
        let width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
        print!("  {:<16}", "workload");
        for n in &names {
            print!(" {n:>width$}");
        }
        println!();
        for w in (exp.workloads)() {
            let expected = catalog::expected_output(exp, &w);
            print!("  {:<16}", w.name);
            let mut details = Vec::new();
            for v in exp.variants {
                let check = match w.runner(v.name) {
                    None => Check::NotApplicable,
                    Some(mut r) => w.check(v.role, &catalog::output_of(&mut r), &expected),
                };
                let cell = match &check {
                    Check::Pass => "ok",
                    Check::Equivalent => "ok*",
                    Check::NotApplicable => "n/a",
                    Check::Mismatch { .. } => "FAIL",
                };
                print!(" {cell:>width$}");
                if let Check::Mismatch { .. } = check {
                    mismatches += 1;
                    details.push(format!("{}/{}/{}: {check}", exp.id, w.name, v.name));
                }
                if check != Check::NotApplicable {
                    checked += 1;
                }
            }
            println!();
            for d in details {
                println!("    {d}");
            }
        }
    }
    if mismatches > 0 {
        bail!("verify: {mismatches} of {checked} outputs differ from the baseline");
    }
    println!(
        "verify: all {checked} outputs equal the baseline's (ok* = a peer's different but equivalent encoding)"
    );
    Ok(checked)
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    run_in(cmd, &root(), what)
}

fn run_in(cmd: &mut Command, dir: &Path, what: &str) -> Result<()> {
    let status = cmd
        .current_dir(dir)
        .status()
        .with_context(|| format!("{what}: could not start {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

fn output_of(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Checks for valgrind and for a gungraun-runner of the matching version (installing it).
fn preflight_icount() -> Result<()> {
    if output_of("valgrind", &["--version"]).is_none() {
        bail!(
            "valgrind is not installed; instruction counts need it.\n  \
             Debian/Ubuntu: sudo apt-get install valgrind   (valgrind 3.19 or later)"
        );
    }
    let want = format!("gungraun-runner {GUNGRAUN_VERSION}");
    let have = output_of("gungraun-runner", &["--version"]);
    if have.as_deref().map(str::trim) != Some(want.as_str()) {
        eprintln!(
            "lab: gungraun-runner {GUNGRAUN_VERSION} is {}; installing it (about 3-4 minutes, once)",
            match &have {
                Some(v) => format!("missing (found `{v}`)"),
                None => "missing".to_owned(),
            }
        );
        run(
            Command::new("cargo").args([
                "install",
                "gungraun-runner",
                "--version",
                GUNGRAUN_VERSION,
                "--locked",
            ]),
            "installing gungraun-runner",
        )?;
    }
    Ok(())
}

fn selection_env(exps: &[&Experiment]) -> String {
    exps.iter().map(|e| e.id).collect::<Vec<_>>().join(",")
}

fn step(n: usize, total: usize, what: &str, exps: &[&Experiment], started: Instant) {
    eprintln!(
        "\n=== [{n}/{total}] {what}: {} (elapsed {:.0?}) ===",
        selection_env(exps),
        started.elapsed()
    );
}

fn run_wall(exps: &[&Experiment], quick: bool) -> Result<()> {
    for exp in exps {
        let dir = results::target_dir().join("criterion").join(exp.id);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
        }
    }
    // One build per feature set: the default one first, then each experiment that needs a
    // feature (gzip-zlib-rs), so that no experiment is measured with another's backend.
    let mut groups: Vec<(Option<&str>, Vec<&Experiment>)> = Vec::new();
    for exp in exps {
        match groups.iter_mut().find(|(f, _)| *f == exp.feature) {
            Some((_, g)) => g.push(exp),
            None => groups.push((exp.feature, vec![exp])),
        }
    }
    groups.sort_by_key(|(f, _)| f.is_some());
    for (_, group) in &groups {
        run(
            Command::new("cargo")
                .args(["bench", "--workspace"])
                .args(wirelab_bench::feature_args(group[0]))
                .args(["--bench", "wall"])
                .env(wirelab_bench::ENV_EXPERIMENTS, selection_env(group))
                .env(wirelab_bench::ENV_QUICK, if quick { "1" } else { "0" }),
            "wall-time harness (criterion)",
        )?;
    }
    Ok(())
}

/// Runs the gungraun harness once per experiment, so that the process a case is measured in
/// builds that experiment's workloads only: a case's count then does not depend on which
/// other experiments were selected or exist.
/// Points a link at a fixed path to the shared data, so that the measured process sees the same
/// path strings (and so the same heap layout) whichever folder the checkout lives in.
fn fixed_data_link() -> Result<Option<PathBuf>> {
    let Some(data) = wirelab_bench::shared_data() else {
        return Ok(None);
    };
    let data = data
        .canonicalize()
        .with_context(|| format!("resolving {}", data.display()))?;
    let link = results::icount_target_dir().join("shared-data");
    std::fs::create_dir_all(results::icount_target_dir())?;
    if link.symlink_metadata().is_ok() {
        std::fs::remove_file(&link).with_context(|| format!("replacing {}", link.display()))?;
    }
    std::os::unix::fs::symlink(&data, &link)
        .with_context(|| format!("linking {} to {}", link.display(), data.display()))?;
    Ok(Some(link))
}

/// A `--remap-path-prefix` flag (in `CARGO_ENCODED_RUSTFLAGS` form) that gives
/// the registry's sources the same paths in the harness binary whatever cargo's home is.
fn remap_flags() -> String {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| format!("--remap-path-prefix={}=/cargo", home.display()))
        .unwrap_or_default()
}

/// The folders and files of the workspace that building the harness needs.
const WORKSPACE_PARTS: &[&str] = &["Cargo.toml", "Cargo.lock", "core", "baselines", "benches"];

/// Mirrors the workspace's sources into a fixed folder and returns it. The harness is built and
/// run from there: paths compiled into it (`CARGO_MANIFEST_DIR`, source locations) then have
/// the same lengths whichever folder the checkout lives in, and so does the layout of the
/// binary, on which a few instructions of `memcpy` and `malloc` depend. Files whose contents
/// are unchanged are not rewritten (cargo's fingerprints go by modification time); files gone
/// from the checkout are removed from the mirror.
fn mirror_workspace() -> Result<PathBuf> {
    let dst = results::icount_target_dir().join("workspace");
    let src = root();
    let mut wanted = std::collections::BTreeSet::new();
    for part in WORKSPACE_PARTS {
        collect_files(&src, Path::new(part), &mut wanted)?;
    }
    for rel in &wanted {
        let (from, to) = (src.join(rel), dst.join(rel));
        let bytes = std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
        if std::fs::read(&to).ok().as_deref() != Some(&bytes[..]) {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&to, &bytes).with_context(|| format!("writing {}", to.display()))?;
        }
    }
    let mut present = std::collections::BTreeSet::new();
    for part in WORKSPACE_PARTS {
        collect_files(&dst, Path::new(part), &mut present)?;
    }
    for stale in present.difference(&wanted) {
        std::fs::remove_file(dst.join(stale))?;
    }
    Ok(dst)
}

/// Adds the files under `base/rel` (relative to `base`) to `out`, leaving out build output and
/// hidden entries.
fn collect_files(
    base: &Path,
    rel: &Path,
    out: &mut std::collections::BTreeSet<PathBuf>,
) -> Result<()> {
    let path = base.join(rel);
    let Ok(meta) = std::fs::metadata(&path) else {
        return Ok(());
    };
    if meta.is_file() {
        out.insert(rel.to_path_buf());
    } else if meta.is_dir() {
        for entry in
            std::fs::read_dir(&path).with_context(|| format!("listing {}", path.display()))?
        {
            let name = entry?.file_name();
            let skip = name == "target" || name.to_string_lossy().starts_with('.');
            if !skip {
                collect_files(base, &rel.join(name), out)?;
            }
        }
    }
    Ok(())
}

fn run_icount(exps: &[&'static Experiment]) -> Result<()> {
    preflight_icount()?;
    std::fs::create_dir_all(results::lab_dir().join("icount"))?;
    let data = fixed_data_link()?;
    let workspace = mirror_workspace()?;
    for (n, exp) in exps.iter().enumerate() {
        let dir = results::gungraun_dir();
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
        }
        let path = results::icount_path(exp.id);
        if path.exists() {
            std::fs::remove_file(&path)?;
        }
        let cases = wirelab_bench::cases(&[exp]);
        eprintln!(
            "lab: instructions of {} ({} cases; experiment {} of {})",
            exp.id,
            cases.len(),
            n + 1,
            exps.len()
        );
        run_in(
            Command::new("cargo")
                .args(["bench", "--workspace"])
                .args(wirelab_bench::feature_args(exp))
                .args(["--bench", "icount", "--", "--save-summary=json"])
                // A fixed, minimal environment: the measured process's heap layout (and so
                // malloc's instruction counts) depends on what it inherits.
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
                .env("CARGO_TARGET_DIR", results::icount_target_dir())
                .env("CARGO_ENCODED_RUSTFLAGS", remap_flags())
                .envs(data.iter().map(|d| ("WIRELAB_DATA", d)))
                .env(wirelab_bench::ENV_EXPERIMENTS, exp.id),
            &workspace,
            "instruction-count harness (gungraun)",
        )?;
        let got = results::read_gungraun(&cases);
        let missing: Vec<String> = cases
            .iter()
            .map(ToString::to_string)
            .filter(|c| !got.contains_key(c))
            .collect();
        if !missing.is_empty() {
            bail!("gungraun produced no count for: {}", missing.join(", "));
        }
        std::fs::write(&path, serde_json::to_string_pretty(&got)?)?;
    }
    Ok(())
}

/// `cargo run` of the allocation harness, built for `exp` (its feature, if any); the harness's
/// own arguments follow.
fn alloc_command(exp: &Experiment) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.args(["run", "--release", "--quiet", "--package", "wirelab-bench"])
        .args(wirelab_bench::feature_args(exp))
        .args(["--bin", "alloc", "--"]);
    cmd
}

fn run_alloc(exps: &[&'static Experiment]) -> Result<()> {
    std::fs::create_dir_all(results::lab_dir().join("alloc"))?;
    for exp in exps {
        let path = results::alloc_path(exp.id);
        if path.exists() {
            std::fs::remove_file(&path)?;
        }
        eprintln!("lab: allocations of {}", exp.id);
        run(alloc_command(exp).arg(exp.id), "allocation harness (dhat)")?;
    }
    Ok(())
}

fn receipt_path(exp: &str) -> PathBuf {
    results::lab_dir()
        .join("receipt")
        .join(format!("{exp}.json"))
}

fn utc_now() -> String {
    output_of("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_else(|| "unknown".to_owned())
}

fn make_receipt(quick: bool) -> Receipt {
    let commit = output_of(
        "git",
        &["-C", &root().to_string_lossy(), "rev-parse", "HEAD"],
    )
    .unwrap_or_else(|| "unknown".to_owned());
    let dirty = output_of(
        "git",
        &["-C", &root().to_string_lossy(), "status", "--porcelain"],
    )
    .is_some_and(|s| !s.is_empty());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or_else(|| "unknown".to_owned(), |s| s.trim().to_owned());
    let mut crates = BTreeMap::new();
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap_or_default();
    let wanted = [
        "bytes",
        "flate2",
        "crc32fast",
        "miniz_oxide",
        "zlib-rs",
        "criterion",
        "gungraun",
        "dhat",
        "encoding_rs",
        "httlib-hpack",
        "hpack",
        "loona-hpack",
    ];
    let mut name = "";
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = n.trim_matches('"');
        } else if let Some(v) = line.strip_prefix("version = ")
            && wanted.contains(&name)
        {
            crates.insert(name.to_owned(), v.trim_matches('"').to_owned());
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    Receipt {
        commit: if dirty {
            format!("{commit}-dirty")
        } else {
            commit
        },
        rustc: output_of("rustc", &["-vV"]).unwrap_or_default(),
        cpu,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        valgrind: output_of("valgrind", &["--version"]).unwrap_or_else(|| "not installed".into()),
        crates,
        command: format!("cargo lab {}", args.join(" ")),
        date: utc_now(),
        quick,
    }
}

fn bench(
    exps: &[&'static Experiment],
    quick: bool,
    no_report: bool,
    reuse_wall: bool,
) -> Result<()> {
    let started = Instant::now();
    // Check the tools before spending minutes on wall time.
    preflight_icount()?;
    step(0, 3, "verify", exps, started);
    verify(exps)?;
    let receipt = make_receipt(quick);
    step(1, 3, "wall time (criterion)", exps, started);
    if reuse_wall {
        eprintln!("lab: --reuse-wall: keeping the wall times under target/criterion");
    } else {
        run_wall(exps, quick)?;
    }
    step(2, 3, "instructions (gungraun)", exps, started);
    run_icount(exps)?;
    step(3, 3, "allocations (dhat)", exps, started);
    run_alloc(exps)?;
    std::fs::create_dir_all(results::lab_dir().join("receipt"))?;
    for exp in exps {
        std::fs::write(
            receipt_path(exp.id),
            serde_json::to_string_pretty(&receipt)?,
        )?;
    }
    eprintln!(
        "\nlab: measured {} in {:.0?}",
        selection_env(exps),
        started.elapsed()
    );
    if no_report {
        eprintln!(
            "lab: --no-report: raw results are under {}",
            results::target_dir().display()
        );
        return Ok(());
    }
    report_all(Some(exps))
}

/// Writes `files` (path, content) so that each file is replaced atomically, and only after all
/// of them were rendered.
fn write_atomically(files: &[(PathBuf, String)]) -> Result<()> {
    let mut staged = Vec::new();
    for (path, content) in files {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("tmp-wirelab");
        std::fs::write(&tmp, content).with_context(|| format!("writing {}", tmp.display()))?;
        staged.push((tmp, path));
    }
    for (tmp, path) in staged {
        std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    }
    Ok(())
}

fn data_path(exp: &str) -> PathBuf {
    root()
        .join("reports")
        .join("data")
        .join(format!("{exp}.json"))
}

/// Renders reports/. Experiments with a receipt from a bench run (all of `only`, or any with
/// raw results when `only` is None) are gathered afresh; the others keep their committed data.
fn report_all(only: Option<&[&'static Experiment]>) -> Result<()> {
    let mut datas: Vec<(&'static Experiment, ExperimentData)> = Vec::new();
    let mut files = Vec::new();
    for exp in wirelab_bench::experiments::ALL.iter().copied() {
        let fresh = match only {
            Some(list) => list.iter().any(|e| e.id == exp.id),
            None => receipt_path(exp.id).exists(),
        };
        let data = if fresh {
            let receipt: Receipt = serde_json::from_str(
                &std::fs::read_to_string(receipt_path(exp.id)).with_context(|| {
                    format!(
                        "no raw results for {} (run `cargo lab bench {}`)",
                        exp.id, exp.id
                    )
                })?,
            )?;
            let data = results::gather(exp, &receipt);
            let unmeasured: Vec<String> = data
                .rows
                .iter()
                .filter(|r| r.wall.is_none() || r.instructions.is_none() || r.alloc.is_none())
                .map(|r| format!("{}/{}", r.workload, r.variant))
                .collect();
            if !unmeasured.is_empty() {
                bail!(
                    "{}: raw results are incomplete for {}; run `cargo lab bench {}`",
                    exp.id,
                    unmeasured.join(", "),
                    exp.id
                );
            }
            files.push((
                data_path(exp.id),
                serde_json::to_string_pretty(&data)? + "\n",
            ));
            data
        } else if data_path(exp.id).exists() {
            results::read_data(&data_path(exp.id)).map_err(anyhow::Error::msg)?
        } else {
            eprintln!(
                "lab: {} has no data yet (run `cargo lab bench {}`)",
                exp.id, exp.id
            );
            continue;
        };
        files.push((
            root().join("reports").join(format!("{}.md", exp.id)),
            report::render_experiment(exp, &data),
        ));
        datas.push((exp, data));
    }
    let entries: Vec<(&Experiment, &ExperimentData)> = datas.iter().map(|(e, d)| (*e, d)).collect();
    files.push((
        root().join("reports").join("README.md"),
        report::render_index(&entries),
    ));
    let readme_path = root().join("README.md");
    let readme = std::fs::read_to_string(&readme_path).context("reading README.md")?;
    let readme = report::splice_headline(&readme, &report::headline(&entries))
        .map_err(anyhow::Error::msg)?;
    files.push((readme_path, readme));
    write_atomically(&files)?;
    for (path, _) in &files {
        eprintln!(
            "lab: wrote {}",
            path.strip_prefix(root()).unwrap_or(path).display()
        );
    }
    Ok(())
}

fn check(exps: &[&'static Experiment]) -> Result<()> {
    let started = Instant::now();
    step(1, 2, "instructions (gungraun)", exps, started);
    run_icount(exps)?;
    step(2, 2, "allocations (dhat)", exps, started);
    run_alloc(exps)?;
    let rustc = output_of("rustc", &["-vV"]).unwrap_or_default();
    let icounts = results::read_icounts();
    let mut problems = Vec::new();
    let mut compared = 0;
    for exp in exps {
        let path = data_path(exp.id);
        let committed = if path.exists() {
            Some(results::read_data(&path).map_err(anyhow::Error::msg)?)
        } else {
            None
        };
        let same_toolchain = committed.as_ref().is_some_and(|d| d.receipt.rustc == rustc);
        let allocs = results::read_allocs(exp.id);
        for id in wirelab_bench::cases(&[exp]) {
            let row = committed
                .as_ref()
                .and_then(|d| d.row(&id.workload, &id.variant));
            let Some(row) = row else {
                problems.push(format!("{id}: not recorded in {}", path.display()));
                continue;
            };
            compared += 1;
            let key = id.to_string();
            match (row.instructions, icounts.get(&key)) {
                (Some(old), Some(&new)) => {
                    let drift = (new as f64 - old as f64).abs() / old.max(1) as f64;
                    let exact = same_toolchain && catalog::unseeded(&id.exp, &id.variant).is_none();
                    if (exact && new != old) || drift > catalog::UNSEEDED_TOLERANCE {
                        problems.push(format!(
                            "{id}: instructions {old} recorded, {new} measured ({:+.2} %{})",
                            (new as f64 / old.max(1) as f64 - 1.0) * 100.0,
                            if exact {
                                ", same toolchain: must be equal"
                            } else {
                                ""
                            }
                        ));
                    }
                }
                (None, _) => problems.push(format!("{id}: instructions not recorded")),
                (_, None) => problems.push(format!("{id}: instructions not measured")),
            }
            match (row.alloc, allocs.get(&key)) {
                (Some(old), Some(new)) => {
                    if (old.runs, old.blocks, old.bytes) != (new.runs, new.blocks, new.bytes) {
                        problems.push(format!(
                            "{id}: allocations {} blocks / {} bytes recorded, {} / {} measured (over {} runs)",
                            old.blocks, old.bytes, new.blocks, new.bytes, new.runs
                        ));
                    }
                }
                (None, _) => problems.push(format!("{id}: allocations not recorded")),
                (_, None) => problems.push(format!("{id}: allocations not measured")),
            }
        }
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("drift: {p}");
        }
        bail!(
            "check: {} problem(s); the committed reports do not describe this code. \
             Regenerate them with `cargo lab bench` and commit reports/.",
            problems.len()
        );
    }
    println!(
        "check: instructions and allocations of {compared} cells match reports/data ({:.0?})",
        started.elapsed()
    );
    Ok(())
}

fn profile(exp: &'static Experiment, variant: Option<&str>) -> Result<()> {
    let variants: Vec<&str> = match variant {
        Some(v) => {
            if exp.variant(v).is_none() {
                let names: Vec<&str> = exp.variants.iter().map(|v| v.name).collect();
                bail!(
                    "{} has no variant `{v}` (variants: {})",
                    exp.id,
                    names.join(", ")
                );
            }
            vec![v]
        }
        None => exp.variants.iter().map(|v| v.name).collect(),
    };
    let mut written = Vec::new();
    for v in variants {
        let dir = results::lab_dir().join("profile").join(exp.id).join(v);
        std::fs::create_dir_all(&dir)?;
        eprintln!("lab: profiling {}/{v}", exp.id);
        run(
            alloc_command(exp).args(["--variant", v, "--profile", &dir.to_string_lossy(), exp.id]),
            "allocation profile (dhat)",
        )?;
        written.push(dir.join("dhat-heap.json"));
    }
    println!("\nDHAT profiles (steady-state runs only; setup and the warm-up run excluded):");
    for p in &written {
        println!("  {}", display_rel(p));
    }
    println!(
        "Open one in DHAT's viewer: https://nnethercote.github.io/dh_view/dh_view.html \
         (\"Load…\" the file; it stays on your machine)."
    );
    Ok(())
}

fn display_rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}
