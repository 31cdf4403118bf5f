//! The machine's pace: how long two fixed probes take now against the fastest this run has
//! seen.
//!
//! A shared machine does not run at one speed. On this one the clock moves between states with
//! what other tenants do (a chain of dependent multiplies takes 28.7 µs, or 35.8 or 40.1, nothing
//! between), and whoever shares the physical core slows a branchy byte loop over 16 KiB from
//! 76.4 µs to as much as 130 for seconds at a time while the multiply chain does not move.
//! criterion's absolute times taken in such a spell are not comparable with the rest of a page
//! (the ladder's paired ratios mostly are). So the wall-time harness waits for full pace before
//! each case and records the pace it measured at ([`Reading`]) beside each median; the report
//! names the cases measured off pace.

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The slowdown of either probe below which the machine counts as at full pace (each probe
/// repeats within 1 % on a quiet machine; the clock's states are 25 % and more apart).
pub const TOLERANCE: f64 = 1.05;

/// How much slower than the run's fastest the two probes ran (1.0 = as fast as the fastest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reading {
    /// A chain of dependent multiplies: the core's clock.
    pub clock: f64,
    /// A byte loop with a branch per byte over 16 KiB: loads, branches and the L1 cache, what
    /// another thread on the same physical core takes a share of.
    pub core: f64,
}

impl Reading {
    /// Whether both probes are within [`TOLERANCE`].
    pub fn at_full_pace(&self) -> bool {
        self.clock <= TOLERANCE && self.core <= TOLERANCE
    }

    /// The slower of each probe over two readings (a measurement's before and after).
    pub fn worst(self, other: Self) -> Self {
        Self {
            clock: self.clock.max(other.clock),
            core: self.core.max(other.core),
        }
    }
}

/// Iterations of the clock probe's chain (about 30 µs).
const CHAIN: u64 = 200_000;
/// Octets the core probe's loop reads, eight times over (about 80 µs).
const TEXT: usize = 16 << 10;
/// Runs of each probe in one reading; the fastest counts.
const RUNS: usize = 3;
/// How long [`Pace::wait`] sleeps between readings.
const POLL: Duration = Duration::from_millis(200);

/// The fastest probe times seen so far, and the waiting done.
pub struct Pace {
    clock_ns: f64,
    core_ns: f64,
    text: Vec<u8>,
    waited: Duration,
    budget: Duration,
}

impl Pace {
    /// Takes a few readings to find the machine's pace; at most `budget` of waiting in all.
    pub fn start(budget: Duration) -> Self {
        let mut pace = Self {
            clock_ns: f64::MAX,
            core_ns: f64::MAX,
            text: (0..TEXT).map(|i| (i * 31 % 251) as u8).collect(),
            waited: Duration::ZERO,
            budget,
        };
        for _ in 0..5 {
            pace.read();
        }
        pace
    }

    /// One reading against the fastest so far (which it may lower).
    pub fn read(&mut self) -> Reading {
        let clock = fastest(clock_probe);
        let core = fastest(|| core_probe(&self.text));
        self.clock_ns = self.clock_ns.min(clock);
        self.core_ns = self.core_ns.min(core);
        Reading {
            clock: clock / self.clock_ns,
            core: core / self.core_ns,
        }
    }

    /// Waits up to `most` (and what is left of the run's budget) for full pace; returns the
    /// last reading. Says on stderr when it waits.
    pub fn wait(&mut self, most: Duration, what: &str) -> Reading {
        let started = Instant::now();
        let mut reading = self.read();
        if reading.at_full_pace() || !self.budget_left() {
            return reading;
        }
        eprintln!(
            "lab: the machine runs slower than its fastest (clock {:.2}x, core {:.2}x): waiting before {what}",
            reading.clock, reading.core
        );
        while !reading.at_full_pace()
            && started.elapsed() < most
            && self.waited + started.elapsed() < self.budget
        {
            std::thread::sleep(POLL);
            reading = self.read();
        }
        self.waited += started.elapsed();
        if !self.budget_left() {
            eprintln!(
                "lab: waited {:.0} s for full pace in all, the run's budget: measuring without waiting from here (the report names the cases measured off pace)",
                self.waited.as_secs_f64()
            );
        }
        reading
    }

    /// Whether the run may still wait for full pace.
    pub fn budget_left(&self) -> bool {
        self.waited < self.budget
    }

    /// The waiting done so far.
    pub fn waited(&self) -> Duration {
        self.waited
    }
}

/// Nanoseconds of the fastest of [`RUNS`] runs of `f`.
fn fastest(mut f: impl FnMut()) -> f64 {
    (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed().as_nanos() as f64
        })
        .fold(f64::MAX, f64::min)
}

/// A chain of [`CHAIN`] dependent multiply-adds.
fn clock_probe() {
    let mut x = black_box(1u64);
    for _ in 0..CHAIN {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    black_box(x);
}

/// A byte loop with a data-dependent branch per byte, eight times over `text`.
fn core_probe(text: &[u8]) {
    let mut sum = 0u32;
    for _ in 0..8 {
        for &b in black_box(text) {
            if b > 128 {
                sum = sum.wrapping_add(u32::from(b) * 3);
            } else {
                sum ^= u32::from(b);
            }
        }
    }
    black_box(sum);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_takes_the_slower_of_each_probe() {
        let a = Reading {
            clock: 1.25,
            core: 1.0,
        };
        let b = Reading {
            clock: 1.0,
            core: 1.4,
        };
        assert_eq!(
            a.worst(b),
            Reading {
                clock: 1.25,
                core: 1.4
            }
        );
        assert!(!a.at_full_pace() && !b.at_full_pace());
        assert!(
            Reading {
                clock: 1.04,
                core: 1.03
            }
            .at_full_pace()
        );
    }

    #[test]
    fn a_reading_is_against_the_fastest_so_far() {
        let mut pace = Pace::start(Duration::ZERO);
        let r = pace.read();
        // Never faster than the fastest: the floor moves down to any faster reading.
        assert!(r.clock >= 1.0 && r.core >= 1.0, "{r:?}");
        // With no budget, waiting returns at once.
        let started = Instant::now();
        pace.wait(Duration::from_secs(60), "nothing");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(pace.waited(), Duration::ZERO);
    }
}
