//! `cargo lab compare`'s computation: which cases a selection keeps, the JSON shape scripts
//! read, and the gates.

use wirelab_bench::catalog::CaseId;
use wirelab_bench::compare::{self, Gate, Side};
use wirelab_bench::records::{Alloc, Samples};
use wirelab_bench::report::bootstrap;
use wirelab_bench::selection::Selection;

fn samples(ns: f64, n: usize, jitter: f64) -> Samples {
    Samples {
        iters: vec![10.0; n],
        times_ns: (0..n)
            .map(|i| 10.0 * ns * (1.0 + jitter * ((i % 7) as f64 - 3.0) / 3.0))
            .collect(),
    }
}

fn alloc(blocks: u64, bytes: u64) -> Alloc {
    Alloc {
        runs: 4,
        blocks,
        bytes,
        peak_bytes: 0,
    }
}

fn id(text: &str) -> CaseId {
    text.parse().unwrap()
}

/// A side with the given cases: (id, digest, instructions, blocks, wall ns).
fn side(cases: &[(&str, &str, u64, u64, f64)]) -> Side {
    let mut s = Side::default();
    for &(id, digest, ir, blocks, ns) in cases {
        s.digests.insert(self::id(id), digest.into());
        s.instructions.insert(self::id(id), ir);
        s.alloc.insert(self::id(id), alloc(blocks, blocks * 100));
        s.wall.insert(self::id(id), vec![samples(ns, 20, 0.01); 3]);
    }
    s
}

fn fixture() -> (Side, Side) {
    let base = side(&[
        ("crc/sliced/adaptive", "a", 1000, 0, 100.0),
        ("crc/sliced/contiguous", "b", 800, 0, 80.0),
        ("latin1/ascii-8/naive", "c", 50, 1, 10.0),
        ("crc/frag-64/adaptive", "d", 500, 0, 50.0),
    ]);
    let new = side(&[
        ("crc/sliced/adaptive", "a", 1100, 0, 110.0),
        ("crc/sliced/contiguous", "b", 800, 0, 80.0),
        ("latin1/ascii-8/naive", "CHANGED", 50, 2, 10.0),
        ("crc/compact/adaptive", "e", 10, 0, 1.0),
    ]);
    (base, new)
}

#[test]
fn cases_are_matched_by_id_sorted_by_change_and_unchanged_ones_folded() {
    let (base, new) = fixture();
    let cmp = compare::compare("base", "new", &base, &new, None);
    let ids: Vec<String> = cmp.cases.iter().map(|c| c.case.to_string()).collect();
    // The changed output first, then the 10 % slowdown, then the unchanged case.
    assert_eq!(
        ids,
        [
            "latin1/ascii-8/naive",
            "crc/sliced/adaptive",
            "crc/sliced/contiguous"
        ]
    );
    assert_eq!(cmp.added, [id("crc/compact/adaptive")]);
    assert_eq!(cmp.removed, [id("crc/frag-64/adaptive")]);
    let slow = &cmp.cases[1];
    assert!((slow.instructions_pct().unwrap() - 10.0).abs() < 1e-9);
    let wall = slow.wall.clone().unwrap();
    assert!(
        wall.lower > 1.05 && wall.upper < 1.15,
        "{wall:?} should bracket 1.10"
    );
    let same = &cmp.cases[2];
    assert!(same.unchanged(), "{same:?}");
    assert!(same.wall.as_ref().unwrap().spans_one());
    let md = compare::markdown(&cmp);
    assert!(md.contains("1 of 3 cases unchanged"), "{md}");
    assert!(md.contains("**changed**"), "{md}");
    assert!(
        !md.contains("| crc/sliced/contiguous |"),
        "unchanged cases are folded: {md}"
    );
}

