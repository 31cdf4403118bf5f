//! The catalog's model: what an experiment is (a [`Ladder`] of variants over workloads, its
//! [`Meta`], the [`Backend`] of each page) and what is recorded of it. Types only: this module
//! imports nothing from the lab but the [`Sink`] a runner writes into, so a test can define a
//! made-up experiment with it and hand it to the walk.
//!
//! An experiment is a [`Ladder`] over an input type `I`: variants (baseline, steps, optimized,
//! peers, limit), each with its own constructor `fn(&I) -> Option<Runner>` (most built with
//! [`on_copy`]), and a loader that builds the workloads (each a named `I`) deterministically. A [`Runner`] performs the measured
//! operation once and emits the bytes it produced into a [`Sink`]; in a measurement the sink
//! discards them, in a verification it collects them, so the code that is timed is the code
//! that was checked.
//!
//! An experiment whose codecs inflate through flate2 can be measured with each of flate2's
//! backends ([`Backend`]); each backend is a page of its own (`gzip`, `gzip-zlib-rs`), measured
//! in a build with that backend.

use crate::sink::Sink;
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The rung of the ladder a variant stands on.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
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

/// A runner over its own copy of the workload's input: `run(input, sink)` performs the
/// operation once. The copy is a clone (for the lab's inputs, reference counts), made here, once
/// per runner; whatever else the runner keeps (an output buffer, a decoder) `run` captures.
///
/// ```
/// use wirelab_bench::catalog::{Runner, Sink, on_copy};
///
/// fn length(text: &String) -> Option<Runner> {
///     on_copy(text, |text, sink| {
///         sink.emit(text.as_bytes());
///         text.len() as u64
///     })
/// }
/// let mut run = length(&"eight ch".to_owned()).expect("a runner");
/// assert_eq!(run(&mut Sink::discard()), 8);
/// ```
pub fn on_copy<I: Clone + 'static>(
    input: &I,
    mut run: impl FnMut(&I, &mut Sink) -> u64 + 'static,
) -> Option<Runner> {
    let input = input.clone();
    Some(Box::new(move |sink| run(&input, sink)))
}

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
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
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
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
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

    /// Whether `variant`'s instruction counts vary from run to run ([`Meta::unseeded`]).
    pub fn is_unseeded(&self, variant: &str) -> bool {
        self.unseeded.iter().any(|(v, _)| *v == variant)
    }
}

/// Whether `case`'s instruction count varies from run to run (see [`Meta::unseeded`]); false
/// for a case of no page of this catalog.
pub fn is_unseeded(case: &CaseId) -> bool {
    crate::experiments::page(&case.exp).is_some_and(|e| e.meta().is_unseeded(&case.variant))
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

/// One measurable cell of the catalog. It reads and writes (and sorts) as its text,
/// `exp/workload/variant`, so maps keyed by it keep the order of the files they come from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

impl CaseId {
    /// The id of `variant` on `workload` of page `exp`.
    pub fn new(exp: &str, workload: &str, variant: &str) -> Self {
        Self {
            exp: exp.to_owned(),
            workload: workload.to_owned(),
            variant: variant.to_owned(),
        }
    }

    /// The octets of its text, without building it.
    fn text(&self) -> impl Iterator<Item = u8> + '_ {
        let slash = std::iter::once(b'/');
        self.exp
            .bytes()
            .chain(slash.clone())
            .chain(self.workload.bytes())
            .chain(slash)
            .chain(self.variant.bytes())
    }
}

impl Ord for CaseId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text().cmp(other.text())
    }
}

impl PartialOrd for CaseId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl serde::Serialize for CaseId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for CaseId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for CaseId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CaseId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A case id: `experiment/workload/variant`.",
            "type": "string",
            "pattern": "^[^/]+/[^/]+/[^/]+$"
        })
    }
}

/// A data file (or folder) that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file or folder.
    pub path: PathBuf,
    /// What is wrong with it.
    pub what: String,
}

impl LoadError {
    /// An error about `path`.
    pub fn new(path: &Path, what: impl fmt::Display) -> Self {
        Self {
            path: path.to_path_buf(),
            what: what.to_string(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.what)
    }
}

impl std::error::Error for LoadError {}
