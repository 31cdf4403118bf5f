//! `cargo lab data` on local sources: a copy of the data folder is taken whole and checks
//! clean; a file whose SHA-256 is not its pin, or an archive whose SHA-256 is not its pin, is
//! refused with status 2 and leaves the destination as it was; `--check` finds a tampered file
//! (status 1).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lab(args: &[&str], target: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("lab runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The lab's data folder, when this machine has one (skipped otherwise, a failure under CI).
fn shared_data() -> Option<PathBuf> {
    let dir = wirelab_bench::data::shared_data().expect("data folder under CI")?;
    dir.join("gzip").is_dir().then_some(dir)
}

/// A destination that already holds something, so that a failed run can be seen to keep it.
fn existing_destination(root: &Path) -> PathBuf {
    let to = root.join("data");
    std::fs::create_dir_all(&to).unwrap();
    std::fs::write(to.join("kept.txt"), b"before").unwrap();
    to
}

fn assert_untouched(to: &Path) {
    assert_eq!(std::fs::read(to.join("kept.txt")).unwrap(), b"before");
    assert!(!to.join("MANIFEST.json").exists());
    let staging = to.with_file_name("data.new");
    assert!(!staging.exists(), "staging folder left behind");
}

#[test]
fn a_copy_of_the_data_folder_is_taken_whole_and_checks_clean() {
    let Some(shared) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let to = existing_destination(tmp.path());
    let out = lab(
        &[
            "data",
            "--from",
            shared.to_str().unwrap(),
            "--to",
            to.to_str().unwrap(),
        ],
        &tmp.path().join("target"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!to.join("kept.txt").exists(), "the old folder is replaced");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(to.join("MANIFEST.json")).unwrap()).unwrap();
    assert_eq!(manifest["missing"].as_array().unwrap().len(), 0);
    let files = manifest["files"].as_array().unwrap();
    assert!(files.len() > 250, "{} files", files.len());
    let alice = std::fs::read(to.join("corpus/alice29.txt")).unwrap();
    assert_eq!(
        alice,
        std::fs::read(shared.join("corpus/alice29.txt")).unwrap()
    );

    let check = lab(
        &["data", "--check", "--to", to.to_str().unwrap()],
        tmp.path(),
    );
    assert!(check.status.success(), "{}", stderr(&check));
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(said.contains("0 differ, 0 missing"), "{said}");
}

#[test]
fn a_local_file_that_is_not_its_pin_is_refused_and_nothing_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("from");
    std::fs::create_dir_all(from.join("corpus")).unwrap();
    std::fs::write(from.join("corpus/alice29.txt"), b"not alice").unwrap();
    let to = existing_destination(tmp.path());
    let out = lab(
        &[
            "data",
            "--from",
            from.to_str().unwrap(),
            "--to",
            to.to_str().unwrap(),
        ],
        &tmp.path().join("target"),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("corpus/alice29.txt") && said.contains("refusing"),
        "{said}"
    );
    assert_untouched(&to);
}

#[test]
fn an_archive_that_is_not_its_pin_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("target");
    let downloads = target.join("wirelab/downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    std::fs::write(
        downloads.join("snappy-snappy_1.1.9.orig.tar.gz"),
        b"a download that went wrong",
    )
    .unwrap();
    let to = existing_destination(tmp.path());
    let out = lab(&["data", "--to", to.to_str().unwrap()], &target);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("snappy") && said.contains("not the pinned"),
        "{said}"
    );
    assert_untouched(&to);
}

#[test]
fn check_finds_a_tampered_file() {
    let Some(shared) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("copy");
    std::fs::create_dir_all(copy.join("gzip")).unwrap();
    std::fs::copy(shared.join("gzip/README.md"), copy.join("gzip/README.md")).unwrap();
    std::fs::write(copy.join("gzip/valid-plain.gz"), b"\x1f\x8b tampered").unwrap();
    let out = lab(
        &["data", "--check", "--to", copy.to_str().unwrap()],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("gzip/valid-plain.gz"),
        "{}",
        stderr(&out)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("1 match, 1 differ"), "{said}");
}
