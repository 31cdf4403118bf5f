//! What a revision offers the dual harness of `cargo lab compare` (see [`crate::sampler`]):
//! its cases of a selection, verified against its own baseline, as plain runners. The types
//! are `std`'s, so that the harness can take two revisions' cases (two crates) alike.

use crate::catalog::{self, Case, Sink};
use crate::records::Output;
use crate::sampler::{Rungs, Timed};
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
    let mut out = Vec::new();
    for group in catalog::walk(&parse(selection)?) {
        for case in group.map_err(|e| e.to_string())?.cases {
            out.push(timed(case)?);
        }
    }
    Ok(out)
}

/// The ladder harness's cases (see [`crate::sampler::run_ladder`]): per selected workload
/// whose baseline is selected, the baseline and the other variants, each verified.
///
/// # Errors
///
/// As [`timed_cases`].
pub fn ladder_rungs(selection: &[String]) -> Result<Vec<Rungs>, String> {
    let mut out = Vec::new();
    for group in catalog::walk(&parse(selection)?) {
        let group = group.map_err(|e| e.to_string())?;
        let baseline = group.variants.first().map(|v| v.name.clone());
        let mut by_workload: Vec<(String, Option<Timed>, Vec<Timed>)> = Vec::new();
        for case in group.cases {
            let workload = case.id.workload.clone();
            let is_baseline = Some(&case.id.variant) == baseline.as_ref();
            let t = timed(case).map(TimedCase::into_timed)?;
            if by_workload.last().is_none_or(|(w, _, _)| *w != workload) {
                by_workload.push((workload, None, Vec::new()));
            }
            let (_, base, others) = by_workload.last_mut().expect("pushed above");
            if is_baseline {
                *base = Some(t);
            } else {
                others.push(t);
            }
        }
        out.extend(by_workload.into_iter().filter_map(|(_, base, others)| {
            Some(Rungs {
                baseline: base?,
                others,
            })
        }));
    }
    Ok(out)
}

impl TimedCase {
    /// The same case as the sampler's type.
    pub fn into_timed(self) -> Timed {
        Timed {
            id: self.id,
            digest: self.digest,
            run: self.run,
        }
    }
}

fn parse(selection: &[String]) -> Result<Selection, String> {
    if selection.is_empty() {
        crate::selection_from_env()
    } else {
        Selection::parse(selection)
    }
}

/// Verifies `case` against its baseline and makes it a runner that discards its output.
fn timed(mut case: Case) -> Result<TimedCase, String> {
    let verified = case.verified()?;
    let digest = Output::of(&verified.output, verified.result, verified.copied).digest;
    let (mut runner, mut sink) = (case.runner, Sink::discard());
    Ok(TimedCase {
        id: case.id.to_string(),
        digest,
        run: Box::new(move || runner(&mut sink)),
    })
}
