//! The one walk over the catalog ([`walk`]) that every harness, `cargo lab verify`, `list`,
//! `check` and `profile` iterate: for each selected page, its cases, each with its id, its
//! runner and the output it must produce.

use super::model::{
    Backend, Canonicalize, CaseId, Experiment, LoadError, Role, Runner, VariantInfo, WorkloadInfo,
};
use crate::records::Output;
use crate::selection::Selection;
use crate::sink::{Check, Sink, compare};
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// A case ready to verify and measure: its id, its runner and the output it must produce.
pub struct Case {
    /// Its id.
    pub id: CaseId,
    /// The variant's rung.
    pub role: Role,
    /// Its workload.
    pub workload: Rc<WorkloadInfo>,
    /// Its runner.
    pub runner: Runner,
    /// The output it must produce.
    pub expected: Expected,
    equivalence: Option<Canonicalize>,
}

/// What a case's output is checked against.
#[derive(Clone, Debug)]
pub enum Expected {
    /// The baseline's output on the workload (byte for byte, or in canonical form for a peer).
    Baseline(Rc<[u8]>),
    /// The SHA-256 digest of this case's own output when it was verified against the baseline
    /// earlier in the run: the measuring process then need not run the baseline again.
    Digest(String),
}

/// What one verifying run of a case gave.
#[derive(Clone, Debug)]
pub struct Verified {
    /// Its output against the baseline's.
    pub check: Check,
    /// The output it produced.
    pub output: Vec<u8>,
    /// The runner's return value.
    pub result: u64,
    /// The bytes it copied between buffers, where it counts them.
    pub copied: Option<u64>,
}

impl Case {
    /// Runs the case once with a collecting sink and checks its output against the baseline's:
    /// byte for byte, or, for a peer of an experiment with an equivalence, in canonical form.
    /// The run is also the warm-up: a measured run is never the first.
    pub fn verify(&mut self) -> Verified {
        let mut sink = Sink::collect();
        let result = (self.runner)(&mut sink);
        let copied = sink.copied();
        let output = sink.into_bytes();
        let check = match &self.expected {
            Expected::Baseline(expected) => self.against(&output, expected),
            Expected::Digest(digest) => {
                if Output::of(&output, result, copied).digest == *digest {
                    Check::Pass
                } else {
                    Check::Changed
                }
            }
        };
        Verified {
            check,
            output,
            result,
            copied,
        }
    }

    /// Checks `output` against the baseline's `expected`: byte for byte, or, for a peer of an
    /// experiment with an equivalence, in canonical form.
    fn against(&self, output: &[u8], expected: &[u8]) -> Check {
        match (compare(output, expected), self.equivalence) {
            (Check::Mismatch { .. }, Some(canon)) if self.role == Role::Peer => {
                match compare(&canon(output), &canon(expected)) {
                    Check::Pass => Check::Equivalent,
                    other => other,
                }
            }
            (other, _) => other,
        }
    }

    /// Verifies the case and fails unless its output is right: harnesses measure only what
    /// this returns `Ok` for.
    ///
    /// # Errors
    ///
    /// Names the case and the mismatch.
    pub fn verified(&mut self) -> Result<Verified, String> {
        let v = self.verify();
        match v.check {
            Check::Pass | Check::Equivalent => Ok(v),
            ref other => Err(format!(
                "{}: {other}; refusing to measure a variant whose output differs",
                self.id
            )),
        }
    }
}

/// The cases of one experiment page, as [`walk`] yields them.
pub struct Group {
    /// The page.
    pub exp: Experiment,
    /// Its variants, baseline first.
    pub variants: Vec<VariantInfo>,
    /// Every workload of the page (selected or not).
    pub workloads: Vec<WorkloadInfo>,
    /// The selected applicable cases, in catalog order.
    pub cases: Vec<Case>,
}

/// Why a walk stopped.
#[derive(Debug)]
pub enum WalkError {
    /// A data file is missing or malformed.
    Load(LoadError),
    /// The selection names something the catalog does not have, or a page another build
    /// measures.
    Selection(String),
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::Load(e) => e.fmt(f),
            WalkError::Selection(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for WalkError {}

/// The one walk over the catalog: for every page of the registry that `sel` selects, in
/// catalog order, its selected cases (case id, runner, expected output: the baseline's). Pages
/// are loaded one at a time, as the iterator is advanced, so only one page's inputs are in
/// memory at once.
///
/// Every page must be measured by this build (its backend is the one built in); a selection
/// that names a workload the page does not have is an error that lists the ones it has.
pub fn walk(sel: &Selection) -> impl Iterator<Item = Result<Group, WalkError>> + '_ {
    walk_pages(sel.experiments(), sel, None)
}

/// The same walk, with each case expected to reproduce the output digest `digests` holds for
/// its id (recorded when the case was verified against the baseline earlier in the run), so
/// that the baseline is not run again: the instruction-count harness uses it, where every
/// setup instruction is emulated.
pub fn walk_verified<'a>(
    sel: &'a Selection,
    digests: &'a BTreeMap<String, String>,
) -> impl Iterator<Item = Result<Group, WalkError>> + 'a {
    walk_pages(sel.experiments(), sel, Some(digests))
}

/// The walk over the given `pages` (the registry's, or a made-up catalog in a test), with the
/// cases `sel` wants: against the baseline's output, or with `digests` against recorded ones.
pub fn walk_pages<'a>(
    pages: Vec<Experiment>,
    sel: &'a Selection,
    digests: Option<&'a BTreeMap<String, String>>,
) -> impl Iterator<Item = Result<Group, WalkError>> + 'a {
    pages
        .into_iter()
        .map(move |exp| load_group(sel, exp, digests))
}

fn load_group(
    sel: &Selection,
    exp: Experiment,
    digests: Option<&BTreeMap<String, String>>,
) -> Result<Group, WalkError> {
    let id = exp.id();
    if !exp.built_here() {
        return Err(WalkError::Selection(format!(
            "{id} is measured by a build with `{}` (this build: {:?}); `cargo lab` builds it so",
            exp.backend.cargo_args().join(" "),
            Backend::BUILT
        )));
    }
    let loaded = exp
        .def
        .load(&|w, v| sel.wants(&id, w, v), digests.is_none())
        .map_err(WalkError::Load)?;
    let names: Vec<&str> = loaded.workloads.iter().map(|w| w.name.as_str()).collect();
    sel.check_workloads(&id, &names)
        .map_err(WalkError::Selection)?;
    let variants = exp.def.variants();
    let equivalence = exp.meta().equivalence;
    let mut cases = Vec::new();
    for c in loaded.cases {
        let case_id = CaseId {
            exp: id.clone(),
            workload: c.workload.name.clone(),
            variant: c.variant.name.clone(),
        };
        let expected = match digests {
            None => Expected::Baseline(c.expected),
            Some(d) => Expected::Digest(d.get(&case_id.to_string()).cloned().ok_or_else(|| {
                WalkError::Selection(format!("{case_id}: no verified output digest"))
            })?),
        };
        cases.push(Case {
            id: case_id,
            role: c.variant.role,
            workload: c.workload,
            runner: c.runner,
            expected,
            equivalence,
        });
    }
    Ok(Group {
        exp,
        variants,
        workloads: loaded.workloads,
        cases,
    })
}
