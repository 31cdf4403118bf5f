//! Shared by the integration tests that read `../shared/data`.

use std::path::PathBuf;

/// The shared data folder (`WIRELAB_DATA`, else `../shared/data` beside the workspace, else
/// the `data/` that `cargo lab data` assembles), or `None` after saying that the test is
/// skipped. `needs` are the pieces the test reads (`gzip`, `rfc7541-appendix-c.json`): a folder
/// without one of them is skipped the same way. Under `CI=true` missing data is a failure.
pub fn data_dir(needs: &[&str]) -> Option<PathBuf> {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = workspace.join("../shared/data");
    let assembled = workspace.join("data");
    let dir = std::env::var_os("WIRELAB_DATA")
        .map(PathBuf::from)
        .unwrap_or(if !shared.is_dir() && assembled.is_dir() {
            assembled
        } else {
            shared
        });
    let absent: Vec<&str> = needs
        .iter()
        .copied()
        .filter(|n| !dir.join(n).exists())
        .collect();
    if dir.is_dir() && absent.is_empty() {
        return Some(dir);
    }
    if dir.is_dir() {
        let what = format!("{} lacks {}", dir.display(), absent.join(", "));
        assert!(
            !under_ci(),
            "shared data incomplete: {what} (required under CI=true)"
        );
        eprintln!("SKIPPED: {what} (see `cargo lab data`)");
        return None;
    }
    if under_ci() {
        panic!(
            "shared data missing at {} (required under CI=true)",
            dir.display()
        );
    }
    eprintln!(
        "SKIPPED: shared data not found at {} (run `cargo lab data`, or set WIRELAB_DATA)",
        dir.display()
    );
    None
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}
