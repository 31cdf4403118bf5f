//! `cargo lab bench`: verify, allocations (while the instruction-count harness builds), then wall
//! time and instructions, then the reports of the experiments measured whole.

use crate::prebuild::Prebuild;
use crate::tools::{Measure, Metrics};
use crate::{bmf, harness, ladder, receipt, report, tools, verify};
use anyhow::Result;
use std::time::Instant;
use wirelab_bench::data;
use wirelab_bench::paths::data_file;
use wirelab_bench::progress::fmt_secs;
use wirelab_bench::records::{self, Durations, ExperimentData, Metric, Receipt, Verification};
use wirelab_bench::report::{fmt_count, fmt_ns};
use wirelab_bench::selection::Selection;

/// The arguments of `cargo lab bench`.
#[derive(clap::Args)]
pub struct Args {
    /// What to measure: EXP[/WORKLOAD[/VARIANT]] (everything when none given).
    selection: Vec<String>,
    /// Rough numbers for development, in about a quarter of the time: short wall-time
    /// measurements without the ladder over link layouts, no instruction or allocation counts
    /// of cases slower than 20 ms a run, and reports/ left alone.
    #[arg(long)]
    quick: bool,
    /// Measure without rewriting reports/ (the raw results stay under target/wirelab).
    #[arg(long)]
    no_report: bool,
    /// Also write criterion's HTML report with the distributions
    /// (target/criterion/report/index.html); its plots about double the wall-time phase.
    #[arg(long)]
    html: bool,
    /// Keep the wall times of the last run (target/wirelab/wall) and re-measure only
    /// instructions and allocations; the receipt records this flag.
    #[arg(long)]
    reuse_wall: bool,
    #[command(flatten)]
    metrics: Metrics,
    /// Also keep this run's raw results under the name NAME (target/wirelab/saved/NAME), for
    /// `cargo lab compare NAME ...`.
    #[arg(long, value_name = "NAME")]
    save: Option<String>,
    /// Also write the run's numbers in Bencher Metric Format (target/wirelab/bench.bmf.json;
    /// the testbed is the CPU).
    #[arg(long)]
    bmf: bool,
}

fn phase(n: usize, what: &str, started: Instant) {
    eprintln!(
        "\n=== [{n}/4] {what} (elapsed {:.0?}) ===",
        started.elapsed()
    );
}

/// Runs the bench: verify, measure, then publish the pages measured whole.
pub fn run(args: &Args) -> Result<()> {
    let sel = Selection::parse(&args.selection).map_err(anyhow::Error::msg)?;
    let started = Instant::now();
    phase(1, "verify", started);
    let prebuild = if args.metrics.counts_instructions() {
        Some(Prebuild::start(&sel)?)
    } else {
        None
    };
    verify::run(&sel)?;
    let verify_s = started.elapsed().as_secs_f64();
    let publishing = !(args.no_report || args.quick) && args.metrics.complete();
    let kept = if publishing {
        kept_pages(&sel)?
    } else {
        Vec::new()
    };
    let Some(sel) = sel.without(&unmeasurable(&sel)?) else {
        return missing_data(&kept);
    };
    let receipt = measure(args, &sel, publishing, (started, verify_s), prebuild)?;
    if let Some(name) = &args.save {
        save(name)?;
    }
    let (measured, fresh) = gather_pages(&sel, &receipt, &kept)?;
    if args.bmf {
        bmf::write(&measured, &receipt)?;
    }
    if !publishing || fresh.is_empty() {
        if !fresh.is_empty() {
            eprintln!(
                "lab: --quick, --no-report or a partial --metrics: reports/ keeps the full run's data"
            );
        }
        eprintln!("lab: raw results are under target/wirelab");
        return missing_data(&kept);
    }
    for data in &fresh {
        let missing = data.incomplete();
        if !missing.is_empty() {
            anyhow::bail!(
                "{}: no report from incomplete results (a metric is missing for {}); \
                 run `cargo lab bench {}` without --reuse-wall after a run that measured wall time",
                data.experiment,
                missing
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                data.experiment
            );
        }
    }
    report::publish(fresh)?;
    missing_data(&kept)
}

