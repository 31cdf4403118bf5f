//! Paired wall time: the sampler's pairing and the interval arithmetic over layouts, on
//! synthetic samples whose true ratio is known.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wirelab_bench::compare::{self, PairedDesign, PairedWall, Side, WallMethod};
use wirelab_bench::report::bootstrap::{TrimmedMean, ratio_over_layouts, student_t_quantile};
use wirelab_bench::rng::Rng;
use wirelab_bench::sampler::{self, Pairs, Settings, Timed};

/// Noise of about +-`spread` (relative), symmetric in log space.
fn noise(rng: &mut Rng, spread: f64) -> f64 {
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    ((u - 0.5) * 2.0 * spread).exp()
}

/// `layouts` layouts of `pairs` pairs each: BASE at 100 ns times a drift common to both sides
/// of the pair (up to 3x), NEW at `ratio(l)` times that, each batch with its own small noise.
fn synthetic(layouts: usize, pairs: usize, ratio: impl Fn(usize) -> f64) -> Vec<Vec<f64>> {
    let mut rng = Rng::new(7);
    (0..layouts)
        .map(|l| {
            let mut p = Pairs {
                iters: 10,
                ..Pairs::default()
            };
            for i in 0..pairs {
                let drift = 1.0 + 2.0 * ((i * 7919) % 101) as f64 / 100.0;
                p.base_ns.push(100.0 * drift * noise(&mut rng, 0.02));
                p.new_ns
                    .push(100.0 * ratio(l) * drift * noise(&mut rng, 0.02));
            }
            p.log_ratios()
        })
        .collect()
}

#[test]
fn student_t_quantiles_match_the_tables() {
    for (p, df, table) in [
        (0.975, 4.0, 2.776),
        (0.975, 30.0, 2.042),
        (0.9995, 4.0, 8.610),
        (0.995, 7.0, 3.499),
        (0.975, 1.0, 12.706),
    ] {
        let t = student_t_quantile(p, df);
        assert!(
            (t - table).abs() < 0.002,
            "t({p}, {df}) = {t}, tables say {table}"
        );
    }
}

#[test]
fn a_known_ratio_is_recovered() {
    let layouts = synthetic(6, 200, |_| 1.10);
    let r = ratio_over_layouts(&layouts, 0.999).unwrap();
    assert!((r.ratio.value - 1.10).abs() < 0.005, "{r:?}");
    assert!(r.ratio.lower > 1.08 && r.ratio.upper < 1.12, "{r:?}");
    assert!(r.ratio.lower <= 1.10 && r.ratio.upper >= 1.10, "{r:?}");
}

#[test]
fn drift_common_to_both_sides_cancels() {
    // The drift triples the times within every layout; the ratio of medians of the unpaired
    // samples would carry that spread, the pairs do not.
    let layouts = synthetic(5, 100, |_| 1.05);
    let r = ratio_over_layouts(&layouts, 0.95).unwrap();
    assert!((r.ratio.value - 1.05).abs() < 0.005, "{r:?}");
    assert!(r.ratio.upper - r.ratio.lower < 0.02, "{r:?}");
}

#[test]
fn a_layout_bias_that_flips_widens_the_interval_instead_of_moving_the_ratio() {
    let flip = |l: usize| {
        if l.is_multiple_of(2) {
            1.10
        } else {
            1.0 / 1.10
        }
    };
    let layouts = synthetic(6, 200, flip);
    let r = ratio_over_layouts(&layouts, 0.95).unwrap();
    assert!((r.ratio.value - 1.0).abs() < 0.01, "{r:?}");
    assert!(r.ratio.lower < 0.95 && r.ratio.upper > 1.05, "{r:?}");
    let (lo, hi) = (
        r.per_layout.iter().copied().fold(f64::MAX, f64::min),
        r.per_layout.iter().copied().fold(f64::MIN, f64::max),
    );
    assert!(lo < 0.92 && hi > 1.08, "per layout {:?}", r.per_layout);
    // The same bias in one layout only is what one build would have reported.
    let one = ratio_over_layouts(&layouts[..1], 0.95).unwrap();
    assert!(one.ratio.lower > 1.08, "{one:?}");
}

#[test]
fn a_layout_that_moves_one_case_alone_still_contains_one_in_an_a_a() {
    // Five layouts, all on one side of 1 by chance: a percentile interval over five layouts
    // would exclude 1.00; Student's t over layouts does not.
    let layouts = synthetic(5, 200, |l| [1.01, 1.03, 1.02, 1.05, 1.015][l]);
    let r = ratio_over_layouts(&layouts, 0.999).unwrap();
    assert!(r.ratio.lower < 1.0, "{r:?}");
}

