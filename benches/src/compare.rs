//! Revision against revision: what `cargo lab compare` computes from two sets of raw records
//! (each a `target/wirelab`-like folder: `verify/`, `icount/`, `alloc/` per experiment, plus
//! the wall samples compare gathered in alternating rounds), and the gates that turn a
//! comparison into an exit code. The orchestration (worktrees, builds, rounds) is
//! `lab/src/compare.rs`; everything here is pure, so that tests can drive it.

use crate::catalog::CaseId;
use crate::records::{
    Alloc, CacheSim, KernelChoices, Metric, Paths, Samples, Verification, read_json_if_present,
};
use crate::report::bootstrap;
use crate::selection::Selection;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What one revision measured, per case id.
#[derive(Clone, Debug, Default)]
pub struct Side {
    /// Output digests from the verifying run.
    pub digests: BTreeMap<CaseId, String>,
    /// Instruction counts.
    pub instructions: BTreeMap<CaseId, u64>,
    /// Allocations.
    pub alloc: BTreeMap<CaseId, Alloc>,
    /// Cache simulations (the `cycles` metric).
    pub cycles: BTreeMap<CaseId, CacheSim>,
    /// Wall-time samples: criterion's raw samples, one entry per round (process).
    pub wall: BTreeMap<CaseId, Vec<Samples>>,
    /// Each counted case's callgrind profile (a file), where the revision's lab kept one.
    pub profiles: BTreeMap<CaseId, PathBuf>,
    /// The cases whose count measures another kernel than the wall time (where the
    /// revision's lab recorded its kernels).
    pub paths: BTreeMap<CaseId, Paths>,
}

impl Side {
    /// Reads the verify, instruction and allocation records under `lab_dir` of the cases
    /// `sel` wants; `wall` starts empty. A metric folder that is absent reads as nothing.
    ///
    /// # Errors
    ///
    /// When a record file exists but cannot be read.
    pub fn read(lab_dir: &Path, sel: &Selection) -> Result<Self, String> {
        let mut side = Side::default();
        let kernels: Option<KernelChoices> = read_json_if_present(&lab_dir.join("kernels.json"))?;
        for exp in sel.experiments() {
            let id = exp.id();
            let file = |m: Metric| lab_dir.join(m.file_name(&id));
            if let Some(v) = read_json_if_present::<Verification>(&file(Metric::Verify))? {
                side.digests
                    .extend(v.outputs.into_iter().map(|(k, o)| (k, o.digest)));
            }
            if let Some(i) =
                read_json_if_present::<BTreeMap<CaseId, u64>>(&file(Metric::Instructions))?
            {
                for case in i.keys() {
                    let points = exp.meta().dispatch.iter().find(|(v, _)| *v == case.variant);
                    if let (Some(k), Some((_, points))) = (&kernels, points)
                        && let Some(p) = k.paths(points)
                    {
                        side.paths.insert(case.clone(), p);
                    }
                    let profile = lab_dir.join("callgrind").join(format!("{case}.out"));
                    if profile.is_file() {
                        side.profiles.insert(case.clone(), profile);
                    }
                }
                side.instructions.extend(i);
            }
            if let Some(a) = read_json_if_present::<BTreeMap<CaseId, Alloc>>(&file(Metric::Alloc))?
            {
                side.alloc.extend(a);
            }
            if let Some(c) =
                read_json_if_present::<BTreeMap<CaseId, CacheSim>>(&file(Metric::Cycles))?
            {
                side.cycles.extend(c);
            }
        }
        side.retain(sel);
        Ok(side)
    }

    /// Keeps only the cases `sel` wants.
    pub fn retain(&mut self, sel: &Selection) {
        let wanted = |id: &CaseId| sel.wants_case(id);
        self.digests.retain(|k, _| wanted(k));
        self.instructions.retain(|k, _| wanted(k));
        self.alloc.retain(|k, _| wanted(k));
        self.cycles.retain(|k, _| wanted(k));
        self.wall.retain(|k, _| wanted(k));
        self.profiles.retain(|k, _| wanted(k));
        self.paths.retain(|k, _| wanted(k));
    }

    /// The parsed callgrind profile of `case`, when this side kept one that parses.
    pub fn profile(&self, case: &CaseId) -> Option<crate::callgrind::Profile> {
        let text = std::fs::read_to_string(self.profiles.get(case)?).ok()?;
        crate::callgrind::Profile::parse(&text).ok()
    }

