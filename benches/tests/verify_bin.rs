//! The `verify` binary, which the lab runs for the pages of the backend it was not built with:
//! its tables on stdout, its records where the lab reads them, and its exit status (0 every
//! output equal, 2 an error such as a selection that names nothing).

use std::process::Command;
use wirelab_bench::records::Verification;

mod common;

fn verify(ws: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_verify"))
        .args(args)
        .current_dir(ws)
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("WIRELAB_INPUTS")
        .output()
        .unwrap()
}

#[test]
fn verify_records_every_case_it_checked_and_prints_its_table() {
    let ws = common::scratch_workspace();
    let out = verify(ws.path(), &["latin1/ascii-8"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout.starts_with("latin1\n"), "{stdout}");
    assert!(stdout.contains("ascii-8"), "{stdout}");
    let file = ws.path().join("target/wirelab/verify/latin1.json");
    let record: Verification =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let ids: Vec<String> = record.outputs.keys().map(ToString::to_string).collect();
    assert!(!ids.is_empty(), "no case recorded");
    assert!(
        ids.iter().all(|id| id.starts_with("latin1/ascii-8/")),
        "{ids:?}"
    );
    assert_eq!(record.run_ms.len(), ids.len());
}

#[test]
fn a_selection_that_names_nothing_is_an_error_not_a_difference() {
    let ws = common::scratch_workspace();
    let out = verify(ws.path(), &["no-such-experiment"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no-such-experiment"),
        "{out:?}"
    );
}
