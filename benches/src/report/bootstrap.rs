//! The interval of a wall-time ratio: a bootstrap over criterion's raw samples of both
//! variants. Each of [`RESAMPLES`] rounds draws, with replacement, as many samples as each side
//! has, takes the median time per run of each, and their ratio; the interval is the 2.5th and
//! 97.5th percentile of those ratios. The generator has a fixed seed, so the same samples always
//! give the same interval and re-rendering a report is byte-stable.
//!
//! [`ratio_of_rounds`] is the same for samples gathered in several processes (`cargo lab
//! compare`'s rounds): on a shared machine a whole round can run fast or slow, so rounds are
//! resampled as units before their samples are.

use crate::records::Samples;
use crate::rng::Rng;

/// Bootstrap rounds per ratio.
pub const RESAMPLES: usize = 10_000;

/// Bootstrap draws per ratio in [`ratio_of_rounds`].
pub const ROUND_RESAMPLES: usize = 20_000;

/// The generator's seed.
const SEED: u64 = 0x5EED_B007;

/// A ratio and its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    /// The ratio of the medians of all samples.
    pub value: f64,
    /// The 2.5th percentile of the bootstrap ratios.
    pub lower: f64,
    /// The 97.5th percentile.
    pub upper: f64,
}

impl Ratio {
    /// Whether the interval contains 1: no difference can be claimed.
    pub fn spans_one(&self) -> bool {
        self.lower <= 1.0 && self.upper >= 1.0
    }
}

/// Time per run of each sample.
fn per_run(s: &Samples) -> Vec<f64> {
    s.iters
        .iter()
        .zip(&s.times_ns)
        .filter(|(i, _)| **i > 0.0)
        .map(|(i, t)| t / i)
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    let mid = v.len() / 2;
    let (_, m, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let m = *m;
    if v.len() % 2 == 1 {
        m
    } else {
        let below = v[..mid].iter().copied().fold(f64::MIN, f64::max);
        (below + m) / 2.0
    }
}

fn resample(from: &[f64], into: &mut Vec<f64>, rng: &mut Rng) -> f64 {
    into.clear();
    into.extend((0..from.len()).map(|_| from[rng.range(0, from.len() - 1)]));
    median(into)
}

/// `numerator / denominator` of the median times per run (for a speed-up: the baseline's
/// samples over the variant's), with its bootstrap interval; `None` when a side has no samples.
pub fn ratio(numerator: &Samples, denominator: &Samples) -> Option<Ratio> {
    let (a, b) = (per_run(numerator), per_run(denominator));
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let value = median(&mut a.clone()) / median(&mut b.clone());
    let mut rng = Rng::new(SEED);
    let (mut ra, mut rb) = (Vec::with_capacity(a.len()), Vec::with_capacity(b.len()));
    let ratios = (0..RESAMPLES)
        .map(|_| resample(&a, &mut ra, &mut rng) / resample(&b, &mut rb, &mut rng))
        .collect();
    Some(percentiles(value, ratios, 0.95))
}

/// `value` with the central `level` interval of the bootstrap `ratios` (for 0.95: their
/// 2.5th and 97.5th percentiles).
fn percentiles(value: f64, mut ratios: Vec<f64>, level: f64) -> Ratio {
    ratios.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    Ratio {
        value,
        lower: at(tail),
        upper: at(1.0 - tail),
    }
}

/// The median over rounds of each round's median time per run.
fn median_of_rounds(rounds: &mut [Vec<f64>]) -> f64 {
    let mut medians: Vec<f64> = rounds.iter_mut().map(|r| median(r)).collect();
    median(&mut medians)
}

/// One bootstrap draw of [`median_of_rounds`]: as many rounds as there are, drawn with
/// replacement, each with its samples drawn with replacement.
fn resample_rounds(rounds: &[Vec<f64>], scratch: &mut Vec<f64>, rng: &mut Rng) -> f64 {
    let mut medians: Vec<f64> = (0..rounds.len())
        .map(|_| {
            let round = &rounds[rng.range(0, rounds.len() - 1)];
            resample(round, scratch, rng)
        })
        .collect();
    median(&mut medians)
}

/// `numerator / denominator` for samples taken in rounds (one [`Samples`] per round, each from
/// its own process): the ratio of the medians over rounds of each round's median time per run,
/// with a two-level bootstrap interval (rounds drawn with replacement, then each drawn round's
/// samples), so that a difference between rounds widens the interval instead of passing for a
/// difference between the sides. The interval covers `level` (0.95 for a 95 % interval;
/// [`ROUND_RESAMPLES`] draws, so that levels up to about 0.999 keep 10 draws in each tail).
/// `None` when a side has no samples.
pub fn ratio_of_rounds(
    numerator: &[Samples],
    denominator: &[Samples],
    level: f64,
) -> Option<Ratio> {
    let rounds = |side: &[Samples]| -> Vec<Vec<f64>> {
        side.iter().map(per_run).filter(|r| !r.is_empty()).collect()
    };
    let (a, b) = (rounds(numerator), rounds(denominator));
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let value = median_of_rounds(&mut a.clone()) / median_of_rounds(&mut b.clone());
    let mut rng = Rng::new(SEED);
    let mut scratch = Vec::new();
    let ratios = (0..ROUND_RESAMPLES)
        .map(|_| {
            resample_rounds(&a, &mut scratch, &mut rng)
                / resample_rounds(&b, &mut scratch, &mut rng)
        })
        .collect();
    Some(percentiles(value, ratios, level))
}

/// A speed-up as the tables show it: `1.71x [1.69, 1.73]`, or `≈1.00x [0.98, 1.03]` when the
/// interval contains 1.
pub fn fmt(r: &Ratio) -> String {
    if r.spans_one() {
        format!("≈1.00x [{:.2}, {:.2}]", r.lower, r.upper)
    } else {
        format!("{:.2}x [{:.2}, {:.2}]", r.value, r.lower, r.upper)
    }
}