/// Phases 2 to 4 (allocations while the builds started with verification run, then wall time
/// and instructions, as `--metrics` asks); returns the run's receipt with the phases' durations
/// (given when the run started and how long verification took).
fn measure(
    args: &Args,
    sel: &Selection,
    publishing: bool,
    (started, verify_s): (Instant, f64),
    prebuild: Option<Prebuild>,
) -> Result<Receipt> {
    let metrics = &args.metrics;
    // Allocation counts do not depend on the load: they are taken while the builds run.
    phase(2, "allocations (dhat)", started);
    let alloc_s = if metrics.wants(Measure::Alloc) {
        harness::alloc(sel, args.quick)?
    } else {
        0.0
    };
    if let Some(prebuild) = prebuild {
        // Before anything is timed.
        prebuild.wait()?;
    }
    if metrics.counts_instructions() {
        // Check the tools before spending minutes on wall time.
        tools::preflight_icount()?;
    }
    let mut receipt = receipt::make(args.quick)?;
    phase(
        3,
        "wall time (criterion, then the ladder over link layouts)",
        started,
    );
    if args.reuse_wall && publishing {
        harness::check_reusable_wall(sel)?;
    }
    let (wall_s, ladder_s) = if args.reuse_wall || !metrics.wants(Measure::Wall) {
        eprintln!("lab: keeping the wall times under target/wirelab/wall (not measured)");
        (0.0, 0.0)
    } else {
        let wall_s = harness::wall(sel, args.quick, args.html)?;
        let ladder_s = if args.quick {
            ladder::skip(sel)?;
            0.0
        } else {
            ladder::measure(sel)?
        };
        (wall_s, ladder_s)
    };
    phase(4, "instructions (gungraun)", started);
    let icount_s = if metrics.counts_instructions() {
        harness::icount(sel, args.quick, metrics.wants(Measure::Cycles))?
    } else {
        0.0
    };
    let durations = Durations {
        verify: verify_s,
        wall: wall_s,
        ladder: ladder_s,
        instructions: icount_s,
        allocations: alloc_s,
        total: started.elapsed().as_secs_f64(),
    };
    receipt.durations_s = Some(durations);
    print_durations(&args.selection, &durations);
    Ok(receipt)
}

/// Joins each page's raw results and prints them; returns every page measured, and apart the
/// pages measured whole whose committed report may be replaced (not those `kept` for want of
/// data).
fn gather_pages(
    sel: &Selection,
    receipt: &Receipt,
    kept: &[(String, Vec<String>)],
) -> Result<(Vec<ExperimentData>, Vec<ExperimentData>)> {
    let (mut measured, mut fresh) = (Vec::new(), Vec::new());
    for exp in sel.experiments() {
        let id = exp.id();
        let data = records::gather(&id, receipt).map_err(anyhow::Error::msg)?;
        print_summary(&data);
        let kept = kept.iter().any(|(k, _)| *k == id);
        if !kept && whole(sel, &id) {
            fresh.push(data.clone());
        } else if !kept {
            eprintln!("lab: {id} was measured in part: reports/ keeps its committed data");
        }
        measured.push(data);
    }
    Ok((measured, fresh))
}

fn print_durations(asked: &[String], d: &Durations) {
    let what = if asked.is_empty() {
        "every experiment".to_owned()
    } else {
        format!("`{}`", asked.join(" "))
    };
    eprintln!(
        "\nlab: measured {what} in {}: verify {}, wall time {}, ladder {}, instructions {}, allocations {}",
        fmt_secs(d.total),
        fmt_secs(d.verify),
        fmt_secs(d.wall),
        fmt_secs(d.ladder),
        fmt_secs(d.instructions),
        fmt_secs(d.allocations)
    );
}

