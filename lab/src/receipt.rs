//! The receipt of a run: commit, toolchain, CPU, valgrind and crate versions, the command line.
//! Crate versions come from `cargo metadata`: every direct dependency of the workspace's
//! packages and everything flate2 is built from (its backends), several versions of one crate
//! listed together.

use crate::tools::output_of;
use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use wirelab_bench::paths::workspace_root;
use wirelab_bench::records::Receipt;

#[derive(Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    workspace_members: Vec<String>,
    resolve: Resolve,
}

#[derive(Deserialize)]
struct Package {
    id: String,
    name: String,
    version: String,
    dependencies: Vec<Dependency>,
}

#[derive(Deserialize)]
struct Dependency {
    name: String,
}

#[derive(Deserialize)]
struct Resolve {
    nodes: Vec<Node>,
}

#[derive(Deserialize)]
struct Node {
    id: String,
    dependencies: Vec<String>,
}

/// The crates a receipt names, with their versions.
pub fn crate_versions() -> Result<BTreeMap<String, String>> {
    let out = Command::new("cargo")
        .args([
            "metadata",
            "--format-version",
            "1",
            "--all-features",
            "--locked",
        ])
        .current_dir(workspace_root())
        .output()
        .context("running cargo metadata")?;
    anyhow::ensure!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Metadata = serde_json::from_slice(&out.stdout).context("reading cargo metadata")?;
    let members: BTreeSet<&str> = meta.workspace_members.iter().map(String::as_str).collect();
    let mut names: BTreeSet<String> = meta
        .packages
        .iter()
        .filter(|p| members.contains(p.id.as_str()))
        .flat_map(|p| p.dependencies.iter().map(|d| d.name.replace('_', "-")))
        .collect();
    names.extend(flate2_closure(&meta));
    let mut versions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &meta.packages {
        if !members.contains(p.id.as_str()) && names.contains(&p.name.replace('_', "-")) {
            versions
                .entry(p.name.clone())
                .or_default()
                .insert(p.version.clone());
        }
    }
    Ok(versions
        .into_iter()
        .map(|(k, v)| (k, v.into_iter().collect::<Vec<_>>().join(", ")))
        .collect())
}

/// The names of flate2 and every crate it depends on, directly or not.
fn flate2_closure(meta: &Metadata) -> BTreeSet<String> {
    let name_of: BTreeMap<&str, &str> = meta
        .packages
        .iter()
        .map(|p| (p.id.as_str(), p.name.as_str()))
        .collect();
    let deps: BTreeMap<&str, &Vec<String>> = meta
        .resolve
        .nodes
        .iter()
        .map(|n| (n.id.as_str(), &n.dependencies))
        .collect();
    let mut todo: Vec<&str> = meta
        .packages
        .iter()
        .filter(|p| p.name == "flate2")
        .map(|p| p.id.as_str())
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(id) = todo.pop() {
        if seen.insert(id) {
            todo.extend(
                deps.get(id)
                    .into_iter()
                    .flat_map(|d| d.iter().map(String::as_str)),
            );
        }
    }
    seen.iter()
        .filter_map(|id| name_of.get(id))
        .map(|n| n.replace('_', "-"))
        .collect()
}

fn git(args: &[&str]) -> Option<String> {
    let root = workspace_root().to_string_lossy().into_owned();
    let mut all = vec!["-C", root.as_str()];
    all.extend_from_slice(args);
    output_of("git", &all)
}

/// The receipt of a run started now with the process's command line.
pub fn make(quick: bool) -> Result<Receipt> {
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".to_owned());
    let dirty = git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or_else(|| "unknown".to_owned(), |s| s.trim().to_owned());
    let args: Vec<String> = std::env::args().skip(1).collect();
    Ok(Receipt {
        commit: if dirty {
            format!("{commit}-dirty")
        } else {
            commit
        },
        rustc: output_of("rustc", &["-vV"]).unwrap_or_default(),
        cpu,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        valgrind: output_of("valgrind", &["--version"]).unwrap_or_else(|| "not installed".into()),
        crates: crate_versions()?,
        command: format!("cargo lab {}", args.join(" ")),
        date: output_of("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_else(|| "unknown".into()),
        quick,
        durations_s: None,
    })
}
