//! The machine's pace: how long a fixed probe takes now against the fastest this run has seen.
//!
//! A shared machine does not run at one speed. On this one the clock moves between two states
//! with what other tenants do (a chain of dependent multiplies takes 143 or 179 µs, nothing in
//! between), and memory-heavy neighbours slow an 8 MiB inflate from 5.2 to 9.5 ms for seconds
//! at a time. criterion's absolute times taken in such a spell are not comparable with the rest
//! of a page (the ladder's paired ratios mostly are). So the wall-time harness waits for full
//! pace before each case and records the pace it measured at ([`Reading`]) beside each median;
//! the report names the cases measured off pace.

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The core probe's slowdown below which the machine counts as at full pace (the clock's two
/// states are 25 % apart; the probe itself repeats within 1 %).
pub const CORE_TOLERANCE: f64 = 1.05;

/// The memory probe's slowdown below which the machine counts as at full pace (a copy of
/// 8 MiB repeats within about 10 % on a quiet machine).
pub const MEMORY_TOLERANCE: f64 = 1.15;

/// How much slower than the run's fastest the two probes ran (1.0 = as fast as the fastest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reading {
    /// A chain of dependent multiplies: the core's clock, and anything sharing the core.
    pub core: f64,
    /// A copy of 8 MiB: the caches and memory the machine's tenants share.
    pub memory: f64,
}

impl Reading {
    /// Whether both probes are within their tolerance.
    pub fn at_full_pace(&self) -> bool {
        self.core <= CORE_TOLERANCE && self.memory <= MEMORY_TOLERANCE
    }

    /// The slower of each probe over two readings (a measurement's before and after).
    pub fn worst(self, other: Self) -> Self {
        Self {
            core: self.core.max(other.core),
            memory: self.memory.max(other.memory),
        }
    }
}

/// Iterations of the core probe's chain (about 30 µs).
const CHAIN: u64 = 200_000;
/// Octets the memory probe copies.
const COPY: usize = 8 << 20;
/// Runs of each probe in one reading; the fastest counts.
const RUNS: usize = 3;
/// How long [`Pace::wait`] sleeps between readings.
const POLL: Duration = Duration::from_millis(200);

/// The fastest probe times seen so far, and the waiting done.
pub struct Pace {
    core_ns: f64,
    memory_ns: f64,
    from: Vec<u8>,
    to: Vec<u8>,
    waited: Duration,
    budget: Duration,
}

impl Pace {
    /// Takes a few readings to find the machine's pace; at most `budget` of waiting in all.
    pub fn start(budget: Duration) -> Self {
        let mut pace = Self {
            core_ns: f64::MAX,
            memory_ns: f64::MAX,
            from: vec![1; COPY],
            to: vec![0; COPY],
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
        let core = fastest(core_probe);
        let (from, to) = (&self.from, &mut self.to);
        let memory = fastest(|| {
            to.copy_from_slice(black_box(from));
            black_box(&*to);
        });
        self.core_ns = self.core_ns.min(core);
        self.memory_ns = self.memory_ns.min(memory);
        Reading {
            core: core / self.core_ns,
            memory: memory / self.memory_ns,
        }
    }

    /// Waits up to `most` (and what is left of the run's budget) for full pace; returns the
    /// last reading. Says on stderr when it waits.
    pub fn wait(&mut self, most: Duration, what: &str) -> Reading {
        let started = Instant::now();
        let mut reading = self.read();
        if reading.at_full_pace() || self.waited >= self.budget {
            return reading;
        }
        eprintln!(
            "lab: the machine runs slower than its fastest (core {:.2}x, memory {:.2}x): waiting before {what}",
            reading.core, reading.memory
        );
        while !reading.at_full_pace()
            && started.elapsed() < most
            && self.waited + started.elapsed() < self.budget
        {
            std::thread::sleep(POLL);
            reading = self.read();
        }
        self.waited += started.elapsed();
        if self.waited >= self.budget {
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
fn core_probe() {
    let mut x = black_box(1u64);
    for _ in 0..CHAIN {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    black_box(x);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_takes_the_slower_of_each_probe() {
        let a = Reading {
            core: 1.25,
            memory: 1.0,
        };
        let b = Reading {
            core: 1.0,
            memory: 1.4,
        };
        assert_eq!(
            a.worst(b),
            Reading {
                core: 1.25,
                memory: 1.4
            }
        );
        assert!(!a.at_full_pace() && !b.at_full_pace());
        assert!(
            Reading {
                core: 1.04,
                memory: 1.1
            }
            .at_full_pace()
        );
    }

    #[test]
    fn a_reading_is_against_the_fastest_so_far() {
        let mut pace = Pace::start(Duration::ZERO);
        let r = pace.read();
        // Never faster than the fastest: the floor moves down to any faster reading.
        assert!(r.core >= 1.0 && r.memory >= 1.0, "{r:?}");
        // With no budget, waiting returns at once.
        let started = Instant::now();
        pace.wait(Duration::from_secs(60), "nothing");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(pace.waited(), Duration::ZERO);
    }
}
