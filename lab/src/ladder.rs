//! The ladder phase of `cargo lab bench`: each page's speed-ups measured the way `compare`
//! measures two revisions. Every variant of a workload is timed against the page's baseline in
//! pairs of batches in one process ([`wirelab_bench::sampler::run_ladder`]), and the harness
//! (`src/bin/ladder.rs`) is linked under several section orders, one process each, so that
//! where the linker puts each variant's code is a source of variance, not a bias. criterion
//! keeps the absolute times; the speed-ups and their intervals over layouts go to
//! `target/wirelab/ladder/<exp>.json` (case id -> [`LayoutSpeedup`]).

use crate::dual::{
    Invocation, Layout, PLACEMENTS, layout_settings, link_in_layouts, selection_words,
};
use crate::tools::by_backend;
use anyhow::Result;
use std::collections::BTreeMap;
use std::process::Command;
use wirelab_bench::catalog::Backend;
use wirelab_bench::paths::{lab_dir, target_dir, workspace_root};
use wirelab_bench::records::{LayoutSpeedup, Metric, write_json};
use wirelab_bench::report::bootstrap::ratio_over_layouts;
use wirelab_bench::sampler::PairedCase;
use wirelab_bench::selection::Selection;

/// Link layouts of a run. Eight, so that the trimmed mean over them keeps six (Yuen's interval
/// then has five degrees of freedom). A `--quick` run has no ladder ([`skip`]).
pub const LAYOUTS: u64 = 8;

/// The harness's binary name.
const BIN: &str = "ladder";

/// Measures the ladder of every page of `sel` and writes each page's speed-ups. Returns the
/// seconds it took.
///
/// # Errors
///
/// When the harness cannot be built or fails (a variant whose output differs, missing data).
pub fn measure(sel: &Selection) -> Result<f64> {
    let started = std::time::Instant::now();
    let seeds: Vec<u64> = (1..=LAYOUTS).collect();
    let mut runs: BTreeMap<String, Vec<PairedCase>> = BTreeMap::new();
    for (backend, part) in by_backend(sel) {
        for (i, layout) in link(backend, &seeds)?.iter().enumerate() {
            eprintln!(
                "\n=== ladder: layout {}/{} (seed {}): each variant against its baseline in one process ===",
                i + 1,
                seeds.len(),
                layout.seed
            );
            let settings = layout_settings(layout.seed, false, PLACEMENTS);
            let call = Invocation {
                out: &layouts_dir().join(format!("run-{}.json", layout.seed)),
                words: &selection_words(&part),
                cwd: &workspace_root(),
                data: None,
            };
            let run = layout.run(1, &settings, &call)?;
            for (id, case) in run.cases {
                runs.entry(id).or_default().push(case);
            }
        }
    }
    write_speedups(sel, &runs)?;
    Ok(started.elapsed().as_secs_f64())
}

/// Builds the harness with `backend`, once per section-order seed.
fn link(backend: Backend, seeds: &[u64]) -> Result<Vec<Layout>> {
    let cargo = || {
        let mut cmd = Command::new("cargo");
        cmd.args(["rustc", "--release", "--package", "wirelab-bench"])
            .args(backend.cargo_args())
            .args(["--bin", BIN]);
        cmd
    };
    let built = target_dir().join("release").join(BIN);
    let name = format!("{BIN}{}", backend.suffix());
    // One binary per seed: the seeds are fixed, so cargo's folder keeps a bounded number.
    link_in_layouts(cargo, &built, &layouts_dir(), &name, seeds, None)
}

/// A `--quick` run's ladder: none. Its speed-ups would come from two layouts at most, an
/// anecdote (a nanosecond-scale ratio moves by 5-50 % between layouts), and nothing a quick run
/// prints reads them; the pages of `sel` lose any older run's, so that its results (`--save`)
/// hold none. A layout-aware ratio is a full run's, or `cargo lab compare`'s.
///
/// # Errors
///
/// When an older run's file cannot be removed.
pub fn skip(sel: &Selection) -> Result<()> {
    eprintln!(
        "lab: --quick: no ladder over link layouts (layout-aware speed-ups: a full run or `cargo lab compare`)"
    );
    for exp in sel.experiments() {
        let file = Metric::Ladder.file(&exp.id());
        if file.exists() {
            std::fs::remove_file(&file)
                .map_err(|e| anyhow::anyhow!("removing {}: {e}", file.display()))?;
        }
    }
    Ok(())
}

/// Each case's speed-up over its baseline from its pairs in every layout (the inverse of the
/// pairs' ratio variant / baseline), written per page.
fn write_speedups(sel: &Selection, runs: &BTreeMap<String, Vec<PairedCase>>) -> Result<()> {
    for exp in sel.experiments() {
        let prefix = format!("{}/", exp.id());
        let page: BTreeMap<&String, LayoutSpeedup> = runs
            .iter()
            .filter(|(id, _)| id.starts_with(&prefix))
            .filter_map(|(id, layouts)| Some((id, speedup(layouts, PLACEMENTS)?)))
            .collect();
        write_json(&Metric::Ladder.file(&exp.id()), &page).map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

/// baseline / variant over layouts, from the pairs' `ln(variant / baseline)` (taken over
/// `placements` placements of the inputs in each layout).
pub fn speedup(layouts: &[PairedCase], placements: usize) -> Option<LayoutSpeedup> {
    let logs: Vec<Vec<f64>> = layouts.iter().map(|c| c.pairs.log_ratios()).collect();
    let r = ratio_over_layouts(&logs, 0.95)?;
    Some(LayoutSpeedup {
        value: 1.0 / r.ratio.value,
        lower: 1.0 / r.ratio.upper,
        upper: 1.0 / r.ratio.lower,
        layouts: r.per_layout.iter().map(|x| 1.0 / x).collect(),
        placements,
    })
}

/// The linked binaries and each layout's raw pairs (`target/wirelab/ladder-layouts`).
fn layouts_dir() -> std::path::PathBuf {
    lab_dir().join("ladder-layouts")
}
