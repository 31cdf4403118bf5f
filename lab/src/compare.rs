//! `cargo lab compare BASE [NEW] [SELECTION...]`: two revisions measured over the same
//! selection, case by case. Each git revision is checked out (or, for the working tree,
//! copied) into its own folder under `/tmp/wirelab-cmp/` and measured there by its own lab;
//! the folders, and so the builds, are kept between calls. Wall time is taken by one harness
//! that links both revisions and times them batch against batch, under several link layouts
//! (`dual.rs`); where the two cannot be linked together (a saved run, an older lab), in
//! alternating process rounds (BASE, NEW, NEW, BASE, …) so that drift of the machine hits both
//! alike. What is compared is `wirelab_bench::compare`.

use crate::mirror::sync_workspace;
use crate::tools::{Measure, Metrics, by_backend, output_of, run_in, with_cargo_run};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use wirelab_bench::callgrind;
use wirelab_bench::catalog::{Backend, CaseId};
use wirelab_bench::compare::{self, Comparison, Gate, PairedDesign, PairedWall, Side};
use wirelab_bench::paths::{lab_dir, workspace_root};
use wirelab_bench::records::{Metric, Samples, Wall, read_json, write_json};
use wirelab_bench::selection::Selection;
use wirelab_bench::{ENV_QUICK, ENV_SELECTION};

/// The arguments of `cargo lab compare`.
#[derive(clap::Args)]
pub struct Args {
    /// The revision to compare against: a git revision (commit, branch, tag, `HEAD~1`) or a
    /// name saved with `cargo lab bench --save NAME`.
    base: String,
    /// NEW (a git revision or saved name; default: the working tree, uncommitted changes
    /// included), then the selection (EXP[/WORKLOAD[/VARIANT]]; everything when none given).
    /// A first word that is a valid selection is taken as the selection; one that also names a
    /// git revision or saved run is refused (`EXP,` says the selection).
    rest: Vec<String>,
    #[command(flatten)]
    metrics: Metrics,
    /// Exit with status 1, listing the cases, when a case trips this gate:
    /// `instructions>+1%`, `wall>+5%` (the whole interval beyond it), `blocks>+0%`,
    /// `bytes>+0%`, `output-changed`. May be given several times.
    #[arg(long = "fail-if")]
    fail_if: Vec<Gate>,
    /// Revision folders (a checkout with its builds, about 2 GB each) and pair folders (the
    /// renamed sources of two revisions) kept under `/tmp/wirelab-cmp` for later comparisons: the
    /// least recently used beyond this many of each are removed when a compare starts
    /// (except those another run is using).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(2..=64))]
    keep_folders: u64,
    /// Also write the comparison in another format.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Link layouts (section orders) the paired wall-time harness is measured under: each
    /// case's ratio and interval come from all of them, as where the linker puts code moves a
    /// nanosecond-scale ratio by 5-50 %. Twelve for every case, then more for the wide ones
    /// (`--max-layouts`): an A/A of four experiments took 12m17s with 12 and 15m16s with 16,
    /// every interval containing 1.00 and every case of 100 ns or more within [0.97, 1.03] in
    /// both.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u64).range(1..=64))]
    layouts: u64,
    /// Cases whose wall interval is still wider than `--precision` after `--layouts` get more
    /// layouts, eight at a time, up to this many: only those cases are run again, so the
    /// interval narrows where it is wide at a fraction of the cost of more layouts for all
    /// (an A/A of four experiments: 62 of 76 intervals within +-3 % after 16 layouts, 73 of 76
    /// after 32). `--max-layouts` at or below `--layouts`: none get more.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=96))]
    max_layouts: u64,
    /// The wall interval's target half-width in percent of the ratio (at the simultaneous
    /// level): a case whose interval reaches further gets more layouts (`--max-layouts`).
    #[arg(long, default_value_t = 1.0, value_parser = percent)]
    precision: f64,
    /// Processes per link layout, each with the inputs placed anew and its share of the
    /// sampling time: a process's own placement moves the ratio of a memory-heavy case here
    /// (one binary run 12 times read crc/frag-1k/adaptive 0.66-1.16 against itself), and the
    /// layout's ratio is taken over the pooled pairs of its processes.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=8))]
    processes: u64,
    /// Placements of each side's inputs within a process: each side's cases are set up this
    /// many times (other pages, other offsets) and a case's pairs go round them, so that no
    /// one lucky or unlucky placement decides a process's ratio (an A/A of crc: 22 of 24
    /// intervals within [0.97, 1.03] with three, 19 of 24 with one).
    #[arg(long, default_value_t = crate::dual::PLACEMENTS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=8))]
    placements: usize,
    /// Where the revisions cannot be linked into one harness: alternating wall-time rounds per
    /// revision (each a short criterion run of every case in its own process). Ten rounds, because whole rounds of a small case can run up to 2x slow
    /// here: with five, all of one side's rounds land beyond all of the other's by chance in
    /// about one case of 120, too often for intervals meant to hold together over 50 cases.
    #[arg(long, default_value_t = 10)]
    rounds: usize,
}