#[test]
fn the_trimmed_mean_cuts_a_fifth_from_each_end_and_winsorizes_its_variance() {
    let t = TrimmedMean::of(&[9.0, 1.0, 2.0, 3.0, 100.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    assert!((t.value - 5.5).abs() < 1e-12, "{t:?}");
    // Winsorized: 3 3 3 4 5 6 7 8 8 8, standard deviation 2.1731; over (6 / 10) sqrt(10).
    assert!((t.se - 1.145_307).abs() < 1e-5, "{t:?}");
    assert_eq!(t.df, 5.0);
    // Below five values nothing is cut: the mean.
    let small = TrimmedMean::of(&[1.0, 2.0, 3.0, 10.0]);
    assert_eq!((small.value, small.df), (4.0, 3.0));
}

#[test]
fn one_disturbed_layout_does_not_decide_the_ratio() {
    // Sixteen layouts of an A/A, one of them disturbed (1.25 for the whole case), at the
    // level compare uses for 130 cases: the interval holds 1.00 and stays within +-3 %.
    let layouts = synthetic(16, 100, |l| if l == 5 { 1.25 } else { 1.0 });
    let r = ratio_over_layouts(&layouts, 1.0 - 0.05 / 130.0).unwrap();
    assert!(r.ratio.lower < 1.0 && r.ratio.upper > 1.0, "{r:?}");
    assert!(r.ratio.lower > 0.97 && r.ratio.upper < 1.03, "{r:?}");
    // A real +10 % in every layout, with the same disturbance, still excludes 1.03.
    let slow = synthetic(16, 100, |l| if l == 5 { 1.35 } else { 1.10 });
    let r = ratio_over_layouts(&slow, 1.0 - 0.05 / 130.0).unwrap();
    assert!(
        r.ratio.lower > 1.03 && (r.ratio.value - 1.10).abs() < 0.01,
        "{r:?}"
    );
}

/// A runner that counts its runs and spins `work` times.
fn spinner(work: u64, runs: Rc<Cell<u64>>) -> Box<dyn FnMut() -> u64> {
    Box::new(move || {
        runs.set(runs.get() + 1);
        (0..work).fold(0u64, |a, i| std::hint::black_box(a.wrapping_add(i)))
    })
}

#[test]
fn pairs_run_both_sides_equally_and_stop_when_precise_or_at_the_cap() {
    let settings = Settings {
        batch_ns: 50_000,
        warmup_ns: 1_000_000,
        min_pairs: 8,
        precision: f64::INFINITY,
        max_ns: 2_000_000_000,
        seed: 3,
        placements: 1,
    };
    let (b, n) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let (mut base, mut new) = (spinner(100, b.clone()), spinner(100, n.clone()));
    let pairs = sampler::sample(
        std::slice::from_mut(&mut base),
        std::slice::from_mut(&mut new),
        &settings,
        &mut Rng::new(1),
    );
    // An unbounded precision is met as soon as it is looked at: after the minimum.
    assert_eq!(pairs.base_ns.len(), 8);
    assert_eq!(pairs.new_ns.len(), 8);
    assert!(pairs.iters >= 1);
    assert_eq!(b.get(), n.get(), "both sides ran as often");
    // A precision never met stops at the time cap.
    let capped = Settings {
        precision: 0.0,
        max_ns: 20_000_000,
        ..settings
    };
    let started = std::time::Instant::now();
    let pairs = sampler::sample(
        std::slice::from_mut(&mut base),
        std::slice::from_mut(&mut new),
        &capped,
        &mut Rng::new(1),
    );
    assert!(pairs.base_ns.len() > 8);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn a_layout_times_the_cases_both_sides_have_and_carries_their_digests() {
    let timed = |id: &str, digest: &str| Timed {
        id: id.to_owned(),
        digest: digest.to_owned(),
        run: spinner(10, Rc::new(Cell::new(0))),
    };
    let settings = Settings {
        batch_ns: 10_000,
        warmup_ns: 100_000,
        min_pairs: 8,
        precision: f64::INFINITY,
        max_ns: 10_000_000,
        seed: 1,
        placements: 1,
    };
    let base = vec![timed("e/w/a", "1"), timed("e/w/b", "2")];
    let new = vec![timed("e/w/b", "3"), timed("e/w/c", "4")];
    let mut heard = Vec::new();
    let (base, new) = (
        sampler::placed(vec![base]).unwrap(),
        sampler::placed(vec![new]).unwrap(),
    );
    let run = sampler::run_layout(base, new, &settings, &mut |_, _, id| {
        heard.push(id.to_owned())
    });
    assert_eq!(heard, ["e/w/b"]);
    let case = &run.cases["e/w/b"];
    assert_eq!(
        (case.base_digest.as_str(), case.new_digest.as_str()),
        ("2", "3")
    );
    assert_eq!(case.pairs.base_ns.len(), 8);
}

#[test]
fn compare_takes_wall_time_from_the_pairs_and_says_so() {
    let side = |digest: &str| Side {
        digests: BTreeMap::from([("e/w/v".parse().unwrap(), digest.to_owned())]),
        ..Side::default()
    };
    let paired = PairedWall {
        design: PairedDesign {
            layouts: 6,
            processes: 1,
            placements: 1,
            ..PairedDesign::default()
        },
        cases: BTreeMap::from([("e/w/v".parse().unwrap(), synthetic(6, 100, |_| 1.2))]),
    };
    let cmp = compare::compare("a", "b", &side("x"), &side("x"), Some(&paired));
    assert_eq!(
        cmp.wall_method,
        Some(WallMethod::Paired(PairedDesign {
            layouts: 6,
            processes: 1,
            placements: 1,
            ..PairedDesign::default()
        }))
    );
    let wall = cmp.cases[0].wall.as_ref().unwrap();
    assert!((wall.ratio - 1.2).abs() < 0.01, "{wall:?}");
    assert_eq!(wall.layouts.len(), 6);
    let md = compare::markdown(&cmp);
    assert!(md.contains("6 link layouts"), "{md}");
    assert!(md.contains("layouts 1.1"), "{md}");
    let json = serde_json::to_string(&cmp).unwrap();
    let back: compare::Comparison = serde_json::from_str(&json).unwrap();
    assert_eq!(back, cmp);
}

#[test]
fn the_markdown_says_how_many_processes_each_layout_ran() {
    let side = Side {
        digests: BTreeMap::from([("e/w/v".parse().unwrap(), "x".to_owned())]),
        ..Side::default()
    };
    let paired = PairedWall {
        design: PairedDesign {
            layouts: 6,
            max_layouts: 14,
            precision: 0.01,
            processes: 3,
            placements: 2,
        },
        cases: BTreeMap::from([(
            "e/w/v".parse().unwrap(),
            synthetic(14, 100, |l| 1.0 + 0.3 * (l % 2) as f64),
        )]),
    };
    let md = compare::markdown(&compare::compare("a", "b", &side, &side, Some(&paired)));
    assert!(
        md.contains("6 link layouts (section orders), 3 processes each"),
        "{md}"
    );
    assert!(md.contains("inputs placed 2 times"), "{md}");
    assert!(
        md.contains("wider than +-1.0 % after them got more layouts, up to 14"),
        "{md}"
    );
    assert!(md.contains("; 14 layouts "), "{md}");
    let old: WallMethod = serde_json::from_str(r#"{"method":"paired","layouts":16}"#).unwrap();
    assert_eq!(
        old,
        WallMethod::Paired(PairedDesign {
            layouts: 16,
            processes: 1,
            placements: 1,
            ..PairedDesign::default()
        })
    );
}

#[test]
fn the_ladder_times_each_variant_against_its_baseline_and_not_the_baseline_itself() {
    let timed = |id: &str, work: u64| Timed {
        id: id.to_owned(),
        digest: format!("digest of {id}"),
        run: spinner(work, Rc::new(Cell::new(0))),
    };
    let settings = Settings {
        batch_ns: 20_000,
        warmup_ns: 200_000,
        min_pairs: 8,
        precision: f64::INFINITY,
        max_ns: 20_000_000,
        seed: 2,
        placements: 1,
    };
    let rungs = vec![
        sampler::Rungs {
            baseline: timed("e/w1/naive", 4_000),
            others: vec![timed("e/w1/fast", 1_000), timed("e/w1/same", 4_000)],
        },
        sampler::Rungs {
            baseline: timed("e/w2/naive", 100),
            others: Vec::new(),
        },
    ];
    let mut heard = Vec::new();
    let run = sampler::run_ladder(vec![rungs], &settings, &mut |_, total, id| {
        heard.push((id.to_owned(), total))
    })
    .unwrap();
    assert_eq!(
        heard,
        [("e/w1/fast".to_owned(), 2), ("e/w1/same".to_owned(), 2)]
    );
    let fast = &run.cases["e/w1/fast"];
    assert_eq!(fast.base_digest, "digest of e/w1/naive");
    assert_eq!(fast.new_digest, "digest of e/w1/fast");
    // A quarter of the work (ln 0.25 = -1.39): well under the baseline's time in most pairs
    // (the median, so that a pair disturbed by the tests running beside it does not decide).
    let mut logs = fast.pairs.log_ratios();
    logs.sort_by(f64::total_cmp);
    assert!(logs[logs.len() / 2] < -0.5, "{logs:?}");
    assert!(!run.cases.contains_key("e/w1/naive"));
}

#[test]
fn a_speed_up_the_layouts_alone_move_more_than_its_effect_is_not_ranked() {
    use wirelab_bench::records::{LayoutSpeedup, Record, Samples, Wall};
    use wirelab_bench::report::view::Speedup;
    let timed = || Wall {
        median_ns: 10.0,
        lower_ns: 9.0,
        upper_ns: 11.0,
        samples: Samples::default(),
        pace: None,
    };
    let with = |value: f64, layouts: Vec<f64>| Record {
        wall: Some(timed()),
        ladder: Some(LayoutSpeedup {
            value,
            lower: value * 0.97,
            upper: value * 1.03,
            layouts,
            placements: 3,
        }),
        ..Record::default()
    };
    let base = Record {
        wall: Some(timed()),
        ..Record::default()
    };
    let fmt_speedup = |base: &Record, r: &Record| Speedup::of(base, r).map(|s| s.text());
    // 1.04 with layouts from 0.95 to 1.12: the layouts move it by 0.17, the effect is 0.04.
    let noisy = with(1.04, vec![0.95, 1.12, 1.05]);
    assert!(noisy.ladder.as_ref().unwrap().within_layout_spread());
    assert_eq!(
        fmt_speedup(&base, &noisy).unwrap(),
        "≈ within layout spread (0.95-1.12)"
    );
    // 1.50 with layouts from 1.45 to 1.55: ranked, with its interval.
    let clear = with(1.5, vec![1.45, 1.55, 1.5]);
    assert!(!clear.ladder.as_ref().unwrap().within_layout_spread());
    assert_eq!(fmt_speedup(&base, &clear).unwrap(), "1.50x [1.46, 1.54]");
    // One layout: no spread to speak of.
    assert!(
        !with(1.01, vec![1.01])
            .ladder
            .unwrap()
            .within_layout_spread()
    );
}

#[test]
fn pairs_go_round_the_placements_and_setups_that_differ_are_refused() {
    let counters: Vec<Rc<Cell<u64>>> = (0..4).map(|_| Rc::new(Cell::new(0))).collect();
    let timed = |id: &str, digest: &str, runs: &Rc<Cell<u64>>| Timed {
        id: id.to_owned(),
        digest: digest.to_owned(),
        run: spinner(10, runs.clone()),
    };
    let setups = |first: usize| {
        vec![
            vec![timed("e/w/v", "d", &counters[first])],
            vec![timed("e/w/v", "d", &counters[first + 1])],
        ]
    };
    let (mut base, mut new) = (
        sampler::placed(setups(0)).unwrap(),
        sampler::placed(setups(2)).unwrap(),
    );
    assert_eq!(base[0].runs.len(), 2);
    let settings = Settings {
        batch_ns: 10_000,
        warmup_ns: 0,
        min_pairs: 8,
        precision: f64::INFINITY,
        max_ns: 10_000_000,
        seed: 1,
        placements: 2,
    };
    let pairs = sampler::sample(
        &mut base[0].runs,
        &mut new[0].runs,
        &settings,
        &mut Rng::new(1),
    );
    assert_eq!(pairs.base_ns.len(), 8);
    // Four pairs in each placement, with equal batches: each placement of a side ran as often.
    let runs: Vec<u64> = counters.iter().map(|c| c.get()).collect();
    assert!(runs.iter().all(|&r| r >= 4 * pairs.iters), "{runs:?}");
    assert_eq!(runs[0], runs[1], "{runs:?}");
    assert_eq!(runs[2], runs[3], "{runs:?}");
    // A second setup whose case gave another output is not a placement of the same case.
    let other = vec![
        vec![timed("e/w/v", "d", &counters[0])],
        vec![timed("e/w/v", "other", &counters[1])],
    ];
    let err = sampler::placed(other).err().unwrap();
    assert!(err.contains("e/w/v"), "{err}");
}
