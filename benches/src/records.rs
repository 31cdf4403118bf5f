//! What the harnesses measured, keyed by case id (`exp/workload/variant`), and the data file
//! of an experiment page (`reports/data/<exp>.json`) they are joined into.
//!
//! Each harness writes one raw file per experiment page under `target/wirelab/<metric>/`: a map
//! from case id to what it measured ([`Output`] from the verifying run, [`Wall`], instructions,
//! [`Alloc`]). [`gather`] joins them by case id; reports are rendered from the joined data
//! alone.

use crate::catalog::{CaseId, VariantInfo, WorkloadInfo};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// criterion's raw samples of one cell: sample `i` ran `iters[i]` iterations in `times_ns[i]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Samples {
    /// Iterations per sample.
    pub iters: Vec<f64>,
    /// Nanoseconds per sample (all its iterations).
    pub times_ns: Vec<f64>,
}

/// criterion's estimate of one cell: nanoseconds per run, and the samples it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Wall {
    /// Median.
    pub median_ns: f64,
    /// Lower bound of the median's 95 % confidence interval.
    pub lower_ns: f64,
    /// Upper bound of the median's 95 % confidence interval.
    pub upper_ns: f64,
    /// The raw samples.
    pub samples: Samples,
    /// How much slower than its fastest the machine ran just before and just after the
    /// measurement (the slower of each probe); absent in records from before the lab read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<crate::pace::Reading>,
}

/// Allocations of one cell, summed over `runs` steady-state runs (dhat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Alloc {
    /// Measured runs (after one warm-up run).
    pub runs: u64,
    /// Heap blocks allocated, all runs together.
    pub blocks: u64,
    /// Heap bytes allocated, all runs together.
    pub bytes: u64,
    /// Most bytes live at once during a run, above what was live before it. Not checked by
    /// `cargo lab check`: it varies between checkouts of the same commit.
    pub peak_bytes: u64,
}

/// What callgrind's cache simulation gives for one run of a case (the `cycles` metric):
/// deterministic for a given binary, like the instruction count, and a third signal where
/// instructions and wall time disagree. The simulated machine is callgrind's model of this
/// one's caches (L1 and last level; no prefetcher, no out-of-order execution).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CacheSim {
    /// L1 misses: instruction fetch (I1mr), data read (D1mr) and data write (D1mw).
    pub l1_misses: u64,
    /// Last-level misses: instruction fetch, data read and write (ILmr + DLmr + DLmw).
    pub ll_misses: u64,
    /// gungraun's estimate: Ir + D reads + D writes as L1 hits, plus 10 cycles per L1 miss
    /// that hits the last level and 100 per last-level miss.
    pub estimated_cycles: u64,
}

/// The dispatch point that stands for peers which pick an AVX-512 kernel themselves (simdutf):
/// whether the CPU shows AVX-512 to the process.
pub const AVX512_POINT: &str = "AVX-512 seen (peers' own detection)";

/// The kernel each CPU-dependent dispatch point picks natively and under valgrind
/// (`target/wirelab/kernels.json`, written by the instruction-count phase).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelChoices {
    /// Dispatch point -> kernel, in the lab's own process.
    pub native: BTreeMap<String, String>,
    /// The same under valgrind (which hides AVX-512 from CPUID).
    pub valgrind: BTreeMap<String, String>,
}

impl KernelChoices {
    /// The raw file.
    pub fn file() -> PathBuf {
        crate::paths::lab_dir().join("kernels.json")
    }

