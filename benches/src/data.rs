//! The shared conformance and workload data (`../shared/data`), read into [`LoadError`]s: a
//! missing or malformed file ends a command with `error: <file>: <what>`.

use crate::catalog::LoadError;
use std::path::{Path, PathBuf};

/// Whether this is a CI run (`CI=true`), where missing data is a failure.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The folder the shared data is looked for in: `WIRELAB_DATA`, else `../shared/data` beside
/// the workspace.
pub fn shared_data_dir() -> PathBuf {
    std::env::var_os("WIRELAB_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::paths::workspace_root().join("../shared/data"))
}

/// The shared data folder, or `Ok(None)` when it is absent (the workloads that need it are
/// skipped, and this says so once).
///
/// # Errors
///
/// Under `CI=true` when the data is missing.
pub fn shared_data() -> Result<Option<PathBuf>, LoadError> {
    let dir = shared_data_dir();
    if dir.is_dir() {
        return Ok(Some(dir));
    }
    if under_ci() {
        return Err(LoadError::new(
            &dir,
            "shared data missing (required under CI=true; set WIRELAB_DATA)",
        ));
    }
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        eprintln!(
            "wirelab: skipped: the workloads that need shared data (not found at {}; set WIRELAB_DATA)",
            dir.display()
        )
    });
    Ok(None)
}

/// Reads a file of the shared data.
///
/// # Errors
///
/// Names the file and the I/O error.
pub fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|e| LoadError::new(path, e))
}

/// The files of a folder of the shared data, sorted by name.
///
/// # Errors
///
/// Names the folder when it cannot be listed.
pub fn files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|e| LoadError::new(dir, e))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| LoadError::new(dir, e))?.path();
        if path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Environment variable naming the folder where generated workload inputs are kept for the
/// rest of a run (see [`cached`]). The lab sets it, to a fixed folder that it empties at the
/// start of each run; without it, inputs are built afresh every time.
pub const ENV_INPUTS: &str = "WIRELAB_INPUTS";

/// The bytes `build` makes, kept on disk under [`ENV_INPUTS`] keyed by a hash of `key` (which
/// must name everything the bytes depend on: generator, sizes, seeds, levels). The first process
/// of a run builds them (natively, in `verify`); the measured processes after it (under
/// valgrind, where building would be emulated many times slower) only read them.
pub fn cached(key: &str, build: impl FnOnce() -> Vec<u8>) -> Vec<u8> {
    match try_cached(key, || Ok::<_, std::convert::Infallible>(build())) {
        Ok(bytes) => bytes,
        Err(never) => match never {},
    }
}

/// [`cached`] for a fallible `build`: an error is returned and nothing is kept.
///
/// # Errors
///
/// What `build` returns.
pub fn try_cached<E>(key: &str, build: impl FnOnce() -> Result<Vec<u8>, E>) -> Result<Vec<u8>, E> {
    use sha2::Digest;
    let Some(dir) = std::env::var_os(ENV_INPUTS).map(PathBuf::from) else {
        return build();
    };
    let hash: String = sha2::Sha256::digest(key.as_bytes())
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    let path = dir.join(format!("{hash}.bin"));
    if let Ok(bytes) = std::fs::read(&path) {
        return Ok(bytes);
    }
    let bytes = build()?;
    // A failed write only costs the next process a rebuild.
    let _ = crate::records::write_atomically(&path, &bytes);
    Ok(bytes)
}
