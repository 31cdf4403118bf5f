//! The typed experiment catalog: one definition of every workload and variant, and the one walk
//! ([`walk`]) that every harness, `cargo lab verify`, `list`, `check` and `profile` iterate.
//!
//! An experiment is a [`Ladder`] over an input type `I`: variants (baseline, steps, optimized,
//! peers, limit), each with its own constructor `fn(&I) -> Option<Runner>`, and a loader that
//! builds the workloads (each a named `I`) deterministically. A [`Runner`] performs the measured
//! operation once and emits the bytes it produced into a [`Sink`]; in a measurement the sink
//! discards them, in a verification it collects them, so the code that is timed is the code
//! that was checked.
//!
//! An experiment whose codecs inflate through flate2 can be measured with each of flate2's
//! backends ([`Backend`]); each backend is a page of its own (`gzip`, `gzip-zlib-rs`), measured
//! in a build with that backend.

use crate::data::LoadError;
use crate::records::Output;
use crate::selection::Selection;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

pub use crate::sink::{Check, Sink, compare};

/// The rung of the ladder a variant stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The deliberately naive twin; ratios are relative to the first baseline of the ladder.
    Baseline,
    /// An intermediate step of the original change.
    Step,
    /// The optimized code in `wirelab`.
    Optimized,
    /// Another crate doing the same job.
    Peer,
    /// The physical floor (for example a plain memcpy of the same bytes).
    Limit,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Baseline => "baseline",
            Role::Step => "step",
            Role::Optimized => "optimized",
            Role::Peer => "peer",
            Role::Limit => "limit",
        })
    }
}

/// Performs a variant's operation once on its workload. Returns a value for the harness to pass
/// through `black_box` (a length, a count); experiments with a [`Meta::result`] report it.
pub type Runner = Box<dyn FnMut(&mut Sink) -> u64>;

/// Maps an output to a canonical form, for peers that may choose another valid encoding (for
/// HPACK, the decoded header lists). The naive and optimized variants must still match byte
/// for byte.
pub type Canonicalize = fn(&[u8]) -> Vec<u8>;

/// One variant of an experiment whose workloads carry inputs of type `I`.
pub struct Variant<I: 'static> {
    /// Short name, `[a-z0-9-]`, used in case ids, file names and table headers.
    pub name: &'static str,
    /// Its rung.
    pub role: Role,
    /// One line: what it is.
    pub about: &'static str,
    /// Builds the runner on a workload's input; `None` where the variant cannot do this
    /// workload (reported as "n/a").
    pub build: fn(&I) -> Option<Runner>,
}

impl<I> Variant<I> {
    /// The variant's description, without its constructor.
    pub fn info(&self) -> VariantInfo {
        VariantInfo {
            name: self.name.to_owned(),
            role: self.role,
            about: self.about.to_owned(),
        }
    }
}

/// What is recorded of a variant.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VariantInfo {
    /// Name.
    pub name: String,
    /// Rung.
    pub role: Role,
    /// What it is.
    pub about: String,
}

/// One workload: a named input, built once.
pub struct Workload<I> {
    /// What is recorded of it.
    pub info: WorkloadInfo,
    /// The input the variants' constructors take.
    pub input: I,
}

impl<I> Workload<I> {
    /// Defines a workload.
    pub fn new(
        name: impl Into<String>,
        about: impl Into<String>,
        bytes: u64,
        ops: u64,
        input: I,
    ) -> Self {
        Self {
            info: WorkloadInfo {
                name: name.into(),
                about: about.into(),
                bytes,
                ops,
            },
            input,
        }
    }
}

/// What is recorded of a workload.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WorkloadInfo {
    /// Short name, `[a-z0-9-]`.
    pub name: String,
    /// One line: what the workload is.
    pub about: String,
    /// Bytes of input one run processes (criterion's throughput).
    pub bytes: u64,
    /// Operations (frames, blocks, calls) in one run: allocation reports are per operation.
    pub ops: u64,
}

