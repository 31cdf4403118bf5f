//! Wall-time harness (criterion). Walks the selection named by `WIRELAB_SELECTION` (everything
//! this build measures by default), verifies each case against the baseline, times it, and
//! writes what criterion measured (estimates and raw samples) per case id to
//! `target/wirelab/wall/<exp>.json`. `WIRELAB_QUICK=1` selects short warm-up and measurement
//! times. Each case waits for the machine's full pace and records the pace it ran at
//! ([`wirelab_bench::pace`]).
//!
//! A binary of the lab's package, not a `cargo bench` target, so that it shares the lab's own
//! release build: `cargo lab bench` runs it as `wall --bench` (criterion's arguments; without
//! `--bench`, or with `--test`, every benchmark runs once and nothing is timed).
#![allow(missing_docs)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};
use wirelab_bench::catalog::{self, CaseId, Group, Sink};
use wirelab_bench::pace::{Pace, Reading};
use wirelab_bench::progress::Progress;
use wirelab_bench::records::{Metric, Samples, Verification, Wall, read_json, write_json};
use wirelab_bench::{fail, paths};

fn main() {
    let quick = wirelab_bench::quick_from_env();
    let sel = wirelab_bench::selection_from_env().unwrap_or_else(|e| fail(e));
    let mut c = criterion(quick);
    // Quick and full runs keep their durations apart, for the ETA.
    let phase = if quick { "wall-quick" } else { "wall" };
    let mut progress = Progress::new(phase, planned_cases(&sel));
    let budget = match (test_mode(), quick) {
        (true, _) => Duration::ZERO,
        (false, true) => QUICK_PACE_BUDGET,
        (false, false) => FULL_PACE_BUDGET,
    };
    let mut pace = Pace::start(budget);
    let mut off_pace = 0;
    for group in catalog::walk(&sel) {
        let group = group.unwrap_or_else(|e| fail(e));
        let exp = group.exp.id();
        let measured = measure(&mut c, group, quick, &mut pace, &mut progress);
        off_pace += measured.iter().filter(|(_, r)| !r.at_full_pace()).count();
        write_records(&exp, &measured);
    }
    if !test_mode() {
        progress.finish();
        eprintln!(
            "lab: wall: {off_pace} case(s) measured off the machine's full pace; waited {:.0} s for it",
            pace.waited().as_secs_f64()
        );
    }
    c.final_summary();
}

/// criterion configured for a quick or a full run (its arguments read from the command line).
fn criterion(quick: bool) -> Criterion {
    let (warm_up, measurement) = if quick { QUICK } else { FULL };
    let c = Criterion::default()
        .output_directory(&criterion_home())
        .warm_up_time(warm_up)
        .measurement_time(measurement)
        .nresamples(if quick { QUICK_RESAMPLES } else { RESAMPLES });
    // criterion's HTML report (target/criterion/report/index.html: the distributions) only when
    // asked for (`cargo lab bench --html`): its plots about double the time per case.
    let html = std::env::var(ENV_HTML).is_ok_and(|v| v == "1");
    if html { c } else { c.without_plots() }.configure_from_args()
}

/// The most a run waits for the machine's full pace ([`Pace`]), all cases together.
const FULL_PACE_BUDGET: Duration = Duration::from_secs(300);
/// The same for `--quick`.
const QUICK_PACE_BUDGET: Duration = Duration::from_secs(15);
/// The most one case waits for full pace before it is measured.
const CASE_WAIT: Duration = Duration::from_secs(20);
/// How many times a case measured while the machine slowed is measured again (full, quick).
const RETRIES: (usize, usize) = (2, 1);

/// criterion's test mode (`--test`, `--list`): each benchmark runs once, nothing is measured.
fn test_mode() -> bool {
    std::env::args().any(|a| a == "--test" || a == "--list")
}

/// Environment variable that keeps criterion's HTML report when set to `1`.
const ENV_HTML: &str = "WIRELAB_HTML";

/// Warm-up and measurement time per case of a full run (criterion's defaults are 3 s and 5 s;
/// the reports' notes compare the intervals). The verifying run before the warm-up is a run
/// too, so a short warm-up suffices. 1.5 s of samples (2 s until 2026-12-07): the speed-ups
/// come from the ladder, criterion gives the absolute times; it brought a first full run on a
/// fresh machine from 2,550 s to 2,008 s with the build changes of that day.
const FULL: (Duration, Duration) = (Duration::from_millis(300), Duration::from_millis(1500));
/// The same for `--quick` (rough numbers, 20 samples of cases faster than 0.7 ms a run).
const QUICK: (Duration, Duration) = (Duration::from_millis(30), Duration::from_millis(150));
/// Bootstrap resamples of criterion's own analysis per case (its default, 100,000, costs
/// about 0.2 s a case; the reports' intervals are the lab's own bootstrap, see
/// `report::bootstrap`).
const RESAMPLES: usize = 20_000;
/// The same for `--quick`.
const QUICK_RESAMPLES: usize = 5_000;

/// The cases this run will measure, one cell each, as the run's verification recorded them
/// (for the progress line; empty when no verification was recorded).
fn planned_cases(sel: &wirelab_bench::selection::Selection) -> Vec<(String, usize)> {
    sel.experiments()
        .iter()
        .filter_map(|e| read_json::<Verification>(&Metric::Verify.file(&e.id())).ok())
        .flat_map(|v| v.outputs.into_keys().map(|k| (k.to_string(), 1)))
        .collect()
}

