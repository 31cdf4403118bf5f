//! `cargo lab fuzz TARGET [SECONDS]` and `cargo lab fuzz-smoke`: cargo-fuzz runs of the
//! targets in `fuzz/`, with the committed seeds, inputs derived from the shared data, a summary
//! of executions per target, and a non-zero exit on any finding.

use anyhow::{Context, Result, bail};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wirelab_bench::experiments::common::stories;

/// The fuzz targets: the `[[bin]]`s of `fuzz/Cargo.toml`.
pub fn targets(root: &Path) -> Result<Vec<String>> {
    #[derive(serde::Deserialize)]
    struct Manifest {
        #[serde(default)]
        bin: Vec<Bin>,
    }
    #[derive(serde::Deserialize)]
    struct Bin {
        name: String,
    }
    let path = root.join("fuzz").join("Cargo.toml");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let manifest: Manifest =
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    Ok(manifest.bin.into_iter().map(|b| b.name).collect())
}

/// Runs `target` (or `all` of them) for `seconds` each and summarizes.
pub fn run_targets(target: &str, seconds: u64, asan: bool, seed: Option<u64>) -> Result<()> {
    let root = wirelab_bench::paths::workspace_root();
    let all = targets(&root)?;
    let chosen: Vec<String> = if target == "all" {
        all
    } else if all.iter().any(|t| t == target) {
        vec![target.to_owned()]
    } else {
        bail!(
            "unknown fuzz target `{target}`; the targets: {}",
            all.join(", ")
        );
    };
    ensure_cargo_fuzz(&root)?;
    build(&root, asan)?;
    let mut outcomes = Vec::new();
    for (n, target) in chosen.iter().enumerate() {
        eprintln!("lab: fuzz target {} of {}", n + 1, chosen.len());
        outcomes.push(run(&root, target, seconds, asan, seed)?);
    }
    summarize(&outcomes)
}

/// How a target's run ended.
pub struct Outcome {
    /// The target.
    pub target: String,
    /// Executions libFuzzer reported.
    pub executions: Option<u64>,
    /// Seconds it ran.
    pub seconds: f64,
    /// Whether it ended without a finding.
    pub passed: bool,
    /// The crash inputs libFuzzer wrote.
    pub artifacts: Vec<PathBuf>,
}

/// Installs cargo-fuzz when it is missing.
pub fn ensure_cargo_fuzz(root: &Path) -> Result<()> {
    let have = Command::new("cargo")
        .args(["fuzz", "--version"])
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success());
    if have {
        return Ok(());
    }
    eprintln!("lab: cargo-fuzz is missing; installing it (about a minute, once)");
    super::tools::cargo_install("cargo-fuzz", &[])?;
    Ok(())
}

fn fuzz_command(root: &Path, asan: bool) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(root).arg("fuzz");
    if asan {
        // AddressSanitizer needs nightly flags; the stable compiler accepts them this way.
        cmd.env("RUSTC_BOOTSTRAP", "1");
    }
    cmd
}

fn sanitizer_args(asan: bool) -> &'static [&'static str] {
    if asan { &[] } else { &["--sanitizer", "none"] }
}

/// Builds every target once.
pub fn build(root: &Path, asan: bool) -> Result<()> {
    eprintln!("lab: building the fuzz targets (cargo fuzz build)");
    let status = fuzz_command(root, asan)
        .arg("build")
        .args(sanitizer_args(asan))
        .stdout(std::io::stderr())
        .status()
        .context("starting cargo fuzz build")?;
    if !status.success() {
        bail!("building the fuzz targets failed ({status})");
    }
    Ok(())
}

/// Corpus folders for a target: where new inputs go, the committed seeds, and what the shared
/// data offers (the gzip files as they are; hpack-test-case's wires rewritten in the target's
/// input format under `target/wirelab/fuzz/derived/`).
fn corpus_dirs(root: &Path, target: &str) -> Result<Vec<PathBuf>> {
    let fuzz = root.join("fuzz");
    let corpus = fuzz.join("corpus").join(target);
    std::fs::create_dir_all(&corpus)?;
    let mut dirs = vec![corpus, fuzz.join("seeds").join(target)];
    let Some(data) = wirelab_bench::data::shared_data()? else {
        return Ok(dirs);
    };
    match target {
        "gzip_decode" => dirs.push(data.join("gzip")),
        "hpack_decode" => {
            let derived = wirelab_bench::paths::lab_dir()
                .join("fuzz")
                .join("derived")
                .join(target);
            derive_hpack_inputs(&data.join("hpack-test-case"), &derived)?;
            dirs.push(derived);
        }
        _ => {}
    }
    Ok(dirs)
}

/// Writes each hpack-test-case story as an `hpack_decode` input: a configuration octet (a
/// 4096-octet table, a 1 MiB header list limit), then each case's wire preceded by its length.
fn derive_hpack_inputs(stories: &Path, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out)?;
    let Ok(folders) = std::fs::read_dir(stories) else {
        return Ok(());
    };
    for folder in folders {
        let folder = folder?.path();
        if !folder.is_dir() {
            continue;
        }
        for file in wirelab_bench::data::files(&folder)? {
            if file.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let story = stories::parse(&file, &wirelab_bench::data::read(&file)?)?;
            let mut input = vec![3 | 3 << 3];
            for case in story
                .cases
                .iter()
                .filter(|c| c.wire.len() <= usize::from(u16::MAX))
            {
                input.extend_from_slice(&(case.wire.len() as u16).to_be_bytes());
                input.extend_from_slice(&case.wire);
            }
            let name = format!(
                "{}-{}",
                folder.file_name().unwrap_or_default().to_string_lossy(),
                file.file_stem().unwrap_or_default().to_string_lossy()
            );
            std::fs::write(out.join(name), input)?;
        }
    }
    Ok(())
}