#[test]
fn a_selection_keeps_only_its_cases() {
    let (mut base, _) = fixture();
    let sel = Selection::parse(&["crc/*/adaptive"]).unwrap();
    base.retain(&sel);
    let ids: Vec<String> = base.digests.keys().map(ToString::to_string).collect();
    assert_eq!(ids, ["crc/frag-64/adaptive", "crc/sliced/adaptive"]);
    assert_eq!(base.wall.len(), 2);
    assert_eq!(base.instructions.len(), 2);
    let sel = Selection::parse(&["latin1"]).unwrap();
    assert!(sel.wants_case(&id("latin1/ascii-8/naive")));
    assert!(!sel.wants_case(&id("crc/sliced/adaptive")));
    assert!(
        "latin1".parse::<CaseId>().is_err(),
        "a malformed id is not an id"
    );
}

#[test]
fn the_json_has_the_documented_shape() {
    let (base, new) = fixture();
    let cmp = compare::compare("HEAD~1 (abc)", "working tree", &base, &new, None);
    let v = serde_json::to_value(&cmp).unwrap();
    assert_eq!(v["base"], "HEAD~1 (abc)");
    assert_eq!(v["new"], "working tree");
    let case = &v["cases"][1];
    assert_eq!(case["case"], "crc/sliced/adaptive");
    assert_eq!(case["instructions"]["base"], 1000);
    assert_eq!(case["instructions"]["new"], 1100);
    assert_eq!(case["alloc"]["base"]["blocks"], 0);
    assert_eq!(case["alloc"]["new"]["bytes"], 0);
    for k in ["ratio", "lower", "upper"] {
        assert!(case["wall"][k].is_f64(), "wall.{k} in {case}");
    }
    assert_eq!(case["output_changed"], false);
    assert_eq!(v["cases"][0]["output_changed"], true);
    let back: compare::Comparison = serde_json::from_value(v).unwrap();
    assert_eq!(back, cmp);
    let bmf = compare::bmf(&cmp);
    assert_eq!(bmf["crc/sliced/adaptive"]["instructions"]["value"], 1100);
    assert!(bmf["crc/sliced/adaptive"]["wall-ratio"]["lower_value"].is_f64());
}

#[test]
fn gates_parse_and_fire_only_beyond_their_threshold() {
    let parse = |s: &str| s.parse::<Gate>();
    assert_eq!(parse("instructions>+1%"), Ok(Gate::Instructions(1.0)));
    assert_eq!(parse("wall>+5%"), Ok(Gate::Wall(5.0)));
    assert_eq!(parse("blocks>0%"), Ok(Gate::Blocks(0.0)));
    assert_eq!(parse("output-changed"), Ok(Gate::OutputChanged));
    for bad in ["instructions>1", "speed>+1%", "wall+5%", "wall>x%"] {
        assert!(parse(bad).is_err(), "{bad} should not parse");
    }
    let (base, new) = fixture();
    let cmp = compare::compare("base", "new", &base, &new, None);
    let cases = |gates: &[Gate]| -> Vec<String> {
        compare::offenders(&cmp, gates)
            .into_iter()
            .map(|(c, _)| c.to_string())
            .collect()
    };
    assert_eq!(cases(&[Gate::Instructions(1.0)]), ["crc/sliced/adaptive"]);
    assert!(cases(&[Gate::Instructions(10.5)]).is_empty());
    // The whole interval (about [1.08, 1.12]) must lie beyond the threshold.
    assert_eq!(cases(&[Gate::Wall(5.0)]), ["crc/sliced/adaptive"]);
    assert!(cases(&[Gate::Wall(10.0)]).is_empty());
    assert_eq!(cases(&[Gate::OutputChanged]), ["latin1/ascii-8/naive"]);
    assert_eq!(cases(&[Gate::Blocks(0.0)]), ["latin1/ascii-8/naive"]);
}

