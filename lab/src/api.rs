//! `cargo lab api [--check]`: the wirelab crate's public API in `core/public-api.txt`, written
//! or checked by the `wirelab-api` package (`lab/api/`), which is built only for this verb.

use crate::tools::Exit;
use anyhow::{Context, Result, bail};
use std::process::Command;
use wirelab_bench::paths::workspace_root;

/// Writes the listing, or with `check` compares it with the committed one.
pub fn run(check: bool) -> Result<()> {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(workspace_root())
        .args(["run", "--release", "--package", "wirelab-api", "--"]);
    if check {
        cmd.arg("--check");
    }
    let status = cmd
        .stdout(std::io::stderr())
        .status()
        .context("starting cargo run of wirelab-api")?;
    match status.code() {
        Some(0) => Ok(()),
        Some(1) => {
            Err(Exit::difference("the public API differs from core/public-api.txt".into()).into())
        }
        _ => bail!("the public API listing failed ({status})"),
    }
}
