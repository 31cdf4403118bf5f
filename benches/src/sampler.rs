//! The paired sampler: two revisions' runners of the same case timed in one process, batch
//! against batch. `cargo lab compare` writes this file (with [`crate::rng`]) into the dual
//! harness it generates, which links both revisions, so the file uses nothing but `std`, serde
//! and the generator.
//!
//! For each case present in both revisions: a warm-up of both, one batch size for both
//! (calibrated so a batch takes about [`Settings::batch_ns`], at least one run), then pairs of
//! batches, BASE and NEW in a random order in each pair, until there are
//! [`Settings::min_pairs`] and the pairs' ratio is known within [`Settings::precision`] or the
//! case's time is up ([`Settings::max_ns`]). A pair's two batches run moments apart, so drift
//! of the machine hits both alike and cancels in their ratio.
//!
//! Each side's cases are set up [`Settings::placements`] times, each setup with its inputs
//! placed anew (other pages, other offsets; the harness's allocator sees to that), and a case's
//! pairs go round the placements: pair `i` times both sides' placement `i % placements`. Where
//! a side's inputs happen to land moves a memory-heavy case by several per cent for as long as
//! they stay there (in A/As of crc over 1 MiB, up to +-15 % per process); spread over the
//! placements within the process, that bias shrinks instead of deciding the process's ratio.

use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

/// Performs a case once and returns a value derived from its output.
pub type Run = Box<dyn FnMut() -> u64>;

/// A case ready to time: its id, the digest of its verified output, and its runner (one run,
/// output discarded).
pub struct Timed {
    /// `exp/workload/variant`.
    pub id: String,
    /// SHA-256 of the output it produced when verified against its baseline.
    pub digest: String,
    /// Performs the case once.
    pub run: Run,
}

/// One case set up once per placement of its inputs.
pub struct Placed {
    /// `exp/workload/variant`.
    pub id: String,
    /// SHA-256 of its verified output (the same in every placement).
    pub digest: String,
    /// Its runner in each placement.
    pub runs: Vec<Run>,
}

/// The cases of several setups of one selection (one per placement, each in the same order),
/// case by case.
///
/// # Errors
///
/// When the setups differ in their cases or in a case's output digest.
pub fn placed(setups: Vec<Vec<Timed>>) -> Result<Vec<Placed>, String> {
    let mut setups = setups.into_iter();
    let mut out: Vec<Placed> = setups
        .next()
        .unwrap_or_default()
        .into_iter()
        .map(|t| Placed {
            id: t.id,
            digest: t.digest,
            runs: vec![t.run],
        })
        .collect();
    for setup in setups {
        if setup.len() != out.len() {
            return Err("two setups of one selection set up different cases".to_owned());
        }
        for (p, t) in out.iter_mut().zip(setup) {
            if (&t.id, &t.digest) != (&p.id, &p.digest) {
                return Err(format!(
                    "{}: a second setup gave {} with output {} (first: {})",
                    p.id, t.id, t.digest, p.digest
                ));
            }
            p.runs.push(t.run);
        }
    }
    Ok(out)
}

/// How long and how precisely each case is sampled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The time a batch should take, in nanoseconds (a batch is at least one run).
    pub batch_ns: u64,
    /// Warm-up per side before calibrating, in nanoseconds.
    pub warmup_ns: u64,
    /// Pairs taken before the precision is looked at.
    pub min_pairs: usize,
    /// Stop once the 95 % interval of the median pair ratio is within this relative distance
    /// of it (0.01: +-1 %).
    pub precision: f64,
    /// Stop a case after this many nanoseconds of pairs, precise or not (but never before
    /// [`Settings::min_pairs`]).
    pub max_ns: u64,
    /// Seeds the order of the sides in each pair.
    pub seed: u64,
    /// How many times each side's cases are set up, their inputs placed anew each time (see
    /// the module's description); at least 1.
    #[serde(default = "one")]
    pub placements: usize,
}

