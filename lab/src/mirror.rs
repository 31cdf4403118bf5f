//! The fixed places the instruction-count harness is built and run from, so that no path
//! compiled into it, nor its process's arguments, depend on the checkout's folder.

use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use wirelab_bench::paths::{icount_target_dir, workspace_root};

/// The folders and files of the workspace that building the harnesses needs (the mirror of the
/// instruction-count harness, `compare`'s copy of the working tree).
const WORKSPACE_PARTS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    // The `cargo lab` alias and the build's code-alignment flags: `compare` runs a copy of the
    // working tree by its alias and times its harnesses built as the checkout builds them. (The
    // instruction-count harness's own flags, in the environment, take precedence over these.)
    ".cargo/config.toml",
    "core",
    "baselines",
    "benches",
    "icount",
    // Not built by the harness, but members of the workspace, which cargo reads whole.
    "lab",
];

/// Points a link at a fixed path to the shared data, so that the measured process sees the same
/// path strings (and so the same heap layout) whichever folder the checkout lives in.
pub fn fixed_data_link() -> Result<Option<PathBuf>> {
    let Some(data) = wirelab_bench::data::shared_data()? else {
        return Ok(None);
    };
    let data = data
        .canonicalize()
        .with_context(|| format!("resolving {}", data.display()))?;
    let link = icount_target_dir().join("shared-data");
    std::fs::create_dir_all(icount_target_dir())?;
    if link.symlink_metadata().is_ok() {
        std::fs::remove_file(&link).with_context(|| format!("replacing {}", link.display()))?;
    }
    std::os::unix::fs::symlink(&data, &link)
        .with_context(|| format!("linking {} to {}", link.display(), data.display()))?;
    Ok(Some(link))
}

/// A `--remap-path-prefix` flag (in `CARGO_ENCODED_RUSTFLAGS` form) that gives the registry's
/// sources the same paths in the harness binary whatever cargo's home is.
pub fn remap_flags() -> String {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| format!("--remap-path-prefix={}=/cargo", home.display()))
        .unwrap_or_default()
}

/// Mirrors the workspace's sources into a fixed folder and returns it. The harness is built and
/// run from there: paths compiled into it (`CARGO_MANIFEST_DIR`, source locations) then have
/// the same lengths whichever folder the checkout lives in, and so does the layout of the
/// binary, on which a few instructions of `memcpy` and `malloc` depend. Files whose contents
/// are unchanged are not rewritten (cargo's fingerprints go by modification time); files gone
/// from the checkout are removed from the mirror.
pub fn mirror_workspace() -> Result<PathBuf> {
    sync_workspace(&workspace_root(), &icount_target_dir().join("workspace"))
}

/// Makes `dst` hold the workspace files of `src` (see [`mirror_workspace`]), rewriting only
/// the files whose contents differ, and returns `dst`.
pub fn sync_workspace(src: &Path, dst: &Path) -> Result<PathBuf> {
    sync_workspace_with(src, dst, |_, bytes| Ok(bytes))
}

/// [`sync_workspace`] with each file's contents passed through `transform` (given its path
/// relative to the workspace) before they are compared and written.
pub fn sync_workspace_with(
    src: &Path,
    dst: &Path,
    transform: impl Fn(&Path, Vec<u8>) -> Result<Vec<u8>>,
) -> Result<PathBuf> {
    let wanted = files_under(src)?;
    for rel in &wanted {
        let (from, to) = (src.join(rel), dst.join(rel));
        let bytes = std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
        let bytes = transform(rel, bytes)?;
        if std::fs::read(&to).ok().as_deref() != Some(&bytes[..]) {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&to, &bytes).with_context(|| format!("writing {}", to.display()))?;
        }
    }
    for stale in files_under(dst)?.difference(&wanted) {
        std::fs::remove_file(dst.join(stale))?;
    }
    Ok(dst.to_path_buf())
}

/// The files of [`WORKSPACE_PARTS`] under `base`, relative to it, leaving out build output and
/// hidden entries.
fn files_under(base: &Path) -> Result<BTreeSet<PathBuf>> {
    let mut out = BTreeSet::new();
    for part in WORKSPACE_PARTS {
        let root = base.join(part);
        if !root.exists() {
            continue;
        }
        let walk = walkdir::WalkDir::new(&root).into_iter().filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || !(name == "target" || name.starts_with('.'))
        });
        for entry in walk {
            let entry = entry.with_context(|| format!("listing {}", root.display()))?;
            if entry.file_type().is_file() {
                out.insert(entry.path().strip_prefix(base)?.to_path_buf());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::sync_workspace;

    #[test]
    fn a_copy_holds_the_cargo_config_but_no_build_output_or_hidden_entries() {
        let (src, dst) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let files = [
            ".cargo/config.toml",
            "Cargo.toml",
            "benches/src/lib.rs",
            "benches/target/debug/x",
            "benches/.hidden",
            "lab/src/main.rs",
            "notes.txt",
        ];
        for rel in files {
            let path = src.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, rel).unwrap();
        }
        sync_workspace(src.path(), dst.path()).unwrap();
        let copied: Vec<&str> = files
            .into_iter()
            .filter(|rel| dst.path().join(rel).exists())
            .collect();
        assert_eq!(
            copied,
            [
                ".cargo/config.toml",
                "Cargo.toml",
                "benches/src/lib.rs",
                "lab/src/main.rs"
            ]
        );
        let alias = std::fs::read_to_string(dst.path().join(".cargo/config.toml")).unwrap();
        assert_eq!(alias, ".cargo/config.toml");
    }
}
