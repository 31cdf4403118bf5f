//! Replays every committed fuzz input, the seeds (`fuzz/seeds/<target>/`) and the inputs of
//! findings kept as regression tests (`fuzz/regressions/<target>/`), through the same checks
//! the fuzz targets run, so that plain `cargo test` guards every fix.

mod fuzz_checks;

use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("listing fuzz inputs").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_seed_and_regression_input_passes_its_check() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut replayed = 0;
    for (target, check) in fuzz_checks::TARGETS {
        let seeds = inputs(&fuzz.join("seeds").join(target));
        assert!(
            !seeds.is_empty(),
            "fuzz target {target} has no committed seeds in fuzz/seeds/{target}"
        );
        for file in seeds
            .iter()
            .chain(&inputs(&fuzz.join("regressions").join(target)))
        {
            let data = std::fs::read(file).expect("reading a fuzz input");
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{target}: {} fails", file.display());
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} fuzz inputs");
}
