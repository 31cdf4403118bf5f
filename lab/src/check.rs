//! `cargo lab check`: re-measures instructions and allocations, and the output of every case,
//! and fails where they differ from the committed reports/data.

use crate::prebuild::verify_while_building;
use crate::{harness, tools::output_of};
use anyhow::Result;
use std::collections::BTreeMap;
use std::time::Instant;
use wirelab_bench::catalog::{CaseId, Experiment, UNSEEDED_TOLERANCE};
use wirelab_bench::paths::data_file;
use wirelab_bench::records::{Alloc, ExperimentData, Metric, Record, Verification, read_json};
use wirelab_bench::selection::Selection;

/// Checks the selection against the committed data.
pub fn run(sel: &Selection) -> Result<()> {
    let started = Instant::now();
    verify_while_building(sel)?;
    harness::icount(sel, false, false)?;
    harness::alloc(sel, false)?;
    let rustc = output_of("rustc", &["-vV"]).unwrap_or_default();
    let (mut problems, mut compared) = (Vec::new(), 0);
    for exp in sel.experiments() {
        compared += check_page(&exp, &rustc, &mut problems)?;
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("drift: {p}");
        }
        return Err(crate::tools::Exit::difference(format!(
            "check: {} problem(s); the committed reports do not describe this code. \
             Regenerate them with `cargo lab bench` and commit reports/.",
            problems.len()
        ))
        .into());
    }
    println!(
        "check: outputs, instructions and allocations of {compared} cases match reports/data ({:.0?})",
        started.elapsed()
    );
    Ok(())
}

/// Compares one page's fresh measurements with its committed data; returns the cases compared.
fn check_page(exp: &Experiment, rustc: &str, problems: &mut Vec<String>) -> Result<usize> {
    let id = exp.id();
    let path = data_file(&id);
    let committed: ExperimentData = match read_json(&path) {
        Ok(d) => d,
        Err(e) => {
            problems.push(e);
            return Ok(0);
        }
    };
    let exact = committed.receipt.rustc == rustc;
    let outputs: Verification = read_json(&Metric::Verify.file(&id)).map_err(anyhow::Error::msg)?;
    let icounts: BTreeMap<CaseId, u64> =
        read_json(&Metric::Instructions.file(&id)).map_err(anyhow::Error::msg)?;
    let allocs: BTreeMap<CaseId, Alloc> =
        read_json(&Metric::Alloc.file(&id)).map_err(anyhow::Error::msg)?;
    let mut compared = 0;
    for (case, output) in &outputs.outputs {
        let Some(old) = committed.cases.get(case) else {
            problems.push(format!("{case}: not recorded in {}", path.display()));
            continue;
        };
        compared += 1;
        if old.output.as_ref().map(|o| &o.digest) != Some(&output.digest) {
            problems.push(format!(
                "{case}: its output changed (digest differs from the recorded one)"
            ));
        }
        let unseeded = exp.meta().is_unseeded(&case.variant);
        check_icount(
            case,
            old,
            icounts.get(case).copied(),
            exact && !unseeded,
            problems,
        );
        check_alloc(case, old, allocs.get(case), problems);
    }
    Ok(compared)
}

fn check_icount(
    case: &CaseId,
    old: &Record,
    new: Option<u64>,
    exact: bool,
    problems: &mut Vec<String>,
) {
    let (Some(old), Some(new)) = (old.instructions, new) else {
        problems.push(format!("{case}: instructions not recorded or not measured"));
        return;
    };
    let drift = (new as f64 - old as f64).abs() / old.max(1) as f64;
    if (exact && new != old) || drift > UNSEEDED_TOLERANCE {
        problems.push(format!(
            "{case}: instructions {old} recorded, {new} measured ({:+.2} %{})",
            (new as f64 / old.max(1) as f64 - 1.0) * 100.0,
            if exact {
                ", same toolchain: must be equal"
            } else {
                ""
            }
        ));
    }
}

fn check_alloc(case: &CaseId, old: &Record, new: Option<&Alloc>, problems: &mut Vec<String>) {
    let (Some(old), Some(new)) = (old.alloc, new) else {
        problems.push(format!("{case}: allocations not recorded or not measured"));
        return;
    };
    if (old.runs, old.blocks, old.bytes) != (new.runs, new.blocks, new.bytes) {
        problems.push(format!(
            "{case}: allocations {} blocks / {} bytes recorded, {} / {} measured (over {} runs)",
            old.blocks, old.bytes, new.blocks, new.bytes, new.runs
        ));
    }
}
