//! Progress of a long phase: done/total cells and an ETA from the durations of the previous run
//! (kept under `target/wirelab/durations/<phase>.json`, keyed by experiment or case id).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// One phase's progress over a list of steps (experiments or cases), each of some cells.
pub struct Progress {
    phase: &'static str,
    steps: BTreeMap<String, usize>,
    started: Instant,
    step_started: Option<(String, Instant)>,
    previous: BTreeMap<String, f64>,
    current: BTreeMap<String, f64>,
}

fn file(phase: &str) -> PathBuf {
    crate::paths::lab_dir()
        .join("durations")
        .join(format!("{phase}.json"))
}

/// Formats seconds as `1h02m`, `3m05s` or `42s`.
pub fn fmt_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

impl Progress {
    /// Starts a phase over `steps` (id, cells), reading the previous run's durations.
    pub fn new(phase: &'static str, steps: Vec<(String, usize)>) -> Self {
        let previous = crate::records::read_json(&file(phase)).unwrap_or_default();
        Self {
            phase,
            steps: steps.into_iter().collect(),
            started: Instant::now(),
            step_started: None,
            previous,
            current: BTreeMap::new(),
        }
    }

    /// Seconds the steps not done yet will take: the previous run's durations where known,
    /// else this run's pace per cell so far.
    fn eta(&self) -> Option<f64> {
        let done_cells: usize = self.current.keys().filter_map(|k| self.steps.get(k)).sum();
        let pace =
            (done_cells > 0).then(|| self.started.elapsed().as_secs_f64() / done_cells as f64);
        self.steps
            .iter()
            .filter(|(id, _)| !self.current.contains_key(*id))
            .map(|(id, cells)| {
                self.previous
                    .get(id)
                    .copied()
                    .or(pace.map(|p| p * *cells as f64))
            })
            .sum()
    }

    /// Marks the start of step `id` and prints where the phase stands.
    pub fn step(&mut self, id: &str) {
        self.finish_step();
        let total: usize = self.steps.values().sum();
        let done: usize = self.current.keys().filter_map(|k| self.steps.get(k)).sum();
        let eta = self.eta().map_or_else(
            || "ETA unknown".to_owned(),
            |s| format!("ETA {}", fmt_secs(s)),
        );
        eprintln!(
            "lab: {} [{done}/{total} cells done] {id} ({} elapsed, {eta})",
            self.phase,
            fmt_secs(self.started.elapsed().as_secs_f64())
        );
        self.step_started = Some((id.to_owned(), Instant::now()));
    }

    fn finish_step(&mut self) {
        if let Some((id, t)) = self.step_started.take() {
            self.current.insert(id, t.elapsed().as_secs_f64());
        }
    }

    /// Ends the phase: records this run's durations for the next run's ETA; returns the phase's
    /// seconds.
    pub fn finish(mut self) -> f64 {
        self.finish_step();
        let mut all = self.previous;
        all.extend(self.current);
        // Losing the durations only costs the next run its ETA.
        let _ = crate::records::write_json(&file(self.phase), &all);
        self.started.elapsed().as_secs_f64()
    }
}
