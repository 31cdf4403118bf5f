//! Raw results of the three harnesses, and the per-experiment data file
//! (`reports/data/<experiment>.json`) they are gathered into.

use crate::catalog::{CaseId, Experiment, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Criterion's estimate of one cell: nanoseconds per run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wall {
    /// Median.
    pub median_ns: f64,
    /// Lower bound of the median's 95 % confidence interval.
    pub lower_ns: f64,
    /// Upper bound of the median's 95 % confidence interval.
    pub upper_ns: f64,
}

/// Allocations of one cell, summed over `runs` steady-state runs (dhat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alloc {
    /// Measured runs (after one warm-up run).
    pub runs: u64,
    /// Heap blocks allocated, all runs together.
    pub blocks: u64,
    /// Heap bytes allocated, all runs together.
    pub bytes: u64,
    /// Most bytes live at once during the runs, above what was live before them.
    pub peak_bytes: u64,
}

/// One cell of an experiment: a variant on a workload, with whatever was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Workload name.
    pub workload: String,
    /// Variant name.
    pub variant: String,
    /// The variant's rung.
    pub role: Role,
    /// Wall time per run.
    pub wall: Option<Wall>,
    /// Instructions per run (callgrind `Ir`).
    pub instructions: Option<u64>,
    /// Allocations.
    pub alloc: Option<Alloc>,
    /// A run's return value, for experiments that report it (see `Experiment::result`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<u64>,
    /// Bytes the variant copied between buffers in one run, where it counts them (see
    /// `Sink::note_copied`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copied: Option<u64>,
}

/// Description of a workload as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadInfo {
    /// Name.
    pub name: String,
    /// What it is.
    pub about: String,
    /// Input bytes per run.
    pub bytes: u64,
    /// Operations per run.
    pub ops: u64,
}

/// The environment a measurement was taken in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// Versions of the crates that matter (from Cargo.lock).
    pub crates: BTreeMap<String, String>,
    /// The command that produced the numbers.
    pub command: String,
    /// UTC time of the run.
    pub date: String,
    /// Whether wall times come from the quick (rough) settings.
    pub quick: bool,
}

/// `reports/data/<experiment>.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentData {
    /// Experiment id.
    pub experiment: String,
    /// Where and how the numbers were taken.
    pub receipt: Receipt,
    /// The workloads.
    pub workloads: Vec<WorkloadInfo>,
    /// One row per applicable cell, in catalog order.
    pub rows: Vec<Row>,
}

impl ExperimentData {
    /// The row of a cell.
    pub fn row(&self, workload: &str, variant: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.workload == workload && r.variant == variant)
    }
}

/// The workspace root (the parent of the `benches` package): from `CARGO_MANIFEST_DIR`, which
/// cargo sets for the programs it runs, else the nearest folder above the current one that holds
/// `benches/Cargo.toml`, else the current folder.
///
/// Read at run time on purpose: a path compiled into the binary would make its layout, and so
/// the instruction counts of the harness, depend on the folder of the checkout.
pub fn workspace_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        let dir = PathBuf::from(dir);
        if let Some(root) = dir.parent().filter(|_| dir.ends_with("benches")) {
            return root.to_path_buf();
        }
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    cwd.ancestors()
        .find(|d| d.join("benches").join("Cargo.toml").is_file())
        .map_or_else(|| cwd.clone(), Path::to_path_buf)
}

/// The cargo target directory.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// Where the lab keeps its own raw results.
pub fn lab_dir() -> PathBuf {
    target_dir().join("wirelab")
}

/// Criterion's estimates file of a cell.
pub fn criterion_estimates(id: &CaseId) -> PathBuf {
    target_dir()
        .join("criterion")
        .join(&id.exp)
        .join(&id.variant)
        .join(&id.workload)
        .join("new")
        .join("estimates.json")
}