/// A precision in percent: above 0, at most 100.
fn percent(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!("`{s}` is not a percentage above 0 and at most 100")),
    }
}

/// The extra formats compare writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Bencher Metric Format (`latest.bmf.json`).
    Bmf,
}

/// Where a revision's measurements come from.
enum Source {
    /// A commit, checked out in a git worktree.
    Commit(String),
    /// The working tree, copied.
    WorkingTree,
    /// Records saved by `cargo lab bench --save`.
    Saved(PathBuf),
}

/// One side of a comparison.
struct Revision {
    /// How it is shown: what the user gave, and what it resolved to.
    label: String,
    source: Source,
    /// Its folder under `/tmp/wirelab-cmp/`; the instruction-count harness's target folder.
    dir: PathBuf,
}

/// The saved runs' folder (`target/wirelab/saved/<name>`).
pub fn saved_dir(name: &str) -> PathBuf {
    lab_dir().join("saved").join(name)
}

/// Where compare keeps the revisions' folders: a path as long as the lab's default
/// instruction-count folder (`/tmp/wirelab-icount-target`), so that the measured processes see
/// paths of the same lengths, and so count the same instructions, as in `cargo lab bench`.
fn revision_dir(kind: char, sha: &str) -> PathBuf {
    use crate::cmp_folders::PARENT;
    let hex = "/tmp/wirelab-icount-target".len() - PARENT.len() - 3;
    PathBuf::from(format!("{PARENT}/{kind}-{}", &sha[..hex.min(sha.len())]))
}

fn git(args: &[&str]) -> Option<String> {
    let root = workspace_root();
    let mut all = vec!["-C", root.to_str()?];
    all.extend_from_slice(args);
    output_of("git", &all)
}

impl Revision {
    fn resolve(spec: Option<&str>) -> Result<Self> {
        let Some(spec) = spec else {
            let head = git(&["rev-parse", "HEAD"]).context("the working tree has no HEAD")?;
            return Ok(Self {
                label: "working tree".into(),
                source: Source::WorkingTree,
                dir: revision_dir('w', &head),
            });
        };
        let saved = saved_dir(spec);
        if saved.is_dir() {
            return Ok(Self {
                label: format!("{spec} (saved)"),
                source: Source::Saved(saved.clone()),
                dir: saved,
            });
        }
        let Some(sha) = commit_of(spec) else {
            bail!("`{spec}` is neither a git revision nor a saved run (target/wirelab/saved/)");
        };
        Ok(Self {
            label: format!("{spec} ({})", &sha[..12]),
            dir: revision_dir('r', &sha),
            source: Source::Commit(sha),
        })
    }

    /// The folder holding its sources.
    fn src(&self) -> PathBuf {
        self.dir.join("src")
    }

