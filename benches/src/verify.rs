//! Verification in the build that measures a page: every case of a selection run once and
//! compared with its baseline, a pass/fail table per page on stdout, and per case its output's
//! length, digest and copies recorded for the reports (`target/wirelab/verify/<exp>.json`).
//! The lab runs it in its own process for the default backend and through the `verify` binary
//! for the other one.

use crate::catalog::{self, Check, Group, VariantInfo, WorkloadInfo};
use crate::records::{Metric, Output, Verification, write_json};
use crate::selection::Selection;
use std::collections::BTreeMap;

/// How many cases a verification checked and how many of them differ from the baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Cases run and compared.
    pub checked: usize,
    /// Cases whose output differs from the baseline's.
    pub failed: usize,
}

/// Verifies every case of `sel` that this build measures, printing a table per page and
/// recording each page's outputs.
///
/// # Errors
///
/// When a workload cannot be loaded or a record cannot be written.
pub fn verify_built(sel: &Selection) -> Result<Tally, String> {
    let mut tally = Tally::default();
    for group in catalog::walk(sel) {
        let (checked, failed) = verify_group(group.map_err(|e| e.to_string())?)?;
        tally.checked += checked;
        tally.failed += failed;
    }
    Ok(tally)
}

/// Runs and records every case of one page, prints its table; returns (checked, failed).
fn verify_group(group: Group) -> Result<(usize, usize), String> {
    let exp = group.exp.id();
    let mut cells: BTreeMap<(String, String), Check> = BTreeMap::new();
    let mut outputs = BTreeMap::new();
    let mut run_ms = BTreeMap::new();
    let mut details = Vec::new();
    for mut case in group.cases {
        let started = std::time::Instant::now();
        let v = case.verify();
        run_ms.insert(case.id.clone(), started.elapsed().as_secs_f64() * 1e3);
        if !matches!(v.check, Check::Pass | Check::Equivalent) {
            details.push(format!("{}: {}", case.id, v.check));
        }
        outputs.insert(case.id.clone(), Output::of(&v.output, v.result, v.copied));
        cells.insert((case.id.workload, case.id.variant), v.check);
    }
    print_table(&exp, &group.variants, &group.workloads, &cells);
    for d in &details {
        println!("    {d}");
    }
    let record = Verification {
        variants: group.variants,
        workloads: group.workloads,
        outputs,
        run_ms,
    };
    write_json(&Metric::Verify.file(&exp), &record)?;
    Ok((cells.len(), details.len()))
}

fn print_table(
    exp: &str,
    variants: &[VariantInfo],
    workloads: &[WorkloadInfo],
    cells: &BTreeMap<(String, String), Check>,
) {
    println!("{exp}");
    let width = variants
        .iter()
        .map(|v| v.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    print!("  {:<18}", "workload");
    for v in variants {
        print!(" {:>width$}", v.name);
    }
    println!();
    for w in workloads {
        if !cells.keys().any(|(wl, _)| *wl == w.name) {
            continue;
        }
        print!("  {:<18}", w.name);
        for v in variants {
            let cell = match cells.get(&(w.name.clone(), v.name.clone())) {
                None => "n/a",
                Some(Check::Pass) => "ok",
                Some(Check::Equivalent) => "ok*",
                Some(_) => "FAIL",
            };
            print!(" {cell:>width$}");
        }
        println!();
    }
}
