//! The wirelab lab: the typed experiment [`catalog`] and its one [`catalog::walk()`], the
//! registry of [`experiments`], the [`selection`] syntax, the per-case [`records`] the harnesses write, and the [`report`]
//! renderer. The CLI is the `lab/` package (`cargo lab …`); the harnesses are `src/bin/wall.rs`
//! (criterion), `icount/benches/icount.rs` (gungraun, its own package) and `src/bin/alloc.rs` (dhat).
//!
//! Every harness reads the same catalog: a workload is defined once, in `experiments/`.

#[cfg(feature = "cli")]
pub mod callgrind;
pub mod catalog;
#[cfg(feature = "cli")]
pub mod compare;
pub mod data;
#[cfg(feature = "cli")]
pub mod dual;
pub mod experiments;
pub mod pace;
pub mod paths;
pub mod progress;
pub mod records;
#[cfg(feature = "cli")]
pub mod report;
pub mod rng;
pub mod rope;
#[cfg(feature = "cli")]
pub mod sampler;
#[cfg(feature = "cli")]
pub mod schema;
pub mod selection;
pub mod sink;
#[cfg(feature = "cli")]
pub mod verify;

use selection::Selection;

/// Environment variable carrying the selection a harness runs (`EXP[/WORKLOAD[/VARIANT]]`,
/// comma-separated; everything this build measures when unset or empty). The lab CLI sets it
/// for the harnesses it starts.
pub const ENV_SELECTION: &str = "WIRELAB_SELECTION";
/// Environment variable that turns on callgrind's cache simulation in the instruction-count
/// harness when set to `1` (the `cycles` metric).
pub const ENV_CACHE_SIM: &str = "WIRELAB_CACHE_SIM";
/// Environment variable that selects the quick (rough) wall-time settings when set to `1`.
pub const ENV_QUICK: &str = "WIRELAB_QUICK";

/// The selection named by [`ENV_SELECTION`]; when it is empty, every page this build measures.
///
/// # Errors
///
/// On a malformed selection or an unknown name.
pub fn selection_from_env() -> Result<Selection, String> {
    let text = std::env::var(ENV_SELECTION).unwrap_or_default();
    let sel = Selection::parse(&[text])?;
    if !sel.picks().is_empty() {
        return Ok(sel);
    }
    let built: Vec<String> = experiments::pages()
        .into_iter()
        .filter(catalog::Experiment::built_here)
        .map(|e| e.id())
        .collect();
    Selection::parse(&built)
}

/// Whether [`ENV_QUICK`] asks for quick settings.
pub fn quick_from_env() -> bool {
    std::env::var(ENV_QUICK).is_ok_and(|v| v == "1")
}

/// Prints `error: …` and exits with status 1: the end of a harness that cannot go on.
pub fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("error: {what}");
    std::process::exit(1)
}