#[test]
fn a_difference_between_rounds_widens_the_interval_instead_of_passing_for_a_change() {
    // The same code timed in three rounds per side; on a shared machine one round of each side
    // ran 40 % slow, in a different position. Pooled, the samples would differ by side; as
    // rounds, no difference can be claimed.
    let round = |ns: f64| samples(ns, 20, 0.01);
    let base = vec![round(100.0), round(140.0), round(140.0)];
    let new = vec![round(100.0), round(100.0), round(140.0)];
    let w = bootstrap::ratio_of_rounds(&new, &base, 0.95).unwrap();
    assert!(w.spans_one(), "{w:?} should contain 1");
    // Rounds that agree keep the interval narrow: a 10 % slowdown is found.
    let steady = vec![round(100.0), round(102.0), round(98.0)];
    let slower = vec![round(110.0), round(112.2), round(107.8)];
    let w = bootstrap::ratio_of_rounds(&slower, &steady, 0.95).unwrap();
    assert!(!w.spans_one() && (w.value - 1.1).abs() < 0.01, "{w:?}");
}

#[test]
fn wall_intervals_are_simultaneous_over_the_timed_cases() {
    assert!((compare::simultaneous_level(1) - 0.95).abs() < 1e-12);
    assert!((compare::simultaneous_level(50) - 0.999).abs() < 1e-12);
    // The same samples give a wider interval at a higher level.
    let round = |ns: f64, j: f64| samples(ns, 20, j);
    let base = vec![round(100.0, 0.05), round(104.0, 0.05), round(97.0, 0.05)];
    let new = vec![round(101.0, 0.05), round(99.0, 0.05), round(103.0, 0.05)];
    let narrow = bootstrap::ratio_of_rounds(&new, &base, 0.95).unwrap();
    let wide = bootstrap::ratio_of_rounds(&new, &base, 0.999).unwrap();
    assert!(
        wide.lower <= narrow.lower && wide.upper >= narrow.upper,
        "{wide:?} should contain {narrow:?}"
    );
}

#[test]
fn an_unseeded_cells_count_moves_only_beyond_its_tolerance() {
    // loona-hpack's counts vary from run to run (a randomly seeded HashMap); the optimized
    // decoder's do not, so the same 0.6 % drift is a change there.
    const UA: &str = "huffman-decode/user-agent/loona-hpack";
    const OCTETS: &str = "huffman-decode/all-octets/loona-hpack";
    const OURS: &str = "huffman-decode/user-agent/optimized";
    let counts = |ua: u64, octets: u64| {
        side(&[
            (UA, "a", ua, 0, 100.0),
            (OCTETS, "b", octets, 0, 100.0),
            (OURS, "a", ua, 0, 100.0),
        ])
    };
    let (base, new) = (counts(181_903, 1_000_000), counts(180_751, 1_040_000));
    let cmp = compare::compare("base", "new", &base, &new, None);
    let case = |name: &str| {
        cmp.cases
            .iter()
            .find(|c| c.case.to_string() == name)
            .unwrap()
    };
    let within = case(UA);
    assert!(within.unseeded && !within.instructions_moved() && within.unchanged());
    let beyond = case(OCTETS);
    assert!(beyond.unseeded && beyond.instructions_moved() && !beyond.unchanged());
    let seeded = case(OURS);
    assert!(!seeded.unseeded && seeded.instructions_moved() && !seeded.unchanged());
    let md = compare::markdown(&cmp);
    assert!(md.contains("1 of 3 cases unchanged"), "{md}");
    let tripped: Vec<String> = compare::offenders(&cmp, &[Gate::Instructions(0.5)])
        .into_iter()
        .map(|(case, _)| case.to_string())
        .collect();
    assert_eq!(
        tripped,
        [OCTETS],
        "a drift within the tolerance trips no gate"
    );
    let json = serde_json::to_value(&cmp).unwrap();
    let flags: Vec<(String, bool)> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["case"].as_str().unwrap().to_owned(),
                c.get("unseeded").is_some(),
            )
        })
        .collect();
    assert_eq!(
        flags,
        [
            (OCTETS.into(), true),
            (OURS.into(), false),
            (UA.into(), true)
        ],
        "the JSON names the unseeded cases only"
    );
}