/// The pages of `sel` measured whole whose committed report has workloads, variants or cases
/// this run's verification lacks (shared data missing): their committed reports stay as they
/// are. Says so, and why, before anything is measured; returns (page, what it lacks).
fn kept_pages(sel: &Selection) -> Result<Vec<(String, Vec<String>)>> {
    let mut kept = Vec::new();
    for exp in sel.experiments() {
        let id = exp.id();
        if !whole(sel, &id) {
            continue;
        }
        let Some(committed) = records::read_json_if_present::<ExperimentData>(&data_file(&id))
            .map_err(anyhow::Error::msg)?
        else {
            continue;
        };
        let fresh: Verification =
            records::read_json(&Metric::Verify.file(&id)).map_err(anyhow::Error::msg)?;
        let lost = records::lost(&committed, &fresh);
        if !lost.is_empty() {
            eprintln!(
                "lab: {id}: reports/{id}.md and its data stay as committed: this run lacks {}",
                lost.join("; ")
            );
            kept.push((id, lost));
        }
    }
    Ok(kept)
}

/// Why workloads are missing: the shared data (the only thing a loader skips without failing).
fn why_missing() -> String {
    format!(
        "skipped: the shared data is not at {}; set WIRELAB_DATA to a copy of it (see the README's \
         \"The data\")",
        data::shared_data_dir().display()
    )
}

/// The pages of `sel` whose verification found no case to measure (every workload skipped).
fn unmeasurable(sel: &Selection) -> Result<Vec<String>> {
    let mut empty = Vec::new();
    for exp in sel.experiments() {
        let v: Verification =
            records::read_json(&Metric::Verify.file(&exp.id())).map_err(anyhow::Error::msg)?;
        if v.outputs.is_empty() {
            eprintln!("lab: {}: nothing to measure", exp.id());
            empty.push(exp.id());
        }
    }
    Ok(empty)
}

/// The end of a run that kept committed reports for want of data: an environment error (exit
/// status 2), after everything else was measured and published.
fn missing_data(kept: &[(String, Vec<String>)]) -> Result<()> {
    if kept.is_empty() {
        return Ok(());
    }
    let pages: Vec<&str> = kept.iter().map(|(id, _)| id.as_str()).collect();
    Err(tools::Exit::environment(format!(
        "committed reports kept for {}: this run could not measure all their workloads ({})",
        pages.join(", "),
        why_missing()
    ))
    .into())
}

/// Whether the selection covers every case of the page.
fn whole(sel: &Selection, exp: &str) -> bool {
    sel.picks().is_empty()
        || sel
            .picks()
            .iter()
            .any(|p| p.exp == exp && p.workload.is_none() && p.variant.is_none())
}

/// One line per measured case.
fn print_summary(data: &ExperimentData) {
    for (id, r) in &data.cases {
        let wall = r.wall.as_ref().map_or("-".into(), |w| fmt_ns(w.median_ns));
        let ir = r.instructions.map_or("-".into(), fmt_count);
        let blocks = r.alloc.map_or("-".into(), |a| {
            format!("{:.2}", a.blocks as f64 / a.runs as f64)
        });
        let cycles = r.cycles.map_or(String::new(), |c| {
            format!(" {:>15} cycles", fmt_count(c.estimated_cycles))
        });
        println!("{id:<50} {wall:>12} {ir:>15} instr {blocks:>9} blocks/run{cycles}");
    }
}

/// Copies the raw results of this run (every metric's folder) to `target/wirelab/saved/NAME`.
fn save(name: &str) -> Result<()> {
    use anyhow::Context;
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        anyhow::bail!("--save: `{name}` is not a usable name (no slashes, not hidden)");
    }
    let to = crate::compare::saved_dir(name);
    if to.exists() {
        std::fs::remove_dir_all(&to).with_context(|| format!("replacing {}", to.display()))?;
    }
    for metric in records::Metric::ALL {
        let from = wirelab_bench::paths::lab_dir().join(metric.dir());
        let Ok(entries) = std::fs::read_dir(&from) else {
            continue;
        };
        std::fs::create_dir_all(to.join(metric.dir()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|x| x == "json") {
                std::fs::copy(&path, to.join(metric.dir()).join(entry.file_name()))
                    .with_context(|| format!("saving {}", path.display()))?;
            }
        }
    }
    eprintln!(
        "lab: saved as `{name}` ({}): `cargo lab compare {name}` compares with it",
        to.display()
    );
    Ok(())
}
