//! `cargo lab verify`: every selected case run once and compared with the baseline, in the
//! build that measures it (`wirelab_bench::verify`): this process for the default backend's
//! pages, the `verify` binary built with the other backend for the rest.

use crate::tools::{Exit, by_backend, cargo_run};
use anyhow::{Context, Result};
use wirelab_bench::catalog::Backend;
use wirelab_bench::records::{self, Metric, Verification};
use wirelab_bench::selection::Selection;
use wirelab_bench::verify::{Tally, verify_built};

/// Verifies the selection.
pub fn run(sel: &Selection) -> Result<()> {
    let mut tally = Tally::default();
    let mut differ = Vec::new();
    for (backend, part) in by_backend(sel) {
        if backend == Backend::BUILT {
            let here = verify_built(&part).map_err(anyhow::Error::msg)?;
            tally.checked += here.checked;
            tally.failed += here.failed;
        } else if verify_in(backend, &part)? {
            tally.checked += recorded_outputs(&part)?;
        } else {
            differ.push(format!("outputs of {part}"));
        }
    }
    if tally.failed > 0 {
        differ.push(format!("{} of {} outputs", tally.failed, tally.checked));
    }
    if !differ.is_empty() {
        return Err(Exit::difference(format!(
            "verify: {} differ from the baseline",
            differ.join(" and ")
        ))
        .into());
    }
    if tally.checked == 0 {
        println!("verify: no case to verify");
    } else {
        println!(
            "verify: all {} outputs equal the baseline's (ok* = a peer's different but equivalent encoding)",
            tally.checked
        );
    }
    Ok(())
}

/// Verifies `part` with the `verify` binary built for `backend`; whether every output equals
/// the baseline's.
fn verify_in(backend: Backend, part: &Selection) -> Result<bool> {
    println!(
        "{part}: verified by a build with {}",
        backend.cargo_args().join(" ")
    );
    let status = cargo_run("verify", backend)
        .arg(part.to_string())
        .status()
        .context("verification in the other backend's build: could not start cargo")?;
    match status.code() {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => anyhow::bail!("verification in the other backend's build failed ({status})"),
    }
}

/// How many outputs the verification records of `part`'s pages hold.
fn recorded_outputs(part: &Selection) -> Result<usize> {
    let mut n = 0;
    for exp in part.experiments() {
        let v: Verification =
            records::read_json(&Metric::Verify.file(&exp.id())).map_err(anyhow::Error::msg)?;
        n += v.outputs.len();
    }
    Ok(n)
}