    /// The paths a variant running through `points` takes, where one of them differs under
    /// valgrind; `None` when they are all the same (the count measures the timed path).
    pub fn paths(&self, points: &[&str]) -> Option<Paths> {
        let pick = |m: &BTreeMap<String, String>| {
            points
                .iter()
                .map(|p| format!("{p}: {}", m.get(*p).map_or("?", String::as_str)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (native, counted) = (pick(&self.native), pick(&self.valgrind));
        (native != counted).then_some(Paths { native, counted })
    }
}

/// The kernels a case runs natively (timed) and under valgrind (counted), where they differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Paths {
    /// Natively: what the wall time measures.
    pub native: String,
    /// Under valgrind: what the instruction count measures.
    pub counted: String,
}

/// What the verifying run of a case produced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Output {
    /// Octets of output.
    pub len: u64,
    /// SHA-256 of the output, hex.
    pub digest: String,
    /// The runner's return value.
    pub result: u64,
    /// Bytes the variant copied between buffers in the run, where it counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copied: Option<u64>,
}

impl Output {
    /// The record of an output.
    pub fn of(output: &[u8], result: u64, copied: Option<u64>) -> Self {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(output);
        Self {
            len: output.len() as u64,
            digest: digest.iter().map(|b| format!("{b:02x}")).collect(),
            result,
            copied,
        }
    }
}

/// Everything measured of one case.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Record {
    /// The verifying run's output.
    pub output: Option<Output>,
    /// Wall time per run.
    pub wall: Option<Wall>,
    /// Instructions per run (callgrind `Ir`).
    pub instructions: Option<u64>,
    /// Allocations.
    pub alloc: Option<Alloc>,
    /// The cache simulation, when the run measured the `cycles` metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<CacheSim>,
    /// Where the instruction count measures another kernel than the wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Paths>,
    /// The speed-up over the page's baseline, timed in pairs with it under several link
    /// layouts (not for the baseline itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder: Option<LayoutSpeedup>,
}

/// A variant's speed-up over its page's baseline from `cargo lab bench`'s ladder phase: both
/// timed in pairs of batches in one process, under several link layouts (section orders).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LayoutSpeedup {
    /// Baseline time over variant time: the 20 % trimmed geometric mean over layouts of each
    /// layout's median pair ratio.
    pub value: f64,
    /// Lower bound of its 95 % interval (Yuen's, over layouts).
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Each layout's own speed-up, in layout order.
    pub layouts: Vec<f64>,
    /// Placements of the inputs within each layout's process, the pairs going round them (1 in
    /// records written before there were several; written only when more than 1).
    #[serde(default = "one_placement", skip_serializing_if = "is_one")]
    pub placements: usize,
}

fn one_placement() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl LayoutSpeedup {
    /// The lowest and highest of the layouts' own speed-ups.
    pub fn layout_range(&self) -> (f64, f64) {
        let lo = self.layouts.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self
            .layouts
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }

    /// Whether the link layout alone moves this speed-up by more than it differs from 1:
    /// then a report does not rank the variant against its baseline.
    pub fn within_layout_spread(&self) -> bool {
        let (lo, hi) = self.layout_range();
        self.layouts.len() > 1 && hi - lo > (self.value - 1.0).abs()
    }
}

/// The environment a measurement was taken in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Receipt {
    /// `git rev-parse HEAD`, with `-dirty` when the tree had uncommitted changes.
    pub commit: String,
    /// `rustc -vV`.
    pub rustc: String,
    /// CPU model name.
    pub cpu: String,
    /// Logical CPUs.
    pub cpus: usize,
    /// `valgrind --version`.
    pub valgrind: String,
    /// Versions of the workspace's direct dependencies and flate2's backends (from `cargo
    /// metadata`; several versions of one crate are listed together).
    pub crates: BTreeMap<String, String>,
    /// The command that produced the numbers.
    pub command: String,
    /// UTC time of the run.
    pub date: String,
    /// Whether wall times come from the quick (rough) settings.
    pub quick: bool,
    /// How long the run's phases took, all experiments together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durations_s: Option<Durations>,
}

/// Seconds each phase of a `cargo lab bench` run took (all experiments of the run together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Durations {
    /// Verification.
    pub verify: f64,
    /// Wall time (criterion), with its builds.
    pub wall: f64,
    /// The ladder over link layouts (part of the wall-time phase), with its links.
    #[serde(default)]
    pub ladder: f64,
    /// Instructions (gungraun), with its builds.
    pub instructions: f64,
    /// Allocations (dhat), with its builds.
    pub allocations: f64,
    /// The whole run, from start to the reports.
    pub total: f64,
}

/// The version of the JSON files the lab publishes (`reports/data/*.json`, compare's
/// `target/wirelab/compare/*.json`): raised when a field changes meaning or goes away; a
/// reader checks it before trusting the rest. 1 had no field (files before 2026-12-03); 2 adds
/// `cycles` and `paths` to a case's record and `why`, `cycles` and `other_path` to compare's
/// cases; 3 adds `ladder` to a case's record and `wall_method` and `wall.layouts` to compare's
/// output.
pub const SCHEMA_VERSION: u32 = 3;

fn schema_v1() -> u32 {
    1
}

