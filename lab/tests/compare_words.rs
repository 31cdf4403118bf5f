//! `cargo lab compare BASE WORD`: a WORD that names both an experiment and a git revision is
//! refused, with the two ways to say which is meant. (It used to be taken as the experiment,
//! so the branch of that name was silently not compared: the working tree was.)

#[path = "../../benches/tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Output};

/// Runs `git` in `dir` with a fixed identity.
fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .args(["-c", "user.name=lab", "-c", "user.email=lab@example.org"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success(), "git {args:?}");
}

/// `cargo lab compare` with `args` in a scratch git workspace that has a branch `latin1` (an
/// experiment's name too).
fn compare(args: &[&str]) -> Output {
    let dir = common::scratch_workspace();
    git(dir.path(), &["init", "--quiet"]);
    git(
        dir.path(),
        &["commit", "--quiet", "--allow-empty", "-m", "x"],
    );
    git(dir.path(), &["branch", "latin1"]);
    Command::new(env!("CARGO_BIN_EXE_lab"))
        .arg("compare")
        .args(args)
        .current_dir(dir.path())
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap()
}

#[test]
fn a_word_that_is_an_experiment_and_a_branch_is_refused() {
    let out = compare(&["HEAD", "latin1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("`latin1` is both a selection and a git revision")
            && stderr.contains("refs/heads/latin1")
            && stderr.contains("`latin1,`"),
        "stderr:\n{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing measured");
}