    /// Its sources, where it has code (not a saved run).
    fn code(&self) -> Option<PathBuf> {
        (!matches!(self.source, Source::Saved(_))).then(|| self.src())
    }

    /// Its raw records (a `target/wirelab` folder).
    fn records(&self) -> PathBuf {
        match &self.source {
            Source::Saved(dir) => dir.clone(),
            _ => self.dir.join("target").join("wirelab"),
        }
    }

    /// Checks the revision out (kept between calls) or copies the working tree.
    fn prepare(&self) -> Result<()> {
        match &self.source {
            Source::Saved(_) => Ok(()),
            Source::WorkingTree => sync_workspace(&workspace_root(), &self.src()).map(|_| ()),
            Source::Commit(sha) => {
                if git_in(&self.src(), &["rev-parse", "HEAD"]).as_deref() == Some(sha.as_str()) {
                    return Ok(());
                }
                let src = self.src();
                let _ = std::fs::remove_dir_all(&src);
                let _ = git(&["worktree", "prune"]);
                let root = workspace_root();
                run_in(
                    Command::new("git")
                        .args(["worktree", "add", "--detach", "--force"])
                        .arg(&src)
                        .arg(sha),
                    &root,
                    "checking out the revision (git worktree add)",
                )
            }
        }
    }

    /// A command run in the revision's sources with its own target folders and the shared
    /// data of this checkout.
    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.src())
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            .env("WIRELAB_ICOUNT_TARGET", &self.dir)
            .env_remove(wirelab_bench::data::ENV_INPUTS)
            .env_remove("CARGO_MANIFEST_DIR");
        if let Ok(Some(data)) = wirelab_bench::data::shared_data()
            && let Ok(data) = data.canonicalize()
        {
            cmd.env("WIRELAB_DATA", data);
        }
        cmd
    }

    /// Verifies the selection and counts what `metrics` asks for, with the revision's own lab.
    fn measure_counts(&self, sel: &Selection, metrics: &Metrics) -> Result<()> {
        if matches!(self.source, Source::Saved(_)) {
            return Ok(());
        }
        eprintln!("\n=== compare: {}: verify and counts ===", self.label);
        // The revision's own `cargo lab` alias (its .cargo/config.toml): the package that holds
        // the command line moved (`benches/` before `lab/`), the alias says where it is.
        let mut cmd = self.command("cargo");
        cmd.arg("lab");
        let counts = metrics.counts_instructions() || metrics.wants(Measure::Alloc);
        if counts {
            cmd.args(["bench", "--no-report", "--reuse-wall"]);
            if metrics.wants(Measure::Cycles) {
                // Only labs that know `--metrics` (and cycles) get the flag: older ones measure
                // as they always did.
                cmd.args(["--metrics", "icount,alloc,cycles"]);
            }
        } else {
            cmd.arg("verify");
        }
        cmd.args(selection_args(sel));
        let status = cmd
            .stdout(std::io::stderr())
            .status()
            .context("starting the revision's lab")?;
        if !status.success() {
            bail!("{}: its lab failed ({status})", self.label);
        }
        Ok(())
    }

    /// One short criterion run of the selection; returns the samples per case.
    fn wall_round(&self, sel: &Selection) -> Result<BTreeMap<CaseId, Samples>> {
        let mut out = BTreeMap::new();
        for (backend, part) in by_backend(sel) {
            let mut cmd = self.wall_harness(backend);
            cmd.env(ENV_SELECTION, part.to_string()).env(ENV_QUICK, "1");
            let status = cmd
                .stdout(std::io::stderr())
                .status()
                .context("starting the wall-time harness")?;
            if !status.success() {
                bail!("{}: the wall-time harness failed ({status})", self.label);
            }
            for exp in part.experiments() {
                let file = self.records().join(Metric::Wall.file_name(&exp.id()));
                let walls: BTreeMap<CaseId, Wall> = read_json(&file).map_err(anyhow::Error::msg)?;
                out.extend(walls.into_iter().map(|(k, w)| (k, w.samples)));
            }
        }
        Ok(out)
    }

    /// The revision's criterion harness for `backend`, timing: a binary of the lab's package
    /// (`src/bin/wall.rs`), or in revisions before it a `cargo bench` target.
    fn wall_harness(&self, backend: Backend) -> Command {
        let mut cmd = self.command("cargo");
        if self.src().join("benches/src/bin/wall.rs").is_file() {
            with_cargo_run(&mut cmd, "wall", backend).arg("--bench");
        } else {
            cmd.args(["bench", "--workspace"])
                .args(backend.cargo_args())
                .args(["--bench", "wall"]);
        }
        cmd
    }

    /// The saved run's wall samples (a saved side is not re-timed).
    fn saved_wall(&self, sel: &Selection) -> BTreeMap<CaseId, Samples> {
        let mut out = BTreeMap::new();
        for exp in sel.experiments() {
            let file = self.records().join(Metric::Wall.file_name(&exp.id()));
            if let Ok(walls) = read_json::<BTreeMap<CaseId, Wall>>(&file) {
                out.extend(walls.into_iter().map(|(k, w)| (k, w.samples)));
            }
        }
        out
    }
}

