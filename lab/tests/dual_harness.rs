//! The dual harness builds for two tiny revisions (workspaces with the lab's package names and
//! the `wirelab_bench::dual` interface): both are renamed, linked into one program under two
//! section orders, and timed against each other; each side's own code produced its output.

use std::path::Path;
use std::process::Command;

/// Writes a tiny revision whose `changed` case outputs `changed`.
fn tiny_revision(dir: &Path, changed: u64) {
    let files = [
        (
            "Cargo.toml",
            "[workspace]\nresolver = \"3\"\nmembers = [\"core\", \"benches\"]\n\n[workspace.package]\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace.dependencies]\nwirelab = { path = \"core\" }\n\n[profile.release]\ndebug = \"line-tables-only\"\n".to_owned(),
        ),
        (
            "core/Cargo.toml",
            "[package]\nname = \"wirelab\"\nversion.workspace = true\nedition.workspace = true\n".to_owned(),
        ),
        (
            "core/src/lib.rs",
            format!(
                "//! Tiny.\n/// Some work.\npub fn work(n: u64) -> u64 {{ (0..n).fold(0, |a, i| a ^ i.wrapping_mul(0x9E37)) }}\n/// What changed.\npub fn changed() -> u64 {{ std::hint::black_box({changed}) }}\n"
            ),
        ),
        (
            "benches/Cargo.toml",
            "[package]\nname = \"wirelab-bench\"\nversion.workspace = true\nedition.workspace = true\n\n[dependencies]\nwirelab.workspace = true\n\n[features]\nzlib-rs = []\n".to_owned(),
        ),
        (
            "benches/src/lib.rs",
            r#"//! Tiny lab.
/// The dual harness's interface.
pub mod dual {
    /// A case.
    pub struct TimedCase {
        /// Id.
        pub id: String,
        /// Output digest.
        pub digest: String,
        /// One run.
        pub run: Box<dyn FnMut() -> u64>,
    }

    /// The cases.
    pub fn timed_cases(_: &[String]) -> Result<Vec<TimedCase>, String> {
        Ok(vec![
            TimedCase {
                id: "tiny/w/same".into(),
                digest: wirelab::work(1000).to_string(),
                run: Box::new(|| wirelab::work(1000)),
            },
            TimedCase {
                id: "tiny/w/changed".into(),
                digest: wirelab::changed().to_string(),
                run: Box::new(wirelab::changed),
            },
        ])
    }
}
"#
            .to_owned(),
        ),
    ];
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn two_tiny_revisions_are_linked_into_one_harness_and_paired() {
    let dir = tempfile::tempdir().unwrap();
    let (base, new) = (dir.path().join("base"), dir.path().join("new"));
    tiny_revision(&base, 1);
    tiny_revision(&new, 2);
    let key = format!("test-{}", std::process::id());
    let out = dir.path().join("runs.json");
    let status = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["dual", "--layouts", "2", "--key", &key, "--out"])
        .arg(&out)
        .arg(&base)
        .arg(&new)
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .unwrap();
    let _ = std::fs::remove_dir_all(format!("/tmp/wirelab-cmp/d-{key}"));
    assert!(status.success(), "lab dual failed: {status}");
    let runs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    for id in ["tiny/w/same", "tiny/w/changed"] {
        let layouts = runs[id]
            .as_array()
            .unwrap_or_else(|| panic!("{id} missing: {runs}"));
        assert_eq!(layouts.len(), 2, "{id}: one result per layout");
        for l in layouts {
            let pairs = &l["pairs"];
            assert!(!pairs["base_ns"].as_array().unwrap().is_empty());
            assert_eq!(
                pairs["base_ns"].as_array().unwrap().len(),
                pairs["new_ns"].as_array().unwrap().len()
            );
        }
    }
    // Each side ran its own code: the changed case's outputs differ, the other's agree.
    let digests = |id: &str| {
        let l = &runs[id][0];
        (l["base_digest"].clone(), l["new_digest"].clone())
    };
    assert_eq!(digests("tiny/w/changed"), ("1".into(), "2".into()));
    let (b, n) = digests("tiny/w/same");
    assert_eq!(b, n);
}
