//! `cargo lab verify`: every selected case run once and compared with the baseline; a pass/fail
//! table per experiment, and per case its output's length, digest and copies recorded for the
//! reports (`target/wirelab/verify/<exp>.json`), in the build that measures the experiment.

use crate::tools::{by_backend, cargo_run};
use anyhow::Result;
use std::collections::BTreeMap;
use wirelab_bench::catalog::{self, Backend, Check, Group, VariantInfo, WorkloadInfo};
use wirelab_bench::records::{Metric, Output, Verification, write_json};
use wirelab_bench::selection::Selection;

/// Verifies the selection; returns how many cases were checked (in this build).
pub fn run(sel: &Selection) -> Result<usize> {
    let (mut checked, mut failed) = (0, 0);
    for (backend, part) in by_backend(sel) {
        if backend != Backend::BUILT {
            println!(
                "{part}: verified by a lab built with {}",
                backend.cargo_args().join(" ")
            );
            crate::tools::run(
                cargo_run("lab", backend)
                    .arg("verify")
                    .arg(part.to_string()),
                "verification in the other backend's build",
            )?;
            continue;
        }
        for group in catalog::walk(&part) {
            let (n, bad) = verify_group(group?)?;
            checked += n;
            failed += bad;
        }
    }
    if failed > 0 {
        return Err(crate::tools::Exit::difference(format!(
            "verify: {failed} of {checked} outputs differ from the baseline"
        ))
        .into());
    }
    if checked == 0 {
        println!("verify: no case to verify");
        return Ok(0);
    }
    println!(
        "verify: all {checked} outputs equal the baseline's (ok* = a peer's different but equivalent encoding)"
    );
    Ok(checked)
}

/// Runs and records every case of one page, prints its table; returns (checked, failed).
fn verify_group(group: Group) -> Result<(usize, usize)> {
    let exp = group.exp.id();
    let mut cells: BTreeMap<(String, String), Check> = BTreeMap::new();
    let mut record = Verification {
        variants: Vec::new(),
        workloads: Vec::new(),
        outputs: BTreeMap::new(),
        run_ms: BTreeMap::new(),
    };
    let mut details = Vec::new();
    let (variants, workloads) = (group.variants, group.workloads);
    for mut case in group.cases {
        let started = std::time::Instant::now();
        let v = case.verify();
        let ms = started.elapsed().as_secs_f64() * 1e3;
        record.run_ms.insert(case.id.clone(), ms);
        if !matches!(v.check, Check::Pass | Check::Equivalent) {
            details.push(format!("{}: {}", case.id, v.check));
        }
        let output = Output::of(&v.output, v.result, v.copied);
        record.outputs.insert(case.id.clone(), output);
        cells.insert((case.id.workload, case.id.variant), v.check);
    }
    print_table(&exp, &variants, &workloads, &cells);
    record.variants = variants;
    record.workloads = workloads;
    for d in &details {
        println!("    {d}");
    }
    write_json(&Metric::Verify.file(&exp), &record).map_err(anyhow::Error::msg)?;
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
