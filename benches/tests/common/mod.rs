//! Helpers shared by the integration tests that run the lab's binaries (the `lab` package's
//! tests include this file by path).

use std::path::Path;

/// The lab's workspace root (the parent of `benches/`).
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// An empty scratch folder that the lab binary takes for a workspace: it holds a copy of
/// `benches/Cargo.toml` and nothing else.
pub fn scratch_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("benches")).unwrap();
    std::fs::copy(
        workspace_root().join("benches/Cargo.toml"),
        dir.path().join("benches/Cargo.toml"),
    )
    .unwrap();
    dir
}