    /// Adds one round's wall samples (case id -> samples) to those already gathered.
    pub fn add_wall_round(&mut self, round: BTreeMap<CaseId, Samples>) {
        for (id, s) in round {
            self.wall.entry(id).or_default().push(s);
        }
    }
}

/// A value in both revisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Pair<T> {
    /// BASE's value.
    pub base: T,
    /// NEW's value.
    pub new: T,
}

/// Allocations of one case in one revision: totals over the harness's runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AllocCount {
    /// Heap blocks allocated.
    pub blocks: u64,
    /// Heap bytes allocated.
    pub bytes: u64,
    /// The runs they were counted over.
    pub runs: u64,
}

/// NEW's wall time over BASE's, with its interval at the [`simultaneous_level`] of the
/// comparison: from pairs timed in one process under several link layouts (see
/// [`bootstrap::ratio_over_layouts`]), or from alternating process rounds (see
/// [`bootstrap::ratio_of_rounds`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WallRatio {
    /// The ratio.
    pub ratio: f64,
    /// The interval's lower end.
    pub lower: f64,
    /// Its upper end.
    pub upper: f64,
    /// Each link layout's own ratio (paired timing; empty for process rounds): how much where
    /// the linker put the code moved it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layouts: Vec<f64>,
}

impl WallRatio {
    /// Whether the interval contains 1 (no difference can be claimed).
    pub fn spans_one(&self) -> bool {
        self.lower <= 1.0 && self.upper >= 1.0
    }

    /// The smallest and largest per-layout ratio, where there are layouts.
    pub fn layout_spread(&self) -> Option<(f64, f64)> {
        let min = self.layouts.iter().copied().reduce(f64::min)?;
        let max = self.layouts.iter().copied().reduce(f64::max)?;
        Some((min, max))
    }
}

/// How the paired harness sampled: link layouts, processes per layout, placements of the
/// inputs per process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairedDesign {
    /// The section orders every case was measured under.
    pub layouts: usize,
    /// The most section orders a case was measured under: cases whose interval was still
    /// wider than [`PairedDesign::precision`] after `layouts` got more, a few at a time, up to
    /// this (0 or `layouts` in comparisons written before: none got more).
    #[serde(default)]
    pub max_layouts: usize,
    /// The interval's target half-width, relative to the ratio (0.01: +-1 %), at the
    /// simultaneous level; 0 in comparisons written before there was one.
    #[serde(default)]
    pub precision: f64,
    /// Processes per layout, each with the inputs placed anew (1 in comparisons written
    /// before there were several).
    #[serde(default = "one")]
    pub processes: usize,
    /// Placements of each side's inputs within a process, its pairs going round them (1 in
    /// comparisons written before there were several).
    #[serde(default = "one")]
    pub placements: usize,
}

/// How the wall times of a comparison were taken.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "method")]
pub enum WallMethod {
    /// Both revisions linked into one harness, timed batch against batch, as the design says.
    Paired(PairedDesign),
    /// Each revision timed by its own criterion runs, in alternating process rounds.
    Rounds {
        /// Rounds per revision.
        rounds: usize,
    },
}

/// The paired wall-time samples of a comparison: per case id, each layout's pairs as
/// `ln(new / base)` per pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairedWall {
    /// How they were sampled.
    pub design: PairedDesign,
    /// Per case, per layout, the pairs' log ratios.
    pub cases: BTreeMap<CaseId, Vec<Vec<f64>>>,
}

/// A function behind a moved instruction count: its instructions in both revisions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FunctionDelta {
    /// Its name, demangled.
    pub function: String,
    /// Instructions on its own lines.
    #[serde(rename = "self")]
    pub self_ir: Pair<u64>,
    /// Its own and those of everything it calls.
    pub inclusive: Pair<u64>,
}

/// How many functions `why` names by self change, and again by inclusive change.
pub const WHY_TOP: usize = 5;