fn git_in(dir: &Path, args: &[&str]) -> Option<String> {
    let mut all = vec!["-C", dir.to_str()?];
    all.extend_from_slice(args);
    output_of("git", &all)
}

fn selection_args(sel: &Selection) -> Vec<String> {
    if sel.picks().is_empty() {
        Vec::new()
    } else {
        vec![sel.to_string()]
    }
}

/// Splits the positional words after BASE into NEW (when the first is not a selection) and the
/// selection. A first word that is both (an experiment with a branch, tag or saved run of the
/// same name) is refused, with the two ways to say which is meant.
fn split_rest(rest: &[String]) -> Result<(Option<&str>, Selection)> {
    match rest.split_first() {
        Some((first, tail)) if Selection::parse(std::slice::from_ref(first)).is_err() => Ok((
            Some(first.as_str()),
            Selection::parse(tail).map_err(anyhow::Error::msg)?,
        )),
        Some((first, _)) if names_a_revision(first) => bail!(
            "`{first}` is both a selection and a git revision or saved run: write the revision \
             as its commit (`git rev-parse {first}`) or `refs/heads/{first}`, or the selection \
             with a trailing comma (`{first},`)"
        ),
        _ => Ok((None, Selection::parse(rest).map_err(anyhow::Error::msg)?)),
    }
}

/// Whether `word` names a saved run or a git commit (what [`Revision::resolve`] accepts).
fn names_a_revision(word: &str) -> bool {
    saved_dir(word).is_dir() || commit_of(word).is_some()
}

/// The commit a git revision (commit, branch, tag, `HEAD~1`) names, if it names one.
fn commit_of(spec: &str) -> Option<String> {
    git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("{spec}^{{commit}}"),
    ])
}