/// Samples per case and how criterion spaces their iterations, from the time of one run of
/// the case (timed after its verifying run): as many samples as fit the measurement time with criterion's
/// linear sampling (sample i runs i times d iterations, so n samples take at least
/// n(n+1)/2 runs), between 10 and 100 (20 when quick). A case too slow for 10 linear samples
/// gets 10 flat ones (the same iterations in each), so it takes about max(time, 10 runs)
/// instead of up to twice the measurement time.
fn sampling(one_run: Duration, measurement: Duration, quick: bool) -> (usize, SamplingMode) {
    let cap = if quick { 20 } else { 100 };
    let runs = measurement.as_secs_f64() / one_run.as_secs_f64().max(1e-9);
    // The largest n with n(n+1)/2 <= runs.
    let fits = (((8.0 * runs + 1.0).sqrt() - 1.0) / 2.0).floor() as usize;
    if fits < 10 {
        (10, SamplingMode::Flat)
    } else {
        (fits.min(cap), SamplingMode::Linear)
    }
}

/// Verifies and times every case of one experiment page, each at the machine's full pace where
/// it can wait for it ([`Pace::wait`]); a case the machine slowed during is measured again (a
/// fresh criterion, whose result replaces the first in criterion's folder). Returns the case ids
/// with the pace each was measured at.
fn measure(
    c: &mut Criterion,
    group: Group,
    quick: bool,
    pace: &mut Pace,
    progress: &mut Progress,
) -> Vec<(CaseId, Reading)> {
    let exp = group.exp.id();
    let mut bench = c.benchmark_group(&exp);
    let measurement = if quick { QUICK.1 } else { FULL.1 };
    let mut measured = Vec::new();
    for mut case in group.cases {
        let name = case.id.to_string();
        progress.step(&name);
        case.verified().unwrap_or_else(|e| fail(e));
        let (mut runner, mut sink) = (case.runner, Sink::discard());
        let started = Instant::now();
        black_box(runner(&mut sink));
        let (samples, mode) = sampling(started.elapsed(), measurement, quick);
        let (id, bytes) = (
            BenchmarkId::new(&case.id.variant, &case.id.workload),
            case.workload.bytes,
        );
        let time = |bench: &mut BenchmarkGroup<'_, WallTime>| {
            bench.throughput(Throughput::Bytes(bytes));
            bench.sample_size(samples).sampling_mode(mode);
            bench.bench_function(id.clone(), |b| b.iter(|| black_box(runner(&mut sink))));
        };
        let reading = time_at_full_pace(&mut bench, time, pace, (&exp, &name), quick);
        measured.push((case.id, reading));
    }
    bench.finish();
    measured
}

/// Times one case (`time` measures it into a group) once the machine is at full pace, and
/// again with a fresh criterion instance (at most [`RETRIES`] times, while the run's budget for
/// waiting lasts) when the machine slowed during it: the pace of its last measurement, the
/// worse of the readings before and after. `(exp, name)`: its experiment's group and its id.
fn time_at_full_pace(
    bench: &mut BenchmarkGroup<'_, WallTime>,
    mut time: impl FnMut(&mut BenchmarkGroup<'_, WallTime>),
    pace: &mut Pace,
    (exp, name): (&str, &str),
    quick: bool,
) -> Reading {
    let before = pace.wait(CASE_WAIT, name);
    time(bench);
    let mut reading = before.worst(pace.read());
    let retries = if quick { RETRIES.1 } else { RETRIES.0 };
    for _ in 0..retries {
        if reading.at_full_pace() || test_mode() || !pace.budget_left() {
            break;
        }
        eprintln!(
            "lab: {name}: the machine slowed during the measurement (clock {:.2}x, core {:.2}x its fastest): measuring it again",
            reading.clock, reading.core
        );
        let before = pace.wait(CASE_WAIT, name);
        if !before.at_full_pace() {
            break;
        }
        let mut again = criterion(quick);
        let mut group = again.benchmark_group(exp);
        time(&mut group);
        group.finish();
        reading = before.worst(pace.read());
    }
    reading
}

/// Where criterion keeps its measurements (`target/criterion`, where `cargo bench` put them).
fn criterion_home() -> std::path::PathBuf {
    paths::target_dir().join("criterion")
}

/// criterion's folder of a case's latest measurement.
fn criterion_dir(id: &CaseId) -> std::path::PathBuf {
    criterion_home()
        .join(&id.exp)
        .join(&id.variant)
        .join(&id.workload)
        .join("new")
}

#[derive(serde::Deserialize)]
struct Estimates {
    median: Estimate,
}

#[derive(serde::Deserialize)]
struct Estimate {
    point_estimate: f64,
    confidence_interval: Interval,
}

#[derive(serde::Deserialize)]
struct Interval {
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(serde::Deserialize)]
struct Sample {
    iters: Vec<f64>,
    times: Vec<f64>,
}

fn read_wall(id: &CaseId) -> Result<Wall, String> {
    let dir = criterion_dir(id);
    let est: Estimates = read_json(&dir.join("estimates.json"))?;
    let sample: Sample = read_json(&dir.join("sample.json"))?;
    Ok(Wall {
        median_ns: est.median.point_estimate,
        lower_ns: est.median.confidence_interval.lower_bound,
        upper_ns: est.median.confidence_interval.upper_bound,
        samples: Samples {
            iters: sample.iters,
            times_ns: sample.times,
        },
        pace: None,
    })
}

/// Writes the cases' wall records. In criterion's test mode (`--test`) nothing was measured
/// and nothing is written.
fn write_records(exp: &str, measured: &[(CaseId, Reading)]) {
    if test_mode() {
        return;
    }
    let mut records = BTreeMap::new();
    for (id, pace) in measured {
        let mut wall = read_wall(id).unwrap_or_else(|e| fail(format!("{id}: {e}")));
        wall.pace = Some(*pace);
        records.insert(id.to_string(), wall);
    }
    write_json(&Metric::Wall.file(exp), &records).unwrap_or_else(|e| fail(e));
}