/// One case present in both revisions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaseDelta {
    /// `exp/workload/variant`.
    pub case: CaseId,
    /// Instruction counts, where both revisions counted them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Pair<u64>>,
    /// Allocations, where both revisions counted them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alloc: Option<Pair<AllocCount>>,
    /// The cache simulation, where both revisions ran it (`--metrics ...,cycles`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<Pair<CacheSim>>,
    /// Wall time, where both revisions were timed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall: Option<WallRatio>,
    /// Whether the two revisions' outputs differ (digests of the verifying runs).
    pub output_changed: bool,
    /// Where the instruction count moved ([`CaseDelta::instructions_moved`]): the functions
    /// responsible (largest self change first, then the largest inclusive changes), from both
    /// revisions' callgrind profiles. Empty when the count did not move, or a revision kept no
    /// profile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<FunctionDelta>,
    /// Where NEW's instruction count measures another kernel than its wall time (valgrind
    /// hides AVX-512): the two paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_path: Option<Paths>,
    /// Whether the case's instruction count varies from run to run of one binary (its page's
    /// `unseeded` cells, `cargo lab check`'s tolerance): a change within
    /// [`crate::catalog::UNSEEDED_TOLERANCE`] is then no change.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unseeded: bool,
}

impl CaseDelta {
    /// The instruction count's change in percent.
    pub fn instructions_pct(&self) -> Option<f64> {
        self.instructions.map(|p| pct(p.base, p.new))
    }

    /// Whether the instruction count moved: changed at all, or for an unseeded case by more
    /// than [`crate::catalog::UNSEEDED_TOLERANCE`].
    pub fn instructions_moved(&self) -> bool {
        self.instructions.is_some_and(|p| {
            p.base != p.new
                && !(self.unseeded
                    && pct(p.base, p.new).abs() <= crate::catalog::UNSEEDED_TOLERANCE * 100.0)
        })
    }

    /// Whether nothing changed: same output, same counts, a wall interval containing 1.
    pub fn unchanged(&self) -> bool {
        !self.output_changed
            && !self.instructions_moved()
            && self.alloc.is_none_or(|p| p.base == p.new)
            && self.cycles.is_none_or(|p| p.base == p.new)
            && self.wall.as_ref().is_none_or(WallRatio::spans_one)
    }

    /// How large the change is, for sorting: the largest of the instruction change (when it
    /// moved: see [`CaseDelta::instructions_moved`]), the
    /// allocation changes and (when its interval excludes 1) the wall-time change, in percent;
    /// a changed output sorts first.
    pub fn magnitude(&self) -> f64 {
        if self.output_changed {
            return f64::INFINITY;
        }
        let alloc = self.alloc.map_or(0.0, |p| {
            pct(p.base.blocks, p.new.blocks)
                .abs()
                .max(pct(p.base.bytes, p.new.bytes).abs())
        });
        let wall = self
            .wall
            .as_ref()
            .filter(|w| !w.spans_one())
            .map_or(0.0, |w| (w.ratio - 1.0).abs() * 100.0);
        self.instructions_pct()
            .filter(|_| self.instructions_moved())
            .map_or(0.0, f64::abs)
            .max(alloc)
            .max(wall)
    }
}

/// `new` against `base` in percent (0 when both are 0).
pub fn pct(base: u64, new: u64) -> f64 {
    if base == new {
        0.0
    } else if base == 0 {
        f64::INFINITY
    } else {
        (new as f64 - base as f64) / base as f64 * 100.0
    }
}

/// The comparison of two revisions, as `target/wirelab/compare/*.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// [`crate::records::SCHEMA_VERSION`] when written.
    #[serde(default)]
    pub schema_version: u32,
    /// BASE, as given and resolved.
    pub base: String,
    /// How wall time was taken, where it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_method: Option<WallMethod>,
    /// NEW, as given and resolved.
    pub new: String,
    /// The cases present in both, largest change first.
    pub cases: Vec<CaseDelta>,
    /// Cases only NEW has.
    pub added: Vec<CaseId>,
    /// Cases only BASE has.
    pub removed: Vec<CaseId>,
}