/// Runs the comparison.
pub fn run(args: &Args) -> Result<()> {
    let (new_spec, sel) = split_rest(&args.rest)?;
    let base = Revision::resolve(Some(&args.base))?;
    let new = Revision::resolve(new_spec)?;
    eprintln!(
        "compare: BASE {} → NEW {} over `{sel}`",
        base.label, new.label
    );
    // Another compare of the same revision waits (its lab also locks the folder it measures in).
    let folders: std::collections::BTreeSet<PathBuf> = [&base, &new]
        .iter()
        .filter(|r| !matches!(r.source, Source::Saved(_)))
        .map(|r| crate::cmp_folders::comparison_of(&r.dir))
        .collect();
    let _locks = folders
        .iter()
        .map(|dir| crate::tools::lock_folder(dir))
        .collect::<Result<Vec<_>>>()?;
    crate::cmp_folders::evict(args.keep_folders as usize)?;
    let mut to_measure = vec![&base, &new];
    if new.dir == base.dir {
        // The same commit twice (an A/A): one folder, one set of records.
        eprintln!("compare: NEW is BASE's commit: verified and counted once");
        to_measure.pop();
    }
    for rev in to_measure {
        rev.prepare()?;
        rev.measure_counts(&sel, &args.metrics)?;
    }
    let (mut b, mut n) = (
        Side::read(&base.records(), &sel).map_err(anyhow::Error::msg)?,
        Side::read(&new.records(), &sel).map_err(anyhow::Error::msg)?,
    );
    keep_metrics(&mut b, &args.metrics);
    keep_metrics(&mut n, &args.metrics);
    let mut paired = None;
    if args.metrics.wants(Measure::Wall) {
        let design = PairedDesign {
            layouts: args.layouts as usize,
            max_layouts: args.max_layouts.max(args.layouts) as usize,
            precision: args.precision / 100.0,
            processes: args.processes as usize,
            placements: args.placements,
        };
        match paired_wall(&base, &new, &sel, design, &b, &n) {
            Ok(p) => paired = Some(p),
            Err(e) => {
                eprintln!("compare: wall time in process rounds, not one paired harness: {e:#}");
                wall_rounds(&base, &new, &mut b, &mut n, &sel, args.rounds)?;
            }
        }
    }
    let cmp = compare::compare(&base.label, &new.label, &b, &n, paired.as_ref());
    write_outputs(&cmp, args.format)?;
    write_flamegraphs(&cmp, &b, &n)?;
    print!("{}", compare::markdown(&cmp));
    gate(&cmp, &args.fail_if)
}

/// Drops the counts a `--metrics` list leaves out.
fn keep_metrics(side: &mut Side, metrics: &Metrics) {
    if !metrics.wants(Measure::Icount) {
        side.instructions.clear();
    }
    if !metrics.wants(Measure::Alloc) {
        side.alloc.clear();
    }
    if !metrics.wants(Measure::Cycles) {
        side.cycles.clear();
    }
}

/// Wall time from the dual harness (both revisions in one process) under `layouts` section
/// orders, in processes and placements as `design` says; each case's outputs must be those
/// the revisions' own verification recorded.
fn paired_wall(
    base: &Revision,
    new: &Revision,
    sel: &Selection,
    design: PairedDesign,
    b: &Side,
    n: &Side,
) -> Result<PairedWall> {
    let (Some(base_src), Some(new_src)) = (base.code(), new.code()) else {
        bail!("a saved run has no code to link");
    };
    let name = |r: &Revision| r.dir.file_name().map(|f| f.to_string_lossy().into_owned());
    let key = format!(
        "{}-{}",
        name(base).unwrap_or_default(),
        name(new).unwrap_or_default()
    );
    let parts = by_backend(sel);
    let runs = crate::dual::paired_runs(&base_src, &new_src, &key, parts, design)?;
    let mut out = PairedWall {
        design,
        cases: BTreeMap::new(),
    };
    for (id, per_layout) in runs {
        let id: CaseId = id.parse().map_err(anyhow::Error::msg)?;
        for case in &per_layout {
            for (side, digest, label) in [
                (b, &case.base_digest, &base.label),
                (n, &case.new_digest, &new.label),
            ] {
                if side.digests.get(&id).is_some_and(|d| d != digest) {
                    bail!("{id}: the dual harness's output differs from what {label} verified");
                }
            }
        }
        let logs = per_layout.iter().map(|c| c.pairs.log_ratios()).collect();
        out.cases.insert(id, logs);
    }
    Ok(out)
}