/// A figure the original change published, shown beside ours.
#[derive(Clone, Copy, Debug)]
pub struct Original {
    /// The workload of ours it corresponds to.
    pub workload: &'static str,
    /// The figures as published (for example "21.97 / 16.00 / 8.36 ns").
    pub figures: &'static str,
    /// The ratio baseline / optimized the original implies, where it is a time ratio.
    pub ratio: Option<f64>,
}

/// flate2's backend, chosen at compile time for a whole build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// miniz_oxide, flate2's default.
    MinizOxide,
    /// zlib-rs (the `zlib-rs` feature of `wirelab-bench`).
    ZlibRs,
}

impl Backend {
    /// The backend this build of the lab was made with.
    pub const BUILT: Backend = if cfg!(feature = "zlib-rs") {
        Backend::ZlibRs
    } else {
        Backend::MinizOxide
    };

    /// The `wirelab-bench` feature that selects it (`None`: the default build).
    pub fn feature(self) -> Option<&'static str> {
        match self {
            Backend::MinizOxide => None,
            Backend::ZlibRs => Some("zlib-rs"),
        }
    }

    /// The cargo arguments of a build with this backend.
    pub fn cargo_args(self) -> Vec<String> {
        self.feature()
            .map(|f| vec!["--features".to_owned(), format!("wirelab-bench/{f}")])
            .unwrap_or_default()
    }

    /// What the backend adds to an experiment id (`""` for the default).
    pub fn suffix(self) -> &'static str {
        match self {
            Backend::MinizOxide => "",
            Backend::ZlibRs => "-zlib-rs",
        }
    }
}

/// Everything about an experiment except its typed variants and workloads.
#[derive(Debug)]
pub struct Meta {
    /// Identifier, `[a-z0-9-]`: the report file name and the criterion group.
    pub id: &'static str,
    /// Title for the report.
    pub title: &'static str,
    /// The original change it re-creates.
    pub origin: &'static str,
    /// Where the Motivation / Change / Result note lives.
    pub docs: &'static str,
    /// The original's published figures.
    pub originals: &'static [Original],
    /// Free text for the report: targets, caveats.
    pub notes: &'static str,
    /// Allocation figures are also shown per this many operations (write-to: per 1,000 frames).
    pub alloc_per: u64,
    /// The workload of the README's headline table.
    pub headline: &'static str,
    /// When set, what a run's return value means; the report shows it per cell (for
    /// `hpack-encode`, the octets of header blocks produced).
    pub result: Option<&'static str>,
    /// The workloads are one input at growing sizes, in order: the report adds a table of each
    /// variant's instructions per input octet and its growth from one size to the next.
    pub sweep: bool,
    /// Where a dimension of the workloads is a size: the report adds, per entry, a log-log
    /// chart of time per input byte against it, a line per variant.
    pub scaling: &'static [Scaling],
    /// The flate2 backends it is measured with, one page each (most experiments: the default).
    pub backends: &'static [Backend],
    /// What the page of a non-default backend says before [`Meta::notes`].
    pub backend_notes: &'static [(Backend, &'static str)],
    /// Lets peers pass verification with a different but equivalent output.
    pub equivalence: Option<Canonicalize>,
    /// The CPU-dependent dispatch points each variant runs through (`(variant, points)`, the
    /// names [`wirelab::kernels`] and the lab give them): where a point picks another kernel
    /// under valgrind than natively, the variant's instruction counts measure another path
    /// than its wall time, and the reports mark them.
    pub dispatch: &'static [(&'static str, &'static [&'static str])],
    /// Cells whose instruction counts vary from run to run of the same binary: `(variant,
    /// why)`. `cargo lab check` allows them [`UNSEEDED_TOLERANCE`] and the reports say so.
    pub unseeded: &'static [(&'static str, &'static str)],
}

/// The defaults of the optional [`Meta`] fields, for `..Meta::DEFAULT`.
impl Meta {
    /// An empty description; every experiment sets at least id, title, origin, docs, notes and
    /// headline.
    pub const DEFAULT: Meta = Meta {
        id: "",
        title: "",
        origin: "",
        docs: "",
        originals: &[],
        notes: "",
        alloc_per: 1,
        headline: "",
        result: None,
        sweep: false,
        scaling: &[],
        backends: &[Backend::MinizOxide],
        backend_notes: &[],
        equivalence: None,
        dispatch: &[],
        unseeded: &[],
    };
}