/// Compares what two revisions measured, case by case; wall time from `paired` where it holds
/// a case, else from the sides' process rounds.
pub fn compare(
    base_name: &str,
    new_name: &str,
    base: &Side,
    new: &Side,
    paired: Option<&PairedWall>,
) -> Comparison {
    let (b, n): (BTreeSet<&CaseId>, BTreeSet<&CaseId>) =
        (base.digests.keys().collect(), new.digests.keys().collect());
    let common: Vec<&CaseId> = b.intersection(&n).copied().collect();
    let is_paired = |id: &CaseId| paired.is_some_and(|p| p.cases.contains_key(id));
    let in_rounds = |id: &CaseId| base.wall.contains_key(id) && new.wall.contains_key(id);
    let timed = common
        .iter()
        .filter(|id| is_paired(id) || in_rounds(id))
        .count();
    let level = simultaneous_level(timed);
    let mut cases: Vec<CaseDelta> = common
        .iter()
        .map(|id| delta(id, base, new, paired, level))
        .collect();
    let wall_method = match paired {
        Some(p) if !p.cases.is_empty() => Some(WallMethod::Paired(p.design)),
        _ => common
            .iter()
            .find_map(|id| base.wall.get(*id).filter(|_| in_rounds(id)))
            .map(|r| WallMethod::Rounds { rounds: r.len() }),
    };
    cases.sort_by(|x, y| y.magnitude().total_cmp(&x.magnitude()));
    Comparison {
        schema_version: crate::records::SCHEMA_VERSION,
        base: base_name.to_owned(),
        wall_method,
        new: new_name.to_owned(),
        cases,
        added: n.difference(&b).map(|s| (*s).clone()).collect(),
        removed: b.difference(&n).map(|s| (*s).clone()).collect(),
    }
}

/// The level of each case's wall interval such that all `cases` intervals hold their true
/// ratios together with 95 % probability (Bonferroni): with 50 cases at 95 % each, about two
/// would exclude 1.00 between identical builds; at this level, one comparison in twenty has
/// any.
pub fn simultaneous_level(cases: usize) -> f64 {
    1.0 - 0.05 / cases.max(1) as f64
}

/// NEW/BASE wall time of case `id`: paired where `paired` holds it, else from rounds.
fn wall_ratio(
    id: &CaseId,
    base: &Side,
    new: &Side,
    paired: Option<&PairedWall>,
    level: f64,
) -> Option<WallRatio> {
    if let Some(layouts) = paired.and_then(|p| p.cases.get(id)) {
        return bootstrap::ratio_over_layouts(layouts, level).map(|r| WallRatio {
            ratio: r.ratio.value,
            lower: r.ratio.lower,
            upper: r.ratio.upper,
            layouts: r.per_layout,
        });
    }
    let r = bootstrap::ratio_of_rounds(new.wall.get(id)?, base.wall.get(id)?, level)?;
    Some(WallRatio {
        ratio: r.value,
        lower: r.lower,
        upper: r.upper,
        layouts: Vec::new(),
    })
}

fn delta(
    id: &CaseId,
    base: &Side,
    new: &Side,
    paired: Option<&PairedWall>,
    level: f64,
) -> CaseDelta {
    let count = |a: &Alloc| AllocCount {
        blocks: a.blocks,
        bytes: a.bytes,
        runs: a.runs,
    };
    let mut delta = CaseDelta {
        case: id.clone(),
        instructions: both(&base.instructions, &new.instructions, id, |v| *v),
        alloc: both(&base.alloc, &new.alloc, id, count),
        cycles: both(&base.cycles, &new.cycles, id, |c| *c),
        wall: wall_ratio(id, base, new, paired, level),
        output_changed: base.digests.get(id) != new.digests.get(id),
        why: Vec::new(),
        other_path: new.paths.get(id).cloned(),
        unseeded: crate::catalog::is_unseeded(id),
    };
    if delta.instructions_moved() {
        delta.why = why(id, base, new);
    }
    delta
}

/// The functions behind a moved instruction count (see [`CaseDelta::why`]).
fn why(id: &CaseId, base: &Side, new: &Side) -> Vec<FunctionDelta> {
    match (base.profile(id), new.profile(id)) {
        (Some(b), Some(n)) => crate::callgrind::why(&b, &n, WHY_TOP),
        _ => Vec::new(),
    }
}

fn both<V, T>(
    base: &BTreeMap<CaseId, V>,
    new: &BTreeMap<CaseId, V>,
    id: &CaseId,
    f: impl Fn(&V) -> T,
) -> Option<Pair<T>> {
    Some(Pair {
        base: f(base.get(id)?),
        new: f(new.get(id)?),
    })
}

