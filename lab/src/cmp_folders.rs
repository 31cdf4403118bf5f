//! compare's folders under `/tmp/wirelab-cmp`, kept within bounds.
//!
//! Each compared revision leaves a folder `r-<commit>` (its checkout and target folders, about
//! 2 GB) and each pair of revisions a folder `d-<pair>` (the renamed sources; each layout's
//! binary is removed once it has run); the paired harness's shared target folder keeps a 34 MB
//! binary per layout and pair. Left alone they grew to 46 GB over 27 revisions here. A compare keeps the
//! folders it used most recently (the date of a folder's last use is the date its lock was last
//! taken) and removes the others, except those another lab run holds.

use crate::tools::{lock_path, try_lock_folder};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The folder all of compare's folders live in.
pub const PARENT: &str = "/tmp/wirelab-cmp";

/// How many binaries of the paired harness the shared target folder keeps (34 MB each): the
/// layouts of two comparisons at the default `--max-layouts` (32). A pair compared again after
/// that is relinked, about 5 s a layout.
pub const DUAL_BINARIES_KEPT: usize = 2 * 32;

/// A folder (or file) of compare's, and when it was last used.
struct Used {
    path: PathBuf,
    last_used: SystemTime,
}

/// Removes all but the `keep` most recently used folders of each kind (revisions, working
/// trees, pairs) of [`PARENT`], skipping those another run holds; says on stderr what it freed.
///
/// # Errors
///
/// When the parent folder cannot be read or a folder cannot be removed.
pub fn evict(keep: usize) -> Result<()> {
    let (count, bytes) = evict_in(Path::new(PARENT), keep)?;
    if count > 0 {
        // The removed checkouts' worktree records.
        let root = wirelab_bench::paths::workspace_root();
        let _ =
            crate::tools::output_of("git", &["-C", &root.to_string_lossy(), "worktree", "prune"]);
        eprintln!(
            "compare: removed {count} folders of older comparisons under {PARENT} ({:.1} GB); \
             the {keep} most recently used revisions and pairs are kept (--keep-folders)",
            bytes as f64 / 1e9
        );
    }
    Ok(())
}

/// [`evict`] in `parent`: how many folders it removed, and their bytes.
fn evict_in(parent: &Path, keep: usize) -> Result<(usize, u64)> {
    let (mut count, mut bytes) = (0, 0);
    // Revisions (`r-`), working trees (`w-`) and pairs (`d-`).
    for prefix in ["r-", "w-", "d-"] {
        for old in folders(parent, prefix)?.into_iter().skip(keep) {
            if let Some(freed) = remove_unless_held(&old.path)? {
                count += 1;
                bytes += freed;
            }
        }
    }
    Ok((count, bytes))
}

/// The folders of `parent` whose names start with `prefix`, the most recently used first.
fn folders(parent: &Path, prefix: &str) -> Result<Vec<Used>> {
    let entries = match std::fs::read_dir(parent) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", parent.display())),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if entry.file_type()?.is_dir() && name.to_string_lossy().starts_with(prefix) {
            let dir = entry.path();
            found.push(Used {
                last_used: last_used(&dir),
                path: dir,
            });
        }
    }
    found.sort_by_key(|u| std::cmp::Reverse(u.last_used));
    Ok(found)
}

/// The latest modification of the folder or of its locks (a lock is rewritten when taken).
fn last_used(dir: &Path) -> SystemTime {
    lock_owners(dir)
        .iter()
        .map(|d| lock_path(d))
        .chain([dir.to_path_buf()])
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// What a compare locks for a revision's folder `dir` while it compares it (a second compare
/// of the same revision waits; the revision's own lab run locks `dir` itself).
pub fn comparison_of(dir: &Path) -> PathBuf {
    dir.with_extension("compare")
}

/// The folders whose locks guard `dir`: the folder itself (its lab run, or the pair's
/// harness) and, for a revision or working tree, its comparison.
fn lock_owners(dir: &Path) -> Vec<PathBuf> {
    let pair = dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("d-"));
    let mut owners = vec![dir.to_path_buf()];
    if !pair {
        owners.push(comparison_of(dir));
    }
    owners
}

/// Removes `dir` when none of its locks is held, holding them meanwhile; its size, or `None`
/// when another run holds it. The lock files stay (a waiting run may hold one open).
fn remove_unless_held(dir: &Path) -> Result<Option<u64>> {
    let mut locks = Vec::new();
    for owner in lock_owners(dir) {
        match try_lock_folder(&owner)? {
            Some(lock) => locks.push(lock),
            None => return Ok(None),
        }
    }
    let bytes = size_of(dir);
    std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    Ok(Some(bytes))
}