/// A size dimension of an experiment's workloads.
#[derive(Debug)]
pub struct Scaling {
    /// What the chart's file name adds (`plots/<exp>-scaling-<name>.svg`).
    pub name: &'static str,
    /// What the size is (the chart's x axis).
    pub axis: &'static str,
    /// The workloads on the axis, with their sizes.
    pub sizes: &'static [(&'static str, f64)],
}

/// The relative drift `cargo lab check` allows for the cells in [`Meta::unseeded`] (loona-hpack
/// drifted by 1.35 % between two processes on 2026-12-02, past the 1 % allowed before).
pub const UNSEEDED_TOLERANCE: f64 = 0.03;

/// An experiment's typed definition: the ladder over its input type and its workloads.
pub struct Ladder<I: 'static> {
    /// Everything else.
    pub meta: Meta,
    /// The ladder, baseline first.
    pub variants: &'static [Variant<I>],
    /// Builds the workloads (deterministically); fails on a missing or malformed data file.
    pub workloads: fn() -> Result<Vec<Workload<I>>, LoadError>,
}

/// A [`Ladder`] with its input type erased, so that [`ALL`](crate::experiments::ALL) can list
/// experiments of different input types.
pub trait Definition: Sync {
    /// The description.
    fn meta(&self) -> &Meta;
    /// The variants, baseline first.
    fn variants(&self) -> Vec<VariantInfo>;
    /// Loads the workloads and builds the cases `pick` selects (by workload and variant name),
    /// with the baseline's output on each selected workload when `baseline` is set.
    ///
    /// # Errors
    ///
    /// When a data file is missing or malformed.
    fn load(&self, pick: &dyn Fn(&str, &str) -> bool, baseline: bool) -> Result<Loaded, LoadError>;
}

/// What [`Definition::load`] built: every workload, and the selected cases.
pub struct Loaded {
    /// Every workload of the experiment, selected or not.
    pub workloads: Vec<WorkloadInfo>,
    /// The selected applicable cases, in catalog order (workload, then variant).
    pub cases: Vec<LoadedCase>,
}

/// One case as a definition builds it, before it is named for an experiment page.
pub struct LoadedCase {
    /// Its workload.
    pub workload: Rc<WorkloadInfo>,
    /// Its variant.
    pub variant: VariantInfo,
    /// Its runner.
    pub runner: Runner,
    /// The baseline's output on this workload (empty when loaded without the baseline).
    pub expected: Rc<[u8]>,
}

impl<I: 'static> Definition for Ladder<I> {
    fn meta(&self) -> &Meta {
        &self.meta
    }

    fn variants(&self) -> Vec<VariantInfo> {
        self.variants.iter().map(Variant::info).collect()
    }

    fn load(&self, pick: &dyn Fn(&str, &str) -> bool, baseline: bool) -> Result<Loaded, LoadError> {
        let workloads = (self.workloads)()?;
        let mut cases = Vec::new();
        for w in &workloads {
            let chosen: Vec<&Variant<I>> = self
                .variants
                .iter()
                .filter(|v| pick(&w.info.name, v.name))
                .collect();
            if chosen.is_empty() {
                continue;
            }
            let expected = if baseline {
                self.baseline_output(w)
            } else {
                Rc::from(&[][..])
            };
            let info = Rc::new(w.info.clone());
            for v in chosen {
                if let Some(runner) = (v.build)(&w.input) {
                    cases.push(LoadedCase {
                        workload: info.clone(),
                        variant: v.info(),
                        runner,
                        expected: expected.clone(),
                    });
                }
            }
        }
        Ok(Loaded {
            workloads: workloads.into_iter().map(|w| w.info).collect(),
            cases,
        })
    }
}