/// A condition on a comparison that fails the command (`--fail-if`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gate {
    /// `instructions>+N%`: a case's instruction count changed by more than N %.
    Instructions(f64),
    /// `blocks>+N%` / `bytes>+N%`: a case's allocated blocks (bytes) changed by more than N %.
    Blocks(f64),
    /// See [`Gate::Blocks`].
    Bytes(f64),
    /// `wall>+N%`: NEW is slower than BASE by more than N % over its whole (simultaneous) interval.
    Wall(f64),
    /// `output-changed`: a case's output differs between the revisions.
    OutputChanged,
}

impl std::str::FromStr for Gate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s == "output-changed" {
            return Ok(Gate::OutputChanged);
        }
        let bad = || {
            format!(
                "bad gate `{s}`: expected METRIC>+N% (METRIC: instructions, wall, blocks, bytes) or output-changed"
            )
        };
        let (metric, rest) = s.split_once('>').ok_or_else(bad)?;
        let pct: f64 = rest
            .trim()
            .strip_suffix('%')
            .ok_or_else(bad)?
            .trim()
            .parse()
            .map_err(|_| bad())?;
        match metric.trim() {
            "instructions" => Ok(Gate::Instructions(pct)),
            "wall" => Ok(Gate::Wall(pct)),
            "blocks" => Ok(Gate::Blocks(pct)),
            "bytes" => Ok(Gate::Bytes(pct)),
            _ => Err(bad()),
        }
    }
}

impl Gate {
    /// Why `case` trips this gate, if it does.
    pub fn trips(&self, c: &CaseDelta) -> Option<String> {
        let over = |v: f64, limit: f64| v > limit;
        match *self {
            Gate::OutputChanged => c.output_changed.then(|| "output changed".to_owned()),
            Gate::Instructions(p) => c
                .instructions_pct()
                .filter(|d| over(*d, p) && c.instructions_moved())
                .map(|d| format!("instructions {d:+.3} % (limit {p:+} %)")),
            Gate::Blocks(p) => c
                .alloc
                .map(|a| pct(a.base.blocks, a.new.blocks))
                .filter(|d| over(*d, p))
                .map(|d| format!("blocks {d:+.2} % (limit {p:+} %)")),
            Gate::Bytes(p) => c
                .alloc
                .map(|a| pct(a.base.bytes, a.new.bytes))
                .filter(|d| over(*d, p))
                .map(|d| format!("bytes {d:+.2} % (limit {p:+} %)")),
            Gate::Wall(p) => c
                .wall
                .as_ref()
                .filter(|w| w.lower > 1.0 + p / 100.0)
                .map(|w| {
                    format!(
                        "wall {:+.1} % [{:+.1}, {:+.1}] (limit {p:+} %)",
                        (w.ratio - 1.0) * 100.0,
                        (w.lower - 1.0) * 100.0,
                        (w.upper - 1.0) * 100.0
                    )
                }),
        }
    }
}

/// Every (case, reason) a set of gates trips on a comparison.
pub fn offenders(cmp: &Comparison, gates: &[Gate]) -> Vec<(CaseId, String)> {
    cmp.cases
        .iter()
        .flat_map(|c| {
            gates
                .iter()
                .filter_map(move |g| g.trips(c).map(|why| (c.case.clone(), why)))
        })
        .collect()
}

fn fmt_instructions(c: &CaseDelta) -> String {
    let mark = match (
        c.other_path.is_some(),
        c.unseeded && !c.instructions_moved(),
    ) {
        (true, _) => " †",
        (false, true) => " (varies from run to run; within its tolerance)",
        (false, false) => "",
    };
    c.instructions.map_or("-".into(), |p| {
        format!(
            "{} → {} ({:+.3} %){mark}",
            crate::report::fmt_count(p.base),
            crate::report::fmt_count(p.new),
            pct(p.base, p.new)
        )
    })
}

fn fmt_alloc(c: &CaseDelta) -> String {
    c.alloc.map_or("-".into(), |p| {
        if p.base == p.new {
            format!("{} blocks, {} B (same)", p.new.blocks, p.new.bytes)
        } else {
            format!(
                "{} → {} blocks, {} → {} B",
                p.base.blocks, p.new.blocks, p.base.bytes, p.new.bytes
            )
        }
    })
}