/// Wall samples in alternating rounds: BASE then NEW in even rounds, NEW then BASE in odd ones.
fn wall_rounds(
    base: &Revision,
    new: &Revision,
    b: &mut Side,
    n: &mut Side,
    sel: &Selection,
    rounds: usize,
) -> Result<()> {
    for round in 0..rounds.max(1) {
        let mut order = [(base, &mut *b), (new, &mut *n)];
        if round % 2 == 1 {
            order.reverse();
        }
        for (rev, side) in order {
            eprintln!(
                "\n=== compare: wall time, round {}/{}: {} ===",
                round + 1,
                rounds.max(1),
                rev.label
            );
            let samples = if matches!(rev.source, Source::Saved(_)) {
                if round > 0 {
                    continue;
                }
                rev.saved_wall(sel)
            } else {
                rev.wall_round(sel)?
            };
            side.add_wall_round(samples);
        }
    }
    b.retain(sel);
    n.retain(sel);
    Ok(())
}

/// Writes the comparison as JSON and Markdown under `target/wirelab/compare/` (and
/// `latest.json`; with `bmf`, `latest.bmf.json`).
fn write_outputs(cmp: &Comparison, format: Option<Format>) -> Result<()> {
    let dir = lab_dir().join("compare");
    let stem = format!("{}-vs-{}", slug(&cmp.base), slug(&cmp.new));
    let json = |name: &str| dir.join(name);
    write_json(&json(&format!("{stem}.json")), cmp).map_err(anyhow::Error::msg)?;
    write_json(&json("latest.json"), cmp).map_err(anyhow::Error::msg)?;
    for name in [format!("{stem}.md"), "latest.md".to_owned()] {
        wirelab_bench::records::write_atomically(
            &dir.join(name),
            compare::markdown(cmp).as_bytes(),
        )
        .map_err(anyhow::Error::msg)?;
    }
    if format == Some(Format::Bmf) {
        write_json(&json(&format!("{stem}.bmf.json")), &compare::bmf(cmp))
            .map_err(anyhow::Error::msg)?;
        write_json(&json("latest.bmf.json"), &compare::bmf(cmp)).map_err(anyhow::Error::msg)?;
    }
    eprintln!(
        "compare: written to {}/{stem}.{{json,md}} and latest.{{json,md}}",
        dir.display()
    );
    Ok(())
}

/// A differential flamegraph (red where NEW spends more) per case whose instruction count
/// moved, as `target/wirelab/compare/flamegraphs/<case id>.svg`; the callgrind profiles stay
/// in each revision's records (`callgrind/<case id>.out`).
fn write_flamegraphs(cmp: &Comparison, b: &Side, n: &Side) -> Result<()> {
    let dir = lab_dir().join("compare").join("flamegraphs");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    let mut written = 0;
    for c in cmp.cases.iter().filter(|c| !c.why.is_empty()) {
        let (Some(base), Some(new)) = (b.profile(&c.case), n.profile(&c.case)) else {
            continue;
        };
        let title = format!("{}: {} → {}", c.case, cmp.base, cmp.new);
        let svg = callgrind::differential_flamegraph(&title, callgrind::MEASURED, &base, &new)
            .map_err(anyhow::Error::msg)?;
        let path = dir.join(format!("{}.svg", c.case));
        wirelab_bench::records::write_atomically(&path, svg.as_bytes())
            .map_err(anyhow::Error::msg)?;
        written += 1;
    }
    if written > 0 {
        eprintln!(
            "compare: {written} differential flamegraph(s) under {}",
            dir.display()
        );
    }
    Ok(())
}

fn slug(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_matches('_')
        .to_owned()
}

/// Exits with status 1 listing the cases that trip a gate.
fn gate(cmp: &Comparison, gates: &[Gate]) -> Result<()> {
    let offenders = compare::offenders(cmp, gates);
    if offenders.is_empty() {
        return Ok(());
    }
    eprintln!("compare: {} gate violation(s):", offenders.len());
    for (case, why) in &offenders {
        eprintln!("  {case}: {why}");
    }
    std::process::exit(1)
}