/// The bytes of the files under `dir`.
fn size_of(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

/// Dates the binary `built` came from (cargo's `deps/<crate>-<hash>`, of which `built` is a
/// hard link) as used now, and removes all but the `keep` most recently used binaries of the
/// crate `stem` (with their dep-info) from `deps`. Call it holding the target folder's lock.
///
/// # Errors
///
/// When `deps` cannot be read or a file not be dated or removed.
pub fn trim_binaries(deps: &Path, stem: &str, built: &Path, keep: usize) -> Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let inode = std::fs::metadata(built)?.ino();
    let mut binaries = Vec::new();
    for entry in std::fs::read_dir(deps).with_context(|| format!("reading {}", deps.display()))? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&format!("{stem}-")) || path.extension().is_some() {
            continue;
        }
        let meta = entry.metadata()?;
        let last_used = if meta.ino() == inode {
            // Read-only: the owner may date a file, and a binary open for writing cannot run.
            std::fs::File::open(&path)?.set_modified(SystemTime::now())?;
            SystemTime::now()
        } else {
            meta.modified()?
        };
        binaries.push(Used { path, last_used });
    }
    binaries.sort_by_key(|u| std::cmp::Reverse(u.last_used));
    for old in binaries.into_iter().skip(keep) {
        std::fs::remove_file(&old.path)?;
        let _ = std::fs::remove_file(old.path.with_extension("d"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A folder with a file in it, last used `age` seconds ago (by its lock's date).
    fn folder(parent: &Path, name: &str, age: u64) -> PathBuf {
        let dir = parent.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("file"), [0u8; 100]).unwrap();
        let when = SystemTime::now() - Duration::from_secs(age);
        for path in [dir.clone(), lock_path(&dir)] {
            if !path.exists() {
                std::fs::write(&path, "").unwrap();
            }
            std::fs::File::open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        dir
    }

    #[test]
    fn evict_keeps_the_most_recent_of_each_kind_and_what_is_held() {
        let parent = tempfile::tempdir().unwrap();
        let p = parent.path();
        let (r_new, r_mid, r_old) = (
            folder(p, "r-aaa", 10),
            folder(p, "r-bbb", 100),
            folder(p, "r-ccc", 1000),
        );
        let held = folder(p, "r-ddd", 5000);
        let (d_new, d_old) = (folder(p, "d-x", 10), folder(p, "d-y", 100));
        let other = folder(p, "dual-target", 9000);
        // Another run's comparison of r-ddd, taken long ago.
        let compare = comparison_of(&held);
        let _lock = try_lock_folder(&compare).unwrap().unwrap();
        let long_ago = SystemTime::now() - Duration::from_secs(5000);
        let lock_file = std::fs::File::open(lock_path(&compare)).unwrap();
        lock_file.set_modified(long_ago).unwrap();
        assert_eq!(evict_in(p, 1).unwrap(), (3, 300));
        for (dir, kept) in [
            (&r_new, true),
            (&r_mid, false),
            (&r_old, false),
            (&held, true),
            (&d_new, true),
            (&d_old, false),
            (&other, true),
        ] {
            assert_eq!(dir.exists(), kept, "{}", dir.display());
        }
    }

    #[test]
    fn evict_of_a_missing_parent_removes_nothing() {
        let parent = tempfile::tempdir().unwrap();
        assert_eq!(evict_in(&parent.path().join("none"), 1).unwrap(), (0, 0));
    }

    #[test]
    fn trim_binaries_keeps_the_one_just_built_and_the_newest() {
        let target = tempfile::tempdir().unwrap();
        let deps = target.path().join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        let now = SystemTime::now();
        for (hash, age) in [("01", 3000), ("02", 10), ("03", 20), ("04", 30)] {
            let bin = deps.join(format!("h_x-{hash}"));
            std::fs::write(&bin, hash).unwrap();
            std::fs::write(bin.with_extension("d"), "").unwrap();
            let when = now - Duration::from_secs(age);
            std::fs::File::open(&bin)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        std::fs::write(deps.join("other-05"), "").unwrap();
        // cargo's uplifted binary is a hard link of the oldest.
        let built = target.path().join("h-x");
        std::fs::hard_link(deps.join("h_x-01"), &built).unwrap();
        trim_binaries(&deps, "h_x", &built, 2).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&deps)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["h_x-01", "h_x-01.d", "h_x-02", "h_x-02.d", "other-05"]
        );
    }
}