fn fmt_cycles(c: &CaseDelta) -> String {
    c.cycles.map_or("-".into(), |p| {
        format!(
            "{} → {} ({:+.2} %; L1 {} → {}, LL {} → {})",
            crate::report::fmt_count(p.base.estimated_cycles),
            crate::report::fmt_count(p.new.estimated_cycles),
            pct(p.base.estimated_cycles, p.new.estimated_cycles),
            crate::report::fmt_count(p.base.l1_misses),
            crate::report::fmt_count(p.new.l1_misses),
            crate::report::fmt_count(p.base.ll_misses),
            crate::report::fmt_count(p.new.ll_misses)
        )
    })
}

/// A case's wall ratio, interval and layout spread; the number of layouts where it is more than
/// the `layouts` every case had (a paired comparison's; `None` for the older process rounds).
fn fmt_wall(c: &CaseDelta, layouts: Option<usize>) -> String {
    c.wall.as_ref().map_or("-".into(), |w| {
        let mark = if w.spans_one() { "≈" } else { "" };
        let more = match (w.layouts.len(), layouts) {
            (n, Some(every)) if n > every => format!(" {n}"),
            _ => String::new(),
        };
        let spread = w.layout_spread().map_or(String::new(), |(lo, hi)| {
            format!(";{more} layouts {lo:.3}-{hi:.3}")
        });
        format!(
            "{mark}{:.3}x [{:.3}, {:.3}]{spread}",
            w.ratio, w.lower, w.upper
        )
    })
}

/// The processes per layout, or placements per process, of a comparison written before there
/// were several.
fn one() -> usize {
    1
}

/// Which cases got more layouts than every case had, as the Markdown says it.
fn extension_note(d: PairedDesign) -> String {
    if d.max_layouts > d.layouts {
        format!(
            "A case whose interval was still wider than +-{:.1} % after them got more layouts, up to {} (the \"layouts\" column then says how many). ",
            d.precision * 100.0,
            d.max_layouts
        )
    } else {
        String::new()
    }
}

/// How many processes each layout ran in, and placements each process, as the Markdown says it.
fn design_note(d: PairedDesign) -> String {
    let processes = if d.processes > 1 {
        format!(
            "{} processes each, each with the inputs placed anew (the layout's pairs pooled)",
            d.processes
        )
    } else {
        "one process each".to_owned()
    };
    if d.placements > 1 {
        format!(
            "{processes}, and within a process each side's inputs placed {} times, the pairs going round the placements",
            d.placements
        )
    } else {
        processes
    }
}

/// What the Markdown says about how wall time was measured.
fn wall_note(method: Option<WallMethod>) -> String {
    let how = match method {
        Some(WallMethod::Paired(design)) => format!(
            "Wall time is NEW/BASE (below 1 is faster), both revisions linked into one harness (functions and loops aligned to 64 octets, each side's inputs placed alike) and timed batch against batch in random order, under {} link layouts (section orders), {}: the 20 % trimmed geometric mean of each layout's median pair ratio, with Yuen's interval over layouts, simultaneous over the cases (all of them hold together with 95 % probability); \"layouts\" gives the smallest and largest layout's own ratio, what where the linker put the code did. {}",
            design.layouts,
            design_note(design),
            extension_note(design)
        ),
        Some(WallMethod::Rounds { .. }) => "Wall time is NEW/BASE (below 1 is faster): the ratio of the medians over rounds, with an interval that resamples the alternating rounds as units and then their samples; the intervals are simultaneous (all of them hold together with 95 % probability). ".to_owned(),
        None => "Wall time was not measured. ".to_owned(),
    };
    how + "Instructions and allocations are exact.\n\n"
}

