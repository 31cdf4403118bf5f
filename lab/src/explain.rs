//! `cargo lab explain SELECTION`: where each selected case spends its instructions. One build
//! (the instruction-count harness), one callgrind run per case; for each case the functions
//! with the most instructions of their own (with their inclusive counts) and a flamegraph SVG
//! under `target/wirelab/explain/`, so the ladder's question "where does the naive twin spend
//! its time" has an answer next to its count.

use crate::harness;
use crate::prebuild::verify_while_building;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use wirelab_bench::callgrind::{self, Profile};
use wirelab_bench::catalog::CaseId;
use wirelab_bench::paths::{lab_dir, workspace_root};
use wirelab_bench::records::{Metric, Verification, read_json, write_atomically};
use wirelab_bench::report::fmt_count;
use wirelab_bench::selection::Selection;

/// Functions listed per case.
const TOP: usize = 12;

/// Explains every case of the selection.
pub fn run(sel: &Selection) -> Result<()> {
    verify_while_building(sel)?;
    harness::icount(sel, false, false)?;
    let mut out = String::new();
    let mut svgs = Vec::new();
    for exp in sel.experiments() {
        let verified: Verification =
            read_json(&Metric::Verify.file(&exp.id())).map_err(anyhow::Error::msg)?;
        for case in verified.outputs.keys() {
            let profile = read_profile(case)?;
            out.push_str(&table(case, &profile));
            let svg = lab_dir().join("explain").join(format!("{case}.svg"));
            let drawn =
                callgrind::flamegraph(&case.to_string(), &profile.folded(callgrind::MEASURED))
                    .map_err(anyhow::Error::msg)?;
            write_atomically(&svg, drawn.as_bytes()).map_err(anyhow::Error::msg)?;
            svgs.push(svg);
        }
    }
    write_atomically(&lab_dir().join("explain").join("latest.md"), out.as_bytes())
        .map_err(anyhow::Error::msg)?;
    print!("{out}");
    eprintln!("lab: flamegraphs (open in a browser; click to zoom):");
    for svg in &svgs {
        eprintln!(
            "  {}",
            svg.strip_prefix(workspace_root()).unwrap_or(svg).display()
        );
    }
    Ok(())
}

/// The case's callgrind profile, as the instruction-count harness kept it.
fn read_profile(case: &CaseId) -> Result<Profile> {
    let path = harness::profile_file(&lab_dir(), case);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{case}: no callgrind profile at {}", path.display()))?;
    Profile::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// The case's top functions by self instructions, as Markdown.
fn table(case: &CaseId, profile: &Profile) -> String {
    let total = profile.total().max(1);
    let mut out = format!(
        "## {case}\n\n{} instructions in one run. The functions with the most instructions of their own:\n\n| function | self | % | inclusive | % |\n| --- | ---: | ---: | ---: | ---: |\n",
        fmt_count(total)
    );
    let share = |n: u64| n as f64 / total as f64 * 100.0;
    for (name, cost) in profile.top_by_self(TOP) {
        let _ = writeln!(
            out,
            "| `{}` | {} | {:.1} | {} | {:.1} |",
            name.replace('|', "\\|"),
            fmt_count(cost.self_ir),
            share(cost.self_ir),
            fmt_count(cost.inclusive),
            share(cost.inclusive)
        );
    }
    out.push('\n');
    out
}