/// Runs one target for `seconds`, logging to `target/wirelab/fuzz/<target>.log` and printing
/// libFuzzer's latest status line every half minute. With `seed`, libFuzzer's mutations follow
/// a fixed sequence (the smoke run uses one, so that CI is reproducible).
pub fn run(
    root: &Path,
    target: &str,
    seconds: u64,
    asan: bool,
    seed: Option<u64>,
) -> Result<Outcome> {
    let dirs = corpus_dirs(root, target)?;
    let log_dir = wirelab_bench::paths::lab_dir().join("fuzz");
    std::fs::create_dir_all(&log_dir)?;
    let log_path = log_dir.join(format!("{target}.log"));
    let artifacts_dir = root.join("fuzz").join("artifacts").join(target);
    let before: Vec<PathBuf> = list(&artifacts_dir);
    let max_len = if target == "gzip_decode" { 65536 } else { 8192 };
    eprintln!(
        "lab: fuzzing {target} for {seconds} s (log: {})",
        log_path.display()
    );
    let started = Instant::now();
    let mut child = fuzz_command(root, asan)
        .arg("run")
        .args(sanitizer_args(asan))
        .arg(target)
        .args(&dirs)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-max_len={max_len}"))
        .args(["-timeout=20", "-rss_limit_mb=2048", "-print_final_stats=1"])
        .args(seed.map(|s| format!("-seed={s}")))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting cargo fuzz run")?;
    let executions = follow(&mut child, target, &log_path, started)?;
    let status = child.wait()?;
    let artifacts: Vec<PathBuf> = list(&artifacts_dir)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    let passed = status.success() && artifacts.is_empty();
    if !passed {
        report_failure(target, &status, &log_path, &artifacts);
    }
    Ok(Outcome {
        target: target.to_owned(),
        executions,
        seconds: started.elapsed().as_secs_f64(),
        passed,
        artifacts,
    })
}

/// Copies the child's output into the log, printing libFuzzer's latest status line every half
/// minute; returns the executions libFuzzer reported.
fn follow(
    child: &mut std::process::Child,
    target: &str,
    log_path: &Path,
    started: Instant,
) -> Result<Option<u64>> {
    let mut log = std::fs::File::create(log_path)?;
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let tx2 = tx.clone();
    let readers = [
        std::thread::spawn(move || pump(BufReader::new(stdout), &tx)),
        std::thread::spawn(move || pump(BufReader::new(stderr), &tx2)),
    ];
    let mut executions = None;
    let mut last_status = String::new();
    let mut last_print = Instant::now();
    for line in rx {
        writeln!(log, "{line}")?;
        if let Some(n) = line.strip_prefix("stat::number_of_executed_units: ") {
            executions = n.trim().parse().ok();
        }
        if line.starts_with('#') {
            last_status = line;
        }
        if last_print.elapsed() > Duration::from_secs(30) && !last_status.is_empty() {
            eprintln!(
                "lab: {target} {:>4.0} s  {last_status}",
                started.elapsed().as_secs_f64()
            );
            last_print = Instant::now();
        }
    }
    for r in readers {
        let _ = r.join();
    }
    Ok(executions)
}

/// Prints the end of a failed target's log and where its findings are kept.
fn report_failure(
    target: &str,
    status: &std::process::ExitStatus,
    log_path: &Path,
    artifacts: &[PathBuf],
) {
    eprintln!("lab: {target} FAILED ({status}); the end of its log:");
    let text = std::fs::read_to_string(log_path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    for l in &lines[lines.len().saturating_sub(40)..] {
        eprintln!("  | {l}");
    }
    for a in artifacts {
        eprintln!(
            "lab: finding kept at {}; once fixed, copy it into fuzz/regressions/{target}/ so that `cargo test` replays it",
            a.display()
        );
    }
}

fn pump(reader: impl BufRead, tx: &std::sync::mpsc::Sender<String>) {
    for line in reader.lines().map_while(Result::ok) {
        if tx.send(line).is_err() {
            return;
        }
    }
}

fn list(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|e| e.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

/// Prints one line per outcome and the summary line; fails when any target failed.
pub fn summarize(outcomes: &[Outcome]) -> Result<()> {
    for o in outcomes {
        println!(
            "fuzz: {:<20} {:<6} {:>12} executions in {:.0} s",
            o.target,
            if o.passed { "ok" } else { "FAILED" },
            o.executions
                .map_or_else(|| "?".to_owned(), |n| n.to_string()),
            o.seconds
        );
        for a in &o.artifacts {
            println!("fuzz: {:<20} finding: {}", o.target, a.display());
        }
    }
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    println!("fuzz: {} passed, {failed} failed", outcomes.len() - failed);
    if failed > 0 {
        return Err(
            crate::tools::Exit::difference(format!("{failed} fuzz target(s) failed")).into(),
        );
    }
    Ok(())
}
