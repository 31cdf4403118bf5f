//! The interval of a wall-time ratio: a bootstrap over criterion's raw samples of both
//! variants. Each of [`RESAMPLES`] rounds draws, with replacement, as many samples as each side
//! has, takes the median time per run of each, and their ratio; the interval is the 2.5th and
//! 97.5th percentile of those ratios. The generator has a fixed seed, so the same samples always
//! give the same interval and re-rendering a report is byte-stable.
//!
//! [`ratio_of_rounds`] is the same for samples gathered in several processes (`cargo lab
//! compare`'s rounds): on a shared machine a whole round can run fast or slow, so rounds are
//! resampled as units before their samples are.

use crate::records::{Record, Samples};
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

/// A variant's speed-up over its page's baseline (`base`): from the ladder over link layouts
/// where the run measured one (see [`crate::records::LayoutSpeedup`]), else the bootstrap over both cells'
/// criterion samples; `None` without either.
pub fn speedup(base: &Record, r: &Record) -> Option<Ratio> {
    if let Some(l) = &r.ladder {
        return Some(Ratio {
            value: l.value,
            lower: l.lower,
            upper: l.upper,
        });
    }
    ratio(&base.wall.as_ref()?.samples, &r.wall.as_ref()?.samples)
}

/// Bootstrap draws of the one-layout interval in [`ratio_over_layouts`].
pub const LAYOUT_RESAMPLES: usize = 4_000;

/// NEW/BASE from paired samples taken under several link layouts, and how much the layout
/// alone moved it.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutRatio {
    /// The ratio and its interval.
    pub ratio: Ratio,
    /// Each layout's own ratio (the median of its pairs' ratios), in layout order.
    pub per_layout: Vec<f64>,
}

/// NEW/BASE of a case timed in pairs under several link layouts (`layouts[l]` holds each
/// pair's `ln(new / base)` in layout `l`): the 20 % trimmed geometric mean over layouts of each
/// layout's median pair ratio, so that a layout that favours one side counts like one that
/// favours the other, and one process that the machine disturbed (a neighbour's load on the
/// shared core hits one side of a case for its whole sampling now and then: 1.25 in one run of a
/// layout, 1.00 in the next) does not decide the ratio.
///
/// The interval treats the layouts as a sample of the layouts (and processes) the code could
/// get: Yuen's interval of a trimmed mean, the estimate -+ Student's t (with `L - 2g - 1`
/// degrees of freedom, `g` the layouts trimmed from each end, at `level`) times the winsorized
/// standard deviation over `(1 - 0.4) sqrt(L)`. Below five layouts nothing is trimmed (the
/// mean and Student's t). A percentile interval over a few layouts could never be wider than
/// their range, so a case that layout alone moves would exclude 1.00 too often. With one
/// layout, the percentile interval of its pairs (layout not varied). `None` without pairs.
pub fn ratio_over_layouts(layouts: &[Vec<f64>], level: f64) -> Option<LayoutRatio> {
    let layouts: Vec<&Vec<f64>> = layouts.iter().filter(|l| !l.is_empty()).collect();
    let per_layout: Vec<f64> = layouts.iter().map(|l| median(&mut l.to_vec())).collect();
    let ratio = match per_layout.len() {
        0 => return None,
        1 => one_layout(layouts[0], per_layout[0], level),
        _ => {
            let t = TrimmedMean::of(&per_layout);
            let half = student_t_quantile(1.0 - (1.0 - level) / 2.0, t.df) * t.se;
            Ratio {
                value: t.value.exp(),
                lower: (t.value - half).exp(),
                upper: (t.value + half).exp(),
            }
        }
    };
    Some(LayoutRatio {
        ratio,
        per_layout: per_layout.into_iter().map(f64::exp).collect(),
    })
}

/// The percentile interval of one layout's median pair ratio, from a bootstrap of its pairs.
fn one_layout(pairs: &[f64], estimate: f64, level: f64) -> Ratio {
    let (mut rng, mut scratch) = (Rng::new(SEED), Vec::new());
    let draws = (0..LAYOUT_RESAMPLES)
        .map(|_| resample(pairs, &mut scratch, &mut rng))
        .collect();
    let r = percentiles(estimate, draws, level);
    Ratio {
        value: r.value.exp(),
        lower: r.lower.exp(),
        upper: r.upper.exp(),
    }
}

/// A 20 % trimmed mean with its standard error and degrees of freedom (Tukey and McLaughlin;
/// Yuen): `g = floor(0.2 n)` values cut from each end, the cut ones replaced by their nearest
/// kept neighbour for the variance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrimmedMean {
    /// The mean of the kept values.
    pub value: f64,
    /// Its standard error: the winsorized standard deviation over `(1 - 2g/n) sqrt(n)`.
    pub se: f64,
    /// `n - 2g - 1`.
    pub df: f64,
}

impl TrimmedMean {
    /// Of two or more values.
    pub fn of(values: &[f64]) -> Self {
        let mut v = values.to_vec();
        v.sort_unstable_by(f64::total_cmp);
        let n = v.len();
        let g = if n >= 5 { n / 5 } else { 0 };
        let value = mean(&v[g..n - g]);
        let winsorized: Vec<f64> = (0..n).map(|i| v[i.clamp(g, n - 1 - g)]).collect();
        let kept = (n - 2 * g) as f64;
        Self {
            value,
            se: std_dev(&winsorized) * (n as f64).sqrt() / kept,
            df: kept - 1.0,
        }
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn std_dev(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0).max(1.0)).sqrt()
}

/// The `p` quantile of Student's t with `df` degrees of freedom (`p` in (0.5, 1)), by
/// bisection on its distribution function.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1e7_f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if student_t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// P(T <= t) for t >= 0: 1 - I_x(df/2, 1/2) / 2 with x = df / (df + t^2).
fn student_t_cdf(t: f64, df: f64) -> f64 {
    1.0 - 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
}

/// The regularized incomplete beta function I_x(a, b) (continued fraction, as in Numerical
/// Recipes' `betai`).
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / if d.abs() < TINY { TINY } else { d };
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        for aa in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + aa * d;
            d = 1.0 / if d.abs() < TINY { TINY } else { d };
            c = 1.0 + aa / c;
            c = if c.abs() < TINY { TINY } else { c };
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = G[1..]
        .iter()
        .enumerate()
        .fold(G[0], |s, (i, g)| s + g / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}
