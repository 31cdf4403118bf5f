//! `cargo lab profile`: a DHAT heap profile per selected case (steady-state runs only), for
//! DHAT's viewer.

use crate::tools::{cargo_run, run as run_cmd};
use crate::verify;
use anyhow::Result;
use wirelab_bench::paths::{lab_dir, workspace_root};
use wirelab_bench::records::{Metric, Verification, read_json};
use wirelab_bench::selection::Selection;

/// Profiles every case of the selection, one dhat process each.
pub fn run(sel: &Selection) -> Result<()> {
    verify::run(sel)?;
    let mut written = Vec::new();
    for exp in sel.experiments() {
        let verified: Verification =
            read_json(&Metric::Verify.file(&exp.id())).map_err(anyhow::Error::msg)?;
        for id in verified.outputs.keys() {
            let dir = lab_dir()
                .join("profile")
                .join(&id.exp)
                .join(&id.workload)
                .join(&id.variant);
            std::fs::create_dir_all(&dir)?;
            eprintln!("lab: profiling {id}");
            run_cmd(
                cargo_run("alloc", exp.backend).args([
                    "--profile",
                    &dir.to_string_lossy(),
                    &id.to_string(),
                ]),
                "allocation profile (dhat)",
            )?;
            written.push(dir.join("dhat-heap.json"));
        }
    }
    println!("\nDHAT profiles (steady-state runs only; setup and the warm-up run excluded):");
    for p in &written {
        println!(
            "  {}",
            p.strip_prefix(workspace_root()).unwrap_or(p).display()
        );
    }
    println!(
        "Open one in DHAT's viewer: https://nnethercote.github.io/dh_view/dh_view.html \
         (\"Load…\" the file; it stays on your machine)."
    );
    Ok(())
}