/// Reads criterion's median and its confidence interval for a cell.
pub fn read_wall(id: &CaseId) -> Option<Wall> {
    let text = std::fs::read_to_string(criterion_estimates(id)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let m = &v["median"];
    Some(Wall {
        median_ns: m["point_estimate"].as_f64()?,
        lower_ns: m["confidence_interval"]["lower_bound"].as_f64()?,
        upper_ns: m["confidence_interval"]["upper_bound"].as_f64()?,
    })
}

/// The target folder the instruction-count harness is built in: a fixed absolute path, the
/// same on every machine and for every checkout. The benchmark binary's path is part of the
/// process (argv\[0\]); with it, the heap layout, and so malloc's and memcpy's instruction
/// counts, would depend on where the repository was cloned.
pub fn icount_target_dir() -> PathBuf {
    std::env::var_os("WIRELAB_ICOUNT_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/wirelab-icount-target"))
}

/// gungraun's output folder.
pub fn gungraun_dir() -> PathBuf {
    icount_target_dir()
        .join("gungraun")
        .join("wirelab-bench")
        .join("icount")
        .join("lab")
}

/// Where the lab keeps the instruction counts of one experiment.
pub fn icount_path(exp: &str) -> PathBuf {
    lab_dir().join("icount").join(format!("{exp}.json"))
}

/// Reads gungraun's summaries of one harness run over `cases` (numbered in that order).
pub fn read_gungraun(cases: &[CaseId]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (i, id) in cases.iter().enumerate() {
        let path = gungraun_dir()
            .join(format!("case.catalog_{i}"))
            .join("summary.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        if let Some(ir) =
            v["profiles"][0]["data"]["total"]["metrics"]["Ir"]["values"]["new"].as_u64()
        {
            out.insert(id.to_string(), ir);
        }
    }
    out
}

/// Reads the instruction counts the lab recorded (all experiments).
pub fn read_icounts() -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let Ok(dir) = std::fs::read_dir(lab_dir().join("icount")) else {
        return out;
    };
    for entry in dir.flatten() {
        if let Some(map) = std::fs::read_to_string(entry.path())
            .ok()
            .and_then(|t| serde_json::from_str::<BTreeMap<String, u64>>(&t).ok())
        {
            out.extend(map);
        }
    }
    out
}

/// One line of the allocation harness's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AllocRecord {
    /// The cell.
    pub case: CaseId,
    /// Its allocations.
    pub alloc: Alloc,
}

/// The allocation harness's output file for an experiment.
pub fn alloc_path(exp: &str) -> PathBuf {
    lab_dir().join("alloc").join(format!("{exp}.json"))
}

/// Reads the allocation harness's output for an experiment.
pub fn read_allocs(exp: &str) -> BTreeMap<String, Alloc> {
    std::fs::read_to_string(alloc_path(exp))
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<AllocRecord>>(&t).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|r| (r.case.to_string(), r.alloc))
        .collect()
}

/// Gathers the raw results of every cell of `exp` into its data file.
pub fn gather(exp: &Experiment, receipt: &Receipt) -> ExperimentData {
    let icounts = read_icounts();
    let allocs = read_allocs(exp.id);
    let workloads = (exp.workloads)();
    let mut rows = Vec::new();
    for w in &workloads {
        for v in exp.variants {
            if w.runner(v.name).is_none() {
                continue;
            }
            let id = CaseId {
                exp: exp.id.to_owned(),
                workload: w.name.clone(),
                variant: v.name.to_owned(),
            };
            let (result, copied) = match exp.result.and_then(|_| w.runner(v.name)) {
                Some(mut r) => {
                    let mut sink = crate::catalog::Sink::discard();
                    let n = r(&mut sink);
                    (Some(n), sink.copied())
                }
                None => (None, None),
            };
            rows.push(Row {
                workload: w.name.clone(),
                variant: v.name.to_owned(),
                role: v.role,
                wall: read_wall(&id),
                instructions: icounts.get(&id.to_string()).copied(),
                alloc: allocs.get(&id.to_string()).copied(),
                result,
                copied,
            });
        }
    }
    ExperimentData {
        experiment: exp.id.to_owned(),
        receipt: receipt.clone(),
        workloads: workloads
            .iter()
            .map(|w| WorkloadInfo {
                name: w.name.clone(),
                about: w.about.clone(),
                bytes: w.bytes,
                ops: w.ops,
            })
            .collect(),
        rows,
    }
}

/// Reads a committed data file.
pub fn read_data(path: &Path) -> Result<ExperimentData, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
