//! What a revision offers the dual harness of `cargo lab compare` (see [`crate::sampler`]):
//! its cases of a selection, verified against its own baseline, as plain runners. The types
//! are `std`'s, so that the harness can take two revisions' cases (two crates) alike.

use crate::catalog::{self, Sink};
use crate::records::Output;
use crate::selection::Selection;

/// A verified case: its id, the digest of its output, and a runner that performs it once and
/// discards the output.
pub struct TimedCase {
    /// `exp/workload/variant`.
    pub id: String,
    /// SHA-256 of its output.
    pub digest: String,
    /// One run.
    pub run: Box<dyn FnMut() -> u64>,
}

/// The cases `selection` (words of the selection syntax; everything this build measures when
/// empty) names, each verified against its baseline, in catalog order.
///
/// # Errors
///
/// On a bad selection, missing data, or a case whose output differs from its baseline's.
pub fn timed_cases(selection: &[String]) -> Result<Vec<TimedCase>, String> {
    let sel = if selection.is_empty() {
        crate::selection_from_env()?
    } else {
        Selection::parse(selection)?
    };
    let mut out = Vec::new();
    for group in catalog::walk(&sel) {
        for mut case in group.map_err(|e| e.to_string())?.cases {
            let verified = case.verified()?;
            let digest = Output::of(&verified.output, verified.result, verified.copied).digest;
            let (mut runner, mut sink) = (case.runner, Sink::discard());
            out.push(TimedCase {
                id: case.id.to_string(),
                digest,
                run: Box::new(move || runner(&mut sink)),
            });
        }
    }
    Ok(out)
}
