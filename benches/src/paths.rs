//! Where the lab finds the workspace and keeps its files.

use std::path::{Path, PathBuf};

/// The workspace root (the parent of the `benches` package): from `CARGO_MANIFEST_DIR`, which
/// cargo sets for the programs it runs (those of `benches/` and of the command line's `lab/`),
/// else the nearest folder above the current one that holds `benches/Cargo.toml`, else the
/// current folder.
///
/// Read at run time on purpose: a path compiled into the binary would make its layout, and so
/// the instruction counts of the harness, depend on the folder of the checkout.
pub fn workspace_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        let dir = PathBuf::from(dir);
        let member = dir.ends_with("benches") || dir.ends_with("lab");
        if let Some(root) = dir.parent().filter(|_| member) {
            return root.to_path_buf();
        }
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    cwd.ancestors()
        .find(|d| d.join("benches").join("Cargo.toml").is_file())
        .map_or_else(|| cwd.clone(), Path::to_path_buf)
}

/// The cargo target directory.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// Where the lab keeps its own raw results (`target/wirelab`).
pub fn lab_dir() -> PathBuf {
    target_dir().join("wirelab")
}

/// The committed reports (`reports/`).
pub fn reports_dir() -> PathBuf {
    workspace_root().join("reports")
}

/// The committed data file of an experiment page (`reports/data/<exp>.json`).
pub fn data_file(exp: &str) -> PathBuf {
    reports_dir().join("data").join(format!("{exp}.json"))
}

/// The text of an experiment page's committed data file. A missing file is an error that says
/// where one comes from: a new experiment has none until `cargo lab bench <id>` records it.
///
/// # Errors
///
/// When the file is missing or cannot be read, naming it.
pub fn committed_data(exp: &str) -> Result<String, String> {
    let path = data_file(exp);
    std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "{}: no committed data for `{exp}`; a new experiment gets it from `cargo lab bench {exp}` (then commit reports/)",
            path.display()
        ),
        _ => format!("{}: {e}", path.display()),
    })
}

/// The target folder the instruction-count harness is built in: a fixed absolute path, the
/// same on every machine and for every checkout. The benchmark binary's path is part of the
/// process (argv\[0\]); with it, the heap layout, and so malloc's and memcpy's instruction
/// counts, would depend on where the repository was cloned. `WIRELAB_ICOUNT_TARGET` changes it.
pub fn icount_target_dir() -> PathBuf {
    std::env::var_os("WIRELAB_ICOUNT_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/wirelab-icount-target"))
}

/// The folder a lab run keeps its generated workload inputs in (see
/// [`data::cached`](crate::data::cached)): fixed, like [`icount_target_dir`], because the
/// measured processes see its path.
pub fn inputs_dir() -> PathBuf {
    icount_target_dir().join("inputs")
}