/// `reports/data/<exp>.json`: one experiment page's cases and what was measured of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExperimentData {
    /// [`SCHEMA_VERSION`] when written (1 when absent: an older file).
    #[serde(default = "schema_v1")]
    pub schema_version: u32,
    /// Experiment page id.
    pub experiment: String,
    /// Where and how the numbers were taken.
    pub receipt: Receipt,
    /// The ladder, baseline first.
    pub variants: Vec<VariantInfo>,
    /// The workloads.
    pub workloads: Vec<WorkloadInfo>,
    /// One record per case, keyed by case id.
    pub cases: BTreeMap<CaseId, Record>,
}

impl ExperimentData {
    /// The record of a case of this page.
    pub fn record(&self, workload: &str, variant: &str) -> Option<&Record> {
        self.cases
            .get(&CaseId::new(&self.experiment, workload, variant))
    }

    /// The variant a ratio is relative to: the first of the ladder.
    pub fn baseline(&self) -> &str {
        self.variants.first().map_or("", |v| v.name.as_str())
    }

    /// The cases that lack a metric (wall time, instructions or allocations): a report is
    /// published only when there are none.
    pub fn incomplete(&self) -> Vec<&CaseId> {
        self.cases
            .iter()
            .filter(|(_, r)| r.wall.is_none() || r.instructions.is_none() || r.alloc.is_none())
            .map(|(id, _)| id)
            .collect()
    }
}

/// What a fresh verification of a page lacks against the page's committed data: the
/// workloads, variants and cases the committed report has and this run did not measure (one
/// line per kind, such as `workloads alice29, urls`; a case is named only when its workload and
/// variant both are there). Empty when the run covers everything committed: only then may it
/// replace the committed report.
pub fn lost(committed: &ExperimentData, fresh: &Verification) -> Vec<String> {
    let has_workload = |name: &str| fresh.workloads.iter().any(|w| w.name == name);
    let has_variant = |name: &str| fresh.variants.iter().any(|v| v.name == name);
    let workloads = committed.workloads.iter().map(|w| w.name.as_str());
    let variants = committed.variants.iter().map(|v| v.name.as_str());
    let cases = committed.cases.keys().filter(|id| {
        has_workload(&id.workload) && has_variant(&id.variant) && !fresh.outputs.contains_key(*id)
    });
    let kinds: [(&str, Vec<String>); 3] = [
        (
            "workloads",
            workloads
                .filter(|w| !has_workload(w))
                .map(str::to_owned)
                .collect(),
        ),
        (
            "variants",
            variants
                .filter(|v| !has_variant(v))
                .map(str::to_owned)
                .collect(),
        ),
        ("cases", cases.map(ToString::to_string).collect()),
    ];
    kinds
        .into_iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(kind, names)| format!("{kind} {}", names.join(", ")))
        .collect()
}

/// What the verifying run of one experiment page recorded: its ladder, its workloads and each
/// case's output. The list of cases a report has is this file's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Verification {
    /// The ladder.
    pub variants: Vec<VariantInfo>,
    /// The workloads.
    pub workloads: Vec<WorkloadInfo>,
    /// Each case's output, keyed by case id.
    pub outputs: BTreeMap<CaseId, Output>,
    /// How long each case's verifying run took, in milliseconds (output collected; a rough
    /// guide to what measuring it costs, used by `--quick`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub run_ms: BTreeMap<CaseId, f64>,
}

impl Verification {
    /// The cases a run counts instructions and allocations of: every verified case, or with
    /// `quick` those whose verifying run took at most [`QUICK_COUNT_LIMIT_MS`].
    pub fn counted(&self, quick: bool) -> Vec<CaseId> {
        self.outputs
            .keys()
            .filter(|id| {
                !quick
                    || self
                        .run_ms
                        .get(*id)
                        .is_none_or(|ms| *ms <= QUICK_COUNT_LIMIT_MS)
            })
            .cloned()
            .collect()
    }
}

/// With `--quick`, cases whose one run takes longer than this (in milliseconds) are not counted
/// under valgrind and dhat, where they cost the most: a full run or `cargo lab check` counts
/// them.
pub const QUICK_COUNT_LIMIT_MS: f64 = 20.0;

/// The raw result files, one per metric and experiment page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// [`Verification`].
    Verify,
    /// Case id -> [`Wall`].
    Wall,
    /// Case id -> instructions.
    Instructions,
    /// Case id -> [`Alloc`].
    Alloc,
    /// Case id -> [`CacheSim`] (only when a run asks for the `cycles` metric).
    Cycles,
    /// Case id -> [`LayoutSpeedup`] (the wall-time phase's ladder).
    Ladder,
}

