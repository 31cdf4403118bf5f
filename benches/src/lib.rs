//! The wirelab lab: the experiment [`catalog`], the three harnesses' shared plumbing, and the
//! [`report`] renderer. The CLI is `src/bin/lab.rs` (`cargo lab …`); the harnesses are
//! `benches/wall.rs` (criterion), `benches/icount.rs` (gungraun) and `src/bin/alloc.rs` (dhat).
//!
//! Every harness reads the same catalog: a workload is defined once, in `experiments/`.

pub mod catalog;
pub mod experiments;
pub mod report;
pub mod results;
pub mod rope;

use catalog::{CaseId, Experiment};

/// Environment variable naming the experiments a harness runs (comma-separated ids; all when
/// unset or empty). The lab CLI sets it for the harnesses it starts.
pub const ENV_EXPERIMENTS: &str = "WIRELAB_EXPERIMENTS";
/// Environment variable that selects the quick (rough) wall-time settings when set to `1`.
pub const ENV_QUICK: &str = "WIRELAB_QUICK";

/// The shared conformance and workload data (`WIRELAB_DATA`, else `../shared/data` beside the
/// workspace), or `None` when it is absent. Under `CI=true` its absence is an error.
///
/// # Panics
///
/// Under `CI=true` when the data is missing.
pub fn shared_data() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("WIRELAB_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| results::workspace_root().join("../shared/data"));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "shared data missing at {} (required under CI=true)",
            dir.display()
        );
    }
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        eprintln!(
            "wirelab: SKIPPED the workloads that need shared data: not found at {} (set WIRELAB_DATA)",
            dir.display()
        )
    });
    None
}

/// The feature (among those experiments ask for, see [`Experiment::feature`]) this build of
/// `wirelab-bench` was made with.
pub const BUILD_FEATURE: Option<&str> = if cfg!(feature = "zlib-rs") {
    Some("zlib-rs")
} else {
    None
};

/// Whether this build measures `exp`: it was built with exactly the experiment's feature (so
/// that, say, `gzip` is never measured with the zlib-rs backend under its name).
pub fn built_for(exp: &Experiment) -> bool {
    exp.feature == BUILD_FEATURE
}

/// The cargo arguments that build the harnesses for `exp` (`--features wirelab-bench/…`).
pub fn feature_args(exp: &Experiment) -> Vec<String> {
    exp.feature
        .map(|f| vec!["--features".to_owned(), format!("wirelab-bench/{f}")])
        .unwrap_or_default()
}

/// Looks an experiment up by id.
pub fn find(id: &str) -> Option<&'static Experiment> {
    experiments::ALL.iter().copied().find(|e| e.id == id)
}

/// Resolves experiment ids (all experiments for an empty list).
///
/// # Errors
///
/// Names the unknown id and lists the known ones.
pub fn resolve<S: AsRef<str>>(ids: &[S]) -> Result<Vec<&'static Experiment>, String> {
    if ids.is_empty() {
        return Ok(experiments::ALL.to_vec());
    }
    ids.iter()
        .map(|id| {
            find(id.as_ref()).ok_or_else(|| {
                let known: Vec<_> = experiments::ALL.iter().map(|e| e.id).collect();
                format!(
                    "unknown experiment `{}` (known: {})",
                    id.as_ref(),
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// The experiments selected by [`ENV_EXPERIMENTS`]; when none are named, every experiment this
/// build measures (see [`built_for`]).
///
/// # Panics
///
/// On an unknown id, or one this build does not measure: a harness cannot do anything useful
/// with it.
pub fn selected_from_env() -> Vec<&'static Experiment> {
    let ids: Vec<String> = std::env::var(ENV_EXPERIMENTS)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    if ids.is_empty() {
        return experiments::ALL
            .iter()
            .copied()
            .filter(|e| built_for(e))
            .collect();
    }
    let exps = resolve(&ids).unwrap_or_else(|e| panic!("{ENV_EXPERIMENTS}: {e}"));
    check_built_for(&exps).unwrap_or_else(|e| panic!("{e}"));
    exps
}

/// Fails when this build cannot measure one of `exps` (see [`built_for`]).
///
/// # Errors
///
/// Names the experiment and the cargo arguments it needs.
pub fn check_built_for(exps: &[&Experiment]) -> Result<(), String> {
    match exps.iter().find(|e| !built_for(e)) {
        None => Ok(()),
        Some(e) => Err(format!(
            "experiment {} is measured by a build {} (this build: {}); `cargo lab` builds it so",
            e.id,
            match e.feature {
                Some(f) => format!("with `--features wirelab-bench/{f}`"),
                None => "without extra features".to_owned(),
            },
            BUILD_FEATURE.map_or_else(|| "default features".to_owned(), |f| format!("feature {f}"))
        )),
    }
}

/// Whether [`ENV_QUICK`] asks for quick settings.
pub fn quick_from_env() -> bool {
    std::env::var(ENV_QUICK).is_ok_and(|v| v == "1")
}

/// Every applicable (experiment, workload, variant) cell of `exps`, in catalog order. The
/// instruction-count harness numbers its benchmarks by this order.
pub fn cases(exps: &[&'static Experiment]) -> Vec<CaseId> {
    let mut out = Vec::new();
    for exp in exps {
        for w in (exp.workloads)() {
            for v in exp.variants {
                if w.runner(v.name).is_some() {
                    out.push(CaseId {
                        exp: exp.id.to_owned(),
                        workload: w.name.clone(),
                        variant: v.name.to_owned(),
                    });
                }
            }
        }
    }
    out
}

/// Builds the runner of one cell, checked against the baseline and already run once.
///
/// # Errors
///
/// When the case is unknown or its output differs from the baseline's.
pub fn checked_case(id: &CaseId) -> Result<catalog::Runner, String> {
    let exp = find(&id.exp).ok_or_else(|| format!("unknown experiment {}", id.exp))?;
    let variant = exp
        .variant(&id.variant)
        .ok_or_else(|| format!("unknown variant {id}"))?;
    let workloads = (exp.workloads)();
    let w = workloads
        .iter()
        .find(|w| w.name == id.workload)
        .ok_or_else(|| format!("unknown workload {id}"))?;
    let expected = catalog::expected_output(exp, w);
    catalog::checked_runner(exp, w, variant, &expected)?
        .map(|c| c.runner)
        .ok_or_else(|| format!("{id} does not apply"))
}