impl<I: 'static> Ladder<I> {
    /// The baseline's output on `w` and how long producing it took.
    ///
    /// # Panics
    ///
    /// When the baseline does not apply to the workload (a catalog bug, caught by the tests).
    fn baseline_output(&self, w: &Workload<I>) -> Rc<[u8]> {
        let base = &self.variants[0];
        let mut runner = (base.build)(&w.input).unwrap_or_else(|| {
            panic!(
                "catalog bug: the baseline of {} must run on {}",
                self.meta.id, w.info.name
            )
        });
        let mut sink = Sink::collect();
        runner(&mut sink);
        sink.into_bytes().into()
    }
}

/// One page of the catalog: an experiment measured with one flate2 backend.
#[derive(Clone, Copy)]
pub struct Experiment {
    /// The definition.
    pub def: &'static dyn Definition,
    /// The backend its builds use.
    pub backend: Backend,
}

impl fmt::Debug for Experiment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

impl Experiment {
    /// The page's id: the definition's id and the backend's suffix (`gzip-zlib-rs`).
    pub fn id(&self) -> String {
        format!("{}{}", self.def.meta().id, self.backend.suffix())
    }

    /// The description.
    pub fn meta(&self) -> &'static Meta {
        self.def.meta()
    }

    /// The page's title (the backend named where it is not the default).
    pub fn title(&self) -> String {
        match self.backend {
            Backend::MinizOxide => self.meta().title.to_owned(),
            Backend::ZlibRs => format!("{}, zlib-rs backend", self.meta().title),
        }
    }

    /// The page's notes: the backend's own, then the experiment's.
    pub fn notes(&self) -> String {
        let meta = self.meta();
        match meta.backend_notes.iter().find(|(b, _)| *b == self.backend) {
            Some((_, extra)) => format!("{extra}\n\n{}", meta.notes),
            None => meta.notes.to_owned(),
        }
    }

    /// Whether this build of the lab measures it (its backend is the one built in).
    pub fn built_here(&self) -> bool {
        self.backend == Backend::BUILT
    }
}

/// Every page of the catalog, in report order.
pub fn experiments() -> Vec<Experiment> {
    crate::experiments::ALL
        .iter()
        .flat_map(|def| {
            def.meta()
                .backends
                .iter()
                .map(|&backend| Experiment { def: *def, backend })
        })
        .collect()
}

/// Looks a page up by id.
pub fn experiment(id: &str) -> Option<Experiment> {
    experiments().into_iter().find(|e| e.id() == id)
}

/// One measurable cell of the catalog.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CaseId {
    /// Experiment (page) id.
    pub exp: String,
    /// Workload name.
    pub workload: String,
    /// Variant name.
    pub variant: String,
}

impl fmt::Display for CaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.exp, self.workload, self.variant)
    }
}

impl std::str::FromStr for CaseId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut parts = s.split('/');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(e), Some(w), Some(v), None)
                if !e.is_empty() && !w.is_empty() && !v.is_empty() =>
            {
                Ok(CaseId {
                    exp: e.to_owned(),
                    workload: w.to_owned(),
                    variant: v.to_owned(),
                })
            }
            _ => Err(format!("`{s}` is not a case id (EXP/WORKLOAD/VARIANT)")),
        }
    }
}

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

/// The one walk over the catalog: for every experiment page of `sel`, in catalog order, its
/// selected cases (case id, runner, expected output: the baseline's). Pages are loaded one at a
/// time, as the iterator is advanced, so only one page's inputs are in memory at once.
///
/// Every page must be measured by this build (its backend is the one built in); a selection
/// that names a workload the page does not have is an error that lists the ones it has.
pub fn walk(sel: &Selection) -> impl Iterator<Item = Result<Group, WalkError>> + '_ {
    sel.experiments()
        .into_iter()
        .map(move |exp| load_group(sel, exp, None))
}

/// The same walk, with each case expected to reproduce the output digest `digests` holds for
/// its id (recorded when the case was verified against the baseline earlier in the run), so
/// that the baseline is not run again: the instruction-count harness uses it, where every
/// setup instruction is emulated.
pub fn walk_verified<'a>(
    sel: &'a Selection,
    digests: &'a BTreeMap<String, String>,
) -> impl Iterator<Item = Result<Group, WalkError>> + 'a {
    sel.experiments()
        .into_iter()
        .map(move |exp| load_group(sel, exp, Some(digests)))
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