fn one() -> usize {
    1
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            batch_ns: 1_000_000,
            warmup_ns: 20_000_000,
            min_pairs: 24,
            precision: 0.01,
            max_ns: 400_000_000,
            seed: 1,
            placements: 1,
        }
    }
}

/// The pairs of one case in one process: time per run of each side's batch, pair by pair.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pairs {
    /// Runs per batch (the same for both sides).
    pub iters: u64,
    /// BASE's time per run in each pair, in nanoseconds.
    pub base_ns: Vec<f64>,
    /// NEW's, in the same pairs.
    pub new_ns: Vec<f64>,
}

impl Pairs {
    /// `ln(new / base)` of each pair.
    pub fn log_ratios(&self) -> Vec<f64> {
        self.base_ns
            .iter()
            .zip(&self.new_ns)
            .filter(|(b, n)| **b > 0.0 && **n > 0.0)
            .map(|(b, n)| (n / b).ln())
            .collect()
    }
}

/// One case's result in one process (one link layout).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedCase {
    /// BASE's output digest.
    pub base_digest: String,
    /// NEW's output digest.
    pub new_digest: String,
    /// The pairs.
    pub pairs: Pairs,
}

/// What one process of the dual harness measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LayoutRun {
    /// The cases present in both revisions, by id.
    pub cases: BTreeMap<String, PairedCase>,
}

/// The median of `v` (sorted in place); 0 when empty.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// Half the width of a distribution-free 95 % interval of the median of `logs` (order
/// statistics n/2 -+ 0.98 sqrt(n)), in log units; infinite below 8 values.
pub fn median_half_width(logs: &[f64]) -> f64 {
    let n = logs.len();
    if n < 8 {
        return f64::INFINITY;
    }
    let mut v = logs.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    let k = (0.98 * (n as f64).sqrt()).ceil() as usize;
    let (lo, hi) = ((n / 2).saturating_sub(k), (n / 2 + k).min(n - 1));
    (v[hi] - v[lo]) / 2.0
}

/// The time per run of one batch of `iters` runs, in nanoseconds. Never inlined: both sides
/// of a pair run through this one loop. Inlined, each call site got its own copy at its own
/// address, and the copies' speeds differed by up to 19 % on a 7 ns case, the same in every
/// link layout (section order moves whole functions, not the code within one).
#[inline(never)]
fn batch(run: &mut dyn FnMut() -> u64, iters: u64) -> f64 {
    let started = Instant::now();
    for _ in 0..iters {
        black_box(run());
    }
    started.elapsed().as_nanos() as f64 / iters as f64
}

/// Runs both sides alternately for about `warmup_ns` each, placement after placement, and
/// returns their mean time per run.
fn warm_up(base: &mut [Run], new: &mut [Run], warmup_ns: u64) -> f64 {
    let (mut runs, started) = (0u64, Instant::now());
    let mut iters = 1;
    let mut turn = 0;
    while (started.elapsed().as_nanos() as u64) < 2 * warmup_ns {
        let at = turn % base.len().min(new.len());
        batch(&mut base[at], iters);
        batch(&mut new[at], iters);
        runs += 2 * iters;
        iters = (iters * 2).min(1 << 20);
        turn += 1;
    }
    started.elapsed().as_nanos() as f64 / runs.max(1) as f64
}

/// Times `base` against `new` in pairs of equal batches, pair `i` in placement `i % n` of
/// both sides' `n` placements (see the module's description).
///
/// # Panics
///
/// When a side has no placement.
pub fn sample(base: &mut [Run], new: &mut [Run], settings: &Settings, rng: &mut Rng) -> Pairs {
    let placements = base.len().min(new.len());
    assert!(placements > 0, "a case to sample has a runner on each side");
    let per_run = warm_up(base, new, settings.warmup_ns);
    let iters = ((settings.batch_ns as f64 / per_run.max(1.0)).round() as u64).max(1);
    let mut pairs = Pairs {
        iters,
        ..Pairs::default()
    };
    let started = Instant::now();
    loop {
        let at = pairs.base_ns.len() % placements;
        let (base, new) = (&mut base[at], &mut new[at]);
        let (b, n) = if rng.next_u64() & 1 == 0 {
            let b = batch(base, iters);
            (b, batch(new, iters))
        } else {
            let n = batch(new, iters);
            (batch(base, iters), n)
        };
        pairs.base_ns.push(b);
        pairs.new_ns.push(n);
        if pairs.base_ns.len() >= settings.min_pairs
            && (median_half_width(&pairs.log_ratios()) <= settings.precision
                || started.elapsed().as_nanos() as u64 >= settings.max_ns)
        {
            return pairs;
        }
    }
}

