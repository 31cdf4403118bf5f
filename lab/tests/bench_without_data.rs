//! `cargo lab bench` on a machine without the shared data: the committed reports of the
//! experiments whose workloads need it stay exactly as they were, and the run says why and
//! exits with status 2 (an environment error), instead of publishing a report that lost
//! workloads.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../benches/tests/common/mod.rs"]
mod common;

/// A scratch workspace holding a copy of the committed reports and README (what `bench` may
/// rewrite), so that a failure of the guard cannot touch the real ones.
fn scratch_workspace() -> tempfile::TempDir {
    let root = common::workspace_root();
    let dir = common::scratch_workspace();
    std::fs::copy(root.join("README.md"), dir.path().join("README.md")).unwrap();
    for entry in walkdir::WalkDir::new(root.join("reports")) {
        let entry = entry.unwrap();
        let to = dir.path().join(entry.path().strip_prefix(root).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    dir
}

/// Every file under `dir` with its contents.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn bench_without_data_keeps_the_committed_report() {
    let ws = scratch_workspace();
    let before = (snapshot(&ws.path().join("reports")), snapshot(ws.path()));
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["bench", "gzip"])
        .current_dir(ws.path())
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("WIRELAB_INPUTS")
        .env_remove("CI")
        .env("WIRELAB_DATA", ws.path().join("no-data-here"))
        .env("WIRELAB_ICOUNT_TARGET", ws.path().join("icount"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("reports/gzip.md and its data stay as committed")
            && stderr.contains("workloads alice29"),
        "stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("no-data-here"),
        "names the data folder:\n{stderr}"
    );
    let after = snapshot(&ws.path().join("reports"));
    assert_eq!(before.0.len(), after.len());
    assert!(before.0 == after, "a report file changed");
    let readme = ws.path().join("README.md");
    let kept = before.1.iter().find(|(p, _)| *p == readme).unwrap();
    assert_eq!(kept.1, std::fs::read(&readme).unwrap(), "README.md changed");
}

/// The guard's rule on the committed gzip data: a verification that covers every workload,
/// variant and case loses nothing; one without a workload, a variant or a case is named.
#[test]
fn lost_names_what_a_run_lacks() {
    use wirelab_bench::records::{ExperimentData, Output, Verification, lost, read_json};
    let committed: ExperimentData = read_json(&wirelab_bench::paths::data_file("gzip")).unwrap();
    let full = Verification {
        variants: committed.variants.clone(),
        workloads: committed.workloads.clone(),
        outputs: committed
            .cases
            .iter()
            .map(|(id, r)| {
                (
                    id.clone(),
                    r.output.clone().unwrap_or(Output::of(b"", 0, None)),
                )
            })
            .collect(),
        run_ms: Default::default(),
    };
    assert!(lost(&committed, &full).is_empty());

    let mut no_urls = full.clone();
    no_urls.workloads.retain(|w| w.name != "urls");
    no_urls.outputs.retain(|id, _| id.workload != "urls");
    assert_eq!(lost(&committed, &no_urls), ["workloads urls"]);

    let mut no_peer = full.clone();
    no_peer.variants.retain(|v| v.name != "flate2-gz");
    no_peer.outputs.retain(|id, _| id.variant != "flate2-gz");
    assert_eq!(lost(&committed, &no_peer), ["variants flate2-gz"]);

    let mut one_case_less = full.clone();
    one_case_less
        .outputs
        .remove(&"gzip/kppkn/optimized".parse().unwrap());
    assert_eq!(
        lost(&committed, &one_case_less),
        ["cases gzip/kppkn/optimized"]
    );

    let empty = Verification {
        variants: full.variants.clone(),
        ..Verification::default()
    };
    let names: Vec<&str> = committed
        .workloads
        .iter()
        .map(|w| w.name.as_str())
        .collect();
    assert_eq!(
        lost(&committed, &empty),
        [format!("workloads {}", names.join(", "))],
        "every workload, and no case named twice"
    );
}