impl Metric {
    /// Every metric, in the order a run measures them.
    pub const ALL: [Metric; 6] = [
        Metric::Verify,
        Metric::Wall,
        Metric::Ladder,
        Metric::Instructions,
        Metric::Alloc,
        Metric::Cycles,
    ];

    /// The raw file of `exp` (`target/wirelab/<metric>/<exp>.json`).
    pub fn file(self, exp: &str) -> PathBuf {
        crate::paths::lab_dir().join(self.file_name(exp))
    }

    /// The raw file of `exp` relative to the lab's folder (`<metric>/<exp>.json`).
    pub fn file_name(self, exp: &str) -> PathBuf {
        Path::new(self.dir()).join(format!("{exp}.json"))
    }

    /// The folder of this metric's files, relative to the lab's folder.
    pub fn dir(self) -> &'static str {
        match self {
            Metric::Verify => "verify",
            Metric::Wall => "wall",
            Metric::Instructions => "icount",
            Metric::Alloc => "alloc",
            Metric::Cycles => "cycles",
            Metric::Ladder => "ladder",
        }
    }
}

/// Writes `value` as pretty JSON into `path`, atomically (a file beside it, then a rename).
///
/// # Errors
///
/// On an I/O error, naming the file.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())? + "\n";
    write_atomically(path, text.as_bytes())
}

/// Replaces `path` with `bytes` atomically.
///
/// # Errors
///
/// On an I/O error, naming the file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    tmp.write_all(bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

/// Reads a JSON file.
///
/// # Errors
///
/// Names the file and what is wrong with it.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a JSON file that may be absent (`None` then).
///
/// # Errors
///
/// When the file exists but cannot be read or parsed, naming it.
pub fn read_json_if_present<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, String> {
    if path.exists() {
        read_json(path).map(Some)
    } else {
        Ok(None)
    }
}

/// Joins the raw results of one experiment page by case id. A metric that was not measured
/// (no raw file, or a case left out of it, as `--quick` and `--reuse-wall` do) stays `None`:
/// [`ExperimentData::incomplete`] names such cases before a report is published.
///
/// # Errors
///
/// When the verification is missing, or a raw file cannot be read.
pub fn gather(exp: &str, receipt: &Receipt) -> Result<ExperimentData, String> {
    let verify: Verification = read_json(&Metric::Verify.file(exp))?;
    let mut wall: BTreeMap<CaseId, Wall> =
        read_json_if_present(&Metric::Wall.file(exp))?.unwrap_or_default();
    let mut icount: BTreeMap<CaseId, u64> =
        read_json_if_present(&Metric::Instructions.file(exp))?.unwrap_or_default();
    let mut alloc: BTreeMap<CaseId, Alloc> =
        read_json_if_present(&Metric::Alloc.file(exp))?.unwrap_or_default();
    let mut cycles: BTreeMap<CaseId, CacheSim> =
        read_json_if_present(&Metric::Cycles.file(exp))?.unwrap_or_default();
    let mut ladder: BTreeMap<CaseId, LayoutSpeedup> =
        read_json_if_present(&Metric::Ladder.file(exp))?.unwrap_or_default();
    let kernels: Option<KernelChoices> = read_json_if_present(&KernelChoices::file())?;
    let dispatch = crate::experiments::page(exp).map_or(&[][..], |e| e.meta().dispatch);
    let paths = |id: &CaseId| {
        let (_, points) = dispatch.iter().find(|(v, _)| *v == id.variant)?;
        kernels.as_ref()?.paths(points)
    };
    let mut cases = BTreeMap::new();
    for (id, output) in verify.outputs {
        let record = Record {
            paths: paths(&id),
            wall: wall.remove(&id),
            instructions: icount.remove(&id),
            alloc: alloc.remove(&id),
            cycles: cycles.remove(&id),
            ladder: ladder.remove(&id),
            output: Some(output),
        };
        cases.insert(id, record);
    }
    Ok(ExperimentData {
        schema_version: SCHEMA_VERSION,
        experiment: exp.to_owned(),
        receipt: receipt.clone(),
        variants: verify.variants,
        workloads: verify.workloads,
        cases,
    })
}
