//! Two labs on one machine: a run that needs the instruction-count folder while another run
//! holds it waits, says so, and goes on (and succeeds) once the other is done, instead of
//! emptying the inputs and rewriting the manifest under it.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_second_run_waits_for_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let icount = dir.path().join("icount");
    // The other run: this test holds the folder's lock, as a running lab does.
    let lock_path = format!("{}.wirelab.lock", icount.display());
    let held = std::fs::File::create(&lock_path).unwrap();
    held.lock().unwrap();

    let mut lab = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["verify", "huffman-encode/user-agent"])
        .env("WIRELAB_ICOUNT_TARGET", &icount)
        .env("CARGO_TARGET_DIR", dir.path().join("target"))
        .env_remove("WIRELAB_INPUTS")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        lab.try_wait().unwrap().is_none(),
        "it ran while the lock was held"
    );
    assert!(
        !icount.join("inputs").exists(),
        "it touched the folder while waiting"
    );

    drop(held);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = lab.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "it did not go on"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    lab.stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("is in use by another lab run") && stderr.contains("is free; going on"),
        "{stderr}"
    );
}