/// The comparison as a Markdown table: changed cases largest first, unchanged cases folded
/// into one line, then added and removed cases.
pub fn markdown(cmp: &Comparison) -> String {
    let mut out = format!("# {} → {}\n\n", cmp.base, cmp.new);
    out.push_str(&wall_note(cmp.wall_method));
    let layouts = match cmp.wall_method {
        Some(WallMethod::Paired(d)) => Some(d.layouts),
        _ => None,
    };
    let changed: Vec<&CaseDelta> = cmp.cases.iter().filter(|c| !c.unchanged()).collect();
    let cycles = changed.iter().any(|c| c.cycles.is_some());
    if !changed.is_empty() {
        let (head, rule) = if cycles {
            (" estimated cycles (L1 / LL misses) |", " ---: |")
        } else {
            ("", "")
        };
        let _ = writeln!(
            out,
            "| case | instructions | allocations |{head} wall NEW/BASE | output |"
        );
        let _ = writeln!(out, "| --- | ---: | ---: |{rule} ---: | --- |");
        for c in &changed {
            let output = if c.output_changed {
                "**changed** (not a speed change)"
            } else {
                "same"
            };
            let cyc = if cycles {
                format!(" {} |", fmt_cycles(c))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} |{cyc} {} | {output} |",
                c.case,
                fmt_instructions(c),
                fmt_alloc(c),
                fmt_wall(c, layouts)
            );
        }
        out.push('\n');
    }
    if changed.iter().any(|c| c.other_path.is_some()) {
        out.push_str("† counted on another kernel than the one timed (valgrind hides AVX-512): the instruction change is that path's; the wall time is the CPU's own path.\n\n");
    }
    out.push_str(&why_markdown(&changed));
    let same = cmp.cases.len() - changed.len();
    let _ = writeln!(
        out,
        "{same} of {} cases unchanged: same output, the same instruction and allocation counts, and a wall interval containing 1.00.",
        cmp.cases.len()
    );
    for (what, list) in [("Added", &cmp.added), ("Removed", &cmp.removed)] {
        if !list.is_empty() {
            let names: Vec<String> = list.iter().map(ToString::to_string).collect();
            let _ = writeln!(out, "\n{what} (in one revision only): {}", names.join(", "));
        }
    }
    out
}

/// The "why" section: for each case whose instruction count moved, the functions responsible.
fn why_markdown(changed: &[&CaseDelta]) -> String {
    let moved: Vec<&&CaseDelta> = changed.iter().filter(|c| c.instructions_moved()).collect();
    if moved.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "## Why: the functions behind each moved instruction count\n\nFrom both revisions' callgrind profiles: the largest changes of a function's own instructions (self), then of its inclusive instructions (with everything it calls). A differential flamegraph of each case (red where NEW spends more) is under `target/wirelab/compare/flamegraphs/`.\n\n",
    );
    for c in moved {
        let _ = writeln!(out, "### {}\n", c.case);
        if c.why.is_empty() {
            out.push_str("No callgrind profile in one of the revisions (its lab predates them, or it measured no instructions).\n\n");
            continue;
        }
        out.push_str("| function | self | inclusive |\n| --- | ---: | ---: |\n");
        for f in &c.why {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                f.function.replace('|', "\\|"),
                fmt_pair(f.self_ir),
                fmt_pair(f.inclusive)
            );
        }
        out.push('\n');
    }
    out
}

/// `base → new (±%)` of two counts.
fn fmt_pair(p: Pair<u64>) -> String {
    let change = if p.base == p.new {
        "same".to_owned()
    } else if p.base == 0 {
        "new".to_owned()
    } else if p.new == 0 {
        "gone".to_owned()
    } else {
        format!("{:+.1} %", pct(p.base, p.new))
    };
    format!(
        "{} → {} ({change})",
        crate::report::fmt_count(p.base),
        crate::report::fmt_count(p.new)
    )
}

/// The comparison in Bencher Metric Format: NEW's measures per case (`instructions`,
/// `allocations` and `allocated-bytes` per run, and `wall-ratio` with its interval).
pub fn bmf(cmp: &Comparison) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for c in &cmp.cases {
        let mut m = serde_json::Map::new();
        if let Some(p) = c.instructions {
            m.insert("instructions".into(), serde_json::json!({"value": p.new}));
        }
        if let Some(p) = c.alloc {
            let runs = p.new.runs.max(1) as f64;
            m.insert(
                "allocations".into(),
                serde_json::json!({"value": p.new.blocks as f64 / runs}),
            );
            m.insert(
                "allocated-bytes".into(),
                serde_json::json!({"value": p.new.bytes as f64 / runs}),
            );
        }
        if let Some(w) = &c.wall {
            m.insert(
                "wall-ratio".into(),
                serde_json::json!({"value": w.ratio, "lower_value": w.lower, "upper_value": w.upper}),
            );
        }
        out.insert(c.case.to_string(), serde_json::Value::Object(m));
    }
    serde_json::Value::Object(out)
}
