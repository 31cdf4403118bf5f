//! Shared by the integration tests that read `../shared/data`.

use std::path::PathBuf;

/// The shared data folder (`WIRELAB_DATA`, else `../shared/data` beside the workspace), or
/// `None` after saying that the test is skipped. Under `CI=true` missing data is a failure.
pub fn data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("WIRELAB_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "shared data missing at {} (required under CI=true)",
            dir.display()
        );
    }
    eprintln!(
        "SKIPPED: shared data not found at {} (set WIRELAB_DATA)",
        dir.display()
    );
    None
}