/// Times every case present in both revisions, in BASE's order; `progress` hears each id
/// before it is timed.
pub fn run_layout(
    base: Vec<Placed>,
    new: Vec<Placed>,
    settings: &Settings,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> LayoutRun {
    let mut new: BTreeMap<String, Placed> = new.into_iter().map(|t| (t.id.clone(), t)).collect();
    let both: Vec<(Placed, Placed)> = base
        .into_iter()
        .filter_map(|b| new.remove(&b.id).map(|n| (b, n)))
        .collect();
    let mut rng = Rng::new(settings.seed);
    let mut out = LayoutRun::default();
    let total = both.len();
    for (i, (mut b, mut n)) in both.into_iter().enumerate() {
        progress(i, total, &b.id);
        let pairs = sample(&mut b.runs, &mut n.runs, settings, &mut rng);
        out.cases.insert(
            b.id,
            PairedCase {
                base_digest: b.digest,
                new_digest: n.digest,
                pairs,
            },
        );
    }
    out
}

/// A workload's cases for the ladder of `cargo lab bench`: the page's baseline and the other
/// variants, each timed in pairs against the baseline.
pub struct Rungs {
    /// The baseline's case.
    pub baseline: Timed,
    /// The other variants' cases, in ladder order.
    pub others: Vec<Timed>,
}

/// Times each variant of each workload against its baseline, in pairs (one process, one link
/// layout), over the setups' placements (one setup per placement, as [`placed`] takes them);
/// the results are keyed by the variant's id, BASE being the baseline.
///
/// # Errors
///
/// When the setups differ (see [`placed`]).
pub fn run_ladder(
    setups: Vec<Vec<Rungs>>,
    settings: &Settings,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<LayoutRun, String> {
    let others: Vec<usize> = setups
        .first()
        .map(|s| s.iter().map(|w| w.others.len()).collect())
        .unwrap_or_default();
    let flat = setups
        .into_iter()
        .map(|s| {
            s.into_iter()
                .flat_map(|w| std::iter::once(w.baseline).chain(w.others))
                .collect()
        })
        .collect();
    let mut cases = placed(flat)?.into_iter();
    let mut rng = Rng::new(settings.seed);
    let mut out = LayoutRun::default();
    let total = others.iter().sum();
    let mut i = 0;
    for n in others {
        let mut baseline = cases.next().ok_or("a setup lost a workload's baseline")?;
        for _ in 0..n {
            let mut other = cases.next().ok_or("a setup lost a variant")?;
            progress(i, total, &other.id);
            i += 1;
            let pairs = sample(&mut baseline.runs, &mut other.runs, settings, &mut rng);
            let case = PairedCase {
                base_digest: baseline.digest.clone(),
                new_digest: other.digest,
                pairs,
            };
            out.cases.insert(other.id, case);
        }
    }
    Ok(out)
}

/// The arguments every harness of this sampler takes: `OUT SETTINGS_JSON [SELECTION...]`.
struct Invocation {
    out: String,
    settings: Settings,
    selection: Vec<String>,
}

fn invocation(usage: &str) -> Invocation {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(settings)) = (args.first(), args.get(1)) else {
        eprintln!("usage: {usage} OUT SETTINGS_JSON [SELECTION...]");
        std::process::exit(2);
    };
    let settings: Settings = serde_json::from_str(settings).unwrap_or_else(|e| {
        eprintln!("error: bad settings: {e}");
        std::process::exit(2)
    });
    Invocation {
        out: out.clone(),
        settings,
        selection: args[2..].to_vec(),
    }
}

/// A side's setup of the selection's cases, its inputs placed as the placement's index says.
pub type Setup<T> = fn(&[String], u64) -> Result<T, String>;

/// Sets up cases after a seed-dependent allocation (so that neither side keeps one lucky
/// placement of its inputs from layout to layout); exits with status 1 on an error.
fn load<T>(side: Setup<T>, placement: u64, selection: &[String], rng: &mut Rng) -> (Vec<u8>, T) {
    let pad = vec![0u8; rng.range(1, 64 * 1024)];
    let cases = side(selection, placement).unwrap_or_else(|e| fail(&e));
    (pad, cases)
}

fn fail(e: &str) -> ! {
    eprintln!("error: {e}");
    std::process::exit(1)
}

/// Progress on stderr: one rewritten line on a terminal, every tenth case otherwise.
fn progress_line(tty: bool) -> impl FnMut(usize, usize, &str) {
    move |i, total, id| {
        if tty {
            eprint!("\r\x1b[2K  [{}/{total}] {id}", i + 1);
        } else if i == 0 || (i + 1) % 10 == 0 || i + 1 == total {
            eprintln!("  [{}/{total}] {id}", i + 1);
        }
    }
}

fn finish(run: &LayoutRun, out: &str, tty: bool) {
    if tty {
        eprintln!();
    }
    let json = serde_json::to_string(run).expect("a layout run serializes");
    std::fs::write(out, json).unwrap_or_else(|e| {
        eprintln!("error: writing {out}: {e}");
        std::process::exit(2)
    });
}

/// The dual harness's `main`: `HARNESS OUT SETTINGS_JSON [SELECTION...]`. Sets up each side's
/// cases once per placement, times them and writes the [`LayoutRun`] to OUT as JSON.
pub fn main(base: Setup<Vec<Timed>>, new: Setup<Vec<Timed>>) {
    let inv = invocation("dual-harness");
    let mut rng = Rng::new(inv.settings.seed ^ 0xA11C);
    let (mut pads, mut b, mut n) = (Vec::new(), Vec::new(), Vec::new());
    for placement in 0..inv.settings.placements.max(1) as u64 {
        // Which side is set up first follows the seed (each process of each layout has its
        // own): in A/As of crc over 1 MiB on an Intel Xeon the side set up second tended to
        // read a few per cent faster, so one fixed order would lean every layout the same way.
        let base_first = rng.next_u64() & 1 == 0;
        for is_base in [base_first, !base_first] {
            let (side, into) = if is_base {
                (base, &mut b)
            } else {
                (new, &mut n)
            };
            let (pad, cases) = load(side, placement, &inv.selection, &mut rng);
            pads.push(pad);
            into.push(cases);
        }
    }
    let (b, n) = (
        placed(b).unwrap_or_else(|e| fail(&e)),
        placed(n).unwrap_or_else(|e| fail(&e)),
    );
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let run = run_layout(b, n, &inv.settings, &mut progress_line(tty));
    finish(&run, &inv.out, tty);
}

/// The ladder harness's `main` (same arguments as [`main`]): one revision's workloads, set up
/// once per placement, each variant timed against the baseline ([`run_ladder`]).
pub fn main_ladder(rungs: Setup<Vec<Rungs>>) {
    let inv = invocation("ladder-harness");
    let mut rng = Rng::new(inv.settings.seed ^ 0xA11C);
    let (mut pads, mut setups) = (Vec::new(), Vec::new());
    for placement in 0..inv.settings.placements.max(1) as u64 {
        let (pad, workloads) = load(rungs, placement, &inv.selection, &mut rng);
        pads.push(pad);
        setups.push(workloads);
    }
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let run =
        run_ladder(setups, &inv.settings, &mut progress_line(tty)).unwrap_or_else(|e| fail(&e));
    finish(&run, &inv.out, tty);
}
